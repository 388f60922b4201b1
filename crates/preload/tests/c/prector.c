/* Threads created and mutexes used before main, from a constructor. */
#include "common.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long count;
static pthread_t early[4];

static void *early_worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        CHECK(pthread_mutex_lock(&m));
        count++;
        CHECK(pthread_mutex_unlock(&m));
    }
    return NULL;
}

__attribute__((constructor)) static void start_early(void) {
    CHECK(pthread_mutex_lock(&m));
    count = 0;
    CHECK(pthread_mutex_unlock(&m));
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&early[i], NULL, early_worker, NULL));
}

int main(void) {
    for (int i = 0; i < 1000; i++) {
        CHECK(pthread_mutex_lock(&m));
        count++;
        CHECK(pthread_mutex_unlock(&m));
    }
    for (int i = 0; i < 4; i++) CHECK(pthread_join(early[i], NULL));
    EXPECT(count == 5000);
    printf("prector: %ld\n", count);
    return 0;
}
