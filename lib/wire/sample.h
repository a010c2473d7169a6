/* Packets carried as evidence inside monitoring and control protocols: sFlow version 5 (sflow.org's
 * sflow_version_5.txt), whose flow samples hold the first bytes of packets a switch saw, and
 * OpenFlow's packet-in and packet-out messages (OpenFlow switch specifications 1.0 to 1.5), which
 * hand a controller a packet the switch received and a switch one to send. */
#ifndef ICS_WIRE_SAMPLE_H
#define ICS_WIRE_SAMPLE_H

#include <stddef.h>

#include "bytes.h"

enum { ICS_PORT_SFLOW = 6343 };

/* The datagram: version, the agent's address (its type says IPv4 or IPv6), sub-agent ID,
 * sequence number, uptime, the number of samples; then the samples. */
enum {
    ICS_SFLOW_VERSION2 = 2,
    ICS_SFLOW_VERSION4 = 4,
    ICS_SFLOW_VERSION5 = 5,
    ICS_SFLOW_ADDR_TYPE = 4,
    ICS_SFLOW_ADDR = 8,
    ICS_SFLOW_ADDR_IPV4 = 1,
    ICS_SFLOW_ADDR_IPV6 = 2,
    ICS_SFLOW_AFTER_ADDR = 12, /* sub-agent ID, sequence number, uptime */
    ICS_SFLOW_COUNT_LEN = 4,
};

/* A sample or a record: a format (enterprise in the top 20 bits, 0 for sFlow's own; the format in
 * the low 12) and a length, then that many bytes. */
enum { ICS_SFLOW_TLV_HLEN = 8, ICS_SFLOW_FORMAT_MASK = 0xFFF, ICS_SFLOW_ENTERPRISE_SHIFT = 12 };

/* Flow samples: the compact form and the expanded one (32-bit interface numbers) differ only in
 * the words before their record count. */
enum {
    ICS_SFLOW_FLOW_SAMPLE = 1,
    ICS_SFLOW_FLOW_SAMPLE_EXPANDED = 3,
    ICS_SFLOW_FLOW_RECORDS = 28,          /* the record count's offset in a flow sample */
    ICS_SFLOW_FLOW_EXPANDED_RECORDS = 40, /* and in an expanded one */
};

/* The raw packet header record: the header's protocol, the packet's length on the wire, bytes
 * stripped from it (an FCS), the bytes kept; then those bytes, padded to 4. */
enum {
    ICS_SFLOW_RAW_HEADER = 1,
    ICS_SFLOW_RAW_PROTOCOL = 0,
    ICS_SFLOW_RAW_FRAME_LEN = 4,
    ICS_SFLOW_RAW_STRIPPED = 8,
    ICS_SFLOW_RAW_HEADER_LEN = 12,
    ICS_SFLOW_RAW_HLEN = 16,
    ICS_SFLOW_PROTO_ETHERNET = 1,
    ICS_SFLOW_PROTO_IPV4 = 11,
    ICS_SFLOW_PROTO_IPV6 = 12,
};

/* OpenFlow over TCP (6653, IANA's; 6633 before it): messages with a common header (version,
 * type, length, transaction ID).  A packet-in's packet (an Ethernet frame, total_len bytes long,
 * perhaps cut) follows fields that differ by version: 1.0 and 1.1 a fixed part; 1.2 and later a
 * match, its length without its padding to 8, then 2 bytes of pad. */
enum {
    ICS_PORT_OPENFLOW = 6653,
    ICS_PORT_OPENFLOW_OLD = 6633,
    ICS_OF_VERSION = 0,
    ICS_OF_TYPE = 1,
    ICS_OF_LEN = 2,
    ICS_OF_HLEN = 8,
    ICS_OF_VERSION_1_0 = 1,
    ICS_OF_VERSION_1_1 = 2,
    ICS_OF_VERSION_1_2 = 3,
    ICS_OF_VERSION_LAST = 6, /* 1.5 */
    ICS_OFPT_PACKET_IN = 10,
    ICS_OF10_PI_TOTAL_LEN = 12,
    ICS_OF10_PI_DATA = 18,
    ICS_OF11_PI_TOTAL_LEN = 20,
    ICS_OF11_PI_DATA = 24,
    ICS_OF12_PI_TOTAL_LEN = 12,
    ICS_OF12_PI_MATCH = 16,
    ICS_OF13_PI_MATCH = 24, /* after a cookie, from 1.3 */
    ICS_OF_MATCH_LEN = 2,   /* in the match: its type, then its length */
    ICS_OF_PI_PAD = 2,
    ICS_OF_VERSION_1_5 = 6,
    ICS_OFPT_PACKET_OUT = 13, /* its packet after its actions (actions_len bytes), the whole of it */
    ICS_OF10_PO_ACTIONS_LEN = 14,
    ICS_OF10_PO_ACTIONS = 16,
    ICS_OF11_PO_ACTIONS_LEN = 16, /* 1.1 to 1.4, after a 4-byte in_port */
    ICS_OF11_PO_ACTIONS = 24,
    ICS_OF15_PO_ACTIONS_LEN = 12, /* 1.5: a match before the actions */
    ICS_OF15_PO_MATCH = 16,
};

/* The bytes an OpenFlow match at m takes: its length (after its type) padded to 8. */
static inline size_t ics_of_match_span(const uint8_t *m)
{
    return ((size_t)ics_get16(m + ICS_OF_MATCH_LEN) + 7) & ~(size_t)7;
}

#endif
