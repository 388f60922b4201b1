/* Shared helpers for the OpenMP test programs (gcc -O2 -fopenmp): checks that fail with exit
 * status 1 and a message on stderr, and a watchdog that turns a hang into a failure.
 *
 * The programs print to stdout only what is deterministic for a given OMP_NUM_THREADS, so that
 * their output on libgomp and on libwelltempered_gomp.so can be compared byte for byte; anything
 * that depends on timing (which thread ran what) is checked, never printed. */
#define _GNU_SOURCE
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fails the program when `cond` does not hold. Safe from any thread of a team: exit() ends the
 * whole process. */
#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* Fails the program when the integers `got` and `want` differ, showing both. */
#define EXPECT_EQ(got, want)                                                              \
    do {                                                                                  \
        long long got_ = (long long)(got), want_ = (long long)(want);                     \
        if (got_ != want_) {                                                              \
            fprintf(stderr, "%s:%d: %s = %lld, expected %s = %lld\n", __FILE__, __LINE__, \
                    #got, got_, #want, want_);                                            \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* As EXPECT_EQ with a label (what was being checked) in the message. */
#define EXPECT_EQ_AT(what, got, want)                                                      \
    do {                                                                                   \
        long long got_ = (long long)(got), want_ = (long long)(want);                      \
        if (got_ != want_) {                                                               \
            fprintf(stderr, "%s:%d: %s: %s = %lld, expected %s = %lld\n", __FILE__, __LINE__, \
                    (what), #got, got_, #want, want_);                                     \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* _Pragma with macro arguments, commas included: DO_PRAGMA(omp for schedule(__VA_ARGS__)). */
#define DO_PRAGMA(...) _Pragma(#__VA_ARGS__)

static void watchdog_fired(int sig) {
    static const char msg[] = "watchdog: the program hung (no exit within 60 s)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* Nothing more to say. */
    }
    _exit(1);
}

/* A hang (a lost wake-up, a barrier that never opens) fails after 60 seconds instead of hanging
 * the test run. */
static inline void watchdog(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = watchdog_fired;
    sigaction(SIGALRM, &sa, NULL);
    alarm(60);
}

/* The largest team a program makes (the test runs OMP_NUM_THREADS up to 8); per-thread arrays
 * have this many slots. */
#define MAX_THREADS 64
