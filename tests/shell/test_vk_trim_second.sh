#!/bin/sh
# Trimmed Vulkan capture with triggers that give no notice, a second window
# (docs/vulkan-layer.md, "Recordings that are not kept", "With no notice"):
# once a window has closed and none is asked for, recordings keep no calls
# again and the next window is held exactly as the first, under the
# validation layer.  vk_callbound --submits 60 records two one-time-submit
# command buffers again for each submit and submits them in the frame they
# began (a frame ends at each submit):
#
#  1. tscapture --signal, SIGUSR1 after loop submits 20, 30, 40 and 50
#     (--raise 20,30,40,50): two windows.  Each is held by the recording
#     begun at the first boundary after its signal (the hold is said once
#     per window, twice in all) and opens at the end of that submit: window
#     1 first submit 22, window 2 first submit 42, 9 submits each.  The
#     layer says that window 1's close brings back recordings that keep no
#     calls, and at window 2's snapshot how many did since window 1 (more
#     than none).  Both windows replay under validation with every
#     checkpoint matched, and no recording is reported as submitted without
#     its calls.  With every recording kept (TRACESMITH_VK_LEAD_IN=all)
#     nothing is held: each window opens at the begin of the submit after
#     the signal and holds 10 submits (so did window 2 when every recording
#     kept its calls for the rest of the run after the first window).  (Not
#     replayed: such a window, opened at a submit's begin, has no checkpoint
#     to compare on lavapipe, as with a single window.)
#  2. tscapture --app, in-app windows from loop submit 20 to 30 and from 40
#     to 50 (--app-window 20,30,40,50): both starts answer 0, the layer says
#     the same (close, count), each window is written (window-1.sbt,
#     window-2.sbt) and replays matched.
#  3. Four threads each recording and submitting a one-time-submit command
#     buffer every round (vk_multithread --thread-submit) under --signal,
#     SIGUSR1 sent from outside four times (open, close once the window's
#     file holds a checkpoint, open once the layer said recordings keep no
#     calls again, close once it holds one), then the program told to end
#     (--quit-file): no recording is reported as submitted without its
#     calls, and both windows replay under validation with every checkpoint
#     matched (where the windows fall depends on timing; the assertions do
#     not, nor does the test's length: each step waits for what it needs,
#     however slow the build, as under ThreadSanitizer).
#  4. On a private Xvfb, tscapture --frame F12:3 of vk_xwindow (a one-time-
#     submit command buffer recorded and submitted within each frame, its
#     presented images hashed: TRACESMITH_FRAME_HASH=1), F12 pressed once,
#     and again once the layer said recordings keep no calls again (each
#     time held until the window opened, however slow the presents): the
#     same two lines, two window files, each replaying offscreen under
#     validation with its 3 frames' hashes matched.
#  5. On the same Xvfb, tscapture --signal of vk_xwindow --raise 10,20
#     (SIGUSR1 between frame 10's submit and its present, then an empty
#     submit): the window waits for frame 10's end, said by the layer, and
#     replays frames 11-19 with their hashes matched.
#  6. tscapture --submits 11-20 of vk_xwindow --split 10 (an empty submit
#     between frame 10's submit and its present, submit 11): a range is not
#     held, so the window opens with frame 10's image acquired and drawn;
#     the snapshot copies that image (its swapchain given transfer usage,
#     vkl_trim_swapchain_info) and the replay, offscreen and in its window,
#     shows frames 10-18 with their hashes matched.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
KAPP=
APP=
trap 'vk_env_xvfb_stop; [ -z "$KAPP" ] || kill "$KAPP" 2>/dev/null || :; [ -z "$APP" ] || kill "$APP" 2>/dev/null || :; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() {
	[ -z "${DISPLAY:-}" ] || xdotool keyup F12 2>/dev/null || :
	vk_env_fail "$@"
}

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_callbound tests/programs/vk_multithread \
	tests/programs/vk_xwindow; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
command -v xdotool >/dev/null 2>&1 || fail "xdotool is not installed (scripts/deps.sh)"
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
PROG="$BUILD/tests/programs/vk_callbound --submits 60 --cmds 64 --every 16"
HELD='the capture window opens at a later frame end or submit, not here: recordings that kept no calls are not submitted yet ([0-9]*: VkCommandBuffer'
BACK='Vulkan trimmed capture: capture window 1 closed: a one-time-submit command buffer recorded again for each submit, within one frame, keeps no calls again'
COUNT='Vulkan trimmed capture: \([0-9]*\) recordings kept no calls before this window (since the window before)'

run() { # NAME TRIGGER LEAD-IN [program options]: the capture, its log checked
	name=$1
	trig=$2
	lead=$3
	shift 3
	TRACESMITH_LOG=info TRACESMITH_VK_LEAD_IN=$lead vk_env_run "$T/$name.log" \
		"$BUILD/tscapture" "$trig" -o "$T/$name.sbt" -- $PROG "$@" ||
		fail "tscapture $trig ($name)"
	grep -q 'VUID-' "$T/$name.log" &&
		fail "validation ($name): $(grep -m1 'VUID-' "$T/$name.log" | cut -c1-300)"
	grep -q 'is submitted in the window' "$T/$name.log" &&
		fail "$name: a recording was submitted without its calls: $(grep -m1 'is submitted in' "$T/$name.log")"
	return 0
}
window() { # NAME K: window K's file read (NAME-K.*)
	W=$T/$1-window-$2.sbt
	[ -s "$W" ] || fail "no $W (in $T: $(ls "$T"))"
	cp "$W" "$T/$1-$2.win.sbt"
	"$BUILD/tsinfo" "$W" >"$T/$1-$2.info" || fail "tsinfo of $W"
	"$BUILD/tsinfo" --dump "$W" >"$T/$1-$2.dump" || fail "tsinfo --dump of $W"
}
first_submit() { # NAME-K: the window's first submit, per tsinfo
	sed -n "s/^window .* trigger '[^']*'.*first submit \([0-9]*\).*/\1/p" "$T/$1.info"
}
submits() { # NAME-K: the program's submits in the window
	awk '/ snapshot_end( |$)/{s=1} s && / vulkan.vkQueueSubmit /{n++} END{print n+0}' "$T/$1.dump"
}
replays() { # NAME-K: every checkpoint of the window matched
	n=$(grep -c ' checkpoint ' "$T/$1.dump" || true)
	[ "$n" -ge 1 ] || fail "$1: the window has no checkpoint"
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/$1.replay" \
		"$VK_ENV_BUILD/tsreplay" "$T/$1.win.sbt" || fail "tsreplay of the $1 window"
	grep -q "checkpoints: $n compared, $n matched, 0 differ" "$T/$1.replay" ||
		fail "$1 replay: $(grep 'checkpoints:' "$T/$1.replay") (want $n matched)"
	grep -q 'VUID-' "$T/$1.replay" &&
		fail "validation ($1 replay): $(grep -m1 'VUID-' "$T/$1.replay" | cut -c1-300)"
	return 0
}
expect() { # NAME-K FIRST-SUBMIT SUBMITS
	f=$(first_submit "$1")
	[ "$f" = "$2" ] || fail "$1: the window's first submit is '$f', expected $2: $(grep '^window' "$T/$1.info")"
	n=$(submits "$1")
	[ "$n" = "$3" ] || fail "$1: the window holds $n submits, expected $3"
}
cheap_again() { # NAME: window 1's close brings recordings that keep no calls back
	grep -q "$BACK" "$T/$1.log" ||
		fail "$1: no line saying recordings keep no calls again: $(grep 'trimmed' "$T/$1.log" | cut -c1-200)"
	k=$(sed -n "s/.*$COUNT.*/\1/p" "$T/$1.log")
	[ -n "$k" ] || fail "$1: no count of recordings that kept no calls before window 2"
	[ "$k" -ge 1 ] || fail "$1: no recording kept no calls between the windows ($k)"
}

# ---- 1: two SIGUSR1 windows --------------------------------------------------
run sig --signal 0 --raise 20,30,40,50
[ "$(grep -c "$HELD" "$T/sig.log")" -eq 2 ] ||
	fail "sig: the hold is said $(grep -c "$HELD" "$T/sig.log") times, expected once per window"
cheap_again sig
window sig 1
window sig 2
ls "$T"/sig-window-3*.sbt >/dev/null 2>&1 && fail "sig: a third window: $(ls "$T"/sig-window-3*)"
expect sig-1 22 9
expect sig-2 42 9
replays sig-1
replays sig-2

run sigall --signal all --raise 20,30,40,50
grep -q "$HELD" "$T/sigall.log" && fail "with every recording kept a window was held"
window sigall 1
window sigall 2
expect sigall-1 22 10
expect sigall-2 42 10

# ---- 2: two in-app windows ---------------------------------------------------
run app --app 0 --app-window 20,30,40,50
[ "$(grep -c '^app window: start 0 end 0$' "$T/app.log")" -eq 2 ] ||
	fail "app: $(grep 'app window' "$T/app.log" || echo 'no app window line')"
cheap_again app
window app 1
window app 2
grep -q "^window .* trigger 'app'," "$T/app-2.info" || fail "app: $(grep '^window' "$T/app-2.info")"
replays app-1
replays app-2

# ---- 3: four recording threads, four signals from outside -------------------------
MT="$BUILD/tests/programs/vk_multithread"
# (the writer flushes every 0.1 s, so that the window's file shows its
# first checkpoint soon after it is taken)
TRACESMITH_LOG=info TRACESMITH_FLUSH_MS=100 "$BUILD/tscapture" --signal -o "$T/mt.sbt" -- \
	"$MT" --threads 4 --rounds 10000 --thread-submit --quit-file "$T/mt.quit" >"$T/mt.log" 2>&1 &
CAP=$!
vk_env_waitlog "$T/mt.log" 'mapped memory tracker'
APP=$(pgrep -P "$CAP" -x vk_multithread || true)
[ -n "$APP" ] || fail "no vk_multithread under tscapture (pid $CAP)"
signal() { # SIGUSR1 to the program (it runs until the quit file, 10000 rounds at most)
	kill -USR1 "$APP" || fail "vk_multithread has ended: $(tail -n 3 "$T/mt.log")"
}
signal
vk_env_waitlog "$T/mt.log" 'capture window 1 (signal) opened'
vk_env_wait_checkpoint "$T/mt.log" 1
signal
vk_env_waitlog "$T/mt.log" "$BACK"
sleep 0.3
signal
vk_env_waitlog "$T/mt.log" 'capture window 2 (signal) opened'
vk_env_wait_checkpoint "$T/mt.log" 2
signal
vk_env_waitlog "$T/mt.log" 'capture window 2 closed'
: >"$T/mt.quit"
wait "$CAP" || fail "tscapture --signal of vk_multithread: $(tail -n 3 "$T/mt.log")"
APP=
grep -q 'is submitted in the window' "$T/mt.log" &&
	fail "mt: a recording was submitted without its calls: $(grep -m1 'is submitted in' "$T/mt.log")"
for k in 1 2; do
	cp "$T/mt-window-$k.sbt" "$T/mt-$k.win.sbt" 2>/dev/null || fail "no $T/mt-window-$k.sbt"
	"$BUILD/tsinfo" --dump "$T/mt-$k.win.sbt" >"$T/mt-$k.dump" || fail "tsinfo --dump of mt window $k"
	replays "mt-$k"
done

# ---- 4: two capture-key presses -------------------------------------------------
XW=$VK_ENV_BUILD/tests/programs/vk_xwindow
vk_env_xvfb_start
press() { # K: F12 down until window K opened (the key is read at a present)
	xdotool keydown F12
	vk_env_waitlog "$T/key.log" "capture window $1 (key F12) opened"
	xdotool keyup F12
}
mkdir "$T/key"
TRACESMITH_FRAME_HASH=1 TRACESMITH_LOG=info "$VK_ENV_BUILD/tscapture" -o "$T/key/app.sbt" \
	--frame F12:3 -- "$XW" --quit-file "$T/key.quit" >"$T/key.log" 2>&1 &
KAPP=$!
vk_env_waitlog "$T/key.log" 'Vulkan trimmed capture: a one-time-submit command buffer recorded again'
sleep 1 # presenting
press 1
vk_env_waitlog "$T/key.log" "$BACK"
sleep 0.5
press 2
vk_env_waitlog "$T/key.log" 'capture window 2 closed'
: >"$T/key.quit"
rc=0
wait "$KAPP" || rc=$?
KAPP=
[ "$rc" -eq 0 ] || fail "key: exit $rc: $(tail -5 "$T/key.log")"
vk_env_clean "$T/key.log" || fail "key: validation messages"
grep -q 'is submitted in the window' "$T/key.log" &&
	fail "key: a recording was submitted without its calls: $(grep -m1 'is submitted in' "$T/key.log")"
cheap_again key
[ "$(ls "$T/key" | wc -l)" -eq 2 ] || fail "key: window files $(ls "$T/key" | tr '\n' ' '), not two"
# offscreen_replay LOG WINDOW: tsreplay --offscreen, with no display, under
# the validation layer
offscreen_replay() {
	(
		unset DISPLAY
		VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$1" "$VK_ENV_BUILD/tsreplay" --offscreen "$2"
	)
}
for W in "$T"/key/app-frames-*.sbt; do
	offscreen_replay "$T/key.replay" "$W" || fail "tsreplay of ${W##*/}"
	grep -q '3 frames presented' "$T/key.replay" ||
		fail "${W##*/}: $(grep 'frames presented' "$T/key.replay")"
	grep -q 'checkpoints: 3 compared, 3 matched, 0 differ' "$T/key.replay" ||
		fail "${W##*/} replay: $(grep 'checkpoints:' "$T/key.replay") (want its 3 frame hashes matched)"
done

# ---- 5: a SIGUSR1 between a frame's submit and its present -------------------------
# vk_xwindow --raise 10,20 sends itself SIGUSR1 after frame 10's submit,
# then submits nothing before the present: the next boundary is that empty
# submit's begin, with frame 10's image acquired and cleared.  The window
# waits for the frame end (the layer says why) and replays with every
# frame's hash matched; opened at the empty submit (as before), its first
# present showed, in the replay, an image cleared before the window, black.
TRACESMITH_FRAME_HASH=1 TRACESMITH_LOG=info vk_env_run "$T/mid.log" "$VK_ENV_BUILD/tscapture" \
	-o "$T/mid.sbt" --signal -- "$XW" --frames 30 --raise 10,20 ||
	fail "mid: tscapture --signal of vk_xwindow --raise 10,20"
grep -q 'the capture window opens at a later frame end, not here: a swapchain image is acquired' \
	"$T/mid.log" || fail "mid: the layer did not hold the window for the acquired image"
offscreen_replay "$T/mid.replay" "$T/mid-window-1.sbt" || fail "mid: tsreplay of mid-window-1.sbt"
grep -q 'frames 11-19 replayed' "$T/mid.replay" ||
	fail "mid: $(grep 'replayed (' "$T/mid.replay") (want frames 11-19: opened at frame 10's end)"
grep -q 'checkpoints: 9 compared, 9 matched, 0 differ' "$T/mid.replay" ||
	fail "mid replay: $(grep 'checkpoints:' "$T/mid.replay") (want its 9 frame hashes matched)"

# ---- 6: a range opening between a frame's submit and its present --------------------
# Before the snapshot copied the images the application holds, the first
# present (frame 10's) showed in the replay an image the window never drew
# (1 of 9 frame hashes differed).
TRACESMITH_FRAME_HASH=1 TRACESMITH_LOG=info vk_env_run "$T/split.log" "$VK_ENV_BUILD/tscapture" \
	-o "$T/split.sbt" --submits 11-20 -- "$XW" --frames 30 --split 10 ||
	fail "split: tscapture --submits 11-20 of vk_xwindow --split 10"
grep -q 'Vulkan snapshot: .* 1 images copied' "$T/split.log" ||
	fail "split: the snapshot copied no image: $(grep 'Vulkan snapshot:' "$T/split.log")"
W="$T/split-submits-11-20.sbt"
"$VK_ENV_BUILD/tsinfo" --dump "$W" >"$T/split.dump" || fail "split: tsinfo cannot read ${W##*/}"
grep 'vulkan.vkCreateSwapchainKHR ' "$T/split.dump" | grep -q 'pCreateInfo.imageUsage=0x0*3 ' ||
	fail "split: the swapchain was not given transfer usage: $(grep -o 'imageUsage=[^ ]*' "$T/split.dump")"
offscreen_replay "$T/split.replay" "$W" || fail "split: tsreplay of ${W##*/}"
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/split_win.replay" "$VK_ENV_BUILD/tsreplay" "$W" ||
	fail "split: tsreplay of ${W##*/} in a window"
for r in split.replay split_win.replay; do
	grep -q 'frames 10-18 replayed' "$T/$r" ||
		fail "split: $(grep 'replayed (' "$T/$r") (want frames 10-18)"
	grep -q 'checkpoints: 9 compared, 9 matched, 0 differ' "$T/$r" ||
		fail "split, $r: $(grep 'checkpoints:' "$T/$r") (want its 9 frame hashes matched)"
done
echo "test_vk_trim_second: ok"
