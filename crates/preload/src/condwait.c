/* pthread_cond_wait, pthread_cond_timedwait and pthread_cond_clockwait of the preload library.
 *
 * They are C, not Rust, because they are cancellation points (POSIX, pthread_cond_wait,
 * "Cancellation"; pthreads(7)) and glibc acts on a cancellation by unwinding the stack (a forced
 * unwind): the frames it crosses must be ones that may be unwound, and a Rust `extern "C"`
 * function may not be. So the blocking part of a wait, the only place a cancellation is acted
 * on, runs here, between pthread_cleanup_push and pthread_cleanup_pop, with no Rust frame on the
 * stack between it and the caller; Rust (src/cond.rs) does the rest in calls that return before
 * the wait blocks and after it wakes:
 *
 *   begin    routes the call, validates it, counts the waiter, takes its ticket and releases
 *            the mutex (through the library's mutex functions);
 *   poll     says whether the wait is over (the ticket was signalled, or the deadline passed)
 *            and if not, what to sleep on;
 *   end      leaves the condition variable and retakes the mutex;
 *   cancelled (the cleanup handler) does what end does, after passing on a signal the ticket
 *            may have consumed, so that the mutex is held again before the caller's own cleanup
 *            handlers run (POSIX requires it).
 *
 * The futex wait is the only code that runs with asynchronous cancellation enabled: a
 * cancellation already pending, or arriving while the thread sleeps, is acted on there, at a
 * point where the waiter's state is exactly what the cleanup handler expects (registered, mutex
 * released, possibly signalled). glibc 2.36 makes its own cancellable futex waits the same way
 * (__pthread_enable_asynccancel around the system call).
 *
 * When glibc serves the call (WELLTEMPERED_LOCK names no lock), glibc's own function is called
 * from here, so its cancellation also unwinds through C frames only. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
/* The Rust helpers stay inside the library: hidden here, so not exported from it. */
#define HELPER __attribute__((visibility("hidden")))

/* One wait in progress: `Waiter` in src/cond.rs, field for field. */
struct wt_waiter {
    pthread_cond_t *cond;
    pthread_mutex_t *mutex;
    const struct timespec *abs; /* the deadline handed to the futex wait, or NULL */
    uint32_t *futex;            /* the word to sleep on */
    int op;                     /* the futex operation to sleep with */
    uint32_t expected;          /* sleep while *futex == expected */
    uint32_t bitset;            /* the ticket's wake-up bit */
    uint32_t ticket;
    int result;
    int expired; /* the deadline had passed before the wait began */
    int oldtype; /* the cancellation type to restore */
};
_Static_assert(sizeof(struct wt_waiter) == 64, "struct wt_waiter must match cond.rs's Waiter");
_Static_assert(offsetof(struct wt_waiter, oldtype) == 56,
               "struct wt_waiter must match cond.rs's Waiter");

enum { WT_WAIT = 0, WT_TIMEDWAIT = 1, WT_CLOCKWAIT = 2 };

HELPER extern void *__welltempered_preload_glibc_cond_wait(int which);
HELPER extern int __welltempered_preload_cond_begin(struct wt_waiter *w, pthread_cond_t *c,
                                                    pthread_mutex_t *m, int which,
                                                    clockid_t clock,
                                                    const struct timespec *abs);
HELPER extern int __welltempered_preload_cond_poll(struct wt_waiter *w, int timed_out);
HELPER extern int __welltempered_preload_cond_end(struct wt_waiter *w);
HELPER extern void __welltempered_preload_cond_cancelled(struct wt_waiter *w);

/* The cleanup handler: runs only when a cancellation is acted on inside wt_sleep below. */
static void wt_cancelled(void *arg) {
    struct wt_waiter *w = arg;
    /* Asynchronous cancellation was enabled when the cancellation struck; the caller's own
     * cleanup handlers run with the type it had before the wait. */
    pthread_setcanceltype(w->oldtype, NULL);
    __welltempered_preload_cond_cancelled(w);
}

/* The only code that runs with asynchronous cancellation enabled: switching it on (which acts on
 * a pending cancellation at once), the raw system call (glibc's syscall() is an assembly stub
 * that touches registers and, on failure, errno), reading errno, and switching it off
 * (pthread_setcanceltype is async-cancel-safe: POSIX, XSH 2.9.5.4 "Async-Cancel Safety"). None
 * of it changes the waiter's state, so wherever the cancellation strikes, the cleanup handler
 * finds the waiter registered with the mutex released.
 *
 * It is a function of its own, never inlined, so that wherever in it (or in the glibc functions
 * it calls) the cancellation strikes, wt_wait's frame is suspended at a call of it: a call site,
 * which the unwind tables map to the landing pad that runs the cleanup handler. An instruction of
 * wt_wait itself between two calls need not be covered by any call-site entry, and a
 * cancellation there would skip the handler. Returns the futex wait's errno, or 0. */
static __attribute__((noinline)) int wt_sleep(struct wt_waiter *w) {
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &w->oldtype);
    long rc = syscall(SYS_futex, w->futex, (long)w->op, (long)w->expected, w->abs, (long)0,
                      (long)w->bitset);
    int err = rc == -1 ? errno : 0;
    pthread_setcanceltype(w->oldtype, NULL);
    return err;
}

static int wt_wait(pthread_cond_t *c, pthread_mutex_t *m, int which, clockid_t clock,
                   const struct timespec *abs) {
    /* A cancellation pending at entry acts here, with the mutex still held and nothing
     * registered. */
    pthread_testcancel();
    struct wt_waiter w;
    int r = __welltempered_preload_cond_begin(&w, c, m, which, clock, abs);
    if (r != 0) return r; /* nothing registered; the mutex is as the caller left it */
    w.oldtype = PTHREAD_CANCEL_DEFERRED;
    int timed_out = 0;
    pthread_cleanup_push(wt_cancelled, &w);
    while (!__welltempered_preload_cond_poll(&w, timed_out)) {
        /* EAGAIN (the word moved on), EINTR, a wake-up: poll again. */
        timed_out = wt_sleep(&w) == ETIMEDOUT;
    }
    pthread_cleanup_pop(0);
    return __welltempered_preload_cond_end(&w);
}

typedef int (*wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*clockwait_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                            const struct timespec *);

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
    void *glibc = __welltempered_preload_glibc_cond_wait(WT_WAIT);
    if (glibc != NULL) return ((wait_fn)glibc)(c, m);
    return wt_wait(c, m, WT_WAIT, CLOCK_REALTIME, NULL);
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *abs) {
    void *glibc = __welltempered_preload_glibc_cond_wait(WT_TIMEDWAIT);
    if (glibc != NULL) return ((timedwait_fn)glibc)(c, m, abs);
    return wt_wait(c, m, WT_TIMEDWAIT, CLOCK_REALTIME, abs);
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                                  const struct timespec *abs) {
    void *glibc = __welltempered_preload_glibc_cond_wait(WT_CLOCKWAIT);
    if (glibc != NULL) return ((clockwait_fn)glibc)(c, m, clock, abs);
    return wt_wait(c, m, WT_CLOCKWAIT, clock, abs);
}
