/* Reductions: every operator on int, long and double, in every context.
 *
 * Checks the operators +, *, -, &, |, ^, &&, ||, max and min on int and long (and +, *, -, &&,
 * ||, max, min on double, whose values are small integers and powers of two so that every
 * order of combination gives the same exact result), each against the serial loop, in:
 * `parallel for` (static and dynamic,7), `parallel` with a hand-made round-robin split, `for`
 * inside a region (guided, and a `nowait` one followed by a barrier), all operators of a type
 * in one construct (gcc merges several reductions under GOMP_atomic_start/GOMP_atomic_end) and
 * each operator alone (gcc merges a single scalar with an atomic); an array-section reduction;
 * and `parallel reduction(+:n)` counting the team. Also reductions over 200 successive regions.
 *
 * Prints the results (the same for every team size, except the team count). */
#include "common.h"

static volatile long v_n = 1000;

/* The operators' variables of type T, with their initial values (which take part). */
#define DECL_INT(T)                                                                      \
    T sum = 5, prod = 3, diff = 10, band = (T)~(T)0, bor = (T)1 << 16, bxor = 0x55;      \
    T land_t = 1, land_f = 1, lor_t = 0, lor_f = 0, mx = 600, mn = 1000
#define DECL_FP(T)                                                                       \
    T sum = 5, prod = 3, diff = 10, land_t = 1, land_f = 1, lor_t = 0, lor_f = 0;        \
    T mx = 600, mn = 1000

#define CLAUSES_INT                                                                      \
    reduction(+ : sum) reduction(* : prod) reduction(- : diff) reduction(& : band)       \
        reduction(| : bor) reduction(^ : bxor) reduction(&& : land_t, land_f)            \
            reduction(|| : lor_t, lor_f) reduction(max : mx) reduction(min : mn)
#define CLAUSES_FP                                                                       \
    reduction(+ : sum) reduction(* : prod) reduction(- : diff)                           \
        reduction(&& : land_t, land_f) reduction(|| : lor_t, lor_f) reduction(max : mx)  \
            reduction(min : mn)

/* Iteration i's contribution to each operator (W: the bits of T to spread over). */
#define V_MAXMIN(i) (((i) * 37) % 1009 - 500)
#define BODY_COMMON(T, i)                                                                \
    do {                                                                                 \
        sum += (T)(i);                                                                   \
        prod *= (T)((i) % 100 == 7 ? 2 : 1);                                             \
        diff -= (T)(i);                                                                  \
        land_t = land_t && ((i) < 100000);                                               \
        land_f = land_f && ((i) != 500);                                                 \
        lor_t = lor_t || ((i) == 777);                                                   \
        lor_f = lor_f || ((i) < 0);                                                      \
        mx = (T)V_MAXMIN(i) > mx ? (T)V_MAXMIN(i) : mx;                                  \
        mn = (T)V_MAXMIN(i) < mn ? (T)V_MAXMIN(i) : mn;                                  \
    } while (0)
#define BODY_INT(T, W, i)                                                                \
    do {                                                                                 \
        BODY_COMMON(T, i);                                                               \
        if ((i) % 7 == 0) band &= ~((T)1 << ((i) % (W)));                                \
        if ((i) % 11 == 0) bor |= (T)1 << ((i) % (W) + 1);                               \
        bxor ^= (T)((i) * 3);                                                            \
    } while (0)

/* The results, as text, into buf (256 bytes). */
#define PRINT_INT(buf)                                                                   \
    snprintf(buf, 256, "sum %lld prod %lld diff %lld and %llx or %llx xor %llx "          \
             "land %d %d lor %d %d max %lld min %lld\n",                                 \
             (long long)sum, (long long)prod, (long long)diff, (unsigned long long)band,  \
             (unsigned long long)bor, (unsigned long long)bxor, (int)land_t, (int)land_f, \
             (int)lor_t, (int)lor_f, (long long)mx, (long long)mn)
#define PRINT_FP(buf)                                                                    \
    snprintf(buf, 256, "sum %.1f prod %.1f diff %.1f land %d %d lor %d %d max %.1f "      \
             "min %.1f\n", (double)sum, (double)prod, (double)diff, (int)land_t,          \
             (int)land_f, (int)lor_t, (int)lor_f, (double)mx, (double)mn)

/* Fails unless a context's results are the serial ones; prints them. */
static void compare(const char *what, const char *want, const char *got) {
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "%s: reduction mismatch:\n  serial:   %s  parallel: %s", what, want,
                got);
        exit(1);
    }
    printf("%-34s %s", what, got);
}

/* One type: the serial loop, then the five contexts with all operators in one construct. */
#define ALL_CONTEXTS(NAME, T, DECL, CLAUSES, BODY, PRINT)                                \
    static void NAME(void) {                                                             \
        long n = v_n;                                                                    \
        char want[256], got[256];                                                        \
        {                                                                                \
            DECL;                                                                        \
            for (long i = 0; i < n; i++) BODY(i);                                        \
            PRINT(want);                                                                 \
            compare(#T " serial", want, want);                                           \
        }                                                                                \
        {                                                                                \
            DECL;                                                                        \
            DO_PRAGMA(omp parallel for CLAUSES schedule(static))                         \
            for (long i = 0; i < n; i++) BODY(i);                                        \
            PRINT(got);                                                                  \
            compare(#T " parallel for static", want, got);                               \
        }                                                                                \
        {                                                                                \
            DECL;                                                                        \
            DO_PRAGMA(omp parallel for CLAUSES schedule(dynamic, 7))                     \
            for (long i = 0; i < n; i++) BODY(i);                                        \
            PRINT(got);                                                                  \
            compare(#T " parallel for dynamic,7", want, got);                            \
        }                                                                                \
        {                                                                                \
            DECL;                                                                        \
            DO_PRAGMA(omp parallel CLAUSES)                                              \
            {                                                                            \
                long t = omp_get_thread_num(), k = omp_get_num_threads();                \
                for (long i = t; i < n; i += k) BODY(i);                                 \
            }                                                                            \
            PRINT(got);                                                                  \
            compare(#T " parallel", want, got);                                          \
        }                                                                                \
        {                                                                                \
            DECL;                                                                        \
            DO_PRAGMA(omp parallel)                                                      \
            {                                                                            \
                DO_PRAGMA(omp for CLAUSES schedule(guided))                              \
                for (long i = 0; i < n; i++) BODY(i);                                    \
            }                                                                            \
            PRINT(got);                                                                  \
            compare(#T " for guided in a region", want, got);                            \
        }                                                                                \
        {                                                                                \
            DECL;                                                                        \
            DO_PRAGMA(omp parallel)                                                      \
            {                                                                            \
                DO_PRAGMA(omp for CLAUSES schedule(dynamic) nowait)                      \
                for (long i = 0; i < n; i++) BODY(i);                                    \
                _Pragma("omp barrier")                                                   \
            }                                                                            \
            PRINT(got);                                                                  \
            compare(#T " for nowait + barrier", want, got);                              \
        }                                                                                \
    }

#define BODY_I(i) BODY_INT(int, 29, i)
#define BODY_L(i) BODY_INT(long, 61, i)
#define BODY_D(i) BODY_COMMON(double, i)
#define DECL_I DECL_INT(int)
#define DECL_L DECL_INT(long)
#define DECL_D DECL_FP(double)

ALL_CONTEXTS(int_contexts, int, DECL_I, CLAUSES_INT, BODY_I, PRINT_INT)
ALL_CONTEXTS(long_contexts, long, DECL_L, CLAUSES_INT, BODY_L, PRINT_INT)
ALL_CONTEXTS(double_contexts, double, DECL_D, CLAUSES_FP, BODY_D, PRINT_FP)

/* Each operator alone in its construct: a single scalar reduction, merged with an atomic (a
 * compare-and-swap loop for double and for the operators with no atomic instruction). */
#define ALONE(T, OP, VAR, INIT, STMT)                                                    \
    do {                                                                                 \
        T VAR = (INIT);                                                                  \
        for (long i = 0; i < n; i++) STMT;                                               \
        T want_ = VAR;                                                                   \
        VAR = (INIT);                                                                    \
        DO_PRAGMA(omp parallel for reduction(OP : VAR) schedule(dynamic, 3))             \
        for (long i = 0; i < n; i++) STMT;                                               \
        if (VAR != want_) {                                                              \
            fprintf(stderr, "%s reduction(%s) alone: got %lld, expected %lld\n", #T, #OP, \
                    (long long)VAR, (long long)want_);                                   \
            exit(1);                                                                     \
        }                                                                                \
        printf(" %s:%lld", #OP, (long long)VAR);                                         \
    } while (0)

#define ALONE_INT(T, W)                                                                  \
    static void alone_##T(void) {                                                        \
        long n = v_n;                                                                    \
        printf("%s alone:", #T);                                                         \
        ALONE(T, +, x, 5, x += (T)i);                                                    \
        ALONE(T, *, x, 3, x *= (T)(i % 100 == 7 ? 2 : 1));                               \
        ALONE(T, -, x, 10, x -= (T)i);                                                   \
        ALONE(T, &, x, (T)~(T)0, if (i % 7 == 0) x &= ~((T)1 << (i % (W))));             \
        ALONE(T, |, x, 0, if (i % 11 == 0) x |= (T)1 << (i % (W)));                      \
        ALONE(T, ^, x, 0x55, x ^= (T)(i * 3));                                           \
        ALONE(T, &&, x, 1, x = x && (i != 500));                                         \
        ALONE(T, ||, x, 0, x = x || (i == 777));                                         \
        ALONE(T, max, x, -1000, x = (T)V_MAXMIN(i) > x ? (T)V_MAXMIN(i) : x);            \
        ALONE(T, min, x, 1000, x = (T)V_MAXMIN(i) < x ? (T)V_MAXMIN(i) : x);             \
        printf("\n");                                                                    \
    }
ALONE_INT(int, 29)
ALONE_INT(long, 61)

static void alone_double(void) {
    long n = v_n;
    printf("double alone:");
    ALONE(double, +, x, 5, x += (double)i);
    ALONE(double, *, x, 3, x *= (i % 100 == 7 ? 2.0 : (i % 250 == 1 ? 0.5 : 1.0)));
    ALONE(double, -, x, 10, x -= (double)i);
    ALONE(double, &&, x, 1, x = x && (i != 500));
    ALONE(double, ||, x, 0, x = x || (i == 777));
    ALONE(double, max, x, -1000, x = (double)V_MAXMIN(i) > x ? (double)V_MAXMIN(i) : x);
    ALONE(double, min, x, 1000, x = (double)V_MAXMIN(i) < x ? (double)V_MAXMIN(i) : x);
    printf("\n");
}

/* An array section: a histogram of i % 8, and a team count. */
static void arrays_and_team(void) {
    long n = v_n;
    long hist[8] = {0};
#pragma omp parallel for reduction(+ : hist[:8]) schedule(dynamic, 5)
    for (long i = 0; i < n; i++) hist[i % 8] += i;
    long want[8] = {0};
    for (long i = 0; i < n; i++) want[i % 8] += i;
    printf("histogram:");
    for (int k = 0; k < 8; k++) {
        EXPECT_EQ(hist[k], want[k]);
        printf(" %ld", hist[k]);
    }
    printf("\n");

    int team = 0;
#pragma omp parallel reduction(+ : team)
    team++;
    EXPECT_EQ(team, omp_get_max_threads());
    int team3 = 100;
#pragma omp parallel num_threads(3) reduction(+ : team3)
    team3 += omp_get_thread_num() + 1;
    EXPECT_EQ(team3, 106);
    printf("team %d, team of 3 %d\n", team, team3);

    /* 200 successive regions each reducing into the same variable. */
    long total = 0;
    for (int r = 0; r < 200; r++) {
#pragma omp parallel for reduction(+ : total) schedule(guided)
        for (long i = 0; i < n; i++) total += i;
    }
    EXPECT_EQ(total, 200L * (n * (n - 1) / 2));
    printf("200 regions: %ld\n", total);
}

int main(void) {
    watchdog();
    int_contexts();
    long_contexts();
    double_contexts();
    alone_int();
    alone_long();
    alone_double();
    arrays_and_team();
    return 0;
}
