#!/bin/sh
# Managed memory the CPU writes with no recorded call (cuda_managed_app:
# the CPU fills M before the first launch and rewrites it after each
# round's readback) reaches the replay only through keyframes, on the
# libcuda test double:
# - TRACESMITH_SNAPSHOT=launch: the start keyframe and every other one are
#   full; met mid-replay their managed records are applied (their other
#   records compared), so every round's checkpoint equals the capture:
#   plain, under the double's seeded reordering, --streams single,
#   --check-determinism --per-command, a sampled order (--schedule-seed:
#   nothing compared, managed memory still applied), and a --range from
#   the keyframe before the second launch; the keyframes compared are
#   those after which a command wrote device memory, none differing; the
#   full start keyframe of TRACESMITH_SNAPSHOT=2 is applied the same way;
# - the default policy (a partial start keyframe): the first round equals
#   the capture; the CPU's later writes are in no keyframe, so the second
#   round's checkpoint differs (docs/cuda.md "Limits").
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
RP=${CUFIX_RP:-"$TOP/$BUILD/tsreplay"}
INFO="$TOP/$BUILD/tsinfo"
APP="$TOP/$BUILD/tests/cuda/cuda_managed_app"

# ok NAME ARGS...: tsreplay --json ARGS exits 0 with every checkpoint
# matched and $nfollow keyframes compared ($2: that count), none differing.
ok() {
	ok_name=$1 ok_want=$2
	shift 2
	expect_rc 0 "$ok_name" "$RP" --json "$@"
	c=$(json_field "$T/$ok_name.out" keyframes_compared)
	d=$(json_field "$T/$ok_name.out" keyframes_differ)
	[ "$(json_field "$T/$ok_name.out" checkpoints)" = 3 ] &&
		[ "$(json_field "$T/$ok_name.out" matched)" = 3 ] &&
		[ "$c" = "$ok_want" ] && [ "$d" = 0 ] ||
		fail "$ok_name: expected 3 checkpoints matched, $ok_want keyframes compared, 0 differ: $(cat "$T/$ok_name.out")"
}

expect_rc 0 plain "$APP" --rounds 3
L="$T/launch.sbt"
TRACESMITH_SNAPSHOT=launch expect_rc 0 cap "$CAP" -o "$L" -- "$APP" --rounds 3
[ "$(cat "$T/plain.out")" = "$(cat "$T/cap.out")" ] || fail "capture changed the result: $(cat "$T/cap.out")"
"$INFO" --dump "$L" >"$T/launch.dump"
# the trace: one managed allocation, in every keyframe (3 launches: 6)
grep -q ' cuda\.cuMemAllocManaged ' "$T/launch.dump" || fail "no cuMemAllocManaged in the trace"
m=$(sed -n 's/^seq=[0-9]* .* cuda\.cuMemAllocManaged .*dst=\([0-9]*\) .*/\1/p' "$T/launch.dump")
[ "$(grep -c ' keyframe ' "$T/launch.dump")" = 6 ] &&
	[ "$(grep -c " cuda\.tsSnapshot dst=$m " "$T/launch.dump")" = 6 ] ||
	fail "trace layout: $(grep -e ' keyframe ' -e ' cuda\.tsSnapshot ' "$T/launch.dump")"
# keyframes with a command before them (since the keyframe before) that
# wrote device memory: a launch or a memset
nfollow=$(awk '/ cuda\.cuLaunch| cuda\.cuMemset/ { w = 1 }
	/ keyframe / { if (w) n++; w = 0 } END { print n + 0 }' "$T/launch.dump")
[ "$nfollow" = 4 ] || fail "trace layout: $nfollow keyframes follow a command that writes"

ok launch "$nfollow" "$L"
expect_rc 0 text "$RP" "$L"
has text out "tsreplay: keyframes: $nfollow compared with the replay's memory ("
has text out "), 0 differ"
for seed in 1 2 3; do
	TSCUDA_DOUBLE_SEED=$seed ok "seed$seed" "$nfollow" "$L"
done
ok single "$nfollow" --streams single "$L"
TSCUDA_DOUBLE_SEED=2 ok det "$nfollow" --check-determinism --per-command --runs 2 "$L"
ok sampled 0 --schedule-seed 3 "$L"
# from the full keyframe before the second launch: the rounds after it
second=$(grep ' cuda\.cuLaunchKernel ' "$T/launch.dump" | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
before=$(awk -v s="$second" '/ keyframe / { q = substr($1, 5) + 0; if (q < s) k = q } END { print k }' \
	"$T/launch.dump")
expect_rc 0 range "$RP" --json --range "$before:" "$L"
has range err "tsreplay: restored keyframe at seq $before"
[ "$(json_field "$T/range.out" checkpoints)" = 2 ] && [ "$(json_field "$T/range.out" matched)" = 2 ] ||
	fail "range: $(cat "$T/range.out")"

# TRACESMITH_SNAPSHOT=N: its start keyframe is full too
TRACESMITH_SNAPSHOT=2 expect_rc 0 cap.every "$CAP" -o "$T/every.sbt" -- "$APP" --rounds 1
"$INFO" --dump "$T/every.sbt" >"$T/every.dump"
em=$(sed -n 's/^seq=[0-9]* .* cuda\.cuMemAllocManaged .*dst=\([0-9]*\) .*/\1/p' "$T/every.dump")
[ -n "$em" ] && grep -q " cuda\.tsSnapshot dst=$em " "$T/every.dump" || fail "every: managed memory in no keyframe"
expect_rc 0 every "$RP" --json "$T/every.sbt"
[ "$(json_field "$T/every.out" checkpoints)" = 1 ] && [ "$(json_field "$T/every.out" matched)" = 1 ] ||
	fail "every: $(cat "$T/every.out")"

# ---- the default policy: managed memory in the start keyframe only -----------------
D="$T/default.sbt"
expect_rc 0 cap.default "$CAP" -o "$D" -- "$APP" --rounds 1
expect_rc 0 default "$RP" --json "$D"
[ "$(json_field "$T/default.out" checkpoints)" = 1 ] && [ "$(json_field "$T/default.out" matched)" = 1 ] ||
	fail "default: $(cat "$T/default.out")"
expect_rc 0 cap.default3 "$CAP" -o "$T/default3.sbt" -- "$APP" --rounds 3
"$INFO" --dump "$T/default3.sbt" >"$T/default3.dump"
second_read=$(grep ' cuda\.cuMemcpyDtoH ' "$T/default3.dump" | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
second_cp=$(grep " checkpoint call_seq=$second_read " "$T/default3.dump" | sed -n 's/^seq=\([0-9]*\) .*/\1/p')
[ -n "$second_cp" ] || fail "default3: no checkpoint of the copy at seq $second_read"
expect_rc 3 default3 "$RP" "$T/default3.sbt"
has default3 err "tsreplay: the replay differs from the capture at checkpoint seq $second_cp"
has default3 err "  call:     seq $second_read cuda.cuMemcpyDtoH"
echo ok
