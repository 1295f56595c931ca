#!/bin/sh
# GPU only, run by hand on a machine with an NVIDIA GPU (not a test: it is
# not named test_*.sh, so `make test-gpu` does not run it).  Issue 4's
# benchmark on the real driver: GPU_BENCH_LAUNCHES (default 10000)
# empty-kernel launches from tests/gpu/gpu_launch_loop.cu (nvcc, default
# static cudart, built for this GPU's architecture into $BUILD/gpu/), plain
# against the interposer loaded but off (TRACESMITH_DISABLE=1) and captured
# with TRACESMITH_STACKS=none and =work, through
# tests/bench/cuda_bench.sh --driver system: ns added per launch and the
# captured/plain ratio, medians over CUDA_BENCH_ROUNDS alternating rounds,
# and the CUDA issue's goal (stacks none: at most 100 ns added per launch)
# marked met or not.  Written to the CUDA 13
# documentation; not yet run on a GPU (docs/benchmarks.md, CUDA section).
#   BUILD=build sh tests/gpu/bench_launch.sh
# Environment: GPU_BENCH_LAUNCHES (comma list allowed), GPU_BENCH_ONLY
# (wall, or wall,callgrind: callgrind over the real driver is slow),
# CUDA_BENCH_ROUNDS, CUDA_HOME, NVCC.
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "bench_launch: no NVIDIA GPU here (nvidia-smi missing or found no device); nothing was measured" >&2
	exit 1
fi
[ -e "$BUILD/interpose/libtracesmith_cuda.so" ] ||
	{ echo "bench_launch: $BUILD/interpose/libtracesmith_cuda.so is not built; run make" >&2; exit 1; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
G="$BUILD/gpu"
mkdir -p "$G"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
ARCH=sm_${cc:-90}
[ "${GPU_PREBUILT:-0}" = 1 ] && [ -x "$G/gpu_launch_loop" ] ||
	"$NVCC" -O2 -arch="$ARCH" -Itests/gpu -o "$G/gpu_launch_loop" tests/gpu/gpu_launch_loop.cu ||
	{ echo "bench_launch: nvcc could not build tests/gpu/gpu_launch_loop.cu for $ARCH" >&2; exit 1; }
echo "bench_launch: GPU $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1), $ARCH"
BUILD=$BUILD sh tests/bench/cuda_bench.sh --driver system --program "$G/gpu_launch_loop" \
	--launches "${GPU_BENCH_LAUNCHES:-10000}" --only "${GPU_BENCH_ONLY:-wall}"
