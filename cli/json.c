/* JSON Lines for verify --json (json.h). */
#include "json.h"

#include <stdlib.h>
#include <string.h>

/* A growing line: formatted by hand and written with one fwrite (fprintf per field took most of
 * verify --json's time). */
struct line {
    char *p;
    size_t len, cap;
};

static void put(struct line *l, const char *s, size_t n)
{
    if (l->len + n > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (cap < l->len + n)
            cap *= 2;
        char *p = realloc(l->p, cap);
        if (!p)
            return; /* out of memory: the line is cut; fwrite still writes what there is */
        l->p = p;
        l->cap = cap;
    }
    memcpy(l->p + l->len, s, n);
    l->len += n;
}

static void put_s(struct line *l, const char *s)
{
    put(l, s, strlen(s));
}

static void put_u(struct line *l, unsigned long long v)
{
    char digits[20];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    char out[20];
    for (int i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    put(l, out, (size_t)n);
}

/* ,"key":value */
static void put_number(struct line *l, const char *key, unsigned long long value)
{
    put_s(l, ",\"");
    put_s(l, key);
    put_s(l, "\":");
    put_u(l, value);
}

static void put_hex(struct line *l, uint32_t v, int width)
{
    static const char hex[] = "0123456789abcdef";
    char out[12] = "\"0x";
    for (int i = 0; i < width; i++)
        out[3 + i] = hex[(v >> (4 * (width - 1 - i))) & 0xF];
    out[3 + width] = '"';
    put(l, out, (size_t)width + 4);
}

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, surrogates or values
 * past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || s[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) || (s[0] == 0xF0 && s[1] < 0x90) ||
        (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* A JSON string of any bytes: escapes as RFC 8259 requires, invalid UTF-8 as \udcXX. */
static void put_str(struct line *l, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    put(l, "\"", 1);
    while (*s) {
        char esc[8];
        if (*s == '"' || *s == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*s;
            put(l, esc, 2);
            s++;
        } else if (*s < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *s);
            put(l, esc, 6);
            s++;
        } else {
            size_t n = utf8_len(s);
            if (n) {
                put(l, (const char *)s, n);
                s += n;
            } else {
                snprintf(esc, sizeof esc, "\\udc%02x", *s);
                put(l, esc, 6);
                s++;
            }
        }
    }
    put(l, "\"", 1);
}

static void head(struct line *l, const char *type, const char *file)
{
    l->len = 0;
    put_s(l, "{\"type\":\"");
    put_s(l, type);
    put_s(l, "\",\"schema\":");
    put_u(l, JSON_SCHEMA);
    put_s(l, ",\"file\":");
    put_str(l, file);
}

static void emit(FILE *out, struct line *l)
{
    put(l, "}\n", 2);
    fwrite(l->p, 1, l->len, out);
}

/* One line buffer for the process: the command is single-threaded. */
static struct line the_line;

/* The file name part is formatted once per file, not once per line. */
static struct {
    char *file;
    char *text;
    size_t len;
} check_head;

/* A check's value in hex digits: the CRCs' 32 bits, the sums' 16. */
static int hex_digits(const struct inetcsum_check *c)
{
    return c->layer == INETCSUM_LAYER_SCTP || c->layer == INETCSUM_LAYER_FCS ? 8 : 4;
}

/* A check's frame, layer and depth keys. */
static void put_where(struct line *l, unsigned long long frame, const struct inetcsum_check *c)
{
    put_s(l, ",\"frame\":");
    put_u(l, frame);
    put_s(l, ",\"layer\":\"");
    put_s(l, inetcsum_layer_name((enum inetcsum_layer)c->layer));
    put_s(l, "\",\"depth\":");
    put_u(l, c->depth);
}

/* A reassembled datagram's fragments' frames, as its checks' "datagram" key; nothing for NULL. */
static void put_datagram(struct line *l, const struct json_datagram *dg)
{
    if (!dg)
        return;
    put_s(l, ",\"datagram\":{\"frames\":[");
    for (size_t i = 0; i < dg->n; i++) {
        if (i)
            put_s(l, ",");
        put_u(l, dg->frames[i]);
    }
    put_s(l, "]}");
}

void json_check(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c,
                const struct json_datagram *dg)
{
    struct line *l = &the_line;
    if (!check_head.file || strcmp(check_head.file, file) != 0) {
        head(l, "check", file);
        free(check_head.file);
        free(check_head.text);
        check_head.file = strdup(file);
        check_head.text = malloc(l->len);
        if (check_head.text)
            memcpy(check_head.text, l->p, l->len);
        check_head.len = check_head.text ? l->len : 0;
    }
    l->len = 0;
    put(l, check_head.text, check_head.len);
    const int width = hex_digits(c);
    put_where(l, frame, c);
    put_s(l, ",\"status\":\"");
    put_s(l, inetcsum_status_name((enum inetcsum_status)c->status));
    put_s(l, "\",\"stored\":");
    put_hex(l, c->stored, width);
    put_s(l, ",\"expected\":");
    if (c->status == INETCSUM_UNVERIFIABLE)
        put_s(l, "null");
    else
        put_hex(l, c->expected, width);
    put_s(l, ",\"offset\":");
    put_u(l, c->offset);
    put_s(l, ",\"length\":");
    put_u(l, c->length);
    put_s(l, ",\"flags\":[");
    static const struct {
        unsigned bit;
        const char *name;
    } flags[] = {{INETCSUM_CHECK_QUOTED, "\"quoted\""},
                 {INETCSUM_CHECK_FRAGMENT, "\"fragment\""},
                 {INETCSUM_CHECK_TRUNCATED, "\"truncated\""},
                 {INETCSUM_CHECK_MALFORMED, "\"malformed\""},
                 {INETCSUM_CHECK_DEVICE, "\"device\""}};
    const char *sep = "";
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (c->flags & flags[i].bit) {
            put_s(l, sep);
            put_s(l, flags[i].name);
            sep = ",";
        }
    put_s(l, "]");
    put_datagram(l, dg);
    emit(out, l);
}

void json_undecoded(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_report *r,
                    int link)
{
    struct line *l = &the_line;
    head(l, "frame", file);
    put_s(l, ",\"frame\":");
    put_u(l, frame);
    if (r->flags & INETCSUM_FRAME_UNKNOWN_LINK) {
        put_s(l, ",\"reason\":\"unknown link type\",\"link\":");
        put_u(l, INETCSUM_LINK_TYPE(link));
    } else if (report_unfollowed(r) && !report_malformed(r)) {
        put_s(l, ",\"reason\":\"not followed\"");
    } else {
        put_s(l, ",\"reason\":\"malformed\"");
    }
    if (report_unfollowed(r)) { /* what was not followed, in words, and where it starts */
        char why[96];
        inetcsum_report_why(r, why, sizeof why);
        put_s(l, ",\"why\":");
        put_str(l, why);
        put_number(l, "offset", r->unfollowed_offset);
    } else if (report_malformed(r) && r->malformed != INETCSUM_MALFORMED_UNSAID) { /* the header named wrong */
        char why[192];
        inetcsum_report_why(r, why, sizeof why);
        put_s(l, ",\"why\":");
        put_str(l, why);
        put_number(l, "offset", r->malformed_offset);
    }
    emit(out, l);
}

/* A summary object's keys after its head, all but the closing brace. */
static void summary_body(struct line *l, const char *file, const struct tally *t, const struct json_cut *cut,
                         const char *error);

void json_summary(FILE *out, const char *file, const struct tally *t, const struct cap_reader *rd, const char *error)
{
    struct line *l = &the_line;
    head(l, "summary", file);
    const struct json_cut cut = {rd ? rd->frames : 0, rd ? rd->cut_offset : 0, rd ? rd->cut_have : 0,
                                 rd ? rd->cut_need : 0};
    summary_body(l, file, t, rd && rd->cut ? &cut : NULL, error);
    emit(out, l);
}

void json_fix_summary(FILE *out, const char *file, const char *out_file, const struct tally *t,
                      const struct json_cut *cut, const char *error)
{
    struct line *l = &the_line;
    head(l, "summary", file);
    summary_body(l, file, t, cut, error);
    put_s(l, ",\"out\":");
    put_str(l, out_file);
    put_number(l, "written", t->written);
    put_number(l, "left", t->left);
    emit(out, l);
}

void json_fix_check(FILE *out, const char *file, unsigned long long frame, const struct inetcsum_check *c,
                    const struct json_datagram *dg)
{
    const char *kind = (c->flags & INETCSUM_CHECK_WRITTEN) ? "written"
                       : (c->flags & INETCSUM_CHECK_MENDED) ? "mended"
                       : report_counts_as_problem(c)       ? "left"
                                                            : NULL;
    if (!kind)
        return;
    struct line *l = &the_line;
    head(l, kind, file);
    const int width = hex_digits(c);
    put_where(l, frame, c);
    put_s(l, ",\"was\":\"");
    put_s(l, inetcsum_status_name((enum inetcsum_status)c->status));
    put_s(l, "\"");
    unsigned field_width;
    const size_t field = inetcsum_check_field(c, &field_width);
    put_number(l, "field", field);
    put_number(l, "width", field_width);
    put_s(l, ",\"old\":");
    put_hex(l, c->stored, width);
    put_s(l, ",\"new\":");
    if (c->flags & INETCSUM_CHECK_WRITTEN)
        put_hex(l, c->expected, width);
    else
        put_s(l, "null");
    if (!(c->flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_MENDED))) { /* left: why it could not be */
        const char *why = (c->flags & INETCSUM_CHECK_FRAGMENT)    ? "in a fragmented datagram not reassembled"
                          : (c->flags & INETCSUM_CHECK_TRUNCATED) ? "truncated"
                          : (c->flags & INETCSUM_CHECK_MALFORMED) ? "malformed"
                                                                  : "no value would be right";
        put_s(l, ",\"why\":");
        put_str(l, why);
    }
    put_datagram(l, dg);
    emit(out, l);
}

static void summary_body(struct line *l, const char *file, const struct tally *t, const struct json_cut *cut,
                         const char *error)
{
    put_s(l, ",\"frames\":");
    put_u(l, t->frames);
    put_s(l, ",\"checksums\":");
    put_u(l, t->checks);
    put_s(l, ",\"statuses\":{");
    const char *sep = "";
    for (int s = 0; s < INETCSUM_STATUS_COUNT; s++) {
        unsigned long long n = 0;
        for (int k = 0; k < INETCSUM_LAYER_COUNT; k++)
            n += t->by[k][s];
        if (!n)
            continue;
        put_s(l, sep);
        put_str(l, inetcsum_status_name((enum inetcsum_status)s));
        put_s(l, ":");
        put_u(l, n);
        sep = ",";
    }
    put_s(l, "},\"layers\":{");
    sep = "";
    for (int k = 0; k < INETCSUM_LAYER_COUNT; k++) {
        const char *inner = "";
        for (int s = 0; s < INETCSUM_STATUS_COUNT; s++) {
            if (!t->by[k][s])
                continue;
            if (!*inner) {
                put_s(l, sep);
                put_str(l, inetcsum_layer_name((enum inetcsum_layer)k));
                put_s(l, ":{");
                sep = ",";
            }
            put_s(l, inner);
            put_str(l, inetcsum_status_name((enum inetcsum_status)s));
            put_s(l, ":");
            put_u(l, t->by[k][s]);
            inner = ",";
        }
        if (*inner)
            put_s(l, "}");
    }
    put_s(l, "}");
    const struct {
        const char *key;
        unsigned long long value;
    } counts[] = {{"problems", t->problems},       {"truncated", t->truncated},
                  {"reassembled", t->reassembled}, {"incomplete", t->incomplete},
                  {"undecoded", t->unknown_link + t->malformed}, {"quoted", t->quoted},
                  {"unfollowed", t->unfollowed}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        put_number(l, counts[i].key, counts[i].value);
    if (t->live) { /* an interface's: what its kernel and device said */
        put_number(l, "pending", t->pending);
        put_number(l, "device_verified", t->device_verified);
        put_number(l, "device_disagrees", t->device_disagrees);
    }
    put_s(l, ",\"unfollowed_why\":{");
    for (unsigned i = 0; i < t->nwhy; i++) {
        put_s(l, i ? "," : "");
        put_str(l, t->why[i].text);
        put_s(l, ":");
        put_u(l, t->why[i].frames);
    }
    if (t->why_other) {
        put_s(l, t->nwhy ? "," : "");
        put_str(l, "other");
        put_s(l, ":");
        put_u(l, t->why_other);
    }
    put_s(l, "}");
    put_s(l, ",\"cut\":");
    if (cut) {
        put_s(l, "{\"after_frame\":");
        put_u(l, cut->after_frame);
        put_number(l, "offset", cut->offset);
        put_number(l, "have", cut->have);
        put_number(l, "need", cut->need);
        put_s(l, "}");
    } else {
        put_s(l, "null");
    }
    put_s(l, ",\"error\":");
    if (error) {
        /* The file is the object's own key: its name is not said again (readers' messages start
         * with it, an OS error does not). */
        const size_t n = strlen(file);
        put_str(l, strncmp(error, file, n) == 0 && strncmp(error + n, ": ", 2) == 0 ? error + n + 2 : error);
    } else {
        put_s(l, "null");
    }
}

void json_segmented(FILE *out, const char *file, unsigned long long frame, int udp, unsigned long long length,
                    unsigned long long segments, unsigned long long segment_size, unsigned long long first_out)
{
    struct line *l = &the_line;
    head(l, "segmented", file);
    put_number(l, "frame", frame);
    put_s(l, udp ? ",\"proto\":\"udp\"" : ",\"proto\":\"tcp\"");
    put_number(l, "length", length);
    put_number(l, "segments", segments);
    put_number(l, "segment_size", segment_size);
    put_s(l, ",\"out_frames\":[");
    put_u(l, first_out);
    put_s(l, ",");
    put_u(l, first_out + segments - 1);
    put_s(l, "]");
    emit(out, l);
}

void json_over_mtu(FILE *out, const char *file, unsigned long long frame, unsigned long long length, const char *why)
{
    struct line *l = &the_line;
    head(l, "over_mtu", file);
    put_number(l, "frame", frame);
    put_number(l, "length", length);
    put_s(l, ",\"why\":");
    put_str(l, why);
    emit(out, l);
}

void json_segment_summary(FILE *out, const char *file, const char *out_file, const struct json_segment_counts *n,
                          const char *error)
{
    struct line *l = &the_line;
    head(l, "summary", file);
    put_s(l, ",\"out\":");
    put_str(l, out_file);
    put_number(l, "frames", n->frames_in);
    put_number(l, "frames_out", n->frames_out);
    put_s(l, ",\"split\":{\"tcp\":");
    put_u(l, n->split_tcp);
    put_s(l, ",\"udp\":");
    put_u(l, n->split_udp);
    put_s(l, "}");
    put_number(l, "segments", n->segments);
    put_number(l, "written", n->written);
    put_number(l, "over_mtu", n->over_mtu);
    put_s(l, ",\"error\":");
    if (error)
        put_str(l, error);
    else
        put_s(l, "null");
    emit(out, l);
}
