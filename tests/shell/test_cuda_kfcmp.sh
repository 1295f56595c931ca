#!/bin/sh
# Full keyframes compared with the replay's memory (docs/replay.md
# "Keyframes compared with the capture"), on the libcuda test double:
# - cuda_driver_app captured with TRACESMITH_SNAPSHOT=launch replays with
#   every keyframe equal (exit 0), plain, under the double's seeded
#   reordering, --streams single, --cuda-no-reserve, --check-determinism
#   and --check-determinism --per-command --streams single,multi; the
#   count of keyframes compared (--json and the summary) is the number of
#   keyframes after which a command since the keyframe before wrote device
#   memory, counted here from the dump;
# - one launch's argument changed (saxpy's a): the first difference named
#   is that launch, at the keyframe right after it, before the checkpoint
#   that reads its result (exit 3), with and without --check-determinism
#   --per-command, and from a --range that restores the keyframe before it;
# - cuda_driver_app --racy with a keyframe every 2nd launch: under some
#   seed of the double's reordering, runs part at a keyframe after a
#   launch the emulator puts in a race (exit 4);
# - not compared: a trace of the default policy (only a partial start
#   keyframe), and a sampled order (--schedule-seed).
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
PROGS="$TOP/$BUILD/tests/cuda"
TOOL="$TOP/$BUILD/tests/programs/vk_tracetool"

seq_of() {
	"$INFO" --dump "$1" | grep -F -- "$2" | head -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/'
}

# kf_equal NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# keyframes compared, none differing.
kf_equal() {
	ke_name=$1 ke_want=$2
	shift 2
	expect_rc 0 "$ke_name" "$RP" --json "$@"
	c=$(json_field "$T/$ke_name.out" keyframes_compared)
	d=$(json_field "$T/$ke_name.out" keyframes_differ)
	[ "$c" = "$ke_want" ] && [ "$d" = 0 ] ||
		fail "$ke_name: $c keyframes compared, $d differ, expected $ke_want and 0: $(cat "$T/$ke_name.out")"
}

L="$T/launch.sbt"
TRACESMITH_SNAPSHOT=launch expect_rc 0 cap "$CAP" -o "$L" -- "$PROGS/cuda_driver_app" --size 3000
"$INFO" --dump "$L" >"$T/launch.dump"
nkf=$(grep -c ' keyframe ' "$T/launch.dump")
# The keyframes with something to compare: a launch, an upload, a
# device-to-device copy or a memset since the keyframe before (a copy to
# the host writes no device memory).
nfollow=$(awk '/ cuda\.cuLaunch| cuda\.cuMemcpyHtoD| cuda\.cuMemcpyDtoD| cuda\.cuMemset/ { w = 1 }
	/ keyframe / { if (w) n++; w = 0 } END { print n + 0 }' "$T/launch.dump")
[ "$nfollow" -gt 4 ] && [ "$nfollow" -lt "$nkf" ] || fail "trace layout: $nfollow of $nkf keyframes follow a command"

# ---- a deterministic program: every keyframe equal ----------------------------------
kf_equal plain "$nfollow" "$L"
[ "$(json_field "$T/plain.out" keyframe_ranges)" -ge "$nfollow" ] || fail "plain: $(cat "$T/plain.out")"
[ "$(json_field "$T/plain.out" checkpoints)" = 4 ] && [ "$(json_field "$T/plain.out" matched)" = 4 ] ||
	fail "plain: checkpoints $(cat "$T/plain.out")"
expect_rc 0 text "$RP" "$L"
has text out "tsreplay: keyframes: $nfollow compared with the replay's memory ("
has text out "), 0 differ"
for seed in 1 2 3 4; do
	TSCUDA_DOUBLE_SEED=$seed kf_equal "seed$seed" "$nfollow" "$L"
done
kf_equal single "$nfollow" --streams single "$L"
kf_equal noreserve "$nfollow" --cuda-no-reserve "$L"
TSCUDA_DOUBLE_SEED=2 kf_equal det "$nfollow" --check-determinism --runs 3 "$L"
TSCUDA_DOUBLE_SEED=5 kf_equal det.pc "$nfollow" --check-determinism --per-command --streams single,multi "$L"
has det.pc out '"command_results":'

# ---- one launch's argument changed: that launch is named -----------------------------
saxpy=$(seq_of "$L" 'name="saxpy" stream=')
kf=$(awk -v s="$saxpy" '/ keyframe / { q = substr($1, 5) + 0; if (q > s) { print q; exit } }' "$T/launch.dump")
y=$(sed -n "s/^seq=$saxpy .* params=[0-9a-f]\{16\}[0-9a-f]\{16\}\([0-9a-f]\{16\}\).*/\1/p" "$T/launch.dump")
# the pointer y, little-endian hex, as an address
y_hex=0x$(echo "$y" | sed 's/\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)/\8\7\6\5\4\3\2\1/' | sed 's/^0*//')
readback=$(grep -F "src=$(printf '%d' "$y_hex") " "$T/launch.dump" | grep -m1 'cuda.cuMemcpyDtoH' | sed 's/^seq=\([0-9]*\) .*/\1/')
[ -n "$saxpy" ] && [ -n "$kf" ] && [ -n "$readback" ] && [ "$kf" -lt "$readback" ] ||
	fail "trace layout: saxpy $saxpy, keyframe $kf, y $y_hex read back at $readback"
# a = 2.5f (0x40200000): its low byte flipped
expect_rc 0 poke "$TOOL" poke "$L" "$T/bad.sbt" --record "$saxpy" --find 00002040 --xor 1
expect_rc 3 bad "$RP" "$T/bad.sbt"
has bad err "tsreplay: the replay differs from the capture after the command at seq $saxpy (keyframe seq $kf)"
has bad err "  call:     seq $saxpy cuda.cuLaunchKernel"
has bad err "  memory:   $y_hex, 12000 bytes compared with the keyframe"
has bad err "  offset:   0 (first differing block: 64 bytes)"
has bad err "  capture bytes: "
has bad err "tsreplay: cuda: the memory after the command at seq $saxpy differs from the keyframe at seq $kf"
has bad err "  allocation: $y_hex (made at seq "
has bad err "  kernel:   saxpy (launch seq $saxpy), the last kernel given a pointer into it"
# the checkpoint of y's readback differs too, and comes after
has bad err "tsreplay: cuda: the device-to-host copy at seq $readback differs from the capture"
has bad err "tsreplay: 1 checkpoints differ from the capture after it"
has bad out "checkpoints: 4 compared, 3 matched, 1 differ"
if grep -q "differs from the capture at checkpoint seq" "$T/bad.err"; then
	fail "bad: a checkpoint is named first: $(cat "$T/bad.err")"
fi
expect_rc 3 bad.json "$RP" --json "$T/bad.sbt"
has bad.json out "\"first_mismatch\":{\"checkpoint_seq\":$kf,\"call_seq\":$saxpy,\"call\":\"cuda.cuLaunchKernel\",\"object\":$(printf '%d' "$y_hex"),"
has bad.json out "\"compared_with\":\"capture\",\"at_keyframe\":$kf}"
[ "$(json_field "$T/bad.json.out" keyframes_differ)" -ge 1 ] || fail "bad.json: $(cat "$T/bad.json.out")"
# runs agree with each other (each differs from the capture the same way)
TSCUDA_DOUBLE_SEED=3 expect_rc 3 bad.det "$RP" --check-determinism --per-command "$T/bad.sbt"
has bad.det err "tsreplay: the replay differs from the capture after the command at seq $saxpy (keyframe seq $kf)"
has bad.det out "tsreplay: runs agree with each other at every checkpoint and after every command"
# from the full keyframe just before saxpy
before=$(awk -v s="$saxpy" '/ keyframe / { q = substr($1, 5) + 0; if (q < s) k = q } END { print k }' "$T/launch.dump")
expect_rc 3 bad.range "$RP" --range "$before:" "$T/bad.sbt"
has bad.range err "tsreplay: restored keyframe at seq $before"
has bad.range err "tsreplay: the replay differs from the capture after the command at seq $saxpy (keyframe seq $kf)"

# ---- a racy program between keyframes: runs part at a keyframe ------------------------
# cuda_driver_app --racy (non-commuting kernels on two streams, no events)
# with a keyframe after every 2nd launch: the launches between two
# keyframes run in another order under the double's seeded reordering, so
# some run differs from the capture, or from run 1, at a keyframe; the
# command named is one the emulator puts in a race (exit 4).  The capture
# runs seeded too (TSCUDA_DOUBLE_SEED=1): unseeded, its order was the
# machine's, and under load (a CI run, a ThreadSanitizer run) some orders
# left no race between two keyframes for any replay seed to reorder, or
# parted first at a command the emulator puts in no race.
R="$T/racy.sbt"
# (TSCUDA_DOUBLE_RACY=1: the program races on purpose; under make tsan the
# double hides its workers' accesses from ThreadSanitizer, docs/cuda-double.md)
TRACESMITH_SNAPSHOT=2 expect_rc 0 cap.racy env TSCUDA_DOUBLE_RACY=1 TSCUDA_DOUBLE_SEED=1 "$CAP" -o "$R" -- "$PROGS/cuda_driver_app" --racy
expect_rc 1 emu.racy "$TOP/$BUILD/tsexport" --races "$R"
racy_seqs=" $(sed -n 's/^  seq \([0-9]*\) .*/\1/p' "$T/emu.racy.out" | sort -un | tr '\n' ' ')"
parted=0
for seed in 1 2 3 4 5 6 7 8; do
	rc=0
	TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 3 "$R" >"$T/racy.$seed.out" \
		2>"$T/racy.$seed.err" || rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 4 ] || { cat "$T/racy.$seed.err" >&2; fail "racy seed $seed: exit $rc"; }
	first=$(sed -n 's/^tsreplay: runs differ: run [0-9]* and run [0-9]* part first after the command at seq \([0-9]*\) (keyframe seq [0-9]*: one matches the capture there)$/\1/p' "$T/racy.$seed.err")
	[ -n "$first" ] || continue
	[ $rc -eq 4 ] || fail "racy seed $seed: runs part after seq $first but exit $rc"
	parted=$((parted + 1))
	case "$racy_seqs" in
	*" $first "*) ;;
	*) fail "racy seed $seed: seq $first is in no race the emulator finds ($racy_seqs)" ;;
	esac
	grep -A1 "part first after the command at seq $first " "$T/racy.$seed.err" |
		grep -q "^  call:     seq $first cuda\.cuLaunchKernel" || fail "racy seed $seed: $(cat "$T/racy.$seed.err")"
done
[ "$parted" -gt 0 ] || fail "no seed made the runs of the racy program part at a keyframe"

# ---- nothing compared ----------------------------------------------------------------
expect_rc 0 cap.default "$CAP" -o "$T/default.sbt" -- "$PROGS/cuda_driver_app" --size 3000
kf_equal default 0 "$T/default.sbt"
if grep -q "tsreplay: keyframes:" "$T/default.out"; then fail "default: $(cat "$T/default.out")"; fi
# a sampled order may run a command after the keyframe that follows it
kf_equal sampled 0 --schedule-seed 3 "$L"
echo ok
