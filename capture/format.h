/* The pcap and pcapng file formats, named once for the reader (pcap_read.c) and the writer
 * (pcap_write.c): magic numbers, block types, field offsets, the options read.  pcap: the
 * libpcap file format (a 24-byte file header, 16-byte record headers); pcapng:
 * draft-ietf-opsawg-pcapng (blocks of type, total length, body, total length again). */
#ifndef ICS_CAPTURE_FORMAT_H
#define ICS_CAPTURE_FORMAT_H

/* pcap: the magic as it lies in the file, read in host order: microseconds or nanoseconds, and
 * byte-swapped when the file was written on a host of the other order. */
#define PCAP_MAGIC_US 0xA1B2C3D4u
#define PCAP_MAGIC_NS 0xA1B23C4Du
#define PCAP_MAGIC_US_SWAPPED 0xD4C3B2A1u
#define PCAP_MAGIC_NS_SWAPPED 0x4D3CB2A1u

enum {
    PCAP_VERSION_MAJOR = 2,
    PCAP_VERSION_MINOR = 4,
    PCAP_FILE_HLEN = 24,
    PCAP_FILE_SNAPLEN = 16,
    PCAP_FILE_LINKTYPE = 20, /* the link type (low 16 bits) and the FCS length (above) */
    PCAP_REC_HLEN = 16,      /* seconds, micro- or nanoseconds, captured length, wire length */
    PCAP_REC_USEC = 4,
    PCAP_REC_CAPLEN = 8,
    PCAP_REC_WIRELEN = 12,
};

/* pcapng: the section header's type reads the same in either order; its byte-order magic tells the
 * order of the rest of the section. */
#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_BYTE_ORDER 0x1A2B3C4Du
#define PCAPNG_BYTE_ORDER_SWAPPED 0x4D3C2B1Au

enum {
    PCAPNG_IDB = 1, /* interface description: link type (16 bits), reserved, snap length, options */
    PCAPNG_OPB = 2, /* obsolete packet: interface (16 bits), drops (16 bits), then as an EPB */
    PCAPNG_SPB = 3, /* simple packet: original length, then the data */
    PCAPNG_EPB = 6, /* enhanced packet: interface, timestamp high and low, captured and original length */
    PCAPNG_BLOCK_HLEN = 8, /* type and total length, before the body */
    PCAPNG_BLOCK_MIN = 12, /* a block with no body: the two lengths and the type */
    PCAPNG_SHB_MIN = 16,   /* ... and a section header's byte-order magic and version */
    PCAPNG_SHB_BOM = 8,    /* the byte-order magic, in the block */
    PCAPNG_IDB_SNAPLEN = 4, /* in the body */
    PCAPNG_IDB_OPTIONS = 8,
    PCAPNG_EPB_TS_HIGH = 4, /* in the body */
    PCAPNG_EPB_TS_LOW = 8,
    PCAPNG_EPB_CAPLEN = 12,
    PCAPNG_EPB_WIRELEN = 16,
    PCAPNG_EPB_BODY_MIN = 20,
    PCAPNG_EPB_DATA = 28, /* in the block: the packet's bytes */
    PCAPNG_SPB_DATA = 12,
    PCAPNG_OPT_END = 0,
    PCAPNG_OPT_SHB_USERAPPL = 4,
    PCAPNG_OPT_IF_TSRESOL = 9,  /* the interface's timestamp resolution */
    PCAPNG_OPT_IF_TSOFFSET = 14, /* seconds added to every timestamp */
};

#endif
