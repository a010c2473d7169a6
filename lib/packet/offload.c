/* inetcsum_offload: the checksums a device cannot compute filled in software, the others left as
 * devices expect them (the late software fallback for checksum offload). */
#include "fast.h"
#include "general.h"
#include "verdict.h"

/* The offload kind of an item (INETCSUM_OFL_*), shifted for depth 1; 0 for depths no device has. */
static uint32_t kind_of(const struct ics_item *it)
{
    uint32_t k;
    switch (it->layer) {
    case INETCSUM_LAYER_IPV4:
        k = INETCSUM_OFL_IPV4;
        break;
    case INETCSUM_LAYER_TCP:
        k = it->over_ipv6 ? INETCSUM_OFL_TCP6 : INETCSUM_OFL_TCP4;
        break;
    case INETCSUM_LAYER_UDP:
        k = it->over_ipv6 ? INETCSUM_OFL_UDP6 : INETCSUM_OFL_UDP4;
        break;
    case INETCSUM_LAYER_SCTP:
        k = it->over_ipv6 ? INETCSUM_OFL_SCTP6 : INETCSUM_OFL_SCTP4;
        break;
    case INETCSUM_LAYER_FCS:
        return 0; /* a device's own, never a kind to request: left as it is */
    default:
        k = INETCSUM_OFL_OTHER;
    }
    return it->depth == 0 ? k : INETCSUM_OFL_INNER(k);
}

static int inside(const struct ics_item *in, const struct ics_item *out, size_t out_cov)
{
    return in->off >= out->off && (size_t)in->off + in->len <= (size_t)out->off + out_cov;
}

static int overlaps(const struct ics_item *a, const struct ics_item *b, size_t b_cov)
{
    return a->off < (size_t)b->off + b_cov && b->off < (size_t)a->off + a->len;
}

/* What a device-filled item's bytes will sum to once the device has filled it: an IPv4 header
 * sums to -0, a TCP/UDP message to the complement of its folded pseudo-header sum. */
static uint32_t device_contribution(const struct ics_item *it)
{
    return it->layer == INETCSUM_LAYER_IPV4 ? 0xFFFF : (uint16_t)~inetcsum_fold(it->pseudo);
}

/* The covered sum of software item i, counting each device item inside it by its contribution
 * instead of reading it (so the inner payload of a device-filled checksum is never read). */
static uint32_t offload_sum(const struct ics_view *v, const struct ics_parsed *p, const uint8_t *device, unsigned i,
                            size_t cov)
{
    const struct ics_item *it = &p->item[i];
    size_t pos = it->off, end = (size_t)it->off + cov;
    uint32_t sum = 0;
    for (unsigned j = i + 1; j < p->n; j++) {
        const struct ics_item *in = &p->item[j];
        if (!device[j] || in->off < pos || !inside(in, it, cov))
            continue;
        sum = inetcsum_block_add(sum, ics_view_sum(v, pos, in->off - pos, 0), pos - it->off);
        sum = inetcsum_block_add(sum, device_contribution(in), in->off - it->off);
        pos = (size_t)in->off + in->len;
    }
    return inetcsum_block_add(sum, ics_view_sum(v, pos, end - pos, 0), pos - it->off);
}

static uint32_t offload_view(const struct ics_view *view, enum inetcsum_link link, const struct inetcsum_offload *o,
                             struct inetcsum_report *report)
{
    const struct ics_view v = *view;
    struct ics_parsed p;
    ics_parse(&v, v.len, link, &p, NULL);
    uint8_t device[INETCSUM_MAX_CHECKS], skip[INETCSUM_MAX_CHECKS];
    size_t cov[INETCSUM_MAX_CHECKS];

    /* One checksum for the device: the innermost it could take, the only one it may. */
    unsigned only = p.n;
    for (unsigned j = 0; (o->flags & INETCSUM_OFFLOAD_ONE_CHECKSUM) && j < p.n; j++) {
        const struct ics_item *it = &p.item[j];
        const uint32_t kind = kind_of(it);
        /* (the device sums from the start to the frame's end: a checksum whose coverage stops
         * short of it, before Ethernet padding or a trailer, is not one it can fill) */
        if (!(it->flags & (ICS_UNSURE | INETCSUM_CHECK_QUOTED)) && (o->request & kind) && (o->device & kind) &&
            it->depth <= 1 && (it->layer == INETCSUM_LAYER_TCP || it->layer == INETCSUM_LAYER_UDP) &&
            (size_t)it->off + ics_item_coverage(&v, it) == v.len)
            only = j;
    }

    /* Decide outermost first: a device item under a software checksum that cannot count it by its
     * contribution (an SCTP CRC, or one that sticks out of the covered bytes) goes to software. */
    for (unsigned j = 0; j < p.n; j++) {
        const struct ics_item *it = &p.item[j];
        uint32_t kind = (o->flags & INETCSUM_OFFLOAD_TWO_LEVELS) && it->depth > 1 ? 0 : kind_of(it);
        cov[j] = (it->flags & ICS_UNSURE) ? 0 : ics_item_coverage(&v, it);
        skip[j] = (it->flags & (ICS_UNSURE | INETCSUM_CHECK_QUOTED)) || cov[j] == 0 || !(o->request & kind);
        device[j] = !skip[j] && (o->device & kind) && it->depth <= 1 && kind != INETCSUM_OFL_OTHER &&
                    kind != INETCSUM_OFL_INNER(INETCSUM_OFL_OTHER) &&
                    (!(o->flags & INETCSUM_OFFLOAD_ONE_CHECKSUM) || j == only);
        for (unsigned i = 0; device[j] && i < j; i++)
            if (!skip[i] && !device[i] && overlaps(it, &p.item[i], cov[i]) &&
                (it->layer == INETCSUM_LAYER_SCTP || !inside(it, &p.item[i], cov[i])))
                device[j] = 0;
    }

    uint32_t software = 0;
    for (unsigned i = p.n; i-- > 0;) {
        const struct ics_item *it = &p.item[i];
        /* A software item's verdict is made below; the old one is wanted only for the report. */
        struct inetcsum_verdict vd = {0};
        if (report && (skip[i] || device[i]))
            vd = ics_item_judge(&v, it, 0, 0);
        unsigned extra = 0;
        if (skip[i]) {
            /* left alone */
        } else if (device[i]) {
            struct inetcsum_verdict seed = vd;
            seed.expected = 0;
            if (it->pseudo && !(o->flags & INETCSUM_OFFLOAD_ZERO_SEED))
                seed.expected = ics_net16(inetcsum_fold(it->pseudo));
            ics_item_store_expected(&v, it, &seed);
            vd.expected = seed.expected;
            extra = INETCSUM_CHECK_DEVICE;
        } else {
            /* The field lies inside the frame: the parse checked the header holding it. */
            uint8_t sc[4];
            const uint8_t *field = ics_view_get(&v, ics_item_field_at(it), ics_item_field_width(it), sc);
            if (!field)
                continue;
            if (it->layer == INETCSUM_LAYER_SCTP) {
                vd = ics_sctp_verdict(ics_get_le32(field), ics_item_sctp_crc(&v, it));
            } else {
                uint16_t mem;
                memcpy(&mem, field, 2);
                vd = ics_inet_verdict((enum inetcsum_layer)it->layer, mem, offload_sum(&v, &p, device, i, cov[i]),
                                      it->pseudo, ics_item_verdict_flags(it, 0));
            }
            ics_item_store_expected(&v, it, &vd);
            extra = INETCSUM_CHECK_WRITTEN;
            software |= kind_of(it);
        }
        if (report)
            ics_report_check(&v, report, i, it, &vd, extra);
    }
    if (report)
        ics_report_frame(report, &p);
    return software;
}

uint32_t ics_offload_general(void *frame, size_t len, enum inetcsum_link link, const struct inetcsum_offload *o,
                             struct inetcsum_report *report)
{
    const struct ics_view v = ics_view_contiguous(frame, len);
    return offload_view(&v, link, o, report);
}

/* The device kinds one start-and-offset checksum can be: TCP and UDP, at the first two levels. */
#define ONE_CHECKSUM_KINDS                                                                                      \
    (INETCSUM_OFL_TCP4 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_TCP6 | INETCSUM_OFL_UDP6 |                            \
     INETCSUM_OFL_INNER(INETCSUM_OFL_TCP4 | INETCSUM_OFL_UDP4 | INETCSUM_OFL_TCP6 | INETCSUM_OFL_UDP6))

/* o, or with INETCSUM_OFFLOAD_ONE_CHECKSUM a copy in room whose device kinds are those. */
static const struct inetcsum_offload *one_checksum(const struct inetcsum_offload *o, struct inetcsum_offload *room)
{
    if (!(o->flags & INETCSUM_OFFLOAD_ONE_CHECKSUM))
        return o;
    *room = *o;
    room->device &= ONE_CHECKSUM_KINDS;
    return room;
}

uint32_t inetcsum_offload_iov(const struct iovec *seg, size_t nseg, enum inetcsum_link link,
                              const struct inetcsum_offload *o, struct inetcsum_report *report)
{
    /* Headers and payload in one buffer (the usual single-segment case): the shortcut applies;
     * and to a chain whose first segment holds the headers, the payload summed across them. */
    if (nseg == 1)
        return inetcsum_offload(seg[0].iov_base, seg[0].iov_len, link, o, report);
    struct inetcsum_offload one;
    o = one_checksum(o, &one);
    const struct ics_view v = ics_view_segments(seg, nseg);
    struct ics_fast fr;
    if (ics_fast_recognise_sg(&v, 0, link, &fr)) {
        if ((o->flags & INETCSUM_OFFLOAD_ONE_CHECKSUM) && (size_t)fr.l4 + fr.l4len != v.len)
            one.device = 0; /* (as in inetcsum_offload) */
        return ics_fast_write_sg((uint8_t *)seg[0].iov_base, &fr, 0, o, report, &v);
    }
    return offload_view(&v, link, o, report);
}

uint32_t inetcsum_offload(void *frame, size_t len, enum inetcsum_link link, const struct inetcsum_offload *o,
                          struct inetcsum_report *report)
{
    struct inetcsum_offload one;
    o = one_checksum(o, &one);
    struct ics_fast fr;
    if (ics_fast_recognise((const uint8_t *)frame, len, 0, link, &fr)) {
        /* (the shortcut's frames have one TCP or UDP checksum; one that stops short of the frame's
         * end is not a start-and-offset device's) */
        if ((o->flags & INETCSUM_OFFLOAD_ONE_CHECKSUM) && (size_t)fr.l4 + fr.l4len != len)
            one.device = 0;
        return ics_fast_write((uint8_t *)frame, &fr, 0, o, report);
    }
    return ics_offload_general(frame, len, link, o, report);
}
