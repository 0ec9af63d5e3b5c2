#!/usr/bin/env python3
"""Generate an N-track audio-feature library CSV for the whole-command benchmarks (issue 20).

    python3 Benchmarks/compare/make_library.py ROWS OUT.csv [--source CSV] [--seed 42]

    python3 Benchmarks/compare/make_library.py 1000000 /tmp/features-1000000.csv   # about 243 MB

It resamples the rows of a tidytuesday-shaped CSV (default: ../shared/data/tidytuesday-2020-01-21/
spotify_songs.csv relative to the repository, else the bundled samples/tidytuesday-sample.csv) by
cycling through them in file order, and gives every output row a fresh 22-character base-62 track
ID drawn from random.Random(SEED). Everything else in a row is copied unchanged, so the same song
appears about ROWS / source-rows times under different IDs (at 1M rows, about 30 times), which
exercises de-duplication in `recommend`. The first 28-32k output rows are the source itself in
order under new IDs.

The output is deterministic for a given source, ROWS and seed, and byte-identical to what the
inline generator that Benchmarks/import/compare_import.sh used to carry produced (same RNG
sequence, same CSV dialect). Memory stays bounded whatever ROWS and the source size are: the source
is re-read as a stream on every pass and rows are written as they are made. Pure standard library.
"""
import argparse
import csv
import os
import random
import string
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_SOURCES = (
    os.path.join(REPO, "..", "shared", "data", "tidytuesday-2020-01-21", "spotify_songs.csv"),
    os.path.join(REPO, "samples", "tidytuesday-sample.csv"),
)
ALPHABET = string.ascii_letters + string.digits  # base 62
ID_LENGTH = 22


def default_source():
    for path in DEFAULT_SOURCES:
        if os.path.isfile(path):
            return os.path.normpath(path)
    sys.exit("make_library.py: no source CSV found; pass --source")


def generate(rows, target, source, seed):
    """Writes `rows` data rows (plus the header) to `target`; returns the source's data-row count."""
    rng = random.Random(seed)
    with open(source, encoding="utf-8", newline="") as f:
        header = next(csv.reader(f))
    if "track_id" not in header:
        sys.exit(f"make_library.py: {source} has no track_id column")
    id_column = header.index("track_id")
    tmp = target + ".partial"
    written = 0
    source_rows = None
    with open(tmp, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        while written < rows:
            in_pass = 0
            with open(source, encoding="utf-8", newline="") as f:
                reader = csv.reader(f)
                next(reader)
                for row in reader:
                    if written == rows:
                        break
                    row[id_column] = "".join(rng.choices(ALPHABET, k=ID_LENGTH))
                    writer.writerow(row)
                    written += 1
                    in_pass += 1
                else:
                    if source_rows is None:
                        source_rows = in_pass
            if in_pass == 0:
                sys.exit(f"make_library.py: {source} has no data rows")
    os.replace(tmp, target)  # a killed run never leaves a short file under the final name
    return source_rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=lambda s: int(float(s)), help="data rows to write (1e6 works)")
    parser.add_argument("out", help="the CSV to write")
    parser.add_argument("--source", help="the CSV whose rows are resampled (default: tidytuesday, else the sample)")
    parser.add_argument("--seed", type=int, default=42, help="seed of the track IDs (default 42)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    if args.rows < 1:
        parser.error("ROWS must be at least 1")
    source = args.source or default_source()
    source_rows = generate(args.rows, args.out, source, args.seed)
    if not args.quiet:
        per_pass = f", {source_rows:,} source rows per pass" if source_rows else ""
        print(f"{args.out}: {args.rows:,} rows from {source}{per_pass}, seed {args.seed}, "
              f"{os.path.getsize(args.out) / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
