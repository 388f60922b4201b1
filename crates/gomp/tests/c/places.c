/* Binding: OMP_PROC_BIND and OMP_PLACES as libgomp reads them.
 *
 * Prints the place list (omp_get_num_places, omp_get_place_num_procs, omp_get_place_proc_ids),
 * omp_get_proc_bind, and for each thread of a region (in thread order) its place and the CPUs
 * it may run on. Run under the same variables on libgomp and on libwelltempered_gomp, the output
 * must be the same: libgomp, which the program still loads, binds the initial thread before our
 * library starts, and our library must still see libgomp's whole place list.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#define MAX_THREADS 64

static char masks[MAX_THREADS][256];
static int places[MAX_THREADS];

static void mask_of_calling_thread(char *out, size_t len) {
    cpu_set_t set;
    EXPECT(sched_getaffinity(0, sizeof set, &set) == 0);
    size_t used = 0;
    out[0] = '\0';
    for (int cpu = 0; cpu < CPU_SETSIZE && used + 8 < len; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            used += (size_t)snprintf(out + used, len - used, " %d", cpu);
        }
    }
}

int main(void) {
    watchdog();
    int n = omp_get_num_places();
    printf("places %d, proc_bind %d\n", n, (int)omp_get_proc_bind());
    for (int p = 0; p < n; p++) {
        int ids[256];
        int k = omp_get_place_num_procs(p);
        EXPECT(k >= 0 && k <= 256);
        omp_get_place_proc_ids(p, ids);
        printf("place %d:", p);
        for (int i = 0; i < k; i++) {
            printf(" %d", ids[i]);
        }
        printf("\n");
    }
    int team = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        EXPECT(t < MAX_THREADS);
#pragma omp single
        team = omp_get_num_threads();
        places[t] = omp_get_place_num();
        mask_of_calling_thread(masks[t], sizeof masks[t]);
    }
    for (int t = 0; t < team; t++) {
        printf("thread %d: place %d, cpus%s\n", t, places[t], masks[t]);
    }
    return 0;
}
