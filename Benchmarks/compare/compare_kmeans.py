"""Side-by-side Lloyd's k-means: scikit-learn, faiss and vibes-analyze on the SAME float32 data
from the SAME initial centres.

    Benchmarks/.venv/bin/python Benchmarks/compare/compare_kmeans.py \
        [--bin .build/release/vibes-analyze] [--threads 2] [--iters 20] [--configs 1000000x16 ...]

Each config is NxK at d = 12. The data are a seeded Gaussian mixture (2k overlapping components),
so all 20 iterations run. Every library gets tol = 0 and max_iter = 20 and its fit is timed whole;
"ms/iter" is the fit time divided by the iterations it ran. scikit-learn runs
KMeans(algorithm="lloyd", n_init=1, tol=0); faiss runs faiss.Kmeans with max_points_per_centroid
raised so it uses every point; ours runs `vibes-analyze bench-kmeans` (fused and BLAS kernels).
Inertia is recomputed for all three in float64 from their final centres and labels-by-nearest-centre.
The roofline is max(N·d·4 bytes / measured read bandwidth, 2·N·d·k flops / measured sgemm peak).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from threadpoolctl import threadpool_limits

import faiss
import sklearn
from sklearn.cluster import KMeans


def make_data(n, d, k, seed):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((2 * k, d)) * 1.5
    X = centres[rng.integers(0, 2 * k, n)] + rng.standard_normal((n, d))
    X = X.astype(np.float32)
    init = X[rng.choice(n, k, replace=False)].copy()
    return np.ascontiguousarray(X), np.ascontiguousarray(init)


def inertia_of(X, centres):
    """Sum of squared distances to the nearest centre, in float64, in chunks."""
    C = centres.astype(np.float64)
    cn = (C * C).sum(1)
    total = 0.0
    for start in range(0, X.shape[0], 65536):
        x = X[start:start + 65536].astype(np.float64)
        d2 = (x * x).sum(1)[:, None] - 2 * x @ C.T + cn[None, :]
        total += np.maximum(d2.min(1), 0).sum()
    return total


def measure_bandwidth(threads):
    """Read bandwidth in GB/s: numpy sum over a 512 MB float32 array (best of 5, one thread)."""
    a = np.ones(128 * 1024 * 1024, dtype=np.float32)
    a.sum()
    best = min(_timed(lambda: a.sum()) for _ in range(5))
    return a.nbytes / best / 1e9


def measure_peak(threads):
    """fp32 GFLOP/s of OpenBLAS sgemm 2048³ with `threads` threads (best of 3), a proxy for FMA peak."""
    a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
    with threadpool_limits(threads):
        a @ a
        best = min(_timed(lambda: a @ a) for _ in range(3))
    return 2 * 2048**3 / best / 1e9


def _timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def run_sklearn(X, init, iters, threads):
    with threadpool_limits(threads):
        km = KMeans(n_clusters=init.shape[0], init=init, n_init=1, algorithm="lloyd", tol=0.0, max_iter=iters)
        t = _timed(lambda: km.fit(X))
    return t * 1000 / km.n_iter_, km.n_iter_, km.cluster_centers_


def run_faiss(X, init, iters, threads):
    faiss.omp_set_num_threads(threads)
    km = faiss.Kmeans(X.shape[1], init.shape[0], niter=iters, max_points_per_centroid=10**9, seed=1, verbose=False)
    t = _timed(lambda: km.train(X, init_centroids=init))
    return t * 1000 / iters, iters, km.centroids


def run_ours(binary, xfile, cfile, d, iters, threads, kernel):
    cmd = [binary, "bench-kmeans", "--data", xfile, "--initial", cfile, "--columns", str(d),
           "--max-iter", str(iters), "--threads", str(threads), "--kernel", kernel]
    t = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    rss_kb = int(out.stderr.strip().splitlines()[-1])
    return result, rss_kb


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release/vibes-analyze")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--d", type=int, default=12)
    parser.add_argument("--configs", nargs="+", default=["1000000x16", "100000x16", "1000000x8", "1000000x64", "5000000x16"])
    args = parser.parse_args()

    print(f"scikit-learn {sklearn.__version__}, faiss {faiss.__version__}, numpy {np.__version__}; "
          f"{args.threads} threads, d = {args.d}, {args.iters} iterations, tol = 0; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"load average at start: {os.getloadavg()[0]:.1f} (the machine is shared; compare ratios within a row)")
    bandwidth = measure_bandwidth(args.threads)
    peak = measure_peak(args.threads)
    print(f"measured: read bandwidth {bandwidth:.1f} GB/s (numpy sum, 1 thread); sgemm peak {peak:.0f} GFLOP/s ({args.threads} threads)")
    print()
    header = (f"{'N':>9} {'k':>3} | {'sklearn':>8} {'faiss':>8} {'ours':>8} {'ours-blas':>9} | "
              f"{'ours/skl':>8} {'ours/faiss':>10} | {'roofline':>8} {'ours/roof':>9} | "
              f"{'Δinertia skl':>12} {'Δinertia faiss':>14} | {'peak RSS':>9} {'matrix':>7}")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for config in args.configs:
            n, k = (int(v) for v in config.split("x"))
            X, init = make_data(n, args.d, k, seed=n + k)
            xfile, cfile = os.path.join(tmp, "x.f32"), os.path.join(tmp, "c.f32")
            X.tofile(xfile)
            init.tofile(cfile)
            ours, rss = run_ours(args.bin, xfile, cfile, args.d, args.iters, args.threads, "fused")
            ours_blas, _ = run_ours(args.bin, xfile, cfile, args.d, args.iters, args.threads, "blas")
            skl_ms, skl_iters, skl_centres = run_sklearn(X, init, args.iters, args.threads)
            faiss_ms, _, faiss_centres = run_faiss(X, init, args.iters, args.threads)
            ours_ms = ours["fit_ms"] / ours["iterations"]
            ours_blas_ms = ours_blas["fit_ms"] / ours_blas["iterations"]
            inertia_ours = ours["inertia"]
            inertia_skl = inertia_of(X, skl_centres)
            inertia_faiss = inertia_of(X, faiss_centres)
            roof_ms = max(X.nbytes / (bandwidth * 1e9), 2 * n * args.d * k / (peak * 1e9)) * 1000
            print(f"{n:>9} {k:>3} | {skl_ms:>8.2f} {faiss_ms:>8.2f} {ours_ms:>8.2f} {ours_blas_ms:>9.2f} | "
                  f"{ours_ms / skl_ms:>8.2f} {ours_ms / faiss_ms:>10.2f} | {roof_ms:>8.2f} {ours_ms / roof_ms:>9.1f} | "
                  f"{abs(inertia_ours - inertia_skl) / inertia_skl:>12.1e} {abs(inertia_ours - inertia_faiss) / inertia_faiss:>14.1e} | "
                  f"{rss / 1024:>7.0f}MB {X.nbytes / 2**20:>5.0f}MB")
            if int(ours["iterations"]) != skl_iters:
                print(f"          note: ours ran {int(ours['iterations'])} iterations, scikit-learn {skl_iters}")
            sys.stdout.flush()
    print()
    print("ms per Lloyd iteration (whole fit ÷ iterations, includes each library's final pass). ours = fused SIMD kernel,")
    print("ours-blas = cblas_sgemm on 256-row blocks. Δinertia = |ours − theirs| / theirs from the same initial centres.")


if __name__ == "__main__":
    main()
