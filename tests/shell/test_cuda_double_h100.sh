#!/bin/sh
# A real H100 trace replays on the libcuda test double: driver_cubin.sbt
# (tests/fixtures/h100/as-captured) loads the real cubin from the trace, and
# its two kernels (gpu_fill, and gpu_chase following device pointers stored
# in device memory) run by their host twins; both readbacks must equal the
# GPU's, and no launch may go unrun for want of a twin.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TSCUDA_DOUBLE_SEED TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_QUIET
LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
TRACE="$TOP/tests/fixtures/h100/as-captured/driver_cubin.sbt"

expect_rc 0 cubin "$TOP/$BUILD/tsreplay" "$TRACE"
has cubin out 'checkpoints: 2 compared, 2 matched, 0 differ'
if grep -q 'has no host twin' "$T/cubin.err"; then
	fail "a kernel of driver_cubin ran nothing: $(grep 'has no host twin' "$T/cubin.err")"
fi
echo "ok"
