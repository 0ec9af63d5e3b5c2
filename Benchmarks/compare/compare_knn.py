#!/usr/bin/env python3
"""Exact cosine top-k: vibes-analyze's CosineIndex against faiss IndexFlatIP, on the same bytes.

For each N, the script draws N items and Q queries (float32, d columns, standard normal, rows
scaled to unit length, seeded), writes them as raw little-endian float32, and times:

- faiss ``IndexFlatIP`` with its BLAS path forced (``distance_compute_blas_threshold = 0``), the
  fastest exact faiss path on this machine (see /work/shared/PERF-NOTES.md), on T threads;
- ``vibes-analyze bench-knn`` (hidden command) on T tasks, reading the same files.

Each is run ``--repeats`` times and the fastest run is kept. Recall@k of both is measured against
an exact numpy reference in float64 on the first ``--reference-queries`` queries (ties by row).
The FMA roofline is 2·d flops per query–item pair at ``--peak-gflops`` (≈115 GFLOP/s per Zen 4 core).

Usage:
    Benchmarks/.venv/bin/python Benchmarks/compare/compare_knn.py \
        --binary .build/release/vibes-analyze --n 1e5,1e6
"""

import argparse
import json
import os
import platform
import subprocess
import tempfile
import time

from counts import parse_counts

import faiss
import numpy as np


def unit_rows(rng, rows, d):
    x = rng.standard_normal((rows, d), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.ascontiguousarray(x, dtype=np.float32)


def reference_topk(x, q, k, chunk=200):
    """Exact top-k by dot product in float64, ties broken by smaller row number."""
    x64 = x.astype(np.float64)
    result = np.empty((len(q), k), dtype=np.int64)
    for start in range(0, len(q), chunk):
        scores = q[start:start + chunk].astype(np.float64) @ x64.T
        part = np.argpartition(-scores, k + 5, axis=1)[:, :k + 5]
        for i, row in enumerate(part):
            order = sorted(row, key=lambda j: (-scores[i, j], j))
            result[start + i] = order[:k]
    return result


def recall(found, reference):
    k = reference.shape[1]
    hits = sum(len(set(a[:k]) & set(b)) for a, b in zip(found, reference))
    return hits / (len(reference) * k)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build/release/vibes-analyze")
    parser.add_argument("--n", type=parse_counts, default="1e5,1e6", help="items, comma-separated (as `bench --n`)")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=12)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-queries", type=int, default=1_000)
    parser.add_argument("--peak-gflops", type=float, default=115.0, help="fp32 FMA peak per thread")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    faiss.omp_set_num_threads(args.threads)
    faiss.cvar.distance_compute_blas_threshold = 0
    print(f"# exact cosine top-{args.k}, d={args.dim}, Q={args.queries}, {args.threads} threads, "
          f"best of {args.repeats}; faiss-cpu {faiss.__version__} (BLAS path forced), numpy {np.__version__}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    print(f"{'N':>9} {'faiss q/s':>10} {'faiss R@k':>9} {'ours q/s':>10} {'ours R@k':>9} "
          f"{'ours/faiss':>10} {'roofline q/s':>12} {'ours/roofline':>13}")
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        for n in args.n:
            x = unit_rows(rng, n, args.dim)
            q = unit_rows(rng, args.queries, args.dim)
            data_path, query_path, out_path = (os.path.join(folder, name) for name in ("x.f32", "q.f32", "i.i32"))
            x.tofile(data_path)
            q.tofile(query_path)
            reference = reference_topk(x, q[:args.reference_queries], args.k)

            index = faiss.IndexFlatIP(args.dim)
            index.add(x)
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                _, faiss_found = index.search(q, args.k)
                best = min(best, time.perf_counter() - start)
            faiss_qps = args.queries / best
            faiss_recall = recall(faiss_found[:args.reference_queries], reference)

            output = subprocess.run(
                [args.binary, "bench-knn", "--data", data_path, "--queries", query_path, "--columns", str(args.dim),
                 "-k", str(args.k), "--threads", str(args.threads), "--repeats", str(args.repeats),
                 "--indices-out", out_path],
                check=True, capture_output=True, text=True).stdout
            ours = json.loads(output)
            ours_found = np.fromfile(out_path, dtype=np.int32).reshape(args.queries, args.k)
            ours_recall = recall(ours_found[:args.reference_queries], reference)

            roofline = args.peak_gflops * 1e9 * args.threads / (2 * args.dim * n)
            print(f"{n:>9} {faiss_qps:>10.0f} {faiss_recall:>9.4f} {ours['queries_per_second']:>10.0f} "
                  f"{ours_recall:>9.4f} {ours['queries_per_second'] / faiss_qps:>9.2f}x {roofline:>12.0f} "
                  f"{ours['queries_per_second'] / roofline:>12.1%}", flush=True)


if __name__ == "__main__":
    main()
