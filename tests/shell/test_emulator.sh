#!/bin/sh
# tsexport and the emulator behind it (docs/emulator.md):
# - synthetic traces (tests/programs/emu_gen_trace): the exports checked by
#   content: tracks per stream, slices on an extra lane where a graph's
#   branches overlap, one flow per cross-stream dependency, the memory
#   counter, the DOT graph's edges (rendered by graphviz when installed),
#   the terminal timeline's rows; --summary's numbers;
# - the CUDA double: a planted cross-stream race (a kernel writing a buffer
#   on one non-blocking stream, a copy reading it on another, no event)
#   flagged with both commands named (exit 1), confirmed with keyframes
#   around every launch; clean with the event; two unordered readers never
#   a confirmed race; the shared driver-API workload race-free, and with
#   --racy exactly the pairs it plants; a stream-captured graph expanded
#   into its nodes;
# - the H100 traces of tests/fixtures/h100 (the team's ../shared/gpu-fixtures,
#   copied unchanged): summary, timeline, JSON, Perfetto and graph without
#   errors (nothing on standard error), each export holding every command
#   on a track per stream, and no race (the programs synchronize properly);
# - option errors, a trace that is not CUDA.
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"

# py CODE FILE: runs python3 CODE with the parsed JSON of FILE as d.
py() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1" "$2" ||
		fail "the check '$1' failed on $2"
}

for s in fork graph copies race race_kf devices; do
	"$GEN" $s "$T/$s.sbt" || fail "emu_gen_trace $s"
done

# ---- summary ----------------------------------------------------------------
expect_rc 0 fork.sum "$X" --kernel-ns 1000 "$T/fork.sbt"
has fork.sum out "commands: 4 on 2 streams, 4 dependencies (2 across streams)"
has fork.sum out "makespan: 3000 ns"
has fork.sum out "critical path: 3000 ns, 3 commands"
has fork.sum out "max concurrency: 2 at 1000 ns"
has fork.sum out "engine 0 (compute 0): busy 3000 ns, utilisation 100.0%"
has fork.sum out "engine 1 (compute 1): busy 1000 ns, utilisation 33.3%"
expect_rc 0 fork.one "$X" --kernel-ns 1000 --compute-engines 1 "$T/fork.sbt"
has fork.one out "makespan: 4000 ns"
has fork.one out "max concurrency: 1 at"

# ---- JSON ---------------------------------------------------------------------
expect_rc 0 fork.json "$X" -f json --kernel-ns 1000 -o "$T/fork.json" "$T/fork.sbt"
ev='e=d["traceEvents"]; ph=lambda p: [x for x in e if x["ph"]==p]; tracks=[x for x in ph("M") if x["name"]=="thread_name"]'
# two streams, two tracks; four slices; K2 and K4 wait across streams: two flows
py "$ev; assert len(tracks)==2, tracks; assert len(ph('X'))==4; s=ph('s'); f=ph('f'); assert len(s)==2 and len(f)==2, (s,f); assert sorted(x['id'] for x in s)==sorted(x['id'] for x in f)" "$T/fork.json"
# each flow ends on the track of the command that waited (K2 on s2, K4 on s1)
py "$ev; X=ph('X'); name={(x['tid'],x['ts']):x['name'] for x in X}; ends=sorted(name[(x['tid'],x['ts'])] for x in ph('f')); assert ends==['K2','K4'], ends" "$T/fork.json"
# the memory counter reaches the two 4096-byte buffers
py "$ev; c=ph('C'); assert c and max(x['args']['device'] for x in c)==8192, c" "$T/fork.json"
expect_rc 0 graph.json "$X" -f json --kernel-ns 1000 -o "$T/graph.json" "$T/graph.sbt"
# one stream ran the graph twice: its track and one overlap lane, holding
# one of the two parallel branches of each launch; no cross-stream flow
py "$ev; assert len(tracks)==2, tracks; lane=[t['tid'] for t in tracks if '(overlap 1)' in t['args']['name']]; assert len(lane)==1, tracks; X=ph('X'); assert len(X)==6; on=[x for x in X if x['tid']==lane[0]]; assert len(on)==2 and all(x['name'] in ('Kb','Kc') for x in on), on; assert not ph('s')" "$T/graph.json"
# two devices: a process each; device 0 has s1 and its legacy stream,
# device 1 s2 and its own legacy stream; the only dependency: K0 (device 0's
# legacy stream) before K1 (its blocking s1), none to device 1's K3
expect_rc 0 devices.json "$X" -f json -o "$T/devices.json" "$T/devices.sbt"
expect_rc 0 devices.sum "$X" "$T/devices.sbt"
has devices.sum out "commands: 4 on 4 streams, 1 dependencies (1 across streams)"
py "$ev; p=sorted((x['pid'],x['args']['name']) for x in ph('M') if x['name']=='process_name'); assert p==[(1,'GPU 0 (emulated)'),(2,'GPU 1 (emulated)')], p; per={}; [per.setdefault(t['pid'],[]).append(t['args']['name']) for t in tracks]; assert sorted(per[1])==['legacy default stream','stream 0x100'] and sorted(per[2])==['legacy default stream','stream 0x200 (non-blocking)'], per; k={x['name']:x['pid'] for x in ph('X')}; assert k=={'K0':1,'K1':1,'K2':2,'K3':2}, k" "$T/devices.json"

# ---- Perfetto protobuf --------------------------------------------------------
# decoded with protoc and the schema subset; checked like the JSON
# pf FILE.sbt NAME: exports NAME.perfetto-trace and decodes it to NAME.txt
pf() {
	expect_rc 0 "$2.pf" "$X" -f perfetto --kernel-ns 1000 -o "$T/$2.perfetto-trace" "$1"
	protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
		"$TOP/emulator/proto/perfetto_trace.proto" <"$T/$2.perfetto-trace" >"$T/$2.txt" ||
		fail "protoc cannot decode $2.perfetto-trace"
}
# the decoded text's tracks D (uuid: name) and events E (track uuid, type,
# flows out, flows in, name): fields of the packet's message, 4 spaces in;
# names sent interned (name_iid) are looked up in the event_names N
pfpy='import re,sys; t=open(sys.argv[1]).read(); P=t.split("packet {")[1:]; g=lambda k,b: (re.findall(r"^    "+k+r": (.+)$", b, re.M) or [None])[0]; D={int(g("uuid",b)): g("name",b) for b in P if "track_descriptor" in b}; N={i: chr(34)+n+chr(34) for i,n in re.findall(r"event_names \{\s*iid: (\d+)\s*name: \"(.*?)\"", t)}; E=[(int(g("track_uuid",b)), g("type",b), len(re.findall("\n *flow_ids",b)), len(re.findall("terminating_flow_ids",b)), g("name",b) or N.get(g("name_iid",b))) for b in P if "track_event" in b]'
if command -v protoc >/dev/null 2>&1 && "$X" -f perfetto -o "$T/probe.pt" "$T/fork.sbt" 2>/dev/null; then
	pf "$T/fork.sbt" fork
	# two stream tracks (+ the device and two memory counters); four slices;
	# two flows out of K1 and K2, ending on K2 and K4; the host thread that
	# issued them with one instant per slice, named alike
	python3 -c "$pfpy
streams=[n for n in D.values() if n and n.startswith('\"stream')]; assert len(streams)==2, D
B=[e for e in E if e[1]=='TYPE_SLICE_BEGIN']; assert len(B)==4 and len([e for e in E if e[1]=='TYPE_SLICE_END'])==4, E
assert sum(e[2] for e in B)==2 and sum(e[3] for e in B)==2, B
assert sorted(e[4] for e in B if e[3])==['\"K2\"','\"K4\"'], B
C=[e for e in E if e[1]=='TYPE_COUNTER']; assert C, E
I=[e for e in E if e[1]=='TYPE_INSTANT']; assert len(I)==4 and sorted(e[4] for e in I)==sorted(e[4] for e in B), I
H=re.findall(r'thread_name: \"host thread [0-9]+\"', t); assert len(H)>=1 and all(e[0] in D for e in I), (H, D)" "$T/fork.txt" || fail "fork.perfetto-trace: $(head -c 3000 "$T/fork.txt")"
	pf "$T/graph.sbt" graph
	# the overlap lane holds one branch of each launch
	python3 -c "$pfpy
lane=[u for u,n in D.items() if n and '(overlap 1)' in n]; assert len(lane)==1, D
on=[e for e in E if e[0]==lane[0] and e[1]=='TYPE_SLICE_BEGIN']; assert len(on)==2 and all(e[4] in ('\"Kb\"','\"Kc\"') for e in on), on" "$T/graph.txt" ||
		fail "graph.perfetto-trace: $(head -c 3000 "$T/graph.txt")"
	grep -q 'name: "stack"' "$T/graph.txt" || fail "graph.perfetto-trace: no host stacks"
else
	echo "no protoc or no protobuf-c build: the Perfetto export is not checked"
fi

# ---- DOT --------------------------------------------------------------------
expect_rc 0 fork.dot "$X" -f dot -o "$T/fork.dot" "$T/fork.sbt"
[ "$(grep -c -- ' -> ' "$T/fork.dot")" = 4 ] || fail "fork.dot: not 4 edges: $(cat "$T/fork.dot")"
[ "$(grep -c 'label="event"' "$T/fork.dot")" = 2 ] || fail "fork.dot: not 2 event edges"
grep -q 'subgraph cluster_' "$T/fork.dot" || fail "fork.dot: no stream clusters"
expect_rc 0 graph.dot "$X" -f dot -o "$T/graph.dot" "$T/graph.sbt"
# Ka->Kb, Ka->Kc in each launch, the second launch's Ka after both branches
[ "$(grep -c -- ' -> ' "$T/graph.dot")" = 6 ] || fail "graph.dot: not 6 edges: $(cat "$T/graph.dot")"
if command -v dot >/dev/null 2>&1; then
	for g in fork graph; do
		dot -Tsvg "$T/$g.dot" -o "$T/$g.svg" || fail "graphviz refused $g.dot"
		n=$(grep -c 'class="node"' "$T/$g.svg")
		[ "$n" = "$(grep -c '\[label="seq' "$T/$g.dot")" ] || fail "$g.svg: $n nodes drawn"
	done
else
	echo "graphviz not installed: the DOT files are checked by text only"
fi

# ---- ASCII ------------------------------------------------------------------
expect_rc 0 fork.ascii "$X" -f ascii --width 30 --kernel-ns 1000 "$T/fork.sbt"
has fork.ascii out "stream 0x100 (non-blocking)"
has fork.ascii out "stream 0x200 (non-blocking)"
# K1 K3 K4 back to back on s1 (the whole width); K2 the middle third of s2
grep -q 'stream 0x100 (non-blocking) *K\{30\}$' "$T/fork.ascii.out" || fail "fork ascii: $(cat "$T/fork.ascii.out")"
grep -q 'stream 0x200 (non-blocking) *\.\{10\}K\{10\}\.\{10\}$' "$T/fork.ascii.out" ||
	fail "fork ascii: $(cat "$T/fork.ascii.out")"

# ---- races on synthetic traces ------------------------------------------------
expect_rc 1 race.r "$X" --races "$T/race.sbt"
has race.r out "races: 0 confirmed, 1 possible"
# --json: the summary and the race list in one object
expect_rc 0 fork.j "$X" --json --kernel-ns 1000 "$T/fork.sbt"
py "s=d['summary']; assert (s['makespan_ns'],s['critical_ns'],s['max_concurrency'],s['cross_stream'])==(3000,3000,2,2), s; assert [c['name'] for c in s['critical_path']]==['K1','K3','K4'], s; assert [e['busy_ns'] for e in s['engines']]==[3000,1000,0,0,0,0], s" "$T/fork.j.out"
expect_rc 1 racekf.j "$X" --json --races "$T/race_kf.sbt"
py "r=d['races']; assert (r['confirmed'],r['possible'])==(1,0), r; x=r['list'][0]; assert x['verdict']=='confirmed' and x['first']['name']=='fill' and x['first']['access']=='writes' and x['second']['name']=='cuMemcpyDtoHAsync' and x['second']['access']=='reads', x; assert x['first']['stack'][0]['symbol']=='emu_gen!seq%d' % x['first']['seq'], x; assert 'summary' not in d" "$T/racekf.j.out"
expect_rc 0 fork.r "$X" --races "$T/fork.sbt"
has fork.r out "races: 0 confirmed, 0 possible"

# ---- the CUDA double ------------------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
if [ -e "$DBL/libcuda.so.1" ] && [ -x "$TOP/$BUILD/tests/cuda/cuda_race_app" ]; then
	unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
		TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
		TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
	cuda_window
	export TSCUDA_DOUBLE_QUIET=1
	export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	CAP="$TOP/$BUILD/tscapture"
	APP="$TOP/$BUILD/tests/cuda/cuda_race_app"
	# (TSCUDA_DOUBLE_RACY=1: --mode race and --racy race on purpose; under
	# make tsan the double then hides its workers' accesses from
	# ThreadSanitizer, docs/cuda-double.md)
	for m in race event readers; do
		racy=
		[ "$m" != race ] || racy="env TSCUDA_DOUBLE_RACY=1"
		expect_rc 0 "cap.$m" $racy "$CAP" -o "$T/app_$m.sbt" -- "$APP" --mode $m
		TRACESMITH_SNAPSHOT=launch expect_rc 0 "capkf.$m" $racy "$CAP" -o "$T/appkf_$m.sbt" -- "$APP" --mode $m
	done
	# the planted race: fill on one stream, the copy reading its buffer on
	# the other, both named with their host stacks (main of the program)
	expect_rc 1 app.race "$X" --races "$T/app_race.sbt"
	has app.race out "races: 0 confirmed, 1 possible"
	grep -q '^  seq [0-9]* kernel fill on stream 0x[0-9a-f]* (non-blocking) reads and may write' "$T/app.race.out" ||
		fail "the race report does not name the launch: $(cat "$T/app.race.out")"
	grep -q '^  seq [0-9]* copy_d2h cuMemcpyDtoHAsync on stream 0x[0-9a-f]* (non-blocking) reads' "$T/app.race.out" ||
		fail "the race report does not name the copy: $(cat "$T/app.race.out")"
	[ "$(grep -c 'cuda_race_app!main' "$T/app.race.out")" = 2 ] ||
		fail "the race report lacks the two host stacks: $(cat "$T/app.race.out")"
	# with keyframes around the launch the write is proven
	expect_rc 1 appkf.race "$X" --races "$T/appkf_race.sbt"
	has appkf.race out "races: 1 confirmed, 0 possible"
	grep -q 'kernel fill on .* writes 0x' "$T/appkf.race.out" || fail "no proven write: $(cat "$T/appkf.race.out")"
	# the event orders them
	expect_rc 0 app.event "$X" --races "$T/app_event.sbt"
	has app.event out "races: 0 confirmed, 0 possible"
	expect_rc 0 appkf.event "$X" --races "$T/appkf_event.sbt"
	# two readers of A and B: never confirmed; with keyframes not even possible
	expect_rc 1 app.readers "$X" --races "$T/app_readers.sbt"
	has app.readers out "races: 0 confirmed,"
	expect_rc 0 appkf.readers "$X" --races "$T/appkf_readers.sbt"
	has appkf.readers out "races: 0 confirmed, 0 possible"
	# the shared driver-API workload (tests/cuda/cuprog.h): properly ordered,
	# no race; with --racy (events left out, non-commuting kernels on two
	# streams) every pair its comment plants, and nothing else
	expect_rc 0 cap.drv "$CAP" -o "$T/drv.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_driver_app"
	expect_rc 0 drv.r "$X" --races "$T/drv.sbt"
	has drv.r out "races: 0 confirmed, 0 possible"
	expect_rc 0 cap.racy env TSCUDA_DOUBLE_RACY=1 "$CAP" -o "$T/racy.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_driver_app" --racy
	expect_rc 1 racy.r "$X" --races "$T/racy.sbt"
	# 4 rounds of racy_scale (s1) and racy_xor (s2) on R: 16 pairs; fill
	# (s1) against vadd (s2) without e_b; vadd and reduce (s2) against
	# scale_by_table (s1) without e_c; the legacy stream's memset of R
	# (which non-blocking streams do not wait for) against the 8 kernels
	has racy.r out "races: 8 confirmed, 19 possible"
	pairs=$(grep '^  seq' "$T/racy.r.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .*/\1/' | paste -d' ' - - |
		awk '{ if ($1 > $2) print $2, $1; else print $1, $2 }' | sort | uniq -c | awk '{print $1, $2, $3}' | tr '\n' ';')
	[ "$pairs" = "4 cuMemsetD32 racy_scale;4 cuMemsetD32 racy_xor;1 fill vadd;16 racy_scale racy_xor;1 reduce scale_by_table;1 scale_by_table vadd;" ] ||
		fail "racy workload: race pairs '$pairs': $(grep -v '      #' "$T/racy.r.out")"
	# a stream-captured graph (upload, memset, 3 kernels) launched 3 times:
	# 15 nodes, with the memset, the check readback and the final readback
	expect_rc 0 cap.graph "$CAP" -o "$T/app_graph.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_graph_app"
	expect_rc 0 app.graph "$X" --summary "$T/app_graph.sbt"
	has app.graph out "commands: 18 on 2 streams"
	expect_rc 0 app.graph.json "$X" -f json -o "$T/app_graph.json" "$T/app_graph.sbt"
	py "n=[x for x in d['traceEvents'] if x['ph']=='X' and x['name'] in ('fill','vadd','racy_scale')]; assert len(n)==9, n" "$T/app_graph.json"
else
	echo "no CUDA double built: its part is not run"
fi

# (fx, not name: expect_rc sets name)
# ---- the H100 traces --------------------------------------------------------------
# each gives a timeline and a graph without errors: every export exits 0
# with nothing on standard error, and each holds every command the summary
# counts (a JSON slice, a DOT node drawn by graphviz, a Perfetto slice
# decoded by protoc) on one track per stream, with the memory counter
noerr() {
	[ ! -s "$T/$1.err" ] || fail "$1: standard error not empty: $(cat "$T/$1.err")"
}
for f in "$TOP"/tests/fixtures/h100/*/*.sbt; do
	fx=h100_$(basename "$(dirname "$f")")_$(basename "$f" .sbt)
	expect_rc 0 "$fx.sum" "$X" --summary "$f"
	noerr "$fx.sum"
	has "$fx.sum" out "critical path: "
	nc=$(sed -n 's/^commands: \([0-9]*\) on \([0-9]*\) streams.*/\1/p' "$T/$fx.sum.out")
	ns=$(sed -n 's/^commands: \([0-9]*\) on \([0-9]*\) streams.*/\2/p' "$T/$fx.sum.out")
	[ "${nc:-0}" -gt 0 ] && [ "${ns:-0}" -gt 0 ] || fail "$fx: no commands: $(cat "$T/$fx.sum.out")"
	expect_rc 0 "$fx.ascii" "$X" -f ascii "$f"
	noerr "$fx.ascii"
	[ "$(grep -c '^stream \|^legacy default stream\|^per-thread default stream' "$T/$fx.ascii.out")" = "$ns" ] ||
		fail "$fx.ascii: not $ns stream rows: $(cat "$T/$fx.ascii.out")"
	expect_rc 0 "$fx.json" "$X" -f json -o "$T/$fx.json" "$f"
	noerr "$fx.json"
	py "e=d['traceEvents']; X=[x for x in e if x['ph']=='X']; assert len(X)==$nc and all(x['dur']>0 for x in X), X; tr=[x for x in e if x['ph']=='M' and x['name']=='thread_name']; assert len(tr)==$ns, tr; assert [x for x in e if x['ph']=='C' and x['name']=='memory in use'], 'no memory counter'" "$T/$fx.json"
	expect_rc 0 "$fx.dot" "$X" -f dot -o "$T/$fx.dot" "$f"
	noerr "$fx.dot"
	[ "$(grep -c '\[label="seq' "$T/$fx.dot")" = "$nc" ] || fail "$fx.dot: not $nc nodes"
	if command -v dot >/dev/null 2>&1; then
		dot -Tsvg "$T/$fx.dot" -o "$T/$fx.svg" 2>"$T/$fx.svg.err" || fail "graphviz refused $fx.dot"
		noerr "$fx.svg"
		[ "$(grep -c 'class="node"' "$T/$fx.svg")" = "$nc" ] || fail "$fx.svg: not $nc nodes drawn"
	fi
	if command -v protoc >/dev/null 2>&1 && "$X" -f perfetto -o "$T/probe.pt" "$T/fork.sbt" 2>/dev/null; then
		pf "$f" "$fx"
		noerr "$fx.pf"
		python3 -c "$pfpy
B=[e for e in E if e[1]=='TYPE_SLICE_BEGIN']; assert len(B)==$nc and len([e for e in E if e[1]=='TYPE_SLICE_END'])==$nc, E
lanes=set(e[0] for e in B); assert len(lanes)==$ns and all(u in D for u in lanes), (lanes, D)
assert [e for e in E if e[1]=='TYPE_COUNTER'], 'no memory counter'" "$T/$fx.txt" ||
			fail "$fx.perfetto-trace: $(head -c 3000 "$T/$fx.txt")"
	fi
	expect_rc 0 "$fx.races" "$X" --races "$f"
	noerr "$fx.races"
	has "$fx.races" out "races: 0 confirmed, 0 possible"
	expect_rc 0 "$fx.emulate" "$TOP/$BUILD/tsreplay" --emulate "$f"
	noerr "$fx.emulate"
	has "$fx.emulate" out "races: 0 confirmed, 0 possible"
done
# saxpy: 12 commands on two streams, one edge across them
expect_rc 0 saxpy "$X" "$TOP/tests/fixtures/h100/as-captured/saxpy_static.sbt"
has saxpy out "commands: 12 on 2 streams, 11 dependencies (1 across streams)"

# ---- errors -----------------------------------------------------------------------
expect_rc 2 opt.unknown "$X" --frobnicate "$T/fork.sbt"
has opt.unknown err "tsexport: "
has opt.unknown err "frobnicate"
expect_rc 2 opt.missing "$X" -f
has opt.missing err "tsexport: "
expect_rc 2 opt.format "$X" -f svg "$T/fork.sbt"
has opt.format err "unknown format 'svg'"
expect_rc 2 opt.engines "$X" --compute-engines 0 "$T/fork.sbt"
has opt.engines err "--compute-engines needs a number from 1 to 1024, got '0'"
expect_rc 2 no.trace "$X" "$T/none.sbt"
has no.trace err "none.sbt"
"$TOP/$BUILD/tests/programs/sbt_gen_basic" "$T/basic.sbt" >/dev/null || fail "sbt_gen_basic"
expect_rc 2 not.cuda "$X" "$T/basic.sbt"
has not.cuda err "not a CUDA trace"
expect_rc 0 help "$X" --help
has help out "usage: tsexport"
echo "emulator: ok"
