#!/bin/sh
# Trimmed Vulkan capture with a trigger that gives no notice (SIGUSR1, the
# signal trigger; docs/vulkan-layer.md, "Recordings that are not kept"),
# under the validation layer.  vk_callbound --submits 60 records two
# one-time-submit command buffers again for each submit and submits them in
# the frame they began (the program never presents: a frame ends at each
# submit), so their recordings keep no calls; it sends itself SIGUSR1 after
# loop submit 20 and after 58 (--raise 20,58):
#
#  1. With --late 54 a third command buffer (one-time-submit), recorded
#     and submitted after each of the first three loop submits, is recorded
#     a fourth time after the fourth and submitted only after loop submit 54
#     (unit 58).  When the signal asks the window to open its recording is
#     unsubmitted and kept no calls: the layer says so once, naming it (the
#     third command buffer the snapshot allocates), and the window opens at
#     the end of its submit (first submit 59: units 59-62, loop submits
#     55-58); no recording is reported as submitted without its calls, and
#     the window replays under validation with every checkpoint matched.
#     With every recording kept (TRACESMITH_VK_LEAD_IN=all) nothing is held:
#     the window opens at the first boundary after the signal, the begin of
#     unit 24 (loop submit 21; tsinfo's first submit is 25, the runtime
#     counting the submit being begun before a window with no unit of its
#     own), 39 submits, and replays matched.
#  2. Without --late the window is held only by the recording submitted at
#     the first boundary after the signal (unit 21's begin): it opens at the
#     end of that submit (first submit 22, 37 submits) and replays matched.
#  3. The in-app API (tscapture --app) with --late 54: a start after loop
#     submit 20 (--app-window 20,58) answers 0 at once, is held (said once)
#     and opens at the end of the late submit (first submit 59, 4 submits),
#     replayed matched, under the window's plain name (the other runtime
#     tscapture loads opened an empty window at the start, which held the
#     name until it was dropped); one ended after loop submit 30, before it could
#     open (--app-window 20,30), is dropped with a warning and leaves no
#     file; a request for 3 frames after loop submit 20 (--app-trigger 20:3)
#     is held at the frame ends (a warning: its frames begin later) and
#     captures frames 59-61, replayed matched.
#  4. Four threads each recording and submitting a one-time-submit command
#     buffer every round (vk_multithread --thread-submit) under --signal,
#     SIGUSR1 sent from outside once the layer is up and again once the
#     window's file holds a checkpoint, then the program told to end
#     (--quit-file): no recording is reported as submitted without its
#     calls, and the window replays under validation with every checkpoint
#     matched (where the window falls depends on timing; the assertions do
#     not, nor does the test's length: each step waits for what it needs,
#     however slow the build, as under ThreadSanitizer).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
APP=
trap '[ -z "$APP" ] || kill "$APP" 2>/dev/null || :; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_callbound; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
PROG="$BUILD/tests/programs/vk_callbound --submits 60 --cmds 64 --every 16 --raise 20,58"
HELD='the capture window opens at a later frame end or submit, not here: recordings that kept no calls are not submitted yet ([0-9]*: VkCommandBuffer'

TRIG=--signal
FILE=window-1
run() { # NAME LEAD-IN [program options]: the capture, its log checked
	name=$1
	lead=$2
	shift 2
	TRACESMITH_LOG=info TRACESMITH_VK_LEAD_IN=$lead vk_env_run "$T/$name.log" \
		"$BUILD/tscapture" $TRIG -o "$T/$name.sbt" -- $PROG "$@" ||
		fail "tscapture $TRIG ($name)"
	grep -q 'VUID-' "$T/$name.log" &&
		fail "validation ($name): $(grep -m1 'VUID-' "$T/$name.log" | cut -c1-300)"
	grep -q 'is submitted in the window' "$T/$name.log" &&
		fail "$name: a recording was submitted without its calls: $(grep -m1 'is submitted in' "$T/$name.log")"
	return 0
}
capture() { # NAME LEAD-IN [program options]: run, and the window's file read
	run "$@"
	W=$T/$1-$FILE.sbt
	[ -s "$W" ] || fail "no $W (in $T: $(ls "$T"))"
	cp "$W" "$T/$1.win.sbt"
	"$BUILD/tsinfo" "$W" >"$T/$1.info" || fail "tsinfo of $W"
	"$BUILD/tsinfo" --dump "$W" >"$T/$1.dump" || fail "tsinfo --dump of $W"
}
first_submit() { # NAME: the window's first submit, per tsinfo
	sed -n "s/^window .* trigger '[^']*'.*first submit \([0-9]*\).*/\1/p" "$T/$1.info"
}
submits() { # NAME: the program's submits in the window
	awk '/ snapshot_end( |$)/{s=1} s && / vulkan.vkQueueSubmit /{n++} END{print n+0}' "$T/$1.dump"
}
replays() { # NAME: every checkpoint of the window matched
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

# ---- 1: a recording kept no calls and is unsubmitted when the signal comes -----
capture late 0 --late 54
grep -q 'within one frame, keeps no calls; a window with no notice opens where no such recording is unsubmitted' \
	"$T/late.log" || fail "no line saying recordings are not kept: $(grep -i 'trimmed' "$T/late.log" | head -2)"
[ "$(grep -c "$HELD" "$T/late.log")" -eq 1 ] ||
	fail "the hold is not said once: $(grep -c "$HELD" "$T/late.log") times"
# the late command buffer (the third the snapshot allocates) is among those named
cbs=$(sed -n "s/.*$HELD \([^)]*\)).*/\1/p" "$T/late.log")
cb=$(grep -o 'vkAllocateCommandBuffers .*pCommandBuffers\[2\]=0x[0-9a-f]*' "$T/late.dump" |
	sed 's/.*=0x0*/0x/')
[ -n "$cb" ] || fail "the snapshot allocates no third command buffer"
case ", $cbs," in *", $cb,"*) ;; *) fail "the hold names '$cbs', not the late command buffer $cb" ;; esac
f=$(first_submit late)
[ "$f" = 59 ] || fail "the held window's first submit is '$f', expected 59: $(grep '^window' "$T/late.info")"
n=$(submits late)
[ "$n" = 4 ] || fail "the held window holds $n submits, expected 4"
replays late

capture lateall all --late 54
grep -q "$HELD" "$T/lateall.log" && fail "with every recording kept the window was held"
f=$(first_submit lateall)
[ "$f" = 25 ] || fail "the window's first submit is '$f' with every recording kept, expected 25"
n=$(submits lateall)
[ "$n" = 39 ] || fail "with every recording kept the window holds $n submits, expected 39"
replays lateall

# ---- 2: held by the recording submitted at the signal's boundary ------------------
capture plain 0
[ "$(grep -c "$HELD" "$T/plain.log")" -eq 1 ] || fail "plain: the hold is not said once"
f=$(first_submit plain)
[ "$f" = 22 ] || fail "plain: the window's first submit is '$f', expected 22"
n=$(submits plain)
[ "$n" = 37 ] || fail "plain: the window holds $n submits, expected 37"
replays plain

# ---- 3: the in-app API's start and frame request ---------------------------------
TRIG=--app
PROG="$BUILD/tests/programs/vk_callbound --submits 60 --cmds 64 --every 16 --late 54"
capture appwin 0 --app-window 20,58
grep -q '^app window: start 0 end 0$' "$T/appwin.log" ||
	fail "appwin: $(grep 'app window' "$T/appwin.log" || echo 'no app window line')"
[ "$(grep -c "$HELD" "$T/appwin.log")" -eq 1 ] || fail "appwin: the hold is not said once"
grep -q "^window .* trigger 'app'," "$T/appwin.info" || fail "appwin: $(grep '^window' "$T/appwin.info")"
# the other runtime tscapture loads opened its (empty) window at the start
# and held the name; the layer's, opened later, takes it when that one is
# dropped
ls "$T"/appwin-window-1-*.sbt >/dev/null 2>&1 && fail "appwin: $(ls "$T"/appwin-window-1-*.sbt) is left"
grep -q "^tscapture: wrote $T/appwin-window-1.sbt " "$T/appwin.log" ||
	fail "appwin: $(grep '^tscapture:' "$T/appwin.log")"
f=$(first_submit appwin)
[ "$f" = 59 ] || fail "appwin: the window's first submit is '$f', expected 59"
n=$(submits appwin)
[ "$n" = 4 ] || fail "appwin: the window holds $n submits, expected 4"
replays appwin

run appearly 0 --app-window 20,30
grep -q '^app window: start 0 end 0$' "$T/appearly.log" ||
	fail "appearly: $(grep 'app window' "$T/appearly.log" || echo 'no app window line')"
grep -q 'capture window (app) ended before it could open (held back, see above): no file' \
	"$T/appearly.log" || fail "appearly: no warning that the held start was dropped"
ls "$T"/appearly-*.sbt >/dev/null 2>&1 && fail "appearly: a window file was written: $(ls "$T"/appearly-*.sbt)"

FILE=frames-59-61
capture apptrig 0 --app-trigger 20:3
grep -q '^app trigger: 0$' "$T/apptrig.log" || fail "apptrig: $(grep 'app trigger' "$T/apptrig.log")"
grep "$HELD" "$T/apptrig.log" | grep -q 'warning' ||
	fail "apptrig: the hold is not said as a warning: $(grep "$HELD" "$T/apptrig.log")"
grep -Eq '^frames +3 \(59-61\)$' "$T/apptrig.info" ||
	fail "apptrig: $(grep '^frames' "$T/apptrig.info" || echo 'no frames line')"
replays apptrig

# ---- 4: four recording threads, signals from outside ------------------------------
MT="$BUILD/tests/programs/vk_multithread"
[ -x "$MT" ] || fail "$MT is not built"
# (the writer flushes every 0.1 s, so that the window's file shows its
# first checkpoint soon after it is taken)
TRACESMITH_LOG=info TRACESMITH_FLUSH_MS=100 "$BUILD/tscapture" --signal -o "$T/mt.sbt" -- \
	"$MT" --threads 4 --rounds 10000 --thread-submit --quit-file "$T/mt.quit" >"$T/mt.log" 2>&1 &
CAP=$!
vk_env_waitlog "$T/mt.log" 'mapped memory tracker'
APP=$(pgrep -P "$CAP" -x vk_multithread || true)
[ -n "$APP" ] || fail "no vk_multithread under tscapture (pid $CAP)"
kill -USR1 "$APP"
vk_env_waitlog "$T/mt.log" 'capture window 1 (signal) opened'
# the threads reach a checkpoint only when the device is idle, which may
# take long on a loaded machine or a slow build: the window stays open
# until its file holds one
vk_env_wait_checkpoint "$T/mt.log" 1
kill -USR1 "$APP" || fail "vk_multithread has ended: $(tail -n 3 "$T/mt.log")"
vk_env_waitlog "$T/mt.log" 'capture window 1 closed'
: >"$T/mt.quit"
wait "$CAP" || fail "tscapture --signal of vk_multithread: $(tail -n 3 "$T/mt.log")"
APP=
grep -q 'is submitted in the window' "$T/mt.log" &&
	fail "mt: a recording was submitted without its calls: $(grep -m1 'is submitted in' "$T/mt.log")"
cp "$T/mt-window-1.sbt" "$T/mt.win.sbt" 2>/dev/null || fail "no $T/mt-window-1.sbt"
"$BUILD/tsinfo" --dump "$T/mt.win.sbt" >"$T/mt.dump" || fail "tsinfo --dump of the mt window"
replays mt
echo "test_vk_trim_held: ok"
