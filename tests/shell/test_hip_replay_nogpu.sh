#!/bin/sh
# tsreplay's HIP backend against the real runtime (Debian's libamdhip64.so.5,
# ROCm 5.2.3) on a machine with no AMD GPU: a trace captured on the test
# double, and one captured through the real runtime, each end with one line
# naming the missing device (hipGetDeviceCount's hipErrorNoDevice, 100) and
# exit 1 — plainly, with --range and with --check-determinism — never a
# crash.  On a machine where the runtime finds a GPU the double's trace must
# replay with its checkpoint equal instead.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP backend is not built"; exit 77; }
[ -x "$H/hip_saxpy" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME
unset LD_LIBRARY_PATH
ldconfig -p 2>/dev/null | grep -q 'libamdhip64.so.5 ' ||
	{ echo "the real HIP runtime (libamdhip64.so.5) is not installed"; exit 77; }
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"

# (a sanitizer build's double, and its interposer in the uninstrumented
# hipcc program on the real runtime, need its runtime first: test_hip_replay.sh)
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
expect_rc 0 cap.double env LD_LIBRARY_PATH="$DBL" ${SANRT:+LD_PRELOAD=$SANRT} "$CAP" -o "$T/double.sbt" -- "$H/hip_saxpy"
expect_rc 0 cap.real ${SANRT:+env LD_PRELOAD=$SANRT} "$CAP" -o "$T/real.sbt" -- "$H/hip_saxpy"

rc=0
"$RP" "$T/double.sbt" >"$T/probe.out" 2>"$T/probe.err" || rc=$?
if [ "$rc" -eq 0 ]; then
	echo "note: the real runtime found a device: the double's trace replayed on it"
	has probe out "1 compared, 1 matched, 0 differ"
	echo "ok"
	exit 0
fi

line="tsreplay: backend hip: cannot open: no AMD GPU: hipGetDeviceCount failed with hipErrorNoDevice (100) from libamdhip64.so.5; this trace needs a HIP device to replay"
# one_line NAME ARGS...: tsreplay ARGS exits 1 with exactly that line.
one_line() {
	ol_name=$1
	shift
	expect_rc 1 "$ol_name" "$RP" "$@"
	[ "$(cat "$T/$ol_name.err")" = "$line" ] || fail "$ol_name: stderr is not the one line: $(cat "$T/$ol_name.err")"
	[ ! -s "$T/$ol_name.out" ] || fail "$ol_name: stdout: $(cat "$T/$ol_name.out")"
}
one_line double "$T/double.sbt"
one_line double.range --range 3: "$T/double.sbt"
one_line double.determinism --check-determinism "$T/double.sbt"
one_line real "$T/real.sbt"
echo "ok"
