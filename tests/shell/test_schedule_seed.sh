#!/bin/sh
# tsreplay --schedule-seed (docs/replay.md "Sampled orders") on the libcuda
# test double, unseeded (the sampled order alone decides what runs first):
# - cuda_sched_app ("fill" writes B on stream 1, "vadd" reads it on stream
#   2, no event): seeds 1..10 draw both orders of the two launches; the
#   checkpoint of C matches the capture under some seeds and differs under
#   others; one seed twice gives the same order hash and the same result;
#   --check-determinism --schedule-seeds 1,...,10 exits 4 naming the first
#   divergent launch (vadd, by seq and name), the seeds of the two runs and
#   the emulator's pair (fill, vadd);
# - with the event (--event): ten seeds give one order and agree (exit 0);
# - cuda_driver_app (ordered by events): ten seeds draw several orders and
#   agree; its --racy variant parts after a command the emulator puts in a
#   race; the H100 fixture traces replay under three seeds, matched;
# - --json lists every run's seed and order hash;
# - bad values: a seed that is not a number, a list with a bad entry,
#   --schedule-seeds without --check-determinism, --streams with a seed,
#   all exit 2 with a message naming the flag and the value; a trace that
#   launches a CUDA graph is refused naming the launch (exit 2).
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
LIST=1,2,3,4,5,6,7,8,9,10

# captured in the double's seeded mode: one launch at a time, so the
# captured C is that of one order, never a torn mix of the two
expect_rc 0 cap.race env TSCUDA_DOUBLE_SEED=1 "$CAP" -o "$T/race.sbt" -- "$PROGS/cuda_sched_app"
expect_rc 0 cap.event env TSCUDA_DOUBLE_SEED=1 "$CAP" -o "$T/event.sbt" -- "$PROGS/cuda_sched_app" --event
"$TOP/$BUILD/tsinfo" --dump "$T/race.sbt" >"$T/dump" || fail "tsinfo --dump"
fill=$(sed -n 's/^seq=\([0-9]*\) .*cuda.cuLaunchKernel .*name="fill".*/\1/p' "$T/dump")
vadd=$(sed -n 's/^seq=\([0-9]*\) .*cuda.cuLaunchKernel .*name="vadd".*/\1/p' "$T/dump")
[ -n "$fill" ] && [ -n "$vadd" ] || fail "no fill and vadd launches in the trace: $(cat "$T/dump")"

# ---- one seed at a time: both orders, both results ---------------------------------
matched=0 differed=0 hashes=""
for seed in $SEEDS; do
	rc=0
	"$RP" --schedule-seed $seed "$T/race.sbt" >"$T/one.$seed.out" 2>"$T/one.$seed.err" || rc=$?
	case $rc in
	0) matched=$((matched + 1)) ;;
	3) differed=$((differed + 1))
	   has "one.$seed" err "tsreplay: the replay differs from the capture at checkpoint seq" ;;
	*) cat "$T/one.$seed.err" >&2; fail "seed $seed: exit $rc, expected 0 or 3" ;;
	esac
	h=$(sed -n "s/^tsreplay: schedule seed $seed: order \(0x[0-9a-f]*\) of 5 commands, .*/\1/p" "$T/one.$seed.out")
	[ -n "$h" ] || fail "seed $seed: no order line: $(cat "$T/one.$seed.out")"
	case " $hashes " in *" $h "*) ;; *) hashes="$hashes $h" ;; esac
	# the same seed again: the same order, the same result
	expect_rc $rc "again.$seed" "$RP" --schedule-seed $seed "$T/race.sbt"
	has "again.$seed" out "tsreplay: schedule seed $seed: order $h of 5 commands"
done
[ "$matched" -gt 0 ] && [ "$differed" -gt 0 ] ||
	fail "seeds $SEEDS: $matched matched the capture, $differed differed; expected some of each"
[ "$(echo $hashes | wc -w)" -eq 2 ] || fail "seeds $SEEDS drew orders$hashes; expected the two of fill and vadd"
echo "race: $matched seeds match the capture, $differed differ; orders$hashes"

# ---- several seeds compared ---------------------------------------------------------
expect_rc 4 det.race "$RP" --check-determinism --schedule-seeds $LIST "$T/race.sbt"
has det.race err "part first after the command at seq $vadd (--per-command)"
has det.race err "  call:     seq $vadd cuda.cuLaunchKernel (kernel vadd)"
grep -q "^tsreplay: likely race: run 1 (seed 1) and run [0-9]* (seed [0-9]*) part after the command at seq $vadd (cuda.cuLaunchKernel (kernel vadd), memory 0x" "$T/det.race.err" ||
	fail "det.race: no likely race naming the seeds and vadd: $(cat "$T/det.race.err")"
has det.race err "race (possible): seq $fill kernel fill reads and may write 0x"
has det.race err "<-> seq $vadd kernel vadd reads and may write 0x"
has det.race out "tsreplay: runs differ from each other"
has det.race out "tsreplay: run 10: schedule seed 10: order 0x"
# ordered by the event: one order, ten equal results
expect_rc 0 det.event "$RP" --check-determinism --schedule-seeds $LIST "$T/event.sbt"
has det.event out "tsreplay: runs agree with each other at every checkpoint and after every command"
[ "$(sed -n 's/^tsreplay: run [0-9]*: schedule seed [0-9]*: order \(0x[0-9a-f]*\) .*/\1/p' "$T/det.event.out" | sort -u | wc -l)" -eq 1 ] ||
	fail "det.event: the event leaves more than one order: $(cat "$T/det.event.out")"
[ "$(grep -c '^tsreplay: run [0-9]*: schedule seed' "$T/det.event.out")" -eq 10 ] ||
	fail "det.event: not ten runs: $(cat "$T/det.event.out")"
# one seed in every run: the same order each time, so the runs agree
expect_rc 0 det.same "$RP" --check-determinism --runs 3 --schedule-seed 2 "$T/event.sbt"
has det.same out "tsreplay: runs agree with each other at every checkpoint"

# ---- the shared driver-API workload ---------------------------------------------------
# ordered by events: ten seeds draw several orders and every run agrees;
# --racy (no events, non-commuting kernels on two streams): runs part after
# a command the emulator puts in a race
expect_rc 0 cap.drv env TSCUDA_DOUBLE_SEED=1 "$CAP" -o "$T/drv.sbt" -- "$PROGS/cuda_driver_app"
expect_rc 0 cap.racy env TSCUDA_DOUBLE_SEED=1 "$CAP" -o "$T/racy.sbt" -- "$PROGS/cuda_driver_app" --racy
expect_rc 0 det.drv "$RP" --check-determinism --schedule-seeds $LIST "$T/drv.sbt"
has det.drv out "tsreplay: runs agree with each other at every checkpoint and after every command"
n=$(sed -n 's/^tsreplay: run [0-9]*: schedule seed [0-9]*: order \(0x[0-9a-f]*\) .*/\1/p' "$T/det.drv.out" | sort -u | wc -l)
[ "$n" -ge 2 ] || fail "det.drv: ten seeds drew $n order(s) of the workload: $(cat "$T/det.drv.out")"
expect_rc 4 det.racy "$RP" --check-determinism --schedule-seeds $LIST "$T/racy.sbt"
first=$(sed -n 's/^tsreplay: runs differ: run 1 and run [0-9]* part first after the command at seq \([0-9]*\) (--per-command)$/\1/p' "$T/det.racy.err")
[ -n "$first" ] || fail "det.racy: no first divergent command: $(cat "$T/det.racy.err")"
"$TOP/$BUILD/tsexport" --races "$T/racy.sbt" >"$T/racy.races" 2>&1 || true
grep -q "^  seq $first " "$T/racy.races" ||
	fail "det.racy: the first divergent command, seq $first, is in no race the emulator finds: $(cat "$T/racy.races")"
grep -q "^  call:     seq $first cuda\.cuLaunchKernel.* (kernel [A-Za-z_]*)$\|^  call:     seq $first cuda\.cuMem" "$T/det.racy.err" ||
	fail "det.racy: seq $first is not named: $(cat "$T/det.racy.err")"
echo "driver workload: $n orders agree; --racy parts after seq $first"

# ---- real traces (H100 captures, kernels by their twins): one legal order each ------------
if ! tsan_build; then
	FX="$TOP/tests/fixtures/h100/fixed-va"
	for p in saxpy_static driver_cubin; do
		expect_rc 0 "h100.$p" "$RP" --check-determinism --schedule-seeds 1,2,3 "$FX/$p.sbt"
		has "h100.$p" out ", 0 differ"
		has "h100.$p" out "tsreplay: runs agree with each other at every checkpoint and after every command"
		has "h100.$p" out "tsreplay: run 3: schedule seed 3: order 0x"
	done
fi

# ---- --json ---------------------------------------------------------------------------
expect_rc 4 json "$RP" --json --check-determinism --schedule-seeds 1,2,3,4 "$T/race.sbt"
python3 - "$T/json.out" "$vadd" <<'EOF' || fail "json: $(cat "$T/json.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "nondeterministic", d["result"]
assert [r["seed"] for r in d["schedule"]] == [1, 2, 3, 4], d["schedule"]
assert all(r["commands"] == 5 and r["order_hash"].startswith("0x") for r in d["schedule"])
assert d["commands_part"]["call_seq"] == int(sys.argv[2]), d["commands_part"]
assert d["commands_part"]["call"] == "cuda.cuLaunchKernel (kernel vadd)", d["commands_part"]
EOF
expect_rc 0 json.none "$RP" --json "$T/event.sbt"
grep -q '"schedule":null' "$T/json.none.out" || fail "json.none: $(cat "$T/json.none.out")"

# ---- bad values -----------------------------------------------------------------------
expect_rc 2 bad.word "$RP" --schedule-seed abc "$T/race.sbt"
has bad.word err "tsreplay: --schedule-seed: expected a decimal number from 0 to 18446744073709551615, got 'abc'"
expect_rc 2 bad.neg "$RP" --schedule-seed -5 "$T/race.sbt"
has bad.neg err "got '-5'"
expect_rc 2 bad.big "$RP" --schedule-seed 18446744073709551616 "$T/race.sbt"
has bad.big err "got '18446744073709551616'"
expect_rc 2 bad.empty "$RP" --schedule-seed= "$T/race.sbt"
has bad.empty err "got ''"
expect_rc 2 bad.list "$RP" --check-determinism --schedule-seeds 1,2x,3 "$T/race.sbt"
has bad.list err "tsreplay: --schedule-seeds: expected decimal numbers from 0 to 18446744073709551615 separated by commas, got '2x' in '1,2x,3'"
expect_rc 2 bad.nodet "$RP" --schedule-seeds 1,2 "$T/race.sbt"
has bad.nodet err "--schedule-seeds replays once per seed and compares the runs: it needs --check-determinism"
expect_rc 2 bad.streams "$RP" --schedule-seed 1 --streams multi "$T/race.sbt"
has bad.streams err "--streams does not go with --schedule-seed: a sampled order runs every command on one stream"
expect_rc 2 bad.twice "$RP" --schedule-seed 1 --schedule-seed 2 "$T/race.sbt"
has bad.twice err "give one --schedule-seed or one --schedule-seeds list"
# a trace that launches a CUDA graph: refused, naming the launch
expect_rc 0 cap.graph "$CAP" -o "$T/graph.sbt" -- "$PROGS/cuda_graph_app"
glaunch=$("$TOP/$BUILD/tsinfo" --dump "$T/graph.sbt" | sed -n 's/^seq=\([0-9]*\) .*cuda.cuGraphLaunch.*/\1/p' | head -1)
[ -n "$glaunch" ] || fail "cuda_graph_app's trace has no cuGraphLaunch"
expect_rc 2 bad.graph "$RP" --schedule-seed 1 "$T/graph.sbt"
has bad.graph err "tsreplay: --schedule-seed: $T/graph.sbt: seq $glaunch launches a graph: a sampled order runs every command on one stream, where graphs are not rebuilt"
for n in word neg big empty list nodet twice; do
	has "bad.$n" err "try 'tsreplay --help'"
	[ ! -s "$T/bad.$n.out" ] || fail "bad.$n: wrote to stdout: $(cat "$T/bad.$n.out")"
done
echo "schedule-seed: ok"
