#!/bin/sh
# The exec setters (docs/hip.md "Graphs built node by node"), with
# hip_graph_exec (tests/hip/hip_graph_exec.c, no kernel), on the
# libamdhip64 test double:
# - the double serves hipGraphExecMemsetNodeSetParams and
#   hipGraphExecMemcpyNodeSetParams1D as clr 5.2 does: the exec's clone of
#   the node takes the new parameters, the graph's node keeps its own (a
#   second exec of the graph runs the old ones), no parameters is
#   hipErrorInvalidValue;
# - tscapture records each as hip.tsGraphNotModeled naming the call, the
#   exec and the node (the failed one with its error, not counted), and
#   the exit report counts the exec changed;
# - tsreplay replays the launch made before the change (its checkpoint
#   equal, plain and with --check-determinism, by a --range that ends
#   before the launch after it) and refuses the launch after it by name
#   (exit 1), naming the first setter.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_graph_exec" ] || { echo "no libamdhip64 to link against: hip_graph_exec is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(ldd "$DBL/libamdhip64.so.5" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}')
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if tsan_build; then
	TRACESMITH_HIP_VA=0x4000000000:64G
	export TRACESMITH_HIP_VA
fi

expect_rc 0 run $PRE "$H/hip_graph_exec"
has run out "first: 11 11 11 hash 17925223560791569925"
has run out "second: 33 00 33 hash 11327309180903462629"
has run out "third: 11 11 11 hash 17925223560791569925"
[ "$(wc -l <"$T/run.out")" -eq 3 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_graph_exec"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
has cap err ", 1 graph or exec changed by calls not modeled, 0 to 0 entry points not modeled"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
E=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphInstantiate handle=\([0-9]*\).*/\1/p' "$T/dump.out" | head -1)
SET=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddMemsetNode parent=.* node=\([0-9]*\).*/\1/p' "$T/dump.out")
CP=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddMemcpyNode1D .*node=\([0-9]*\).*/\1/p' "$T/dump.out")
[ -n "$E" ] && [ -n "$SET" ] && [ -n "$CP" ] || fail "no exec or nodes in the trace: $(cat "$T/dump.out")"
[ "$(grep -c ' hip\.tsGraphNotModeled ' "$T/dump.out")" -eq 3 ] ||
	fail "not 3 hip.tsGraphNotModeled records: $(grep tsGraphNotModeled "$T/dump.out")"
NM=$(sed -n "s/^seq=\([0-9]*\) .* hip\.tsGraphNotModeled handle=$E name=\"hipGraphExecMemsetNodeSetParams\" node=$SET\$/\1/p" "$T/dump.out")
[ -n "$NM" ] || fail "the memset setter is not recorded: $(grep tsGraphNotModeled "$T/dump.out")"
grep -q " hip\.tsGraphNotModeled handle=$E name=\"hipGraphExecMemcpyNodeSetParams1D\" node=$CP\$" "$T/dump.out" ||
	fail "the memcpy setter is not recorded: $(grep tsGraphNotModeled "$T/dump.out")"
grep -q " hip\.tsGraphNotModeled result=1 handle=$E name=\"hipGraphExecMemsetNodeSetParams\" node=$SET\$" "$T/dump.out" ||
	fail "the failed setter is not recorded with its error: $(grep tsGraphNotModeled "$T/dump.out")"

L2=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipGraphLaunch .*/\1/p' "$T/dump.out" | sed -n 2p)
[ -n "$L2" ] || fail "no second launch in the trace"
expect_rc 1 refuse "$RP" "$T/c.sbt"
has refuse err "tsreplay: backend hip: record seq $L2 (hip.hipGraphLaunch): graph exec $(printf '0x%x' "$E") cannot be replayed: it or its graph was changed by hipGraphExecMemsetNodeSetParams at seq $NM, which replay does not model; replay a --range that ends before seq $L2"
for r in plain determinism; do
	case $r in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	esac
	expect_rc 0 "before.$r" "$RP" --json "$@" --range ":$L2" "$T/c.sbt"
	[ "$(json_field "$T/before.$r.out" checkpoints)" = 1 ] && [ "$(json_field "$T/before.$r.out" matched)" = 1 ] ||
		fail "before $r: $(cat "$T/before.$r.out")"
done
exit 0
