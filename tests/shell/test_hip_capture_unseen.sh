#!/bin/sh
# A stream capture begun where the interposer does not see it (docs/hip.md
# "Stream capture"), with hip_capture_unseen (tests/hip/hip_capture_unseen.c,
# no kernel), on the libamdhip64 test double:
# - hipStreamBeginCapture is called through the runtime's own function
#   (the C library's dlvsym on its handle, found with dlvsym(RTLD_NEXT,
#   "dlvsym", "GLIBC_2.34"): the interposer's dlsym and dlvsym would hand
#   out its wrapper), so no record of it is made; the interposer asks
#   the runtime at the stream's first work and records capture_status=1 on
#   the memset and the copy captured; the output is unchanged;
# - tsreplay begins a capture on that stream at the first such record and
#   replays the graph with the checkpoint equal (plain, --check-determinism);
#   with --streams single it refuses by name.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_capture_unseen" ] || { echo "no libamdhip64 to link against: hip_capture_unseen is not built (scripts/deps.sh installs it)"; exit 77; }
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

expect_rc 0 run $PRE "$H/hip_capture_unseen"
has run out "read: 5a 5a 00 hash 8730523341109160965"
[ "$(wc -l <"$T/run.out")" -eq 1 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_capture_unseen"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
grep -q ' hip\.hipStreamBeginCapture' "$T/dump.out" && fail "the unseen begin was recorded: $(cat "$T/dump.out")"
grep -q ' hip\.hipMemsetAsync .* stream=[0-9]* value=90 capture_status=1 ' "$T/dump.out" ||
	fail "the captured memset has no capture_status=1: $(grep MemsetAsync "$T/dump.out")"
grep -q ' hip\.hipMemcpyAsync .* stream=[0-9]* capture_status=1 sub=3 ' "$T/dump.out" ||
	fail "the captured copy has no capture_status=1: $(grep MemcpyAsync "$T/dump.out")"
[ "$(grep -c 'capture_status=' "$T/dump.out")" -eq 2 ] || fail "not 2 records with capture_status: $(grep capture_status "$T/dump.out")"

for mode in plain determinism; do
	case $mode in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	esac
	expect_rc 0 "$mode" "$RP" --json "$@" "$T/c.sbt"
	n=$(json_field "$T/$mode.out" checkpoints)
	m=$(json_field "$T/$mode.out" matched)
	[ "$n" = 1 ] && [ "$m" = 1 ] || fail "$mode: $n checkpoints, $m matched, expected 1 of 1: $(cat "$T/$mode.out")"
done
S=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipMemsetAsync .*/\1/p' "$T/dump.out")
expect_rc 1 single "$RP" --streams single "$T/c.sbt"
has single err "record seq $S (hip.hipMemsetAsync): stream capture cannot be replayed with --streams single (it needs a stream); replay with --streams multi"
exit 0
