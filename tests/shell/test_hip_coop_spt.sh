#!/bin/sh
# Cooperative launches and the per-thread default stream on replay
# (docs/hip.md), with hip_coop_spt (tests/hip/hip_coop_spt.hip, hipcc-built,
# saxpy), on the libamdhip64 test double:
# - the double runs hipLaunchCooperativeKernel as a launch of the stub and
#   hipLaunchCooperativeKernel_spt on the thread's per-thread stream;
# - tscapture records hipLaunchCooperativeKernel_spt as
#   hipLaunchCooperativeKernel with ptds=1 and no stream; the output is
#   unchanged;
# - tsreplay runs the ptds records (two launches and a copy between them)
#   on a per-thread stream of its own, in their order whatever order the
#   double's scheduler draws for unordered work (seeds 1 to 4), and with
#   --streams single, every checkpoint equal.  The double gives the same
#   results whether those records run on a per-thread stream or on the null
#   stream, so this shows their order and results, not which stream the
#   replay chose.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_coop_spt" ] || { echo "no hipcc: hip_coop_spt is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
hip_window

expect_rc 0 run $PRE "$H/hip_coop_spt"
has run out "y[3] 7.0"
has run out "y[3] 19.5 y[500] 3001.5"
grep -v '^y' "$T/run.out" | grep -qv ' 0$' && fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_coop_spt"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
[ "$(grep -c ' hip\.hipLaunchCooperativeKernel ' "$T/dump.out")" -eq 3 ] ||
	fail "not 3 cooperative launches: $(grep Cooperative "$T/dump.out")"
[ "$(grep ' hip\.hipLaunchCooperativeKernel ' "$T/dump.out" | grep -c ' ptds=1 ')" -eq 2 ] ||
	fail "not 2 cooperative launches with ptds=1: $(grep Cooperative "$T/dump.out")"
grep ' hip\.hipLaunchCooperativeKernel ' "$T/dump.out" | grep ' ptds=1 ' | grep -q ' stream=' &&
	fail "a ptds launch names a stream: $(grep Cooperative "$T/dump.out")"
grep ' hip\.hipLaunchCooperativeKernel ' "$T/dump.out" | grep -v ' ptds=1 ' | grep -q ' name="_Z5saxpyifPKfPf" stream=[1-9]' ||
	fail "the launch on a created stream does not name it: $(grep Cooperative "$T/dump.out")"

for seed in 1 2 3 4; do
	expect_rc 0 "seed$seed" env TSHIP_DOUBLE_SEED=$seed "$RP" --json "$T/c.sbt"
	n=$(json_field "$T/seed$seed.out" checkpoints)
	m=$(json_field "$T/seed$seed.out" matched)
	[ "$n" = 2 ] && [ "$m" = 2 ] || fail "seed $seed: $n checkpoints, $m matched, expected 2 of 2: $(cat "$T/seed$seed.out")"
done
expect_rc 0 single "$RP" --json --streams single "$T/c.sbt"
n=$(json_field "$T/single.out" checkpoints)
m=$(json_field "$T/single.out" matched)
[ "$n" = 2 ] && [ "$m" = 2 ] || fail "single: $n checkpoints, $m matched, expected 2 of 2: $(cat "$T/single.out")"
expect_rc 0 determinism "$RP" --check-determinism "$T/c.sbt"
exit 0
