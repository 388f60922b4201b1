/* Process-shared condition variables (pthread_condattr_setpshared PTHREAD_PROCESS_SHARED):
 * 1. with a default (private) mutex in one process: the condition variable's wait must release
 *    and retake whatever mutex it is given through the interposed mutex functions;
 * 2. with a process-shared mutex, both in MAP_SHARED memory, across fork(): parent and child
 *    (both running under the same preloaded library) play ping-pong on them.
 * Usage: condpshared EXCHANGES */
#include "common.h"
#include <sys/mman.h>
#include <sys/wait.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c;
static long turn, exchanges;

/* Part 1: two threads alternate on `turn` (even: main's turn, odd: the other's). */
static void *ponger(void *arg) {
    (void)arg;
    for (long i = 0; i < exchanges; i++) {
        CHECK(pthread_mutex_lock(&m));
        while (turn % 2 == 0) CHECK(pthread_cond_wait(&c, &m));
        turn++;
        CHECK(pthread_cond_signal(&c));
        CHECK(pthread_mutex_unlock(&m));
    }
    return NULL;
}

struct shared {
    pthread_mutex_t m;
    pthread_cond_t c;
    long turn;
    long parent_saw, child_saw;
};

/* One side of the cross-process ping-pong: `parity` 0 for the parent, 1 for the child. */
static void play(struct shared *s, long parity, long *saw) {
    for (long i = 0; i < exchanges; i++) {
        CHECK(pthread_mutex_lock(&s->m));
        while (s->turn % 2 != parity) CHECK(pthread_cond_wait(&s->c, &s->m));
        (*saw)++;
        s->turn++;
        CHECK(pthread_cond_signal(&s->c));
        CHECK(pthread_mutex_unlock(&s->m));
    }
}

int main(int argc, char **argv) {
    watchdog(60);
    exchanges = arg_or(argc, argv, 1, 500);
    pthread_condattr_t ca;
    CHECK(pthread_condattr_init(&ca));
    CHECK(pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED));
    CHECK(pthread_cond_init(&c, &ca));

    pthread_t t;
    CHECK(pthread_create(&t, NULL, ponger, NULL));
    for (long i = 0; i < exchanges; i++) {
        CHECK(pthread_mutex_lock(&m));
        while (turn % 2 == 1) CHECK(pthread_cond_wait(&c, &m));
        turn++;
        CHECK(pthread_cond_signal(&c));
        CHECK(pthread_mutex_unlock(&m));
    }
    CHECK(pthread_join(t, NULL));
    EXPECT(turn == 2 * exchanges);
    /* A timed wait on it too: nobody signals, so it times out with the mutex held again. */
    CHECK(pthread_mutex_lock(&m));
    struct timespec d = deadline_ms(CLOCK_REALTIME, 20);
    int rc;
    while ((rc = pthread_cond_timedwait(&c, &m, &d)) == 0) {}
    EXPECT(rc == ETIMEDOUT);
    EXPECT(pthread_mutex_trylock(&m) == EBUSY);
    CHECK(pthread_mutex_unlock(&m));
    CHECK(pthread_cond_destroy(&c));
    printf("condpshared: one process, default mutex: %ld turns\n", turn);

    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                            -1, 0);
    EXPECT(s != MAP_FAILED);
    pthread_mutexattr_t ma;
    CHECK(pthread_mutexattr_init(&ma));
    CHECK(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED));
    CHECK(pthread_mutex_init(&s->m, &ma));
    CHECK(pthread_mutexattr_destroy(&ma));
    CHECK(pthread_cond_init(&s->c, &ca));
    CHECK(pthread_condattr_destroy(&ca));
    fflush(stdout);
    pid_t child = fork();
    EXPECT(child >= 0);
    if (child == 0) {
        watchdog(60);
        play(s, 1, &s->child_saw);
        _exit(0);
    }
    play(s, 0, &s->parent_saw);
    int status;
    EXPECT(waitpid(child, &status, 0) == child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT(s->turn == 2 * exchanges);
    printf("condpshared: across fork: parent %ld, child %ld turns\n", s->parent_saw, s->child_saw);
    CHECK(pthread_cond_destroy(&s->c));
    CHECK(pthread_mutex_destroy(&s->m));
    munmap(s, sizeof *s);
    return 0;
}
