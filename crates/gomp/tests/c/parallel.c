/* `parallel` and the team queries of the omp_* API.
 *
 * Checks: the default team (OMP_NUM_THREADS threads, each thread number exactly once),
 * `num_threads(k)` for teams smaller and larger than the default, `if(0)` and a runtime `if`,
 * omp_set_num_threads, nested `parallel` (omp_get_level, omp_get_active_level,
 * omp_get_ancestor_thread_num, omp_get_team_size, omp_in_parallel at every level: with GCC 12's
 * default max-active-levels of 1, a region nested in an active region is inactive and runs with a
 * team of one, but one nested in a team of one is the first active level and gets its threads),
 * the values of the ICV queries (omp_get_dynamic, omp_get_max_active_levels,
 * omp_get_thread_limit, omp_get_schedule before and after omp_set_schedule, with the clamping of
 * the chunk size), omp_get_num_procs > 0, omp_get_wtime monotonic, omp_get_wtick > 0, and a
 * region entered 1000 times.
 *
 * Prints every value the queries return (they are deterministic for a given OMP_NUM_THREADS). */
#include "common.h"

/* What one thread of a region saw. */
struct seen {
    int runs; /* how many threads claimed this thread number */
    int num_threads;
    int max_threads;
    int in_parallel;
    int level;
    int active_level;
};

/* Runs `parallel num_threads(k)` (k = 0: no clause) and returns the team size, after checking
 * that every thread number 0..n-1 ran exactly once and that all threads agree. */
static int team(int k, struct seen *out) {
    struct seen s[MAX_THREADS];
    memset(s, 0, sizeof s);
    if (k == 0) {
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            EXPECT(t >= 0 && t < MAX_THREADS);
#pragma omp atomic
            s[t].runs++;
            s[t].num_threads = omp_get_num_threads();
            s[t].max_threads = omp_get_max_threads();
            s[t].in_parallel = omp_in_parallel();
            s[t].level = omp_get_level();
            s[t].active_level = omp_get_active_level();
        }
    } else {
#pragma omp parallel num_threads(k)
        {
            int t = omp_get_thread_num();
            EXPECT(t >= 0 && t < MAX_THREADS);
#pragma omp atomic
            s[t].runs++;
            s[t].num_threads = omp_get_num_threads();
            s[t].max_threads = omp_get_max_threads();
            s[t].in_parallel = omp_in_parallel();
            s[t].level = omp_get_level();
            s[t].active_level = omp_get_active_level();
        }
    }
    int n = s[0].num_threads;
    EXPECT(n >= 1 && n <= MAX_THREADS);
    for (int t = 0; t < MAX_THREADS; t++) {
        if (t < n) {
            EXPECT_EQ(s[t].runs, 1);
            EXPECT_EQ(s[t].num_threads, n);
            EXPECT_EQ(s[t].max_threads, s[0].max_threads);
            EXPECT_EQ(s[t].in_parallel, s[0].in_parallel);
            EXPECT_EQ(s[t].level, s[0].level);
            EXPECT_EQ(s[t].active_level, s[0].active_level);
        } else {
            EXPECT_EQ(s[t].runs, 0);
        }
    }
    *out = s[0];
    return n;
}

static void print_team(const char *what, int n, const struct seen *s) {
    printf("%s: team %d, max_threads %d, in_parallel %d, level %d, active_level %d\n", what, n,
           s->max_threads, s->in_parallel, s->level, s->active_level);
}

/* What the innermost thread of a nested region saw. */
struct nested {
    int runs;
    int thread_num, num_threads, in_parallel, level, active_level;
    int ancestor[5]; /* omp_get_ancestor_thread_num(-1 .. 3) */
    int size[5];     /* omp_get_team_size(-1 .. 3) */
};

static void query_nested(struct nested *r) {
#pragma omp atomic
    r->runs++;
    r->thread_num = omp_get_thread_num();
    r->num_threads = omp_get_num_threads();
    r->in_parallel = omp_in_parallel();
    r->level = omp_get_level();
    r->active_level = omp_get_active_level();
    for (int l = -1; l <= 3; l++) {
        r->ancestor[l + 1] = omp_get_ancestor_thread_num(l);
        r->size[l + 1] = omp_get_team_size(l);
    }
}

static void print_nested(const char *what, int outer, const struct nested *r) {
    printf("%s [outer thread %d]: runs %d, thread %d of %d, in_parallel %d, level %d, "
           "active_level %d, ancestors", what, outer, r->runs, r->thread_num, r->num_threads,
           r->in_parallel, r->level, r->active_level);
    for (int l = 0; l < 5; l++) printf(" %d", r->ancestor[l]);
    printf(", team sizes");
    for (int l = 0; l < 5; l++) printf(" %d", r->size[l]);
    printf("\n");
}

static void nested(int outer_k) {
    struct nested two[MAX_THREADS], three[MAX_THREADS];
    memset(two, 0, sizeof two);
    memset(three, 0, sizeof three);
    int outer_n = 0;
#pragma omp parallel num_threads(outer_k)
    {
        int o = omp_get_thread_num();
#pragma omp single
        outer_n = omp_get_num_threads();
        /* Two levels: each outer thread opens a region of 2; when the outer region is active,
         * libgomp (max-active-levels 1 by default in GCC 12) runs it with a team of one, the
         * thread itself. */
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) query_nested(&two[o]);
            else {
#pragma omp atomic
                two[o].runs++;
            }
            /* Three levels. */
#pragma omp parallel num_threads(3)
            {
                if (omp_get_thread_num() == 0 && omp_get_ancestor_thread_num(2) == 0)
                    query_nested(&three[o]);
                else {
#pragma omp atomic
                    three[o].runs++;
                }
            }
        }
        /* Back in the outer region: the queries see level 1 again. */
        EXPECT_EQ(omp_get_level(), 1);
        EXPECT_EQ(omp_get_thread_num(), o);
        EXPECT_EQ(omp_get_num_threads(), outer_n);
    }
    EXPECT_EQ(outer_n, outer_k);
    char what[64];
    for (int o = 0; o < outer_n; o++) {
        snprintf(what, sizeof what, "nested 2 levels in %d", outer_k);
        print_nested(what, o, &two[o]);
        snprintf(what, sizeof what, "nested 3 levels in %d", outer_k);
        print_nested(what, o, &three[o]);
        /* Whatever the nested team sizes, the ancestors are the outer thread. */
        EXPECT_EQ(two[o].ancestor[2], o);
        EXPECT_EQ(three[o].ancestor[2], o);
        EXPECT_EQ(two[o].size[2], outer_k);
        EXPECT_EQ(two[o].level, 2);
        EXPECT_EQ(three[o].level, 3);
        /* GCC 12's default (max-active-levels 1): only the outermost region with more than
         * one thread is active; a region inside an active one runs with a team of one. An
         * outer team of one is not active, so the region nested in it is the first active one
         * and gets its two threads (and the third level inside it a team of one each). */
        EXPECT_EQ(two[o].active_level, 1);
        EXPECT_EQ(three[o].active_level, 1);
        EXPECT_EQ(two[o].runs, outer_k > 1 ? 1 : 2);
        EXPECT_EQ(two[o].num_threads, outer_k > 1 ? 1 : 2);
        EXPECT_EQ(three[o].runs, outer_k > 1 ? 1 : 2);
        EXPECT_EQ(three[o].num_threads, 1);
    }
}

static const char *kind_name(omp_sched_t kind) {
    switch ((unsigned)kind & ~(unsigned)omp_sched_monotonic) {
    case omp_sched_static: return "static";
    case omp_sched_dynamic: return "dynamic";
    case omp_sched_guided: return "guided";
    case omp_sched_auto: return "auto";
    default: return "unknown";
    }
}

static void print_schedule(const char *what) {
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    int monotonic = ((unsigned)kind & (unsigned)omp_sched_monotonic) != 0;
    /* The chunk of `auto` is unspecified (libgomp keeps the previous one): not printed. */
    if (((unsigned)kind & ~(unsigned)omp_sched_monotonic) == omp_sched_auto)
        printf("schedule %s: %s%s\n", what, monotonic ? "monotonic:" : "", kind_name(kind));
    else
        printf("schedule %s: %s%s,%d\n", what, monotonic ? "monotonic:" : "", kind_name(kind),
               chunk);
}

static void schedules(void) {
    print_schedule("initially");
    static const struct {
        const char *what;
        omp_sched_t kind;
        int chunk;
    } set[] = {
        {"static,0", omp_sched_static, 0},
        {"static,5", omp_sched_static, 5},
        {"static,-3", omp_sched_static, -3},
        {"dynamic,0", omp_sched_dynamic, 0},
        {"dynamic,4", omp_sched_dynamic, 4},
        {"guided,-1", omp_sched_guided, -1},
        {"guided,7", omp_sched_guided, 7},
        {"auto,9", omp_sched_auto, 9},
        {"monotonic:dynamic,2", (omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2},
        {"monotonic:static,3", (omp_sched_t)(omp_sched_static | omp_sched_monotonic), 3},
    };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        omp_set_schedule(set[i].kind, set[i].chunk);
        char what[64];
        snprintf(what, sizeof what, "after set %s", set[i].what);
        print_schedule(what);
    }
    /* The run-sched ICV is per task: a thread of a region sees the value set before it. */
    omp_set_schedule(omp_sched_guided, 11);
    int ok = 1;
#pragma omp parallel num_threads(3) reduction(&& : ok)
    {
        omp_sched_t kind;
        int chunk;
        omp_get_schedule(&kind, &chunk);
        ok = kind == omp_sched_guided && chunk == 11;
    }
    EXPECT(ok);
    omp_set_schedule(omp_sched_dynamic, 1);
}

static void times(void) {
    double tick = omp_get_wtick();
    EXPECT(tick > 0.0 && tick < 1.0);
    double prev = omp_get_wtime();
    for (int i = 0; i < 100000; i++) {
        double now = omp_get_wtime();
        EXPECT(now >= prev);
        prev = now;
    }
    double before = omp_get_wtime();
    usleep(20000);
    double slept = omp_get_wtime() - before;
    EXPECT(slept >= 0.019 && slept < 30.0);
    /* Every thread's clock is the same clock. */
    double start = omp_get_wtime();
    int ok = 1;
#pragma omp parallel reduction(&& : ok)
    ok = omp_get_wtime() >= start;
    EXPECT(ok);
}

int main(void) {
    watchdog();
    struct seen s;
    int max = omp_get_max_threads();
    EXPECT(max >= 1 && max <= MAX_THREADS);
    printf("max_threads %d\n", max);
    printf("outside: thread %d of %d, in_parallel %d, level %d, active_level %d\n",
           omp_get_thread_num(), omp_get_num_threads(), omp_in_parallel(), omp_get_level(),
           omp_get_active_level());
    printf("outside: ancestor(0) %d, ancestor(1) %d, team_size(0) %d, team_size(1) %d\n",
           omp_get_ancestor_thread_num(0), omp_get_ancestor_thread_num(1), omp_get_team_size(0),
           omp_get_team_size(1));
    EXPECT(omp_get_num_procs() > 0);
    printf("dynamic %d\n", omp_get_dynamic());
    printf("max_active_levels %d\n", omp_get_max_active_levels());
    printf("thread_limit %d\n", omp_get_thread_limit());

    int n = team(0, &s);
    EXPECT_EQ(n, max);
    print_team("default", n, &s);

    int sizes[] = {1, 2, 3, 4, 5, 9};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "num_threads(%d)", sizes[i]);
        n = team(sizes[i], &s);
        EXPECT_EQ(n, sizes[i]);
        EXPECT_EQ(s.in_parallel, n > 1);
        print_team(what, n, &s);
    }

    /* if(0): a team of one, level 1 but not active. */
    {
        int runs = 0, threads = 0, level = 0, active = -1, in_par = -1, tnum = -1;
#pragma omp parallel if (0) num_threads(4)
        {
#pragma omp atomic
            runs++;
            threads = omp_get_num_threads();
            tnum = omp_get_thread_num();
            level = omp_get_level();
            active = omp_get_active_level();
            in_par = omp_in_parallel();
        }
        EXPECT_EQ(runs, 1);
        printf("if(0): runs %d, thread %d of %d, in_parallel %d, level %d, active_level %d\n",
               runs, tnum, threads, in_par, level, active);
    }
    /* A runtime `if`, false then true. */
    for (volatile int cond = 0; cond < 2; cond++) {
        int runs = 0;
        int c = cond;
#pragma omp parallel if (c) num_threads(3)
        {
#pragma omp atomic
            runs++;
        }
        printf("if(%d) num_threads(3): runs %d\n", c, runs);
        EXPECT_EQ(runs, c ? 3 : 1);
    }

    /* omp_set_num_threads changes the default team, and omp_get_max_threads. */
    omp_set_num_threads(3);
    EXPECT_EQ(omp_get_max_threads(), 3);
    n = team(0, &s);
    EXPECT_EQ(n, 3);
    print_team("after omp_set_num_threads(3)", n, &s);
    omp_set_num_threads(1);
    n = team(0, &s);
    EXPECT_EQ(n, 1);
    print_team("after omp_set_num_threads(1)", n, &s);
    omp_set_num_threads(max);
    EXPECT_EQ(omp_get_max_threads(), max);

    /* omp_set_dynamic round trip (set back before any region: a dynamic team size is not
     * deterministic). */
    omp_set_dynamic(1);
    int dyn = omp_get_dynamic();
    omp_set_dynamic(0);
    printf("dynamic after set(1) %d, after set(0) %d\n", dyn, omp_get_dynamic());

    nested(1);
    nested(2);
    nested(3);
    if (max > 3) nested(max);

    schedules();
    times();

    /* A region entered 1000 times: every thread of every region runs once. */
    long count = 0;
    for (int r = 0; r < 1000; r++) {
#pragma omp parallel
        {
#pragma omp atomic
            count += omp_get_thread_num() + 1;
        }
    }
    EXPECT_EQ(count, 1000L * max * (max + 1) / 2);
    printf("1000 regions: %ld\n", count);
    return 0;
}
