/* Verify, fill and offload over a parsed frame; CHECKSUM_PARTIAL completion; local checksum
 * offload. */
#include <string.h>

#include "../proto/l4.h"
#include "fast.h"
#include "parse.h"
#include "paths.h"

#define ICS_UNSURE (INETCSUM_CHECK_FRAGMENT | INETCSUM_CHECK_TRUNCATED | INETCSUM_CHECK_MALFORMED)

/* The checksum field of an item: where it is and how wide. */
static size_t field_at(const struct ics_item *it)
{
    return (size_t)it->off + ics_l4_rules[it->layer].field;
}

static size_t field_width(const struct ics_item *it)
{
    return it->layer == INETCSUM_LAYER_SCTP ? 4 : 2;
}

/* The CRC32c of an SCTP message with its checksum field taken as zero. */
static uint32_t sctp_crc(const struct ics_view *v, const struct ics_item *it)
{
    static const uint8_t zero[4];
    uint32_t crc = ics_view_crc(v, it->off, ICS_SCTP_CHECK, 0);
    crc = inetcsum_crc32c(zero, 4, crc);
    return ics_view_crc(v, it->off + ICS_SCTP_HLEN, it->len - ICS_SCTP_HLEN, crc);
}

/* The bytes an Internet checksum covers from it->off (UDP-Lite: its coverage), 0 if illegal. */
static size_t coverage(const struct ics_view *v, const struct ics_item *it)
{
    if (it->layer != INETCSUM_LAYER_UDPLITE)
        return it->len;
    uint8_t sc[ICS_UDP_HLEN];
    const uint8_t *h = ics_view_get(v, it->off, ICS_UDP_HLEN, sc);
    return h ? ics_udplite_coverage(h, it->len) : 0;
}

static unsigned verdict_flags(const struct ics_item *it, unsigned flags)
{
    return flags | (it->over_ipv6 ? INETCSUM_OVER_IPV6 : 0);
}

/* The verdict on one item of a frame, with the frame as it is now, its Internet sum plus `undo`
 * (fill: what takes the inner fields it wrote back to what they were). */
static struct inetcsum_verdict judge(const struct ics_view *v, const struct ics_item *it, unsigned flags,
                                     uint32_t undo)
{
    struct inetcsum_verdict vd = {INETCSUM_UNVERIFIABLE, 0, 0};
    uint8_t sc[4];
    const uint8_t *f = ics_view_get(v, field_at(it), field_width(it), sc);
    if (!f)
        return vd;
    uint16_t mem;
    memcpy(&mem, f, 2);
    uint32_t stored_crc = it->layer == INETCSUM_LAYER_SCTP ? ics_get_le32(f) : 0;
    vd.stored = it->layer == INETCSUM_LAYER_SCTP ? __builtin_bswap32(stored_crc) : ics_net16(mem);
    if (it->len < ics_l4_rules[it->layer].min_len)
        return vd; /* the field lies outside the message */
    if (it->flags & (INETCSUM_CHECK_FRAGMENT | INETCSUM_CHECK_TRUNCATED)) {
        /* A UDP zero needs no data to be judged absent or illegal, even in a truncated quote. */
        if (mem == 0 && (it->layer == INETCSUM_LAYER_UDP || it->layer == INETCSUM_LAYER_UDPLITE)) {
            vd = ics_inet_verdict((enum inetcsum_layer)it->layer, 0, 0, 0, verdict_flags(it, flags));
            vd.expected = 0;
        }
        return vd;
    }
    /* A malformed one (longer than its frame) is checked on what is there, never written. */
    if (it->layer == INETCSUM_LAYER_SCTP)
        return ics_sctp_verdict(stored_crc, sctp_crc(v, it));
    size_t cov = coverage(v, it);
    if (cov == 0) {
        vd.status = INETCSUM_ILLEGAL;
        return vd;
    }
    return ics_inet_verdict((enum inetcsum_layer)it->layer, mem, ics_view_sum(v, it->off, cov, undo), it->pseudo,
                            verdict_flags(it, flags));
}

/* Stores a verdict's expected value in the item's field. */
static void store_expected(const struct ics_view *v, const struct ics_item *it, const struct inetcsum_verdict *vd)
{
    uint8_t b[4];
    ics_put_expected(b, vd->expected, field_width(it));
    ics_view_put(v, field_at(it), b, field_width(it));
}

static void report_check(const struct ics_view *v, struct inetcsum_report *r, unsigned i, const struct ics_item *it,
                         const struct inetcsum_verdict *vd, unsigned extra)
{
    struct inetcsum_check *c = &r->checks[i];
    c->layer = it->layer;
    c->depth = it->depth;
    c->status = (uint8_t)vd->status;
    c->flags = (uint8_t)(it->flags | extra);
    c->offset = it->off;
    c->length = (it->layer == INETCSUM_LAYER_UDPLITE && !(it->flags & ICS_UNSURE)) ? (uint32_t)coverage(v, it)
                                                                                 : it->len;
    c->stored = vd->stored;
    c->expected = vd->expected;
}

static int problem(enum inetcsum_status s)
{
    return s == INETCSUM_BAD || s == INETCSUM_PARTIAL || s == INETCSUM_ILLEGAL;
}

static unsigned verify_view(const struct ics_view *v, size_t wirelen, enum inetcsum_link link, unsigned flags,
                            struct inetcsum_report *report)
{
    struct ics_parsed parsed;
    ics_parse(v, wirelen ? wirelen : v->len, link, &parsed, NULL);
    unsigned problems = 0;
    for (unsigned i = 0; i < parsed.n; i++) {
        struct inetcsum_verdict vd = judge(v, &parsed.item[i], flags, 0);
        problems += problem(vd.status);
        report_check(v, report, i, &parsed.item[i], &vd, 0);
    }
    report->flags = parsed.flags;
    report->count = parsed.n;
    return problems;
}

/* A field fill wrote: where, how wide, and its bytes before and after. */
struct written_field {
    size_t at, width;
    uint8_t old[4], now[4];
};

/* What, added to the sum of it's coverage as the frame is now, gives its sum as it was before the
 * fields in w[0..n) were written: for each one it covers, its old bytes added and its new ones
 * subtracted (ones'-complement, at the parity of their place in the coverage). */
static uint32_t undo_writes(const struct ics_item *it, size_t cov, const struct written_field *w, unsigned n)
{
    uint32_t undo = 0;
    for (unsigned k = 0; k < n; k++) {
        if (w[k].at < it->off || w[k].at + w[k].width > it->off + cov)
            continue;
        const size_t odd = (w[k].at - it->off) & 1;
        const uint16_t before = ics_fold16(inetcsum_block_add(0, inetcsum_partial(w[k].old, w[k].width, 0), odd));
        const uint16_t after = ics_fold16(inetcsum_block_add(0, inetcsum_partial(w[k].now, w[k].width, 0), odd));
        undo = ics_add32(ics_add32(undo, before), (uint16_t)~after);
    }
    return undo;
}

static unsigned fill_view(const struct ics_view *v, size_t wirelen, enum inetcsum_link link, unsigned flags,
                          struct inetcsum_report *report)
{
    struct ics_parsed parsed;
    ics_parse(v, wirelen ? wirelen : v->len, link, &parsed, NULL);
    unsigned written = 0;
    struct written_field w[INETCSUM_MAX_CHECKS];
    /* Innermost first: an outer checksum covers the inner fields as they will be sent.  What is
     * reported is each checksum as it was before any write (as verify sees it): an outer one that
     * was right is reported good, and written when the inner writes made it wrong. */
    for (unsigned i = parsed.n; i-- > 0;) {
        const struct ics_item *it = &parsed.item[i];
        struct inetcsum_verdict vd = judge(v, it, flags, 0);
        struct inetcsum_verdict as_it_was = vd;
        if (written && it->layer != INETCSUM_LAYER_SCTP && !(it->flags & ICS_UNSURE)) {
            const uint32_t undo = undo_writes(it, coverage(v, it), w, written);
            if (undo)
                as_it_was = judge(v, it, flags, undo);
        }
        unsigned extra = 0;
        /* Never written: quoted, fragmented, truncated or malformed ones, and a UDP-Lite coverage
         * out of range (no value would be right). */
        if (!(it->flags & (ICS_UNSURE | INETCSUM_CHECK_QUOTED)) && vd.status != INETCSUM_UNVERIFIABLE &&
            coverage(v, it) != 0 && ics_fill_wanted(&vd, flags)) {
            struct written_field *f = &w[written];
            uint8_t sc[4];
            f->at = field_at(it);
            f->width = field_width(it);
            memcpy(f->old, ics_view_get(v, f->at, f->width, sc), f->width);
            ics_put_expected(f->now, vd.expected, f->width);
            ics_view_put(v, f->at, f->now, f->width);
            extra = INETCSUM_CHECK_WRITTEN;
            written++;
        } else if (problem(as_it_was.status) && vd.status == INETCSUM_GOOD) {
            extra = INETCSUM_CHECK_MENDED;
        }
        if (report) {
            as_it_was.expected = vd.expected; /* what the field holds now, or should */
            report_check(v, report, i, it, &as_it_was, extra);
        }
    }
    if (report) {
        report->flags = parsed.flags;
        report->count = parsed.n;
    }
    return written;
}

static struct ics_view contiguous(const void *frame, size_t caplen)
{
    struct ics_view v = {(uint8_t *)(uintptr_t)frame, NULL, 0, caplen};
    return v;
}

static struct ics_view segments(const struct iovec *seg, size_t nseg)
{
    struct ics_view v = {NULL, seg, nseg, 0};
    for (size_t i = 0; i < nseg; i++)
        v.len += seg[i].iov_len;
    return v;
}

/* The common case without the general walk (fast.h): the same report, the same problems. */
static unsigned verify_fast(const uint8_t *f, const struct ics_fast *fr, unsigned flags,
                            struct inetcsum_report *report)
{
    struct inetcsum_verdict l4 = ics_fast_l4_verdict(f, fr, ics_fast_pseudo(f, fr), flags);
    unsigned problems = problem(l4.status), n = 0;
    if (!fr->v6) {
        struct inetcsum_verdict ip = ics_fast_ipv4_verdict(f + fr->ip, flags);
        problems += problem(ip.status);
        ics_fast_report(&report->checks[n++], INETCSUM_LAYER_IPV4, fr->ip, 20, &ip, 0);
    }
    ics_fast_report(&report->checks[n++], fr->layer, fr->l4, fr->l4len, &l4, 0);
    report->flags = 0;
    report->count = n;
    return problems;
}

/* One common-case checksum for fill (o NULL: written as fill_view decides) or for offload (left
 * alone when not requested, seeded for the device, or computed, as inetcsum_offload treats an item
 * with nothing inside it).  Returns its report flags. */
static inline unsigned write_fast_item(uint8_t *field, struct inetcsum_verdict *vd, unsigned flags, uint32_t kind,
                                       uint32_t pseudo, const struct inetcsum_offload *o, uint32_t *software)
{
    if (!o) {
        if (!ics_fill_wanted(vd, flags))
            return 0;
    } else if (!(o->request & kind)) {
        return 0;
    } else if (o->device & kind) {
        vd->expected = pseudo && !(o->flags & INETCSUM_OFFLOAD_ZERO_SEED) ? ics_net16(ics_fold16(pseudo)) : 0;
        ics_put_expected(field, vd->expected, 2);
        return INETCSUM_CHECK_DEVICE;
    } else {
        *software |= kind;
    }
    ics_put_expected(field, vd->expected, 2);
    return INETCSUM_CHECK_WRITTEN;
}

/* fill or offload on the common case, innermost first as the general loops: returns the fields
 * written (fill) or the kinds computed in software (offload).  Inlined into each caller, where o
 * is NULL or not at compile time. */
static inline __attribute__((always_inline)) uint32_t write_fast(uint8_t *f, const struct ics_fast *fr,
                                                                unsigned flags, const struct inetcsum_offload *o,
                                                                struct inetcsum_report *report)
{
    uint32_t software = 0, pseudo = ics_fast_pseudo(f, fr);
    unsigned n = fr->v6 ? 1 : 2, written = 0;
    uint32_t kind = fr->layer == INETCSUM_LAYER_TCP ? (fr->v6 ? INETCSUM_OFL_TCP6 : INETCSUM_OFL_TCP4)
                                                    : (fr->v6 ? INETCSUM_OFL_UDP6 : INETCSUM_OFL_UDP4);
    /* Offload without a report needs no verdict of an item it leaves alone or to the device: the
     * device's TCP/UDP payload is then never read, only the pseudo-header. */
#define ICS_VERDICT_NEEDED(k) (!o || report || ((o->request & (k)) && !(o->device & (k))))
    struct inetcsum_verdict l4 = {0}, ip = {0};
    if (ICS_VERDICT_NEEDED(kind))
        l4 = ics_fast_l4_verdict(f, fr, pseudo, flags);
    unsigned l4_flags = write_fast_item(f + fr->l4 + ics_l4_rules[fr->layer].field, &l4, flags, kind, pseudo, o,
                                        &software);
    written += l4_flags == INETCSUM_CHECK_WRITTEN;
    if (report)
        ics_fast_report(&report->checks[n - 1], fr->layer, fr->l4, fr->l4len, &l4, l4_flags);
    if (!fr->v6) {
        if (ICS_VERDICT_NEEDED(INETCSUM_OFL_IPV4))
            ip = ics_fast_ipv4_verdict(f + fr->ip, flags);
#undef ICS_VERDICT_NEEDED
        unsigned ip_flags = write_fast_item(f + fr->ip + ICS_IPV4_CHECK, &ip, flags, INETCSUM_OFL_IPV4, 0, o, &software);
        written += ip_flags == INETCSUM_CHECK_WRITTEN;
        if (report)
            ics_fast_report(&report->checks[0], INETCSUM_LAYER_IPV4, fr->ip, ICS_IPV4_HLEN, &ip, ip_flags);
    }
    if (report) {
        report->flags = 0;
        report->count = n;
    }
    return o ? software : written;
}

unsigned ics_verify_general(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                            unsigned flags, struct inetcsum_report *report)
{
    struct ics_view v = contiguous(frame, caplen);
    return verify_view(&v, wirelen, link, flags, report);
}

unsigned ics_fill_general(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                          struct inetcsum_report *report)
{
    struct ics_view v = contiguous(frame, caplen);
    return fill_view(&v, wirelen, link, flags, report);
}

unsigned inetcsum_verify(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                         struct inetcsum_report *report)
{
    struct ics_fast fr;
    if (ics_fast_recognise((const uint8_t *)frame, caplen, wirelen, link, &fr))
        return verify_fast((const uint8_t *)frame, &fr, flags, report);
    return ics_verify_general(frame, caplen, wirelen, link, flags, report);
}

unsigned inetcsum_verify_iov(const struct iovec *seg, size_t nseg, size_t wirelen, enum inetcsum_link link,
                             unsigned flags, struct inetcsum_report *report)
{
    struct ics_view v = segments(seg, nseg);
    return verify_view(&v, wirelen, link, flags, report);
}

unsigned inetcsum_fill(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                       struct inetcsum_report *report)
{
    struct ics_fast fr;
    if (ics_fast_recognise((const uint8_t *)frame, caplen, wirelen, link, &fr))
        return write_fast((uint8_t *)frame, &fr, flags, NULL, report);
    return ics_fill_general(frame, caplen, wirelen, link, flags, report);
}

unsigned inetcsum_fill_iov(const struct iovec *seg, size_t nseg, size_t wirelen, enum inetcsum_link link,
                           unsigned flags, struct inetcsum_report *report)
{
    struct ics_view v = segments(seg, nseg);
    return fill_view(&v, wirelen, link, flags, report);
}

/* ---- Offload ----------------------------------------------------------------------------------- */

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

uint32_t ics_offload_general(void *frame, size_t len, enum inetcsum_link link, const struct inetcsum_offload *o,
                             struct inetcsum_report *report)
{
    struct ics_view v = contiguous(frame, len);
    struct ics_parsed p;
    ics_parse(&v, len, link, &p, NULL);
    uint8_t device[INETCSUM_MAX_CHECKS], skip[INETCSUM_MAX_CHECKS];
    size_t cov[INETCSUM_MAX_CHECKS];

    /* Decide outermost first: a device item under a software checksum that cannot count it by its
     * contribution (an SCTP CRC, or one that sticks out of the covered bytes) goes to software. */
    for (unsigned j = 0; j < p.n; j++) {
        const struct ics_item *it = &p.item[j];
        uint32_t kind = kind_of(it);
        cov[j] = (it->flags & ICS_UNSURE) ? 0 : coverage(&v, it);
        skip[j] = (it->flags & (ICS_UNSURE | INETCSUM_CHECK_QUOTED)) || cov[j] == 0 || !(o->request & kind);
        device[j] = !skip[j] && (o->device & kind) && it->depth <= 1 && kind != INETCSUM_OFL_OTHER &&
                    kind != INETCSUM_OFL_INNER(INETCSUM_OFL_OTHER);
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
            vd = judge(&v, it, 0, 0);
        unsigned extra = 0;
        if (skip[i]) {
            /* left alone */
        } else if (device[i]) {
            struct inetcsum_verdict seed = vd;
            seed.expected = 0;
            if (it->pseudo && !(o->flags & INETCSUM_OFFLOAD_ZERO_SEED))
                seed.expected = ics_net16(inetcsum_fold(it->pseudo));
            store_expected(&v, it, &seed);
            vd.expected = seed.expected;
            extra = INETCSUM_CHECK_DEVICE;
        } else {
            if (it->layer == INETCSUM_LAYER_SCTP) {
                vd = ics_sctp_verdict(ics_get_le32((const uint8_t *)frame + field_at(it)), sctp_crc(&v, it));
            } else {
                uint16_t mem;
                memcpy(&mem, (const uint8_t *)frame + field_at(it), 2);
                vd = ics_inet_verdict((enum inetcsum_layer)it->layer, mem, offload_sum(&v, &p, device, i, cov[i]),
                                      it->pseudo, verdict_flags(it, 0));
            }
            store_expected(&v, it, &vd);
            extra = INETCSUM_CHECK_WRITTEN;
            software |= kind_of(it);
        }
        if (report)
            report_check(&v, report, i, it, &vd, extra);
    }
    if (report) {
        report->flags = p.flags;
        report->count = p.n;
    }
    return software;
}

uint32_t inetcsum_offload(void *frame, size_t len, enum inetcsum_link link, const struct inetcsum_offload *o,
                          struct inetcsum_report *report)
{
    struct ics_fast fr;
    if (ics_fast_recognise((const uint8_t *)frame, len, 0, link, &fr))
        return write_fast((uint8_t *)frame, &fr, 0, o, report);
    return ics_offload_general(frame, len, link, o, report);
}

/* ---- Linux helpers ----------------------------------------------------------------------------- */

int inetcsum_complete_partial(void *pkt, size_t len, size_t csum_start, size_t csum_offset, int crc32c)
{
    uint8_t *p = (uint8_t *)pkt;
    size_t width = crc32c ? 4 : 2;
    if (csum_start > len || csum_offset > len - csum_start || width > len - csum_start - csum_offset)
        return -1;
    uint8_t *field = p + csum_start + csum_offset;
    if (crc32c) {
        memset(field, 0, 4);
        /* Stored little-endian: its wire bytes read in network order are the byte-swapped CRC. */
        ics_put_expected(field, __builtin_bswap32(inetcsum_crc32c(p + csum_start, len - csum_start, 0)), 4);
        return 0;
    }
    uint16_t c = inetcsum_final(inetcsum_partial(p + csum_start, len - csum_start, 0));
    if (c == 0)
        c = 0xFFFF; /* as Linux's CSUM_MANGLED_0: UDP reads 0 as "no checksum", the others accept both */
    memcpy(field, &c, 2);
    return 0;
}

uint32_t inetcsum_lco_sum(const void *outer, size_t inner_csum_start, size_t inner_csum_offset)
{
    const uint8_t *p = (const uint8_t *)outer;
    uint16_t seed;
    memcpy(&seed, p + inner_csum_start + inner_csum_offset, 2);
    /* Once filled, the inner message sums to the complement of its seed; placed at an odd offset
     * its bytes pair the other way round, which block_add accounts for. */
    return inetcsum_block_add(inetcsum_partial(p, inner_csum_start, 0), (uint16_t)~seed, inner_csum_start);
}
