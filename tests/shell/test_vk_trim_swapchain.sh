#!/bin/sh
# Trimmed Vulkan capture of a program that recreated its swapchain before
# the window (issue 9): vk_trim_swapchain, on a private Xvfb with the
# validation layer below ours, presents frames 1-3 on a first swapchain,
# creates a second with the first as its oldSwapchain, destroys the first,
# and presents frames 4-10 on the second, each frame cleared to its own
# colour and copied into a host-visible buffer it checks.  `--submits 6-9`:
# the snapshot creates the second swapchain without the oldSwapchain that
# no longer exists (one note at TRACESMITH_LOG=info, nothing left out),
# and its vkCreateSwapchainKHR names none; the window's acquires and
# presents replay under validation, and the trimmed trace's checkpoints
# (frames 6-8: the fence wait of frame 9 comes after the window closes)
# are the full capture's for the same frames and match on replay.  No
# validation message of any kind anywhere.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_trim_swapchain; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
vk_env_xvfb_start
# tscapture loads our layer itself (implicit); validation goes below it
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
PROG="$BUILD/tests/programs/vk_trim_swapchain"

# run LOG cmd...: vk_env_run, and no validation error of any kind
run() {
	run_log=$1
	vk_env_run "$@" || return 1
	if grep -q 'Validation Error' "$run_log"; then
		grep 'Validation Error' "$run_log" | head -n 3 | cut -c1-400 >&2
		return 1
	fi
}
cps() {
	"$BUILD/tsinfo" --dump "$1" | grep ' checkpoint ' |
		sed 's/.*\(object=[^ ]*\).*\(offset=[^ ]*\).*\(length=[^ ]*\).*\(hash=[^ ]*\).*/\1 \2 \3 \4/'
}

run "$T/full.log" "$BUILD/tscapture" -o "$T/full.sbt" -- "$PROG" --frames 10 --recreate-at 3 ||
	fail "tscapture of vk_trim_swapchain (full)"
grep -q '^vk_trim_swapchain: frames 10 swapchains 2 hash ' "$T/full.log" ||
	fail "vk_trim_swapchain: $(tail -1 "$T/full.log")"
cps "$T/full.sbt" >"$T/full.cps"
[ "$(wc -l <"$T/full.cps" | tr -d ' ')" = 10 ] || fail "the full capture has $(wc -l <"$T/full.cps") checkpoints, expected 10"

TRACESMITH_LOG=info run "$T/trim.log" "$BUILD/tscapture" --submits 6-9 -o "$T/trim.sbt" -- \
	"$PROG" --frames 10 --recreate-at 3 || fail "tscapture --submits 6-9 of vk_trim_swapchain"
W=$T/trim-submits-6-9.sbt
[ -s "$W" ] || fail "no $W (in $T: $(ls "$T"))"
! grep 'left out\|not recorded' "$T/trim.log" >"$T/trim.out" ||
	fail "the snapshot left something out: $(cat "$T/trim.out")"
n=$(grep -c 'Vulkan snapshot: VkSwapchainKHR 0x[0-9a-f]* is created without its oldSwapchain 0x[0-9a-f]*, destroyed since' "$T/trim.log" || true)
[ "$n" = 1 ] || fail "$n notes of a swapchain created without its oldSwapchain, expected 1: $(grep 'Vulkan snapshot' "$T/trim.log")"
"$BUILD/tsinfo" --dump "$W" | awk '/ snapshot_end( |$)/{exit} {print}' >"$T/snap.dump"
n=$(grep -c 'vulkan.vkCreateSwapchainKHR ' "$T/snap.dump" || true)
[ "$n" = 1 ] || fail "the snapshot creates $n swapchains, expected 1"
grep 'vulkan.vkCreateSwapchainKHR ' "$T/snap.dump" | grep -q ' pCreateInfo.oldSwapchain=0x0*0 ' ||
	fail "the snapshot's swapchain names an oldSwapchain: $(grep -o 'pCreateInfo.oldSwapchain=[^ ]*' "$T/snap.dump")"
"$BUILD/tsinfo" "$W" >"$T/trim.info" || fail "tsinfo of the trimmed trace"
grep -Eq '^frames +3 \(6-8\)$' "$T/trim.info" || fail "trimmed trace: $(grep '^frames' "$T/trim.info" || echo 'no frames line')"

cps "$W" >"$T/trim.cps"
sed -n '6,8p' "$T/full.cps" >"$T/full_window.cps"
cmp -s "$T/trim.cps" "$T/full_window.cps" ||
	fail "checkpoints of frames 6-8 differ from the full capture's: $(diff "$T/full_window.cps" "$T/trim.cps" | head -4)"
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION run "$T/replay.log" "$VK_ENV_BUILD/tsreplay" "$W" ||
	fail "tsreplay of the trimmed trace under validation"
grep -q 'checkpoints: 3 compared, 3 matched, 0 differ' "$T/replay.log" ||
	fail "trimmed replay: $(grep 'checkpoints:' "$T/replay.log")"
grep -q 'frames 6-8 replayed' "$T/replay.log" || fail "trimmed replay: $(grep 'frames' "$T/replay.log")"
echo ok
