/* Dispatch under threads (run under TSAN): many threads make the library's very first call at the
 * same moment, then sum while another thread keeps switching kernels; every result is right. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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

static void *switcher(void *arg)
{
    (void)arg;
    const char *names[16];
    size_t n = inetcsum_impl_list(names, 16);
    for (size_t i = 0; !atomic_load(&stop); i++)
        inetcsum_set_impl(names[i % n]);
    return NULL;
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_threads");
    tu_fill_random(data, sizeof data);
    for (size_t len = 0; len <= sizeof data; len++)
        want[len] = ref_sum(data, len, 0);

    pthread_t t[THREADS], sw;
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&bad) == 0, "%lu wrong sums with racing first calls", atomic_load(&bad));

    pthread_barrier_destroy(&start);
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_create(&sw, NULL, switcher, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    atomic_store(&stop, 1);
    pthread_join(sw, NULL);
    CHECK(atomic_load(&bad) == 0, "%lu wrong sums while kernels were switched", atomic_load(&bad));
    return tu_finish();
}
