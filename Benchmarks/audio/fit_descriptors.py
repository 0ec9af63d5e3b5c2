#!/usr/bin/env python3
"""Chooses how the estimates mix the tagger's tags with the signals, by cross-validation on the corpus.

    python3 Benchmarks/audio/fit_descriptors.py ours.json

``ours.json`` is ``vibes-analyze analyze --json CORPUS/files``, whose details hold everything the
estimates are made from (descriptors, tempo, mode, key confidence, the 50 tag probabilities). This
script re-implements ``FeatureEstimator`` (the signals' estimates and ``estimate(heard:signals:)``,
profiles read from ``TagProfile.swift``) with the mixing of each feature as parameters: the power
the tag probabilities are raised to, the weight of the tags' evidence and the weight of the signals'
log-odds. For energy, acousticness and danceability, the styles' orderings of ``descriptors.py``
grade each mixing of a grid. Leave one song out: for each of the 23 songs of known style, the best
mixing on the pairs without that song (ties go to the mixing in use) is graded on the pairs with it,
so no song's figure comes from a mixing chosen on it. Printed per feature: the held-out share of
pairs in order, and how often each mixing was chosen. ``FeatureEstimator.mixing`` takes the mixing
most folds chose. Standard library only.
"""

import collections
import itertools
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import descriptors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
FEATURES = ["energy", "danceability", "valence", "acousticness"]
# The mixing in use before the fit: (power, tag weight, signal weight) per feature.
CURRENT = {"energy": (2.0, 1.0, 1.0), "danceability": (2.0, 1.0, 1.0), "acousticness": (2.0, 2.5, 1.0)}
NEUTRAL = {"energy": 0.55, "danceability": 0.62, "valence": 0.38, "acousticness": 0.35}
GRID = list(itertools.product([1.0, 2.0, 3.0], [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0], [0.25, 0.5, 1.0, 1.5]))


def read_profiles():
    path = os.path.join(ROOT, "Sources/AudioAnalysis/Analysis/TagProfile.swift")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    pattern = r'"([^"]+)": TagProfile\(([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+)\)'
    return {m.group(1): tuple(float(m.group(i)) for i in range(2, 6)) for m in re.finditer(pattern, text)}


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def logit(p):
    p = min(0.99, max(0.01, p))
    return math.log(p / (1 - p))


def signals(item):
    """FeatureEstimator.estimate(from:tempo:mode:keyConfidence:), the four features ordered here."""
    d = item["details"]["descriptors"]
    tempo, mode = item.get("tempo"), item.get("mode")
    key_confidence = item["confidence"].get("key", 0)
    loudness = -40 if d.get("integrated_loudness") is None else d["integrated_loudness"]
    high = math.log(max(d["high_frequency_share"], 1e-5) / 0.02)
    flatness = math.log(max(d["spectral_flatness"], 1e-5) / 0.05)
    spread = 8 if d.get("loudness_range") is None else d["loudness_range"]
    energy = sigmoid(0.28 * (loudness + 12) + 0.7 * high + 0.4 * flatness + 0.3 * (d["onset_rate"] - 3)
                     - 0.06 * (spread - 8))
    fit = math.exp(-math.log2(tempo / 120) ** 2 / (2 * 0.16)) if tempo else 0
    dance = min(1, max(0, 0.1 + 0.45 * d["beat_regularity"] + 0.25 * fit + 0.2 * min(1, d["tempo_confidence"] / 0.3)))
    sign = 0 if mode is None else (1.0 if mode == 1 else -1.0)
    tempo_term = (tempo - 110) / 40 if tempo else 0
    valence = sigmoid(0.8 * sign * key_confidence + 0.5 * tempo_term
                      + 0.5 * math.log(max(d["spectral_centroid"], 100) / 1800) + 1.5 * (energy - 0.5) - 0.2)
    acoustic = sigmoid(-(0.9 * high + 0.7 * flatness + 0.12 * (loudness + 14)) - 0.3)
    return {"energy": energy, "danceability": dance, "valence": valence, "acousticness": acoustic}


def estimate(item, feature, mixing, profiles):
    power, tags_weight, signals_weight = mixing
    tags = item["details"]["audio_tags"]["probabilities"]
    index = FEATURES.index(feature)
    weight = total = 0.0
    for tag, profile in profiles.items():
        w = tags.get(tag, 0) ** power
        weight += w
        total += w * profile[index]
    heard = total / weight
    return sigmoid(signals_weight * logit(signals(item)[feature]) + tags_weight * (logit(heard) - logit(NEUTRAL[feature])))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(64)
    profiles = read_profiles()
    styles = descriptors.read_styles()
    run = descriptors.read_run(sys.argv[1])
    names = sorted(name for name in styles if name in run)
    for feature in ["energy", "acousticness", "danceability"]:
        pairs = [(a, b) for higher, lower in descriptors.ORDERINGS[feature]
                 for a in names for b in names if styles[a] in higher and styles[b] in lower]
        values = {m: {n: estimate(run[n], feature, m, profiles) for n in names} for m in GRID}

        def held(mixing, keep):
            return sum(values[mixing][a] > values[mixing][b] for a, b in pairs if keep(a, b))

        in_order = total = 0
        chosen = collections.Counter()
        for song in names:
            best = max(GRID, key=lambda m: (held(m, lambda a, b: song not in (a, b)), m == CURRENT[feature]))
            chosen[best] += 1
            in_order += held(best, lambda a, b: song in (a, b))
            total += sum(song in pair for pair in pairs)
        before = held(CURRENT[feature], lambda a, b: True)
        print(f"{feature}: held out {in_order}/{total} = {in_order / total:.3f} "
              f"(the mixing in use: {before}/{len(pairs)} on all pairs); "
              f"chosen (power, tags, signals): {chosen.most_common(3)}")


if __name__ == "__main__":
    main()
