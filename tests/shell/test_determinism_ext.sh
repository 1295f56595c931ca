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
# - --per-command: cuda_driver_app agrees after every command under every
#   seed; its --racy variant parts, under some seed, after a command named
#   by seq that the emulator puts in a race, no later than the first
#   checkpoint that differs (exit 4); with --streams single,multi as well,
#   a likely race whose first pair names that command; --per-command alone
#   is refused;
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

# (TSCUDA_DOUBLE_RACY=1: the program races on purpose; under make tsan the
# double hides its workers' accesses from ThreadSanitizer, docs/cuda-double.md)
for m in race event; do
	racy=
	[ "$m" != race ] || racy="env TSCUDA_DOUBLE_RACY=1"
	expect_rc 0 "cap.$m" $racy "$CAP" -o "$T/$m.sbt" -- "$PROGS/cuda_race_app" --mode $m
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
	0 | 3) ;; # runs agree (3: the capture's own schedule read the buffer before the fill)
	4)
		raced=$((raced + 1))
		has "race.$seed" err "tsreplay: likely race: run 1 (serialised) and run 2 (concurrent) part at checkpoint seq"
		has "race.$seed" err "(call seq $copy cuda.cuMemcpyDtoHAsync, memory 0x"
		has "race.$seed" err "the emulator's candidate race pairs touching that memory (1; those of seq $copy first):"
		has "race.$seed" err "race (possible): seq $fill kernel fill reads and may write 0x"
		has "race.$seed" err "<-> seq $copy copy_d2h cuMemcpyDtoHAsync reads 0x"
		has "race.$seed" out "tsreplay: runs differ from each other" ;;
	*) cat "$T/race.$seed.err" >&2; fail "race seed $seed: exit $rc, expected 0, 3 or 4" ;;
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

# ---- --per-command ------------------------------------------------------------------
expect_rc 0 cap.drv "$CAP" -o "$T/drv.sbt" -- "$PROGS/cuda_driver_app"
expect_rc 0 cap.racy env TSCUDA_DOUBLE_RACY=1 "$CAP" -o "$T/racy.sbt" -- "$PROGS/cuda_driver_app" --racy
# a deterministic program: every run agrees after every command, under
# every seed of the double's reordering
for seed in $SEEDS; do
	expect_rc 0 "drv.$seed" env TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --per-command "$T/drv.sbt"
	has "drv.$seed" out "tsreplay: runs agree with each other at every checkpoint and after every command"
	n=$(sed -n 's/^tsreplay: per-command: \([0-9]*\) results .*/\1/p' "$T/drv.$seed.out")
	[ "${n:-0}" -gt 0 ] || fail "drv seed $seed: no per-command results: $(cat "$T/drv.$seed.out")"
done
# the planted nondeterminism (--racy: non-commuting kernels on two streams,
# no events): the first command after which runs part, by seq, is one of
# the commands the emulator puts in a race, and comes no later than the
# first checkpoint where they part
expect_rc 1 emu.racy "$X" --races "$T/racy.sbt"
racy_seqs=" $(sed -n 's/^  seq \([0-9]*\) .*/\1/p' "$T/emu.racy.out" | sort -un | tr '\n' ' ')"
parted=0 smraced=0
for seed in $SEEDS; do
	rc=0
	TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --per-command "$T/racy.sbt" \
		>"$T/racy.$seed.out" 2>"$T/racy.$seed.err" || rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 3 ] || [ $rc -eq 4 ] || { cat "$T/racy.$seed.err" >&2; fail "racy seed $seed: exit $rc"; }
	first=$(sed -n 's/^tsreplay: runs differ: run 1 and run [0-9]* part first after the command at seq \([0-9]*\) (--per-command)$/\1/p' "$T/racy.$seed.err")
	[ -n "$first" ] || continue
	[ $rc -eq 4 ] || fail "racy seed $seed: runs part after seq $first but exit $rc"
	parted=$((parted + 1))
	case "$racy_seqs" in
	*" $first "*) ;;
	*) fail "racy seed $seed: first differing command seq $first is in no race the emulator finds ($racy_seqs)" ;;
	esac
	grep -A1 "part first after the command at seq $first " "$T/racy.$seed.err" | grep -q "^  call:     seq $first cuda\.cu" ||
		fail "racy seed $seed: the command is not named: $(cat "$T/racy.$seed.err")"
	cp=$(grep -A1 'part first at checkpoint seq' "$T/racy.$seed.err" | sed -n 's/^  call:     seq \([0-9]*\) .*/\1/p')
	# serialised against concurrent: the command's race pairs come first
	rc=0
	TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 2 --per-command --streams single,multi \
		"$T/racy.sbt" >"$T/racysm.$seed.out" 2>"$T/racysm.$seed.err" || rc=$?
	sm=$(sed -n 's/^tsreplay: likely race: run 1 (serialised) and run 2 (concurrent) part after the command at seq \([0-9]*\) .*/\1/p' "$T/racysm.$seed.err")
	if [ -n "$sm" ]; then
		smraced=$((smraced + 1))
		[ $rc -eq 4 ] || fail "racy single,multi seed $seed: exit $rc"
		grep -A1 "touching that memory (.*; those of seq $sm first):" "$T/racysm.$seed.err" | tail -1 |
			grep -q "seq $sm kernel racy_\|seq $sm kernel" ||
			fail "racy single,multi seed $seed: the first pair does not name seq $sm: $(cat "$T/racysm.$seed.err")"
	fi
	[ -z "$cp" ] || [ "$first" -le "$cp" ] || fail "racy seed $seed: command seq $first after the checkpoint's call $cp"
done
[ "$parted" -gt 0 ] || fail "no seed of $SEEDS made --per-command runs of the racy workload part"
[ "$smraced" -gt 0 ] || fail "no seed of $SEEDS made a serialised and a concurrent --per-command run of the racy workload part"
echo "racy: $parted of the seeds $SEEDS part after a named command; $smraced as a likely race"
expect_rc 2 pc.alone "$RP" --per-command "$T/drv.sbt"
has pc.alone err "tsreplay: --per-command compares runs with each other after every command: it needs --check-determinism"

# ---- option values ------------------------------------------------------------------
expect_rc 2 bad.list "$RP" --streams single,bogus "$T/race.sbt"
has bad.list err "tsreplay: --streams: expected single or multi, got 'single,bogus'"
expect_rc 2 bad.trail "$RP" --streams single, "$T/race.sbt"
has bad.trail err "got 'single,'"
