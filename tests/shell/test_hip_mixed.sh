#!/bin/sh
# One process using both CUDA (the libcuda test double) and HIP (the
# libamdhip64 test double) under tscapture (docs/hip.md "CUDA and HIP in
# one process"): each interposer links its own capture runtime, so the
# two APIs cannot share one trace; the first to record keeps the name, the
# second says why it writes <stem>-<pid>.sbt instead (another TraceSmith
# library in this process, naming its API), tscapture names both files,
# each holds only its API's records, and each replays with its checkpoint
# equal.  The program's output is unchanged under capture.  With one API
# turned off (tscapture --api -cuda) there is one trace and no warning.
. "$TOP/tests/support/shell.sh"
HDBL="$TOP/$BUILD/tests/doubles/hip"
CDBL="$TOP/$BUILD/tests/doubles/cuda"
MIX="$TOP/$BUILD/tests/programs/hip_cuda_mix"
[ -e "$HDBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -e "$CDBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: the CUDA double is not built"; exit 77; }
[ -x "$MIX" ] || { echo "no CUDA toolkit headers: hip_cuda_mix is not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TRACESMITH_HIP_VA TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_SEED TRACESMITH_CUDA_VA
cuda_window
# HIP's default window lies outside ThreadSanitizer's memory layout: under
# TSan one after CUDA's (cuda_window, hip_window).
hip_window 0x5000000000
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$HDBL:$CDBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
SANRT=$(sanitizer_runtime "$HDBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"

expect_rc 0 run $PRE "$MIX"
has run out "cuda ok host[7] 0x11223344"
has run out "hip ok out[9] 4.5"

mkdir "$T/c"
expect_rc 0 cap $PRE "$CAP" -o "$T/c/mix.sbt" -- "$MIX"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
[ "$(ls "$T/c" | wc -l)" -eq 2 ] || fail "traces written: $(ls "$T/c")"
other=$(ls "$T/c" | grep -v '^mix\.sbt$')
case $other in
mix-[0-9]*.sbt) ;;
*) fail "the second trace is named '$other'" ;;
esac
has cap err "tscapture: wrote $T/c/mix.sbt ("
has cap err "tscapture: wrote $T/c/$other ("
# which API kept the name depends on which recorded first: CUDA here
has cap err "tracesmith: warning: trace '$T/c/mix.sbt' is being written by another TraceSmith library in this process (each front-end library has its own capture runtime, so each records its API to a trace of its own); recording hip to '$T/c/$other' instead"
if grep -q "another process" "$T/cap.err"; then fail "cap: $(cat "$T/cap.err")"; fi
"$INFO" --dump "$T/c/mix.sbt" >"$T/cuda.dump"
"$INFO" --dump "$T/c/$other" >"$T/hip.dump"
grep -q ' cuda\.cuMemsetD32' "$T/cuda.dump" || fail "the CUDA trace: $(cat "$T/cuda.dump")"
grep -q ' hip\.hipMemcpy ' "$T/hip.dump" || fail "the HIP trace: $(cat "$T/hip.dump")"
if grep -q ' hip\.' "$T/cuda.dump" || grep -q ' cuda\.' "$T/hip.dump"; then
	fail "a trace holds records of the other API"
fi
for f in mix.sbt "$other"; do
	expect_rc 0 "replay.$f" "$RP" --json "$T/c/$f"
	[ "$(json_field "$T/replay.$f.out" checkpoints)" = 1 ] && [ "$(json_field "$T/replay.$f.out" matched)" = 1 ] ||
		fail "$f: $(cat "$T/replay.$f.out")"
done

# one API off: one trace, no warning
mkdir "$T/h"
expect_rc 0 hiponly $PRE "$CAP" --api -cuda -o "$T/h/mix.sbt" -- "$MIX"
[ "$(ls "$T/h")" = mix.sbt ] || fail "hiponly: $(ls "$T/h")"
if grep -q warning "$T/hiponly.err"; then fail "hiponly: $(cat "$T/hiponly.err")"; fi
expect_rc 0 hiponly.replay "$RP" "$T/h/mix.sbt"
has hiponly.replay out "checkpoints: 1 compared, 1 matched, 0 differ"
echo ok
