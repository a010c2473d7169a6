/* libFuzzer target: reassembly as verify and fix use it (capture/reassembly.c over capture/fragments.c).
 * Input: one byte of settings (bit 0: fix's fill mode; bits 1-2: the link type; bits 3-5: at
 * most 1 + n datagrams in progress, so the oldest is dropped often, but for 7: 22, a little over
 * the headroom a frame needs, under which fix's view shares its reassembler until it nears the
 * limit), then frames, each a 16-bit
 * big-endian length and that many bytes.  Whatever the frames, it asserts: a frame's report loses
 * only checks waiting for their datagram; a datagram made whole reports no more than a frame's
 * checks and names frames already seen; every byte fill changes lies inside a frame seen; what
 * comes back unfinished is only fragment checks (unverifiable, or a UDP 0: absent or illegal) of
 * frames seen; nothing is left held at the end.  In fill mode, fix's view of IN (a verifier served
 * by the filling reassembler while they agree, verifier_fill_frame) counts exactly what a verifier
 * of its own, given each report without fill's writes, counts.  The corpus (fuzz/corpus/reassembly) holds the shared
 * captures' fragments and gen --fragment output in this format. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reassembly.h"
#include "verifier.h"
#include "packet/general.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_reassembly: %s:%d: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)


static void unfinished(void *ctx, uint64_t frame, const struct inetcsum_check *c, unsigned n)
{
    const uint64_t *frames = ctx;
    CHECK(frame >= 1 && frame <= *frames);
    for (unsigned i = 0; i < n; i++)
        CHECK((c[i].flags & INETCSUM_CHECK_FRAGMENT) && /* judged by no data: UDP 0 is absent or illegal */
              (c[i].status == INETCSUM_UNVERIFIABLE || c[i].status == INETCSUM_ABSENT ||
               c[i].status == INETCSUM_ILLEGAL));
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    static const int links[4] = {INETCSUM_LINK_ETHERNET, INETCSUM_LINK_RAW, INETCSUM_LINK_LINUX_SLL,
                                 INETCSUM_LINK_IPV6};
    if (size < 1)
        return 0;
    int fill = in[0] & 1, link = links[(in[0] >> 1) & 3];
    uint64_t frames = 0;
    struct reassembly df;
    reassembly_init(&df, 0, fill, fill ? NULL : unfinished, &frames);
    const int bounded = ((in[0] >> 3) & 7) != 7;
    if (bounded)
        df.ra.max_datagrams = 1 + ((in[0] >> 3) & 7);
    /* fill mode: fix's view (mirrored by df) and a verifier of its own, counted apart */
    struct tally seen, own;
    memset(&seen, 0, sizeof seen);
    memset(&own, 0, sizeof own);
    struct verifier view, ref;
    verifier_init(&view, &seen, 0, 1, unfinished, &frames);
    verifier_init(&ref, &own, 0, 1, unfinished, &frames);
    view.df.ra.max_datagrams = ref.df.ra.max_datagrams = df.ra.max_datagrams;
    if (!bounded)
        df.ra.max_datagrams = view.df.ra.max_datagrams = ref.df.ra.max_datagrams = 2 * (INETCSUM_MAX_DEPTH + 1) + 4;
    if (fill)
        verifier_lead(&view, &df);
    for (size_t at = 1; at + 2 <= size;) {
        size_t len = (size_t)in[at] << 8 | in[at + 1];
        at += 2;
        if (len > size - at)
            len = size - at;
        uint8_t *frame = malloc(len ? len : 1); /* exact size: sanitizers see any over-read */
        memcpy(frame, in + at, len);
        at += len;
        struct cap_record rec = {1, frame, len, frame, (uint32_t)len, (uint32_t)len, link, ++frames, 0, 0};
        struct inetcsum_report r;
        struct described fd;
        if (fill)
            ics_fill_layers_described(frame, len, 0, (enum inetcsum_link)link, 0, INETCSUM_LAYERS_ALL, &r, &fd.d,
                                      &fd.found);
        else
            inetcsum_verify(frame, len, 0, (enum inetcsum_link)link, 0, &r);
        unsigned before = r.count, waiting = 0;
        for (unsigned i = 0; i < r.count; i++)
            waiting += (r.checks[i].flags & INETCSUM_CHECK_FRAGMENT) != 0;
        int whole;
        if (fill) {
            struct inetcsum_report bare;
            reassembly_copy_unfilled(&bare, &r);
            verifier_frame(&ref, &rec, &bare);
            whole = verifier_fill_frame(&view, &df, &rec, &r, 0, &fd);
        } else {
            whole = reassembly_take(&df, &rec, &r, 0);
        }
        CHECK(r.count == before || r.count == before - waiting);
        CHECK(df.nwhole <= INETCSUM_MAX_CHECKS && (whole || df.nwhole == 0));
        if (whole) {
            CHECK(df.first_frame >= 1 && df.first_frame <= df.last_frame && df.last_frame == rec.frame);
            CHECK(df.nfragments >= 1);
        }
        for (size_t i = 0; i < df.nchanges; i++) {
            const struct reassembly_change *c = &df.change[i];
            CHECK(fill && c->from.frame >= 1 && c->from.frame <= rec.frame && c->at < c->from.caplen);
        }
        free(frame);
    }
    reassembly_finish(&df);
    CHECK(df.ra.count == 0 && df.ra.bytes == 0);
    verifier_finish(&view);
    verifier_finish(&ref);
    CHECK(memcmp(&seen, &own, sizeof seen) == 0);
    verifier_free(&view);
    verifier_free(&ref);
    reassembly_free(&df);
    return 0;
}
