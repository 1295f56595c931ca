#!/bin/sh
# A capture-key window that is held back (issue 9; docs/vulkan-layer.md,
# "Recordings that are not kept", and docs/capture.md, "A window held
# back"): on a private Xvfb, under the validation layer, `tscapture --frame
# F12:3` of vk_xwindow --late 10, which records and submits its one-time-
# submit command buffer within each frame (so its recordings keep no
# calls) except in frame 10, where it records frame 11's before presenting
# frame 10 and submits it in frame 11.  The program waits before frame
# 10's present until F12 is down (xdotool keydown through XTEST, as
# test_vk_hotkey.sh does), so the layer reads the press at that present
# with the recording unsubmitted: it warns once that the window opens at a
# later frame end, naming the command buffer, and the window opens at the
# end of frame 11 instead of 10: one file, app-frames-12-14.sbt, whose
# tsinfo says frames 12-14 and which holds exactly three presents after
# its snapshot.  Its replay (offscreen, under validation) presents frames
# 12-14 pixel-equal to frames 12-14 of a whole-run capture's replay of the
# same program.  With every recording kept (TRACESMITH_VK_LEAD_IN=all)
# the same press is not held: no warning, app-frames-11-13.sbt.  No VUID-
# message anywhere.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
APP=
trap 'vk_env_xvfb_stop; [ -z "$APP" ] || kill "$APP" 2>/dev/null || :; rm -rf "$T"' EXIT
fail() {
	[ -z "${DISPLAY:-}" ] || xdotool keyup F12 2>/dev/null || :
	vk_env_fail "$@"
}

vk_env_init
command -v xdotool >/dev/null 2>&1 || fail "xdotool is not installed (scripts/deps.sh)"
XW=$VK_ENV_BUILD/tests/programs/vk_xwindow
[ -x "$XW" ] || fail "$XW is not built"
for t in tsinfo tscapture tsreplay; do
	[ -x "$VK_ENV_BUILD/$t" ] || fail "$VK_ENV_BUILD/$t is not built"
done
vk_env_xvfb_start
vk_env_layers_validation # tscapture puts ours above it
HELD='warning: Vulkan trimmed capture: the capture window opens at a later frame end or submit, not here: recordings that kept no calls are not submitted yet (1: VkCommandBuffer 0x'

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
has_window() { ls "$T/$1"/app-frames-*.sbt; }

# press NAME [ENV...]: runs vk_xwindow --late 10 under tscapture --frame
# F12:3 (with ENV set), presses F12 while it waits before frame 10's
# present, holds the key until the window's file is there and a second
# longer (many presents), releases it, lets it present half a second with
# the key up and tells it to quit.
press() {
	name=$1
	shift
	mkdir "$T/$name"
	env "$@" "$VK_ENV_BUILD/tscapture" -o "$T/$name/app.sbt" --frame F12:3 -- "$XW" --late 10 \
		--late-wait "$T/$name.go" --quit-file "$T/$name.quit" >"$T/$name.log" 2>&1 &
	APP=$!
	wait_for 600 grep -q '^late frame 10 recorded$' "$T/$name.log" ||
		fail "$name: vk_xwindow did not reach frame 10 in 60 s: $(tail -3 "$T/$name.log")"
	xdotool keydown F12
	sleep 0.2 # the server's key state changed before the present reads it
	: >"$T/$name.go"
	wait_for 600 has_window "$name" || fail "$name: no window file 60 s after pressing F12"
	sleep 1
	xdotool keyup F12
	sleep 0.5
	: >"$T/$name.quit"
	rc=0
	wait "$APP" || rc=$?
	APP=
	[ "$rc" -eq 0 ] || fail "$name: exit $rc: $(tail -5 "$T/$name.log")"
	vk_env_clean "$T/$name.log" || fail "$name: validation messages"
}

# check NAME FIRST: run NAME wrote one window file, frames FIRST to
# FIRST+2, as its name, tsinfo and its presents say.
check() {
	last=$(($2 + 2))
	W=$T/$1/app-frames-$2-$last.sbt
	[ "$(ls "$T/$1")" = "app-frames-$2-$last.sbt" ] ||
		fail "$1: window files $(ls "$T/$1" | tr '\n' ' '), not app-frames-$2-$last.sbt"
	"$VK_ENV_BUILD/tsinfo" "$W" >"$T/$1.info" || fail "$1: tsinfo ${W##*/}"
	grep -Eq "^frames +3 \($2-$last\)\$" "$T/$1.info" ||
		fail "$1: $(grep '^frames' "$T/$1.info" || echo 'no frames line') (want 3 ($2-$last))"
	grep -q "^window .* trigger 'key F12', first frame $2," "$T/$1.info" ||
		fail "$1: $(grep '^window' "$T/$1.info" || echo 'no window line')"
	"$VK_ENV_BUILD/tsinfo" --dump "$W" >"$T/$1.dump" || fail "$1: tsinfo --dump"
	n=$(awk '/ snapshot_end( |$)/{s=1} s && / vulkan.vkQueuePresentKHR /{n++} END{print n+0}' \
		"$T/$1.dump")
	[ "$n" -eq 3 ] || fail "$1: $n presents after the snapshot, not 3"
}

# ---- held: the press comes with frame 11's recording unsubmitted -------------
press held
[ "$(grep -c 'capture window opens at a later frame end' "$T/held.log")" -eq 1 ] ||
	fail "held: the hold is not said once: $(grep -i 'trimmed' "$T/held.log" | cut -c1-300)"
grep -q "$HELD" "$T/held.log" || fail "held: $(grep -m1 'later frame end' "$T/held.log")"
grep -q 'is submitted in the window' "$T/held.log" &&
	fail "held: a recording was submitted without its calls: $(grep -m1 'is submitted in' "$T/held.log")"
check held 12

# ---- every recording kept: the same press is not held ---------------------------
press kept TRACESMITH_VK_LEAD_IN=all
grep -q 'later frame end' "$T/kept.log" && fail "kept: held with every recording kept"
check kept 11

# ---- replays: the window's frames equal the whole run's ----------------------------
mkdir "$T/whole"
vk_env_run "$T/whole.log" "$VK_ENV_BUILD/tscapture" -o "$T/whole/app.sbt" -- "$XW" --late 10 \
	--frames 16 || fail "tscapture of vk_xwindow --late 10 (whole run)"
mkdir "$T/wshots" "$T/hshots"
(
	unset DISPLAY
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/whole_replay.log" \
		"$VK_ENV_BUILD/tsreplay" --offscreen --screenshot 11,12,13,14 --screenshot-dir "$T/wshots" \
		"$T/whole/app.sbt"
) || fail "tsreplay of the whole run"
(
	unset DISPLAY
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/held_replay.log" \
		"$VK_ENV_BUILD/tsreplay" --offscreen --screenshot 12,13,14 --screenshot-dir "$T/hshots" \
		"$T/held/app-frames-12-14.sbt"
) || fail "tsreplay of the held window"
grep -q '3 frames presented (frames 12-14 of the capture)' "$T/held_replay.log" ||
	fail "the held window's replay: $(grep 'frames presented' "$T/held_replay.log")"
cmp -s "$T/wshots/frame_11.ppm" "$T/wshots/frame_12.ppm" &&
	fail "frames 11 and 12 of the whole run's replay are the same image"
for f in 12 13 14; do
	[ -s "$T/wshots/frame_$f.ppm" ] || fail "the whole run's replay wrote no frame $f"
	[ -s "$T/hshots/frame_$f.ppm" ] || fail "the held window's replay wrote no frame $f"
	cmp -s "$T/wshots/frame_$f.ppm" "$T/hshots/frame_$f.ppm" ||
		fail "frame $f: the held window's replay differs from the whole run's"
done
echo ok
