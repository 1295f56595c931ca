#!/bin/sh
# Pinned host memory that kernels read directly (zero copy), rewritten by
# the CPU between launches (cuda_zero_copy on the libcuda double): no
# recorded call carries those bytes, so capture snapshots the pinned
# allocations a launch's parameters point into before the launch
# (SBT_CM_KF_HOST_INPUTS keyframes), and replay writes them into its own
# pinned allocation.
#   - cuMemHostAlloc(DEVICEMAP) and cuMemAllocHost, kernelParams and
#     `extra` forms: one snapshot per launch (8), the exit report counts
#     them, every checkpoint matches;
#   - --check-determinism agrees over three runs;
#   - with TRACESMITH_SNAPSHOT=launch, --range starting at a later launch
#     matches its checkpoints too;
#   - the launches' host stacks begin in main, at the line of the call;
#   - a program with pinned memory no kernel reads (cuda_driver_app copies
#     through it) takes no such snapshot.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
APP="$TOP/$BUILD/tests/cuda/cuda_zero_copy"

expect_rc 0 plain "$APP"
want=$(sed -n 's/.* hash \(0x[0-9a-f]*\)$/\1/p' "$T/plain.out")
[ -n "$want" ] || fail "plain: no hash: $(cat "$T/plain.out")"

for form in hostalloc allochost; do
	opt=
	[ $form = allochost ] && opt=--alloc-host
	expect_rc 0 "cap.$form" "$CAP" -o "$T/$form.sbt" -- "$APP" $opt
	has "cap.$form" out "hash $want"
	has "cap.$form" err "8 launches, 1 keyframes, 8 snapshots of pinned host memory kernels read"
	n=$("$INFO" --dump "$T/$form.sbt" | grep -c 'cuda.tsSnapshot .* sub=[567]$' || true)
	[ "$n" -eq 8 ] || fail "$form: $n snapshots of pinned host memory in the trace, want 8"
	expect_rc 0 "rp.$form" "$RP" "$T/$form.sbt"
	has "rp.$form" out "checkpoints: 5 compared, 5 matched, 0 differ"
done

# Host stacks start where the program called the driver (the interposer's
# own frames cut), named with the source line (docs/capture.md, "Stacks").
line=$(grep -n 'args1, NULL));' "$TOP/tests/cuda/cuda_zero_copy.c" | cut -d: -f1)
"$INFO" --dump --stacks "$T/hostalloc.sbt" | grep -A1 'cuda.cuLaunchKernel ' | sed -n 2p >"$T/frame0"
grep -Eq "^    #0  0x[0-9a-f]+ cuda_zero_copy!main\+0x[0-9a-f]+ \(tests/cuda/cuda_zero_copy\.c:$line\)$" "$T/frame0" ||
	fail "the first launch's first frame is not main at line $line: $(cat "$T/frame0")"

expect_rc 0 determinism "$RP" --check-determinism --runs 3 "$T/hostalloc.sbt"
has determinism out "runs agree with each other at every checkpoint"

# Full keyframes at every launch, then a range from the fifth launch on:
# the state before it is rebuilt, the pinned bytes come from its snapshot.
TRACESMITH_SNAPSHOT=launch expect_rc 0 cap.launch "$CAP" -o "$T/launch.sbt" -- "$APP"
from=$("$INFO" --dump "$T/launch.sbt" | grep 'cuda.cuLaunchKernel' | sed -n '5s/^seq=\([0-9]*\) .*/\1/p')
[ -n "$from" ] || fail "no fifth launch in $T/launch.sbt"
expect_rc 0 range "$RP" --range "$from:" "$T/launch.sbt"
has range out "checkpoints: 3 compared, 3 matched, 0 differ"

expect_rc 0 nokernelreads "$CAP" -o "$T/driver.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_driver_app"
! grep -q 'snapshots of pinned host memory' "$T/nokernelreads.err" ||
	fail "cuda_driver_app: pinned memory no kernel reads was snapshotted: $(cat "$T/nokernelreads.err")"
echo "ok"
