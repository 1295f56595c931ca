#!/bin/sh
# tsreplay's window mode (issue 3: "with a display, a real window"): vkcube
# captured with VK_LAYER_tracesmith over validation under a private Xvfb,
# then replayed with --validate and --screenshot 1,20:
# - with DISPLAY set: exit 0, no VUID- line, a note that it presents to an
#   X window on that display, the summary counts 20 frames shown in a
#   window, and while it runs `xwininfo -root -tree` lists our window
#   (titled after the trace, 500x500 like vkcube's swapchain);
# - with --offscreen: no window (neither the note nor the count);
# - the screenshots of both replays are the same images, and frames 1 and 20
#   differ from each other (the cube turns, so the comparison means
#   something);
# - with DISPLAY naming a display nobody serves: a note says it cannot
#   connect and replays offscreen, exit 0, the same screenshots.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
P="$BUILD/tests/programs"
T=$(mktemp -d)
REPLAY_PID=
cleanup() {
	if [ -n "$REPLAY_PID" ]; then
		kill -CONT "$REPLAY_PID" 2>/dev/null || true
		kill "$REPLAY_PID" 2>/dev/null || true
		wait "$REPLAY_PID" 2>/dev/null || true
	fi
	vk_env_xvfb_stop
	rm -rf "$T"
}
trap cleanup EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
vk_env_tsan_skip vkcube
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
command -v xwininfo >/dev/null 2>&1 || fail "xwininfo is not installed (x11-utils)"
R=$VK_ENV_BUILD/tsreplay
[ -x "$R" ] || fail "$R is not built"
[ -x "$P/vk_imgcmp" ] || fail "$P/vk_imgcmp is not built"
vk_env_xvfb_start

# ---- capture ------------------------------------------------------------------
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/cube.sbt vk_env_run "$T/capture.log" vkcube --c 20 ||
	fail "vkcube --c 20 under VK_LAYER_tracesmith"
[ -s "$T/cube.sbt" ] || fail "the layer wrote no trace"
vk_env_layers_none

# ---- window mode ---------------------------------------------------------------
# stderr comes through a FIFO: on the note that the window is up, the
# replay is stopped while xwininfo looks, then let go.
mkdir "$T/win" "$T/off" "$T/nox"
mkfifo "$T/err.fifo"
"$R" --validate --screenshot 1,20 --screenshot-dir "$T/win" "$T/cube.sbt" \
	>"$T/win.out" 2>"$T/err.fifo" &
REPLAY_PID=$!
looked=
while IFS= read -r line; do
	printf '%s\n' "$line" >>"$T/win.log"
	case $line in
	*"presenting to an X window"*)
		if [ -z "$looked" ]; then
			kill -STOP "$REPLAY_PID"
			xwininfo -root -tree >"$T/tree" 2>&1 || true
			kill -CONT "$REPLAY_PID"
			looked=1
		fi
		;;
	esac
done <"$T/err.fifo"
rc=0
wait "$REPLAY_PID" || rc=$?
REPLAY_PID=
cat "$T/win.out" >>"$T/win.log"
[ "$rc" = 0 ] || fail "window replay exit $rc: $(tail -n 5 "$T/win.log")"
vk_env_clean "$T/win.log" || fail "window replay is not validation clean"
grep -q "presenting to an X window on $DISPLAY, 500x500" "$T/win.log" ||
	fail "no note that the replay presents to a window on $DISPLAY: $(cat "$T/win.log")"
grep -q "20 frames presented (20 shown in a window), 2 screenshots" "$T/win.log" ||
	fail "summary: $(grep 'tsreplay: vulkan:' "$T/win.log")"
grep -q '"tsreplay: cube.sbt".* 500x500+' "$T/tree" ||
	fail "xwininfo -root -tree does not list a 500x500 window 'tsreplay: cube.sbt': $(cat "$T/tree")"

# ---- offscreen, with the display still set ------------------------------------------
vk_env_run "$T/off.log" "$R" --offscreen --validate --screenshot 1,20 --screenshot-dir "$T/off" \
	"$T/cube.sbt" || fail "--offscreen replay"
grep -q "20 frames presented, 2 screenshots" "$T/off.log" ||
	fail "--offscreen summary: $(grep 'tsreplay: vulkan:' "$T/off.log")"
! grep -q "window" "$T/off.log" || fail "--offscreen mentions a window: $(grep window "$T/off.log")"

# ---- the same pixels -------------------------------------------------------------------
for n in 1 20; do
	for d in win off; do
		[ -s "$T/$d/frame_$n.ppm" ] || fail "$d: no screenshot of frame $n ($(ls "$T/$d"))"
	done
	out=$("$P/vk_imgcmp" "$T/win/frame_$n.ppm" "$T/off/frame_$n.ppm") ||
		fail "frame $n: window mode vs --offscreen: $out"
done
"$P/vk_imgcmp" "$T/off/frame_1.ppm" "$T/off/frame_20.ppm" >/dev/null &&
	fail "frames 1 and 20 are the same image"

# ---- a display nobody serves: offscreen with a note ---------------------------------
n=90
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do
	n=$((n + 1))
done
DISPLAY=:$n vk_env_run "$T/nox.log" "$R" --validate --screenshot 1,20 --screenshot-dir "$T/nox" \
	"$T/cube.sbt" || fail "replay with DISPLAY=:$n (no server)"
grep -q "cannot connect to the X display ':$n'.*replaying the swapchain offscreen" "$T/nox.log" ||
	fail "DISPLAY=:$n: no fallback note: $(cat "$T/nox.log")"
! grep -q "shown in a window" "$T/nox.log" || fail "DISPLAY=:$n: frames shown in a window?"
for n in 1 20; do
	out=$("$P/vk_imgcmp" "$T/nox/frame_$n.ppm" "$T/off/frame_$n.ppm") ||
		fail "frame $n: no-server fallback vs --offscreen: $out"
done
echo ok
