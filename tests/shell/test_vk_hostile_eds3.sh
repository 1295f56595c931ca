#!/bin/sh
# tsreplay judges the dynamic states of VK_EXT_extended_dynamic_state3 as it
# judges the others (issue 12; replayer/vulkan/rpvk_shader.c's rpvk_sh_dyn
# table, docs/hostile-traces.md).  `vk_dynstate --eds3` leaves to the
# command buffer, besides vk_dynstate's 22 states, the 16 of extended
# dynamic state 3 that lavapipe 22.3.6 has, each set with one call; its
# trace and its `--eds3 --secondary` trace (everything recorded in a
# secondary command buffer) draw the pixels vk_dynstate draws and replay
# with every checkpoint equal and no VUID- line from the Khronos validation
# layer (tsreplay --validate).
# Changed with tests/fuzz/sbt_mutate, each must stop with exit 1 and the
# exact message naming the record:
#   - each of the 16 calls left out but vkCmdSetTessellationDomainOriginEXT:
#     refused at the triangle's draw naming the state, the line
#     rasterization mode and line stipple enable at the line's draw only
#     (the triangle rasterizes no line);
#   - vkCmdSetTessellationDomainOriginEXT left out replays (no tessellation
#     shader: no draw reads it; without --validate, since the 1.3.239 layer
#     asks for every dynamic state);
#   - vkCmdSetPolygonModeEXT changed to VK_POLYGON_MODE_LINE and
#     vkCmdSetLineWidth left out: refused at the triangle's draw, which now
#     rasterizes lines (the polygon mode is the command buffer's);
#   - in the secondary command buffer, vkCmdSetColorWriteMaskEXT left out is
#     refused at its draw;
#   - vkCmdSetColorBlendEnableEXT, vkCmdSetColorBlendEquationEXT or
#     vkCmdSetColorWriteMaskEXT given for colour attachment 1 instead of 0
#     (firstAttachment 1): refused at the triangle's draw naming attachment
#     0, the one the pipeline has (the colour states are judged per
#     attachment).
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
TRACESMITH_OUTPUT=$T/e3.sbt vk_env_run "$T/e3.capture.log" "$P" --eds3 ||
	fail "vk_dynstate --eds3 under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/sec.sbt vk_env_run "$T/sec.capture.log" "$P" --eds3 --secondary ||
	fail "vk_dynstate --eds3 --secondary under VK_LAYER_tracesmith and validation"
vk_env_layers_none
H=$(sed -n 's/^vk_dynstate: hash \(0x[0-9a-f]*\)$/\1/p' "$T/plain.log")
[ -n "$H" ] || fail "vk_dynstate: $(cat "$T/plain.log")"
grep -qx "vk_dynstate: eds3 hash $H" "$T/e3.capture.log" || fail "vk_dynstate --eds3: $(cat "$T/e3.capture.log")"
grep -qx "vk_dynstate: secondary eds3 hash $H" "$T/sec.capture.log" ||
	fail "vk_dynstate --eds3 --secondary: $(cat "$T/sec.capture.log")"

. "$TOP/tests/support/vk_hostile.sh"
TAIL=": a valid application never makes this call, and a driver may crash on it"
NEVER="is dynamic state, never set in the command buffer since it began or since a pipeline with it static was bound$TAIL"
n_hostile=0

replays e3 "$T/e3.sbt" --validate
replays sec "$T/sec.sbt" --validate

DRAW1=$(seq_of vkCmdDraw 1 e3)
DRAW2=$(seq_of vkCmdDraw 2 e3)
[ -n "$DRAW1" ] && [ -n "$DRAW2" ] || fail "vk_dynstate --eds3's trace lacks its draws"
# dropped CALL DRAW STATE: CALL left out, the draw at seq DRAW is refused
# naming STATE.
dropped() {
	s=$(seq_of "$1" 1 e3)
	[ -n "$s" ] || fail "vk_dynstate --eds3's trace lacks $1"
	hostile "no_$1" e3 "record seq $2 vkCmdDraw: command buffer 0x" --drop "$s"
	grep -qF "draws with a pipeline whose $3 $NEVER" "$T/no_$1.err" || fail "no_$1: $(cat "$T/no_$1.err")"
	n_hostile=$((n_hostile + 1))
}
dropped vkCmdSetDepthClampEnableEXT "$DRAW1" "depth clamp enable (vkCmdSetDepthClampEnableEXT)"
dropped vkCmdSetPolygonModeEXT "$DRAW1" "polygon mode (vkCmdSetPolygonModeEXT)"
dropped vkCmdSetRasterizationSamplesEXT "$DRAW1" "rasterization samples (vkCmdSetRasterizationSamplesEXT)"
dropped vkCmdSetSampleMaskEXT "$DRAW1" "sample mask (vkCmdSetSampleMaskEXT)"
dropped vkCmdSetAlphaToCoverageEnableEXT "$DRAW1" "alpha to coverage enable (vkCmdSetAlphaToCoverageEnableEXT)"
dropped vkCmdSetAlphaToOneEnableEXT "$DRAW1" "alpha to one enable (vkCmdSetAlphaToOneEnableEXT)"
dropped vkCmdSetLogicOpEnableEXT "$DRAW1" "logic op enable (vkCmdSetLogicOpEnableEXT)"
dropped vkCmdSetColorBlendEnableEXT "$DRAW1" "color blend enable (vkCmdSetColorBlendEnableEXT)"
dropped vkCmdSetColorBlendEquationEXT "$DRAW1" "color blend equation (vkCmdSetColorBlendEquationEXT)"
dropped vkCmdSetColorWriteMaskEXT "$DRAW1" "color write mask (vkCmdSetColorWriteMaskEXT)"
dropped vkCmdSetDepthClipEnableEXT "$DRAW1" "depth clip enable (vkCmdSetDepthClipEnableEXT)"
dropped vkCmdSetProvokingVertexModeEXT "$DRAW1" "provoking vertex mode (vkCmdSetProvokingVertexModeEXT)"
dropped vkCmdSetLineRasterizationModeEXT "$DRAW2" "line rasterization mode (vkCmdSetLineRasterizationModeEXT)"
dropped vkCmdSetLineStippleEnableEXT "$DRAW2" "line stipple enable (vkCmdSetLineStippleEnableEXT)"
dropped vkCmdSetDepthClipNegativeOneToOneEXT "$DRAW1" "depth clip negative one to one (vkCmdSetDepthClipNegativeOneToOneEXT)"

# ---- states the draws do not read ---------------------------------------------------
ORIGIN=$(seq_of vkCmdSetTessellationDomainOriginEXT 1 e3)
[ -n "$ORIGIN" ] || fail "vk_dynstate --eds3's trace lacks vkCmdSetTessellationDomainOriginEXT"
"$M" "$T/e3.sbt" "$T/noorigin.sbt" --drop "$ORIGIN" >/dev/null || fail "sbt_mutate noorigin"
replays noorigin "$T/noorigin.sbt"

# ---- the polygon mode the command buffer sets decides whether lines are drawn --------
# vkCmdSetPolygonModeEXT's varint 1 is its polygonMode (zigzag: 2 is 1,
# VK_POLYGON_MODE_LINE).
POLY=$(seq_of vkCmdSetPolygonModeEXT 1 e3)
LW=$(seq_of vkCmdSetLineWidth 1 e3)
"$M" "$T/e3.sbt" "$T/polyline.sbt" --varint "$POLY:1:2" >/dev/null || fail "sbt_mutate polyline"
"$I" --dump "$T/polyline.sbt" | grep -q "^seq=$POLY .*polygonMode=\"VK_POLYGON_MODE_LINE\"" ||
	fail "polyline: $("$I" --dump "$T/polyline.sbt" | grep "^seq=$POLY ")"
hostile polyline e3 "record seq $DRAW1 vkCmdDraw: command buffer 0x" --varint "$POLY:1:2" --drop "$LW"
grep -qF "draws with a pipeline whose line width (vkCmdSetLineWidth) $NEVER" "$T/polyline.err" ||
	fail "polyline: $(cat "$T/polyline.err")"
n_hostile=$((n_hostile + 1))

# ---- a secondary command buffer -------------------------------------------------------
SDRAW=$(seq_of vkCmdDraw 1 sec)
SMASK=$(seq_of vkCmdSetColorWriteMaskEXT 1 sec)
[ -n "$SDRAW" ] && [ -n "$SMASK" ] || fail "vk_dynstate --eds3 --secondary's trace lacks its draw or write mask"
hostile secmask sec "record seq $SDRAW vkCmdDraw: command buffer 0x" --drop "$SMASK"
grep -qF "draws with a pipeline whose color write mask (vkCmdSetColorWriteMaskEXT) $NEVER" "$T/secmask.err" ||
	fail "secmask: $(cat "$T/secmask.err")"
n_hostile=$((n_hostile + 1))
# ---- the colour states per attachment -------------------------------------------------
# varint 1 of each setter is its firstAttachment.
# wrong_attachment CALL STATE: CALL sets attachment 1, not 0.
wrong_attachment() {
	s=$(seq_of "$1" 1 e3)
	[ -n "$s" ] || fail "vk_dynstate --eds3's trace lacks $1"
	"$M" "$T/e3.sbt" "$T/at1_$1.sbt" --varint "$s:1:1" >/dev/null || fail "sbt_mutate at1_$1"
	"$I" --dump "$T/at1_$1.sbt" | grep -q "^seq=$s .* firstAttachment=1 " ||
		fail "at1_$1: $("$I" --dump "$T/at1_$1.sbt" | grep "^seq=$s ")"
	hostile "at1_$1" e3 "record seq $DRAW1 vkCmdDraw: command buffer 0x" --varint "$s:1:1"
	grep -qF "draws with a pipeline whose $2 is dynamic state, never set for its color attachment 0 (of 1) in the command buffer since it began or since a pipeline with it static was bound$TAIL" "$T/at1_$1.err" ||
		fail "at1_$1: $(cat "$T/at1_$1.err")"
	n_hostile=$((n_hostile + 1))
}
wrong_attachment vkCmdSetColorBlendEnableEXT "color blend enable (vkCmdSetColorBlendEnableEXT)"
wrong_attachment vkCmdSetColorBlendEquationEXT "color blend equation (vkCmdSetColorBlendEquationEXT)"
wrong_attachment vkCmdSetColorWriteMaskEXT "color write mask (vkCmdSetColorWriteMaskEXT)"
echo "ok: 2 traces replay clean under validation, 1 with a state no draw reads left unset replays; $n_hostile hostile traces stop with exit 1 naming the record"
