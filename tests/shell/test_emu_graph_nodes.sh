#!/bin/sh
# The emulator on CUDA graphs built node by node (docs/emulator.md "CUDA
# graphs built node by node"), traces of tests/cuda/cuda_graph_nodes
# captured on the libcuda test double (as test_cuda_graph_nodes.sh does):
# - each of the 2 launches runs the graph's 6 work nodes (upload, memset,
#   fill, vadd, racy_scale, read-back; the empty and event record nodes are
#   not commands): 15 commands in the summary and the JSON timeline; the DOT
#   graph has the edge fill -> vadd that the empty join node and
#   cuGraphAddDependencies make, bold (inside a graph);
# - races: the program's synchronous cuMemsetD32 of the accumulator on the
#   legacy stream is unordered with the graph's nodes on a non-blocking
#   stream (6 pairs, each with that memset on one side: races between a
#   graph and another stream), and no pair of two graph nodes; with
#   --unordered (vadd not made to follow the join) vadd also races with
#   the memset and fill nodes writing the buffer it reads, in each launch,
#   and the DOT graph loses fill -> vadd;
# - the node destroyed and the edge removed (--destroy) are gone: no
#   command more, no race more; an exec kernel node setter (--exec-set)
#   keeps the nodes;
# - a graph with a host node given another function (--host-set:
#   cuGraphHostNodeSetParams, recorded as tsGraphNotModeled) is one
#   command per launch; kernel node attributes set and copied
#   (--node-attr: records the emulator passes over, as they change no
#   ordering) keep the graph's 15 commands; batch memory-op nodes
#   (--memop) are commands of their own, each writing (and waiting on)
#   the words its operations name: 19 commands, 10 races (4 of them the
#   nodes' writes with the legacy memset);
# - tsreplay --emulate --schedule-seed refuses a trace launching such a graph;
# - a child graph node (--child) runs the child's racy_scale as it was when
#   the node was added, after the read-back node (17 commands, the child's
#   scale racing with the legacy memset too: 8 races); a clone (--clone)
#   instantiated runs its own nodes (15 commands); a node disabled for the
#   first launch (--disable) is an empty node of it (14 commands); a host
#   node (--host-node) is no command and keeps the edges; the memset node
#   set to write the accumulator (--set-nodes) races with the legacy memset,
#   the exec's setters change the second launch (17: its upload node reads
#   another host buffer); an exec updated from a clone
#   (--update) and one whose record node records another event
#   (--exec-event) keep running nodes (15); the host sources read at each
#   launch (--host-src) are no commands (17).
# - graph memory (--alloc-node, --no-free-node, --capture-alloc): the
#   allocation and free nodes are ordering nodes, the work around them
#   commands (19, 8 races); nodes added to the graph embedded in a child
#   node (--child-get) run in the node's copy (22 commands).
# - a capture into a graph built node by node (--capture-to,
#   cuStreamBeginCaptureToGraph): the captured memset and vadd are nodes
#   of that graph after its empty node, memset -> vadd (17 commands, 7
#   races: the vadd with the legacy memset); made before a window, the
#   window's snapshot holds the capture and its launch expands the same.
# Child graph nodes and updates on synthetic traces:
# - graph_child: the child's nodes between the node's dependencies (one
#   added by cuGraphAddDependencies) and its dependent: 5 commands, no race,
#   makespan 3000; a node added to the child afterwards is not in it;
# - graph_update: the exec updated from a clone whose kernel node passes B
#   races with a reader of B on another stream (a failed update before it
#   changes nothing).
# - graph_capture_to(_nodeps): the nodes a capture adds to a graph built
#   node by node follow the capture's deps (exact edges, makespan, races;
#   without deps, none); graph_capture_to_alloc: the capture's
#   cuMemAllocAsync is graph memory of that graph, allocated by its launch
#   (the race names the launch; tsinfo --memory counts it there).
# Event nodes act per node (CUDA's rule), on the synthetic traces of
# tests/support/emu_gen.c (written first: they need no CUDA double):
# - graph_wait: an event wait node orders only the node after it (consumer)
#   after the producer on another stream; "other" runs beside the producer
#   and races with it (with the whole launch waiting: no race, makespan
#   3000 ns instead of 2000);
# - graph_record: an event record node after "early" records early alone:
#   the reader on the other stream waiting on it races with "late" (with
#   the whole launch recorded: no race).
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
DBL="$TOP/$BUILD/tests/doubles/cuda"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"
[ -x "$GEN" ] || fail "no $GEN (make $BUILD/tests/programs/emu_gen_trace)"

# ---- event nodes per node (synthetic) ------------------------------------------------------
for v in graph_wait graph_record; do
	expect_rc 0 "gen.$v" "$GEN" $v "$T/$v.sbt"
	expect_rc 0 "$v.sum" "$X" --kernel-ns 1000 --summary "$T/$v.sbt"
	has "$v.sum" out "commands: 3 on 2 streams, 2 dependencies (1 across streams)"
	has "$v.sum" out "makespan: 2000 ns"
	expect_rc 1 "$v.r" "$X" --races "$T/$v.sbt"
	has "$v.r" out "races: 0 confirmed, 1 possible"
done
[ "$(grep '^  seq' "$T/graph_wait.r.out" | sed 's/^  seq [0-9]* kernel \([a-z]*\) on stream \(0x[0-9]*\) .*/\1 \2/' |
	tr '\n' ';')" = "producer 0x200;other 0x100;" ] || fail "graph_wait: not the producer and other: $(cat "$T/graph_wait.r.out")"
[ "$(grep '^  seq' "$T/graph_record.r.out" | sed 's/^  seq [0-9]* kernel \([a-z]*\) on stream \(0x[0-9]*\) .*/\1 \2/' |
	tr '\n' ';')" = "late 0x100;reader 0x200;" ] || fail "graph_record: not late and the reader: $(cat "$T/graph_record.r.out")"
# the event edge goes from the producer to the consumer alone, from early to the reader
expect_rc 0 graph_wait.dot "$X" -f dot -o "$T/graph_wait.dot" "$T/graph_wait.sbt"
expect_rc 0 graph_record.dot "$X" -f dot -o "$T/graph_record.dot" "$T/graph_record.sbt"
for e in "graph_wait producer consumer" "graph_record early reader"; do
	set -- $e
	a=$(sed -n "s/^[[:space:]]*\(n[0-9]*\) \[label=\"seq [0-9]*\\\\nkernel $2\"\];/\1/p" "$T/$1.dot")
	b=$(sed -n "s/^[[:space:]]*\(n[0-9]*\) \[label=\"seq [0-9]*\\\\nkernel $3\"\];/\1/p" "$T/$1.dot")
	[ -n "$a" ] && [ -n "$b" ] || fail "$1.dot: no node $2 or $3: $(cat "$T/$1.dot")"
	[ "$(grep -c 'label="event"' "$T/$1.dot")" = 1 ] &&
		grep -q "^[[:space:]]*$a -> $b \[style=dashed,color=blue,label=\"event\"\];" "$T/$1.dot" ||
		fail "$1.dot: not one event edge $2 -> $3: $(cat "$T/$1.dot")"
done
# the JSON timeline: the flow ends on the consumer, which starts when the producer ends; other at 0
expect_rc 0 graph_wait.json "$X" --kernel-ns 1000 -f json -o "$T/graph_wait.json" "$T/graph_wait.sbt"
python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['traceEvents']
X = {x['name']: x for x in e if x['ph'] == 'X'}
assert X['producer']['ts'] == 0 and X['other']['ts'] == 0 and X['consumer']['ts'] == 1.0, X
f = [x for x in e if x['ph'] == 'f']
assert len(f) == 1 and f[0]['ts'] == 1.0 and f[0]['tid'] == X['consumer']['tid'], f
" "$T/graph_wait.json" || fail "graph_wait.json: not the per-node timeline"

# ---- child graph nodes and updates (synthetic) ---------------------------------------------
# dot_edges DOT: its edges as "from-label>to-label style", one per line
dot_edges() {
	python3 -c "
import re, sys
t = open(sys.argv[1]).read()
lab = dict(re.findall(r'(n[0-9]+) \[label=\"seq [0-9]*\\\\n([^\"]*)\"\]', t))
for a, b, st in re.findall(r'(n[0-9]+) -> (n[0-9]+) \[style=([a-z]+)', t):
    print('%s>%s %s' % (lab[a], lab[b], st))
" "$1" | sort
}
expect_rc 0 gen.graph_child "$GEN" graph_child "$T/graph_child.sbt"
expect_rc 0 graph_child.sum "$X" --kernel-ns 1000 --summary "$T/graph_child.sbt"
has graph_child.sum out "commands: 5 on 1 streams"
has graph_child.sum out "makespan: 3000 ns"
expect_rc 0 graph_child.r "$X" --races "$T/graph_child.sbt"
has graph_child.r out "races: 0 confirmed, 0 possible"
expect_rc 0 graph_child.dot "$X" -f dot -o "$T/graph_child.dot" "$T/graph_child.sbt"
e=$(dot_edges "$T/graph_child.dot" | tr '\n' ';')
[ "$e" = "kernel c1>kernel tail bold;kernel c2>kernel tail bold;kernel head>kernel c1 bold;kernel head>kernel c2 bold;kernel pre>kernel c1 bold;kernel pre>kernel c2 bold;" ] ||
	fail "graph_child.dot: edges '$e': $(cat "$T/graph_child.dot")"
grep -q 'kernel late' "$T/graph_child.dot" && fail "graph_child.dot: the node added to the child later is in the parent"
expect_rc 0 gen.graph_update "$GEN" graph_update "$T/graph_update.sbt"
expect_rc 1 graph_update.r "$X" --races "$T/graph_update.sbt"
has graph_update.r out "races: 0 confirmed, 1 possible"
[ "$(grep '^  seq' "$T/graph_update.r.out" | sed 's/^  seq [0-9]* kernel \([a-z]*\) on stream \(0x[0-9]*\) .* \(0x[0-9a-f]*\)\.\..*/\1 \2 \3/' |
	tr '\n' ';')" = "k 0x100 0x7000100000;reader 0x200 0x7000100000;" ] ||
	fail "graph_update: not k and the reader on B: $(cat "$T/graph_update.r.out")"

# ---- a capture into a graph built node by node (synthetic) -------------------------------------
# (cuStreamBeginCaptureToGraph, recorded as a cuStreamBeginCapture with
# parent and deps): the captured nodes join graph 0x900, the ones that
# follow no captured node after the capture's deps, as the driver adds
# them; without deps they follow nothing
for c in "graph_capture_to:3000:4:1:kernel c1>kernel tail bold;kernel c2>kernel tail bold;kernel head>kernel c1 bold;kernel head>kernel c2 bold;" \
	"graph_capture_to_nodeps:2000:2:3:kernel c1>kernel tail bold;kernel c2>kernel tail bold;"; do
	v=${c%%:*}
	r=${c#*:}
	ms=${r%%:*}
	r=${r#*:}
	dep=${r%%:*}
	r=${r#*:}
	nr=${r%%:*}
	edges=${r#*:}
	expect_rc 0 "gen.$v" "$GEN" $v "$T/$v.sbt"
	expect_rc 0 "$v.sum" "$X" --kernel-ns 1000 --summary "$T/$v.sbt"
	has "$v.sum" out "commands: 5 on 1 streams, $dep dependencies (0 across streams)"
	has "$v.sum" out "makespan: $ms ns"
	expect_rc 1 "$v.r" "$X" --races "$T/$v.sbt"
	has "$v.r" out "races: 0 confirmed, $nr possible"
	expect_rc 0 "$v.dot" "$X" -f dot -o "$T/$v.dot" "$T/$v.sbt"
	e=$(dot_edges "$T/$v.dot" | tr '\n' ';')
	[ "$e" = "$edges" ] || fail "$v.dot: edges '$e': $(cat "$T/$v.dot")"
	[ "$(grep -c '^[[:space:]]*n[0-9]* \[label="seq ' "$T/$v.dot")" = 5 ] || fail "$v.dot: not 5 commands: $(cat "$T/$v.dot")"
done
p=$(grep '^  seq' "$T/graph_capture_to.r.out" | sed 's/^  seq [0-9]* kernel \([a-z0-9]*\) .*/\1/' | tr '\n' ';')
[ "$p" = "side;c2;" ] || fail "graph_capture_to: not side and c2: $(cat "$T/graph_capture_to.r.out")"
p=$(grep '^  seq' "$T/graph_capture_to_nodeps.r.out" | sed 's/^  seq [0-9]* kernel \([a-z0-9]*\) .*/\1/' | tr '\n' ';')
[ "$p" = "head;c1;head;tail;side;c2;" ] ||
	fail "graph_capture_to_nodeps: not head-c1, head-tail, side-c2: $(cat "$T/graph_capture_to_nodeps.r.out")"
# graph memory a capture into the graph allocates (cuMemAllocAsync on s2):
# the graph's, allocated by its launch, so "after" on s2 races with that
# launch's c2 on it; side has B to itself
expect_rc 0 gen.graph_capture_to_alloc "$GEN" graph_capture_to_alloc "$T/cta.sbt"
expect_rc 0 cta.sum "$X" --kernel-ns 1000 --summary "$T/cta.sbt"
has cta.sum out "commands: 6 on 2 streams, 4 dependencies (0 across streams)"
expect_rc 1 cta.r "$X" --races "$T/cta.sbt"
has cta.r out "races: 0 confirmed, 1 possible"
ls=$("$TOP/$BUILD/tsinfo" --dump "$T/cta.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphLaunch .*/\1/p')
p=$(grep '^  seq' "$T/cta.r.out" | sed 's/^  seq [0-9]* kernel \([a-z0-9]*\) .*(\(.*\))$/\1 \2/' | tr '\n' ';')
[ "$p" = "c2 graph memory of 4096 bytes allocated by the launch at seq $ls;after graph memory of 4096 bytes allocated by the launch at seq $ls;" ] ||
	fail "graph_capture_to_alloc: not c2 and after on the launch's graph memory: $(cat "$T/cta.r.out")"
expect_rc 0 cta.mem "$TOP/$BUILD/tsinfo" --memory --json "$T/cta.sbt"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
[g] = d['devices']
k = {x['kind']: (x['allocations'], x['bytes_allocated']) for x in g['kinds']}
assert k == {'device': (2, 8192), 'graph': (1, 4096)} and (g['peak_bytes'], g['peak_seq']) == (12288, $ls), g
" "$T/cta.mem.out" || fail "graph_capture_to_alloc: tsinfo --memory: $(cat "$T/cta.mem.out")"

[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA TRACESMITH_TRIGGER \
	TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
PROG="$TOP/$BUILD/tests/cuda/cuda_graph_nodes"

# pairs NAME: the race pairs of $T/NAME.out as "first second" command names
# (sorted within and between pairs), one per line.
pairs() {
	grep '^  seq' "$T/$1.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .*/\1/' | paste -d' ' - - |
		awk '{ if ($1 > $2) print $2, $1; else print $1, $2 }' | sort | uniq -c | awk '{ print $1, $2, $3 }' |
		tr '\n' ';'
}

# dot_edge DOT A B: whether the DOT file has a bold edge from the first
# node labelled A to the first labelled B.
dot_edge() {
	a=$(sed -n "s/^[[:space:]]*\(n[0-9]*\) \[label=\"seq [0-9]*\\\\n$2\"\];/\1/p" "$1" | head -n 1)
	b=$(sed -n "s/^[[:space:]]*\(n[0-9]*\) \[label=\"seq [0-9]*\\\\n$3\"\];/\1/p" "$1" | head -n 1)
	[ -n "$a" ] && [ -n "$b" ] || fail "$1: no node '$2' or '$3': $(cat "$1")"
	grep -q "^[[:space:]]*$a -> $b \[style=bold\];" "$1"
}

for v in plain unordered destroy exec-set node-attr host-set memop child clone disable host-node set-nodes update host-src exec-event; do
	case $v in
	plain) args= ;;
	host-set) args="--host-node --host-set" ;;
	*) args=--$v ;;
	esac
	expect_rc 0 "cap.$v" "$CAP" -o "$T/$v.sbt" -- "$PROG" --launches 2 $args
done

# ---- nodes in the timeline -------------------------------------------------------------
expect_rc 0 plain.sum "$X" --summary "$T/plain.sbt"
has plain.sum out "commands: 15 on 2 streams"
expect_rc 0 plain.json "$X" -f json -o "$T/plain.json" "$T/plain.sbt"
python3 -c "
import json, sys
e = json.load(open(sys.argv[1]))['traceEvents']
X = [x['name'] for x in e if x['ph'] == 'X']
assert len(X) == 15, X
for name, n in (('fill', 2), ('vadd', 2), ('racy_scale', 2), ('cuGraphAddMemsetNode', 2), ('cuGraphAddMemcpyNode', 4)):
    assert X.count(name) == n, (name, X)
" "$T/plain.json" || fail "plain.json: not the graph's 12 nodes and the 3 other commands"
expect_rc 0 plain.dot "$X" -f dot -o "$T/plain.dot" "$T/plain.sbt"
dot_edge "$T/plain.dot" "kernel fill" "kernel vadd" || fail "plain.dot: no edge fill -> vadd: $(cat "$T/plain.dot")"
dot_edge "$T/plain.dot" "memset cuGraphAddMemsetNode" "kernel fill" ||
	fail "plain.dot: no edge memset -> fill: $(cat "$T/plain.dot")"
# 5 edges inside each launch
[ "$(grep -c 'style=bold' "$T/plain.dot")" = 10 ] || fail "plain.dot: not 10 edges inside graphs: $(cat "$T/plain.dot")"

# ---- races --------------------------------------------------------------------------
expect_rc 1 plain.r "$X" --races "$T/plain.sbt"
has plain.r out "races: 6 confirmed, 0 possible"
p=$(pairs plain.r)
[ "$p" = "2 cuGraphAddMemcpyNode cuMemsetD32;2 cuMemsetD32 racy_scale;2 cuMemsetD32 vadd;" ] ||
	fail "plain: race pairs '$p': $(cat "$T/plain.r.out")"
expect_rc 1 unordered.r "$X" --races "$T/unordered.sbt"
has unordered.r out "races: 8 confirmed, 2 possible"
p=$(pairs unordered.r)
[ "$p" = "2 cuGraphAddMemcpyNode cuMemsetD32;2 cuGraphAddMemsetNode vadd;2 cuMemsetD32 racy_scale;2 cuMemsetD32 vadd;2 fill vadd;" ] ||
	fail "unordered: race pairs '$p': $(cat "$T/unordered.r.out")"
grep -q '^  seq [0-9]* memset cuGraphAddMemsetNode on stream 0x[0-9a-f]* (non-blocking) writes 0x' "$T/unordered.r.out" ||
	fail "unordered: the memset node is not named: $(cat "$T/unordered.r.out")"
expect_rc 0 unordered.dot "$X" -f dot -o "$T/unordered.dot" "$T/unordered.sbt"
dot_edge "$T/unordered.dot" "kernel fill" "kernel vadd" && fail "unordered.dot: an edge fill -> vadd"
[ "$(grep -c 'style=bold' "$T/unordered.dot")" = 6 ] || fail "unordered.dot: not 6 edges inside graphs: $(cat "$T/unordered.dot")"

# ---- removed node and edge, exec setter --------------------------------------------------
expect_rc 0 destroy.sum "$X" --summary "$T/destroy.sbt"
has destroy.sum out "commands: 15 on 2 streams"
expect_rc 1 destroy.r "$X" --races "$T/destroy.sbt"
has destroy.r out "races: 6 confirmed, 0 possible"
expect_rc 0 execset.sum "$X" --summary "$T/exec-set.sbt"
has execset.sum out "commands: 15 on 2 streams"

# ---- a change not modeled: one command per launch -------------------------------------------
# (the graph, launched twice, is one command each time, with the 3 other
# commands)
expect_rc 0 hostset.sum "$X" --summary "$T/host-set.sbt"
has hostset.sum out "commands: 5 on 2 streams"
expect_rc 0 hostset.json "$X" -f json -o "$T/host-set.json" "$T/host-set.sbt"
python3 -c "
import json, sys
X = [x['name'] for x in json.load(open(sys.argv[1]))['traceEvents'] if x['ph'] == 'X']
assert len([n for n in X if n.startswith('graph 0x')]) == 2, X
" "$T/host-set.json" || fail "host-set.json: not two graph commands"
# batch memory-op nodes (modeled: each a command, writing and reading the
# words its operations name): plain's 15 commands and the 2 memory-op nodes
# of each launch, which write the result the legacy memset writes too
# (4 races more than plain's 6)
expect_rc 0 memop.sum "$X" --summary "$T/memop.sbt"
has memop.sum out "commands: 19 on 2 streams"
expect_rc 1 memop.r "$X" --races "$T/memop.sbt"
has memop.r out "races: 10 confirmed, 0 possible"
p=$(pairs memop.r)
[ "$p" = "4 cuGraphAddBatchMemOpNode cuMemsetD32;2 cuGraphAddMemcpyNode cuMemsetD32;2 cuMemsetD32 racy_scale;2 cuMemsetD32 vadd;" ] ||
	fail "memop: race pairs '$p': $(cat "$T/memop.r.out")"
# kernel node attributes (modeled): the graph's nodes stay commands
expect_rc 0 nodeattr.sum "$X" --summary "$T/node-attr.sbt"
has nodeattr.sum out "commands: 15 on 2 streams"
expect_rc 0 nodeattr.dump "$TOP/$BUILD/tsinfo" --dump "$T/node-attr.sbt"

# ---- child graph nodes, clones, enabled nodes, host nodes, setters, updates ---------------------
# graph_cmds NAME: how many commands of $T/NAME.json are one graph launch
graph_cmds() {
	expect_rc 0 "$1.json" "$X" -f json -o "$T/$1.json" "$T/$1.sbt"
	python3 -c "
import json, sys
X = [x['name'] for x in json.load(open(sys.argv[1]))['traceEvents'] if x['ph'] == 'X']
print(len([n for n in X if n.startswith('graph 0x')]))
" "$T/$1.json"
}
# (name, commands, confirmed and possible races; no launch is one command)
for c in "child 17 8 0" "clone 15 6 0" "disable 14 5 0" "host-node 15 6 0" "set-nodes 17 10 0" "update 15 6 0" \
	"host-src 17 8 0" "exec-event 15 6 0"; do
	set -- $c
	expect_rc 0 "$1.sum" "$X" --summary "$T/$1.sbt"
	has "$1.sum" out "commands: $2 on 2 streams"
	expect_rc 1 "$1.r" "$X" --races "$T/$1.sbt"
	has "$1.r" out "races: $3 confirmed, $4 possible"
	[ "$(graph_cmds "$1")" = 0 ] || fail "$1: a launch as one command"
done
# --disable: the first launch without racy_scale; --set-nodes: the memset
# node writes the accumulator (both launches)
for c in "child:2 cuGraphAddMemcpyNode cuMemsetD32;4 cuMemsetD32 racy_scale;2 cuMemsetD32 vadd;" \
	"host-node:2 cuGraphAddMemcpyNode cuMemsetD32;2 cuMemsetD32 racy_scale;2 cuMemsetD32 vadd;" \
	"disable:2 cuGraphAddMemcpyNode cuMemsetD32;1 cuMemsetD32 racy_scale;2 cuMemsetD32 vadd;" \
	"set-nodes:2 cuGraphAddMemcpyNode cuMemsetD32;2 cuGraphAddMemsetNode cuMemsetD32;2 cuMemsetD32 racy_scale;4 cuMemsetD32 vadd;"; do
	v=${c%%:*}
	p=$(pairs "$v.r")
	[ "$p" = "${c#*:}" ] || fail "$v: race pairs '$p': $(cat "$T/$v.r.out")"
done
# the child's scale follows the read-back node in each launch; the host
# node keeps plain's 10 edges
expect_rc 0 child.dot "$X" -f dot -o "$T/child.dot" "$T/child.sbt"
[ "$(dot_edges "$T/child.dot" | grep -c '^copy_d2h cuGraphAddMemcpyNode>kernel racy_scale bold$')" = 2 ] ||
	fail "child.dot: not an edge read-back -> child scale per launch: $(cat "$T/child.dot")"
[ "$(grep -c 'style=bold' "$T/child.dot")" = 12 ] || fail "child.dot: not 12 edges inside graphs"
expect_rc 0 hostnode.dot "$X" -f dot -o "$T/host-node.dot" "$T/host-node.sbt"
[ "$(grep -c 'style=bold' "$T/host-node.dot")" = 10 ] || fail "host-node.dot: not 10 edges inside graphs"

# ---- graph memory nodes, the embedded graph of a child node ------------------------------------
# --alloc-node: the allocation and free nodes (cuGraphAddMemAllocNode,
# cuGraphAddNode of a free node) are ordering nodes: the memset into the
# graph memory and the second vadd reading it are commands (19), the edges
# through them kept: memset -> second vadd, second vadd -> read-back (past
# the free node) per launch, 14 edges inside graphs; the second vadd also
# passes the accumulator, racing with the legacy memset (8 races).
# --no-free-node (cuMemFreeAsync after each launch), --capture-alloc
# (allocation and free nodes a stream capture made) and --child-mem (the
# memory nodes in a graph moved into a child graph node, its work copied
# into the parent as a child graph node's is) the same counts.
# --child-get: the memset and kernel nodes added to the graph embedded in
# the child node (cuGraphChildGraphNodeGetGraph) join the child node's
# copy: after the read-back node (the child node's dependency), the memset
# before the kernel, per launch (22 commands: --child's 18 and 2 per
# launch; its 8 races)
for v in "galloc --alloc-node" "gnofree --alloc-node --no-free-node" "gcap --capture-alloc" "cget --child --child-get" \
	"gchild --alloc-node --child-mem"; do
	set -- $v
	n=$1
	shift
	expect_rc 0 "cap.$n" "$CAP" -o "$T/$n.sbt" -- "$PROG" --launches 2 "$@"
done
for c in "galloc 19 8" "gnofree 19 8" "gcap 19 8" "gchild 19 8"; do
	set -- $c
	expect_rc 0 "$1.sum" "$X" --summary "$T/$1.sbt"
	has "$1.sum" out "commands: $2 on 2 streams"
	expect_rc 1 "$1.r" "$X" --races "$T/$1.sbt"
	has "$1.r" out "races: $3 confirmed, 0 possible"
	p=$(pairs "$1.r")
	[ "$p" = "2 cuGraphAddMemcpyNode cuMemsetD32;2 cuMemsetD32 racy_scale;4 cuMemsetD32 vadd;" ] ||
		fail "$1: race pairs '$p': $(cat "$T/$1.r.out")"
	[ "$(graph_cmds "$1")" = 0 ] || fail "$1: a launch as one command"
done
for v in galloc gnofree; do
	expect_rc 0 "$v.dot" "$X" -f dot -o "$T/$v.dot" "$T/$v.sbt"
	e=$(dot_edges "$T/$v.dot")
	[ "$(echo "$e" | grep -c '^memset cuGraphAddMemsetNode>kernel vadd bold$')" = 2 ] &&
		[ "$(echo "$e" | grep -c '^kernel vadd>copy_d2h cuGraphAddMemcpyNode bold$')" = 2 ] &&
		[ "$(echo "$e" | grep -c ' bold$')" = 14 ] || fail "$v.dot: edges $(echo "$e" | tr '\n' ';')"
done
expect_rc 0 cget.sum "$X" --summary "$T/cget.sbt"
has cget.sum out "commands: 22 on 2 streams"
expect_rc 1 cget.r "$X" --races "$T/cget.sbt"
has cget.r out "races: 8 confirmed, 0 possible"
[ "$(graph_cmds cget)" = 0 ] || fail "cget: a launch as one command"
expect_rc 0 cget.dot "$X" -f dot -o "$T/cget.dot" "$T/cget.sbt"
e=$(dot_edges "$T/cget.dot")
[ "$(echo "$e" | grep -c '^copy_d2h cuGraphAddMemcpyNode>memset cuGraphAddMemsetNode bold$')" = 2 ] &&
	[ "$(echo "$e" | grep -c '^memset cuGraphAddMemsetNode>kernel racy_scale bold$')" = 2 ] &&
	[ "$(echo "$e" | grep -c ' bold$')" = 16 ] || fail "cget.dot: edges $(echo "$e" | tr '\n' ';')"

# ---- a capture into a graph built node by node (cuStreamBeginCaptureToGraph) ----------------------
# --capture-to: graph g2 holds an empty node, then the memset (of the
# buffer the first graph's vadd reads) and the vadd captured into it after
# that node; its launch on s2 (after a cuStreamSynchronize of s) runs the
# two as commands, memset -> vadd (17 commands: plain's 15 and 2; 11
# edges inside graphs); the vadd adds into the accumulator, so it races
# with the legacy memset as the first graph's vadd does (7 races); the
# memset, after the host synchronized with s, races with nothing
expect_rc 0 cap.cto "$CAP" -o "$T/cto.sbt" -- "$PROG" --launches 2 --capture-to
"$TOP/$BUILD/tsinfo" --dump "$T/cto.sbt" | grep -qE ' cuda\.cuStreamBeginCapture flags=2 parent=[0-9]+ stream=[0-9]+ deps=' ||
	fail "cto: no capture into a graph recorded"
expect_rc 0 cto.sum "$X" --summary "$T/cto.sbt"
has cto.sum out "commands: 17 on 3 streams"
expect_rc 1 cto.r "$X" --races "$T/cto.sbt"
has cto.r out "races: 7 confirmed, 0 possible"
p=$(pairs cto.r)
[ "$p" = "2 cuGraphAddMemcpyNode cuMemsetD32;2 cuMemsetD32 racy_scale;3 cuMemsetD32 vadd;" ] ||
	fail "cto: race pairs '$p': $(cat "$T/cto.r.out")"
[ "$(grep -c '^  seq [0-9]* kernel vadd on stream 0x[0-9a-f]* (non-blocking) reads and may write' "$T/cto.r.out")" = 3 ] ||
	fail "cto: the captured vadd is not in a race: $(cat "$T/cto.r.out")"
[ "$(graph_cmds cto)" = 0 ] || fail "cto: a launch as one command"
python3 -c "
import json, sys
X = [x['name'] for x in json.load(open(sys.argv[1]))['traceEvents'] if x['ph'] == 'X']
assert len(X) == 17 and X.count('vadd') == 3 and X.count('cuMemsetD32Async') == 2, X
" "$T/cto.json" || fail "cto.json: not the captured memset and vadd"
expect_rc 0 cto.dot "$X" -f dot -o "$T/cto.dot" "$T/cto.sbt"
e=$(dot_edges "$T/cto.dot")
[ "$(echo "$e" | grep -c '^memset cuMemsetD32Async>kernel vadd bold$')" = 1 ] &&
	[ "$(echo "$e" | grep -c ' bold$')" = 11 ] || fail "cto.dot: edges $(echo "$e" | tr '\n' ';')"
# the same made before a window (--window: tscapture --profiler): the
# window's snapshot holds the capture into the graph, and the launch in
# the window runs the captured memset and vadd (21 commands: 3 launches
# of the first graph, 6 each, then the memset, the vadd, the read-back)
(cd "$T" && expect_rc 0 cap.wcto "$CAP" --profiler -o "$T/wcto.sbt" -- "$PROG" --window --capture-to --launches 3) ||
	exit 1
expect_rc 0 wcto.json "$X" -f json -o "$T/wcto.json" "$T/wcto-window-1.sbt"
python3 -c "
import json, sys
X = [x['name'] for x in json.load(open(sys.argv[1]))['traceEvents'] if x['ph'] == 'X']
assert len(X) == 21 and X[-3:] == ['cuMemsetD32Async', 'vadd', 'cuMemcpyDtoH'], X
" "$T/wcto.json" || fail "wcto.json: not the captured memset and vadd in the window"

# ---- sampled orders refuse graph launches ------------------------------------------------------
expect_rc 2 plain.seed "$TOP/$BUILD/tsreplay" --emulate --schedule-seed 1 "$T/plain.sbt"
has plain.seed err "launches a graph: a sampled order runs every command on one stream, where graphs are not rebuilt"
exit 0
