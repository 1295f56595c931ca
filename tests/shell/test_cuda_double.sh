#!/bin/sh
# The CUDA test programs on the libcuda test double: each prints its known
# hash; the runtime-style program (no link-time cu* symbol) prints the same
# hash as the driver-API one; seeded reordering changes the racy program's
# result across seeds (and repeats it for one seed) but never the properly
# ordered programs'; device addresses differ from run to run unless seeded
# (measured fact 1 of the shared gpu-fixtures README); a fixed-address reserve
# is placed as the real driver was measured to place it (facts 2-4, default),
# or honoured, refused (another address) or failed as TSCUDA_DOUBLE_RESERVE
# says; the side door retains the primary context unseen (fact 6); pointer
# attributes, address ranges and legacy IPC answer from the registry; big
# allocations are lazy; bad parameters and handles get the documented errors
# with messages that say what was wrong; call counts and copied bytes are
# written;
# real module images (the H100 cubin and cudart's fatbin) load, report the
# real driver's parameter layouts and run by host twins; a kernel without a
# twin runs nothing, is said once and counted; a wild access in a kernel is
# CUDA_ERROR_ILLEGAL_ADDRESS, sticky for the context, never a crash, while
# a fault of the program itself still crashes it.  The runtime-style
# program reaches its context and module as cudart does.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
[ -e "$BUILD/tests/doubles/cuda/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
P="$BUILD/tests/cuda"
LD_LIBRARY_PATH="$BUILD/tests/doubles/cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
unset TSCUDA_DOUBLE_SEED TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_QUIET

DRIVER='cuda_driver_app: size 4096 hash 0x7170e1c7c96eee4a'
RUNTIME='cuda_runtime_like: size 4096 hash 0x7170e1c7c96eee4a'
VMM='cuda_vmm_app: nodes 1000 hash 0x713cc23457b91aa5'
GRAPH='cuda_graph_app: launches 3 hash 0x27bef1ad951b655c'

# line NAME PATTERN: the line of $T/NAME.out starting with PATTERN
line() { grep "^$2" "$T/$1.out" || true; }

expect_rc 0 driver "$P/cuda_driver_app"
[ "$(cat "$T/driver.out")" = "$DRIVER" ] || fail "cuda_driver_app printed '$(cat "$T/driver.out")'"
expect_rc 0 runtime "$P/cuda_runtime_like"
[ "$(cat "$T/runtime.out")" = "$RUNTIME" ] || fail "cuda_runtime_like printed '$(cat "$T/runtime.out")'"
if nm -D "$P/cuda_runtime_like" | grep -q ' U cu'; then
	fail "cuda_runtime_like links cu* symbols: $(nm -D "$P/cuda_runtime_like" | grep ' U cu' | head -3)"
fi
expect_rc 0 graph "$P/cuda_graph_app"
[ "$(cat "$T/graph.out")" = "$GRAPH" ] || fail "cuda_graph_app printed '$(cat "$T/graph.out")'"
expect_rc 0 vmm "$P/cuda_vmm_app"
[ "$(line vmm 'cuda_vmm_app: nodes')" = "$VMM" ] || fail "cuda_vmm_app printed '$(cat "$T/vmm.out")'"
expect_rc 0 loop "$P/cuda_launch_loop" --launches 2000
has loop out 'cuda_launch_loop: launches 2000 ns_per_launch '

# Seeded mode: ordered programs are unmoved, the racy one moves with the seed.
racy=""
for seed in 1 2 3 4 5 6; do
	TSCUDA_DOUBLE_SEED=$seed expect_rc 0 "seed$seed" "$P/cuda_driver_app"
	[ "$(cat "$T/seed$seed.out")" = "$DRIVER" ] || fail "seed $seed: cuda_driver_app printed '$(cat "$T/seed$seed.out")'"
	TSCUDA_DOUBLE_SEED=$seed expect_rc 0 "graph$seed" "$P/cuda_graph_app"
	[ "$(cat "$T/graph$seed.out")" = "$GRAPH" ] || fail "seed $seed: cuda_graph_app printed '$(cat "$T/graph$seed.out")'"
	TSCUDA_DOUBLE_SEED=$seed expect_rc 0 "racy$seed" "$P/cuda_driver_app" --racy
	racy="$racy$(cat "$T/racy$seed.out")
"
done
TSCUDA_DOUBLE_SEED=6 expect_rc 0 seed6b "$P/cuda_runtime_like"
[ "$(cat "$T/seed6b.out")" = "$RUNTIME" ] || fail "seed 6: cuda_runtime_like printed '$(cat "$T/seed6b.out")'"
distinct=$(printf '%s' "$racy" | sort -u | wc -l)
[ "$distinct" -ge 3 ] || fail "the racy program gave only $distinct distinct results over 6 seeds: $racy"
printf '%s' "$racy" | grep -qF "$(echo "$DRIVER" | sed 's/ hash.*//')" || fail "racy output malformed: $racy"
TSCUDA_DOUBLE_SEED=3 expect_rc 0 racy3b "$P/cuda_driver_app" --racy
cmp -s "$T/racy3.out" "$T/racy3b.out" || fail "seed 3 gave two racy results: $(cat "$T/racy3.out" "$T/racy3b.out")"

# Addresses: different run to run, repeatable with TSCUDA_DOUBLE_ADDR_SEED.
expect_rc 0 vmm2 "$P/cuda_vmm_app"
a1=$(line vmm 'cuda_vmm_app: reserved')
a2=$(line vmm2 'cuda_vmm_app: reserved')
[ -n "$a1" ] && [ "$a1" != "$a2" ] || fail "two runs reserved the same range: '$a1' / '$a2'"
TSCUDA_DOUBLE_ADDR_SEED=5 expect_rc 0 vmm5a "$P/cuda_vmm_app"
TSCUDA_DOUBLE_ADDR_SEED=5 expect_rc 0 vmm5b "$P/cuda_vmm_app"
cmp -s "$T/vmm5a.out" "$T/vmm5b.out" || fail "TSCUDA_DOUBLE_ADDR_SEED=5 did not repeat: $(cat "$T/vmm5a.out" "$T/vmm5b.out")"

# Fixed-address reserve.  addr is where another run's reservation went: the
# double's own area, like the driver's.  TSan's memory layout has no room
# for the measured addresses (tcd_mem.c): there only the modes are checked.
addr=$(echo "$a1" | sed 's/.*reserved \(0x[0-9a-f]*\).*/\1/')
if ! tsan_build; then
	# fact 3: an address the driver chose in another process is not honoured.
	expect_rc 0 fact3 "$P/cuda_vmm_app" --addr "$addr"
	got=$(line fact3 'cuda_vmm_app: reserved' | sed 's/.*reserved \(0x[0-9a-f]*\).*/\1/')
	[ -n "$got" ] && [ "$got" != "$addr" ] || fail "fact 3: a reservation at $addr (the double's heap) was honoured"
	has fact3 out "$VMM"
	# fact 2: without the runtime started (cuda_vmm_app has a context of its
	# own), 4 MiB at 0x200000000000 is exact.
	expect_rc 0 fact2 "$P/cuda_vmm_app" --addr 0x200000000000
	has fact2 out "cuda_vmm_app: reserved 0x200000000000 asked 0x200000000000"
	has fact2 out "$VMM"
fi
TSCUDA_DOUBLE_RESERVE=honour expect_rc 0 fixed "$P/cuda_vmm_app" --addr "$addr"
has fixed out "cuda_vmm_app: reserved $addr asked $addr"
has fixed out "$VMM"
TSCUDA_DOUBLE_RESERVE=refuse expect_rc 0 refuse "$P/cuda_vmm_app" --addr "$addr"
got=$(line refuse 'cuda_vmm_app: reserved' | sed 's/.*reserved \(0x[0-9a-f]*\).*/\1/')
[ -n "$got" ] && [ "$got" != "$addr" ] || fail "TSCUDA_DOUBLE_RESERVE=refuse still placed the range at $addr"
has refuse out "$VMM"
TSCUDA_DOUBLE_RESERVE=fail expect_rc 1 failres "$P/cuda_vmm_app" --addr "$addr"
has failres err "libcuda test double: cuMemAddressReserve: fixed address $addr refused (TSCUDA_DOUBLE_RESERVE=fail) (CUDA_ERROR_INVALID_VALUE)"

# The measured facts, one by one (cuda_va_checks names the fact of each
# check), the side door, pointer attributes, IPC, lazy memory and byte counts.
if tsan_build; then
	echo "cuda_va_checks skipped: TSan's memory layout has no room at 0x200000000000"
else
	TSCUDA_DOUBLE_STATS="$T/va.stats" expect_rc 0 va "$P/cuda_va_checks"
	has va out 'checks passed'
	# fact 6: the side door's retain is not an exported call (only the
	# program's own cuDevicePrimaryCtxRetain is counted).
	grep -qx 'cuDevicePrimaryCtxRetain 1' "$T/va.stats" ||
		fail "side door: retains counted: $(grep PrimaryCtx "$T/va.stats")"
	# The bytes the double copied are the bytes the program asked for: under
	# 1 MiB read back although it had 8 GiB allocations (lazy, and counted).
	dtoh=$(line va 'cuda_va_checks: dtoh' | sed 's/.* //')
	htod=$(line va 'cuda_va_checks: htod' | sed 's/.* //')
	grep -qx "bytes_dtoh $dtoh" "$T/va.stats" || fail "stats: want bytes_dtoh $dtoh: $(grep bytes "$T/va.stats")"
	grep -qx "bytes_htod $htod" "$T/va.stats" || fail "stats: want bytes_htod $htod: $(grep bytes "$T/va.stats")"
	[ "$dtoh" -gt 0 ] && [ "$dtoh" -lt 1048576 ] || fail "stats: $dtoh bytes device->host"
	# fact 1: cuMemAlloc addresses differ from run to run, repeat when seeded.
	expect_rc 0 va2 "$P/cuda_va_checks"
	[ "$(line va 'cuda_va_checks: alloc')" != "$(line va2 'cuda_va_checks: alloc')" ] ||
		fail "fact 1: two runs allocated at the same addresses: $(line va 'cuda_va_checks: alloc')"
	TSCUDA_DOUBLE_ADDR_SEED=7 expect_rc 0 va7a "$P/cuda_va_checks"
	TSCUDA_DOUBLE_ADDR_SEED=7 expect_rc 0 va7b "$P/cuda_va_checks"
	[ "$(line va7a 'cuda_va_checks: alloc')" = "$(line va7b 'cuda_va_checks: alloc')" ] ||
		fail "TSCUDA_DOUBLE_ADDR_SEED=7 did not repeat the allocations"
	# fact 4: the 512 GiB window is exact; refused, it lands elsewhere and
	# still works (what an interposer falls back to).
	expect_rc 0 window "$P/cuda_va_checks" --window
	has window out 'cuda_va_checks: window 0x200000000000 asked 0x200000000000'
	has window out 'cuda_va_checks: read 0xabcd1234'
	TSCUDA_DOUBLE_RESERVE=refuse expect_rc 0 window.refuse "$P/cuda_va_checks" --window
	got=$(line window.refuse 'cuda_va_checks: window' | sed 's/.*window \(0x[0-9a-f]*\).*/\1/')
	[ -n "$got" ] && [ "$got" != 0x200000000000 ] || fail "refuse: the window was placed where asked"
	has window.refuse out 'cuda_va_checks: read 0xabcd1234'
	# Two devices: device 1's window at base + 512 GiB holds its memory.
	TSCUDA_DOUBLE_DEVICES=2 expect_rc 0 va.dev2 "$P/cuda_va_checks"
	has va.dev2 out 'cuda_va_checks: device 1 window used'
	has va.dev2 out 'checks passed'
fi

# Bad parameters and handles: the documented errors, explained on stderr.
expect_rc 0 checks "$P/cuda_double_checks"
has checks out 'checks passed'
has checks err 'libcuda test double: cuStreamSynchronize: hStream'
has checks err 'was destroyed (CUDA_ERROR_INVALID_HANDLE)'
has checks err 'libcuda test double: cuMemcpyHtoD_v2: destination'
has checks err 'runs past the end of its allocation (CUDA_ERROR_INVALID_VALUE)'
has checks err "libcuda test double: cuModuleLoadData: the ELF header's tables are implausible (CUDA_ERROR_INVALID_IMAGE)"
has checks err 'libcuda test double: cuLaunchKernel: grid dimension x is 0 (1 to 2147483647) (CUDA_ERROR_INVALID_VALUE)'
if grep -v '^libcuda test double: ' "$T/checks.err" | grep -q .; then
	fail "a message does not name the double: $(grep -v '^libcuda test double: ' "$T/checks.err" | head -1)"
fi
TSCUDA_DOUBLE_QUIET=1 expect_rc 0 quiet "$P/cuda_double_checks"
[ ! -s "$T/quiet.err" ] || fail "TSCUDA_DOUBLE_QUIET=1 still printed: $(head -1 "$T/quiet.err")"

# Call counts per exported name.
TSCUDA_DOUBLE_STATS="$T/driver.stats" expect_rc 0 dstats "$P/cuda_driver_app"
for want in 'cuLaunchKernel 5' 'cuLaunchKernelEx 1' 'cuMemAlloc_v2 7' 'cuMemFree_v2 7' 'cuInit 1' \
	'cuStreamWaitEvent 2' 'cuMemcpyHtoD_v2 3' 'cuMemcpyDtoH_v2 3'; do
	grep -qx "$want" "$T/driver.stats" || fail "driver stats lack '$want': $(tr '\n' ';' <"$T/driver.stats")"
done
TSCUDA_DOUBLE_STATS="$T/runtime.stats" expect_rc 0 rstats "$P/cuda_runtime_like"
# As cudart: the context from the side door (cuGetExportTable; the exported
# cuDevicePrimaryCtxRetain where the double has none) made current with
# cuCtxSetCurrent, the module from cuLibraryLoadData of a fatbin wrapper,
# kernels from cuLibraryGetKernel; no cuModuleLoadData, cuModuleGetFunction.
for want in 'cuGetProcAddress_v2 31' 'cuLaunchKernel 4' 'cuLaunchKernel_ptsz 1' 'cuMemAlloc_v2 7' \
	'cuGetExportTable 1' 'cuCtxSetCurrent 1' 'cuLibraryLoadData 1' 'cuLibraryGetKernel 7' 'cuLibraryUnload 1'; do
	grep -qx "$want" "$T/runtime.stats" || fail "runtime stats lack '$want': $(tr '\n' ';' <"$T/runtime.stats")"
done
if grep -q '^cuModule\(LoadData\|GetFunction\|Unload\) ' "$T/runtime.stats"; then
	fail "cuda_runtime_like used the module API: $(tr '\n' ';' <"$T/runtime.stats")"
fi
sort -c "$T/runtime.stats" || fail "stats are not sorted by name"

# Bad configuration is refused, naming the variable.
TSCUDA_DOUBLE_SEED=abc expect_rc 2 badseed "$P/cuda_graph_app"
has badseed err "libcuda test double: TSCUDA_DOUBLE_SEED must be a non-negative number, got 'abc'"
TSCUDA_DOUBLE_RESERVE=maybe expect_rc 2 badres "$P/cuda_graph_app"
has badres err "TSCUDA_DOUBLE_RESERVE must be measured, honour, refuse or fail, got 'maybe'"
expect_rc 2 badopt "$P/cuda_driver_app" --bogus
has badopt err "unknown option '--bogus'"

# Real images: the H100 cubin and cudart's saxpy fatbin (bare and wrapped)
# load, give the driver's layouts and compute what the GPU does; sm_80-only
# code is no binary; a PTX kernel without a twin is launched twice, said once.
FX="$TOP/tests/fixtures/h100"
expect_rc 0 real "$P/cuda_real_image" images "$FX/gpu_driver_kernels.cubin" "$FX/gpu_saxpy.fatbin"
has real out 'images ok'
has real err 'libcuda test double: cuModuleLoadData: the cubin is for sm_80, the device is sm_90 (CUDA_ERROR_NO_BINARY_FOR_GPU)'
n=$(grep -c 'kernel no_twin_here has no host twin: not run' "$T/real.err" || true)
[ "$n" = 1 ] || fail "the not-run message came $n times, not once: $(cat "$T/real.err")"
TSCUDA_DOUBLE_QUIET=1 expect_rc 0 realq "$P/cuda_real_image" images "$FX/gpu_driver_kernels.cubin" "$FX/gpu_saxpy.fatbin"
[ ! -s "$T/realq.err" ] || fail "TSCUDA_DOUBLE_QUIET=1 still printed: $(head -1 "$T/realq.err")"

# A wild access by a twin or by a double module's kernel: the launch
# succeeds, the next synchronisation and every later call in the context
# answer CUDA_ERROR_ILLEGAL_ADDRESS; the process lives.
expect_rc 0 faulttwin "$P/cuda_real_image" fault-twin "$FX/gpu_driver_kernels.cubin"
has faulttwin out 'fault: CUDA_ERROR_ILLEGAL_ADDRESS then CUDA_ERROR_ILLEGAL_ADDRESS'
has faulttwin err 'libcuda test double: kernel gpu_chase made an illegal memory access at 0x1008'
expect_rc 0 faultmod "$P/cuda_real_image" fault-module
has faultmod out 'fault: CUDA_ERROR_ILLEGAL_ADDRESS then CUDA_ERROR_ILLEGAL_ADDRESS'
has faultmod err 'libcuda test double: kernel chase made an illegal memory access at 0x1008'
# The program's own fault after kernels ran is still a crash (SIGSEGV).
set +e
"$P/cuda_real_image" crash >"$T/crash.out" 2>"$T/crash.err"
rc=$?
set -e
# (make asan: the sanitizer's own SEGV handler reports it instead.)
[ "$rc" -eq 139 ] || grep -q 'AddressSanitizer: SEGV' "$T/crash.err" ||
	{ tsan_build && grep -q 'ThreadSanitizer:DEADLYSIGNAL' "$T/crash.err"; } ||
	fail "a fault of the program itself exited $rc, not 139 (SIGSEGV): $(cat "$T/crash.err")"
has crash out 'crashing now'

# Only cu* entry points are exported, and the not-run counter (tcd_ext.h).
others=$(nm -D --defined-only "$BUILD/tests/doubles/cuda/libcuda.so.1" | awk '{print $3}' |
	grep -v '^cu' | grep -vx 'tscuda_double_launches_not_run' || true)
[ -z "$others" ] || fail "the double exports non-cu symbols: $others"
nm -D --defined-only "$BUILD/tests/doubles/cuda/libcuda.so.1" | grep -q ' T tscuda_double_launches_not_run$' ||
	fail "the double does not export tscuda_double_launches_not_run"
echo "ok"
