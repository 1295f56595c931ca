#!/bin/sh
# VK_EXT_debug_utils' eight device commands as real programs call them.
# mpv (libplacebo) looks them up with vkGetInstanceProcAddr and calls them
# whether or not its instance enabled the extension; the loader fills its
# own device table's entries for them from the instance chain, whose
# terminators stand in for a driver without them.  The layer's table took
# them from vkGetDeviceProcAddr, which gives NULL there, and its wrapper
# called NULL: mpv crashed (SIGSEGV) under the layer, with or without the
# validation layer below.  vkl_tools --debug-calls does what mpv does: the
# device, its queue and a command buffer named, the device tagged, labels
# on the queue and in a submitted command buffer.  For each stack (the
# validation layer below ours or not, the extension enabled or not, the
# layer disabled): the program exits 0 and finds and calls what it does
# without our layer; the trace holds every call, and tsreplay replays it
# under validation with no VUID- line.  (Calling them without enabling the
# extension is the program's own mistake, which the validation layer
# reports as UNASSIGNED-GeneralParameterError-ExtensionNotEnabled in the
# plain run as well.)
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
P="$BUILD/tests/programs/vkl_tools"
[ -x "$P" ] || fail "$P is not built"
VALIDATION=VK_LAYER_KHRONOS_validation

# What the program finds and calls without our layer.
VK_INSTANCE_LAYERS=$VALIDATION vk_env_run "$T/plain.out" "$P" --debug-calls ||
	fail "vkl_tools --debug-calls under the validation layer alone"
want=$(grep '^debug-calls ' "$T/plain.out") || fail "no debug-calls line: $(cat "$T/plain.out")"
[ "$want" = "debug-calls 8 found 10 called" ] ||
	fail "the loader and lavapipe gave '$want', expected all 8 found: this test needs them"

count() { # TRACE COMMAND: its records in TRACE
	"$BUILD/tsinfo" "$1" | awk -v t="vulkan.$2" '$1 == t {print $2}'
}

run() { # NAME LAYERS [ARGS]...: the program under LAYERS, the trace checked
	name=$1 layers=$2
	shift 2
	VK_INSTANCE_LAYERS=$layers TRACESMITH_OUTPUT="$T/$name.sbt" \
		vk_env_run "$T/$name.out" "$P" --debug-calls "$@" ||
		fail "$name: vkl_tools --debug-calls under $layers"
	got=$(grep '^debug-calls ' "$T/$name.out") || fail "$name: no debug-calls line"
	[ "$got" = "$want" ] || fail "$name: '$got', without our layer '$want'"
	[ "$(count "$T/$name.sbt" vkSetDebugUtilsObjectNameEXT)" = 3 ] ||
		fail "$name: $(count "$T/$name.sbt" vkSetDebugUtilsObjectNameEXT) name records, expected 3"
	for c in vkSetDebugUtilsObjectTagEXT vkQueueBeginDebugUtilsLabelEXT \
		vkQueueInsertDebugUtilsLabelEXT vkQueueEndDebugUtilsLabelEXT \
		vkCmdBeginDebugUtilsLabelEXT vkCmdInsertDebugUtilsLabelEXT vkCmdEndDebugUtilsLabelEXT; do
		[ "$(count "$T/$name.sbt" $c)" = 1 ] ||
			fail "$name: $(count "$T/$name.sbt" $c) $c records, expected 1"
	done
	vk_env_run "$T/$name.replay" "$BUILD/tsreplay" --validate "$T/$name.sbt" ||
		fail "$name: tsreplay --validate"
}

run ours VK_LAYER_tracesmith
run ours_ext VK_LAYER_tracesmith --debug-utils
run ours_validation "VK_LAYER_tracesmith:$VALIDATION"
run ours_validation_ext "VK_LAYER_tracesmith:$VALIDATION" --debug-utils

# The disabled layer hands out the same commands (vkl_passes_by).
VK_INSTANCE_LAYERS=VK_LAYER_tracesmith TRACESMITH_DISABLE=1 TRACESMITH_OUTPUT="$T/off.sbt" \
	vk_env_run "$T/off.out" "$P" --debug-calls || fail "vkl_tools under the disabled layer"
[ "$(grep '^debug-calls ' "$T/off.out")" = "$want" ] ||
	fail "disabled: '$(grep '^debug-calls ' "$T/off.out")', without our layer '$want'"
[ ! -e "$T/off.sbt" ] || fail "the disabled layer wrote a trace"
echo "ok: $want under each stack, every call recorded and replayed"
