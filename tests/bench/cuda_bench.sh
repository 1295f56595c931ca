#!/bin/sh
# What the CUDA interposer (libtracesmith_cuda.so) adds per kernel launch
# (issue 4's benchmark; tests/bench/run.sh calls this, docs/benchmarks.md
# has the method and results).  By default it measures on the libcuda test
# double (the double is "the driver": LD_LIBRARY_PATH=$BUILD/tests/doubles/cuda,
# unseeded), running $BUILD/tests/cuda/cuda_launch_loop four ways:
#   plain        no interposer;
#   off          LD_PRELOAD=libtracesmith_cuda.so with TRACESMITH_DISABLE=1:
#                the wrappers count calls and record nothing (what merely
#                loading the interposer costs);
#   stacks none  LD_PRELOAD=libtracesmith_cuda.so, TRACESMITH_STACKS=none;
#   stacks work  the same with TRACESMITH_STACKS=work (launches are "work"
#                records, so each launch takes a host call stack);
# every run with TRACESMITH_OUTPUT in a temp folder and every other
# TRACESMITH_* variable unset (TRACESMITH_SNAPSHOT default: one keyframe,
# at the first launch).  Each interposed run must print the interposer's
# exit report (and, recording, count the launches and write a trace), so a
# library that failed to load cannot pass for a cheap one.
#
#   wall      for each launch count, CUDA_BENCH_ROUNDS rounds rotating which
#             of the four goes first; per round the program's own
#             ns_per_launch (first launch to the end of the final
#             synchronisation) of each way minus plain's, and over plain's;
#             prints medians with min and max, the median whole-process
#             time and the trace bytes per launch.
#   callgrind instructions per launch added, for off, none and work:
#             ((Ir(way, 2N) - Ir(way, N)) - (Ir(plain, 2N) - Ir(plain, N))) / N,
#             over all threads, and split into the application's thread
#             (the one that calls cuLaunchKernel) and the others (our
#             writer thread, the double's stream workers); also plain's own
#             Ir per launch (the double and the loop), for scale.  Median
#             of CUDA_BENCH_CG_RUNS runs per point.
#   profile   (only when named) where the application thread's
#             instructions go: for none and work (and, with --base LIB, the
#             same two with LIB), one callgrind run at N and
#             one at 2N, `callgrind_annotate --inclusive=yes` of thread 1,
#             the functions with the most inclusive Ir per launch added
#             from N to 2N.
#
#   self      (only when named) the application thread's self Ir per launch
#             from N to 2N in the interposer's and the capture runtime's own
#             source files (paths with interpose/ or capture/, inlined code
#             included), per file and in total, for stacks none, stacks work
#             (and none, mono) and, with --base LIB, each of those ways with
#             LIB preloaded instead (another build of libtracesmith_cuda.so,
#             measured in the same run).
#
# CUDA_BENCH_MONO=1 adds a fifth way, stacks none with TRACESMITH_CLOCK=monotonic.
#   BUILD=build sh tests/bench/cuda_bench.sh [--only wall,callgrind,profile,self]
#       [--launches 10000,100000] [--driver double|system] [--program PATH]
#       [--base LIB]
# --driver system leaves LD_LIBRARY_PATH alone (the real libcuda.so.1, or
# whatever the loader finds) and --program runs another program with the
# same interface (`--launches N`, prints "launches N ns_per_launch X");
# tests/gpu/bench_launch.sh uses both on a GPU.
# Environment: CUDA_BENCH_ROUNDS (default 21), CUDA_BENCH_CG_LAUNCHES (N,
# default 10000), CUDA_BENCH_CG_RUNS (default 3), BENCH_TMP (where traces
# go; default $TMPDIR or /tmp).
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
if [ ! -e "$BUILD/interpose/libtracesmith_cuda.so" ] && [ ! -e "$BUILD/tests/doubles/cuda/libcuda.so.1" ]; then
	echo "cuda_bench: SKIPPED: the CUDA parts are not built (no CUDA toolkit headers: cuda.h)"
	exit 0
fi
CUDA_BENCH_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/cudabench.XXXXXX")
trap 'rm -rf "$CUDA_BENCH_TMP"' EXIT INT TERM
export CUDA_BENCH_TMP
BUILD=$BUILD python3 - "$@" <<'EOF'
import argparse, glob, os, re, resource, shutil, statistics, subprocess, sys, time

B = os.environ["BUILD"]
TMP = os.environ["CUDA_BENCH_TMP"]
LIB = os.path.abspath(os.path.join(B, "interpose/libtracesmith_cuda.so"))
DOUBLE = os.path.abspath(os.path.join(B, "tests/doubles/cuda"))
VARIANTS = ["plain", "off", "none", "work"]
LABEL = {"plain": "plain", "off": "off", "none": "stacks none", "work": "stacks work", "mono": "none, mono"}
for _v in ("none", "work", "mono"):
    LABEL["base:" + _v] = LABEL[_v] + ", --base"
BASE_LIB = None  # --base: the library the "base" way preloads
# CUDA_BENCH_MONO=1 adds a fifth way: stacks none with record times from
# CLOCK_MONOTONIC (TRACESMITH_CLOCK=monotonic) instead of the default clock, to
# tell the clock's share of the cost from the rest.
if os.environ.get("CUDA_BENCH_MONO") == "1":
    VARIANTS.append("mono")
RECORDING = [v for v in VARIANTS if v not in ("plain", "off")]
LOOP_RE = re.compile(r"launches (\d+) ns_per_launch ([0-9.]+)")
REPORT_RE = re.compile(r"cuda: (\d+) calls, (\d+) launches")


class BenchError(Exception):
    pass


def log(msg=""):
    print(msg, flush=True)


def env_int(name, default, lo):
    v = os.environ.get(name, str(default))
    if not v.isdigit() or int(v) < lo:
        raise BenchError("%s='%s' must be an integer >= %d" % (name, v, lo))
    return int(v)


def parse_counts(opt, text):
    out = []
    for part in text.split(","):
        if not part.isdigit() or int(part) < 1:
            raise BenchError("%s: '%s' is not a launch count (want N[,N...], N >= 1)" % (opt, part))
        out.append(int(part))
    return out


def base_env(driver):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TRACESMITH_") and k != "LD_PRELOAD"}
    if driver == "double":
        for k in list(env):
            if k.startswith("TSCUDA_DOUBLE_"):
                del env[k]
        ld = env.get("LD_LIBRARY_PATH")
        env["LD_LIBRARY_PATH"] = DOUBLE + (":" + ld if ld else "")
    return env


def variant_env(driver, v, trace):
    if v.startswith("base:"):
        env = variant_env(driver, v[len("base:"):], trace)
        env["LD_PRELOAD"] = BASE_LIB
        return env
    env = base_env(driver)
    if v != "plain":
        env["LD_PRELOAD"] = LIB
        env["TRACESMITH_OUTPUT"] = trace
    if v == "off":
        env["TRACESMITH_DISABLE"] = "1"
    elif v == "mono":
        env["TRACESMITH_STACKS"] = "none"
        env["TRACESMITH_CLOCK"] = "monotonic"
    elif v != "plain":
        env["TRACESMITH_STACKS"] = v
    return env


def tail(text, n=12):
    return "\n".join(text.splitlines()[-n:])


def check_captured(v, n, out, trace):
    """The interposer must really have been there: its exit report counts
    the calls; recording, it counts the launches and writes the trace;
    off, it records no launch and writes nothing."""
    bad = re.search(r"TRACESMITH_\w+='[^']*' is not[^\n]*", out)
    if bad:
        raise BenchError("%s: the runtime refused a setting of the bench: %s" % (LABEL[v], bad.group(0)))
    m = REPORT_RE.search(out)
    if not m:
        raise BenchError("%s: no exit report from the interposer (was %s loaded?):\n%s"
                         % (LABEL[v], LIB, tail(out)))
    if int(m.group(1)) < n:
        raise BenchError("%s: the interposer saw %s driver calls, expected at least %d:\n%s"
                         % (LABEL[v], m.group(1), n, tail(out)))
    if v == "off":
        if int(m.group(2)) != 0 or os.path.exists(trace):
            raise BenchError("off: TRACESMITH_DISABLE=1 still recorded (%s launches, trace %s)"
                             % (m.group(2), "written" if os.path.exists(trace) else "absent"))
        return
    if int(m.group(2)) < n:
        raise BenchError("%s: the interposer saw %s launches, expected at least %d:\n%s"
                         % (LABEL[v], m.group(2), n, tail(out)))
    if not os.path.exists(trace) or os.path.getsize(trace) == 0:
        raise BenchError("%s: no trace written to %s" % (LABEL[v], trace))


def run_once(a, v, n):
    """One run: (ns per launch from the program, process seconds, trace
    bytes, process user s, system s, context switches)."""
    trace = os.path.join(TMP, "run.sbt")
    if os.path.exists(trace):
        os.unlink(trace)
    cmd = [a.program, "--launches", str(n)]
    # Runs are one at a time, so the children's usage grows by this one's.
    u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=variant_env(a.driver, v, trace), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    t = time.perf_counter() - t0
    u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise BenchError("%s: exit %d: %s\n%s" % (LABEL[v], p.returncode, " ".join(cmd), tail(p.stdout)))
    m = LOOP_RE.search(p.stdout)
    if not m or int(m.group(1)) != n:
        raise BenchError("%s: %s printed no 'launches %d ns_per_launch X' line:\n%s"
                         % (LABEL[v], a.program, n, tail(p.stdout)))
    size = 0
    if v != "plain":
        check_captured(v, n, p.stdout, trace)
    if v in RECORDING:
        size = os.path.getsize(trace)
        os.unlink(trace)
    return (float(m.group(2)), t, size, u1.ru_utime - u0.ru_utime, u1.ru_stime - u0.ru_stime,
            (u1.ru_nvcsw - u0.ru_nvcsw) + (u1.ru_nivcsw - u0.ru_nivcsw))


def spread(xs, fmt):
    return "%s (%s .. %s)" % (fmt % statistics.median(xs), fmt % min(xs), fmt % max(xs))


def wall(a, n, rounds):
    log("== wall: %d launches per run, %d rounds (%s; first one rotating)"
        % (n, rounds, ", ".join(VARIANTS)))
    res = {v: [] for v in VARIANTS}
    for i in range(rounds):
        k = i % len(VARIANTS)
        order = VARIANTS[k:] + VARIANTS[:k]
        for v in order:
            res[v].append(run_once(a, v, n))
    plain = [r[0] for r in res["plain"]]
    log("%-12s %-32s %-38s %-30s %s" % ("", "ns/launch median (min .. max)",
                                         "added ns/launch vs plain, per round", "ratio to plain, per round",
                                         "process s, trace"))
    log("%-12s %-32s %-38s %-30s %.3f" % ("plain", spread(plain, "%.1f"), "", "",
                                           statistics.median(r[1] for r in res["plain"])))
    summary = {}
    for v in ["off"] + RECORDING:
        ns = [r[0] for r in res[v]]
        added = [ns[i] - plain[i] for i in range(rounds)]
        ratio = [ns[i] / plain[i] for i in range(rounds)]
        size = statistics.median(r[2] for r in res[v])
        log("%-12s %-32s %-38s %-30s %.3f%s" % (
            LABEL[v], spread(ns, "%.1f"), spread(added, "%+.1f"), spread(ratio, "%.3f"),
            statistics.median(r[1] for r in res[v]),
            ", %.1f B/launch" % (size / n) if v != "off" else ""))
        summary[v] = (statistics.median(added), statistics.median(ratio))
    # Where the time goes (whole process, start and exit included): CPU
    # the kernel counts, and how often the threads were switched out.
    log("%-12s %-26s %-26s %s" % ("", "user ns/launch", "system ns/launch",
                                  "context switches/launch (medians, whole process)"))
    for v in VARIANTS:
        log("%-12s %-26.0f %-26.0f %.3f" % (
            LABEL[v], statistics.median(r[3] for r in res[v]) * 1e9 / n,
            statistics.median(r[4] for r in res[v]) * 1e9 / n,
            statistics.median(r[5] for r in res[v]) / n))
    if a.driver == "system":
        # The CUDA issue's goal is for a GPU; only meaningful with the real
        # driver: at most 100 ns added per launch without stacks (it
        # replaces issue 4's 5 % / 1 us).
        a_none, r_none = summary["none"]
        a_work = summary["work"][0]
        log("goal (GPU): stacks none at most 100 ns added per launch: %+.1f ns (%+.1f%%) -> %s; "
            "stacks work: %+.1f ns" % (a_none, 100 * (r_none - 1),
                                       "met" if a_none <= 100 else "NOT met", a_work))
    log()


def cg_run(a, v, n, k, keep=False):
    """Ir of one callgrind run: (all threads, the main thread); keep leaves
    the main thread's file (BASE-01) in place."""
    trace = os.path.join(TMP, "cg.sbt")
    if os.path.exists(trace):
        os.unlink(trace)
    base = os.path.join(TMP, "cg.%s.%d.%d.out" % (v, n, k))
    cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
           "--callgrind-out-file=" + base, a.program, "--launches", str(n)]
    # LD_PRELOAD reaches the program through valgrind (it adds its own
    # preloads in front); the launcher itself makes no driver call.
    p = subprocess.run(cmd, env=variant_env(a.driver, v, trace), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    if p.returncode != 0:
        raise BenchError("callgrind %s: exit %d: %s\n%s" % (LABEL[v], p.returncode, " ".join(cmd),
                                                            tail(p.stdout)))
    if v != "plain":
        check_captured(v, n, p.stdout, trace)
    if v in RECORDING or v.startswith("base:"):
        os.unlink(trace)
    total = main = None
    files = sorted(glob.glob(base + "-*"))
    if not files:
        raise BenchError("callgrind %s: wrote no %s-NN files" % (LABEL[v], base))
    total = 0
    for f in files:
        with open(f) as fh:
            m = re.search(r"^summary: (\d+)", fh.read(), re.M)
        if not m:
            raise BenchError("callgrind %s: no 'summary:' line in %s" % (LABEL[v], f))
        total += int(m.group(1))
        if f.endswith("-01"):
            main = int(m.group(1))
            if keep:
                continue
        os.unlink(f)
    if main is None:
        raise BenchError("callgrind %s: no file for thread 1 (%s-01)" % (LABEL[v], base))
    return total, main


def callgrind(a, n, runs):
    log("== callgrind: Ir at N=%d and 2N=%d launches, median of %d runs per point" % (n, 2 * n, runs))
    per = {}
    for v in VARIANTS:
        pts = {}
        for m in (n, 2 * n):
            rs = [cg_run(a, v, m, k) for k in range(runs)]
            pts[m] = (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs))
        per[v] = ((pts[2 * n][0] - pts[n][0]) / n, (pts[2 * n][1] - pts[n][1]) / n)
    log("%-12s %-26s %-26s %s" % ("", "Ir/launch all threads", "app thread", "other threads"))
    pa, pm = per["plain"]
    log("%-12s %-26.0f %-26.0f %.0f   (the double and the loop: for scale)" % ("plain", pa, pm, pa - pm))
    for v in ("off", "none", "work"):
        ca, cm = per[v]
        log("%-12s %-26s %-26s %s" % (LABEL[v], "%.0f (added %+.0f)" % (ca, ca - pa),
                                       "%.0f (added %+.0f)" % (cm, cm - pm),
                                       "%.0f (added %+.0f)" % (ca - cm, (ca - cm) - (pa - pm))))
    log()


def annotate(path):
    """Inclusive Ir per function of one callgrind file, keyed by
    'file:function' with the file's base name (the same function can be
    listed under a relative and an absolute source path)."""
    p = subprocess.run(["callgrind_annotate", "--auto=no", "--tree=none", "--threshold=100",
                        "--inclusive=yes", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    if p.returncode != 0:
        raise BenchError("callgrind_annotate %s: exit %d:\n%s" % (path, p.returncode, tail(p.stdout)))
    d = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*?)(?: \[.*\])?$", line)
        if not m or "PROGRAM TOTALS" in m.group(2):
            continue
        f, _, fn = m.group(2).rpartition(":")
        key = "%s:%s" % (os.path.basename(f), fn)
        d[key] = max(d.get(key, 0), int(m.group(1).replace(",", "")))
    return d


def profile(a, n, top):
    log("== profile: application thread, inclusive Ir per launch added from N=%d to 2N=%d"
        % (n, 2 * n))
    skip = re.compile(r"(below main)|__libc_start|^\?\?\?:0x|:main$")
    for v in ("none", "work") + (("base:none", "base:work") if BASE_LIB else ()):
        d = {}
        for m in (n, 2 * n):
            cg_run(a, v, m, 0, keep=True)
            path = os.path.join(TMP, "cg.%s.%d.0.out-01" % (v, m))
            d[m] = annotate(path)
            os.unlink(path)
        rows = sorted(((d[2 * n].get(k, 0) - d[n].get(k, 0)) / n, k)
                      for k in set(d[n]) | set(d[2 * n]) if not skip.search(k))
        log("%s%s:" % (LABEL[v], " (%s)" % BASE_LIB if v.startswith("base:") else ""))
        for ir, k in list(reversed(rows))[:top]:
            log("  %8.0f  %s" % (ir, k))
    log()


def self_ir(path):
    """Self Ir per source file of one callgrind file, for the files of the
    interposer and the capture runtime (a path with interpose/ or
    capture/, keyed from there on: the same file can be listed under a
    relative and an absolute path)."""
    p = subprocess.run(["callgrind_annotate", "--auto=no", "--tree=none", "--threshold=100", path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if p.returncode != 0:
        raise BenchError("callgrind_annotate %s: exit %d:\n%s" % (path, p.returncode, tail(p.stdout)))
    d = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*?)(?: \[.*\])?$", line)
        if not m or "PROGRAM TOTALS" in m.group(2):
            continue
        f = m.group(2).rpartition(":")[0]
        k = re.search(r"(interpose/.*|capture/.*)$", f)
        if k:
            d[k.group(1)] = d.get(k.group(1), 0) + int(m.group(1).replace(",", ""))
    return d


def self_part(a, n):
    log("== self: application thread, self Ir per launch from N=%d to 2N=%d in the "
        "interposer's and the runtime's files" % (n, 2 * n))
    for v in [w for u in RECORDING for w in [u] + (["base:" + u] if BASE_LIB else [])]:
        d = {}
        for m in (n, 2 * n):
            cg_run(a, v, m, 0, keep=True)
            path = os.path.join(TMP, "cg.%s.%d.0.out-01" % (v, m))
            d[m] = self_ir(path)
            os.unlink(path)
        rows = sorted(((d[2 * n].get(k, 0) - d[n].get(k, 0)) / n, k)
                      for k in set(d[n]) | set(d[2 * n]))
        log("%s%s:" % (LABEL[v], " (%s)" % BASE_LIB if v.startswith("base:") else ""))
        for ir, k in reversed(rows):
            if abs(ir) >= 0.05:
                log("  %8.1f  %s" % (ir, k))
        log("  %8.1f  total" % sum(ir for ir, _ in rows))
    log()


def main():
    global BASE_LIB
    ap = argparse.ArgumentParser(prog="cuda_bench.sh")
    ap.add_argument("--only", default="wall,callgrind")
    ap.add_argument("--launches", default="10000,100000")
    ap.add_argument("--driver", choices=["double", "system"], default="double")
    ap.add_argument("--program", default=os.path.join(B, "tests/cuda/cuda_launch_loop"))
    ap.add_argument("--base", default=None)
    a = ap.parse_args()
    parts = [p for p in a.only.split(",") if p]
    for p in parts:
        if p not in ("wall", "callgrind", "profile", "self"):
            raise BenchError("--only: unknown part '%s' (have wall,callgrind,profile,self)" % p)
    if a.base is not None:
        if not os.path.isfile(a.base):
            raise BenchError("--base: %s is not a file" % a.base)
        BASE_LIB = os.path.abspath(a.base)
    counts = parse_counts("--launches", a.launches)
    rounds = env_int("CUDA_BENCH_ROUNDS", 21, 1)
    cg_n = env_int("CUDA_BENCH_CG_LAUNCHES", 10000, 1)
    cg_runs = env_int("CUDA_BENCH_CG_RUNS", 3, 1)
    if not os.path.exists(LIB):
        raise BenchError("%s is not built; run make" % LIB)
    if a.driver == "double" and not os.path.exists(os.path.join(DOUBLE, "libcuda.so.1")):
        raise BenchError("%s/libcuda.so.1 (the libcuda test double) is not built; run make" % DOUBLE)
    if not os.access(a.program, os.X_OK):
        raise BenchError("%s is not built (or not executable); run make" % a.program)
    log("cuda_bench: %s, %d CPUs, driver %s, program %s, traces in %s" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(),
        "the libcuda test double (%s)" % DOUBLE if a.driver == "double"
        else "libcuda.so.1 as the loader finds it", a.program, TMP))
    log()
    if "wall" in parts:
        for n in counts:
            wall(a, n, rounds)
    if "callgrind" in parts:
        if shutil.which("valgrind") is None:
            log("== callgrind: SKIPPED: valgrind is not installed")
        else:
            callgrind(a, cg_n, cg_runs)
    if "profile" in parts:
        if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
            log("== profile: SKIPPED: valgrind or callgrind_annotate is not installed")
        else:
            profile(a, cg_n, 16)
    if "self" in parts:
        if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
            log("== self: SKIPPED: valgrind or callgrind_annotate is not installed")
        else:
            self_part(a, cg_n)
    return 0


try:
    sys.exit(main())
except BenchError as e:
    sys.stderr.write("cuda_bench: %s\n" % e)
    sys.exit(1)
EOF
