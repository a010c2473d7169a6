/* One job at a time to a second thread (handoff.h). */
#include "handoff.h"

static void *run_jobs(void *arg)
{
    struct handoff *h = arg;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        while (!h->busy && !h->stop)
            pthread_cond_wait(&h->cond, &h->lock);
        if (!h->busy)
            break;
        pthread_mutex_unlock(&h->lock);
        const int err = h->work(h->ctx);
        pthread_mutex_lock(&h->lock);
        if (err && !h->err)
            h->err = err;
        h->busy = 0;
        pthread_cond_broadcast(&h->cond);
    }
    pthread_mutex_unlock(&h->lock);
    return 0;
}

int handoff_start(struct handoff *h, int (*work)(void *ctx), void *ctx)
{
    *h = (struct handoff){.work = work, .ctx = ctx};
    pthread_mutex_init(&h->lock, 0);
    pthread_cond_init(&h->cond, 0);
    const int rc = pthread_create(&h->thread, 0, run_jobs, h);
    if (rc) {
        pthread_mutex_destroy(&h->lock);
        pthread_cond_destroy(&h->cond);
    }
    return rc;
}

int handoff_idle(struct handoff *h)
{
    pthread_mutex_lock(&h->lock);
    while (h->busy)
        pthread_cond_wait(&h->cond, &h->lock);
    const int err = h->err;
    pthread_mutex_unlock(&h->lock);
    return err;
}

void handoff_go(struct handoff *h)
{
    pthread_mutex_lock(&h->lock);
    h->busy = 1;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

void handoff_stop(struct handoff *h)
{
    handoff_idle(h);
    pthread_mutex_lock(&h->lock);
    h->stop = 1;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, 0);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->cond);
}
