#!/bin/sh
# tsreplay refuses, before the driver sees them, the hostile traces of
# issue 12's last Vulkan classes, and replays the valid traces that look
# like them (replayer/vulkan/rpvk_shader.c, rpvk_dset.c, rpvk_state.c;
# docs/hostile-traces.md).  Each hostile trace is a capture changed with
# tests/fuzz/sbt_mutate; its replay must stop with exit 1 and the exact
# message naming the record's sequence number and call; each valid one
# must replay with every checkpoint equal and no VUID- line from the
# Khronos validation layer (tsreplay --validate).
#   - Descriptors never written: vk_partial (tests/programs/vk_partial.c)
#     binds a set no shader uses and never writes it: a valid program,
#     captured under validation and replayed clean (before, any set never
#     written was refused); with --sets 3, two such sets.  Its layout's binding 1, which the shader
#     reaches only under a condition never true, made PARTIALLY_BOUND and
#     its write left out replays too (lavapipe lacks the
#     descriptorBindingPartiallyBound feature, so that trace is not run
#     under validation: the layer would name the feature, not the write);
#     the same write left out without the flag, or the write of binding 0,
#     which the shader writes, is refused at the submit.
#   - Framebuffer attachments: vk_offscreen's image view, its image or the
#     image's memory destroyed (freed) just before vkCmdBeginRenderPass:
#     refused at the begin; the view destroyed after the recording: the
#     submit is refused.
#   - Dynamic state: vk_offscreen's vkCmdSetViewport or vkCmdSetScissor
#     left out: the draw is refused; vkCmdSetViewport moved ahead of the
#     vkCmdBindPipeline of a pipeline that has it dynamic stays valid.
#   - Shader bindings (the class of replay_mutants.sh seed 993): vk_compute
#     with its layout's binding 0 renumbered (and its write with it): the
#     compute pipeline, whose shader uses binding 0, is refused; with only
#     the layout renumbered the write to binding 0 is refused; a layout
#     binding of another descriptor type is refused at the write.
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
[ -x "$M" ] || fail "$M is not built"
unset DISPLAY

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/part.sbt vk_env_run "$T/part.capture.log" "$VK_ENV_BUILD/tests/programs/vk_partial" \
	--size 1024 --submits 2 || fail "vk_partial under VK_LAYER_tracesmith and validation"
grep -qx "vk_partial: size 1024 submits 2 sum 3144704" "$T/part.capture.log" ||
	fail "vk_partial: $(cat "$T/part.capture.log")"
TRACESMITH_OUTPUT=$T/part3.sbt vk_env_run "$T/part3.capture.log" "$VK_ENV_BUILD/tests/programs/vk_partial" \
	--size 1024 --submits 2 --sets 3 || fail "vk_partial --sets 3 under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/off.sbt vk_env_run "$T/off.capture.log" "$VK_ENV_BUILD/tests/programs/vk_offscreen" \
	--frames 2 || fail "vk_offscreen under VK_LAYER_tracesmith"
TRACESMITH_OUTPUT=$T/comp.sbt vk_env_run "$T/comp.capture.log" "$VK_ENV_BUILD/tests/programs/vk_compute" \
	--size 256 --submits 2 || fail "vk_compute under VK_LAYER_tracesmith"
vk_env_layers_none

# valid NAME TRACE: replays under validation, every checkpoint equal.
valid() {
	rc=0
	timeout 120 "$R" --validate "$2" >"$T/$1.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: exit $rc: $(tail -5 "$T/$1.out")"
	grep -q " 0 differ" "$T/$1.out" || fail "$1: $(tail -5 "$T/$1.out")"
	vk_env_clean "$T/$1.out" || fail "$1: the validation layer reported the replay"
}
. "$TOP/tests/support/vk_hostile.sh"
TAIL=": a valid application never makes this call, and a driver may crash on it"

# ---- descriptors never written --------------------------------------------------
valid partial "$T/part.sbt"
# three sets with bindings: the pipeline's entry (a count of sets, 3) was
# read as a buffer's state, "its memory freed", and the submit refused
valid partial3 "$T/part3.sbt"
PDSL=$(seq_of vkCreateDescriptorSetLayout 1 part)
UPDATE0=$(seq_of vkUpdateDescriptorSets 1 part)
UPDATE1=$(seq_of vkUpdateDescriptorSets 2 part)
SUBMIT=$(seq_of vkQueueSubmit 1 part)
[ -n "$PDSL" ] && [ -n "$UPDATE1" ] && [ -n "$SUBMIT" ] || fail "vk_partial's trace lacks its layout, updates or submit"
# The layout's varints: ... binding 1's fields, then the pNext's
# VkDescriptorSetLayoutBindingFlagsCreateInfo: bindingCount, the flags'
# count, flags 0 (4 bytes from varint 19), flags 1 (from varint 23).
"$I" --dump "$T/part.sbt" | grep -q "^seq=$PDSL .*pBindingFlags\[1\]=0x0000000000000000" ||
	fail "vk_partial's layout has no binding flags: $("$I" --dump "$T/part.sbt" | grep "^seq=$PDSL ")"
"$M" "$T/part.sbt" "$T/pbound.sbt" --varint "$PDSL:23:4" --drop "$UPDATE1" >/dev/null || fail "sbt_mutate pbound"
"$I" --dump "$T/pbound.sbt" | grep -q "^seq=$PDSL .*pBindingFlags\[1\]=0x0000000000000004" ||
	fail "binding 1 is not PARTIALLY_BOUND: $("$I" --dump "$T/pbound.sbt" | grep "^seq=$PDSL ")"
rc=0
timeout 120 "$R" "$T/pbound.sbt" >"$T/pbound.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && grep -q " 0 differ" "$T/pbound.out" || fail "pbound: exit $rc: $(tail -5 "$T/pbound.out")"
NOTVALID="record seq $SUBMIT vkQueueSubmit: command buffer 0x"
hostile unwritten1 part "$NOTVALID" --drop "$UPDATE1"
grep -qF "is submitted, and a descriptor set it binds is not valid (binding 1, which its pipeline's shaders use, was never written, and the set's layout does not make it partially bound)$TAIL" \
	"$T/unwritten1.err" || fail "unwritten1: $(cat "$T/unwritten1.err")"
hostile unwritten0 part "$NOTVALID" --varint "$PDSL:23:4" --drop "$UPDATE0"
grep -qF "is submitted, and a descriptor set it binds is not valid (binding 0, which its pipeline's shaders use, was never written, and the set's layout does not make it partially bound)$TAIL" \
	"$T/unwritten0.err" || fail "unwritten0: $(cat "$T/unwritten0.err")"

# ---- framebuffer attachments ------------------------------------------------------
RPASS=$(seq_of vkCmdBeginRenderPass 1 off)
VIEWGONE=$(seq_of vkDestroyImageView 1 off)
IMGGONE=$(seq_of vkDestroyImage 1 off)
MEMGONE=$(seq_of vkFreeMemory 1 off)
OSUBMIT=$(seq_of vkQueueSubmit 1 off)
[ -n "$RPASS" ] && [ -n "$VIEWGONE" ] && [ -n "$IMGGONE" ] && [ -n "$MEMGONE" ] && [ -n "$OSUBMIT" ] ||
	fail "vk_offscreen's trace lacks a call the test moves"
ATT="record seq $((RPASS + 1)) vkCmdBeginRenderPass: attachment 0 of the framebuffer:"
hostile fbview off "$ATT its image view was destroyed before the render pass begins$TAIL" --move "$VIEWGONE:$RPASS"
hostile fbimage off "$ATT the image of its image view was destroyed before the render pass begins$TAIL" \
	--move "$IMGGONE:$RPASS"
hostile fbmemory off "$ATT the memory of its image was freed before the render pass begins$TAIL" \
	--move "$MEMGONE:$RPASS"
hostile fbrecorded off "record seq $((OSUBMIT + 1)) vkQueueSubmit: command buffer 0x" --move "$VIEWGONE:$OSUBMIT"
grep -qF "is submitted, and a buffer, image, descriptor set, pipeline or framebuffer it uses was destroyed since it was recorded$TAIL" \
	"$T/fbrecorded.err" || fail "fbrecorded: $(cat "$T/fbrecorded.err")"

# ---- dynamic state ------------------------------------------------------------------
PIPE=$(seq_of vkCmdBindPipeline 1 off)
SETVP=$(seq_of vkCmdSetViewport 1 off)
SETSC=$(seq_of vkCmdSetScissor 1 off)
DRAW=$(seq_of vkCmdDraw 1 off)
[ -n "$PIPE" ] && [ -n "$SETVP" ] && [ -n "$SETSC" ] && [ -n "$DRAW" ] || fail "vk_offscreen's trace lacks a draw's calls"
DYN="record seq $DRAW vkCmdDraw: command buffer 0x"
NEVER="is dynamic state, never set in the command buffer since it began or since a pipeline with it static was bound$TAIL"
hostile noviewport off "$DYN" --drop "$SETVP"
grep -qF "draws with a pipeline whose viewport (vkCmdSetViewport) $NEVER" "$T/noviewport.err" ||
	fail "noviewport: $(cat "$T/noviewport.err")"
hostile noscissor off "$DYN" --drop "$SETSC"
grep -qF "draws with a pipeline whose scissor (vkCmdSetScissor) $NEVER" "$T/noscissor.err" ||
	fail "noscissor: $(cat "$T/noscissor.err")"
"$M" "$T/off.sbt" "$T/vpfirst.sbt" --move "$SETVP:$PIPE" >/dev/null || fail "sbt_mutate --move"
valid vpfirst "$T/vpfirst.sbt"

# ---- shader bindings and the layout -------------------------------------------------
# vkCreateDescriptorSetLayout's varints: device, pCreateInfo count, flags,
# bindingCount, pBindings count, then binding 0's binding (5) and
# descriptorType (6; enums are zigzag varints: 14 is 7, STORAGE_BUFFER).  vkUpdateDescriptorSets: device, descriptorWriteCount,
# pDescriptorWrites count, then write 0's dstSet, dstBinding (4).
DSL=$(seq_of vkCreateDescriptorSetLayout 1 comp)
WRITE=$(seq_of vkUpdateDescriptorSets 1 comp)
CPIPE=$(seq_of vkCreateComputePipelines 1 comp)
[ -n "$DSL" ] && [ -n "$WRITE" ] && [ -n "$CPIPE" ] || fail "vk_compute's trace lacks a call the test changes"
"$I" --dump "$T/comp.sbt" | grep -q "^seq=$DSL .*pBindings\[0\].binding=0 pCreateInfo.pBindings\[0\].descriptorType=\"VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER\"" ||
	fail "binding 0 of vk_compute's layout is not a uniform buffer: $("$I" --dump "$T/comp.sbt" | grep "^seq=$DSL ")"
hostile layoutlacks comp "record seq $CPIPE vkCreateComputePipelines: pipeline 0: its compute shader uses descriptor set 0 binding 0, and set 0's layout lacks that binding$TAIL" \
	--varint "$DSL:5:7" --varint "$WRITE:4:7"
hostile writelacks comp "record seq $WRITE vkUpdateDescriptorSets: descriptor write 0 names binding 0, which its set's layout lacks$TAIL" \
	--varint "$DSL:5:7"
hostile writetype comp "record seq $WRITE vkUpdateDescriptorSets: descriptor write 0 gives binding 0 descriptor type 6, and its set's layout made it type 7$TAIL" \
	--varint "$DSL:6:14"
echo "ok: 3 valid traces replay clean under validation, a partially bound binding left unwritten replays; 11 hostile traces stop with exit 1 naming the record"
