/* The general walk's steps for packets carried as samples inside monitoring protocols (walk.h):
 * sFlow's raw packet headers.  Each is a quote: the first bytes of a packet a switch saw, walked
 * and verified like an ICMP error's quote, never written, what the sample cut left unverifiable. */
#include "walk.h"

/* The raw packet header records of one flow sample at [at, end); count_at: where its record count
 * is (the compact and the expanded form differ there). */
static void flow_sample(struct ics_walker *w, size_t at, size_t end, size_t count_at)
{
    const uint8_t *p = ics_need(w, at + count_at, ICS_SFLOW_COUNT_LEN, end);
    if (!p)
        return;
    uint32_t records = ics_get32(p);
    for (at += count_at + ICS_SFLOW_COUNT_LEN; records-- && at < end; ) {
        if (!(p = ics_need(w, at, ICS_SFLOW_TLV_HLEN, end)))
            return;
        const uint32_t format = ics_get32(p), len = ics_get32(p + 4);
        const size_t body = at + ICS_SFLOW_TLV_HLEN;
        if (len > end - body) {
            ics_malformed(w);
            return;
        }
        if (format == ICS_SFLOW_RAW_HEADER && len >= ICS_SFLOW_RAW_HLEN &&
            (p = ics_need(w, body, ICS_SFLOW_RAW_HLEN, body + len))) {
            const uint32_t proto = ics_get32(p + ICS_SFLOW_RAW_PROTOCOL), held = ics_get32(p + ICS_SFLOW_RAW_HEADER_LEN);
            const uint32_t frame = ics_get32(p + ICS_SFLOW_RAW_FRAME_LEN), stripped = ics_get32(p + ICS_SFLOW_RAW_STRIPPED);
            const enum ics_hdr h = proto == ICS_SFLOW_PROTO_ETHERNET ? ICS_H_ETHER
                                   : proto == ICS_SFLOW_PROTO_IPV4   ? ICS_H_IPV4
                                   : proto == ICS_SFLOW_PROTO_IPV6   ? ICS_H_IPV6
                                                                     : ICS_H_STOP; /* (token ring, FDDI, ...) */
            if (held > len - ICS_SFLOW_RAW_HLEN)
                ics_malformed(w);
            else if (h != ICS_H_STOP)
                /* The packet was frame - stripped bytes long (the FCS is what is stripped). */
                ics_walk_quote(w, h, body + ICS_SFLOW_RAW_HLEN, held,
                               frame >= stripped && frame - stripped > held ? frame - stripped : held);
        }
        at = body + len;
    }
}

/* sFlow version 5 (UDP port 6343): the agent's header, then samples; flow samples hold records,
 * among them the raw packet headers walked here.  Counter samples carry no packet. */
ICS_WALK_STEP(sflow)
{
    const uint8_t *p = ics_need(w, *off, ICS_SFLOW_ADDR, *end);
    if (!p)
        return ICS_H_STOP;
    const uint32_t version = ics_get32(p), addr = ics_get32(p + ICS_SFLOW_ADDR_TYPE);
    /* Versions 2 and 4 also carry packet headers, in forms not walked here; other "versions" are
     * not sFlow at all (NetFlow sent to the port, say), as for any port naming no tunnel. */
    if (version == ICS_SFLOW_VERSION2 || version == ICS_SFLOW_VERSION4)
        return ics_walk_named(w, ICS_H_UNKNOWN, INETCSUM_UNFOLLOWED_SFLOW_VERSION, version, *off);
    if (version != ICS_SFLOW_VERSION5)
        return ICS_H_STOP;
    if (addr != ICS_SFLOW_ADDR_IPV4 && addr != ICS_SFLOW_ADDR_IPV6) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    size_t at = *off + ICS_SFLOW_ADDR + (addr == ICS_SFLOW_ADDR_IPV4 ? ICS_IPV4_ADDR_LEN : ICS_IPV6_ADDR_LEN) +
                ICS_SFLOW_AFTER_ADDR;
    if (!(p = ics_need(w, at, ICS_SFLOW_COUNT_LEN, *end)))
        return ICS_H_STOP;
    uint32_t samples = ics_get32(p);
    for (at += ICS_SFLOW_COUNT_LEN; samples-- && at < *end && ics_walk_count(w); ) {
        if (!(p = ics_need(w, at, ICS_SFLOW_TLV_HLEN, *end)))
            break;
        const uint32_t format = ics_get32(p), len = ics_get32(p + 4);
        const size_t body = at + ICS_SFLOW_TLV_HLEN;
        if (len > *end - body) {
            ics_malformed(w);
            break;
        }
        if (format == ICS_SFLOW_FLOW_SAMPLE)
            flow_sample(w, body, body + len, ICS_SFLOW_FLOW_RECORDS);
        else if (format == ICS_SFLOW_FLOW_SAMPLE_EXPANDED)
            flow_sample(w, body, body + len, ICS_SFLOW_FLOW_EXPANDED_RECORDS);
        at = body + len;
    }
    return ICS_H_STOP;
}

/* An OpenFlow packet-in message at [at, end): the packet it hands the controller, as far as the
 * message holds it (a switch that buffers the packet sends only its start). */
static void packet_in(struct ics_walker *w, unsigned version, size_t at, size_t end)
{
    size_t data, total_at, match = 0;
    switch (version) {
    case ICS_OF_VERSION_1_0:
        total_at = ICS_OF10_PI_TOTAL_LEN, data = ICS_OF10_PI_DATA;
        break;
    case ICS_OF_VERSION_1_1:
        total_at = ICS_OF11_PI_TOTAL_LEN, data = ICS_OF11_PI_DATA;
        break;
    default:
        total_at = ICS_OF12_PI_TOTAL_LEN;
        match = version == ICS_OF_VERSION_1_2 ? ICS_OF12_PI_MATCH : ICS_OF13_PI_MATCH;
        data = match + ICS_OF_MATCH_LEN + 2;
    }
    const uint8_t *p = ics_need(w, at, data, end);
    if (!p)
        return;
    const size_t total = ics_get16(p + total_at);
    if (match) {
        data = match + ics_of_match_span(p + match) + ICS_OF_PI_PAD;
        if (data > end - at) {
            ics_malformed(w);
            return;
        }
    }
    data += at;
    ics_walk_quote(w, ICS_H_ETHER, data, end - data, total > end - data ? total : end - data);
}

/* An OpenFlow packet-out message at [at, end): the packet after its actions, whole. */
static void packet_out(struct ics_walker *w, unsigned version, size_t at, size_t end)
{
    size_t need = version == ICS_OF_VERSION_1_0   ? ICS_OF10_PO_ACTIONS
                  : version == ICS_OF_VERSION_1_5 ? ICS_OF15_PO_MATCH + ICS_OF_MATCH_LEN + 2
                                                  : ICS_OF11_PO_ACTIONS;
    const uint8_t *p = ics_need(w, at, need, end);
    if (!p)
        return;
    size_t data;
    if (version == ICS_OF_VERSION_1_0)
        data = ICS_OF10_PO_ACTIONS + ics_get16(p + ICS_OF10_PO_ACTIONS_LEN);
    else if (version == ICS_OF_VERSION_1_5)
        data = ICS_OF15_PO_MATCH + ics_of_match_span(p + ICS_OF15_PO_MATCH) + ics_get16(p + ICS_OF15_PO_ACTIONS_LEN);
    else
        data = ICS_OF11_PO_ACTIONS + ics_get16(p + ICS_OF11_PO_ACTIONS_LEN);
    if (data > end - at) {
        ics_malformed(w);
        return;
    }
    if (data < end - at) /* (none: the switch sends a packet it buffered) */
        ics_walk_quote(w, ICS_H_ETHER, at + data, end - at - data, end - at - data);
}

/* OpenFlow: every whole message the segment holds from its first byte.  The walk does not put a
 * TCP stream together: a segment that starts inside a message (an earlier one ran over) or ends
 * inside one leaves those bytes unread, as they do not read as a whole message here. */
ICS_WALK_STEP(openflow)
{
    size_t at = *off;
    const uint8_t *p;
    while (*end - at >= ICS_OF_HLEN && (p = ics_need(w, at, ICS_OF_HLEN, *end)) && ics_walk_count(w)) {
        const unsigned version = p[ICS_OF_VERSION], type = p[ICS_OF_TYPE];
        const size_t len = ics_get16(p + ICS_OF_LEN);
        if (version < ICS_OF_VERSION_1_0 || version > ICS_OF_VERSION_LAST || len < ICS_OF_HLEN || len > *end - at)
            break;
        if (type == ICS_OFPT_PACKET_IN)
            packet_in(w, version, at, at + len);
        else if (type == ICS_OFPT_PACKET_OUT)
            packet_out(w, version, at, at + len);
        at += len;
    }
    return ICS_H_STOP;
}
