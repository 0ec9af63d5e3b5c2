#!/usr/bin/env python3
"""Reference tempo, key and loudness of a folder of audio files, from Essentia and librosa.

There is no ground truth for the audio corpus, so "accuracy" means agreement with these established
implementations (see /work/shared/audio-corpus/README.md). Per file the script computes, with Essentia:

- ``RhythmExtractor2013(method='multifeature')`` BPM, on the mono mix at 44.1 kHz;
- ``KeyExtractor`` key and scale with ``profileType='edma'`` (the primary reference), and for context
  with ``bgate``, ``temperley`` and ``krumhansl``, on the same mono mix;
- ``LoudnessEBUR128`` integrated loudness (LUFS) and loudness range (LU) on the stereo signal: a mono
  file counts as dual mono, and audio above 48 kHz is resampled to 44.1 kHz first (this Essentia build
  returns -70 LUFS at 96 kHz);

and with librosa, ``librosa.beat.beat_track`` tempo on ``librosa.load``'s default 22.05 kHz mono.

The Essentia wheel cannot open Opus, so Opus files are decoded to a temporary WAV with ffmpeg first,
and both tools read that WAV (libsndfile's own Opus reader is slow and crashes next to Essentia).

Timing: ``essentia_s`` is the wall time of the speed peer, that is decoding, mixing to mono,
resampling, tempo, the ``edma`` key and loudness together; the other three key profiles are not in
it. ``librosa_s`` is loading plus ``beat_track``. Both include the ffmpeg decode of Opus files. Each
worker process is pinned to one thread, and librosa's numba code is compiled before any timing.

Results are cached: files already in OUT (same name and size, no error) are skipped unless ``--force``.
Rows are appended as they finish, so a partial TSV is usable while the run goes on; at the end the file
is rewritten sorted by name.

Usage:
    /work/venv-ref/bin/python Benchmarks/audio/reference.py CORPUS/files CORPUS/reference.tsv [--jobs 2]
    /work/venv-ref/bin/python Benchmarks/audio/reference.py --speed-only CORPUS/files [--jobs 2]

``--speed-only`` runs only the speed peer over the folder on ``--jobs`` processes and prints one JSON
object (files, audio seconds, wall seconds, CPU seconds) for ``compare.py --essentia-speed``.
"""

import os

# One thread per worker, set before numpy, numba or Essentia load: two workers use two cores.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse
import concurrent.futures
import csv
import json
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata

AUDIO_EXTENSIONS = {".aif", ".aiff", ".alac", ".flac", ".m4a", ".mp3", ".mp4", ".oga", ".ogg", ".opus", ".wav",
                    ".wma", ".aac"}
NEEDS_FFMPEG = {".opus"}
KEY_PROFILES = ("edma", "bgate", "temperley", "krumhansl")
ANALYSIS_RATE = 44100.0

COLUMNS = [
    "file", "bytes", "codec", "sample_rate", "channels", "duration_s",
    "essentia_bpm", "essentia_bpm_confidence",
    "edma_key", "edma_scale", "edma_strength",
    "bgate_key", "bgate_scale", "temperley_key", "temperley_scale", "krumhansl_key", "krumhansl_scale",
    "loudness_lufs", "loudness_range_lu",
    "librosa_bpm",
    "essentia_s", "essentia_cpu_s", "essentia_decode_s", "essentia_tempo_s", "essentia_key_s",
    "essentia_loudness_s", "librosa_s",
    "error",
]


def versions():
    names = ("essentia", "librosa", "numpy", "soundfile", "numba", "scipy")
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    ffmpeg = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.split("\n")[0]
    return ", ".join(found) + f", python {platform.python_version()}, {' '.join(ffmpeg.split()[:3])}"


def header_comment():
    return (f"# produced by Benchmarks/audio/reference.py with {versions()}; "
            f"{platform.machine()}, {os.cpu_count()} CPUs; times are wall seconds on 1 thread per worker")


# MARK: - Worker

_state = {}


def init_worker(with_librosa):
    """Loads the libraries once per process and compiles librosa's numba code before any timing."""
    import essentia
    import essentia.standard as es
    import numpy as np
    essentia.log.infoActive = False
    essentia.log.warningActive = False
    _state.update(es=es, np=np, librosa=None)
    if with_librosa:
        import librosa
        noise = np.random.default_rng(0).standard_normal(22050 * 8).astype(np.float32) * 0.1
        librosa.beat.beat_track(y=noise, sr=22050)
        _state["librosa"] = librosa


def warm(_):
    time.sleep(0.3)
    return os.getpid()


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def decoded_source(path, scratch):
    """Returns a path Essentia can open: Opus goes through ffmpeg to a float WAV at its own rate."""
    if os.path.splitext(path)[1].lower() not in NEEDS_FFMPEG:
        return path
    wav = os.path.join(scratch, os.path.basename(path) + ".wav")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-map", "0:a:0", "-c:a", "pcm_f32le",
                    wav], check=True)
    return wav


def essentia_peer(path, scratch):
    """The speed peer: decode, mono 44.1 kHz, tempo, edma key, stereo loudness. Returns results and times."""
    es, np = _state["es"], _state["np"]
    times = {}
    start, cpu_start, child_start = time.perf_counter(), time.process_time(), children_cpu()
    source = decoded_source(path, scratch)
    audio, rate, channels, _md5, _bitrate, codec = es.AudioLoader(filename=source)()
    if channels == 1:
        audio = np.ascontiguousarray(np.repeat(audio[:, :1], 2, axis=1))  # dual mono
    mono = es.MonoMixer()(audio, channels)
    if rate != ANALYSIS_RATE:
        mono = es.Resample(inputSampleRate=rate, outputSampleRate=ANALYSIS_RATE, quality=1)(mono)
    times["decode"] = time.perf_counter() - start

    t = time.perf_counter()
    bpm, _ticks, confidence, _estimates, _intervals = es.RhythmExtractor2013(method="multifeature")(mono)
    times["tempo"] = time.perf_counter() - t

    t = time.perf_counter()
    key, scale, strength = es.KeyExtractor(profileType="edma", sampleRate=ANALYSIS_RATE)(mono)
    times["key"] = time.perf_counter() - t

    t = time.perf_counter()
    loudness_rate = rate
    if rate > 48000:
        resample = es.Resample(inputSampleRate=rate, outputSampleRate=ANALYSIS_RATE, quality=1)
        left, right = resample(np.ascontiguousarray(audio[:, 0])), resample(np.ascontiguousarray(audio[:, 1]))
        audio = np.ascontiguousarray(np.stack([left, right], axis=1))
        loudness_rate = ANALYSIS_RATE
    _m, _s, integrated, loudness_range = es.LoudnessEBUR128(sampleRate=loudness_rate)(audio)
    times["loudness"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - start
    times["cpu"] = time.process_time() - cpu_start + children_cpu() - child_start  # with ffmpeg's

    if source != path:
        codec = os.path.splitext(path)[1].lstrip(".").lower() + " via ffmpeg"
    result = {
        "codec": codec, "sample_rate": int(rate), "channels": int(channels),
        "duration_s": len(audio) / loudness_rate,
        "essentia_bpm": float(bpm), "essentia_bpm_confidence": float(confidence),
        "edma_key": key, "edma_scale": scale, "edma_strength": float(strength),
        "loudness_lufs": float(integrated), "loudness_range_lu": float(loudness_range),
    }
    return result, times, source, mono


def analyse(path):
    """One row of the reference TSV for `path`; errors are caught and recorded."""
    es, np = _state["es"], _state["np"]
    row = {"file": os.path.basename(path), "bytes": os.path.getsize(path), "error": ""}
    scratch = tempfile.mkdtemp(prefix="vibes-ref-")
    try:
        result, times, source, mono = essentia_peer(path, scratch)
        row.update(result)
        row.update(essentia_s=times["total"], essentia_cpu_s=times["cpu"], essentia_decode_s=times["decode"],
                   essentia_tempo_s=times["tempo"], essentia_key_s=times["key"],
                   essentia_loudness_s=times["loudness"])
        for profile in KEY_PROFILES[1:]:
            key, scale, _strength = es.KeyExtractor(profileType=profile, sampleRate=ANALYSIS_RATE)(mono)
            row[f"{profile}_key"], row[f"{profile}_scale"] = key, scale
        del mono
        librosa = _state["librosa"]
        if librosa is not None:
            t = time.perf_counter()
            if source == path:
                y, sr = librosa.load(path, sr=22050, mono=True)
            else:  # Opus: count the ffmpeg decode here too
                source = decoded_source(path, scratch)
                y, sr = librosa.load(source, sr=22050, mono=True)
            tempo, _beats = librosa.beat.beat_track(y=y, sr=sr)
            row["librosa_s"] = time.perf_counter() - t
            row["librosa_bpm"] = float(np.atleast_1d(tempo)[0])
    except Exception as error:  # a broken file must not stop the others
        row["error"] = f"{type(error).__name__}: {error}".replace("\t", " ").replace("\n", " ")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return row


def time_peer(path):
    scratch = tempfile.mkdtemp(prefix="vibes-ref-")
    try:
        result, times, _source, _mono = essentia_peer(path, scratch)
        return {"file": os.path.basename(path), "duration_s": result["duration_s"], "s": times["total"],
                "cpu_s": times["cpu"], "error": ""}
    except Exception as error:
        return {"file": os.path.basename(path), "duration_s": 0.0, "s": 0.0, "cpu_s": 0.0, "error": str(error)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# MARK: - Driver

def audio_files(folder):
    names = sorted(n for n in os.listdir(folder) if os.path.splitext(n)[1].lower() in AUDIO_EXTENSIONS)
    return [os.path.join(folder, n) for n in names]


def read_rows(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8", newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return {row["file"]: row for row in csv.DictReader(lines, delimiter="\t")}


def formatted(row):
    out = {}
    for column in COLUMNS:
        value = row.get(column, "")
        if isinstance(value, float):
            value = f"{value:.4f}" if column.endswith("_s") else f"{value:.3f}"
        out[column] = value
    return out


def write_rows(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(header_comment() + "\n")
        writer = csv.DictWriter(f, COLUMNS, delimiter="\t", lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for name in sorted(rows):
            writer.writerow(formatted(rows[name]))
    os.replace(tmp, path)


def make_pool(jobs, with_librosa):
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, initializer=init_worker,
                                                  initargs=(with_librosa,))
    list(pool.map(warm, range(jobs)))  # every worker has loaded its libraries before the clock starts
    return pool


def run_speed(folder, jobs):
    files = audio_files(folder)
    with make_pool(jobs, with_librosa=False) as pool:
        start, cpu_start = time.perf_counter(), time.process_time()
        results = list(pool.map(time_peer, files))
        wall = time.perf_counter() - start
    ok = [r for r in results if not r["error"]]
    summary = {
        "tool": "essentia RhythmExtractor2013(multifeature) + KeyExtractor(edma) + LoudnessEBUR128",
        "versions": versions(), "jobs": jobs, "files": len(files), "failed": len(files) - len(ok),
        "audio_s": round(sum(r["duration_s"] for r in ok), 3), "wall_s": round(wall, 3),
        "cpu_s": round(sum(r["cpu_s"] for r in ok) + time.process_time() - cpu_start, 3),
        "per_song_s": round(sum(r["s"] for r in ok) / max(len(ok), 1), 4),
    }
    print(json.dumps(summary))


def run_reference(folder, out, jobs, force, with_librosa):
    files = audio_files(folder)
    rows = {} if force else read_rows(out)
    sizes = {os.path.basename(p): os.path.getsize(p) for p in files}
    cached = {name: row for name, row in rows.items()
              if name in sizes and not row.get("error") and str(row.get("bytes")) == str(sizes[name])
              and (row.get("librosa_bpm") or not with_librosa)}
    todo = [p for p in files if os.path.basename(p) not in cached]
    print(f"reference: {len(files)} files in {folder}, {len(cached)} cached in {out}, {len(todo)} to analyse "
          f"on {jobs} processes", file=sys.stderr)
    rows = dict(cached)
    if todo:
        write_rows(out, rows)
        started = time.perf_counter()
        with make_pool(jobs, with_librosa) as pool, open(out, "a", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, COLUMNS, delimiter="\t", lineterminator="\n", extrasaction="ignore")
            futures = [pool.submit(analyse, p) for p in todo]
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                row = future.result()
                rows[row["file"]] = row
                writer.writerow(formatted(row))
                f.flush()
                status = row["error"] or (f"{float(row['essentia_bpm']):6.1f} BPM  {row['edma_key']:>2} "
                                          f"{row['edma_scale']:<5} {float(row['loudness_lufs']):6.1f} LUFS")
                print(f"  [{done}/{len(todo)}] {row['file']:<12} {status}", file=sys.stderr)
        print(f"reference: analysed {len(todo)} files in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    write_rows(out, rows)
    summarise(read_rows(out))


# MARK: - Summary

PITCH = {"C": 0, "C#": 1, "Db": 1, "D": 2, "D#": 3, "Eb": 3, "E": 4, "F": 5, "F#": 6, "Gb": 6, "G": 7,
         "G#": 8, "Ab": 8, "A": 9, "A#": 10, "Bb": 10, "B": 11}


def within(a, b, tolerance=0.04):
    return abs(a - b) <= tolerance * b


def summarise(rows):
    ok = [r for r in rows.values() if not r.get("error")]
    failed = len(rows) - len(ok)
    if not ok:
        print(f"no usable rows ({failed} failed)")
        return
    audio = sum(float(r["duration_s"]) for r in ok)
    essentia = sum(float(r["essentia_s"]) for r in ok)
    print(f"files: {len(ok)} analysed, {failed} failed; audio {audio / 60:.1f} min")
    print(f"Essentia tempo+key+loudness: {essentia / len(ok):.2f} s per song, {audio / essentia:.0f}x real time "
          f"on one core")
    with_librosa = [r for r in ok if r.get("librosa_bpm")]
    if with_librosa:
        librosa_time = sum(float(r["librosa_s"]) for r in with_librosa)
        strict = sum(within(float(r["librosa_bpm"]), float(r["essentia_bpm"])) for r in with_librosa)
        octave = sum(any(within(float(r["librosa_bpm"]) * m, float(r["essentia_bpm"])) for m in (1, 2, 0.5))
                     for r in with_librosa)
        print(f"librosa load+beat_track: {librosa_time / len(with_librosa):.2f} s per song")
        print(f"tempo, librosa vs Essentia: {strict}/{len(with_librosa)} within 4 %, "
              f"{octave}/{len(with_librosa)} allowing x2 and x1/2")
    for profile in KEY_PROFILES[1:]:
        same = sum(PITCH[r["edma_key"]] == PITCH[r[f"{profile}_key"]] and r["edma_scale"] == r[f"{profile}_scale"]
                   for r in ok)
        print(f"key, edma vs {profile}: {same}/{len(ok)} identical")
    loud = sorted(float(r["loudness_lufs"]) for r in ok)
    print(f"loudness: {loud[0]:.1f} to {loud[-1]:.1f} LUFS, median {loud[len(loud) // 2]:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="folder of audio files (not recursive)")
    parser.add_argument("out", nargs="?", help="reference TSV to write (and read as a cache)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes, at most 2 (default 2)")
    parser.add_argument("--force", action="store_true", help="analyse every file again, ignoring the cache")
    parser.add_argument("--no-librosa", action="store_true", help="skip librosa's tempo")
    parser.add_argument("--speed-only", action="store_true",
                        help="time only Essentia tempo+key+loudness over the folder and print JSON")
    args = parser.parse_args()
    if not 1 <= args.jobs <= 2:
        parser.error(f"--jobs must be 1 or 2 (got {args.jobs}): the machine has 2 cores")
    if not os.path.isdir(args.folder):
        parser.error(f"no such folder: {args.folder}")
    if args.speed_only:
        run_speed(args.folder, args.jobs)
    elif args.out is None:
        parser.error("give the output TSV path, or --speed-only")
    else:
        run_reference(args.folder, args.out, args.jobs, args.force, not args.no_librosa)


if __name__ == "__main__":
    main()
