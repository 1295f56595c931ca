#!/bin/sh
# Trimmed capture (issue 9's benchmarks; docs/benchmarks.md has the method
# and results), on lavapipe under one private Xvfb, no validation layer:
#
#  size      the trace of vkcube --c 300 frames 100-110: TraceSmith's
#            (tscapture --frames 100-110, the window's file) against
#            GFXReconstruct's (GFXRECON_CAPTURE_FRAMES=100-110), in the same
#            run, BENCH_RUNS rounds (default 3) alternating who goes first;
#            medians, and the full captures' sizes for scale.  Goal: ours
#            smaller.
#  tracking  what tracking costs while no window is open: application-
#            thread instructions per recorded command of vk_callbound under
#            callgrind (--separate-threads=yes), the difference between 40
#            and 20 submits of 4000 commands over the difference in
#            commands, with the layer and a trigger whose window never opens
#            (frames 1000000-1000001: known ahead, so recordings made again
#            for each submit keep nothing before its lead-in) against no
#            layer, and with a trigger that gives no notice (signal, no
#            SIGUSR1 sent: every recording kept).  Goal: under 5 % added.
#            Instruction counts do not depend on the machine's load.
#  memory    what tracking holds in memory while no window is open, and
#            whether it grows with the run: the peak resident set
#            (wait4's ru_maxrss) of vkcube --c N and of mpv --frames N
#            (--vo=gpu-next, --untimed, a test source), N = 300 and 1200,
#            and DDNet's resident set after 10 s and 40 s of its menu
#            (its Vulkan shaders compiled as test_vk_real_apps.sh does),
#            each with no layer, tracking for a trigger with no notice
#            (signal, never sent: every recording kept), recording the
#            whole run, and GFXReconstruct tracking for its hotkey
#            (GFXRECON_CAPTURE_TRIGGER=F12, never pressed) and recording
#            the whole run.  Goal: no growth with the run's length while
#            tracking.  Sizes depend on the allocator and the driver, not
#            on the machine's load.
#
#   BUILD=build sh tests/bench/trim_bench.sh [--only size,tracking,memory]
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
vk_env_layers_none
for c in vkcube gfxrecon-replay valgrind; do
	command -v "$c" >/dev/null 2>&1 || vk_env_fail "$c is not installed (scripts/deps.sh)"
done
[ -x "$BUILD/tscapture" ] || vk_env_fail "$BUILD/tscapture is not built; run make"
TRIM_TMP=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/trimbench.XXXXXX")
trap 'vk_env_xvfb_stop; rm -rf "$TRIM_TMP"' EXIT INT TERM
vk_env_xvfb_start
trim_memory_setup() {
	. "$TOP/tests/support/ddnet.sh"
	for c in mpv "$DDNET" glslangValidator; do
		command -v "$c" >/dev/null 2>&1 || vk_env_fail "$c is not installed (scripts/deps.sh)"
	done
	# DDNet's shaders and settings in a private home
	HOME=$TRIM_TMP/home
	export HOME
	ddnet_shaders "$TRIM_TMP/glslang.log"
}
case " $* " in
*" --only"*memory*) trim_memory_setup ;;
*" --only"*) ;;
*) trim_memory_setup ;;
esac
export TRIM_TMP VK_ENV_BUILD
python3 - "$@" <<'EOF'
import argparse, glob, os, statistics, subprocess, sys, time

B = os.environ["VK_ENV_BUILD"]
TMP = os.environ["TRIM_TMP"]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
CUBE = ["vkcube", "--c", "300"]


def log(msg):
    print(msg, flush=True)


def base_env():
    env = dict(os.environ)
    for k in ("VK_INSTANCE_LAYERS", "GFXRECON_CAPTURE_FILE", "GFXRECON_CAPTURE_FRAMES",
              "TRACESMITH_OUTPUT", "TRACESMITH_TRIGGER"):
        env.pop(k, None)
    return env


def run(cmd, env, what):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s\n%s" % (what, p.returncode, " ".join(cmd),
                                                    "\n".join(p.stdout.splitlines()[-15:])))
    return p.stdout


def clear(pattern):
    for f in glob.glob(pattern):
        os.unlink(f)


def gfxr(frames):
    env = base_env()
    env["VK_INSTANCE_LAYERS"] = "VK_LAYER_LUNARG_gfxreconstruct"
    env["GFXRECON_CAPTURE_FILE"] = os.path.join(TMP, "g.gfxr")
    env["GFXRECON_CAPTURE_FILE_TIMESTAMP"] = "false"
    if frames:
        env["GFXRECON_CAPTURE_FRAMES"] = frames
    clear(os.path.join(TMP, "g*.gfxr"))
    run(CUBE, env, "GFXReconstruct capture")
    files = glob.glob(os.path.join(TMP, "g*.gfxr"))
    if len(files) != 1:
        raise RuntimeError("GFXReconstruct wrote %s" % files)
    return os.path.getsize(files[0])


def ours(frames):
    out = os.path.join(TMP, "t.sbt")
    clear(os.path.join(TMP, "t*.sbt"))
    cmd = [os.path.join(B, "tscapture"), "-o", out]
    if frames:
        cmd += ["--frames", frames]
    run(cmd + ["--"] + CUBE, base_env(), "TraceSmith capture")
    want = os.path.join(TMP, "t-frames-%s.sbt" % frames) if frames else out
    if not os.path.exists(want):
        raise RuntimeError("tscapture wrote no %s (%s)" % (want, glob.glob(TMP + "/t*")))
    return os.path.getsize(want)


def size_bench():
    log("trim_bench size: vkcube --c 300, frames 100-110, %d rounds" % RUNS)
    res = {"ours": [], "gfxr": []}
    for r in range(RUNS):
        order = [("ours", ours), ("gfxr", gfxr)]
        if r % 2:
            order.reverse()
        for name, fn in order:
            res[name].append(fn("100-110"))
    full_ours, full_gfxr = ours(None), gfxr(None)
    mo, mg = statistics.median(res["ours"]), statistics.median(res["gfxr"])
    log("  trimmed trace   ours %d B (min %d, max %d)   GFXReconstruct %d B (min %d, max %d)"
        % (mo, min(res["ours"]), max(res["ours"]), mg, min(res["gfxr"]), max(res["gfxr"])))
    log("  ratio ours / GFXReconstruct: %.3f   (goal: under 1)" % (mo / mg))
    log("  full capture    ours %d B   GFXReconstruct %d B" % (full_ours, full_gfxr))


def app_thread_ir(cmd, env, what):
    """Instructions of the process's first thread under callgrind."""
    base = os.path.join(TMP, "cg.out")
    clear(base + "*")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                        "--callgrind-out-file=" + base] + cmd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    if p.returncode != 0:
        raise RuntimeError("%s under callgrind: exit %d\n%s" % (what, p.returncode,
                                                               p.stderr[-2000:]))
    f = base + "-01"
    with open(f) as fh:
        for line in fh:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1]), p.stdout
    raise RuntimeError("%s: no totals in %s" % (what, f))


def tracking_bench():
    prog = os.path.join(B, "tests/programs/vk_callbound")
    plain = base_env()
    layer = base_env()
    layer["VK_INSTANCE_LAYERS"] = "VK_LAYER_tracesmith"
    layer["VK_ADD_LAYER_PATH"] = os.path.join(B, "layers")
    layer["TRACESMITH_OUTPUT"] = os.path.join(TMP, "never.sbt")
    layer["TRACESMITH_TRIGGER"] = "frames:1000000-1000001"
    signal = dict(layer)
    signal["TRACESMITH_TRIGGER"] = "signal"
    log("trim_bench tracking: vk_callbound --cmds 4000 --every 1000, 20 and 40 submits, "
        "application thread")
    per = {}
    ways = (("no layer", plain), ("layer, no window open", layer),
            ("the same, trigger signal", signal))
    for name, env in ways:
        ir, cmds = [], []
        for s in (20, 40):
            n, out = app_thread_ir([prog, "--submits", str(s), "--cmds", "4000", "--every",
                                    "1000"], env, name)
            ir.append(n)
            cmds.append(int(out.split(" calls ")[1].split()[0]) if " calls " in out
                        else s * 4000)
        per[name] = (ir[1] - ir[0]) / (cmds[1] - cmds[0])
        log("  %-24s %8.1f Ir per command" % (name, per[name]))
    added = per["layer, no window open"] / per["no layer"] - 1
    log("  added while tracking: %+.1f %%   (goal: under 5 %%)" % (100 * added))
    added = per["the same, trigger signal"] / per["no layer"] - 1
    log("  added while tracking for a trigger with no notice: %+.1f %%" % (100 * added))
    if glob.glob(os.path.join(TMP, "never*.sbt")):
        raise RuntimeError("a trace was written although no window opened")


def peak_rss(cmd, env, what):
    """The process's peak resident set in KiB (wait4's ru_maxrss)."""
    with open(os.path.join(TMP, "mem.log"), "w") as out:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        with open(os.path.join(TMP, "mem.log")) as fh:
            tail = fh.read()[-1500:]
        raise RuntimeError("%s: status %d: %s\n%s" % (what, status, " ".join(cmd), tail))
    return ru.ru_maxrss


def rss_after(cmd, env, secs, what):
    """A program that runs until stopped: its resident set in KiB after each
    of secs (ascending), then SIGTERM."""
    got = []
    with open(os.path.join(TMP, "mem.log"), "w") as out:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        t0 = time.time()
        try:
            for s in secs:
                time.sleep(max(0.0, t0 + s - time.time()))
                if p.poll() is not None:
                    raise RuntimeError("%s exited %d early" % (what, p.returncode))
                with open("/proc/%d/status" % p.pid) as fh:
                    got.append(int([l for l in fh if l.startswith("VmRSS:")][0].split()[1]))
        finally:
            p.terminate()
            p.wait()
    return got


def memory_settle(what):
    """After one way's run: no trace of a tracking way (no window opened),
    the captures removed."""
    if glob.glob(os.path.join(TMP, "n*.sbt")):
        raise RuntimeError("%s: a trace was written although no window opened" % what)
    clear(os.path.join(TMP, "*.sbt"))
    clear(os.path.join(TMP, "*.gfxr"))


def memory_bench():
    dev = subprocess.run(["vulkaninfo", "--summary"], env=base_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    dev = [l.split("=", 1)[1].strip() for l in dev.splitlines()
           if l.strip().startswith("deviceName")][0]

    def way(layer, **extra):
        env = base_env()
        if layer:
            env["VK_INSTANCE_LAYERS"] = layer
        env.update(extra)
        return env
    ours, gfxr = "VK_LAYER_tracesmith", "VK_LAYER_LUNARG_gfxreconstruct"
    ways = (("no layer", way(None)),
            ("ours, tracking (signal)", way(ours, TRACESMITH_OUTPUT=os.path.join(TMP, "n.sbt"),
                                            TRACESMITH_TRIGGER="signal")),
            ("ours, whole run", way(ours, TRACESMITH_OUTPUT=os.path.join(TMP, "w.sbt"))),
            ("GFXR, tracking (F12)", way(gfxr, GFXRECON_CAPTURE_FILE=os.path.join(TMP, "n.gfxr"),
                                         GFXRECON_CAPTURE_TRIGGER="F12")),
            ("GFXR, whole run", way(gfxr, GFXRECON_CAPTURE_FILE=os.path.join(TMP, "w.gfxr"))))
    progs = (("vkcube", lambda n: ["vkcube", "--c", str(n)]),
             ("mpv", lambda n: ["mpv", "--no-config", "--vulkan-device=" + dev, "--vo=gpu-next",
                                "--gpu-api=vulkan", "--gpu-context=x11vk", "--untimed",
                                "--ao=null", "--frames=%d" % n,
                                "av://lavfi:testsrc=size=320x240:rate=30"]))
    log("trim_bench memory: peak resident set (MiB) at 300 and 1200 frames; DDNet's "
        "resident set after 10 s and 40 s")
    base = {}
    for pname, cmd in progs:
        for wname, env in ways:
            a, b = (peak_rss(cmd(n), env, "%s, %s" % (pname, wname)) / 1024.0
                    for n in (300, 1200))
            base.setdefault(pname, a)
            log("  %-7s %-24s %7.1f %7.1f   growth %+6.1f   over no layer %+7.1f"
                % (pname, wname, a, b, b - a, a - base[pname]))
            memory_settle("%s, %s" % (pname, wname))
    cmd = [os.environ.get("DDNET", "/usr/games/DDNet"),
           "gfx_backend Vulkan; gfx_fullscreen 0; snd_enable 0"]
    for wname, env in ways:
        a, b = (x / 1024.0 for x in rss_after(cmd, env, (10, 40), "DDNet, " + wname))
        base.setdefault("DDNet", a)
        log("  %-7s %-24s %7.1f %7.1f   growth %+6.1f   over no layer %+7.1f"
            % ("DDNet", wname, a, b, b - a, a - base["DDNet"]))
        memory_settle("DDNet, " + wname)


ap = argparse.ArgumentParser()
ap.add_argument("--only", default="size,tracking,memory")
a = ap.parse_args()
for n in a.only.split(","):
    if n == "size":
        size_bench()
    elif n == "tracking":
        tracking_bench()
    elif n == "memory":
        memory_bench()
    else:
        sys.exit("trim_bench: unknown benchmark '%s' (size, tracking, memory)" % n)
EOF
