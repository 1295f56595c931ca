#!/bin/sh
# The interposer's per-thread guard against a runtime entry point that
# calls another exported one: ROCm 5.2's hipMemcpyToSymbolAsync and
# hipMemcpyFromSymbolAsync copy through hipMemcpyAsync, reached through
# libamdhip64's PLT (so through the interposer), and the double does the
# same (TSHIP_DOUBLE_NESTED=1 names where the call went).  Under tscapture
# the nested call reaches the interposer's hipMemcpyAsync and is passed
# through unrecorded: each symbol copy is one record, the one hipMemcpyAsync
# record is the program's own, and the trace replays with its checkpoints
# equal.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_race" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TSHIP_DOUBLE_NESTED=1
hip_window
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}

expect_rc 0 run $PRE "$H/hip_race" symbol
has run err "libamdhip64 test double: hipMemcpyToSymbolAsync calls hipMemcpyAsync in libamdhip64.so.5"
has run err "libamdhip64 test double: hipMemcpyFromSymbolAsync calls hipMemcpyAsync in libamdhip64.so.5"
expect_rc 0 cap $PRE "$CAP" -o "$T/n.sbt" -- "$H/hip_race" symbol
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
has cap err "libamdhip64 test double: hipMemcpyToSymbolAsync calls hipMemcpyAsync in libtracesmith_hip.so"
has cap err "libamdhip64 test double: hipMemcpyFromSymbolAsync calls hipMemcpyAsync in libtracesmith_hip.so"
expect_rc 0 dump "$INFO" --dump "$T/n.sbt"
for c in hipMemcpyToSymbolAsync hipMemcpyFromSymbolAsync hipMemcpyAsync; do
	[ "$(grep -c " hip\.$c " "$T/dump.out")" -eq 1 ] || fail "not one $c record: $(grep "hip\.$c " "$T/dump.out")"
done
# the one hipMemcpyAsync is the program's read back of y (1024 bytes)
has dump out "hip.hipMemcpyAsync src="
grep -q " hip\.hipMemcpyAsync src=[0-9]* size=1024 " "$T/dump.out" ||
	fail "the hipMemcpyAsync record is not the program's: $(grep 'hip\.hipMemcpyAsync ' "$T/dump.out")"
expect_rc 0 replay "$RP" --json "$T/n.sbt"
[ "$(json_field "$T/replay.out" checkpoints)" = "$(json_field "$T/replay.out" matched)" ] &&
	[ "$(json_field "$T/replay.out" checkpoints)" -ge 2 ] || fail "replay: $(cat "$T/replay.out")"
echo "ok"
