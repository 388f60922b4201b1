/* pthread_mutex_timedlock and pthread_mutex_clocklock are not cancellation points (POSIX,
 * pthreads(7)): a thread with a cancellation pending that waits in a contended timed lock is not
 * cancelled there; the lock returns (here ETIMEDOUT: the main thread holds the mutex throughout)
 * and the cancellation acts at the next cancellation point. The same for pthread_mutex_lock, and
 * for the kinds of mutex the library hands to glibc. */
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t errorcheck;
static pthread_mutex_t *target;
static int returned[3], reached;

static void *pending_canceller(void *arg) {
    (void)arg;
    CHECK(pthread_cancel(pthread_self()));
    struct timespec d = deadline_ms(CLOCK_REALTIME, 20);
    returned[0] = pthread_mutex_timedlock(target, &d);
    struct timespec dm = deadline_ms(CLOCK_MONOTONIC, 20);
    returned[1] = pthread_mutex_clocklock(target, CLOCK_MONOTONIC, &dm);
    /* A deadline in the past: no sleep at all. */
    struct timespec past = {0, 0};
    returned[2] = pthread_mutex_timedlock(target, &past);
    reached = 1;
    pthread_testcancel();
    reached = 2; /* not reached */
    return NULL;
}

static void run(pthread_mutex_t *mutex, const char *what) {
    target = mutex;
    reached = 0;
    CHECK(pthread_mutex_lock(mutex));
    pthread_t t;
    void *ret;
    CHECK(pthread_create(&t, NULL, pending_canceller, NULL));
    CHECK(pthread_join(t, &ret));
    CHECK(pthread_mutex_unlock(mutex));
    EXPECT(ret == PTHREAD_CANCELED);
    EXPECT(reached == 1);
    EXPECT(returned[0] == ETIMEDOUT);
    EXPECT(returned[1] == ETIMEDOUT);
    EXPECT(returned[2] == ETIMEDOUT);
    printf("timedcancel: %s mutex: timed locks returned ETIMEDOUT, cancelled at testcancel\n",
           what);
}

int main(void) {
    watchdog(60);
    pthread_mutexattr_t a;
    CHECK(pthread_mutexattr_init(&a));
    CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK));
    CHECK(pthread_mutex_init(&errorcheck, &a));
    CHECK(pthread_mutexattr_destroy(&a));
    for (int i = 0; i < 5; i++) run(&m, "default");
    run(&errorcheck, "errorcheck");
    CHECK(pthread_mutex_destroy(&errorcheck));
    return 0;
}
