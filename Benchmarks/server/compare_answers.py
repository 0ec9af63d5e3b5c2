#!/usr/bin/env python3
"""Checks that two builds of vibes-analyze answer recommendations alike, byte for byte.

    python3 Benchmarks/server/compare_answers.py --before OLD_BIN --after NEW_BIN --store STORE \
        --csv LIBRARY.csv [--seeds 300] [--cli 10]

Starts `serve` from both binaries on STORE and asks each for
`GET /v1/recommendations?seed_tracks=ID&limit=10` (and `limit=100` for every tenth seed) for
--seeds distinct seed tracks of the CSV spread over it (as bench_server.py picks them); then runs
`recommend --db STORE --seed ID -n 20 --json` from both for --cli of them, the elapsed time in the
notes left out. Any difference is printed and the exit status is 1. A performance change to the
recommender should keep every answer identical: this is how that was checked on a million tracks.
"""
import argparse
import json
import re
import subprocess
import sys

from bench_server import Connection, seeds_of, start_server


def server_answers(binary, store, paths):
    process, port, _ = start_server(binary, store)
    try:
        connection = Connection(port)
        return [connection.get(path) for path in paths]
    finally:
        process.terminate()
        process.wait(timeout=30)


def cli_answer(binary, store, seed):
    out = subprocess.run([binary, "recommend", "--db", store, "--seed", seed, "-n", "20", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return re.sub(r" \(\d+ ms\)", "", out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--seeds", type=int, default=300)
    parser.add_argument("--cli", type=int, default=10)
    args = parser.parse_args()
    seeds, _ = seeds_of(args.csv, args.seeds)
    paths = [f"/v1/recommendations?seed_tracks={seed}&limit={100 if i % 10 == 0 else 10}"
             for i, seed in enumerate(seeds)]
    before = server_answers(args.before, args.store, paths)
    after = server_answers(args.after, args.store, paths)
    differences = [path for path, a, b in zip(paths, before, after) if a != b]
    for path in differences[:5]:
        print(f"differs: {path}")
    step = max(1, len(seeds) // max(1, args.cli))
    cli_differences = [seed for seed in seeds[::step][:args.cli]
                       if cli_answer(args.before, args.store, seed) != cli_answer(args.after, args.store, seed)]
    for seed in cli_differences[:5]:
        print(f"recommend --seed {seed} --json differs")
    print(json.dumps({"server_answers": len(paths), "server_differences": len(differences),
                      "cli_answers": len(seeds[::step][:args.cli]), "cli_differences": len(cli_differences)}))
    sys.exit(1 if differences or cli_differences else 0)


if __name__ == "__main__":
    main()
