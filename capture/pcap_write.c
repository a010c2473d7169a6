/* pcap and pcapng writing (capture.h): records copied byte for byte, in order, on this thread or a
 * writer thread, and new packet records built in the reader's format. */
#include "capture.h"
#include "format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The job's write, on the writer's thread: 0 or an errno. */
static int write_job(void *ctx)
{
    struct cap_writer *w = ctx;
    const uint8_t *p = w->job;
    size_t n = w->job_len;
    while (n) {
        const ssize_t put = write(w->fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0)
            return errno;
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

/* Waits for the thread's job: a failure it met becomes the writer's, named by that job's frames
 * (no job follows a failed one, so the job set up is still that one). */
static void await_job(struct cap_writer *w)
{
    const int err = handoff_idle(&w->h);
    if (err && !w->err) {
        w->err = err;
        w->err_first = w->job_first;
        w->err_last = w->job_last;
    }
}

/* Hands what is held to the thread, once it has written what it had (the other window, which
 * the reader is about to fill again). */
static void submit(struct cap_writer *w)
{
    await_job(w);
    if (w->len && !w->err) {
        w->job = w->start;
        w->job_len = w->len;
        w->job_first = w->span_first;
        w->job_last = w->span_last;
        handoff_go(&w->h);
    }
    w->written += w->len;
    w->len = 0;
    w->span_first = w->span_last = 0;
}

static void writer_move(void *ctx)
{
    struct cap_writer *w = ctx;
    if (w->async)
        submit(w);
    else
        cap_writer_flush(w);
}

void cap_writer_attach(struct cap_writer *w, struct cap_reader *r, FILE *out)
{
    *w = (struct cap_writer){.out = out};
    r->before_move = writer_move;
    r->ctx = w;
}

int cap_writer_attach_async(struct cap_writer *w, struct cap_reader *r, FILE *out)
{
    cap_writer_attach(w, r, out);
    if (!(r->spare = malloc(r->buf_cap)))
        return ENOMEM;
    r->spare_cap = r->buf_cap;
    w->fd = fileno(out);
    const int rc = handoff_start(&w->h, write_job, w);
    if (rc) {
        free(r->spare);
        r->spare = NULL;
        return rc;
    }
    w->async = 1;
    return 0;
}

void cap_writer_add(struct cap_writer *w, const struct cap_record *rec)
{
    if (w->len && w->start + w->len != rec->raw)
        writer_move(w);
    if (!w->len)
        w->start = rec->raw;
    w->len += rec->raw_len;
    if (rec->is_packet) {
        if (!w->span_first)
            w->span_first = rec->frame;
        w->span_last = rec->frame;
    }
}

int cap_writer_await(struct cap_writer *w)
{
    if (w->async)
        await_job(w);
    return w->err;
}

int cap_writer_flush(struct cap_writer *w)
{
    if (w->async) {
        submit(w);
        await_job(w);
        return w->err;
    }
    if (w->len && !w->err && fwrite(w->start, 1, w->len, w->out) != w->len) {
        w->err = errno ? errno : EIO;
        w->err_first = w->span_first;
        w->err_last = w->span_last;
    }
    w->written += w->len;
    w->len = 0;
    w->span_first = w->span_last = 0;
    return w->err;
}

void cap_writer_detach(struct cap_writer *w)
{
    if (!w->async)
        return;
    cap_writer_flush(w);
    handoff_stop(&w->h);
    w->async = 0;
}

int cap_writer_put(struct cap_writer *w, const uint8_t *bytes, size_t n, uint64_t frame)
{
    if (cap_writer_flush(w) != 0)
        return w->err;
    if (fwrite(bytes, 1, n, w->out) != n) {
        w->err = errno ? errno : EIO;
        w->err_first = w->err_last = frame;
    }
    w->written += n;
    return w->err;
}

/* A record's field in the file's byte order. */
static void put_u32(const struct cap_reader *r, uint8_t *p, uint32_t v)
{
    v = r->swapped ? __builtin_bswap32(v) : v;
    memcpy(p, &v, 4);
}

size_t cap_packet_record(const struct cap_reader *r, const struct cap_record *rec, const uint8_t *data, uint32_t len,
                         uint8_t *out)
{
    if (r->format == CAP_PCAP) { /* the timestamp kept, both lengths the new one */
        memcpy(out, rec->raw, PCAP_REC_CAPLEN);
        put_u32(r, out + PCAP_REC_CAPLEN, len);
        put_u32(r, out + PCAP_REC_WIRELEN, len);
        memcpy(out + PCAP_REC_HLEN, data, len);
        return PCAP_REC_HLEN + (size_t)len;
    }
    const size_t head = (size_t)(rec->data - rec->raw); /* an enhanced (or obsolete) packet's, or a simple one's */
    const size_t old_pad = (4 - rec->caplen % 4) % 4, pad = (4 - len % 4) % 4;
    const size_t opts_at = head + rec->caplen + old_pad, opts = rec->raw_len - 4 - opts_at;
    const size_t total = head + len + pad + opts + 4;
    memcpy(out, rec->raw, head);
    put_u32(r, out + 4, (uint32_t)total);
    if (head == PCAPNG_EPB_DATA) {
        put_u32(r, out + PCAPNG_BLOCK_HLEN + PCAPNG_EPB_CAPLEN, len);
        put_u32(r, out + PCAPNG_BLOCK_HLEN + PCAPNG_EPB_WIRELEN, len);
    } else {
        put_u32(r, out + PCAPNG_BLOCK_HLEN, len);
    }
    memcpy(out + head, data, len);
    memset(out + head + len, 0, pad);
    memcpy(out + head + len + pad, rec->raw + opts_at, opts);
    put_u32(r, out + total - 4, (uint32_t)total);
    return total;
}

/* ---- captures written from scratch (capture.h: cap_gen_header, cap_gen_record) ---- */

static int put32(FILE *f, uint32_t v)
{
    return fwrite(&v, 4, 1, f) == 1 ? 0 : -1;
}

size_t cap_gen_header(FILE *f, int pcapng)
{
    return cap_gen_header_link(f, pcapng, 1);
}

size_t cap_gen_header_link(FILE *f, int pcapng, int link)
{
    if (!pcapng) {
        const uint32_t h[6] = {PCAP_MAGIC_US, PCAP_VERSION_MAJOR | PCAP_VERSION_MINOR << 16, 0, 0, 262144, (uint32_t)link};
        return fwrite(h, sizeof h, 1, f) == 1 ? sizeof h : 0;
    }
    /* Section header with a shb_userappl option, then one Ethernet interface. */
    static const char app[] = "inetcsum gen"; /* 12 bytes: no padding */
    const uint32_t shb[] = {PCAPNG_SHB, 28 + 4 + 12 + 4, PCAPNG_BYTE_ORDER, 1, 0xFFFFFFFFu, 0xFFFFFFFFu,
                            PCAPNG_OPT_SHB_USERAPPL | (uint32_t)(sizeof app - 1) << 16};
    const uint32_t shb_end[] = {PCAPNG_OPT_END, 28 + 4 + 12 + 4};
    const uint32_t idb[] = {PCAPNG_IDB, 20, (uint32_t)link, 262144, 20};
    if (fwrite(shb, sizeof shb, 1, f) != 1 || fwrite(app, sizeof app - 1, 1, f) != 1 ||
        fwrite(shb_end, sizeof shb_end, 1, f) != 1 || fwrite(idb, sizeof idb, 1, f) != 1)
        return 0;
    return sizeof shb + sizeof app - 1 + sizeof shb_end + sizeof idb;
}

size_t cap_gen_record(FILE *f, int pcapng, uint64_t us, const uint8_t *frame, uint32_t len)
{
    return cap_gen_record_cut(f, pcapng, us, frame, len, len);
}

size_t cap_gen_record_cut(FILE *f, int pcapng, uint64_t us, const uint8_t *frame, uint32_t len, uint32_t wirelen)
{
    static const uint8_t zero[4];
    if (!pcapng) {
        const uint32_t h[4] = {(uint32_t)(us / 1000000), (uint32_t)(us % 1000000), len, wirelen};
        if (fwrite(h, sizeof h, 1, f) != 1 || fwrite(frame, 1, len, f) != len)
            return 0;
        return sizeof h + len;
    }
    uint32_t pad = (4 - len % 4) % 4, total = PCAPNG_EPB_DATA + len + pad + 4; /* (the length again at the end) */
    const uint32_t h[7] = {PCAPNG_EPB, total, 0, (uint32_t)(us >> 32), (uint32_t)us, len, wirelen};
    if (fwrite(h, sizeof h, 1, f) != 1 || fwrite(frame, 1, len, f) != len || fwrite(zero, 1, pad, f) != pad ||
        put32(f, total))
        return 0;
    return total;
}
