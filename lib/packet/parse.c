/* The general walk: from a frame's link type to every checksum it carries, one header at a time,
 * each step (ics_protocols, protocols.c) saying what follows its header (walk.h describes the
 * rules every step keeps). */
#include "walk.h"

/* Steps from header h until one says stop or names what the walk does not follow. */
static enum ics_hdr walk_from(struct ics_walker *w, enum ics_hdr h, size_t *off, size_t *end)
{
    while (h != ICS_H_STOP && h != ICS_H_UNKNOWN && ics_walk_count(w))
        h = ics_protocols[h].walk(w, off, end);
    return h;
}

/* Whether a walk that ended at h stopped at a number it does not follow, in a place where that
 * counts: never inside an ICMP error's quote or a first fragment (never followed beyond their upper
 * layer: what a fragmented datagram carries is walked once it is whole). */
static int unfollowed_counts(const struct ics_walker *w, enum ics_hdr h)
{
    return h == ICS_H_UNKNOWN && !w->quoted && !(w->ip.frag & INETCSUM_CHECK_FRAGMENT);
}

enum ics_hdr ics_walk_branch(struct ics_walker *w, enum ics_hdr h, size_t off, size_t end)
{
    const unsigned ips = w->ips;
    const struct ics_ipctx ip = w->ip;
    const enum ics_hdr last = walk_from(w, h, &off, &end);
    const int counts = unfollowed_counts(w, last);
    w->ips = ips;
    w->ip = ip;
    return counts ? ICS_H_UNKNOWN : ICS_H_STOP;
}

void ics_walk_quote(struct ics_walker *w, enum ics_hdr h, size_t off, size_t held, size_t len)
{
    const size_t cap = w->cap;
    const int quoted = w->quoted;
    const unsigned ips = w->ips; /* its IP levels nest in the carrier's, beside other quotes' */
    const struct ics_ipctx ip = w->ip;
    w->quoted = 1;
    if (off + held < w->cap)
        w->cap = off + held;
    size_t end = off + len;
    walk_from(w, h, &off, &end);
    w->cap = cap;
    w->quoted = quoted;
    w->ips = ips;
    w->ip = ip;
}

int ics_parse(const struct ics_view *v, size_t wirelen, enum inetcsum_link link, struct ics_parsed *out,
              struct inetcsum_fragment *frag)
{
    struct ics_walker w; /* field by field: the scratch buffer needs no zeroing */
    w.frag = frag;
    w.frag_found = 0;
    w.v = v;
    w.out = out;
    w.cap = v->len;
    w.ips = w.steps = 0;
    w.saw_ip = 0;
    w.quoted = 0;
    w.gre_flags = 0;
    w.wlan_datapad = 0;
    w.ip.frag = 0; /* the rest is set by the first IP header, before any step reads it */
    size_t off = 0, end = wirelen;
    out->flags = wirelen > v->len ? INETCSUM_FRAME_TRUNCATED : 0;
    out->n = 0;
    /* A frame that ends with its FCS (the capture's link type says so): no header reaches into it. */
    const size_t fcs = INETCSUM_LINK_FCS_BYTES(link);
    if (fcs && wirelen >= fcs) {
        end = wirelen - fcs;
        if (w.cap > end)
            w.cap = end;
        /* A 4-byte FCS is Ethernet's CRC-32: the outermost check, over every byte before it
         * (unverifiable when the capture cut the frame).  Other lengths are only set aside. */
        if (fcs == ICS_FCS_LEN) {
            const struct ics_ipctx link_level = {0};
            ics_add(&w, INETCSUM_LAYER_FCS, &link_level, 0, end, 0, v->len < wirelen ? INETCSUM_CHECK_TRUNCATED : 0);
        }
    }
    out->why = INETCSUM_FOLLOWED;
    out->why_value = out->why_off = 0;
    out->bad = INETCSUM_MALFORMED_UNSAID;
    out->bad_value = out->bad_off = 0;
    enum ics_hdr h = ics_walk_named(&w, ics_follow_link(link), INETCSUM_UNFOLLOWED_LINK, INETCSUM_LINK_TYPE(link), 0);
    if (h == ICS_H_UNKNOWN)
        out->flags |= INETCSUM_FRAME_UNKNOWN_LINK;
    h = walk_from(&w, h, &off, &end);
    /* A walk that ended at a number it does not know says so, where that counts. */
    if (unfollowed_counts(&w, h)) {
        out->flags |= INETCSUM_FRAME_NOT_FOLLOWED;
    } else { /* followed: nothing to name, and no stale place from a walk that went on */
        out->why = INETCSUM_FOLLOWED;
        out->why_value = out->why_off = 0;
    }
    if (!w.saw_ip)
        out->flags |= INETCSUM_FRAME_NOT_IP;
    return w.frag_found;
}
