#!/bin/sh
# VkFFT (Debian's libvkfft-dev 1.2.26) under the layer: tests/programs/vk_fft
# has the library plan Fourier transforms (compute shaders it writes and
# compiles with glslang at run time, sized to the device, lookup tables it
# uploads with its own command buffer and fence) and runs them forward and
# back, checking both against its own DFT.  For each of six plans (radix-2
# and mixed-radix sizes, one to three axes, batches, real input, double
# precision), with the validation layer below ours:
#   - vk_fft alone: exit 0 (the results within tolerance), no VUID- line;
#   - under VK_LAYER_tracesmith: the same line (the same result hash);
#   - tsreplay --validate: every checkpoint matched, no VUID- line.
# Then one trace's replay runs twice (--check-determinism), and the
# stream-scheduler emulator finds no race in it (tsexport --races): the
# program runs clean under the validation layer's synchronization checks,
# and the emulator reported 8 races before it followed a write made
# available by one barrier (transfer to compute) and visible by another
# (compute to transfer), VkFFT's barriers around its dispatches.
# Last, tscapture --submits opens a window after the plan was made: its
# snapshot carries VkFFT's table and pipelines, and its replay matches.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup --replay vk_fft
unset DISPLAY # nothing is presented; replay offscreen

k=0
total=0
while read -r args; do
	k=$((k + 1))
	# shellcheck disable=SC2086 # args: words
	set -- $args
	vk_env_layers_validation
	vk_env_run "$T/$k.plain.log" "$P/vk_fft" "$@" || fail "vk_fft $args alone"
	vk_env_layers_ours
	TRACESMITH_OUTPUT=$T/$k.sbt vk_env_run "$T/$k.ours.log" "$P/vk_fft" "$@" ||
		fail "vk_fft $args under our layer"
	want=$(grep '^vk_fft:' "$T/$k.plain.log")
	got=$(grep '^vk_fft:' "$T/$k.ours.log")
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "vk_fft $args: '$got' under our layer, '$want' alone"
	vk_env_replay_matched "$T/$k.sbt" "$T/$k.replay.log" "vk_fft $args's trace"
	total=$((total + m))
done <<EOF
--rounds 3
--size 1000 --rounds 2
--dims 2 --size 64 --batch 3 --rounds 2
--dims 3 --size 16 --batch 2
--r2c --dims 2 --size 30
--double --r2c --size 120
EOF
echo "ok: $k VkFFT plans give the same results under the layer, $total checkpoints matched in their replays"

# The third plan's trace: two replays agree, and no race in its schedule.
vk_env_run "$T/det.log" "$BUILD/tsreplay" --check-determinism --runs 2 "$T/3.sbt" ||
	fail "tsreplay --check-determinism"
grep -q 'runs agree with each other at every checkpoint' "$T/det.log" ||
	fail "--check-determinism: $(tail -2 "$T/det.log")"
rc=0
"$BUILD/tsexport" --races "$T/3.sbt" >"$T/races.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && grep -q '^races: 0 confirmed, 0 possible$' "$T/races.log" ||
	fail "tsexport --races (exit $rc): $(head -3 "$T/races.log") $(tail -1 "$T/races.log")"
echo "ok: its replays agree, and the emulator finds no race in it"

# A window over rounds 3 and 4 of five of a double-precision plan
# (tscapture --submits 4-5: VkFFT's upload of its twiddle-factor table, a
# double-precision plan's, is the first submit): the window's snapshot
# holds the table, written by a copy on the device before the window
# opened, and the plan's pipelines and sets; its replay matches both
# rounds' results.
vk_env_layers_validation
(cd "$T" && vk_env_run "$T/win.log" "$VK_ENV_BUILD/tscapture" -o "$T/w.sbt" --submits 4-5 -- \
	"$VK_ENV_BUILD/tests/programs/vk_fft" --double --dims 2 --size 64 --batch 3 --rounds 5) ||
	fail "tscapture --submits 4-5 vk_fft"
[ -f "$T/w-submits-4-5.sbt" ] || fail "tscapture wrote no window: $(tail -2 "$T/win.log")"
vk_env_replay_matched "$T/w-submits-4-5.sbt" "$T/wreplay.log" "the window"
[ "$m" -eq 2 ] || fail "the window holds $m checkpoints, expected 2 (one per round)"
echo "ok: a window over two rounds replays with both rounds' results matched"
