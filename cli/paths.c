/* The captures a command was given (paths.h): directories read for the captures in them. */
#define _GNU_SOURCE
#include "paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "compress.h"

/* A path that cannot be read: said on stderr, counted, and kept with why. */
static void path_error(struct path_list *l, const char *path, const char *why)
{
    cli_error("%s: %s", path, why);
    l->errors++;
    if (l->nfailed == l->failed_cap) {
        const size_t cap = l->failed_cap ? 2 * l->failed_cap : 8;
        struct path_failed *f = realloc(l->failed, cap * sizeof *f);
        if (!f)
            return;
        l->failed = f;
        l->failed_cap = cap;
    }
    char *p = strdup(path), *w = strdup(why);
    if (p && w)
        l->failed[l->nfailed++] = (struct path_failed){p, w};
    else {
        free(p);
        free(w);
    }
}

static void add(struct path_list *l, const char *path)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **p = realloc(l->paths, cap * sizeof *p);
        if (!p) {
            l->errors++;
            return;
        }
        l->paths = p;
        l->cap = cap;
    }
    char *copy = strdup(path);
    if (copy)
        l->paths[l->n++] = copy;
    else
        l->errors++;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* A capture by its name: .pcap, .pcapng, .cap or .ntar (pcapng's old name), before any compression
 * suffix the capture library reads (.gz, .zst, .xz). */
static int capture_name(const char *name)
{
    static const char *const kinds[] = {".pcap", ".pcapng", ".cap", ".ntar"};
    const size_t n = strlen(name) - codec_suffix_length(name);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const size_t m = strlen(kinds[k]);
        if (n >= m && strncmp(name + n - m, kinds[k], m) == 0)
            return 1;
    }
    return 0;
}

/* A capture by its first four bytes, as the capture library tells one. */
static int capture_magic(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    uint8_t m[4];
    ssize_t got = read(fd, m, 4);
    close(fd);
    return got == 4 && cap_magic_is_capture(m);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every capture below dir, in name order (each directory's entries sorted, depth first). */
static void walk(struct path_list *l, const char *dir, unsigned long long *skipped)
{
    DIR *d = opendir(dir);
    if (!d) {
        path_error(l, dir, strerror(errno));
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **p = realloc(names, cap * sizeof *p);
            if (!p)
                break;
            names = p;
        }
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char *path;
        if (asprintf(&path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", names[i]) < 0) {
            l->errors++;
            continue;
        }
        struct stat st, lst;
        if (lstat(path, &lst) != 0 || stat(path, &st) != 0) {
            if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
                ++*skipped; /* a dangling link */
            else
                path_error(l, path, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            if (S_ISLNK(lst.st_mode))
                ++*skipped; /* links to directories are not followed: no loops, no tree read twice */
            else if (l->skip_ino && (unsigned long long)st.st_dev == l->skip_dev &&
                     (unsigned long long)st.st_ino == l->skip_ino)
                cli_error("%s: the output folder, inside the input one: not read as input", path);
            else
                walk(l, path, skipped);
        } else if (S_ISREG(st.st_mode) && (capture_name(names[i]) || capture_magic(path))) {
            add(l, path);
        } else {
            ++*skipped;
        }
        free(path);
        free(names[i]);
    }
    free(names);
}

void paths_expand(struct path_list *l, char *const *args, int nargs, int recursive)
{
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        if (strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (!recursive) {
                path_error(l, args[i], "is a directory (-r reads the captures in it)");
                continue;
            }
            unsigned long long skipped = 0;
            size_t before = l->n;
            walk(l, args[i], &skipped);
            if (skipped)
                cli_error("%s: %llu file%s skipped: not captures by name (.pcap, .pcapng, .cap, .ntar, "
                          "compressed or not) or by their first bytes",
                          args[i], skipped, skipped == 1 ? "" : "s");
            if (l->n == before)
                cli_error("%s: no capture in it", args[i]);
            continue;
        }
        add(l, args[i]); /* a file, "-", or a name that cannot be read (said when it is opened) */
    }
}

int paths_make_parents(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            cli_error("%s: cannot make the folder %s: %s", path, copy, strerror(errno));
            free(copy);
            return -1;
        }
        *p = '/';
    }
    free(copy);
    return 0;
}

void paths_free(struct path_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    for (size_t i = 0; i < l->nfailed; i++) {
        free(l->failed[i].path);
        free(l->failed[i].why);
    }
    free(l->failed);
    *l = (struct path_list){0};
}

FILE *cli_open_input(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdin;
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("%s: %m", path);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory", path);
        fclose(f);
        return NULL;
    }
    return f;
}
