#!/bin/sh
# Timeline semaphores as a program's only wait (docs/vulkan-layer.md,
# "Timeline semaphores"): vk_compute --timeline signals a timeline
# semaphore at each submit, waits with vkWaitSemaphores on even rounds and
# polls vkGetSemaphoreCounterValue on odd ones, then reads its results
# from host-coherent memory without an invalidate, and checks them itself.
# - Under our layer (validation below) it prints the plain run's hash and
#   exits 0: the counter query that shows the value reached is an
#   observation, so the host reads the device's results (before, the
#   layer never looked after the query and round 1 read the previous
#   round's results: "round 1: result 0 is ...").
# - Each round's results are checkpointed at the call that showed them
#   done: rounds 1, 3, 5 at their vkWaitSemaphores, 2, 4, 6 at their last
#   vkGetSemaphoreCounterValue (before, the device never looked idle to
#   the layer and the trace held no checkpoint at all), and tsreplay
#   --validate matches all six.
# - A window of submits 3-5 (tscapture --submits) holds the checkpoints of
#   rounds 3 and 4, one at each kind of call (the window ends with submit
#   5, before round 5's wait), and its replay matches them.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
P=$BUILD/tests/programs/vk_compute

vk_env_layers_validation
vk_env_run "$T/plain.log" "$P" --submits 6 --timeline || fail "vk_compute --timeline alone"
hash=$(grep '^vk_compute:' "$T/plain.log")
[ -n "$hash" ] || fail "vk_compute printed no result line: $(tail -3 "$T/plain.log")"

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/tl.sbt vk_env_run "$T/ours.log" "$P" --submits 6 --timeline ||
	fail "vk_compute --timeline under our layer (the results it read are wrong when it says so)"
[ "$(grep '^vk_compute:' "$T/ours.log")" = "$hash" ] ||
	fail "vk_compute under our layer printed '$(grep '^vk_compute:' "$T/ours.log")', without it '$hash'"

# the checkpoints, and the call each was taken at
"$BUILD/tsinfo" --dump "$T/tl.sbt" >"$T/tl.dump" || fail "tsinfo cannot read the trace"
sed -n 's/.* checkpoint call_seq=\([0-9]*\) .*/\1/p' "$T/tl.dump" >"$T/cp_seqs"
n=$(wc -l <"$T/cp_seqs")
[ "$n" -eq 6 ] || fail "the trace holds $n checkpoints, expected one per round (6)"
: >"$T/cp_calls"
while read -r s; do
	sed -n "s/^seq=$s [^ ]* [^ ]* \([^ ]*\).*/\1/p" "$T/tl.dump" >>"$T/cp_calls"
done <"$T/cp_seqs"
[ "$(grep -c '^vulkan.vkWaitSemaphores$' "$T/cp_calls")" -eq 3 ] ||
	fail "checkpoints at vkWaitSemaphores: $(tr '\n' ' ' <"$T/cp_calls") (expected 3)"
[ "$(grep -c '^vulkan.vkGetSemaphoreCounterValue$' "$T/cp_calls")" -eq 3 ] ||
	fail "checkpoints at vkGetSemaphoreCounterValue: $(tr '\n' ' ' <"$T/cp_calls") (expected 3)"

vk_env_layers_none
vk_env_run "$T/replay.log" "$BUILD/tsreplay" --validate "$T/tl.sbt" || fail "tsreplay --validate"
grep -q 'checkpoints: 6 compared, 6 matched, 0 differ' "$T/replay.log" ||
	fail "replay: $(grep 'checkpoints:' "$T/replay.log")"
echo "ok: whole run, 6 checkpoints at the waits and counter queries, all matched"

# a window of submits 3-5
vk_env_layers_validation
vk_env_run "$T/win.log" "$BUILD/tscapture" -o "$T/w.sbt" --submits 3-5 -- \
	"$P" --submits 6 --timeline || fail "vk_compute --timeline under tscapture --submits 3-5"
[ "$(grep '^vk_compute:' "$T/win.log")" = "$hash" ] || fail "vk_compute under tscapture: wrong hash"
win=$(ls "$T"/w-*.sbt 2>/dev/null | head -n 1)
[ -n "$win" ] || fail "tscapture wrote no window trace: $(tail -3 "$T/win.log")"
"$BUILD/tsinfo" --dump "$win" >"$T/w.dump" || fail "tsinfo cannot read the window's trace"
m=$(grep -c ' checkpoint ' "$T/w.dump" || :)
[ "$m" -eq 2 ] || fail "the window holds $m checkpoints, expected 2 (rounds 3 and 4)"
for c in vkWaitSemaphores vkGetSemaphoreCounterValue; do
	s=$(sed -n "s/^seq=\([0-9]*\) [^ ]* [^ ]* vulkan\.$c .*/\1/p" "$T/w.dump" | tail -n 1)
	grep -q " checkpoint call_seq=$s " "$T/w.dump" ||
		fail "the window's last $c (seq '$s') has no checkpoint"
done
vk_env_layers_none
vk_env_run "$T/wreplay.log" "$BUILD/tsreplay" --validate "$win" || fail "tsreplay --validate of the window"
grep -q 'checkpoints: 2 compared, 2 matched, 0 differ' "$T/wreplay.log" ||
	fail "window replay: $(grep 'checkpoints:' "$T/wreplay.log")"
echo "ok: window of submits 3-5, 2 checkpoints matched"
