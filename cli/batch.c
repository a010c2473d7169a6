/* Many files at once (-j N): jobs worker processes take the files in turn; each file's standard
 * output and error go to files of their own in a private temporary folder, and the parent copies
 * them to its own in the files' order as each file (and every one before it) is done, so that the
 * output reads exactly as if the files had been done one after another, whatever finished first.
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* What a worker says on the pipe when a file is done: one write, under PIPE_BUF (atomic). */
struct done_msg {
    size_t i;
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

/* dir is at most PATH_MAX - 64 bytes (checked when it is made): the name always fits. */
static void out_name(char *buf, size_t size, const char *dir, size_t i, const char *what)
{
    if (snprintf(buf, size, "%s/%zu.%s", dir, i, what) >= (int)size)
        buf[0] = '\0';
}

/* Copies the file at path to f (stdout or stderr) and removes it. */
static void copy_out(const char *path, FILE *f)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[1 << 16];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            fwrite(buf, 1, (size_t)n, f);
        close(fd);
    }
    unlink(path);
}

/* A worker: takes files until none is left. */
static void worker(_Atomic size_t *next, size_t n, const char *dir, int pipe_w, size_t result_size, batch_fn fn,
                   void *ctx)
{
    unsigned char msg[PIPE_BUF];
    for (;;) {
        size_t i = atomic_fetch_add(next, 1);
        if (i >= n)
            break;
        char path[PATH_MAX];
        fflush(stdout);
        fflush(stderr);
        out_name(path, sizeof path, dir, i, "out");
        int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        out_name(path, sizeof path, dir, i, "err");
        int err = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (out < 0 || err < 0)
            _exit(3);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        close(out);
        close(err);
        struct done_msg d = {i, 0};
        memset(msg, 0, sizeof d + result_size);
        d.status = fn(i, ctx, msg + sizeof d);
        memcpy(msg, &d, sizeof d);
        fflush(stdout);
        fflush(stderr);
        if (write(pipe_w, msg, sizeof d + result_size) != (ssize_t)(sizeof d + result_size))
            _exit(3);
    }
    _exit(0);
}

int batch_run(size_t n, int jobs, size_t result_size, batch_fn fn, batch_done done, void *ctx)
{
    const size_t msg_size = sizeof(struct done_msg) + result_size;
    if (jobs <= 1 || n <= 1 || msg_size > PIPE_BUF) { /* one after another, in this process */
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
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    if (!tmp || !*tmp || strlen(tmp) > sizeof dir - 64)
        tmp = "/tmp";
    snprintf(dir, sizeof dir - 40, "%s/inetcsum-batch-XXXXXX", tmp);
    _Atomic size_t *next = mmap(NULL, sizeof *next, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    unsigned char **finished = calloc(n, sizeof *finished); /* a file's message, until it is printed */
    int fds[2] = {-1, -1};
    pid_t *pids = calloc((size_t)jobs, sizeof *pids);
    if (next == MAP_FAILED || !finished || !pids || !mkdtemp(dir) || pipe2(fds, O_CLOEXEC) != 0) {
        cli_error("cannot run files at once (%s): one after another instead", strerror(errno));
        if (next != MAP_FAILED)
            munmap(next, sizeof *next);
        free(finished);
        free(pids);
        return batch_run(n, 1, result_size, fn, done, ctx);
    }
    atomic_store(next, 0);
    fflush(stdout);
    fflush(stderr);
    int started = 0;
    for (int w = 0; w < jobs; w++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            worker(next, n, dir, fds[1], result_size, fn, ctx);
        }
        if (pid > 0)
            pids[started++] = pid;
    }
    close(fds[1]);
    size_t next_print = 0;
    unsigned char msg[PIPE_BUF];
    while (next_print < n) {
        ssize_t got = started ? read(fds[0], msg, msg_size) : 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got == (ssize_t)msg_size) {
            struct done_msg d;
            memcpy(&d, msg, sizeof d);
            if (d.i < n && !finished[d.i] && (finished[d.i] = malloc(msg_size)))
                memcpy(finished[d.i], msg, msg_size);
        } else {
            /* Every worker is gone: a file none of them finished was being read by one that died
             * (or none could start): said under its name, with what it had written. */
            for (size_t i = next_print; i < n; i++)
                if (!finished[i] && (finished[i] = calloc(1, msg_size))) {
                    struct done_msg d = {i, EXIT_USAGE};
                    memcpy(finished[i], &d, sizeof d);
                    char path[PATH_MAX];
                    out_name(path, sizeof path, dir, i, "err");
                    FILE *e = fopen(path, "a");
                    if (e) {
                        fprintf(e, "inetcsum: file %zu of %zu: the process reading it ended before it was done\n",
                                i + 1, n);
                        fclose(e);
                    }
                }
        }
        while (next_print < n && finished[next_print]) {
            char path[PATH_MAX];
            out_name(path, sizeof path, dir, next_print, "out");
            copy_out(path, stdout);
            fflush(stdout);
            out_name(path, sizeof path, dir, next_print, "err");
            copy_out(path, stderr);
            struct done_msg d;
            memcpy(&d, finished[next_print], sizeof d);
            done(next_print, d.status, finished[next_print] + sizeof d, ctx);
            free(finished[next_print]);
            finished[next_print++] = NULL;
        }
    }
    close(fds[0]);
    for (int w = 0; w < started; w++)
        waitpid(pids[w], NULL, 0);
    rmdir(dir);
    munmap(next, sizeof *next);
    free(finished);
    free(pids);
    return 0;
}
