#!/bin/sh
# GPU only, by hand or from tests/gpu/lease.sh (not a test): what a
# framework's preallocation costs under capture, and how fast keyframes copy
# device memory (the CUDA issue's snapshot goals: a preallocation adds under
# 1 s; a keyframe that must copy device memory runs at >= 10 GB/s).
#   prealloc  gpu_prealloc --gib G (one cudaMalloc of G GiB, 4 MiB of it
#             used): plain, captured with the default policy, captured with
#             TRACESMITH_SNAPSHOT=launch (every live allocation copied
#             before and after each launch), rounds alternating; medians of
#             the process times; the keyframe bytes (tsinfo --dump) over the
#             time the keyframed capture took beyond the default one; the
#             default trace replayed (exit status and time).  Once with the
#             preallocation untouched, once --fill (no zero pages).
#   jax       tests/gpu/gpu_jax.py (JAX's own preallocation of 75 % of the
#             GPU): plain against captured, trace size, replay.
#   BUILD=build sh tests/gpu/bench_prealloc.sh
# Environment: GPU_PREALLOC_GIB (default 16), GPU_BENCH_ROUNDS (default 3),
# GPU_PREALLOC_POOL_AB=1 (also keyframes with TRACESMITH_HASH_THREADS=0),
# GPU_PREBUILT=1 (use $BUILD/gpu/gpu_prealloc as built by scripts/gpu_pack.sh).
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G=$BUILD/gpu
mkdir -p "$G"
[ "${GPU_PREBUILT:-0}" = 1 ] && [ -x "$G/gpu_prealloc" ] ||
	"$CUDA_HOME/bin/nvcc" -O2 -arch=sm_90 -Itests/gpu -o "$G/gpu_prealloc" tests/gpu/gpu_prealloc.cu
T=$(mktemp -d "${TMPDIR:-/tmp}/prealloc.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
BUILD=$BUILD T=$T python3 -u - <<'PYEOF'
import os, re, statistics, subprocess, sys, time

B, T = os.environ["BUILD"], os.environ["T"]
ROUNDS = int(os.environ.get("GPU_BENCH_ROUNDS", "3"))
GIB = os.environ.get("GPU_PREALLOC_GIB", "16")


def run(argv, env=None, check=True):
    e = {k: v for k, v in os.environ.items() if not k.startswith("TRACESMITH_")}
    e.update(env or {})
    t0 = time.monotonic()
    p = subprocess.run(argv, env=e, capture_output=True, text=True)
    dt = time.monotonic() - t0
    if check and p.returncode != 0:
        sys.exit("bench_prealloc: %s: exit %d: %s" % (" ".join(argv), p.returncode, p.stderr[-1500:]))
    return p, dt


def snap_bytes(trace):
    d = subprocess.run([os.path.join(B, "tsinfo"), "--dump", trace], capture_output=True, text=True).stdout
    return sum(int(m) for m in re.findall(r"cuda\.tsSnapshot dst=\d+ size=(\d+)", d))


def capture(argv, trace, env=None):
    return run([os.path.join(B, "tscapture"), "-o", trace, "--"] + argv, env)


# The capture runtime's keyframe line at TRACESMITH_LOG=info.
KF_RE = re.compile(r"keyframes: ([\d.]+) MiB copied from device memory, ([\d.]+) s waiting for the "
                   r"copies, ([\d.]+) s storing them \((\d+) page-hash threads?\)")


def prealloc(fill):
    argv = [os.path.join(B, "gpu/gpu_prealloc"), "--gib", GIB] + (["--fill"] if fill else [])
    print("== prealloc: %s, %d rounds" % (" ".join(argv[1:]), ROUNDS), flush=True)
    # launch: keyframes before and after every launch; launch0 (with
    # GPU_PREALLOC_POOL_AB=1): the same with the page hashes on the
    # recording thread alone (TRACESMITH_HASH_THREADS=0)
    ways = ["plain", "default", "launch"] + (["launch0"] if os.environ.get("GPU_PREALLOC_POOL_AB") == "1" else [])
    t = {w: [] for w in ways}
    rates = {w: [] for w in ways if w.startswith("launch")}
    split = {w: [] for w in rates}
    kb, db = 0, 0
    for r in range(ROUNDS):
        got = {}
        k = r % len(ways)
        for w in ways[k:] + ways[:k]:
            tr = os.path.join(T, w + ".sbt")
            if w == "plain":
                p, dt = run(argv)
                out = p.stdout
            else:
                env = None
                if w.startswith("launch"):
                    env = {"TRACESMITH_SNAPSHOT": "launch", "TRACESMITH_LOG": "info"}
                    if w == "launch0":
                        env["TRACESMITH_HASH_THREADS"] = "0"
                p, dt = capture(argv, tr, env)
                out = p.stdout
                if w.startswith("launch"):
                    kb = snap_bytes(tr)
                    m = KF_RE.search(p.stderr)
                    if not m:
                        sys.exit("bench_prealloc: %s: no keyframe line: %s" % (w, p.stderr[-1500:]))
                    split[w].append((float(m.group(2)), float(m.group(3)), int(m.group(4))))
                else:
                    db = snap_bytes(tr)
                    size = os.path.getsize(tr)
            got[w] = dt
            t[w].append(dt)
            if "hash" not in out:
                sys.exit("bench_prealloc: %s printed %r" % (w, out))
        for w in rates:
            if got[w] > got["default"]:
                rates[w].append(kb / (got[w] - got["default"]) / 1e9)
    med = {k: statistics.median(v) for k, v in t.items()}
    print("process s (median): plain %.3f, captured %.3f (+%.3f s), keyframed %.3f" % (
        med["plain"], med["default"], med["default"] - med["plain"], med["launch"]))
    print("default trace %d bytes, %d bytes of device memory copied; keyframed capture copied %d bytes" % (
        size, db, kb))
    for w in rates:
        if rates[w]:
            print("keyframe rate%s: median %.2f GB/s (%.2f-%.2f); waiting for copies %.2f s, storing %.2f s "
                  "(medians), %d page-hash threads" % (
                      "" if w == "launch" else " (page hashes on the recording thread alone)",
                      statistics.median(rates[w]), min(rates[w]), max(rates[w]),
                      statistics.median(x[0] for x in split[w]), statistics.median(x[1] for x in split[w]),
                      split[w][-1][2]))
    p, dt = run([os.path.join(B, "tsreplay"), os.path.join(T, "default.sbt")], check=False)
    print("replay of the default trace: exit %d in %.3f s: %s" % (
        p.returncode, dt, (p.stdout + p.stderr).strip().splitlines()[-1:]), flush=True)
    print()


def jax():
    argv = ["python3", os.path.join("tests/gpu/gpu_jax.py")]
    print("== jax: %s, %d rounds" % (argv[1], ROUNDS), flush=True)
    tp, tc = [], []
    tr = os.path.join(T, "jax.sbt")
    for r in range(ROUNDS):
        for w in (["plain", "cap"] if r % 2 == 0 else ["cap", "plain"]):
            if w == "plain":
                p, dt = run(argv)
                tp.append(dt)
                po = p.stdout
            else:
                p, dt = capture(argv, tr)
                tc.append(dt)
                co = p.stdout
                err = p.stderr
    print("process s (median): plain %.3f, captured %.3f (+%.3f s); outputs %s" % (
        statistics.median(tp), statistics.median(tc), statistics.median(tc) - statistics.median(tp),
        "equal" if po == co else "DIFFER: %r / %r" % (po, co)))
    print("trace %d bytes, %d bytes of device memory copied; capture said: %s" % (
        os.path.getsize(tr), snap_bytes(tr), err.strip().splitlines()[-2:]))
    p, dt = run([os.path.join(B, "tsreplay"), tr], check=False)
    print("replay: exit %d in %.3f s: %s" % (p.returncode, dt, (p.stdout + p.stderr).strip().splitlines()[-2:]))
    print()


jax()
prealloc(False)
prealloc(True)
PYEOF
