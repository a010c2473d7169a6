/* Internal to the general walk (parse.c and its steps: link.c, ip.c, transport.c, tunnel.c): the
 * walker's state and the reads and records every step shares.
 *
 * The walk follows one chain of headers; where a header carries several packets side by side (an
 * 802.11 A-MSDU), each is walked as a branch (ics_walk_branch) from it.  Each step reads its header at
 * *off, where the carrier says the message ends at *end, and returns the next header's kind
 * (protocols.h).  Every read goes through ics_need(), which checks it against `end` (else the frame
 * is malformed) and against the captured length (else it is truncated).  The walk is bounded by
 * ICS_MAX_STEPS and INETCSUM_MAX_DEPTH, and every loop inside a step advances by at least one byte
 * within `end`. */
#ifndef ICS_PACKET_WALK_H
#define ICS_PACKET_WALK_H

#include <string.h>

#include "../proto/l4.h"
#include "../proto/pseudo.h"
#include "parse.h"
#include "protocols.h"

/* Headers walked per frame before giving up: 8 IP levels with their links and tunnels fit easily. */
#define ICS_MAX_STEPS 96

/* The IP header an upper layer hangs from: its addresses, as its pseudo-header uses them. */
struct ics_ipctx {
    int v6;
    uint8_t depth;
    uint8_t frag; /* flags for its upper layers: INETCSUM_CHECK_FRAGMENT for a first fragment,
                   * _MALFORMED when the IP length runs past the frame */
    uint8_t src[16], dst[16];
};

struct ics_walker {
    const struct ics_view *v;
    struct ics_parsed *out;
    size_t cap;       /* bytes that may be read: captured, or the end of an ICMP quote */
    unsigned ips;     /* IP levels above the header walked */
    int saw_ip;       /* an IP header was walked (on any branch) */
    unsigned steps;
    int quoted;       /* inside an ICMP error's quote */
    struct ics_ipctx ip; /* the innermost IP header so far */
    uint32_t gre_flags;  /* the GRE header just walked (ERSPAN type II depends on its S bit) */
    uint8_t wlan_datapad; /* radiotap said the 802.11 header is padded to 4 bytes */
    struct inetcsum_fragment *frag; /* where to describe the frame's fragment, or NULL */
    int frag_found;   /* 1 described, -1 described but not reassemblable */
    uint8_t scratch[ICS_VIEW_MAX_GET];
};

/* Flags the frame malformed: a header contradicts its carrier.  Inside an ICMP quote that is
 * normal (RFC 792 quotes 8 bytes of the upper layer) and not flagged. */
static inline void ics_malformed(struct ics_walker *w)
{
    if (!w->quoted)
        w->out->flags |= INETCSUM_FRAME_MALFORMED;
}

/* The same, saying which header is wrong (enum inetcsum_malformed), its number and where it starts:
 * the first said stands. */
static inline void ics_malformed_because(struct ics_walker *w, enum inetcsum_malformed why, uint32_t value, size_t at)
{
    if (w->quoted)
        return;
    if (!(w->out->flags & INETCSUM_FRAME_MALFORMED) || w->out->bad == INETCSUM_MALFORMED_UNSAID) {
        w->out->bad = (uint8_t)why;
        w->out->bad_value = value;
        w->out->bad_off = (uint32_t)at;
    }
    w->out->flags |= INETCSUM_FRAME_MALFORMED;
}

/* Whether [off, off + n) lies before end and was captured; the frame is flagged when not.  Inside
 * a quote running short is normal (RFC 792 quotes 8 bytes) and not flagged. */
static inline __attribute__((always_inline)) int ics_have(struct ics_walker *w, size_t off, size_t n, size_t end)
{
    if (off > end || n > end - off) {
        ics_malformed(w);
        return 0;
    }
    if (off > w->cap || n > w->cap - off) {
        if (!w->quoted)
            w->out->flags |= INETCSUM_FRAME_TRUNCATED;
        return 0;
    }
    return 1;
}

/* n (<= ICS_VIEW_MAX_GET) bytes at off that must lie before end; NULL (and the frame flagged)
 * when they do not, or were not captured. */
static inline __attribute__((always_inline)) const uint8_t *ics_need(struct ics_walker *w, size_t off, size_t n,
                                                                     size_t end)
{
    return ics_have(w, off, n, end) ? ics_view_get(w->v, off, n, w->scratch) : NULL;
}

/* Records a checksum of `layer` over [off, off + len), carried by the IP header ip. */
static inline void ics_add(struct ics_walker *w, enum inetcsum_layer layer, const struct ics_ipctx *ip, size_t off,
                           size_t len, uint32_t pseudo, unsigned flags)
{
    struct ics_parsed *out = w->out;
    if (out->n == INETCSUM_MAX_CHECKS) {
        out->flags |= INETCSUM_FRAME_TOO_DEEP;
        return;
    }
    if (off > w->cap || len > w->cap - off)
        flags |= INETCSUM_CHECK_TRUNCATED;
    if (len < ics_layers[layer].min_len)
        flags |= INETCSUM_CHECK_MALFORMED;
    if (w->quoted)
        flags |= INETCSUM_CHECK_QUOTED;
    struct ics_item *it = &out->item[out->n++];
    it->layer = (uint8_t)layer;
    it->depth = ip->depth;
    it->flags = (uint8_t)(flags | ip->frag);
    it->over_ipv6 = (uint8_t)ip->v6;
    it->off = (uint32_t)off;
    it->len = (uint32_t)len;
    it->pseudo = pseudo;
}

/* The pseudo-header sum of a message of len bytes of protocol proto over ip. */
static inline uint32_t ics_walk_pseudo(const struct ics_ipctx *ip, uint8_t proto, size_t len)
{
    return ip->v6 ? ics_pseudo_ipv6(ip->src, ip->dst, proto, (uint32_t)len, 0)
                  : ics_pseudo_ipv4(ip->src, ip->dst, proto, (uint32_t)len, 0);
}

/* What a number names, as a follow table (protocols.h) says; one the table does not know is noted
 * as what the walk did not follow, with where that header starts. */
static inline enum ics_hdr ics_walk_named(struct ics_walker *w, enum ics_hdr h, enum inetcsum_unfollowed why,
                                          uint32_t value, size_t at)
{
    if (h == ICS_H_UNKNOWN) {
        w->out->why = (uint8_t)why;
        w->out->why_value = value;
        w->out->why_off = (uint32_t)at;
    }
    return h;
}

/* The same for the tables steps use most: what an EtherType names, and an IP version nibble, the
 * header named starting at `at`. */
static inline enum ics_hdr ics_walk_ethertype(struct ics_walker *w, uint32_t type, size_t at)
{
    return ics_walk_named(w, ics_follow_ethertype(type), INETCSUM_UNFOLLOWED_ETHERTYPE, type, at);
}

static inline enum ics_hdr ics_walk_ip_version(struct ics_walker *w, const uint8_t *ip, size_t at)
{
    return ics_walk_named(w, ics_follow_ip_version(ics_ip_version(ip)), INETCSUM_UNFOLLOWED_IP_VERSION,
                          ics_ip_version(ip), at);
}

/* Counts a header walked inside a step (VLAN tags, IPv6 extension headers); 0 past the bound,
 * with the frame flagged. */
static inline int ics_walk_count(struct ics_walker *w)
{
    if (++w->steps > ICS_MAX_STEPS) {
        w->out->flags |= INETCSUM_FRAME_TOO_DEEP;
        return 0;
    }
    return 1;
}

/* Whether what follows an upper-layer header is followed: never inside a first fragment (the rest
 * of the datagram is not here) or an ICMP quote (it is cut short by design). */
static inline int ics_walk_beyond(const struct ics_walker *w)
{
    return !w->ip.frag && !w->quoted;
}

/* Walks a packet another carries as a quote from header h at off: held bytes of it are there, of
 * len it had; verified like an ICMP error's quote, never written.  The walk's own state is as it
 * was after (parse.c). */
void ics_walk_quote(struct ics_walker *w, enum ics_hdr h, size_t off, size_t held, size_t len);

/* Walks one of several packets a header carries side by side (an 802.11 A-MSDU's subframes) from
 * header h at [off, end): verified and written like the carrier's own, its IP levels beside its
 * siblings' (the walk's own state is as it was after).  Returns ICS_H_UNKNOWN when it ended at a
 * number the walk does not follow, where that counts (the frame's why then names it), else
 * ICS_H_STOP. */
enum ics_hdr ics_walk_branch(struct ics_walker *w, enum ics_hdr h, size_t off, size_t end);

/* The steps, one per header kind (ics_protocols' walk). */
#define ICS_WALK_STEP(name) enum ics_hdr ics_walk_##name(struct ics_walker *w, size_t *off, size_t *end)
ICS_WALK_STEP(null);
ICS_WALK_STEP(loop);
ICS_WALK_STEP(ppp_hdlc);
ICS_WALK_STEP(chdlc);
ICS_WALK_STEP(sll);
ICS_WALK_STEP(sll2);
ICS_WALK_STEP(nflog);
ICS_WALK_STEP(ipoib);
ICS_WALK_STEP(ipnet);
ICS_WALK_STEP(arcnet);
ICS_WALK_STEP(frelay);
ICS_WALK_STEP(juniper);
ICS_WALK_STEP(pktap);
ICS_WALK_STEP(ppi);
ICS_WALK_STEP(fddi);
ICS_WALK_STEP(radiotap);
ICS_WALK_STEP(wlan);
ICS_WALK_STEP(ether);
ICS_WALK_STEP(vlan);
ICS_WALK_STEP(vntag);
ICS_WALK_STEP(pbb);
ICS_WALK_STEP(fabricpath);
ICS_WALK_STEP(mpls);
ICS_WALK_STEP(pppoe);
ICS_WALK_STEP(ppp);
ICS_WALK_STEP(ip);
ICS_WALK_STEP(ipv4);
ICS_WALK_STEP(ipv6);
ICS_WALK_STEP(tcp);
ICS_WALK_STEP(udp);
ICS_WALK_STEP(udplite);
ICS_WALK_STEP(sctp);
ICS_WALK_STEP(igmp);
ICS_WALK_STEP(icmp);
ICS_WALK_STEP(icmpv6);
ICS_WALK_STEP(mh);
ICS_WALK_STEP(pim);
ICS_WALK_STEP(ospf);
ICS_WALK_STEP(vrrp);
ICS_WALK_STEP(eigrp);
ICS_WALK_STEP(dccp);
ICS_WALK_STEP(rsvp);
ICS_WALK_STEP(pgm);
ICS_WALK_STEP(ah);
ICS_WALK_STEP(sflow);
ICS_WALK_STEP(openflow);
ICS_WALK_STEP(nhrp);
ICS_WALK_STEP(gre);
ICS_WALK_STEP(erspan2);
ICS_WALK_STEP(erspan3);
ICS_WALK_STEP(cmd);
ICS_WALK_STEP(cmd_gre);
ICS_WALK_STEP(wccp);
ICS_WALK_STEP(macsec);
ICS_WALK_STEP(arista);
ICS_WALK_STEP(nsh);
ICS_WALK_STEP(vxlan);
ICS_WALK_STEP(geneve);
ICS_WALK_STEP(teredo);
ICS_WALK_STEP(gtp);
ICS_WALK_STEP(gtp_prime);
ICS_WALK_STEP(ayiya);
ICS_WALK_STEP(capwap);
ICS_WALK_STEP(vxlan_gpe);

#endif
