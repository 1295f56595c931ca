#!/bin/sh
# HIP arrays by their own calls (docs/hip.md), with hip_array
# (tests/hip/hip_array.c, no kernel):
# - on the libamdhip64 test double the program computes what the copies
#   make (a 2D float array filled from a wider host pitch, rows replaced
#   from device memory at a position, read back to host and to device, a
#   corner read on a stream, a hipMemcpyParam2D at a position, a 1D array
#   by byte count, a box into a 3D array at a position and the volume
#   out), and its copy past the 2D array ("past") is hipErrorInvalidValue;
#   what clr refuses the double refuses with clr's codes ("checks");
# - tscapture records the creations with their descriptors, the copies
#   with the array side (handle, x in bytes, type 3) and the host side's
#   rows (blob, or a checkpoint named by the array's handle), the frees;
#   the output is unchanged;
# - tsreplay replays it with its six checkpoints equal: at the captured
#   addresses, moved (--hip-no-reserve), with --check-determinism, with
#   --streams single; the program's own refused copy is skipped;
# - a copy mutated to run past its array stops the replay naming the
#   record, the region and the array; damaged traces (seeded mutants) end
#   with a result or one named error;
# - keyframes (TRACESMITH_SNAPSHOT=launch, with the module kernel that
#   doubles rows read from the array): each holds every live array
#   (tsSnapshot sub=13, one record a slice), the replay compares them
#   equal, and a --range from the keyframe after the launch restores the
#   arrays from it (with the 2D array's record pointed at other bytes, the
#   reads after it differ);
# - the real runtime (Debian's, no AMD GPU): the program runs to its end,
#   tscapture records the calls with the runtime's errors, and tsreplay
#   ends with the one line naming the missing device (exit 1).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_array" ] || { echo "no libamdhip64 to link against: hip_array is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}

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
# seq_of CALL [N]: the seq of the Nth (default 1st) record of CALL in the dump.
seq_of() {
	grep " hip\.$1 " "$T/dump.out" | sed -n "${2:-1}s/^seq=\([0-9]*\) .*/\1/p"
}
# varint_of SEQ FIELD VALUE: the sbt_mutate --varint op (SEQ:I:VALUE) that
# makes record SEQ's dump show FIELD=VALUE.
varint_of() {
	i=0
	while [ "$i" -lt 40 ]; do
		if "$MUT" "$T/c.sbt" "$T/probe.sbt" --varint "$1:$i:$3" >/dev/null 2>&1 &&
			"$INFO" --dump "$T/probe.sbt" | grep -q "^seq=$1 .* $2=$3\( \|\$\)"; then
			echo "$1:$i:$3"
			return
		fi
		i=$((i + 1))
	done
	fail "no varint of record $1 is its $2"
}

(
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
expect_rc 0 run $PRE "$H/hip_array"
has run out "a2 row 3: 300 303 -17 -24 sum 37888"
has run out "device rows: 500 715 sum 29160"
has run out "corner: 102 -4 -17"
has run out "a2 row 7: 711 100 103 sum 32992"
has run out "a1: 1 4 190"
has run out "vol: 40 5e 47 00"
[ "$(grep -c '^hip' "$T/run.out")" -eq 0 ] || fail "a call failed on the double: $(cat "$T/run.out")"
expect_rc 0 past $PRE "$H/hip_array" past
has past out "past the array: 1"
# what the double refuses, as clr's hip_memory.cpp does
expect_rc 0 checks $PRE "$H/hip_array" checks
has checks out "three channels 1"
has checks out "cubemap 1"
has checks out "surface 801"
has checks out "null free 1"
has checks out "second free 709"
has checks out "pitch below width 12"
has checks out "null array 400"
has checks out "direction 21"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_array"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
grep -q ' hip\.hipMallocArray handle=[0-9]* width=16 height=8 format=32 channels=1$' "$T/dump.out" ||
	fail "no hipMallocArray record: $(grep Array "$T/dump.out")"
grep -q ' hip\.hipArrayCreate handle=[0-9]* width=32 format=2 channels=2$' "$T/dump.out" ||
	fail "no hipArrayCreate record: $(grep Array "$T/dump.out")"
grep -q ' hip\.hipArray3DCreate handle=[0-9]* width=8 height=4 depth=3 format=1 channels=1$' "$T/dump.out" ||
	fail "no hipArray3DCreate record: $(grep Array "$T/dump.out")"
grep -q ' hip\.hipMemcpy2DToArray dst=[0-9]* size=512 width=64 height=8 blob=[0-9]* host=[0-9]* sub=5 dst_type=3 src_type=1 src_pitch=80 ' "$T/dump.out" ||
	fail "no host-to-array hipMemcpy2DToArray record: $(grep ToArray "$T/dump.out")"
grep -q ' hip\.hipMemcpy2DToArrayAsync dst=[0-9]* src=[0-9]* size=96 width=32 height=3 stream=[0-9]* sub=5 dst_type=3 src_type=2 dst_x=16 dst_y=2 src_pitch=64 ' "$T/dump.out" ||
	fail "no device-to-array hipMemcpy2DToArrayAsync record: $(grep ToArray "$T/dump.out")"
grep -q ' hip\.hipMemcpy2DFromArrayAsync dst=[0-9]* src=[0-9]* size=192 width=64 height=3 stream=[0-9]* sub=5 dst_type=2 src_type=3 src_y=5 dst_pitch=64 ' "$T/dump.out" ||
	fail "no array-to-device hipMemcpy2DFromArrayAsync record: $(grep FromArray "$T/dump.out")"
grep -q ' hip\.hipMemcpyParam2D dst=[0-9]* size=32 width=16 height=2 blob=[0-9]* host=[0-9]* sub=5 dst_type=3 src_type=1 dst_x=48 dst_y=6 src_pitch=80 ' "$T/dump.out" ||
	fail "no host-to-array hipMemcpyParam2D record: $(grep Param2D "$T/dump.out")"
grep -q ' hip\.hipMemcpyToArray dst=[0-9]* size=128 width=128 height=1 blob=[0-9]* host=[0-9]* sub=5 dst_type=3 src_type=1 src_pitch=128 ' "$T/dump.out" ||
	fail "no hipMemcpyToArray record (the count as clr's rows): $(grep ToArray "$T/dump.out")"
# hipMemcpy3D's array positions and extent are elements: bytes in the record
grep -q ' hip\.hipMemcpy3D dst=[0-9]* size=30 width=5 height=3 depth=2 blob=[0-9]* host=[0-9]* sub=5 dst_type=3 src_type=1 dst_x=2 dst_y=1 dst_z=1 src_pitch=5 src_height=3 ' "$T/dump.out" ||
	fail "no host-to-array hipMemcpy3D record: $(grep Memcpy3D "$T/dump.out")"
[ "$(grep -c ' hip\.hipFreeArray handle=' "$T/dump.out")" -eq 3 ] || fail "not 3 hipFreeArray records"
# copies to host are checkpointed by the array's handle (object 0)
A2=$(sed -n 's/^seq=[0-9]* .* hip\.hipMallocArray handle=\([0-9]*\) .*/\1/p' "$T/dump.out")
for call in "hipMemcpy2DFromArray 1" "hipMemcpy2DFromArrayAsync 2" "hipMemcpy2DFromArray 2"; do
	s=$(seq_of $call)
	[ -n "$s" ] && grep -q "checkpoint call_seq=$s object=0x0000000000000000 offset=$A2 " "$T/dump.out" ||
		fail "no checkpoint of $call (seq '$s') named by the array $A2: $(grep checkpoint "$T/dump.out")"
done
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 6 ] || fail "not 6 checkpoints: $(grep checkpoint "$T/dump.out")"

all_match replay 6 "$T/c.sbt"
all_match moved 6 --hip-no-reserve "$T/c.sbt"
all_match determinism 6 --check-determinism "$T/c.sbt"
all_match single 6 --streams single "$T/c.sbt"
# the program's own copy past the array failed at capture: skipped
expect_rc 0 cap.past $PRE "$CAP" -o "$T/past.sbt" -- "$H/hip_array" past
expect_rc 0 dump.past "$INFO" --dump "$T/past.sbt"
grep -q ' hip\.hipMemcpy2DToArray result=1 ' "$T/dump.past.out" || fail "no failed hipMemcpy2DToArray record"
all_match replay.past 6 "$T/past.sbt"
# so are the refused calls of "checks"
expect_rc 0 cap.checks $PRE "$CAP" -o "$T/checks.sbt" -- "$H/hip_array" checks
cmp -s "$T/checks.out" "$T/cap.checks.out" || fail "checks: output changed under tscapture"
expect_rc 0 dump.checks "$INFO" --dump "$T/checks.sbt"
grep -q ' hip\.hipFreeArray result=709 handle=' "$T/dump.checks.out" || fail "no failed second hipFreeArray record"
grep -q ' hip\.hipArray3DCreate result=801 flags=2 width=4 height=4 format=32 channels=1$' "$T/dump.checks.out" ||
	fail "no failed hipArray3DCreate of a surface array: $(grep Array3D "$T/dump.checks.out")"
all_match replay.checks 6 "$T/checks.sbt"

# A copy mutated to run past its array (rows 6..8 of an array of 8 rows)
# stops the replay before the runtime is asked, naming what it read.
S=$(seq_of hipMemcpy2DToArrayAsync)
"$MUT" "$T/c.sbt" "$T/bad.sbt" --varint "$(varint_of "$S" dst_y 6)" >/dev/null || fail "sbt_mutate dst_y"
expect_rc 1 bad "$RP" "$T/bad.sbt"
has bad err "record seq $S (hip.hipMemcpy2DToArrayAsync): the destination region (x 16 bytes, y 6, z 0; 32 bytes x 3 x 1) runs past the HIP array 0x"
has bad err "(rows of 64 bytes, height 8, depth 1; made at seq 1)"
# so does a read from the 3D array one slice too deep
S=$(seq_of hipMemcpy3D 2)
"$MUT" "$T/c.sbt" "$T/bad3.sbt" --varint "$(varint_of "$S" depth 4)" --varint "$(varint_of "$S" size 128)" \
	>/dev/null || fail "sbt_mutate depth"
expect_rc 1 bad3 "$RP" "$T/bad3.sbt"
has bad3 err "record seq $S (hip.hipMemcpy3D): the source region (x 0 bytes, y 0, z 0; 8 bytes x 4 x 4) runs past the HIP array 0x"
# an array the trace never made
S=$(seq_of hipFreeArray)
expect_rc 0 mut.create "$MUT" "$T/c.sbt" "$T/nocreate.sbt" --drop 1
expect_rc 1 nocreate "$RP" "$T/nocreate.sbt"
has nocreate err "the destination HIP array 0x$(printf '%x' "$A2") was never created in the trace, or was freed"

# Damaged traces (40 seeded mutants) end with a result or one named error.
mkdir -p "$T/mut"
expect_rc 0 mutants "$MUT" --batch "$T/c.sbt" "$T/mut" 1 40
for f in "$T/mut"/*.sbt; do
	rc=0
	timeout 60 "$RP" -q --check-determinism --runs 2 "$f" >/dev/null 2>"$T/mut.err" || rc=$?
	case $rc in
	0 | 3) ;;
	1) grep -q '^tsreplay: ' "$T/mut.err" ||
		fail "$f ($(grep "$(basename "$f"):" "$T/mutants.out")): exit 1 without a message: $(cat "$T/mut.err")" ;;
	*) fail "$f ($(grep "$(basename "$f"):" "$T/mutants.out")): exit $rc: $(cat "$T/mut.err")" ;;
	esac
done

# Every array copy is replayed: without the hipMemcpyParam2D into the
# array, the read after it differs.
expect_rc 0 mut.param "$MUT" "$T/c.sbt" "$T/noparam.sbt" --drop "$(seq_of hipMemcpyParam2D)"
expect_rc 3 drop.param "$RP" "$T/noparam.sbt"
has drop.param out "differ"

# Keyframes hold the arrays (the module kernel: built by hipcc --genco).
KS="$H/hip_module_kernels.hsaco"
if [ -e "$KS" ]; then
	expect_rc 0 kf.run $PRE "$H/hip_array" "$KS"
	has kf.run out "device rows: 1000 1430 sum 58320"
	has kf.run out "a2 row 7: 1422 100 103 sum 56844"
	TRACESMITH_SNAPSHOT=launch expect_rc 0 kf.cap $PRE "$CAP" -o "$T/k.sbt" -- "$H/hip_array" "$KS"
	cmp -s "$T/kf.run.out" "$T/kf.cap.out" || fail "output changed under tscapture with keyframes"
	expect_rc 0 kf.dump "$INFO" --dump "$T/k.sbt"
	cp "$T/kf.dump.out" "$T/dump.out"
	# two keyframes (before and after the launch), each with the 2D array,
	# the 1D array and the three slices of the 3D one
	[ "$(grep -c ' keyframe ' "$T/dump.out")" -eq 2 ] || fail "not 2 keyframes: $(grep keyframe "$T/dump.out")"
	[ "$(grep -c ' hip\.tsSnapshot handle=[0-9]* size=512 width=64 height=8 blob=[0-9]* sub=13$' "$T/dump.out")" -eq 2 ] ||
		fail "the 2D array is not in both keyframes: $(grep tsSnapshot "$T/dump.out")"
	[ "$(grep -c ' hip\.tsSnapshot handle=[0-9]* size=32 width=8 height=4 value=1 sub=13' "$T/dump.out")" -eq 6 ] ||
		fail "the 3D array's slices are not in both keyframes: $(grep tsSnapshot "$T/dump.out")"
	expect_rc 0 kf.replay "$RP" --json "$T/k.sbt"
	[ "$(json_field "$T/kf.replay.out" keyframes_compared)" = 2 ] && [ "$(json_field "$T/kf.replay.out" matched)" = 6 ] ||
		fail "keyframed replay: $(cat "$T/kf.replay.out")"
	K=$(grep ' keyframe ' "$T/dump.out" | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
	all_match kf.range 5 --range "$((K + 1)):" "$T/k.sbt"
	has kf.range err "restored keyframe at seq $K"
	# the 2D array's record of that keyframe pointed at the first upload's
	# bytes: the reads of the restored array differ
	S=$(grep ' hip\.tsSnapshot handle=[0-9]* size=512 ' "$T/dump.out" | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
	B=$(sed -n 's/^seq=[0-9]* .* hip\.hipMemcpy2DToArray dst=[0-9]* size=512 width=64 height=8 blob=\([0-9]*\) .*/\1/p' "$T/dump.out")
	cp "$T/k.sbt" "$T/c.sbt"
	"$MUT" "$T/c.sbt" "$T/kbad.sbt" --varint "$(varint_of "$S" blob "$B")" >/dev/null || fail "sbt_mutate blob"
	expect_rc 3 kf.bad "$RP" --range "$((K + 1)):" "$T/kbad.sbt"
	has kf.bad out "differ"
else
	echo "no $KS (hipcc builds it): the keyframe part was not run"
	exit 77
fi
) || exit $?

# The real runtime with no AMD GPU: the program runs to its end, the calls
# are recorded with the runtime's errors, the replay ends with one line.
unset LD_LIBRARY_PATH
if ldconfig -p 2>/dev/null | grep -q 'libamdhip64.so.5 '; then
	expect_rc 0 real.run "$H/hip_array"
	has real.run out "done"
	expect_rc 0 real.cap "$CAP" -o "$T/real.sbt" -- "$H/hip_array"
	cmp -s "$T/real.run.out" "$T/real.cap.out" || fail "real: output changed under tscapture"
	expect_rc 0 real.dump "$INFO" --dump "$T/real.sbt"
	for call in hipMallocArray hipArrayCreate hipArray3DCreate hipMemcpy2DToArray hipMemcpy2DToArrayAsync \
		hipMemcpy2DFromArray hipMemcpy2DFromArrayAsync hipMemcpyToArray hipMemcpyFromArray hipFreeArray; do
		grep -q " hip\.$call result=" "$T/real.dump.out" || fail "real: no failed $call record"
	done
	rc=0
	"$RP" "$T/real.sbt" >"$T/real.out" 2>"$T/real.err" || rc=$?
	[ "$rc" -eq 1 ] || fail "real: exit $rc"
	[ "$(cat "$T/real.err")" = "tsreplay: backend hip: cannot open: no AMD GPU: hipGetDeviceCount failed with hipErrorNoDevice (100) from libamdhip64.so.5; this trace needs a HIP device to replay" ] ||
		fail "real: stderr is not the one line: $(cat "$T/real.err")"
fi
echo "ok"
