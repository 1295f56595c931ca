#!/bin/sh
# dlsym on the HIP runtime's handle (docs/hip.md "dlsym on the runtime's
# handle"), with hip_dlsym (tests/hip/hip_dlsym.c: no link-time hip*
# symbol; libamdhip64.so.5 opened with dlopen, RTLD_LOCAL or with `global`
# RTLD_GLOBAL, every entry point found with dlsym on that handle, as
# Triton's HIP driver does, or with `version` found with dlvsym on it under
# the first ROCm 5.2 version that answers):
# - on the libamdhip64 test double: the program's results are unchanged
#   under tscapture; every call is recorded (module load with its image,
#   both launches named and laid out, kernelParams and `extra`, the
#   allocation placed in the window, copies, stream, and the memset made
#   through the answer of hipGetProcAddress, itself found with dlsym on the
#   handle as Triton's driver finds it on ROCm 6) and counted
#   (hipGetProcAddress, hipGetDeviceCount, hipGetErrorString as not
#   modeled); the two checkpoints replay equal,
#   at the captured addresses, moved (--hip-no-reserve) and with
#   --check-determinism;
# - against Debian's real libamdhip64 (no AMD GPU here): output and exit
#   status unchanged, each call recorded with the runtime's error and
#   counted in the exit report;
# - with the CUDA interposer preloaded after this one (tscapture's order), a
#   CUDA program that finds cuGetProcAddress_v2 with dlsym on the driver's
#   handle (cuda_runtime_like) is still recorded by the CUDA interposer;
# - both preload orders, HIP first and CUDA first: hip_dlsym recorded by the
#   HIP interposer (the CUDA one passes hip* lookups on) and
#   cuda_runtime_like by the CUDA one, silently, each replayed with its
#   checkpoints equal and --check-determinism agreeing;
# - a dlsym preloaded first that answers every lookup itself: the HIP
#   interposer says in one line that such lookups pass it by, and the
#   program is untouched.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
LIB="$TOP/$BUILD/interpose/libtracesmith_hip.so"
CULIB="$TOP/$BUILD/interpose/libtracesmith_cuda.so"
CO="$H/hip_module_kernels.hsaco"
[ -e "$LIB" ] || { echo "no HIP headers (libamdhip64-dev) or reader: the HIP interposer is not built"; exit 77; }
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_dlsym" ] || { echo "no libamdhip64 headers: hip_dlsym is not built (scripts/deps.sh installs them)"; exit 77; }
[ -e "$CO" ] || { echo "no hipcc: hip_module_kernels.hsaco is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES TRACESMITH_HIP_VA TRACESMITH_CUDA_DRIVER
cuda_window
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
hip_window
OLD_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# The program never names a hip* symbol at link time.
if nm -D "$H/hip_dlsym" | grep -q ' U hip'; then
	fail "hip_dlsym links hip* symbols: $(nm -D "$H/hip_dlsym" | grep ' U hip' | head -3)"
fi

# line NAME PATTERN: the first line of $T/NAME.out matching PATTERN
line() { grep -E "$2" "$T/$1.out" | head -1; }

for mode in local global version; do
	case $mode in
	local) set -- ;;
	global) set -- global ;;
	version) set -- version ;;
	esac
	expect_rc 0 "run.$mode" $PRE "$H/hip_dlsym" "$CO" "$@"
	has "run.$mode" out "mid[3] 6.0 host[3] 6.5 host[255] 0.0"
	[ "$(grep -Ec '^hip[A-Za-z]+ 0$' "$T/run.$mode.out")" -eq 17 ] ||
		fail "$mode: a call failed on the double: $(cat "$T/run.$mode.out")"
	expect_rc 0 "cap.$mode" $PRE "$CAP" -o "$T/$mode.sbt" -- "$H/hip_dlsym" "$CO" "$@"
	cmp -s "$T/run.$mode.out" "$T/cap.$mode.out" ||
		fail "$mode: output changed under tscapture: $(diff "$T/run.$mode.out" "$T/cap.$mode.out")"
	has "cap.$mode" err "tracesmith: hip: 19 calls, 2 launches, 1 modules, 3 to 3 entry points not modeled"
	TRACESMITH_LOG=info expect_rc 0 "info.$mode" $PRE "$CAP" -o "$T/$mode.info.sbt" -- "$H/hip_dlsym" "$CO" "$@"
	has "info.$mode" err "tracesmith: hip: not modeled (counted only): hipGetProcAddress=1 hipGetDeviceCount=1 hipGetErrorString=1"
	expect_rc 0 "dump.$mode" "$INFO" --dump "$T/$mode.sbt"
	for c in hipInit hipModuleLoadData hipModuleGetFunction hipMalloc hipStreamCreate hipMemcpyHtoD \
		hipMemcpyAsync hipStreamSynchronize hipMemset hipMemcpy hipStreamDestroy hipFree hipModuleUnload; do
		grep -q " hip\.$c " "$T/dump.$mode.out" || grep -q " hip\.$c\$" "$T/dump.$mode.out" ||
			fail "$mode: no hip.$c record: $(cat "$T/dump.$mode.out")"
	done
	grep -q ' hip\.hipModuleLoadData handle=[1-9][0-9]* size=[1-9][0-9]* blob=[0-9]* sub=5' "$T/dump.$mode.out" ||
		fail "$mode: the module load has no image: $(line "dump.$mode" hipModuleLoadData)"
	l=$(line "dump.$mode" 'hipModuleLaunchKernel .*name="scale"')
	case "$l" in
	*' stream='[1-9]*'grid_x=4 '*'block_x=64 '*'params='????????????????00010000' layout=00000000080000000800000004000000'*) ;;
	*) fail "$mode: the kernelParams launch: $l" ;;
	esac
	l=$(line "dump.$mode" 'hipModuleLaunchKernel .*name="_Z10add_offsetPffi"')
	case "$l" in
	*' extra='????????????????0000003f00010000*) ;;
	*) fail "$mode: the extra launch: $l" ;;
	esac
	grep -q ' hip\.tsVaWindow ' "$T/dump.$mode.out" || fail "$mode: no address window: $(cat "$T/dump.$mode.out")"
	[ "$(grep -c ' checkpoint ' "$T/dump.$mode.out")" -eq 2 ] ||
		fail "$mode: not 2 checkpoints: $(grep checkpoint "$T/dump.$mode.out")"
	for r in plain moved determinism; do
		case $r in
		plain) set -- ;;
		moved) set -- --hip-no-reserve ;;
		determinism) set -- --check-determinism ;;
		esac
		expect_rc 0 "$mode.$r" "$RP" --json "$@" "$T/$mode.sbt"
		[ "$(json_field "$T/$mode.$r.out" checkpoints)" = 2 ] && [ "$(json_field "$T/$mode.$r.out" matched)" = 2 ] ||
			fail "$mode $r: $(cat "$T/$mode.$r.out")"
	done
done

# The real runtime (no AMD GPU on this project's machines).
LD_LIBRARY_PATH=$OLD_LD_LIBRARY_PATH
if [ -n "$SANRT" ]; then
	echo "note: a sanitizer build: the real runtime is not run under it"
elif ! "$H/hip_dlsym" "$CO" >"$T/real.plain" 2>"$T/real.plainerr"; then
	echo "note: hip_dlsym cannot open the real runtime: $(cat "$T/real.plainerr")"
else
	expect_rc 0 real "$CAP" -o "$T/real.sbt" -- "$H/hip_dlsym" "$CO"
	cmp -s "$T/real.plain" "$T/real.out" || fail "real: output changed: $(diff "$T/real.plain" "$T/real.out")"
	has real err "tracesmith: hip: 18 calls, 2 launches, 1 modules, 2 to 2 entry points not modeled"
	# found with dlvsym under ROCm 5.2's versions: the same calls recorded
	expect_rc 0 real.version "$CAP" -o "$T/realv.sbt" -- "$H/hip_dlsym" "$CO" version
	cmp -s "$T/real.plain" "$T/real.version.out" ||
		fail "real version: output changed: $(diff "$T/real.plain" "$T/real.version.out")"
	has real.version err "tracesmith: hip: 18 calls, 2 launches, 1 modules, 2 to 2 entry points not modeled"
	expect_rc 0 real.dump "$INFO" --dump "$T/real.sbt"
	if grep -q '^hipModuleLoadData 101$' "$T/real.plain"; then
		for c in hipInit hipModuleLoadData hipMalloc hipStreamCreate hipMemcpyHtoD hipModuleLaunchKernel \
			hipMemcpyAsync hipMemset hipMemcpy hipFree; do
			grep -q " hip\.$c result=101" "$T/real.dump.out" ||
				fail "real: no hip.$c record with the runtime's 101: $(cat "$T/real.dump.out")"
		done
		grep -q ' hip\.hipModuleLoadData result=101 size=[1-9][0-9]* blob=' "$T/real.dump.out" ||
			fail "real: the image of the failed load is not stored: $(line real.dump hipModuleLoadData)"
	else
		echo "note: this machine's runtime did not answer hipModuleLoadData with 101 (a GPU?): $(head -3 "$T/real.plain")"
	fi
fi

# Both interposers in one process.
if [ -e "$CULIB" ] && [ -x "$TOP/$BUILD/tests/cuda/cuda_runtime_like" ] &&
	[ -e "$TOP/$BUILD/tests/doubles/cuda/libcuda.so.1" ]; then
	LD_LIBRARY_PATH="$TOP/$BUILD/tests/doubles/cuda:$DBL${OLD_LD_LIBRARY_PATH:+:$OLD_LD_LIBRARY_PATH}"
	export LD_LIBRARY_PATH TSCUDA_DOUBLE_QUIET=1
	expect_rc 0 cu "$CAP" -o "$T/cu.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_runtime_like"
	has cu out "cuda_runtime_like: size 4096 hash 0x7170e1c7c96eee4a"
	has cu err "tracesmith: cuda: "
	expect_rc 0 cu.replay "$RP" --json "$T/cu.sbt"
	[ "$(json_field "$T/cu.replay.out" checkpoints)" = 4 ] && [ "$(json_field "$T/cu.replay.out" matched)" = 4 ] ||
		fail "cuda_runtime_like under both interposers: $(cat "$T/cu.replay.out")"
	# Both preload orders (not under a sanitizer: its runtime must be
	# preloaded first): the CUDA interposer's dlsym passes the names it
	# does not hand out on to the next one, so with it first the HIP
	# interposer still hands out its wrappers; each program is recorded by
	# its own interposer, silently, and replays with its checkpoints equal.
	[ -z "$SANRT" ] || { echo ok; exit 0; }
	for order in hipfirst cudafirst; do
		case $order in
		hipfirst) P="$LIB $CULIB" ;;
		cudafirst) P="$CULIB $LIB" ;;
		esac
		LD_PRELOAD="$P" TRACESMITH_OUTPUT="$T/$order.sbt" expect_rc 0 "$order" "$H/hip_dlsym" "$CO"
		cmp -s "$T/run.local.out" "$T/$order.out" ||
			fail "$order: output changed: $(diff "$T/run.local.out" "$T/$order.out")"
		[ "$(cat "$T/$order.err")" = "tracesmith: hip: 19 calls, 2 launches, 1 modules, 3 to 3 entry points not modeled (TRACESMITH_LOG=info names them); trace $T/$order.sbt" ] ||
			fail "$order: $(cat "$T/$order.err")"
		expect_rc 0 "$order.replay" "$RP" --json --check-determinism "$T/$order.sbt"
		[ "$(json_field "$T/$order.replay.out" checkpoints)" = 2 ] &&
			[ "$(json_field "$T/$order.replay.out" matched)" = 2 ] ||
			fail "$order replay: $(cat "$T/$order.replay.out")"
		LD_PRELOAD="$P" TRACESMITH_OUTPUT="$T/cu.$order.sbt" expect_rc 0 "cu.$order" \
			"$TOP/$BUILD/tests/cuda/cuda_runtime_like"
		has "cu.$order" out "cuda_runtime_like: size 4096 hash 0x7170e1c7c96eee4a"
		grep -q 'warning' "$T/cu.$order.err" && fail "cu.$order: $(cat "$T/cu.$order.err")"
		expect_rc 0 "cu.$order.replay" "$RP" --json --check-determinism "$T/cu.$order.sbt"
		[ "$(json_field "$T/cu.$order.replay.out" checkpoints)" = 4 ] &&
			[ "$(json_field "$T/cu.$order.replay.out" matched)" = 4 ] ||
			fail "cu.$order replay: $(cat "$T/cu.$order.replay.out")"
	done
	# A dlsym before ours that answers every lookup itself (as the CUDA
	# interposer's did): one warning, and the program's calls pass by.
	cat >"$T/eat.c" <<'EOF2'
#define _GNU_SOURCE
#include <dlfcn.h>
void *dlsym(void *handle, const char *name)
{
	void *(*libc)(void *, const char *) = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!libc)
		libc = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	return libc(handle, name);
}
EOF2
	cc -shared -fPIC "$T/eat.c" -o "$T/libeat.so" -ldl || fail "cannot build the test's dlsym library"
	LD_PRELOAD="$T/libeat.so $LIB" TRACESMITH_OUTPUT="$T/eat.sbt" expect_rc 0 eat "$H/hip_dlsym" "$CO"
	cmp -s "$T/run.local.out" "$T/eat.out" || fail "eat: output changed: $(diff "$T/run.local.out" "$T/eat.out")"
	[ "$(cat "$T/eat.err")" = "tracesmith: warning: hip: dlsym is answered first by $T/libeat.so, loaded before this library: a program that looks HIP entry points up on the runtime's handle gets the runtime's own functions, and their calls are not recorded (put libtracesmith_hip.so first in LD_PRELOAD, as tscapture does)" ] ||
		fail "eat: $(cat "$T/eat.err")"
	[ ! -e "$T/eat.sbt" ] || fail "eat: a trace was written"
else
	echo "note: no CUDA interposer or double: the two-interposer checks are left out"
fi
echo ok
