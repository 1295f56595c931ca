#!/bin/sh
# tsreplay --check-determinism, extended (docs/replay.md "Determinism"), on
# the libcuda test double under its seeded reordering (TSCUDA_DOUBLE_SEED):
# - --streams single,multi alternates serialised and concurrent runs; the
#   planted cross-stream race of cuda_race_app (fill on stream 1, an async
#   copy reading its buffer on stream 2, no event) is reported as a likely
#   race with the emulator's pair naming both commands by seq and name
#   (exit 4) under some seed; the
#   event version agrees under every seed;
# - the same mode for every run (multi,multi) never claims a race;
# - --streams values: lists refused when a word is wrong.
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
X="$TOP/$BUILD/tsexport"
PROGS="$TOP/$BUILD/tests/cuda"
SEEDS="1 2 3 4 5 6 7 8"

for m in race event; do
	expect_rc 0 "cap.$m" "$CAP" -o "$T/$m.sbt" -- "$PROGS/cuda_race_app" --mode $m
done
# the emulator's names for the two commands of the planted race
expect_rc 1 emu.race "$X" --races "$T/race.sbt"
fill=$(sed -n 's/^  seq \([0-9]*\) kernel fill .*/\1/p' "$T/emu.race.out")
copy=$(sed -n 's/^  seq \([0-9]*\) copy_d2h cuMemcpyDtoHAsync .*/\1/p' "$T/emu.race.out")
[ -n "$fill" ] && [ -n "$copy" ] || fail "the emulator does not name the race: $(cat "$T/emu.race.out")"

# ---- --streams single,multi ---------------------------------------------------------
raced=0
for seed in $SEEDS; do
	rc=0
	TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 2 --streams single,multi "$T/race.sbt" \
		>"$T/race.$seed.out" 2>"$T/race.$seed.err" || rc=$?
	case $rc in
	0) ;;
	4)
		raced=$((raced + 1))
		has "race.$seed" err "tsreplay: likely race: run 1 (serialised) and run 2 (concurrent) part at checkpoint seq"
		has "race.$seed" err "(call seq $copy cuda.cuMemcpyDtoHAsync, memory 0x"
		has "race.$seed" err "the emulator's candidate race pairs touching that memory (1):"
		has "race.$seed" err "race (possible): seq $fill kernel fill reads and may write 0x"
		has "race.$seed" err "<-> seq $copy copy_d2h cuMemcpyDtoHAsync reads 0x"
		has "race.$seed" out "tsreplay: runs differ from each other" ;;
	*) cat "$T/race.$seed.err" >&2; fail "race seed $seed: exit $rc, expected 0 or 4" ;;
	esac
	# the event orders fill before the copy: every run agrees
	expect_rc 0 "event.$seed" env TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 4 \
		--streams single,multi "$T/event.sbt"
	has "event.$seed" out "tsreplay: runs agree with each other at every checkpoint"
done
[ "$raced" -gt 0 ] || fail "no seed of $SEEDS made the concurrent run of the race differ"
echo "race: $raced of the seeds $SEEDS reported as a likely race"
# one mode for every run: runs are not told apart, no race claimed
for seed in $SEEDS; do
	rc=0
	TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 2 --streams multi,multi "$T/race.sbt" \
		>"$T/mm.$seed.out" 2>"$T/mm.$seed.err" || rc=$?
	[ $rc -le 4 ] && [ $rc -ne 1 ] && [ $rc -ne 2 ] || fail "multi,multi seed $seed: exit $rc"
	! grep -q "likely race" "$T/mm.$seed.err" || fail "multi,multi claims a race: $(cat "$T/mm.$seed.err")"
done

# ---- option values ------------------------------------------------------------------
expect_rc 2 bad.list "$RP" --streams single,bogus "$T/race.sbt"
has bad.list err "tsreplay: --streams: expected single or multi, got 'single,bogus'"
expect_rc 2 bad.trail "$RP" --streams single, "$T/race.sbt"
has bad.trail err "got 'single,'"
