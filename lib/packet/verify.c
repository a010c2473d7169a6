/* inetcsum_verify and inetcsum_fill: every checksum of a frame judged, and written where fill
 * asks, innermost first; the common case through the shortcut (fast.h), the commonest fragments
 * through theirs (fast_fragment.h), the rest through the walk (parse.c). */
#include "fast.h"
#include "fast_fragment.h"
#include "general.h"
#include "verdict.h"

/* (frag, found: the fragment described as the walk passes it, or NULL) */
static unsigned verify_view(const struct ics_view *v, size_t wirelen, enum inetcsum_link link, unsigned flags,
                            struct inetcsum_report *report, struct inetcsum_fragment *frag, int *found)
{
    struct ics_parsed parsed;
    const int described = ics_parse(v, wirelen ? wirelen : v->len, link, &parsed, frag);
    if (found)
        *found = described;
    unsigned problems = 0;
    for (unsigned i = 0; i < parsed.n; i++) {
        struct inetcsum_verdict vd = ics_item_judge(v, &parsed.item[i], flags, 0);
        problems += ics_status_problem(vd.status);
        ics_report_check(v, report, i, &parsed.item[i], &vd, 0);
    }
    ics_report_frame(report, &parsed);
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
                          uint32_t layers, struct inetcsum_report *report, struct inetcsum_fragment *frag, int *found)
{
    struct ics_parsed parsed;
    const int described = ics_parse(v, wirelen ? wirelen : v->len, link, &parsed, frag);
    if (found)
        *found = described;
    unsigned written = 0;
    struct written_field w[INETCSUM_MAX_CHECKS];
    /* An FCS (always the first item) is a CRC: no sum undoes the writes inside it, so it is judged
     * as it was before any. */
    const int has_fcs = parsed.n && parsed.item[0].layer == INETCSUM_LAYER_FCS;
    const struct inetcsum_verdict fcs_before = has_fcs ? ics_item_judge(v, &parsed.item[0], flags, 0)
                                                       : (struct inetcsum_verdict){INETCSUM_UNVERIFIABLE, 0, 0};
    /* Innermost first: an outer checksum covers the inner fields as they will be sent.  What is
     * reported is each checksum as it was before any write (as verify sees it): an outer one that
     * was right is reported good, and written when the inner writes made it wrong. */
    for (unsigned i = parsed.n; i-- > 0;) {
        const struct ics_item *it = &parsed.item[i];
        struct inetcsum_verdict vd = ics_item_judge(v, it, flags, 0);
        struct inetcsum_verdict as_it_was = it->layer == INETCSUM_LAYER_FCS ? fcs_before : vd;
        if (written && !ics_item_is_crc(it) && !(it->flags & ICS_UNSURE)) {
            const uint32_t undo = undo_writes(it, ics_item_coverage(v, it), w, written);
            if (undo)
                as_it_was = ics_item_judge(v, it, flags, undo);
        }
        unsigned extra = 0;
        /* A layer not chosen is written only to keep it right: it was, and inner writes broke it. */
        const int wanted = (layers >> it->layer) & 1u ? ics_fill_wanted(&vd, flags)
                                                      : as_it_was.status == INETCSUM_GOOD && ics_status_problem(vd.status);
        /* Never written: quoted, fragmented, truncated or malformed ones, and a UDP-Lite coverage
         * out of range (no value would be right). */
        if (!(it->flags & (ICS_UNSURE | INETCSUM_CHECK_QUOTED)) && vd.status != INETCSUM_UNVERIFIABLE &&
            ics_item_coverage(v, it) != 0 && wanted) {
            struct written_field *f = &w[written];
            uint8_t sc[4];
            f->at = ics_item_field_at(it);
            f->width = ics_item_field_width(it);
            memcpy(f->old, ics_view_get(v, f->at, f->width, sc), f->width);
            ics_put_expected(f->now, vd.expected, f->width);
            ics_view_put(v, f->at, f->now, f->width);
            extra = INETCSUM_CHECK_WRITTEN;
            written++;
        } else if (ics_status_problem(as_it_was.status) && vd.status == INETCSUM_GOOD) {
            extra = INETCSUM_CHECK_MENDED;
        }
        if (report) {
            as_it_was.expected = vd.expected; /* what the field holds now, or should */
            ics_report_check(v, report, i, it, &as_it_was, extra);
        }
    }
    if (report)
        ics_report_frame(report, &parsed);
    return written;
}

unsigned ics_verify_general(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                            unsigned flags, struct inetcsum_report *report)
{
    struct ics_view v = ics_view_contiguous(frame, caplen);
    return verify_view(&v, wirelen, link, flags, report, NULL, NULL);
}

unsigned ics_fill_general(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                          struct inetcsum_report *report)
{
    return ics_fill_layers_general(frame, caplen, wirelen, link, flags, INETCSUM_LAYERS_ALL, report);
}

unsigned ics_fill_layers_general(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                 unsigned flags, uint32_t layers, struct inetcsum_report *report)
{
    struct ics_view v = ics_view_contiguous(frame, caplen);
    return fill_view(&v, wirelen, link, flags, layers, report, NULL, NULL);
}

/* A frame the common-case shortcut declined, verified (fill NULL) or filled (fill: frame, to be
 * written, with `layers`): a fragment through its own shortcut (fast_fragment.h), anything else
 * through the walk.  frag: where to describe the fragment, NULL when not wanted (*found is then
 * not set either).  Out of line: inlined into the entry points (the link then read once for both
 * shortcuts, 33 instructions a fragment fewer), it made GCC call ics_inet_verdict out of line in
 * the common case: 3.6% more instructions for verify, 7-8% for fix on a capture without fragments. */
static __attribute__((noinline)) unsigned uncommon(const void *frame, uint8_t *fill, size_t caplen, size_t wirelen,
                                                   enum inetcsum_link link, unsigned flags, uint32_t layers,
                                                   struct inetcsum_report *report, struct inetcsum_fragment *frag,
                                                   int *found)
{
    struct ics_fast_fragment ff;
    struct inetcsum_fragment unasked;
    if (ics_fast_fragment_recognise((const uint8_t *)frame, caplen, wirelen, link, &ff, frag ? frag : &unasked)) {
        if (found)
            *found = 1;
        return ics_fast_fragment_judge((const uint8_t *)frame, fill, &ff, flags, layers, report);
    }
    struct ics_view v = ics_view_contiguous(frame, caplen);
    return fill ? fill_view(&v, wirelen, link, flags, layers, report, frag, found)
                : verify_view(&v, wirelen, link, flags, report, frag, found);
}

unsigned inetcsum_fill_layers(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                              uint32_t layers, struct inetcsum_report *report)
{
    if ((layers & INETCSUM_LAYERS_ALL) == INETCSUM_LAYERS_ALL)
        return inetcsum_fill(frame, caplen, wirelen, link, flags, report);
    /* (the common-case shortcut writes every layer; the fragment's keeps to those chosen) */
    return uncommon(frame, frame, caplen, wirelen, link, flags, layers, report, NULL, NULL);
}

unsigned inetcsum_verify(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                         struct inetcsum_report *report)
{
    struct inetcsum_report unasked; /* a caller who wants only the count passes NULL */
    if (!report)
        report = &unasked;
    struct ics_fast fr;
    if (ics_fast_recognise((const uint8_t *)frame, caplen, wirelen, link, &fr))
        return ics_fast_verify((const uint8_t *)frame, &fr, flags, report);
    return uncommon(frame, NULL, caplen, wirelen, link, flags, 0, report, NULL, NULL);
}

unsigned ics_verify_described(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                              unsigned flags, struct inetcsum_report *report, struct inetcsum_fragment *frag,
                              int *found)
{
    struct ics_fast fr;
    if (ics_fast_recognise((const uint8_t *)frame, caplen, wirelen, link, &fr)) {
        *found = 0;
        return ics_fast_verify((const uint8_t *)frame, &fr, flags, report);
    }
    return uncommon(frame, NULL, caplen, wirelen, link, flags, 0, report, frag, found);
}

unsigned ics_fill_layers_described(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                   unsigned flags, uint32_t layers, struct inetcsum_report *report,
                                   struct inetcsum_fragment *frag, int *found)
{
    struct ics_fast fr;
    if ((layers & INETCSUM_LAYERS_ALL) == INETCSUM_LAYERS_ALL &&
        ics_fast_recognise((const uint8_t *)frame, caplen, wirelen, link, &fr)) {
        *found = 0;
        return ics_fast_write((uint8_t *)frame, &fr, flags, NULL, report);
    }
    return uncommon(frame, frame, caplen, wirelen, link, flags, layers, report, frag, found);
}

unsigned inetcsum_verify_iov(const struct iovec *seg, size_t nseg, size_t wirelen, enum inetcsum_link link,
                             unsigned flags, struct inetcsum_report *report)
{
    /* One buffer (an mbuf, an AF_XDP frame): the shortcut as in inetcsum_verify; a chain whose
     * first segment holds the headers: the shortcut too, the message summed across the segments.
     * Both went the general walk: 3x the time at 64 B, for every packet the DPDK layer's
     * inetcsum_dpdk_rx_verify checked (Zen 3 guest, docs/perf.md). */
    if (nseg == 1)
        return inetcsum_verify(seg[0].iov_base, seg[0].iov_len, wirelen, link, flags, report);
    struct inetcsum_report unasked;
    if (!report)
        report = &unasked;
    struct ics_view v = ics_view_segments(seg, nseg);
    struct ics_fast fr;
    if (ics_fast_recognise_sg(&v, wirelen, link, &fr))
        return ics_fast_verify_sg((const uint8_t *)seg[0].iov_base, &fr, flags, report, &v);
    return verify_view(&v, wirelen, link, flags, report, NULL, NULL);
}

unsigned inetcsum_fill(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link, unsigned flags,
                       struct inetcsum_report *report)
{
    struct ics_fast fr;
    if (ics_fast_recognise((const uint8_t *)frame, caplen, wirelen, link, &fr))
        return ics_fast_write((uint8_t *)frame, &fr, flags, NULL, report);
    return uncommon(frame, frame, caplen, wirelen, link, flags, INETCSUM_LAYERS_ALL, report, NULL, NULL);
}

unsigned inetcsum_fill_iov(const struct iovec *seg, size_t nseg, size_t wirelen, enum inetcsum_link link,
                           unsigned flags, struct inetcsum_report *report)
{
    if (nseg == 1) /* (the shortcuts, as in inetcsum_verify_iov) */
        return inetcsum_fill(seg[0].iov_base, seg[0].iov_len, wirelen, link, flags, report);
    struct ics_view v = ics_view_segments(seg, nseg);
    struct ics_fast fr;
    if (ics_fast_recognise_sg(&v, wirelen, link, &fr))
        return ics_fast_write_sg((uint8_t *)seg[0].iov_base, &fr, flags, NULL, report, &v);
    return fill_view(&v, wirelen, link, flags, INETCSUM_LAYERS_ALL, report, NULL, NULL);
}
