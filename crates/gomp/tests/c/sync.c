/* Synchronisation constructs and the lock API.
 *
 * Checks: `critical` (unnamed, and two named ones, one nested in the other) protecting
 * non-atomic read-modify-writes; `atomic` update/read/write/capture on int, long and double
 * (lock-free) and on long double (which gcc brackets with GOMP_atomic_start/GOMP_atomic_end);
 * `barrier` phases (each thread writes its phase, barrier, every thread checks every slot);
 * `single` (exactly one thread per construct, with and without nowait), `single copyprivate`
 * (every thread gets the executing thread's values); `master`; `masked`, `masked filter(1)` and
 * a filter past the team; `sections` with 3 and with 7 sections (each section exactly once per
 * construct, lastprivate, nowait); `parallel sections`; omp_lock_t (init/set/unset/test/destroy
 * around a counter, eight adjacent locks each guarding its own counter; omp_test_lock fails while
 * another thread holds the lock and succeeds once it is free); omp_nest_lock_t
 * (omp_test_nest_lock returns the nesting count to the owner and 0 to other threads; recursive
 * acquisition); the locks lie between canaries, since gcc 12's omp.h makes omp_lock_t 4 bytes
 * and omp_nest_lock_t 16; `flush` publishing data from one thread to another.
 *
 * Prints the counts (deterministic for a given team size). */
#include "common.h"

#define ROUNDS 2000

/* A read-modify-write the compiler cannot turn into one instruction: a lost update shows. */
static void slow_increment(volatile long *counter) {
    long v = *counter;
    for (volatile int spin = 0; spin < 3; spin++) {
    }
    *counter = v + 1;
}

static void criticals(int team) {
    volatile long unnamed = 0, a = 0, b = 0, nested = 0;
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
#pragma omp critical
            slow_increment(&unnamed);
#pragma omp critical(alpha)
            slow_increment(&a);
#pragma omp critical(beta)
            slow_increment(&b);
            if (r % 4 == 0) {
#pragma omp critical(alpha)
                {
#pragma omp critical(beta)
                    slow_increment(&nested);
                }
            }
        }
    }
    EXPECT_EQ(unnamed, (long)team * ROUNDS);
    EXPECT_EQ(a, (long)team * ROUNDS);
    EXPECT_EQ(b, (long)team * ROUNDS);
    EXPECT_EQ(nested, (long)team * (ROUNDS / 4));
    printf("critical: unnamed %ld, alpha %ld, beta %ld, alpha>beta %ld\n", unnamed, a, b, nested);
}

static void atomics(int team) {
    int i32 = 0;
    long i64 = 0;
    double d = 0;
    long double ld = 0;
    long double ldmul = 1;
    static int captured[MAX_THREADS * ROUNDS];
    int next = 0;
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
#pragma omp atomic
            i32 += 2;
#pragma omp atomic update
            i64 += 3;
#pragma omp atomic
            d += 0.5;
#pragma omp atomic
            ld += 1.0L;
            if (r < 10) {
#pragma omp atomic
                ldmul *= 2.0L;
            }
            int v;
#pragma omp atomic capture
            v = next++;
            EXPECT(v >= 0 && v < MAX_THREADS * ROUNDS);
            captured[v]++;
            long seen;
#pragma omp atomic read
            seen = i64;
            EXPECT(seen % 3 == 0);
        }
    }
    EXPECT_EQ(i32, 2 * team * ROUNDS);
    EXPECT_EQ(i64, 3L * team * ROUNDS);
    EXPECT(d == 0.5 * team * ROUNDS);
    EXPECT(ld == (long double)team * ROUNDS);
    long double want_mul = 1;
    for (int k = 0; k < 10 * team; k++) want_mul *= 2;
    EXPECT(ldmul == want_mul);
    EXPECT_EQ(next, team * ROUNDS);
    for (int k = 0; k < team * ROUNDS; k++) EXPECT_EQ(captured[k], 1);
    long double w = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
#pragma omp atomic write
            w = 42.0L;
        }
    }
    EXPECT(w == 42.0L);
    printf("atomic: int %d, long %ld, double %.1f, long double %.1Lf, long double product %.0Lf, "
           "captures %d\n", i32, i64, d, ld, ldmul, next);
}

static void barriers(int team) {
    static volatile int phase[MAX_THREADS];
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        for (int p = 1; p <= 300; p++) {
            phase[t] = p;
#pragma omp barrier
            for (int k = 0; k < team; k++)
                if (phase[k] != p) bad++;
#pragma omp barrier
        }
    }
    EXPECT_EQ(bad, 0);
    printf("barrier: 300 phases x 2 barriers\n");
}

static void singles(int team) {
    int runs[100] = {0};
    int after_nowait = 0;
    int copy_bad = 0;
#pragma omp parallel reduction(+ : copy_bad)
    {
        for (int k = 0; k < 100; k++) {
#pragma omp single
            runs[k]++;
        }
        for (int k = 0; k < 100; k++) {
#pragma omp single nowait
            {
#pragma omp atomic
                after_nowait++;
            }
        }
#pragma omp barrier
        /* copyprivate: the thread that runs the single broadcasts its values. */
        for (int k = 0; k < 50; k++) {
            int who;
            double d;
            struct {
                long a[3];
                char tag;
            } s;
#pragma omp single copyprivate(who, d, s)
            {
                who = omp_get_thread_num();
                d = k * 1.5;
                s.a[0] = k;
                s.a[1] = 2L * k;
                s.a[2] = who;
                s.tag = (char)('a' + k % 26);
            }
            if (d != k * 1.5 || s.a[0] != k || s.a[1] != 2L * k || s.a[2] != who ||
                s.tag != (char)('a' + k % 26) || who < 0 || who >= team)
                copy_bad++;
        }
    }
    for (int k = 0; k < 100; k++) EXPECT_EQ(runs[k], 1);
    EXPECT_EQ(after_nowait, 100);
    EXPECT_EQ(copy_bad, 0);
    printf("single: 100 singles once each, 100 nowait singles %d, 50 copyprivate\n",
           after_nowait);
}

static void masters(int team) {
    int master = 0, masked = 0, masked1 = 0, masked_past = 0, bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        for (int k = 0; k < 10; k++) {
#pragma omp master
            {
                master++;
                if (omp_get_thread_num() != 0) bad++;
            }
#pragma omp masked
            {
                masked++;
                if (omp_get_thread_num() != 0) bad++;
            }
#pragma omp masked filter(1)
            {
                masked1++;
                if (omp_get_thread_num() != 1) bad++;
            }
#pragma omp masked filter(omp_get_num_threads())
            masked_past++;
#pragma omp barrier
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(master, 10);
    EXPECT_EQ(masked, 10);
    EXPECT_EQ(masked1, team > 1 ? 10 : 0);
    EXPECT_EQ(masked_past, 0);
    printf("master %d, masked %d, masked filter(1) %d, masked filter(team) %d\n", master, masked,
           masked1, masked_past);
}

static void sections(void) {
    int three[3] = {0}, seven[7] = {0}, psec[4] = {0};
    int last = -1;
    int nowait_runs = 0;
#pragma omp parallel
    {
        for (int r = 0; r < 100; r++) {
#pragma omp sections
            {
#pragma omp section
                three[0]++;
#pragma omp section
                three[1]++;
#pragma omp section
                three[2]++;
            }
#pragma omp sections lastprivate(last)
            {
#pragma omp section
                {
                    seven[0]++;
                    last = 0;
                }
#pragma omp section
                {
                    seven[1]++;
                    last = 1;
                }
#pragma omp section
                {
                    seven[2]++;
                    last = 2;
                }
#pragma omp section
                {
                    seven[3]++;
                    last = 3;
                }
#pragma omp section
                {
                    seven[4]++;
                    last = 4;
                }
#pragma omp section
                {
                    seven[5]++;
                    last = 5;
                }
#pragma omp section
                {
                    seven[6]++;
                    last = 6;
                }
            }
#pragma omp sections nowait
            {
#pragma omp section
                {
#pragma omp atomic
                    nowait_runs++;
                }
#pragma omp section
                {
#pragma omp atomic
                    nowait_runs++;
                }
            }
        }
    }
    for (int k = 0; k < 3; k++) EXPECT_EQ(three[k], 100);
    for (int k = 0; k < 7; k++) EXPECT_EQ(seven[k], 100);
    EXPECT_EQ(last, 6);
    EXPECT_EQ(nowait_runs, 200);
    for (int r = 0; r < 50; r++) {
#pragma omp parallel sections
        {
#pragma omp section
            psec[0]++;
#pragma omp section
            psec[1]++;
#pragma omp section
            psec[2]++;
#pragma omp section
            psec[3]++;
        }
    }
    for (int k = 0; k < 4; k++) EXPECT_EQ(psec[k], 50);
    printf("sections: 3 x 100, 7 x 100 (lastprivate %d), nowait %d, parallel sections 4 x 50\n",
           last, nowait_runs);
}

/* The locks sit between canaries: omp_lock_t is 4 bytes and omp_nest_lock_t 16 in gcc 12's
 * omp.h, and a library that writes more corrupts its neighbours. */
static struct {
    unsigned canary1;
    omp_lock_t lock;
    omp_lock_t array[8];
    unsigned canary2;
} guarded = {0x5eed1234u, {{0}}, {{{0}}}, 0xfeedbeefu};

static void locks(int team) {
    omp_init_lock(&guarded.lock);
    /* Eight adjacent locks, each protecting its own counter. */
    static volatile long per_lock[8];
    for (int k = 0; k < 8; k++) omp_init_lock(&guarded.array[k]);
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
            omp_lock_t *l = &guarded.array[(r + omp_get_thread_num()) % 8];
            omp_set_lock(l);
            slow_increment(&per_lock[(r + omp_get_thread_num()) % 8]);
            omp_unset_lock(l);
        }
    }
    long per_lock_total = 0;
    for (int k = 0; k < 8; k++) {
        per_lock_total += per_lock[k];
        EXPECT_EQ(per_lock[k], (long)team * ROUNDS / 8);
        omp_destroy_lock(&guarded.array[k]);
    }
    volatile long counter = 0;
    long tested = 0;
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
            omp_set_lock(&guarded.lock);
            slow_increment(&counter);
            omp_unset_lock(&guarded.lock);
            if (r % 8 == 0) {
                while (!omp_test_lock(&guarded.lock)) {
                }
                slow_increment(&counter);
                tested++;
                omp_unset_lock(&guarded.lock);
            }
        }
    }
    EXPECT_EQ(counter, (long)team * (ROUNDS + ROUNDS / 8));
    EXPECT_EQ(tested, (long)team * (ROUNDS / 8));

    /* omp_test_lock: fails while another thread holds the lock, succeeds once it is free. */
    int fails = 0, successes = 0;
    EXPECT_EQ(omp_test_lock(&guarded.lock), 1);
    omp_unset_lock(&guarded.lock);
#pragma omp parallel reduction(+ : fails, successes)
    {
        int t = omp_get_thread_num();
        if (t == 0) omp_set_lock(&guarded.lock);
#pragma omp barrier
        if (t != 0) {
            if (omp_test_lock(&guarded.lock)) successes++;
            else fails++;
        }
#pragma omp barrier
        if (t == 0) omp_unset_lock(&guarded.lock);
#pragma omp barrier
        if (t == team - 1) {
            if (omp_test_lock(&guarded.lock)) {
                successes++;
                omp_unset_lock(&guarded.lock);
            } else {
                fails++;
            }
        }
    }
    EXPECT_EQ(fails, team - 1);
    EXPECT_EQ(successes, 1);
    omp_destroy_lock(&guarded.lock);
    /* A lock initialised again after destroy works again. */
    omp_init_lock(&guarded.lock);
    omp_set_lock(&guarded.lock);
    omp_unset_lock(&guarded.lock);
    EXPECT_EQ(guarded.canary1, 0x5eed1234u);
    EXPECT_EQ(guarded.canary2, 0xfeedbeefu);
    printf("omp_lock_t: counter %ld, 8 locks %ld, test_lock: %d failed while held, %d "
           "succeeded when free\n", counter, per_lock_total, fails, successes);
}


static struct {
    unsigned long canary1;
    omp_nest_lock_t lock;
    unsigned long canary2;
} guarded_nest = {0x0123456789abcdefUL, {{0}}, 0xfedcba9876543210UL};
static volatile long nest_counter;

static void recurse(int depth) {
    omp_set_nest_lock(&guarded_nest.lock);
    slow_increment(&nest_counter);
    if (depth > 0) recurse(depth - 1);
    omp_unset_nest_lock(&guarded_nest.lock);
}

static void nest_locks(int team) {
    omp_init_nest_lock(&guarded_nest.lock);
    /* The owner gets the nesting count. */
    int counts[4];
    counts[0] = omp_test_nest_lock(&guarded_nest.lock);
    counts[1] = omp_test_nest_lock(&guarded_nest.lock);
    omp_set_nest_lock(&guarded_nest.lock);
    counts[2] = omp_test_nest_lock(&guarded_nest.lock);
    for (int k = 0; k < 4; k++) omp_unset_nest_lock(&guarded_nest.lock);
    counts[3] = omp_test_nest_lock(&guarded_nest.lock);
    omp_unset_nest_lock(&guarded_nest.lock);
    EXPECT_EQ(counts[0], 1);
    EXPECT_EQ(counts[1], 2);
    EXPECT_EQ(counts[2], 4);
    EXPECT_EQ(counts[3], 1);

    nest_counter = 0;
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS / 4; r++) recurse(r % 4);
    }
    long want = 0;
    for (int r = 0; r < ROUNDS / 4; r++) want += r % 4 + 1;
    EXPECT_EQ(nest_counter, want * team);

    /* Other threads get 0 while the lock is held, at any depth; 1 once it is free. */
    int fails = 0, successes = 0;
#pragma omp parallel reduction(+ : fails, successes)
    {
        int t = omp_get_thread_num();
        if (t == 0) {
            omp_set_nest_lock(&guarded_nest.lock);
            omp_set_nest_lock(&guarded_nest.lock);
        }
#pragma omp barrier
        if (t != 0) {
            if (omp_test_nest_lock(&guarded_nest.lock)) successes++;
            else fails++;
        }
#pragma omp barrier
        if (t == 0) omp_unset_nest_lock(&guarded_nest.lock);
#pragma omp barrier
        if (t != 0) {
            if (omp_test_nest_lock(&guarded_nest.lock)) successes++;
            else fails++;
        }
#pragma omp barrier
        if (t == 0) omp_unset_nest_lock(&guarded_nest.lock);
#pragma omp barrier
        if (t == team - 1) {
            int c = omp_test_nest_lock(&guarded_nest.lock);
            if (c == 1) {
                successes++;
                omp_unset_nest_lock(&guarded_nest.lock);
            } else {
                fails++;
            }
        }
    }
    EXPECT_EQ(fails, 2 * (team - 1));
    EXPECT_EQ(successes, 1);
    omp_destroy_nest_lock(&guarded_nest.lock);
    EXPECT_EQ(guarded_nest.canary1, 0x0123456789abcdefUL);
    EXPECT_EQ(guarded_nest.canary2, 0xfedcba9876543210UL);
    printf("omp_nest_lock_t: test counts %d %d %d %d, recursive counter %ld, %d failed while held, "
           "%d succeeded when free\n", counts[0], counts[1], counts[2], counts[3], nest_counter,
           fails, successes);
}

/* flush: thread 0 publishes data, then a flag; thread 1 waits for the flag and reads the data. */
static void flushes(int team) {
    if (team < 2) {
        printf("flush: team of one\n");
        return;
    }
    int data[16];
    int flag = 0;
    int bad = 0;
    for (int round = 1; round <= 100; round++) {
        flag = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
        {
            if (omp_get_thread_num() == 0) {
                for (int k = 0; k < 16; k++) data[k] = round * 100 + k;
#pragma omp flush
#pragma omp atomic write
                flag = round;
            } else {
                int seen = 0;
                while (seen != round) {
#pragma omp atomic read
                    seen = flag;
                }
#pragma omp flush
                for (int k = 0; k < 16; k++)
                    if (data[k] != round * 100 + k) bad++;
            }
        }
    }
    EXPECT_EQ(bad, 0);
    printf("flush: 100 handoffs\n");
}

int main(void) {
    watchdog();
    int team = omp_get_max_threads();
    EXPECT(team >= 1 && team <= MAX_THREADS);
    printf("team %d\n", team);
    criticals(team);
    atomics(team);
    barriers(team);
    singles(team);
    masters(team);
    sections();
    locks(team);
    nest_locks(team);
    flushes(team);
    return 0;
}
