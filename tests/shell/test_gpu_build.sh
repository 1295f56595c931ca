#!/bin/sh
# The GPU tests (tests/gpu, make test-gpu) cannot run here, but they must
# keep building: every .cu compiles and links with nvcc for sm_90 (static
# and shared cudart, -rdc, cuBLAS, -cubin), the C programs compile with
# -Werror, the Python workloads compile, and the scripts parse.  Skipped
# (exit 77) only where there is no nvcc.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
[ -x "$NVCC" ] || { echo "no nvcc at $NVCC: the GPU tests' build is not checked"; exit 77; }
SRC="$TOP/tests/gpu"
nv() {
	out=$1
	shift
	"$NVCC" -arch=sm_90 -I"$SRC" -o "$T/$out" "$@" >"$T/$out.log" 2>&1 ||
		fail "nvcc $out: $(cat "$T/$out.log")"
}
nv gpu_saxpy_static "$SRC/gpu_saxpy.cu"
nv gpu_saxpy_shared -cudart shared "$SRC/gpu_saxpy.cu"
nv gpu_sgemm "$SRC/gpu_sgemm.cu" -lcublas
nv gpu_rdc -rdc=true "$SRC/gpu_rdc_main.cu" "$SRC/gpu_rdc_dev.cu"
nv gpu_atomics "$SRC/gpu_atomics.cu"
nv gpu_launch_loop "$SRC/gpu_launch_loop.cu"
nv gpu_windows "$SRC/gpu_windows.cu"
nv gpu_prealloc "$SRC/gpu_prealloc.cu"
nv gpu_arrays "$SRC/gpu_arrays.cu"
nv gpu_driver_kernels.cubin -cubin "$SRC/gpu_driver_kernels.cu"
for c in gpu_driver_cubin cupti_count; do
	extra=""
	[ "$c" = cupti_count ] && extra="-I$CUDA_HOME/extras/CUPTI/include -fPIC -shared"
	# shellcheck disable=SC2086
	cc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$CUDA_HOME/include" -I"$SRC" $extra \
		-c "$SRC/$c.c" -o "$T/$c.o" 2>"$T/$c.log" || fail "cc $c: $(cat "$T/$c.log")"
done
for p in "$SRC"/*.py; do
	python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$p" ||
		fail "python: $p does not parse"
done
for s in "$SRC"/*.sh; do
	sh -n "$s" || fail "$s does not parse"
done
# An -rdc program hands cudart's version 2 wrapper to the driver: its
# .nvFatBinSegment holds one (magic 0x466243b1, version 2).
if command -v readelf >/dev/null 2>&1; then
	readelf -x .nvFatBinSegment "$T/gpu_rdc" | grep -q 'b1436246 02000000' ||
		fail "gpu_rdc: no version 2 fatbin wrapper in .nvFatBinSegment"
fi
echo ok
