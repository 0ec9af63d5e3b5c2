#!/usr/bin/env python3
"""Agreement and speed of `vibes-analyze analyze` against the Essentia and librosa references.

Inputs are the reference TSV written by ``reference.py`` and the JSON array printed by
``vibes-analyze analyze --json FOLDER``, matched by file name. Prints Markdown: one row per song, then
tempo, key, loudness and speed tables and the targets with PASS or MISS beside each.

- **Tempo:** within 4 % of the reference (strict); octave-tolerant also accepts x2 and x1/2 of it. The
  3:2 relations (x3/2, x2/3) are counted separately and are not in the octave-tolerant figure. Against
  Essentia and against librosa, with Essentia vs librosa for context.
- **Key:** exact key and mode against Essentia's ``edma`` profile; the misses are split into relative
  (C major / A minor), fifth (dominant or subdominant, same mode), parallel (C major / C minor) and other.
  Exact agreement with ``bgate``, ``temperley`` and ``krumhansl`` is given for context, and so is
  edma vs bgate: the references themselves disagree on part of the corpus.
- **Loudness:** |our loudness - Essentia's integrated LUFS| in LU.
- **Speed:** seconds per song and times real time of our run (``--time``, the output of
  ``/usr/bin/time -v``, or ``--wall`` and ``--peak-rss-mb``), of Essentia's tempo+key+loudness (measured
  side by side with ``reference.py --speed-only``, passed as ``--essentia-speed``; otherwise estimated
  from the cached per-song times in the TSV) and of librosa (from the TSV).

A file whose ``error`` is not null, or whose value is missing, counts as a miss; the denominators are the
songs the reference could analyse. Standard library only, so it runs without Essentia installed.

Usage:
    python3 Benchmarks/audio/compare.py --reference Benchmarks/audio/reference-corpus.tsv \\
        --ours ours.json --time time.txt [--essentia-speed essentia.json] [--jobs 2]
"""

import argparse
import csv
import json
import os
import re
import statistics
import sys

KEY_NAMES = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
PITCH = {"C": 0, "B#": 0, "C#": 1, "Db": 1, "D": 2, "D#": 3, "Eb": 3, "E": 4, "Fb": 4, "F": 5, "E#": 5,
         "F#": 6, "Gb": 6, "G": 7, "G#": 8, "Ab": 8, "A": 9, "A#": 10, "Bb": 10, "B": 11, "Cb": 11}
TOLERANCE = 0.04

TARGETS = {
    "tempo": 0.95,       # octave-tolerant agreement with Essentia (issue 42)
    "key": 0.80,         # exact key and mode vs edma (issue 42)
    "loudness": 0.95,    # share within 1 LU
    "realtime": 50.0,    # x real time on 2 cores, with the tagger (issue 42)
    "speedup": 2.0,      # times faster than Essentia tempo+key+loudness
    "rss_mb": 200.0,     # peak resident set size
}


# MARK: - Inputs

def read_reference(path):
    with open(path, encoding="utf-8", newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = {}
    for row in csv.DictReader(lines, delimiter="\t"):
        rows[row["file"]] = row
    return rows


def read_ours(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = json.loads(text[text.index("["):text.rindex("]") + 1])  # tolerate stray lines around it
    if isinstance(data, dict):  # tolerate {"tracks": [...]} or similar
        data = next(v for v in data.values() if isinstance(v, list))
    ours = {}
    for item in data:
        name = os.path.basename(item.get("path") or "")
        if name:
            ours[name] = item
    return ours


def read_time_file(path):
    """Wall seconds, CPU seconds, peak RSS in MB and exit status from `/usr/bin/time -v` output."""
    text = open(path, encoding="utf-8", errors="replace").read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text)
    seconds = None
    if wall:
        parts = [float(p) for p in wall.group(1).split(":")]
        seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    user = re.search(r"User time \(seconds\): ([\d.]+)", text)
    system = re.search(r"System time \(seconds\): ([\d.]+)", text)
    cpu = float(user.group(1)) + float(system.group(1)) if user and system else None
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    status = re.search(r"Exit status: (\d+)", text)
    return {"wall_s": seconds, "cpu_s": cpu, "rss_mb": int(rss.group(1)) / 1024 if rss else None,
            "exit": int(status.group(1)) if status else None}


def number(value):
    """A float from a TSV cell or JSON value, or None when missing, empty, null or not finite."""
    if value is None or value == "":
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if x == x and abs(x) != float("inf") else None


# MARK: - Measures

def within(value, reference, factor=1.0):
    return value is not None and reference is not None and reference > 0 and \
        abs(value - reference * factor) <= TOLERANCE * reference * factor


def tempo_relation(value, reference):
    """'exact', 'double', 'half', '3:2', '2:3', 'other' or 'missing' for `value` against `reference`."""
    if value is None or value <= 0:
        return "missing"
    for name, factor in (("exact", 1.0), ("double", 2.0), ("half", 0.5), ("3:2", 1.5), ("2:3", 2 / 3)):
        if within(value, reference, factor):
            return name
    return "other"


def key_of(name, scale):
    if not name or name not in PITCH or scale not in ("major", "minor"):
        return None
    return PITCH[name], 1 if scale == "major" else 0


def our_key(item):
    if item is None or item.get("error"):
        return None
    key, mode = item.get("key"), item.get("mode")
    if not isinstance(key, int) or not 0 <= key <= 11 or mode not in (0, 1):
        return None
    return key, mode


def key_relation(ours, reference):
    """'exact', 'relative', 'fifth', 'parallel', 'other' or 'missing'."""
    if ours is None:
        return "missing"
    (k, m), (rk, rm) = ours, reference
    if (k, m) == (rk, rm):
        return "exact"
    if m != rm:
        relative = (rk + 9) % 12 if rm == 1 else (rk + 3) % 12
        if k == relative:
            return "relative"
        if k == rk:
            return "parallel"
        return "other"
    if (k - rk) % 12 in (5, 7):
        return "fifth"
    return "other"


MIREX_WEIGHT = {"exact": 1.0, "fifth": 0.5, "relative": 0.3, "parallel": 0.2}


def key_name(key):
    return "" if key is None else f"{KEY_NAMES[key[0]]} {'major' if key[1] else 'minor'}"


def share(count, total):
    return f"{count}/{total} ({100 * count / total:.0f} %)" if total else "0/0"


def verdict(ok):
    return "n/a" if ok is None else ("PASS" if ok else "MISS")


# MARK: - Report

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", required=True, help="TSV written by reference.py")
    parser.add_argument("--ours", required=True, help="JSON array printed by `vibes-analyze analyze --json`")
    parser.add_argument("--time", help="output of `/usr/bin/time -v` for our run")
    parser.add_argument("--wall", type=float, help="wall seconds of our run (overrides --time)")
    parser.add_argument("--peak-rss-mb", type=float, help="peak RSS of our run in MB (overrides --time)")
    parser.add_argument("--essentia-speed", help="JSON printed by `reference.py --speed-only` in the same run")
    parser.add_argument("--tagger-cpu", type=float,
                        help="processor seconds the tagger took in our run (`analyze --timings` prints them)")
    parser.add_argument("--jobs", type=int, default=2, help="processes or tasks both runs used (default 2)")
    parser.add_argument("--no-songs", action="store_true", help="leave out the per-song table")
    args = parser.parse_args()

    reference = read_reference(args.reference)
    ours = read_ours(args.ours)
    usable = {name: row for name, row in reference.items() if not row.get("error")}
    names = sorted(usable)
    total = len(names)
    if total == 0:
        sys.exit("compare: no usable rows in the reference TSV")
    extra = sorted(set(ours) - set(reference))
    errors = {name: ours[name]["error"] for name in names if name in ours and ours[name].get("error")}
    absent = [name for name in names if name not in ours]

    def ours_value(name, field):
        item = ours.get(name)
        if item is None or item.get("error"):
            return None
        return number(item.get(field))

    # Tempo
    tempo_rows = {}
    for name in names:
        row = usable[name]
        essentia, librosa = number(row["essentia_bpm"]), number(row.get("librosa_bpm"))
        value = ours_value(name, "tempo")
        tempo_rows[name] = {
            "essentia": essentia, "librosa": librosa, "ours": value,
            "vs_essentia": tempo_relation(value, essentia),
            "vs_librosa": tempo_relation(value, librosa) if librosa else "n/a",
            "librosa_vs_essentia": tempo_relation(librosa, essentia) if librosa else "n/a",
        }

    # Key
    key_rows = {}
    for name in names:
        row = usable[name]
        edma = key_of(row["edma_key"], row["edma_scale"])
        mine = our_key(ours.get(name))
        context = {p: key_of(row.get(f"{p}_key"), row.get(f"{p}_scale")) for p in ("bgate", "temperley", "krumhansl")}
        key_rows[name] = {"edma": edma, "ours": mine, "relation": key_relation(mine, edma) if edma else "n/a",
                          **context}

    # Loudness
    loud_rows = {}
    for name in names:
        ref, value = number(usable[name]["loudness_lufs"]), ours_value(name, "loudness")
        loud_rows[name] = {"essentia": ref, "ours": value,
                           "delta": None if ref is None or value is None else value - ref}

    print("# vibes-analyze analyze vs Essentia and librosa\n")
    print(f"- reference: `{args.reference}` ({total} songs analysed, "
          f"{len(reference) - total} failed in the reference)")
    print(f"- ours: `{args.ours}` ({len(ours)} results, {len(errors)} with an error, "
          f"{len(absent)} reference songs absent from it" + (f", {len(extra)} not in the reference" if extra else "")
          + ")")
    comment = ""
    with open(args.reference, encoding="utf-8") as f:
        first = f.readline()
        if first.startswith("#"):
            comment = first.lstrip("# ").strip()
    if comment:
        print(f"- reference tools: {comment}")
    print(f"- tempo tolerance {TOLERANCE:.0%}; key exact = same tonic and mode as Essentia `edma`\n")

    if not args.no_songs:
        print("## Per song\n")
        print("| file | s | Essentia BPM | librosa BPM | ours BPM | tempo | edma key | ours key | key | "
              "Essentia LUFS | ours | Δ LU | error |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name in names:
            t, k, l = tempo_rows[name], key_rows[name], loud_rows[name]
            duration = number(usable[name]["duration_s"])
            err = (ours.get(name) or {}).get("error") or ("absent" if name in absent else "")
            fmt = lambda x, spec: "" if x is None else format(x, spec)
            print(f"| {name} | {fmt(duration, '.0f')} | {fmt(t['essentia'], '.1f')} | {fmt(t['librosa'], '.1f')} | "
                  f"{fmt(t['ours'], '.1f')} | {t['vs_essentia']} | {key_name(k['edma'])} | {key_name(k['ours'])} | "
                  f"{k['relation']} | {fmt(l['essentia'], '.1f')} | {fmt(l['ours'], '.1f')} | "
                  f"{fmt(l['delta'], '+.2f')} | {str(err).replace('|', '/')[:60]} |")
        print()

    # MARK: Tempo table
    def tempo_counts(pairs):
        n = len(pairs)
        counts = {r: sum(1 for p in pairs if p == r) for r in ("exact", "double", "half", "3:2", "2:3", "other",
                                                                 "missing")}
        return n, counts

    print("## Tempo\n")
    print("| comparison | songs | within 4 % | octave-tolerant (x1, x2, x½) | of which x2 | of which x½ | "
          "x3/2 | x2/3 | other | missing |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tempo_octave = {}
    for label, key in (("ours vs Essentia", "vs_essentia"), ("ours vs librosa", "vs_librosa"),
                       ("librosa vs Essentia (context)", "librosa_vs_essentia")):
        pairs = [tempo_rows[n][key] for n in names if tempo_rows[n][key] != "n/a"]
        n, c = tempo_counts(pairs)
        if n == 0:
            continue
        octave = c["exact"] + c["double"] + c["half"]
        tempo_octave[key] = (octave, n)
        print(f"| {label} | {n} | {share(c['exact'], n)} | {share(octave, n)} | {c['double']} | {c['half']} | "
              f"{c['3:2']} | {c['2:3']} | {c['other']} | {c['missing']} |")
    print()
    confidences = {"hit": [], "miss": []}
    for name in names:
        conf = ((ours.get(name) or {}).get("confidence") or {})
        value = number(conf.get("tempo")) if isinstance(conf, dict) else None
        if value is not None:
            hit = tempo_rows[name]["vs_essentia"] in ("exact", "double", "half")
            confidences["hit" if hit else "miss"].append(value)
    if confidences["hit"] or confidences["miss"]:
        mean = lambda xs: f"{statistics.fmean(xs):.2f} (n={len(xs)})" if xs else "n/a"
        print(f"Mean `confidence.tempo`: {mean(confidences['hit'])} on octave-tolerant hits, "
              f"{mean(confidences['miss'])} on misses.\n")

    # MARK: Key table
    print("## Key and mode\n")
    relations = [key_rows[n]["relation"] for n in names if key_rows[n]["relation"] != "n/a"]
    nk = len(relations)
    rc = {r: relations.count(r) for r in ("exact", "relative", "fifth", "parallel", "other", "missing")}
    mirex = sum(MIREX_WEIGHT.get(r, 0.0) for r in relations) / nk if nk else 0.0
    print("| comparison | songs | exact | relative | fifth | parallel | other | missing | MIREX score |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| ours vs edma | {nk} | {share(rc['exact'], nk)} | {rc['relative']} | {rc['fifth']} | {rc['parallel']} | "
          f"{rc['other']} | {rc['missing']} | {mirex:.3f} |")
    for profile in ("bgate", "temperley", "krumhansl"):
        rel = [key_relation(key_rows[n]["ours"], key_rows[n][profile]) for n in names if key_rows[n][profile]]
        n = len(rel)
        c = {r: rel.count(r) for r in ("exact", "relative", "fifth", "parallel", "other", "missing")}
        score = sum(MIREX_WEIGHT.get(r, 0.0) for r in rel) / n if n else 0.0
        print(f"| ours vs {profile} (context) | {n} | {share(c['exact'], n)} | {c['relative']} | {c['fifth']} | "
              f"{c['parallel']} | {c['other']} | {c['missing']} | {score:.3f} |")
    for profile in ("bgate", "temperley", "krumhansl"):
        rel = [key_relation(key_rows[n][profile], key_rows[n]["edma"]) for n in names
               if key_rows[n][profile] and key_rows[n]["edma"]]
        n = len(rel)
        c = {r: rel.count(r) for r in ("exact", "relative", "fifth", "parallel", "other", "missing")}
        score = sum(MIREX_WEIGHT.get(r, 0.0) for r in rel) / n if n else 0.0
        print(f"| {profile} vs edma (references) | {n} | {share(c['exact'], n)} | {c['relative']} | {c['fifth']} | "
              f"{c['parallel']} | {c['other']} | {c['missing']} | {score:.3f} |")
    key_confidences = {"hit": [], "miss": []}
    for name in names:
        conf = ((ours.get(name) or {}).get("confidence") or {})
        value = number(conf.get("key")) if isinstance(conf, dict) else None
        if value is not None and key_rows[name]["relation"] != "n/a":
            key_confidences["hit" if key_rows[name]["relation"] == "exact" else "miss"].append(value)
    if key_confidences["hit"] or key_confidences["miss"]:
        mean = lambda xs: f"{statistics.fmean(xs):.2f} (n={len(xs)})" if xs else "n/a"
        print(f"\nMean `confidence.key`: {mean(key_confidences['hit'])} on exact matches with edma, "
              f"{mean(key_confidences['miss'])} on the rest.")
    any_profile = sum(1 for n in names if key_rows[n]["ours"] is not None and any(
        key_rows[n]["ours"] == key_rows[n][p] for p in ("edma", "bgate", "temperley", "krumhansl")))
    print(f"\nOurs matches at least one of the four profiles exactly on {share(any_profile, total)}. "
          "MIREX score: exact 1, fifth 0.5, relative 0.3, parallel 0.2.\n")

    # MARK: Loudness table
    print("## Loudness (vs Essentia LoudnessEBUR128 integrated)\n")
    deltas = [loud_rows[n]["delta"] for n in names if loud_rows[n]["essentia"] is not None]
    measured = [d for d in deltas if d is not None]
    nl = len(deltas)
    within_1 = sum(1 for d in measured if abs(d) <= 1.0)
    within_05 = sum(1 for d in measured if abs(d) <= 0.5)
    print("| songs | within 0.5 LU | within 1 LU | median abs Δ | max abs Δ | mean Δ (ours − Essentia) "
          "| missing |")
    print("|---|---|---|---|---|---|---|")
    if measured:
        absolute = [abs(d) for d in measured]
        print(f"| {nl} | {share(within_05, nl)} | {share(within_1, nl)} | {statistics.median(absolute):.2f} | "
              f"{max(absolute):.2f} | {statistics.fmean(measured):+.2f} | {nl - len(measured)} |")
    else:
        print(f"| {nl} | 0 | 0 | n/a | n/a | n/a | {nl} |")
    print()

    # Duration, as a check of the decoder
    durations = []
    for name in names:
        ref, value = number(usable[name]["duration_s"]), ours_value(name, "duration_ms")
        if ref is not None and value is not None:
            durations.append(abs(value / 1000 - ref))
    if durations:
        print(f"Duration vs Essentia's decode: {sum(1 for d in durations if d <= 0.1)}/{len(durations)} within 0.1 s, "
              f"max |Δ| {max(durations):.2f} s.\n")

    # MARK: Speed
    print("## Speed\n")
    audio_s = sum(number(usable[n]["duration_s"]) or 0.0 for n in names)
    run = {"wall_s": None, "cpu_s": None, "rss_mb": None, "exit": None}
    if args.time:
        run.update(read_time_file(args.time))
    if args.wall is not None:
        run["wall_s"] = args.wall
    if args.peak_rss_mb is not None:
        run["rss_mb"] = args.peak_rss_mb
    essentia_run = None
    if args.essentia_speed:
        with open(args.essentia_speed, encoding="utf-8") as f:
            essentia_run = json.load(f)
    essentia_sum = sum(number(usable[n].get("essentia_s")) or 0.0 for n in names)
    essentia_cpu = sum(number(usable[n].get("essentia_cpu_s")) or 0.0 for n in names)
    librosa_rows = [n for n in names if number(usable[n].get("librosa_s")) is not None]
    librosa_sum = sum(number(usable[n]["librosa_s"]) for n in librosa_rows)

    print(f"{total} songs, {audio_s / 60:.1f} min of audio, {args.jobs} processes or tasks.\n")
    print("| tool | how measured | wall s | s per song (wall) | CPU s per song | x real time |")
    print("|---|---|---|---|---|---|")
    ours_wall = run["wall_s"]
    if ours_wall:
        cpu = f"{run['cpu_s'] / total:.3f}" if run["cpu_s"] is not None else ""
        print(f"| ours, tempo+key+loudness+estimates | this run, --jobs {args.jobs} | {ours_wall:.1f} | "
              f"{ours_wall / total:.3f} | {cpu} | {audio_s / ours_wall:.0f}x |")
    if essentia_run:
        ew = essentia_run["wall_s"]
        print(f"| Essentia tempo+key(edma)+loudness | this run, {essentia_run['jobs']} processes | {ew:.1f} | "
              f"{ew / essentia_run['files']:.3f} | {essentia_run['cpu_s'] / essentia_run['files']:.3f} | "
              f"{essentia_run['audio_s'] / ew:.0f}x |")
        essentia_wall, essentia_how = ew, "measured side by side"
    else:
        essentia_wall, essentia_how = essentia_cpu / args.jobs, f"CPU time cached in the TSV / {args.jobs}"
    if essentia_cpu:
        print(f"| Essentia tempo+key(edma)+loudness | TSV: CPU s per song, / {args.jobs} processes (estimate) | "
              f"{essentia_cpu / args.jobs:.1f} | {essentia_cpu / args.jobs / total:.3f} | {essentia_cpu / total:.3f} | "
              f"{audio_s * args.jobs / essentia_cpu:.0f}x |")
    if librosa_rows:
        print(f"| librosa load+beat_track (tempo only) | TSV: wall s per song, / {args.jobs} processes (estimate) | "
              f"{librosa_sum / args.jobs:.1f} | {librosa_sum / args.jobs / len(librosa_rows):.3f} | "
              f"{librosa_sum / len(librosa_rows):.3f} | {audio_s * args.jobs / librosa_sum:.0f}x |")
    print()
    if essentia_cpu and essentia_sum > 1.2 * essentia_cpu:
        print(f"In the TSV, Essentia took {essentia_sum / total:.2f} s of wall time per song but "
              f"{essentia_cpu / total:.2f} s "
              "of CPU: the machine was busy with other work while the reference was computed, so the estimates "
              "above use CPU time.\n")
    # Compare throughput (audio seconds per wall second), so runs over different file sets stay comparable.
    essentia_audio = essentia_run["audio_s"] if essentia_run else audio_s
    speedup = (audio_s / ours_wall) / (essentia_audio / essentia_wall) if ours_wall and essentia_wall else None
    if speedup:
        print(f"Ours vs Essentia (tempo+key+loudness, {essentia_how}): {speedup:.2f}x faster.")
    if args.tagger_cpu is not None and run["cpu_s"]:
        rest = run["cpu_s"] - args.tagger_cpu
        print(f"The music tagger (its mel front end and network): {args.tagger_cpu:.1f} s of CPU, "
              f"{100 * args.tagger_cpu / run['cpu_s']:.0f} % of our run's {run['cpu_s']:.1f} s "
              f"({args.tagger_cpu / total:.3f} s per song, {audio_s / args.tagger_cpu:.0f}x real time on one core); "
              f"the rest of the analysis took {rest:.1f} s.")
    if run["rss_mb"] is not None:
        print(f"Peak RSS of our run: {run['rss_mb']:.0f} MB.")
    if run["exit"]:
        print(f"Our run exited with status {run['exit']}.")
    print()

    # MARK: Targets
    octave, n_t = tempo_octave.get("vs_essentia", (0, 0))
    realtime = audio_s / ours_wall if ours_wall else None
    rows = [
        ("tempo octave-tolerant vs Essentia", f"≥ {TARGETS['tempo']:.0%}",
         f"{100 * octave / n_t:.1f} %" if n_t else "n/a", n_t and octave / n_t >= TARGETS["tempo"]),
        ("key exact vs edma", f"≥ {TARGETS['key']:.0%}", f"{100 * rc['exact'] / nk:.1f} %" if nk else "n/a",
         nk and rc["exact"] / nk >= TARGETS["key"]),
        ("loudness within 1 LU", f"≥ {TARGETS['loudness']:.0%}", f"{100 * within_1 / nl:.1f} %" if nl else "n/a",
         nl and within_1 / nl >= TARGETS["loudness"]),
        ("x real time on 2 cores", f"≥ {TARGETS['realtime']:.0f}x",
         f"{realtime:.0f}x" if realtime else "n/a", None if realtime is None else realtime >= TARGETS["realtime"]),
        ("faster than Essentia", f"≥ {TARGETS['speedup']:.0f}x", f"{speedup:.2f}x" if speedup else "n/a",
         None if speedup is None else speedup >= TARGETS["speedup"]),
        ("peak RSS", f"≤ {TARGETS['rss_mb']:.0f} MB",
         f"{run['rss_mb']:.0f} MB" if run["rss_mb"] is not None else "n/a",
         None if run["rss_mb"] is None else run["rss_mb"] <= TARGETS["rss_mb"]),
    ]
    print("## Targets\n")
    print("| target | goal | measured | |")
    print("|---|---|---|---|")
    for label, goal, value, ok in rows:
        print(f"| {label} | {goal} | {value} | {verdict(None if ok is None or value == 'n/a' else bool(ok))} |")
    print()
    if errors:
        print(f"Files our run could not analyse ({len(errors)}):\n")
        for name, message in errors.items():
            print(f"- `{name}`: {message}")
        print()
    if absent:
        print(f"Reference songs absent from our output: {', '.join(absent)}\n")


if __name__ == "__main__":
    main()
