/* A robust mutex whose owner dies while another thread waits on a condition variable with it:
 * the wait's relock reports the death. POSIX (pthread_mutex_lock, pthread_cond_wait): EOWNERDEAD
 * means the waiter holds the mutex and must make it consistent; ENOTRECOVERABLE means it does
 * not hold it. A wait that swallowed EOWNERDEAD would leave the program unable to know it must
 * call pthread_mutex_consistent, and the mutex would become unrecoverable at the next unlock. */
#include "common.h"

static pthread_mutex_t robust;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int waiting, go;
/* A default mutex (ours under the preload library) for the bookkeeping of the main thread. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int results[2];

static void init_robust(void) {
    pthread_mutexattr_t a;
    CHECK(pthread_mutexattr_init(&a));
    CHECK(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST));
    CHECK(pthread_mutex_init(&robust, &a));
    CHECK(pthread_mutexattr_destroy(&a));
    waiting = go = 0;
}

/* Waits for `go`; records what the wait returned; in phase 0 makes the mutex consistent. */
static void *waiter(void *arg) {
    long phase = (long)arg;
    CHECK(pthread_mutex_lock(&robust));
    waiting = 1;
    int rc = 0;
    while (!go) {
        rc = pthread_cond_wait(&c, &robust);
        if (rc != 0) break;
    }
    CHECK(pthread_mutex_lock(&log_lock));
    results[phase] = rc;
    CHECK(pthread_mutex_unlock(&log_lock));
    if (rc == EOWNERDEAD) {
        EXPECT(go); /* we hold the mutex: the dead owner's write is visible */
        CHECK(pthread_mutex_consistent(&robust));
        CHECK(pthread_mutex_unlock(&robust));
    } else if (rc == 0) {
        CHECK(pthread_mutex_unlock(&robust));
    }
    /* ENOTRECOVERABLE: not held, nothing to unlock. */
    return NULL;
}

/* Takes the mutex once the waiter is waiting, sets `go`, signals if `arg` says so, and dies
 * holding the mutex. */
static void *dying_owner(void *arg) {
    CHECK(pthread_mutex_lock(&robust));
    EXPECT(waiting);
    go = 1;
    if (arg != NULL) CHECK(pthread_cond_signal(&c));
    return NULL; /* exits holding the robust mutex */
}

/* Takes over the dead owner's mutex and unlocks it without making it consistent. */
static void *careless_heir(void *arg) {
    (void)arg;
    EXPECT(pthread_mutex_lock(&robust) == EOWNERDEAD);
    CHECK(pthread_mutex_unlock(&robust));
    return NULL;
}

/* Returns once the waiter has released the robust mutex inside pthread_cond_wait. */
static void await_waiter(void) {
    for (;;) {
        CHECK(pthread_mutex_lock(&robust));
        int w = waiting;
        CHECK(pthread_mutex_unlock(&robust));
        if (w) return;
        sched_yield();
    }
}

static const char *name(int rc) {
    switch (rc) {
    case 0: return "0";
    case EOWNERDEAD: return "EOWNERDEAD";
    case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
    default: return "other";
    }
}

int main(void) {
    watchdog(60);
    pthread_t w, o;

    /* Phase 0: the owner dies holding the mutex the waiter relocks: EOWNERDEAD, then usable. */
    init_robust();
    CHECK(pthread_create(&w, NULL, waiter, (void *)0L));
    await_waiter();
    CHECK(pthread_create(&o, NULL, dying_owner, &c));
    CHECK(pthread_join(o, NULL));
    CHECK(pthread_join(w, NULL));
    EXPECT(pthread_mutex_lock(&robust) == 0);
    CHECK(pthread_mutex_unlock(&robust));
    CHECK(pthread_mutex_destroy(&robust));

    /* Phase 1: the owner dies, an heir takes the mutex and leaves it unrecoverable, and only
     * then is the waiter signalled: ENOTRECOVERABLE, mutex not held. */
    init_robust();
    CHECK(pthread_create(&w, NULL, waiter, (void *)1L));
    await_waiter();
    CHECK(pthread_create(&o, NULL, dying_owner, NULL));
    CHECK(pthread_join(o, NULL));
    CHECK(pthread_create(&o, NULL, careless_heir, NULL));
    CHECK(pthread_join(o, NULL));
    CHECK(pthread_cond_signal(&c));
    CHECK(pthread_join(w, NULL));
    CHECK(pthread_mutex_lock(&log_lock));
    printf("condrobust: owner died: wait returned %s\n", name(results[0]));
    CHECK(pthread_mutex_unlock(&log_lock));
    printf("condrobust: made unrecoverable: wait returned %s\n", name(results[1]));
    EXPECT(pthread_mutex_lock(&robust) == ENOTRECOVERABLE);
    return 0;
}
