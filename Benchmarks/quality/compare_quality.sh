#!/usr/bin/env bash
# Recommendation, clustering and ordering quality against naive baselines on the real datasets of
# ../shared/data, each on the same queries in one run, with paired bootstrap 95 % confidence intervals.
#
#   Benchmarks/quality/compare_quality.sh [--bin PATH] [--data DIR]
#
# Each dataset is imported into a fresh store under $TMPDIR/vibes-quality, then `eval` runs on it:
# - tidytuesday 2020-01-21 (28,356 tracks): --label genre, --label subgenre, --label playlist (with
#   co-membership and personal weights graded on held-out playlists), `weights learn` (the learned
#   weights and their held-out before/after), and --ordering over its 471 playlists (flow against
#   best-start greedy nearest neighbour and a random order);
# - the Kaggle 2024 dataset (high and low popularity files): --label genre.
# On both, `cluster --k auto` prints the silhouette of every k from 4 to 12, the k it keeps and the
# vibes' names. Last, the vibe-name test (Tests/VibesAnalyzeTests/VibeNamesSharedDataTests.swift)
# names the real playlists chosen by their names (calm, lo-fi and classical; party and workout; sad)
# and prints how many get a fitting mood word, against naming by the library alone.
# The similarity graded never sees the label it is graded on (`eval` refuses a label that leaks).
# The binary defaults to .build/release/vibes-analyze (`make build`). The whole report goes to stdout
# and to Benchmarks/results/quality.txt.
set -euo pipefail
HERE_FROM=$PWD
cd "$(dirname "$0")/../.."
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$HERE_FROM/$1" ;; esac; }
usage() { echo "usage: $(sed -n '5p' "$0" | sed 's/^# *//')" >&2; exit 64; }
BIN=.build/release/vibes-analyze
DATA=../shared/data
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) [ $# -ge 2 ] || usage; BIN=$(absolute "$2"); shift 2 ;;
        --data) [ $# -ge 2 ] || usage; DATA=$(absolute "$2"); shift 2 ;;
        -h|--help) usage ;;
        *) echo "unknown argument: $1" >&2; usage ;;
    esac
done
[ -x "$BIN" ] || { echo "no binary at $BIN: run \`make build\` first, or give --bin" >&2; exit 1; }
TIDY=$DATA/tidytuesday-2020-01-21/spotify_songs.csv
KAGGLE=$DATA/spotify-music-dataset-2024
[ -f "$TIDY" ] || { echo "$TIDY is missing: the quality comparison needs ../shared/data" >&2; exit 1; }
WORK=${TMPDIR:-/tmp}/vibes-quality
RESULT=Benchmarks/results/quality.txt
rm -rf "$WORK" && mkdir -p "$WORK"

run() {
    echo "\$ vibes-analyze $*"
    "$BIN" "$@"
    echo
}
{
    echo "# Quality against naive baselines"
    echo "# $(uname -m), $(nproc) cores; binary $(basename "$BIN") $("$BIN" --version)"
    echo
    echo "## tidytuesday 2020-01-21"
    "$BIN" import --quiet --db "$WORK/tidy.sqlite" "$TIDY" >/dev/null
    run eval --db "$WORK/tidy.sqlite" --label genre
    run eval --db "$WORK/tidy.sqlite" --label subgenre --clusters 0
    run eval --db "$WORK/tidy.sqlite" --label playlist --clusters 0 --quiet
    run weights learn --db "$WORK/tidy.sqlite" --quiet
    run eval --db "$WORK/tidy.sqlite" --ordering
    run cluster --db "$WORK/tidy.sqlite" --k auto --quiet --examples 1
    echo "## Kaggle 2024 (high and low popularity)"
    "$BIN" import --quiet --db "$WORK/kaggle.sqlite" "$KAGGLE/high_popularity_spotify_data.csv" \
        "$KAGGLE/low_popularity_spotify_data.csv" >/dev/null
    run eval --db "$WORK/kaggle.sqlite" --label genre
    run cluster --db "$WORK/kaggle.sqlite" --k auto --quiet --examples 1
    echo "## Vibe names on real playlists"
    echo "\$ swift test --filter VibeNamesSharedDataTests"
    VIBES_SHARED_DATA="$DATA" swift test --filter VibeNamesSharedDataTests 2>&1 \
        | grep -E "playlists carry|^(fits|MISS) " || echo "(the vibe-name test did not run)"
} | tee "$RESULT"
