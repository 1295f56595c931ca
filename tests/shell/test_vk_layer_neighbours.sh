#!/bin/sh
# Other layers users run beside ours: MangoHud (an overlay) and vkBasalt
# (post-processing), both implicit layers enabled by an environment
# variable.  With ours named in VK_INSTANCE_LAYERS the loader puts them
# above ours, and their vkCreateDevice looks the next vkCreateDevice up
# with vkGetInstanceProcAddr(NULL, "vkCreateDevice"), a pattern many layers
# share.  The layer answered NULL for an instance-level command without an
# instance: vkcube aborted (MangoHud's vkCreateDevice returned
# VK_ERROR_INITIALIZATION_FAILED) or died of SIGSEGV (vkBasalt called
# NULL).  Under tscapture ours is implicit too and goes above them.
#
# For each (MANGOHUD=1, ENABLE_VKBASALT=1), on a private Xvfb with the
# validation layer below: `vkcube --c 30` under VK_INSTANCE_LAYERS and
# under tscapture exits 0 with no VUID- line, the trace has 30 frames, and
# tsreplay --validate (which loads neither) matches all 30 frame hashes
# (TRACESMITH_FRAME_HASH=1).  Under VK_INSTANCE_LAYERS MangoHud's own
# drawing passes through ours: that trace holds more calls than the one
# under tscapture, where MangoHud is below ours.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
for m in MangoHud vkBasalt; do
	[ -f "/usr/share/vulkan/implicit_layer.d/$m.json" ] ||
		fail "the $m layer is not installed (scripts/deps.sh: mangohud, vkbasalt)"
done
vk_env_init
vk_env_tsan_skip vkcube
vk_env_xvfb_start
# MangoHud and vkBasalt look for configuration files under HOME; none is
# needed, and none of the user's should be read
HOME=$T
export HOME

# calls NAME: the number of Vulkan calls in trace NAME.sbt
calls() {
	"$BUILD/tsinfo" --json "$T/$1.sbt" >"$T/$1.json" || fail "$1: tsinfo cannot read the trace"
	"$BUILD/tsinfo" "$T/$1.sbt" | awk '$1 == "vulkan" {print $2}'
}

check() { # NAME: the trace's frames and its replay
	frames=$(json_field "$T/$1.json" frames)
	[ "$frames" = 30 ] || fail "$1: the trace has $frames frames, expected 30"
	vk_env_layers_none
	vk_env_run "$T/$1_replay.log" "$BUILD/tsreplay" --validate "$T/$1.sbt" ||
		fail "$1: tsreplay --validate"
	grep -q 'checkpoints: 30 compared, 30 matched, 0 differ' "$T/$1_replay.log" ||
		fail "$1: replay: $(grep 'checkpoints:' "$T/$1_replay.log")"
}

for enable in MANGOHUD ENABLE_VKBASALT; do
	name=$(echo "$enable" | tr 'A-Z' 'a-z')
	vk_env_layers_ours
	vk_env_run "$T/$name.log" env "$enable=1" TRACESMITH_FRAME_HASH=1 \
		TRACESMITH_OUTPUT="$T/$name.sbt" vkcube --c 30 ||
		fail "$enable=1: vkcube under VK_INSTANCE_LAYERS=VK_LAYER_tracesmith"
	above=$(calls "$name")
	check "$name"
	vk_env_layers_validation
	vk_env_run "$T/${name}_tsc.log" env "$enable=1" TRACESMITH_FRAME_HASH=1 \
		"$BUILD/tscapture" -o "$T/${name}_tsc.sbt" -- vkcube --c 30 ||
		fail "$enable=1: tscapture -- vkcube"
	below=$(calls "${name}_tsc")
	check "${name}_tsc"
	if [ "$enable" = MANGOHUD ]; then
		[ "$above" -gt "$below" ] ||
			fail "MangoHud above ours: $above calls recorded, not more than the $below with ours above it"
	fi
	echo "ok: $enable=1, $above calls under VK_INSTANCE_LAYERS, $below under tscapture, 30 frames replayed equal"
done
