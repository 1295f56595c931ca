#!/bin/sh
# tsreplay --schedule-seed on a Vulkan trace (docs/replay.md "Sampled
# orders"): refused before anything is replayed, exit 2, with the
# emulator's message saying what a sampled order would mean there (the
# order of submits across queues; lavapipe has one queue) and that it is
# not done.  vk_compute is captured on lavapipe with VK_LAYER_tracesmith
# (validation below it).
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
[ "$rc" -eq 2 ] || { cat "$T/err" >&2; fail "--schedule-seed on a Vulkan trace: exit $rc, expected 2"; }
grep -q "^tsreplay: --schedule-seed: $T/comp.sbt: a Vulkan trace: each queue runs its submits in order, so a sampled order could only change the order of submits across queues, which is not done" "$T/err" ||
	fail "no refusal saying why: $(cat "$T/err")"
! grep -q "replayed" "$T/out" || fail "a refused trace was replayed: $(cat "$T/out")"
rc=0
"$R" --check-determinism --schedule-seeds 1,2 "$T/comp.sbt" >"$T/out2" 2>"$T/err2" || rc=$?
[ "$rc" -eq 2 ] || fail "--schedule-seeds on a Vulkan trace: exit $rc, expected 2"
echo "schedule-seed (vulkan): refused"
