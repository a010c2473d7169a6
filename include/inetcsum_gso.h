/* inetcsum: segmentation offload in user space (software TSO/USO), at the boundary where the Linux
 * kernel hands a program 64 KB TCP and UDP super-packets: TUN/TAP devices opened with IFF_VNET_HDR
 * and AF_PACKET sockets with PACKET_VNET_HDR.
 *
 * 1. The virtio-net header that comes before each packet there: read and written
 *    (inetcsum_vnet_get/put), and checked against the packet as the kernel checks it
 *    (inetcsum_gso_from_vnet: csum_start/csum_offset inside the packet and at its TCP or UDP
 *    header, the GSO type matching the headers, hdr_len recomputed rather than trusted, gso_size
 *    and segment-count bounds).
 * 2. A super-packet described (struct inetcsum_gso): the headers each segment repeats, at every
 *    level of a tunnel (VXLAN, GENEVE, GRE, IP-in-IP, 6in4, 6in6, and any UDP tunnel the
 *    24-byte virtio-net header names by offset), and the payload to split.
 *    Captures have no virtio-net header: inetcsum_gso_describe finds the same from the headers.
 * 3. Segmentation (inetcsum_gso_segment): wire-sized packets in buffers the caller provides, each
 *    header rewritten as Linux's tcp_gso_segment / __udp_gso_segment / inet_gso_segment /
 *    ipv6_gso_segment / skb_udp_tunnel_segment / gre_gso_segment rewrite them:
 *      - IPv4: total length, ID + i (kept when FIXEDID), header checksum; IPv6: payload length,
 *        extension headers included;
 *      - TCP: sequence number + i * gso_size; FIN and PSH only on the last segment, CWR only on the
 *        first;
 *      - UDP: each segment its own datagram (length, checksum; a computed 0 sent as 0xFFFF);
 *      - tunnels: outer IP lengths and IDs, outer UDP length, the outer UDP checksum when the
 *        super-packet carries one (else 0), GRE's checksum when its C bit is set.
 *    Checksums are computed in software, or left for a device as inetcsum_offload leaves them
 *    (struct inetcsum_offload's device kinds), the payload copied and summed in one pass.
 *
 * Errors are negative errno values: -EINVAL a malformed header or packet (lengths that contradict
 * each other, csum_start outside the packet or not at the segmented header, gso_size 0, a GSO
 * type the headers do not match), -EPROTONOSUPPORT headers this does not segment (IP fragments,
 * AH, ESP, a tunnel it does not know, UFO), -E2BIG more segments than the kernel allows,
 * -ENOSPC buffers too few or too small (nothing is written outside them). */
#ifndef INETCSUM_GSO_H
#define INETCSUM_GSO_H

#include "inetcsum_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The virtio-net header ----------------------------------------------------------------------- */

#define INETCSUM_VNET_HDR_LEN 10    /* struct virtio_net_hdr */
#define INETCSUM_VNET_HDR_V1_LEN 12 /* struct virtio_net_hdr_v1 / _mrg_rxbuf: num_buffers added */
#define INETCSUM_VNET_HDR_TNL_LEN 24 /* struct virtio_net_hdr_v1_hash_tunnel (Linux 6.17+): the v1
                                      * form, 8 bytes of hash report (unused here, written 0), then
                                      * outer_th_offset and inner_nh_offset.  A TUN/TAP device uses
                                      * it once TUNSETVNETHDRSZ gives it 24 bytes and TUNSETOFFLOAD
                                      * turns on TUN_F_UDP_TUNNEL_GSO (0x80) */

#define INETCSUM_VNET_F_NEEDS_CSUM 1 /* the L4 checksum at csum_start + csum_offset holds the
                                      * pseudo-header sum: complete it (CHECKSUM_PARTIAL) */
#define INETCSUM_VNET_F_DATA_VALID 2 /* checksums verified (CHECKSUM_UNNECESSARY) */
#define INETCSUM_VNET_F_UDP_TUNNEL_CSUM 8 /* with a UDP-tunnel GSO type: each segment's outer UDP
                                           * checksum is computed (SKB_GSO_UDP_TUNNEL_CSUM; the
                                           * field holds the pseudo-header sum, as the inner one
                                           * does); TUN_F_UDP_TUNNEL_GSO_CSUM (0x100) accepts it */

#define INETCSUM_VNET_GSO_NONE 0
#define INETCSUM_VNET_GSO_TCPV4 1
#define INETCSUM_VNET_GSO_UDP 3 /* UFO: IP fragmentation of a UDP datagram (not supported) */
#define INETCSUM_VNET_GSO_TCPV6 4
#define INETCSUM_VNET_GSO_UDP_L4 5 /* USO: UDP datagrams of gso_size bytes each (UDP_SEGMENT) */
#define INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4 0x20 /* or-ed in: the TCP or UDP header segmented is */
#define INETCSUM_VNET_GSO_UDP_TUNNEL_IPV6 0x40 /* inside a UDP tunnel over IPv4 / IPv6 (VXLAN,
                                                * GENEVE, ...), at the 24-byte form's offsets */
#define INETCSUM_VNET_GSO_ECN 0x80 /* TCP with CWR set: Linux's SKB_GSO_TCP_ECN */

/* A virtio-net header in host order. */
struct inetcsum_vnet_hdr {
    uint8_t flags;        /* INETCSUM_VNET_F_* */
    uint8_t gso_type;     /* INETCSUM_VNET_GSO_*, with _ECN possibly or-ed in */
    uint16_t hdr_len;     /* length of the headers to repeat (a hint: recomputed on input) */
    uint16_t gso_size;    /* payload bytes per segment */
    uint16_t csum_start;  /* where the checksummed message starts */
    uint16_t csum_offset; /* where its checksum field is, from csum_start */
    uint16_t num_buffers; /* the v1 and tunnel forms only */
    uint16_t outer_th_offset; /* the tunnel form only, with a UDP-tunnel GSO type: the tunnel's */
    uint16_t inner_nh_offset; /* UDP header, and the IP header inside it, from the packet's start */
};

/* Reads the header at buf, size INETCSUM_VNET_HDR_LEN, _V1_LEN or _TNL_LEN bytes, little-endian as
 * virtio 1.0 lays it out (and as a legacy device does on a little-endian host; a TUN device takes
 * TUNSETVNETLE/BE for the rest).  The fields a size lacks read as 0.  0, or -EINVAL for another
 * size. */
INETCSUM_API int inetcsum_vnet_get(struct inetcsum_vnet_hdr *h, const void *buf, size_t size);
/* Writes it, each field the size has (the hash report's bytes as 0).  0, or -EINVAL for another
 * size. */
INETCSUM_API int inetcsum_vnet_put(void *buf, size_t size, const struct inetcsum_vnet_hdr *h);

/* ---- A super-packet described -------------------------------------------------------------------- */

#define INETCSUM_GSO_MAX_LEVELS 4 /* IP headers: a tunnel in a tunnel at most */
#define INETCSUM_GSO_MAX_SEGS 65535u /* the most segments a description allows by default: Linux's
                                      * GSO_MAX_SEGS (a device's gso_max_segs may be lower) */

/* What sits on an IP header (struct inetcsum_gso_level.l4). */
enum inetcsum_gso_l4 {
    INETCSUM_GSO_L4_NONE = 0, /* IP directly (IP-in-IP, 6in4, 6in6) */
    INETCSUM_GSO_L4_TCP = 6,
    INETCSUM_GSO_L4_UDP = 17, /* the segmented datagrams, or a tunnel's (VXLAN, GENEVE) */
    INETCSUM_GSO_L4_GRE = 47,
};

struct inetcsum_gso_level {
    uint16_t ip_off;    /* the IP header */
    uint8_t ip_version; /* 4 or 6 */
    uint8_t l4;         /* enum inetcsum_gso_l4: what comes after its (extension) headers */
    uint16_t l4_off;    /* that header (for NONE: the next level's IP header) */
    uint8_t csum;       /* a tunnel UDP header's checksum is set, or GRE's C bit: to compute */
    uint8_t flags;      /* INETCSUM_GSO_LEVEL_*: 0 from from_vnet and describe */
    uint32_t pseudo;    /* TCP, UDP: the pseudo-header sum without the length (the addresses, a
                         * source route's or routing header's final destination, the protocol) */
};

/* This level's IPv4 ID is kept as it is in every segment; the other levels' count up.  Linux 6.18
 * keeps this state per level (SKB_GSO_TCP_FIXEDID for the outer header, _FIXEDID_INNER for the
 * inner one of an encapsulated packet, 3271f19bf7b9): its GRO merges a train whose IDs stay fixed
 * at one level and count up at another.  No virtio-net header can carry it: the coalescer gives it
 * in inetcsum_gro_emitting's description. */
#define INETCSUM_GSO_LEVEL_FIXEDID 0x1u

#define INETCSUM_GSO_FIXEDID 0x1u /* keep every IPv4 ID as it is, at every level, DF or not (Linux
                                   * 6.18's GRO merges packets with one fixed ID whatever their DF,
                                   * SKB_GSO_TCP_FIXEDID, and its inet_gso_segment no longer
                                   * refuses one without DF); INETCSUM_GSO_LEVEL_FIXEDID for one
                                   * level */
#define INETCSUM_GSO_PARTIAL 0x2u /* the segmented L4 checksum field holds the pseudo-header sum
                                   * (NEEDS_CSUM): no need to read it */

struct inetcsum_gso {
    uint8_t proto;      /* INETCSUM_GSO_L4_TCP or _UDP: what is segmented; 0 for a packet passed
                         * as it is (GSO_NONE, no checksum to complete, neither TCP nor UDP: ARP,
                         * ICMP, ...), then nlevels 0, hdr_len 0, one segment: the packet */
    uint8_t nlevels;    /* level[0] outermost .. level[nlevels - 1] carries the segmented header */
    uint16_t gso_size;  /* payload bytes per segment: TCP's MSS, or a UDP datagram's payload */
    uint16_t hdr_len;   /* every header through the segmented TCP or UDP one: repeated per segment */
    uint16_t link_len;  /* the link-layer header before level[0] */
    uint32_t payload_len;
    uint32_t segments;  /* ceil(payload_len / gso_size), or 1 when the payload fits in one: how many
                         * buffers inetcsum_gso_segment needs, known before any is written */
    unsigned flags;     /* INETCSUM_GSO_* */
    struct inetcsum_gso_level level[INETCSUM_GSO_MAX_LEVELS];
};

/* Checks a packet and the virtio-net header that came with it as Linux's virtio_net_hdr_to_skb
 * (virtio_net_hdr_tnl_to_skb for the UDP-tunnel types: the offsets must name the one UDP tunnel
 * the packet has, followed whatever its ports) and the GSO code behind it would, and describes
 * it.  With UDP_TUNNEL_CSUM the tunnel's checksum is computed for each segment; without it, too
 * when its field is not 0 (Linux would copy a stale value into every segment).  link: INETCSUM_LINK_ETHERNET for a TAP
 * device or an AF_PACKET socket, _RAW for a TUN device.  A packet without GSO (GSO_NONE, or a
 * payload no larger than gso_size) is described as one segment.  0 or a negative errno. */
INETCSUM_API int inetcsum_gso_from_vnet(struct inetcsum_gso *g, const void *pkt, size_t len, enum inetcsum_link link,
                                        const struct inetcsum_vnet_hdr *h);

/* The same, refusing (-E2BIG, *g then describing the packet all the same) a packet that would make
 * more than max_segs segments: the bound a program sets when it segments into a fixed array of
 * buffers, or to its device's gso_max_segs (a peer chooses gso_size: 1 asks for one segment per
 * payload byte).  0 means INETCSUM_GSO_MAX_SEGS, which inetcsum_gso_from_vnet and
 * inetcsum_gso_describe apply; UDP has Linux's own, lower UDP_MAX_SEGMENTS (128), -E2BIG too. */
INETCSUM_API int inetcsum_gso_from_vnet_max(struct inetcsum_gso *g, const void *pkt, size_t len,
                                            enum inetcsum_link link, const struct inetcsum_vnet_hdr *h,
                                            uint32_t max_segs);

/* Describes a packet from its headers alone (a capture taken where TSO or GRO was on): the
 * innermost TCP or UDP header is the one segmented, into gso_size payload bytes each.  0 or a
 * negative errno (-EPROTONOSUPPORT when it is neither TCP nor UDP). */
INETCSUM_API int inetcsum_gso_describe(struct inetcsum_gso *g, const void *pkt, size_t len, enum inetcsum_link link,
                                       size_t gso_size);

/* The same for a packet held as a list of buffers (any lengths; the headers may span them, and
 * are read from its first 1,024 bytes): an mbuf chain, a scatter-gather list. */
INETCSUM_API int inetcsum_gso_describe_iov(struct inetcsum_gso *g, const struct iovec *iov, size_t iovcnt,
                                           enum inetcsum_link link, size_t gso_size);

/* A BIG TCP IPv6 super-packet as Linux 5.19 to 6.2 built it, and as captures on such a sender show
 * it: a payload length of 0 and a hop-by-hop header holding the jumbo payload option alone (RFC
 * 2675).  Its segments never carry that header, and inetcsum_gso_describe refuses a packet with it
 * (-EPROTONOSUPPORT).  This takes it out, as Linux does before segmenting
 * (ipv6_hopopt_jumbo_remove): in place, the headers before it moved 8 bytes on (no payload byte
 * moves), the IPv6 next header taken from it.  Returns how far the packet's start moved: 8 (the
 * packet is now pkt + 8, len - 8 bytes, for inetcsum_gso_describe and inetcsum_gso_segment); 0 when
 * it has no such header; -EINVAL when the option's length is not the packet's (RFC 2675: the bytes
 * after the IPv6 header), as for a packet a capture cut.  Nothing changes unless it returns 8. */
INETCSUM_API long inetcsum_gso_jumbo_remove(void *pkt, size_t len, enum inetcsum_link link);

/* ---- Segmentation -------------------------------------------------------------------------------- */

/* A buffer for one segment: data[0..size) is room the caller owns; len is set to what was used. */
struct inetcsum_segment {
    void *data;
    size_t size;
    size_t len;
};

/* Splits the packet pkt[0..len) that g describes into g->segments packets, segment i into
 * seg[i]: g->hdr_len bytes of headers then up to gso_size payload bytes, every length, ID,
 * sequence number and flag rewritten as the file header says, every checksum the packet carries
 * computed in software, except the kinds offload->device names (NULL: none), which are left as
 * inetcsum_offload leaves them (the TCP or UDP field seeded with the pseudo-header sum, or zeroed
 * with INETCSUM_OFFLOAD_ZERO_SEED; an IPv4 header's zeroed).  vnet_size (0,
 * INETCSUM_VNET_HDR_LEN or _V1_LEN): each segment starts with a virtio-net header, NEEDS_CSUM
 * when its segmented checksum was left for the device (only that one can be: put no other kind in
 * device then), else flags 0 (the receiver verifies).  Returns the number of segments, or a
 * negative errno (-ENOSPC: fewer than g->segments buffers, or one too small; nothing is written
 * past any buffer's size). */
INETCSUM_API long inetcsum_gso_segment(const struct inetcsum_gso *g, const void *pkt, size_t len,
                                       const struct inetcsum_offload *offload, size_t vnet_size,
                                       struct inetcsum_segment *seg, size_t nseg);

/* The same for a packet held as a list of buffers (any lengths; the headers may span them). */
INETCSUM_API long inetcsum_gso_segment_iov(const struct inetcsum_gso *g, const struct iovec *iov, size_t iovcnt,
                                           const struct inetcsum_offload *offload, size_t vnet_size,
                                           struct inetcsum_segment *seg, size_t nseg);

/* Zero-copy segmentation: the same segments, but seg[i] receives only segment i's headers
 * (vnet_size then g->hdr_len bytes; seg[i].len says so), their checksums computed over the payload
 * where it lies in the super-packet (summed, not copied).  Segment i's payload is then the
 * super-packet's bytes from g->hdr_len + i * g->gso_size, g->gso_size of them (the last: what is
 * left), for the caller to send after its headers without copying them (an mbuf chain attached
 * to the super-packet's buffers, writev, a scatter-gather list); those bytes must not change
 * until the segments are sent, as the checksums cover them.  Where the device computes the
 * segmented checksum (offload->device), the payload is not read at all.  Returns as
 * inetcsum_gso_segment_iov (-EINVAL for a description of a packet passed as it is). */
INETCSUM_API long inetcsum_gso_segment_headers_iov(const struct inetcsum_gso *g, const struct iovec *iov,
                                                   size_t iovcnt, const struct inetcsum_offload *offload,
                                                   size_t vnet_size, struct inetcsum_segment *seg, size_t nseg);

/* ---- Coalescing (GRO) ------------------------------------------------------------------------------ */

/* A table that merges consecutive TCP segments and UDP datagrams of one flow into super-packets by
 * Linux's rules (tcp_gro_receive, inet_gro_receive / ipv6_gro_receive, udp_gro_receive): the same
 * headers byte for byte (link layer, addresses, ports, TTL or hop limit, TOS or traffic class, DF,
 * IPv6 extension headers, TCP ACK, window and options), except the lengths, the IPv4 ID (one more
 * each time, or the same each time, DF or not, as Linux 6.18 merges them), the TCP sequence number
 * (contiguous) and the flags FIN and PSH (the last's); a segment with CWR passes alone (Linux
 * 6.15's AccECN rule); segments of the first one's size, a shorter one ending the train; UDP
 * checksums all zero or none zero; the whole packet from the outer IP header below 65,536 bytes
 * (Linux's gro_max_size, IPv6 too), and 64 UDP datagrams.  IPv4 headers with options or a wrong
 * header checksum are never merged (inet_gro_receive): they pass alone, untouched.  Through tunnels too (VXLAN, GENEVE, GRE, IP-in-IP): every level's headers are
 * compared and its IPv4 IDs followed.  Every packet's checksums (the tunnels' included) are
 * verified as it is copied in: a packet with a bad one passes alone, untouched, at once, and what
 * its flow holds stays held (as in Linux).
 *
 * Packets come out through the emit callback, each preceded by a virtio-net header of vnet_size
 * bytes: a super-packet as the kernel takes it from a TAP with offloads on (NEEDS_CSUM, its
 * TCP/UDP checksum the pseudo-header sum over the whole length, GSO type and size; a tunnel's
 * checksum computed over it by local checksum offload); a packet that was not merged as it came
 * (flags 0, no GSO).  A tunnelled super-packet's header describes the inner TCP or UDP header;
 * a kernel takes one only through a UDP tunnel and with its UDP-tunnel GSO types, so packets in
 * tunnels are merged as the header size says the receiver can take them:
 *   - 0 (no header: a capture, or this library): through every tunnel;
 *   - INETCSUM_VNET_HDR_LEN or _V1_LEN (a TAP without TUN_F_UDP_TUNNEL_GSO): never, they pass
 *     as they came;
 *   - INETCSUM_VNET_HDR_TNL_LEN (a TAP with it): through one UDP tunnel (VXLAN, GENEVE), marked
 *     with INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4/6, the offsets, and UDP_TUNNEL_CSUM when the tunnel
 *     has a checksum (its field then holds the pseudo-header sum: the kernel computes each
 *     segment's);
 *   - with INETCSUM_GRO_ANY_TUNNEL, through every tunnel whatever the size (for a receiver that
 *     is inetcsum_gso_from_vnet).
 * Memory is allocated once, by inetcsum_gro_new. */
struct inetcsum_gro;

/* Called with each packet that comes out, its virtio-net header first (vnet_size bytes).  pkt is
 * the table's own memory, or (without a header, for a packet that passes alone) the caller's
 * packet given to inetcsum_gro_add: valid only until the callback returns; copy what must
 * outlive it.  The callback must not call back into the same table (add, flush or free; only
 * inetcsum_gro_emitting); it may use any other table and every other function of the library.
 *
 * Threads: a table is one thread's at a time (no locks inside; use one table per thread or
 * queue, as a kernel keeps one GRO list per NAPI context).  Everything else in the library keeps
 * no state between calls and may be called from any number of threads at once, on different
 * buffers. */
typedef void (*inetcsum_gro_emit)(void *ctx, const uint8_t *pkt, size_t len);

struct inetcsum_gro_config {
    enum inetcsum_link link; /* INETCSUM_LINK_ETHERNET (TAP) or INETCSUM_LINK_RAW (TUN) */
    size_t vnet_size;        /* INETCSUM_VNET_HDR_LEN or _V1_LEN (0: no header, for a capture) */
    unsigned max_flows;      /* flows held at once (0: 16); the oldest is flushed to make room */
    inetcsum_gro_emit emit;
    void *ctx;
    unsigned flags;          /* INETCSUM_GRO_* */
};

#define INETCSUM_GRO_ANY_TUNNEL 0x1u /* merge through every tunnel, whatever vnet_size */

/* NULL without memory or with a bad configuration (errno says which). */
INETCSUM_API struct inetcsum_gro *inetcsum_gro_new(const struct inetcsum_gro_config *cfg);
/* Offers one packet (pkt[0..len), no virtio-net header): 1 when it is held (merged or starting a
 * flow), 0 when it was emitted now (alone: not mergeable, or its flow's train ended with it).
 * Packets of the flow it ends are emitted before it.  -EMSGSIZE, nothing emitted, for a packet
 * longer than 65,535 bytes of IP and 1,024 of headers when the table writes a virtio-net header
 * (it must be copied behind one; without a header it is emitted as it is); -EINVAL for a NULL
 * table or packet. */
INETCSUM_API int inetcsum_gro_add(struct inetcsum_gro *t, const void *pkt, size_t len);
/* From inside the emit callback: the description of the super-packet being emitted (the frame
 * after its virtio-net header), for inetcsum_gso_segment, with what no virtio-net header can
 * carry: INETCSUM_GSO_LEVEL_FIXEDID on each level whose IPv4 IDs stayed fixed along the train (so
 * that segmenting it gives back the packets merged, IDs and all; from_vnet would count them up,
 * as a kernel does for a GRO packet that goes out through a TAP), INETCSUM_GSO_PARTIAL.  NULL
 * when what is emitted is a packet as it came (or outside the callback).  Valid until the
 * callback returns. */
INETCSUM_API const struct inetcsum_gso *inetcsum_gro_emitting(struct inetcsum_gro *t);
/* Emits every flow held, oldest first (the end of a batch of reads). */
INETCSUM_API void inetcsum_gro_flush(struct inetcsum_gro *t);
INETCSUM_API void inetcsum_gro_free(struct inetcsum_gro *t);

#ifdef __cplusplus
}
#endif

#endif /* INETCSUM_GSO_H */
