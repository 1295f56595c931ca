#!/bin/sh
# Mapped-memory tracking: tests/programs/vk_mapwrite (host writes a share of
# the pages of one mapping before each submit) over a sweep of mapping sizes
# and written shares (tests/bench/run.sh calls this; docs/benchmarks.md has
# the method and results).  For each point it alternates, round by round:
#   plain      no layer
#   copy-once  no layer, each written page copied once more (vk_mapwrite
#              --copy-once): the least a capture has to do with the data
#   track      no layer, the pages written into a shadow that the layer's
#              own tracker watches and the runs it reports copied into the
#              mapping (vk_mapwrite --track): the least a capture that
#              tracks written pages has to do (a fault per page written, a
#              look per submit, one copy)
#   ours       our layer, the tracker it chooses (uffd here)
#   base       only with VK_MAP_BASE_LAYERS=DIR (a folder holding another
#              build's VkLayer_tracesmith.json, e.g. main's build/layers):
#              that layer, for before/after in the same run
#   shadow     our layer with TRACESMITH_VK_TRACKER=shadow (every byte
#              compared at each submit: what it did before the tracker)
#   noscan     our layer with TRACESMITH_VK_MAP_SCAN=0 (vkMapMemory copies
#              the driver's whole mapping instead of its populated pages)
#   nokeep     our layer with TRACESMITH_VK_MAP_CACHE=0 (vkMapMemory makes
#              fresh memory for the shadow each time instead of taking what
#              an unmapped mapping of the same size left)
#   GFXR       GFXReconstruct's capture layer (page_guard, its default)
# and prints the medians of the submit loop's time (set-up excluded, as the
# program prints it) and the medians of the per-round ratios, so that load
# on the machine shared by both runs of a pair cancels out; and the trace
# sizes.  No validation layer: this measures speed.
#
#   BUILD=build sh tests/bench/vk_map_bench.sh
# Environment: BENCH_RUNS (default 5), BENCH_TMP (where traces go),
# VK_MAP_SWEEP (MIB:PERMILLE[:BYTES] points, default "64:10 64:100 64:1000
# 16:10 16:1000"; BYTES: vk_mapwrite --bytes, that many bytes of each page
# written over a random mapping; remap:KIB[:BYTES] points run vk_mapwrite
# --kib KIB --remap: a small buffer, populated once, mapped, written (1 KiB
# or BYTES) and unmapped at each submit, without the copy-once and track
# runs, which have no such mode), VK_MAP_SUBMITS (default 50),
# VK_MAP_BASE_LAYERS (above), VK_MAP_RUNS (which runs, default all but
# noscan and nokeep: e.g. "plain track ours base", "plain ours noscan").
#
# VK_MAP_CALLGRIND="N1 N2" counts instructions instead of timing: each of
# plain, ours and (with VK_MAP_BASE_LAYERS) base runs once under valgrind
# --tool=callgrind --separate-threads=yes with N1 and with N2 submits, and
# the difference over N2 - N1 is printed per submit for the application's
# thread, the writer thread (the one whose profile names cap_writer_main)
# and the whole process, with the ratios to plain (and noscan and nokeep
# run too when VK_MAP_RUNS names them).  Set-up cancels out and
# the machine's load does not matter.  The layer runs get
# TRACESMITH_FLUSH_MS=3600000: under valgrind the one-second flushes land
# a varying number of times in a run.  Valgrind lacks userfaultfd, so the
# layer runs with the guard tracker there, or with the one named by
# VK_MAP_CALLGRIND_TRACKER (e.g. shadow).  Under valgrind (3.19) a memset
# into a guarded page loses the page's last byte (valgrind alone does
# this, with no layer: docs/benchmarks.md, sparse); vk_mapwrite writes its
# varied bytes with word stores, which valgrind replays exactly (with
# --track under guard it prints the native mapping hash), so the guard
# tracker's pages are the program's.  Valgrind counts each byte of a
# `rep stosb` (glibc's memset of a page) as one instruction, and each word
# store of vk_mapwrite's fill as a few: the plain run's count is mostly the
# program's own writing, which is why docs/benchmarks.md gives the added
# instructions beside the ratios.
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
vk_env_layers_none
[ -x "$BUILD/tests/programs/vk_mapwrite" ] ||
	vk_env_fail "$BUILD/tests/programs/vk_mapwrite is not built; run make"
VK_BENCH_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/vkmapbench.XXXXXX")
trap 'rm -rf "$VK_BENCH_TMP"' EXIT INT TERM
export VK_BENCH_TMP VK_ENV_BUILD
python3 - "$@" <<'EOF'
import os, re, statistics, subprocess

B = os.environ["VK_ENV_BUILD"]
TMP = os.environ["VK_BENCH_TMP"]
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SUBMITS = os.environ.get("VK_MAP_SUBMITS", "50")
SWEEP = os.environ.get("VK_MAP_SWEEP", "64:10 64:100 64:1000 16:10 16:1000").split()
PROG = os.path.join(B, "tests/programs/vk_mapwrite")
GFXR_JSON = "/usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json"


def base_env():
    env = dict(os.environ)
    for k in ("VK_INSTANCE_LAYERS", "GFXRECON_CAPTURE_FILE", "TRACESMITH_OUTPUT",
              "TRACESMITH_VK_TRACKER", "TRACESMITH_VK_MAP_SCAN", "TRACESMITH_VK_MAP_CACHE"):
        env.pop(k, None)
    return env


def run(args, env, out=None):
    p = subprocess.run([PROG] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    m = re.search(r"hash (0x[0-9a-f]+) loop_ms ([0-9.]+)", p.stdout)
    if p.returncode != 0 or not m:
        raise RuntimeError("vk_mapwrite %s: exit %d\n%s" % (" ".join(args), p.returncode,
                                                            p.stdout[-2000:]))
    if out is not None and not os.path.exists(out):
        raise RuntimeError("no trace %s" % out)
    return float(m.group(2)), m.group(1), (os.path.getsize(out) if out else 0)


def ours(args, tracker, out, layers=None, scan=True, keep=True):
    env = base_env()
    if not scan:
        env["TRACESMITH_VK_MAP_SCAN"] = "0"
    if not keep:
        env["TRACESMITH_VK_MAP_CACHE"] = "0"
    if layers:
        env["VK_ADD_LAYER_PATH"] = layers
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_tracesmith"
    env["TRACESMITH_OUTPUT"] = out
    env["TRACESMITH_LOG"] = "info"
    if tracker:
        env["TRACESMITH_VK_TRACKER"] = tracker
    if os.path.exists(out):
        os.unlink(out)
    return run(args, env, out)


def gfxr(args, out):
    env = base_env()
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_LUNARG_gfxreconstruct"
    env["GFXRECON_CAPTURE_FILE"] = out
    env["GFXRECON_CAPTURE_FILE_TIMESTAMP"] = "false"
    if os.path.exists(out):
        os.unlink(out)
    return run(args, env, out)


def callgrind(args, env, n):
    """Instructions per thread kind of one run of n submits under callgrind."""
    out = os.path.join(TMP, "cg")
    subprocess.run(["rm", "-rf", out])
    os.mkdir(out)
    env = dict(env)
    if "TRACESMITH_OUTPUT" in env:
        env["TRACESMITH_FLUSH_MS"] = "3600000"
        if os.environ.get("VK_MAP_CALLGRIND_TRACKER"):
            env["TRACESMITH_VK_TRACKER"] = os.environ["VK_MAP_CALLGRIND_TRACKER"]
    p = subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                        "--callgrind-out-file=" + os.path.join(out, "cg.out"), PROG] +
                       args[:-1] + [str(n)], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    if p.returncode != 0:
        raise RuntimeError("callgrind vk_mapwrite %s: exit %d\n%s" % (" ".join(args), p.returncode,
                                                                      p.stdout[-2000:]))
    kinds = {"app": 0, "writer": 0, "whole": 0}
    for f in os.listdir(out):
        if not f.startswith("cg.out-"):
            continue
        text = open(os.path.join(out, f), errors="replace").read()
        m = re.search(r"^(?:totals|summary): (\d+)", text, re.M)
        ir = int(m.group(1)) if m else 0
        kinds["whole"] += ir
        if "cap_writer_main" in text:
            kinds["writer"] += ir
        elif f.endswith("-01"):
            kinds["app"] += ir
    return kinds


def layer_env(layers=None):
    env = base_env()
    if layers:
        env["VK_ADD_LAYER_PATH"] = layers
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_tracesmith"
    env["TRACESMITH_OUTPUT"] = os.path.join(TMP, "cg.sbt")
    return env


def point_args(point):
    """MIB:PERMILLE[:BYTES] or remap:KIB[:BYTES] as vk_mapwrite's options."""
    f = point.split(":")
    if f[0] == "remap":
        if len(f) not in (2, 3) or not all(x.isdigit() for x in f[1:]):
            raise SystemExit("VK_MAP_SWEEP point %s: remap:KIB or remap:KIB:BYTES" % point)
        return ["--kib", f[1], "--remap"] + (["--bytes", f[2]] if len(f) == 3 else [])
    if len(f) not in (2, 3) or not all(x.isdigit() for x in f):
        raise SystemExit("VK_MAP_SWEEP point %s: MIB:PERMILLE or MIB:PERMILLE:BYTES" % point)
    args = ["--mib", f[0], "--permille", f[1]]
    if len(f) == 3:
        args += ["--bytes", f[2]]
    return args


def point_name(point):
    f = point.split(":")
    if f[0] == "remap":
        return "%s KiB mapped, %s bytes written and unmapped per submit" % (
            f[1], f[2] if len(f) == 3 else "1024")
    what = "%s bytes of" % f[2] if len(f) == 3 else "whole"
    return "%s MiB, %.1f %% of pages written per submit (%s pages)" % (f[0], int(f[1]) / 10.0,
                                                                         what)


BASE = os.environ.get("VK_MAP_BASE_LAYERS", "")
if BASE and not os.path.exists(os.path.join(BASE, "VkLayer_tracesmith.json")):
    raise SystemExit("VK_MAP_BASE_LAYERS=%s holds no VkLayer_tracesmith.json" % BASE)
CG = os.environ.get("VK_MAP_CALLGRIND", "").split()
if CG:
    if len(CG) != 2 or not all(x.isdigit() for x in CG) or int(CG[0]) >= int(CG[1]):
        raise SystemExit("VK_MAP_CALLGRIND=%s: two submit counts, the first smaller" %
                         " ".join(CG))
    n1, n2 = int(CG[0]), int(CG[1])
    print("instructions per submit (callgrind, runs of %d and %d submits)" % (n1, n2))
    for point in SWEEP:
        args = point_args(point) + ["--submits", "0"]
        envs = [("plain", base_env()), ("ours", layer_env())]
        if "noscan" in os.environ.get("VK_MAP_RUNS", "").split():
            envs.append(("noscan", layer_env()))
            envs[-1][1]["TRACESMITH_VK_MAP_SCAN"] = "0"
        if "nokeep" in os.environ.get("VK_MAP_RUNS", "").split():
            envs.append(("nokeep", layer_env()))
            envs[-1][1]["TRACESMITH_VK_MAP_CACHE"] = "0"
        if BASE:
            envs.append(("base", layer_env(BASE)))
        per = {}
        for name, env in envs:
            a, b = callgrind(args, env, n1), callgrind(args, env, n2)
            per[name] = {k: (b[k] - a[k]) / float(n2 - n1) for k in a}
        print("== %s" % point_name(point))
        for name, _ in envs:
            c = per[name]
            print("  %-6s app %9.0f K  writer %9.0f K  whole %9.0f K  whole/plain %.2f  "
                  "app/plain %.2f" % (name, c["app"] / 1e3, c["writer"] / 1e3, c["whole"] / 1e3,
                                      c["whole"] / per["plain"]["whole"],
                                      c["app"] / per["plain"]["app"]), flush=True)
    raise SystemExit(0)
WANT = os.environ.get("VK_MAP_RUNS", "").split()
have_gfxr = os.path.exists(GFXR_JSON)
print("vk_mapwrite, %s submits, %d alternating rounds; times are the submit loop's, "
      "ratios the medians of per-round ratios" % (SUBMITS, RUNS), flush=True)
if not have_gfxr:
    print("GFXReconstruct's layer is not installed (%s): scripts/deps.sh" % GFXR_JSON)
for point in SWEEP:
    args = point_args(point) + ["--submits", SUBMITS]
    remap = "--remap" in args
    fns = {
        "plain": lambda: run(args, base_env()),
        "copy-once": lambda: run(args + ["--copy-once"], base_env()),
        "track": lambda: run(args + ["--track"], base_env()),
        "ours": lambda: ours(args, None, os.path.join(TMP, "ours.sbt")),
        "noscan": lambda: ours(args, None, os.path.join(TMP, "noscan.sbt"), scan=False),
        "nokeep": lambda: ours(args, None, os.path.join(TMP, "nokeep.sbt"), keep=False),
        "shadow": lambda: ours(args, "shadow", os.path.join(TMP, "shadow.sbt")),
    }
    if remap:
        del fns["copy-once"], fns["track"]
    if BASE:
        fns["base"] = lambda: ours(args, None, os.path.join(TMP, "base.sbt"), BASE)
    if have_gfxr:
        fns["GFXR"] = lambda: gfxr(args, os.path.join(TMP, "gfxr.gfxr"))
    if WANT:
        known = list(fns) + (["copy-once", "track"] if remap else [])
        unknown = [n for n in WANT if n not in known]
        if unknown or "plain" not in WANT:
            raise SystemExit("VK_MAP_RUNS=%s: runs are %s, plain among them" %
                             (" ".join(WANT), " ".join(known)))
        fns = {n: fns[n] for n in fns if n in WANT}
    else:
        del fns["noscan"], fns["nokeep"]
    names = list(fns)
    res = {n: [] for n in names}
    for i in range(RUNS):
        order = names[i % len(names):] + names[:i % len(names)]
        for n in order:
            res[n].append(fns[n]())
    hashes = {r[1] for n in names for r in res[n]}
    if len(hashes) != 1:
        raise SystemExit("vk_mapwrite %s: the result differs between runs: %s" % (point, hashes))
    t = {n: [r[0] for r in res[n]] for n in names}
    print("== %s" % point_name(point))
    for n in names:
        size = res[n][-1][2]
        print("  %-9s %9.1f ms%s" % (n, statistics.median(t[n]),
                                     "  trace %.1f KiB" % (size / 1024.0) if size else ""))
    def ratio(a, b):
        return statistics.median([t[a][i] / t[b][i] for i in range(RUNS)])
    pairs = [("ours", "plain"), ("ours", "copy-once"), ("track", "plain"), ("ours", "track"),
             ("noscan", "plain"), ("ours", "noscan"), ("nokeep", "plain"), ("ours", "nokeep"),
             ("shadow", "plain"), ("ours", "shadow"), ("base", "plain"), ("ours", "base"),
             ("GFXR", "plain"), ("ours", "GFXR")]
    print("  " + "  ".join("%s/%s %.2f" % (a, b, ratio(a, b)) for a, b in pairs
                           if a in t and b in t), flush=True)
EOF
