/* Worksharing loops: every iteration runs exactly once, under every schedule.
 *
 * Checks, for schedule(static), static,1, static,7, dynamic, dynamic,1, dynamic,5, guided,
 * guided,3, auto, monotonic:dynamic(,4), nonmonotonic:dynamic(,3), monotonic:guided and runtime
 * (after omp_set_schedule of each kind, and libgomp's initial run-sched): fifteen loop shapes
 * in one region, one after the other (unit and non-unit strides, up and down, empty loops, one
 * and two iterations, `int` with `<=`, `unsigned long long` bounds above 2^63 so that gcc calls
 * the GOMP_loop_ull_* entries, bounds next to LONG_MAX, LONG_MIN and ULLONG_MAX), each
 * iteration incrementing its own counter with `omp atomic`; `lastprivate`; `nowait` loops
 * followed by other loops (and a hundred nowait loops in a row); `collapse(2)` and `collapse(3)`;
 * the combined `parallel for` with each schedule; `ordered` loops (static, static,1, static,3,
 * dynamic, dynamic,2, guided, guided,4, runtime, monotonic:dynamic; up, down, unsigned long long,
 * and iterations that skip the ordered block), which print their iterations from inside
 * `ordered` (in iteration order, so deterministic); monotonic schedules hand each thread
 * increasing iterations; static,N deals chunks round robin; and loops in 1000 successive
 * regions.
 *
 * Prints the iteration counts of each schedule and the ordered sequences. */
#include "common.h"
#include <limits.h>

/* Loop bounds the compiler cannot see, so that no loop is folded and the ull loops stay ull. */
static volatile long v_n = 1000, v_zero = 0;
static volatile unsigned long long v_ubase = 0x8000000000000064ULL; /* 2^63 + 100 */

#define NSHAPES 15
#define OFFSET 4096
#define SLOTS 8192
static int hits[NSHAPES][SLOTS], want[NSHAPES][SLOTS];

static void out_of_range(int shape, long k) {
    fprintf(stderr, "shape %d: iteration index %ld out of range\n", shape, k);
    exit(1);
}

/* Counts one run of the iteration with index K of shape S. */
#define BUMP(S, K)                                                        \
    do {                                                                  \
        long k_ = (long)(K) + OFFSET;                                     \
        if (k_ < 0 || k_ >= SLOTS) out_of_range((S), (long)(K));          \
        _Pragma("omp atomic") hits[(S)][k_]++;                            \
    } while (0)
#define WANT(S, K) want[(S)][(long)(K) + OFFSET]++

/* The loop shapes: each is a loop header over a variable named by the argument; they use the
 * locals n (1000), z (0), ub (2^63 + 100) and un (1000) of the function they appear in. */
#define S0(i) for (long i = 0; i < n; i++)
#define S1(i) for (long i = -17; i < n; i += 3)
#define S2(i) for (long i = n - 1; i >= -5; i--)
#define S3(i) for (long i = n; i > -n; i -= 7)
#define S4(i) for (long i = n; i < n; i++)
#define S5(i) for (long i = z; i > z; i--)
#define S6(i) for (long i = 3; i < z + 4; i++)
#define S7(i) for (long i = z; i < z + 2; i++)
#define S8(i) for (int i = 1; i <= (int)n; i += 2)
#define S9(u) for (unsigned long long u = ub; u < ub + un; u += 5)
#define S10(u) for (unsigned long long u = ub + un; u > ub; u -= 3)
#define S11(i) for (long i = LONG_MAX - 1000; i < LONG_MAX - 10 + z; i += 7)
#define S12(i) for (long i = LONG_MIN + 1000; i > LONG_MIN + 10 + z; i -= 7)
#define S13(u) for (unsigned long long u = ULLONG_MAX - 1000; u < ULLONG_MAX - 10 + z; u += 9)
#define S14(u) for (unsigned long long u = (unsigned long long)z; u < un; u++)

/* The index of an iteration of each shape in its counter array. */
#define I11(i) ((i) - (LONG_MAX - 1000))
#define I12(i) ((LONG_MIN + 1000) - (i))
#define I13(u) ((long)((u) - (ULLONG_MAX - 1000)))
#define IU(u) ((long)((u) - ub))

/* What the shapes should count: the same loops, run serially. */
static void expect_shapes(void) {
    long n = v_n, z = v_zero;
    unsigned long long ub = v_ubase, un = (unsigned long long)v_n;
    memset(want, 0, sizeof want);
    S0(i) WANT(0, i);
    S1(i) WANT(1, i);
    S2(i) WANT(2, i);
    S3(i) WANT(3, i);
    S4(i) WANT(4, i);
    S5(i) WANT(5, i);
    S6(i) WANT(6, i);
    S7(i) WANT(7, i);
    S8(i) WANT(8, i);
    S9(u) WANT(9, IU(u));
    S10(u) WANT(10, IU(u));
    S11(i) WANT(11, I11(i));
    S12(i) WANT(12, I12(i));
    S13(u) WANT(13, I13(u));
    S14(u) WANT(14, (long)u);
}

/* Compares the counts with the serial ones, prints the iteration count of each shape and
 * clears the counters. */
static void check_shapes(const char *name) {
    printf("%-24s", name);
    for (int s = 0; s < NSHAPES; s++) {
        long count = 0;
        for (long k = 0; k < SLOTS; k++) {
            if (hits[s][k] != want[s][k]) {
                fprintf(stderr, "schedule(%s) shape %d: iteration index %ld ran %d times, "
                        "expected %d\n", name, s, k - OFFSET, hits[s][k], want[s][k]);
                exit(1);
            }
            count += want[s][k];
        }
        printf(" %ld", count);
    }
    printf("\n");
    memset(hits, 0, sizeof hits);
}

/* A function running the fifteen shapes in one region under one schedule, with lastprivate
 * on three of them. */
#define ALL_SHAPES(FN, ...)                                                        \
    static void FN(const char *name) {                                             \
        long n = v_n, z = v_zero;                                                  \
        unsigned long long ub = v_ubase, un = (unsigned long long)v_n;             \
        long last0 = -1, last2 = -1;                                               \
        unsigned long long last9 = 0;                                              \
        DO_PRAGMA(omp parallel)                                                    \
        {                                                                          \
            DO_PRAGMA(omp for schedule(__VA_ARGS__) lastprivate(last0))            \
            S0(i) { BUMP(0, i); last0 = i; }                                       \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S1(i) BUMP(1, i);                                                      \
            DO_PRAGMA(omp for schedule(__VA_ARGS__) lastprivate(last2))            \
            S2(i) { BUMP(2, i); last2 = i; }                                       \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S3(i) BUMP(3, i);                                                      \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S4(i) BUMP(4, i);                                                      \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S5(i) BUMP(5, i);                                                      \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S6(i) BUMP(6, i);                                                      \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S7(i) BUMP(7, i);                                                      \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S8(i) BUMP(8, i);                                                      \
            DO_PRAGMA(omp for schedule(__VA_ARGS__) lastprivate(last9))            \
            S9(u) { BUMP(9, IU(u)); last9 = u; }                                   \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S10(u) BUMP(10, IU(u));                                                \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S11(i) BUMP(11, I11(i));                                               \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S12(i) BUMP(12, I12(i));                                               \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S13(u) BUMP(13, I13(u));                                               \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            S14(u) BUMP(14, (long)u);                                              \
        }                                                                          \
        EXPECT_EQ_AT(name, last0, n - 1);                                          \
        EXPECT_EQ_AT(name, last2, -5);                                             \
        EXPECT_EQ_AT(name, IU(last9), 995);                                        \
        expect_shapes();                                                           \
        check_shapes(name);                                                        \
    }

ALL_SHAPES(shapes_static, static)
ALL_SHAPES(shapes_static_1, static, 1)
ALL_SHAPES(shapes_static_7, static, 7)
ALL_SHAPES(shapes_dynamic, dynamic)
ALL_SHAPES(shapes_dynamic_1, dynamic, 1)
ALL_SHAPES(shapes_dynamic_5, dynamic, 5)
ALL_SHAPES(shapes_guided, guided)
ALL_SHAPES(shapes_guided_3, guided, 3)
ALL_SHAPES(shapes_auto, auto)
ALL_SHAPES(shapes_runtime, runtime)
ALL_SHAPES(shapes_monotonic_dynamic, monotonic : dynamic)
ALL_SHAPES(shapes_monotonic_dynamic_4, monotonic : dynamic, 4)
ALL_SHAPES(shapes_nonmonotonic_dynamic, nonmonotonic : dynamic)
ALL_SHAPES(shapes_nonmonotonic_dynamic_3, nonmonotonic : dynamic, 3)
ALL_SHAPES(shapes_monotonic_guided, monotonic : guided)

/* The combined `parallel for`: gcc 12 emits GOMP_parallel_loop_* (the team's first chunks
 * handed out by the region's start) only when the bounds are constants; with runtime bounds it
 * emits GOMP_parallel and a loop inside. Three shapes with runtime bounds (the third with a team
 * of three) and two with constant bounds (the second with a team of two). */
#define COMBINED(FN, ...)                                                          \
    static void FN(const char *name) {                                             \
        long n = v_n, z = v_zero;                                                  \
        unsigned long long ub = v_ubase, un = (unsigned long long)v_n;             \
        (void)z;                                                                   \
        DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                          \
        S1(i) BUMP(1, i);                                                          \
        DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                          \
        S10(u) BUMP(10, IU(u));                                                    \
        DO_PRAGMA(omp parallel for schedule(__VA_ARGS__) num_threads(3))           \
        S3(i) BUMP(3, i);                                                          \
        DO_PRAGMA(omp parallel for schedule(__VA_ARGS__))                          \
        for (long i = -3; i < 997; i += 2) BUMP(5, i);                             \
        DO_PRAGMA(omp parallel for schedule(__VA_ARGS__) num_threads(2))           \
        for (int i = 600; i >= 0; i -= 3) BUMP(6, i);                              \
        memset(want, 0, sizeof want);                                              \
        S1(i) WANT(1, i);                                                          \
        S10(u) WANT(10, IU(u));                                                    \
        S3(i) WANT(3, i);                                                          \
        for (long i = -3; i < 997; i += 2) WANT(5, i);                             \
        for (int i = 600; i >= 0; i -= 3) WANT(6, i);                              \
        check_shapes(name);                                                        \
    }

COMBINED(combined_static, static)
COMBINED(combined_static_4, static, 4)
COMBINED(combined_dynamic, dynamic)
COMBINED(combined_dynamic_6, dynamic, 6)
COMBINED(combined_guided, guided)
COMBINED(combined_guided_2, guided, 2)
COMBINED(combined_runtime, runtime)
COMBINED(combined_monotonic_dynamic, monotonic : dynamic)
COMBINED(combined_monotonic_guided_5, monotonic : guided, 5)
COMBINED(combined_nonmonotonic_dynamic_2, nonmonotonic : dynamic, 2)

/* Monotonic schedules: each thread runs its iterations in increasing order. */
#define MONOTONIC(FN, ...)                                                         \
    static void FN(const char *name) {                                             \
        long n = v_n;                                                              \
        int bad = 0;                                                               \
        DO_PRAGMA(omp parallel reduction(+ : bad))                                 \
        {                                                                          \
            long prev = -1;                                                        \
            DO_PRAGMA(omp for schedule(__VA_ARGS__))                               \
            for (long i = 0; i < n; i++) {                                         \
                if (i <= prev) bad++;                                              \
                prev = i;                                                          \
            }                                                                      \
        }                                                                          \
        EXPECT_EQ_AT(name, bad, 0);                                                \
    }

MONOTONIC(monotonic_static, static)
MONOTONIC(monotonic_static_3, static, 3)
MONOTONIC(monotonic_dynamic, monotonic : dynamic)
MONOTONIC(monotonic_dynamic_4, monotonic : dynamic, 4)
MONOTONIC(monotonic_guided, monotonic : guided)
MONOTONIC(monotonic_guided_3, monotonic : guided, 3)
MONOTONIC(monotonic_runtime, monotonic : runtime)

/* schedule(static,7) deals chunks of 7 round robin in thread order; schedule(static) gives each
 * thread at most one contiguous chunk, in thread order. */
static void static_assignment(void) {
    long n = v_n;
    static int owner[1000];
    int threads = 0;
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
#pragma omp for schedule(static, 7)
        for (long i = 0; i < n; i++) owner[i] = omp_get_thread_num();
    }
    for (long i = 0; i < n; i++) EXPECT_EQ(owner[i], (i / 7) % threads);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) owner[i] = omp_get_thread_num();
    for (long i = 1; i < n; i++) EXPECT(owner[i] == owner[i - 1] || owner[i] == owner[i - 1] + 1);
}

/* Loops with `nowait` followed by other loops: threads run ahead into the next loop while
 * others are still in the previous one. */
static void nowait_loops(void) {
    long n = v_n, z = v_zero;
    memset(want, 0, sizeof want);
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 3) nowait
        for (long i = 0; i < n; i++) BUMP(0, i);
#pragma omp for schedule(guided) nowait
        for (long i = n; i > z; i--) BUMP(1, i);
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i += 2) BUMP(2, i);
#pragma omp for schedule(runtime) nowait
        for (long i = 0; i < n; i += 3) BUMP(3, i);
#pragma omp for schedule(static, 2) nowait
        for (long i = 0; i < n; i += 4) BUMP(4, i);
#pragma omp for schedule(dynamic)
        for (long i = 0; i < n; i += 5) BUMP(5, i);
        /* A hundred nowait loops in a row (up to a hundred worksharing loops in flight). */
        for (int r = 0; r < 100; r++) {
#pragma omp for schedule(dynamic) nowait
            for (long i = z; i < 37; i++) BUMP(6, r * 40 + i);
        }
        for (int r = 0; r < 50; r++) {
#pragma omp for schedule(guided, 2) nowait
            for (long i = z; i < 29; i++) BUMP(7, r * 40 + i);
#pragma omp for schedule(nonmonotonic : dynamic, 4) nowait
            for (long i = z; i < 23; i++) BUMP(8, r * 40 + i);
        }
    }
    for (long i = 0; i < n; i++) WANT(0, i);
    for (long i = n; i > z; i--) WANT(1, i);
    for (long i = 0; i < n; i += 2) WANT(2, i);
    for (long i = 0; i < n; i += 3) WANT(3, i);
    for (long i = 0; i < n; i += 4) WANT(4, i);
    for (long i = 0; i < n; i += 5) WANT(5, i);
    for (int r = 0; r < 100; r++)
        for (long i = 0; i < 37; i++) WANT(6, r * 40 + i);
    for (int r = 0; r < 50; r++) {
        for (long i = 0; i < 29; i++) WANT(7, r * 40 + i);
        for (long i = 0; i < 23; i++) WANT(8, r * 40 + i);
    }
    check_shapes("nowait");
}

/* collapse(2) and collapse(3) with the schedule, and a triangular collapse(2) (default
 * schedule). */
#define COLLAPSE(FN, ...)                                                          \
    static void FN(const char *name) {                                             \
        long a = v_n / 77, b = v_n / 50, c = v_n / 200;                            \
        unsigned long long ub = v_ubase;                                           \
        memset(want, 0, sizeof want);                                              \
        DO_PRAGMA(omp parallel)                                                    \
        {                                                                          \
            DO_PRAGMA(omp for collapse(2) schedule(__VA_ARGS__))                   \
            for (long i = 0; i < a; i++)                                           \
                for (long j = b; j > -b; j -= 2) BUMP(0, i * 64 + j + 32);         \
            DO_PRAGMA(omp for collapse(3) schedule(__VA_ARGS__) nowait)            \
            for (long i = -a; i < a; i += 3)                                       \
                for (long j = 0; j < b; j++)                                       \
                    for (long k = c; k > 0; k--) BUMP(1, (i + a) * 128 + j * 6 + k); \
            DO_PRAGMA(omp for collapse(2) schedule(__VA_ARGS__))                   \
            for (unsigned long long u = ub; u < ub + (unsigned long long)a; u++)   \
                for (unsigned long long w = ub; w < ub + (unsigned long long)b; w += 3) \
                    BUMP(2, (long)(u - ub) * 64 + (long)(w - ub));                 \
            /* gcc 12 takes no schedule clause on a non-rectangular loop. */        \
            DO_PRAGMA(omp for collapse(2))                                         \
            for (long i = 0; i < b; i++)                                           \
                for (long j = 0; j < i; j++) BUMP(3, i * 32 + j);                  \
        }                                                                          \
        for (long i = 0; i < a; i++)                                               \
            for (long j = b; j > -b; j -= 2) WANT(0, i * 64 + j + 32);             \
        for (long i = -a; i < a; i += 3)                                           \
            for (long j = 0; j < b; j++)                                           \
                for (long k = c; k > 0; k--) WANT(1, (i + a) * 128 + j * 6 + k);   \
        for (unsigned long long u = ub; u < ub + (unsigned long long)a; u++)       \
            for (unsigned long long w = ub; w < ub + (unsigned long long)b; w += 3) \
                WANT(2, (long)(u - ub) * 64 + (long)(w - ub));                     \
        for (long i = 0; i < b; i++)                                               \
            for (long j = 0; j < i; j++) WANT(3, i * 32 + j);                      \
        check_shapes(name);                                                        \
    }

COLLAPSE(collapse_static, static)
COLLAPSE(collapse_static_3, static, 3)
COLLAPSE(collapse_dynamic_2, dynamic, 2)
COLLAPSE(collapse_guided, guided)
COLLAPSE(collapse_runtime, runtime)

/* Ordered loops: the ordered blocks run in iteration order, so what they print is
 * deterministic; the rest of each iteration runs in parallel. Four loops: up with stride 3,
 * down, unsigned long long, and one whose odd iterations skip the ordered block. */
static long next_up, next_down, next_skip;
static unsigned long long next_u;

#define ORDERED(FN, ...)                                                           \
    static void FN(const char *name) {                                             \
        long n = v_n / 25, z = v_zero;                                             \
        unsigned long long ub = v_ubase;                                           \
        next_up = -5;                                                              \
        next_down = n - 10;                                                        \
        next_u = ub;                                                               \
        next_skip = 0;                                                             \
        printf("ordered %s:", name);                                               \
        DO_PRAGMA(omp parallel)                                                    \
        {                                                                          \
            DO_PRAGMA(omp for ordered schedule(__VA_ARGS__))                       \
            for (long i = -5; i < n; i += 3) {                                     \
                BUMP(0, i);                                                        \
                _Pragma("omp ordered")                                             \
                {                                                                  \
                    EXPECT_EQ_AT(name, i, next_up);                                \
                    next_up += 3;                                                  \
                    printf(" %ld", i);                                             \
                }                                                                  \
            }                                                                      \
            DO_PRAGMA(omp single)                                                  \
            printf(" |");                                                          \
            DO_PRAGMA(omp for ordered schedule(__VA_ARGS__))                       \
            for (long i = n - 10; i > -n; i -= 4) {                                \
                BUMP(1, i);                                                        \
                _Pragma("omp ordered")                                             \
                {                                                                  \
                    EXPECT_EQ_AT(name, i, next_down);                              \
                    next_down -= 4;                                                \
                    printf(" %ld", i);                                             \
                }                                                                  \
            }                                                                      \
            DO_PRAGMA(omp single)                                                  \
            printf(" |");                                                          \
            DO_PRAGMA(omp for ordered schedule(__VA_ARGS__))                       \
            for (unsigned long long u = ub; u < ub + (unsigned long long)n; u += 2) { \
                BUMP(2, IU(u));                                                    \
                _Pragma("omp ordered")                                             \
                {                                                                  \
                    EXPECT_EQ_AT(name, IU(u), IU(next_u));                         \
                    next_u += 2;                                                   \
                    printf(" u+%ld", IU(u));                                       \
                }                                                                  \
            }                                                                      \
            DO_PRAGMA(omp single)                                                  \
            printf(" |");                                                          \
            DO_PRAGMA(omp for ordered schedule(__VA_ARGS__))                       \
            for (long i = z; i < n; i++) {                                         \
                BUMP(3, i);                                                        \
                if (i % 2 == 0) {                                                  \
                    _Pragma("omp ordered")                                         \
                    {                                                              \
                        EXPECT_EQ_AT(name, i, next_skip);                          \
                        next_skip += 2;                                            \
                        printf(" %ld", i);                                         \
                    }                                                              \
                }                                                                  \
            }                                                                      \
        }                                                                          \
        printf("\n");                                                              \
        memset(want, 0, sizeof want);                                              \
        for (long i = -5; i < n; i += 3) WANT(0, i);                               \
        for (long i = n - 10; i > -n; i -= 4) WANT(1, i);                          \
        for (unsigned long long u = ub; u < ub + (unsigned long long)n; u += 2)   \
            WANT(2, IU(u));                                                        \
        for (long i = z; i < n; i++) WANT(3, i);                                   \
        char what_[64];                                                            \
        snprintf(what_, sizeof what_, "ordered %s", name);                         \
        check_shapes(what_);                                                       \
    }

ORDERED(ordered_static, static)
ORDERED(ordered_static_1, static, 1)
ORDERED(ordered_static_3, static, 3)
ORDERED(ordered_dynamic, dynamic)
ORDERED(ordered_dynamic_2, dynamic, 2)
ORDERED(ordered_guided, guided)
ORDERED(ordered_guided_4, guided, 4)
ORDERED(ordered_runtime, runtime)
ORDERED(ordered_monotonic_dynamic, monotonic : dynamic)

/* Loops in 1000 successive regions: the runtime's per-region and per-loop state is reused. */
static void many_regions(void) {
    long z = v_zero;
    memset(want, 0, sizeof want);
    for (int r = 0; r < 1000; r++) {
#pragma omp parallel
        {
#pragma omp for schedule(dynamic, 1) nowait
            for (long i = z; i < 37; i++) BUMP(0, i);
#pragma omp for schedule(guided, 2)
            for (long i = z; i < 53; i++) BUMP(1, i);
#pragma omp for schedule(runtime)
            for (long i = z; i < 11; i++) BUMP(2, i);
#pragma omp for ordered schedule(dynamic)
            for (long i = z; i < 5; i++) {
#pragma omp ordered
                BUMP(3, i);
            }
        }
#pragma omp parallel for schedule(dynamic, 2)
        for (long i = z; i < 19; i++) BUMP(4, i);
    }
    for (long i = 0; i < 37; i++) want[0][i + OFFSET] = 1000;
    for (long i = 0; i < 53; i++) want[1][i + OFFSET] = 1000;
    for (long i = 0; i < 11; i++) want[2][i + OFFSET] = 1000;
    for (long i = 0; i < 5; i++) want[3][i + OFFSET] = 1000;
    for (long i = 0; i < 19; i++) want[4][i + OFFSET] = 1000;
    check_shapes("1000 regions");
}

int main(void) {
    watchdog();
    printf("team %d; shapes:", omp_get_max_threads());
    for (int s = 0; s < NSHAPES; s++) printf(" S%d", s);
    printf("\n");

    shapes_static("static");
    shapes_static_1("static,1");
    shapes_static_7("static,7");
    shapes_dynamic("dynamic");
    shapes_dynamic_1("dynamic,1");
    shapes_dynamic_5("dynamic,5");
    shapes_guided("guided");
    shapes_guided_3("guided,3");
    shapes_auto("auto");
    shapes_monotonic_dynamic("monotonic:dynamic");
    shapes_monotonic_dynamic_4("monotonic:dynamic,4");
    shapes_nonmonotonic_dynamic("nonmonotonic:dynamic");
    shapes_nonmonotonic_dynamic_3("nonmonotonic:dynamic,3");
    shapes_monotonic_guided("monotonic:guided");
    shapes_runtime("runtime (initial)");
    static const struct {
        const char *name;
        omp_sched_t kind;
        int chunk;
    } runtime[] = {
        {"runtime static", omp_sched_static, 0},
        {"runtime static,3", omp_sched_static, 3},
        {"runtime dynamic,1", omp_sched_dynamic, 1},
        {"runtime dynamic,4", omp_sched_dynamic, 4},
        {"runtime guided,1", omp_sched_guided, 1},
        {"runtime guided,5", omp_sched_guided, 5},
        {"runtime auto", omp_sched_auto, 0},
        {"runtime mono:dynamic,2", (omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2},
    };
    for (size_t r = 0; r < sizeof runtime / sizeof runtime[0]; r++) {
        omp_set_schedule(runtime[r].kind, runtime[r].chunk);
        char name[64];
        shapes_runtime(runtime[r].name);
        snprintf(name, sizeof name, "parallel for %s", runtime[r].name);
        combined_runtime(name);
        snprintf(name, sizeof name, "collapse %s", runtime[r].name);
        collapse_runtime(name);
        monotonic_runtime(runtime[r].name);
        ordered_runtime(runtime[r].name);
    }
    omp_set_schedule(omp_sched_dynamic, 1);

    combined_static("parallel for static");
    combined_static_4("parallel for static,4");
    combined_dynamic("parallel for dynamic");
    combined_dynamic_6("parallel for dynamic,6");
    combined_guided("parallel for guided");
    combined_guided_2("parallel for guided,2");
    combined_runtime("parallel for runtime");
    combined_monotonic_dynamic("parallel for mono:dyn");
    combined_monotonic_guided_5("parallel for mono:gui,5");
    combined_nonmonotonic_dynamic_2("parallel for nonmono,2");

    monotonic_static("static");
    monotonic_static_3("static,3");
    monotonic_dynamic("monotonic:dynamic");
    monotonic_dynamic_4("monotonic:dynamic,4");
    monotonic_guided("monotonic:guided");
    monotonic_guided_3("monotonic:guided,3");
    static_assignment();

    nowait_loops();

    collapse_static("collapse static");
    collapse_static_3("collapse static,3");
    collapse_dynamic_2("collapse dynamic,2");
    collapse_guided("collapse guided");

    ordered_static("static");
    ordered_static_1("static,1");
    ordered_static_3("static,3");
    ordered_dynamic("dynamic");
    ordered_dynamic_2("dynamic,2");
    ordered_guided("guided");
    ordered_guided_4("guided,4");
    ordered_monotonic_dynamic("monotonic:dynamic");

    many_regions();
    return 0;
}
