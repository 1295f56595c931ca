#!/bin/sh
# More than one HIP device (docs/hip.md), with hip_multi
# (tests/hip/hip_multi.c, no kernel), on the libamdhip64 test double:
# - TSHIP_DOUBLE_DEVICES=2 gives the double two devices (hipGetDeviceCount,
#   hipSetDevice, hipGetDevice per thread, peer copies between them); with
#   the default one, hipSetDevice(1) and the peer copies naming device 1
#   are hipErrorInvalidDevice (101); a bad count is named and 1 used;
# - tscapture records hipSetDevice with its device, and the allocations
#   and streams made on device 1 with device=1; device 1's allocations lie
#   in its own address window (TRACESMITH_HIP_VA's base + 512 GiB,
#   recorded as hip.tsVaWindow device=1); the output is unchanged;
# - tsreplay replays it with both checkpoints equal on a two-device double
#   (plain, moved, with --check-determinism) and on a one-device double,
#   where device 1's work replays on device 0 after one note.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_multi" ] || { echo "no libamdhip64 to link against: hip_multi is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TRACESMITH_HIP_VA TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BASE=70368744177664 # 0x400000000000, the default window
SIZE=549755813888   # 512 GiB
# Under ThreadSanitizer the default window lies outside TSan's memory
# layout (the double takes no hint there): as test_hip_va.sh, the window
# goes in TSan's low application range.
if tsan_build; then
	TRACESMITH_HIP_VA=0x4000000000:64G BASE=274877906944 SIZE=68719476736
	export TRACESMITH_HIP_VA
fi
B1=$((BASE + SIZE))

all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}

# one device (the default)
expect_rc 0 one $PRE "$H/hip_multi"
has one out "devices 1"
has one out "hipSetDevice(1) 101"
has one out "hipMemcpyPeerAsync 101"
has one out "current 0"
# a count the double cannot have
TSHIP_DOUBLE_DEVICES=17 expect_rc 0 bad $PRE "$H/hip_multi"
has bad err "libamdhip64 test double: TSHIP_DOUBLE_DEVICES=17 is not a device count from 1 to 16: 1 device"
has bad out "devices 1"

export TSHIP_DOUBLE_DEVICES=2
expect_rc 0 run $PRE "$H/hip_multi"
has run out "devices 2"
has run out "current 1"
has run out "device 1: 11 11 22 sum 104448"
has run out "device 0: 33 11 22 sum 139264"
[ "$(grep -c '^hip' "$T/run.out")" -eq 0 ] || fail "a call failed on the two-device double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_multi"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
# windows: device 0 at 0x400000000000, device 1 512 GiB above (0x408000000000)
grep -q " hip\.tsVaWindow dst=$BASE size=$SIZE\$" "$T/dump.out" ||
	fail "no window of device 0: $(grep tsVaWindow "$T/dump.out")"
grep -q " hip\.tsVaWindow device=\"1\" dst=$B1 size=$SIZE\$" "$T/dump.out" ||
	fail "no window of device 1: $(grep tsVaWindow "$T/dump.out")"
grep -q ' hip\.hipSetDevice device="1"$' "$T/dump.out" || fail "no hipSetDevice(1) record"
grep -q " hip\.hipMalloc device=\"1\" dst=$B1 size=4096 " "$T/dump.out" ||
	fail "device 1's hipMalloc is not recorded with its device in its window: $(grep hipMalloc "$T/dump.out")"
grep -q " hip\.hipMalloc dst=$BASE size=4096 " "$T/dump.out" ||
	fail "device 0's hipMalloc: $(grep hipMalloc "$T/dump.out")"
grep -q ' hip\.hipStreamCreate device="1" handle=' "$T/dump.out" ||
	fail "device 1's stream is not recorded with its device: $(grep StreamCreate "$T/dump.out")"
grep -q ' hip\.hipMemcpyPeer dst=[0-9]* src=[0-9]* size=2048 sub=3 ivalue="1" ' "$T/dump.out" ||
	fail "no peer copy from device 1: $(grep Peer "$T/dump.out")"
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 2 ] || fail "not 2 checkpoints"

all_match replay 2 "$T/c.sbt"
[ -s "$T/replay.err" ] && fail "a note on a two-device double: $(cat "$T/replay.err")"
all_match moved 2 --hip-no-reserve "$T/c.sbt"
all_match determinism 2 --check-determinism "$T/c.sbt"
# one device: device 1's work on device 0, with one note
TSHIP_DOUBLE_DEVICES=1 all_match single 2 "$T/c.sbt"
[ "$(cat "$T/single.err")" = "tsreplay: hip: the trace uses device 1 and the runtime has 1 device: the work of every device it does not have replays on device 0" ] ||
	fail "the one-device note: $(cat "$T/single.err")"
# --device 1 on a three-device double: device 0's work on 1, device 1's on 2
TSHIP_DOUBLE_DEVICES=3 all_match base 2 --device 1 "$T/c.sbt"
[ -s "$T/base.err" ] && fail "a note with --device 1 on three devices: $(cat "$T/base.err")"
# ... and on two: device 1's work has no device 2, so it stays on 1
TSHIP_DOUBLE_DEVICES=2 all_match base.two 2 --device 1 "$T/c.sbt"
[ "$(cat "$T/base.two.err")" = "tsreplay: hip: the trace uses device 1, which --device 1 puts on device 2, and the runtime has 2 devices: the work of every device it does not have replays on device 1" ] ||
	fail "the --device 1 note: $(cat "$T/base.two.err")"
echo "ok"
