#!/bin/sh
# Async device-to-host copies checkpointed at the event synchronization
# that shows their result to the program (docs/hip.md, copies), as CUDA's
# interposer does, with hip_event_sync (tests/hip/hip_event_sync.c, no
# kernel), on the libamdhip64 test double:
# - a copy before an event recorded on its stream is checkpointed right
#   after the hipEventSynchronize that waited for it, another right after
#   the hipEventQuery that answered hipSuccess; a copy with no event after
#   it only at the stream's hipStreamSynchronize;
# - tsreplay compares all three equal (plain, --check-determinism).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_event_sync" ] || { echo "no libamdhip64 to link against: hip_event_sync is not built (scripts/deps.sh installs it)"; exit 77; }
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

expect_rc 0 run $PRE "$H/hip_event_sync"
has run out "synchronized: 3c 3c hash 9453928234938565893"
has run out "queried: 3c 3c hash 2352869746450830797"
has run out "stream: 3c 00 hash 14926671073067478673"
[ "$(wc -l <"$T/run.out")" -eq 3 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_event_sync"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
# each D2H copy's seq, and what the record after each synchronization is
C1=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipMemcpyAsync .* sub=2 .*/\1/p' "$T/dump.out" | sed -n 1p)
C2=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipMemcpyAsync .* sub=2 .*/\1/p' "$T/dump.out" | sed -n 2p)
C3=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipMemcpyAsync .* sub=2 .*/\1/p' "$T/dump.out" | sed -n 3p)
[ -n "$C1" ] && [ -n "$C2" ] && [ -n "$C3" ] || fail "not three device-to-host copies: $(cat "$T/dump.out")"
after() {
	awk -v call="$1" '
		found { sub(/^seq=[0-9]* t=[0-9.]* tid=[0-9]* /, ""); sub(/ object=.*/, ""); print; exit }
		$0 ~ (" hip\\." call "( |$)") { found = 1 }' "$T/dump.out"
}
[ "$(after hipEventSynchronize)" = "checkpoint call_seq=$C1" ] ||
	fail "no checkpoint of seq $C1 after hipEventSynchronize: $(after hipEventSynchronize)"
[ "$(after hipEventQuery)" = "checkpoint call_seq=$C2" ] ||
	fail "no checkpoint of seq $C2 after hipEventQuery: $(after hipEventQuery)"
[ "$(after hipStreamSynchronize)" = "checkpoint call_seq=$C3" ] ||
	fail "no checkpoint of seq $C3 after hipStreamSynchronize: $(after hipStreamSynchronize)"
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 3 ] || fail "not 3 checkpoints: $(grep checkpoint "$T/dump.out")"

for mode in plain determinism; do
	case $mode in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	esac
	expect_rc 0 "$mode" "$RP" --json "$@" "$T/c.sbt"
	n=$(json_field "$T/$mode.out" checkpoints)
	m=$(json_field "$T/$mode.out" matched)
	[ "$n" = 3 ] && [ "$m" = 3 ] || fail "$mode: $n checkpoints, $m matched, expected 3 of 3: $(cat "$T/$mode.out")"
done
exit 0
