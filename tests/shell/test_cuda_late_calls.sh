#!/bin/sh
# Driver calls made after the capture runtime finished the trace at exit,
# on the libcuda test double.  cuda_late_calls links a library
# (tests/cuda/lib/cuda_late_lib.c) whose exit code relaunches a kernel,
# reads the result back (checked), frees the buffer and destroys the stream
# after main returned, as libcublas's teardown does: from its ELF
# destructor (glibc runs it after the LD_PRELOADed interposer's, where the
# trace is finished), from an exit handler that destructor registers, or
# from an exit handler it registered when loaded, which runs after the
# recorder's own last one.  Under tscapture:
#   - no "after the trace was closed" warning: the calls are recorded, in
#     order, after main's, the late read-back with its checkpoint;
#   - the trace is complete (index found through the trailer, no torn tail,
#     --verify intact) and replays with every checkpoint equal, the late
#     read-back's included;
#   - the exit report is one line; it counts the calls made in the
#     destructors (2 launches), printed after them; TRACESMITH_LOG=info
#     names each late record;
#   - SIGKILLed among the late calls, the process leaves a complete trace
#     holding every late call made until then;
#   - windowed (--launches), a window open at exit gets the late calls, and
#     a run that ended between windows drops them without a warning, as
#     between windows;
# and a process SIGKILLed while it records still leaves a readable trace.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_FLUSH_MS
# Under TSan the double honours only TSan's low window (shell.sh).
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
APP="$TOP/$BUILD/tests/cuda/cuda_late_calls"
[ -x "$APP" ] || fail "$APP was not built"

for mode in dtor atexit last; do
	case $mode in
	dtor) where="a destructor" launches=2 ;;
	atexit) where="an exit handler" launches=2 ;;
	last) where="the last exit handler" launches=1 ;;
	esac
	expect_rc 0 "$mode" "$CAP" -o "$T/$mode.sbt" -- "$APP" --$mode
	has "$mode" out "late calls made from $where: read back 256 elements"
	if grep -q 'after the trace was closed' "$T/$mode.err"; then
		fail "$mode: a late call was dropped: $(cat "$T/$mode.err")"
	fi
	# One report line (after the destructors: their calls counted).
	[ "$(grep -c '^tracesmith: cuda: ' "$T/$mode.err")" -eq 1 ] ||
		fail "$mode: not one exit report: $(cat "$T/$mode.err")"
	has "$mode" err " $launches launches, "
	if grep -v '^tracesmith: cuda: \|^tscapture: ' "$T/$mode.err" | grep -q .; then
		fail "$mode: more than the report on stderr: $(cat "$T/$mode.err")"
	fi

	# Complete: through the trailer's index, nothing torn, every chunk intact.
	expect_rc 0 "$mode.info" "$INFO" "$T/$mode.sbt"
	has "$mode.info" out "index        found (trailer)"
	has "$mode.info" out "torn tail    none"
	has "$mode.info" out "capture.late_records = 6"
	expect_rc 0 "$mode.verify" "$INFO" --verify "$T/$mode.sbt"

	# The late calls, in the order made, end the trace.
	expect_rc 0 "$mode.dump" "$INFO" --dump "$T/$mode.sbt"
	sed -n 's/^seq=[0-9]* t=[0-9.]* tid=[0-9]* \([a-z_]*\.*[A-Za-z_0-9]*\).*/\1/p' \
		"$T/$mode.dump.out" >"$T/$mode.names"
	tail -n 6 "$T/$mode.names" >"$T/$mode.tail"
	printf '%s\n' cuda.cuLaunchKernel cuda.cuStreamSynchronize cuda.cuMemcpyDtoH checkpoint \
		cuda.cuMemFree cuda.cuStreamDestroy >"$T/want.tail"
	cmp -s "$T/$mode.tail" "$T/want.tail" ||
		fail "$mode: the trace does not end with the late calls: $(tr '\n' ' ' <"$T/$mode.tail")"
	[ "$(grep -c '^checkpoint$' "$T/$mode.names")" -eq 2 ] ||
		fail "$mode: not 2 checkpoints: $(grep -c '^checkpoint$' "$T/$mode.names")"

	# Replayed with both read-backs' checkpoints equal.
	expect_rc 0 "$mode.replay" "$RP" "$T/$mode.sbt"
	has "$mode.replay" out "checkpoints: 2 compared, 2 matched, 0 differ"
done

# SIGKILLed from the last exit handler right after the late free: every
# late call made until then is in a complete trace (after the recorder's
# last exit handler each late call is written, and the file finished, at
# once).
expect_rc 137 kill "$CAP" -o "$T/kill.sbt" -- "$APP" --kill
has kill err "was killed by signal 9"
expect_rc 0 kill.info "$INFO" "$T/kill.sbt"
has kill.info out "index        found (trailer)"
has kill.info out "torn tail    none"
expect_rc 0 kill.verify "$INFO" --verify "$T/kill.sbt"
expect_rc 0 kill.dump "$INFO" --dump "$T/kill.sbt"
tail -n 1 "$T/kill.dump.out" | grep -q ' cuda.cuMemFree ' ||
	fail "kill: the late free does not end the trace: $(tail -n 1 "$T/kill.dump.out")"
expect_rc 0 kill.replay "$RP" "$T/kill.sbt"
has kill.replay out "checkpoints: 2 compared, 2 matched, 0 differ"

# Windowed: a window still open at exit gets the late calls; a run that
# ended between windows records none and says nothing of them.
expect_rc 0 wopen "$CAP" -o "$T/wo.sbt" --launches 1-5 -- "$APP" --dtor
if grep -q 'after the trace was closed' "$T/wopen.err"; then
	fail "window open at exit: a late call was dropped: $(cat "$T/wopen.err")"
fi
has wopen err " 2 launches, "
expect_rc 0 wopen.info "$INFO" "$T/wo-launches-1-5.sbt"
has wopen.info out "index        found (trailer)"
has wopen.info out "torn tail    none"
expect_rc 0 wopen.dump "$INFO" --dump "$T/wo-launches-1-5.sbt"
tail -n 1 "$T/wopen.dump.out" | grep -q ' cuda.cuStreamDestroy ' ||
	fail "window open at exit: the late calls do not end it: $(tail -n 1 "$T/wopen.dump.out")"
expect_rc 0 wopen.replay "$RP" "$T/wo-launches-1-5.sbt"
has wopen.replay out "checkpoints: 2 compared, 2 matched, 0 differ"
expect_rc 0 wclosed "$CAP" -o "$T/wc.sbt" --launches 1-1 -- "$APP" --dtor
if grep -q 'after the trace was closed' "$T/wclosed.err"; then
	fail "window closed at exit: a warning for calls outside any window: $(cat "$T/wclosed.err")"
fi
expect_rc 0 wclosed.dump "$INFO" --dump "$T/wc-launches-1-1.sbt"
if grep -q 'cuda.cuStreamDestroy' "$T/wclosed.dump.out"; then
	fail "window closed at exit: a late call is in the window"
fi

# TRACESMITH_LOG=info names the calls recorded after the finish.
TRACESMITH_LOG=info expect_rc 0 named "$CAP" -o "$T/named.sbt" -- "$APP" --dtor
has named err "recorded after the trace was finished at exit: record"
has named err "(cuda.cuMemFree)"
has named err "(cuda.cuStreamDestroy)"
has named err "(checkpoint)"

# SIGKILL while recording: the periodic flush left a readable trace.
LOOP="$TOP/$BUILD/tests/cuda/cuda_launch_loop"
LD_PRELOAD="$TOP/$BUILD/interpose/libtracesmith_cuda.so" TRACESMITH_OUTPUT="$T/killed.sbt" \
	TRACESMITH_FLUSH_MS=50 "$LOOP" --launches 100000000 >/dev/null 2>"$T/killed.err" &
pid=$!
i=0
size=0
while [ $i -lt 300 ]; do
	size=$(stat -c %s "$T/killed.sbt" 2>/dev/null || echo 0)
	[ "$size" -gt 65536 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ "$size" -gt 65536 ] || fail "killed: the trace did not grow past 64 KiB (size $size)"
expect_rc 0 killed.info "$INFO" "$T/killed.sbt"
has killed.info out "index        rebuilt by scanning"
n=$(sed -n 's/^records *\([0-9]*\) .*/\1/p' "$T/killed.info.out")
[ "${n:-0}" -gt 0 ] || fail "killed: no records read: $(cat "$T/killed.info.out")"
echo "ok: late calls recorded from a destructor and two exit handlers; $n records after SIGKILL"
