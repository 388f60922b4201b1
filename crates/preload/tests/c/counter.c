/* Mutual exclusion: N threads increment plain counters under a static mutex and under a mutex
 * made by pthread_mutex_init in a heap object. Usage: counter THREADS ITERATIONS */
#include "common.h"

static pthread_mutex_t static_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long static_count;

struct shared {
    pthread_mutex_t lock;
    unsigned long count;
    unsigned long per_thread_sum;
};

static long iterations;
static struct shared *heap;

static void *worker(void *arg) {
    unsigned long mine = 0;
    (void)arg;
    for (long i = 0; i < iterations; i++) {
        CHECK(pthread_mutex_lock(&static_lock));
        static_count++;
        CHECK(pthread_mutex_unlock(&static_lock));
        CHECK(pthread_mutex_lock(&heap->lock));
        heap->count += 2;
        mine++;
        CHECK(pthread_mutex_unlock(&heap->lock));
    }
    CHECK(pthread_mutex_lock(&heap->lock));
    heap->per_thread_sum += mine;
    CHECK(pthread_mutex_unlock(&heap->lock));
    return NULL;
}

int main(int argc, char **argv) {
    long threads = arg_or(argc, argv, 1, 4);
    iterations = arg_or(argc, argv, 2, 10000);
    heap = calloc(1, sizeof *heap);
    CHECK(pthread_mutex_init(&heap->lock, NULL));
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    for (long i = 0; i < threads; i++) CHECK(pthread_create(&t[i], NULL, worker, NULL));
    for (long i = 0; i < threads; i++) CHECK(pthread_join(t[i], NULL));
    EXPECT(static_count == (unsigned long)(threads * iterations));
    EXPECT(heap->count == 2UL * (unsigned long)(threads * iterations));
    EXPECT(heap->per_thread_sum == (unsigned long)(threads * iterations));
    CHECK(pthread_mutex_destroy(&heap->lock));
    free(heap);
    free(t);
    printf("counter: %ld threads x %ld iterations: %lu\n", threads, iterations, static_count);
    return 0;
}
