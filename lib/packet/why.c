/* inetcsum_report_why: what a frame's walk did not follow, or which header made it malformed, in the
 * words the command, the JSON and the Python package all print. */
#include <stdio.h>

#include "inetcsum_packet.h"

int inetcsum_report_why(const struct inetcsum_report *r, char *buf, size_t size)
{
    /* Numbers people read in hex (EtherTypes, PPP protocols, a first byte) are written so. */
    static const char *const says[INETCSUM_UNFOLLOWED_COUNT] = {
        [INETCSUM_UNFOLLOWED_LINK] = "link type %u not decoded",
        [INETCSUM_UNFOLLOWED_ETHERTYPE] = "EtherType 0x%04x not followed",
        [INETCSUM_UNFOLLOWED_IP_PROTOCOL] = "IP protocol %u not followed",
        [INETCSUM_UNFOLLOWED_PPP_PROTOCOL] = "PPP protocol 0x%04x not followed",
        [INETCSUM_UNFOLLOWED_FAMILY] = "address family %u not followed",
        [INETCSUM_UNFOLLOWED_NEXT_PROTOCOL] = "NSH next protocol %u not followed",
        [INETCSUM_UNFOLLOWED_MPLS_PAYLOAD] = "MPLS payload (first byte 0x%02x) not followed",
        [INETCSUM_UNFOLLOWED_IP_VERSION] = "IP version %u not followed",
        [INETCSUM_UNFOLLOWED_NLPID] = "Frame Relay NLPID 0x%02x not followed",
        [INETCSUM_UNFOLLOWED_SFLOW_VERSION] = "sFlow version %u not followed",
        [INETCSUM_UNFOLLOWED_AGGREGATE] = "802.11 A-MSDU (several packets in one frame) not followed",
    };
    static const char *const wrong[INETCSUM_MALFORMED_COUNT] = {
        [INETCSUM_MALFORMED_PPPOE_LENGTH] = "PPPoE length %u disagrees with the IP packet it carries; checked by "
                                            "the IP header's length",
        [INETCSUM_MALFORMED_FRAGMENTS_CONFLICT6] = "IPv6 fragments overlap with different bytes at payload byte %u: "
                                                   "discarded whole (RFC 5722), no checksum in it judged",
        [INETCSUM_MALFORMED_FRAGMENTS_CONFLICT4] = "IPv4 fragments overlap with different bytes at payload byte %u: "
                                                   "receivers differ on which count, no checksum in it judged",
        [INETCSUM_MALFORMED_AMSDU_LENGTH] = "802.11 A-MSDU subframe length %u runs past the frame",
    };
    if (!(r->flags & INETCSUM_FRAME_NOT_FOLLOWED)) {
        const char *bad = (r->flags & INETCSUM_FRAME_MALFORMED) && r->malformed < INETCSUM_MALFORMED_COUNT
                              ? wrong[r->malformed]
                              : NULL;
        return bad ? snprintf(buf, size, bad, (unsigned)r->malformed_value) : snprintf(buf, size, "%s", "");
    }
    const char *fmt = r->unfollowed < INETCSUM_UNFOLLOWED_COUNT ? says[r->unfollowed] : NULL;
    return fmt ? snprintf(buf, size, fmt, (unsigned)r->unfollowed_value) : snprintf(buf, size, "a header not followed");
}
