/* Per-protocol checksum rules: which bytes a checksum covers, what a zero means, what fill writes. */
#include "l4.h"

#include "../kernels.h"

const struct ics_l4_rule ics_l4_rules[INETCSUM_LAYER_COUNT] = {
    [INETCSUM_LAYER_IPV4] = {10, 20, 0},   [INETCSUM_LAYER_TCP] = {16, 20, 1},
    [INETCSUM_LAYER_UDP] = {6, 8, 1},      [INETCSUM_LAYER_UDPLITE] = {6, 8, 1},
    [INETCSUM_LAYER_ICMP] = {2, 4, 0},     [INETCSUM_LAYER_ICMPV6] = {2, 4, 1},
    [INETCSUM_LAYER_IGMP] = {2, 4, 0},     [INETCSUM_LAYER_GRE] = {4, 8, 0},
    [INETCSUM_LAYER_SCTP] = {8, 12, 0},
};

const char *inetcsum_layer_name(enum inetcsum_layer layer)
{
    static const char *const names[INETCSUM_LAYER_COUNT] = {"ipv4", "tcp",    "udp",  "udplite", "icmp",
                                                            "icmpv6", "igmp", "gre", "sctp"};
    return (unsigned)layer < INETCSUM_LAYER_COUNT ? names[layer] : "?";
}

const char *inetcsum_status_name(enum inetcsum_status status)
{
    static const char *const names[INETCSUM_STATUS_COUNT] = {"good",   "bad",     "partial",
                                                             "absent", "illegal", "unverifiable"};
    return (unsigned)status < INETCSUM_STATUS_COUNT ? names[status] : "?";
}

static int is_udp(enum inetcsum_layer layer)
{
    return layer == INETCSUM_LAYER_UDP || layer == INETCSUM_LAYER_UDPLITE;
}

struct inetcsum_verdict ics_inet_verdict(enum inetcsum_layer layer, uint16_t stored_mem, uint32_t covered_sum,
                                         uint32_t pseudo, unsigned flags)
{
    struct inetcsum_verdict v = {INETCSUM_BAD, ics_net16(stored_mem), 0};
    int pseudo_used = ics_l4_rules[layer].pseudo;
    uint32_t total = pseudo_used ? ics_add32(covered_sum, pseudo) : covered_sum;
    /* The sum without the field: subtracting in ones' complement is adding the complement. */
    uint16_t want = (uint16_t)~ics_fold16(ics_add32(total, (uint16_t)~stored_mem));
    if (want == 0 && is_udp(layer))
        want = 0xFFFF; /* RFC 768: a computed 0 is sent as all ones, 0 meaning "none" */
    /* Subtracting the field by adding its complement cannot tell data summing to -0 (checksum
     * 0x0000 or 0xFFFF both verify) from all-zero data (only 0xFFFF verifies).  With a
     * pseudo-header the data is never all zero (the protocol number is in it); without one (ICMP,
     * IGMP, GRE, all-zero messages as fuzzers make them) 0xFFFF is right in both cases. */
    if (want == 0 && !pseudo_used)
        want = 0xFFFF;
    v.expected = ics_net16(want);

    if (stored_mem == 0 && is_udp(layer)) {
        if (layer == INETCSUM_LAYER_UDPLITE)
            v.status = INETCSUM_ILLEGAL; /* RFC 3828 3.1: the checksum is mandatory */
        else if (!(flags & INETCSUM_OVER_IPV6) || (flags & INETCSUM_UDP6_ZERO_OK))
            v.status = INETCSUM_ABSENT;
        else
            v.status = INETCSUM_ILLEGAL;
        return v;
    }
    /* Good when the whole sum folds to -0; both 0x0000 and 0xFFFF pass where they are equivalent. */
    if (ics_fold16(total) == 0xFFFF) {
        v.status = INETCSUM_GOOD;
        v.expected = v.stored;
    } else if (pseudo_used && stored_mem == ics_fold16(pseudo)) {
        v.status = INETCSUM_PARTIAL;
    }
    return v;
}

struct inetcsum_verdict ics_sctp_verdict(uint32_t stored_crc, uint32_t crc)
{
    struct inetcsum_verdict v = {INETCSUM_BAD, __builtin_bswap32(stored_crc), __builtin_bswap32(crc)};
    if (stored_crc == crc)
        v.status = INETCSUM_GOOD;
    else if (stored_crc == 0)
        v.status = INETCSUM_PARTIAL; /* Linux and FreeBSD zero the field for CRC offload */
    return v;
}

int ics_fill_wanted(const struct inetcsum_verdict *v, unsigned flags)
{
    switch (v->status) {
    case INETCSUM_BAD:
    case INETCSUM_PARTIAL:
    case INETCSUM_ILLEGAL:
        return 1;
    case INETCSUM_GOOD:
        return (flags & INETCSUM_FILL_ALL) && v->stored != v->expected;
    case INETCSUM_ABSENT:
        return (flags & INETCSUM_FILL_UDP_ZERO) != 0;
    default:
        return 0;
    }
}

uint32_t ics_udplite_coverage(const uint8_t *hdr, size_t len)
{
    uint32_t cov = ((uint32_t)hdr[4] << 8) | hdr[5];
    if (cov == 0)
        cov = (uint32_t)len;
    return (cov < 8 || cov > len) ? 0 : cov;
}

/* Fills in v (and the GRE "no field" case) for a contiguous message; *covered is the number of
 * bytes the checksum covers, 0 when there is no checksum to judge. */
static struct inetcsum_verdict judge(enum inetcsum_layer layer, const uint8_t *p, size_t len, uint32_t pseudo,
                                     unsigned flags, size_t *covered)
{
    struct inetcsum_verdict v = {INETCSUM_UNVERIFIABLE, 0, 0};
    *covered = 0;
    if ((unsigned)layer >= INETCSUM_LAYER_COUNT || layer == INETCSUM_LAYER_IPV4 || len < ics_l4_rules[layer].min_len)
        return v;
    if (layer == INETCSUM_LAYER_GRE && !(p[0] & 0x80))
        return v; /* no C bit: no checksum field */
    if (layer == INETCSUM_LAYER_SCTP) {
        static const uint8_t zero[4];
        uint32_t crc = inetcsum_crc32c(p, 8, 0);
        crc = inetcsum_crc32c(zero, 4, crc);
        crc = inetcsum_crc32c(p + 12, len - 12, crc);
        *covered = len;
        return ics_sctp_verdict(ics_le32(p + 8), crc);
    }
    size_t cov = len;
    uint16_t stored = ics_load16(p + ics_l4_rules[layer].field);
    if (layer == INETCSUM_LAYER_UDPLITE) {
        cov = ics_udplite_coverage(p, len);
        if (cov == 0) {
            v.status = INETCSUM_ILLEGAL;
            v.stored = ics_net16(stored);
            return v;
        }
    }
    *covered = cov;
    return ics_inet_verdict(layer, stored, inetcsum_partial(p, cov, 0), pseudo, flags);
}

struct inetcsum_verdict inetcsum_l4_verify(enum inetcsum_layer layer, const void *msg, size_t len, uint32_t pseudo,
                                           unsigned flags)
{
    size_t covered;
    return judge(layer, (const uint8_t *)msg, len, pseudo, flags, &covered);
}

struct inetcsum_verdict inetcsum_l4_fill(enum inetcsum_layer layer, void *msg, size_t len, uint32_t pseudo,
                                         unsigned flags)
{
    uint8_t *p = (uint8_t *)msg;
    size_t covered;
    struct inetcsum_verdict v = judge(layer, p, len, pseudo, flags, &covered);
    if (covered == 0 || !ics_fill_wanted(&v, flags))
        return v;
    ics_put_expected(p + ics_l4_rules[layer].field, v.expected, layer == INETCSUM_LAYER_SCTP ? 4 : 2);
    return v;
}
