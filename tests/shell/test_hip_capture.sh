#!/bin/sh
# HIP capture through Debian's real libamdhip64 (ROCm 5.2.3) on a machine
# with no AMD GPU: the hipcc-built programs of tests/hip run under tscapture
# with their output and exit status unchanged (the runtime answers 100/101
# and they run to their end, as without us); the trace names every kernel
# (registered by __hipRegisterFunction, found by hipModuleGetFunction) and
# holds every launch with its arguments laid out from the code object's
# metadata; the failed calls are recorded with the runtime's errors;
# tsinfo --extract writes each registered bundle and each loaded code object
# byte for byte (compared with the .hip_fatbin section and the --genco
# file); with no device there is no address window (one warning,
# hipMalloc answered by the runtime); a program using no HIP is left
# alone; TRACESMITH_API=-hip records nothing.  (Exports and trampolines: test_hip_interpose.sh.)
. "$TOP/tests/support/shell.sh"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API
CAP="$TOP/$BUILD/tscapture"
INFO="$TOP/$BUILD/tsinfo"
LIB="$TOP/$BUILD/interpose/libtracesmith_hip.so"
H="$TOP/$BUILD/tests/hip"
[ -e "$LIB" ] || { echo "no HIP headers (libamdhip64-dev) or reader: the HIP interposer is not built"; exit 77; }
[ -x "$H/hip_saxpy" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
# In a sanitizer build the interposer is instrumented and the hipcc
# programs are not: its runtime must come before the C library, or its
# interceptors are not the ones called (a thread the capture starts then
# crashes in its first instrumented function).  PRE preloads it (tscapture
# keeps it after its interposers); nothing in a normal build.
SANRT=$(sanitizer_runtime "$LIB")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}

# run NAME PROG ARGS...: the program alone, then under tscapture; same
# stdout and exit status.
run() {
	name=$1
	shift
	rc0=0
	"$@" >"$T/$name.plain" 2>/dev/null || rc0=$?
	rc1=0
	$PRE "$CAP" -o "$T/$name.sbt" -- "$@" >"$T/$name.cap" 2>"$T/$name.caperr" || rc1=$?
	[ "$rc0" -eq "$rc1" ] || fail "$name: exit $rc1 under tscapture, $rc0 alone: $(cat "$T/$name.caperr")"
	cmp -s "$T/$name.plain" "$T/$name.cap" || fail "$name: output changed: $(diff "$T/$name.plain" "$T/$name.cap")"
	[ -s "$T/$name.sbt" ] || fail "$name: no trace: $(cat "$T/$name.caperr")"
	grep -q "tracesmith: hip: .* calls, .* launches" "$T/$name.caperr" ||
		fail "$name: no exit report: $(cat "$T/$name.caperr")"
	expect_rc 0 "$name.dump" "$INFO" --dump "$T/$name.sbt"
}

run saxpy "$H/hip_saxpy"
run struct "$H/hip_struct"
run module "$H/hip_module" "$H/hip_module_kernels.hsaco"
if grep -q "^hipMalloc 101" "$T/saxpy.plain"; then
	# No device: no address window (hipGetDevice answers 101 too), one
	# warning, hipMalloc left to the runtime (its 101 recorded as it came).
	[ "$(grep -c "tracesmith: warning: hip: no current device (hipGetDevice: 101): allocations stay at the runtime's addresses" \
		"$T/saxpy.caperr")" -eq 1 ] || fail "saxpy: not one no-window warning: $(cat "$T/saxpy.caperr")"
	if grep -q "tsVaWindow" "$T/saxpy.dump.out"; then
		fail "saxpy: a window record with no device"
	fi
	grep -q "hip.hipMalloc result=101" "$T/saxpy.dump.out" ||
		fail "saxpy: hipMalloc's 101 not recorded: $(grep hipMalloc "$T/saxpy.dump.out")"
else
	echo "note: this machine's runtime did not answer hipMalloc with 101 (a GPU?): $(head -3 "$T/saxpy.plain")"
fi

# Every kernel is named: by registration (<<<>>> programs) and by lookup (modules).
for k in _Z5saxpyifPKfPf; do has saxpy.dump out "name=\"$k\""; done
for k in _Z11axpy_struct9axpy_argsi _Z4fillPddi; do has struct.dump out "name=\"$k\""; done
for k in scale _Z10add_offsetPffi; do has module.dump out "name=\"$k\""; done
has saxpy.dump out "hip.__hipRegisterFatBinary"
has saxpy.dump out "hip.__hipRegisterFunction"
has saxpy.dump out "hip.__hipUnregisterFatBinary"
has struct.dump out "hip.__hipRegisterVar"
# launches.  hipcc's <<<>>> calls __hipPushCallConfiguration and, only if
# it worked, the kernel's stub (hipLaunchKernel); with no GPU the push
# fails (101) and the failed push is the record of the launch attempt.
launch_or_push() { # NAME GRID_X BLOCK_X KERNEL COUNT
	if grep -q "hip.hipLaunchKernel" "$T/$1.dump.out"; then
		[ "$(grep "hip.hipLaunchKernel" "$T/$1.dump.out" | grep "name=\"$4\"" | grep -c "layout=")" -ge 1 ] ||
			fail "$1: no launch of $4 with its layout: $(grep hipLaunch "$T/$1.dump.out")"
	else
		n=$(grep "hip.__hipPushCallConfiguration" "$T/$1.dump.out" | grep "result=" |
			grep "grid_x=$2 " | grep -c "block_x=$3 ")
		[ "$n" -eq "$5" ] || fail "$1: $n failed pushes of grid $2 block $3, expected $5: $(cat "$T/$1.dump.out")"
	fi
}
launch_or_push saxpy 4 256 _Z5saxpyifPKfPf 1
launch_or_push struct 4 128 _Z11axpy_struct9axpy_argsi 2
[ "$(grep -c "hip.hipModuleLaunchKernel" "$T/module.dump.out")" -eq 2 ] ||
	fail "module: not two hipModuleLaunchKernel records"
# the `extra` launch carries its argument buffer {NULL, 0.5f, 256}
grep "hip.hipModuleLaunchKernel" "$T/module.dump.out" | grep -q "extra=00000000000000000000003f00010000" ||
	fail "module: the extra buffer is not recorded: $(grep hipModuleLaunch "$T/module.dump.out")"
grep -q "hip.hipExtModuleLaunchKernel" "$T/module.dump.out" || fail "module: no hipExtModuleLaunchKernel record (mangled export)"
# failed calls are recorded with their error
grep "hip.hipMalloc" "$T/saxpy.dump.out" | grep -q "result=" ||
	fail "saxpy: hipMalloc recorded without its result"
for c in hipMemcpy hipDeviceSynchronize hipFree; do has saxpy.dump out "hip.$c"; done
for c in hipStreamCreate hipStreamCreateWithFlags hipEventCreate hipEventRecord hipStreamWaitEvent \
	hipMemsetAsync hipMemcpyAsync hipMemcpyToSymbol hipStreamSynchronize hipEventDestroy hipStreamDestroy; do
	has struct.dump out "hip.$c"
done
for c in hipModuleLoadData hipModuleLoadDataEx hipModuleLoad hipModuleGetFunction hipModuleGetGlobal \
	hipMemcpyHtoD hipMemcpyDtoH hipModuleUnload; do
	has module.dump out "hip.$c"
done

# --extract: the registered bundles and the loaded code objects, byte for byte.
for p in saxpy struct; do
	expect_rc 0 "$p.x" "$INFO" --extract "$T/$p.x" "$T/$p.sbt"
	objcopy -O binary --only-section=.hip_fatbin "$H/hip_$p" "$T/$p.fb" || fail "objcopy $p"
	set -- "$T/$p.x"/module-*.hipfb
	[ $# -eq 1 ] && [ -f "$1" ] || fail "$p: not one bundle extracted: $(ls "$T/$p.x")"
	n=$(wc -c <"$1")
	[ "$n" -gt 0 ] && [ "$n" -le "$(wc -c <"$T/$p.fb")" ] || fail "$p: bundle of $n bytes"
	cmp -s -n "$n" "$1" "$T/$p.fb" || fail "$p: extracted bundle differs from .hip_fatbin"
done
expect_rc 0 module.x "$INFO" --extract "$T/module.x" "$T/module.sbt"
set -- "$T/module.x"/module-*.hipfb
[ $# -eq 3 ] || fail "module: $# bundles extracted, expected 3 (LoadData, LoadDataEx, Load): $(ls "$T/module.x")"
for f in "$@"; do
	cmp -s "$f" "$H/hip_module_kernels.hsaco" || fail "module: $f differs from the --genco file"
done

# A program that uses no HIP: untouched, no trace.
expect_rc 0 plain $PRE "$CAP" -o "$T/plain.sbt" -- sh -c 'echo plain'
has plain out "plain"
[ ! -e "$T/plain.sbt" ] || fail "a trace was written for a program using no HIP"
# TRACESMITH_API=-hip: passes through, records nothing, output unchanged.
TRACESMITH_API=-hip LD_PRELOAD="$LIB${SANRT:+ $SANRT}" TRACESMITH_OUTPUT="$T/off.sbt" "$H/hip_saxpy" >"$T/off.out" 2>"$T/off.err" ||
	fail "hip_saxpy failed with TRACESMITH_API=-hip"
cmp -s "$T/off.out" "$T/saxpy.plain" || fail "TRACESMITH_API=-hip changed the output"
[ ! -e "$T/off.sbt" ] || fail "TRACESMITH_API=-hip wrote a trace"
