#!/bin/sh
# Functions found through hipGetProcAddress (ROCm 6; ROCm 5.2 exports none,
# the double serves it as clr does) are recorded (docs/hip.md "How the
# entry points are made"), with hip_procaddr (tests/hip/hip_procaddr.c, no
# kernel), on the libamdhip64 test double:
# - the interposer passes hipGetProcAddress through and answers with its
#   own export of the function the runtime chose, so hipMalloc, hipMemset,
#   hipMemcpy and hipFree called through the answers are recorded (the
#   copy checkpointed); an unknown name keeps the runtime's answer (none,
#   status 1, hipErrorInvalidValue); the output is unchanged;
# - the exit report counts hipGetProcAddress as not modeled;
# - tsreplay replays the trace with its checkpoint equal.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_procaddr" ] || { echo "no libamdhip64 to link against: hip_procaddr is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
hip_window

expect_rc 0 run $PRE "$H/hip_procaddr"
has run out "hipNoSuchCall: 1, none, status 1"
has run out "read: 6b 21 hash 11573104438018986485"
[ "$(wc -l <"$T/run.out")" -eq 2 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_procaddr"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
has cap err "tracesmith: hip: 11 calls, 0 launches, 0 modules, 5 to 1 entry points not modeled"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
calls=$(sed -n 's/^seq=[0-9]* t=[0-9.]* tid=[0-9]* \(hip\.[A-Za-z]*\|checkpoint\).*/\1/p' "$T/dump.out" | tr '\n' ' ')
[ "$calls" = "hip.hipInit hip.tsVaWindow hip.hipMalloc hip.hipMemset hip.hipMemset hip.hipMemcpy checkpoint hip.hipFree " ] ||
	fail "records: $calls"
expect_rc 0 replay "$RP" --json "$T/c.sbt"
n=$(json_field "$T/replay.out" checkpoints)
m=$(json_field "$T/replay.out" matched)
[ "$n" = 1 ] && [ "$m" = 1 ] || fail "replay: $n checkpoints, $m matched, expected 1 of 1: $(cat "$T/replay.out")"
exit 0
