#!/bin/sh
# Changes to a graph built node by node that the compute model covers
# (docs/hip.md "Graphs built node by node"), with hip_graph_edit
# (tests/hip/hip_graph_edit.hip, hipcc-built, saxpy), on the libamdhip64
# test double:
# - the double serves hipGraphRemoveDependencies (an edge it does not
#   hold: hipErrorInvalidValue), hipGraphDestroyNode and
#   hipGraphKernelNodeSetParams as clr 5.2 does;
# - tscapture records each as itself (the failed removal with its error),
#   with the graph, node and edges; nothing as hip.tsGraphNotModeled;
# - tsreplay applies them to the graph it keeps and replays both
#   checkpoints equal (plain, --check-determinism, --streams single);
#   without the hipGraphKernelNodeSetParams record the kernel runs with
#   a = 2 and the replay differs (exit 3); without the
#   hipGraphAddDependencies record the removal names an edge the graph
#   does not hold and is refused by name.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_graph_edit" ] || { echo "no hipcc: hip_graph_edit is not built (scripts/deps.sh installs it)"; exit 77; }
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

expect_rc 0 run $PRE "$H/hip_graph_edit"
has run out "hipGraphRemoveDependencies again 1"
has run out "y[5] 15.0 y[255] 765.0 z[0] 7 z[255] 7"
[ "$(grep -v '^y' "$T/run.out" | grep -vc ' 0$')" -eq 1 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_graph_edit"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
grep -q 'tsGraphNotModeled' "$T/dump.out" && fail "a change recorded as not modeled: $(grep NotModeled "$T/dump.out")"
G=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphCreate handle=\([0-9]*\).*/\1/p' "$T/dump.out")
node_of() { # the node of the N-th record of call $1
	sed -n "s/^seq=[0-9]* .* hip\.$1 .* node=\([0-9]*\).*/\1/p" "$T/dump.out" | sed -n "${2:-1}p"
}
le() { printf '%016x' "$1" | sed 's/\(..\)/\1 /g' | awk '{for (i = NF; i > 0; i--) printf "%s", $i}'; }
K=$(node_of hipGraphAddKernelNode)
E=$(node_of hipGraphAddEmptyNode)
F=$(node_of hipGraphAddMemsetNode 2)
grep -q " hip\.hipGraphRemoveDependencies parent=$G deps=$(le "$K") deps_to=$(le "$F")\$" "$T/dump.out" ||
	fail "no removal of the edge kernel -> fill: $(grep RemoveDep "$T/dump.out")"
grep -q " hip\.hipGraphRemoveDependencies result=1 parent=$G\$" "$T/dump.out" ||
	fail "the failed removal is not recorded with its error: $(grep RemoveDep "$T/dump.out")"
grep -q " hip\.hipGraphDestroyNode parent=$G node=$E\$" "$T/dump.out" ||
	fail "no hipGraphDestroyNode of the empty node: $(grep DestroyNode "$T/dump.out")"
grep -q " hip\.hipGraphKernelNodeSetParams handle=[1-9][0-9]* parent=$G name=\"_Z5saxpyifPKfPf\" grid_x=4 .* node=$K" "$T/dump.out" ||
	fail "no hipGraphKernelNodeSetParams of the kernel node: $(grep KernelNodeSetParams "$T/dump.out")"

all_match() {
	am_name=$1
	shift
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = 2 ] && [ "$m" = 2 ] || fail "$am_name: $n checkpoints, $m matched, expected 2 of 2: $(cat "$T/$am_name.out")"
}
all_match replay "$T/c.sbt"
all_match determinism --check-determinism "$T/c.sbt"
all_match single --streams single "$T/c.sbt"

seq_of() { sed -n "s/^seq=\([0-9]*\) .* hip\.$1 .*/\1/p" "$T/dump.out" | head -1; }
expect_rc 0 mut.set "$MUT" "$T/c.sbt" "$T/noset.sbt" --drop "$(seq_of hipGraphKernelNodeSetParams)"
expect_rc 3 noset "$RP" "$T/noset.sbt"
has noset out "differ"
R=$(seq_of hipGraphRemoveDependencies)
expect_rc 0 mut.add "$MUT" "$T/c.sbt" "$T/noadd.sbt" --drop "$(seq_of hipGraphAddDependencies)"
expect_rc 1 noadd "$RP" "$T/noadd.sbt"
has noadd err "record seq $R (hip.hipGraphRemoveDependencies): edge 0 ($(printf '0x%x' "$K") -> $(printf '0x%x' "$F")) is not in graph $(printf '0x%x' "$G")"
exit 0
