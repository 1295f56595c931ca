#!/bin/sh
# GPU only (make test-gpu): builds the nvcc programs into $BUILD/gpu/ for this
# GPU's architecture (default static cudart, -cudart shared, a driver-API
# program loading a cubin, a cuBLAS SGEMM), runs each plainly, under
# tscapture, and replays the trace with tsreplay; every replay must exit 0
# (all checkpoints equal to the capture) and the captured run must print the
# same result line as the plain one.  Written to the CUDA 13 documentation;
# not yet run on a GPU (see docs/cuda-double.md).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
G="$BUILD/gpu"
mkdir -p "$G"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
ARCH=sm_${cc:-90}
SRC="$TOP/tests/gpu"

"$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_saxpy_static" "$SRC/gpu_saxpy.cu" || fail "nvcc gpu_saxpy (static cudart)"
"$NVCC" -arch="$ARCH" -cudart shared -I"$SRC" -o "$G/gpu_saxpy_shared" "$SRC/gpu_saxpy.cu" ||
	fail "nvcc gpu_saxpy (-cudart shared)"
"$NVCC" -arch="$ARCH" -cubin -o "$G/gpu_driver_kernels.cubin" "$SRC/gpu_driver_kernels.cu" || fail "nvcc -cubin"
cc -std=c11 -O2 -I"$CUDA_HOME/include" -I"$SRC" -o "$G/gpu_driver_cubin" "$SRC/gpu_driver_cubin.c" \
	-L"$CUDA_HOME/lib64/stubs" -lcuda || fail "cc gpu_driver_cubin"
"$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_sgemm" "$SRC/gpu_sgemm.cu" -lcublas || fail "nvcc gpu_sgemm"

# roundtrip NAME PROGRAM ARGS...: plain run, captured run, replay.
roundtrip() {
	name=$1
	shift
	expect_rc 0 "$name.plain" "$@"
	expect_rc 0 "$name.capture" "$BUILD/tscapture" -o "$T/$name.sbt" -- "$@"
	cmp -s "$T/$name.plain.out" "$T/$name.capture.out" ||
		fail "$name: captured run printed '$(cat "$T/$name.capture.out")', plain '$(cat "$T/$name.plain.out")'"
	[ -s "$T/$name.sbt" ] || fail "$name: no trace written"
	expect_rc 0 "$name.replay" "$BUILD/tsreplay" --json "$T/$name.sbt"
	echo "$name: $(cat "$T/$name.plain.out") replay $(cat "$T/$name.replay.out")"
}

roundtrip saxpy_static "$G/gpu_saxpy_static"
roundtrip saxpy_shared "$G/gpu_saxpy_shared"
roundtrip driver_cubin "$G/gpu_driver_cubin" "$G/gpu_driver_kernels.cubin"
roundtrip sgemm "$G/gpu_sgemm"
grep -q '^gpu_saxpy: launches 9 hash ' "$T/saxpy_static.plain.out" || fail "gpu_saxpy: $(cat "$T/saxpy_static.plain.out")"
cmp -s "$T/saxpy_static.plain.out" "$T/saxpy_shared.plain.out" || fail "static and shared cudart disagree"
echo ok
