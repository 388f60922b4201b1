/* Cancellation of condition waits. POSIX (pthread_cond_wait, "Cancellation"): pthread_cond_wait,
 * pthread_cond_timedwait (and glibc's pthread_cond_clockwait) are cancellation points; when a
 * cancellation request is acted on in one, the mutex is re-acquired before the first cleanup
 * handler is called; and a thread unblocked by cancellation shall not consume a signal that
 * another waiting thread could take.
 *   1. A thread blocked in each kind of wait (untimed, timed with a far deadline, clockwait), with
 *      a default and an error-checking mutex, on a private and a process-shared condition
 *      variable, is cancelled: pthread_join returns PTHREAD_CANCELED, its cleanup handler ran
 *      holding the mutex, and the mutex is free afterwards.
 *   2. A cancellation pending when the thread enters pthread_cond_wait acts at once.
 *   3. With cancellation disabled, a cancelled waiter keeps waiting and returns normally when
 *      signalled; the cancellation acts at the next cancellation point once enabled.
 *   4. A signal delivered together with the cancellation of its first waiter still wakes the
 *      other waiter.
 *   5. Waiters (untimed and timed, on private and process-shared condition variables) cancelled
 *      at arbitrary moments among signals and broadcasts: after each round the mutex is free and
 *      pthread_cond_destroy returns (every cancelled waiter left the condition variable and
 *      released the mutex it had retaken). */
#include "common.h"

static pthread_mutex_t m;
static pthread_cond_t c;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_cv = PTHREAD_COND_INITIALIZER;
static int waiting, go, token, consumed;
static int handler_ran, handler_trylock, handler_unlock;

enum wait_kind { UNTIMED, TIMED, CLOCKED };
static const char *wait_names[] = {"pthread_cond_wait", "pthread_cond_timedwait",
                                   "pthread_cond_clockwait"};
static enum wait_kind kind;

static int wait_once(void) {
    struct timespec far = deadline_ms(CLOCK_REALTIME, 3600 * 1000);
    struct timespec far_mono = deadline_ms(CLOCK_MONOTONIC, 3600 * 1000);
    switch (kind) {
    case UNTIMED: return pthread_cond_wait(&c, &m);
    case TIMED: return pthread_cond_timedwait(&c, &m, &far);
    default: return pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &far_mono);
    }
}

/* A cleanup handler that records whether its thread holds `m` (trylock by the owner: EBUSY;
 * unlock: 0, which an error-checking mutex grants its owner only) and releases it. */
static void release_m(void *arg) {
    (void)arg;
    handler_ran++;
    handler_trylock = pthread_mutex_trylock(&m);
    handler_unlock = pthread_mutex_unlock(&m);
}

static void announce_waiting(void) {
    /* Called with m held, just before waiting: once the main thread has taken m after seeing
     * `waiting`, this thread is inside the wait (m is released only there). */
    waiting = 1;
}

static void *blocked_waiter(void *arg) {
    (void)arg;
    CHECK(pthread_mutex_lock(&m));
    pthread_cleanup_push(release_m, NULL);
    announce_waiting();
    for (;;) wait_once(); /* only cancellation ends this */
    pthread_cleanup_pop(0);
    return NULL;
}

static void await_waiting(void) {
    for (;;) {
        CHECK(pthread_mutex_lock(&m));
        int w = waiting;
        if (w) return; /* with m held */
        CHECK(pthread_mutex_unlock(&m));
        sched_yield();
    }
}

static void init_objects(int errorcheck, int pshared) {
    pthread_mutexattr_t ma;
    CHECK(pthread_mutexattr_init(&ma));
    CHECK(pthread_mutexattr_settype(&ma, errorcheck ? PTHREAD_MUTEX_ERRORCHECK
                                                    : PTHREAD_MUTEX_DEFAULT));
    CHECK(pthread_mutex_init(&m, &ma));
    CHECK(pthread_mutexattr_destroy(&ma));
    pthread_condattr_t ca;
    CHECK(pthread_condattr_init(&ca));
    CHECK(pthread_condattr_setpshared(&ca, pshared ? PTHREAD_PROCESS_SHARED
                                                   : PTHREAD_PROCESS_PRIVATE));
    CHECK(pthread_cond_init(&c, &ca));
    CHECK(pthread_condattr_destroy(&ca));
    waiting = go = token = consumed = 0;
    handler_ran = handler_trylock = handler_unlock = 0;
}

static void destroy_objects(void) {
    CHECK(pthread_cond_destroy(&c));
    CHECK(pthread_mutex_destroy(&m));
}

/* Case 1. */
static void cancel_blocked(enum wait_kind k, int errorcheck, int pshared) {
    init_objects(errorcheck, pshared);
    kind = k;
    pthread_t t;
    void *ret;
    CHECK(pthread_create(&t, NULL, blocked_waiter, NULL));
    await_waiting();
    CHECK(pthread_cancel(t));
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_join(t, &ret));
    EXPECT(ret == PTHREAD_CANCELED);
    EXPECT(handler_ran == 1);
    EXPECT(handler_trylock == EBUSY);
    EXPECT(handler_unlock == 0);
    CHECK(pthread_mutex_lock(&m));
    CHECK(pthread_mutex_unlock(&m));
    destroy_objects();
    printf("condcancel: blocked in %s (%s mutex, %s cond): cancelled, handler held the mutex\n",
           wait_names[k], errorcheck ? "errorcheck" : "default", pshared ? "shared" : "private");
}

/* Case 2. */
static void *self_cancelled_waiter(void *arg) {
    (void)arg;
    CHECK(pthread_mutex_lock(&m));
    pthread_cleanup_push(release_m, NULL);
    CHECK(pthread_cancel(pthread_self()));
    for (;;) wait_once();
    pthread_cleanup_pop(0);
    return NULL;
}

static void cancel_pending_at_entry(enum wait_kind k) {
    init_objects(0, 0);
    kind = k;
    pthread_t t;
    void *ret;
    CHECK(pthread_create(&t, NULL, self_cancelled_waiter, NULL));
    CHECK(pthread_join(t, &ret));
    EXPECT(ret == PTHREAD_CANCELED);
    EXPECT(handler_ran == 1);
    EXPECT(handler_trylock == EBUSY);
    EXPECT(handler_unlock == 0);
    destroy_objects();
    printf("condcancel: pending before %s: acted at once\n", wait_names[k]);
}

/* Case 3. */
static int wait_returned, reached_testcancel;

static void note_cancelled(void *arg) {
    (void)arg;
    handler_ran++;
}

static void *uncancellable_waiter(void *arg) {
    (void)arg;
    CHECK(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL));
    CHECK(pthread_mutex_lock(&m));
    announce_waiting();
    while (!go) CHECK(wait_once());
    wait_returned = 1;
    CHECK(pthread_mutex_unlock(&m));
    pthread_cleanup_push(note_cancelled, NULL);
    CHECK(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL));
    reached_testcancel = 1;
    pthread_testcancel();
    reached_testcancel = 2; /* not reached */
    pthread_cleanup_pop(0);
    return NULL;
}

static void cancel_disabled(enum wait_kind k) {
    init_objects(0, 0);
    kind = k;
    wait_returned = reached_testcancel = 0;
    pthread_t t;
    void *ret;
    CHECK(pthread_create(&t, NULL, uncancellable_waiter, NULL));
    await_waiting();
    CHECK(pthread_cancel(t));
    go = 1;
    CHECK(pthread_cond_signal(&c));
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_join(t, &ret));
    EXPECT(ret == PTHREAD_CANCELED);
    EXPECT(wait_returned == 1);
    EXPECT(reached_testcancel == 1);
    EXPECT(handler_ran == 1);
    destroy_objects();
    printf("condcancel: disabled during %s: returned normally, cancelled later\n",
           wait_names[k]);
}

/* Case 4: two waiters wait for a token; the main thread sets it, signals once and cancels the
 * first waiter at once. Whether that waiter takes the token (and is cancelled at its next
 * cancellation point) or is cancelled inside the wait (and must pass the signal on), the token
 * is consumed. */
static void *token_waiter(void *arg) {
    (void)arg;
    CHECK(pthread_mutex_lock(&m));
    pthread_cleanup_push(release_m, NULL);
    CHECK(pthread_mutex_lock(&state_lock));
    waiting++;
    CHECK(pthread_cond_broadcast(&state_cv));
    CHECK(pthread_mutex_unlock(&state_lock));
    while (!token) wait_once();
    token = 0;
    pthread_cleanup_pop(0);
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_mutex_lock(&state_lock));
    consumed++;
    CHECK(pthread_cond_broadcast(&state_cv));
    CHECK(pthread_mutex_unlock(&state_lock));
    for (;;) pthread_testcancel();
    return NULL;
}

static void cancelled_waiter_passes_the_signal_on(enum wait_kind k) {
    init_objects(0, 0);
    kind = k;
    pthread_t t[2];
    void *ret;
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_create(&t[i], NULL, token_waiter, NULL));
        /* Wait until waiter i is inside the wait (it counted itself before waiting, and it
         * released m only inside the wait). */
        CHECK(pthread_mutex_lock(&state_lock));
        while (waiting < i + 1) CHECK(pthread_cond_wait(&state_cv, &state_lock));
        CHECK(pthread_mutex_unlock(&state_lock));
        CHECK(pthread_mutex_lock(&m));
        CHECK(pthread_mutex_unlock(&m));
    }
    CHECK(pthread_mutex_lock(&m));
    token = 1;
    CHECK(pthread_cond_signal(&c));
    CHECK(pthread_cancel(t[0]));
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_mutex_lock(&state_lock));
    while (consumed < 1) CHECK(pthread_cond_wait(&state_cv, &state_lock));
    CHECK(pthread_mutex_unlock(&state_lock));
    CHECK(pthread_cancel(t[1]));
    for (int i = 0; i < 2; i++) {
        CHECK(pthread_join(t[i], &ret));
        EXPECT(ret == PTHREAD_CANCELED);
    }
    EXPECT(consumed == 1);
    destroy_objects();
}

/* Case 5. */
static void *churning_waiter(void *arg) {
    long timed = (long)arg;
    CHECK(pthread_mutex_lock(&m));
    pthread_cleanup_push(release_m, NULL);
    for (;;) {
        if (timed) {
            struct timespec d = deadline_ms(CLOCK_REALTIME, 1);
            int rc = pthread_cond_timedwait(&c, &m, &d);
            EXPECT(rc == 0 || rc == ETIMEDOUT);
        } else {
            CHECK(pthread_cond_wait(&c, &m));
        }
    }
    pthread_cleanup_pop(0);
    return NULL;
}

static void random_cancellations(long rounds) {
    unsigned seed = 12345;
    for (long r = 0; r < rounds; r++) {
        init_objects(0, (int)(r & 1));
        enum { K = 4 };
        pthread_t t[K];
        for (long i = 0; i < K; i++)
            CHECK(pthread_create(&t[i], NULL, churning_waiter, (void *)(i & 1)));
        for (long i = 0; i < K; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned x = seed >> 16;
            for (unsigned j = 0; j < (x & 7); j++) sched_yield();
            if (x & 8) CHECK(pthread_cond_signal(&c));
            if (x & 16) CHECK(pthread_cond_broadcast(&c));
            CHECK(pthread_cancel(t[i]));
        }
        for (long i = 0; i < K; i++) {
            void *ret;
            CHECK(pthread_join(t[i], &ret));
            EXPECT(ret == PTHREAD_CANCELED);
        }
        EXPECT(pthread_mutex_trylock(&m) == 0);
        CHECK(pthread_mutex_unlock(&m));
        destroy_objects();
    }
    printf("condcancel: %ld rounds of random cancellations: mutex free, destroy returned\n",
           rounds);
}

int main(int argc, char **argv) {
    watchdog(60);
    for (int k = UNTIMED; k <= CLOCKED; k++)
        for (int errorcheck = 0; errorcheck < 2; errorcheck++)
            for (int pshared = 0; pshared < 2; pshared++)
                cancel_blocked((enum wait_kind)k, errorcheck, pshared);
    for (int k = UNTIMED; k <= CLOCKED; k++) cancel_pending_at_entry((enum wait_kind)k);
    for (int k = UNTIMED; k <= CLOCKED; k++) cancel_disabled((enum wait_kind)k);
    for (int k = UNTIMED; k <= CLOCKED; k++)
    {
        for (int round = 0; round < 20; round++)
            cancelled_waiter_passes_the_signal_on((enum wait_kind)k);
        printf("condcancel: signal with cancellation of its waiter (%s): consumed\n",
               wait_names[k]);
    }
    random_cancellations(arg_or(argc, argv, 1, 200));
    return 0;
}
