"""Side-by-side Lloyd's k-means: scikit-learn, faiss and vibes-analyze on the SAME float32 data
from the SAME initial centres.

    Benchmarks/.venv/bin/python Benchmarks/compare/compare_kmeans.py \
        [--bin [LABEL=]PATH ...] [--n 1e5,1e6] [--k 8,16,64] [--threads 1,2] [--iterations 20] [--repeats 3]
        [--plain] [--blas]

The grid is the same as `vibes-analyze bench`'s: every N × k × threads at d = 12. The data are a seeded Gaussian mixture (2k overlapping components),
so all 20 iterations run. Every library gets tol = 0 and max_iter = 20 and its fit is timed whole;
"ms/iter" is the fit time divided by the iterations it ran. scikit-learn runs
KMeans(algorithm="lloyd", n_init=1, tol=0); faiss runs faiss.Kmeans with max_points_per_centroid
raised so it uses every point; ours runs `vibes-analyze bench-kmeans`: Lloyd's iterations with
Hamerly's bound (the default, exact), and with --plain also every row every iteration (--no-bounds),
with --blas also the BLAS kernel.
Inertia is recomputed for all three in float64 from their final centres and labels-by-nearest-centre.
The roofline is max(N·d·4 bytes / measured read bandwidth, 2·N·d·k flops / measured sgemm peak),
both measured with the same number of threads as the row.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from counts import parse_counts

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
    """Read bandwidth in GB/s: numpy sums over a 512 MB float32 array split among `threads`
    Python threads (numpy releases the GIL while it sums), best of 5."""
    a = np.ones(128 * 1024 * 1024, dtype=np.float32)
    parts = np.array_split(a, threads)
    with ThreadPoolExecutor(threads) as pool:
        def run():
            list(pool.map(np.sum, parts))
        run()
        best = min(_timed(run) for _ in range(5))
    return a.nbytes / best / 1e9


def measure_peak(threads):
    """fp32 GFLOP/s of OpenBLAS sgemm 2048³ with `threads` threads, a proxy for FMA peak: the best
    of 10 products (about 1 s), since the neighbours of this shared machine can take a third of the
    CPU for a second or so; best of 3 once measured 96 GFLOP/s where 150 is usual (2026-11-22)."""
    a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
    with threadpool_limits(threads):
        a @ a
        best = min(_timed(lambda: a @ a) for _ in range(10))
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


def run_ours(binary, xfile, cfile, d, iters, threads, kernel, bounds=True):
    cmd = [binary, "bench-kmeans", "--data", xfile, "--initial", cfile, "--columns", str(d),
           "--max-iter", str(iters), "--threads", str(threads), "--kernel", kernel,
           "--bounds" if bounds else "--no-bounds"]
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    rss_kb = int(out.stderr.strip().splitlines()[-1])
    return result, rss_kb


def describe_cpu():
    """The CPU model and its vector extensions, from /proc/cpuinfo."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return platform.processor() or "unknown CPU"
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("model name")), "unknown CPU")
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    vector = [f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f") if f in flags]
    return f"{model}, {os.cpu_count()} logical CPUs, {' '.join(vector) or 'no SIMD flags listed'}"


def tool_version(command):
    """The first line a version command prints, or 'unknown'."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "unknown"


def median_spread(values):
    values = sorted(values)
    return statistics.median(values), values[0], values[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", action="append", metavar="[LABEL=]PATH",
                        help="a vibes-analyze binary, repeatable (default .build/release/vibes-analyze)")
    parser.add_argument("--n", default="1e5,1e6", help="rows, comma-separated (as `bench --n`)")
    parser.add_argument("--k", default="8,16,64", help="clusters, comma-separated")
    parser.add_argument("--threads", default="2", help="threads, comma-separated")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3, help="runs per library and configuration; medians are shown")
    parser.add_argument("--d", type=int, default=12)
    parser.add_argument("--blas", action="store_true", help="also time our BLAS kernel")
    parser.add_argument("--plain", action="store_true",
                        help="also time the first binary without Hamerly's bound (--no-bounds: every row, every iteration)")
    args = parser.parse_args()
    binaries = []
    for spec in args.bin or [".build/release/vibes-analyze"]:
        label, _, path = spec.rpartition("=")
        binaries.append((label or "ours", path))
    ns, ks, thread_counts = parse_counts(args.n), parse_counts(args.k), parse_counts(args.threads)

    print(f"scikit-learn {sklearn.__version__}, faiss {faiss.__version__}, numpy {np.__version__}; d = {args.d}, "
          f"{args.iterations} iterations, tol = 0, median of {args.repeats}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("command: " + " ".join(sys.argv))
    print(f"CPU: {describe_cpu()}; {platform.platform()}")
    print(f"build: {tool_version(['swift', '--version'])}; OpenBLAS {tool_version(['dpkg-query', '-W', '-f=${Version}', 'libopenblas0-pthread'])}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
          + ("  (BUSY: figures are distorted)" if os.getloadavg()[0] > 0.5 * os.cpu_count() else ""))
    for label, path in binaries:
        print(f"{label}: {path}")
    bandwidths = {t: measure_bandwidth(t) for t in thread_counts}
    peaks = {t: measure_peak(t) for t in thread_counts}
    print("measured: read bandwidth (numpy sum) "
          + ", ".join(f"{bandwidths[t]:.1f} GB/s ({t} thr)" for t in thread_counts) + "; sgemm 2048³ peak "
          + ", ".join(f"{peaks[t]:.0f} GFLOP/s ({t} thr)" for t in thread_counts))
    # The fixed overhead of our process (runtime, OpenBLAS), from a run on a tiny matrix.
    with tempfile.TemporaryDirectory() as tmp:
        X, init = make_data(1000, args.d, 8, seed=1)
        X.tofile(os.path.join(tmp, "x.f32"))
        init.tofile(os.path.join(tmp, "c.f32"))
        _, fixed_kb = run_ours(binaries[0][1], os.path.join(tmp, "x.f32"), os.path.join(tmp, "c.f32"), args.d, 2, 1, "fused")
    print(f"our fixed memory overhead (peak RSS at N = 1,000): {fixed_kb / 1024:.0f} MB")
    print()
    columns = [f"{'N':>9} {'k':>3} {'thr':>3}", f"{'sklearn':>8} {'faiss':>8}"]
    columns += [f"{label:>8} {label + '/skl':>12} {label + '/faiss':>14} {'/roof':>6} {'RSS−fix':>8} {'Δinertia':>8}" for label, _ in binaries]
    if args.plain:
        columns.append(f"{'plain':>8} {'plain/skl':>9} {'/roof':>6}")
    if args.blas:
        columns.append(f"{'blas':>8}")
    columns.append(f"{'scanned':>7}")
    header = " | ".join(columns)
    print(header)
    print("-" * len(header))
    spreads = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in ns:
            for k in ks:
                X, init = make_data(n, args.d, k, seed=n + k)
                xfile, cfile = os.path.join(tmp, "x.f32"), os.path.join(tmp, "c.f32")
                X.tofile(xfile)
                init.tofile(cfile)
                for threads in thread_counts:
                    times = {"sklearn": [], "faiss": [], "blas": [], "plain": []}
                    times.update({label: [] for label, _ in binaries})
                    results, rss = {}, {}
                    for _ in range(args.repeats):
                        # Interleaved, so that a change of the machine's load hits every library alike.
                        for label, path in binaries:
                            result, rss[label] = run_ours(path, xfile, cfile, args.d, args.iterations, threads, "fused")
                            results[label] = result
                            times[label].append(result["fit_ms"] / result["iterations"])
                        if args.plain:
                            result, _ = run_ours(binaries[0][1], xfile, cfile, args.d, args.iterations, threads, "fused", bounds=False)
                            times["plain"].append(result["fit_ms"] / result["iterations"])
                        if args.blas:
                            result, _ = run_ours(binaries[0][1], xfile, cfile, args.d, args.iterations, threads, "blas")
                            times["blas"].append(result["fit_ms"] / result["iterations"])
                        skl_ms, skl_iters, skl_centres = run_sklearn(X, init, args.iterations, threads)
                        times["sklearn"].append(skl_ms)
                        faiss_ms, _, faiss_centres = run_faiss(X, init, args.iterations, threads)
                        times["faiss"].append(faiss_ms)
                    inertia_skl = inertia_of(X, skl_centres)
                    skl = median_spread(times["sklearn"])
                    fai = median_spread(times["faiss"])
                    roof_ms = max(X.nbytes / (bandwidths[threads] * 1e9), 2 * n * args.d * k / (peaks[threads] * 1e9)) * 1000
                    row = [f"{n:>9} {k:>3} {threads:>3}", f"{skl[0]:>8.2f} {fai[0]:>8.2f}"]
                    for label, _ in binaries:
                        ours = median_spread(times[label])
                        delta = abs(results[label]["inertia"] - inertia_skl) / inertia_skl
                        row.append(f"{ours[0]:>8.2f} {ours[0] / skl[0]:>12.2f} {ours[0] / fai[0]:>14.2f} "
                                   f"{ours[0] / roof_ms:>6.1f} {(rss[label] - fixed_kb) / 1024:>6.0f}MB {delta:>8.0e}")
                        spreads.append(f"{n}x{k}x{threads} {label} {ours[1]:.2f}–{ours[2]:.2f}")
                    if args.plain:
                        plain = median_spread(times["plain"])[0]
                        row.append(f"{plain:>8.2f} {plain / skl[0]:>9.2f} {plain / roof_ms:>6.1f}")
                    if args.blas:
                        row.append(f"{median_spread(times['blas'])[0]:>8.2f}")
                    row.append(f"{results[binaries[0][0]].get('scanned_share', 1):>6.0%}")
                    print(" | ".join(row) + f"   (matrix {X.nbytes / 2**20:.0f} MB, roofline {roof_ms:.2f} ms, "
                          f"skl {skl[1]:.1f}–{skl[2]:.1f}, faiss {fai[1]:.1f}–{fai[2]:.1f})")
                    if int(results[binaries[0][0]]["iterations"]) != skl_iters:
                        print(f"          note: ours ran {int(results[binaries[0][0]]['iterations'])} iterations, scikit-learn {skl_iters}")
                    sys.stdout.flush()
    print()
    print("ms per Lloyd iteration, median of the repeats (whole fit ÷ iterations, including each library's final pass);")
    print("ratios < 1 mean we are faster. /roof = ours ÷ max(N·d·4 B ÷ read bandwidth, 2·N·d·k ÷ sgemm peak).")
    print("scanned = the share of rows whose distances an iteration of the first binary computed: Hamerly's bound skips the rest,")
    print("with the same result (plain = the first binary with --no-bounds, every row every iteration).")
    print("RSS−fix = our peak RSS minus the fixed overhead above (the matrix is included). Δinertia = |ours − scikit-learn| / scikit-learn.")
    print("our spread (min–max ms): " + "; ".join(spreads))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
