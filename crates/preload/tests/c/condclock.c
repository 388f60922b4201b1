/* Timed condition-variable waits: the clock named by the condattr (CLOCK_MONOTONIC) and by
 * clockwait, ETIMEDOUT not before the deadline, EINVAL for a bad timespec, and a signal that
 * arrives before the deadline ends the wait with 0. */
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mono, real = PTHREAD_COND_INITIALIZER;
static int ready;

static void *signaller(void *arg) {
    (void)arg;
    struct timespec nap = {0, 20000000L};
    nanosleep(&nap, NULL);
    CHECK(pthread_mutex_lock(&m));
    ready = 1;
    CHECK(pthread_cond_signal(&mono));
    CHECK(pthread_mutex_unlock(&m));
    return NULL;
}

int main(void) {
    pthread_condattr_t a;
    CHECK(pthread_condattr_init(&a));
    CHECK(pthread_condattr_setclock(&a, CLOCK_MONOTONIC));
    CHECK(pthread_cond_init(&mono, &a));
    CHECK(pthread_condattr_destroy(&a));

    CHECK(pthread_mutex_lock(&m));
    struct timespec d = deadline_ms(CLOCK_MONOTONIC, 30);
    int rc;
    while ((rc = pthread_cond_timedwait(&mono, &m, &d)) == 0) {}
    EXPECT(rc == ETIMEDOUT);
    EXPECT(not_before(CLOCK_MONOTONIC, d));

    d = deadline_ms(CLOCK_REALTIME, 30);
    while ((rc = pthread_cond_timedwait(&real, &m, &d)) == 0) {}
    EXPECT(rc == ETIMEDOUT);
    EXPECT(not_before(CLOCK_REALTIME, d));

    d = deadline_ms(CLOCK_MONOTONIC, 30);
    while ((rc = pthread_cond_clockwait(&real, &m, CLOCK_MONOTONIC, &d)) == 0) {}
    EXPECT(rc == ETIMEDOUT);
    EXPECT(not_before(CLOCK_MONOTONIC, d));

    struct timespec bad = {0, 2000000000L};
    EXPECT(pthread_cond_timedwait(&real, &m, &bad) == EINVAL);

    pthread_t t;
    CHECK(pthread_create(&t, NULL, signaller, NULL));
    d = deadline_ms(CLOCK_MONOTONIC, 60000);
    while (!ready) {
        rc = pthread_cond_timedwait(&mono, &m, &d);
        EXPECT(rc == 0);
    }
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_join(t, NULL));
    CHECK(pthread_cond_destroy(&mono));
    printf("condclock: ok\n");
    return 0;
}
