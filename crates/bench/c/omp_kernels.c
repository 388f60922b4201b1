/* The libgomp side of the team-runtime study: EPCC syncbench constructs (Bull, "Measuring
 * Synchronisation and Scheduling Overheads in OpenMP", EWOMP 1999) and the omp0 application
 * kernels (Pi, matmul, Mandelbrot), compiled with -fopenmp through the cc crate and called from
 * the harness in a child process of its own, so libgomp's spinning threads never share a process
 * with the runtime they are compared with. Every function returns wall seconds of its timed part
 * and writes its result where one is checked. */
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* EPCC's delay: a loop the compiler cannot remove. */
void wt_omp_delay(long iters) {
    volatile long a = 0;
    for (long i = 0; i < iters; i++) a += i;
}

double wt_omp_ref(long reps, long delay) {
    double t0 = now();
    for (long j = 0; j < reps; j++) wt_omp_delay(delay);
    return now() - t0;
}

enum {
    C_PARALLEL = 0,
    C_FOR = 1,
    C_PARALLEL_FOR = 2,
    C_BARRIER = 3,
    C_SINGLE = 4,
    C_CRITICAL = 5,
    C_LOCK = 6,
    C_ATOMIC = 7,
    C_REDUCTION = 8,
    C_DYNAMIC_CHUNK = 9,
};

/* Runs `reps` instances of `construct` on `threads` threads, each around `delay`; returns the
 * elapsed seconds. For C_DYNAMIC_CHUNK, `reps` is the number of one-iteration chunks. */
double wt_omp_construct(int construct, int threads, long reps, long delay, long *check) {
    double t0 = 0, t1 = 0;
    long sum = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
    /* Wake the team once so thread creation is not timed. */
#pragma omp parallel num_threads(threads)
    wt_omp_delay(1);
    t0 = now();
    switch (construct) {
    case C_PARALLEL:
        for (long j = 0; j < reps; j++) {
#pragma omp parallel num_threads(threads)
            wt_omp_delay(delay);
        }
        break;
    case C_FOR:
#pragma omp parallel num_threads(threads)
        for (long j = 0; j < reps; j++) {
#pragma omp for
            for (int i = 0; i < threads; i++) wt_omp_delay(delay);
        }
        break;
    case C_PARALLEL_FOR:
        for (long j = 0; j < reps; j++) {
#pragma omp parallel for num_threads(threads)
            for (int i = 0; i < threads; i++) wt_omp_delay(delay);
        }
        break;
    case C_BARRIER:
#pragma omp parallel num_threads(threads)
        for (long j = 0; j < reps; j++) {
            wt_omp_delay(delay);
#pragma omp barrier
        }
        break;
    case C_SINGLE:
#pragma omp parallel num_threads(threads) reduction(+ : sum)
        for (long j = 0; j < reps; j++) {
#pragma omp single
            {
                wt_omp_delay(delay);
                sum++;
            }
        }
        break;
    case C_CRITICAL:
#pragma omp parallel num_threads(threads)
        for (long j = 0; j < reps / threads; j++) {
#pragma omp critical
            {
                wt_omp_delay(delay);
                sum++;
            }
        }
        break;
    case C_LOCK:
#pragma omp parallel num_threads(threads)
        for (long j = 0; j < reps / threads; j++) {
            omp_set_lock(&lock);
            wt_omp_delay(delay);
            sum++;
            omp_unset_lock(&lock);
        }
        break;
    case C_ATOMIC:
#pragma omp parallel num_threads(threads)
        for (long j = 0; j < reps / threads; j++) {
#pragma omp atomic
            sum += 1;
        }
        break;
    case C_REDUCTION:
        for (long j = 0; j < reps; j++) {
            long x = 0;
#pragma omp parallel num_threads(threads) reduction(+ : x)
            {
                wt_omp_delay(delay);
                x += 1;
            }
            sum += x;
        }
        break;
    case C_DYNAMIC_CHUNK:
#pragma omp parallel num_threads(threads) reduction(+ : sum)
        {
#pragma omp for schedule(dynamic, 1)
            for (long i = 0; i < reps; i++) sum += 1;
        }
        break;
    default:
        return -1.0;
    }
    t1 = now();
    omp_destroy_lock(&lock);
    *check = sum;
    return t1 - t0;
}

/* Lock throughput: every thread takes `omp critical` around `cs` delay iterations until `seconds`
 * have passed; returns the elapsed seconds and the acquisitions in *ops. */
double wt_omp_critical_throughput(int threads, double seconds, long cs, long *ops) {
    volatile int stop = 0;
    long total = 0;
    double t0 = now();
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        while (!stop) {
#pragma omp critical
            {
                wt_omp_delay(cs);
                total++;
            }
            if (omp_get_thread_num() == 0 && now() - t0 >= seconds) stop = 1;
        }
    }
    *ops = (long)total;
    return now() - t0;
}

static void set_schedule(int schedule, int chunk) {
    omp_sched_t kind = schedule == 0 ? omp_sched_static
                       : schedule == 1 ? omp_sched_dynamic
                                       : omp_sched_guided;
    omp_set_schedule(kind, chunk);
}

/* Pi by the midpoint rule over `steps` intervals; schedule 0 static, 1 dynamic, 2 guided. */
double wt_omp_pi(int threads, int schedule, int chunk, long steps, double *pi) {
    set_schedule(schedule, chunk);
    double step = 1.0 / (double)steps, sum = 0.0;
    double t0 = now();
#pragma omp parallel for num_threads(threads) schedule(runtime) reduction(+ : sum)
    for (long i = 0; i < steps; i++) {
        double x = ((double)i + 0.5) * step;
        sum += 4.0 / (1.0 + x * x);
    }
    double t1 = now();
    *pi = sum * step;
    return t1 - t0;
}

/* Mandelbrot over an n x n grid of [-2, 1] x [-1.5, 1.5], rows shared out; *count is the total
 * number of iterations (identical under every schedule). */
double wt_omp_mandel(int threads, int schedule, int chunk, int n, int max_iter, long *count) {
    set_schedule(schedule, chunk);
    long total = 0;
    double t0 = now();
#pragma omp parallel for num_threads(threads) schedule(runtime) reduction(+ : total)
    for (int row = 0; row < n; row++) {
        double ci = -1.5 + 3.0 * (double)row / (double)n;
        for (int col = 0; col < n; col++) {
            double cr = -2.0 + 3.0 * (double)col / (double)n, zr = 0, zi = 0;
            int k = 0;
            while (k < max_iter && zr * zr + zi * zi <= 4.0) {
                double t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                k++;
            }
            total += k;
        }
    }
    double t1 = now();
    *count = total;
    return t1 - t0;
}

/* c = a * b for n x n row-major matrices, rows of c shared out, i-k-j order. */
double wt_omp_matmul(int threads, int schedule, int chunk, int n, const double *a, const double *b,
                     double *c) {
    set_schedule(schedule, chunk);
    double t0 = now();
#pragma omp parallel for num_threads(threads) schedule(runtime)
    for (int i = 0; i < n; i++) {
        double *ci = c + (long)i * n;
        memset(ci, 0, sizeof(double) * (size_t)n);
        for (int k = 0; k < n; k++) {
            double aik = a[(long)i * n + k];
            const double *bk = b + (long)k * n;
            for (int j = 0; j < n; j++) ci[j] += aik * bk[j];
        }
    }
    return now() - t0;
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* The CPU time the process burns while its team sits idle for `seconds` after a region. */
double wt_omp_idle_cpu(int threads, double seconds) {
#pragma omp parallel num_threads(threads)
    wt_omp_delay(1000);
    double c0 = cpu_seconds();
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    return cpu_seconds() - c0;
}
