/* A program whose allocator (malloc, posix_memalign, ...) locks a pthread mutex, as jemalloc and
 * tcmalloc do: the library must not call the allocator from inside its own lock path, or a
 * thread's first lock would recurse until the stack overflows. */
#include "common.h"

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long mallocs;

void *malloc(size_t n) {
    pthread_mutex_lock(&heap_lock);
    mallocs++;
    void *p = __libc_malloc(n);
    pthread_mutex_unlock(&heap_lock);
    return p;
}

void free(void *p) {
    pthread_mutex_lock(&heap_lock);
    __libc_free(p);
    pthread_mutex_unlock(&heap_lock);
}

void *calloc(size_t a, size_t b) {
    pthread_mutex_lock(&heap_lock);
    mallocs++;
    void *p = __libc_calloc(a, b);
    pthread_mutex_unlock(&heap_lock);
    return p;
}

void *realloc(void *p, size_t n) {
    pthread_mutex_lock(&heap_lock);
    void *q = __libc_realloc(p, n);
    pthread_mutex_unlock(&heap_lock);
    return q;
}

int posix_memalign(void **out, size_t align, size_t n) {
    pthread_mutex_lock(&heap_lock);
    mallocs++;
    void *p = __libc_memalign(align, n);
    pthread_mutex_unlock(&heap_lock);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n) {
    pthread_mutex_lock(&heap_lock);
    mallocs++;
    void *p = __libc_memalign(align, n);
    pthread_mutex_unlock(&heap_lock);
    return p;
}

void *memalign(size_t align, size_t n) { return aligned_alloc(align, n); }

static void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < 2000; i++) {
        /* Each thread frees only what it allocated: a pointer shared between the workers would
         * let two of them free the same block. */
        void *volatile block = malloc(32 + (size_t)i % 64);
        free(block);
    }
    return NULL;
}

int main(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&t[i], NULL, worker, NULL));
    for (int i = 0; i < 4; i++) CHECK(pthread_join(t[i], NULL));
    EXPECT(mallocs >= 8000);
    printf("mallocmutex: ok\n");
    return 0;
}
