#!/bin/sh
# GPU only: builds tests/gpu/cupti_count.c as a CUPTI injection library and
# checks that it counts the launches of gpu_saxpy (9, whichever cuLaunchKernel[Ex][_ptsz] the runtime uses), both as
# CUDA_INJECTION64_PATH and with LD_PRELOAD.  The result file has the same
# "name count" format as the double's TSCUDA_DOUBLE_STATS, for the
# interposer's cross-check.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
G="$BUILD/gpu"
mkdir -p "$G"
gpu_prog "$G/libcupti_count.so" cc -std=c11 -O2 -fPIC -shared -I"$CUDA_HOME/include" -o "$G/libcupti_count.so" \
	"$TOP/tests/gpu/cupti_count.c" -L"$CUDA_HOME/lib64" -L"$CUDA_HOME/extras/CUPTI/lib64" -lcupti -lpthread
[ -x "$G/gpu_saxpy_shared" ] || fail "run test_gpu_capture_replay.sh first (it builds gpu_saxpy_shared)"
CUPTI_COUNT_OUT="$T/inj.counts" CUDA_INJECTION64_PATH="$G/libcupti_count.so" expect_rc 0 inj "$G/gpu_saxpy_shared"
CUPTI_COUNT_OUT="$T/pre.counts" LD_PRELOAD="$G/libcupti_count.so" expect_rc 0 pre "$G/gpu_saxpy_shared"
for f in inj pre; do
	n=$(sed -n 's/^cuLaunchKernel\(Ex\)\{0,1\}\(_ptsz\)\{0,1\} \([0-9]*\)$/\3/p' "$T/$f.counts" | awk '{s += $1} END {print s + 0}')
	[ "$n" -eq 9 ] || fail "$f: CUPTI counted $n cuLaunchKernel[Ex][_ptsz] calls, expected 9: $(tr '\n' ';' <"$T/$f.counts")"
done
echo ok
