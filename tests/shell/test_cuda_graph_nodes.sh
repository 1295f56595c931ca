#!/bin/sh
# CUDA graphs built node by node (docs/cuda.md "Launches", docs/cuda-replay.md
# "Graphs"), on the libcuda test double: cuda_graph_nodes builds a graph
# with cuGraphCreate, memcpy (from and to the host), memset, kernel, empty
# and event record nodes, cuGraphAddDependencies, cuGraphAddNode and
# cuGraphKernelNodeSetParams, instantiates and launches it.  Captured, the
# program prints what it prints plain and the trace holds each of those
# calls; replayed, its checkpoint is equal (also with --check-determinism,
# --streams single, another scheduling seed, and after
# cuGraphExecKernelNodeSetParams changed the exec between launches).  A
# graph holding a child graph node (a node kind the model does not cover)
# is counted in the exit report and by tsinfo (which names the call), and its launch is refused on replay naming
# the call that added it, and an exec changed by a call not modeled is
# refused from the launch after the change, as is a graph filled by
# cuStreamBeginCaptureToGraph.  A node and an edge removed
# (cuGraphDestroyNode, cuGraphRemoveDependencies) are removed on replay.
# A capture window (--profiler) that launches a
# graph built before it: the snapshot rebuilds it, the window's checkpoint
# equals the whole run's (also from a --range restoring its keyframe), and
# the events recorded before the window are
# recorded again on their stream (the null stream for the one whose stream
# was destroyed); a node and an edge removed before the window are removed
# by its snapshot too, and a node not modeled is refused by name there too.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA TRACESMITH_TRIGGER \
	TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
PROG="$TOP/$BUILD/tests/cuda/cuda_graph_nodes"

all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}

# count TRACE TEXT: how many records of the dump contain TEXT.
count() {
	"$INFO" --dump "$1" | grep -cF -- "$2"
}

# capture NAME ARGS...: the program plain and captured print the same.
capture() {
	cp_name=$1
	shift
	expect_rc 0 "$cp_name.plain" "$PROG" "$@"
	expect_rc 0 "$cp_name.cap" "$CAP" -o "$T/$cp_name.sbt" -- "$PROG" "$@"
	cmp -s "$T/$cp_name.plain.out" "$T/$cp_name.cap.out" ||
		fail "$cp_name: the captured run printed '$(cat "$T/$cp_name.cap.out")', the plain one '$(cat "$T/$cp_name.plain.out")'"
}

# ---- record and replay -------------------------------------------------------------
capture graph --launches 3
for want in 'cuda.cuGraphCreate :1' 'cuda.cuGraphAddKernelNode :3' 'cuda.cuGraphAddMemcpyNode :2' \
	'cuda.cuGraphAddMemsetNode :1' 'cuda.cuGraphAddEmptyNode :1' 'cuda.cuGraphAddDependencies :1' \
	'cuda.cuGraphAddEventRecordNode :1' 'cuda.cuGraphKernelNodeSetParams :1' 'cuda.cuGraphInstantiate :1' \
	'cuda.cuGraphLaunch :3' 'cuda.tsGraphNotModeled :0'; do
	what=${want% :*}
	n=$(count "$T/graph.sbt" "$what ")
	[ "$n" = "${want##*:}" ] || fail "graph: $n $what records, expected ${want##*:}"
done
# the kernel node carries its kernel as a launch does: name, layout, parameters
"$INFO" --dump "$T/graph.sbt" | grep 'cuda.cuGraphAddKernelNode ' | grep -q 'name="racy_scale" .*params=.* layout=' ||
	fail "graph: the kernel node added by cuGraphAddNode lacks its kernel: $("$INFO" --dump "$T/graph.sbt" | grep 'cuGraphAddKernelNode')"
# the vadd node's dependency came from cuGraphAddDependencies: no deps of its own
"$INFO" --dump "$T/graph.sbt" | grep 'cuda.cuGraphAddKernelNode .*name="vadd"' | grep -q ' deps=' &&
	fail "graph: the vadd node was added with dependencies"
all_match graph.replay 1 "$T/graph.sbt"
all_match graph.det 1 --check-determinism --runs 3 "$T/graph.sbt"
has graph.det out '"runs_done":3'
has graph.det out '"result":"match"'
all_match graph.single 1 --streams single "$T/graph.sbt"
TSCUDA_DOUBLE_SEED=5 all_match graph.seed 1 "$T/graph.sbt"
# more launches give another result: the checkpoint tells them apart
capture graph1 --launches 1
cmp -s "$T/graph.plain.out" "$T/graph1.plain.out" && fail "one launch and three print the same"

# ---- an exec's kernel node set between launches ---------------------------------------------
capture execset --exec-set --launches 3
cmp -s "$T/graph.plain.out" "$T/execset.plain.out" &&
	fail "execset: cuGraphExecKernelNodeSetParams changed nothing"
[ "$(count "$T/execset.sbt" 'cuda.cuGraphExecKernelNodeSetParams ')" = 1 ] ||
	fail "execset: cuGraphExecKernelNodeSetParams not recorded once"
all_match execset.replay 1 "$T/execset.sbt"

# ---- a node kind not modeled ------------------------------------------------------------
capture child --child
has child.cap err ", 1 graph or exec changed by calls not modeled; trace "
"$INFO" --dump "$T/child.sbt" | grep -q 'cuda.tsGraphNotModeled .*name="cuGraphAddChildGraphNode" .*sub=4 ' ||
	fail "child: the child graph node is not recorded by name: $("$INFO" --dump "$T/child.sbt" | grep tsGraph)"
# tsinfo counts and names them as the exit report does
expect_rc 0 child.info "$INFO" "$T/child.sbt"
has child.info out "cuda graphs  1 graph or exec changed by calls not modeled (replay refuses their launches): cuGraphAddChildGraphNode=1"
expect_rc 0 child.infojson "$INFO" --json "$T/child.sbt"
has child.infojson out '"cuda_graphs_not_modeled":{"graphs":1,"calls":[{"name":"cuGraphAddChildGraphNode","records":1}]}'
expect_rc 0 graph.info "$INFO" "$T/graph.sbt"
if grep -q "cuda graphs" "$T/graph.info.out"; then fail "graph.info: $(cat "$T/graph.info.out")"; fi
expect_rc 0 graph.infojson "$INFO" --json "$T/graph.sbt"
has graph.infojson out '"cuda_graphs_not_modeled":{"graphs":0,"calls":[]}'
cs=$("$INFO" --dump "$T/child.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.tsGraphNotModeled .*/\1/p')
ls=$("$INFO" --dump "$T/child.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphLaunch .*/\1/p' | head -n 1)
ex=$("$INFO" --dump "$T/child.sbt" | sed -n 's/^seq=[0-9]* .* cuda\.cuGraphLaunch handle=\([0-9]*\) .*/\1/p' | head -n 1)
ex=$(printf '0x%x' "$ex")
expect_rc 1 child.replay "$RP" "$T/child.sbt"
has child.replay err "tsreplay: backend cuda: record seq $ls (cuda.cuGraphLaunch): graph exec $ex cannot be replayed: it or its graph was changed by cuGraphAddChildGraphNode at seq $cs, which replay does not model; replay a --range that ends before seq $ls"
# what comes before the launch replays
expect_rc 0 child.range "$RP" --range ":$ls" "$T/child.sbt"
# an exec changed after its first launch: that launch replays, the next
# is refused naming the call
capture xev --exec-event --launches 2
has xev.cap err ", 1 graph or exec changed by calls not modeled; trace "
expect_rc 0 xev.info "$INFO" "$T/xev.sbt"
has xev.info out "cuda graphs  1 graph or exec changed by calls not modeled (replay refuses their launches): cuGraphExecEventRecordNodeSetEvent=1"
es=$("$INFO" --dump "$T/xev.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.tsGraphNotModeled .*name="cuGraphExecEventRecordNodeSetEvent".*/\1/p')
ls=$("$INFO" --dump "$T/xev.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphLaunch .*/\1/p' | tail -n 1)
ex=$(printf '0x%x' "$("$INFO" --dump "$T/xev.sbt" | sed -n 's/^seq=[0-9]* .* cuda\.cuGraphLaunch handle=\([0-9]*\) .*/\1/p' | head -n 1)")
[ -n "$es" ] && [ "$es" -lt "$ls" ] || fail "xev: the exec's change is not recorded before the second launch"
expect_rc 1 xev.replay "$RP" "$T/xev.sbt"
has xev.replay err "tsreplay: backend cuda: record seq $ls (cuda.cuGraphLaunch): graph exec $ex cannot be replayed: it or its graph was changed by cuGraphExecEventRecordNodeSetEvent at seq $es, which replay does not model; replay a --range that ends before seq $ls"

# a graph made by cuGraphCreate and filled by cuStreamBeginCaptureToGraph
# (the capture's work is not rebuilt into it): refused by name
capture cto --capture-to
expect_rc 1 cto.replay "$RP" "$T/cto.sbt"
has cto.replay err "cannot be replayed: it or its graph was changed by cuStreamBeginCaptureToGraph at seq "

# ---- nodes and edges removed ----------------------------------------------------------------
# (the memset node removed would zero the result: the checkpoint shows the
# replay removed it too)
capture destroy --destroy --launches 3
cmp -s "$T/graph.plain.out" "$T/destroy.plain.out" || fail "destroy: the removed node changed the result"
[ "$(count "$T/destroy.sbt" 'cuda.cuGraphDestroyNode ')" = 1 ] && [ "$(count "$T/destroy.sbt" 'cuda.cuGraphRemoveDependencies ')" = 1 ] ||
	fail "destroy: cuGraphDestroyNode or cuGraphRemoveDependencies not recorded once"
all_match destroy.replay 1 "$T/destroy.sbt"

# ---- a capture window launching a graph built before it --------------------------------------
capture whole --window --launches 3
(cd "$T" && expect_rc 0 win.cap "$CAP" --profiler -o "$T/win.sbt" -- "$PROG" --window --launches 3)
cmp -s "$T/whole.plain.out" "$T/win.cap.out" || fail "win: the windowed run printed '$(cat "$T/win.cap.out")'"
W="$T/win-window-1.sbt"
[ -s "$W" ] || fail "win: no window trace: $(ls "$T")"
all_match win.replay 1 "$W"
hw=$("$INFO" --dump "$W" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/whole.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "win: the window's checkpoint $hw is not the whole run's $hf"
"$INFO" --dump "$W" >"$T/win.dump"
before=$(awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }' "$T/win.dump")
for k in cuGraphCreate cuGraphAddKernelNode cuGraphAddMemcpyNode cuGraphAddMemsetNode cuGraphAddEmptyNode \
	cuGraphAddDependencies cuGraphAddEventRecordNode cuGraphKernelNodeSetParams cuGraphInstantiate; do
	echo "$before" | grep -q " cuda\.$k " || fail "win: the snapshot lacks $k"
done
echo "$before" | grep -q ' cuda\.cuGraphLaunch ' && fail "win: a graph launch before the window"
[ "$(grep -c ' cuda\.cuGraphLaunch ' "$T/win.dump")" = 3 ] || fail "win: not 3 graph launches in the window"
# the events recorded before the window: again after the keyframe, on the
# work stream (the first stream made), and on the null stream for the one
# whose stream was destroyed
s=$(echo "$before" | sed -n 's/.* cuda\.cuStreamCreate .*handle=\([0-9]*\).*/\1/p' | head -n 1)
evs=$(echo "$before" | sed -n 's/.* cuda\.cuEventCreate .*event=\([0-9]*\).*/\1/p')
ev_before=$(echo "$evs" | sed -n 2p)
ev_gone=$(echo "$evs" | sed -n 3p)
after_kf=$(echo "$before" | awk '/ keyframe / { kf = 1 } kf && / cuda\.cuEventRecord /')
echo "$after_kf" | grep -qE " cuda\.cuEventRecord stream=$s event=$ev_before( |\$)" ||
	fail "win: the event recorded on stream $s is not recorded there again: $after_kf"
echo "$after_kf" | grep -qE " cuda\.cuEventRecord event=$ev_gone( |\$)" ||
	fail "win: the event of the destroyed stream is not recorded on the null stream: $after_kf"
[ "$(echo "$after_kf" | wc -l)" = 2 ] || fail "win: expected 2 event records after the keyframe: $after_kf"
# --range from the window's second graph launch restores the window's
# keyframe, the graph rebuilt by the snapshot's records before it
second=$(grep ' cuda\.cuGraphLaunch ' "$T/win.dump" | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
[ -n "$second" ] || fail "win: no second graph launch"
all_match win.range 1 --range "$second:" "$W"
has win.range err "restored keyframe at seq"
# the removed node and edge are in the snapshot, and so is the mark of a
# node not modeled: the window refuses that graph's launch by name
(cd "$T" && expect_rc 0 wd.cap "$CAP" --profiler -o "$T/wd.sbt" -- "$PROG" --window --destroy --launches 3)
all_match wd.replay 1 "$T/wd-window-1.sbt"
[ "$(count "$T/wd-window-1.sbt" 'cuda.cuGraphDestroyNode ')" = 1 ] &&
	[ "$(count "$T/wd-window-1.sbt" 'cuda.cuGraphRemoveDependencies ')" = 1 ] ||
	fail "wd: the snapshot lacks the node or edge removal"
(cd "$T" && expect_rc 0 wc.cap "$CAP" --profiler -o "$T/wc.sbt" -- "$PROG" --window --child)
expect_rc 1 wc.replay "$RP" "$T/wc-window-1.sbt"
has wc.replay err "cannot be replayed: it or its graph was changed by cuGraphAddChildGraphNode at seq "
exit 0
