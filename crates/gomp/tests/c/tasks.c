/* Explicit tasks: `task`, `taskwait`, `taskgroup`, `taskyield`, and the barriers that complete
 * them.
 *
 * Checks: fib(22) with a task per call and taskwait (final() below a cutoff, omp_in_final);
 * 1000 tasks made by one thread in `single` are all done at the single's barrier, and with
 * `single nowait` at an explicit barrier; tasks made by every thread are all done at the
 * region's end; `taskgroup` waits for the tasks' descendants too (GOMP_taskgroup_start/end),
 * taskwait only for the children; firstprivate captures at creation (a later write is not
 * seen), including an over-aligned struct (GOMP_task's arg_align) and a variable-length array
 * (copied by GOMP_task's cpyfn); `if(0)` tasks are done when the construct ends; `depend`
 * chains run in order; untied, mergeable, priority and taskyield are accepted.
 *
 * The library may run tasks at once or later, on any thread: the results must be the same.
 * Prints the results (the same for every team size). */
#include "common.h"
#include <stdint.h>

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static int final_bad;

static long fib(int n) {
    if (n < 2) return n;
    long a = 0, b = 0;
#pragma omp task shared(a) final(n < 10) mergeable
    a = fib(n - 1);
#pragma omp task shared(b) final(n < 10) untied
    b = fib(n - 2);
    /* fib(n < 8) runs in a task made by fib(n + 1) or fib(n + 2), below the cutoff: final. */
    if (n < 8 && !omp_in_final()) {
#pragma omp atomic write
        final_bad = 1;
    }
#pragma omp taskwait
    return a + b;
}

static void fibonacci(void) {
    long result = 0;
#pragma omp parallel
    {
#pragma omp single
        result = fib(22);
    }
    EXPECT_EQ(result, fib_serial(22));
    EXPECT_EQ(final_bad, 0);
    printf("fib(22) with tasks: %ld\n", result);
}

static void counters(int team) {
    long done = 0, done_nowait = 0, everyone = 0;
    int at_single_barrier = 0, at_explicit_barrier = 0;
#pragma omp parallel
    {
#pragma omp single
        for (int k = 0; k < 1000; k++) {
#pragma omp task
            {
#pragma omp atomic
                done++;
            }
        }
        /* The single's barrier completes the tasks. */
#pragma omp single
        at_single_barrier = (int)done;
#pragma omp single nowait
        for (int k = 0; k < 1000; k++) {
#pragma omp task firstprivate(k)
            {
#pragma omp atomic
                done_nowait += k;
            }
        }
#pragma omp barrier
#pragma omp single
        at_explicit_barrier = done_nowait == 999L * 1000 / 2;
        /* Every thread makes tasks; the region's end completes them. */
        for (int k = 0; k < 100; k++) {
#pragma omp task
            {
#pragma omp atomic
                everyone++;
            }
        }
    }
    EXPECT_EQ(at_single_barrier, 1000);
    EXPECT_EQ(at_explicit_barrier, 1);
    EXPECT_EQ(everyone, 100L * team);
    printf("tasks: %ld at a single's barrier, sum %ld at a barrier, %ld at the region's end\n",
           done, done_nowait, everyone / team);
}

/* A task that makes `depth` generations of tasks below it, each counting itself. */
static void spawn(int depth, long *count) {
#pragma omp atomic
    (*count)++;
    if (depth == 0) return;
    for (int k = 0; k < 2; k++) {
#pragma omp task
        spawn(depth - 1, count);
    }
}

static void groups(void) {
    long in_group = 0, children = 0;
    int group_ok = 0, children_ok = 0;
#pragma omp parallel
    {
#pragma omp single
        {
            /* taskgroup: all 2^9 - 1 descendants. */
#pragma omp taskgroup
            {
#pragma omp task
                spawn(8, &in_group);
            }
            long seen;
#pragma omp atomic read
            seen = in_group;
            group_ok = seen == 511;
            /* taskwait: the children are done (the grandchildren may not be). */
            long kids = 0;
            for (int k = 0; k < 20; k++) {
#pragma omp task shared(kids)
                {
#pragma omp atomic
                    kids++;
#pragma omp task
                    {
#pragma omp atomic
                        children++;
                    }
                }
            }
#pragma omp taskwait
            long k_seen;
#pragma omp atomic read
            k_seen = kids;
            children_ok = k_seen == 20;
        }
    }
    EXPECT_EQ(group_ok, 1);
    EXPECT_EQ(children_ok, 1);
    EXPECT_EQ(children, 20);
    printf("taskgroup: %ld descendants; taskwait: 20 children\n", in_group);
}

struct aligned {
    long value[4];
} __attribute__((aligned(64)));

static void captures(void) {
    volatile long m_ = 37;
    long m = m_;
    int bad = 0;
    long vla_sum = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp single
        for (int k = 0; k < 200; k++) {
            int v = k;
            struct aligned s = {{k, 2L * k, 3L * k, 4L * k}};
            long vla[m];
            for (long j = 0; j < m; j++) vla[j] = k + j;
#pragma omp task firstprivate(v, s, vla) shared(vla_sum)
            {
                if (v != k) bad++;
                if ((uintptr_t)&s % 64 != 0) bad++;
                if (s.value[0] != k || s.value[3] != 4L * k) bad++;
                long sum = 0;
                for (long j = 0; j < m; j++) sum += vla[j];
                if (sum != k * m + m * (m - 1) / 2) bad++;
#pragma omp atomic
                vla_sum += sum;
            }
            /* Writes after the task was made: the task must not see them. */
            v = -1;
            s.value[0] = -1;
            for (long j = 0; j < m; j++) vla[j] = -1;
        }
    }
    EXPECT_EQ(bad, 0);
    long want = 0;
    for (int k = 0; k < 200; k++) want += k * m + m * (m - 1) / 2;
    EXPECT_EQ(vla_sum, want);
    printf("firstprivate: int, aligned struct, VLA of %ld: sum %ld\n", m, vla_sum);
}

static void undeferred_and_depend(void) {
    int bad = 0;
    long chain[64];
    int chain_len = 0;
    long x = 0, y = 0, z = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp single
        {
            for (int k = 0; k < 50; k++) {
                int flag = 0;
#pragma omp task if (0) shared(flag)
                flag = 1;
                if (!flag) bad++;
            }
            /* A chain: each task appends to the list, in order. */
            for (int k = 0; k < 64; k++) {
#pragma omp task depend(inout : chain_len) shared(chain, chain_len) priority(k % 4)
                chain[chain_len++] = k;
            }
            /* A diamond: x -> (y, z) -> x. */
#pragma omp task depend(out : x) shared(x)
            x = 10;
#pragma omp task depend(in : x) depend(out : y) shared(x, y)
            y = x * 2;
#pragma omp task depend(in : x) depend(out : z) shared(x, z)
            z = x * 3;
#pragma omp task depend(in : y, z) depend(inout : x) shared(x, y, z)
            x = x + y + z;
#pragma omp taskyield
#pragma omp taskwait
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(chain_len, 64);
    for (int k = 0; k < 64; k++) EXPECT_EQ(chain[k], k);
    EXPECT_EQ(x, 60);
    printf("if(0) tasks done at once; depend chain of %d in order; diamond %ld\n", chain_len, x);
}

int main(void) {
    watchdog();
    int team = omp_get_max_threads();
    EXPECT(team >= 1 && team <= MAX_THREADS);
    fibonacci();
    counters(team);
    groups();
    captures();
    undeferred_and_depend();
    /* Tasks outside any region: run by the initial thread. */
    long outside = 0;
    for (int k = 0; k < 10; k++) {
#pragma omp task shared(outside)
        outside += k;
    }
#pragma omp taskwait
    EXPECT_EQ(outside, 45);
    printf("tasks outside a region: %ld\n", outside);
    return 0;
}
