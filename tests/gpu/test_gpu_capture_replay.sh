#!/bin/sh
# GPU only (make test-gpu): builds the nvcc programs into $BUILD/gpu/ for this
# GPU's architecture (default static cudart, -cudart shared, a driver-API
# program loading a cubin, a cuBLAS SGEMM), runs each plainly, under
# tscapture, and replays the trace with tsreplay; every replay must exit 0
# (all checkpoints equal to the capture) and the captured run must print the
# same result line as the plain one; three replays agree.  Also an -rdc
# build (fatbin wrapper version 2), a float-atomics program whose replays
# must be flagged as nondeterministic (exit 4) while its integer form
# passes, CUDA arrays (texture and surface objects), and the H100 fixture traces.
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

gpu_prog "$G/gpu_saxpy_static" "$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_saxpy_static" "$SRC/gpu_saxpy.cu"
gpu_prog "$G/gpu_saxpy_shared" "$NVCC" -arch="$ARCH" -cudart shared -I"$SRC" -o "$G/gpu_saxpy_shared" "$SRC/gpu_saxpy.cu"
gpu_prog "$G/gpu_driver_kernels.cubin" "$NVCC" -arch="$ARCH" -cubin -o "$G/gpu_driver_kernels.cubin" \
	"$SRC/gpu_driver_kernels.cu"
gpu_prog "$G/gpu_driver_cubin" cc -std=c11 -O2 -I"$CUDA_HOME/include" -I"$SRC" -o "$G/gpu_driver_cubin" \
	"$SRC/gpu_driver_cubin.c" -L"$CUDA_HOME/lib64/stubs" -lcuda
gpu_prog "$G/gpu_sgemm" "$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_sgemm" "$SRC/gpu_sgemm.cu" -lcublas
gpu_prog "$G/gpu_rdc" "$NVCC" -arch="$ARCH" -rdc=true -I"$SRC" -o "$G/gpu_rdc" "$SRC/gpu_rdc_main.cu" \
	"$SRC/gpu_rdc_dev.cu"
gpu_prog "$G/gpu_atomics" "$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_atomics" "$SRC/gpu_atomics.cu"
gpu_prog "$G/gpu_arrays" "$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_arrays" "$SRC/gpu_arrays.cu"

# roundtrip NAME PROGRAM ARGS...: plain run, captured run, replay (every
# checkpoint equal), three replays agreeing.  (expect_rc sets `name`: the
# trace's name is kept in rt_name.)
roundtrip() {
	rt_name=$1
	shift
	expect_rc 0 "$rt_name.plain" "$@"
	expect_rc 0 "$rt_name.capture" "$BUILD/tscapture" -o "$T/$rt_name.sbt" -- "$@"
	cmp -s "$T/$rt_name.plain.out" "$T/$rt_name.capture.out" ||
		fail "$rt_name: captured run printed '$(cat "$T/$rt_name.capture.out")', plain '$(cat "$T/$rt_name.plain.out")'"
	[ -s "$T/$rt_name.sbt" ] || fail "$rt_name: no trace written"
	# Calls made after the trace was finished at exit (libcublas's teardown
	# from its destructors) are recorded, never lost with a warning.
	! grep -q "after the trace was closed" "$T/$rt_name.capture.err" ||
		fail "$rt_name: calls lost at exit: $(grep "after the trace was closed" "$T/$rt_name.capture.err")"
	expect_rc 0 "$rt_name.replay" "$BUILD/tsreplay" --json "$T/$rt_name.sbt"
	expect_rc 0 "$rt_name.det" "$BUILD/tsreplay" --check-determinism --runs 3 "$T/$rt_name.sbt"
	echo "$rt_name: $(cat "$T/$rt_name.plain.out") replay $(cat "$T/$rt_name.replay.out")"
}

gpu_part saxpy_static roundtrip saxpy_static "$G/gpu_saxpy_static"
gpu_part saxpy_shared roundtrip saxpy_shared "$G/gpu_saxpy_shared"
gpu_part driver_cubin roundtrip driver_cubin "$G/gpu_driver_cubin" "$G/gpu_driver_kernels.cubin"
gpu_part sgemm roundtrip sgemm "$G/gpu_sgemm"
# cuBLAS's teardown at exit, as the info log counts it.
sgemm_late() {
	TRACESMITH_LOG=info expect_rc 0 sgemm.late "$BUILD/tscapture" -o "$T/sgemm_late.sbt" -- "$G/gpu_sgemm"
	! grep -q "after the trace was closed" "$T/sgemm.late.err" || fail "sgemm: calls lost at exit"
	echo "sgemm at exit: $(grep -h "after the trace was finished at exit" "$T/sgemm.late.err" | grep -v "^.*record [0-9]* (" | head -n 1)"
	echo "sgemm at exit: $(grep -c "recorded after the trace was finished at exit: record" "$T/sgemm.late.err") records written after the finish"
}
gpu_part sgemm_late sgemm_late
gpu_part rdc roundtrip rdc "$G/gpu_rdc"
# CUDA arrays: texture and surface objects over them, 2D/3D copies.
gpu_part arrays roundtrip arrays "$G/gpu_arrays"
# The deterministic integer form of the atomics program replays and agrees.
gpu_part atomics_int roundtrip atomics_int "$G/gpu_atomics" --int

# Float atomics with many collisions: each run sums in another order, so
# replays differ from each other and --check-determinism must say so (exit 4).
atomics_float() {
	expect_rc 0 atomics.capture "$BUILD/tscapture" -o "$T/atomics.sbt" -- "$G/gpu_atomics"
	rc=0
	"$BUILD/tsreplay" --check-determinism --runs 5 "$T/atomics.sbt" >"$T/atomics.det.out" 2>"$T/atomics.det.err" ||
		rc=$?
	[ "$rc" -eq 4 ] || fail "atomics: --check-determinism exited $rc, expected 4: $(cat "$T/atomics.det.err")"
	echo "atomics: $(grep -h "runs differ" "$T/atomics.det.err" | head -n 1)"
}
gpu_part atomics atomics_float

# The real traces recorded on the H100 (same-address prototype) replay here.
fixture() {
	expect_rc 0 "fixture.$1" "$BUILD/tsreplay" "$TOP/tests/fixtures/h100/fixed-va/$1.sbt"
	echo "fixture $1: $(tail -n 1 "$T/fixture.$1.out")"
}
for t in saxpy_static saxpy_shared driver_cubin triton_add; do
	gpu_part "fixture.$t" fixture "$t"
done
grep -q '^gpu_saxpy: launches 9 hash ' "$T/saxpy_static.plain.out" || fail "gpu_saxpy: $(cat "$T/saxpy_static.plain.out")"
cmp -s "$T/saxpy_static.plain.out" "$T/saxpy_shared.plain.out" || fail "static and shared cudart disagree"
gpu_done
