/* `taskloop`: a loop split into tasks (GOMP_taskloop, GOMP_taskloop_ull).
 *
 * Checks: every iteration runs exactly once under the default split, grainsize(10),
 * num_tasks(7), with a negative stride, with unsigned long long bounds above 2^63, with
 * `nogroup` followed by a taskwait, and with firstprivate/lastprivate; the taskloop's implicit
 * taskgroup completes the tasks before the construct ends.
 *
 * Prints the iteration counts (the same for every team size). */
#include "common.h"

static volatile long v_n = 1000;
static volatile unsigned long long v_ubase = 0x8000000000000064ULL; /* 2^63 + 100 */

#define SLOTS 4096
static int hits[SLOTS];

static void bump(long k) {
    if (k < 0 || k >= SLOTS) {
        fprintf(stderr, "iteration index %ld out of range\n", k);
        exit(1);
    }
#pragma omp atomic
    hits[k]++;
}

/* Fails unless the iterations lo, lo + step, ... (count of them) ran once each; clears. */
static long check(const char *what, long lo, long step, long count) {
    for (long k = 0; k < SLOTS; k++) {
        long rel = k - lo;
        int want = rel % step == 0 && rel / step >= 0 && rel / step < count;
        if (hits[k] != want) {
            fprintf(stderr, "%s: iteration index %ld ran %d times, expected %d\n", what, k,
                    hits[k], want);
            exit(1);
        }
    }
    memset(hits, 0, sizeof hits);
    printf("%s: %ld iterations\n", what, count);
    return count;
}

int main(void) {
    watchdog();
    long n = v_n;
    unsigned long long ub = v_ubase;
    long last = -1;
    int first = 7, bad = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop
        for (long i = 0; i < n; i++) bump(i);
        check("taskloop", 0, 1, n);
#pragma omp taskloop grainsize(10)
        for (long i = 0; i < n; i += 3) bump(i);
        check("taskloop grainsize(10)", 0, 3, (n + 2) / 3);
#pragma omp taskloop num_tasks(7)
        for (long i = n; i > 0; i -= 2) bump(i);
        check("taskloop num_tasks(7) down", 2, 2, n / 2);
#pragma omp taskloop grainsize(16)
        for (unsigned long long u = ub; u < ub + (unsigned long long)n; u += 5)
            bump((long)(u - ub));
        check("taskloop unsigned long long", 0, 5, n / 5);
#pragma omp taskloop nogroup num_tasks(5)
        for (long i = 0; i < n; i++) bump(2 * i);
#pragma omp taskwait
        check("taskloop nogroup + taskwait", 0, 2, n);
#pragma omp taskloop firstprivate(first) lastprivate(last) grainsize(33)
        for (long i = 0; i < n; i++) {
            if (first != 7) {
#pragma omp atomic
                bad++;
            }
            last = i;
            bump(i);
        }
        check("taskloop firstprivate lastprivate", 0, 1, n);
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(last, n - 1);
    printf("lastprivate %ld\n", last);
    return 0;
}
