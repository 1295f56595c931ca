#!/bin/sh
# GPU only (make test-gpu): stream memory operations on the real driver.
# tests/cuda/cuda_stream_memop (the libcuda test double's program: a
# consumer stream waits with cuStreamWaitValue32/64 and cuStreamBatchMemOp
# for flags a producer stream writes with cuStreamWriteValue32/64 and
# cuStreamBatchMemOp, each wait queued before its write) runs with the
# kernels of tests/gpu/gpu_double_kernels.cu: plain it prints what the
# double prints; captured it prints the same; the trace replays with every
# checkpoint equal and three replays agree; on one stream (--streams
# single) the replay stops at the first wait, exit 1, naming it; with
# --graph (a 4th round waiting in a graph's batch memory-op node) capture
# and replay with its 7 checkpoints equal; a window (--profiler) opening
# while round 2's consumer waits on the main thread's per-thread default
# stream (--ptds --window-at-wait) or on an ended second thread's
# (--ptds-thread): the program's output unchanged, one warning naming the
# per-thread stream's thread (without the recorder's marks the window's
# context synchronization would wait for ever).  tests/cuda/cuda_stream_query
# (what cuStreamQuery answers for each kind of stream while one is held
# by a wait) prints on the driver, plain and captured, what the H100
# printed (tests/fixtures/h100/stream_query.txt, which the double follows:
# test_cuda_stream_query.sh).  Where make did not build a program (a
# pack), it is built here with cc against the toolkit's libcuda stub.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
G="$BUILD/gpu"
mkdir -p "$G"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
ARCH=sm_${cc:-90}
gpu_prog "$G/kernels.cubin" "$NVCC" -arch="$ARCH" -cubin -o "$G/kernels.cubin" "$TOP/tests/gpu/gpu_double_kernels.cu"
PROG="$BUILD/tests/cuda/cuda_stream_memop"
if [ ! -x "$PROG" ]; then
	PROG="$G/cuda_stream_memop"
	gpu_prog "$PROG" cc -std=c11 -O2 -D_GNU_SOURCE -I"$TOP" -I"$CUDA_HOME/include" -o "$PROG" \
		"$TOP/tests/cuda/cuda_stream_memop.c" -L"$CUDA_HOME/lib64/stubs" -lcuda -lxxhash
fi
QPROG="$BUILD/tests/cuda/cuda_stream_query"
if [ ! -x "$QPROG" ]; then
	QPROG="$G/cuda_stream_query"
	gpu_prog "$QPROG" cc -std=c11 -O2 -D_GNU_SOURCE -I"$TOP" -I"$CUDA_HOME/include" -o "$QPROG" \
		"$TOP/tests/cuda/cuda_stream_query.c" -L"$CUDA_HOME/lib64/stubs" -lcuda -lpthread -lxxhash
fi
CUP_IMAGE_DIR=$(cd "$G" && pwd)
export CUP_IMAGE_DIR
unset TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_CUDA_VA

expect_rc 0 plain "$PROG"
cat >"$T/want.out" <<'OUT'
cuda_stream_memop: round 1 sum 29284352
cuda_stream_memop: round 2 sum 38080512
cuda_stream_memop: round 3 sum 46876672
cuda_stream_memop: flags 5 0x100000002 0x100000003
OUT
cmp -s "$T/want.out" "$T/plain.out" || fail "plain: the real driver printed '$(cat "$T/plain.out")'"
expect_rc 0 cap "$BUILD/tscapture" -o "$T/m.sbt" -- "$PROG"
cmp -s "$T/plain.out" "$T/cap.out" || fail "cap: the captured run printed '$(cat "$T/cap.out")'"
for mode in replay det; do
	if [ $mode = det ]; then set -- --check-determinism --runs 3; else set --; fi
	expect_rc 0 $mode "$BUILD/tsreplay" --json "$@" "$T/m.sbt"
	n=$(json_field "$T/$mode.out" checkpoints)
	m=$(json_field "$T/$mode.out" matched)
	[ "$n" = 6 ] && [ "$m" = 6 ] || fail "$mode: $n checkpoints, $m matched: $(cat "$T/$mode.out")"
done
expect_rc 0 gcap "$BUILD/tscapture" -o "$T/g.sbt" -- "$PROG" --graph
has gcap out "cuda_stream_memop: round 4 sum 55672832"
expect_rc 0 greplay "$BUILD/tsreplay" --json "$T/g.sbt"
[ "$(json_field "$T/greplay.out" matched)" = 7 ] || fail "greplay: $(cat "$T/greplay.out")"
expect_rc 1 single "$BUILD/tsreplay" --streams single "$T/m.sbt"
has single err "(cuda.cuStreamWaitValue32): operation 0 waits until the 32-bit word at 0x"
for v in ptds ptds-thread; do
	rc=0
	timeout -s KILL 60 "$BUILD/tscapture" --profiler -o "$T/$v.sbt" -- "$PROG" --$v --window-at-wait \
		>"$T/$v.out" 2>"$T/$v.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "$v: exit $rc (137: the window's opening hung): $(cat "$T/$v.err")"
	cmp -s "$T/want.out" "$T/$v.out" || fail "$v: the captured run printed '$(cat "$T/$v.out")'"
	[ "$(grep -c 'the window opened with the per-thread default stream of thread 0x[0-9a-f]* still busy' "$T/$v.err")" = 1 ] ||
		fail "$v: not one warning naming the per-thread stream: $(cat "$T/$v.err")"
done
# cuStreamQuery's answers on this driver: as the H100's (and the double's)
expect_rc 0 query "$QPROG"
cmp -s "$TOP/tests/fixtures/h100/stream_query.txt" "$T/query.out" ||
	fail "query: this driver's cuStreamQuery answers otherwise than the H100's: $(diff "$TOP/tests/fixtures/h100/stream_query.txt" "$T/query.out")"
expect_rc 0 qcap "$BUILD/tscapture" -o "$T/q.sbt" -- "$QPROG"
cmp -s "$TOP/tests/fixtures/h100/stream_query.txt" "$T/qcap.out" ||
	fail "query under capture: $(diff "$TOP/tests/fixtures/h100/stream_query.txt" "$T/qcap.out")"
echo "ok: the double's output, 6 checkpoints equal, 3 runs agree, one stream stops at the first wait, per-thread streams polled, cuStreamQuery as on the H100"
