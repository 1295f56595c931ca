#!/bin/sh
# Frame boundaries for programs that never present (vkl_tools --submits N on
# a device without VK_KHR_swapchain): every submit ends a frame by default,
# every second one with TRACESMITH_VK_FRAME_SUBMITS=2, none with 0; once the
# program inserts a queue label named "frame", only labels end frames (here:
# 2 submits before the first label, then 3 labels).  Presenting programs
# (one frame per vkQueuePresentKHR) are covered by test_vk_layer_vkcube.sh.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
vk_env_layers_ours
P="$BUILD/tests/programs/vkl_tools"

frames() { # WANT NAME [ENV=VALUE] ARGS...
	want=$1 name=$2
	shift 2
	TRACESMITH_OUTPUT="$T/$name.sbt" vk_env_run "$T/$name.log" env "$@" ||
		fail "$name: vkl_tools under the layer"
	"$BUILD/tsinfo" --json "$T/$name.sbt" >"$T/$name.json" || fail "$name: tsinfo"
	got=$(json_field "$T/$name.json" frames)
	[ "$got" = "$want" ] || fail "$name: $got frames, expected $want"
}

frames 6 every1 "$P" --submits 6
frames 3 every2 TRACESMITH_VK_FRAME_SUBMITS=2 "$P" --submits 6
frames 0 never TRACESMITH_VK_FRAME_SUBMITS=0 "$P" --submits 6
frames 5 labels "$P" --submits 6 --frame-labels
grep -q '^submits 6 labels 3$' "$T/labels.log" || fail "labels: $(cat "$T/labels.log")"
echo ok
