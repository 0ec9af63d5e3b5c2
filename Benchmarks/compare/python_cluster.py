#!/usr/bin/env python3
"""The plain Python k-means pipeline that `vibes-analyze cluster` is compared with (issue 20).

    Benchmarks/.venv/bin/python Benchmarks/compare/python_cluster.py DB [--table auto] \
        [--features danceability,energy,...] [--weight mode=0.5] [--k 16] [--n-init 1] \
        [--max-iter 20] [--seed 1] [--labels-table python_labels]

What a data scientist would write, timed as a whole process by compare_commands.py (interpreter
start and imports included): one sqlite3 query for the feature columns → numpy float32 → z-scores
(a constant column is left at 0) → weights (mode × 0.5 by default, as `cluster` does) →
sklearn.cluster.KMeans(n_clusters=K, n_init=N, max_iter=M, algorithm="lloyd", tol=0,
random_state=SEED) → the labels written back into a fresh table in one transaction. Rows with a
missing feature, or a tempo of 0 (which `vibes-analyze` treats as "not measured"), are left out, as
`cluster` leaves them out.

--table auto reads, in this order of preference: `features` (the typed copy compare_commands.py
makes), `songs` (a plain `sqlite3 .import` table, whose TEXT cells are CAST to REAL in SQL, with ''
and 'NA' read as missing), or `audio_features` (a vibes-analyze store, one row per track assumed).
It prints one summary line and its phase times (read, scale, kmeans, save) to stdout.
Needs numpy and scikit-learn (Benchmarks/requirements.txt).
"""
import argparse
import sqlite3
import sys
import time

T0 = time.perf_counter()

import numpy as np  # noqa: E402  (timed: imports are part of what the user waits for)
from sklearn.cluster import KMeans  # noqa: E402

DEFAULT_FEATURES = ("danceability,energy,valence,acousticness,instrumentalness,speechiness,"
                    "liveness,loudness,tempo,mode")


def table_names(db):
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def choose_table(db, requested):
    names = table_names(db)
    if requested != "auto":
        if requested not in names:
            sys.exit(f"python_cluster.py: no table {requested!r} (tables: {', '.join(sorted(names))})")
        return requested
    for name in ("features", "songs", "audio_features"):
        if name in names:
            return name
    sys.exit(f"python_cluster.py: none of features, songs, audio_features in the database")


def read_matrix(db, table, features):
    """Returns (keys as int64, X as float32 N×d), NULL / '' / 'NA' as NaN."""
    if table == "audio_features":
        key = "track_id"
    else:
        key = "rowid"
    columns = ", ".join(f"CAST(NULLIF(NULLIF({c}, ''), 'NA') AS REAL)" for c in features)
    rows = db.execute(f"SELECT {key}, {columns} FROM {table}").fetchall()
    if not rows:
        return np.empty(0, dtype=np.int64), np.empty((0, len(features)), dtype=np.float32)
    data = np.array(rows, dtype=np.float64)  # None becomes NaN
    del rows
    return data[:, 0].astype(np.int64), data[:, 1:].astype(np.float32)


def main():
    parser = argparse.ArgumentParser(description="sqlite3 → numpy → z-score → scikit-learn KMeans → labels back into SQLite")
    parser.add_argument("db")
    parser.add_argument("--table", default="auto")
    parser.add_argument("--features", default=DEFAULT_FEATURES, help="comma-separated columns (default: cluster's)")
    parser.add_argument("--weight", action="append", default=None, metavar="FEATURE=W",
                        help="a weight applied after scaling; repeatable (default: mode=0.5)")
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--n-init", type=int, default=1)
    parser.add_argument("--max-iter", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--labels-table", default="python_labels")
    args = parser.parse_args()
    features = [c.strip() for c in args.features.split(",") if c.strip()]
    weights = {}
    for item in args.weight if args.weight is not None else ["mode=0.5"]:
        name, _, value = item.partition("=")
        weights[name.strip()] = float(value)

    phases = {"start+imports": time.perf_counter() - T0}
    t = time.perf_counter()
    db = sqlite3.connect(args.db)
    table = choose_table(db, args.table)
    keys, X = read_matrix(db, table, features)
    phases["read"] = time.perf_counter() - t

    t = time.perf_counter()
    keep = ~np.isnan(X).any(axis=1)
    if "tempo" in features:
        keep &= X[:, features.index("tempo")] > 0
    keys, X = keys[keep], np.ascontiguousarray(X[keep])
    left_out = int((~keep).sum())
    mean = X.mean(axis=0, dtype=np.float64)
    std = X.std(axis=0, dtype=np.float64)
    std[std == 0] = 1.0
    X -= mean.astype(np.float32)
    X /= std.astype(np.float32)
    for name, w in weights.items():
        if name in features:
            X[:, features.index(name)] *= np.float32(w)
    phases["scale"] = time.perf_counter() - t

    t = time.perf_counter()
    model = KMeans(n_clusters=args.k, n_init=args.n_init, max_iter=args.max_iter, algorithm="lloyd",
                   tol=0, random_state=args.seed)
    labels = model.fit_predict(X)
    phases["kmeans"] = time.perf_counter() - t

    t = time.perf_counter()
    with db:  # one transaction
        db.execute(f"DROP TABLE IF EXISTS {args.labels_table}")
        db.execute(f"CREATE TABLE {args.labels_table} (track INTEGER PRIMARY KEY, label INTEGER NOT NULL)")
        db.executemany(f"INSERT INTO {args.labels_table} (track, label) VALUES (?, ?)",
                       zip(keys.tolist(), labels.tolist()))
    db.close()
    phases["save"] = time.perf_counter() - t

    print(f"python pipeline: {len(keys)} rows from {table} ({left_out} left out for missing features), "
          f"d={len(features)}, k={args.k}, {model.n_iter_} iterations, inertia {model.inertia_:.1f}")
    print("phases: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in phases.items()))


if __name__ == "__main__":
    main()
