#!/bin/sh
# Capture windows of a CUDA program on the libcuda test double
# (docs/cuda.md "Capture windows"): cuda_window_app captured whole, then
# with tscapture --launches A-B (and TRACESMITH_TRIGGER=launches:A-B), with
# --profiler (cuProfilerStart / cuProfilerStop around rounds) and with
# --nvtx NAME (an NVTX range through libtracesmith_nvtx.so, in its push/pop, start/end, Ex and wide forms).  Each
# window's trace replays with tsreplay on the double, every checkpoint
# equal; its checkpoints equal, by position (object, offset, length, hash),
# those the whole-run capture has between the same launches; it holds
# exactly the window's launches and no call from before the window except
# its snapshot; tsinfo names the window.  Also: --range inside a window,
# --check-determinism on one, a window opening at the first launch, a run
# with two windows, the profiler markers reached through cuGetProcAddress,
# the markers without the trigger (a whole-run trace), an NVTX range of
# another name (no window), and a window of cuda_runtime_like (cudart's
# side-door primary context and library, kept and recreated); the event
# recorded before each window recorded again after its snapshot's keyframe,
# on the stream it was recorded on (test_cuda_graph_nodes.sh also shows
# the null stream taking the place of a destroyed one);
# a graph made by stream capture before a profiler window and launched in it
# (cuda_graph_app --window), rebuilt by the snapshot, also with an event
# recorded and waited on inside its capture (kept with it, not recorded
# again after the keyframe).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA TRACESMITH_TRIGGER \
	TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES NVTX_INJECTION64_PATH
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
PROG="$TOP/$BUILD/tests/cuda/cuda_window_app"
NVTX_LIB="$TOP/$BUILD/interpose/libtracesmith_nvtx.so"
[ -e "$NVTX_LIB" ] || fail "no $NVTX_LIB"

# all_match NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# checkpoints, all matched.
all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}

# ckpts TRACE [FIRST UNTIL]: one line per checkpoint, "object offset length
# hash", in trace order: all of them, or those of the calls after launch
# FIRST (counted from 1) and before launch UNTIL (the end when there is
# no such launch).
ckpts() {
	"$INFO" --dump "$1" >"$T/dump.txt" || fail "tsinfo --dump $1"
	python3 - "$T/dump.txt" "${2:-0}" "${3:-0}" <<'PY'
import re, sys
first, until = int(sys.argv[2]), int(sys.argv[3])
launch_seq = []
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"seq=(\d+) ", line)
    if not m:
        continue
    seq = int(m.group(1))
    if re.search(r"\scuda\.cu(LaunchKernel|LaunchKernelEx|LaunchCooperativeKernel|GraphLaunch)\b", line):
        launch_seq.append(seq)
    c = re.search(r"(?i)checkpoint call_seq=(\d+) object=(\S+) offset=(\d+) length=(\d+) hash=(\S+)", line)
    if c:
        rows.append((int(c.group(1)), "%s %s %s %s" % c.group(2, 3, 4, 5)))
lo = launch_seq[first - 1] if first else 0
hi = launch_seq[until - 1] if until and until <= len(launch_seq) else 1 << 64
for call, row in rows:
    if lo < call < hi:
        print(row)
PY
}

# launches TRACE: the number of launch records.
launches() {
	"$INFO" --dump "$1" | grep -cE ' cuda\.cu(LaunchKernel|LaunchKernelEx|LaunchCooperativeKernel|GraphLaunch) ' || true
}

# window_check NAME TRACE WANT_CKPTS FIRST UNTIL NLAUNCH TRIGGER: the
# window's trace replays with WANT_CKPTS checkpoints all equal, they are
# those the whole run has between launch FIRST and launch UNTIL, it holds
# NLAUNCH launches, and tsinfo shows the window, opened by TRIGGER.
window_check() {
	wc_name=$1 wc_trace=$2 wc_want=$3 wc_first=$4 wc_until=$5 wc_nl=$6 wc_trig=$7
	[ -s "$wc_trace" ] || fail "$wc_name: no window trace $wc_trace: $(ls "$T")"
	all_match "$wc_name.replay" "$wc_want" "$wc_trace"
	ckpts "$wc_trace" >"$T/$wc_name.ck"
	ckpts "$T/full.sbt" "$wc_first" "$wc_until" >"$T/$wc_name.full.ck"
	[ "$(wc -l <"$T/$wc_name.ck")" -eq "$wc_want" ] ||
		fail "$wc_name: $(wc -l <"$T/$wc_name.ck") checkpoints in the window, expected $wc_want"
	cmp -s "$T/$wc_name.ck" "$T/$wc_name.full.ck" ||
		fail "$wc_name: the window's checkpoints differ from the whole run's between launches $wc_first and $wc_until: $(diff "$T/$wc_name.ck" "$T/$wc_name.full.ck")"
	n=$(launches "$wc_trace")
	[ "$n" -eq "$wc_nl" ] || fail "$wc_name: $n launches in the window, expected $wc_nl"
	# The snapshot is made of creations only: no copy, memset or launch of
	# the program's before the window's first launch (or its opening).
	"$INFO" --dump "$wc_trace" >"$T/$wc_name.dump" || fail "$wc_name: tsinfo --dump"
	# (SNAPSHOT_END: record type 8, named by tsinfo or shown as type#8)
	# (The snapshot's own event records, after its keyframe, are looked at
	# below.)
	before=$(awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }' "$T/$wc_name.dump")
	echo "$before" | grep -qiE 'snapshot.end|type#8 ' || fail "$wc_name: no SNAPSHOT_END record in the window's trace"
	echo "$before" | awk '/ keyframe / { kf = 1 } !(kf && / cuda\.cuEventRecord /)' |
		grep -qE ' cuda\.cu(Memcpy|Memset|Launch|GraphLaunch|StreamSynchronize|EventRecord)' &&
		fail "$wc_name: work of the program before the window's SNAPSHOT_END: $(echo "$before" | grep -E ' cuda\.cu(Memcpy|Memset|Launch|EventRecord)' | head -n 3)"
	# The event the program records every round (and waits on) is recorded
	# again after the keyframe when a round ran before the window (launch
	# 3 on), the event the snapshot creates.
	want_ev=0
	[ "$wc_first" -ge 3 ] && want_ev=1
	nev=$(echo "$before" | awk '/ keyframe / { kf = 1 } kf && / cuda\.cuEventRecord /' | wc -l)
	[ "$nev" -eq "$want_ev" ] ||
		fail "$wc_name: $nev event records after the snapshot's keyframe, expected $want_ev: $(echo "$before" | grep -E 'cuda\.cuEvent')"
	if [ "$want_ev" -eq 1 ]; then
		# on the stream the program recorded it on (its first stream, live)
		ev=$(echo "$before" | sed -n 's/.* cuda\.cuEventCreate .*event=\([0-9]*\).*/\1/p')
		st=$(echo "$before" | sed -n 's/.* cuda\.cuStreamCreate .*handle=\([0-9]*\).*/\1/p' | head -n 1)
		echo "$before" | grep -qE " cuda\.cuEventRecord stream=$st event=$ev( |\$)" ||
			fail "$wc_name: the snapshot does not record the event it creates ($ev) on stream $st: $(echo "$before" | grep -E 'cuda\.cuEvent')"
	fi
	expect_rc 0 "$wc_name.info" "$INFO" "$wc_trace"
	has "$wc_name.info" out "trigger '$wc_trig'"
}

# ---- the whole run ---------------------------------------------------------------
expect_rc 0 full.plain "$PROG"
expect_rc 0 full.cap "$CAP" -o "$T/full.sbt" -- "$PROG"
cmp -s "$T/full.plain.out" "$T/full.cap.out" ||
	fail "the captured run printed '$(cat "$T/full.cap.out")', the plain one '$(cat "$T/full.plain.out")'"
# 6 rounds, 3 read-backs each
all_match full.replay 18 "$T/full.sbt"
[ "$(launches "$T/full.sbt")" -eq 12 ] || fail "the whole run has $(launches "$T/full.sbt") launches, expected 12"

# ---- launches:5-8: rounds 3 and 4's launches ---------------------------------------
# The window opens at launch 5 (round 3's fill: z of round 3 is made
# before it) and closes after launch 8, before round 4's read-backs: round
# 3's three checkpoints are in it.
expect_rc 0 lr.cap "$CAP" --launches 5-8 -o "$T/lr.sbt" -- "$PROG"
cmp -s "$T/full.plain.out" "$T/lr.cap.out" || fail "launches:5-8: the run printed '$(cat "$T/lr.cap.out")'"
window_check launches "$T/lr-launches-5-8.sbt" 3 5 8 4 "launches 5-8"
has launches.info out "first launch 5"
# --range from the window's second launch restores the window's keyframe
# (a full one) and fast-forwards: round 3's checkpoints still match.
second=$("$INFO" --dump "$T/lr-launches-5-8.sbt" | grep ' cuda\.cuLaunchKernel ' | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
[ -n "$second" ] || fail "no second launch in the window"
all_match lr.range 3 --range "$second:" "$T/lr-launches-5-8.sbt"
has lr.range err "restored keyframe at seq"
expect_rc 0 lr.det "$RP" --check-determinism --runs 2 "$T/lr-launches-5-8.sbt"

# ---- launches:1-2 (the variable tscapture sets): from the very first launch ----------
TRACESMITH_TRIGGER=launches:1-2 expect_rc 0 l1.cap "$CAP" -o "$T/l1.sbt" -- "$PROG"
window_check first "$T/l1-launches-1-2.sbt" 0 1 2 2 "launches 1-2"

# ---- profiler: cuProfilerStart before round 2, cuProfilerStop after round 4 -------------
PMARKS="--marks profiler --from 2 --to 4"
# shellcheck disable=SC2086
expect_rc 0 pr.plain "$PROG" $PMARKS
cmp -s "$T/full.plain.out" "$T/pr.plain.out" || fail "the marks change the program's result"
# shellcheck disable=SC2086
expect_rc 0 pr.cap "$CAP" --profiler -o "$T/pr.sbt" -- "$PROG" $PMARKS
# rounds 2..4: launches 3..8, nine read-backs
window_check profiler "$T/pr-window-1.sbt" 9 3 9 6 profiler
# The markers as cudart reaches them, through cuGetProcAddress: wrapped too.
# shellcheck disable=SC2086
TRACESMITH_TRIGGER=profiler expect_rc 0 prp.cap "$CAP" -o "$T/prp.sbt" -- "$PROG" $PMARKS --procaddr
window_check procaddr "$T/prp-window-1.sbt" 9 3 9 6 profiler
# Without the trigger the markers only pass through: a whole-run trace.
# shellcheck disable=SC2086
expect_rc 0 pr.whole "$CAP" -o "$T/prw.sbt" -- "$PROG" $PMARKS
all_match pr.whole.replay 18 "$T/prw.sbt"
[ ! -e "$T/prw-window-1.sbt" ] || fail "a window was written without a trigger"

# ---- two profiler windows in one run: rounds 2 and 4..5 -------------------------------
# The second one's snapshot is taken after the first window closed: what
# the first made and freed is gone from it, what it kept is there.
TRACESMITH_TRIGGER=profiler expect_rc 0 pr2.cap "$CAP" -o "$T/pr2.sbt" -- \
	"$PROG" --marks profiler --from 2 --to 2 --again 4-5
window_check two.1 "$T/pr2-window-1.sbt" 3 3 5 2 profiler
window_check two.2 "$T/pr2-window-2.sbt" 6 7 11 4 profiler
has two.2.info out "window       2 of the run"
[ ! -e "$T/pr2-window-3.sbt" ] || fail "a third window was written"

# ---- cudart's way (cuda_runtime_like): the primary context retained through
# the side door (inferred in the snapshot), a library from a fatbin
# wrapper, kernels launched as functions -------------------------------------
RT="$TOP/$BUILD/tests/cuda/cuda_runtime_like"
expect_rc 0 rt.cap "$CAP" -o "$T/rtfull.sbt" -- "$RT" --size 3000
expect_rc 0 rtw.cap "$CAP" --launches 3-6 -o "$T/rtw.sbt" -- "$RT" --size 3000
cmp -s "$T/rt.cap.out" "$T/rtw.cap.out" || fail "cuda_runtime_like: the window's run printed '$(cat "$T/rtw.cap.out")'"
all_match rtw.replay 1 "$T/rtw-launches-3-6.sbt"
ckpts "$T/rtw-launches-3-6.sbt" >"$T/rtw.ck"
ckpts "$T/rtfull.sbt" 3 6 >"$T/rtw.full.ck"
cmp -s "$T/rtw.ck" "$T/rtw.full.ck" || fail "cuda_runtime_like: the window's checkpoints differ from the whole run's"
"$INFO" --dump "$T/rtw-launches-3-6.sbt" | grep -q 'cuda.cuDevicePrimaryCtxRetain .*sub=1' ||
	fail "cuda_runtime_like: the snapshot does not retain the runtime's primary context"
"$INFO" --dump "$T/rtw-launches-3-6.sbt" | grep -q 'cuda.cuLibraryLoadData .*blob=' ||
	fail "cuda_runtime_like: the snapshot has no library image"

# ---- nvtx:window, each form of range ------------------------------------------------
for form in push start ex wide; do
	expect_rc 0 "nv.$form.cap" "$CAP" --nvtx window \
		-o "$T/nv$form.sbt" -- "$PROG" --marks nvtx --from 3 --to 5 --nvtx-form "$form"
	cmp -s "$T/full.plain.out" "$T/nv.$form.cap.out" || fail "nvtx $form: the run printed '$(cat "$T/nv.$form.cap.out")'"
	# rounds 3..5: launches 5..10
	# (opened through the in-app API: its trigger text is app)
	window_check "nvtx.$form" "$T/nv$form-window-1.sbt" 9 5 11 6 "nvtx window"
done
# A range begun before the first CUDA call: the window holds the whole
# program from cuInit on, with an empty snapshot, and replays.
TRACESMITH_TRIGGER=nvtx:window NVTX_INJECTION64_PATH="$NVTX_LIB" \
	expect_rc 0 nv.early.cap "$CAP" -o "$T/nve.sbt" -- "$PROG" --marks nvtx --from 0 --to 5
window_check nvtx.early "$T/nve-window-1.sbt" 15 0 11 10 "nvtx window"
# A range of another name opens nothing.
TRACESMITH_TRIGGER=nvtx:elsewhere NVTX_INJECTION64_PATH="$NVTX_LIB" \
	expect_rc 0 nv.other.cap "$CAP" -o "$T/nvo.sbt" -- "$PROG" --marks nvtx --from 3 --to 5
[ -z "$(ls "$T" | grep '^nvo-window')" ] || fail "nvtx: a range of another name opened a window: $(ls "$T")"
# ---- a graph made by stream capture before the window, launched in it ---------------
# cuda_graph_app --window: a spare graph captured, launched and destroyed
# (launch 1), then the graph (captured launches 2..4) instantiated before
# cuProfilerStart, launched three times (launches 5..7) in the window,
# which ends after the read-back (one checkpoint).  The snapshot captures
# the graph again and instantiates it; the spare graph is not in it.  With
# --drop-graph the graph is destroyed before the window (its exec lives on).
GP="$TOP/$BUILD/tests/cuda/cuda_graph_app"
expect_rc 0 g.plain "$GP" --window
expect_rc 0 g.full "$CAP" -o "$T/gfull.sbt" -- "$GP" --window
all_match g.full.replay 2 "$T/gfull.sbt"
for drop in "" --drop-graph; do
	# shellcheck disable=SC2086
	TRACESMITH_TRIGGER=profiler expect_rc 0 "g$drop.cap" "$CAP" -o "$T/g$drop.sbt" -- "$GP" --window $drop
	cmp -s "$T/g.plain.out" "$T/g$drop.cap.out" ||
		fail "graph$drop: the window's run printed '$(cat "$T/g$drop.cap.out")', the plain one '$(cat "$T/g.plain.out")'"
	gw="$T/g$drop-window-1.sbt"
	[ -s "$gw" ] || fail "graph$drop: no window trace $gw: $(ls "$T")"
	all_match "g$drop.replay" 1 "$gw"
	ckpts "$gw" >"$T/g$drop.ck"
	ckpts "$T/gfull.sbt" 5 0 >"$T/g$drop.full.ck"
	[ "$(wc -l <"$T/g$drop.ck")" -eq 1 ] || fail "graph$drop: $(wc -l <"$T/g$drop.ck") checkpoints in the window, expected 1"
	cmp -s "$T/g$drop.ck" "$T/g$drop.full.ck" ||
		fail "graph$drop: the window's checkpoints differ from the whole run's after launch 5: $(diff "$T/g$drop.ck" "$T/g$drop.full.ck")"
	"$INFO" --dump "$gw" >"$T/g$drop.dump" || fail "graph$drop: tsinfo --dump"
	awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }' "$T/g$drop.dump" >"$T/g$drop.before"
	grep -qiE 'snapshot.end|type#8 ' "$T/g$drop.before" || fail "graph$drop: no SNAPSHOT_END record"
	# one capture (the graph's: the spare one is gone), its three launches
	# and memset and copy, one instantiation; no graph launch
	for want in "cuStreamBeginCapture 1" "cuStreamEndCapture 1" "cuLaunchKernel 3" \
		"cuMemsetD32Async 1" "cuMemcpyHtoDAsync 1" "cuGraphInstantiate 1" "cuGraphLaunch 0"; do
		set -- $want
		n=$(grep -c " cuda\.$1 " "$T/g$drop.before" || true)
		[ "$n" -eq "$2" ] || fail "graph$drop: $n $1 records in the snapshot, expected $2: $(grep -E ' cuda\.(cuStream|cuGraph|cuLaunch|cuMem)' "$T/g$drop.before" | head -n 20)"
	done
	# (value 0, not shown by tsinfo; the spare graph's is 9)
	grep ' cuda\.cuMemsetD32Async ' "$T/g$drop.before" | grep -q 'value=' &&
		fail "graph$drop: the snapshot's memset is not the graph's: $(grep ' cuda\.cuMemsetD32Async ' "$T/g$drop.before")"
	grep ' cuda\.cuMemcpyHtoDAsync ' "$T/g$drop.before" | grep -q 'blob=' ||
		fail "graph$drop: the captured upload has no blob in the snapshot"
	[ "$(launches "$gw")" -eq 6 ] || fail "graph$drop: $(launches "$gw") launch records, expected 6 (3 captured, 3 graph launches)"
done
# --range from the window's second graph launch restores the window's
# keyframe, the graph rebuilt before it; --check-determinism agrees.
second=$("$INFO" --dump "$T/g-window-1.sbt" | grep ' cuda\.cuGraphLaunch ' | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
[ -n "$second" ] || fail "graph: no second graph launch in the window"
all_match g.range 1 --range "$second:" "$T/g-window-1.sbt"
has g.range err "restored keyframe at seq"
expect_rc 0 g.det "$RP" --check-determinism --runs 2 "$T/g-window-1.sbt"
# An event recorded inside the capture (and waited on there): kept with the
# capture, made again inside the snapshot's capture, and not recorded
# again after the keyframe (it was never recorded outside a capture).
expect_rc 0 ge.plain "$GP" --window --capture-event
cmp -s "$T/g.plain.out" "$T/ge.plain.out" || fail "graph event: the event in the capture changed the result"
TRACESMITH_TRIGGER=profiler expect_rc 0 ge.cap "$CAP" -o "$T/ge.sbt" -- "$GP" --window --capture-event
cmp -s "$T/ge.plain.out" "$T/ge.cap.out" || fail "graph event: the window's run printed '$(cat "$T/ge.cap.out")'"
all_match ge.replay 1 "$T/ge-window-1.sbt"
ckpts "$T/ge-window-1.sbt" >"$T/ge.ck"
cmp -s "$T/ge.ck" "$T/g.ck" || fail "graph event: the window's checkpoint differs from the plain capture's: $(diff "$T/ge.ck" "$T/g.ck")"
"$INFO" --dump "$T/ge-window-1.sbt" | awk '{ print } tolower($0) ~ /snapshot.end|type#8 / { exit }' >"$T/ge.before"
awk '/ cuda\.cuStreamBeginCapture / { c = 1 } / cuda\.cuStreamEndCapture / { c = 0 }
	c && / cuda\.(cuEventRecord|cuStreamWaitEvent) / { n++ } END { exit n == 2 ? 0 : 1 }' "$T/ge.before" ||
	fail "graph event: the snapshot's capture lacks the event record and wait: $(grep -E ' cuda\.(cuStream|cuEvent)' "$T/ge.before")"
[ "$(awk '/ keyframe / { kf = 1 } kf && / cuda\.cuEventRecord /' "$T/ge.before" | wc -l)" -eq 0 ] ||
	fail "graph event: the event recorded only in the capture is recorded again after the keyframe"

echo ok
