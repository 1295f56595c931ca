#!/bin/sh
# tscapture with the Vulkan layer: it puts VK_LAYER_tracesmith first in
# VK_INSTANCE_LAYERS (keeping the layers the user listed) and the layer's
# folder from the build tree in VK_ADD_LAYER_PATH, and a Vulkan program run
# under it leaves its trace at -o FILE, with vulkan records and the
# validation layer still active below ours (no VUID- line).
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
unset VK_ADD_LAYER_PATH
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_INSTANCE_LAYERS
expect_rc 0 env "$BUILD/tscapture" -o "$T/env.sbt" -- sh -c 'echo "$VK_INSTANCE_LAYERS|$VK_ADD_LAYER_PATH"'
layers=$(cut -d'|' -f1 "$T/env.out")
path=$(cut -d'|' -f2 "$T/env.out")
[ "$layers" = "VK_LAYER_tracesmith:VK_LAYER_KHRONOS_validation" ] || fail "VK_INSTANCE_LAYERS='$layers'"
[ "$path" = "$(cd "$BUILD/layers" && pwd)" ] || fail "VK_ADD_LAYER_PATH='$path', expected $BUILD/layers"

expect_rc 0 compute "$BUILD/tscapture" -o "$T/compute.sbt" -- "$BUILD/tests/programs/vk_compute"
vk_env_clean "$T/compute.out" || fail "validation messages under tscapture"
has compute out "vk_compute: size"
has compute err "tscapture: wrote $T/compute.sbt"
"$BUILD/tsinfo" "$T/compute.sbt" >"$T/info" || fail "tsinfo cannot read $T/compute.sbt"
grep -q 'vulkan.vkQueueSubmit ' "$T/info" || fail "no vkQueueSubmit in the trace"
grep -q 'vulkan.vkCreateComputePipelines ' "$T/info" || fail "no pipeline creation in the trace"
echo "ok"
