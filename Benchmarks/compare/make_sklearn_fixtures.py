"""Generates the scikit-learn k-means fixtures in Sources/VibesTestSupport/Fixtures/sklearn/.

Run once, from the repository root, with the pinned venv:
    Benchmarks/.venv/bin/python Benchmarks/compare/make_sklearn_fixtures.py

Each fixture holds float32 data, the initial centres (chosen by scikit-learn's k-means++ with a
fixed random_state), and what KMeans(init=centres, n_init=1, algorithm="lloyd", tol=0) returns:
labels, inertia, iteration count and centres. The Swift tests start from the same centres and
must reach the same labels and the same inertia within 1e-5 relative.
"""
import json
import pathlib

import numpy as np
import sklearn
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.datasets import make_blobs

OUT = pathlib.Path(__file__).resolve().parents[2] / "Sources/VibesTestSupport/Fixtures/sklearn"


def fixture(name, X, k, seed, max_iter=300):
    X = np.ascontiguousarray(X, dtype=np.float32)
    init, _ = kmeans_plusplus(X, n_clusters=k, random_state=seed)
    km = KMeans(n_clusters=k, init=init, n_init=1, algorithm="lloyd", tol=0.0, max_iter=max_iter)
    km.fit(X)
    doc = {
        "description": f"{name}: {X.shape[0]} x {X.shape[1]} float32, k = {k}",
        "sklearn_version": sklearn.__version__,
        "numpy_version": np.__version__,
        "call": f"KMeans(n_clusters={k}, init=<init>, n_init=1, algorithm='lloyd', tol=0.0, max_iter={max_iter})",
        "rows": int(X.shape[0]),
        "columns": int(X.shape[1]),
        "k": int(k),
        "max_iter": int(max_iter),
        "data": [float(v) for v in X.ravel()],
        "init": [float(v) for v in init.astype(np.float32).ravel()],
        "labels": [int(v) for v in km.labels_],
        "inertia": float(km.inertia_),
        "n_iter": int(km.n_iter_),
        "centers": [float(v) for v in km.cluster_centers_.astype(np.float32).ravel()],
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(name, X.shape, "k", k, "inertia", km.inertia_, "n_iter", km.n_iter_)


rng = np.random.default_rng(20260121)
X, _ = make_blobs(n_samples=300, n_features=4, centers=5, cluster_std=1.0, random_state=7)
fixture("blobs-300x4-k5", X, 5, seed=1)

X, _ = make_blobs(n_samples=600, n_features=12, centers=8, cluster_std=2.5, random_state=11)
fixture("overlapping-600x12-k8", X, 8, seed=2)

X = rng.standard_normal((400, 12)).astype(np.float32)
fixture("gaussian-400x12-k16", X, 16, seed=3)

X = rng.standard_normal((1000, 10)).astype(np.float32) * np.linspace(0.5, 3, 10)
fixture("anisotropic-1000x10-k12-maxiter5", X, 12, seed=4, max_iter=5)
