#!/bin/sh
# tsreplay judges the dynamic states of VK_EXT_vertex_input_dynamic_state,
# VK_EXT_line_rasterization (the line stipple), VK_EXT_extended_dynamic_state2
# (the logic op) and VK_EXT_color_write_enable as it judges the others
# (issue 12; replayer/vulkan/rpvk_shader.c's rpvk_sh_dyn table,
# docs/hostile-traces.md).  `vk_dynstate --more` leaves them to the command
# buffer besides vk_dynstate's 22 states (stippled Bresenham lines, the
# logic op enabled); its trace and its `--more --secondary` trace
# (everything recorded in a secondary command buffer) replay with every
# checkpoint equal and no VUID- line from the Khronos validation layer
# (tsreplay --validate).
# Changed with tests/fuzz/sbt_mutate, each must stop with exit 1 and the
# exact message naming the record:
#   - vkCmdSetVertexInputEXT, vkCmdSetLogicOpEXT (the logic op is enabled)
#     or vkCmdSetColorWriteEnableEXT left out: refused at the triangle's
#     draw naming the state;
#   - vkCmdSetLineStippleEXT left out: refused at the line's draw only (the
#     triangle rasterizes no line, so its draw does not read the stipple);
#   - in the secondary command buffer, vkCmdSetVertexInputEXT left out is
#     refused at its draw.
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
vk_env_run "$T/plain.log" "$P" --more || fail "vk_dynstate --more under validation"
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/more.sbt vk_env_run "$T/more.capture.log" "$P" --more ||
	fail "vk_dynstate --more under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/sec.sbt vk_env_run "$T/sec.capture.log" "$P" --more --secondary ||
	fail "vk_dynstate --more --secondary under VK_LAYER_tracesmith and validation"
vk_env_layers_none
H=$(sed -n 's/^vk_dynstate: more hash \(0x[0-9a-f]*\)$/\1/p' "$T/plain.log")
[ -n "$H" ] || fail "vk_dynstate --more: $(cat "$T/plain.log")"
grep -qx "vk_dynstate: more hash $H" "$T/more.capture.log" || fail "vk_dynstate --more: $(cat "$T/more.capture.log")"
grep -qx "vk_dynstate: secondary more hash $H" "$T/sec.capture.log" ||
	fail "vk_dynstate --more --secondary: $(cat "$T/sec.capture.log")"

. "$TOP/tests/support/vk_hostile.sh"
TAIL=": a valid application never makes this call, and a driver may crash on it"
NEVER="is dynamic state, never set in the command buffer since it began or since a pipeline with it static was bound$TAIL"
n_hostile=0

replays more "$T/more.sbt" --validate
replays sec "$T/sec.sbt" --validate

DRAW1=$(seq_of vkCmdDraw 1 more)
DRAW2=$(seq_of vkCmdDraw 2 more)
[ -n "$DRAW1" ] && [ -n "$DRAW2" ] || fail "vk_dynstate --more's trace lacks its draws"
# re TEXT: TEXT as an extended regular expression matching itself.
re() { printf '%s' "$1" | sed 's/[][().*+?^$|{}\\]/\\&/g'; }
# dropped SRC CALL DRAW STATE: CALL left out of $T/SRC.sbt, the draw at seq
# DRAW is refused naming STATE.
dropped() {
	s=$(seq_of "$2" 1 "$1")
	[ -n "$s" ] || fail "the $1 trace lacks $2"
	hostile "$1_no_$2" "$1" "record seq $3 vkCmdDraw: command buffer 0x" --drop "$s"
	grep -qxE "tsreplay: backend vulkan: record seq $3 vkCmdDraw: command buffer 0x[0-9a-f]+ draws with a pipeline whose $(re "$4") $(re "$NEVER")" "$T/$1_no_$2.err" ||
		fail "$1_no_$2: $(cat "$T/$1_no_$2.err")"
	n_hostile=$((n_hostile + 1))
}
dropped more vkCmdSetVertexInputEXT "$DRAW1" "vertex input (vkCmdSetVertexInputEXT)"
dropped more vkCmdSetLogicOpEXT "$DRAW1" "logic op (vkCmdSetLogicOpEXT)"
dropped more vkCmdSetColorWriteEnableEXT "$DRAW1" "color write enable (vkCmdSetColorWriteEnableEXT)"
dropped more vkCmdSetLineStippleEXT "$DRAW2" "line stipple (vkCmdSetLineStippleEXT)"
SDRAW=$(seq_of vkCmdDraw 1 sec)
[ -n "$SDRAW" ] || fail "vk_dynstate --more --secondary's trace lacks its draw"
dropped sec vkCmdSetVertexInputEXT "$SDRAW" "vertex input (vkCmdSetVertexInputEXT)"
# The null device (tests/fuzz/vk_null.c) records the four setters too: the
# corpus's vk_dynstate --more and --library --inline --execute traces
# replay on it to their end.
N=$VK_ENV_BUILD/tests/vk_null_main
C=$TOP/tests/fuzz/corpus_vk_null
[ -x "$N" ] || fail "$N is not built"
for t in vk_dynstate_more vk_dynstate_inline; do
	"$N" --timeout 20 "$C/$t" >"$T/null_$t.out" 2>&1 || fail "null device $t: $(tail -3 "$T/null_$t.out")"
	grep -qx "replayed $C/$t" "$T/null_$t.out" || fail "null device $t: $(tail -3 "$T/null_$t.out")"
done
echo "ok: 2 traces replay clean under validation, 2 on the null device; $n_hostile hostile traces stop with exit 1 naming the record"
