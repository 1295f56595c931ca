#!/bin/sh
# CUDA arrays end to end on the libcuda test double (issue 8):
# cuda_array_app (a 2D and a 3D array filled from host with cuMemcpy2D/3D,
# read through a texture object and through a surface object that also
# writes, copied array to array, array to device and array to host)
# captured, then replayed with every checkpoint equal, under
# --check-determinism, and with other stream orders; tsinfo --dump shows
# the array records; --range starts at a full keyframe where arrays are
# live (their rows are in it) with every checkpoint equal, and refuses one
# that does not hold arrays; a 1D array reached by every copy by offset; a
# trace whose array copy runs past its array is refused with a message,
# and so is the program's own such copy (by the double, as the driver
# does).
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
# The emulator schedules every copy, the ones by array offset included:
# one command per copy, memset and launch in the dump, no race.
ncmd=$(grep -c ' cuda\.\(cuMemcpy\|cuMemset\|cuLaunch\)' "$T/dump.out")
expect_rc 0 emu "$TOP/$BUILD/tsexport" --summary --races "$T/a.sbt"
has emu out "commands: $ncmd on "
has emu out "races: 0 confirmed, 0 possible"
grep -q "cuda.cuMemcpy3D .*dst_type=3 src_type=3" "$T/dump.out" || fail "no array-to-array cuMemcpy3D in the dump"
for c in cuMemcpyHtoA cuMemcpyDtoA cuMemcpyAtoA cuMemcpyAtoD cuMemcpyAtoH cuMemcpyHtoAAsync cuMemcpyAtoHAsync; do
	grep -q "cuda.$c .*sub=5" "$T/dump.out" || fail "no $c record in the dump"
done
# the array reads to host (2D, 3D, by offset, async by offset) and the
# three linear read-backs are checkpointed
ncp=$(grep -c " checkpoint " "$T/dump.out")
[ "$ncp" -eq 8 ] || fail "$ncp checkpoints in the trace, expected 8"

# ---- replay ------------------------------------------------------------------------------
all_match replay 8 "$T/a.sbt"
for seed in 1 2; do
	TSCUDA_DOUBLE_SEED=$seed all_match "seed$seed" 8 "$T/a.sbt"
done
all_match single 8 --streams single "$T/a.sbt"
all_match determinism 8 --check-determinism --runs 3 "$T/a.sbt"
all_match noreserve 8 --cuda-no-reserve "$T/a.sbt"

# ---- keyframes hold arrays: --range starts where arrays are live -----------------------
TRACESMITH_SNAPSHOT=launch expect_rc 0 cap.kf "$CAP" -o "$T/kf.sbt" -- "$APP"
"$INFO" --dump "$T/kf.sbt" >"$T/kf.dump"
LAUNCH=$(seq_of "$T/kf.sbt" 'name="surf_inc" grid_x=')
END=$(seq_of "$T/kf.sbt" 'cuda.cuModuleUnload')
KF=$(sed -n 's/^seq=\([0-9]*\) .* keyframe .*/\1/p' "$T/kf.dump" |
	while read -r q; do [ "$q" -le "$LAUNCH" ] && echo "$q"; done | tail -n 1)
[ -n "$LAUNCH" ] && [ -n "$END" ] && [ -n "$KF" ] || fail "keyframed trace layout: launch $LAUNCH, end $END, keyframe $KF"
# the keyframe says it holds every array (flags 2), and holds rows of each
grep -q "^seq=$KF .* keyframe len=[0-9]* hex=1002" "$T/kf.dump" || fail "keyframe $KF: $(grep "^seq=$KF " "$T/kf.dump")"
grep -q "cuda.tsSnapshot handle=.* width=64 height=8 .*sub=13 dst_z=3" "$T/kf.dump" ||
	fail "no snapshot of the 3D arrays' last slice"
ncp=$(sed -n 's/^seq=\([0-9]*\) .* checkpoint .*/\1/p' "$T/kf.dump" |
	while read -r q; do [ "$q" -ge "$LAUNCH" ] && [ "$q" -lt "$END" ] && echo "$q"; done | wc -l)
[ "$ncp" -ge 4 ] || fail "$ncp checkpoints in [$LAUNCH, $END)"
# From there the surface kernel reads the restored 3D array, the array to
# array copy reads what it wrote, and the 2D array is read back restored.
all_match range "$ncp" --range "$LAUNCH:$END" "$T/kf.sbt"
has range err "tsreplay: restored keyframe at seq $KF"
# A keyframe without the flag (as captured before arrays were snapshotted):
# no start point while an array is live.
"$M" "$T/kf.sbt" "$T/kf0.sbt" --set "$KF:1:0" >/dev/null || fail "sbt_mutate --set $KF:1:0"
expect_rc 1 range0 "$RP" --range "$LAUNCH:$END" "$T/kf0.sbt"
has range0 err "cannot start at the keyframe at seq $KF: the CUDA array 0x"
has range0 err "is live there (3 in all), and this keyframe does not hold the contents of CUDA arrays"
# the whole keyframed trace still replays
all_match kf 8 "$T/kf.sbt"

# ---- a capture window from the second launch: its snapshot recreates the
# arrays and the texture and surface objects made before it, its keyframe
# holds the arrays' rows ------------------------------------------------------------------
expect_rc 0 cap.win "$CAP" --launches 2-9 -o "$T/w.sbt" -- "$APP"
W="$T/w-launches-2-9.sbt"
[ -f "$W" ] || fail "no window trace: $(ls "$T")"
"$INFO" --dump "$W" >"$T/w.dump"
grep -q "cuda.cuSurfObjectCreate handle=" "$T/w.dump" || fail "the window's snapshot lacks the surface object"
grep -q "cuda.tsSnapshot handle=.*sub=13" "$T/w.dump" || fail "the window's keyframe lacks the arrays"
wcp=$(grep -c " checkpoint " "$T/w.dump")
[ "$wcp" -ge 6 ] || fail "$wcp checkpoints in the window"
all_match window "$wcp" "$W"
all_match window.det "$wcp" --check-determinism "$W"

# ---- hostile: an array copy past its array ----------------------------------------------
# varint_of SRC SEQ FIELD VALUE: the sbt_mutate --varint op (SEQ:I:VALUE)
# that makes record SEQ's dump show FIELD=VALUE.
varint_of() {
	i=0
	while [ "$i" -lt 24 ]; do
		if "$M" "$1" "$T/probe.sbt" --varint "$2:$i:$4" >/dev/null 2>&1 &&
			"$INFO" --dump "$T/probe.sbt" | grep -q "^seq=$2 .* $3=$4\( \|\$\)"; then
			echo "$2:$i:$4"
			return
		fi
		i=$((i + 1))
	done
	fail "no varint of record $2 is its $3"
}
# hostile NAME OP...: the mutated trace's replay stops with exit 1, bounded,
# never by a signal.
hostile() {
	h_name=$1
	shift
	"$M" "$T/a.sbt" "$T/$h_name.sbt" "$@" >/dev/null || fail "$h_name: sbt_mutate $*"
	rc=0
	timeout -s KILL 120 "$RP" "$T/$h_name.sbt" >"$T/$h_name.out" 2>"$T/$h_name.err" || rc=$?
	[ "$rc" -eq 1 ] || fail "$h_name: exit $rc (expected 1): $(cat "$T/$h_name.err")"
}
# The copy from the 2D array to device memory made one row taller (height
# 9 of an array of 8 rows).
DOWN=$("$INFO" --dump "$T/a.sbt" | grep -F "cuda.cuMemcpy2D " | sed -n 2p | sed 's/^seq=\([0-9]*\) .*/\1/')
[ -n "$DOWN" ] || fail "no second cuMemcpy2D in the trace"
hostile bad --varint "$(varint_of "$T/a.sbt" "$DOWN" height 9)"
has bad err "record seq $DOWN (cuda.cuMemcpy2D): the source region (x 0 bytes, y 0, z 0; 64 bytes x 9 x 1) runs past the CUDA array 0x"
has bad err "(rows of 64 bytes, height 8, depth 1; made at seq"
# A read by offset from the 1D array (256 bytes) made 4096 bytes long.
ATOH=$(seq_of "$T/a.sbt" "cuda.cuMemcpyAtoH ")
[ -n "$ATOH" ] || fail "no cuMemcpyAtoH in the trace"
hostile badspan --varint "$(varint_of "$T/a.sbt" "$ATOH" size 4096)"
has badspan err "record seq $ATOH (cuda.cuMemcpyAtoH): the source span (offset 8, 4096 bytes) runs past the CUDA array 0x"
has badspan err "(256 bytes; made at seq"
# The program's own copy past the array: the double refuses it, as the driver does.
expect_rc 0 hostile "$CAP" -o "$T/h.sbt" -- "$APP" --hostile
has hostile out "cuda_array_app: copy past the array returned 1"
all_match hostile.replay 0 "$T/h.sbt"
echo "ok"
