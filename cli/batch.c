/* Many files at once (-j N): jobs worker processes take the files in turn; a worker's standard
 * output and error are memory files, sent to the parent over the worker's own pipe after each file
 * with the file's result, and the parent prints them in the files' order as each file (and every
 * one before it) is done, so that the output reads exactly as if the files had been done one after
 * another, whatever finished first.
 * Processes rather than threads: the command's code writes to stdout and stderr as it goes and
 * keeps per-run state (signal guards, buffers), all of which a process has of its own.  Workers
 * live for the whole run (a fork per file would cost more than a small capture's verify). */
#define _GNU_SOURCE
#include "batch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* What a worker sends its parent when a file is done, on its own pipe: this header, then out_len
 * bytes of the file's stdout, err_len of its stderr, and the result. */
struct done_msg {
    size_t i, out_len, err_len;
    int status;
};

int batch_jobs_default(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int batch_parse_jobs(const char *cmd, const char *arg, int *jobs)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < 1 || v > 1024) {
        cli_error("%s: --jobs '%s' is not a number from 1 to 1024", cmd, arg);
        return -1;
    }
    *jobs = (int)v;
    return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* A memory file's content (then emptied for the next file): malloc'd, its length in *len. */
static char *take_content(int fd, size_t *len)
{
    off_t end = lseek(fd, 0, SEEK_END);
    *len = end > 0 ? (size_t)end : 0;
    char *buf = malloc(*len ? *len : 1);
    if (buf && *len && pread(fd, buf, *len, 0) != (ssize_t)*len)
        *len = 0;
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
        *len = 0;
    return buf;
}

static int memory_file(void)
{
    int fd = memfd_create("inetcsum-batch", MFD_CLOEXEC);
    if (fd < 0) { /* (no memfd: an unnamed temporary file) */
        FILE *f = tmpfile();
        fd = f ? dup(fileno(f)) : -1;
        if (f)
            fclose(f);
    }
    return fd;
}

/* A worker: takes files until none is left.  Its stdout and stderr are memory files, emptied into
 * the pipe after each file. */
static void worker(_Atomic size_t *next, size_t n, int pipe_w, size_t result_size, batch_fn fn, void *ctx)
{
    int out = memory_file(), err = memory_file();
    unsigned char *result = calloc(1, result_size ? result_size : 1);
    if (out < 0 || err < 0 || !result)
        _exit(3);
    fflush(stdout);
    fflush(stderr);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    for (;;) {
        size_t i = atomic_fetch_add(next, 1);
        if (i >= n)
            break;
        memset(result, 0, result_size);
        struct done_msg d = {i, 0, 0, 0};
        d.status = fn(i, ctx, result);
        fflush(stdout);
        fflush(stderr);
        char *o = take_content(out, &d.out_len), *e = take_content(err, &d.err_len);
        if (!o || !e || write_all(pipe_w, &d, sizeof d) || write_all(pipe_w, o, d.out_len) ||
            write_all(pipe_w, e, d.err_len) || write_all(pipe_w, result, result_size))
            _exit(3);
        free(o);
        free(e);
    }
    _exit(0);
}

/* A file done, waiting for the ones before it to be printed. */
struct finished {
    struct done_msg d;
    char *out, *err;
    unsigned char *result;
};

static void finished_free(struct finished *f)
{
    if (!f)
        return;
    free(f->out);
    free(f->err);
    free(f->result);
    free(f);
}

/* Reads one message from a worker's pipe: NULL at its end (or on a broken message). */
static struct finished *receive(int fd, size_t result_size)
{
    struct finished *f = calloc(1, sizeof *f);
    if (!f || read_all(fd, &f->d, sizeof f->d) != 0) {
        free(f);
        return NULL;
    }
    f->out = malloc(f->d.out_len + 1);
    f->err = malloc(f->d.err_len + 1);
    f->result = calloc(1, result_size ? result_size : 1);
    if (!f->out || !f->err || !f->result || read_all(fd, f->out, f->d.out_len) ||
        read_all(fd, f->err, f->d.err_len) || read_all(fd, f->result, result_size)) {
        finished_free(f);
        return NULL;
    }
    return f;
}

int batch_run(size_t n, int jobs, size_t result_size, batch_fn fn, batch_done done, void *ctx)
{
    if (jobs <= 1 || n <= 1) { /* one after another, in this process */
        void *result = calloc(1, result_size ? result_size : 1);
        if (!result)
            return -1;
        for (size_t i = 0; i < n; i++) {
            memset(result, 0, result_size);
            int status = fn(i, ctx, result);
            done(i, status, result, ctx);
        }
        free(result);
        return 0;
    }
    if ((size_t)jobs > n)
        jobs = (int)n;
    _Atomic size_t *next = mmap(NULL, sizeof *next, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    struct finished **waiting = calloc(n, sizeof *waiting);
    struct pollfd *fds = calloc((size_t)jobs, sizeof *fds);
    pid_t *pids = calloc((size_t)jobs, sizeof *pids);
    if (next == MAP_FAILED || !waiting || !fds || !pids) {
        if (next != MAP_FAILED)
            munmap(next, sizeof *next);
        free(waiting);
        free(fds);
        free(pids);
        return batch_run(n, 1, result_size, fn, done, ctx);
    }
    atomic_store(next, 0);
    fflush(stdout);
    fflush(stderr);
    int started = 0, open_pipes = 0;
    for (int w = 0; w < jobs; w++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0)
            break;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            for (int k = 0; k < started; k++)
                close(fds[k].fd);
            worker(next, n, p[1], result_size, fn, ctx);
        }
        close(p[1]);
        if (pid < 0) {
            close(p[0]);
            break;
        }
        pids[started] = pid;
        fds[started].fd = p[0];
        fds[started].events = POLLIN;
        started++;
        open_pipes++;
    }
    size_t next_print = 0;
    while (next_print < n) {
        if (open_pipes > 0) {
            if (poll(fds, (nfds_t)started, -1) < 0) {
                if (errno == EINTR)
                    continue;
                break;
            }
            for (int w = 0; w < started; w++) {
                if (fds[w].fd < 0 || !(fds[w].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                struct finished *f = receive(fds[w].fd, result_size);
                if (!f || f->d.i >= n || waiting[f->d.i]) { /* the worker is done, or died */
                    finished_free(f);
                    close(fds[w].fd);
                    fds[w].fd = -1;
                    open_pipes--;
                    continue;
                }
                waiting[f->d.i] = f;
            }
        } else {
            /* Every worker is gone: a file none finished was being read by one that died (or
             * none could start): done here, in this process, after its turn came. */
            for (size_t i = next_print; i < n; i++)
                if (!waiting[i] && atomic_load(next) > i) {
                    struct finished *f = calloc(1, sizeof *f);
                    if (f) {
                        f->d = (struct done_msg){i, 0, 0, EXIT_USAGE};
                        f->result = calloc(1, result_size ? result_size : 1);
                        char msg[160];
                        int len = snprintf(msg, sizeof msg,
                                           "inetcsum: file %zu of %zu: the process reading it ended before it "
                                           "was done\n", i + 1, n);
                        f->err = strdup(msg);
                        f->d.err_len = f->err && len > 0 ? (size_t)len : 0;
                    }
                    waiting[i] = f;
                }
            if (atomic_load(next) < n) { /* files no worker took: here */
                size_t i;
                while ((i = atomic_fetch_add(next, 1)) < n) {
                    struct finished *f = calloc(1, sizeof *f);
                    if (!f)
                        break;
                    f->result = calloc(1, result_size ? result_size : 1);
                    fflush(stdout);
                    f->d = (struct done_msg){i, 0, 0, fn(i, ctx, f->result)};
                    waiting[i] = f;
                }
            }
        }
        while (next_print < n && waiting[next_print]) {
            struct finished *f = waiting[next_print];
            fwrite(f->out ? f->out : "", 1, f->d.out_len, stdout);
            fflush(stdout);
            fwrite(f->err ? f->err : "", 1, f->d.err_len, stderr);
            done(next_print, f->d.status, f->result, ctx);
            finished_free(f);
            waiting[next_print++] = NULL;
        }
        if (open_pipes == 0 && next_print < n && !waiting[next_print] && atomic_load(next) >= n) {
            /* (nothing more can arrive: the loop above has filled every gap) */
            break;
        }
    }
    for (int w = 0; w < started; w++) {
        if (fds[w].fd >= 0)
            close(fds[w].fd);
        waitpid(pids[w], NULL, 0);
    }
    munmap(next, sizeof *next);
    free(waiting);
    free(fds);
    free(pids);
    return 0;
}
