#!/bin/sh
# tsreplay --schedule-seed on a one-queue Vulkan trace (docs/replay.md
# "Sampled orders"): a queue runs its submits in submission order, so the
# order is the captured one; tsreplay says so in one line and replays it
# (exit 0, checkpoints matched), and --check-determinism --schedule-seeds
# agrees.  vk_compute is captured on lavapipe (one queue) with
# VK_LAYER_tracesmith (validation below it).  Two queues:
# test_vk_sched.sh.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
P="$BUILD/tests/programs"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
[ -x "$R" ] || fail "$R is not built"
unset DISPLAY
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/comp.sbt vk_env_run "$T/comp.capture.log" "$P/vk_compute" --size 4096 --submits 2 ||
	fail "vk_compute under VK_LAYER_tracesmith"
vk_env_layers_none

rc=0
"$R" --schedule-seed 1 "$T/comp.sbt" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/err" >&2; fail "--schedule-seed on a one-queue Vulkan trace: exit $rc, expected 0"; }
[ "$(grep -c "^tsreplay: --schedule-seed: $T/comp.sbt: every submit goes to one queue (0x[0-9a-f]*), which runs them in submission order: the order is the captured one$" "$T/err")" = 1 ] ||
	fail "no one line saying the order is the captured one: $(cat "$T/err")"
grep -q "^tsreplay: schedule seed 1: order 0x[0-9a-f]* of 2 commands, 0 of them run after a command the capture issued later$" "$T/out" ||
	fail "not the captured order of the 2 submits: $(cat "$T/out")"
grep -q "checkpoints: [1-9][0-9]* compared, [1-9][0-9]* matched, 0 differ" "$T/out" || fail "checkpoints: $(cat "$T/out")"
rc=0
"$R" --check-determinism --schedule-seeds 1,2 "$T/comp.sbt" >"$T/out2" 2>"$T/err2" || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/err2" >&2; fail "--schedule-seeds on a one-queue Vulkan trace: exit $rc, expected 0"; }
echo "schedule-seed (vulkan, one queue): the captured order, replayed"
