/* Per-protocol checksum rules: which bytes a checksum covers, what a zero means, what fill writes. */
#include "l4.h"

#include "../kernels.h"

const char *inetcsum_status_name(enum inetcsum_status status)
{
    static const char *const names[INETCSUM_STATUS_COUNT] = {"good",   "bad",     "partial",
                                                             "absent", "illegal", "unverifiable"};
    return (unsigned)status < INETCSUM_STATUS_COUNT ? names[status] : "?";
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

uint32_t ics_udplite_coverage(const uint8_t *hdr, size_t len)
{
    uint32_t cov = ics_get16(hdr + ICS_UDP_LEN); /* UDP-Lite's checksum coverage (RFC 3828) */
    if (cov == 0)
        cov = (uint32_t)len;
    return (cov < ICS_UDP_HLEN || cov > len) ? 0 : cov;
}

/* Fills in v (and the GRE "no field" case) for a contiguous message; *covered is the number of
 * bytes the checksum covers, 0 when there is no checksum to judge. */
static struct inetcsum_verdict judge_message(enum inetcsum_layer layer, const uint8_t *p, size_t len, uint32_t pseudo,
                                     unsigned flags, size_t *covered)
{
    struct inetcsum_verdict v = {INETCSUM_UNVERIFIABLE, 0, 0};
    *covered = 0;
    if ((unsigned)layer >= INETCSUM_LAYER_COUNT || layer == INETCSUM_LAYER_IPV4 || len < ics_layers[layer].min_len)
        return v;
    if (layer == INETCSUM_LAYER_GRE && !(ics_get16(p + ICS_GRE_FLAGS) & ICS_GRE_C))
        return v; /* no checksum field */
    if (layer == INETCSUM_LAYER_SCTP) {
        static const uint8_t zero[4];
        uint32_t crc = inetcsum_crc32c(p, ICS_SCTP_CHECK, 0);
        crc = inetcsum_crc32c(zero, 4, crc);
        crc = inetcsum_crc32c(p + ICS_SCTP_HLEN, len - ICS_SCTP_HLEN, crc);
        *covered = len;
        return ics_sctp_verdict(ics_get_le32(p + ICS_SCTP_CHECK), crc);
    }
    size_t cov = len;
    uint16_t stored = ics_load16(p + ics_layers[layer].field);
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
    return judge_message(layer, (const uint8_t *)msg, len, pseudo, flags, &covered);
}

struct inetcsum_verdict inetcsum_l4_fill(enum inetcsum_layer layer, void *msg, size_t len, uint32_t pseudo,
                                         unsigned flags)
{
    uint8_t *p = (uint8_t *)msg;
    size_t covered;
    struct inetcsum_verdict v = judge_message(layer, p, len, pseudo, flags, &covered);
    if (covered == 0 || !ics_fill_wanted(&v, flags))
        return v;
    ics_put_expected(p + ics_layers[layer].field, v.expected, ics_field_width(layer));
    return v;
}
