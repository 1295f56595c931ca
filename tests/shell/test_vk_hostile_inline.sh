#!/bin/sh
# tsreplay reads the shader code a pipeline stage gives in its pNext
# (VkShaderModuleCreateInfo with no module, VK_EXT_graphics_pipeline_library)
# as it reads a shader module's (issue 12; replayer/vulkan/rpvk_shader.c,
# docs/hostile-traces.md).  `vk_dynstate --library --inline --execute`
# links "tri" from four pipeline libraries whose two shader libraries give
# their code that way, and after a vkCmdExecuteCommands binds, sets and
# pushes everything its draw uses: its trace (the code in the pipeline
# records) draws the pixels vk_dynstate draws and replays with every
# checkpoint equal and no VUID- line from the Khronos validation layer
# (tsreplay --validate).
# Changed with tests/fuzz/sbt_mutate: vkCmdPushConstants moved ahead of the
# execute stops with exit 1 and the exact message at the triangle's draw,
# the first: the push constants are read from the inline vertex shader
# through the linked pipeline (before, such code was not read, the
# triangle's draw went to the driver with its push constants undefined,
# and the replay stopped only at the line's draw, whose pipeline names a
# shader module).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
M=$VK_ENV_BUILD/tests/sbt_mutate
I=$VK_ENV_BUILD/tsinfo
P=$VK_ENV_BUILD/tests/programs/vk_dynstate
[ -x "$M" ] || fail "$M is not built"
[ -x "$P" ] || fail "$P is not built"
unset DISPLAY

vk_env_layers_validation
vk_env_run "$T/plain.log" "$P" || fail "vk_dynstate under validation"
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/in.sbt vk_env_run "$T/in.capture.log" "$P" --library --inline --execute ||
	fail "vk_dynstate --library --inline --execute under VK_LAYER_tracesmith and validation"
vk_env_layers_none
H=$(sed -n 's/^vk_dynstate: hash \(0x[0-9a-f]*\)$/\1/p' "$T/plain.log")
[ -n "$H" ] || fail "vk_dynstate: $(cat "$T/plain.log")"
grep -qx "vk_dynstate: library inline execute hash $H" "$T/in.capture.log" ||
	fail "vk_dynstate --library --inline --execute: $(cat "$T/in.capture.log")"
# the two shader libraries carry their code, with no module
n=$("$I" --dump "$T/in.sbt" | grep ' vulkan\.vkCreateGraphicsPipelines ' |
	grep -c 'pStages\[0\]\.module=0x0000000000000000 .*pStages\[0\]\.pNext\.VkShaderModuleCreateInfo\.codeSize=') || true
[ "$n" -eq 2 ] || fail "vk_dynstate --inline's trace has $n pipelines with code in a stage's pNext (expected 2)"

rc=0
timeout 120 "$R" --validate "$T/in.sbt" >"$T/in.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "in: exit $rc: $(tail -5 "$T/in.out")"
grep -q " 0 differ" "$T/in.out" || fail "in: $(tail -5 "$T/in.out")"
vk_env_clean "$T/in.out" || fail "in: the validation layer reported the replay"

# seq_of NAME N: the sequence number of the Nth (from 1) record of call NAME
# in $T/in.sbt.
seq_of() {
	"$I" --dump "$T/in.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | sed -n "${2}p"
}
EXEC=$(seq_of vkCmdExecuteCommands 1)
DRAW=$(seq_of vkCmdDraw 1)
PUSH=$(seq_of vkCmdPushConstants 1)
[ -n "$EXEC" ] && [ -n "$DRAW" ] && [ -n "$PUSH" ] && [ "$PUSH" -gt "$EXEC" ] ||
	fail "vk_dynstate --inline's trace lacks its execute, draw or push after the execute"
"$M" "$T/in.sbt" "$T/push.sbt" --move "$PUSH:$EXEC" >/dev/null || fail "sbt_mutate push"
rc=0
timeout 120 "$R" "$T/push.sbt" >"$T/push.out" 2>"$T/push.err" || rc=$?
[ "$rc" -ne 124 ] || fail "push: tsreplay hung"
[ "$rc" -eq 1 ] || fail "push: exit $rc (expected 1): $(cat "$T/push.err")"
# the execute is at seq EXEC + 1 once the push moved to its place
grep -qxE "tsreplay: backend vulkan: record seq $DRAW vkCmdDraw: command buffer 0x[0-9a-f]+ uses the push constants its pipeline's shaders use, bound or set before vkCmdExecuteCommands \(record seq $((EXEC + 1))\) and not since: executing secondary command buffers leaves the primary command buffer's state undefined: a valid application never makes this call, and a driver may crash on it" \
	"$T/push.err" || fail "push: $(cat "$T/push.err")"
echo "ok: vk_dynstate --library --inline --execute replays clean under validation; its push constants moved ahead of the execute stop with exit 1 naming the record"
