#!/bin/sh
# Same-address capture for HIP on the libamdhip64 test double (docs/hip.md
# "Same-address capture"), with the allocator CUDA's interposer uses
# (capture/cap_va.c):
#   - hip_struct (a by-value struct holding two device pointers, on two
#     streams) captured with the default window: the window is recorded
#     (hip.tsVaWindow at 0x400000000000, 512 GiB), every hipMalloc lies in
#     it, the two small ones side by side in one 2 MiB chunk; replayed with
#     every checkpoint equal at the captured addresses (no relocation note),
#     three runs agreeing, and with --hip-no-reserve (moved, pointers
#     rewritten);
#   - hip_pitched frees two small allocations and makes two more: the
#     freed ranges are reused (first fit, the same addresses);
#   - hipMallocPitch (hip_pitch_alloc): rows 256 bytes apart, as clr lays
#     them out, placed in the window and replayed equal; hipMemGetAddressRange
#     of a pointer into a placed allocation names the allocation, not the
#     chunk it shares;
#   - hipMallocAsync / hipFreeAsync (hip_async_alloc): placed, the freed
#     range handed out again only after the stream reached the free;
#   - TRACESMITH_HIP_VA=off: one warning, no window, the runtime's
#     addresses, a replay as before;
#   - a window the double cannot honour (past x86-64's 47-bit user end:
#     the runtime returns another address, clr's hip_vm.cpp): one fallback
#     warning, no window record, the runtime's addresses, still equal;
#   - a malformed TRACESMITH_HIP_VA: a warning and the default window;
#   - replay on a runtime that will not honour the window's address
#     (TSHIP_DOUBLE_RESERVE=refuse): one note, allocations moved and their
#     pointers rewritten, still equal.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_struct" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TRACESMITH_HIP_VA TSHIP_DOUBLE_RESERVE
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
BASE=70368744177664 # 0x400000000000, the default
SIZE=549755813888   # 512 GiB
WIN=0x400000000000+0x8000000000
CHUNK=2097152
# Under ThreadSanitizer the default window lies outside TSan's memory
# layout (the double takes no hint there): the window goes in TSan's low
# application range instead.
VA=
if tsan_build; then
	VA=0x4000000000:64G BASE=274877906944 SIZE=68719476736 WIN=0x4000000000+0x1000000000
fi
va_default() {
	if [ -n "$VA" ]; then export TRACESMITH_HIP_VA=$VA; else unset TRACESMITH_HIP_VA; fi
}
va_default

# all_match NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# checkpoints compared, all matched.
all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}

# capture NAME PROG: under tscapture, output as without it.
capture() {
	c_name=$1 c_prog=$2
	expect_rc 0 "$c_name.plain" $PRE "$H/$c_prog"
	expect_rc 0 "$c_name.cap" $PRE "$CAP" -o "$T/$c_name.sbt" -- "$H/$c_prog"
	cmp -s "$T/$c_name.plain.out" "$T/$c_name.cap.out" ||
		fail "$c_name: output changed under tscapture: $(diff "$T/$c_name.plain.out" "$T/$c_name.cap.out")"
	"$INFO" --dump "$T/$c_name.sbt" >"$T/$c_name.dump" || fail "$c_name: tsinfo --dump failed"
	sed -n 's/.* hip\.hipMalloc dst=\([0-9]*\) .*/\1/p' "$T/$c_name.dump" >"$T/$c_name.addrs"
}

# in_window NAME: every hipMalloc of NAME's trace lies in the window.
in_window() {
	while read -r a; do
		[ "$a" -ge "$BASE" ] && [ "$a" -lt $((BASE + SIZE)) ] ||
			fail "$1: hipMalloc at $a, outside the window: $(cat "$T/$1.addrs")"
	done <"$T/$1.addrs"
}

# outside_window NAME: no hipMalloc of NAME's trace lies in the window.
outside_window() {
	while read -r a; do
		if [ "$a" -ge "$BASE" ] && [ "$a" -lt $((BASE + SIZE)) ]; then
			fail "$1: hipMalloc at $a, in the window it did not have"
		fi
	done <"$T/$1.addrs"
}

# ---- the default window ---------------------------------------------------
capture win hip_struct
grep -q "hip.tsVaWindow dst=$BASE size=$SIZE" "$T/win.dump" ||
	fail "win: no window record: $(grep -i window "$T/win.dump")"
in_window win
[ "$(wc -l <"$T/win.addrs")" -eq 2 ] || fail "win: expected two hipMalloc records: $(cat "$T/win.addrs")"
x=$(sed -n 1p "$T/win.addrs") y=$(sed -n 2p "$T/win.addrs")
[ $((x / CHUNK)) -eq $((y / CHUNK)) ] && [ "$y" -gt "$x" ] ||
	fail "win: the two small allocations are not side by side in one chunk: $x $y"
if grep -q "tracesmith: warning: hip: .*window" "$T/win.cap.err"; then
	fail "win: a window warning with the default window: $(cat "$T/win.cap.err")"
fi
all_match win.replay 1 "$T/win.sbt"
if grep -q "not its captured\|address window" "$T/win.replay.err"; then
	fail "win: moved at replay: $(cat "$T/win.replay.err")"
fi
all_match win.determinism 1 --check-determinism "$T/win.sbt"
has win.determinism out '"runs":3'
all_match win.moved 1 --hip-no-reserve "$T/win.sbt"

# Freed ranges are reused: hip_pitched's third and fourth allocations after
# two frees take the first two's addresses.
capture churn hip_pitched
in_window churn
a5=$(sed -n 5p "$T/churn.addrs") a6=$(sed -n 6p "$T/churn.addrs")
a7=$(sed -n 7p "$T/churn.addrs") a8=$(sed -n 8p "$T/churn.addrs")
[ -n "$a8" ] && [ "$a7" = "$a5" ] && [ "$a8" = "$a6" ] ||
	fail "churn: freed ranges not reused: $(tr '\n' ' ' <"$T/churn.addrs")"
all_match churn.replay 6 "$T/churn.sbt"

# hipMallocPitch: rows 256 bytes apart as the runtime (and the double) lay
# them out, placed in the window beside a linear allocation, replayed equal.
capture pitch hip_pitch_alloc
has pitch.cap out "pitch 256 256"
# a pointer inside the linear allocation: its own range, though the
# runtime maps it with its neighbours in one chunk (the output equals the
# double's alone, checked above)
has pitch.cap out "hipMemGetAddressRange 0: base +0, 64 bytes"
sed -n 's/.* hip\.hipMallocPitch dst=\([0-9]*\) size=768 pitch=256 .*/\1/p' "$T/pitch.dump" >>"$T/pitch.addrs"
[ "$(wc -l <"$T/pitch.addrs")" -eq 3 ] || fail "pitch: not three allocations: $(grep Malloc "$T/pitch.dump")"
in_window pitch
all_match pitch.replay 1 "$T/pitch.sbt"
if grep -q "not its captured\|address window" "$T/pitch.replay.err"; then
	fail "pitch: moved at replay: $(cat "$T/pitch.replay.err")"
fi

# hipMallocAsync is placed too; hipFreeAsync releases the range once the
# stream has reached the free (an event recorded there, asked at the next
# allocation: the double's hipEventQuery runs the queued work, so by then
# it has), and the second allocation takes the first one's address.
capture async hip_async_alloc
has async.cap out "ha[5] 7 hb[5] 9"
sed -n 's/.* hip\.hipMallocAsync dst=\([0-9]*\) size=4096 .*/\1/p' "$T/async.dump" >"$T/async.addrs"
[ "$(wc -l <"$T/async.addrs")" -eq 2 ] && [ "$(sort -u "$T/async.addrs" | wc -l)" -eq 1 ] ||
	fail "async: not two stream-ordered allocations at one address: $(grep -i async "$T/async.dump")"
in_window async
[ "$(grep -c " hip\.hipFreeAsync dst=$(sed -n 1p "$T/async.addrs") " "$T/async.dump")" -eq 2 ] ||
	fail "async: the two hipFreeAsync are not recorded: $(grep -i async "$T/async.dump")"
all_match async.replay 2 "$T/async.sbt"
has async.replay err "tsreplay: hip: hipMallocAsync replayed as a device allocation"

# ---- off ------------------------------------------------------------------------
export TRACESMITH_HIP_VA=off
capture off hip_struct
[ "$(grep -c "tracesmith: warning: hip: TRACESMITH_HIP_VA=off: device allocations stay at the runtime's addresses" \
	"$T/off.cap.err")" -eq 1 ] || fail "off: not one warning: $(cat "$T/off.cap.err")"
if grep -q "tsVaWindow" "$T/off.dump"; then
	fail "off: a window record"
fi
outside_window off
all_match off.replay 1 "$T/off.sbt"

# ---- a window the runtime does not honour -----------------------------------------
export TRACESMITH_HIP_VA=0x800000000000:1G
capture refused hip_struct
[ "$(grep -c "tracesmith: warning: hip: cannot reserve the address window 0x800000000000+0x40000000 for device 0 (the runtime placed it at 0x[0-9a-f]*): allocations stay at the runtime's addresses, and replay moves them" \
	"$T/refused.cap.err")" -eq 1 ] || fail "refused: not one fallback warning: $(cat "$T/refused.cap.err")"
if grep -q "tsVaWindow" "$T/refused.dump"; then
	fail "refused: a window record"
fi
all_match refused.replay 1 "$T/refused.sbt"
all_match refused.moved 1 --hip-no-reserve "$T/refused.sbt"

# ---- malformed: the default window ---------------------------------------------
export TRACESMITH_HIP_VA=0x1234
if [ -z "$VA" ]; then
	capture bad hip_struct
else
	# under ThreadSanitizer the default window lies outside its memory
	# layout: only the warning is checked
	expect_rc 0 bad.cap $PRE "$CAP" -o "$T/bad.sbt" -- "$H/hip_struct"
fi
has bad.cap err "tracesmith: warning: hip: TRACESMITH_HIP_VA='0x1234' is not off or BASE[:SIZE] (2 MiB multiples, e.g. 0x400000000000:512G); using the default 0x400000000000:512G"
if [ -z "$VA" ]; then
	grep -q "hip.tsVaWindow dst=$BASE size=$SIZE" "$T/bad.dump" || fail "bad: not the default window"
	in_window bad
fi
va_default

# ---- replay where the runtime will not honour the window ------------------------
export TSHIP_DOUBLE_RESERVE=refuse
all_match win.norefuse 1 "$T/win.sbt"
[ "$(grep -c "tsreplay: hip: the address window $WIN of device 0 cannot be reserved at its address (the runtime placed it elsewhere): its allocations are moved and pointer arguments of launches rewritten" \
	"$T/win.norefuse.err")" -eq 1 ] || fail "refuse: not one window note: $(cat "$T/win.norefuse.err")"
has win.norefuse err "not its captured"
all_match win.norefuse.determinism 1 --check-determinism "$T/win.sbt"
unset TSHIP_DOUBLE_RESERVE
expect_rc 0 bogus.env env TSHIP_DOUBLE_RESERVE=bogus "$RP" "$T/win.sbt"
has bogus.env err "libamdhip64 test double: TSHIP_DOUBLE_RESERVE='bogus': expected honour or refuse"
echo "ok"
