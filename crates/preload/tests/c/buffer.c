/* A bounded buffer on two condition variables: P producers, C consumers, every item delivered
 * exactly once. Usage: buffer PRODUCERS CONSUMERS ITEMS_PER_PRODUCER */
#include "common.h"

#define CAP 8
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty;
static long buf[CAP];
static int head, count, producers_left;
static long items;
static unsigned long long sum, received;

static void *producer(void *arg) {
    long id = (long)arg;
    for (long i = 0; i < items; i++) {
        CHECK(pthread_mutex_lock(&m));
        while (count == CAP) CHECK(pthread_cond_wait(&not_full, &m));
        buf[(head + count) % CAP] = id * items + i + 1;
        count++;
        CHECK(pthread_cond_signal(&not_empty));
        CHECK(pthread_mutex_unlock(&m));
    }
    CHECK(pthread_mutex_lock(&m));
    if (--producers_left == 0) CHECK(pthread_cond_broadcast(&not_empty));
    CHECK(pthread_mutex_unlock(&m));
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    for (;;) {
        CHECK(pthread_mutex_lock(&m));
        while (count == 0 && producers_left > 0) CHECK(pthread_cond_wait(&not_empty, &m));
        if (count == 0) {
            CHECK(pthread_mutex_unlock(&m));
            return NULL;
        }
        long v = buf[head];
        head = (head + 1) % CAP;
        count--;
        sum += (unsigned long long)v;
        received++;
        CHECK(pthread_cond_signal(&not_full));
        CHECK(pthread_mutex_unlock(&m));
    }
}

int main(int argc, char **argv) {
    long p = arg_or(argc, argv, 1, 2), c = arg_or(argc, argv, 2, 2);
    items = arg_or(argc, argv, 3, 20000);
    producers_left = (int)p;
    CHECK(pthread_cond_init(&not_empty, NULL));
    pthread_t t[p + c];
    for (long i = 0; i < p; i++) CHECK(pthread_create(&t[i], NULL, producer, (void *)i));
    for (long i = 0; i < c; i++) CHECK(pthread_create(&t[p + i], NULL, consumer, NULL));
    for (long i = 0; i < p + c; i++) CHECK(pthread_join(t[i], NULL));
    unsigned long long n = (unsigned long long)(p * items);
    EXPECT(received == n);
    EXPECT(sum == n * (n + 1) / 2);
    CHECK(pthread_cond_destroy(&not_empty));
    printf("buffer: %ld producers, %ld consumers, %llu items, sum %llu\n", p, c, received, sum);
    return 0;
}
