#!/bin/sh
# tsreplay judges every dynamic state a draw reads, and the attachments of
# imageless framebuffers, before the driver sees them (issue 12;
# replayer/vulkan/rpvk_shader.c's rpvk_sh_dyn table, rpvk_state.c;
# docs/hostile-traces.md).  tests/programs/vk_dynstate.c sets 22 dynamic
# states, each with one call, and draws a triangle and a line; its trace,
# its --imageless trace, its --secondary trace (the draws recorded in a
# secondary command buffer) and its --library trace ("tri" linked from four
# pipeline libraries, VK_EXT_graphics_pipeline_library) draw the same
# pixels and replay with every checkpoint equal and no VUID- line from the
# Khronos validation layer (tsreplay --validate).
# Changed with tests/fuzz/sbt_mutate, each must stop with exit 1 and the
# exact message naming the record:
#   - each state's call (but vkCmdSetDepthBounds) left out: refused at the
#     triangle's draw, naming the state; vkCmdSetLineWidth left out:
#     refused at the line's draw only (the triangle rasterizes no line);
#     vkCmdBindVertexBuffers2 (the call that sets the strides) left out:
#     refused naming the stride;
#   - the states a draw does not read may stay unset: vkCmdSetDepthBounds
#     left out replays (the depth bounds test is off), and so does
#     vkCmdSetStencilReference left out with vkCmdSetStencilTestEnable
#     changed to VK_FALSE (these run without --validate: the 1.3.239 layer
#     asks for every dynamic state, VUID-vkCmdDraw-commandBuffer-02701);
#     vkCmdSetDepthBoundsTestEnable changed to VK_TRUE and
#     vkCmdSetDepthBounds left out is refused naming the depth bounds;
#   - in the secondary command buffer (which inherits no dynamic state),
#     vkCmdSetScissor left out is refused at its draw; its
#     vkEndCommandBuffer left out, the vkCmdExecuteCommands that executes it
#     is refused;
#   - with "tri" linked from libraries, vkCmdSetDepthBias (a state of the
#     pre-rasterization library) or vkCmdSetBlendConstants (of the
#     fragment output library) left out is refused at the draw; the vertex
#     input library (no shaders) given stageCount 1 with no pStages is
#     refused at its vkCreateGraphicsPipelines;
#   - an image of 256 mip levels at 64x64 is refused at vkCreateImage, a
#     pipeline listing a dynamic state twice at vkCreateGraphicsPipelines,
#     an image view of format -2147483648 (no enum but VkResult has negative
#     values; lavapipe died of SIGSEGV on it, replay_mutants.sh seed 102
#     over vk_dynstate --execute) at vkCreateImageView;
#   - imageless framebuffer: the depth attachment's image or the image's
#     memory destroyed (freed) before vkCmdBeginRenderPass is refused
#     there, naming attachment 1 (the view destroyed: the begin names an
#     unknown VkImageView and does not decode); the view destroyed after the
#     recording makes the submit refused; the framebuffer made with one
#     attachment where the render pass begins with two is refused at the
#     begin.
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

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/dyn.sbt vk_env_run "$T/dyn.capture.log" "$P" || fail "vk_dynstate under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/il.sbt vk_env_run "$T/il.capture.log" "$P" --imageless ||
	fail "vk_dynstate --imageless under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/sec.sbt vk_env_run "$T/sec.capture.log" "$P" --secondary ||
	fail "vk_dynstate --secondary under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/lib.sbt vk_env_run "$T/lib.capture.log" "$P" --library ||
	fail "vk_dynstate --library under VK_LAYER_tracesmith and validation"
vk_env_layers_none
# The four draw the same pixels.
H=$(sed -n 's/^vk_dynstate: hash \(0x[0-9a-f]*\)$/\1/p' "$T/dyn.capture.log")
[ -n "$H" ] || fail "vk_dynstate: $(cat "$T/dyn.capture.log")"
grep -qx "vk_dynstate: imageless hash $H" "$T/il.capture.log" || fail "vk_dynstate --imageless: $(cat "$T/il.capture.log")"
grep -qx "vk_dynstate: secondary hash $H" "$T/sec.capture.log" || fail "vk_dynstate --secondary: $(cat "$T/sec.capture.log")"
grep -qx "vk_dynstate: library hash $H" "$T/lib.capture.log" || fail "vk_dynstate --library: $(cat "$T/lib.capture.log")"

. "$TOP/tests/support/vk_hostile.sh"
TAIL=": a valid application never makes this call, and a driver may crash on it"
NEVER="is dynamic state, never set in the command buffer since it began or since a pipeline with it static was bound$TAIL"
n_hostile=0

replays dyn "$T/dyn.sbt" --validate
replays il "$T/il.sbt" --validate
replays sec "$T/sec.sbt" --validate
replays lib "$T/lib.sbt" --validate

# ---- each state left out ----------------------------------------------------------
DRAW1=$(seq_of vkCmdDraw 1 dyn)
DRAW2=$(seq_of vkCmdDraw 2 dyn)
[ -n "$DRAW1" ] && [ -n "$DRAW2" ] || fail "vk_dynstate's trace lacks its draws"
# dropped CALL DRAW STATE: CALL left out, the draw at seq DRAW is refused
# naming STATE.
dropped() {
	s=$(seq_of "$1" 1 dyn)
	[ -n "$s" ] || fail "vk_dynstate's trace lacks $1"
	hostile "no_$1" dyn "record seq $2 vkCmdDraw: command buffer 0x" --drop "$s"
	grep -qF "draws with a pipeline whose $3 $NEVER" "$T/no_$1.err" || fail "no_$1: $(cat "$T/no_$1.err")"
	n_hostile=$((n_hostile + 1))
}
dropped vkCmdSetViewport "$DRAW1" "viewport (vkCmdSetViewport)"
dropped vkCmdSetScissor "$DRAW1" "scissor (vkCmdSetScissor)"
dropped vkCmdSetLineWidth "$DRAW2" "line width (vkCmdSetLineWidth)"
dropped vkCmdSetDepthBias "$DRAW1" "depth bias (vkCmdSetDepthBias)"
dropped vkCmdSetBlendConstants "$DRAW1" "blend constants (vkCmdSetBlendConstants)"
dropped vkCmdSetStencilCompareMask "$DRAW1" "stencil compare mask (vkCmdSetStencilCompareMask)"
dropped vkCmdSetStencilWriteMask "$DRAW1" "stencil write mask (vkCmdSetStencilWriteMask)"
dropped vkCmdSetStencilReference "$DRAW1" "stencil reference (vkCmdSetStencilReference)"
dropped vkCmdSetCullMode "$DRAW1" "cull mode (vkCmdSetCullMode)"
dropped vkCmdSetFrontFace "$DRAW1" "front face (vkCmdSetFrontFace)"
dropped vkCmdSetPrimitiveTopology "$DRAW1" "primitive topology (vkCmdSetPrimitiveTopology)"
dropped vkCmdSetDepthTestEnable "$DRAW1" "depth test enable (vkCmdSetDepthTestEnable)"
dropped vkCmdSetDepthWriteEnable "$DRAW1" "depth write enable (vkCmdSetDepthWriteEnable)"
dropped vkCmdSetDepthCompareOp "$DRAW1" "depth compare op (vkCmdSetDepthCompareOp)"
dropped vkCmdSetDepthBoundsTestEnable "$DRAW1" "depth bounds test enable (vkCmdSetDepthBoundsTestEnable)"
dropped vkCmdSetStencilTestEnable "$DRAW1" "stencil test enable (vkCmdSetStencilTestEnable)"
dropped vkCmdSetStencilOp "$DRAW1" "stencil op (vkCmdSetStencilOp)"
dropped vkCmdSetRasterizerDiscardEnable "$DRAW1" "rasterizer discard enable (vkCmdSetRasterizerDiscardEnable)"
dropped vkCmdSetDepthBiasEnable "$DRAW1" "depth bias enable (vkCmdSetDepthBiasEnable)"
dropped vkCmdSetPrimitiveRestartEnable "$DRAW1" "primitive restart enable (vkCmdSetPrimitiveRestartEnable)"
dropped vkCmdBindVertexBuffers2 "$DRAW1" "vertex input binding stride (vkCmdBindVertexBuffers2 with pStrides)"

# ---- states the draws do not read ---------------------------------------------------
# vkCmdSetDepthBoundsTestEnable's and vkCmdSetStencilTestEnable's varints:
# the command buffer, then the VkBool32.
BOUNDS=$(seq_of vkCmdSetDepthBounds 1 dyn)
BOUNDSON=$(seq_of vkCmdSetDepthBoundsTestEnable 1 dyn)
STREF=$(seq_of vkCmdSetStencilReference 1 dyn)
STON=$(seq_of vkCmdSetStencilTestEnable 1 dyn)
"$M" "$T/dyn.sbt" "$T/nobounds.sbt" --drop "$BOUNDS" >/dev/null || fail "sbt_mutate nobounds"
replays nobounds "$T/nobounds.sbt"
"$M" "$T/dyn.sbt" "$T/nostencil.sbt" --varint "$STON:1:0" --drop "$STREF" >/dev/null || fail "sbt_mutate nostencil"
"$I" --dump "$T/nostencil.sbt" | grep -q "^seq=$STON .*stencilTestEnable=0" ||
	fail "the stencil test is still on: $("$I" --dump "$T/nostencil.sbt" | grep "^seq=$STON ")"
replays nostencil "$T/nostencil.sbt"
hostile boundson dyn "record seq $DRAW1 vkCmdDraw: command buffer 0x" --varint "$BOUNDSON:1:1" --drop "$BOUNDS"
grep -qF "draws with a pipeline whose depth bounds (vkCmdSetDepthBounds) $NEVER" "$T/boundson.err" ||
	fail "boundson: $(cat "$T/boundson.err")"
n_hostile=$((n_hostile + 1))

# ---- an image of more levels than its extent has (lavapipe died of SIGSEGV
# at the allocation of its memory: replay_mutants.sh seed 52 over the
# --library trace) ---------------------------------------------------------------------
# Which varint of vkCreateImage's payload is mipLevels depends on the bytes
# of the handles before it (sbt_mutate counts runs of bytes): the one whose
# change to 256 the dump shows as mipLevels.
IMG=$(seq_of vkCreateImage 1 dyn)
k=0 MIPS=
while [ "$k" -lt 48 ] && [ -z "$MIPS" ]; do
	"$M" "$T/dyn.sbt" "$T/mips.sbt" --varint "$IMG:$k:256" >/dev/null 2>&1 &&
		"$I" --dump "$T/mips.sbt" | grep -q "^seq=$IMG .* pCreateInfo.mipLevels=256 pCreateInfo.arrayLayers=1 " &&
		MIPS=$k
	k=$((k + 1))
done
[ -n "$MIPS" ] || fail "no varint of vkCreateImage (seq $IMG) is its mipLevels"
hostile mips dyn "record seq $IMG vkCreateImage: an image of 256 mip levels, and its extent 64x64x1 has 7$TAIL" \
	--varint "$IMG:$MIPS:256"
n_hostile=$((n_hostile + 1))

# ---- a negative VkFormat (the varint whose change to 4294967295, zigzag
# -2147483648, the dump shows as the view's format) ------------------------------------
VIEW=$(seq_of vkCreateImageView 1 dyn)
k=0 VFMT=
while [ "$k" -lt 48 ] && [ -z "$VFMT" ]; do
	"$M" "$T/dyn.sbt" "$T/negfmt.sbt" --varint "$VIEW:$k:4294967295" >/dev/null 2>&1 &&
		"$I" --dump "$T/negfmt.sbt" | grep -q "^seq=$VIEW .* pCreateInfo.format=2147483648 " &&
		VFMT=$k
	k=$((k + 1))
done
[ -n "$VFMT" ] || fail "no varint of vkCreateImageView (seq $VIEW) is its format"
hostile negfmt dyn "record seq $VIEW vkCreateImageView: VkImageViewCreateInfo.format is -2147483648, which no Vulkan version or extension defines (only VkResult has negative values)$TAIL" \
	--varint "$VIEW:$VFMT:4294967295"
n_hostile=$((n_hostile + 1))

# ---- "tri"'s first dynamic state (the viewport) made the scissor, which it
# lists too (VUID-VkPipelineDynamicStateCreateInfo-pDynamicStates-01442; a
# negative one, which lavapipe died of, is refused the same way, and so is one
# vk.xml does not name) -------------------------------------------------------------
TRI=$(seq_of vkCreateGraphicsPipelines 1 dyn)
k=0 DYN0=
while [ "$k" -lt 400 ] && [ -z "$DYN0" ]; do
	"$M" "$T/dyn.sbt" "$T/twice.sbt" --varint "$TRI:$k:1" >/dev/null 2>&1 &&
		"$I" --dump "$T/twice.sbt" | grep -q "^seq=$TRI .* pCreateInfos\[0\].pDynamicState.pDynamicStates\[0\]=\"VK_DYNAMIC_STATE_SCISSOR\" " &&
		DYN0=$k
	k=$((k + 1))
done
[ -n "$DYN0" ] || fail "no varint of vkCreateGraphicsPipelines (seq $TRI) is its first dynamic state"
hostile twice dyn "record seq $TRI vkCreateGraphicsPipelines: pipeline 0: dynamic states 0 and 1 are both 1$TAIL" \
	--varint "$TRI:$DYN0:1"
n_hostile=$((n_hostile + 1))
# a positive value vk.xml 1.3.239 does not name (lavapipe died of SIGSEGV on
# 1006623992, replay_mutants.sh seed 105): no extension a traced device can
# enable defines it
# pDynamicStates is stored raw (4 bytes little-endian each): the byte whose
# change to 1 the dump shows as the first state made the scissor starts it.
k=0 RAW0=
while [ "$k" -lt 600 ] && [ -z "$RAW0" ]; do
	"$M" "$T/dyn.sbt" "$T/unnamed.sbt" --set "$TRI:$k:1" >/dev/null 2>&1 &&
		"$I" --dump "$T/unnamed.sbt" | grep -q "^seq=$TRI .* pCreateInfos\[0\].pDynamicState.pDynamicStates\[0\]=\"VK_DYNAMIC_STATE_SCISSOR\" " &&
		RAW0=$k
	k=$((k + 1))
done
[ -n "$RAW0" ] || fail "no byte of vkCreateGraphicsPipelines (seq $TRI) starts its first dynamic state"
hostile unnamed dyn "record seq $TRI vkCreateGraphicsPipelines: pipeline 0: dynamic state 0 is 1006623992, which vk.xml 1.3.239 does not name: no extension a traced device can enable defines it, so a valid application never makes this call, and a driver may crash on it" \
	--set "$TRI:$RAW0:248" --set "$TRI:$((RAW0 + 1)):220" --set "$TRI:$((RAW0 + 2)):255" --set "$TRI:$((RAW0 + 3)):59"
n_hostile=$((n_hostile + 1))

# ---- a secondary command buffer -------------------------------------------------------
SDRAW=$(seq_of vkCmdDraw 1 sec)
SSC=$(seq_of vkCmdSetScissor 1 sec)
[ -n "$SDRAW" ] && [ -n "$SSC" ] || fail "vk_dynstate --secondary's trace lacks its draw or scissor"
hostile secscissor sec "record seq $SDRAW vkCmdDraw: command buffer 0x" --drop "$SSC"
grep -qF "draws with a pipeline whose scissor (vkCmdSetScissor) $NEVER" "$T/secscissor.err" ||
	fail "secscissor: $(cat "$T/secscissor.err")"
n_hostile=$((n_hostile + 1))
# The secondary's vkEndCommandBuffer left out: the primary executes a
# command buffer still recording (the null device's class
# crash_execute_recording, tests/fuzz/corpus_vk_null).
SEND=$(seq_of vkEndCommandBuffer 1 sec)
SEXEC=$(seq_of vkCmdExecuteCommands 1 sec)
[ -n "$SEND" ] && [ -n "$SEXEC" ] || fail "vk_dynstate --secondary's trace lacks its end or execute"
hostile secnotended sec "record seq $SEXEC vkCmdExecuteCommands: command buffer 0x" --drop "$SEND"
grep -qF "executes command buffer 0 of its list, which is still recording (no vkEndCommandBuffer)$TAIL" \
	"$T/secnotended.err" || fail "secnotended: $(cat "$T/secnotended.err")"
n_hostile=$((n_hostile + 1))

# ---- a pipeline linked from libraries ----------------------------------------------------
# Its dynamic states are its four libraries' together: one of the
# pre-rasterization library's and one of the fragment output library's.
LDRAW=$(seq_of vkCmdDraw 1 lib)
[ -n "$LDRAW" ] || fail "vk_dynstate --library's trace lacks its draw"
for call in vkCmdSetDepthBias:"depth bias (vkCmdSetDepthBias)" vkCmdSetBlendConstants:"blend constants (vkCmdSetBlendConstants)"; do
	lcall=${call%%:*}
	s=$(seq_of "$lcall" 1 lib)
	[ -n "$s" ] || fail "vk_dynstate --library's trace lacks $lcall"
	hostile "lib_$lcall" lib "record seq $LDRAW vkCmdDraw: command buffer 0x" --drop "$s"
	grep -qF "draws with a pipeline whose ${call#*:} $NEVER" "$T/lib_$lcall.err" || fail "lib_$lcall: $(cat "$T/lib_$lcall.err")"
	n_hostile=$((n_hostile + 1))
done
# The vertex input library (no shaders, pStages absent) given stageCount 1:
# lavapipe died of SIGSEGV reading the missing array (replay_mutants.sh
# seed 604).
LIBPIPE=$(seq_of vkCreateGraphicsPipelines 1 lib)
k=0 STAGES=
while [ "$k" -lt 48 ] && [ -z "$STAGES" ]; do
	"$M" "$T/lib.sbt" "$T/stages.sbt" --varint "$LIBPIPE:$k:1" >/dev/null 2>&1 &&
		"$I" --dump "$T/stages.sbt" | grep -q "^seq=$LIBPIPE .* pCreateInfos\[0\].stageCount=1 pCreateInfos\[0\].pStages=\"NULL\" " &&
		STAGES=$k
	k=$((k + 1))
done
[ -n "$STAGES" ] || fail "no varint of the library's vkCreateGraphicsPipelines (seq $LIBPIPE) is its stageCount"
hostile stages lib "record seq $LIBPIPE vkCreateGraphicsPipelines: pipeline 0: stageCount is 1 and pStages is absent$TAIL" \
	--varint "$LIBPIPE:$STAGES:1"
n_hostile=$((n_hostile + 1))

# ---- imageless framebuffer --------------------------------------------------------------
RPASS=$(seq_of vkCmdBeginRenderPass 1 il)
VIEWGONE=$(seq_of vkDestroyImageView 1 il)
IMGGONE=$(seq_of vkDestroyImage 1 il)
MEMGONE=$(seq_of vkFreeMemory 1 il)
SUBMIT=$(seq_of vkQueueSubmit 1 il)
FB=$(seq_of vkCreateFramebuffer 1 il)
[ -n "$RPASS" ] && [ -n "$VIEWGONE" ] && [ -n "$IMGGONE" ] && [ -n "$MEMGONE" ] && [ -n "$SUBMIT" ] && [ -n "$FB" ] ||
	fail "vk_dynstate --imageless's trace lacks a call the test moves"
ATT="record seq $((RPASS + 1)) vkCmdBeginRenderPass: attachment 1 of the imageless framebuffer:"
# The view itself destroyed: its handle names nothing any more, and the
# begin's VkRenderPassAttachmentBeginInfo does not decode.
hostile ilview il "record seq $((RPASS + 1)) vkCmdBeginRenderPass: unknown VkImageView 0x" --move "$VIEWGONE:$RPASS"
grep -qF "(object type 14): no earlier record created it, or its creation failed in this replay" "$T/ilview.err" ||
	fail "ilview: $(cat "$T/ilview.err")"
hostile ilimage il "$ATT the image of its image view was destroyed before the render pass begins$TAIL" \
	--move "$IMGGONE:$RPASS"
hostile ilmemory il "$ATT the memory of its image was freed before the render pass begins$TAIL" \
	--move "$MEMGONE:$RPASS"
hostile ilrecorded il "record seq $((SUBMIT + 1)) vkQueueSubmit: command buffer 0x" --move "$VIEWGONE:$SUBMIT"
grep -qF "is submitted, and a buffer, image, descriptor set, pipeline or framebuffer it uses was destroyed since it was recorded$TAIL" \
	"$T/ilrecorded.err" || fail "ilrecorded: $(cat "$T/ilrecorded.err")"
# vkCreateFramebuffer's varint 4 is its create info's attachmentCount (2;
# pAttachments is NULL, which an imageless framebuffer ignores).
"$M" "$T/il.sbt" "$T/ilcount.sbt" --varint "$FB:4:1" >/dev/null || fail "sbt_mutate ilcount"
"$I" --dump "$T/ilcount.sbt" | grep -q "^seq=$FB .* pCreateInfo.attachmentCount=1 pCreateInfo.pAttachments=\"NULL\" " ||
	fail "ilcount: $("$I" --dump "$T/ilcount.sbt" | grep "^seq=$FB ")"
hostile ilcount il "record seq $RPASS vkCmdBeginRenderPass: the framebuffer is imageless and was made with 1 attachments, and the render pass begins with 2 (VkRenderPassAttachmentBeginInfo)$TAIL" \
	--varint "$FB:4:1"
n_hostile=$((n_hostile + 5))
echo "ok: 4 traces replay clean under validation, 2 with states no draw reads left unset replay; $n_hostile hostile traces stop with exit 1 naming the record"
