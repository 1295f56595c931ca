#!/bin/sh
# GPU only (make test-gpu): capture windows on a real GPU.  gpu_windows
# (tests/gpu/gpu_windows.cu: cudaProfilerStart/Stop and an NVTX range named
# "window" around rounds 3..5 of 8) captured whole, then with tscapture
# --profiler, with --nvtx window (libtracesmith_nvtx.so through
# NVTX_INJECTION64_PATH) and with --launches 5-10 (rounds 3..5's
# kernels); each window's trace replays with every checkpoint equal, and
# its checkpoints are those of rounds 3..5 of the whole capture (the
# captured hashes, by position); the captured runs print what the plain
# run prints.
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
SRC="$TOP/tests/gpu"
gpu_prog "$G/gpu_windows" "$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_windows" "$SRC/gpu_windows.cu"
unset TRACESMITH_TRIGGER NVTX_INJECTION64_PATH

# ckpts TRACE: "object offset length hash" of every checkpoint, in order.
ckpts() {
	"$BUILD/tsinfo" --dump "$1" |
		sed -n 's/.* checkpoint call_seq=[0-9]* \(object=[^ ]* offset=[0-9]* length=[0-9]* hash=[^ ]*\).*/\1/p'
}

expect_rc 0 plain "$G/gpu_windows"
expect_rc 0 full "$BUILD/tscapture" -o "$T/full.sbt" -- "$G/gpu_windows"
cmp -s "$T/plain.out" "$T/full.out" || fail "the captured run printed '$(cat "$T/full.out")'"
expect_rc 0 full.replay "$BUILD/tsreplay" "$T/full.sbt"
# One read-back per round: rounds 3..5 are checkpoints 3..5 of the run.
ckpts "$T/full.sbt" | sed -n '3,5p' >"$T/full.rounds"
[ "$(wc -l <"$T/full.rounds")" -eq 3 ] || fail "the whole capture has $(ckpts "$T/full.sbt" | wc -l) checkpoints"

# window NAME FILE: the window's trace replays and holds rounds 3..5.
window() {
	[ -s "$T/$2" ] || fail "$1: no window trace $2: $(ls "$T")"
	cmp -s "$T/plain.out" "$T/$1.out" || fail "$1: the captured run printed '$(cat "$T/$1.out")'"
	expect_rc 0 "$1.replay" "$BUILD/tsreplay" "$T/$2"
	ckpts "$T/$2" >"$T/$1.rounds"
	cmp -s "$T/$1.rounds" "$T/full.rounds" ||
		fail "$1: the window's checkpoints are not rounds 3..5 of the whole run: $(diff "$T/$1.rounds" "$T/full.rounds")"
	echo "$1: $(cat "$T/$1.replay.err" | tail -n 1)"
}

expect_rc 0 profiler "$BUILD/tscapture" --profiler -o "$T/pr.sbt" -- "$G/gpu_windows"
window profiler pr-window-1.sbt
NVTX_INJECTION64_PATH="$TOP/$BUILD/interpose/libtracesmith_nvtx.so" \
	expect_rc 0 nvtx "$BUILD/tscapture" --nvtx window -o "$T/nv.sbt" -- "$G/gpu_windows"
window nvtx nv-window-1.sbt
# Launches 5..10 are rounds 3..5's kernels; the window closes after launch
# 10, before round 5's read-back: rounds 3 and 4's checkpoints.
expect_rc 0 launches "$BUILD/tscapture" --launches 5-10 -o "$T/lr.sbt" -- "$G/gpu_windows"
[ -s "$T/lr-launches-5-10.sbt" ] || fail "launches: no window trace: $(ls "$T")"
expect_rc 0 launches.replay "$BUILD/tsreplay" "$T/lr-launches-5-10.sbt"
ckpts "$T/lr-launches-5-10.sbt" >"$T/lr.rounds"
sed -n '1,2p' "$T/full.rounds" | cmp -s - "$T/lr.rounds" ||
	fail "launches: the window's checkpoints are not rounds 3 and 4 of the whole run"
echo ok
