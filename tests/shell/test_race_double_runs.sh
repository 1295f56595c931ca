#!/bin/sh
# Issue 10's "a deterministic program passes ten runs under the double's
# reordering mode", on the libcuda test double (docs/cuda-double.md,
# "Seeded reordering": TSCUDA_DOUBLE_SEED=N runs ready work one op at a
# time from streams drawn at random):
# - cuda_driver_app (ordered by events) and cuda_race_app --mode event:
#   under each of the seeds 1..10, tsreplay --check-determinism --runs 10
#   exits 0, every checkpoint of the ten runs matched the capture, and the
#   runs agree; with --per-command, after every command too (cuda_race_app's
#   synchronous uploads are followed by a kernel on a non-blocking stream:
#   the replay's copies after a synchronous call finish before the next
#   command, as the call itself did for the program);
# - the counterpart with the ordering left out, cuda_driver_app --racy,
#   under the same ten runs: some seed makes runs part (exit 4), and
#   --per-command names the first command after which they part, one the
#   emulator puts in a race (tsexport --races).
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
PROGS="$TOP/$BUILD/tests/cuda"
SEEDS="1 2 3 4 5 6 7 8 9 10"

expect_rc 0 cap.drv "$CAP" -o "$T/drv.sbt" -- "$PROGS/cuda_driver_app"
expect_rc 0 cap.event "$CAP" -o "$T/event.sbt" -- "$PROGS/cuda_race_app" --mode event
# (TSCUDA_DOUBLE_RACY=1: the program races on purpose; under make tsan the
# double hides its workers' accesses from ThreadSanitizer, docs/cuda-double.md)
expect_rc 0 cap.racy env TSCUDA_DOUBLE_RACY=1 "$CAP" -o "$T/racy.sbt" -- "$PROGS/cuda_driver_app" --racy

# ---- deterministic programs: ten runs under every seed agree ---------------------
for p in drv event; do
	for seed in $SEEDS; do
		n="$p.$seed"
		expect_rc 0 "$n" env TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 10 "$T/$p.sbt"
		has "$n" out ", 10 runs"
		has "$n" out "tsreplay: runs agree with each other at every checkpoint"
		c=$(sed -n 's/^tsreplay: checkpoints: \([0-9]*\) compared, \([0-9]*\) matched, 0 differ$/\1 \2/p' "$T/$n.out")
		[ -n "$c" ] && [ "${c% *}" = "${c#* }" ] && [ "${c% *}" -gt 0 ] ||
			fail "$n: not every checkpoint matched the capture: $(cat "$T/$n.out")"
		[ ! -s "$T/$n.err" ] || fail "$n: standard error not empty: $(cat "$T/$n.err")"
	done
done
# after every command too
for p in drv event; do
	for seed in $SEEDS; do
		expect_rc 0 "$p.pc.$seed" env TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 10 \
			--per-command "$T/$p.sbt"
		has "$p.pc.$seed" out "tsreplay: runs agree with each other at every checkpoint and after every command"
	done
done

# ---- the racy counterpart: runs part, after a command the emulator names ---------
expect_rc 1 emu.racy "$TOP/$BUILD/tsexport" --races "$T/racy.sbt"
racy_seqs=" $(sed -n 's/^  seq \([0-9]*\) .*/\1/p' "$T/emu.racy.out" | sort -un | tr '\n' ' ')"
parted=0
for seed in $SEEDS; do
	rc=0
	TSCUDA_DOUBLE_SEED=$seed "$RP" --check-determinism --runs 10 --per-command "$T/racy.sbt" \
		>"$T/racy.$seed.out" 2>"$T/racy.$seed.err" || rc=$?
	first=$(sed -n 's/^tsreplay: runs differ: run 1 and run [0-9]* part first after the command at seq \([0-9]*\) (--per-command)$/\1/p' "$T/racy.$seed.err")
	if [ -z "$first" ]; then
		[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "racy seed $seed: exit $rc without a first command: $(cat "$T/racy.$seed.err")"
		continue
	fi
	[ $rc -eq 4 ] || fail "racy seed $seed: runs part after seq $first but exit $rc"
	has "racy.$seed" out "tsreplay: runs differ from each other"
	case "$racy_seqs" in
	*" $first "*) ;;
	*) fail "racy seed $seed: first differing command seq $first is in no race the emulator finds ($racy_seqs)" ;;
	esac
	grep -A1 "part first after the command at seq $first " "$T/racy.$seed.err" | grep -q "^  call:     seq $first cuda\.cu" ||
		fail "racy seed $seed: the command is not named: $(cat "$T/racy.$seed.err")"
	parted=$((parted + 1))
done
[ "$parted" -gt 0 ] || fail "no seed of $SEEDS made ten runs of the racy workload part"
echo "ten runs: cuda_driver_app and cuda_race_app --mode event agree under seeds $SEEDS; --racy parts under $parted of them"
