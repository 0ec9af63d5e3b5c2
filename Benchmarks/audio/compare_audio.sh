#!/usr/bin/env bash
# Agreement and speed of `vibes-analyze analyze` on the audio corpus, against Essentia and librosa,
# with Essentia's speed measured side by side in the same run.
#
#   Benchmarks/audio/compare_audio.sh [CORPUS_DIR] [--bin PATH] [--no-essentia]
#
# CORPUS_DIR (default out/audio-corpus) is built with ../shared/audio-corpus/make_corpus.sh when its
# files are missing (set MAKE_CORPUS to use another copy of the script); the downloaded .debs are
# deleted afterwards. The reference values come from Benchmarks/audio/reference-corpus.tsv when it
# covers every file (same name and size); otherwise reference.py fills in the rest in
# CORPUS_DIR/reference.tsv, from a venv (VENV, default out/venv-audio-ref, made when missing). The
# venv is also needed to time Essentia, which --no-essentia skips (the speed ratio then comes from the
# per-song times cached in the TSV). The binary (default .build/release/vibes-analyze, from
# `make build`) analyses CORPUS_DIR/files on 2 tasks with a fresh database, under /usr/bin/time -v.
# The whole report goes to stdout and to Benchmarks/results/audio-analysis.txt.
set -euo pipefail
HERE_FROM=$PWD  # paths given on the command line are relative to where the script was started
cd "$(dirname "$0")/../.."
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$HERE_FROM/$1" ;; esac; }

usage() { echo "usage: $(sed -n '5p' "$0" | sed 's/^# *//')" >&2; exit 64; }
CORPUS=out/audio-corpus
BIN=.build/release/vibes-analyze
ESSENTIA=1
JOBS=2
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) [ $# -ge 2 ] || usage; BIN=$(absolute "$2"); shift 2 ;;
        --bin=*) BIN=$(absolute "${1#--bin=}"); shift ;;
        --no-essentia) ESSENTIA=0; shift ;;
        -h|--help) usage ;;
        -*) echo "unknown option: $1" >&2; usage ;;
        *) CORPUS=$(absolute "$1"); shift ;;
    esac
done
MAKE_CORPUS=${MAKE_CORPUS:-../shared/audio-corpus/make_corpus.sh}
VENV=${VENV:-out/venv-audio-ref}
CACHED=Benchmarks/audio/reference-corpus.tsv
RESULT=Benchmarks/results/audio-analysis.txt
HERE=Benchmarks/audio

if [ ! -x "$BIN" ]; then
    echo "No binary at $BIN: run \`make build\` first, or pass --bin PATH." >&2
    exit 1
fi

# 1. The corpus, rebuilt only when files are missing.
corpus_size() { ls "$CORPUS/files" 2>/dev/null | wc -l; }
expected=57
[ -f "$(dirname "$MAKE_CORPUS")/corpus.tsv" ] && expected=$(($(wc -l < "$(dirname "$MAKE_CORPUS")/corpus.tsv") - 1))
if [ "$(corpus_size)" -lt "$expected" ]; then
    if [ ! -f "$MAKE_CORPUS" ]; then
        echo "The corpus is missing and $MAKE_CORPUS was not found (set MAKE_CORPUS)." >&2
        exit 1
    fi
    echo "Building the audio corpus in $CORPUS (about 1 GB of downloads, 1 minute) ..." >&2
    sh "$MAKE_CORPUS" "$CORPUS" >&2
    rm -rf "$CORPUS/debs"
fi
CORPUS=$(cd "$CORPUS" && pwd)
FILES=$CORPUS/files

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vibes-audio-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# 2. The venv, only when something needs Essentia.
covered() {  # does the TSV $1 hold every file of the corpus, with the same size and no error?
    python3 - "$1" "$FILES" <<'PY'
import csv, os, sys
tsv, folder = sys.argv[1], sys.argv[2]
if not os.path.exists(tsv):
    sys.exit(1)
with open(tsv, encoding="utf-8", newline="") as f:
    rows = {r["file"]: r for r in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t")}
for name in os.listdir(folder):
    row = rows.get(name)
    if row is None or row.get("error") or row.get("bytes") != str(os.path.getsize(os.path.join(folder, name))):
        sys.exit(1)
PY
}
REFERENCE=$CACHED
need_reference=0
covered "$CACHED" || need_reference=1
if [ "$need_reference" = 1 ] || [ "$ESSENTIA" = 1 ]; then
    if [ ! -x "$VENV/bin/python" ]; then
        echo "Creating the reference venv in $VENV (Essentia, librosa) ..." >&2
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install -q -r "$HERE/requirements-reference.txt" >&2
    fi
fi
if [ "$need_reference" = 1 ]; then
    REFERENCE=$CORPUS/reference.tsv
    if [ ! -f "$REFERENCE" ] && [ -f "$CACHED" ]; then
        cp "$CACHED" "$REFERENCE"  # reference.py skips the rows it already has
    fi
    echo "Computing the reference for files $CACHED does not cover (log: $CORPUS/reference.log) ..." >&2
    "$VENV/bin/python" "$HERE/reference.py" "$FILES" "$REFERENCE" --jobs "$JOBS" > "$CORPUS/reference.log" 2>&1
fi

# 3. Both timed runs, after reading the files once so neither pays for a cold page cache.
cat "$FILES"/* > /dev/null
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$ESSENTIA" = 1 ]; then
    echo "Timing Essentia tempo+key+loudness on $JOBS processes ..." >&2
    "$VENV/bin/python" "$HERE/reference.py" --speed-only "$FILES" --jobs "$JOBS" \
        > "$WORK/essentia.json" 2> "$WORK/essentia.log"
fi
echo "Running $BIN analyze --json --jobs $JOBS ..." >&2
status=0
timed() {  # GNU time's -v report in $WORK/time.txt; without the `time` package, the same lines from Python
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v -o "$WORK/time.txt" "$@"
    else
        python3 - "$WORK/time.txt" "$@" <<'PY'
import resource, subprocess, sys, time
start = time.perf_counter()
status = subprocess.call(sys.argv[2:])
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write(f"\tUser time (seconds): {usage.ru_utime:.2f}\n\tSystem time (seconds): {usage.ru_stime:.2f}\n"
            f"\tElapsed (wall clock) time (h:mm:ss or m:ss): {int(wall // 60)}:{wall % 60:05.2f}\n"
            f"\tMaximum resident set size (kbytes): {usage.ru_maxrss}\n\tExit status: {status}\n")
sys.exit(status)
PY
    fi
}
timed "$BIN" analyze --timings --json --jobs "$JOBS" --db "$WORK/library.sqlite" "$FILES" \
    > "$WORK/ours.json" 2> "$WORK/ours.log" || status=$?
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$status" != 0 ]; then
    echo "note: analyze exited with status $status; its stderr ends with:" >&2
    tail -5 "$WORK/ours.log" >&2
fi
if ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/ours.json" 2>/dev/null; then
    echo "analyze did not print a JSON array; see its output above." >&2
    exit 1
fi

# 4. The report.
mkdir -p "$(dirname "$RESULT")"
{
    echo "command: Benchmarks/audio/compare_audio.sh $CORPUS --bin $BIN$([ "$ESSENTIA" = 1 ] || echo ' --no-essentia')"
    dirty=$(git diff --quiet HEAD -- Sources Package.swift || echo ' + uncommitted changes')
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD)$dirty"
    echo "binary: $BIN, built $(date -u -r "$BIN" '+%Y-%m-%d %H:%M UTC'); analyze exit status $status"
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
    echo "machine: $(nproc) CPUs, $cpu; load average $load_start at the start, $load_end at the end"
    echo "reference: $REFERENCE"
    if [ "$ESSENTIA" = 1 ]; then echo "essentia speed run: $(cat "$WORK/essentia.json")"; fi
    echo
    args=(--reference "$REFERENCE" --ours "$WORK/ours.json" --time "$WORK/time.txt" --jobs "$JOBS")
    if [ "$ESSENTIA" = 1 ]; then args+=(--essentia-speed "$WORK/essentia.json"); fi
    tagger=$(sed -n 's/^tagger: \([0-9.]*\) s .*/\1/p' "$WORK/ours.log" | tail -1)
    if [ -n "$tagger" ]; then args+=(--tagger-cpu "$tagger"); fi
    python3 "$HERE/compare.py" "${args[@]}"
} | tee "$RESULT"
echo "Written to $RESULT" >&2
