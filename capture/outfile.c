/* Atomic output files: an unnamed temporary file (O_TMPFILE) + fsync + a name + rename.
 *
 * Nothing may be left behind, whatever ends the process: a file opened with O_TMPFILE has no name
 * until commit gives it one, so even SIGKILL leaves nothing (the kernel frees it with the last
 * descriptor).  Commit links it as OUT where OUT does not exist yet; else under a temporary name
 * with the catchable signals blocked, renamed over OUT at once (a SIGKILL between the two leaves
 * that name: the one window left).  Where the file system has no O_TMPFILE (NFS, old kernels), a
 * named temporary file is made and a handler removes it on SIGINT, SIGTERM, SIGHUP and SIGPIPE
 * (SIGKILL then leaves it, as it would leave any program's). */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compress.h"

/* Records why the output cannot be written, in o->err (printf format; %m is errno's text). */
static void fail_msg(struct outfile *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_msg(struct outfile *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->err, sizeof o->err, fmt, ap);
    va_end(ap);
}

/* Where OUT really goes: through a symbolic link to its target, and never over anything but a
 * regular file; a FIFO or a character device (/dev/null, a terminal) sets *stream: it is written
 * straight through, as standard output is.  NULL, with o->err set and errno, when OUT cannot be
 * written. */
static char *resolve(struct outfile *o, const char *path, int *stream)
{
    struct stat st;
    char *target;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        target = realpath(path, NULL);
        if (!target) {
            fail_msg(o, "%s: %m", path);
            return NULL;
        }
    } else {
        target = strdup(path);
        if (!target) {
            fail_msg(o, "out of memory");
            return NULL;
        }
    }
    *stream = 0;
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
            *stream = 1;
            return target;
        }
        errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
        fail_msg(o, "%s: %s: not replaced", path,
                 S_ISDIR(st.st_mode) ? "is a directory" : "exists and is neither a regular file, a FIFO nor a device");
        free(target);
        return NULL;
    }
    return target;
}

/* The named temporary files a signal must remove (the fallback without O_TMPFILE): the file being
 * written, and while it is compressed, the plain one beside the packed one.  Changed only with
 * the catchable signals blocked, so that a name exists on disk exactly while it is here. */
enum { GUARD_WRITING, GUARD_PLAIN, GUARD_SLOTS };
static char *volatile guarded[GUARD_SLOTS];
static const int guarded_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

static void remove_and_die(int sig)
{
    for (int i = 0; i < GUARD_SLOTS; i++)
        if (guarded[i])
            unlink(guarded[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void block_catchable(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof guarded_sigs / sizeof guarded_sigs[0]; i++)
        sigaddset(&set, guarded_sigs[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
    int err = errno;
    sigprocmask(SIG_SETMASK, old, NULL);
    errno = err;
}

/* Puts name (or NULL) in a slot; call with the catchable signals blocked.  The handlers are
 * installed with the first name and stay until release. */
static void guard_slot(struct outfile *o, int slot, char *name)
{
    if (!o->guard)
        return;
    if (name && !o->handlers) {
        for (size_t i = 0; i < sizeof guarded_sigs / sizeof guarded_sigs[0]; i++) {
            struct sigaction sa = {.sa_handler = remove_and_die};
            sigemptyset(&sa.sa_mask);
            sigaction(guarded_sigs[i], &sa, NULL);
        }
        o->handlers = 1;
    }
    guarded[slot] = name;
}

/* Removes a named temporary file and forgets it, with no moment when a signal could leave it. */
static void unlink_guarded(struct outfile *o, int slot, const char *name)
{
    sigset_t old;
    block_catchable(&old);
    unlink(name);
    guard_slot(o, slot, NULL);
    restore_signals(&old);
}

/* Forgets every name and gives the signals back their default handlers. */
static void unguard(struct outfile *o)
{
    if (!o->handlers)
        return;
    sigset_t old;
    block_catchable(&old);
    for (int i = 0; i < GUARD_SLOTS; i++)
        guarded[i] = NULL;
    for (size_t i = 0; i < sizeof guarded_sigs / sizeof guarded_sigs[0]; i++)
        signal(guarded_sigs[i], SIG_DFL);
    o->handlers = 0;
    restore_signals(&old);
}

/* Gives the unnamed file fd the name tmp: through /proc (any user), else AT_EMPTY_PATH (needs
 * CAP_DAC_READ_SEARCH).  0 or -1 with errno set. */
static int name_unnamed(int fd, const char *tmp)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
        return 0;
    return linkat(fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH);
}

/* Puts the finished temporary file at o->path: 0 or -1 with errno set, nothing left either way. */
static int put_in_place(struct outfile *o)
{
    if (!o->unnamed) {
        sigset_t old;
        block_catchable(&old);
        int rc = rename(o->tmp, o->path);
        if (rc == 0)
            guard_slot(o, GUARD_WRITING, NULL);
        restore_signals(&old);
        return rc;
    }
    /* A name exists from linkat to rename: no catchable signal may end us in between. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    /* Where OUT does not exist yet, the file takes its name at once: no temporary name for a
     * SIGKILL (which nothing blocks) to leave behind between linkat and rename, as test_fix once
     * caught at 0.3 s.  Replacing an OUT that exists needs the second name and rename. */
    if (name_unnamed(o->fd, o->path) == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 0;
    }
    int rc = -1;
    for (int tries = 0; tries < 100 && rc != 0; tries++) {
        if (tries) { /* the name was taken: another XXXXXX */
            size_t n = strlen(o->tmp);
            for (int k = 1; k <= 6; k++)
                o->tmp[n - k] = "abcdefghijklmnopqrstuvwxyz0123456789"[(unsigned)rand() % 36];
        } else {
            size_t n = strlen(o->tmp);
            snprintf(o->tmp + n - 6, 7, "%06x", (unsigned)getpid() & 0xFFFFFF);
        }
        rc = name_unnamed(o->fd, o->tmp);
        if (rc != 0 && errno != EEXIST)
            break;
    }
    int err = errno;
    if (rc == 0 && rename(o->tmp, o->path) != 0) {
        err = errno;
        unlink(o->tmp);
        rc = -1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return rc;
}

/* A temporary file in o->dir, read and write (fix reads back what it wrote to patch earlier
 * fragments), with the mode creat() would give: unnamed where the file system allows, else named
 * o->tmp and guarded.  The descriptor, or -1 with errno set. */
static int open_temp(struct outfile *o)
{
    mode_t mask = umask(0);
    umask(mask);
    /* INETCSUM_TEST_NAMED_TEMP: the tests take the path of a file system without O_TMPFILE. */
    int fd = getenv("INETCSUM_TEST_NAMED_TEMP") ? -1 : open(o->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666 & ~mask);
    if (fd >= 0) {
        o->unnamed = 1;
        return fd;
    }
    size_t n = strlen(o->tmp);
    memcpy(o->tmp + n - 6, "XXXXXX", 6);
    /* Created and guarded as one step: a signal between the two would leave the file. */
    sigset_t old;
    block_catchable(&old);
    if ((fd = mkstemp(o->tmp)) >= 0)
        guard_slot(o, GUARD_WRITING, o->tmp);
    restore_signals(&old);
    if (fd < 0)
        return -1;
    fchmod(fd, 0666 & ~mask); /* mkstemp made it 0600 */
    o->unnamed = 0;
    return fd;
}

/* Replaces the finished temporary file by its compressed form (OUT's name asked for it): 0, or -1
 * with errno set. */
static int compress_temp(struct outfile *o)
{
    off_t len = lseek(o->fd, 0, SEEK_END);
    struct stat st;
    if (len < 0 || fstat(o->fd, &st) != 0)
        return -1;
    const int plain = o->fd, plain_unnamed = o->unnamed;
    char *plain_name = plain_unnamed ? NULL : strdup(o->tmp);
    if (!plain_unnamed && !plain_name)
        return -1;
    if (plain_name) { /* o->tmp is about to name the packed one */
        sigset_t old;
        block_catchable(&old);
        guard_slot(o, GUARD_PLAIN, plain_name);
        guard_slot(o, GUARD_WRITING, NULL);
        restore_signals(&old);
    }
    int packed = open_temp(o);
    int rc = packed < 0 ? -1 : compress_fd(o->codec, plain, len, packed);
    int err = errno;
    if (plain_name) { /* the plain one is no longer wanted */
        unlink_guarded(o, GUARD_PLAIN, plain_name);
        free(plain_name);
    }
    if (rc == 0) {
        fchmod(packed, st.st_mode & 07777);
        o->fd = packed; /* o->f still holds the plain one: closed with it */
        return 0;
    }
    if (packed >= 0) {
        close(packed);
        if (!o->unnamed)
            unlink_guarded(o, GUARD_WRITING, o->tmp);
    }
    o->fd = plain;
    o->unnamed = 1; /* nothing named is left to remove */
    errno = err;
    return -1;
}

/* Closes the temporary file(s): o->f, and the compressed one apart from it. */
static void close_temp(struct outfile *o)
{
    if (o->fd >= 0 && o->fd != fileno(o->f))
        close(o->fd);
    fclose(o->f);
}

static void release(struct outfile *o)
{
    unguard(o); /* before the names are freed: the handler reads them */
    free(o->tmp);
    free(o->path);
    free(o->dir);
    free(o->buf);
    o->f = NULL;
    o->fd = -1;
    o->tmp = o->path = o->dir = NULL;
    o->buf = NULL;
}

int outfile_open(struct outfile *o, const char *path, int guard_signals)
{
    enum { BUF = 1 << 18 };
    *o = (struct outfile){.fd = -1, .guard = guard_signals};
    if (strcmp(path, "-") == 0) {
        static char out_buf[BUF];
        o->f = stdout;
        setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
        return 0;
    }
    int stream;
    o->path = resolve(o, path, &stream);
    if (!o->path)
        return -1;
    if (stream) { /* written in order, never rewound, nothing to rename: as standard output */
        int fd = open(o->path, O_WRONLY | O_CLOEXEC);
        o->f = fd < 0 ? NULL : fdopen(fd, "wb");
        if (!o->f) {
            fail_msg(o, "%s: %m", path);
            if (fd >= 0)
                close(fd);
            free(o->path);
            o->path = NULL;
            return -1;
        }
        o->stream = 1;
        return 0;
    }
    size_t n = strlen(o->path) + 16;
    o->tmp = malloc(n);
    char *dir = strdup(o->path);
    o->buf = malloc(BUF);
    if (!o->tmp || !dir || !o->buf) {
        fail_msg(o, "out of memory");
        goto fail;
    }
    snprintf(o->tmp, n, "%s.tmp-XXXXXX", o->path);
    o->dir = strdup(dirname(dir));
    if (!o->dir) {
        fail_msg(o, "out of memory");
        goto fail;
    }
    if ((o->fd = open_temp(o)) < 0) {
        fail_msg(o, "%s: cannot create a file in %s: %m", path, o->dir);
        goto fail;
    }
    o->codec = codec_for_name(o->path);
    if (!codec_available(o->codec)) {
        fail_msg(o, "%s: asks for %s compression, and this inetcsum was built without it", path,
                 codec_name(o->codec));
        close(o->fd);
        if (!o->unnamed)
            unlink_guarded(o, GUARD_WRITING, o->tmp);
        goto fail;
    }
    o->f = fdopen(o->fd, "wb");
    if (!o->f) {
        fail_msg(o, "%s: %m", path);
        close(o->fd);
        if (!o->unnamed)
            unlink_guarded(o, GUARD_WRITING, o->tmp);
        goto fail;
    }
    setvbuf(o->f, o->buf, _IOFBF, BUF);
    free(dir);
    return 0;
fail:
    free(dir);
    release(o);
    return -1;
}

void outfile_mode(struct outfile *o, mode_t mode)
{
    if (o->fd >= 0)
        fchmod(o->fd, mode & 07777);
}

int outfile_commit(struct outfile *o)
{
    if (o->stream) { /* a FIFO or device */
        int rc = fclose(o->f);
        if (rc != 0)
            fail_msg(o, "%s: %m", o->path);
        release(o);
        return rc == 0 ? 0 : -1;
    }
    if (!o->tmp) { /* standard output */
        if (fflush(o->f) != 0) {
            fail_msg(o, "standard output: writing the capture's last frames: %m");
            return -1;
        }
        return 0;
    }
    int ok = fflush(o->f) == 0;
    if (ok && o->codec != CODEC_NONE)
        ok = compress_temp(o) == 0;
    ok = ok && fsync(o->fd) == 0;
    if (ok && put_in_place(o) == 0) {
        close_temp(o);
        release(o);
        return 0;
    }
    fail_msg(o, "%s: %m", o->path);
    close_temp(o);
    if (!o->unnamed)
        unlink_guarded(o, GUARD_WRITING, o->tmp);
    release(o);
    return -1;
}

void outfile_abort(struct outfile *o)
{
    if (o->stream) { /* what was written has gone: only the descriptor is left to close */
        fclose(o->f);
        release(o);
        return;
    }
    if (!o->tmp)
        return;
    close_temp(o);
    if (!o->unnamed)
        unlink_guarded(o, GUARD_WRITING, o->tmp);
    release(o);
}
