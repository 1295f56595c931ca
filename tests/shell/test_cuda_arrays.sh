#!/bin/sh
# CUDA arrays end to end on the libcuda test double (issue 8):
# cuda_array_app (a 2D and a 3D array filled from host with cuMemcpy2D/3D,
# read through a texture object and through a surface object that also
# writes, copied array to array, array to device and array to host)
# captured, then replayed with every checkpoint equal, under
# --check-determinism, and with other stream orders; tsinfo --dump shows
# the array records; --range refuses to start at a keyframe where an array
# is live (keyframes do not hold array contents); a trace whose array copy
# runs past its array is refused with a message, and so is the program's
# own such copy (by the double, as the driver does).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
M="$TOP/$BUILD/tests/sbt_mutate"
APP="$TOP/$BUILD/tests/cuda/cuda_array_app"

# all_match NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# checkpoints, all matched.
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
	"$INFO" --dump "$1" | grep -F -- "$2" | head -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/'
}

# ---- the program on the double, plain and captured ---------------------------------
expect_rc 0 plain "$APP"
has plain out "cuda_array_app: hash "
TSCUDA_DOUBLE_SEED=3 expect_rc 0 cap "$CAP" -o "$T/a.sbt" -- "$APP"
[ "$(cat "$T/plain.out")" = "$(cat "$T/cap.out")" ] ||
	fail "the captured run printed '$(cat "$T/cap.out")', the plain one '$(cat "$T/plain.out")'"
# The hash is the program's own check of the double: 2D texture read, 3D
# surface read and write, array to array, array to device, array to host.
# Computed from the data the program uploads (see cuda_array_app.c).
expect_rc 0 dump "$INFO" --dump "$T/a.sbt"
has dump out "cuda.cuArrayCreate handle="
has dump out "width=16 height=8 format=3 channels=1"
has dump out "cuda.cuArray3DCreate flags=2 handle="
has dump out "width=16 height=8 depth=4 format=3 channels=1"
has dump out "cuda.cuArrayDestroy handle="
has dump out "cuda.cuSurfObjectCreate handle="
grep -q "cuda.cuMemcpy3D .*dst_type=3 src_type=3" "$T/dump.out" || fail "no array-to-array cuMemcpy3D in the dump"
# the three array reads to host and the two linear read-backs are checkpointed
ncp=$(grep -c " checkpoint " "$T/dump.out")
[ "$ncp" -eq 5 ] || fail "$ncp checkpoints in the trace, expected 5"

# ---- replay ------------------------------------------------------------------------------
all_match replay 5 "$T/a.sbt"
for seed in 1 2; do
	TSCUDA_DOUBLE_SEED=$seed all_match "seed$seed" 5 "$T/a.sbt"
done
all_match single 5 --streams single "$T/a.sbt"
all_match determinism 5 --check-determinism --runs 3 "$T/a.sbt"
all_match noreserve 5 --cuda-no-reserve "$T/a.sbt"

# ---- keyframes do not hold arrays: --range refuses to start where one is live -----------
TRACESMITH_SNAPSHOT=launch expect_rc 0 cap.kf "$CAP" -o "$T/kf.sbt" -- "$APP"
LAUNCH=$(seq_of "$T/kf.sbt" 'name="surf_inc" grid_x=')
END=$(seq_of "$T/kf.sbt" 'cuda.cuModuleUnload')
[ -n "$LAUNCH" ] && [ -n "$END" ] || fail "keyframed trace layout: launch $LAUNCH, end $END"
expect_rc 1 range "$RP" --range "$LAUNCH:$END" "$T/kf.sbt"
has range err "cannot start at the keyframe at seq"
has range err "is live there (3 in all), and keyframes do not hold array contents"
# the whole keyframed trace still replays
all_match kf 5 "$T/kf.sbt"

# ---- hostile: an array copy past its array ----------------------------------------------
# In the trace: the copy from the 2D array to device memory made one row
# taller (height 9 of an array of 8 rows).
DOWN=$("$INFO" --dump "$T/a.sbt" | grep -F "cuda.cuMemcpy2D " | sed -n 2p | sed 's/^seq=\([0-9]*\) .*/\1/')
[ -n "$DOWN" ] || fail "no second cuMemcpy2D in the trace"
i=0 op=
while [ "$i" -lt 24 ]; do
	if "$M" "$T/a.sbt" "$T/probe.sbt" --varint "$DOWN:$i:9" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/probe.sbt" | grep -q "^seq=$DOWN .* height=9\( \|\$\)"; then
		op="$DOWN:$i:9"
		break
	fi
	i=$((i + 1))
done
[ -n "$op" ] || fail "no varint of record $DOWN is its height"
"$M" "$T/a.sbt" "$T/bad.sbt" --varint "$op" >/dev/null || fail "sbt_mutate --varint $op"
rc=0
timeout -s KILL 120 "$RP" "$T/bad.sbt" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
[ "$rc" -eq 1 ] || fail "bad: exit $rc (expected 1): $(cat "$T/bad.err")"
has bad err "record seq $DOWN (cuda.cuMemcpy2D): the source region (x 0 bytes, y 0, z 0; 64 bytes x 9 x 1) runs past the CUDA array 0x"
has bad err "(rows of 64 bytes, height 8, depth 1; made at seq"
# The program's own copy past the array: the double refuses it, as the driver does.
expect_rc 0 hostile "$CAP" -o "$T/h.sbt" -- "$APP" --hostile
has hostile out "cuda_array_app: copy past the array returned 1"
all_match hostile.replay 0 "$T/h.sbt"
echo "ok"
