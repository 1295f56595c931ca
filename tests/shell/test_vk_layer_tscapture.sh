#!/bin/sh
# tscapture with the Vulkan layer: it enables VK_LAYER_tracesmith as an
# implicit layer (its implicit manifest's folder first in XDG_DATA_DIRS,
# the default folders kept after it, TRACESMITH_VK_IMPLICIT=1) and keeps
# the layers the user listed in VK_INSTANCE_LAYERS; a Vulkan program run
# under it leaves its trace at -o FILE, with vulkan records and the
# validation layer still active below ours (no VUID- line).  As an
# implicit layer it may filter the loader's instance extension list
# (none needs it here any more: Wayland is carried), and it hides and logs
# the device extensions it cannot record; a user who also lists
# VK_LAYER_tracesmith gets it once.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
unset VK_ADD_LAYER_PATH XDG_DATA_DIRS
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_INSTANCE_LAYERS
expect_rc 0 env "$BUILD/tscapture" -o "$T/env.sbt" -- \
	sh -c 'echo "$VK_INSTANCE_LAYERS|${VK_ADD_LAYER_PATH:-}|$XDG_DATA_DIRS|$TRACESMITH_VK_IMPLICIT"'
layers=$(cut -d'|' -f1 "$T/env.out")
path=$(cut -d'|' -f2 "$T/env.out")
xdg=$(cut -d'|' -f3 "$T/env.out")
on=$(cut -d'|' -f4 "$T/env.out")
[ "$layers" = "VK_LAYER_KHRONOS_validation" ] || fail "VK_INSTANCE_LAYERS='$layers'"
[ -z "$path" ] || fail "VK_ADD_LAYER_PATH='$path', expected none (implicit layer)"
[ "$xdg" = "$(cd "$BUILD/share" && pwd):/usr/local/share:/usr/share" ] || fail "XDG_DATA_DIRS='$xdg'"
[ "$on" = 1 ] || fail "TRACESMITH_VK_IMPLICIT='$on'"

# the instance extensions the program sees (vulkaninfo, from vulkan-tools;
# not under make tsan: it is not instrumented and cannot load our layer)
if ! tsan_build; then
	command -v vulkaninfo >/dev/null || fail "vulkaninfo (vulkan-tools) is not installed"
	expect_rc 0 viplain env VK_INSTANCE_LAYERS= vulkaninfo --summary
	has viplain out 'VK_KHR_wayland_surface'
	expect_rc 0 vi env VK_INSTANCE_LAYERS= TRACESMITH_LOG=info "$BUILD/tscapture" -o "$T/vi.sbt" -- \
		vulkaninfo --summary
	has vi out 'Instance Extensions'
	has vi out 'VK_KHR_xcb_surface'
	# every instance extension the loader offers here is carried now (the
	# Wayland and Xlib-XRandR platforms included); what the layer cannot
	# record is still hidden and logged (a device extension here)
	has vi out 'VK_KHR_wayland_surface'
	has vi err 'hides extension VK_KHR_external_memory_fd'
fi

# also listed explicitly by the user: still one layer in the chain
expect_rc 0 twice env VK_ADD_LAYER_PATH="$VK_ENV_BUILD/layers" VK_LOADER_DEBUG=layer \
	VK_INSTANCE_LAYERS=VK_LAYER_tracesmith:VK_LAYER_KHRONOS_validation \
	"$BUILD/tscapture" -o "$T/twice.sbt" -- \
	"$BUILD/tests/programs/vk_compute" --size 1024 --submits 2
n=$(grep -c 'Insert instance layer "VK_LAYER_tracesmith"' "$T/twice.out" "$T/twice.err" |
	awk -F: '{ s += $NF } END { print s }')
[ "$n" = 1 ] || fail "VK_LAYER_tracesmith inserted $n times"

expect_rc 0 compute "$BUILD/tscapture" -o "$T/compute.sbt" -- "$BUILD/tests/programs/vk_compute"
vk_env_clean "$T/compute.out" || fail "validation messages under tscapture"
has compute out "vk_compute: size"
has compute err "tscapture: wrote $T/compute.sbt"
"$BUILD/tsinfo" "$T/compute.sbt" >"$T/info" || fail "tsinfo cannot read $T/compute.sbt"
grep -q 'vulkan.vkQueueSubmit ' "$T/info" || fail "no vkQueueSubmit in the trace"
grep -q 'vulkan.vkCreateComputePipelines ' "$T/info" || fail "no pipeline creation in the trace"
echo "ok"
