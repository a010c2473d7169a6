/* A tuning row's steps (lib/tuning.c) from measured times: the text `inetcsum bench` prints for a
 * user to contribute, shared by the sum's (sizes) and the copy's (copy) preferred-kernel tables. */
#ifndef ICS_BENCH_TUNING_STEPS_H
#define ICS_BENCH_TUNING_STEPS_H

#include <stddef.h>

struct tuning_steps {
    char text[512];
    size_t len;
    const char *last; /* the kernel of the last step, or NULL */
};

void tuning_steps_init(struct tuning_steps *t);

/* One size, in ascending order: names[j] (NULL: not a kernel) took ticks[j]; `fastest` is the
 * quickest kernel's index.  A step starts here (at the power of two at or below the size) when
 * the kernel of the step before is over 5% slower: closer than that is within a quiet machine's
 * run-to-run spread. */
void tuning_steps_add(struct tuning_steps *t, size_t size, const char *const *names, const double *ticks, int n,
                      int fastest);

/* "{{0, \"a\"}, {512, \"b\"}}" */
const char *tuning_steps_text(struct tuning_steps *t);

#endif
