/* A barrier built from a mutex and a broadcast condition variable, reused over many rounds.
 * Usage: barrier THREADS ROUNDS */
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_here = PTHREAD_COND_INITIALIZER;
static long threads, rounds, arrived, generation;
static long *seen;

static void barrier_wait(void) {
    CHECK(pthread_mutex_lock(&m));
    long gen = generation;
    if (++arrived == threads) {
        arrived = 0;
        generation++;
        CHECK(pthread_cond_broadcast(&all_here));
    } else {
        while (gen == generation) CHECK(pthread_cond_wait(&all_here, &m));
    }
    CHECK(pthread_mutex_unlock(&m));
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (long r = 0; r < rounds; r++) {
        seen[id] = r;
        barrier_wait();
        /* After the barrier every thread has reached round r. */
        for (long j = 0; j < threads; j++) EXPECT(seen[j] >= r);
        barrier_wait();
    }
    return NULL;
}

int main(int argc, char **argv) {
    threads = arg_or(argc, argv, 1, 4);
    rounds = arg_or(argc, argv, 2, 500);
    seen = calloc((size_t)threads, sizeof *seen);
    pthread_t t[threads];
    for (long i = 0; i < threads; i++) CHECK(pthread_create(&t[i], NULL, worker, (void *)i));
    for (long i = 0; i < threads; i++) CHECK(pthread_join(t[i], NULL));
    EXPECT(generation == 2 * rounds);
    printf("barrier: %ld threads, %ld rounds\n", threads, rounds);
    return 0;
}
