#!/bin/sh
# What an application sees through VK_LAYER_tracesmith (over the validation
# layer), compared with the validation layer alone, using vkl_tools:
# - vkGetPhysicalDeviceToolProperties and its EXT alias list TraceSmith
#   (purpose TRACING = 0x4, layer VK_LAYER_tracesmith) first, then the tools
#   below it (the validation layer), and VK_EXT_tooling_info is advertised;
# - an extension the layer cannot capture (VK_KHR_external_memory_fd: memory
#   contents come from another process) is listed by the driver, absent
#   through the layer, refused by vkCreateDevice (VK_ERROR_EXTENSION_NOT_PRESENT
#   = -7), and named in an info log line;
# - commands of platforms we do not build (DirectFB) and names newer than our
#   vk.xml are not offered, with a log line; ordinary commands are;
# - with TRACESMITH_DISABLE=1 the application sees the same tools,
#   extensions and commands, but a device command it looks up is the next
#   layer's own (vkl_tools --where: the validation layer's shared object,
#   ours when enabled): the disabled layer is not in the command's path; a
#   program's results are those without our layer, and no trace is written.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
P="$BUILD/tests/programs/vkl_tools"
ARGS="--ext VK_KHR_external_memory_fd --ext VK_EXT_tooling_info --proc vkCmdDraw
	--proc vkCreateDirectFBSurfaceEXT --proc vkCmdDrawFromTheFutureEXT
	--proc vkCmdPushConstants --proc vkQueueSubmit --proc vkMapMemory --where"

vk_env_layers_validation
# shellcheck disable=SC2086
vk_env_run "$T/plain.out" "$P" $ARGS || fail "vkl_tools under validation alone"
grep -q '^ext VK_KHR_external_memory_fd listed$' "$T/plain.out" ||
	fail "the driver does not list VK_KHR_external_memory_fd: this test needs lavapipe"
grep -q 'TraceSmith' "$T/plain.out" && fail "TraceSmith reported without the layer"

vk_env_layers_ours
export TRACESMITH_OUTPUT="$T/cap.sbt" TRACESMITH_LOG=info
# shellcheck disable=SC2086
vk_env_run "$T/ours.out" "$P" $ARGS || fail "vkl_tools under VK_LAYER_tracesmith"
o="$T/ours.out"
grep -q '^tool 0: TraceSmith | 0x4 | VK_LAYER_tracesmith$' "$o" || fail "core tool list: $(grep tool "$o")"
grep -q '^tool 1: Khronos Validation Layer | .* | VK_LAYER_KHRONOS_validation$' "$o" ||
	fail "the tools below ours are not chained: $(grep tool "$o")"
grep -q '^tool-ext 0: TraceSmith | 0x4 | VK_LAYER_tracesmith$' "$o" || fail "EXT alias: $(grep tool "$o")"
grep -q '^tool-ext 1: Khronos Validation Layer' "$o" || fail "EXT alias does not chain"
grep -q '^ext VK_EXT_tooling_info listed$' "$o" || fail "VK_EXT_tooling_info not advertised"
grep -q '^create VK_EXT_tooling_info: 0$' "$o" || fail "a device enabling VK_EXT_tooling_info fails"
grep -q '^ext VK_KHR_external_memory_fd absent$' "$o" || fail "VK_KHR_external_memory_fd not hidden"
grep -q '^create VK_KHR_external_memory_fd: -7$' "$o" || fail "enabling a hidden extension was not refused"
grep -q 'hides extension VK_KHR_external_memory_fd' "$o" || fail "no log line for the hidden extension"
grep -q '^proc vkCmdDraw: found found$' "$o" || fail "vkCmdDraw not offered"
grep -q '^proc vkCreateDirectFBSurfaceEXT: null null$' "$o" || fail "DirectFB command offered"
grep -q 'hides command vkCreateDirectFBSurfaceEXT' "$o" || fail "no log line for the DirectFB command"
grep -q '^proc vkCmdDrawFromTheFutureEXT: null null$' "$o" || fail "unknown command offered"
grep -q 'hides command vkCmdDrawFromTheFutureEXT' "$o" || fail "no log line for the unknown command"
for c in vkCmdDraw vkCmdPushConstants vkQueueSubmit vkMapMemory; do
	grep -q "^where $c: libVkLayer_tracesmith.so\$" "$o" ||
		fail "$c does not reach our layer first: $(grep "^where $c:" "$o")"
done
# the queries themselves are in the trace
"$BUILD/tsinfo" "$T/cap.sbt" >"$T/info" || fail "tsinfo cannot read the trace"
grep -q 'vulkan.vkGetPhysicalDeviceToolProperties ' "$T/info" || fail "tool query not recorded"

# disabled: the same surface, the commands not passing through the layer
export TRACESMITH_OUTPUT="$T/off.sbt" TRACESMITH_DISABLE=1
# shellcheck disable=SC2086
vk_env_run "$T/off.out" "$P" $ARGS || fail "vkl_tools under the disabled layer"
grep -v '^where ' "$o" | grep '^\(api\|tool\|tool-ext\|ext\|create\|proc\) ' >"$T/on.surface"
grep -v '^where ' "$T/off.out" | grep '^\(api\|tool\|tool-ext\|ext\|create\|proc\) ' >"$T/off.surface"
cmp -s "$T/on.surface" "$T/off.surface" ||
	fail "the disabled layer shows another API: $(diff "$T/on.surface" "$T/off.surface" | head -5)"
for c in vkCmdDraw vkCmdPushConstants vkQueueSubmit vkMapMemory; do
	grep -q "^where $c: libVkLayer_khronos_validation.so\$" "$T/off.out" ||
		fail "the disabled layer is in $c's path: $(grep "^where $c:" "$T/off.out")"
done
vk_env_run "$T/off_compute.out" "$BUILD/tests/programs/vk_compute" ||
	fail "vk_compute under the disabled layer"
unset TRACESMITH_DISABLE
vk_env_layers_validation
vk_env_run "$T/plain_compute.out" "$BUILD/tests/programs/vk_compute" || fail "vk_compute under validation alone"
h_off=$(grep '^vk_compute: ' "$T/off_compute.out")
h_plain=$(grep '^vk_compute: ' "$T/plain_compute.out")
[ -n "$h_plain" ] && [ "$h_off" = "$h_plain" ] ||
	fail "vk_compute's results differ under the disabled layer: '$h_off' against '$h_plain'"
[ ! -e "$T/off.sbt" ] || fail "the disabled layer wrote a trace"
echo "ok"
