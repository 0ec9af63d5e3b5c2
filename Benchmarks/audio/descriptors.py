#!/usr/bin/env python3
"""How well `analyze`'s estimated descriptors agree with what the corpus songs are.

The corpus has no per-song values of energy, danceability, valence or acousticness. Three checks
stand in for them, all from facts about the songs rather than from any analyser:

- **Style orderings** (issue 42's target): for the songs of ``corpus-styles.tsv``, every pair of
  songs whose styles imply an order must be in that order (louder, denser styles above calm ones in
  energy; acoustic instruments above electric and electronic ones in acousticness; steady-beat dance
  styles above free-time ones in danceability). Printed: the share of pairs in order, per feature.
- **No acoustic techno or metal:** the techno-metal songs must be at most 0.3 in acousticness.
- **Instrumental, no speech:** the corpus README says no song has vocals or speech, so Spotify's
  reading would put instrumentalness above 0.5 and speechiness below 0.33 for every song.
- **Mean absolute error against the style's typical Spotify values:** each style's median of
  Spotify's own values over a matching playlist genre of the 2024 Spotify dataset
  (``../shared/data``, named in ``STYLE_REFERENCE``). A coarse reference: it says what music of the
  style typically measures, not what this song does.

Usage:
    python3 Benchmarks/audio/descriptors.py ours.json [before.json]

where each JSON is the output of ``vibes-analyze analyze --json CORPUS/files``. With two, both
are reported side by side (after, then before). Standard library only.
"""

import csv
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FEATURES = ["energy", "danceability", "valence", "acousticness", "instrumentalness", "speechiness"]

# (higher styles, lower styles) per feature.
ORDERINGS = {
    "energy": [
        ({"techno-metal"}, {"orchestral", "ambient-electronic", "blues"}),
        ({"pop", "chiptune", "electronic"}, {"ambient-electronic"}),
    ],
    "acousticness": [
        ({"orchestral", "blues"}, {"techno-metal", "ambient-electronic", "chiptune", "pop", "electronic"}),
    ],
    "danceability": [
        ({"chiptune", "pop", "electronic"}, {"orchestral", "ambient-electronic"}),
    ],
}

# Median of Spotify's values (energy, danceability, valence, acousticness) over the tracks of the
# named playlist genres of spotify-music-dataset-2024 (high and low popularity files together).
STYLE_REFERENCE = {
    "orchestral": ("classical", (0.10, 0.23, 0.07, 0.96)),
    "techno-metal": ("electronic + metal", (0.71, 0.62, 0.35, 0.12)),
    "ambient-electronic": ("classical + wellness + lofi", (0.20, 0.55, 0.18, 0.90)),
    "chiptune": ("gaming", (0.64, 0.65, 0.38, 0.12)),
    "pop": ("pop", (0.70, 0.66, 0.56, 0.10)),
    "electronic": ("electronic", (0.69, 0.64, 0.35, 0.15)),
    "blues": ("blues", (0.49, 0.62, 0.40, 0.33)),
}


def read_styles():
    with open(os.path.join(HERE, "corpus-styles.tsv"), encoding="utf-8") as f:
        rows = csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")
        return {row["file"]: row["style"] for row in rows}


def read_run(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    files = data["files"] if isinstance(data, dict) else data
    return {os.path.basename(item["path"]): item for item in files if item.get("error") is None}


def report(run, styles):
    lines = {}
    for feature, orders in ORDERINGS.items():
        held = total = 0
        misses = []
        for higher, lower in orders:
            tops = [name for name, style in styles.items() if style in higher and name in run]
            bottoms = [name for name, style in styles.items() if style in lower and name in run]
            for top, bottom in itertools.product(tops, bottoms):
                total += 1
                if run[top][feature] > run[bottom][feature]:
                    held += 1
                else:
                    misses.append(f"{top}<{bottom}")
        lines[f"ordering {feature}"] = (held / total if total else float("nan"), f"{held}/{total}", misses)
    heavy = [name for name, style in styles.items() if style == "techno-metal" and name in run]
    acoustic = [run[name]["acousticness"] for name in heavy]
    over = [name for name in heavy if run[name]["acousticness"] > 0.3]
    lines["techno-metal acousticness <= 0.3"] = (
        1 - len(over) / len(heavy), f"max {max(acoustic):.2f}", over)
    names = sorted(run)
    instrumental = [name for name in names if run[name]["instrumentalness"] > 0.5]
    lines["instrumentalness > 0.5 (all instrumental)"] = (
        len(instrumental) / len(names), f"{len(instrumental)}/{len(names)}",
        [name for name in names if name not in instrumental])
    music = [name for name in names if run[name]["speechiness"] < 0.33]
    lines["speechiness < 0.33 (no speech)"] = (
        len(music) / len(names), f"{len(music)}/{len(names)}", [name for name in names if name not in music])
    for index, feature in enumerate(["energy", "danceability", "valence", "acousticness"]):
        errors = [abs(run[name][feature] - STYLE_REFERENCE[style][1][index])
                  for name, style in styles.items() if name in run]
        lines[f"MAE {feature} vs style's Spotify median"] = (sum(errors) / len(errors), f"n={len(errors)}", [])
    return lines


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        sys.exit(64)
    styles = read_styles()
    runs = [read_run(path) for path in sys.argv[1:]]
    reports = [report(run, styles) for run in runs]
    header = "| check | after | " + ("before |" if len(runs) == 2 else "")
    print(header)
    print("|---|---|" + ("---|" if len(runs) == 2 else ""))
    for key in reports[0]:
        cells = [f"{r[key][0]:.2f} ({r[key][1]})" for r in reports]
        print(f"| {key} | " + " | ".join(cells) + " |")
    print()
    for key, (_, _, misses) in reports[0].items():
        if misses:
            print(f"{key}: not held for {', '.join(misses[:12])}{' …' if len(misses) > 12 else ''}")
    print()
    print("| file | style | " + " | ".join(FEATURES) + " | top tags |")
    print("|---|---|" + "---|" * (len(FEATURES) + 1))
    for name in sorted(runs[0]):
        item = runs[0][name]
        heard = ((item.get("details") or {}).get("audio_tags") or {}).get("probabilities") or {}
        top = sorted(heard.items(), key=lambda pair: -pair[1])[:3]
        values = []
        for feature in FEATURES:
            cell = f"{item[feature]:.2f}"
            if len(runs) == 2 and name in runs[1]:
                cell += f" ({runs[1][name][feature]:.2f})"
            values.append(cell)
        print(f"| {name} | {styles.get(name, '')} | " + " | ".join(values) + " | "
              + ", ".join(f"{tag} {p:.2f}" for tag, p in top) + " |")


if __name__ == "__main__":
    main()
