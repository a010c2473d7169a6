/* Atomic output files: temporary + fsync + rename. */
#include "outfile.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Where OUT really goes: through a symbolic link to its target, and never over anything but a
 * regular file.  NULL, with the error printed, when OUT cannot be written. */
static char *resolve(const char *path)
{
    struct stat st;
    char *target;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        target = realpath(path, NULL);
        if (!target) {
            cli_error("%s: %m", path);
            return NULL;
        }
    } else {
        target = strdup(path);
        if (!target) {
            cli_error("out of memory");
            return NULL;
        }
    }
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
        cli_error("%s: exists and is not a regular file: not replaced", path);
        free(target);
        return NULL;
    }
    return target;
}

static void release(struct outfile *o)
{
    free(o->tmp);
    free(o->path);
    *o = (struct outfile){.fd = -1};
}

int outfile_open(struct outfile *o, const char *path)
{
    static char buf[1 << 18];
    *o = (struct outfile){.fd = -1};
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        setvbuf(stdout, buf, _IOFBF, sizeof buf);
        return 0;
    }
    o->path = resolve(path);
    if (!o->path)
        return -1;
    size_t n = strlen(o->path) + 16;
    o->tmp = malloc(n);
    char *dir = strdup(o->path);
    if (!o->tmp || !dir) {
        cli_error("out of memory");
        goto fail;
    }
    snprintf(o->tmp, n, "%s.tmp-XXXXXX", o->path);
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        cli_error("%s: cannot create a file in %s: %m", path, dirname(dir));
        goto fail;
    }
    mode_t mask = umask(0); /* mkstemp made it 0600: give it what creat() would */
    umask(mask);
    fchmod(o->fd, 0666 & ~mask);
    o->f = fdopen(o->fd, "wb");
    if (!o->f) {
        cli_error("%s: %m", path);
        close(o->fd);
        unlink(o->tmp);
        goto fail;
    }
    setvbuf(o->f, buf, _IOFBF, sizeof buf);
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
    if (!o->tmp) { /* standard output */
        if (fflush(o->f) != 0) {
            cli_error("writing the output: %m");
            return -1;
        }
        return 0;
    }
    int ok = fflush(o->f) == 0 && fsync(o->fd) == 0;
    ok = (fclose(o->f) == 0) && ok;
    if (ok && rename(o->tmp, o->path) == 0) {
        release(o);
        return 0;
    }
    cli_error("%s: %m", o->path);
    unlink(o->tmp);
    release(o);
    return -1;
}

void outfile_abort(struct outfile *o)
{
    if (!o->tmp)
        return;
    fclose(o->f);
    unlink(o->tmp);
    release(o);
}
