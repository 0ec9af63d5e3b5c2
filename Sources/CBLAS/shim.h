#include <cblas.h>

/// Asks the CPU to start loading the cache line at `address`, for reading and to be kept in every
/// cache level, without waiting for it. Swift has no spelling for the prefetch instruction, and
/// k-means' bounded passes need it for the scattered rows they recompute (`Kernels+Bounds.swift`).
static inline void vibes_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// Ends OpenBLAS's worker threads; a later threaded call would start them again. Threaded builds of
/// OpenBLAS define it (`driver/others/blas_server.c`) without declaring it in `cblas.h`; weak, so
/// that a build without it still links and the call is skipped.
int blas_thread_shutdown_(void) __attribute__((weak));

/// Ends OpenBLAS's worker threads if this build of OpenBLAS has them.
static inline void vibes_stop_blas_workers(void) {
    if (blas_thread_shutdown_) blas_thread_shutdown_();
}
