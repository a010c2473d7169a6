/* A tuning row's steps from measured times (tuning_steps.h). */
#include "tuning_steps.h"

#include <stdio.h>
#include <string.h>

#include "registry.h"

void tuning_steps_init(struct tuning_steps *t)
{
    t->len = (size_t)snprintf(t->text, sizeof t->text, "{");
    t->last = NULL;
}

void tuning_steps_add(struct tuning_steps *t, size_t size, const char *const *names, const double *ticks, int n,
                      int fastest)
{
    int keep = -1;
    for (int j = 0; t->last && j < n; j++)
        if (names[j] && strcmp(names[j], t->last) == 0)
            keep = j;
    if (t->last != NULL && (keep < 0 || ticks[keep] <= 1.05 * ticks[fastest]))
        return;
    size_t from = t->last == NULL ? 0 : (size_t)1 << ics_size_class(size);
    if (t->len < sizeof t->text)
        t->len += (size_t)snprintf(t->text + t->len, sizeof t->text - t->len, "%s{%zu, \"%s\"}",
                                   t->last ? ", " : "", from, names[fastest]);
    t->last = names[fastest];
}

const char *tuning_steps_text(struct tuning_steps *t)
{
    if (t->len < sizeof t->text)
        snprintf(t->text + t->len, sizeof t->text - t->len, "}");
    return t->text;
}
