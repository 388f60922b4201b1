/* Cancellation, an entry point the library may refuse: `cancel for` and `cancellation point
 * for` inside a worksharing loop (GOMP_cancel, GOMP_cancellation_point; gcc 12 ends the loop
 * with the plain GOMP_loop_end, the cancellable GOMP_loop_end_cancel and GOMP_barrier_cancel
 * come only with `cancel parallel`), and omp_get_cancellation.
 *
 * With OMP_CANCELLATION unset (the test clears it) cancellation is off: libgomp's GOMP_cancel
 * returns false, so `cancel` is a no-op and every iteration runs. A library either behaves the
 * same (this output) or fails cleanly, naming the entry point it does not implement.
 *
 * Prints omp_get_cancellation() and the loop's results. */
#include "common.h"

static volatile long v_n = 1000;

int main(void) {
    watchdog();
    long n = v_n;
    long sum = 0, runs = 0;
    printf("cancellation %d\n", omp_get_cancellation());
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 4)
        for (long i = 0; i < n; i++) {
#pragma omp atomic
            runs++;
            if (i == 100) {
#pragma omp cancel for
            }
#pragma omp cancellation point for
#pragma omp atomic
            sum += i;
        }
#pragma omp barrier
    }
    EXPECT_EQ(runs, n);
    EXPECT_EQ(sum, n * (n - 1) / 2);
    printf("cancel for without OMP_CANCELLATION: %ld iterations, sum %ld\n", runs, sum);
    return 0;
}
