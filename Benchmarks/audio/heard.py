#!/usr/bin/env python3
"""Writes corpus-heard.tsv: what `analyze` heard and measured in the corpus songs of known style.

    python3 Benchmarks/audio/heard.py ours.json > Benchmarks/audio/corpus-heard.tsv

``ours.json`` is the output of ``vibes-analyze analyze --json CORPUS/files``. One row per song of
``corpus-styles.tsv``: its style, the measurements the estimates are made from (tempo, mode, key
confidence and the descriptors of ``details``) and the tagger's 50 probabilities. The AudioAnalysis
tests estimate the descriptors from these rows and hold them to the styles' orderings, without the
audio; the corpus test checks that a song still analyses to its row. Standard library only.
"""

import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DESCRIPTORS = ["integrated_loudness", "loudness_range", "tempo_confidence", "beat_regularity", "onset_rate",
               "spectral_centroid", "spectral_flatness", "high_frequency_share", "low_frequency_share",
               "syllabic_modulation", "key_correlation", "tuning_cents", "silent_share"]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(64)
    with open(os.path.join(HERE, "corpus-styles.tsv"), encoding="utf-8") as f:
        styles = {r["file"]: r["style"] for r in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t")}
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    items = {os.path.basename(i["path"]): i for i in (data["files"] if isinstance(data, dict) else data)
             if i.get("error") is None}
    tags = sorted(next(iter(items.values()))["details"]["audio_tags"]["probabilities"])
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    print("# What `vibes-analyze analyze` measured and heard in the corpus songs of corpus-styles.tsv; written by "
          "Benchmarks/audio/heard.py.")
    out.writerow(["file", "style", "tempo", "mode", "key_confidence"] + DESCRIPTORS + tags)
    for name in sorted(styles):
        item = items.get(name)
        if item is None:
            continue
        d = item["details"]["descriptors"]
        p = item["details"]["audio_tags"]["probabilities"]
        def cell(value):
            return "" if value is None else value
        out.writerow([name, styles[name], cell(item.get("tempo")), cell(item.get("mode")),
                      item["confidence"].get("key", 0)] + [cell(d.get(k)) for k in DESCRIPTORS] + [p[t] for t in tags])


if __name__ == "__main__":
    main()
