#!/bin/sh
# Presenting extensions lavapipe lacks but real drivers offer (the NVIDIA
# driver: VK_KHR_present_wait, VK_GOOGLE_display_timing,
# VK_EXT_hdr_metadata, ...), in a trace replayed where the swapchain is the
# replay's own plain images: a call naming that swapchain must not reach
# the driver, which never made the handle.  Until 2026-11-28 these were
# replayed by the generated glue: on lavapipe the replay stopped ("does not
# provide vkWaitForPresentKHR"); where the driver has them it would have
# passed it the stand-in handle.
#
# vkcube --c 10 is captured with frame hashes; vk_tracetool swapcall
# rewrites its vkCreateSwapchainKHR into vkCreateSharedSwapchainsKHR (one
# create info: made as vkCreateSwapchainKHR makes one), or its first
# vkGetSwapchainImagesKHR (the count, answered from the capture) into each
# of vkWaitForPresentKHR, vkGetRefreshCycleDurationGOOGLE,
# vkGetPastPresentationTimingGOOGLE, vkGetSwapchainCounterEXT,
# vkSetHdrMetadataEXT, vkSetLocalDimmingAMD and vkReleaseSwapchainImagesEXT
# (the generator now refuses to leave such a command to its generic glue:
# replay.py, takes_stand_in).  Each trace replays
# offscreen and into a window under validation with all 10 frame hashes
# equal and no VUID- line.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
TOOL="$BUILD/tests/programs/vk_tracetool"
[ -x "$TOOL" ] || fail "$TOOL is not built"
vk_env_init
vk_env_tsan_skip vkcube
vk_env_xvfb_start
vk_env_layers_ours
vk_env_run "$T/cube.log" env TRACESMITH_FRAME_HASH=1 TRACESMITH_OUTPUT="$T/cube.sbt" \
	vkcube --c 10 || fail "vkcube under the layer"
"$BUILD/tsinfo" --dump "$T/cube.sbt" >"$T/cube.dump" || fail "tsinfo cannot read the trace"
seq_of() { # the first record of a command
	grep -m1 " vulkan\.$1 " "$T/cube.dump" | sed -n 's/^seq=\([0-9]*\) .*/\1/p'
}
create=$(seq_of vkCreateSwapchainKHR)
images=$(seq_of vkGetSwapchainImagesKHR)
[ -n "$create" ] && [ -n "$images" ] || fail "no swapchain creation or image query in vkcube's trace"
vk_env_layers_none
for cmd in vkCreateSharedSwapchainsKHR vkWaitForPresentKHR vkGetRefreshCycleDurationGOOGLE \
	vkGetPastPresentationTimingGOOGLE vkGetSwapchainCounterEXT vkSetHdrMetadataEXT \
	vkSetLocalDimmingAMD vkReleaseSwapchainImagesEXT; do
	rec=$images
	[ "$cmd" != vkCreateSharedSwapchainsKHR ] || rec=$create
	"$TOOL" swapcall "$T/cube.sbt" "$T/$cmd.sbt" --record "$rec" --as "$cmd" >"$T/$cmd.tool" ||
		fail "$cmd: vk_tracetool swapcall: $(cat "$T/$cmd.tool")"
	grep -q "^swapcall record seq $rec: $cmd\$" "$T/$cmd.tool" || fail "$cmd: $(cat "$T/$cmd.tool")"
	"$BUILD/tsinfo" "$T/$cmd.sbt" | grep -q "vulkan.$cmd " || fail "$cmd: not in the rewritten trace"
	for mode in offscreen window; do
		opt=
		[ "$mode" = window ] || opt=--offscreen
		# shellcheck disable=SC2086
		vk_env_run "$T/$cmd.$mode" "$BUILD/tsreplay" --validate $opt "$T/$cmd.sbt" ||
			fail "$cmd: tsreplay --validate ($mode)"
		grep -q 'checkpoints: 10 compared, 10 matched, 0 differ' "$T/$cmd.$mode" ||
			fail "$cmd ($mode): $(grep 'checkpoints:' "$T/$cmd.$mode")"
	done
done
echo "ok: 8 presenting calls on the replay's swapchain, 10 frames equal offscreen and in a window"
