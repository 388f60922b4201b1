/* Mutex kinds the library hands to glibc: recursive and error-checking, by attribute and by
 * static initialiser, keep their semantics; a normal mutex made with an attribute is ours. */
#include "common.h"

static pthread_mutex_t rec_static = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t chk_static = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t chk;

static void *unlock_from_other_thread(void *arg) {
    (void)arg;
    EXPECT(pthread_mutex_unlock(&chk) == EPERM);
    EXPECT(pthread_mutex_trylock(&chk_static) == EBUSY);
    return NULL;
}

int main(void) {
    pthread_mutexattr_t a;
    pthread_mutex_t rec, normal;
    CHECK(pthread_mutexattr_init(&a));
    CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE));
    CHECK(pthread_mutex_init(&rec, &a));
    CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK));
    CHECK(pthread_mutex_init(&chk, &a));
    CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL));
    CHECK(pthread_mutex_init(&normal, &a));
    CHECK(pthread_mutexattr_destroy(&a));

    for (int i = 0; i < 3; i++) CHECK(pthread_mutex_lock(&rec));
    EXPECT(pthread_mutex_trylock(&rec) == 0);
    for (int i = 0; i < 4; i++) CHECK(pthread_mutex_unlock(&rec));
    CHECK(pthread_mutex_lock(&rec_static));
    CHECK(pthread_mutex_lock(&rec_static));
    CHECK(pthread_mutex_unlock(&rec_static));
    CHECK(pthread_mutex_unlock(&rec_static));

    CHECK(pthread_mutex_lock(&chk));
    EXPECT(pthread_mutex_lock(&chk) == EDEADLK);
    CHECK(pthread_mutex_lock(&chk_static));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, unlock_from_other_thread, NULL));
    CHECK(pthread_join(t, NULL));
    CHECK(pthread_mutex_unlock(&chk));
    EXPECT(pthread_mutex_unlock(&chk) == EPERM);
    CHECK(pthread_mutex_unlock(&chk_static));

    CHECK(pthread_mutex_lock(&normal));
    EXPECT(pthread_mutex_trylock(&normal) == EBUSY);
    CHECK(pthread_mutex_unlock(&normal));

    CHECK(pthread_mutex_destroy(&rec));
    CHECK(pthread_mutex_destroy(&chk));
    CHECK(pthread_mutex_destroy(&normal));
    printf("kinds: ok\n");
    return 0;
}
