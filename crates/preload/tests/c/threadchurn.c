/* A program that keeps creating threads: ROUNDS rounds of two short-lived threads that contend
 * for two mutexes (one held while taking the other, so that a thread needs two queue nodes at
 * once). The preload library gives each exited thread's Hemlock Grants and queue nodes back for
 * reuse; the test reads how many it allocated from the exit statistics. Usage: threadchurn
 * ROUNDS */
#include "common.h"

static pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t inner = PTHREAD_MUTEX_INITIALIZER;
static unsigned long count;

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 20; i++) {
        CHECK(pthread_mutex_lock(&outer));
        CHECK(pthread_mutex_lock(&inner));
        count++;
        CHECK(pthread_mutex_unlock(&inner));
        CHECK(pthread_mutex_unlock(&outer));
    }
    return NULL;
}

int main(int argc, char **argv) {
    long rounds = arg_or(argc, argv, 1, 500);
    watchdog(300);
    for (long r = 0; r < rounds; r++) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, worker, NULL));
        for (int i = 0; i < 2; i++) CHECK(pthread_join(t[i], NULL));
    }
    printf("count %lu\n", count);
    return 0;
}
