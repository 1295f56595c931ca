#!/bin/sh
# The race pass on large CUDA graph launches (docs/benchmarks.md "The race
# pass on large graph launches"): `emu_gen_trace graphs:8:125:N`, a graph
# built node by node of 8 chains of 125 kernel nodes (each chain passing its
# own buffer: no race) launched N times on one stream, N = 100 and 1000
# (10^5 and 10^6 commands; EMU_GRAPH_LAUNCHES to change).  Each round runs
# `tsexport --summary` then `tsexport --races` on the same trace; printed:
# the medians of wall and CPU seconds (user + system) of both and the
# median of the per-round ratios races / summary (goal: at most 2).
#
# With EMU_BASE_TSEXPORT=path (another build's tsexport), each round also
# runs that binary's --races, and its race report must equal ours byte for
# byte (the script stops otherwise).
#   BUILD=build sh tests/bench/emu_graph_bench.sh
#   EMU_BASE_TSEXPORT=/path/to/old/tsexport BENCH_RUNS=5 BUILD=build sh tests/bench/emu_graph_bench.sh
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
for p in tsexport tests/programs/emu_gen_trace; do
	[ -x "$BUILD/$p" ] || { echo "emu_graph_bench: $BUILD/$p is not built; run make" >&2; exit 1; }
done
if [ -n "${EMU_BASE_TSEXPORT:-}" ] && [ ! -x "$EMU_BASE_TSEXPORT" ]; then
	echo "emu_graph_bench: EMU_BASE_TSEXPORT=$EMU_BASE_TSEXPORT is not an executable" >&2
	exit 1
fi
EMU_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/emugraph.XXXXXX")
trap 'rm -rf "$EMU_TMP"' EXIT INT TERM
export EMU_TMP BUILD
python3 - <<'PY'
import os, resource, statistics, subprocess, sys, time

B = os.environ["BUILD"]
TMP = os.environ["EMU_TMP"]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
LAUNCHES = [int(x) for x in os.environ.get("EMU_GRAPH_LAUNCHES", "100 1000").split()]
BASE = os.environ.get("EMU_BASE_TSEXPORT", "")
TSX = os.path.join(B, "tsexport")


def timed(cmd):
    """Wall seconds, CPU seconds (user + system), standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    return t, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p.stdout


print("emu_graph_bench: graphs:8:125:N traces, %d runs, medians" % RUNS, flush=True)
print("%-9s %10s %9s %10s %9s %12s %12s %10s" % ("commands", "summary s", "CPU s", "races s", "CPU s",
                                               "races/sum", "races/sum CPU", "base races"))
for n in LAUNCHES:
    trace = os.path.join(TMP, "graphs%d.sbt" % n)
    subprocess.run([os.path.join(B, "tests/programs/emu_gen_trace"), "graphs:8:125:%d" % n, trace], check=True)
    sw, sc, rw, rc, ratio, ratio_cpu, bw = [], [], [], [], [], [], []
    for _ in range(RUNS):
        t, c, _out = timed([TSX, "--summary", trace])
        sw.append(t)
        sc.append(c)
        t, c, ours = timed([TSX, "--races", trace])
        rw.append(t)
        rc.append(c)
        ratio.append(rw[-1] / sw[-1])
        ratio_cpu.append(rc[-1] / sc[-1] if sc[-1] > 0 else float("nan"))
        if BASE:
            t, c, theirs = timed([BASE, "--races", trace])
            bw.append(t)
            if theirs != ours:
                sys.exit("emu_graph_bench: %s: the race reports differ" % trace)
    med = statistics.median
    print("%-9d %10.3f %9.3f %10.3f %9.3f %12.2f %12.2f %10s" % (
        8 * 125 * n, med(sw), med(sc), med(rw), med(rc), med(ratio), med(ratio_cpu),
        "%.3f" % med(bw) if bw else "-"), flush=True)
PY
