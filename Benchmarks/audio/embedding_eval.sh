#!/usr/bin/env bash
# What the tagger's embedding adds to "sounds like" on the audio corpus, graded by `eval` with the
# styles of corpus-styles.tsv as genre labels.
#
#   Benchmarks/audio/embedding_eval.sh [CORPUS_DIR] [--bin PATH] [-k K] [--store PATH]
#
# CORPUS_DIR (default out/audio-corpus) must hold the corpus's files (compare_audio.sh builds it).
# The binary (default .build/release/vibes-analyze) analyses CORPUS_DIR/files into a fresh store; the
# style of each song becomes its `genre` tag (written with sqlite3 from Python), and `eval --label
# genre` grades the tool's similarity, whose embedding block is "vibes-analyze ... + embedding",
# beside the same space without it ("(without the embedding)"), on the same queries, with the paired
# bootstrap 95 % interval of the difference. --store grades a copy of a store that already holds the
# corpus's analysis (by this version) instead of analysing again. The genre tags never reach the similarity graded: the
# tag block they join is left out for a genre label.
set -euo pipefail
HERE_FROM=$PWD
cd "$(dirname "$0")/../.."
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$HERE_FROM/$1" ;; esac; }
CORPUS=out/audio-corpus
BIN=.build/release/vibes-analyze
K=5
STORE=
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN=$(absolute "$2"); shift 2 ;;
        -k) K=$2; shift 2 ;;
        --store) STORE=$(absolute "$2"); shift 2 ;;
        -h|--help) sed -n '5p' "$0" | sed 's/^# *//'; exit 0 ;;
        *) CORPUS=$(absolute "$1"); shift ;;
    esac
done
FILES=$(cd "$CORPUS/files" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vibes-embedding-eval.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
DB=$WORK/library.sqlite

if [ -n "$STORE" ]; then
    cp "$STORE" "$DB"
else
    "$BIN" analyze --quiet --jobs 2 --db "$DB" "$FILES" > /dev/null
fi
python3 - "$DB" "$FILES" Benchmarks/audio/corpus-styles.tsv <<'PY'
import csv, sqlite3, sys
db, files, styles = sys.argv[1:]
with open(styles, encoding="utf-8") as f:
    rows = list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))
con = sqlite3.connect(db)
for row in rows:
    track = con.execute("SELECT track_id FROM local_files WHERE path = ?", (files + "/" + row["file"],)).fetchone()
    if track is None or track[0] is None:
        continue
    con.execute("INSERT OR IGNORE INTO tags (kind, value) VALUES ('genre', ?)", (row["style"],))
    tag = con.execute("SELECT id FROM tags WHERE kind = 'genre' AND value = ?", (row["style"],)).fetchone()[0]
    con.execute("INSERT OR IGNORE INTO sources (key) VALUES ('corpus-styles')")
    source = con.execute("SELECT id FROM sources WHERE key = 'corpus-styles'").fetchone()[0]
    con.execute("INSERT OR IGNORE INTO track_tags (track_id, tag_id, source_id) VALUES (?, ?, ?)",
                (track[0], tag, source))
con.commit()
PY
echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" eval --db "$DB" --label genre -k "$K" --clusters 0
