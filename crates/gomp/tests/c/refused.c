/* An entry point the library does not implement: `omp_display_env`, then a `target` region.
 *
 * On libgomp this prints the environment and runs the target region on the host. On
 * libwelltempered_gomp it must stop at the first call with a message naming the entry point
 * (never run on silently, never hand the call to libgomp): the test checks that.
 */
#include <omp.h>
#include <stdio.h>

#include "common.h"

int main(void) {
    watchdog();
    omp_display_env(0);
    int x = 0;
#pragma omp target map(tofrom : x)
    x = 42;
    printf("x = %d\n", x);
    return x == 42 ? 0 : 1;
}
