/* pthread_cond_signal "shall unblock at least one of the threads that are blocked on the
 * specified condition variable" (POSIX): a thread that starts waiting after a signal must not
 * take that signal's wake-up from the threads that were blocked when it was sent.
 *   1. WAITERS threads block, each waiting once; then, round after round, the main thread sends
 *      one signal without holding the mutex, a late thread starts waiting on the same condition
 *      variable, and the main thread waits until as many of the original waiters have returned
 *      as it has sent signals (each signal found only original waiters blocked, so each must
 *      unblock one of them); the late thread is then cancelled before the next round.
 *   2. A stress mix: producers add tokens under the mutex and signal outside it, consumers wait
 *      for tokens, half of them with timed waits that often time out (a timed-out waiter leaves
 *      the condition variable in the middle of the queue). Every token is consumed; a lost
 *      wake-up leaves an untimed consumer asleep forever and the watchdog fails the program.
 * Usage: condsignal WAITERS TOKENS */
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_cond_t progress = PTHREAD_COND_INITIALIZER;
static long entered, returned, late_entered;

static void *original(void *arg) {
    (void)arg;
    CHECK(pthread_mutex_lock(&m));
    entered++;
    CHECK(pthread_cond_broadcast(&progress));
    CHECK(pthread_cond_wait(&c, &m)); /* once: any return counts as being unblocked */
    returned++;
    CHECK(pthread_cond_broadcast(&progress));
    CHECK(pthread_mutex_unlock(&m));
    return NULL;
}

static void unlock_m(void *arg) {
    (void)arg;
    CHECK(pthread_mutex_unlock(&m));
}

static void *late(void *arg) {
    (void)arg;
    CHECK(pthread_mutex_lock(&m));
    pthread_cleanup_push(unlock_m, NULL);
    late_entered++;
    CHECK(pthread_cond_broadcast(&progress));
    for (;;) CHECK(pthread_cond_wait(&c, &m)); /* until cancelled */
    pthread_cleanup_pop(0);
    return NULL;
}

static void part1(long waiters) {
    pthread_t t[waiters];
    for (long i = 0; i < waiters; i++) CHECK(pthread_create(&t[i], NULL, original, NULL));
    CHECK(pthread_mutex_lock(&m));
    while (entered < waiters) CHECK(pthread_cond_wait(&progress, &m));
    CHECK(pthread_mutex_unlock(&m));
    for (long round = 1; round <= waiters; round++) {
        CHECK(pthread_cond_signal(&c));
        pthread_t l;
        CHECK(pthread_create(&l, NULL, late, NULL));
        CHECK(pthread_mutex_lock(&m));
        while (late_entered < round) CHECK(pthread_cond_wait(&progress, &m));
        /* The late thread is now waiting on c (it released m only there). */
        while (returned < round) CHECK(pthread_cond_wait(&progress, &m));
        CHECK(pthread_mutex_unlock(&m));
        CHECK(pthread_cancel(l));
        void *ret;
        CHECK(pthread_join(l, &ret));
        EXPECT(ret == PTHREAD_CANCELED);
    }
    for (long i = 0; i < waiters; i++) CHECK(pthread_join(t[i], NULL));
    printf("condsignal: %ld signals outside the mutex each unblocked an earlier waiter\n", waiters);
}

static long tokens, produced, consumed, total;
static pthread_cond_t tokens_cv = PTHREAD_COND_INITIALIZER;

static void *producer(void *arg) {
    long n = (long)arg;
    for (long i = 0; i < n; i++) {
        CHECK(pthread_mutex_lock(&m));
        tokens++;
        produced++;
        CHECK(pthread_mutex_unlock(&m));
        if (i % 16 == 15) CHECK(pthread_cond_broadcast(&tokens_cv));
        else CHECK(pthread_cond_signal(&tokens_cv));
        if (i % 4 == 0) sched_yield();
    }
    return NULL;
}

static void *consumer(void *arg) {
    long timed = (long)arg;
    CHECK(pthread_mutex_lock(&m));
    for (;;) {
        while (tokens == 0 && consumed < total) {
            if (timed) {
                struct timespec d = deadline_ms(CLOCK_MONOTONIC, 0);
                d.tv_nsec += 50000; /* 50 us: most of these time out */
                if (d.tv_nsec >= 1000000000L) {
                    d.tv_sec++;
                    d.tv_nsec -= 1000000000L;
                }
                int rc = pthread_cond_clockwait(&tokens_cv, &m, CLOCK_MONOTONIC, &d);
                EXPECT(rc == 0 || rc == ETIMEDOUT);
            } else {
                CHECK(pthread_cond_wait(&tokens_cv, &m));
            }
        }
        if (consumed == total) break;
        tokens--;
        if (++consumed == total) CHECK(pthread_cond_broadcast(&tokens_cv));
    }
    CHECK(pthread_mutex_unlock(&m));
    return NULL;
}

static void part2(long n) {
    enum { PRODUCERS = 2, CONSUMERS = 4 };
    total = PRODUCERS * n;
    pthread_t p[PRODUCERS], q[CONSUMERS];
    for (long i = 0; i < CONSUMERS; i++)
        CHECK(pthread_create(&q[i], NULL, consumer, (void *)(i % 2)));
    for (long i = 0; i < PRODUCERS; i++) CHECK(pthread_create(&p[i], NULL, producer, (void *)n));
    for (long i = 0; i < PRODUCERS; i++) CHECK(pthread_join(p[i], NULL));
    for (long i = 0; i < CONSUMERS; i++) CHECK(pthread_join(q[i], NULL));
    EXPECT(produced == total && consumed == total && tokens == 0);
    printf("condsignal: %ld tokens produced and consumed\n", total);
}

int main(int argc, char **argv) {
    watchdog(60);
    part1(arg_or(argc, argv, 1, 8));
    part2(arg_or(argc, argv, 2, 5000));
    return 0;
}
