#!/usr/bin/env python3
"""Writes docs/json.md: the --json shape of every command that reads the library, with an example
from the bundled sample. Each array in an example is cut to its first two items (and any later item
with keys those lack); the shape test
(Tests/VibesAnalyzeTests/JSONShapeTests.swift) runs the same commands and checks that the keys and
value types match the document.

    scripts/json-docs.py [--bin PATH]   (default .build/debug/vibes-analyze)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (arguments after `vibes-analyze`, what the object holds). The shape test reads this list back
# from the document, so the commands run in this order on a store holding the bundled sample.
COMMANDS = [
    ("import samples/tidytuesday-sample.csv --json", "What each file added: its format, rows, tracks and features written, and rejections; and what became of the library's snapshots (`snapshots`): `prepared` (built, so the next command starts fast), `deferred` (left to the next command, which builds them once: a library of millions of tracks, past the import's 300 MB memory budget), or `unchanged` (no file changed the library)."),
    ("analyze Sources/VibesTestSupport/Fixtures/audio/clip.flac --json", "Each file analysed: its track, features with provenance and confidence, or why it failed. `confidence.tempo` is the share of beat-to-beat tempos near `tempo`, from the beats the tempo is read from (Essentia's Degara tracker, ported); `details.descriptors.tempo_confidence` is aubio's beat tracker's own confidence, one of the measured signals the estimated features are made from."),
    ("library --json", "Counts, feature coverage per feature and source, import runs and top tags."),
    ("features status --json", "Feature coverage per source and per playlist, and what is missing and why."),
    ("features precedence --json", "Which source wins when a track has features from several."),
    ("cluster --k 4 --seed 42 --json", "The saved run (`run.cluster_count`, its scores, settings and fitted scaling; the same keys as the store's `clustering_runs` columns) and its vibes."),
    ("vibes --json", "The same shape as `cluster`, for a saved run."),
    ("vibes --list --json", "Every saved run, newest first, with when it was made, how long each phase took, and its `scope` (`library`, or `playlist:NAME` for `cluster --playlist NAME`)."),
    ("recommend --mood chill -n 3 --json", "The tracks, best first, with similarity, score and the features that differ most."),
    ("playlist build --mood chill -n 3 --json", "The playlist: name, description, transition score and its tracks with features."),
    ("eval --sample 200 --resamples 100 --clusters 0 --json", "Precision@k against naive baselines with paired bootstrap intervals."),
    ("weights show --json", "The similarity weights in use: a factor per audio feature, the artist context, tags and co-membership; personal or default."),
    ("eval --ordering --resamples 100 --json", "Playlist order: flow against greedy and random, per playlist and on average."),
    ("bench --n 2000 --k 2 --threads 1 --repeats 1 --json", "Timings of every configuration, with the machine's measured bandwidth and peak."),
    ("playlist build --mood chill -n 5 --name Chill --save --json", "The same shape as `playlist build`; `--save` keeps the playlist in the library, where `playlists` lists it."),
    ("playlists --json", "Every playlist by name: its tracks, how many have audio features, and its tracks per vibe of the current run (`run_id`; `vibes[].number` is the number `vibes` shows), most first."),
    ("playlists show chill --json", "One playlist (named by the start of its name here): the same summary, the mean of each audio feature over its tracks, and its tracks in order with their vibe numbers."),
]


def paths(value, prefix=""):
    """The key paths under a value, as the shape test sees them."""
    if isinstance(value, list):
        return set().union(*[paths(v, prefix + "[]") for v in value]) if value else {prefix + "[]"}
    if isinstance(value, dict):
        return set().union({prefix}, *[paths(v, prefix + "." + k) for k, v in value.items()])
    return {prefix}


def cut(value):
    """Cuts each array to its first two items, plus any later item with keys those do not show."""
    if isinstance(value, list):
        kept, seen = [], set()
        for index, item in enumerate(value):
            item_paths = paths(item)
            if index < 2 or not item_paths <= seen:
                kept.append(item)
                seen |= item_paths
        return [cut(v) for v in kept]
    if isinstance(value, dict):
        return {k: cut(v) for k, v in value.items()}
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/debug/vibes-analyze"))
    args = parser.parse_args()
    out = ["# JSON output", "",
           "Every command takes `--json` and then prints one JSON object on standard output, in one style:",
           "",
           "- keys in snake_case, sorted; the same concept has one name everywhere (`spotify_id` for a",
           "  Spotify track ID, `track_id` for the library's own ID, `cluster_count` for a number of clusters,",
           "  as in the store's columns);",
           "- numbers with a fraction have at most 6 significant digits;",
           "- `schema_version` (now 2) changes when a key is renamed or removed (2: a clustering run's keys became the",
           "  store's column names, `cluster_count` instead of `k`);",
           "- a failure prints `{\"error\": {\"code\": 1, \"message\": \"…\"}, \"schema_version\": 2}` on",
           "  standard output (the same message goes to standard error), with the exit status as `code`:",
           "  1 for a failure, 64 for a mistake on the command line.",
           "",
           "`playlist build --export json` writes the playlist in the shape shown below, and `report",
           "--format json` writes the mood report (documented in the Analytics library's Reports article).",
           "The Spotify commands follow at the end, from a fake Spotify account.",
           "",
           "The examples come from the bundled sample (`scripts/json-docs.py` writes this file); arrays are",
           "cut to two items (and any later item with keys the two lack). A test runs every command below and checks that its keys and value types are",
           "the ones shown.",
           ""]
    with tempfile.TemporaryDirectory() as folder:
        db = os.path.join(folder, "library.sqlite")
        for arguments, description in COMMANDS:
            words = arguments.split(" ")
            result = subprocess.run([args.bin] + words + ["--db", db], cwd=ROOT, capture_output=True, text=True)
            if result.returncode != 0:
                sys.exit(f"{arguments}: exit {result.returncode}: {result.stderr}")
            value = json.loads(result.stdout)
            out += [f"## `vibes-analyze {arguments}`", "", description, "", "```json",
                    json.dumps(cut(value), indent=2, sort_keys=True, ensure_ascii=False), "```", ""]
    # The Spotify part is written by the test that runs those commands against the fake Spotify
    # (VIBES_WRITE_JSON_DOCS=1 swift test --filter SpotifyJSONShapeTests); keep it.
    marker = "<!-- The Spotify commands: written by SpotifyJSONShapeTests with VIBES_WRITE_JSON_DOCS=1. -->"
    path = os.path.join(ROOT, "docs/json.md")
    tail = ""
    if os.path.exists(path):
        with open(path) as file:
            existing = file.read()
        if marker in existing:
            tail = marker + existing.split(marker, 1)[1]
    with open(path, "w") as file:
        file.write("\n".join(out) + ("\n" + tail if tail else "\n" + marker + "\n"))


if __name__ == "__main__":
    main()
