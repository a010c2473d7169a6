/* libFuzzer target: the capture reader (capture/pcap_read.c), the writer fix copies records with
 * (pcap_write.c) and the verify engine (verifier.c).  Input: one byte choosing the read window
 * (small ones make it slide and grow often), then the file.  Whatever the bytes, the reader must
 * hand out records that are exactly the file's bytes in order (so fix reproduces every byte it
 * does not change), frames numbered from 1 with caplen <= wirelen and the frame inside its record;
 * at a clean end the records must cover the whole file (at a cut, all but the cut record's bytes),
 * and the writer's output must be the records as they were after fill changed them in place; an
 * error must be one line naming the file.  The verify engine judges every frame on the way (before
 * fill), its tally agreeing with the frames read.  A gzip, zstd or xz file (the corpus holds some)
 * goes through the decoder: its records are the decompressed bytes, so only their framing and the
 * writer are checked. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture.h"
#include "inetcsum_packet.h"
#include "verifier.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_capture: %s:%d: %s\n", __FILE__, __LINE__, #cond);              \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (size < 1)
        return 0;
    size_t window = in[0] == 255 ? 0 : 64 + (size_t)in[0] * 16;
    const uint8_t *file = in + 1;
    size_t file_len = size - 1;

    int fd = memfd_create("capture", 0);
    CHECK(fd >= 0);
    CHECK(write(fd, file, file_len) == (ssize_t)file_len);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);

    char *written = NULL, *expected = NULL;
    size_t written_len = 0, expected_len = 0;
    FILE *out = open_memstream(&written, &written_len);
    FILE *want = open_memstream(&expected, &expected_len);
    CHECK(out && want);

    struct cap_reader r;
    struct cap_record rec;
    struct cap_writer w;
    struct tally t;
    memset(&t, 0, sizeof t);
    struct verifier judge; /* verify's engine over the same records, before fill changes them */
    verifier_init(&judge, &t, 0, 1, NULL, NULL);
    int got = cap_open(&r, fd, "in.pcap", window);
    cap_writer_attach(&w, &r, out);
    size_t off = 0;
    uint64_t frames = 0;
    const int plain = got != 0 || r.codec == CODEC_NONE;
    while (got == 0 && (got = cap_next(&r, &rec)) == 1) {
        got = 0;
        if (plain) {
            CHECK(rec.raw_len <= file_len - off);
            CHECK(memcmp(rec.raw, file + off, rec.raw_len) == 0);
        }
        off += rec.raw_len;
        if (rec.is_packet) {
            CHECK(rec.frame == ++frames);
            CHECK(rec.data >= rec.raw && rec.data + rec.caplen <= rec.raw + rec.raw_len);
            CHECK(rec.caplen <= rec.wirelen);
            struct inetcsum_report vr;
            inetcsum_verify(rec.data, rec.caplen, rec.wirelen, (enum inetcsum_link)rec.link, 0, &vr);
            verifier_frame(&judge, &rec, &vr);
            CHECK(t.frames == frames);
            inetcsum_fill(rec.data, rec.caplen, rec.wirelen, (enum inetcsum_link)rec.link, 0, NULL);
        }
        CHECK(fwrite(rec.raw, 1, rec.raw_len, want) == rec.raw_len);
        cap_writer_add(&w, &rec);
    }
    if (got == 0) {
        if (plain)
            CHECK(off + (r.cut ? r.cut_have : 0) == file_len && (r.cut ? r.cut_have < r.cut_need : 1));
        CHECK(!r.cut || r.cut_offset == off);
        CHECK(cap_writer_flush(&w) == 0);
    } else {
        CHECK(got == -1);
        CHECK(strncmp(r.err, "in.pcap: ", 9) == 0 && strlen(r.err) > 9 && !strchr(r.err, '\n'));
    }
    verifier_finish(&judge);
    CHECK(t.frames == frames && t.reassembled + t.incomplete <= frames && t.problems <= t.checks + t.frames);
    verifier_free(&judge);
    cap_close(&r);
    CHECK(fflush(out) == 0 && fflush(want) == 0);
    CHECK(written_len <= expected_len && memcmp(written, expected, written_len) == 0);
    if (got == 0)
        CHECK(written_len == expected_len);
    fclose(out);
    fclose(want);
    free(written);
    free(expected);
    close(fd);
    return 0;
}
