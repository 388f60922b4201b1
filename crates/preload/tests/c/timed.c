/* Error codes: trylock EBUSY, timedlock/clocklock ETIMEDOUT and EINVAL, destroy of a held mutex
 * EBUSY, and timed acquisitions that succeed once the holder lets go. */
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *try_from_other_thread(void *arg) {
    (void)arg;
    EXPECT(pthread_mutex_trylock(&m) == EBUSY);
    struct timespec d = deadline_ms(CLOCK_REALTIME, 30);
    EXPECT(pthread_mutex_timedlock(&m, &d) == ETIMEDOUT);
    EXPECT(not_before(CLOCK_REALTIME, d));
    struct timespec dm = deadline_ms(CLOCK_MONOTONIC, 30);
    EXPECT(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &dm) == ETIMEDOUT);
    EXPECT(not_before(CLOCK_MONOTONIC, dm));
    struct timespec bad = {0, 1000000000L};
    EXPECT(pthread_mutex_timedlock(&m, &bad) == EINVAL);
    bad.tv_nsec = -1;
    EXPECT(pthread_mutex_timedlock(&m, &bad) == EINVAL);
    struct timespec past = {0, 0};
    EXPECT(pthread_mutex_timedlock(&m, &past) == ETIMEDOUT);
    return NULL;
}

static volatile int released;

static void *wait_with_deadline(void *arg) {
    (void)arg;
    struct timespec d = deadline_ms(CLOCK_REALTIME, 60000);
    EXPECT(pthread_mutex_timedlock(&m, &d) == 0);
    EXPECT(released);
    CHECK(pthread_mutex_unlock(&m));
    return NULL;
}

int main(void) {
    pthread_t t;
    EXPECT(pthread_mutex_trylock(&m) == 0);
    CHECK(pthread_create(&t, NULL, try_from_other_thread, NULL));
    CHECK(pthread_join(t, NULL));
    EXPECT(pthread_mutex_destroy(&m) == EBUSY);

    CHECK(pthread_create(&t, NULL, wait_with_deadline, NULL));
    struct timespec nap = {0, 20000000L};
    nanosleep(&nap, NULL);
    released = 1;
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_join(t, NULL));

    /* An uncontended timed lock succeeds even with an invalid or past deadline, as in glibc. */
    struct timespec past = {0, 0};
    EXPECT(pthread_mutex_timedlock(&m, &past) == 0);
    CHECK(pthread_mutex_unlock(&m));
    EXPECT(pthread_mutex_destroy(&m) == 0);
    printf("timed: ok\n");
    return 0;
}
