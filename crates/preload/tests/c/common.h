/* Shared helpers for the preload test programs: checked pthread calls and argument parsing. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                 \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != 0) {                                                             \
            fprintf(stderr, "%s:%d: %s = %d (%s)\n", __FILE__, __LINE__, #call, rc_, \
                    strerror(rc_));                                                 \
            exit(2);                                                                \
        }                                                                           \
    } while (0)

#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            exit(3);                                                        \
        }                                                                   \
    } while (0)

static inline long arg_or(int argc, char **argv, int i, long dflt) {
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

/* An absolute time `ms` milliseconds from now on `clock`. */
static inline struct timespec deadline_ms(clockid_t clock, long ms) {
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec += 1;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static inline int not_before(clockid_t clock, struct timespec when) {
    struct timespec now;
    clock_gettime(clock, &now);
    return now.tv_sec > when.tv_sec || (now.tv_sec == when.tv_sec && now.tv_nsec >= when.tv_nsec);
}

/* A watchdog: a program that hangs (a lost wake-up, a waiter never leaving) is killed by SIGALRM
 * after `seconds` and fails, instead of hanging the test run. Not inherited across fork(). */
static inline void watchdog(unsigned seconds) { alarm(seconds); }
