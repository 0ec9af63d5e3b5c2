#!/usr/bin/env python3
"""How far a learned ranker over per-candidate block similarities gets past the naive rule "same
artist first, then z-score cosine" on plain precision@10 (issue 41, item 3).

    python3 Benchmarks/quality/ranker_ceiling.py CSV[,CSV...] [--era] [--queries 3000] [--seed 0]

A hit shares a playlist with the seed (the playlist label). Each query's candidates are the 150
best tracks by the tool's own score (the hybrid cosine of the z-scored sound beside the artist
context at weight 2, plus the same-artist block) with the seed's artist's tracks lifted first, so
every method below ranks the same candidates. Per candidate, 16 features, all from the information
`eval --label playlist` lets the tool use (sound and who a track is by): z-score cosine, hybrid
cosine, same artist, artist-context cosine, same artist × cosine, ln(artist's track count) for the
same and for other artists, and |Δ| of each of the 9 z-scored features. A linear listwise (softmax)
ranker is fitted on QUERIES seed tracks and graded on QUERIES others, with a paired bootstrap 95 %
CI (1,000 resamples, seed 42) of its difference with the naive rule. With --era, three more
features (release-year proximity exp(-|Δyear| / 5), popularity proximity exp(-|Δpopularity| / 15),
same album), which the tool does not use today, and the naive rule given them too.

The query split is by track, not by playlist, which favours the ranker: read its figure as a
ceiling. numpy only; deterministic for a given seed.
"""
import argparse
import collections
import csv

import numpy as np

FEATURES = ["danceability", "energy", "loudness", "speechiness", "acousticness", "instrumentalness",
            "liveness", "valence", "tempo"]
CANDIDATES = 150


def load(paths):
    tracks, playlists = {}, collections.defaultdict(set)
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                row = {key.strip(): value for key, value in row.items()}
                try:
                    x = [float(row[name]) for name in FEATURES]
                except ValueError:
                    continue
                track = row["track_id"]
                if track not in tracks:
                    year = row["track_album_release_date"][:4]
                    tracks[track] = (x, row["track_artist"], row["track_album_id"],
                                     float(year) if year.isdigit() else np.nan,
                                     float(row["track_popularity"] or "nan"))
                playlists[track].add(row["playlist_id"])
    return tracks, playlists


def unit(v):
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norm > 0, norm, 1)


def bootstrap(a, b, resamples=1000):
    d = (a - b).astype(np.float64)
    means = d[np.random.default_rng(42).integers(0, len(d), (resamples, len(d)))].mean(1)
    return d.mean(), np.percentile(means, 2.5), np.percentile(means, 97.5)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("csv")
    parser.add_argument("--era", action="store_true")
    parser.add_argument("--queries", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tracks, playlists = load(args.csv.split(","))
    ids = list(tracks)
    n = len(ids)
    x = np.array([tracks[t][0] for t in ids])
    z = (x - x.mean(0)) / x.std(0)
    artist = np.unique([tracks[t][1] for t in ids], return_inverse=True)[1]
    album = np.unique([tracks[t][2] for t in ids], return_inverse=True)[1]

    def filled(values):
        values = np.array(values)
        return np.where(np.isnan(values), np.nanmean(values), values)

    year, popularity = filled([tracks[t][3] for t in ids]), filled([tracks[t][4] for t in ids])
    number = {}
    member = np.zeros((n, len({p for t in ids for p in playlists[t]})), dtype=np.float32)
    for row, track in enumerate(ids):
        for playlist in playlists[track]:
            member[row, number.setdefault(playlist, len(number))] = 1
    counts = np.bincount(artist)
    sums = np.zeros((counts.size, z.shape[1]))
    np.add.at(sums, artist, z)
    context = (sums[artist] - z) / counts[artist][:, None]
    zu, hybrid, cu = unit(z).astype(np.float32), unit(np.hstack([z, 2 * context])).astype(np.float32), unit(context)
    log_count = np.log(counts[artist])

    def features(q, c):
        same = (artist[q][:, None] == artist[c]).astype(np.float32)
        cosine = np.einsum("md,mcd->mc", zu[q], zu[c])
        columns = [cosine, np.einsum("md,mcd->mc", hybrid[q], hybrid[c]), same,
                   np.einsum("md,mcd->mc", cu[q], cu[c]), same * cosine, same * log_count[c],
                   (1 - same) * log_count[c]]
        delta = np.abs(z[q][:, None, :] - z[c])
        columns += [delta[:, :, i] for i in range(delta.shape[2])]
        if args.era:
            columns += [np.exp(-np.abs(year[q][:, None] - year[c]) / 5),
                        np.exp(-np.abs(popularity[q][:, None] - popularity[c]) / 15),
                        (album[q][:, None] == album[c]).astype(np.float32)]
        return np.stack(columns, -1)

    def build(queries):
        xs, ys, cs = [], [], []
        for start in range(0, len(queries), 500):
            q = queries[start:start + 500]
            score = hybrid[q] @ hybrid.T + 5.0 * (artist[q][:, None] == artist[None, :])
            score[np.arange(len(q)), q] = -np.inf
            c = np.argpartition(-score, CANDIDATES, axis=1)[:, :CANDIDATES]
            xs.append(features(q, c))
            ys.append(((member[q][:, None, :] * member[c]).sum(-1) > 0).astype(np.float64))
            cs.append(c)
        return np.concatenate(xs), np.concatenate(ys), np.concatenate(cs)

    order = np.random.default_rng(args.seed).permutation(n)
    train, test = order[:args.queries], order[args.queries:2 * args.queries]
    x_train, y_train, _ = build(train)
    x_test, y_test, c_test = build(test)
    flat = x_train.reshape(-1, x_train.shape[-1])
    mean, scale = flat.mean(0), flat.std(0) + 1e-6
    # Listwise softmax loss over each query's candidates, fitted by Adam.
    has_hit = y_train.sum(1) > 0
    xs, target = (x_train[has_hit] - mean) / scale, y_train[has_hit] / y_train[has_hit].sum(1, keepdims=True)
    w, m, v = np.zeros(xs.shape[-1]), np.zeros(xs.shape[-1]), np.zeros(xs.shape[-1])
    for step in range(1, 1501):
        s = xs @ w
        p = np.exp(s - s.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        g = np.einsum("mc,mcf->f", p - target, xs) / len(xs) + 1e-4 * w
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        w -= 0.05 * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)

    same_test = artist[test][:, None] == artist[c_test]

    def precision(score):
        plain = np.take_along_axis(y_test, np.argsort(-score, 1, kind="stable")[:, :10], 1).mean(1)
        other = np.where(same_test, -np.inf, score)
        beyond = np.take_along_axis(y_test, np.argsort(-other, 1, kind="stable")[:, :10], 1).mean(1)
        return plain, beyond

    f = x_test
    methods = {
        "naive: same artist first, then z-score cosine": precision(10 * f[:, :, 2] + f[:, :, 0]),
        "this tool (hybrid cosine + same artist)": precision(f[:, :, 1] + f[:, :, 2]),
        "learned ranker": precision(((f - mean) / scale) @ w),
    }
    if args.era:
        era = f[:, :, 16] + f[:, :, 17]
        methods["naive + era: same artist first, then z-score cosine + year + popularity"] = \
            precision(10 * f[:, :, 2] + f[:, :, 0] + era)
        methods["this tool + era"] = precision(f[:, :, 1] + f[:, :, 2] + era)
    naive = methods["naive: same artist first, then z-score cosine"]
    top = np.argsort(-(10 * f[:, :, 2] + f[:, :, 0]), 1, kind="stable")[:, :10]
    hits = np.take_along_axis(y_test, top, 1)
    by_artist = (np.take_along_axis(f[:, :, 2], top, 1) * hits).sum() / max(hits.sum(), 1)
    print(f"{n} tracks, {len(number)} playlists; {len(train)} training and {len(test)} graded seed tracks")
    print(f"the naive rule's hits by the seed's artist: {by_artist:.3f} of them")
    print("ranker weights (standardised features): " + " ".join(f"{value:+.2f}" for value in w))
    against = [("naive", naive)]
    if args.era:
        against.append(("naive + era", methods["naive + era: same artist first, then z-score cosine + year + popularity"]))
    for name, (plain, beyond) in methods.items():
        print(f"{name:76s} p@10 {plain.mean():.4f}  beyond the artist {beyond.mean():.4f}")
        if name.startswith("naive"):
            continue
        for label, (base_plain, base_beyond) in against:
            _, lo, hi = bootstrap(plain, base_plain)
            _, lo_beyond, hi_beyond = bootstrap(beyond, base_beyond)
            print(f"    vs {label}: {plain.mean() / base_plain.mean():.3f}× [{lo:+.4f}, {hi:+.4f}]"
                  f"  beyond {beyond.mean() / base_beyond.mean():.3f}× [{lo_beyond:+.4f}, {hi_beyond:+.4f}]")

if __name__ == "__main__":
    main()
