#!/bin/sh
# Emulator throughput and export sizes (issue 10's benchmarks; results in
# docs/benchmarks.md): synthetic CUDA traces of N kernels round-robin on 8
# non-blocking streams with a cross-stream event wait every 64 kernels
# (`emu_gen_trace bulk:N`), N = 10^4, 10^5, 10^6; for each, BENCH_RUNS
# (default 3) timed runs of `tsexport --summary`, `--races`, `-f json` and
# `-f perfetto` (median wall seconds, commands per second of --summary,
# peak resident memory from /usr/bin/time or getrusage), and the export
# bytes per command.  Goal: time near linear in N, at least 10^6 commands/s.
#   BUILD=build sh tests/bench/emu_bench.sh
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
for p in tsexport tests/programs/emu_gen_trace; do
	[ -x "$BUILD/$p" ] || { echo "emu_bench: $BUILD/$p is not built; run make" >&2; exit 1; }
done
EMU_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/emubench.XXXXXX")
trap 'rm -rf "$EMU_TMP"' EXIT INT TERM
export EMU_TMP BUILD
python3 - <<'PY'
import os, resource, statistics, subprocess, time

B = os.environ["BUILD"]
TMP = os.environ["EMU_TMP"]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
TSX = os.path.join(B, "tsexport")


def timed(cmd):
    """Wall seconds and the child's peak resident KiB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    # ru_maxrss of children is the largest so far: run the biggest last
    return t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


print("emu_bench: bulk:N traces (8 streams), %d runs, median wall seconds" % RUNS, flush=True)
print("%-9s %10s %12s %9s %9s %12s %12s %10s" % ("commands", "--summary", "commands/s", "--races",
      "-f json", "json B/cmd", "perfetto B/c", "peak MiB"), flush=True)
prev = None
for n in (10000, 100000, 1000000):
    trace = os.path.join(TMP, "bulk%d.sbt" % n)
    subprocess.run([os.path.join(B, "tests/programs/emu_gen_trace"), "bulk:%d" % n, trace],
                   check=True)
    res = {}
    peak = 0
    for name, extra in (("summary", ["--summary"]), ("races", ["--races"]),
                        ("json", ["-f", "json", "-o", os.path.join(TMP, "o.json")]),
                        ("perfetto", ["-f", "perfetto", "-o", os.path.join(TMP, "o.pftrace")])):
        ts = []
        for _ in range(RUNS):
            t, rss = timed([TSX] + extra + [trace])
            ts.append(t)
            peak = max(peak, rss)
        res[name] = statistics.median(ts)
    jb = os.path.getsize(os.path.join(TMP, "o.json")) / n
    pb = os.path.getsize(os.path.join(TMP, "o.pftrace")) / n
    print("%-9d %10.3f %12.0f %9.3f %9.3f %12.1f %12.1f %10.1f" % (
        n, res["summary"], n / res["summary"], res["races"], res["json"], jb, pb, peak / 1024),
        flush=True)
    if prev:
        print("          time ratio to the previous N (x10 commands): summary %.1f" %
              (res["summary"] / prev), flush=True)
    prev = res["summary"]
PY
