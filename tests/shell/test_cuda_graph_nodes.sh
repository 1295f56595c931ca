#!/bin/sh
# CUDA graphs built node by node (docs/cuda.md "Launches", docs/cuda-replay.md
# "Graphs"), on the libcuda test double: cuda_graph_nodes builds a graph
# with cuGraphCreate, memcpy (from and to the host), memset, kernel, empty
# and event record nodes, cuGraphAddDependencies, cuGraphAddNode and
# cuGraphKernelNodeSetParams, instantiates and launches it.  Captured, the
# program prints what it prints plain and the trace holds each of those
# calls; replayed, its checkpoint is equal (also with --check-determinism,
# --streams single, another scheduling seed, and after
# cuGraphExecKernelNodeSetParams changed the exec between launches).
# A memcpy node's host source is recorded at each launch (unchanged bytes
# deduplicated) and a source changed between launches replays as it ran.
# Child graph nodes, clones, enabled nodes, host nodes, the memcpy, memset
# and event node setters (graph and exec, specific and generic) and
# cuGraphExecUpdate (one that worked, one that failed) are captured and
# replayed with equal checkpoints and agreeing determinism runs; an exec
# update the replay's driver refuses (an edited trace) is refused by name.
# A graph filled by cuStreamBeginCaptureToGraph replays with its checkpoint
# equal (refused by name with --streams single, rebuilt by a window's
# snapshot).  Kernel node attributes set and copied, and batch memory-op
# nodes with their graph and exec setters, are recorded, replayed with the
# checkpoint equal and rebuilt by a window's snapshot.  A host node's
# setter (a call still not modeled) is
# counted in the exit report and by tsinfo (which names the call), and its
# graph's launch is refused on replay naming the call.  A node and an edge removed
# (cuGraphDestroyNode, cuGraphRemoveDependencies) are removed on replay.
# A capture window (--profiler) that launches a graph built before it: the
# snapshot rebuilds it, the window's checkpoint equals the whole run's
# (also from a --range restoring its keyframe), and the events recorded
# before the window are recorded again on their stream (the null stream
# for the one whose stream was destroyed); a node and an edge removed
# before the window are removed by its snapshot too, a graph not modeled
# is refused by name there too, and child graphs (destroyed before the
# window), clones, enabled nodes, host nodes, setters and an exec update
# made before the window are rebuilt by the snapshot with the window's
# checkpoint equal to the whole run's.  Graph memory allocation and free
# nodes: recorded, replayed at the replay's own graph memory (relocated,
# said once), in a window's snapshot, also freed by cuMemFreeAsync
# after each launch instead of a free node, and made by stream capture
# (cuMemAllocAsync/cuMemFreeAsync), with and without the address window;
# a free node of an address no
# allocation node returned is refused by name.  A child graph node's embedded graph
# (cuGraphChildGraphNodeGetGraph) changed after it was added: recorded,
# replayed, kept in a window's snapshot; a record naming a node the trace
# never added is refused by name.  Graph memory nodes in a graph moved into
# a child graph node (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE): recorded,
# replayed, its memory followed into the parent's launches and a window's
# snapshot.  A --range restoring a whole run's keyframe taken while graph
# memory was allocated launches its exec again first, as a window does.
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
M="$TOP/$BUILD/tests/sbt_mutate"

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

# ---- a memcpy node's host source, read at each launch -------------------------------------
# (the driver reads it at every launch: each launch records the bytes as
# they are, in a blob whose pages are stored once while they do not
# change: unchanged, the three launches' 8 KiB add nothing stored)
deduped() {
	"$INFO" --json "$1" | sed -n 's/.*"blobs":{[^}]*"bytes_logical":\([0-9]*\),"bytes_unique":\([0-9]*\).*/\1 \2/p' |
		{ read -r lg un; echo $((lg - un)); }
}
[ "$(count "$T/graph.sbt" 'cuda.tsGraphHostSource ')" = 3 ] ||
	fail "graph: not 3 host-source records: $("$INFO" --dump "$T/graph.sbt" | grep tsGraphHostSource)"
[ "$(deduped "$T/graph.sbt")" = 24576 ] || fail "graph: $(deduped "$T/graph.sbt") bytes deduplicated, not 3 x 8192"
capture hsrc --host-src --launches 3
cmp -s "$T/graph.plain.out" "$T/hsrc.plain.out" && fail "hsrc: changing the host source changed nothing"
[ "$(count "$T/hsrc.sbt" 'cuda.tsGraphHostSource ')" = 3 ] ||
	fail "hsrc: not 3 host-source records: $("$INFO" --dump "$T/hsrc.sbt" | grep tsGraphHostSource)"
# only the first launch's bytes equal the node's
[ "$(deduped "$T/hsrc.sbt")" = 8192 ] || fail "hsrc: $(deduped "$T/hsrc.sbt") bytes deduplicated, not 8192"
all_match hsrc.replay 1 "$T/hsrc.sbt"
all_match hsrc.det 1 --check-determinism --runs 3 "$T/hsrc.sbt"
has hsrc.det out '"result":"match"'
all_match hsrc.single 1 --streams single "$T/hsrc.sbt"

# ---- child graphs, clones, enabled nodes, host nodes ---------------------------------------
# --child: the child's kernel node is set again after the child was added
# (the parent keeps its copy: the replay's child graph node is added from
# the child rebuilt up to that point); --clone: the clone's node found and
# set, the clone instantiated; --disable: a node disabled before the first
# launch, enabled after it; --host-node: rebuilt as an empty node
# (cn: expect_rc uses the variable name)
for case in child:--child clone:--clone disable:--disable hnode:--host-node setn:--set-nodes xev:--exec-event \
	upd:--update; do
	cn=${case%%:*}
	opt=${case#*:}
	capture "$cn" "$opt" --launches 3
	[ "$(count "$T/$cn.sbt" 'cuda.tsGraphNotModeled ')" = 0 ] || fail "$cn: a call recorded as not modeled"
	grep -q "changed by calls not modeled" "$T/$cn.cap.err" && fail "$cn: $(cat "$T/$cn.cap.err")"
	all_match "$cn.replay" 1 "$T/$cn.sbt"
	all_match "$cn.det" 1 --check-determinism --runs 3 "$T/$cn.sbt"
	has "$cn.det" out '"result":"match"'
done
cmp -s "$T/graph.plain.out" "$T/child.plain.out" && fail "child: the child graph node changed nothing"
cmp -s "$T/graph.plain.out" "$T/clone.plain.out" && fail "clone: the clone's node set changed nothing"
cmp -s "$T/graph.plain.out" "$T/disable.plain.out" && fail "disable: disabling a node changed nothing"
[ "$(count "$T/child.sbt" 'cuda.cuGraphAddChildGraphNode ')" = 1 ] || fail "child: no cuGraphAddChildGraphNode record"
[ "$(count "$T/clone.sbt" 'cuda.cuGraphClone ')" = 1 ] && [ "$(count "$T/clone.sbt" 'cuda.cuGraphNodeFindInClone ')" = 1 ] ||
	fail "clone: no cuGraphClone or cuGraphNodeFindInClone record"
"$INFO" --dump "$T/disable.sbt" | grep ' cuda\.cuGraphNodeSetEnabled ' >"$T/disable.en"
[ "$(wc -l <"$T/disable.en")" = 2 ] && ! sed -n 1p "$T/disable.en" | grep -q ' value=' &&
	sed -n 2p "$T/disable.en" | grep -q ' value=1 ' || fail "disable: $(cat "$T/disable.en")"
has hnode.plain out "the host node ran 3 times"
"$INFO" --dump "$T/hnode.sbt" | grep -q ' cuda\.cuGraphAddHostNode .*note="host code is never replayed"' ||
	fail "hnode: no cuGraphAddHostNode record"
hs=$("$INFO" --dump "$T/hnode.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphAddHostNode .*/\1/p')
has hnode.replay err "tsreplay: cuda: note: seq $hs: cuGraphAddHostNode: host nodes are rebuilt as empty nodes (host functions are not run on replay); each keeps its place in the graph"
[ "$(grep -c 'host nodes are rebuilt' "$T/hnode.replay.err")" = 1 ] || fail "hnode: the note is not said once"
# the setters of memcpy, memset and event nodes, on the graph's nodes and
# on the exec's copies; the exec's upload node set to copy from device
# memory is refused (CUDA_ERROR_INVALID_VALUE, as the H100's driver
# refuses a change of memory type) and recorded with its result, then set
# to copy from another host buffer: each of the 3 launches carries its
# host source
# (cuGraphNodeSetParams on a kernel node is recorded as
# cuGraphKernelNodeSetParams, cuGraphExecNodeSetParams on a memset node as
# cuGraphExecMemsetNodeSetParams)
for k in cuGraphMemsetNodeSetParams:1 cuGraphMemcpyNodeSetParams:1 cuGraphEventRecordNodeSetEvent:1 \
	cuGraphEventWaitNodeSetEvent:1 cuGraphExecMemsetNodeSetParams:2 cuGraphExecMemcpyNodeSetParams:2 \
	cuGraphExecEventRecordNodeSetEvent:1 cuGraphExecEventWaitNodeSetEvent:1 cuGraphKernelNodeSetParams:2; do
	[ "$(count "$T/setn.sbt" "cuda.${k%:*} ")" = "${k#*:}" ] || fail "setn: not ${k#*:} ${k%:*} records"
done
[ "$(count "$T/setn.sbt" 'cuda.tsGraphHostSource ')" = 3 ] || fail "setn: not 3 host-source records"
"$INFO" --dump "$T/setn.sbt" | grep ' cuda\.cuGraphExecMemcpyNodeSetParams ' | head -n 1 | grep -q ' result=1 ' ||
	fail "setn: the refused exec memcpy setter is not recorded with its result"
cmp -s "$T/graph.plain.out" "$T/setn.plain.out" && fail "setn: the setters changed nothing"
[ "$(count "$T/xev.sbt" 'cuda.cuGraphExecEventRecordNodeSetEvent ')" = 1 ] || fail "xev: the exec's event setter is not recorded"
# cuGraphExecUpdate: the update that worked gives the exec the clone's
# scale (the result is --clone's); the one that failed at capture is
# recorded with its result and not issued again
cmp -s "$T/clone.plain.out" "$T/upd.plain.out" || fail "upd: the updated exec does not compute what the clone does"
"$INFO" --dump "$T/upd.sbt" | grep ' cuda\.cuGraphExecUpdate ' >"$T/upd.rec"
[ "$(wc -l <"$T/upd.rec")" = 2 ] && ! sed -n 1p "$T/upd.rec" | grep -q ' result=' &&
	sed -n 2p "$T/upd.rec" | grep -q ' result=910 .*value=2\( \|$\)' || fail "upd: $(cat "$T/upd.rec")"
# the failed update's record edited to say it worked at capture: replay
# issues it, the double refuses it (another shape) as at capture, and the
# exec's next launch is refused naming the update; what comes before runs
US=$("$INFO" --dump "$T/upd.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphExecUpdate result=910 .*/\1/p')
i=0 op=
while [ "$i" -lt 16 ] && [ -z "$op" ]; do
	if "$M" "$T/upd.sbt" "$T/updbad.sbt" --varint "$US:$i:0" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/updbad.sbt" | grep "^seq=$US " | grep -v ' result=' | grep -q ' value=2$'; then
		op="$US:$i:0"
	fi
	i=$((i + 1))
done
[ -n "$op" ] || fail "updbad: no varint of record $US is its result"
ul=$("$INFO" --dump "$T/upd.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphLaunch .*/\1/p' | head -n 1)
ux=$(printf '0x%x' "$("$INFO" --dump "$T/upd.sbt" | sed -n "s/^seq=$ul .* cuda\\.cuGraphLaunch handle=\\([0-9]*\\) .*/\\1/p")")
expect_rc 1 updbad.replay "$RP" "$T/updbad.sbt"
has updbad.replay err "tsreplay: backend cuda: record seq $ul (cuda.cuGraphLaunch): graph exec $ux cannot be replayed: the replay's driver refused its cuGraphExecUpdate at seq $US with CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE (910) (update result 2), where the capture's driver took it; replay a --range that ends before seq $ul"
expect_rc 0 updbad.range "$RP" --range ":$ul" "$T/updbad.sbt"
# --child-get: the graph embedded in the child graph node
# (cuGraphChildGraphNodeGetGraph) gets a memset and a kernel node: recorded,
# replayed on the replay's own embedded graph (the buffer they write is
# read back at the last checkpoint)
capture cget --child --child-get --launches 3
has cget.plain out "the embedded graph wrote 0x"
has cget.plain out "(first word 21)"
[ "$(count "$T/cget.sbt" 'cuda.cuGraphChildGraphNodeGetGraph ')" = 1 ] || fail "cget: no cuGraphChildGraphNodeGetGraph record"
[ "$(count "$T/cget.sbt" 'cuda.tsGraphNotModeled ')" = 0 ] || fail "cget: a call recorded as not modeled"
all_match cget.replay 2 "$T/cget.sbt"
all_match cget.det 2 --check-determinism --runs 3 "$T/cget.sbt"
has cget.det out '"result":"match"'
# the record made to name a node the trace never added: refused by name
GG=$("$INFO" --dump "$T/cget.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphChildGraphNodeGetGraph .*/\1/p')
i=0 op=
while [ "$i" -lt 24 ] && [ -z "$op" ]; do
	if "$M" "$T/cget.sbt" "$T/cgetbad.sbt" --varint "$GG:$i:12345" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/cgetbad.sbt" | grep -q "^seq=$GG .* node=12345\( \|\$\)"; then
		op="$GG:$i:12345"
	fi
	i=$((i + 1))
done
[ -n "$op" ] || fail "cgetbad: no varint of record $GG is its node"
expect_rc 1 cgetbad.replay "$RP" "$T/cgetbad.sbt"
has cgetbad.replay err "cuGraphChildGraphNodeGetGraph names child graph node 0x3039, which the trace never added"
# --alloc-node: graph memory from a memory allocation node, filled, added
# to the result and freed by a free node (cuGraphAddNode): recorded with
# the address the driver returned; the replay's graph memory lies
# elsewhere (the double places it as cuMemAlloc's, another address each
# run), its range is mapped as a relocated allocation's and said once
capture galloc --alloc-node --launches 3
cmp -s "$T/graph.plain.out" "$T/galloc.plain.out" && fail "galloc: the graph memory changed nothing"
[ "$(count "$T/galloc.sbt" 'cuda.cuGraphAddMemAllocNode ')" = 1 ] &&
	[ "$(count "$T/galloc.sbt" 'cuda.cuGraphAddMemFreeNode ')" = 1 ] || fail "galloc: no allocation or free node record"
[ "$(count "$T/galloc.sbt" 'cuda.tsGraphNotModeled ')" = 0 ] || fail "galloc: a call recorded as not modeled"
all_match galloc.replay 1 "$T/galloc.sbt"
AS=$("$INFO" --dump "$T/galloc.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphAddMemAllocNode .*/\1/p')
has galloc.replay err "tsreplay: cuda: warning: seq $AS: the 8192 bytes of graph memory captured at 0x"
has galloc.replay err "(cuGraphAddMemAllocNode) live at 0x"
[ "$(grep -c 'bytes of graph memory' "$T/galloc.replay.err")" = 1 ] || fail "galloc: the warning is not said once"
all_match galloc.det 1 --check-determinism --runs 3 "$T/galloc.sbt"
has galloc.det out '"result":"match"'
expect_rc 0 galloc.dump "$INFO" --dump "$T/galloc.sbt"
expect_rc 0 galloc.sum "$TOP/$BUILD/tsexport" --summary "$T/galloc.sbt"
has galloc.sum out "commands: "
# --no-free-node: no free node; the program frees the graph memory after
# each launch (cuMemFreeAsync), replayed at the replay's graph memory
capture gnofree --alloc-node --no-free-node --launches 3
cmp -s "$T/galloc.plain.out" "$T/gnofree.plain.out" || fail "gnofree: not what the graph with a free node computes"
[ "$(count "$T/gnofree.sbt" 'cuda.cuGraphAddMemFreeNode ')" = 0 ] &&
	[ "$(count "$T/gnofree.sbt" 'cuda.cuMemFreeAsync ')" = 3 ] || fail "gnofree: not 3 cuMemFreeAsync records and no free node"
all_match gnofree.replay 1 "$T/gnofree.sbt"
all_match gnofree.det 1 --check-determinism --runs 3 "$T/gnofree.sbt"
# --access: the allocation node gives device 1 read-write access (two
# devices): its access descriptor is recorded (res_desc: location type 1 =
# device, id 1, flags 3 = read-write) and given on replay, also by a
# window's snapshot; on one device the replay's driver refuses it by name
export TSCUDA_DOUBLE_DEVICES=2
capture gacc --alloc-node --access --launches 3
cmp -s "$T/galloc.plain.out" "$T/gacc.plain.out" || fail "gacc: not what the graph without the descriptor computes"
"$INFO" --dump "$T/gacc.sbt" | grep ' cuda\.cuGraphAddMemAllocNode ' | grep -q ' res_desc=010000000100000003000000 ' ||
	fail "gacc: the access descriptor is not recorded: $("$INFO" --dump "$T/gacc.sbt" | grep AllocNode)"
[ "$(count "$T/gacc.sbt" 'cuda.tsGraphNotModeled ')" = 0 ] || fail "gacc: a call recorded as not modeled"
all_match gacc.replay 1 "$T/gacc.sbt"
all_match gacc.det 1 --check-determinism --runs 3 "$T/gacc.sbt"
capture wholegacc --window --alloc-node --access --launches 3
(cd "$T" && expect_rc 0 wgacc.cap "$CAP" --profiler -o "$T/wgacc.sbt" -- "$PROG" --window --alloc-node --access --launches 3)
all_match wgacc.replay 1 "$T/wgacc-window-1.sbt"
hw=$("$INFO" --dump "$T/wgacc-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/wholegacc.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wgacc: the window's checkpoint $hw is not the whole run's $hf"
"$INFO" --dump "$T/wgacc-window-1.sbt" | grep ' cuda\.cuGraphAddMemAllocNode ' | grep -q ' res_desc=010000000100000003000000 ' ||
	fail "wgacc: the snapshot's allocation node lacks its access descriptor"
unset TSCUDA_DOUBLE_DEVICES
expect_rc 1 gacc.one "$RP" "$T/gacc.sbt"
AS=$("$INFO" --dump "$T/gacc.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphAddMemAllocNode .*/\1/p')
has gacc.one err "tsreplay: backend cuda: record seq $AS (cuda.cuGraphAddMemAllocNode): cuGraphAddMemAllocNode failed with CUDA_ERROR_INVALID_VALUE (1)"
expect_rc 2 gacc.plain1 "$PROG" --alloc-node --access
has gacc.plain1 err "cuda_graph_nodes: --access needs two devices, there are 1"
# --mem-attr: the device's graph memory attributes read and reset, its
# unused graph memory trimmed: passed through (counted, changing nothing
# replay depends on), the replay's checkpoint equal
capture gattr --alloc-node --mem-attr --launches 3
cmp -s "$T/galloc.plain.out" "$T/gattr.plain.out" || fail "gattr: the attribute calls changed the result"
expect_rc 0 gattr.log env TRACESMITH_LOG=info "$CAP" -o "$T/gattr2.sbt" -- "$PROG" --alloc-node --mem-attr --launches 3
has gattr.log err "not modeled (counted only): cuDeviceGetGraphMemAttribute=4 cuDeviceGraphMemTrim=1 cuDeviceSetGraphMemAttribute=2"
all_match gattr.replay 1 "$T/gattr.sbt"
# --capture-alloc: cuMemAllocAsync and cuMemFreeAsync inside a stream
# capture (the driver makes them allocation and free nodes): with the
# address window on, the interposer serves the memory from the window and
# replay has it at the same address; with TRACESMITH_CUDA_VA=off the
# replay's capture allocates graph memory elsewhere and maps it
capture gcap --capture-alloc --launches 3
cmp -s "$T/graph.plain.out" "$T/gcap.plain.out" && fail "gcap: the captured allocation changed nothing"
all_match gcap.replay 1 "$T/gcap.sbt"
expect_rc 0 gcapv.cap env TRACESMITH_CUDA_VA=off "$CAP" -o "$T/gcapv.sbt" -- "$PROG" --capture-alloc --launches 3
cmp -s "$T/gcap.plain.out" "$T/gcapv.cap.out" || fail "gcapv: the captured run printed '$(cat "$T/gcapv.cap.out")'"
all_match gcapv.replay 1 "$T/gcapv.sbt"
if grep -q "of graph memory captured at 0x" "$T/gcapv.replay.err" || ! tsan_build; then
	has gcapv.replay err "of graph memory captured at 0x"
	has gcapv.replay err "(cuMemAllocAsync in a stream capture) live at 0x"
else
	# (under make tsan the double's heap is TSan's low range, where the
	# replay's graph memory can land at the captured address: not moved)
	echo "note: a TSan build: the replay's graph memory was placed at the captured address"
fi
all_match gcapv.det 1 --check-determinism --runs 3 "$T/gcapv.sbt"
# the free node made to free an address no allocation node returned
FS=$("$INFO" --dump "$T/galloc.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphAddMemFreeNode .*/\1/p')
i=0 op=
while [ "$i" -lt 24 ] && [ -z "$op" ]; do
	if "$M" "$T/galloc.sbt" "$T/gfreebad.sbt" --varint "$FS:$i:4096" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/gfreebad.sbt" | grep -q "^seq=$FS .* dst=4096\( \|\$\)"; then
		op="$FS:$i:4096"
	fi
	i=$((i + 1))
done
[ -n "$op" ] || fail "gfreebad: no varint of record $FS is its dst"
expect_rc 1 gfreebad.replay "$RP" "$T/gfreebad.sbt"
has gfreebad.replay err "cuGraphAddMemFreeNode frees 0x1000, which no memory allocation node of the trace allocated"
# a window whose graph, with its allocation and free nodes, was built
# before it: the snapshot rebuilds them, the checkpoint is the whole run's
capture wholegal --window --alloc-node --launches 3
(cd "$T" && expect_rc 0 wgal.cap "$CAP" --profiler -o "$T/wgal.sbt" -- "$PROG" --window --alloc-node --launches 3)
all_match wgal.replay 1 "$T/wgal-window-1.sbt"
hw=$("$INFO" --dump "$T/wgal-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/wholegal.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wgal: the window's checkpoint $hw is not the whole run's $hf"
before=$("$INFO" --dump "$T/wgal-window-1.sbt" | awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }')
for k in cuGraphAddMemAllocNode cuGraphAddMemFreeNode; do
	echo "$before" | grep -q " cuda\.$k " || fail "wgal: the snapshot lacks $k"
done
# graph memory left allocated by a launch before the window (no free
# node) and read and freed inside it: the snapshot launches its exec again
# (then a cuCtxSynchronize) before the keyframe, which holds that memory
# (sub 3, at the address the allocation node returned), so the window's
# checkpoint is the whole run's; without the relaunch and the memory's
# snapshot record the checkpoint differs
GL="--window --alloc-node --no-free-node --gmem-live --launches 3"
# shellcheck disable=SC2086 # the options are words
capture wholegl $GL
(cd "$T" && expect_rc 0 wgl.cap "$CAP" --profiler -o "$T/wgl.sbt" -- "$PROG" $GL)
cmp -s "$T/wholegl.plain.out" "$T/wgl.cap.out" || fail "wgl: the windowed run printed '$(cat "$T/wgl.cap.out")'"
cmp -s "$T/gnofree.plain.out" "$T/wholegl.plain.out" && fail "wgl: the launch before the window changed nothing"
all_match wgl.replay 1 "$T/wgl-window-1.sbt"
hw=$("$INFO" --dump "$T/wgl-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/wholegl.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wgl: the window's checkpoint $hw is not the whole run's $hf"
"$INFO" --dump "$T/wgl-window-1.sbt" >"$T/wgl.dump"
ga=$(sed -n 's/.* cuda\.cuGraphAddMemAllocNode .*dst=\([0-9]*\) .*/\1/p' "$T/wgl.dump")
gx=$(sed -n 's/.* cuda\.cuGraphInstantiate handle=\([0-9]*\) .*/\1/p' "$T/wgl.dump" | head -n 1)
kseq=$(sed -n 's/^seq=\([0-9]*\) .* keyframe .*/\1/p' "$T/wgl.dump")
rl=$(sed -n "s/^seq=\\([0-9]*\\) .* cuda\\.cuGraphLaunch handle=$gx\$/\\1/p" "$T/wgl.dump")
[ -n "$rl" ] && [ -n "$kseq" ] && [ "$rl" -lt "$kseq" ] || fail "wgl: no launch of exec $gx before the keyframe (seq $kseq): $(grep -E 'cuGraphLaunch|keyframe' "$T/wgl.dump")"
grep -q "^seq=$((rl + 1)) .* cuda\.cuCtxSynchronize\$" "$T/wgl.dump" || fail "wgl: no cuCtxSynchronize after the relaunch"
grep -qE " cuda\.tsSnapshot dst=$ga size=8192 .*sub=3\$" "$T/wgl.dump" || fail "wgl: the keyframe lacks the graph memory at $ga"
"$M" "$T/wgl-window-1.sbt" "$T/wglbad.sbt" --drop "$rl" \
	--drop "$(sed -n "s/^seq=\\([0-9]*\\) .* cuda\\.tsSnapshot dst=$ga .*/\\1/p" "$T/wgl.dump")" >/dev/null ||
	fail "wglbad: cannot drop the relaunch and the memory's snapshot"
expect_rc 3 wglbad.replay "$RP" --json "$T/wglbad.sbt"
[ "$(json_field "$T/wglbad.replay.out" matched)" = 0 ] || fail "wglbad: the checkpoint matched without the graph memory"
# a --range from the window's first launch restores the keyframe, and the
# snapshot's relaunch runs in that restore too (objects only otherwise):
# the double counts it and the window's 3 launches
first=$(sed -n "s/^seq=\\([0-9]*\\) .* cuda\\.cuGraphLaunch handle=$gx stream=.*/\\1/p" "$T/wgl.dump" | head -n 1)
[ -n "$first" ] || fail "wgl: no launch in the window"
TSCUDA_DOUBLE_STATS="$T/wgl.stats" all_match wgl.range 1 --range "$first:" "$T/wgl-window-1.sbt"
has wgl.range err "restored keyframe at seq $kseq"
grep -qx 'cuGraphLaunch 4' "$T/wgl.stats" || fail "wgl.range: not 4 graph launches: $(grep GraphLaunch "$T/wgl.stats")"
# a whole run's keyframe (TRACESMITH_SNAPSHOT=launch) taken while the graph
# memory a launch left allocated is live: a --range restoring it launches
# that exec again on the null stream first (a note says so: the driver
# allocates graph memory at launches only), then the keyframe fills it;
# the double counts the relaunch and the 3 launches
expect_rc 0 kfgl.cap env TRACESMITH_SNAPSHOT=launch "$CAP" -o "$T/kfgl.sbt" -- "$PROG" --alloc-node --no-free-node \
	--gmem-live --launches 3
cmp -s "$T/wholegl.plain.out" "$T/kfgl.cap.out" || fail "kfgl: the captured run printed '$(cat "$T/kfgl.cap.out")'"
"$INFO" --dump "$T/kfgl.sbt" >"$T/kfgl.dump"
lv=$(sed -n 's/^seq=\([0-9]*\) .* cuda\.cuLaunchKernel .*name="vadd".*/\1/p' "$T/kfgl.dump" | head -n 1)
ks=$(awk -v lv="$lv" '{ s = substr($1, 5) + 0 } / keyframe / && s < lv { k = s } END { print k }' "$T/kfgl.dump")
gl=$(awk -v ks="$ks" '{ s = substr($1, 5) + 0 } / cuda\.cuGraphLaunch / && s < ks { g = s; h = $5 } END { print g, h }' "$T/kfgl.dump")
gx=$(printf '0x%x' "${gl#*handle=}")
gl=${gl%% *}
awk -v ks="$ks" -v lv="$lv" '{ s = substr($1, 5) + 0 } s > ks && s < lv && / cuda\.tsSnapshot .*sub=3$/ { f = 1 }
	END { exit !f }' "$T/kfgl.dump" || fail "kfgl: the keyframe at seq $ks holds no graph memory"
TSCUDA_DOUBLE_STATS="$T/kfgl.stats" all_match kfgl.range 1 --range "$lv:" "$T/kfgl.sbt"
has kfgl.range err "restored keyframe at seq $ks"
has kfgl.range err "tsreplay: cuda: note: keyframe seq $ks: graph exec $gx launched again, as at seq $gl, to allocate the graph memory the keyframe fills (the driver allocates it at launches only)"
grep -qx 'cuGraphLaunch 4' "$T/kfgl.stats" || fail "kfgl.range: not 4 graph launches: $(grep GraphLaunch "$T/kfgl.stats")"
# a window's keyframe: its snapshot's own relaunch allocates it (no note)
grep -qF 'launched again' "$T/wgl.range.err" && fail "wgl.range: the window's keyframe relaunched an exec twice"

# ---- graph memory owned through a child graph node ---------------------------------------
# --child-mem: the allocation, memset, add and free nodes are in a graph of
# their own, moved into a child graph node (cuGraphAddNode with
# CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE, the one way the documentation gives
# to hold memory nodes in a child graph): the same result as --alloc-node;
# recorded as cuGraphAddChildGraphNode flags=1, and the calls the double
# refuses as documented (the graph copied into a child graph node, by
# cuGraphAddChildGraphNode and by cuGraphAddNode, the moved graph
# instantiated or destroyed on its own) recorded as they failed; replayed
# with cuGraphAddNode, its checkpoint equal
capture gchild --alloc-node --child-mem --launches 3
cmp -s "$T/galloc.plain.out" "$T/gchild.plain.out" || fail "gchild: not what --alloc-node computes"
[ "$(count "$T/gchild.sbt" 'cuda.cuGraphAddChildGraphNode flags=1 ')" = 1 ] ||
	fail "gchild: no moved child graph node: $("$INFO" --dump "$T/gchild.sbt" | grep ChildGraph)"
for want in 'cuda.cuGraphAddChildGraphNode result=801 :2' 'cuda.cuGraphInstantiate result=801 :1' \
	'cuda.cuGraphDestroy result=801 :1'; do
	[ "$(count "$T/gchild.sbt" "${want% :*}")" = "${want##*:}" ] || fail "gchild: not ${want##*:} refused '${want% :*}' records"
done
[ "$(count "$T/gchild.sbt" 'cuda.tsGraphNotModeled ')" = 0 ] || fail "gchild: a call recorded as not modeled"
all_match gchild.replay 1 "$T/gchild.sbt"
all_match gchild.det 1 --check-determinism --runs 3 "$T/gchild.sbt"
has gchild.det out '"result":"match"'
all_match gchild.single 1 --streams single "$T/gchild.sbt"
expect_rc 0 gchild.sum "$TOP/$BUILD/tsexport" --summary "$T/gchild.sbt"
has gchild.sum out "commands: "
# the moved graph's memory outlives each launch (no free node), freed by
# the program: followed into the parent's launches
capture gchildnf --alloc-node --child-mem --no-free-node --launches 3
cmp -s "$T/galloc.plain.out" "$T/gchildnf.plain.out" || fail "gchildnf: not what --alloc-node computes"
all_match gchildnf.replay 1 "$T/gchildnf.sbt"
# left allocated by a launch before a window: the snapshot launches the
# parent's exec again before the keyframe, which holds the moved graph's
# memory, and the window's checkpoint is the whole run's (also from a
# --range restoring that keyframe: the relaunch and the 3 launches)
GLC="$GL --child-mem"
# shellcheck disable=SC2086 # the options are words
capture wholeglc $GLC
cmp -s "$T/wholegl.plain.out" "$T/wholeglc.plain.out" || fail "wholeglc: not what the graph without a child computes"
(cd "$T" && expect_rc 0 wglc.cap "$CAP" --profiler -o "$T/wglc.sbt" -- "$PROG" $GLC)
all_match wglc.replay 1 "$T/wglc-window-1.sbt"
"$INFO" --dump "$T/wglc-window-1.sbt" >"$T/wglc.dump"
hw=$(sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' "$T/wglc.dump")
hf=$("$INFO" --dump "$T/wholeglc.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wglc: the window's checkpoint $hw is not the whole run's $hf"
ga=$(sed -n 's/.* cuda\.cuGraphAddMemAllocNode .*dst=\([0-9]*\) .*/\1/p' "$T/wglc.dump")
gx=$(sed -n 's/.* cuda\.cuGraphInstantiate handle=\([0-9]*\) .*/\1/p' "$T/wglc.dump" | head -n 1)
kseq=$(sed -n 's/^seq=\([0-9]*\) .* keyframe .*/\1/p' "$T/wglc.dump")
rl=$(sed -n "s/^seq=\\([0-9]*\\) .* cuda\\.cuGraphLaunch handle=$gx\$/\\1/p" "$T/wglc.dump")
[ -n "$rl" ] && [ -n "$kseq" ] && [ "$rl" -lt "$kseq" ] || fail "wglc: no launch of exec $gx before the keyframe (seq $kseq)"
grep -q " cuda\.cuGraphAddChildGraphNode flags=1 " "$T/wglc.dump" || fail "wglc: the snapshot lacks the moved child graph node"
grep -qE " cuda\.tsSnapshot dst=$ga size=8192 .*sub=3\$" "$T/wglc.dump" || fail "wglc: the keyframe lacks the graph memory at $ga"
first=$(sed -n "s/^seq=\\([0-9]*\\) .* cuda\\.cuGraphLaunch handle=$gx stream=.*/\\1/p" "$T/wglc.dump" | head -n 1)
TSCUDA_DOUBLE_STATS="$T/wglc.stats" all_match wglc.range 1 --range "$first:" "$T/wglc-window-1.sbt"
grep -qx 'cuGraphLaunch 4' "$T/wglc.stats" || fail "wglc.range: not 4 graph launches: $(grep GraphLaunch "$T/wglc.stats")"
# all of them at once, with a host source changing
capture every --child --child-get --clone --disable --host-node --host-src --launches 3
all_match every.replay 2 "$T/every.sbt"
# the tools read the new records (the emulator does not model them yet:
# it passes over what it does not know)
expect_rc 0 every.dump "$INFO" --dump "$T/every.sbt"
for k in cuGraphAddChildGraphNode cuGraphClone cuGraphNodeFindInClone cuGraphNodeSetEnabled cuGraphAddHostNode \
	tsGraphHostSource cuGraphChildGraphNodeGetGraph; do
	grep -q " cuda\.$k " "$T/every.dump.out" || fail "every.dump: no $k record"
done
expect_rc 0 setn.dump "$INFO" --dump "$T/setn.sbt"
expect_rc 0 upd.dump "$INFO" --dump "$T/upd.sbt"
for tr in every setn upd; do
	expect_rc 0 "$tr.sum" "$TOP/$BUILD/tsexport" --summary "$T/$tr.sbt"
	has "$tr.sum" out "commands: "
done

# ---- a graph filled by stream capture ------------------------------------------------------
# (cuStreamBeginCaptureToGraph: the capture's memset and kernel become
# nodes of a graph made by cuGraphCreate, after its empty node): recorded
# as a cuStreamBeginCapture naming that graph and the node, replayed into
# the replay's own graph with the checkpoint equal; --streams single has
# no stream to capture on and refuses that graph's launch by name
capture cto --capture-to
expect_rc 0 graph2.plain "$PROG"
cmp -s "$T/graph2.plain.out" "$T/cto.plain.out" && fail "cto: the graph filled by capture changed nothing"
[ "$(count "$T/cto.sbt" 'cuda.tsGraphNotModeled ')" = 0 ] || fail "cto: a call recorded as not modeled"
grep -q "changed by calls not modeled" "$T/cto.cap.err" && fail "cto: $(cat "$T/cto.cap.err")"
g2=$("$INFO" --dump "$T/cto.sbt" | sed -n 's/.* cuda\.cuGraphCreate handle=\([0-9]*\).*/\1/p' | tail -n 1)
e2=$("$INFO" --dump "$T/cto.sbt" | sed -n "s/.* cuda\\.cuGraphAddEmptyNode parent=$g2 node=\\([0-9]*\\).*/\\1/p")
e2=$(printf '%016x' "$e2" | sed 's/\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)/\8\7\6\5\4\3\2\1/')
"$INFO" --dump "$T/cto.sbt" | grep -qE " cuda\.cuStreamBeginCapture flags=2 parent=$g2 stream=[0-9]+ deps=$e2( |\$)" ||
	fail "cto: no capture into graph $g2 after node $e2: $("$INFO" --dump "$T/cto.sbt" | grep Capture)"
"$INFO" --dump "$T/cto.sbt" | grep -qE " cuda\.cuStreamEndCapture handle=$g2 " || fail "cto: the capture did not end in graph $g2"
all_match cto.replay 1 "$T/cto.sbt"
all_match cto.det 1 --check-determinism --runs 3 "$T/cto.sbt"
has cto.det out '"result":"match"'
cs=$("$INFO" --dump "$T/cto.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuStreamBeginCapture .*parent=.*/\1/p')
ls=$("$INFO" --dump "$T/cto.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphLaunch .*/\1/p' | tail -n 1)
ex=$("$INFO" --dump "$T/cto.sbt" | sed -n 's/^seq=[0-9]* .* cuda\.cuGraphLaunch handle=\([0-9]*\) .*/\1/p' | tail -n 1)
ex=$(printf '0x%x' "$ex")
expect_rc 1 cto.single "$RP" --streams single "$T/cto.sbt"
has cto.single err "tsreplay: backend cuda: record seq $ls (cuda.cuGraphLaunch): graph exec $ex cannot be replayed: its graph was captured into at seq $cs (cuStreamBeginCaptureToGraph), which --streams single cannot rebuild (stream capture needs a stream): replay with --streams multi; replay a --range that ends before seq $ls"
expect_rc 0 cto.dump "$INFO" --dump "$T/cto.sbt"
expect_rc 0 cto.sum "$TOP/$BUILD/tsexport" --summary "$T/cto.sbt"
has cto.sum out "commands: "

# ---- kernel node attributes -----------------------------------------------------------------
# a kernel node given a priority (cuGraphKernelNodeSetAttribute), copied to
# another (cuGraphKernelNodeCopyAttributes) and read back: recorded (the
# attribute as a launch's attrs), issued again on replay (the double counts
# both calls) with the checkpoint equal, and nothing counted as not modeled
capture nattr --node-attr --launches 3
has nattr.plain out "cuda_graph_nodes: stream priorities 0 (least) to -5 (greatest); the scale node's priority set to 1 reads 0; the fill node's, copied from it set to -2, -2"
"$INFO" --dump "$T/nattr.sbt" >"$T/nattr.dump"
grep -q ' cuda\.cuGraphKernelNodeSetAttribute attrs=0800000000000000010000000000000000000000' "$T/nattr.dump" &&
	grep -q ' cuda\.cuGraphKernelNodeSetAttribute attrs=0800000000000000feffffff00000000000000000' "$T/nattr.dump" ||
	fail "nattr: the priority is not recorded: $(grep Attrib "$T/nattr.dump")"
grep -q ' cuda\.cuGraphKernelNodeCopyAttributes handle=[0-9]* node=[0-9]*$' "$T/nattr.dump" ||
	fail "nattr: the copy is not recorded: $(grep Attrib "$T/nattr.dump")"
[ "$(count "$T/nattr.sbt" 'cuda.tsGraphNotModeled ')" = 0 ] || fail "nattr: a call recorded as not modeled"
TSCUDA_DOUBLE_STATS="$T/nattr.stats" all_match nattr.replay 1 "$T/nattr.sbt"
grep -qx 'cuGraphKernelNodeSetAttribute 2' "$T/nattr.stats" && grep -qx 'cuGraphKernelNodeCopyAttributes 1' "$T/nattr.stats" ||
	fail "nattr.replay: the attribute calls were not issued: $(grep Attrib "$T/nattr.stats")"
all_match nattr.det 1 --check-determinism --runs 3 "$T/nattr.sbt"
expect_rc 0 nattr.sum "$TOP/$BUILD/tsexport" --summary "$T/nattr.sbt"
has nattr.sum out "commands: "
# made before a window: its snapshot sets them again
(cd "$T" && expect_rc 0 wna.cap "$CAP" --profiler -o "$T/wna.sbt" -- "$PROG" --window --node-attr --launches 3)
[ "$(count "$T/wna-window-1.sbt" 'cuda.cuGraphKernelNodeSetAttribute ')" = 2 ] &&
	[ "$(count "$T/wna-window-1.sbt" 'cuda.cuGraphKernelNodeCopyAttributes ')" = 1 ] ||
	fail "wna: the snapshot lacks the attribute calls"
TSCUDA_DOUBLE_STATS="$T/wna.stats" all_match wna.replay 1 "$T/wna-window-1.sbt"
grep -qx 'cuGraphKernelNodeSetAttribute 2' "$T/wna.stats" || fail "wna.replay: the attribute was not set again"

# ---- batch memory-op nodes -------------------------------------------------------------------
# (--memop: a node writing a 32-bit and a 64-bit value into the result and
# waiting for the first, set again before instantiation and on the exec
# after the first launch, where a change of count is refused as
# documented, and a second one added and set through cuGraphAddNode and
# the generic setters, recorded as the specific calls): recorded with
# their operations, replayed with
# the checkpoint equal; the exec's setter changes the result (dropped from
# the trace, the replay differs); in a window the snapshot rebuilds the
# node as set; the emulator, which does not model them, reads the trace
capture memop --memop --launches 3
cmp -s "$T/graph.plain.out" "$T/memop.plain.out" && fail "memop: the memory operations changed nothing"
for want in 'cuda.cuGraphAddBatchMemOpNode :2' 'cuda.cuGraphBatchMemOpNodeSetParams :2' \
	'cuda.cuGraphExecBatchMemOpNodeSetParams :3' 'cuda.cuGraphExecBatchMemOpNodeSetParams result=1 :1' \
	'cuda.tsGraphNotModeled :0'; do
	what=${want% :*}
	n=$(count "$T/memop.sbt" "$what ")
	[ "$n" = "${want##*:}" ] || fail "memop: $n $what records, expected ${want##*:}"
done
"$INFO" --dump "$T/memop.sbt" | grep ' cuda\.cuGraphAddBatchMemOpNode ' | grep -q ' params=02000000000000000' ||
	fail "memop: the node's first operation is not a 32-bit write"
all_match memop.replay 1 "$T/memop.sbt"
all_match memop.det 1 --check-determinism --runs 3 "$T/memop.sbt"
has memop.det out '"result":"match"'
all_match memop.single 1 --streams single "$T/memop.sbt"
ES=$("$INFO" --dump "$T/memop.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphExecBatchMemOpNodeSetParams ctx=.*/\1/p' | head -n 1)
"$M" "$T/memop.sbt" "$T/memopbad.sbt" --drop "$ES" >/dev/null || fail "memopbad: cannot drop seq $ES"
expect_rc 3 memopbad.replay "$RP" --json "$T/memopbad.sbt"
[ "$(json_field "$T/memopbad.replay.out" matched)" = 0 ] || fail "memopbad: the checkpoint matched without the exec's setter"
expect_rc 0 memop.sum "$TOP/$BUILD/tsexport" --summary "$T/memop.sbt"
has memop.sum out "commands: "
capture wholememop --window --memop --launches 3
(cd "$T" && expect_rc 0 wmemop.cap "$CAP" --profiler -o "$T/wmemop.sbt" -- "$PROG" --window --memop --launches 3)
cmp -s "$T/wholememop.plain.out" "$T/wmemop.cap.out" || fail "wmemop: the windowed run printed '$(cat "$T/wmemop.cap.out")'"
[ "$(count "$T/wmemop-window-1.sbt" 'cuda.cuGraphAddBatchMemOpNode ')" = 2 ] &&
	[ "$(count "$T/wmemop-window-1.sbt" 'cuda.cuGraphBatchMemOpNodeSetParams ')" = 2 ] ||
	fail "wmemop: the snapshot lacks the node or its setter"
all_match wmemop.replay 1 "$T/wmemop-window-1.sbt"
hw=$("$INFO" --dump "$T/wmemop-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/wholememop.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wmemop: the window's checkpoint $hw is not the whole run's $hf"

# ---- calls not modeled -----------------------------------------------------------------------
# a host node given another function (cuGraphHostNodeSetParams: the setters
# of host nodes are not modeled): counted in the exit report and by tsinfo
# (which names the call), its graph's launch refused by name
capture nhset --host-node --host-set
has nhset.cap err ", 1 graph or exec changed by calls not modeled"
"$INFO" --dump "$T/nhset.sbt" | grep -q 'cuda.tsGraphNotModeled .*name="cuGraphHostNodeSetParams"' ||
	fail "nhset: the setter is not recorded by name: $("$INFO" --dump "$T/nhset.sbt" | grep tsGraph)"
expect_rc 0 nhset.info "$INFO" "$T/nhset.sbt"
has nhset.info out "cuda graphs  1 graph or exec changed by calls not modeled (replay refuses their launches): cuGraphHostNodeSetParams=1"
expect_rc 0 nhset.infojson "$INFO" --json "$T/nhset.sbt"
has nhset.infojson out '"cuda_graphs_not_modeled":{"graphs":1,"calls":[{"name":"cuGraphHostNodeSetParams","records":1}]}'
expect_rc 0 graph.info "$INFO" "$T/graph.sbt"
if grep -q "cuda graphs" "$T/graph.info.out"; then fail "graph.info: $(cat "$T/graph.info.out")"; fi
expect_rc 0 graph.infojson "$INFO" --json "$T/graph.sbt"
has graph.infojson out '"cuda_graphs_not_modeled":{"graphs":0,"calls":[]}'
cs=$("$INFO" --dump "$T/nhset.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.tsGraphNotModeled .*/\1/p')
ls=$("$INFO" --dump "$T/nhset.sbt" | sed -n 's/^seq=\([0-9]*\) .* cuda\.cuGraphLaunch .*/\1/p' | head -n 1)
ex=$("$INFO" --dump "$T/nhset.sbt" | sed -n 's/^seq=[0-9]* .* cuda\.cuGraphLaunch handle=\([0-9]*\) .*/\1/p' | head -n 1)
ex=$(printf '0x%x' "$ex")
expect_rc 1 nhset.replay "$RP" "$T/nhset.sbt"
has nhset.replay err "tsreplay: backend cuda: record seq $ls (cuda.cuGraphLaunch): graph exec $ex cannot be replayed: it or its graph was changed by cuGraphHostNodeSetParams at seq $cs, which replay does not model; replay a --range that ends before seq $ls"
# what comes before the launch replays
expect_rc 0 nhset.range "$RP" --range ":$ls" "$T/nhset.sbt"
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
(cd "$T" && expect_rc 0 wn.cap "$CAP" --profiler -o "$T/wn.sbt" -- "$PROG" --window --host-node --host-set)
expect_rc 1 wn.replay "$RP" "$T/wn-window-1.sbt"
has wn.replay err "cannot be replayed: it or its graph was changed by cuGraphHostNodeSetParams at seq "
# the graph filled by capture before the window: the snapshot makes it,
# captures into it again, and the window's checkpoint is the whole run's
capture wholecto --window --capture-to --launches 3
(cd "$T" && expect_rc 0 wc.cap "$CAP" --profiler -o "$T/wc.sbt" -- "$PROG" --window --capture-to --launches 3)
cmp -s "$T/wholecto.plain.out" "$T/wc.cap.out" || fail "wc: the windowed run printed '$(cat "$T/wc.cap.out")'"
all_match wc.replay 1 "$T/wc-window-1.sbt"
hw=$("$INFO" --dump "$T/wc-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/wholecto.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wc: the window's checkpoint $hw is not the whole run's $hf"
before=$("$INFO" --dump "$T/wc-window-1.sbt" | awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }')
echo "$before" | grep -qE ' cuda\.cuStreamBeginCapture flags=2 parent=[0-9]+ stream=[0-9]+ deps=[0-9a-f]{16}( |$)' &&
	echo "$before" | grep -q ' cuda\.cuLaunchKernel .*name="vadd" .*capture_status=1' ||
	fail "wc: the snapshot lacks the capture into the graph: $before"
expect_rc 0 wc.sum "$TOP/$BUILD/tsexport" --summary "$T/wc-window-1.sbt"
# a child graph node (the child destroyed before the window), a clone (of
# which a node was found and set), a node disabled and a host node, all
# made before the window, and a host source changing inside it: the
# snapshot rebuilds them and the window's checkpoint is the whole run's
every="--child --child-get --clone --disable --host-node --host-src"
capture wholeall --window $every --launches 3
(cd "$T" && expect_rc 0 wa.cap "$CAP" --profiler -o "$T/wa.sbt" -- "$PROG" --window $every --launches 3)
cmp -s "$T/wholeall.plain.out" "$T/wa.cap.out" || fail "wa: the windowed run printed '$(cat "$T/wa.cap.out")'"
all_match wa.replay 1 "$T/wa-window-1.sbt"
all_match wa.det 1 --check-determinism --runs 3 "$T/wa-window-1.sbt"
hw=$("$INFO" --dump "$T/wa-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
# (the whole run's last checkpoint reads the embedded graph's buffer, after the window)
hf=$("$INFO" --dump "$T/wholeall.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 2 | sed -n 1p)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wa: the window's checkpoint $hw is not the whole run's $hf"
"$INFO" --dump "$T/wa-window-1.sbt" >"$T/wa.dump"
before=$(awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }' "$T/wa.dump")
for k in cuGraphAddChildGraphNode cuGraphClone cuGraphNodeFindInClone cuGraphNodeSetEnabled cuGraphAddHostNode \
	cuGraphChildGraphNodeGetGraph; do
	echo "$before" | grep -q " cuda\.$k " || fail "wa: the snapshot lacks $k"
done
# the embedded graph's nodes are kept with the graph holding it
eg=$(echo "$before" | sed -n 's/.* cuda\.cuGraphChildGraphNodeGetGraph handle=\([0-9]*\) .*/\1/p')
echo "$before" | grep -q " cuda\.cuGraphAddMemsetNode .*parent=$eg " || fail "wa: the snapshot lacks the embedded graph's memset node"
# the child graph, destroyed before the window, is rebuilt before the node copying it
cg=$(echo "$before" | sed -n 's/.* cuda\.cuGraphAddChildGraphNode handle=\([0-9]*\) .*/\1/p')
echo "$before" | grep -q " cuda\.cuGraphCreate handle=$cg\( \|\$\)" || fail "wa: the child graph $cg is not in the snapshot"
[ "$(grep -c ' cuda\.tsGraphHostSource ' "$T/wa.dump")" = 3 ] || fail "wa: not 3 host-source records in the window"
# the graph's nodes set before the window (kept with it), the exec's
# copies set inside it
capture wholeset --window --set-nodes --launches 3
(cd "$T" && expect_rc 0 ws.cap "$CAP" --profiler -o "$T/ws.sbt" -- "$PROG" --window --set-nodes --launches 3)
all_match ws.replay 1 "$T/ws-window-1.sbt"
hw=$("$INFO" --dump "$T/ws-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/wholeset.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "ws: the window's checkpoint $hw is not the whole run's $hf"
before=$("$INFO" --dump "$T/ws-window-1.sbt" | awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }')
for k in cuGraphMemsetNodeSetParams cuGraphMemcpyNodeSetParams cuGraphEventRecordNodeSetEvent \
	cuGraphEventWaitNodeSetEvent; do
	echo "$before" | grep -q " cuda\.$k " || fail "ws: the snapshot lacks $k"
done
# an exec updated before the window from a graph destroyed since: the
# snapshot rebuilds that graph and updates the exec again
capture wholeupd --window --update --host-src --launches 3
(cd "$T" && expect_rc 0 wu.cap "$CAP" --profiler -o "$T/wu.sbt" -- "$PROG" --window --update --host-src --launches 3)
all_match wu.replay 1 "$T/wu-window-1.sbt"
hw=$("$INFO" --dump "$T/wu-window-1.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p')
hf=$("$INFO" --dump "$T/wholeupd.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' | tail -n 1)
[ -n "$hw" ] && [ "$hw" = "$hf" ] || fail "wu: the window's checkpoint $hw is not the whole run's $hf"
before=$("$INFO" --dump "$T/wu-window-1.sbt" | awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }')
ug=$(echo "$before" | sed -n 's/.* cuda\.cuGraphExecUpdate handle=[0-9]* parent=\([0-9]*\).*/\1/p')
[ -n "$ug" ] && echo "$before" | grep -q " cuda\.cuGraphClone handle=$ug " ||
	fail "wu: the snapshot lacks the update or the graph it came from: $before"
# the graph that was both built and destroyed before the window, with
# nothing made from it still live, is not in the snapshot: the child
# graph of the --child run is kept only while its parent is
(cd "$T" && expect_rc 0 wd2.cap "$CAP" --profiler -o "$T/wd2.sbt" -- "$PROG" --window --child --launches 1)
all_match wd2.replay 1 "$T/wd2-window-1.sbt"
exit 0
