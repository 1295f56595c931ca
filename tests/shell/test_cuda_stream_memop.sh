#!/bin/sh
# Stream memory operations outside graphs (docs/cuda.md "Stream memory
# operations", docs/cuda-replay.md), on the libcuda test double, with
# tests/cuda/cuda_stream_memop: in each of 3 rounds a consumer stream waits
# (cuStreamWaitValue32 GEQ, cuStreamWaitValue64 EQ, then one
# cuStreamBatchMemOp with a 32-bit AND and a 64-bit GEQ wait) before a vadd
# that reads what the producer stream's fill then writes, and the producer
# sets the flag (cuStreamWriteValue32, cuStreamWriteValue64, one
# cuStreamBatchMemOp of a 32-bit write, a memory barrier and a 64-bit
# write).  The waits are queued before their writes, so only the double's
# running the streams at once lets the program end.
# - The program's output is the same plain, under the double's seeded
#   reordering (TSCUDA_DOUBLE_SEED 1 and 2) and under capture; the trace
#   holds each call as itself (stream, params = the operations, 48 bytes
#   each) and the exit report names nothing not modeled.
# - Replay: every checkpoint equal; --check-determinism --runs 3 agrees.
# - --streams single (one stream, record order): the first wait's write
#   comes later in the trace, so the replay stops at the wait, exit 1,
#   naming the record, the word, the condition and what the word holds.
# - The producer's first write dropped (sbt_mutate): the wait is never met;
#   the replay stops at --wait-timeout naming the cuStreamSynchronize that
#   waits for it, never hangs; seeded, that synchronize fails at once
#   (nothing can run the wait).
# - --graph (a 4th round: the consumer's wait is a batch memory-op node of
#   a graph launched before the producer's cuStreamWriteValue32): captured
#   and replayed with its 7 checkpoints equal.
# - --capture (one more round: the consumer's cuStreamWaitValue32 and vadd
#   captured into a graph by stream capture, launched before the
#   producer's graph, captured too, of its fill and cuStreamWriteValue32):
#   the same output plain, seeded and captured; both memory operations are
#   recorded inside their captures; replayed into the replay's captures
#   with its 7 checkpoints equal, and --check-determinism agreeing.
# - --nor (one more round: the consumer waits with CU_STREAM_WAIT_VALUE_NOR
#   on a word that starts at 0xffff; the producer writes 0xffff first,
#   which does not meet it, then fills and writes 0xfffe, which does): the
#   same output plain, seeded and captured; the wait's record holds the
#   NOR flag (3); replayed with its 8 checkpoints equal; the meeting write
#   dropped, the replay stops at --wait-timeout naming the
#   cuStreamSynchronize after it (the double does not take the first
#   write as meeting the wait).
# - --kernel-write (round 1's flag set by a one-word fill kernel, not a
#   write-value operation): the same output plain, seeded and captured;
#   replayed with its 6 checkpoints equal.
# - A capture window around round 2 (tscapture --profiler, the program's
#   cuProfilerStart/Stop): it holds that round's wait and write, and
#   replays with its checkpoint equal.
# - The same window opened later (cuda_stream_memop --window-at-wait: once
#   round 2's consumer wait and vadd are queued, before the producer's
#   write): the consumer stream is held as the window opens, so its
#   keyframe is taken after 1 s without synchronizing the context, with
#   one warning; the program ends with its output unchanged (synchronizing
#   would wait for a write the program makes only after the window has
#   opened; the double breaks the context after 10 s).  The keyframe
#   carries the recorder's note, the window lacks the wait and the vadd
#   queued before it, and its replay says the note and differs at the
#   copy that reads the vadd's output, exit 3.  A --launches 6-6 window
#   (round 2's producer fill, launched while the consumer waits) opens the
#   same way: one warning, the program's output unchanged, the window's
#   one launch replayed (no checkpoint) with the note said.  With the
#   consumer on the main thread's per-thread default stream
#   (cuda_stream_memop --ptds), or on a second thread's that has ended
#   when the window opens (--ptds-thread), the window opens the same way,
#   its warning naming that stream's thread.
# - TRACESMITH_SNAPSHOT=launch: the keyframes of launches on the consumer
#   stream (held by a wait) are taken without waiting for it (one warning),
#   the replay leaves those met while a replayed wait is pending
#   uncompared (one note) and compares the others; --range from the
#   keyframe before round 2's first launch replays with its 5 checkpoints
#   equal.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuda_window
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
M="$TOP/$BUILD/tests/sbt_mutate"
PROG="$TOP/$BUILD/tests/cuda/cuda_stream_memop"

# seq_of TRACE PATTERN [N]: the seq of the Nth (default 1) record whose dump line has PATTERN.
seq_of() {
	"$INFO" --dump "$1" | grep -F -- "$2" | sed -n "${3:-1}p" | sed 's/^seq=\([0-9]*\) .*/\1/'
}
# replay NAME WANT_RC TRACE OPTIONS...: bounded, never killed, exit WANT_RC.
replay() {
	name=$1 want=$2 trace=$3
	shift 3
	rc=0
	timeout -s KILL 120 "$RP" "$@" "$trace" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -ne 137 ] || fail "$name: tsreplay hung"
	[ "$rc" -le 128 ] || fail "$name: tsreplay was killed by signal $((rc - 128)): $(cat "$T/$name.err")"
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc (expected $want): $(cat "$T/$name.err")"
}

# ---- the program, plain and captured ---------------------------------------------------------
expect_rc 0 plain "$PROG"
cat >"$T/want.out" <<'EOF'
cuda_stream_memop: round 1 sum 29284352
cuda_stream_memop: round 2 sum 38080512
cuda_stream_memop: round 3 sum 46876672
cuda_stream_memop: flags 5 0x100000002 0x100000003
EOF
cmp -s "$T/want.out" "$T/plain.out" || fail "plain: output $(cat "$T/plain.out")"
# seeded (one op at a time, streams drawn at random): a wait runs only once met
for seed in 1 2; do
	TSCUDA_DOUBLE_SEED=$seed expect_rc 0 "seed$seed" "$PROG"
	cmp -s "$T/want.out" "$T/seed$seed.out" || fail "seed$seed: output $(cat "$T/seed$seed.out")"
done
expect_rc 0 cap "$CAP" -o "$T/m.sbt" -- "$PROG"
cmp -s "$T/plain.out" "$T/cap.out" || fail "cap: output changed under capture: $(cat "$T/cap.out")"
grep -q "not modeled" "$T/cap.err" && fail "cap: something not modeled: $(cat "$T/cap.err")"
expect_rc 0 dump "$INFO" --dump "$T/m.sbt"
for r in cuStreamWaitValue32:1 cuStreamWaitValue64:1 cuStreamWriteValue32:1 cuStreamWriteValue64:1 \
	cuStreamBatchMemOp:2; do
	n=$(grep -c "cuda\.${r%%:*} " "$T/dump.out")
	[ "$n" = "${r#*:}" ] || fail "dump: $n ${r%%:*} records, expected ${r#*:}"
done
# the 64-bit wait: stream, flags EQ (1), one operation (operation 4 = WAIT_VALUE_64, the window's flag word)
base=$(printf '%016x' "$WIN_BASE" | sed 's/\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)/\8\7\6\5\4\3\2\1/')
grep "cuda.cuStreamWaitValue64 " "$T/dump.out" | grep -q "flags=1 stream=[0-9]* params=0400000000000000" ||
	fail "dump: the 64-bit wait's record: $(grep cuStreamWaitValue64 "$T/dump.out")"
grep "cuda.cuStreamWaitValue32 " "$T/dump.out" | grep -q "params=0100000000000000$base" ||
	fail "dump: the 32-bit wait does not name the flag at $base: $(grep cuStreamWaitValue32 "$T/dump.out")"

# ---- replay ------------------------------------------------------------------------------
replay rep 0 "$T/m.sbt"
has rep out "checkpoints: 6 compared, 6 matched, 0 differ"
replay det 0 "$T/m.sbt" --check-determinism --runs 3
has det out "runs agree with each other at every checkpoint"

# ---- one stream: the first wait is met by nothing before it ------------------------------------
W=$(seq_of "$T/m.sbt" "cuda.cuStreamWaitValue32 ")
replay single 1 "$T/m.sbt" --streams single
has single err "record seq $W (cuda.cuStreamWaitValue32): operation 0 waits until the 32-bit word at $(printf '0x%x' "$WIN_BASE") is GEQ 0x1, but it holds 0x0 after all the work replayed before it; with --streams single nothing after it can run first, so it would wait for ever (the write it waits for comes later in the trace: replay with --streams multi)"

# ---- the write dropped: the wait is never met ---------------------------------------------------
WR=$(seq_of "$T/m.sbt" "cuda.cuStreamWriteValue32 ")
SYNC=$("$INFO" --dump "$T/m.sbt" | awk -v w="$WR" '{ s = $1; sub(/^seq=/, "", s) } s + 0 > w + 0 && /cuda.cuStreamSynchronize / { print s; exit }')
"$M" "$T/m.sbt" "$T/nowrite.sbt" --drop "$WR" >/dev/null || fail "sbt_mutate --drop $WR"
replay nowrite 1 "$T/nowrite.sbt" --wait-timeout 1
has nowrite err "record seq $SYNC (cuda.cuStreamSynchronize): the driver did not return within 1 s"
# seeded, nothing can run the wait: the synchronize fails at once
TSCUDA_DOUBLE_SEED=1 replay nowseed 1 "$T/nowrite.sbt"
has nowseed err "record seq $SYNC (cuda.cuStreamSynchronize): cuStreamSynchronize failed with CUDA_ERROR_UNKNOWN (999)"

# ---- keyframes and --range ----------------------------------------------------------------
TRACESMITH_SNAPSHOT=launch expect_rc 0 capk "$CAP" -o "$T/k.sbt" -- "$PROG"
cmp -s "$T/plain.out" "$T/capk.out" || fail "capk: output changed under capture: $(cat "$T/capk.out")"
has capk err "the keyframe at launch 2 taken without waiting for the launch's stream, still busy after 1 s"
[ "$(grep -c 'taken without waiting' "$T/capk.err")" = 1 ] || fail "capk: not one warning: $(cat "$T/capk.err")"
replay repk 0 "$T/k.sbt"
has repk out "checkpoints: 6 compared, 6 matched, 0 differ"
has repk out "keyframes: 4 compared with the replay's memory"
has repk err "not compared: a stream memory wait replayed before it is still waiting (said once)"
has repk err ": taken without waiting for the launch's stream, still busy (a stream memory wait may hold it): its bytes are of a moment while that stream waits (said once)"
# the keyframe before the second marker launch (a fill of one block)
K=$("$INFO" --dump "$T/k.sbt" | awk '/ keyframe / { k = $1; sub(/^seq=/, "", k) }
	/cuda.cuLaunchKernel / && /name="fill"/ && / grid_x=1 / { if (++n == 2) { print k; exit } }')
[ -n "$K" ] || fail "k.sbt: no keyframe before the second round's first launch"
replay range 0 "$T/k.sbt" --range "$K:"
has range out "checkpoints: 5 compared, 5 matched, 0 differ"
has range err "restored keyframe at seq $K"

# ---- a 4th round whose consumer is a graph with a batch memory-op node waiting --------------------
expect_rc 0 gcap "$CAP" -o "$T/g.sbt" -- "$PROG" --graph
has gcap out "cuda_stream_memop: round 4 sum 55672832"
has gcap out "cuda_stream_memop: flags 9 0x100000002 0x100000003"
replay grep 0 "$T/g.sbt"
has grep out "checkpoints: 7 compared, 7 matched, 0 differ"

# ---- a 4th round whose consumer and producer are graphs built by stream capture ------------------
cat >"$T/cwant.out" <<'WANT'
cuda_stream_memop: round 1 sum 29284352
cuda_stream_memop: round 2 sum 38080512
cuda_stream_memop: round 3 sum 46876672
cuda_stream_memop: round 4 sum 55672832
cuda_stream_memop: flags 11 0x100000002 0x100000003
WANT
expect_rc 0 cplain "$PROG" --capture
cmp -s "$T/cwant.out" "$T/cplain.out" || fail "cplain: output $(cat "$T/cplain.out")"
TSCUDA_DOUBLE_SEED=1 expect_rc 0 cseed "$PROG" --capture
cmp -s "$T/cwant.out" "$T/cseed.out" || fail "cseed: output $(cat "$T/cseed.out")"
expect_rc 0 ccap "$CAP" -o "$T/c.sbt" -- "$PROG" --capture
cmp -s "$T/cwant.out" "$T/ccap.out" || fail "ccap: output changed under capture: $(cat "$T/ccap.out")"
grep -q "not modeled" "$T/ccap.err" && fail "ccap: something not modeled: $(cat "$T/ccap.err")"
expect_rc 0 cdump "$INFO" --dump "$T/c.sbt"
# each memory operation between its stream's cuStreamBeginCapture and cuStreamEndCapture
for r in cuStreamWaitValue32 cuStreamWriteValue32; do
	awk -v r="cuda.$r " '/cuda.cuStreamBeginCapture / { on = 1 } /cuda.cuStreamEndCapture / { on = 0 }
		index($0, r) && on { n++ } END { exit n == 1 ? 0 : 1 }' "$T/cdump.out" ||
		fail "cdump: not one $r inside a capture: $(cat "$T/cdump.out")"
done
replay crep 0 "$T/c.sbt"
has crep out "checkpoints: 7 compared, 7 matched, 0 differ"
replay cdet 0 "$T/c.sbt" --check-determinism --runs 3
has cdet out "runs agree with each other at every checkpoint"

# ---- a round waiting with the NOR condition (--nor) --------------------------------------------------
cat >"$T/nwant.out" <<'WANT'
cuda_stream_memop: round 1 sum 29284352
cuda_stream_memop: round 2 sum 38080512
cuda_stream_memop: round 3 sum 46876672
cuda_stream_memop: round 4 sum 55672832
cuda_stream_memop: flags 5 0x100000002 0x100000003
cuda_stream_memop: flag nor 0xfffe
WANT
expect_rc 0 nplain "$PROG" --nor
cmp -s "$T/nwant.out" "$T/nplain.out" || fail "nplain: output $(cat "$T/nplain.out")"
for seed in 1 2; do
	TSCUDA_DOUBLE_SEED=$seed expect_rc 0 "nseed$seed" "$PROG" --nor
	cmp -s "$T/nwant.out" "$T/nseed$seed.out" || fail "nseed$seed: output $(cat "$T/nseed$seed.out")"
done
expect_rc 0 ncap "$CAP" -o "$T/n.sbt" -- "$PROG" --nor
cmp -s "$T/nwant.out" "$T/ncap.out" || fail "ncap: output changed under capture: $(cat "$T/ncap.out")"
NW=$(seq_of "$T/n.sbt" "cuda.cuStreamWaitValue32 " 2)
"$INFO" --dump "$T/n.sbt" | grep "^seq=$NW " | grep -q "cuda.cuStreamWaitValue32 flags=3 " ||
	fail "n.sbt: the NOR wait's record: $("$INFO" --dump "$T/n.sbt" | grep "^seq=$NW ")"
replay nrep 0 "$T/n.sbt"
has nrep out "checkpoints: 8 compared, 8 matched, 0 differ"
NS=$(seq_of "$T/n.sbt" "cuda.cuStreamWriteValue32 " 3)
NSYNC=$("$INFO" --dump "$T/n.sbt" | awk -v w="$NS" '{ s = $1; sub(/^seq=/, "", s) } s + 0 > w + 0 && /cuda.cuStreamSynchronize / { print s; exit }')
"$M" "$T/n.sbt" "$T/nnomeet.sbt" --drop "$NS" >/dev/null || fail "sbt_mutate --drop $NS"
replay nnomeet 1 "$T/nnomeet.sbt" --wait-timeout 1
has nnomeet err "record seq $NSYNC (cuda.cuStreamSynchronize): the driver did not return within 1 s"

# ---- a wait met by a kernel's write (--kernel-write) -------------------------------------------------
expect_rc 0 kplain "$PROG" --kernel-write
cmp -s "$T/want.out" "$T/kplain.out" || fail "kplain: output $(cat "$T/kplain.out")"
TSCUDA_DOUBLE_SEED=1 expect_rc 0 kseed "$PROG" --kernel-write
cmp -s "$T/want.out" "$T/kseed.out" || fail "kseed: output $(cat "$T/kseed.out")"
expect_rc 0 kwcap "$CAP" -o "$T/kw.sbt" -- "$PROG" --kernel-write
cmp -s "$T/want.out" "$T/kwcap.out" || fail "kwcap: output changed under capture: $(cat "$T/kwcap.out")"
replay kwrep 0 "$T/kw.sbt"
has kwrep out "checkpoints: 6 compared, 6 matched, 0 differ"

# ---- a capture window around round 2 -----------------------------------------------------------
(cd "$T" && expect_rc 0 wcap "$CAP" --profiler -o "$T/w.sbt" -- "$PROG" --window)
cmp -s "$T/plain.out" "$T/wcap.out" || fail "wcap: output changed under capture: $(cat "$T/wcap.out")"
W1="$T/w-window-1.sbt"
[ -s "$W1" ] || fail "wcap: no window trace: $(ls "$T")"
expect_rc 0 wdump "$INFO" --dump "$W1"
for r in cuStreamWaitValue64 cuStreamWriteValue64; do
	[ "$(grep -c "cuda\.$r " "$T/wdump.out")" = 1 ] || fail "wdump: not one $r record: $(cat "$T/wdump.out")"
done
grep -q "cuda.cuStreamWaitValue32 \|cuda.cuStreamBatchMemOp " "$T/wdump.out" && fail "wdump: records of other rounds"
replay wrep 0 "$W1"
has wrep out "checkpoints: 1 compared, 1 matched, 0 differ"

# ---- the window opening while round 2's consumer waits ----------------------------------------------
rm -f "$T"/w-window-*.sbt
rc=0
(cd "$T" && timeout -s KILL 60 "$CAP" --profiler -o "$T/w.sbt" -- "$PROG" --window-at-wait \
	>"$T/ww.out" 2>"$T/ww.err") || rc=$?
[ "$rc" -eq 0 ] || fail "ww: exit $rc (137: capture hung): $(cat "$T/ww.err")"
cmp -s "$T/plain.out" "$T/ww.out" || fail "ww: output changed under capture: $(cat "$T/ww.out")"
has ww err "still busy after 1 s (a stream memory wait may hold it until the program writes its value): its keyframe is taken without waiting, and the work queued on it before the window, which runs inside it, is not in the window's trace (its replay lacks what that work writes)"
[ "$(grep -c 'the window opened with stream' "$T/ww.err")" = 1 ] || fail "ww: not one warning: $(cat "$T/ww.err")"
# the consumer stream alone: the legacy stream, busy while it is, not named
# or counted (the H100's answer, docs/cuda.md)
grep -q 'the window opened with stream 0x[0-9a-f]*[1-9a-f][0-9a-f]* still busy' "$T/ww.err" ||
	fail "ww: the warning names another stream than the consumer, or others: $(cat "$T/ww.err")"
expect_rc 0 wwdump "$INFO" --dump "$W1"
[ "$(grep -c "cuda.cuStreamWriteValue64 " "$T/wwdump.out")" = 1 ] || fail "wwdump: not one write: $(cat "$T/wwdump.out")"
grep -q "cuda.cuStreamWaitValue64 " "$T/wwdump.out" && fail "wwdump: the wait queued before the window is in it"
grep "cuda.cuLaunchKernel " "$T/wwdump.out" | grep -q 'name="vadd"' &&
	fail "wwdump: the vadd queued before the window is in it"
KW=$(seq_of "$W1" " keyframe ")
CP=$(seq_of "$W1" "cuda.cuMemcpyDtoH ")
NOTE="taken without waiting: a stream was still busy (a stream memory wait); the work queued before the window and run inside it is not in this trace"
replay wwrep 3 "$W1"
has wwrep err "tsreplay: cuda: warning: keyframe at seq $KW: $NOTE"
has wwrep err "the device-to-host copy at seq $CP differs from the capture"
has wwrep out "checkpoints: 1 compared, 0 matched, 1 differ"
# the same with the consumer on the main thread's per-thread default
# stream: the window's drain polls it through the recorder's mark (an
# event recorded after the wait), where cuStreamQuery from another thread
# could not reach it; main's recorder synchronized the context and waited
# until the double broke it (CUDA_ERROR_LAUNCH_TIMEOUT after 10 s)
# ptds_window NAME OPTION: the consumer on a per-thread stream, plain and
# under a window opening at the wait: the output unchanged, one warning
# naming the stream's thread, a replay that differs at the vadd's copy
ptds_window() {
	expect_rc 0 "$1plain" "$PROG" "$2"
	cmp -s "$T/plain.out" "$T/$1plain.out" || fail "$1plain: output differs from the created stream's: $(cat "$T/$1plain.out")"
	rm -f "$T"/p-window-*.sbt
	rc=0
	(cd "$T" && timeout -s KILL 60 "$CAP" --profiler -o "$T/p.sbt" -- "$PROG" "$2" --window-at-wait \
		>"$T/$1.out" 2>"$T/$1.err") || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: exit $rc (137: capture hung): $(cat "$T/$1.err")"
	cmp -s "$T/plain.out" "$T/$1.out" || fail "$1: output changed under capture: $(cat "$T/$1.out")"
	[ "$(grep -c 'the window opened with the per-thread default stream of thread 0x[0-9a-f]* still busy after 1 s' "$T/$1.err")" = 1 ] ||
		fail "$1: not one warning naming the per-thread stream: $(cat "$T/$1.err")"
	P1="$T/p-window-1.sbt"
	[ -s "$P1" ] || fail "$1: no window trace: $(ls "$T")"
	replay "$1rep" 3 "$P1"
	has "$1rep" err "tsreplay: cuda: warning: keyframe at seq $(seq_of "$P1" " keyframe "): $NOTE"
	has "$1rep" out "checkpoints: 1 compared, 0 matched, 1 differ"
}
ptds_window pw --ptds
# and on a second thread's per-thread stream (that thread has ended when
# the window opens): the same
ptds_window pt --ptds-thread
# a launch range opening at round 2's producer fill (launch 6)
rm -f "$T"/l-launches-*.sbt
rc=0
(cd "$T" && timeout -s KILL 60 "$CAP" --launches 6-6 -o "$T/l.sbt" -- "$PROG" >"$T/wl.out" 2>"$T/wl.err") || rc=$?
[ "$rc" -eq 0 ] || fail "wl: exit $rc (137: capture hung): $(cat "$T/wl.err")"
cmp -s "$T/plain.out" "$T/wl.out" || fail "wl: output changed under capture: $(cat "$T/wl.out")"
[ "$(grep -c 'the window opened with stream .* still busy after 1 s' "$T/wl.err")" = 1 ] ||
	fail "wl: not one warning: $(cat "$T/wl.err")"
L1="$T/l-launches-6-6.sbt"
[ -s "$L1" ] || fail "wl: no window trace: $(ls "$T")"
expect_rc 0 wldump "$INFO" --dump "$L1"
[ "$(grep -c 'cuda.cuLaunchKernel .*name="fill"' "$T/wldump.out")" = 1 ] || fail "wldump: not one launch: $(cat "$T/wldump.out")"
replay wlrep 0 "$L1"
has wlrep err "keyframe at seq $(seq_of "$L1" " keyframe "): $NOTE (said once)"
has wlrep out "replayed 28 records"
echo "ok"
