#!/bin/sh
# The real H100 traces of tests/fixtures/h100 replayed on the libcuda test
# double, which runs the project's GPU test kernels by host twins (what the
# GPU computed, checked by test_tcd_twins) and follows the real driver's
# measured address rules (facts 1-4 of the shared gpu-fixtures README):
#   - fixed-va/saxpy_static, saxpy_shared, driver_cubin (same-address
#     capture, no window record: addresses in the default window) replay
#     with every device-to-host checkpoint compared and equal; driver_cubin's
#     kernel follows device pointers stored in device memory;
#   - fixed-va/triton_add replays every record; PyTorch's and Triton's
#     kernels have no twin, are reported as not run, and the checkpoint
#     after them is reported as not compared (exit 0 covers only compared);
#   - as-captured/saxpy_static (main at eda4f8a) gets past the runtime's
#     primary context, then stops naming the image it does not hold;
#   - as-captured/driver_cubin (allocations at the driver's addresses, which
#     another process cannot have: fact 3) relocates and reports
#     CUDA_ERROR_ILLEGAL_ADDRESS at the chase's readback, as the H100 did;
#   - the cubin made to say sm_80 fails to load naming sm_80 and sm_90;
#   - tsinfo counts the module loads and the one without image.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
if tsan_build; then
	echo "the real traces' window at 0x200000000000 is outside TSan's memory layout"
	exit 77
fi
unset TSCUDA_DOUBLE_SEED TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TSCUDA_DOUBLE_STATS \
	TSCUDA_DOUBLE_QUIET TRACESMITH_CUDA_DRIVER
LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
FX="$TOP/tests/fixtures/h100"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"

for p in saxpy_static saxpy_shared; do
	expect_rc 0 "$p" "$RP" "$FX/fixed-va/$p.sbt"
	has "$p" out 'checkpoints: 1 compared, 1 matched, 0 differ'
	if grep -q 'not compared\|has no host twin\|could not be placed' "$T/$p.err"; then
		fail "$p: $(cat "$T/$p.err")"
	fi
done
expect_rc 0 cubin "$RP" "$FX/fixed-va/driver_cubin.sbt"
has cubin out 'checkpoints: 2 compared, 2 matched, 0 differ'
if grep -q 'has no host twin\|could not be placed' "$T/cubin.err"; then
	fail "driver_cubin: $(cat "$T/cubin.err")"
fi
# Three replays agree, each at the same addresses.
expect_rc 0 cubin_det "$RP" --check-determinism --runs 3 "$FX/fixed-va/driver_cubin.sbt"

expect_rc 0 triton "$RP" "$FX/fixed-va/triton_add.sbt"
has triton out '0 compared, 0 matched, 0 differ, 1 NOT COMPARED'
has triton out 'ran nothing on the test double): checkpoint seq 33'
has triton err "seq 13: the launch of kernel '_ZN2at6native29vectorized_elementwise_kernel"
has triton err "seq 19: the launch of kernel 'k' ran nothing on this driver"
n=$(grep -c 'ran nothing on this driver' "$T/triton.err")
[ "$n" -ge 2 ] || fail "triton: $n kernels reported as not run"
# Every record replayed: the last CUDA record's seq is in the summary.
last=$("$INFO" --dump "$FX/fixed-va/triton_add.sbt" | grep ' cuda\.' | tail -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/')
has triton out "(seq 1..$last)"

expect_rc 1 old_saxpy "$RP" "$FX/as-captured/saxpy_static.sbt"
has old_saxpy err 'record seq 13 (cuda.cuLibraryLoadData): the trace holds no image for this module'
if grep -q 'was never created or retained' "$T/old_saxpy.err"; then
	fail "as-captured saxpy: the runtime's primary context was not inferred: $(cat "$T/old_saxpy.err")"
fi

expect_rc 1 old_cubin "$RP" "$FX/as-captured/driver_cubin.sbt"
has old_cubin err 'could not be placed at that address'
has old_cubin err 'kernel gpu_chase made an illegal memory access'
has old_cubin err '(cuda.cuMemcpyDtoH): cuMemcpyDtoH failed with CUDA_ERROR_ILLEGAL_ADDRESS (700)'

# The real cubin made to say sm_80 (e_flags byte 49: 0x5a -> 0x50): the
# load fails naming both architectures.
expect_rc 0 arch.poke "$TOP/$BUILD/tests/programs/vk_tracetool" poke "$FX/fixed-va/driver_cubin.sbt" \
	"$T/arch.sbt" --blob 1 --byte 49 --xor 10
expect_rc 1 arch "$RP" "$T/arch.sbt"
has arch err "record seq 5 (cuda.cuModuleLoadData): cuModuleLoadData failed with CUDA_ERROR_NO_BINARY_FOR_GPU (209): the image is built for sm_80, and device 0 is sm_90"

expect_rc 0 info_old "$INFO" "$FX/as-captured/saxpy_static.sbt"
has info_old out 'cuda modules 1 loaded, 0 B of images'
has info_old out '1 without image (replay cannot load those)'
expect_rc 0 info_triton "$INFO" "$FX/fixed-va/triton_add.sbt"
has info_triton out 'cuda modules 5 loaded, 4.9 MiB of images'
has info_triton out '0 without image'
echo "ok"
