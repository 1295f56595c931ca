#!/bin/sh
# What same-address capture costs in memory calls, and how fast keyframes
# copy device memory (the CUDA issue's allocation and keyframe benchmarks;
# tests/bench/run.sh calls this, docs/benchmarks.md has the results).  On
# the libcuda test double (LD_LIBRARY_PATH=$BUILD/tests/doubles/cuda): its
# cuMemAlloc is an mmap and its VMM calls memfd mappings, so the figures are
# the interposer's and the double's, not a GPU driver's.
#   alloc     cuda_alloc_loop (R allocate+free pairs among 64 live
#             allocations) at 256 B and 4 MiB, three ways alternating per
#             round: plain (no interposer), captured at the driver's
#             addresses (TRACESMITH_CUDA_VA=off), captured in the window
#             (the default); medians of ns per pair and of the per-round
#             ratios window / plain and window / off.
#   keyframe  cuda_alloc_app --chase 4 --prealloc MiB (zero, then filled
#             with a pattern: --fill-prealloc) with
#             TRACESMITH_SNAPSHOT=launch (a keyframe of every live
#             allocation before and after the launch) against the same
#             capture with the default policy (whose start keyframe is
#             partial: the preallocation is not copied); keyframe bytes
#             (from the trace) over the time difference: GB/s per round,
#             median.
#   BUILD=build sh tests/bench/cuda_mem_bench.sh [--only alloc,keyframe]
#       [--driver double|system]
# --driver system leaves LD_LIBRARY_PATH alone (the real libcuda.so.1 on a
# GPU machine, tests/gpu/lease.sh); only `alloc` runs there (the keyframe
# program's kernels are the double's modules: tests/gpu/bench_prealloc.sh
# measures keyframes on a GPU).
# Environment: CUDA_BENCH_ROUNDS (default 11), CUDA_MEM_BENCH_PAIRS
# (default 20000), CUDA_MEM_BENCH_MIB (default 1024).
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
if [ ! -e "$BUILD/interpose/libtracesmith_cuda.so" ]; then
	echo "cuda_mem_bench: SKIPPED: the CUDA parts are not built (no CUDA toolkit headers: cuda.h)"
	exit 0
fi
CUDA_BENCH_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/cudamem.XXXXXX")
trap 'rm -rf "$CUDA_BENCH_TMP"' EXIT INT TERM
export CUDA_BENCH_TMP
BUILD=$BUILD python3 - "$@" <<'PYEOF'
import argparse, os, re, statistics, subprocess, sys, time

B = os.environ["BUILD"]
TMP = os.environ["CUDA_BENCH_TMP"]
LIB = os.path.abspath(os.path.join(B, "interpose/libtracesmith_cuda.so"))
DOUBLE = os.path.abspath(os.path.join(B, "tests/doubles/cuda"))


class BenchError(Exception):
    pass


def env_int(name, default):
    v = os.environ.get(name)
    return int(v) if v else default


DRIVER = "double"


def base_env():
    e = {k: v for k, v in os.environ.items() if not k.startswith(("TRACESMITH_", "TSCUDA_", "LD_PRELOAD"))}
    if DRIVER == "double":
        e["LD_LIBRARY_PATH"] = DOUBLE
        e["TSCUDA_DOUBLE_QUIET"] = "1"
    return e


def run(way, argv, extra=None):
    """Runs argv one way; returns (stdout, seconds)."""
    e = base_env()
    trace = os.path.join(TMP, "run.sbt")
    if os.path.exists(trace):
        os.unlink(trace)
    if way != "plain":
        e["LD_PRELOAD"] = LIB
        e["TRACESMITH_OUTPUT"] = trace
        e["TRACESMITH_STACKS"] = "none"
    if way == "off":
        e["TRACESMITH_CUDA_VA"] = "off"
    e.update(extra or {})
    t0 = time.monotonic()
    p = subprocess.run(argv, env=e, capture_output=True, text=True)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        raise BenchError("%s %s: exit %d: %s" % (way, " ".join(argv), p.returncode, p.stderr[-2000:]))
    if way != "plain" and "tracesmith: cuda: " not in p.stderr:
        raise BenchError("%s: no exit report from the interposer: %s" % (way, p.stderr[-2000:]))
    return p.stdout, dt


def alloc(rounds, pairs):
    prog = os.path.join(B, "tests/cuda/cuda_alloc_loop")
    print("== alloc: cuda_alloc_loop --rounds %d --live 64, %d rounds, ways alternating" % (pairs, rounds))
    print("%-8s %10s %10s %10s %16s %16s" % ("size", "plain ns", "off ns", "window ns", "window/plain", "window/off"))
    for size in (256, 4 << 20):
        ns = {"plain": [], "off": [], "window": []}
        ratio_p, ratio_o = [], []
        ways = ["plain", "off", "window"]
        for r in range(rounds):
            got = {}
            for w in ways[r % 3:] + ways[:r % 3]:
                out, _ = run(w, [prog, "--rounds", str(pairs), "--size", str(size), "--live", "64"])
                m = re.search(r"ns_per_pair ([0-9.]+)", out)
                if not m:
                    raise BenchError("cuda_alloc_loop printed: %s" % out)
                got[w] = float(m.group(1))
                ns[w].append(got[w])
            ratio_p.append(got["window"] / got["plain"])
            ratio_o.append(got["window"] / got["off"])
        med = {k: statistics.median(v) for k, v in ns.items()}
        print("%-8s %10.0f %10.0f %10.0f %9.2f (%.2f-%.2f) %9.2f (%.2f-%.2f)" % (
            "256 B" if size == 256 else "4 MiB", med["plain"], med["off"], med["window"],
            statistics.median(ratio_p), min(ratio_p), max(ratio_p),
            statistics.median(ratio_o), min(ratio_o), max(ratio_o)))
    print()


def keyframe(rounds, mib, fill):
    prog = os.path.join(B, "tests/cuda/cuda_alloc_app")
    info = os.path.join(B, "tsinfo")
    argv = [prog, "--chase", "4", "--prealloc", str(mib)] + (["--fill-prealloc"] if fill else [])
    trace = os.path.join(TMP, "run.sbt")
    print("== keyframe: cuda_alloc_app %s, TRACESMITH_SNAPSHOT=launch against "
          "the default policy, %d rounds" % (" ".join(argv[1:]), rounds))
    rates, kbytes, zbytes, dflt = [], 0, 0, []
    for r in range(rounds):
        order = ["launch", "default"] if r % 2 == 0 else ["default", "launch"]
        t = {}
        for w in order:
            _, t[w] = run("window", argv, {"TRACESMITH_SNAPSHOT": "launch"} if w == "launch" else None)
            if w == "launch":
                dump = subprocess.run([info, "--dump", trace], capture_output=True, text=True).stdout
                kbytes = sum(int(m) for m in re.findall(r"cuda\.tsSnapshot dst=\d+ size=(\d+)", dump))
                zbytes = sum(int(m) for m in re.findall(r"cuda\.tsSnapshot dst=\d+ size=(\d+) value=1", dump))
            else:
                dump = subprocess.run([info, "--dump", trace], capture_output=True, text=True).stdout
                dflt.append(sum(int(m) for m in re.findall(r"cuda\.tsSnapshot dst=\d+ size=(\d+)", dump)))
        if t["launch"] > t["default"]:
            rates.append(kbytes / (t["launch"] - t["default"]) / 1e9)
    if not rates:
        raise BenchError("keyframe: the keyframed capture was never slower than the default one")
    print("keyframe bytes per capture: %d (%.1f MiB, of which %.1f MiB all-zero chunks); "
          "default policy: %d bytes" % (kbytes, kbytes / 1048576, zbytes / 1048576,
                                        max(dflt) if dflt else 0))
    print("keyframe copy rate: median %.2f GB/s (%.2f-%.2f) over %d rounds" % (
        statistics.median(rates), min(rates), max(rates), len(rates)))
    print()


def main():
    ap = argparse.ArgumentParser(prog="cuda_mem_bench.sh")
    ap.add_argument("--only", default="alloc,keyframe")
    ap.add_argument("--driver", choices=("double", "system"), default="double")
    a = ap.parse_args()
    global DRIVER
    DRIVER = a.driver
    parts = [p for p in a.only.split(",") if p]
    for p in parts:
        if p not in ("alloc", "keyframe"):
            raise BenchError("--only: unknown part '%s' (have alloc,keyframe)" % p)
        if p == "keyframe" and DRIVER == "system":
            raise BenchError("--only keyframe needs the double (its program's kernels are the double's "
                             "modules); on a GPU use tests/gpu/bench_prealloc.sh")
    if DRIVER == "double" and not os.path.exists(os.path.join(DOUBLE, "libcuda.so.1")):
        print("cuda_mem_bench: SKIPPED: the libcuda test double is not built")
        return 0
    rounds = env_int("CUDA_BENCH_ROUNDS", 11)
    print("cuda_mem_bench: %s, %d CPUs, %s" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(),
        "on the libcuda test double" if DRIVER == "double" else "on the system's libcuda.so.1"))
    if "alloc" in parts:
        alloc(rounds, env_int("CUDA_MEM_BENCH_PAIRS", 20000))
    if "keyframe" in parts:
        keyframe(rounds, env_int("CUDA_MEM_BENCH_MIB", 1024), False)
        keyframe(rounds, env_int("CUDA_MEM_BENCH_MIB", 1024), True)
    return 0


try:
    sys.exit(main())
except BenchError as e:
    sys.stderr.write("cuda_mem_bench: %s\n" % e)
    sys.exit(1)
PYEOF
