#!/bin/sh
# HIP arrays made by hipMalloc3DArray, the per-thread default stream's
# array copies and mipmapped arrays (docs/hip.md), with hip_array3d
# (tests/hip/hip_array3d.c, no kernel), on the libamdhip64 test double:
# - the double serves them as ROCm 5.2's clr does: hipMalloc3DArray makes
#   3D, layered and (depth 0) 2D arrays, hipMemcpy3D(_spt/Async) and
#   hipMemcpy2DToArray_spt / hipMemcpy2DFromArray_spt copy their regions,
#   the mipmapped array calls answer hipErrorNotSupported (801), and the
#   creations clr refuses give its codes;
# - tscapture records hipMalloc3DArray with its extent, format, channels
#   and flags, the _spt copies as their calls with ptds=1, and the
#   mipmapped calls as failed calls; the output is unchanged;
# - tsreplay replays it with the four checkpoints equal (plain, moved,
#   --check-determinism with --per-command, --streams single, a --range
#   starting after the arrays were made), skips the failed mipmapped calls,
#   and refuses by name a _spt copy mutated to run past its array, an
#   array copy naming an array the trace never made, a mipmapped array
#   call mutated into one that worked, a read through a level view whose
#   hipMipmappedArrayGetLevel was dropped and a level of a mipmapped array
#   whose creation was dropped; the driver-style hipMipmappedArrayCreate /
#   GetLevel / Destroy (which ROCm 5.2 implements) are recorded and
#   replayed with the level copies' checkpoint equal; 40 seeded mutants end with a result
#   or one named error; against the real runtime (no GPU) the program runs
#   to its end and the replay ends with the one line.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_array3d" ] || { echo "no libamdhip64 to link against: hip_array3d is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
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
	grep " hip\.$1 " "$T/dump.out" | sed -n "${2:-1}s/^seq=\([0-9]*\) .*/\1/p"
}
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
expect_rc 0 run $PRE "$H/hip_array3d" checks
# slices 1-2 of the 3D array, a box of it, the second layer, a region of
# the 2D array by byte offsets (x 4 bytes = 2 elements, y 2)
has run out "slices 1-2: 256 bytes, hash 4642831014020829796"
has run out "box[1][1][2] 226.0"
has run out "layers: 256 bytes, hash 16574951249396807744"
has run out "flat[5][11] 7013"
has run out "hipMallocMipmappedArray 801"
has run out "hipGetMipmappedArrayLevel 801"
has run out "hipFreeMipmappedArray 801"
# the driver-style mipmapped array: level 1 is 8 x 4, each hipMipmappedArrayGetLevel
# a new view
has run out "level 1: 8 x 4"
has run out "level 1's views differ"
has run out "level 1 [3][6] 30.25"
# clr's ihipArrayCreate behind hipMalloc3DArray
has run out "null out 1"
has run out "null desc 1"
has run out "cubemap 1"
has run out "surface 801"
has run out "three channels 1"
[ "$(grep -c '^hip' "$T/run.out")" -eq 3 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 plain $PRE "$H/hip_array3d"
expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_array3d"
cmp -s "$T/plain.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/plain.out" "$T/cap.out")"
has cap err "tracesmith: hip: 29 calls, 0 launches, 0 modules, 0 to 0 entry points not modeled"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
grep -q ' hip\.hipMalloc3DArray handle=[0-9]* width=8 height=4 depth=3 format=32 channels=1$' "$T/dump.out" ||
	fail "no hipMalloc3DArray of the 3D array: $(grep Malloc3DArray "$T/dump.out")"
grep -q ' hip\.hipMalloc3DArray flags=1 handle=[0-9]* width=16 height=4 depth=2 format=1 channels=2$' "$T/dump.out" ||
	fail "no hipMalloc3DArray of the layered array: $(grep Malloc3DArray "$T/dump.out")"
grep -q ' hip\.hipMalloc3DArray handle=[0-9]* width=16 height=8 format=2 channels=1$' "$T/dump.out" ||
	fail "no hipMalloc3DArray of the 2D array: $(grep Malloc3DArray "$T/dump.out")"
# hipMemcpy3D_spt: the hipMemcpy3D record with ptds=1, x and width in bytes
grep -q ' hip\.hipMemcpy3D dst=[0-9]* src=[0-9]* size=256 width=32 height=4 depth=2 sub=5 ptds=1 dst_type=2 src_type=3 src_z=1 dst_pitch=32 dst_height=4 ' "$T/dump.out" ||
	fail "no hipMemcpy3D record of hipMemcpy3D_spt: $(grep hipMemcpy3D "$T/dump.out")"
grep -q ' hip\.hipMemcpy2DToArray dst=[0-9]* size=256 width=32 height=8 blob=[0-9]* host=[0-9]* sub=5 ptds=1 dst_type=3 src_type=1 src_pitch=40 ' "$T/dump.out" ||
	fail "no hipMemcpy2DToArray record of hipMemcpy2DToArray_spt: $(grep 2DToArray "$T/dump.out")"
grep -q ' hip\.hipMemcpy2DFromArray src=[0-9]* size=144 width=24 height=6 host=[0-9]* sub=5 ptds=1 dst_type=1 src_type=3 src_x=4 src_y=2 dst_pitch=32 ' "$T/dump.out" ||
	fail "no hipMemcpy2DFromArray record of hipMemcpy2DFromArray_spt: $(grep 2DFromArray "$T/dump.out")"
grep -q ' hip\.hipMallocMipmappedArray result=801 width=8 height=8 sub=1 count=3 format=32 channels=1$' "$T/dump.out" ||
	fail "no failed hipMallocMipmappedArray record: $(grep Mipmapped "$T/dump.out")"
grep -q ' hip\.hipGetMipmappedArrayLevel result=801 value=1 sub=1$' "$T/dump.out" || fail "no failed hipGetMipmappedArrayLevel record"
grep -q ' hip\.hipFreeMipmappedArray result=801 sub=1$' "$T/dump.out" || fail "no failed hipFreeMipmappedArray record"
M=$(sed -n 's/.* hip\.hipMipmappedArrayCreate handle=\([0-9]*\) width=16 height=8 sub=1 count=3 format=32 channels=1$/\1/p' "$T/dump.out")
[ -n "$M" ] || fail "no hipMipmappedArrayCreate record: $(grep Mipmapped "$T/dump.out")"
[ "$(grep -c " hip\.hipMipmappedArrayGetLevel handle=[0-9]* parent=$M value=1 sub=1\$" "$T/dump.out")" -eq 2 ] ||
	fail "not two hipMipmappedArrayGetLevel records of level 1: $(grep GetLevel "$T/dump.out")"
grep -q " hip\.hipMipmappedArrayDestroy handle=$M sub=1\$" "$T/dump.out" || fail "no hipMipmappedArrayDestroy record"
# the copies through the views are in bytes: the level's rows are 32 bytes
grep -q ' hip\.hipMemcpy2DFromArray src=[0-9]* size=24 width=12 height=2 host=[0-9]* sub=5 dst_type=1 src_type=3 src_x=16 src_y=2 dst_pitch=12 ' "$T/dump.out" ||
	fail "no copy from level 1's second view: $(grep 2DFromArray "$T/dump.out")"
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 5 ] || fail "not 5 checkpoints: $(grep checkpoint "$T/dump.out")"

all_match replay 5 "$T/c.sbt"
all_match moved 5 --hip-no-reserve "$T/c.sbt"
all_match determinism 5 --check-determinism --per-command "$T/c.sbt"
has determinism out '"runs_done":3'
has determinism out '"commands_part":null'
all_match single 5 --streams single "$T/c.sbt"
# from the layered array's first copy on: the arrays are made on the way
S=$(seq_of hipMemcpy 2)
all_match range 3 --range "$S:" "$T/c.sbt"

# a _spt copy mutated to run past its array (x 4 + 24 bytes of rows of 32
# is fine; x 12 is not)
S=$(seq_of hipMemcpy2DFromArray)
"$MUT" "$T/c.sbt" "$T/bad.sbt" --varint "$(varint_of "$S" src_x 12)" >/dev/null || fail "sbt_mutate src_x"
expect_rc 1 bad "$RP" "$T/bad.sbt"
has bad err "record seq $S (hip.hipMemcpy2DFromArray): the source region (x 12 bytes, y 2, z 0; 24 bytes x 6 x 1) runs past the HIP array 0x"
has bad err "(rows of 32 bytes, height 8, depth 1; made at seq"
# the 3D array's creation dropped: its first copy names it
S=$(seq_of hipMalloc3DArray)
A=$(grep "^seq=$S " "$T/dump.out" | sed 's/.* handle=\([0-9]*\) .*/\1/')
expect_rc 0 mut.create "$MUT" "$T/c.sbt" "$T/nocreate.sbt" --drop "$S"
expect_rc 1 nocreate "$RP" "$T/nocreate.sbt"
has nocreate err "the destination HIP array 0x$(printf '%x' "$A") was never created in the trace, or was freed"
# a mipmapped array call that worked (its result cleared) is refused by name
S=$(seq_of hipMallocMipmappedArray)
i=0
while [ "$i" -lt 40 ]; do
	"$MUT" "$T/c.sbt" "$T/mip.sbt" --varint "$S:$i:0" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/mip.sbt" | grep -q "^seq=$S .* hip\.hipMallocMipmappedArray width=8 height=8 sub=1 count=3" &&
		break
	i=$((i + 1))
done
[ "$i" -lt 40 ] || fail "no varint of record $S is its result"
expect_rc 1 mip "$RP" "$T/mip.sbt"
has mip err "record seq $S (hip.hipMallocMipmappedArray): a mipmapped array call that worked at capture: mipmapped arrays are not replayed by the HIP backend"

# the second view's hipMipmappedArrayGetLevel dropped: the read through it
# names an array the trace never made
S=$(seq_of hipMipmappedArrayGetLevel 2)
V=$(grep "^seq=$S " "$T/dump.out" | sed 's/.* handle=\([0-9]*\) .*/\1/')
expect_rc 0 mut.view "$MUT" "$T/c.sbt" "$T/noview.sbt" --drop "$S"
expect_rc 1 noview "$RP" "$T/noview.sbt"
has noview err "(hip.hipMemcpy2DFromArray): the source HIP array 0x$(printf '%x' "$V") was never created in the trace, or was freed"
# the mipmapped array's creation dropped: its level names it
expect_rc 0 mut.mip "$MUT" "$T/c.sbt" "$T/nomip.sbt" --drop "$(seq_of hipMipmappedArrayCreate)"
expect_rc 1 nomip "$RP" "$T/nomip.sbt"
has nomip err "(hip.hipMipmappedArrayGetLevel): mipmapped array 0x$(printf '%x' "$M") was never created in the trace, or was destroyed"

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
) || exit 1

# the real runtime, no GPU: the program runs to its end; replay stops at
# the device count with one line
if [ -e /usr/lib/x86_64-linux-gnu/libamdhip64.so.5 ] && ! tsan_build; then
	expect_rc 0 real "$H/hip_array3d"
	has real out "hipMallocMipmappedArray "
	has real out "done"
	expect_rc 0 realcap "$CAP" -o "$T/r.sbt" -- "$H/hip_array3d"
	cmp -s "$T/real.out" "$T/realcap.out" || fail "real runtime: output changed under tscapture"
	expect_rc 1 realrp "$RP" "$T/r.sbt"
	has realrp err "tsreplay: backend hip: cannot open: no AMD GPU"
fi
exit 0
