#!/usr/bin/env python3
"""Server benchmark of issue 44: warm `GET /v1/recommendations` against a running `vibes-analyze serve`.

    python3 Benchmarks/server/bench_server.py --bin .build/release/vibes-analyze \
        [--sizes 30k,1m] [--seeds 2000] [--clients 16] [--seconds 10] [--work DIR] \
        [--out Benchmarks/results/server.txt]

For each library it imports the CSV into a fresh store (or reuses the store of an earlier run in
--work), starts `vibes-analyze serve --db STORE --port 0` and waits until it listens (the server
builds its recommender before it listens, so every request below is warm), then measures:

  latency     `GET /v1/recommendations?seed_tracks=ID&limit=10` for --seeds distinct seed tracks,
              one at a time over one keep-alive connection, after 50 warm-up requests: p50, p90,
              p99 and max of the time from sending the request to reading the whole answer
  throughput  --clients concurrent clients (threads, one keep-alive connection each, seeds drawn
              in turn from the same list) for --seconds: answers per second, and their p50/p99
  memory      the server's peak RSS (VmHWM) after the load, beside the feature matrix
              (tracks × 12 features × 4 bytes) and the goal 2 × matrix + 150 MB

Libraries: `30k` is the tidytuesday songs (28,356 tracks; ../shared/data beside the repository),
`1m` is `Benchmarks/compare/make_library.py 1000000` (seed 42), as compare_commands.py builds them.
Seeds are distinct track IDs of the library's CSV, every 1 in k rows so that they spread over it.

The load generator is this process (standard library only, raw HTTP/1.1 over sockets to keep its
own cost per request small); on a 2-core host it competes with the server for the CPU, so the
throughput is a floor. The load average before and after each phase is printed beside its figures,
with the CPU model. Every answer is checked: status 200 and 10 tracks.
"""
import argparse
import csv
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
MAKE_LIBRARY = os.path.join(REPO, "Benchmarks", "compare", "make_library.py")
TIDYTUESDAY = os.path.join(REPO, "..", "shared", "data", "tidytuesday-2020-01-21", "spotify_songs.csv")
FEATURES = 12
GOALS = {"30k": {"p50": 2.0, "p99": 10.0, "rps": 1000.0}, "1m": {"p50": 30.0}}


def log(message):
    print(message, file=sys.stderr, flush=True)


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_model():
    model, flags = "unknown", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name.strip() == "model name" and model == "unknown":
                model = value.strip()
            if name.strip() == "flags":
                flags = set(value.split())
                break
    vector = ("AVX-512 + AVX2" if "avx512f" in flags else "AVX2") if "avx2" in flags else "no AVX2"
    return f"{model}, {os.cpu_count()} cores, {vector}"


def library_csv(size, work):
    if size == "30k":
        if not os.path.isfile(TIDYTUESDAY):
            sys.exit(f"bench_server.py: the tidytuesday songs are not at {TIDYTUESDAY}")
        return os.path.normpath(TIDYTUESDAY)
    rows = 1_000_000 if size == "1m" else int(float(size))
    path = os.path.join(work, f"library-{rows}-seed42-default.csv")
    if not os.path.isfile(path):
        log(f"making {path}")
        subprocess.run([sys.executable, MAKE_LIBRARY, str(rows), path], check=True)
    return path


def make_store(binary, csv_path, size, work):
    store = os.path.join(work, f"server-{size}.sqlite")
    if os.path.isfile(store):
        return store
    log(f"importing {csv_path} into {store}")
    started = time.monotonic()
    subprocess.run([binary, "import", "--db", store, csv_path, "--quiet"], check=True)
    # The first seed-track recommendation builds the similarity blocks' snapshot; done here, so
    # that the server's start reads it as a user's would after any earlier command.
    with open(csv_path, newline="") as f:
        first = next(csv.DictReader(f))["track_id"]
    subprocess.run([binary, "recommend", "--db", store, "--seed", first, "-n", "10"], check=True,
                   stdout=subprocess.DEVNULL)
    log(f"  imported in {time.monotonic() - started:.1f} s")
    return store


def seeds_of(csv_path, count):
    with open(csv_path, newline="") as f:
        ids = list(dict.fromkeys(row["track_id"] for row in csv.DictReader(f)))
    step = max(1, len(ids) // count)
    return ids[::step][:count], len(ids)


class Connection:
    """One keep-alive HTTP/1.1 connection that sends GETs and reads whole answers."""

    def __init__(self, port):
        self.port = port
        self.socket = socket.create_connection(("127.0.0.1", port))
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def get(self, path):
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode()
        self.socket.sendall(request)
        while b"\r\n\r\n" not in self.buffer:
            self.read()
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))
        while len(rest) < length:
            chunk = self.socket.recv(1 << 16)
            if not chunk:
                raise ConnectionError("closed mid-answer")
            rest += chunk
        self.buffer = rest[length:]
        return status, rest[:length]

    def read(self):
        chunk = self.socket.recv(1 << 16)
        if not chunk:
            raise ConnectionError("closed")
        self.buffer += chunk

    def close(self):
        self.socket.close()


def check(status, body, path):
    if status != 200 or body.count(b'"is_local"') != 10:
        raise RuntimeError(f"{path}: status {status}, body {body[:300]!r}")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def start_server(binary, store):
    # The log goes to a file: a pipe nobody reads would stall the server once it holds 64 KiB.
    errors = tempfile.TemporaryFile("w+")
    process = subprocess.Popen([binary, "serve", "--db", store, "--port", "0"], stdout=subprocess.PIPE,
                               stderr=errors, text=True)
    started = time.monotonic()
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        process.kill()
        errors.seek(0)
        sys.exit(f"bench_server.py: the server did not start: {line!r} {errors.read()[-2000:]}")
    return process, int(match.group(1)), time.monotonic() - started


def rss_mb(pid):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                values[name] = int(value.split()[0]) / 1024
    return values


def measure_latency(port, seeds):
    connection = Connection(port)
    paths = [f"/v1/recommendations?seed_tracks={seed}&limit=10" for seed in seeds]
    for path in paths[:50]:
        check(*connection.get(path), path)
    times = []
    for path in paths:
        started = time.perf_counter()
        status, body = connection.get(path)
        times.append((time.perf_counter() - started) * 1000)
        check(status, body, path)
    connection.close()
    return times


def measure_throughput(port, seeds, clients, seconds):
    paths = [f"/v1/recommendations?seed_tracks={seed}&limit=10" for seed in seeds]
    deadline = time.perf_counter() + seconds
    results = [[] for _ in range(clients)]
    errors = []

    def client(index):
        try:
            connection = Connection(port)
            position = index * 7919
            while time.perf_counter() < deadline:
                path = paths[position % len(paths)]
                position += 1
                started = time.perf_counter()
                status, body = connection.get(path)
                results[index].append((time.perf_counter() - started) * 1000)
                check(status, body, path)
            connection.close()
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(repr(error))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    times = [t for r in results for t in r]
    if errors:
        raise RuntimeError(f"{len(errors)} clients failed: {errors[:3]}")
    return len(times) / elapsed, times


def bench(binary, size, args, lines):
    csv_path = library_csv(size, args.work)
    store = make_store(binary, csv_path, size, args.work)
    seeds, tracks = seeds_of(csv_path, args.seeds)
    process, port, start_s = start_server(binary, store)
    try:
        idle = rss_mb(process.pid)
        load_before = load_average()
        latency = measure_latency(port, seeds)
        load_mid = load_average()
        rps, loaded = measure_throughput(port, seeds, args.clients, args.seconds)
        load_after = load_average()
        memory = rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
    matrix_mb = tracks * FEATURES * 4 / 1e6
    rss_goal = 2 * matrix_mb + 150
    goals = GOALS.get(size, {})

    def verdict(value, goal, smaller=True):
        if goal is None:
            return ""
        return " PASS" if (value <= goal if smaller else value >= goal) else " MISS"

    p50, p90, p99 = (percentile(latency, q) for q in (0.5, 0.9, 0.99))
    lines += [
        f"## {size}: {tracks:,} tracks ({os.path.basename(csv_path)}), {len(seeds)} distinct seed tracks",
        f"server start to listening (recommender built): {start_s:.2f} s; RSS idle {idle['VmRSS']:.0f} MB",
        f"latency, 1 client, {len(latency)} requests (load {load_before} -> {load_mid}):",
        f"  p50 {p50:.2f} ms{verdict(p50, goals.get('p50'))} (goal {goals.get('p50', '-')} ms)"
        f"  p90 {p90:.2f} ms  p99 {p99:.2f} ms{verdict(p99, goals.get('p99'))} (goal {goals.get('p99', '-')} ms)"
        f"  max {max(latency):.2f} ms  mean {statistics.fmean(latency):.2f} ms",
        f"throughput, {args.clients} clients, {args.seconds:g} s (load {load_mid} -> {load_after}):",
        f"  {rps:,.0f} answers/s{verdict(rps, goals.get('rps'), smaller=False)} (goal {goals.get('rps', '-')})"
        f"  p50 {percentile(loaded, 0.5):.2f} ms  p99 {percentile(loaded, 0.99):.2f} ms  ({len(loaded):,} answers)",
        f"memory: peak RSS {memory['VmHWM']:.0f} MB, feature matrix {matrix_mb:.1f} MB, "
        f"goal 2 x matrix + 150 = {rss_goal:.0f} MB{verdict(memory['VmHWM'], rss_goal)}",
        "",
    ]
    print("\n".join(lines[-8:]), flush=True)


def main():
    parser = argparse.ArgumentParser(description="Benchmark `vibes-analyze serve` (issue 44).")
    parser.add_argument("--bin", required=True, help="the vibes-analyze binary (a release build)")
    parser.add_argument("--sizes", default="30k,1m", help="comma-separated: 30k (tidytuesday), 1m, or a row count")
    parser.add_argument("--seeds", type=int, default=2000, help="distinct seed tracks for the latency run")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "vibes-server-bench"))
    parser.add_argument("--out", default=os.path.join(REPO, "Benchmarks", "results", "server.txt"))
    args = parser.parse_args()
    binary = os.path.abspath(args.bin)
    os.makedirs(args.work, exist_ok=True)
    lines = [
        "# vibes-analyze serve: warm GET /v1/recommendations?seed_tracks=ID&limit=10",
        f"host: {cpu_model()}; load average at start {load_average()}",
        f"binary: {binary}",
        f"command: {' '.join(sys.argv)}",
        "",
    ]
    for size in args.sizes.split(","):
        bench(binary, size.strip(), args, lines)
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
