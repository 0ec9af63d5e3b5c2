import CBLAS

/// OpenBLAS's own worker threads, which this package never uses: every BLAS call here is
/// single-threaded, made from the package's own threads.
public enum OpenBLASThreads {
    /// Ends OpenBLAS's worker threads if this build of OpenBLAS has them.
    ///
    /// They start when the library loads, and each spins on a core (`sched_yield`) for about
    /// 0.1 s before it sleeps, and again after every threaded BLAS call; meanwhile a parallel pass
    /// has one core fewer. Measured on a k-means fit started right after launch (1M rows, k = 16,
    /// 2 threads): its first three passes took 15–18 ms with the workers spinning, 7–8 ms without.
    ///
    /// Call it where no other thread can be inside a BLAS call, such as at the start of a program
    /// (`vibes-analyze` does): a worker ended in the middle of a job would never finish it. A later
    /// threaded BLAS call starts the workers again.
    public static func endIdleWorkers() {
        vibes_stop_blas_workers()
    }
}
