/* Synthetic Ethernet frames with every checksum right, for `inetcsum gen` (the shipped sample
 * capture, the speed test's large capture) and the benchmarks: plain TCP, UDP, ICMP over IPv4 and
 * IPv6, and the cases other tools get wrong (VLAN, VXLAN, GENEVE, GRE with a checksum, SCTP,
 * UDP-Lite, IPv6 extension headers, an IPv4 UDP "no checksum").  Deterministic for a given seed. */
#ifndef ICS_CLI_SYNTH_H
#define ICS_CLI_SYNTH_H

#include <stddef.h>
#include <stdint.h>

enum synth_kind {
    SYNTH_TCP4,
    SYNTH_UDP4,
    SYNTH_TCP6,
    SYNTH_UDP6,
    SYNTH_ICMP4,        /* echo request */
    SYNTH_ICMP6,        /* echo request */
    SYNTH_VLAN_TCP4,    /* 802.1Q tag */
    SYNTH_UDP4_NOCSUM,  /* IPv4 UDP with checksum 0: "absent", left so by fix */
    SYNTH_VXLAN,        /* IPv4/UDP 4789 (outer checksum 0, as Linux sends) / Ethernet / IPv4 / TCP */
    SYNTH_GENEVE6,      /* IPv6/UDP 6081 / Ethernet / IPv4 / UDP */
    SYNTH_GRE,          /* IPv4 / GRE with the checksum bit / IPv6 / TCP */
    SYNTH_SCTP4,        /* CRC32c */
    SYNTH_UDPLITE6,     /* coverage: the 8-byte header only */
    SYNTH_UDP6_EXT,     /* IPv6 hop-by-hop and destination options before UDP */
    SYNTH_KIND_COUNT
};

/* Frame mixes: `common` is TCP and UDP over IPv4 and IPv6, as on most links; `all` cycles through
 * every kind. */
enum synth_mix { SYNTH_MIX_COMMON, SYNTH_MIX_ALL };

struct synth {
    uint64_t rng;        /* splitmix64 state */
    enum synth_mix mix;
    unsigned fixed_size; /* frame length, or 0 for a simple IMIX (7:4:1 of 60, 590, 1514 bytes) */
    uint64_t made;       /* frames made so far */
};

#define SYNTH_MAX_FRAME 9018u

void synth_init(struct synth *s, uint64_t seed, enum synth_mix mix, unsigned fixed_size);
uint64_t synth_rand(struct synth *s);

/* Writes the next frame (Ethernet, every checksum right) into buf[0..SYNTH_MAX_FRAME) and returns
 * its length.  *kind says what it is. */
size_t synth_next(struct synth *s, uint8_t *buf, enum synth_kind *kind);

/* Cuts the outermost IP datagram of an Ethernet frame from synth_next into `pieces` fragments (2
 * to SYNTH_MAX_FRAGMENTS; fewer when it is short), each a frame of its own written to out[i]
 * (out_len[i] bytes, padded to Ethernet's 60), in order: IPv4 with MF and offsets (DF cleared) and
 * each header's checksum computed, IPv6 with a fragment header after the unfragmentable part (RFC
 * 8200 4.5).  bad_header: the first fragment's IPv4 header checksum is left wrong.  Returns the
 * number of fragments, 0 when the datagram is too short to cut. */
#define SYNTH_MAX_FRAGMENTS 4
unsigned synth_fragment(struct synth *s, const uint8_t *frame, size_t len, unsigned pieces, int bad_header,
                        uint8_t (*out)[SYNTH_MAX_FRAME], size_t *out_len);

/* The same cut as a host's IP layer makes at an MTU of `mtu` bytes (SYNTH_MIN_MTU to SYNTH_MAX_MTU):
 * a datagram longer than it is sent as fragments of at most mtu bytes each, every one but the last
 * carrying the most data a multiple of 8 allows (RFC 791; RFC 8200 4.5), in order.  Returns how
 * many (at most SYNTH_MAX_MTU_FRAGMENTS), 0 when the datagram fits. */
#define SYNTH_MIN_MTU 128u /* room for 8 bytes of data behind the largest unfragmentable part made */
#define SYNTH_MAX_MTU (SYNTH_MAX_FRAME - 18u) /* behind Ethernet and a VLAN tag */
#define SYNTH_MAX_MTU_FRAGMENTS 160u /* 9,000 bytes at the least MTU, 64 bytes a fragment */
unsigned synth_fragment_mtu(struct synth *s, const uint8_t *frame, size_t len, unsigned mtu, int bad_header,
                            uint8_t (*out)[SYNTH_MAX_FRAME], size_t *out_len);

/* Makes one good checksum of an Ethernet frame wrong, the way captures show them: a wrong value
 * (any layer), or for outer TCP and UDP sometimes the pseudo-header seed a sender leaves for TX
 * checksum offload.  1 with *d saying which, or 0 when the frame has no good checksum. */
struct synth_damage {
    unsigned layer; /* enum inetcsum_layer */
    unsigned depth;
    int partial;    /* left for offload, rather than plain wrong */
    unsigned wrong; /* checksums of the frame now wrong: an outer one covering an inner one too */
};
int synth_damage(struct synth *s, uint8_t *frame, size_t len, struct synth_damage *d);

#endif
