/* Deadlines of the timed calls, printed so that every result is compared with glibc's:
 * far-future deadlines (tv_sec = LONG_MAX, and a billion seconds from now) on CLOCK_REALTIME and
 * CLOCK_MONOTONIC, deadlines in the past, negative tv_sec, tv_nsec out of range, unsupported
 * clocks; for mutexes free and held, for condition variables of either clock and clockwait.
 * A timed call that returns ETIMEDOUT is checked not to return before its deadline (the clock is
 * read after the return: a correctness check, not a timing threshold); one with a far deadline
 * returns 0 once the mutex is released or the condition signalled, whenever that happens. */
#include "common.h"
#include <limits.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t errorcheck;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t real_cv = PTHREAD_COND_INITIALIZER, mono_cv;

static const char *name(int rc) {
    switch (rc) {
    case 0: return "0";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EINVAL: return "EINVAL";
    case EBUSY: return "EBUSY";
    default: return "other";
    }
}

static struct timespec ts(long sec, long nsec) {
    struct timespec t = {sec, nsec};
    return t;
}

static struct timespec from_now(clockid_t clock, long sec) {
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += sec;
    return t;
}

/* pthread_mutex_timedlock (clock < 0) or clocklock on `clock`. */
static int timed(pthread_mutex_t *mx, clockid_t clock, struct timespec d) {
    return (int)clock < 0 ? pthread_mutex_timedlock(mx, &d)
                          : pthread_mutex_clocklock(mx, clock, &d);
}

struct attempt {
    pthread_mutex_t *mx;
    clockid_t clock;
    struct timespec d;
    int rc;
};

static int started;

static void *attempt_thread(void *arg) {
    struct attempt *a = arg;
    CHECK(pthread_mutex_lock(&state_lock));
    started = 1;
    CHECK(pthread_cond_signal(&state_cv));
    CHECK(pthread_mutex_unlock(&state_lock));
    a->rc = timed(a->mx, a->clock, a->d);
    if (a->rc == 0) CHECK(pthread_mutex_unlock(a->mx));
    return NULL;
}

static void *attempt_only(void *arg) {
    struct attempt *a = arg;
    a->rc = timed(a->mx, a->clock, a->d);
    if (a->rc == 0) CHECK(pthread_mutex_unlock(a->mx));
    return NULL;
}

/* Tries a timed lock of `mx` (which the caller holds) from another thread and prints it. */
static void held(const char *what, pthread_mutex_t *mx, clockid_t clock, struct timespec d) {
    struct attempt a = {mx, clock, d, -1};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, attempt_only, &a));
    CHECK(pthread_join(t, NULL));
    printf("mutex held, %s: %s\n", what, name(a.rc));
}

/* A far deadline on a held mutex: the holder releases it once the other thread is on its way to
 * the timed lock; the lock succeeds, whether before or after it started waiting. */
static void held_then_released(const char *what, pthread_mutex_t *mx, clockid_t clock,
                               struct timespec d) {
    struct attempt a = {mx, clock, d, -1};
    pthread_t t;
    CHECK(pthread_mutex_lock(mx));
    started = 0;
    CHECK(pthread_create(&t, NULL, attempt_thread, &a));
    CHECK(pthread_mutex_lock(&state_lock));
    while (!started) CHECK(pthread_cond_wait(&state_cv, &state_lock));
    CHECK(pthread_mutex_unlock(&state_lock));
    /* Let it start waiting more often than not; correctness does not depend on it. */
    struct timespec nap = {0, 5000000L};
    nanosleep(&nap, NULL);
    CHECK(pthread_mutex_unlock(mx));
    CHECK(pthread_join(t, NULL));
    printf("mutex released, %s: %s\n", what, name(a.rc));
}

static void free_lock(const char *what, pthread_mutex_t *mx, clockid_t clock, struct timespec d) {
    int rc = timed(mx, clock, d);
    if (rc == 0) CHECK(pthread_mutex_unlock(mx));
    printf("mutex free, %s: %s\n", what, name(rc));
}

static void mutex_cases(pthread_mutex_t *mx, const char *kind) {
    const clockid_t TIMEDLOCK = (clockid_t)-1;
    printf("-- %s mutex\n", kind);
    held_then_released("timedlock LONG_MAX", mx, TIMEDLOCK, ts(LONG_MAX, 999999999));
    held_then_released("clocklock MONOTONIC LONG_MAX", mx, CLOCK_MONOTONIC,
                       ts(LONG_MAX, 999999999));
    held_then_released("clocklock REALTIME LONG_MAX", mx, CLOCK_REALTIME, ts(LONG_MAX, 0));
    held_then_released("timedlock now+1e9 s", mx, TIMEDLOCK, from_now(CLOCK_REALTIME, 1000000000));
    held_then_released("clocklock MONOTONIC now+1e9 s", mx, CLOCK_MONOTONIC,
                       from_now(CLOCK_MONOTONIC, 1000000000));

    CHECK(pthread_mutex_lock(mx));
    held("timedlock {0, 0}", mx, TIMEDLOCK, ts(0, 0));
    held("timedlock now-1 s", mx, TIMEDLOCK, from_now(CLOCK_REALTIME, -1));
    held("clocklock MONOTONIC {0, 0}", mx, CLOCK_MONOTONIC, ts(0, 0));
    held("clocklock MONOTONIC now-1 s", mx, CLOCK_MONOTONIC, from_now(CLOCK_MONOTONIC, -1));
    held("timedlock {-1, 0}", mx, TIMEDLOCK, ts(-1, 0));
    held("timedlock {-1, -1}", mx, TIMEDLOCK, ts(-1, -1));
    held("timedlock {LONG_MIN, 0}", mx, TIMEDLOCK, ts(LONG_MIN, 0));
    held("clocklock MONOTONIC {-5, 0}", mx, CLOCK_MONOTONIC, ts(-5, 0));
    held("timedlock {0, 1000000000}", mx, TIMEDLOCK, ts(0, 1000000000));
    held("timedlock {0, -1}", mx, TIMEDLOCK, ts(0, -1));
    held("timedlock {LONG_MAX, 1000000000}", mx, TIMEDLOCK, ts(LONG_MAX, 1000000000));
    held("clocklock MONOTONIC {1, LONG_MAX}", mx, CLOCK_MONOTONIC, ts(1, LONG_MAX));
    held("clocklock CPUTIME {0, 0}", mx, CLOCK_PROCESS_CPUTIME_ID, ts(0, 0));
    held("clocklock 1234 {LONG_MAX, 0}", mx, (clockid_t)1234, ts(LONG_MAX, 0));
    for (int c = 0; c < 2; c++) {
        clockid_t clock = c ? CLOCK_MONOTONIC : CLOCK_REALTIME;
        struct timespec d = deadline_ms(clock, 15);
        struct attempt a = {mx, c ? CLOCK_MONOTONIC : TIMEDLOCK, d, -1};
        pthread_t t;
        CHECK(pthread_create(&t, NULL, attempt_only, &a));
        CHECK(pthread_join(t, NULL));
        EXPECT(a.rc == ETIMEDOUT);
        EXPECT(not_before(clock, d));
        printf("mutex held, %s in 15 ms: %s, not early\n", c ? "clocklock MONOTONIC" : "timedlock",
               name(a.rc));
    }
    CHECK(pthread_mutex_unlock(mx));

    free_lock("timedlock {0, 0}", mx, TIMEDLOCK, ts(0, 0));
    free_lock("timedlock {-1, 0}", mx, TIMEDLOCK, ts(-1, 0));
    free_lock("timedlock {0, 1000000000}", mx, TIMEDLOCK, ts(0, 1000000000));
    free_lock("timedlock LONG_MAX", mx, TIMEDLOCK, ts(LONG_MAX, 999999999));
    free_lock("clocklock MONOTONIC {0, -1}", mx, CLOCK_MONOTONIC, ts(0, -1));
    free_lock("clocklock MONOTONIC LONG_MAX", mx, CLOCK_MONOTONIC, ts(LONG_MAX, 0));
    free_lock("clocklock CPUTIME {0, 0}", mx, CLOCK_PROCESS_CPUTIME_ID, ts(0, 0));
}

/* ---- condition variables ---- */

enum { TIMEDWAIT = -1 };
static int go;

static int cond_timed(pthread_cond_t *cv, pthread_mutex_t *mx, int clock, struct timespec d) {
    return clock == TIMEDWAIT ? pthread_cond_timedwait(cv, mx, &d)
                              : pthread_cond_clockwait(cv, mx, (clockid_t)clock, &d);
}

struct cond_attempt {
    pthread_cond_t *cv;
    pthread_mutex_t *mx;
    int clock;
    struct timespec d;
    int rc;
};

static void *cond_waiter(void *arg) {
    struct cond_attempt *a = arg;
    CHECK(pthread_mutex_lock(a->mx));
    CHECK(pthread_mutex_lock(&state_lock));
    started = 1;
    CHECK(pthread_mutex_unlock(&state_lock));
    a->rc = 0;
    while (!go && a->rc == 0) a->rc = cond_timed(a->cv, a->mx, a->clock, a->d);
    CHECK(pthread_mutex_unlock(a->mx));
    return NULL;
}

/* A far deadline: the waiter returns 0 when signalled. */
static void signalled(const char *what, pthread_cond_t *cv, int clock, struct timespec d) {
    struct cond_attempt a = {cv, &m, clock, d, -1};
    pthread_t t;
    go = 0;
    started = 0;
    CHECK(pthread_create(&t, NULL, cond_waiter, &a));
    for (;;) {
        /* Once the waiter has started and we hold m, it is inside the wait. */
        CHECK(pthread_mutex_lock(&m));
        CHECK(pthread_mutex_lock(&state_lock));
        int s = started;
        CHECK(pthread_mutex_unlock(&state_lock));
        if (s) break;
        CHECK(pthread_mutex_unlock(&m));
        sched_yield();
    }
    go = 1;
    CHECK(pthread_cond_signal(cv));
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_join(t, NULL));
    printf("cond signalled, %s: %s\n", what, name(a.rc));
}

static int other_trylock_rc;
static void *other_trylock(void *arg) {
    other_trylock_rc = pthread_mutex_trylock(arg);
    if (other_trylock_rc == 0) CHECK(pthread_mutex_unlock(arg));
    return NULL;
}

/* An immediate outcome: the call returns without a signal; the mutex is held on return (checked
 * by the owner's unlock of an error-checking mutex and a trylock from another thread). */
static void immediate(const char *what, pthread_cond_t *cv, int clock, struct timespec d) {
    CHECK(pthread_mutex_lock(&errorcheck));
    int rc = cond_timed(cv, &errorcheck, clock, d);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_trylock, &errorcheck));
    CHECK(pthread_join(t, NULL));
    int unlock_rc = pthread_mutex_unlock(&errorcheck);
    printf("cond %s: %s, mutex %s\n", what, name(rc),
           other_trylock_rc == EBUSY && unlock_rc == 0 ? "held" : "NOT held");
}

static void cond_cases(void) {
    printf("-- condition variables\n");
    signalled("timedwait REALTIME cond LONG_MAX", &real_cv, TIMEDWAIT, ts(LONG_MAX, 999999999));
    signalled("timedwait MONOTONIC cond LONG_MAX", &mono_cv, TIMEDWAIT, ts(LONG_MAX, 999999999));
    signalled("clockwait REALTIME LONG_MAX", &real_cv, CLOCK_REALTIME, ts(LONG_MAX, 0));
    signalled("clockwait MONOTONIC LONG_MAX", &mono_cv, CLOCK_MONOTONIC, ts(LONG_MAX, 0));
    signalled("timedwait REALTIME cond now+1e9 s", &real_cv, TIMEDWAIT,
              from_now(CLOCK_REALTIME, 1000000000));
    signalled("clockwait MONOTONIC now+1e9 s", &real_cv, CLOCK_MONOTONIC,
              from_now(CLOCK_MONOTONIC, 1000000000));

    immediate("timedwait REALTIME cond {0, 0}", &real_cv, TIMEDWAIT, ts(0, 0));
    immediate("timedwait MONOTONIC cond {0, 0}", &mono_cv, TIMEDWAIT, ts(0, 0));
    immediate("timedwait REALTIME cond now-1 s", &real_cv, TIMEDWAIT,
              from_now(CLOCK_REALTIME, -1));
    immediate("clockwait MONOTONIC now-1 s", &real_cv, CLOCK_MONOTONIC,
              from_now(CLOCK_MONOTONIC, -1));
    immediate("timedwait {-1, 0}", &real_cv, TIMEDWAIT, ts(-1, 0));
    immediate("timedwait {LONG_MIN, 0}", &mono_cv, TIMEDWAIT, ts(LONG_MIN, 0));
    immediate("clockwait MONOTONIC {-1, 0}", &real_cv, CLOCK_MONOTONIC, ts(-1, 0));
    immediate("timedwait {-1, -1}", &real_cv, TIMEDWAIT, ts(-1, -1));
    immediate("timedwait {0, 1000000000}", &real_cv, TIMEDWAIT, ts(0, 1000000000));
    immediate("timedwait {0, -1}", &mono_cv, TIMEDWAIT, ts(0, -1));
    immediate("timedwait {LONG_MAX, 1000000000}", &real_cv, TIMEDWAIT, ts(LONG_MAX, 1000000000));
    immediate("clockwait CPUTIME {0, 0}", &real_cv, CLOCK_PROCESS_CPUTIME_ID, ts(0, 0));
    immediate("clockwait 1234 {LONG_MAX, 0}", &real_cv, 1234, ts(LONG_MAX, 0));

    for (int c = 0; c < 3; c++) {
        clockid_t clock = c == 0 ? CLOCK_REALTIME : CLOCK_MONOTONIC;
        pthread_cond_t *cv = c == 1 ? &mono_cv : &real_cv;
        int how = c == 2 ? CLOCK_MONOTONIC : TIMEDWAIT;
        CHECK(pthread_mutex_lock(&m));
        struct timespec d = deadline_ms(clock, 15);
        int rc;
        while ((rc = cond_timed(cv, &m, how, d)) == 0) {}
        EXPECT(not_before(clock, d));
        CHECK(pthread_mutex_unlock(&m));
        printf("cond %s in 15 ms: %s, not early\n",
               c == 0   ? "timedwait REALTIME"
               : c == 1 ? "timedwait MONOTONIC"
                        : "clockwait MONOTONIC",
               name(rc));
    }
}

int main(void) {
    watchdog(60);
    pthread_mutexattr_t a;
    CHECK(pthread_mutexattr_init(&a));
    CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK));
    CHECK(pthread_mutex_init(&errorcheck, &a));
    CHECK(pthread_mutexattr_destroy(&a));
    pthread_condattr_t ca;
    CHECK(pthread_condattr_init(&ca));
    CHECK(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC));
    CHECK(pthread_cond_init(&mono_cv, &ca));
    CHECK(pthread_condattr_destroy(&ca));

    mutex_cases(&m, "default");
    mutex_cases(&errorcheck, "errorcheck");
    cond_cases();
    CHECK(pthread_cond_destroy(&mono_cv));
    CHECK(pthread_mutex_destroy(&errorcheck));
    return 0;
}
