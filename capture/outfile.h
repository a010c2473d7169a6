/* An output file that appears whole or not at all, and leaves nothing behind when it does not: written
 * to an unnamed temporary file in OUT's directory (O_TMPFILE; a named one removed on signals where
 * the file system has none), then flushed, compressed when OUT's name ends in .gz, .zst or .xz
 * (into a second temporary file: fix patches the plain one as it goes), synced, named and renamed
 * over OUT.  Used by fix and gen, and by fix from Python.  "-" is standard output, written directly;
 * so is an OUT that is a FIFO or a character device (a pipe to another program, /dev/null): those
 * are written in order and never rewound, and an error part way cannot take back what went. */
#ifndef ICS_CAPTURE_OUTFILE_H
#define ICS_CAPTURE_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

struct outfile {
    FILE *f;
    char *path; /* where it goes: a symbolic link's target, as cp writes through one */
    char *tmp;  /* the temporary file's name (given at commit when unnamed), NULL for stdout */
    int fd;
    int unnamed; /* opened with O_TMPFILE: no name until commit */
    char *dir;   /* OUT's directory, where temporary files go */
    int codec;   /* enum codec: OUT's name asks for gzip, zstd or xz (written at commit) */
    int guard;   /* remove a named temporary file on SIGINT, SIGTERM, SIGHUP, SIGPIPE */
    int handlers; /* the handlers that do it are installed */
    int stream;  /* OUT is a FIFO or a character device, written straight through (no tmp) */
    char *buf;   /* o->f's buffer */
    char err[512]; /* why open or commit failed */
};

/* 0 with o->f open for writing, or -1 with o->err set (and errno: EISDIR for a directory).  Never
 * replaces anything but a regular file (renaming over a device or a directory would replace it): a
 * FIFO or character device is written into, anything else refused.  guard_signals: where the file
 * system has no O_TMPFILE, handlers for the catchable signals remove the named temporary file (the
 * command sets it; a library caller such as Python keeps its own handlers and passes 0). */
int outfile_open(struct outfile *o, const char *path, int guard_signals);
/* Gives the file these permission bits (fix: IN's, as cp does). */
void outfile_mode(struct outfile *o, mode_t mode);
/* Flushes, syncs and renames into place: 0, or -1 with o->err set and nothing left. */
int outfile_commit(struct outfile *o);
/* Removes the temporary file: nothing is left. */
void outfile_abort(struct outfile *o);

#endif
