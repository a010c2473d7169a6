/* Dispatch under threads (run under TSAN): many threads make the library's very first call at the
 * same moment, then sum while two other threads keep switching kernels; every result is right, and
 * once the switching stops the entry points' table is the plan last published, not a mix. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "testutil.h"

#define THREADS 8
static uint8_t data[9000];
static uint16_t want[9001];
static pthread_barrier_t start;
static atomic_int stop;
static atomic_ulong bad;

static void *worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    for (int round = 0; round < 40; round++)
        for (size_t len = round; len <= sizeof data; len += 97) {
            if (inetcsum_fold(inetcsum_partial(data, len, 0)) != want[len])
                atomic_fetch_add(&bad, 1);
            (void)inetcsum_impl_name();
        }
    return NULL;
}

/* arg: where in the kernel list to start, so that two switchers publish different plans at once
 * (and the tuned plan, NULL, between). */
static void *switcher(void *arg)
{
    const char *names[16];
    size_t n = inetcsum_impl_list(names, 16);
    for (size_t i = (size_t)(uintptr_t)arg; !atomic_load(&stop); i++)
        inetcsum_set_impl(i % (n + 1) == n ? NULL : names[i % (n + 1)]);
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_threads");
    tu_fill_random(data, sizeof data);
    for (size_t len = 0; len <= sizeof data; len++)
        want[len] = ref_sum(data, len, 0);

    pthread_t t[THREADS], sw[2];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&bad) == 0, "%lu wrong sums with racing first calls", atomic_load(&bad));
    CHECK(ics_dispatch_consistent(), "the table is the plan resolved after racing first calls");

    pthread_barrier_destroy(&start);
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < 2; i++)
        pthread_create(&sw[i], NULL, switcher, (void *)(uintptr_t)(i * 3));
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(sw[i], NULL);
    CHECK(atomic_load(&bad) == 0, "%lu wrong sums while kernels were switched", atomic_load(&bad));
    CHECK(ics_dispatch_consistent(), "the table is the plan last published after two threads switched at once");
    return tu_finish();
}
