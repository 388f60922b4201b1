/* Every kind of mutex a pthread_mutexattr_t can make, with the library's condition variables:
 * normal and adaptive mutexes are the library's, recursive, error-checking, robust,
 * process-shared and priority-inheritance ones are glibc's, and a condition wait releases and
 * retakes each through its own implementation. For each kind: a signalled wait returns 0 with the
 * mutex held, trylock from another thread is EBUSY while held, destroying it while held is EBUSY
 * (glibc's answer for every kind but robust ones, which glibc destroys even when held; the
 * library answers EBUSY for its own), and destroying it when free is 0. Error-checking mutexes
 * also report EPERM from a wait by a thread that does not hold them. Results are printed, so any
 * difference from glibc shows. (Priority-protect mutexes are left out: whether glibc can lock one
 * depends on the process's scheduling privileges.) */
#include "common.h"

static pthread_mutex_t mx;
static pthread_cond_t cv;
static int ready, go;

static const char *name(int rc) {
    switch (rc) {
    case 0: return "0";
    case EBUSY: return "EBUSY";
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EDEADLK: return "EDEADLK";
    default: return "other";
    }
}

static void *signaller(void *arg) {
    (void)arg;
    /* Wait until the main thread is inside the wait (it released mx only there). */
    for (;;) {
        CHECK(pthread_mutex_lock(&mx));
        if (ready) break;
        CHECK(pthread_mutex_unlock(&mx));
        sched_yield();
    }
    go = 1;
    CHECK(pthread_cond_signal(&cv));
    CHECK(pthread_mutex_unlock(&mx));
    return NULL;
}

static int trylock_rc;
static void *other_trylock(void *arg) {
    (void)arg;
    trylock_rc = pthread_mutex_trylock(&mx);
    if (trylock_rc == 0) CHECK(pthread_mutex_unlock(&mx));
    return NULL;
}

static void *wait_without_mutex(void *arg) {
    (void)arg;
    struct timespec d = deadline_ms(CLOCK_REALTIME, 10);
    trylock_rc = pthread_cond_timedwait(&cv, &mx, &d);
    return NULL;
}

static void one_kind(const char *what, int type, int robust, int pshared, int protocol,
                     int cond_pshared) {
    pthread_mutexattr_t a;
    CHECK(pthread_mutexattr_init(&a));
    CHECK(pthread_mutexattr_settype(&a, type));
    CHECK(pthread_mutexattr_setrobust(&a, robust));
    CHECK(pthread_mutexattr_setpshared(&a, pshared));
    CHECK(pthread_mutexattr_setprotocol(&a, protocol));
    CHECK(pthread_mutex_init(&mx, &a));
    CHECK(pthread_mutexattr_destroy(&a));
    pthread_condattr_t ca;
    CHECK(pthread_condattr_init(&ca));
    CHECK(pthread_condattr_setpshared(&ca, cond_pshared));
    CHECK(pthread_cond_init(&cv, &ca));
    CHECK(pthread_condattr_destroy(&ca));
    ready = go = 0;

    CHECK(pthread_mutex_lock(&mx));
    ready = 1;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, signaller, NULL));
    int wait_rc = 0;
    while (!go && wait_rc == 0) wait_rc = pthread_cond_wait(&cv, &mx);
    CHECK(pthread_create(&t, NULL, other_trylock, NULL)); /* the signaller is done with mx */
    CHECK(pthread_join(t, NULL));
    int held_trylock = trylock_rc;
    /* glibc lets a held robust mutex be destroyed (it then rejects the unlock): not asked. */
    int destroy_held = robust ? -1 : pthread_mutex_destroy(&mx);
    CHECK(pthread_mutex_unlock(&mx));
    int other_wait = -1;
    if (type == PTHREAD_MUTEX_ERRORCHECK) {
        CHECK(pthread_create(&t, NULL, wait_without_mutex, NULL));
        CHECK(pthread_join(t, NULL));
        other_wait = trylock_rc;
    }
    int destroy_free = pthread_mutex_destroy(&mx);
    CHECK(pthread_cond_destroy(&cv));
    printf("condkinds: %s (%s cond): wait %s, trylock while held %s, destroy while held %s, "
           "destroy %s",
           what, cond_pshared ? "shared" : "private", name(wait_rc), name(held_trylock),
           destroy_held == -1 ? "not tried" : name(destroy_held), name(destroy_free));
    if (other_wait != -1) printf(", wait by a non-owner %s", name(other_wait));
    printf("\n");
}

int main(void) {
    watchdog(60);
    const int P = PTHREAD_PROCESS_PRIVATE, S = PTHREAD_PROCESS_SHARED;
    const int R = PTHREAD_MUTEX_ROBUST, ST = PTHREAD_MUTEX_STALLED;
    for (int cs = 0; cs < 2; cs++) {
        int cp = cs ? S : P;
        one_kind("normal", PTHREAD_MUTEX_NORMAL, ST, P, PTHREAD_PRIO_NONE, cp);
        one_kind("default", PTHREAD_MUTEX_DEFAULT, ST, P, PTHREAD_PRIO_NONE, cp);
        one_kind("adaptive", PTHREAD_MUTEX_ADAPTIVE_NP, ST, P, PTHREAD_PRIO_NONE, cp);
        one_kind("recursive", PTHREAD_MUTEX_RECURSIVE, ST, P, PTHREAD_PRIO_NONE, cp);
        one_kind("errorcheck", PTHREAD_MUTEX_ERRORCHECK, ST, P, PTHREAD_PRIO_NONE, cp);
        one_kind("robust", PTHREAD_MUTEX_NORMAL, R, P, PTHREAD_PRIO_NONE, cp);
        one_kind("robust errorcheck", PTHREAD_MUTEX_ERRORCHECK, R, P, PTHREAD_PRIO_NONE, cp);
        one_kind("process-shared", PTHREAD_MUTEX_NORMAL, ST, S, PTHREAD_PRIO_NONE, cp);
        one_kind("priority-inheritance", PTHREAD_MUTEX_NORMAL, ST, P, PTHREAD_PRIO_INHERIT, cp);
        one_kind("robust shared PI", PTHREAD_MUTEX_NORMAL, R, S, PTHREAD_PRIO_INHERIT, cp);
    }
    /* Some of our own mutexes, so that the run counts acquisitions of the library's lock. */
    static pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
    EXPECT(pthread_mutex_lock(&plain) == 0);
    EXPECT(pthread_mutex_trylock(&plain) == EBUSY);
    EXPECT(pthread_mutex_destroy(&plain) == EBUSY);
    CHECK(pthread_mutex_unlock(&plain));
    CHECK(pthread_mutex_destroy(&plain));
    return 0;
}
