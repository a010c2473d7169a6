/* One job at a time to a second thread, for the capture library's writers: the copy's output
 * (pcap_write.c) and the in-place fix's changed fields (fixer.c) hand a read window's writes over
 * and read on, the reader double buffered so that the window stays as it was until they are
 * written.  The caller sets a job up while the thread is idle (handoff_idle), then hands it over
 * (handoff_go); the thread runs work(ctx) for it. */
#ifndef ICS_CAPTURE_HANDOFF_H
#define ICS_CAPTURE_HANDOFF_H

#include <pthread.h>

struct handoff {
    int (*work)(void *ctx); /* one job, on the thread: 0 or an errno */
    void *ctx;
    int busy, stop, err; /* err: the errno of the first job that failed */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

/* Starts the thread: 0, or an errno (no thread then). */
int handoff_start(struct handoff *h, int (*work)(void *ctx), void *ctx);
/* Waits until the job handed over last is done; returns the errno of the first job that failed
 * (0: none).  Until handoff_go the thread does not look at the job's data. */
int handoff_idle(struct handoff *h);
/* Hands the job set up (since handoff_idle) to the thread. */
void handoff_go(struct handoff *h);
/* Waits for the last job and stops the thread. */
void handoff_stop(struct handoff *h);

#endif
