#!/bin/sh
# Emulator throughput and export sizes (issue 10's benchmarks; results in
# docs/benchmarks.md): synthetic CUDA traces of N kernels round-robin on 8
# non-blocking streams with a cross-stream event wait every 64 kernels
# (`emu_gen_trace bulk:N`), N = 10^4, 10^5, 10^6 (EMU_BENCH_SIZES to
# change); for each, BENCH_RUNS (default 3) timed runs of `tsexport
# --summary`, `--races`, `-f json` and `-f perfetto` (median wall seconds
# and median CPU seconds, user + system, of --summary; commands per second
# of both; peak resident memory from getrusage), and the export bytes per
# command.  Goal: time near linear in N, at least 10^6 commands/s.
#
# With EMU_BASE_TSEXPORT=path (another build's tsexport), each --summary
# run of ours is followed by one of that binary on the same trace, and the
# medians of both are printed with the median of the per-round ratios
# (ours / base): on a shared machine the load changes between rounds, not
# within one.
#   BUILD=build sh tests/bench/emu_bench.sh
#   EMU_BASE_TSEXPORT=/path/to/old/tsexport BENCH_RUNS=7 BUILD=build sh tests/bench/emu_bench.sh
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
for p in tsexport tests/programs/emu_gen_trace; do
	[ -x "$BUILD/$p" ] || { echo "emu_bench: $BUILD/$p is not built; run make" >&2; exit 1; }
done
if [ -n "${EMU_BASE_TSEXPORT:-}" ] && [ ! -x "$EMU_BASE_TSEXPORT" ]; then
	echo "emu_bench: EMU_BASE_TSEXPORT=$EMU_BASE_TSEXPORT is not an executable" >&2
	exit 1
fi
EMU_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/emubench.XXXXXX")
trap 'rm -rf "$EMU_TMP"' EXIT INT TERM
export EMU_TMP BUILD
python3 - <<'PY'
import os, resource, statistics, subprocess, time

B = os.environ["BUILD"]
TMP = os.environ["EMU_TMP"]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SIZES = [int(x) for x in os.environ.get("EMU_BENCH_SIZES", "10000 100000 1000000").split()]
BASE = os.environ.get("EMU_BASE_TSEXPORT", "")
TSX = os.path.join(B, "tsexport")


def timed(cmd):
    """Wall seconds, CPU seconds (user + system) and the children's peak
    resident KiB so far."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of children is the largest so far: run the biggest last
    return t, cpu, after.ru_maxrss


print("emu_bench: bulk:N traces (8 streams), %d runs, medians" % RUNS, flush=True)
print("%-9s %10s %12s %9s %12s %9s %9s %12s %12s %10s" % (
    "commands", "--summary", "commands/s", "CPU s", "per CPU s", "--races", "-f json",
    "json B/cmd", "perfetto B/c", "peak MiB"), flush=True)
prev = None
for n in SIZES:
    trace = os.path.join(TMP, "bulk%d.sbt" % n)
    subprocess.run([os.path.join(B, "tests/programs/emu_gen_trace"), "bulk:%d" % n, trace],
                   check=True)
    res = {}
    peak = 0
    base_wall, base_cpu, ratio_wall, ratio_cpu = [], [], [], []
    for name, extra in (("summary", ["--summary"]), ("races", ["--races"]),
                        ("json", ["-f", "json", "-o", os.path.join(TMP, "o.json")]),
                        ("perfetto", ["-f", "perfetto", "-o", os.path.join(TMP, "o.pftrace")])):
        ts, cs = [], []
        for _ in range(RUNS):
            t, cpu, rss = timed([TSX] + extra + [trace])
            ts.append(t)
            cs.append(cpu)
            peak = max(peak, rss)
            if BASE and name == "summary":
                bt, bc, _ = timed([BASE] + extra + [trace])
                base_wall.append(bt)
                base_cpu.append(bc)
                ratio_wall.append(t / bt)
                ratio_cpu.append(cpu / bc if bc > 0 else float("nan"))
        res[name] = statistics.median(ts)
        res[name + "_cpu"] = statistics.median(cs)
    jb = os.path.getsize(os.path.join(TMP, "o.json")) / n
    pb = os.path.getsize(os.path.join(TMP, "o.pftrace")) / n
    cpu = res["summary_cpu"]
    print("%-9d %10.3f %12.0f %9.3f %12.0f %9.3f %9.3f %12.1f %12.1f %10.1f" % (
        n, res["summary"], n / res["summary"], cpu, n / cpu if cpu > 0 else 0.0, res["races"],
        res["json"], jb, pb, peak / 1024), flush=True)
    if BASE:
        print("          base --summary: wall %.3f s, CPU %.3f s; ours/base per round: wall %.3f, CPU %.3f" % (
            statistics.median(base_wall), statistics.median(base_cpu),
            statistics.median(ratio_wall), statistics.median(ratio_cpu)), flush=True)
    if prev:
        print("          time ratio to the previous N: summary %.1f (x%.0f commands)" %
              (res["summary"] / prev[1], n / prev[0]), flush=True)
    prev = (n, res["summary"])
PY
