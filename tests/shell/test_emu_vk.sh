#!/bin/sh
# The emulator on Vulkan captures from lavapipe (docs/emulator.md "Vulkan"):
# - tests/programs/vk_race, a dispatch writing a buffer through a storage
#   descriptor and a copy reading it, captured with VK_LAYER_tracesmith:
#   with no barrier (in one command buffer, across two command buffers of
#   one batch, two batches, two submits, or a semaphore waited at a stage
#   that does not cover the copy) tsexport --races flags exactly one
#   possible race naming both commands, their queue and host stacks (exit
#   1); with the barrier, a semaphore waited at the transfer stage, or a
#   fence the host waited for, it is clean (exit 0);
# - for each of those runs the Khronos validation layer 1.3.239, with
#   synchronization validation and its QueueSubmit validation enabled,
#   reports SYNC-HAZARD-READ-AFTER-WRITE exactly where the emulator reports
#   the race (without QueueSubmit validation it sees only the hazard inside
#   one command buffer);
# - tsreplay --emulate prints the summary and the race with no device, exit
#   1 (0 when clean), --json parses; its usage errors exit 2;
# - the other Vulkan test programs (vk_compute, also with --timeline, whose
#   host polls vkGetSemaphoreCounterValue; vk_offscreen, vk_multithread
#   in both submit modes) give timelines with no race; vk_compute's exports
#   are checked by content: one track for its queue, a slice per dispatch
#   and copy, the DOT graph (rendered by graphviz), the Perfetto protobuf
#   (decoded by protoc), the terminal timeline; vk_offscreen's copies of
#   its image wait for the render pass (its attachments) and the draws
#   through the render pass's external dependency;
# - a synthetic two-queue trace (tests/programs/vk_race_gen): a track per
#   queue, the semaphore between them one flow in the JSON and in the
#   Perfetto protobuf (64 slices on the two queue tracks) and one dashed
#   edge in the DOT graph, no race;
# - vk_compute's durations from capture times (--durations capture): its
#   fence waits bound all 6 commands.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/shell.sh"
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
X=$VK_ENV_BUILD/tsexport
R=$VK_ENV_BUILD/tsreplay
P=$VK_ENV_BUILD/tests/programs
for f in "$X" "$R" "$P/vk_race" "$P/vk_compute"; do
	[ -x "$f" ] || fail "$f is not built"
done
unset DISPLAY # nothing here presents
SYNCVAL=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
SUBMITVAL=VALIDATION_CHECK_ENABLE_SYNCHRONIZATION_VALIDATION_QUEUE_SUBMIT

# capture NAME PROGRAM ARGS...: into $T/NAME.sbt with host stacks, clean
# under validation (no VUID-).  (Each helper names its variables apart:
# shell.sh's expect_rc sets name.)
capture() {
	cn=$1
	shift
	vk_env_layers_ours
	TRACESMITH_STACKS=all TRACESMITH_OUTPUT=$T/$cn.sbt vk_env_run "$T/$cn.capture.log" "$@" ||
		fail "$cn: capture under VK_LAYER_tracesmith"
	[ -s "$T/$cn.sbt" ] || fail "$cn: the layer wrote no trace"
}

# syncval NAME ENABLES ARGS...: vk_race under the validation layer alone
# with VK_LAYER_ENABLES=ENABLES; $T/NAME.syncval.log
syncval() {
	sn=$1 enables=$2
	shift 2
	vk_env_layers_validation
	VK_LAYER_ENABLES=$enables "$P/vk_race" "$@" >"$T/$sn.syncval.log" 2>&1 ||
		fail "$sn: vk_race under synchronization validation"
	! grep -q 'VUID-' "$T/$sn.syncval.log" || fail "$sn: a VUID- message"
}

# race NAME ARGS...: vk_race ARGS has the race, seen by the emulator and by
# synchronization validation with QueueSubmit validation
race() {
	rn=$1
	shift
	capture "$rn" "$P/vk_race" "$@"
	expect_rc 1 "$rn.races" "$X" --races "$T/$rn.sbt"
	has "$rn.races" out "race (possible): no happens-before order between"
	has "$rn.races" out "races: 0 confirmed, 1 possible"
	[ "$(grep -c '^race ' "$T/$rn.races.out")" = 1 ] || fail "$rn: not exactly one race"
	grep -q "^  seq [0-9]* dispatch vkCmdDispatch (submitted at seq [0-9]*) on queue 0x[0-9a-f]* (family 0, index 0) reads and may write buffer 0x[0-9a-f]* bytes 0..4096 (of 4096, created at seq [0-9]*)$" \
		"$T/$rn.races.out" || fail "$rn: the dispatch's side: $(cat "$T/$rn.races.out")"
	grep -q "^  seq [0-9]* transfer vkCmdCopyBuffer (submitted at seq [0-9]*) on queue 0x[0-9a-f]* (family 0, index 0) reads buffer 0x[0-9a-f]* bytes 0..4096 (of 4096, created at seq [0-9]*)$" \
		"$T/$rn.races.out" || fail "$rn: the copy's side: $(cat "$T/$rn.races.out")"
	[ "$(grep -c 'vk_race!main+' "$T/$rn.races.out")" = 2 ] || fail "$rn: both host stacks reach main"
	syncval "$rn" "$SYNCVAL:$SUBMITVAL" "$@"
	grep -q 'SYNC-HAZARD-READ-AFTER-WRITE' "$T/$rn.syncval.log" ||
		fail "$rn: synchronization validation saw no hazard"
}

# clean NAME ARGS...: neither the emulator nor synchronization validation
# sees a hazard
clean() {
	kn=$1
	shift
	capture "$kn" "$P/vk_race" "$@"
	expect_rc 0 "$kn.races" "$X" --races "$T/$kn.sbt"
	has "$kn.races" out "races: 0 confirmed, 0 possible"
	syncval "$kn" "$SYNCVAL:$SUBMITVAL" "$@"
	! grep -q 'SYNC-HAZARD' "$T/$kn.syncval.log" || fail "$kn: synchronization validation saw a hazard"
}

race nobarrier
clean barrier --barrier
race split --split
clean split_barrier --split --barrier
race batches --split-batches
clean batches_barrier --split-batches --barrier
race cbs --split-cbs
clean cbs_barrier --split-cbs --barrier
clean sem_transfer --split --semaphore transfer
race sem_compute --split --semaphore compute
clean bsem_transfer --split-batches --semaphore transfer
race bsem_compute --split-batches --semaphore compute
clean fence --split --fence

# without QueueSubmit validation, 1.3.239 checks inside a command buffer only
syncval inner_only "$SYNCVAL"
grep -q 'SYNC-HAZARD-READ-AFTER-WRITE' "$T/inner_only.syncval.log" || fail "syncval: no hazard inside one command buffer"
syncval split_only "$SYNCVAL" --split
! grep -q 'SYNC-HAZARD' "$T/split_only.syncval.log" ||
	fail "syncval without QueueSubmit validation now sees hazards across submits: update docs/emulator.md"

# the two commands ran side by side without the barrier, one after the other with it
expect_rc 0 nobarrier.sum "$X" --summary "$T/nobarrier.sbt"
has nobarrier.sum out "commands: 2 on 1 queues, 0 dependencies (0 across queues)"
has nobarrier.sum out "makespan: 10000 ns"
has nobarrier.sum out "max concurrency: 2 at 0 ns"
expect_rc 0 barrier.sum "$X" --summary "$T/barrier.sbt"
has barrier.sum out "commands: 2 on 1 queues, 1 dependencies (0 across queues)"
has barrier.sum out "makespan: 15004 ns"
# across submits the fence's host wait is a dependency between the steps
expect_rc 0 fence.sum "$X" --summary "$T/fence.sbt"
has fence.sum out "commands: 2 on 1 queues, 1 dependencies (0 across queues)"
has fence.sum out "makespan: 15004 ns"

# ---- tsreplay --emulate ---------------------------------------------------------
expect_rc 1 emulate "$R" --emulate "$T/nobarrier.sbt"
has emulate out "emulated (no device): $T/nobarrier.sbt"
has emulate out "makespan: 10000 ns"
has emulate out "race (possible): no happens-before order between"
has emulate out "races: 0 confirmed, 1 possible"
expect_rc 0 emulate.clean "$R" --emulate "$T/barrier.sbt"
has emulate.clean out "races: 0 confirmed, 0 possible"
expect_rc 1 emulate.json "$R" --emulate --json "$T/nobarrier.sbt"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['races']; assert r['possible']==1 and r['confirmed']==0; l=r['list'][0]; assert l['first']['name']=='vkCmdDispatch' and l['second']['name']=='vkCmdCopyBuffer', l; assert l['first']['resource']=='buffer' and l['first']['stack']; assert d['summary']['commands']==2" \
	"$T/emulate.json.out" || fail "tsreplay --emulate --json: $(cat "$T/emulate.json.out")"
expect_rc 2 emulate.none "$R" --emulate
has emulate.none err "--emulate needs a trace"
expect_rc 2 emulate.opt "$R" --emulate --offscreen "$T/barrier.sbt"
has emulate.opt err "--emulate takes only --json, --durations capture or --schedule-seed N and a trace, not '--offscreen'"
expect_rc 2 emulate.missing "$R" --emulate "$T/absent.sbt"
has emulate.missing err "$T/absent.sbt"

# ---- the other programs: no race; vk_compute's exports by content -------------------
capture compute "$P/vk_compute" --submits 3
capture offscreen "$P/vk_offscreen" --frames 3
capture mt "$P/vk_multithread"
capture mt_submit "$P/vk_multithread" --thread-submit
# --timeline polls its semaphore with vkGetSemaphoreCounterValue on odd
# rounds (the emulator before took no poll as a host wait: 1 confirmed and
# 2 possible races here)
capture compute_tl "$P/vk_compute" --timeline --submits 4
for n in compute offscreen mt mt_submit compute_tl; do
	expect_rc 0 "$n.races" "$X" --races "$T/$n.sbt"
	has "$n.races" out "races: 0 confirmed, 0 possible"
done
expect_rc 0 compute.sum "$X" "$T/compute.sbt"
has compute.sum out "commands: 6 on 1 queues"
# each round: the dispatch (10000 ns), its barrier, the 16384-byte copy (5016 ns)
has compute.sum out "makespan: 45048 ns"
has compute.sum out "critical path: 45048 ns, 6 commands"
# durations from capture times (docs/emulator.md "Durations from capture
# times"): vk_compute waits for each submit's fence, so every command is
# bounded by a wait (one per round at least), none by the model
expect_rc 0 compute.cap "$X" --summary --json --durations capture "$T/compute.sbt"
python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))['summary']['durations']
assert (d['source'],d['capture'],d['modeled'])==('capture',6,0), d
assert 3<=d['bounding_waits']<=d['waits'], d
" "$T/compute.cap.out" || fail "compute.cap: $(cat "$T/compute.cap.out")"
expect_rc 0 compute.json "$X" -f json -o "$T/compute.json" "$T/compute.sbt"
python3 -c "
import json,sys
e=json.load(open(sys.argv[1]))['traceEvents']
tracks=[x['args']['name'] for x in e if x['ph']=='M' and x['name']=='thread_name']
assert len(tracks)==1 and tracks[0].startswith('queue 0x') and tracks[0].endswith('(family 0, index 0)'), tracks
X=[x for x in e if x['ph']=='X']
assert [x['name'] for x in X]==['vkCmdDispatch','vkCmdCopyBuffer']*3, X
assert [x['cat'] for x in X]==['dispatch','transfer']*3
assert all(X[i+1]['ts']>=X[i]['ts']+X[i]['dur'] for i in range(5)), X
" "$T/compute.json" || fail "vk_compute's JSON export"
expect_rc 0 compute.dot "$X" -f dot -o "$T/compute.dot" "$T/compute.sbt"
[ "$(grep -c 'vkCmdDispatch' "$T/compute.dot")" = 3 ] || fail "compute.dot: three dispatch nodes"
[ "$(grep -c ' -> ' "$T/compute.dot")" = 5 ] || fail "compute.dot: five edges"
dot -Tsvg "$T/compute.dot" >"$T/compute.svg" || fail "graphviz cannot render compute.dot"
expect_rc 0 compute.ascii "$X" -f ascii --width 60 "$T/compute.sbt"
grep -q '^queue 0x[0-9a-f]* (family 0, index 0) *[PT#]*$' "$T/compute.ascii.out" || fail "compute.ascii: $(cat "$T/compute.ascii.out")"
has compute.ascii out "P dispatch  R draw  A render pass attachments  T copy, blit or resolve"
if "$X" -f perfetto -o "$T/probe.pt" "$T/compute.sbt" 2>/dev/null; then
	protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
		"$TOP/emulator/proto/perfetto_trace.proto" <"$T/probe.pt" >"$T/compute.pt.txt" ||
		fail "protoc cannot decode the Perfetto export"
	grep -q 'name: "queue 0x[0-9a-f]* (family 0, index 0)"' "$T/compute.pt.txt" || fail "no queue track in the Perfetto export"
	# event names are interned: vkCmdDispatch's iid on three slice begins
	python3 -c 'import re,sys
t=open(sys.argv[1]).read()
iid=re.search(r"event_names \{\s*iid: (\d+)\s*name: \"vkCmdDispatch\"", t).group(1)
n=sum(1 for b in t.split("packet {")[1:] if "TYPE_SLICE_BEGIN" in b and re.search(r"^    name_iid: "+iid+"$", b, re.M))
sys.exit(0 if n==3 else 1)' "$T/compute.pt.txt" || fail "Perfetto export: three dispatch slices"
fi
# vk_offscreen: per frame two draws side by side, then the copy of the image
expect_rc 0 offscreen.json "$X" -f json -o "$T/offscreen.json" "$T/offscreen.sbt"
python3 -c "
import json,sys
X=[x for x in json.load(open(sys.argv[1]))['traceEvents'] if x['ph']=='X']
assert [x['name'] for x in X]==['vkCmdBeginRenderPass','vkCmdDraw','vkCmdDraw','vkCmdCopyImageToBuffer']*3, X
assert [x['cat'] for x in X]==['render_pass','draw','draw','transfer']*3, X
for f in range(3):
    p,d1,d2,c=X[4*f:4*f+4]
    assert p['ts']==d1['ts']==d2['ts'] and c['ts']>=max(x['ts']+x['dur'] for x in (p,d1,d2)), (p,d1,d2,c)
" "$T/offscreen.json" || fail "vk_offscreen's timeline"
# ---- two queues (a synthetic trace): tracks per queue, the semaphore as a flow ----
G=$P/vk_race_gen
[ -x "$G" ] || fail "$G is not built"
"$G" "$T/gen.sbt" 64 2 >"$T/gen.log" || fail "vk_race_gen"
expect_rc 0 gen.sum "$X" --races --summary "$T/gen.sbt"
has gen.sum out "commands: 64 on 2 queues, 63 dependencies (1 across queues)"
has gen.sum out "races: 0 confirmed, 0 possible"
expect_rc 0 gen.json "$X" -f json -o "$T/gen.json" "$T/gen.sbt"
python3 -c "
import json,sys
e=json.load(open(sys.argv[1]))['traceEvents']
tracks={x['tid']:x['args']['name'] for x in e if x['ph']=='M' and x['name']=='thread_name'}
assert sorted(tracks.values())==['queue 0x9000 (family 0, index 0)','queue 0x9001 (family 1, index 0)'], tracks
X=[x for x in e if x['ph']=='X']
assert len(X)==64
s=[x for x in e if x['ph']=='s']; f=[x for x in e if x['ph']=='f']
assert len(s)==1 and len(f)==1 and s[0]['id']==f[0]['id'], (s,f)
assert tracks[s[0]['tid']].startswith('queue 0x9000') and tracks[f[0]['tid']].startswith('queue 0x9001'), (s,f)
assert f[0]['ts']>=s[0]['ts']
" "$T/gen.json" || fail "two queues' JSON export"
# the same in the Perfetto protobuf: a track per queue, 64 slices, the
# semaphore one flow from queue 0x9000's slice to queue 0x9001's
if "$X" -f perfetto -o "$T/probe.pt" "$T/compute.sbt" 2>/dev/null; then
	expect_rc 0 gen.pf "$X" -f perfetto -o "$T/gen.pt" "$T/gen.sbt"
	protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
		"$TOP/emulator/proto/perfetto_trace.proto" <"$T/gen.pt" >"$T/gen.pt.txt" ||
		fail "protoc cannot decode gen.pt"
	python3 -c "
import re, sys
P = open(sys.argv[1]).read().split('packet {')[1:]
D = dict(m.groups() for m in (re.search(r'^    uuid: (\d+)\n    name: \"(.*?)\"', b, re.M) for b in P) if m)
Q = sorted(n for n in D.values() if n.startswith('queue '))
assert Q == ['queue 0x9000 (family 0, index 0)', 'queue 0x9001 (family 1, index 0)'], D
B = [b for b in P if 'TYPE_SLICE_BEGIN' in b]
assert len(B) == 64, len(B)
tr = lambda b: D[re.search(r'^    track_uuid: (\d+)$', b, re.M).group(1)]
out = [tr(b) for b in B if re.search(r'^    flow_ids: ', b, re.M)]
inn = [tr(b) for b in B if re.search(r'^    terminating_flow_ids: ', b, re.M)]
assert len(out) == 1 and len(inn) == 1 and out[0].startswith('queue 0x9000') and inn[0].startswith('queue 0x9001'), (out, inn)
" "$T/gen.pt.txt" || fail "two queues' Perfetto export: $(head -c 3000 "$T/gen.pt.txt")"
fi
expect_rc 0 gen.dot "$X" -f dot "$T/gen.sbt"
[ "$(grep -c 'label="semaphore"' "$T/gen.dot.out")" = 1 ] || fail "gen.dot: one semaphore edge"
[ "$(grep -c 'subgraph cluster_' "$T/gen.dot.out")" = 2 ] || fail "gen.dot: a cluster per queue"
dot -Tsvg "$T/gen.dot.out" >"$T/gen.svg" || fail "graphviz cannot render gen.dot"
echo "test_emu_vk: ok"
