#!/bin/sh
# A stream-ordered free of window memory on a capturing stream (docs/hip.md
# "Same-address capture", "The exit report"), with hip_capture_free
# (tests/hip/hip_capture_free.c, no kernel), on the libamdhip64 test double:
# - the interposer serves the hipFreeAsync itself (the memory was placed in
#   the address window): recorded with capture_status, the memory kept
#   until exit, and the exit report says so ("1 stream-ordered frees in a
#   capture kept until exit"); the output is unchanged;
# - the graph's memset and copy still reach the kept memory at both
#   launches, and tsreplay replays it with both checkpoints equal (plain,
#   with --check-determinism, moved): the free in the capture keeps its
#   memory until the end of the run, as capture did;
# - without the window (TRACESMITH_HIP_VA=off) the free goes to the
#   runtime, which refuses it in a capture, and nothing is kept;
# - with `child` the captured graph is made a child graph node of another
#   graph: recorded as hip.hipGraphAddChildGraphNode (a graph made by
#   stream capture is modeled as a child), and tsreplay refuses that record
#   by name, since the capture holds the free (exit 1).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_capture_free" ] || { echo "no libamdhip64 to link against: hip_capture_free is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TRACESMITH_HIP_VA
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Under ThreadSanitizer the default window lies outside TSan's memory
# layout (the double takes no hint there): as test_hip_va.sh, the window
# goes in TSan's low application range.
hip_window

all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}

expect_rc 0 run $PRE "$H/hip_capture_free"
has run out "round 0: q[0] 5a q[2047] 5a q[2048] 00 sum 184320"
has run out "round 1: q[0] 5a q[2047] 5a q[2048] 00 sum 184320"
[ "$(grep -c '^hip' "$T/run.out")" -eq 0 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_capture_free"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
grep -q '^tracesmith: hip: [0-9]* calls, 0 launches, 0 modules, 1 stream-ordered frees in a capture kept until exit, ' "$T/cap.err" ||
	fail "the exit report does not count the kept free: $(cat "$T/cap.err")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
P=$(sed -n 's/^seq=[0-9]* .* hip\.hipMemsetAsync dst=\([0-9]*\) .*capture_status=1.*/\1/p' "$T/dump.out")
[ -n "$P" ] || fail "no hipMemsetAsync recorded in the capture: $(grep Memset "$T/dump.out")"
grep -q " hip\.hipFreeAsync dst=$P stream=[0-9]* capture_status=1 sub=3 " "$T/dump.out" ||
	fail "no hipFreeAsync of $P recorded in the capture: $(grep Free "$T/dump.out")"
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 2 ] || fail "not 2 checkpoints"

all_match replay 2 "$T/c.sbt"
all_match determinism 2 --check-determinism "$T/c.sbt"
all_match moved 2 --hip-no-reserve "$T/c.sbt"

# no window: the runtime gets the free (and refuses it in a capture)
TRACESMITH_HIP_VA=off expect_rc 0 cap.off $PRE "$CAP" -o "$T/off.sbt" -- "$H/hip_capture_free"
cmp -s "$T/run.out" "$T/cap.off.out" || fail "output changed under tscapture without the window"
grep -q 'kept until exit' "$T/cap.off.err" && fail "a free was kept without the window: $(cat "$T/cap.off.err")"
expect_rc 0 dump.off "$INFO" --dump "$T/off.sbt"
grep -q ' hip\.hipFreeAsync result=801 ' "$T/dump.off.out" ||
	fail "the runtime's refusal (hipErrorNotSupported) is not recorded: $(grep Free "$T/dump.off.out")"

# the captured graph as a child: refused on replay, naming the free
expect_rc 0 cap.child $PRE "$CAP" -o "$T/child.sbt" -- "$H/hip_capture_free" child
cmp -s "$T/run.out" "$T/cap.child.out" || fail "child: output changed: $(diff "$T/run.out" "$T/cap.child.out")"
expect_rc 0 dump.child "$INFO" --dump "$T/child.sbt"
G=$(sed -n 's/^seq=[0-9]* .* hip\.hipStreamEndCapture .*handle=\([0-9]*\).*/\1/p' "$T/dump.child.out")
F=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipFreeAsync .*/\1/p' "$T/dump.child.out")
A=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipGraphAddChildGraphNode .*/\1/p' "$T/dump.child.out")
[ -n "$G" ] && [ -n "$F" ] && [ -n "$A" ] || fail "child: no capture, free or child node: $(cat "$T/dump.child.out")"
grep -q "^seq=$A .* hip\.hipGraphAddChildGraphNode handle=$G parent=[1-9][0-9]* node=[1-9][0-9]*\$" "$T/dump.child.out" ||
	fail "child: the child graph node is not recorded as itself: $(grep ChildGraph "$T/dump.child.out")"
grep -q 'tsGraphNotModeled' "$T/dump.child.out" && fail "child: a change recorded as not modeled"
expect_rc 1 child.replay "$RP" "$T/child.sbt"
has child.replay err "tsreplay: backend hip: record seq $A (hip.hipGraphAddChildGraphNode): child graph $(printf '0x%x' "$G") was made by a stream capture that holds hipFreeAsync at seq $F, which a child graph node does not replay (launches, copies and memsets it does)"
echo "ok"
