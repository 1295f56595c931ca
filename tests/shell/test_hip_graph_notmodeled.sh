#!/bin/sh
# Graph changes the compute model does not cover (docs/hip.md "Graphs
# built node by node"), with hip_graph_nm (tests/hip/hip_graph_nm.c, no
# kernel), on the libamdhip64 test double:
# - the double runs a child graph node as clr 5.2 does (the child's work
#   copied into the node when it is added);
# - tscapture records hipGraphAddChildGraphNode of a child graph made by a
#   stream capture it did not see end (hip_graph_nm ends it through the
#   runtime's own hipStreamEndCapture; one made by hipGraphCreate or by a
#   capture seen is modeled: test_hip_graph_nodes.sh, `seen` below) as
#   hip.tsGraphNotModeled naming the call, the
#   graph, the node, its dependency and its type (hipGraphNodeTypeGraph,
#   5); the one that failed (no child graph) is recorded as itself with
#   its error and does not count; the exit report and tsinfo (text and
#   --json) count the graph changed;
# - tsreplay replays the launch made before the change (its checkpoint
#   equal) and refuses the launch after it by name (exit 1); a --range
#   that ends before that launch replays with its one checkpoint equal;
# - a change to a node of a graph the trace does not name (the record's
#   graph dropped) refuses every later graph launch;
# - with `seen` (the capture ended through hipStreamEndCapture, seen by the
#   interposer) the child graph node is recorded as
#   hip.hipGraphAddChildGraphNode with the captured graph as its child,
#   nothing is counted as not modeled, and tsreplay replays both launches
#   (the child's memset issued from the work recorded into the capture)
#   with both checkpoints equal, plain and with --check-determinism, and a
#   --range ending before the second launch with its one checkpoint.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_graph_nm" ] || { echo "no libamdhip64 to link against: hip_graph_nm is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
hip_window

expect_rc 0 run $PRE "$H/hip_graph_nm"
has run out "first: 11 11 11 hash 17925223560791569925"
has run out "second: 11 22 11 hash 4464032630387078725"
[ "$(wc -l <"$T/run.out")" -eq 2 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_graph_nm"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
has cap err ", 1 graph or exec changed by calls not modeled, 0 to 0 entry points not modeled"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
G=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphCreate handle=\([0-9]*\).*/\1/p' "$T/dump.out" | head -1)
SET=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddMemsetNode parent=.* node=\([0-9]*\).*/\1/p' "$T/dump.out" | head -1)
DEP=$(printf '%016x' "$SET" | sed 's/\(..\)/\1 /g' | awk '{for (i = NF; i > 0; i--) printf "%s", $i}')
[ "$(grep -c ' hip\.tsGraphNotModeled ' "$T/dump.out")" -eq 1 ] ||
	fail "not 1 hip.tsGraphNotModeled record: $(grep tsGraphNotModeled "$T/dump.out")"
grep -q " hip\.hipGraphAddChildGraphNode result=1 parent=$G deps=$DEP\$" "$T/dump.out" ||
	fail "the failed add is not recorded with its error: $(grep ChildGraph "$T/dump.out")"
grep -q " hip\.tsGraphNotModeled parent=$G name=\"hipGraphAddChildGraphNode\" sub=5 node=[1-9][0-9]* deps=$DEP\$" "$T/dump.out" ||
	fail "the child graph node is not recorded: $(grep tsGraphNotModeled "$T/dump.out")"
expect_rc 0 info "$INFO" "$T/c.sbt"
has info out "hip graphs   1 graph or exec changed by calls not modeled (replay refuses their launches): hipGraphAddChildGraphNode=1"
grep -q '^cuda graphs' "$T/info.out" && fail "info counts CUDA graphs: $(cat "$T/info.out")"
expect_rc 0 json "$INFO" --json "$T/c.sbt"
has json out '"hip_graphs_not_modeled":{"graphs":1,"calls":[{"name":"hipGraphAddChildGraphNode","records":1}]}'

NM=$(sed -n 's/^seq=\([0-9]*\) .* hip\.tsGraphNotModeled parent=.*/\1/p' "$T/dump.out")
L2=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipGraphLaunch .*/\1/p' "$T/dump.out" | sed -n 2p)
E2=$(sed -n "s/^seq=$L2 .* hip\.hipGraphLaunch handle=\([0-9]*\).*/\1/p" "$T/dump.out")
[ -n "$NM" ] && [ -n "$L2" ] && [ -n "$E2" ] || fail "no change or second launch in the trace"
expect_rc 1 refuse "$RP" "$T/c.sbt"
has refuse err "tsreplay: backend hip: record seq $L2 (hip.hipGraphLaunch): graph exec $(printf '0x%x' "$E2") cannot be replayed: it or its graph was changed by hipGraphAddChildGraphNode at seq $NM, which replay does not model; replay a --range that ends before seq $L2"
expect_rc 0 before "$RP" --json --range ":$L2" "$T/c.sbt"
n=$(json_field "$T/before.out" checkpoints)
m=$(json_field "$T/before.out" matched)
[ "$n" = 1 ] && [ "$m" = 1 ] || fail "before: $n checkpoints, $m matched, expected 1 of 1: $(cat "$T/before.out")"

# the change's graph dropped: a node of a graph the trace does not name
i=0
while [ "$i" -lt 40 ]; do
	"$MUT" "$T/c.sbt" "$T/nograph.sbt" --varint "$NM:$i:0" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/nograph.sbt" | grep -q "^seq=$NM .* hip\.tsGraphNotModeled name=\"hipGraphAddChildGraphNode\" sub=5 node=" && break
	i=$((i + 1))
done
[ "$i" -lt 40 ] || fail "no varint of record $NM is its graph"
expect_rc 1 nograph "$RP" "$T/nograph.sbt"
has nograph err "record seq $L2 (hip.hipGraphLaunch): graph exec $(printf '0x%x' "$E2") cannot be replayed: hipGraphAddChildGraphNode at seq $NM changed node 0x"
has nograph err " of a graph the trace does not name, which replay does not model; replay a --range that ends before seq $L2"

# a child graph made by a stream capture the interposer saw end: modeled
expect_rc 0 run.seen $PRE "$H/hip_graph_nm" seen
cmp -s "$T/run.out" "$T/run.seen.out" || fail "seen: output differs: $(diff "$T/run.out" "$T/run.seen.out")"
expect_rc 0 cap.seen $PRE "$CAP" -o "$T/s.sbt" -- "$H/hip_graph_nm" seen
cmp -s "$T/run.out" "$T/cap.seen.out" || fail "seen: output changed under tscapture: $(diff "$T/run.out" "$T/cap.seen.out")"
grep -q 'changed by calls not modeled' "$T/cap.seen.err" && fail "seen: counted as not modeled: $(cat "$T/cap.seen.err")"
expect_rc 0 dump.seen "$INFO" --dump "$T/s.sbt"
G=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphCreate handle=\([0-9]*\).*/\1/p' "$T/dump.seen.out" | head -1)
CH=$(sed -n 's/^seq=[0-9]* .* hip\.hipStreamEndCapture .*handle=\([0-9]*\).*/\1/p' "$T/dump.seen.out")
SET=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddMemsetNode parent=.* node=\([0-9]*\).*/\1/p' "$T/dump.seen.out" | head -1)
DEP=$(printf '%016x' "$SET" | sed 's/\(..\)/\1 /g' | awk '{for (i = NF; i > 0; i--) printf "%s", $i}')
[ -n "$CH" ] || fail "seen: no hipStreamEndCapture with its graph: $(cat "$T/dump.seen.out")"
grep -q " hip\.tsGraphNotModeled " "$T/dump.seen.out" && fail "seen: a tsGraphNotModeled record: $(grep tsGraphNotModeled "$T/dump.seen.out")"
grep -q " hip\.hipGraphAddChildGraphNode handle=$CH parent=$G node=[1-9][0-9]* deps=$DEP\$" "$T/dump.seen.out" ||
	fail "seen: the child graph node is not recorded as itself: $(grep ChildGraph "$T/dump.seen.out")"
for r in plain determinism; do
	case $r in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	esac
	expect_rc 0 "seen.$r" "$RP" --json "$@" "$T/s.sbt"
	[ "$(json_field "$T/seen.$r.out" checkpoints)" = 2 ] && [ "$(json_field "$T/seen.$r.out" matched)" = 2 ] ||
		fail "seen $r: $(cat "$T/seen.$r.out")"
done
L2=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipGraphLaunch .*/\1/p' "$T/dump.seen.out" | sed -n 2p)
expect_rc 0 seen.before "$RP" --json --range ":$L2" "$T/s.sbt"
[ "$(json_field "$T/seen.before.out" checkpoints)" = 1 ] && [ "$(json_field "$T/seen.before.out" matched)" = 1 ] ||
	fail "seen before: $(cat "$T/seen.before.out")"
exit 0
