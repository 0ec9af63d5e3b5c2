#!/usr/bin/env python3
"""Writes corpus-tempo-key.tsv: the tempo, key and mode `analyze` measured in every corpus song.

    python3 Benchmarks/audio/tempo_key.py ours.json > Benchmarks/audio/corpus-tempo-key.tsv

``ours.json`` is the output of ``vibes-analyze analyze --json CORPUS/files``. On stderr: the agreement
with Essentia (``reference-corpus.tsv``; octave-tolerant tempo within 4 %, key and mode equal to the
``edma`` profile's). The AudioAnalysis tests hold the table to the targets without the audio, and check
that songs still analyse to their rows when the corpus is built. Standard library only.
"""

import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PITCH = {"C": 0, "C#": 1, "Db": 1, "D": 2, "D#": 3, "Eb": 3, "E": 4, "F": 5, "F#": 6, "Gb": 6, "G": 7,
         "G#": 8, "Ab": 8, "A": 9, "A#": 10, "Bb": 10, "B": 11}


def tempo_agrees(value, reference):
    return value is not None and any(abs(value - reference * f) <= 0.04 * reference * f for f in (1, 2, 0.5))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(64)
    with open(os.path.join(HERE, "reference-corpus.tsv"), encoding="utf-8") as f:
        reference = {r["file"]: r for r in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t")}
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    items = {os.path.basename(i["path"]): i for i in (data["files"] if isinstance(data, dict) else data)}
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    print("# What `vibes-analyze analyze` measured in the corpus songs; written by Benchmarks/audio/tempo_key.py.")
    out.writerow(["file", "tempo", "key", "mode"])
    tempos = keys = 0
    for name in sorted(reference):
        item = items.get(name) or {}
        tempo, key, mode = item.get("tempo"), item.get("key"), item.get("mode")
        out.writerow([name, "" if tempo is None else f"{tempo:.3f}", "" if key is None else key,
                      "" if mode is None else mode])
        ref = reference[name]
        tempos += tempo_agrees(tempo, float(ref["essentia_bpm"]))
        keys += (key, mode) == (PITCH[ref["edma_key"]], 1 if ref["edma_scale"] == "major" else 0)
    n = len(reference)
    print(f"tempo {tempos}/{n} ({100 * tempos / n:.1f} %), key and mode {keys}/{n} ({100 * keys / n:.1f} %)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
