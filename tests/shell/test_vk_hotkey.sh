#!/bin/sh
# The capture key (issue 9): `tscapture --frame F12 -- vkcube` on a private
# Xvfb, with the validation layer below ours.  xdotool presses F12 through
# XTEST, which changes the server's key state - what the layer reads
# through vkcube's own xcb connection at each present - and holds it across
# many presents, until the capture window's file is there and a second
# longer: exactly one window file is written and it holds exactly one
# frame, the one after the press; with --frame F12:3, one file of three
# frames.  The same through Xlib, with the layer enabled by hand and
# TRACESMITH_TRIGGER=key:F12:2 (vk_xwindow --xlib: a Display,
# vkCreateXlibSurfaceKHR), two presses making two files.  A key no keycode
# of the display carries (F35 on Xvfb) and a program that never presents
# each get one warning that says so, and run as before.  No VUID- message
# from the validation layer anywhere.  (tscapture's refusals, an unknown
# key and no DISPLAY, are in test_tscapture_triggers.sh.)

set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
APP=
trap 'vk_env_xvfb_stop; [ -z "$APP" ] || kill "$APP" 2>/dev/null || :; rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
vk_env_tsan_skip vkcube
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
command -v xdotool >/dev/null 2>&1 || fail "xdotool is not installed (scripts/deps.sh)"
command -v xwininfo >/dev/null 2>&1 || fail "xwininfo is not installed (x11-utils)"
P=$VK_ENV_BUILD/tests/programs
for t in vk_xwindow vk_compute; do
	[ -x "$P/$t" ] || fail "$P/$t is not built"
done
for t in tsinfo tscapture; do
	[ -x "$VK_ENV_BUILD/$t" ] || fail "$VK_ENV_BUILD/$t is not built"
done
vk_env_xvfb_start

# wait_for TENTHS CMD...: runs CMD every 0.1 s until it succeeds; fails
# (returns 1) after TENTHS tries.
wait_for() {
	wait_n=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		wait_n=$((wait_n - 1))
		[ "$wait_n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# The program's window is mapped (the only client of this Xvfb has a
# top-level window), or the program has exited.
mapped() { xwininfo -root -children | grep -q '^ *1 child' || ! kill -0 "$APP"; }
# Window files of run NAME so far ($T/NAME/app-frames-A-B.sbt).
windows() { ls "$T/$1"/app-frames-*.sbt 2>/dev/null | wc -l | tr -d ' '; }
has_windows() { [ "$(windows "$1")" -ge "$2" ]; }

# press NAME N: press F12, hold it until run NAME has N window files and
# a second longer (many presents with the key down), release it.
press() {
	xdotool keydown F12
	wait_for 600 has_windows "$1" "$2" || {
		xdotool keyup F12
		fail "$1: no window file $2 in 60 s after pressing F12 (log: $(tail -3 "$T/$1.log"))"
	}
	sleep 1
	xdotool keyup F12
}

# run NAME PRESSES STOP CMD...: runs CMD (which writes $T/NAME/app.sbt),
# waits for its window, presses F12 PRESSES times (each a second after the
# last window), lets it present a second with the key up, stops it (STOP:
# "escape" sends it the Escape key, "file" creates $T/NAME.quit) and waits
# for it to exit successfully.
run() {
	name=$1 presses=$2 stop=$3
	shift 3
	mkdir "$T/$name"
	"$@" >"$T/$name.log" 2>&1 &
	APP=$!
	wait_for 600 mapped || fail "$name: no window mapped in 60 s"
	kill -0 "$APP" 2>/dev/null || fail "$name: exited before the key was pressed: $(tail -5 "$T/$name.log")"
	sleep 1
	[ "$(windows "$name")" -eq 0 ] || fail "$name: a window file before any key press"
	k=1
	while [ "$k" -le "$presses" ]; do
		press "$name" "$k"
		sleep 1
		k=$((k + 1))
	done
	case $stop in
	escape) xdotool mousemove 350 350 key Escape ;; # vkcube quits on Escape
	file) : >"$T/$name.quit" ;;
	esac
	wait_for 600 eval '! kill -0 "$APP"' || fail "$name: still running 60 s after being told to quit"
	rc=0
	wait "$APP" || rc=$?
	APP=
	[ "$rc" -eq 0 ] || fail "$name: exit $rc: $(tail -5 "$T/$name.log")"
	vk_env_clean "$T/$name.log" || fail "$name: validation messages"
}

# check NAME COUNT PRESSES: run NAME wrote PRESSES window files of COUNT
# frames each, named for their frames.
check() {
	n=$(windows "$1")
	[ "$n" -eq "$3" ] || fail "$1: $n window file(s) for $3 press(es): $(ls "$T/$1")"
	for f in "$T/$1"/app-frames-*.sbt; do
		range=${f##*/app-frames-}
		range=${range%.sbt}
		first=${range%-*} last=${range#*-}
		[ $((last - first + 1)) -eq "$2" ] || fail "$1: ${f##*/} is not $2 frame(s)"
		"$VK_ENV_BUILD/tsinfo" "$f" >"$f.info" || fail "$1: tsinfo ${f##*/}"
		grep -Eq "^frames +$2 \($first-$last\)\$" "$f.info" ||
			fail "$1: ${f##*/}: $(grep '^frames' "$f.info" || echo 'no frames line') (want $2 ($first-$last))"
		grep -q "^window .* trigger 'key F12', first frame $first," "$f.info" ||
			fail "$1: ${f##*/}: $(grep '^window' "$f.info" || echo 'no window line')"
	done
}

# ---- xcb: vkcube under tscapture --frame ----------------------------------
vk_env_layers_validation # tscapture puts ours above it
run cube1 1 escape "$VK_ENV_BUILD/tscapture" -o "$T/cube1/app.sbt" --frame F12 -- vkcube
check cube1 1 1
run cube3 1 escape "$VK_ENV_BUILD/tscapture" -o "$T/cube3/app.sbt" --frame F12:3 -- vkcube
check cube3 3 1

# ---- Xlib: a Display, the layer enabled by hand, two presses --------------
vk_env_layers_ours
run xlib 2 file env TRACESMITH_OUTPUT="$T/xlib/app.sbt" TRACESMITH_TRIGGER=key:F12:2 \
	"$P/vk_xwindow" --xlib --quit-file "$T/xlib.quit"
check xlib 2 2

# ---- a key the display's keyboard lacks: one warning, no window -----------
for mode in xcb xlib; do
	flag=
	[ "$mode" = xcb ] || flag=--xlib
	mkdir "$T/f35$mode"
	TRACESMITH_OUTPUT=$T/f35$mode/app.sbt TRACESMITH_TRIGGER=key:F35 vk_env_run "$T/f35$mode.log" \
		"$P/vk_xwindow" $flag --frames 30 || fail "vk_xwindow ($mode) with key:F35"
	n=$(grep -c 'capture key F35 is on no key' "$T/f35$mode.log" || true)
	[ "$n" -eq 1 ] || fail "$mode: $n warnings that F35 is on no key, not 1: $(cat "$T/f35$mode.log")"
	[ "$(windows "f35$mode")" -eq 0 ] || fail "$mode: a window file without a key press"
done

# ---- a window opening while the program holds a swapchain image -------------
# (submits 5-8 of vk_xwindow: each submit comes between an acquire and its
# present) the snapshot acquires the image again with a fence of its own,
# waited for (an acquire with neither semaphore nor fence is invalid:
# VUID-vkAcquireNextImageKHR-semaphore-01780), and the window replays clean.
mkdir "$T/held"
vk_env_run "$T/held.log" "$VK_ENV_BUILD/tscapture" --submits 5-8 -o "$T/held/xw.sbt" -- \
	"$P/vk_xwindow" --frames 12 || fail "tscapture --submits 5-8 of vk_xwindow"
"$VK_ENV_BUILD/tsinfo" --dump "$T/held/xw-submits-5-8.sbt" |
	awk '/ snapshot_end( |$)/{exit} {print}' >"$T/held.dump"
grep -q 'vulkan.vkAcquireNextImageKHR .* fence=0x[0-9a-f]*[1-9a-f][0-9a-f]* ' "$T/held.dump" &&
	grep -q 'vulkan.vkWaitForFences ' "$T/held.dump" ||
	fail "the snapshot does not re-acquire the held image with a fence: $(grep Acquire "$T/held.dump")"
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/heldrp.log" "$VK_ENV_BUILD/tsreplay" \
	"$T/held/xw-submits-5-8.sbt" || fail "tsreplay of the window opened with an image held"

# ---- no window: one warning, the program unaffected -----------------------
TRACESMITH_OUTPUT=$T/compute.sbt TRACESMITH_TRIGGER=key:F12 vk_env_run "$T/compute.log" \
	"$P/vk_compute" --size 1024 --submits 3 || fail "vk_compute under the key trigger"
n=$(grep -c 'capture key F12 cannot be read' "$T/compute.log" || true)
[ "$n" -eq 1 ] || fail "vk_compute: $n warnings that the key cannot be read, not 1: $(cat "$T/compute.log")"
grep -q 'does not present' "$T/compute.log" || fail "vk_compute: the warning does not say why"
echo ok
