#!/bin/sh
# A program that enables every instance extension the loader reports
# (vk_all_instance_ext) under the explicit layer (VK_INSTANCE_LAYERS, the
# way users run the layer) and under tscapture's implicit layer, with the
# validation layer: the instance is created with every extension
# (VK_KHR_wayland_surface and VK_EXT_acquire_xlib_display included, which
# the layer refused before they were carried), recorded with all of them,
# and the trace replays.
. "$TOP/tests/support/shell.sh"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT VK_LAYER_SETTINGS_PATH
. "$TOP/tests/support/vk_env.sh"
vk_env_init
APP="$TOP/$BUILD/tests/programs/vk_all_instance_ext"
INFO="$TOP/$BUILD/tsinfo"

expect_rc 0 plain "$APP"
n=$(sed -n 's/^extensions \([0-9]*\) devices [0-9]*$/\1/p' "$T/plain.out")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "plain: $(cat "$T/plain.out")"
# (the dump lists the first 8 names; the count and the replay, which
# creates its instance with the recorded names, stand for the rest)
vulkaninfo 2>/dev/null | grep -q 'VK_KHR_wayland_surface' ||
	fail "the loader here reports no VK_KHR_wayland_surface: the test would not test it"

# check NAME TRACE: the trace's vkCreateInstance enabled all n extensions.
check() {
	"$INFO" --dump "$2" | grep -m1 ' vulkan.vkCreateInstance ' >"$T/$1.ci"
	grep -q "pCreateInfo.enabledExtensionCount=$n " "$T/$1.ci" ||
		fail "$1: vkCreateInstance recorded without all $n extensions: $(cut -c1-300 "$T/$1.ci")"
	expect_rc 0 "$1.rp" "$TOP/$BUILD/tsreplay" "$2"
}

# explicit layer, validation below it
VK_ADD_LAYER_PATH="$TOP/$BUILD/layers" VK_INSTANCE_LAYERS=VK_LAYER_tracesmith:VK_LAYER_KHRONOS_validation \
	TRACESMITH_OUTPUT="$T/explicit.sbt" expect_rc 0 explicit "$APP"
has explicit out "extensions $n devices"
cat "$T/explicit.out" "$T/explicit.err" >"$T/explicit.all"
vk_env_clean "$T/explicit.all" || fail "explicit: validation messages"
! grep -q 'refuses instance extension' "$T/explicit.err" || fail "explicit: $(cat "$T/explicit.err")"
check explicit "$T/explicit.sbt"

# tscapture's implicit layer
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation expect_rc 0 implicit "$TOP/$BUILD/tscapture" -o "$T/implicit.sbt" -- "$APP"
has implicit out "extensions $n devices"
vk_env_clean "$T/implicit.out" || fail "implicit: validation messages"
check implicit "$T/implicit.sbt"
echo "ok"
