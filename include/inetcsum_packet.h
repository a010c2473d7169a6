/* inetcsum packet layer: find every checksum in a frame, then verify them, fill them, or fill only
 * those a device cannot compute (the late software fallback for checksum offload).
 *
 * A frame is parsed from its link layer down: Ethernet (802.3/SNAP), 802.1Q/802.1ad VLANs, MPLS,
 * PPPoE, PPP, Linux cooked (SLL, SLL2), raw IP, BSD loopback; IPv4 with options; IPv6 with
 * hop-by-hop, routing, fragment, destination options and AH headers; tunnels VXLAN (UDP 4789),
 * GENEVE (6081), GRE (with ERSPAN I/II/III headers skipped as opaque, NVGRE/Ethernet over GRE,
 * PPTP's enhanced GRE), GRE-in-UDP (4754), Teredo (3544), GTP (2152, 2123, 3386), IP-in-IP, 6in4, 4in6, 6in6;
 * and the packet quoted in an ICMP or ICMPv6 error (verified, never modified).
 *
 * The pseudo-header uses the final destination: the last address of an IPv4 LSRR/SSRR option or
 * of an IPv6 routing header (type 0, type 2, RPL with its elided prefix restored, SRH segment
 * list[0]) while segments are left, and the home address of an IPv6 Home Address option as the
 * source (RFC 791, 8200 8.1, 6554, 8754, 6275).  ESP payloads are opaque and not looked into.
 *
 * Common frames (Ethernet with up to two VLAN tags or raw IP, IPv4 without options or fragments
 * or IPv6 without extension headers, TCP or UDP on a non-tunnel port, captured whole) take a
 * shortcut that gives the same results as the full walk in a fraction of its time.
 * IPv6 jumbograms (RFC 2675) use their 32-bit length.  Fragments: a non-first fragment has no L4
 * header and is never touched; a first fragment's L4 checksum covers the reassembled datagram and
 * is reported unverifiable and left alone.
 *
 * Bad input: every offset is checked against the captured length; a frame that is truncated,
 * malformed, or nests deeper than INETCSUM_MAX_DEPTH is reported with a flag and whatever could be
 * checked.  Nothing is read or written outside the frame, and the time taken is bounded by the
 * frame's length.  Verification never modifies the frame.
 *
 * Values and threads: as in inetcsum.h.  Every function is thread-safe for distinct frames. */
#ifndef INETCSUM_PACKET_H
#define INETCSUM_PACKET_H

#include "inetcsum_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Link types: the values are pcap's LINKTYPE_ numbers, so a capture's header can be passed as is,
 * FCS bits included (INETCSUM_LINK_FCS below). */
enum inetcsum_link {
    INETCSUM_LINK_NULL = 0,        /* BSD loopback: 4-byte address family in the capturing host's order */
    INETCSUM_LINK_ETHERNET = 1,
    INETCSUM_LINK_PPP = 9,
    INETCSUM_LINK_FDDI = 10,       /* FDDI: frame control, addresses, then 802.2 LLC/SNAP */
    INETCSUM_LINK_BSD_RAW = 12,    /* raw IP as some BSDs number it (DLT_RAW); 14 on OpenBSD */
    INETCSUM_LINK_OPENBSD_RAW = 14,
    INETCSUM_LINK_PPP_HDLC = 50,   /* PPP in HDLC-like framing (RFC 1662), or Cisco HDLC */
    INETCSUM_LINK_RAW = 101,       /* IPv4 or IPv6, by the version nibble */
    INETCSUM_LINK_C_HDLC = 104,    /* Cisco HDLC: address, control, then an ethertype */
    INETCSUM_LINK_IEEE802_11 = 105, /* 802.11 data frames with LLC/SNAP, no radiotap, no FCS */
    INETCSUM_LINK_LOOP = 108,      /* OpenBSD loopback: address family in network order */
    INETCSUM_LINK_FRELAY = 107,    /* Frame Relay: Q.922 address, then NLPID or SNAP (RFC 2427) */
    INETCSUM_LINK_LINUX_SLL = 113,
    INETCSUM_LINK_IEEE802_11_RADIOTAP = 127, /* 802.11 data frames with LLC/SNAP, after radiotap */
    INETCSUM_LINK_ARCNET_LINUX = 129, /* ARCNET as Linux captures it (RFC 1051 and RFC 1201 framing) */
    INETCSUM_LINK_USER2_PKTAP = 149, /* LINKTYPE_USER2, which Apple's own captures use for PKTAP */
    INETCSUM_LINK_JUNIPER_ETHER = 178, /* Juniper's capture header, then Ethernet */
    INETCSUM_LINK_PPI = 192,       /* Per-Packet Information: its header, then a packet of the link type it names */
    INETCSUM_LINK_IPNET = 226,     /* Solaris IPNET: a 24-byte header, then IP */
    INETCSUM_LINK_IPV4 = 228,
    INETCSUM_LINK_IPV6 = 229,
    INETCSUM_LINK_NFLOG = 239,     /* Linux NFLOG (tcpdump -i nflog:N): the packet in a TLV */
    INETCSUM_LINK_IPOIB = 242,     /* IP over InfiniBand (RFC 4391), after a 40-byte pseudo-header */
    INETCSUM_LINK_PKTAP = 258,     /* Apple's PKTAP: its header, then a packet of the link type it names */
    INETCSUM_LINK_LINUX_SLL2 = 276
};

/* A pcap file header's link-type field carries, besides the link type in its low 16 bits, the
 * length of the FCS each frame ends with (bit 26 set: bits 28-31 give it in 16-bit words).  The
 * walk reads the link type from the low bits and stops every header at the FCS. */
#define INETCSUM_LINK_TYPE(link) ((unsigned)(link) & 0xFFFFu)
#define INETCSUM_LINK_FCS_PRESENT 0x04000000u
#define INETCSUM_LINK_FCS_BYTES(link) \
    (((unsigned)(link) & INETCSUM_LINK_FCS_PRESENT) ? (((unsigned)(link) >> 28) & 0xFu) * 2u : 0u)
#define INETCSUM_LINK_WITH_FCS(link, bytes) \
    ((enum inetcsum_link)(INETCSUM_LINK_TYPE(link) | INETCSUM_LINK_FCS_PRESENT | (((unsigned)(bytes) / 2u) << 28)))

/* Limits: IP headers nested in one frame (tunnels and quotes), and checksums per frame. */
#define INETCSUM_MAX_DEPTH 8
#define INETCSUM_MAX_CHECKS 32

/* Why a check is what it is (struct inetcsum_check.flags). */
#define INETCSUM_CHECK_QUOTED 0x01    /* inside a quoted packet (ICMP errors, sFlow, OpenFlow, NHRP): verified, never written */
#define INETCSUM_CHECK_FRAGMENT 0x02  /* first fragment: covers bytes not in this frame */
#define INETCSUM_CHECK_TRUNCATED 0x04 /* covers bytes beyond the captured length */
#define INETCSUM_CHECK_MALFORMED 0x08 /* its header's lengths contradict each other */
#define INETCSUM_CHECK_WRITTEN 0x10   /* fill/offload wrote the field */
#define INETCSUM_CHECK_DEVICE 0x20    /* offload: left for the device (seeded or zeroed) */
#define INETCSUM_CHECK_MENDED 0x40    /* fill: wrong only through inner checksums it wrote, and right
                                       * once they were, so not written itself */

/* One checksum found in a frame. */
struct inetcsum_check {
    uint8_t layer;     /* enum inetcsum_layer */
    uint8_t depth;     /* 0: the outermost IP header and what it carries; +1 per tunnel or quote */
    uint8_t status;    /* enum inetcsum_status, before any write */
    uint8_t flags;     /* INETCSUM_CHECK_* */
    uint32_t offset;   /* of the checksummed header (IPv4 header, TCP header, ...) in the frame */
    uint32_t length;   /* bytes the checksum covers, by the headers (UDP-Lite: its coverage) */
    uint32_t stored;   /* the field before any write, and the right value: both as the wire bytes */
    uint32_t expected; /* read in network order (see struct inetcsum_verdict) */
};

/* Where a check's field lies in its frame: the offset of its first byte (returned) and its width
 * (*width, if not NULL: 2, or 4 for SCTP's CRC32c and an FCS).  The field holds `stored` before a
 * fill and `expected` after it, as the wire bytes read in network order.  After inetcsum_fill, the
 * checks flagged INETCSUM_CHECK_WRITTEN name every byte it changed: a caller putting a frame back
 * where it came from (a file, a device's memory) need write only those. */
INETCSUM_API size_t inetcsum_check_field(const struct inetcsum_check *check, unsigned *width);

/* Flags on a whole frame (struct inetcsum_report.flags). */
#define INETCSUM_FRAME_NOT_IP 0x01    /* no IP header found (ARP, LLDP, an unknown link type, ...) */
#define INETCSUM_FRAME_TRUNCATED 0x02 /* captured length below the wire length, or a header runs past it */
#define INETCSUM_FRAME_MALFORMED 0x04 /* a header contradicts itself or its carrier: parsing stopped there */
#define INETCSUM_FRAME_TOO_DEEP 0x08  /* over INETCSUM_MAX_DEPTH nested IP headers or MAX_CHECKS checks */
#define INETCSUM_FRAME_FRAGMENT 0x10  /* an IPv4 or IPv6 fragment */
#define INETCSUM_FRAME_UNKNOWN_LINK 0x20 /* a link type this library does not decode (also _NOT_IP) */
#define INETCSUM_FRAME_NOT_FOLLOWED 0x40 /* the walk stopped at a header it does not follow, which may carry
                                          * more checksums: struct inetcsum_report.unfollowed says which */

/* Why a walk stopped before the end of what a frame may carry (struct inetcsum_report.unfollowed):
 * a number naming what follows that the library does not follow.  Numbers known to name nothing
 * with a checksum (ARP, LLDP, STP, ESP, PPP's control protocols, ...) end a frame without it. */
enum inetcsum_unfollowed {
    INETCSUM_FOLLOWED = 0,             /* followed to its end */
    INETCSUM_UNFOLLOWED_LINK,          /* a link type (value; an unknown one also sets _UNKNOWN_LINK) */
    INETCSUM_UNFOLLOWED_ETHERTYPE,     /* an EtherType, also as GRE, GENEVE or SLL name one */
    INETCSUM_UNFOLLOWED_IP_PROTOCOL,   /* an IPv4 protocol or IPv6 next header */
    INETCSUM_UNFOLLOWED_PPP_PROTOCOL,  /* a PPP protocol */
    INETCSUM_UNFOLLOWED_FAMILY,        /* an address family (BSD loopback) */
    INETCSUM_UNFOLLOWED_NEXT_PROTOCOL, /* NSH's or VXLAN-GPE's next protocol */
    INETCSUM_UNFOLLOWED_MPLS_PAYLOAD,  /* what an MPLS label stack carries (value: its first byte) */
    INETCSUM_UNFOLLOWED_IP_VERSION,    /* an IP header of another version than 4 or 6 (value) */
    INETCSUM_UNFOLLOWED_NLPID,         /* a Frame Relay NLPID (value) */
    INETCSUM_UNFOLLOWED_AGGREGATE,     /* no longer said: 802.11 A-MSDUs are followed subframe by subframe
                                        * (kept so the numbers after it stay) */
    INETCSUM_UNFOLLOWED_SFLOW_VERSION, /* an sFlow datagram of version 2 or 4 (value) */
    INETCSUM_UNFOLLOWED_COUNT
};

/* Why a frame is malformed, where the walk can say (struct inetcsum_report.malformed): headers
 * whose lengths contradict each other, the one named wrong; the frame's checksums are judged by
 * the length it holds. */
enum inetcsum_malformed {
    INETCSUM_MALFORMED_UNSAID = 0,     /* not malformed, or not said which header is wrong */
    INETCSUM_MALFORMED_PPPOE_LENGTH,   /* a PPPoE session's length (value) disagrees with the IP packet it
                                        * carries, whose length the frame holds: checked by the IP header */
    /* Set by a reassembler (the capture library's), not by a frame's own walk: the frame completed a
     * datagram whose fragments overlap with different bytes (value: the first such byte of its
     * payload), so no checksum in it is judged and nothing is written into it; IPv6 (RFC 5722: a
     * receiver discards it) and IPv4 (RFC 1858, 3128: overlaps rewrite what filters saw; Linux
     * discards these too). */
    INETCSUM_MALFORMED_FRAGMENTS_CONFLICT6,
    INETCSUM_MALFORMED_FRAGMENTS_CONFLICT4,
    INETCSUM_MALFORMED_AMSDU_LENGTH,   /* an 802.11 A-MSDU subframe's length (value) runs past the frame:
                                        * what it holds is walked as far as the frame goes */
    INETCSUM_MALFORMED_COUNT
};

/* Every checksum of one frame, outermost first. */
struct inetcsum_report {
    unsigned flags; /* INETCSUM_FRAME_* */
    unsigned count; /* checks[0..count) are filled in */
    struct inetcsum_check checks[INETCSUM_MAX_CHECKS];
    /* With INETCSUM_FRAME_NOT_FOLLOWED: what the walk did not follow, the number that named it and
     * where the header holding that number starts; inetcsum_report_why() says it in words. */
    unsigned unfollowed;        /* enum inetcsum_unfollowed */
    uint32_t unfollowed_value;
    uint32_t unfollowed_offset;
    /* With INETCSUM_FRAME_MALFORMED, where the walk can say: which header is wrong, its number and
     * where it starts; inetcsum_report_why() says that in words too. */
    unsigned malformed;         /* enum inetcsum_malformed */
    uint32_t malformed_value;
    uint32_t malformed_offset;
};

/* What a report's walk did not follow, in words ("EtherType 0x88b5 not followed", "link type 226
 * not decoded"), or else why it is malformed where the walk says ("PPPoE length 40 disagrees with
 * the IP packet it carries; checked by the IP header's length"), written into buf as snprintf()
 * writes; "" when it followed the frame to its end and said nothing wrong.  Returns the length of
 * the text (which may exceed size - 1). */
INETCSUM_API int inetcsum_report_why(const struct inetcsum_report *report, char *buf, size_t size);

/* Verify every checksum of frame[0..caplen) without modifying it.  wirelen is the frame's length
 * on the wire (a capture's "len"); 0 means caplen.  flags: INETCSUM_UDP6_ZERO_OK.  Fills in
 * *report (NULL: only the count is wanted) and returns the number of problems: checks that are
 * bad, partial or illegal. */
INETCSUM_API unsigned inetcsum_verify(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                      unsigned flags, struct inetcsum_report *report);

/* Fill the checksums of frame[0..caplen) in place, innermost first so that outer checksums cover
 * the final inner bytes.  The report says what verify would have said of the frame before, with
 * INETCSUM_CHECK_WRITTEN (or _MENDED) on what fill put right.  Written: what verify calls bad, partial or illegal; good ones only with
 * INETCSUM_FILL_ALL; an IPv4 UDP 0 ("no checksum") only with INETCSUM_FILL_UDP_ZERO; never a
 * quoted, fragmented or truncated one.  report may be NULL.  Returns the number of fields
 * written. */
INETCSUM_API unsigned inetcsum_fill(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                    unsigned flags, struct inetcsum_report *report);

/* A set of layers: bit INETCSUM_LAYER_BIT(layer) for each; INETCSUM_LAYERS_ALL holds them all. */
#define INETCSUM_LAYER_BIT(layer) (1u << (layer))
#define INETCSUM_LAYERS_ALL ((1u << INETCSUM_LAYER_COUNT) - 1u)

/* inetcsum_fill for some layers only (editcap's and tcprewrite's users choose so): a check of a
 * layer in `layers` is written as inetcsum_fill writes it; one of another layer is left as it is,
 * right or wrong, unless it was right and a write inside the bytes it covers would leave it wrong:
 * it is then kept right (written, and reported so), never broken by the fill.  The report holds
 * every check, as inetcsum_fill's. */
INETCSUM_API unsigned inetcsum_fill_layers(void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                           unsigned flags, uint32_t layers, struct inetcsum_report *report);

/* The same on a frame held as a list of segments (any lengths, odd ones included): the frame is
 * their concatenation, caplen their total. */
INETCSUM_API unsigned inetcsum_verify_iov(const struct iovec *seg, size_t nseg, size_t wirelen,
                                          enum inetcsum_link link, unsigned flags, struct inetcsum_report *report);
INETCSUM_API unsigned inetcsum_fill_iov(const struct iovec *seg, size_t nseg, size_t wirelen,
                                        enum inetcsum_link link, unsigned flags, struct inetcsum_report *report);

/* ---- Fragments: what a reassembler needs ------------------------------------------------------- */

/* Where a fragment's parts lie in its frame.  The reassembled datagram is the first fragment's
 * kept header (ip_offset, header_len) followed by every fragment's data at its offset; for IPv6
 * the byte at nh_offset then names `proto` instead of the fragment header (RFC 8200 4.5).  RFC 791
 * and 8200 key a datagram by (src, dst, id), with the protocol for IPv4. */
struct inetcsum_fragment {
    uint8_t version;      /* 4 or 6 */
    uint8_t depth;        /* of the fragmented IP header, as in struct inetcsum_check */
    uint8_t proto;        /* IPv4's protocol; IPv6: the fragment header's next header */
    uint8_t more;         /* more fragments follow (MF / M) */
    uint32_t id;          /* identification: 16 bits for IPv4, 32 for IPv6 */
    uint32_t offset;      /* of this fragment's data in the datagram's payload, in bytes */
    uint32_t ip_offset;   /* the fragmented IP header in the frame */
    uint32_t header_len;  /* the header kept on reassembly: IPv4's with its options; IPv6's with the
                           * extension headers before the fragment header */
    uint32_t nh_offset;   /* IPv6: the next-header byte that names the fragment header */
    uint32_t data_offset; /* this fragment's data in the frame */
    uint32_t data_len;    /* its length by the IP header */
    uint8_t src[16];      /* the header's addresses (IPv4: the first 4 bytes) */
    uint8_t dst[16];
};

/* Describes the fragment frame[0..caplen) carries, outside any ICMP quote.  Returns 1 when it is
 * one and its data was captured whole within the IP length; -1 when it is one that cannot be
 * reassembled (data cut by the capture, or lengths that contradict each other), *frag filled as
 * far as known; 0 when the frame is not a fragment (an IPv6 atomic fragment, offset 0 without
 * M, is not one: RFC 6946). */
/* (A function and a struct of one name, as C allows and as this API has twice, here and for
 * inetcsum_offload: g++ -Wshadow says the function hides the struct's constructor, which C++
 * callers reach as `struct inetcsum_fragment` all the same; silenced for them around the two.) */
#if defined(__cplusplus) && defined(__GNUC__)
#define INETCSUM_SAME_NAME_BEGIN_ _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wshadow\"")
#define INETCSUM_SAME_NAME_END_ _Pragma("GCC diagnostic pop")
#else
#define INETCSUM_SAME_NAME_BEGIN_
#define INETCSUM_SAME_NAME_END_
#endif
INETCSUM_SAME_NAME_BEGIN_
INETCSUM_API int inetcsum_fragment(const void *frame, size_t caplen, size_t wirelen, enum inetcsum_link link,
                                   struct inetcsum_fragment *frag);
INETCSUM_SAME_NAME_END_

/* ---- Offload: compute in software only what the device cannot ---------------------------------- */

/* Checksum kinds, for what a frame needs and what a device can do (FreeBSD's CSUM_IP, CSUM_IP_TCP,
 * ...; Linux's NETIF_F_IP_CSUM / IPV6_CSUM / SCTP_CRC).  The low byte is the outermost IP header
 * and what it carries; INETCSUM_OFL_INNER() the same kinds one tunnel in, as devices offer them
 * (CSUM_INNER_*, NETIF_F_GSO_*_CSUM encapsulation features).  Deeper levels are always software. */
#define INETCSUM_OFL_IPV4 0x01u  /* the IPv4 header checksum */
#define INETCSUM_OFL_TCP4 0x02u
#define INETCSUM_OFL_UDP4 0x04u
#define INETCSUM_OFL_SCTP4 0x08u
#define INETCSUM_OFL_TCP6 0x10u
#define INETCSUM_OFL_UDP6 0x20u
#define INETCSUM_OFL_SCTP6 0x40u
#define INETCSUM_OFL_OTHER 0x80u /* ICMP, ICMPv6, IGMP, GRE, UDP-Lite: no device does these */
#define INETCSUM_OFL_INNER(kinds) ((uint32_t)(kinds) << 8)
#define INETCSUM_OFL_ALL 0xFFFFu

/* Offload flags. */
#define INETCSUM_OFFLOAD_ZERO_SEED 0x1u /* the device wants TCP/UDP fields zeroed, not seeded with the
                                           * folded pseudo-header sum (most want the seed) */
#define INETCSUM_OFFLOAD_TWO_LEVELS 0x2u /* the INNER kinds name the level one tunnel in only: checksums
                                          * deeper (a tunnel inside the inner packet, or inner payload
                                          * that happens to look like one) are left as they are, as a
                                          * device told where the headers are leaves them.  Without
                                          * it, INNER kinds are requested at every deeper level too */
#define INETCSUM_OFFLOAD_ONE_CHECKSUM 0x4u /* the device fills one TCP or UDP checksum per frame, named by
                                            * where its sum starts and where its field is (Linux
                                            * CHECKSUM_PARTIAL, AF_XDP TX metadata, virtio-net's
                                            * NEEDS_CSUM), summing to the frame's end: of the requested
                                            * checksums the device kinds allow whose coverage reaches the
                                            * frame's end (no Ethernet padding or trailer after it), the
                                            * innermost is left to it (an outer UDP checksum
                                            * then counted by local checksum offload), every other one
                                            * computed here; the IPv4 and SCTP kinds are never the
                                            * device's.  The report's one INETCSUM_CHECK_DEVICE check
                                            * says which (its offset and inetcsum_check_field) */

struct inetcsum_offload {
    uint32_t request; /* kinds the frame must carry when it leaves (csum_flags); others are left alone */
    uint32_t device;  /* kinds the device computes (if_hwassist) */
    unsigned flags;   /* INETCSUM_OFFLOAD_* */
};

/* Make frame[0..len) ready for a device: every requested checksum the device cannot compute is
 * computed here (an IPv4 UDP 0 included: a request means "carry one"); every requested one it can
 * is left as it expects: an IPv4 header or SCTP field zeroed, a TCP/UDP field seeded with the
 * folded pseudo-header sum (or zeroed, INETCSUM_OFFLOAD_ZERO_SEED).  An outer checksum computed
 * here over an inner one the device will fill counts that inner checksum's final value without
 * reading the inner payload (local checksum offload, as Linux lco_csum); an inner SCTP CRC under a
 * software outer checksum is computed here, as its final value cannot be known otherwise.  report
 * may be NULL (its checks then say WRITTEN or DEVICE).  Returns the kinds computed in software. */
INETCSUM_SAME_NAME_BEGIN_
INETCSUM_API uint32_t inetcsum_offload(void *frame, size_t len, enum inetcsum_link link,
                                       const struct inetcsum_offload *offload, struct inetcsum_report *report);
INETCSUM_SAME_NAME_END_

/* The same on a frame held as a list of segments (any lengths, odd ones included; headers may
 * straddle them): the frame is their concatenation, written in place, never linearised.  For a
 * DPDK mbuf chain or a scatter-gather list as a driver holds it. */
INETCSUM_API uint32_t inetcsum_offload_iov(const struct iovec *seg, size_t nseg, enum inetcsum_link link,
                                           const struct inetcsum_offload *offload, struct inetcsum_report *report);

/* Linux CHECKSUM_PARTIAL completion (skb_checksum_help, and skb_crc32c_csum_help for SCTP): the
 * checksum of pkt[csum_start..len), whose field at csum_start + csum_offset already holds the
 * pseudo-header seed, is computed and stored there (a computed 0 stored as 0xFFFF, as Linux does).
 * With crc32c != 0 the field is SCTP's CRC32c instead (computed with the field zeroed, stored
 * little-endian).  Returns 0, or -1 when the field does not fit in the packet. */
INETCSUM_API int inetcsum_complete_partial(void *pkt, size_t len, size_t csum_start, size_t csum_offset,
                                           int crc32c);

/* Local checksum offload (Linux lco_csum): the partial sum of an outer UDP message
 * outer[0..inner_csum_start + ...end) without reading the inner payload, given that the inner
 * checksum at inner_csum_start + inner_csum_offset holds its pseudo-header seed and will be filled
 * by the device: once filled, the inner message from csum_start sums to the seed's complement.
 * Pass the result, with the outer pseudo-header, to inetcsum_final(). */
INETCSUM_API uint32_t inetcsum_lco_sum(const void *outer, size_t inner_csum_start, size_t inner_csum_offset);

#ifdef __cplusplus
}
#endif

#endif /* INETCSUM_PACKET_H */
