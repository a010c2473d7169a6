/* Many files at once (-j N), their output in their order: see batch.c. */
#ifndef ICS_CLI_BATCH_H
#define ICS_CLI_BATCH_H

#include <stddef.h>

/* One file's work: its exit status; result (result_size bytes, zeroed) what the parent needs of
 * it (a tally).  Runs in a child process when files run at once: it writes stdout and stderr as
 * it would alone. */
typedef int (*batch_fn)(size_t i, void *ctx, void *result);
/* Called in the parent, in file order, once file i's output has been printed. */
typedef void (*batch_done)(size_t i, int status, const void *result, void *ctx);

/* The CPUs online: -j's default. */
int batch_jobs_default(void);
/* -j N's argument, 1 to 1024: 0, or -1 with the reason said (cmd names the command). */
int batch_parse_jobs(const char *cmd, const char *arg, int *jobs);
/* Does files 0..n-1, up to jobs at once (1: one after another in this process, as before).  0, or
 * -1 when it could not start (out of memory). */
int batch_run(size_t n, int jobs, size_t result_size, batch_fn fn, batch_done done, void *ctx);

#endif
