/* Mutexes inside heap objects freed right after their last unlock: each object is reference
 * counted under its own mutex and the thread that drops the last reference frees it at once
 * (the pattern that exposes use-after-free in a lock whose unlock touches the lock after the
 * hand-over). Usage: heapfree THREADS OBJECTS */
#include "common.h"

struct obj {
    pthread_mutex_t lock;
    long refs;
    long touched;
};

static long threads, objects;
static struct obj **table;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long freed;

static void *worker(void *arg) {
    (void)arg;
    for (long i = 0; i < objects; i++) {
        struct obj *o = table[i];
        CHECK(pthread_mutex_lock(&o->lock));
        o->touched++;
        long left = --o->refs;
        CHECK(pthread_mutex_unlock(&o->lock));
        if (left == 0) {
            EXPECT(o->touched == threads);
            CHECK(pthread_mutex_destroy(&o->lock));
            memset(o, 0xA5, sizeof *o);
            free(o);
            CHECK(pthread_mutex_lock(&table_lock));
            freed++;
            CHECK(pthread_mutex_unlock(&table_lock));
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    threads = arg_or(argc, argv, 1, 4);
    objects = arg_or(argc, argv, 2, 20000);
    table = calloc((size_t)objects, sizeof *table);
    for (long i = 0; i < objects; i++) {
        table[i] = malloc(sizeof *table[i]);
        CHECK(pthread_mutex_init(&table[i]->lock, NULL));
        table[i]->refs = threads;
        table[i]->touched = 0;
    }
    pthread_t t[threads];
    for (long i = 0; i < threads; i++) CHECK(pthread_create(&t[i], NULL, worker, NULL));
    for (long i = 0; i < threads; i++) CHECK(pthread_join(t[i], NULL));
    EXPECT(freed == objects);
    free(table);
    printf("heapfree: %ld threads, %ld objects freed\n", threads, freed);
    return 0;
}
