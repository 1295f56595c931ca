#!/bin/sh
# What the Vulkan layer costs the application's thread per recorded vkCmd*
# (issue 11 section 4, issue 9's tracking cost; docs/benchmarks.md has the
# method and results).  vk_callbound --cmds 4000 --every 1000 under
# callgrind (--separate-threads=yes): the application thread's instructions
# at 40 submits minus those at 20, over the commands recorded between them
# (80,200), so set-up and teardown cancel out.  On lavapipe, no validation
# layer, no display.  Ways:
#
#   plain      no layer
#   dispatch   the dispatch-only build of the layer ($BUILD/layers_dispatch:
#              the same wrappers compiled with VKL_DISPATCH_ONLY, every one
#              a look-up of the next layer's entry point and the call down)
#   disabled   the layer with TRACESMITH_DISABLE=1 (pass-through at run time)
#   tracking   the layer with a trigger whose window never opens
#              (TRACESMITH_TRIGGER=frames:1000000-1000001): it keeps what a
#              snapshot needs, records nothing; the window is known ahead,
#              so vk_callbound's command buffers, recorded again for each
#              submit, keep no calls after their first recording
#              (docs/vulkan-layer.md, "Recordings that are not kept")
#   signal     the same with a trigger that gives no notice
#              (TRACESMITH_TRIGGER=signal, no SIGUSR1 sent): a recording
#              submitted in the frame it began keeps no calls (each
#              command buffer's first recording is kept)
#   recording  the layer recording the whole run (TRACESMITH_STACKS=none;
#              the vkCmd* take no stack under the default policy either)
#
# With --base DIR, one more way, base: tracking as above (or, with
# --base-way WAY, that way: recording, signal, disabled) with the layer
# built in DIR (a copy of another commit's $BUILD/layers, to compare two
# layers in one run).  Each is printed per command and as added to plain and to
# dispatch.  With
# --annotate, the application thread's self instructions per command of
# every function that spends at least 1 per command (callgrind_annotate of
# the two runs, the difference over the commands) follow each layer way,
# and their sum over the layer's and the capture runtime's own functions
# (vkl_*, cap_*, sbt_*, and the TLS descriptor resolver
# _dl_tlsdesc_return): what the layer spends itself, which the heap's
# history does not move (lavapipe allocates per command, and what glibc's
# malloc costs it depends on every allocation before, the layer's too:
# GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 fixes the threshold
# glibc otherwise moves when an mmapped chunk is freed, for every way).
# Instruction counts do not depend on the machine's load.
#
#   BUILD=build sh tests/bench/vk_cmd_bench.sh [--only plain,dispatch,...] [--base DIR [--base-way WAY]] [--annotate]
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
vk_env_layers_none
command -v valgrind >/dev/null 2>&1 || vk_env_fail "valgrind is not installed (scripts/deps.sh)"
[ -x "$BUILD/tests/programs/vk_callbound" ] || vk_env_fail "$BUILD/tests/programs/vk_callbound is not built; run make"
[ -f "$BUILD/layers_dispatch/libVkLayer_tracesmith.so" ] ||
	vk_env_fail "$BUILD/layers_dispatch is not built; run make $BUILD/layers_dispatch/VkLayer_tracesmith.json"
CMD_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/vkcmdbench.XXXXXX")
trap 'rm -rf "$CMD_TMP"' EXIT INT TERM
export CMD_TMP VK_ENV_BUILD
python3 - "$@" <<'EOF'
import argparse, glob, os, re, subprocess, sys

B = os.environ["VK_ENV_BUILD"]
TMP = os.environ["CMD_TMP"]
PROG = os.path.join(B, "tests/programs/vk_callbound")
WAYS = ("plain", "dispatch", "disabled", "tracking", "signal", "recording")
BASE = None  # --base DIR
BASE_WAY = "tracking"  # --base-way


def log(msg):
    print(msg, flush=True)


def env_for(way):
    env = dict(os.environ)
    for k in ("VK_INSTANCE_LAYERS", "TRACESMITH_OUTPUT", "TRACESMITH_TRIGGER", "TRACESMITH_DISABLE",
              "TRACESMITH_STACKS", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(k, None)
    if way == "plain":
        return env
    if way == "base" and BASE_WAY != "tracking":
        env = env_for(BASE_WAY)
        env["VK_ADD_LAYER_PATH"] = BASE
        return env
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_tracesmith"
    env["VK_ADD_LAYER_PATH"] = (BASE if way == "base" else
                                os.path.join(B, "layers_dispatch" if way == "dispatch" else "layers"))
    env["TRACESMITH_OUTPUT"] = os.path.join(TMP, "t.sbt")
    env["TRACESMITH_STACKS"] = "none"
    if way == "disabled":
        env["TRACESMITH_DISABLE"] = "1"
    elif way in ("tracking", "base"):
        env["TRACESMITH_TRIGGER"] = "frames:1000000-1000001"
    elif way == "signal":
        env["TRACESMITH_TRIGGER"] = "signal"
    return env


def run(way, submits):
    """The application thread's instructions and the commands recorded."""
    base = os.path.join(TMP, "cg-%s-%d.out" % (way, submits))
    for f in glob.glob(base + "*") + glob.glob(os.path.join(TMP, "t*.sbt")):
        os.unlink(f)
    p = subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                        "--callgrind-out-file=" + base, PROG, "--submits", str(submits),
                        "--cmds", "4000", "--every", "1000"], env=env_for(way),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != 0:
        raise RuntimeError("%s under callgrind: exit %d\n%s" % (way, p.returncode, p.stderr[-2000:]))
    m = re.search(r" calls (\d+)", p.stdout)
    if not m:
        raise RuntimeError("%s: vk_callbound printed no call count:\n%s" % (way, p.stdout))
    with open(base + "-01") as fh:
        for line in fh:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1]), int(m.group(1)), base + "-01"
    raise RuntimeError("%s: no totals in %s" % (way, base + "-01"))


def self_costs(path):
    """{function: self Ir} of one callgrind file."""
    p = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$", line)
        if not m or ":" not in m.group(2):
            continue
        fn = m.group(2).split(":", 1)[1].split(" [")[0].strip()
        out[fn] = out.get(fn, 0) + int(m.group(1).replace(",", ""))
    return out


ap = argparse.ArgumentParser()
ap.add_argument("--only", default=",".join(WAYS))
ap.add_argument("--annotate", action="store_true")
ap.add_argument("--base", metavar="DIR")
ap.add_argument("--base-way", default="tracking", choices=("tracking", "signal", "recording", "disabled"))
a = ap.parse_args()
ways = a.only.split(",")
if a.base:
    BASE = os.path.abspath(a.base)
    BASE_WAY = a.base_way
    if not os.path.isfile(os.path.join(BASE, "libVkLayer_tracesmith.so")):
        sys.exit("vk_cmd_bench: --base %s holds no libVkLayer_tracesmith.so" % a.base)
    ways.append("base")
for w in ways:
    if w not in WAYS and not (w == "base" and BASE):
        sys.exit("vk_cmd_bench: unknown way '%s' (%s)" % (w, ", ".join(WAYS)))
log("vk_cmd_bench: vk_callbound --cmds 4000 --every 1000, 40 minus 20 submits, "
    "application thread (callgrind --separate-threads=yes)")
per = {}
for w in ways:
    (i20, c20, f20), (i40, c40, f40) = run(w, 20), run(w, 40)
    per[w] = (i40 - i20) / float(c40 - c20)
    extra = ""
    if "plain" in per and w != "plain":
        extra += "   %+7.1f over plain (%+.1f %%)" % (per[w] - per["plain"],
                                                     100.0 * (per[w] / per["plain"] - 1))
    if "dispatch" in per and w not in ("plain", "dispatch"):
        extra += "   %+7.1f over dispatch" % (per[w] - per["dispatch"])
    log("  %-10s %8.1f Ir per command%s" % (w, per[w], extra))
    if a.annotate and w != "plain":
        s20, s40 = self_costs(f20), self_costs(f40)
        rows = sorted(((s40.get(f, 0) - s20.get(f, 0)) / float(c40 - c20), f) for f in s40)
        for v, f in reversed(rows):
            if v >= 1.0:
                log("      %7.1f  %s" % (v, f))
        own = sum(v for v, f in rows if re.match(r"(vkl_|cap_|sbt_|_dl_tlsdesc_return)", f))
        log("      %7.1f  the layer's and the runtime's own" % own)
EOF
