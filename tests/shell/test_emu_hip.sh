#!/bin/sh
# The emulator on HIP traces (docs/emulator.md "HIP"), captured from the
# hipcc-built programs of tests/hip on the libamdhip64 test double:
# - hip_race: add_offset writes x on one non-blocking stream, saxpy reads
#   it on another; with "racy" no event orders them: tsexport --races
#   reports the race naming both launches and their host stacks (exit 1),
#   and tsreplay --emulate too; with the event, no race; with "symbol",
#   two symbol copies of a __device__ array on the two streams overlap by
#   one element: a confirmed race at the shadow's range + the offsets;
#   with "symbol-apart" they do not overlap: none; with "ext-stop", the
#   module kernel hipExtModuleLaunchKernel runs on one stream is ordered
#   before the other stream's saxpy by its stop event, with "ext-start"
#   (waiting for its start event) they race;
# - the exports of the ordered run by content: a track per stream, the
#   event one flow (JSON, Perfetto) and one DOT edge, the memory counter,
#   the ASCII rows; the racy run has no flow;
# - hip_struct (a struct argument holding two device pointers, a symbol
#   copy, an event between two streams): race-free; with the event wait
#   dropped from its trace, the races of both of the struct's pointers
#   (the argument laid out by the code object's metadata) and no other;
# - hip_graph (a graph built by stream capture, launched twice): the
#   nodes of both launches, race-free;
# - hip_module (hipModuleLaunchKernel with kernelParams and with extra,
#   hipExtModuleLaunchKernel): every launch on the null stream, race-free.
# What landed in HIP's records (docs/emulator.md "HIP"):
# - contexts by the device the records carry (synthetic hip_ctx of
#   tests/support/emu_gen.c, clr's meaning: hipCtxCreate leaves the
#   current device, hipCtxPopCurrent too): no race, makespan 2000; the
#   double's hip_ctx on two devices: the copies after hipCtxPushCurrent on
#   device 0's null stream, the read after hipCtxSetCurrent on device 1's
#   (3 streams), ordered after device 1's blocking stream alone;
# - hip_spt: the _spt calls on the thread's per-thread stream (8 commands),
#   the event edge from the other stream's memset into it;
# - hip_capture_unseen: a capture begun where the interposer did not see it
#   starts at the stream's first capture_status=1 record: the launch runs
#   the memset and the copy (one edge), not one command;
# - hip_graph_edit: the graph as its edits left it (3 nodes, one edge);
# - hip_graph_nm: the exec instantiated before hip.tsGraphNotModeled runs
#   its memset node (the failed hipGraphAddChildGraphNode changed
#   nothing), the one instantiated after it is one command;
# - hip_graph_nodes child: the child graph node's nodes (memset, saxpy)
#   join each launch between the upload and the poke after the node
#   (8 commands a launch, 7 edges inside it; the node added to the child
#   later is not one of them).
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
RP="$TOP/$BUILD/tsreplay"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$GEN" ] || fail "no $GEN (make $BUILD/tests/programs/emu_gen_trace)"
expect_rc 0 gen.hip_ctx "$GEN" hip_ctx "$T/hip_ctx_syn.sbt"
expect_rc 0 hip_ctx_syn.sum "$X" --kernel-ns 1000 --summary "$T/hip_ctx_syn.sbt"
has hip_ctx_syn.sum out "commands: 4 on 3 streams, 2 dependencies (1 across streams)"
has hip_ctx_syn.sum out "makespan: 2000 ns"
expect_rc 0 hip_ctx_syn.r "$X" --races "$T/hip_ctx_syn.sbt"
has hip_ctx_syn.r out "races: 0 confirmed, 0 possible"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_race" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
# In a sanitizer build the double needs its runtime loaded first in the
# uninstrumented hipcc programs (as tests/shell/test_hip_replay.sh does).
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}

# py CODE FILE: runs python3 CODE with the parsed JSON of FILE as d.
py() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1" "$2" ||
		fail "the check '$1' failed on $2"
}

expect_rc 0 cap.ordered $PRE "$CAP" -o "$T/ordered.sbt" -- "$H/hip_race"
has cap.ordered out "y[3] 8.0"
expect_rc 0 cap.racy $PRE "$CAP" -o "$T/racy.sbt" -- "$H/hip_race" racy
expect_rc 0 cap.struct $PRE "$CAP" -o "$T/struct.sbt" -- "$H/hip_struct"
has cap.struct out "y[5] 11.5"
expect_rc 0 cap.graph $PRE "$CAP" -o "$T/graph.sbt" -- "$H/hip_graph"
has cap.graph out "h[3] 7.0 h[5] 9.0 h[8] 3.0"
expect_rc 0 cap.module $PRE "$CAP" -o "$T/module.sbt" -- "$H/hip_module" "$H/hip_module_kernels.hsaco"
has cap.module out "host[3] 13.0"

# ---- races --------------------------------------------------------------------
# the planted race: add_offset (stream 1) and saxpy (stream 2) both reach x,
# both named with their host stacks (main of the program)
expect_rc 1 racy.r "$X" --races "$T/racy.sbt"
has racy.r out "races: 0 confirmed, 1 possible"
grep -q '^  seq [0-9]* kernel _Z10add_offsetPffi on stream 0x[0-9a-f]* (non-blocking) reads and may write' "$T/racy.r.out" ||
	fail "the race report does not name add_offset: $(cat "$T/racy.r.out")"
grep -q '^  seq [0-9]* kernel _Z5saxpyifPKfPf on stream 0x[0-9a-f]* (non-blocking) reads and may write' "$T/racy.r.out" ||
	fail "the race report does not name saxpy: $(cat "$T/racy.r.out")"
[ "$(grep -c 'hip_race!main' "$T/racy.r.out")" = 2 ] ||
	fail "the race report lacks the two host stacks: $(cat "$T/racy.r.out")"
# both sides on x: the first hipMalloc's allocation, on two streams
expect_rc 1 racy.j "$X" --races --json "$T/racy.sbt"
py "r=d['races']; assert (r['confirmed'],r['possible'])==(0,1), r; x=r['list'][0]; f,s=x['first'],x['second']; assert {f['name'],s['name']}=={'_Z10add_offsetPffi','_Z5saxpyifPKfPf'}, x; assert f['allocation_seq']==s['allocation_seq'] and f['allocation_size']==1024, x; assert f['stream']!=s['stream'], x" "$T/racy.j.out"
expect_rc 1 racy.emu "$RP" --emulate "$T/racy.sbt"
has racy.emu out "races: 0 confirmed, 1 possible"
# the event orders them
expect_rc 0 ordered.r "$X" --races "$T/ordered.sbt"
has ordered.r out "races: 0 confirmed, 0 possible"
expect_rc 0 ordered.emu "$RP" --emulate "$T/ordered.sbt"
# hip_struct: the event between its streams, the symbol copy on its own global
expect_rc 0 struct.r "$X" --races "$T/struct.sbt"
has struct.r out "races: 0 confirmed, 0 possible"
# hip_struct with its hipStreamWaitEvent dropped from the trace: the
# struct's two pointers (x and y, found in the by-value argument the
# metadata lays out) both race with the first stream's work: the memset
# of y against the kernel and the readback (confirmed), fill's x against
# the kernel (possible)
"$TOP/$BUILD/tsinfo" --dump "$T/struct.sbt" >"$T/struct.dump" || fail "tsinfo --dump struct.sbt"
w=$(grep ' hip\.hipStreamWaitEvent ' "$T/struct.dump" | sed -n 's/^seq=\([0-9]*\) .*/\1/p')
[ -n "$w" ] || fail "struct: no hipStreamWaitEvent record"
expect_rc 0 mut "$TOP/$BUILD/tests/sbt_mutate" "$T/struct.sbt" "$T/struct_nowait.sbt" --drop "$w"
expect_rc 1 nowait.r "$X" --races "$T/struct_nowait.sbt"
has nowait.r out "races: 2 confirmed, 1 possible"
pairs=$(grep '^  seq' "$T/nowait.r.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .* made at seq \([0-9]*\))$/\1@\2/' | paste -d" " - - | LC_ALL=C sort | tr '\n' ';')
x=$(grep ' hip\.hipMalloc ' "$T/struct.dump" | sed -n '1s/^seq=\([0-9]*\) .*/\1/p')
y=$(grep ' hip\.hipMalloc ' "$T/struct.dump" | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
[ "$pairs" = "_Z4fillPddi@$x _Z11axpy_struct9axpy_argsi@$x;hipMemsetAsync@$y _Z11axpy_struct9axpy_argsi@$y;hipMemsetAsync@$y hipMemcpyAsync@$y;" ] ||
	fail "struct without the wait: race pairs '$pairs' (x at seq $x, y at seq $y): $(grep -v '      #' "$T/nowait.r.out")"
# symbol copies: hipMemcpyToSymbolAsync writing elements 1-2 of a
# __device__ array on one stream, hipMemcpyFromSymbolAsync reading 2-3 on
# the other, nothing between them: a confirmed race at the host shadow's
# range (what __hipRegisterVar registered) + each copy's offset; reading
# 3-4 instead, none
expect_rc 0 cap.symbol $PRE "$CAP" -o "$T/symbol.sbt" -- "$H/hip_race" symbol
expect_rc 0 cap.apart $PRE "$CAP" -o "$T/apart.sbt" -- "$H/hip_race" symbol-apart
expect_rc 1 symbol.r "$X" --races "$T/symbol.sbt"
has symbol.r out "races: 1 confirmed, 0 possible"
base=$("$TOP/$BUILD/tsinfo" --dump "$T/symbol.sbt" | sed -n 's/.* hip\.__hipRegisterVar .*name="table" .*host=\([0-9]*\).*/\1/p')
[ -n "$base" ] || fail "symbol: no __hipRegisterVar of table"
has symbol.r out "hipMemcpyToSymbolAsync on stream"
has symbol.r out "(non-blocking) writes 0x$(printf %x $((base + 4)))..0x$(printf %x $((base + 12))) (allocation of 32 bytes"
has symbol.r out "hipMemcpyFromSymbolAsync on stream"
has symbol.r out "(non-blocking) reads 0x$(printf %x $((base + 8)))..0x$(printf %x $((base + 16))) (allocation of 32 bytes"
expect_rc 0 apart.r "$X" --races "$T/apart.sbt"
has apart.r out "races: 0 confirmed, 0 possible"
# hipExtModuleLaunchKernel's start and stop events: scale (from the
# module) writes x on stream 1; stream 2 waits for the stop event (saxpy
# after scale: no race) or for the start event (recorded before scale:
# scale and saxpy race on x)
for m in ext-stop ext-start; do
	expect_rc 0 "cap.$m" $PRE "$CAP" -o "$T/$m.sbt" -- "$H/hip_race" $m "$H/hip_module_kernels.hsaco"
	has "cap.$m" out "hipExtModuleLaunchKernel 0"
done
expect_rc 0 extstop.r "$X" --races "$T/ext-stop.sbt"
has extstop.r out "races: 0 confirmed, 0 possible"
expect_rc 0 extstop.sum "$X" --summary "$T/ext-stop.sbt"
has extstop.sum out "commands: 6 on 3 streams, 7 dependencies (4 across streams)"
expect_rc 1 extstart.r "$X" --races "$T/ext-start.sbt"
has extstart.r out "races: 0 confirmed, 1 possible"
grep -q '^  seq [0-9]* kernel scale on stream 0x[0-9a-f]* (non-blocking) reads and may write' "$T/extstart.r.out" ||
	fail "the race report does not name scale: $(cat "$T/extstart.r.out")"
grep -q '^  seq [0-9]* kernel _Z5saxpyifPKfPf on stream' "$T/extstart.r.out" ||
	fail "the race report does not name saxpy: $(cat "$T/extstart.r.out")"
expect_rc 0 graph.r "$X" --races "$T/graph.sbt"
has graph.r out "races: 0 confirmed, 0 possible"

# ---- summary ------------------------------------------------------------------
# hip_race: the upload (null stream), memset, saxpy and readback (stream 2),
# add_offset (stream 1); across streams the host's wait for the synchronous
# upload (before add_offset and before the memset) and, ordered, the event
expect_rc 0 ordered.sum "$X" --summary "$T/ordered.sbt"
has ordered.sum out "commands: 5 on 3 streams, 5 dependencies (3 across streams)"
has ordered.sum out "critical path: 30080 ns, 4 commands"
expect_rc 0 racy.sum "$X" --summary "$T/racy.sbt"
has racy.sum out "commands: 5 on 3 streams, 4 dependencies (2 across streams)"
# hip_graph: the memset, two launches of three nodes, the readback
expect_rc 0 graph.sum "$X" --summary "$T/graph.sbt"
has graph.sum out "commands: 8 on 2 streams"
# hip_module: the upload, hipModuleLaunchKernel with kernelParams and with
# extra, hipExtModuleLaunchKernel, the readback, all on the null stream
expect_rc 0 module.sum "$X" --summary "$T/module.sbt"
has module.sum out "commands: 5 on 1 streams, 4 dependencies (0 across streams)"
[ "$(grep '^  seq' "$T/module.sum.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) on null stream: .*/\1/' | tr '\n' ' ')" = \
	"hipMemcpyHtoD scale _Z10add_offsetPffi scale hipMemcpyDtoH " ] || fail "module: $(cat "$T/module.sum.out")"
expect_rc 0 module.r "$X" --races "$T/module.sbt"
has module.r out "races: 0 confirmed, 0 possible"

# ---- JSON ---------------------------------------------------------------------
ev='e=d["traceEvents"]; ph=lambda p: [x for x in e if x["ph"]==p]; tracks=[x for x in ph("M") if x["name"]=="thread_name"]; names=sorted(t["args"]["name"] for t in tracks); X=ph("X"); at={(x["tid"],x["ts"]):x["name"] for x in X}; fl=sorted((at[(a["tid"],a["ts"])],at[(b["tid"],b["ts"])]) for a in ph("s") for b in ph("f") if a["id"]==b["id"])'
expect_rc 0 ordered.json "$X" -f json -o "$T/ordered.json" "$T/ordered.sbt"
# three tracks: the null stream and the two non-blocking streams; five
# slices; three flows: the upload to add_offset and to the memset (the host
# waited for it), the event from add_offset to saxpy; the memory counter
# reaches the two 1024-byte buffers and the 32-byte __device__ table (a
# HIP global, counted as tsinfo --memory counts it: test_emu_memory.sh)
py "$ev; assert len(tracks)==3 and names[0]=='null stream' and all(n.startswith('stream 0x') and n.endswith('(non-blocking)') for n in names[1:]), names; assert sorted(x['name'] for x in X)==sorted(['hipMemcpy','hipMemsetAsync','_Z10add_offsetPffi','_Z5saxpyifPKfPf','hipMemcpyAsync']), X; cat={x['name']:x['cat'] for x in X}; assert (cat['hipMemcpy'],cat['hipMemsetAsync'],cat['_Z5saxpyifPKfPf'],cat['hipMemcpyAsync'])==('copy_h2d','memset','kernel','copy_d2h'), cat; assert fl==[('_Z10add_offsetPffi','_Z5saxpyifPKfPf'),('hipMemcpy','_Z10add_offsetPffi'),('hipMemcpy','hipMemsetAsync')], fl; tid={x['name']:x['tid'] for x in X}; assert tid['_Z10add_offsetPffi']!=tid['_Z5saxpyifPKfPf']==tid['hipMemcpyAsync'], tid; c=ph('C'); assert c and max(x['args']['device'] for x in c)==2048+32, c" "$T/ordered.json"
expect_rc 0 racy.json "$X" -f json -o "$T/racy.json" "$T/racy.sbt"
# the same tracks, without the event's flow
py "$ev; assert len(tracks)==3, names; assert fl==[('hipMemcpy','_Z10add_offsetPffi'),('hipMemcpy','hipMemsetAsync')], fl" "$T/racy.json"
expect_rc 0 graph.json "$X" -f json -o "$T/graph.json" "$T/graph.sbt"
# the graph's nodes (two pokes and a memset) once per launch, on the stream
py "$ev; assert [x['name'] for x in X].count('_Z4pokePfxf')==4, X; assert [x['name'] for x in X].count('hipMemsetAsync')==3, X" "$T/graph.json"

# ---- Perfetto protobuf --------------------------------------------------------
pfpy='import re,sys; t=open(sys.argv[1]).read(); P=t.split("packet {")[1:]; g=lambda k,b: (re.findall(r"^    "+k+r": (.+)$", b, re.M) or [None])[0]; D={int(g("uuid",b)): g("name",b) for b in P if "track_descriptor" in b}; N={i: chr(34)+n+chr(34) for i,n in re.findall(r"event_names \{\s*iid: (\d+)\s*name: \"(.*?)\"", t)}; E=[(int(g("track_uuid",b)), g("type",b), len(re.findall("\n *flow_ids",b)), len(re.findall("terminating_flow_ids",b)), g("name",b) or N.get(g("name_iid",b))) for b in P if "track_event" in b]'
if command -v protoc >/dev/null 2>&1 && "$X" -f perfetto -o "$T/probe.pt" "$T/ordered.sbt" 2>/dev/null; then
	expect_rc 0 ordered.pf "$X" -f perfetto -o "$T/ordered.perfetto-trace" "$T/ordered.sbt"
	protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
		"$TOP/emulator/proto/perfetto_trace.proto" <"$T/ordered.perfetto-trace" >"$T/ordered.txt" ||
		fail "protoc cannot decode ordered.perfetto-trace"
	# the three stream tracks; five slices; three flows, out of the upload
	# (two) and add_offset, into add_offset, the memset and saxpy
	python3 -c "$pfpy
q=chr(34)
S=sorted(n for n in D.values() if n and (n.startswith(q+'stream') or n==q+'null stream'+q)); assert len(S)==3 and S[0]==q+'null stream'+q, D
B=[e for e in E if e[1]=='TYPE_SLICE_BEGIN']; assert len(B)==5, E
o={e[4].strip(q):e[2] for e in B}; i={e[4].strip(q):e[3] for e in B}
assert (o['hipMemcpy'],o['_Z10add_offsetPffi'],sum(o.values()))==(2,1,3), B
assert (i['_Z10add_offsetPffi'],i['hipMemsetAsync'],i['_Z5saxpyifPKfPf'],sum(i.values()))==(1,1,1,3), B" "$T/ordered.txt" ||
		fail "ordered.perfetto-trace: $(head -c 3000 "$T/ordered.txt")"
else
	echo "no protoc or no protobuf-c build: the Perfetto export is not checked"
fi

# ---- DOT and ASCII --------------------------------------------------------------
expect_rc 0 ordered.dot "$X" -f dot -o "$T/ordered.dot" "$T/ordered.sbt"
[ "$(grep -c 'label="event"' "$T/ordered.dot")" = 1 ] || fail "ordered.dot: not 1 event edge: $(cat "$T/ordered.dot")"
[ "$(grep -c 'subgraph cluster_' "$T/ordered.dot")" = 3 ] || fail "ordered.dot: not 3 stream clusters"
expect_rc 0 racy.dot "$X" -f dot -o "$T/racy.dot" "$T/racy.sbt"
[ "$(grep -c 'label="event"' "$T/racy.dot")" = 0 ] || fail "racy.dot: an event edge: $(cat "$T/racy.dot")"
if command -v dot >/dev/null 2>&1; then
	dot -Tsvg "$T/ordered.dot" -o "$T/ordered.svg" || fail "graphviz refused ordered.dot"
fi
expect_rc 0 ordered.ascii "$X" -f ascii --width 40 "$T/ordered.sbt"
has ordered.ascii out "null stream"
grep -q '(non-blocking) *[.K]*K[.K]*$' "$T/ordered.ascii.out" || fail "ordered ascii: $(cat "$T/ordered.ascii.out")"
grep -q '^null stream *H' "$T/ordered.ascii.out" || fail "ordered ascii: $(cat "$T/ordered.ascii.out")"
# ---- contexts, per-thread streams, captures begun unseen, graph edits -------------
# dot_edges DOT: its edges as "seq A>seq B attributes", one per line
dot_edges() {
	python3 -c "
import re, sys
t = open(sys.argv[1]).read()
lab = dict(re.findall(r'(n[0-9]+) \[label=\"(seq [0-9]*)', t))
for a, b, at in re.findall(r'(n[0-9]+) -> (n[0-9]+) \[([^]]*)\]', t):
    print('%s>%s %s' % (lab[a], lab[b], at))
" "$1" | sort
}
# seq_of TRACE NAME [N]: the seq of the Nth record named hip.NAME
seq_of() {
	"$TOP/$BUILD/tsinfo" --dump "$1" | awk -v n="hip.$2" -v k="${3:-1}" '$4 == n && ++i == k { sub("seq=", "", $1); print $1 }'
}
expect_rc 0 cap.ctx env TSHIP_DOUBLE_DEVICES=2 $PRE "$CAP" -o "$T/ctx.sbt" -- "$H/hip_ctx"
expect_rc 0 ctx.sum "$X" --summary "$T/ctx.sbt"
has ctx.sum out "commands: 5 on 3 streams"
expect_rc 0 ctx.dot "$X" -f dot -o "$T/ctx.dot" "$T/ctx.sbt"
m1=$(seq_of "$T/ctx.sbt" hipMemsetAsync 1) m2=$(seq_of "$T/ctx.sbt" hipMemsetAsync 2)
up=$(seq_of "$T/ctx.sbt" hipMemcpy 1) rd=$(seq_of "$T/ctx.sbt" hipMemcpy 3)
[ -n "$m1" ] && [ -n "$m2" ] && [ -n "$up" ] && [ -n "$rd" ] || fail "ctx.sbt: not the records hip_ctx makes"
e=$(dot_edges "$T/ctx.dot")
echo "$e" | grep -q "^seq $m2>seq $rd .*legacy stream" || fail "ctx.dot: the read does not follow device 1's stream: $e"
echo "$e" | grep -q "^seq $m1>seq $up .*legacy stream" && fail "ctx.dot: device 0's null stream follows device 1's stream: $e"
[ "$(echo "$e" | grep -c 'legacy stream')" = 1 ] || fail "ctx.dot: not one legacy stream edge: $e"

expect_rc 0 cap.spt $PRE "$CAP" -o "$T/spt.sbt" -- "$H/hip_spt"
expect_rc 0 spt.dot "$X" -f dot -o "$T/spt.dot" "$T/spt.sbt"
python3 -c "
import re, sys
t = open(sys.argv[1]).read()
cl = re.findall(r'label=\"(per-thread default stream \(thread [0-9]+\))\";((?:\s*n[0-9]+ \[label=[^\n]*)*)', t)
assert len(cl) == 1 and cl[0][1].count('[label=') == 8, cl
assert t.count('label=\"event\"') == 1, t
" "$T/spt.dot" || fail "spt.dot: not 8 commands on one per-thread stream and the event: $(cat "$T/spt.dot")"
expect_rc 0 spt.r "$X" --races "$T/spt.sbt"
has spt.r out "races: 0 confirmed, 0 possible"

expect_rc 0 cap.unseen $PRE "$CAP" -o "$T/unseen.sbt" -- "$H/hip_capture_unseen"
expect_rc 0 unseen.sum "$X" --summary "$T/unseen.sbt"
has unseen.sum out "commands: 4 on 2 streams"
expect_rc 0 unseen.dot "$X" -f dot -o "$T/unseen.dot" "$T/unseen.sbt"
grep -q 'graph 0x' "$T/unseen.dot" && fail "unseen.dot: the launch is one command: $(cat "$T/unseen.dot")"
[ "$(grep -c 'style=bold' "$T/unseen.dot")" = 1 ] || fail "unseen.dot: not the edge memset -> copy: $(cat "$T/unseen.dot")"

expect_rc 0 cap.edit $PRE "$CAP" -o "$T/edit.sbt" -- "$H/hip_graph_edit"
expect_rc 0 edit.sum "$X" --summary "$T/edit.sbt"
has edit.sum out "commands: 6 on 1 streams"
expect_rc 0 edit.dot "$X" -f dot -o "$T/edit.dot" "$T/edit.sbt"
[ "$(grep -c 'style=bold' "$T/edit.dot")" = 1 ] || fail "edit.dot: not one edge inside the graph: $(cat "$T/edit.dot")"
expect_rc 0 edit.r "$X" --races "$T/edit.sbt"

expect_rc 0 cap.nm $PRE "$CAP" -o "$T/nm.sbt" -- "$H/hip_graph_nm"
expect_rc 0 nm.dot "$X" -f dot -o "$T/nm.dot" "$T/nm.sbt"
[ "$(grep -c 'memset hipGraphAddMemsetNode' "$T/nm.dot")" = 1 ] && [ "$(grep -c 'graph 0x' "$T/nm.dot")" = 1 ] ||
	fail "nm.dot: not the first launch's node and the second one command: $(cat "$T/nm.dot")"
expect_rc 0 cap.child $PRE "$CAP" -o "$T/child.sbt" -- "$H/hip_graph_nodes" child
expect_rc 0 child.sum "$X" --summary "$T/child.sbt"
has child.sum out "commands: 31 on 2 streams"
expect_rc 0 child.dot "$X" -f dot -o "$T/child.dot" "$T/child.sbt"
l1=$(seq_of "$T/child.sbt" hipGraphLaunch 1)
[ -n "$l1" ] || fail "child.sbt: no graph launch"
python3 -c "
import re, sys
t = open(sys.argv[1]).read()
lab = dict((n, l.replace(chr(92) + 'n', ' ')) for n, l in re.findall(r'(n[0-9]+) \[label=\"(seq [0-9]*\\\\n[^\"]*)', t))
pre = 'seq %s ' % sys.argv[2]
e = sorted('%s>%s' % (lab[a][len(pre):], lab[b][len(pre):]) for a, b, at in re.findall(r'(n[0-9]+) -> (n[0-9]+) \[([^]]*)\]', t)
           if lab.get(a, '').startswith(pre) and lab.get(b, '').startswith(pre))
assert sum(1 for l in lab.values() if l.startswith(pre)) == 8, lab
k, m, h, p, s = 'kernel _Z5saxpyifPKfPf', 'memset hipGraphAddMemsetNode', 'copy_h2d hipGraphAddMemcpyNode1D', 'kernel _Z4pokePfxf', 'copy_d2d hipGraphAddMemcpyNode'
want = sorted([h + '>' + k, m + '>' + k, k + '>' + p, p + '>' + s, h + '>' + m, m + '>' + k, k + '>' + p])
assert e == want, e
" "$T/child.dot" "$l1" || fail "child.dot: not the child's nodes between the upload and the poke: $(cat "$T/child.dot")"
echo "emulator on HIP: ok"
