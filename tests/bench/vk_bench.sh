#!/bin/sh
# Vulkan capture and replay, TraceSmith side by side with GFXReconstruct in
# the same run (tests/bench/run.sh calls this; docs/benchmarks.md has the
# method and results).  For each workload it alternates, round by round,
# a plain run, a GFXReconstruct capture and (when our layer writes traces) a
# TraceSmith capture, then alternates the two replays, and prints medians
# and the ratios:
#   capture overhead (captured - plain) / plain, for each, and ours / GFXR;
#   trace size ours / GFXR; replay time ours / GFXR.
# Everything runs on lavapipe under one private Xvfb (vkcube presents to
# it; both replayers find the same DISPLAY).  No validation layer: this
# measures speed.
#
#   BUILD=build sh tests/bench/vk_bench.sh [--only cube300,cube3000,compute,callbound]
#   BUILD=build sh tests/bench/vk_bench.sh --callgrind
# --callgrind instead counts instructions (valgrind --tool=callgrind, whole
# process, all threads) per recorded command of vk_callbound, for a plain
# run, ours and GFXReconstruct's capture: the difference between 40 and 20
# submits of 4000 commands, divided by the difference in commands, so set-up
# and teardown cancel out.  Load on the machine does not change these.
# Environment: BENCH_RUNS (default 5), BENCH_TMP (where traces go; default
# $TMPDIR or /tmp), VK_BENCH_COMPUTE (vk_compute options, default
# "--size 1048576 --submits 16"), VK_BENCH_CALLBOUND (vk_callbound options,
# default "--submits 400 --cmds 4000 --every 1000").
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
vk_env_layers_none
for p in vk_compute vk_callbound; do
	[ -x "$BUILD/tests/programs/$p" ] || vk_env_fail "$BUILD/tests/programs/$p is not built; run make"
done
for c in vkcube gfxrecon-replay; do
	command -v "$c" >/dev/null 2>&1 || vk_env_fail "$c is not installed (scripts/deps.sh)"
done
VK_BENCH_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/vkbench.XXXXXX")
trap 'vk_env_xvfb_stop; rm -rf "$VK_BENCH_TMP"' EXIT INT TERM
vk_env_xvfb_start
export VK_BENCH_TMP VK_ENV_BUILD
python3 - "$@" <<'EOF'
import argparse, os, shlex, statistics, subprocess, sys, time

B = os.environ["VK_ENV_BUILD"]
TMP = os.environ["VK_BENCH_TMP"]
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
COMPUTE = shlex.split(os.environ.get("VK_BENCH_COMPUTE", "--size 1048576 --submits 16"))
CALLBOUND = shlex.split(os.environ.get("VK_BENCH_CALLBOUND",
                                       "--submits 400 --cmds 4000 --every 1000"))
PROGS = os.path.join(B, "tests/programs")
WORKLOADS = {
    "cube300": ["vkcube", "--c", "300"],
    "cube3000": ["vkcube", "--c", "3000"],
    "compute": [os.path.join(PROGS, "vk_compute")] + COMPUTE,
    "callbound": [os.path.join(PROGS, "vk_callbound")] + CALLBOUND,
}


def log(msg):
    print(msg, flush=True)


def base_env():
    env = dict(os.environ)
    for k in ("VK_INSTANCE_LAYERS", "GFXRECON_CAPTURE_FILE", "TRACESMITH_OUTPUT"):
        env.pop(k, None)
    return env


def timed(cmd, env, what):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    t = time.perf_counter() - t0
    if p.returncode != 0:
        tail = "\n".join(p.stdout.splitlines()[-15:])
        raise RuntimeError("%s: exit %d: %s\n%s" % (what, p.returncode, " ".join(cmd), tail))
    return t, p.stdout


def plain(cmd):
    return timed(cmd, base_env(), "plain run")[0]


def gfxr_capture(cmd, out):
    env = base_env()
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_LUNARG_gfxreconstruct"
    env["GFXRECON_CAPTURE_FILE"] = out
    env["GFXRECON_CAPTURE_FILE_TIMESTAMP"] = "false"
    if os.path.exists(out):
        os.unlink(out)
    t = timed(cmd, env, "GFXReconstruct capture")[0]
    if not os.path.exists(out):
        raise RuntimeError("GFXReconstruct wrote no %s" % out)
    return t


def ours_capture(cmd, out):
    env = base_env()
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_tracesmith"
    env["TRACESMITH_OUTPUT"] = out
    if os.path.exists(out):
        os.unlink(out)
    t = timed(cmd, env, "TraceSmith capture")[0]
    if not os.path.exists(out):
        raise RuntimeError("the TraceSmith layer wrote no %s" % out)
    return t


def gfxr_replay(trace):
    return timed(["gfxrecon-replay", trace], base_env(), "gfxrecon-replay")[0]


def ours_replay(trace):
    return timed([os.path.join(B, "tsreplay"), trace], base_env(), "tsreplay")[0]


def ours_capture_state():
    """None when our layer writes a trace, else why not."""
    if not os.path.exists(os.path.join(B, "layers/VkLayer_tracesmith.json")):
        return "layer not built (%s/layers/VkLayer_tracesmith.json)" % B
    out = os.path.join(TMP, "probe.sbt")
    try:
        ours_capture([os.path.join(PROGS, "vk_compute"), "--size", "256", "--submits", "1"], out)
    except RuntimeError as e:
        return str(e).splitlines()[0]
    return None


def ours_replay_state(trace):
    try:
        ours_replay(trace)
    except RuntimeError as e:
        lines = [l for l in str(e).splitlines() if l.strip()]
        return lines[-1] if lines else str(e)
    return None


def alternate(fns):
    """Calls every fn RUNS times, rotating which goes first each round;
    returns one list of results per fn."""
    res = [[] for _ in fns]
    for i in range(RUNS):
        order = list(range(len(fns)))
        k = i % len(fns)
        order = order[k:] + order[:k]
        for j in order:
            res[j].append(fns[j]())
    return res


def pct(x):
    return "%+.1f%%" % (100.0 * x)


def mib(n):
    return "%.2f MiB" % (n / 1048576.0)


def bench(name, cmd, ours_cap_why):
    log("== %s: %s  (%d alternating runs, medians)" % (name, " ".join(
        os.path.basename(cmd[0]) if i == 0 else c for i, c in enumerate(cmd)), RUNS))
    gtrace = os.path.join(TMP, name + ".gfxr")
    otrace = os.path.join(TMP, name + ".sbt")
    fns = [lambda: plain(cmd), lambda: gfxr_capture(cmd, gtrace)]
    if ours_cap_why is None:
        fns.append(lambda: ours_capture(cmd, otrace))
    res = alternate(fns)
    p = statistics.median(res[0])
    g = statistics.median(res[1])
    g_ovh = [(res[1][i] - res[0][i]) / res[0][i] for i in range(RUNS)]
    gsize = os.path.getsize(gtrace)
    log("plain              %8.3f s  (min %.3f, max %.3f)" % (p, min(res[0]), max(res[0])))
    log("GFXR capture       %8.3f s  overhead %s (median of per-round, min %s max %s)  trace %s"
        % (g, pct(statistics.median(g_ovh)), pct(min(g_ovh)), pct(max(g_ovh)), mib(gsize)))
    o_ovh = None
    if ours_cap_why is None:
        o = statistics.median(res[2])
        o_ovh = [(res[2][i] - res[0][i]) / res[0][i] for i in range(RUNS)]
        osize = os.path.getsize(otrace)
        log("ours capture       %8.3f s  overhead %s (min %s max %s)  trace %s"
            % (o, pct(statistics.median(o_ovh)), pct(min(o_ovh)), pct(max(o_ovh)), mib(osize)))
    else:
        log("ours capture       not available: %s" % ours_cap_why)
    replay_why = "no trace of ours" if ours_cap_why is not None else ours_replay_state(otrace)
    rfns = [lambda: gfxr_replay(gtrace)]
    if replay_why is None:
        rfns.append(lambda: ours_replay(otrace))
    rres = alternate(rfns)
    gr = statistics.median(rres[0])
    log("GFXR replay        %8.3f s  (min %.3f, max %.3f)" % (gr, min(rres[0]), max(rres[0])))
    if replay_why is None:
        orr = statistics.median(rres[1])
        log("ours replay        %8.3f s  (min %.3f, max %.3f)" % (orr, min(rres[1]), max(rres[1])))
    else:
        log("ours replay        not available: %s" % replay_why)
    ratios = []
    if o_ovh is not None:
        mg, mo = statistics.median(g_ovh), statistics.median(o_ovh)
        ratios.append("overhead %s" % ("%.2f" % (mo / mg) if mg > 0 else "n/a (GFXR overhead <= 0)"))
        ratios.append("size %.2f" % (osize / gsize))
    else:
        ratios += ["overhead n/a", "size n/a"]
    ratios.append("replay %.2f" % (orr / gr) if replay_why is None else "replay n/a")
    log("ours / GFXR:       " + ", ".join(ratios))
    log("")


def callgrind_ir(cmd, env, what):
    """Instructions the whole process ran under callgrind, and its stdout."""
    out = os.path.join(TMP, "callgrind.out")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + cmd,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    if p.returncode != 0:
        raise RuntimeError("%s under callgrind: exit %d\n%s" % (what, p.returncode,
                                                               p.stderr[-2000:]))
    for line in p.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip()), p.stdout
    raise RuntimeError("%s: callgrind printed no instruction count" % what)


def callgrind_main(ours_why):
    """Instructions per recorded command of vk_callbound (see the header)."""
    if subprocess.run(["sh", "-c", "command -v valgrind"], stdout=subprocess.DEVNULL).returncode:
        sys.stderr.write("vk_bench: --callgrind needs valgrind\n")
        return 1
    prog = os.path.join(PROGS, "vk_callbound")
    sides = [("plain", base_env())]
    g = base_env()
    g["VK_INSTANCE_LAYERS"] = "VK_LAYER_LUNARG_gfxreconstruct"
    g["GFXRECON_CAPTURE_FILE"] = os.path.join(TMP, "cg.gfxr")
    g["GFXRECON_CAPTURE_FILE_TIMESTAMP"] = "false"
    sides.append(("GFXR capture", g))
    if ours_why is None:
        o = base_env()
        o["VK_INSTANCE_LAYERS"] = "VK_LAYER_tracesmith"
        o["TRACESMITH_OUTPUT"] = os.path.join(TMP, "cg.sbt")
        sides.append(("ours capture", o))
    else:
        log("ours: not available (%s)" % ours_why)
    log("vk_bench --callgrind: vk_callbound --cmds 4000 --every 1000, 20 and 40 submits")
    per = {}
    for name, env in sides:
        ir, calls = [], []
        for s in (20, 40):
            n, out = callgrind_ir([prog, "--submits", str(s), "--cmds", "4000",
                                   "--every", "1000"], env, name)
            ir.append(n)
            calls.append(int(out.split(" calls ")[1].split()[0]))
        per[name] = (ir[1] - ir[0]) / float(calls[1] - calls[0])
        log("%-14s %9.0f instructions per command (%d and %d in all)" % (name, per[name],
                                                                        ir[0], ir[1]))
    for name in ("GFXR capture", "ours capture"):
        if name in per:
            log("%-14s %9.0f added per command" % (name, per[name] - per["plain"]))
    return 0


def main():
    ap = argparse.ArgumentParser(prog="vk_bench.sh")
    ap.add_argument("--only", default="cube300,cube3000,compute,callbound")
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    if a.callgrind:
        return callgrind_main(ours_capture_state())
    names = [n for n in a.only.split(",") if n]
    for n in names:
        if n not in WORKLOADS:
            sys.stderr.write("vk_bench: unknown workload '%s' (have %s)\n"
                             % (n, ",".join(WORKLOADS)))
            return 2
    if not names:
        return 0
    why = ours_capture_state()
    log("vk_bench: lavapipe, DISPLAY=%s, BENCH_RUNS=%d, traces in %s"
        % (os.environ.get("DISPLAY"), RUNS, TMP))
    log("ours: %s" % ("VK_LAYER_tracesmith writes traces" if why is None
                      else "not available (%s)" % why))
    log("")
    for n in names:
        try:
            bench(n, WORKLOADS[n], why)
        except RuntimeError as e:
            sys.stderr.write("vk_bench: %s: %s\n" % (n, e))
            return 1
        for f in os.listdir(TMP):
            if f.startswith(n + "."):
                os.unlink(os.path.join(TMP, f))
    return 0


sys.exit(main())
EOF
