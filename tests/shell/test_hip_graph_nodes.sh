#!/bin/sh
# HIP graphs built node by node (docs/hip.md), with hip_graph_nodes
# (tests/hip/hip_graph_nodes.hip, hipcc-built: saxpy and poke kernels), on
# the libamdhip64 test double:
# - the double builds and runs them as ROCm 5.2's clr does (a memcpy 1D
#   node, a memset node of 4-byte elements, kernel nodes by host stub, an
#   empty node, an edge added by hipGraphAddDependencies, a memcpy node;
#   each node after its dependencies) and gives clr's codes to what it
#   refuses;
# - tscapture records every node with its graph, node handle and
#   dependencies, the kernel nodes named and laid out as launches, the
#   edge, hipGraphInstantiateWithFlags; the output is unchanged;
# - tsreplay rebuilds the graph (each node's work captured on a stream of
#   its own, in an order the dependencies allow) and replays it with the
#   three checkpoints equal: plain, moved, --check-determinism
#   --per-command, --streams single, --range after the first launch;
#   without the hipGraphAddDependencies record poke runs before saxpy and
#   the replay differs (exit 3); a graph or node the trace never made is
#   refused by name; a kernel node by a module's hipFunction_t replays
#   equal too; 40 seeded mutants end with a result or one named error;
# - hip_graph_nodes child: a child graph node (a child made by
#   hipGraphCreate: memset, then a child graph node of a graph holding
#   saxpy) runs the child's nodes as they were when it was added (a node added to the child later does not run),
#   the poke after it after all of them; recorded as
#   hip.hipGraphAddChildGraphNode (handle = the child), the output
#   unchanged; replayed with its six checkpoints equal (plain,
#   --check-determinism --per-command); without its record the node after
#   it is refused by name; 40 seeded mutants of its trace end with a
#   result or one named error.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_graph_nodes" ] || { echo "no hipcc: hip_graph_nodes is not built (scripts/deps.sh installs hipcc)"; exit 77; }
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

all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}
seq_of() {
	grep " hip\.$1 " "$T/dump.out" | sed -n "${2:-1}s/^seq=\([0-9]*\) .*/\1/p"
}

WANT="z[3] 100.0 z[5] 11.0 z[1023] 2047.0 sum 1048669.0"
expect_rc 0 run $PRE "$H/hip_graph_nodes" checks
has run out "first launch: $WANT"
has run out "second launch: $WANT"
has run out "second exec: $WANT"
# clr's codes
has run out "create flags 1 1"
has run out "kernel no params 1"
has run out "kernel not registered 98"
has run out "memset element 3 1"
has run out "edge to itself 1"
has run out "edge twice 1"
has run out "instantiate flags 5 1"
[ "$(grep -c '^hip' "$T/run.out")" -eq 0 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 plain $PRE "$H/hip_graph_nodes"
expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_graph_nodes"
cmp -s "$T/plain.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/plain.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
G=$(sed -n 's/.* hip\.hipGraphCreate handle=\([0-9]*\)$/\1/p' "$T/dump.out")
[ -n "$G" ] || fail "no hipGraphCreate record: $(grep Graph "$T/dump.out")"
grep -q " hip\.hipGraphAddMemcpyNode1D parent=$G dst=[0-9]* size=4096 width=4096 height=1 blob=[0-9]* host=[0-9]* sub=1 dst_type=2 src_type=1 dst_pitch=4096 src_pitch=4096 node=[0-9]*\$" "$T/dump.out" ||
	fail "no memcpy 1D node record: $(grep MemcpyNode1D "$T/dump.out")"
grep -q " hip\.hipGraphAddMemsetNode parent=$G dst=[0-9]* width=1024 height=1 elem_size=4 value=1065353216 node=[0-9]*\$" "$T/dump.out" ||
	fail "no memset node record: $(grep MemsetNode "$T/dump.out")"
grep -q " hip\.hipGraphAddKernelNode handle=[0-9]* parent=$G name=\"_Z5saxpyifPKfPf\" grid_x=4 grid_y=1 grid_z=1 block_x=256 block_y=1 block_z=1 params=[0-9a-f]* layout=[0-9a-f]* node=[0-9]* deps=[0-9a-f]\{32\}\$" "$T/dump.out" ||
	fail "no saxpy kernel node with two dependencies: $(grep KernelNode "$T/dump.out")"
grep -q " hip\.hipGraphAddKernelNode handle=[0-9]* parent=$G name=\"_Z4pokePfxf\" .* node=[0-9]*\$" "$T/dump.out" ||
	fail "no poke kernel node with no dependencies: $(grep KernelNode "$T/dump.out")"
grep -q " hip\.hipGraphAddEmptyNode parent=$G node=[0-9]* deps=[0-9a-f]\{16\}\$" "$T/dump.out" || fail "no empty node"
grep -q " hip\.hipGraphAddDependencies parent=$G deps=[0-9a-f]\{16\} deps_to=[0-9a-f]\{16\}\$" "$T/dump.out" ||
	fail "no hipGraphAddDependencies record"
grep -q " hip\.hipGraphAddMemcpyNode parent=$G dst=[0-9]* src=[0-9]* size=4096 width=4096 height=1 depth=1 sub=3 dst_type=2 src_type=2 " "$T/dump.out" ||
	fail "no memcpy node record: $(grep 'MemcpyNode ' "$T/dump.out")"
grep -q " hip\.hipGraphInstantiateWithFlags handle=[0-9]* parent=$G\$" "$T/dump.out" || fail "no hipGraphInstantiateWithFlags"
[ "$(grep -c ' hip\.hipGraphLaunch ' "$T/dump.out")" -eq 3 ] || fail "not 3 graph launches"
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 3 ] || fail "not 3 checkpoints"

all_match replay 3 "$T/c.sbt"
all_match moved 3 --hip-no-reserve "$T/c.sbt"
all_match determinism 3 --check-determinism --per-command "$T/c.sbt"
has determinism out '"commands_part":null'
all_match single 3 --streams single "$T/c.sbt"
S=$(seq_of hipGraphLaunch 2)
all_match range 2 --range "$S:" "$T/c.sbt"

# the edge matters: without it poke runs first and saxpy adds to its 100
expect_rc 0 mut.edge "$MUT" "$T/c.sbt" "$T/noedge.sbt" --drop "$(seq_of hipGraphAddDependencies)"
expect_rc 3 noedge "$RP" "$T/noedge.sbt"
has noedge out "differ"
# a node the trace never added (the empty node dropped: the edge names it)
S=$(seq_of hipGraphAddDependencies)
expect_rc 0 mut.node "$MUT" "$T/c.sbt" "$T/nonode.sbt" --drop "$(seq_of hipGraphAddEmptyNode)"
expect_rc 1 nonode "$RP" "$T/nonode.sbt"
has nonode err "(hip.hipGraphAddDependencies): 'from' node 0 names graph node 0x"
has nonode err ", which the trace never added to graph 0x$(printf '%x' "$G")"
# a graph the trace never made
expect_rc 0 mut.graph "$MUT" "$T/c.sbt" "$T/nograph.sbt" --drop "$(seq_of hipGraphCreate)"
expect_rc 1 nograph "$RP" "$T/nograph.sbt"
has nograph err "(hip.hipGraphAddMemcpyNode1D): graph 0x$(printf '%x' "$G") was never made in the trace"

# a memset node made two rows tall: named at its own record when the
# graph is instantiated
S=$(seq_of hipGraphAddMemsetNode)
i=0
while [ "$i" -lt 40 ]; do
	"$MUT" "$T/c.sbt" "$T/tall.sbt" --varint "$S:$i:2" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/tall.sbt" | grep -q "^seq=$S .* width=1024 height=2 elem_size=4 " && break
	i=$((i + 1))
done
[ "$i" -lt 40 ] || fail "no varint of record $S is its height"
expect_rc 1 tall "$RP" "$T/tall.sbt"
has tall err "record seq $S (hip.hipGraphAddMemsetNode): a memset node of 2 rows of 1024 elements of 4 bytes is not replayed (one row of 1, 2 or 4-byte elements is)"

# a kernel node by the hipFunction_t of hipModuleGetFunction (clr's
# getFunc takes one), with the --genco module
KS="$H/hip_module_kernels.hsaco"
if [ -e "$KS" ]; then
	expect_rc 0 mrun $PRE "$H/hip_graph_nodes" "$KS"
	has mrun out "second exec: z[3] 100.5 z[5] 11.5 z[1023] 2047.5 sum 1049181.0"
	expect_rc 0 mcap $PRE "$CAP" -o "$T/m.sbt" -- "$H/hip_graph_nodes" "$KS"
	cmp -s "$T/mrun.out" "$T/mcap.out" || fail "module: output changed under tscapture"
	expect_rc 0 mdump "$INFO" --dump "$T/m.sbt"
	F=$(sed -n 's/.* hip\.hipModuleGetFunction handle=\([0-9]*\) .*name="_Z10add_offsetPffi"$/\1/p' "$T/mdump.out")
	[ -n "$F" ] || fail "no hipModuleGetFunction of add_offset"
	grep -q " hip\.hipGraphAddKernelNode handle=$F parent=[0-9]* name=\"_Z10add_offsetPffi\" grid_x=4 " "$T/mdump.out" ||
		fail "no kernel node of the module's function: $(grep KernelNode "$T/mdump.out")"
	all_match mreplay 3 --check-determinism "$T/m.sbt"
fi

# a child graph node
WW="w[3] 10.0 w[5] 7.0 w[1023] 3070.0 sum 1572343.0"
expect_rc 0 crun $PRE "$H/hip_graph_nodes" child
has crun out "first launch: $WANT"
has crun out "first launch: $WW"
has crun out "second launch: $WW"
has crun out "second exec: $WW"
[ "$(grep -c '^hip' "$T/crun.out")" -eq 0 ] || fail "child: a call failed on the double: $(cat "$T/crun.out")"
expect_rc 0 ccap $PRE "$CAP" -o "$T/ch.sbt" -- "$H/hip_graph_nodes" child
cmp -s "$T/crun.out" "$T/ccap.out" || fail "child: output changed under tscapture: $(diff "$T/crun.out" "$T/ccap.out")"
expect_rc 0 cdump "$INFO" --dump "$T/ch.sbt"
G=$(sed -n 's/.* hip\.hipGraphCreate handle=\([0-9]*\)$/\1/p' "$T/cdump.out" | sed -n 1p)
GG=$(sed -n 's/.* hip\.hipGraphCreate handle=\([0-9]*\)$/\1/p' "$T/cdump.out" | sed -n 2p)
CG=$(sed -n 's/.* hip\.hipGraphCreate handle=\([0-9]*\)$/\1/p' "$T/cdump.out" | sed -n 3p)
UP=$(sed -n 's/.* hip\.hipGraphAddMemcpyNode1D .* node=\([0-9]*\)$/\1/p' "$T/cdump.out")
[ -n "$G" ] && [ -n "$GG" ] && [ -n "$CG" ] && [ -n "$UP" ] || fail "child: no graph, child graph or upload node: $(grep Graph "$T/cdump.out")"
DEP=$(printf '%016x' "$UP" | sed 's/\(..\)/\1 /g' | awk '{for (i = NF; i > 0; i--) printf "%s", $i}')
grep -q " hip\.hipGraphAddChildGraphNode handle=$CG parent=$G node=[1-9][0-9]* deps=$DEP\$" "$T/cdump.out" ||
	fail "child: no hipGraphAddChildGraphNode record of the child after the upload: $(grep ChildGraph "$T/cdump.out")"
grep -q " hip\.hipGraphAddChildGraphNode handle=$GG parent=$CG node=[1-9][0-9]* deps=[0-9a-f]\{16\}\$" "$T/cdump.out" ||
	fail "child: no hipGraphAddChildGraphNode record of the grandchild: $(grep ChildGraph "$T/cdump.out")"
grep -q 'tsGraphNotModeled' "$T/cdump.out" && fail "child: recorded as not modeled: $(grep tsGraphNotModeled "$T/cdump.out")"
[ "$(grep -c " hip\.hipGraphAddMemsetNode parent=$CG " "$T/cdump.out")" -eq 2 ] || fail "child: not 2 memset nodes in the child"
[ "$(grep -c ' checkpoint ' "$T/cdump.out")" -eq 6 ] || fail "child: not 6 checkpoints"
all_match creplay 6 "$T/ch.sbt"
all_match cdeterminism 6 --check-determinism --per-command "$T/ch.sbt"
has cdeterminism out '"commands_part":null'
# the child node's record dropped: the poke after it names a node the
# trace never added
CS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphAddChildGraphNode .* parent=$G .*/\1/p" "$T/cdump.out")
PS=$(awk -v c="$CS" '$4 == "hip.hipGraphAddKernelNode" { s = $1; sub("seq=", "", s); if (s + 0 > c + 0) { print s; exit } }' "$T/cdump.out")
[ -n "$CS" ] && [ -n "$PS" ] || fail "child: no child node or poke after it"
expect_rc 0 mut.child "$MUT" "$T/ch.sbt" "$T/nochild.sbt" --drop "$CS"
expect_rc 1 nochild "$RP" "$T/nochild.sbt"
has nochild err "record seq $PS (hip.hipGraphAddKernelNode): dependency 0 names graph node 0x"
has nochild err ", which the trace never added to graph 0x$(printf '%x' "$G")"

# 40 seeded mutants of each trace (the child graph node's too)
mkdir -p "$T/mut" "$T/mutc"
expect_rc 0 mutants "$MUT" --batch "$T/c.sbt" "$T/mut" 1 40
expect_rc 0 mutantsc "$MUT" --batch "$T/ch.sbt" "$T/mutc" 1 40
for f in "$T/mut"/*.sbt "$T/mutc"/*.sbt; do
	rc=0
	timeout 60 "$RP" -q --check-determinism --runs 2 "$f" >/dev/null 2>"$T/mut.err" || rc=$?
	case $rc in
	0 | 3) ;;
	1) grep -q '^tsreplay: ' "$T/mut.err" ||
		fail "$f ($(grep -h "$(basename "$f"):" "$T/mutants.out" "$T/mutantsc.out")): exit 1 without a message: $(cat "$T/mut.err")" ;;
	*) fail "$f ($(grep -h "$(basename "$f"):" "$T/mutants.out" "$T/mutantsc.out")): exit $rc: $(cat "$T/mut.err")" ;;
	esac
done
exit 0
