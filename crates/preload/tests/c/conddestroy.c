/* Destroying a condition variable while its woken waiters are still leaving it: the example of
 * the POSIX pthread_cond_destroy page (RATIONALE, "Delete Entry From a List"): the deleter
 * broadcasts under the list mutex, unlocks, destroys the condition variable and frees the element
 * at once. A waiter must not touch the condition variable once destroy has returned.
 *
 * Each round publishes a malloc'd element whose condition variable WAITERS threads block on;
 * the deleter removes it, broadcasts, unlocks, destroys, frees, then at once allocates a block of
 * the same size (glibc's per-thread cache hands back the block just freed) and fills it with a
 * pattern. A waiter's late write into the freed condition variable breaks the pattern, which is
 * checked at the end. Usage: conddestroy WAITERS ROUNDS */
#include "common.h"

struct elt {
    long key;
    int busy;
    pthread_cond_t notbusy;
    long payload[4];
};

static pthread_mutex_t lm = PTHREAD_MUTEX_INITIALIZER; /* the list's mutex */
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER; /* the list changed */
static struct elt *list;                                   /* a list of at most one element */
static long waiters, rounds, blocked;

static struct elt *find_elt(long key) { return list != NULL && list->key == key ? list : NULL; }

static void *waiter(void *arg) {
    (void)arg;
    for (long r = 0; r < rounds; r++) {
        CHECK(pthread_mutex_lock(&lm));
        /* Wait for round r's element to be published. */
        while (find_elt(r) == NULL) CHECK(pthread_cond_wait(&changed, &lm));
        /* list_find of the POSIX example: wait while the element exists and is busy. */
        struct elt *ep;
        int counted = 0;
        while ((ep = find_elt(r)) != NULL && ep->busy) {
            if (!counted) {
                counted = 1;
                blocked++;
                CHECK(pthread_cond_broadcast(&changed));
            }
            CHECK(pthread_cond_wait(&ep->notbusy, &lm));
        }
        EXPECT(ep == NULL); /* deleted while we waited */
        CHECK(pthread_mutex_unlock(&lm));
    }
    return NULL;
}

int main(int argc, char **argv) {
    watchdog(120);
    waiters = arg_or(argc, argv, 1, 3);
    rounds = arg_or(argc, argv, 2, 2000);
    unsigned char **reused = calloc((size_t)rounds, sizeof *reused);
    pthread_t t[waiters];
    for (long i = 0; i < waiters; i++) CHECK(pthread_create(&t[i], NULL, waiter, NULL));
    for (long r = 0; r < rounds; r++) {
        struct elt *ep = malloc(sizeof *ep);
        ep->key = r;
        ep->busy = 1;
        CHECK(pthread_cond_init(&ep->notbusy, NULL));
        CHECK(pthread_mutex_lock(&lm));
        blocked = 0;
        list = ep;
        CHECK(pthread_cond_broadcast(&changed));
        /* Every waiter counts itself under lm just before waiting, so once the count is
         * complete and we hold lm again, all of them are inside pthread_cond_wait. */
        while (blocked < waiters) CHECK(pthread_cond_wait(&changed, &lm));
        /* delete_elt of the POSIX example. */
        list = NULL;
        ep->busy = 0;
        CHECK(pthread_cond_broadcast(&ep->notbusy));
        CHECK(pthread_mutex_unlock(&lm));
        CHECK(pthread_cond_destroy(&ep->notbusy));
        free(ep);
        /* Reuse the memory at once, as a busy allocator would. */
        reused[r] = malloc(sizeof(struct elt));
        memset(reused[r], 0x5A, sizeof(struct elt));
    }
    for (long i = 0; i < waiters; i++) CHECK(pthread_join(t[i], NULL));
    long broken = 0;
    for (long r = 0; r < rounds; r++) {
        for (size_t i = 0; i < sizeof(struct elt); i++) {
            if (reused[r][i] != 0x5A) {
                if (broken == 0)
                    fprintf(stderr, "round %ld: byte %zu of the reused block is 0x%02x\n", r, i,
                            reused[r][i]);
                broken++;
                break;
            }
        }
        free(reused[r]);
    }
    EXPECT(broken == 0);
    free(reused);
    printf("conddestroy: %ld waiters, %ld rounds\n", waiters, rounds);
    return 0;
}
