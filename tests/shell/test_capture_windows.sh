#!/bin/sh
# Capture windows (TRACESMITH_TRIGGER), seen from outside the process with a
# stand-in front-end (tests/programs/cap_windows.c): which file each window
# goes to, that it starts with its window record and the front-end's
# snapshot of what is live, that it holds exactly the units asked for, and
# what the run says when a range never happens.  Also periodic snapshots of
# a full capture and the in-app API with and without a capture library.
set -u
BUILD=${BUILD:-build}
TOP=${TOP:-.}
T="$TOP/$BUILD/tests/programs/cap_windows"
U="$TOP/$BUILD/tests/programs/app_unlinked"
CUDA_SO="$TOP/$BUILD/interpose/libtracesmith_cuda.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
# expect FILE "line" ...: each line must appear in `cap_windows check FILE`.
expect() {
	f=$1
	shift
	if ! "$T" check "$f" >"$tmp/check.out" 2>&1; then
		fail "check $f failed: $(head -3 "$tmp/check.out")"
		return
	fi
	for want in "$@"; do
		grep -qx "$want" "$tmp/check.out" || fail "$f: no line '$want' in: $(tr '\n' '|' <"$tmp/check.out")"
	done
}
# only DIR FILE...: DIR holds exactly these .sbt files.
only() {
	d=$1
	shift
	got=$(cd "$d" && ls *.sbt 2>/dev/null | sort | tr '\n' ' ')
	want=$([ $# -gt 0 ] && printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "$d: files '$got', expected '$want'"
}
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG \
	TRACESMITH_MEMORY_MB TRACESMITH_FLUSH_MS TRACESMITH_SNAPSHOT TRACESMITH_TRIGGER \
	TRACESMITH_SNAPSHOT_FRAMES TRACESMITH_API

run() { # run DIR TRIGGER ARGS...
	d="$tmp/$1"
	trig=$2
	shift 2
	mkdir -p "$d"
	TRACESMITH_OUTPUT="$d/t.sbt" TRACESMITH_TRIGGER="$trig" "$T" "$@" >"$d/out" 2>"$d/err" ||
		fail "$trig: exit $?: $(cat "$d/err")"
}

# 1. A frame range: its own file, the window record first, the snapshot of
#    the objects live at frame 3's end (created at frames 1 and 3), frames
#    4-6 and nothing else.
run fr frames:4-6 frames 10
only "$tmp/fr" t-frames-4-6.sbt
expect "$tmp/fr/t-frames-4-6.sbt" "window 1 trigger 'frames 4-6' first frame 4 submit 1 launch 1" \
	"snapshot 2 objects" "call 4" "frame 4" "call 6" "frame 6" \
	"records 11 calls 3 creates 1 first seq 1"
grep -q 'frame 7' "$tmp/check.out" && fail "frames:4-6 holds frame 7"

# 2. A range from frame 1 opens as the runtime starts, at the program's
#    first recorded call: nothing was live before it, no snapshot is taken.
run f1 frames:1-2 frames 5
only "$tmp/f1" t-frames-1-2.sbt
expect "$tmp/f1/t-frames-1-2.sbt" "window 1 trigger 'frames 1-2' first frame 1 submit 1 launch 1" \
	"snapshot 0 objects" "call 1" "frame 2" "records 7 calls 2 creates 1 first seq 1"

# 3. Submits and launches: the window opens as unit A begins, closes as B ends.
run su submits:3-4 submits 6
only "$tmp/su" t-submits-3-4.sbt
expect "$tmp/su/t-submits-3-4.sbt" "window 1 trigger 'submits 3-4' first frame 1 submit 3 launch 1" \
	"snapshot 2 objects" "call 3" "call 4" "records 6 calls 2 creates 0 first seq 1"
run la launches:2-5 launches 6
only "$tmp/la" t-launches-2-5.sbt
expect "$tmp/la/t-launches-2-5.sbt" "window 1 trigger 'launches 2-5' first frame 1 submit 1 launch 2" \
	"snapshot 1 objects" "call 2" "call 5" "records 9 calls 4 creates 2 first seq 1"

# 4. A range that never happens: no file, one line saying so, exit status kept.
run nv frames:20-30 frames 10
only "$tmp/nv"
grep -q 'frames 20-30 never happened: the program ended after 10 frames' "$tmp/nv/err" ||
	fail "frames:20-30 of 10: message was: $(cat "$tmp/nv/err")"

# 5. SIGUSR1 toggles at the next boundary: raised after frames 3 and 6, the
#    window opens at frame 4's end and closes at frame 7's.
run sg signal signal 9
only "$tmp/sg" t-window-1.sbt
expect "$tmp/sg/t-window-1.sbt" "window 1 trigger 'signal' first frame 5 submit 1 launch 1" \
	"snapshot 2 objects" "frame 5" "frame 7" "records 12 calls 3 creates 2 first seq 1"

# 6. The in-app API in a program that exports it (linked): start at frame 3,
#    a second start says one is open, end at frame 6 (frames 3-5 captured),
#    then trigger 2 frames at frame 7 (frames 8-9, the second window's file,
#    its sequence numbers going on from the first's).
run ap app app 10
only "$tmp/ap" t-window-1.sbt t-frames-8-9.sbt
grep -qx 'start 0' "$tmp/ap/out" || fail "app start: $(cat "$tmp/ap/out")"
grep -qx 'start again 1 capturing 1' "$tmp/ap/out" || fail "app start again: $(cat "$tmp/ap/out")"
grep -qx 'end 0 capturing 0' "$tmp/ap/out" || fail "app end: $(cat "$tmp/ap/out")"
grep -qx 'trigger 0' "$tmp/ap/out" || fail "app trigger: $(cat "$tmp/ap/out")"
expect "$tmp/ap/t-window-1.sbt" "window 1 trigger 'app' first frame 3 submit 1 launch 1" \
	"snapshot 1 objects" "frame 3" "frame 5" "records 11 calls 3 creates 2 first seq 1"
expect "$tmp/ap/t-frames-8-9.sbt" "window 2 trigger 'app trigger 2' first frame 8 submit 1 launch 1" \
	"snapshot 4 objects" "frame 8" "frame 9" "records 11 calls 2 creates 1 first seq >1"

# 7. Periodic snapshots of a full capture: every 4th frame's end, bracketed
#    by a "snapshot" keyframe and a snapshot end.
mkdir -p "$tmp/pe"
TRACESMITH_OUTPUT="$tmp/pe/t.sbt" TRACESMITH_SNAPSHOT_FRAMES=4 "$T" frames 9 >/dev/null 2>"$tmp/pe/err" ||
	fail "periodic: exit $?"
only "$tmp/pe" t.sbt
expect "$tmp/pe/t.sbt" "keyframe 'snapshot'" "snapshot 2 objects" "snapshot 4 objects" \
	"records 33 calls 9 creates 5 first seq 1"
[ "$(grep -c "^keyframe 'snapshot'" "$tmp/check.out")" = 2 ] || fail "periodic: not 2 snapshots"

# 8. The in-app API without any TraceSmith library: every call answers
#    "not capturing" (-1); with the CUDA interposer preloaded and no trigger,
#    "whole run" (-2); with TRACESMITH_TRIGGER=app but no CUDA call, the
#    windows open and close but leave no file (nothing was recorded in
#    them); the program that records (case 6) keeps its windows.
out=$("$U") || fail "unlinked: exit $?"
[ "$out" = "start -1 capturing -1 end -1 trigger -1" ] || fail "unlinked: '$out'"
if [ -e "$CUDA_SO" ]; then
	mkdir -p "$tmp/ul" "$tmp/wr"
	# (the frame mark is recorded: a whole-run trace with one frame)
	out=$(cd "$tmp/wr" && LD_PRELOAD="$CUDA_SO" "$U") || fail "preloaded: exit $?"
	[ "$out" = "start -2 capturing 1 end -2 trigger -2" ] || fail "preloaded, whole run: '$out'"
	ls "$tmp/wr" | grep -Eqx 'app_unlinked_[0-9]{8}T[0-9]{6}_[0-9]+\.sbt' ||
		fail "preloaded, whole run: the folder holds '$(ls "$tmp/wr")'"
	# (windows open, but the program makes no CUDA call: nothing recorded
	# in them, so no file is left)
	out=$(cd "$tmp/ul" && LD_PRELOAD="$CUDA_SO" TRACESMITH_OUTPUT="$tmp/ul/t.sbt" \
		TRACESMITH_TRIGGER=app "$U") || fail "preloaded app: exit $?"
	[ "$out" = "start 0 capturing 1 end 0 trigger 0" ] || fail "preloaded, app: '$out'"
	only "$tmp/ul"
fi

# 9. A trigger that cannot be understood: one warning, the whole run captured.
mkdir -p "$tmp/bad"
TRACESMITH_OUTPUT="$tmp/bad/t.sbt" TRACESMITH_TRIGGER=frames:9-3 "$T" frames 2 >/dev/null 2>"$tmp/bad/err" ||
	fail "bad trigger: exit $?"
grep -q "TRACESMITH_TRIGGER: 'frames:9-3' is not" "$tmp/bad/err" || fail "bad trigger: $(cat "$tmp/bad/err")"
only "$tmp/bad" t.sbt

# 10. Killed (SIGKILL) inside a window: the window's file reads up to the
#     last flush (100 ms here), window record and snapshot first.
mkdir -p "$tmp/kill"
TRACESMITH_OUTPUT="$tmp/kill/t.sbt" TRACESMITH_TRIGGER=frames:3-1000 TRACESMITH_FLUSH_MS=100 \
	"$T" slow 1000 >"$tmp/kill/out" 2>"$tmp/kill/err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -qx 'frame 40' "$tmp/kill/out" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.3
kill -9 $pid
wait $pid 2>/dev/null
only "$tmp/kill" t-frames-3-1000.sbt
expect "$tmp/kill/t-frames-3-1000.sbt" "window 1 trigger 'frames 3-1000' first frame 3 submit 1 launch 1" \
	"snapshot 1 objects" "frame 3" "frame 30"

# 11. Other threads recording all along: each window holds its snapshot
#     first, then the frames asked for, every thread's calls after the
#     snapshot's end; the windows of one run go on in sequence.
run th frames:5-7 threads 12
only "$tmp/th" t-frames-5-7.sbt
expect "$tmp/th/t-frames-5-7.sbt" "window 1 trigger 'frames 5-7' first frame 5 submit 1 launch 1" \
	"snapshot 2 objects" "frame 5" "frame 7"
grep -q '^object record after\|^call inside the snapshot' "$tmp/check.out" &&
	fail "threads: snapshot records mixed with calls"
grep -q '^frame \(4\|8\)$' "$tmp/check.out" && fail "threads: frames outside 5-7"

[ $fails -eq 0 ] && echo "test_capture_windows: ok"
exit $((fails > 0))
