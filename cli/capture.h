/* Capture files (pcap, pcapng) read record by record, each record kept as its raw bytes so that a
 * writer can copy it back byte for byte after the packet data was changed in place.  Memory use is
 * one record at a time, whatever the file's size. */
#ifndef ICS_CLI_CAPTURE_H
#define ICS_CLI_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cap_format { CAP_PCAP, CAP_PCAPNG };

/* One record: a packet, or any other part of the file (a header, a pcapng block). */
struct cap_record {
    int is_packet;
    uint8_t *raw;      /* the record's bytes as in the file: writing raw[0..raw_len) reproduces it */
    size_t raw_len;
    uint8_t *data;     /* packets: the frame, inside raw */
    uint32_t caplen;   /* bytes of the frame in the file */
    uint32_t wirelen;  /* bytes on the wire */
    int link;          /* pcap LINKTYPE_ of its interface */
    uint64_t frame;    /* packets: 1-based number in the file */
};

struct cap_reader {
    FILE *f;
    const char *name;
    enum cap_format format;
    int swapped;       /* the file's byte order differs from the host's (per pcapng section) */
    int link;          /* pcap: the file's link type */
    uint32_t snaplen;  /* pcap: the file's snap length */
    int *if_link;      /* pcapng: link type per interface of the current section */
    uint32_t *if_snap;
    size_t nif, if_cap;
    uint8_t *buf;
    size_t buf_cap;
    uint64_t frames;
    int started;       /* the pcap file header was returned */
    char err[256];
};

/* 0, or -1 with reader->err set ("not a pcap or pcapng file", ...). */
int cap_open(struct cap_reader *r, FILE *f, const char *name);
/* 1 with *rec filled (valid until the next call), 0 at the end, -1 with r->err set. */
int cap_next(struct cap_reader *r, struct cap_record *rec);
void cap_close(struct cap_reader *r);

#endif
