#!/bin/sh
# The per-thread default stream's calls (docs/hip.md), with hip_spt
# (tests/hip/hip_spt.c, no kernel), on the libamdhip64 test double:
# - the double runs each _spt call as clr does (the call without _spt on
#   the thread's own blocking stream, the synchronous ones waiting; stream
#   0 of hipMemcpyAsync_spt and the stream calls is that stream);
# - tscapture records each as the call without _spt with ptds=1; the
#   output is unchanged;
# - tsreplay replays them with the checkpoint equal (plain, moved,
#   --check-determinism); without the hipStreamWaitEvent_spt record the
#   copy after it reads the buffer before the other stream's memset and
#   the replay differs (exit 3); a copy mutated to run past its allocation
#   is refused by name.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_spt" ] || { echo "no libamdhip64 to link against: hip_spt is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
hip_window

all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}
seq_of() {
	grep " hip\.$1\( \|\$\)" "$T/dump.out" | sed -n "${2:-1}s/^seq=\([0-9]*\) .*/\1/p"
}

expect_rc 0 run $PRE "$H/hip_spt"
has run out "read: 11 dd 1f 22 33 b7 44 hash 138395050798238400"
[ "$(grep -c '^hip' "$T/run.out")" -eq 0 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_spt"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
# every _spt call as its call without _spt, ptds=1, on stream 0
for call in hipMemset hipMemcpy hipMemcpyAsync hipStreamSynchronize hipMemset2D hipMemset3D \
	hipMemcpy2D hipStreamWaitEvent hipStreamQuery; do
	grep " hip\.$call\( \|\$\)" "$T/dump.out" | grep -q ' ptds=1' ||
		fail "no $call record with ptds=1: $(grep " hip\.$call" "$T/dump.out")"
done
[ "$(grep -c ' ptds=1' "$T/dump.out")" -eq 11 ] || fail "not 11 records with ptds=1: $(grep ptds "$T/dump.out")"
grep ' ptds=1' "$T/dump.out" | grep -q ' stream=' && fail "a ptds record names a stream: $(grep ptds "$T/dump.out")"
grep -q ' hip\.hipMemsetAsync .* stream=[0-9]* value=68 ' "$T/dump.out" || fail "the other stream's memset is not recorded on it"
grep -q ' hip\.hipMemset3D .* width=16 height=2 depth=2 elem_size=1 value=51 ptds=1 dst_height=2 ' "$T/dump.out" ||
	fail "no hipMemset3D record of hipMemset3D_spt: $(grep Memset3D "$T/dump.out")"

all_match replay 1 "$T/c.sbt"
all_match moved 1 --hip-no-reserve "$T/c.sbt"
all_match determinism 1 --check-determinism "$T/c.sbt"

# the per-thread stream's wait is replayed: without it the copy after it
# reads the buffer before the other stream's memset ran
expect_rc 0 mut.wait "$MUT" "$T/c.sbt" "$T/nowait.sbt" --drop "$(seq_of hipStreamWaitEvent)"
expect_rc 3 nowait "$RP" "$T/nowait.sbt"
has nowait out "differ"
# a device-to-device copy on the per-thread stream made to run past its
# allocation
S=$(seq_of hipMemcpyAsync)
i=0
while [ "$i" -lt 40 ]; do
	"$MUT" "$T/c.sbt" "$T/past.sbt" --varint "$S:$i:4000" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/past.sbt" | grep -q "^seq=$S .* size=4000 " && break
	i=$((i + 1))
done
[ "$i" -lt 40 ] || fail "no varint of record $S is its size"
expect_rc 1 past "$RP" "$T/past.sbt"
has past err "record seq $S (hip.hipMemcpyAsync): the destination [0x"
has past err ", +4000) is not inside an allocation the trace made"
exit 0
