#!/bin/sh
# Repeated event waits (docs/benchmarks.md "Repeated event waits"):
# `emu_gen_trace wait_chain:N`, N kernels on one stream each followed by an
# event recorded there and waited on by a second stream that runs nothing
# until the end (so that stream's pending waits grow to N steps), for
# N = 30000 and 300000 (EMU_WAIT_N to change).  Each round runs
# `tsexport --summary`; printed: the dependency count and the medians of
# wall and CPU seconds (user + system).
#
# With EMU_BASE_TSEXPORT=path (another build's tsexport), each round also
# runs that binary, whose --summary, -f json and -f dot outputs must equal
# ours byte for byte (the script stops otherwise); main's build before
# issue 10's fix took minutes at N = 300000.
#   BUILD=build sh tests/bench/emu_wait_bench.sh
#   EMU_BASE_TSEXPORT=/path/to/old/tsexport EMU_WAIT_N="20000 40000" BUILD=build sh tests/bench/emu_wait_bench.sh
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
for p in tsexport tests/programs/emu_gen_trace; do
	[ -x "$BUILD/$p" ] || { echo "emu_wait_bench: $BUILD/$p is not built; run make" >&2; exit 1; }
done
if [ -n "${EMU_BASE_TSEXPORT:-}" ] && [ ! -x "$EMU_BASE_TSEXPORT" ]; then
	echo "emu_wait_bench: EMU_BASE_TSEXPORT=$EMU_BASE_TSEXPORT is not an executable" >&2
	exit 1
fi
EMU_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/emuwait.XXXXXX")
trap 'rm -rf "$EMU_TMP"' EXIT INT TERM
export EMU_TMP BUILD
python3 - <<'PY'
import os, resource, statistics, subprocess, sys, time

B = os.environ["BUILD"]
TMP = os.environ["EMU_TMP"]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SIZES = [int(x) for x in os.environ.get("EMU_WAIT_N", "30000 300000").split()]
BASE = os.environ.get("EMU_BASE_TSEXPORT", "")
TSX = os.path.join(B, "tsexport")


def timed(cmd):
    """Wall seconds, CPU seconds (user + system), standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return t, cpu, p.stdout


def same_exports(trace):
    for opt in (["--summary"], ["-f", "json"], ["-f", "dot"]):
        ours = subprocess.run([TSX] + opt + [trace], stdout=subprocess.PIPE, check=True).stdout
        theirs = subprocess.run([BASE] + opt + [trace], stdout=subprocess.PIPE, check=True).stdout
        if ours != theirs:
            sys.exit("emu_wait_bench: %s: %s differs from %s's" % (trace, " ".join(opt), BASE))


print("emu_wait_bench: wait_chain:N traces, %d runs, medians" % RUNS, flush=True)
print("%-8s %12s %10s %9s %10s %10s" % ("waits", "dependencies", "summary s", "CPU s", "base s", "base CPU s"))
for n in SIZES:
    trace = os.path.join(TMP, "wait%d.sbt" % n)
    subprocess.run([os.path.join(B, "tests/programs/emu_gen_trace"), "wait_chain:%d" % n, trace], check=True)
    if BASE:
        same_exports(trace)
    sw, sc, bw, bc = [], [], [], []
    out = b""
    for _ in range(RUNS):
        t, c, out = timed([TSX, "--summary", trace])
        sw.append(t)
        sc.append(c)
        if BASE:
            t, c, _out = timed([BASE, "--summary", trace])
            bw.append(t)
            bc.append(c)
    deps = out.split(b"\n", 1)[0].split(b", ")[1].split(b" ")[0].decode()
    med = statistics.median
    print("%-8d %12s %10.3f %9.3f %10s %10s" % (
        n, deps, med(sw), med(sc), "%.3f" % med(bw) if bw else "-", "%.3f" % med(bc) if bc else "-"), flush=True)
PY
