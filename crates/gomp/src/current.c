/* The calling thread's OpenMP state for libwelltempered_gomp (src/team.rs): one pointer in
 * initial-exec thread-local storage, read by every GOMP_* and omp_* entry point.
 *
 * Rust's thread-locals in a shared library use the general-dynamic model, a call to
 * __tls_get_addr on every access; libgomp keeps its thread state in initial-exec storage, one
 * load from the thread pointer. Entry points such as GOMP_loop_dynamic_next run once per chunk,
 * so the difference shows. Initial-exec storage in a shared library needs the library to be
 * loaded at program start (LD_PRELOAD, or linked), which is how this library is used.
 */
static __thread void *current __attribute__((tls_model("initial-exec")));

__attribute__((visibility("hidden"))) void *wt_gomp_current(void) { return current; }

__attribute__((visibility("hidden"))) void wt_gomp_set_current(void *state) { current = state; }
