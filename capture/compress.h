/* Compressed captures: gzip, zstd and xz, told apart by their first bytes (not by name), read
 * through the well-kept libraries (zlib, libzstd, liblzma) as tshark reads them; and OUT written
 * compressed when its name asks for it (.gz, .zst, .xz), as a whole file at the end. */
#ifndef ICS_CAPTURE_COMPRESS_H
#define ICS_CAPTURE_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum codec { CODEC_NONE, CODEC_GZIP, CODEC_ZSTD, CODEC_XZ };

/* The codec whose magic starts p[0..n) (n >= 6 to tell all three). */
enum codec codec_detect(const uint8_t *p, size_t n);
/* The codec a file name asks for by its ending, or CODEC_NONE. */
enum codec codec_for_name(const char *name);
/* The length of that compression suffix (".gz": 3), 0 for none: what is left names the format. */
size_t codec_suffix_length(const char *name);
const char *codec_name(enum codec c);
/* Whether this build has the codec's library. */
int codec_available(enum codec c);

/* A decompressing reader of descriptor fd, fed first with the npre bytes already read from it. */
struct decoder;
struct decoder *decoder_open(enum codec c, int fd, const uint8_t *pre, size_t npre);
/* Up to n decompressed bytes: how many, 0 at the end, -1 on an error (decoder_error says it).
 * A stream that ends before its codec says it is complete ends early: decoder_cut says so. */
ssize_t decoder_read(struct decoder *d, uint8_t *out, size_t n);
int decoder_cut(const struct decoder *d);
const char *decoder_error(const struct decoder *d);
void decoder_close(struct decoder *d);

/* Writes the len bytes of descriptor in (read from offset 0 with pread) to descriptor out,
 * compressed with c: 0, or -1 with errno set (EIO for a codec failure). */
int compress_fd(enum codec c, int in, off_t len, int out);

#endif
