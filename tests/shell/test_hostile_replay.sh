#!/bin/sh
# tsreplay survives hostile traces (issue 12).  A vk_compute trace is
# changed with tests/fuzz/sbt_mutate (records re-encoded, every checksum,
# index and trailer written afresh, so the damage reaches the decoder and
# the replayer), once for each crash or hang class the issue names; each
# replay must stop with exit 1 and a message naming the record's sequence
# number, the call and the reason -- never a crash, never a hang (each run
# is bounded by timeout; before these checks the first two crashed with
# SIGSEGV and the moved wait never returned):
#   - vkQueueSubmit with signalSemaphoreCount 15 and no pSignalSemaphores;
#   - vkWaitForFences naming VK_NULL_HANDLE;
#   - vkBindBufferMemory with memory VK_NULL_HANDLE;
#   - vkCmdPipelineBarrier with memoryBarrierCount 3 and no array;
#   - vkCreateShaderModule with codeSize not a multiple of 4;
#   - vkWaitForFences moved ahead of the vkQueueSubmit that signals its fence;
# and the classes mutants found next (lavapipe crashed on each):
#   - a vkCmd* on a command buffer that is not recording (its begin dropped);
#   - a dispatch with no compute pipeline bound, or no descriptor set bound;
#   - a submit of a command buffer still recording (its end dropped);
#   - a draw and vkCmdEndRenderPass with no render pass begun (vk_offscreen,
#     its vkCmdBeginRenderPass dropped);
#   - an image view of an image with no memory bound (its vkBindImageMemory
#     dropped), a copy region past the end of its buffer (the region's size
#     made huge: the last byte of vkCmdCopyBuffer's payload);
#   - vkGetDeviceQueue of a family the device has no queue in (lavapipe
#     handed back memory past its queues, and crashed at the next submit);
#   - vkFreeMemory moved ahead of a copy out of the image bound to it (the
#     driver wrote into freed memory: glibc aborted on the heap later);
#   - image regions of vk_offscreen's vkCmdCopyImageToBuffer (bytes of its
#     VkBufferImageCopy set): a mip level or aspect the image lacks, no
#     layers, an extent wider than the image, a negative offset, buffer rows
#     longer than the buffer holds (lavapipe: SIGSEGV on the last two kinds);
#   - resources reached through a descriptor set: a submit after the
#     storage buffer the set holds was destroyed (the replay waits for the
#     work in flight before the destroy, then refuses the submit); the same
#     destroy moved just after a submit replays cleanly under validation;
#   - vkCreateInstance asking for apiVersion 0.513.0 (the loader crashed);
#   - waits: a fence wait whose submit was dropped stops at once; a wait on
#     work that takes longer than a tiny --wait-timeout stops with the bound.
# Also: --wait-timeout refuses what is not a positive number of seconds,
# and the untouched trace still replays with every checkpoint matched.
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
TRACESMITH_OUTPUT=$T/comp.sbt vk_env_run "$T/comp.capture.log" "$VK_ENV_BUILD/tests/programs/vk_compute" \
	--size 4096 --submits 4 || fail "vk_compute under VK_LAYER_tracesmith"
TRACESMITH_OUTPUT=$T/off.sbt vk_env_run "$T/off.capture.log" "$VK_ENV_BUILD/tests/programs/vk_offscreen" \
	--frames 2 || fail "vk_offscreen under VK_LAYER_tracesmith"
# work long enough (a 4 MiB dispatch: milliseconds on lavapipe) that a
# 1 ns --wait-timeout always finds it unfinished
TRACESMITH_OUTPUT=$T/long.sbt vk_env_run "$T/long.capture.log" "$VK_ENV_BUILD/tests/programs/vk_compute" \
	--size 1048576 --submits 2 || fail "vk_compute --size 1048576 under VK_LAYER_tracesmith"
vk_env_layers_none

timeout 120 "$R" "$T/comp.sbt" >"$T/orig.out" 2>&1 || fail "the untouched trace: $(cat "$T/orig.out")"
grep -q "0 differ" "$T/orig.out" || fail "the untouched trace: $(cat "$T/orig.out")"

# seq_of NAME N [TRACE]: the sequence number of the Nth (from 1) record of
# call NAME in TRACE (comp.sbt).
seq_of() {
	"$I" --dump "$T/${3:-comp}.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | sed -n "${2}p"
}
SUBMIT=$(seq_of vkQueueSubmit 1)
WAIT=$(seq_of vkWaitForFences 1)
BIND=$(seq_of vkBindBufferMemory 1)
BARRIER=$(seq_of vkCmdPipelineBarrier 1)
SHADER=$(seq_of vkCreateShaderModule 1)
ALLOC=$(seq_of vkAllocateMemory 1)
[ -n "$SUBMIT" ] && [ -n "$WAIT" ] && [ -n "$BIND" ] && [ -n "$BARRIER" ] && [ -n "$SHADER" ] ||
	fail "the trace lacks a call the test changes"
[ "$SUBMIT" -lt "$WAIT" ] || fail "the first wait ($WAIT) is not after the first submit ($SUBMIT)"

# hostile NAME WANT OP...: the mutated trace (of $SRC) stops with exit 1
# naming WANT.
SRC=comp
hostile() {
	name=$1 want=$2
	shift 2
	"$M" "$T/$SRC.sbt" "$T/$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
	rc=0
	timeout 120 "$R" "$T/$name.sbt" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "$name: tsreplay hung"
	[ "$rc" -eq 1 ] || fail "$name: exit $rc (expected 1): $(cat "$T/$name.err")"
	grep -qF -- "$want" "$T/$name.err" || fail "$name: '$want' not in: $(cat "$T/$name.err")"
}

# The varint indexes are those of the calls' wire forms (docs/vulkan-codec.md):
# vkQueueSubmit: queue, submitCount, pSubmits count, then VkSubmitInfo's
# waitSemaphoreCount, pWaitSemaphores, pWaitDstStageMask, commandBufferCount,
# pCommandBuffers count, the command buffer, signalSemaphoreCount (9).
hostile submit "record seq $SUBMIT vkQueueSubmit: cannot decode its payload" --varint "$SUBMIT:9:15"
grep -qF "VkSubmitInfo.pSignalSemaphores (absent while its count is not 0)" "$T/submit.err" ||
	fail "submit: $(cat "$T/submit.err")"
# vkWaitForFences: device, fenceCount, pFences count, the fence (3).
hostile nullfence "record seq $WAIT vkWaitForFences: cannot decode its payload" --varint "$WAIT:3:0"
grep -qF "vkWaitForFences.pFences (VK_NULL_HANDLE where vk.xml requires a handle)" "$T/nullfence.err" ||
	fail "nullfence: $(cat "$T/nullfence.err")"
# vkBindBufferMemory: device, buffer, memory (2).
hostile nullmem "vkBindBufferMemory.memory (VK_NULL_HANDLE where vk.xml requires a handle)" \
	--varint "$BIND:2:0"
grep -qF "record seq $BIND vkBindBufferMemory" "$T/nullmem.err" || fail "nullmem: $(cat "$T/nullmem.err")"
# vkCmdPipelineBarrier: commandBuffer, the two stage masks, dependencyFlags,
# memoryBarrierCount (4).
hostile barrier "vkCmdPipelineBarrier.pMemoryBarriers (absent while its count is not 0)" \
	--varint "$BARRIER:4:3"
grep -qF "record seq $BARRIER vkCmdPipelineBarrier" "$T/barrier.err" || fail "barrier: $(cat "$T/barrier.err")"
# vkCreateShaderModule: device, pCreateInfo count, flags, codeSize (3).
size=$("$I" --dump "$T/comp.sbt" | sed -n "s/^seq=$SHADER .*pCreateInfo.codeSize=\([0-9]*\).*/\1/p")
[ -n "$size" ] || fail "no codeSize in record $SHADER"
hostile codesize "VkShaderModuleCreateInfo.pCode (codeSize is not a multiple of 4)" \
	--varint "$SHADER:3:$((size + 2))"
grep -qF "record seq $SHADER vkCreateShaderModule" "$T/codesize.err" || fail "codesize: $(cat "$T/codesize.err")"
# vkAllocateMemory: device, pAllocateInfo count, allocationSize (2): 1 TiB,
# more than any heap here, is refused at once (seed 827 of the mutants asked
# for 4 GiB and took minutes of clearing host-visible memory).
[ -n "$ALLOC" ] || fail "the trace has no vkAllocateMemory"
hostile hugealloc "larger than the whole heap of its memory type" --varint "$ALLOC:2:1099511627776"
grep -qF "record seq $ALLOC vkAllocateMemory: an allocation of 1099511627776 bytes" "$T/hugealloc.err" ||
	fail "hugealloc: $(cat "$T/hugealloc.err")"
# The first wait moved to the place of the submit that signals its fence.
hostile moved "record seq $SUBMIT vkWaitForFences: waits for fence" --move "$WAIT:$SUBMIT"
grep -qF "which nothing replayed so far signals" "$T/moved.err" || fail "moved: $(cat "$T/moved.err")"

# ---- command buffer state ---------------------------------------------------------
BEGIN=$(seq_of vkBeginCommandBuffer 1)
PIPE=$(seq_of vkCmdBindPipeline 1)
SETS=$(seq_of vkCmdBindDescriptorSets 1)
END=$(seq_of vkEndCommandBuffer 1)
DISPATCH=$(seq_of vkCmdDispatch 1)
hostile nobegin "record seq $PIPE vkCmdBindPipeline: command buffer 0x" --drop "$BEGIN"
grep -qF "is not recording (no vkBeginCommandBuffer since it was reset)" "$T/nobegin.err" ||
	fail "nobegin: $(cat "$T/nobegin.err")"
hostile nopipe "record seq $DISPATCH vkCmdDispatch: command buffer 0x" --drop "$PIPE"
grep -qF "has no compute pipeline bound for the dispatch" "$T/nopipe.err" || fail "nopipe: $(cat "$T/nopipe.err")"
hostile nosets "record seq $DISPATCH vkCmdDispatch: command buffer 0x" --drop "$SETS"
grep -qF "has no descriptor set bound, and its pipeline's layout has descriptors" "$T/nosets.err" ||
	fail "nosets: $(cat "$T/nosets.err")"
hostile noend "is submitted while still recording (no vkEndCommandBuffer)" --drop "$END"
grep -q "record seq [0-9]* vkQueueSubmit: command buffer 0x" "$T/noend.err" || fail "noend: $(cat "$T/noend.err")"
SRC=off
RPASS=$(seq_of vkCmdBeginRenderPass 1 off)
[ -n "$RPASS" ] || fail "vk_offscreen's trace has no vkCmdBeginRenderPass"
hostile norpass "has no render pass begun, and the call belongs inside one" --drop "$RPASS"
grep -q "record seq [0-9]* vkCmd[A-Za-z]*: command buffer 0x" "$T/norpass.err" || fail "norpass: $(cat "$T/norpass.err")"
BINDIMG=$(seq_of vkBindImageMemory 1 off)
hostile noimgmem "vkCreateImageView: uses an image with no memory bound" --drop "$BINDIMG"
FREE=$(seq_of vkFreeMemory 1 off)
COPYI=$(seq_of vkCmdCopyImageToBuffer 1 off)
hostile freed "vkCmdCopyImageToBuffer: uses a buffer or image with no memory bound (not bound yet, or its memory freed)" \
	--move "$FREE:$COPYI"
# Image regions: the VkBufferImageCopy is the last 56 bytes of the payload
# (bufferOffset u64, bufferRowLength, bufferImageHeight, aspectMask,
# mipLevel, baseArrayLayer, layerCount, offset x y z, extent w h d: u32 LE).
IMGCOPY="record seq $COPYI vkCmdCopyImageToBuffer: copy region 0 lies outside its resources"
hostile imgmip "$IMGCOPY (mip level 3, and the image has 1)" --set "$COPYI:-36:3"
hostile imglayers "$IMGCOPY (layers 0+0, and the image has 1)" --set "$COPYI:-28:0"
hostile imgaspect "$IMGCOPY (aspects 0x2, and the image's format 37 has 0x1)" --set "$COPYI:-40:2"
hostile imgwide "$IMGCOPY (offset (0,0,0) extent 512x192x1, and mip level 0 is 256x192x1)" --set "$COPYI:-11:2"
hostile imgneg "$IMGCOPY (offset (-2147483648,0,0) extent 256x192x1" --set "$COPYI:-21:128"
hostile imgrows "$IMGCOPY (buffer bytes from 0 for 192 rows of 512 texels in 1 slices, past the end of its buffer (196608 bytes))" \
	--set "$COPYI:-47:2"
# vkCreateInstance's pApplicationInfo.apiVersion made 0.513.0 (byte 38 of
# vk_offscreen's payload): the loader died with SIGSEGV on it (mutant seed
# 592 of replay_mutants.sh).
INST=$(seq_of vkCreateInstance 1 off)
hostile apiversion "record seq $INST vkCreateInstance: apiVersion 0.0.513.0 is not a Vulkan 1.x version" \
	--set "$INST:38:1"
SRC=comp
GETQ=$(seq_of vkGetDeviceQueue 1)
# vkGetDeviceQueue: device, queueFamilyIndex (1).
hostile family "record seq $GETQ vkGetDeviceQueue: queue 0 of family 2147483647: the device was not created with it" \
	--varint "$GETQ:1:2147483647"
COPY=$(seq_of vkCmdCopyBuffer 1)
hostile copy "record seq $COPY vkCmdCopyBuffer: copy region 0 lies outside its buffer" --set "$COPY:-1:127"

# ---- resources reached through descriptor sets ------------------------------------
# vk_compute re-records its command buffer each round, binding one set:
# binding 0 the uniform buffer (the last one destroyed, the 4th free),
# binding 1 the input storage buffer (the 3rd destroy), binding 2 the
# output (the 2nd destroy; also the copy's source).  A destroy or free
# moved to just before the second submit: the replay waits for the first
# round's work, then refuses the submit of what no longer holds.
SUBMIT2=$(seq_of vkQueueSubmit 2)
[ -n "$SUBMIT2" ] || fail "the trace has no second submit"
BEFORE=$((SUBMIT2 - 1)) AT="record seq $((SUBMIT2 + 1)) vkQueueSubmit: command buffer 0x"
hostile dsetgone "$AT" --move "$(seq_of vkDestroyBuffer 3):$BEFORE"
grep -qF "a descriptor set it binds is not valid (binding 1 element 0 holds an object destroyed since it was written)" \
	"$T/dsetgone.err" || fail "dsetgone: $(cat "$T/dsetgone.err")"
hostile dsetfreed "$AT" --move "$(seq_of vkFreeMemory 4):$BEFORE"
grep -qF "(binding 0 element 0 holds a buffer whose memory was freed since)" "$T/dsetfreed.err" ||
	fail "dsetfreed: $(cat "$T/dsetfreed.err")"
hostile cbgone "$AT" --move "$(seq_of vkDestroyBuffer 2):$BEFORE"
grep -qF "a buffer, image, descriptor set, pipeline or framebuffer it uses was destroyed since it was recorded" "$T/cbgone.err" ||
	fail "cbgone: $(cat "$T/cbgone.err")"

# ---- waits end ---------------------------------------------------------------------
# The submit that signals the first wait's fence left out: stopped at once.
hostile nosubmit "record seq $WAIT vkWaitForFences: waits for fence 0x" --drop "$SUBMIT"
grep -qF "which nothing replayed so far signals (a wait moved ahead of its submit?): it would never return" \
	"$T/nosubmit.err" || fail "nosubmit: $(cat "$T/nosubmit.err")"
# Work that takes longer than the bound (1 ns): a fence wait stops the
# replay with the bound, naming the record (never a hang).
rc=0
timeout 120 "$R" --wait-timeout 0.000000001 "$T/long.sbt" >"$T/tiny.out" 2>"$T/tiny.err" || rc=$?
[ "$rc" -eq 1 ] || fail "--wait-timeout 1 ns: exit $rc: $(cat "$T/tiny.err")"
grep -q "record seq [0-9]* vk\(WaitForFences\|GetFenceStatus\): the fence.* did not finish within 1e-09 s, although it did at capture" \
	"$T/tiny.err" || fail "--wait-timeout 1 ns: $(cat "$T/tiny.err")"

# ---- --wait-timeout --------------------------------------------------------------
for bad in 0 -1 x 1s ""; do
	rc=0
	"$R" --wait-timeout "$bad" "$T/comp.sbt" >/dev/null 2>"$T/wt.err" || rc=$?
	[ "$rc" -eq 2 ] && grep -qF -- "--wait-timeout: expected seconds (> 0), got '$bad'" "$T/wt.err" ||
		fail "--wait-timeout '$bad': exit $rc: $(cat "$T/wt.err")"
done
timeout 120 "$R" --wait-timeout 0.5 "$T/comp.sbt" >"$T/wt.out" 2>&1 || fail "--wait-timeout 0.5: $(cat "$T/wt.out")"
grep -q "0 differ" "$T/wt.out" || fail "--wait-timeout 0.5: $(cat "$T/wt.out")"

# A destroy moved ahead of the wait for the work that uses its buffer (the
# first vkDestroyBuffer to just after the last submit): the replay waits for
# the device first, as a careful application would; under validation no
# VUID-vkDestroyBuffer-buffer-00922 (which the replay met before it waited).
# The same for the input buffer (reached only through the descriptor set)
# and the uniform buffer.
LAST=$("$I" --dump "$T/comp.sbt" | sed -n 's/^seq=\([0-9]*\) .* vulkan\.vkQueueSubmit .*/\1/p' | tail -n 1)
for early in "vkDestroyBuffer 1" "vkDestroyBuffer 3" "vkDestroyBuffer 4"; do
	# shellcheck disable=SC2086
	DESTROY=$(seq_of $early)
	[ -n "$LAST" ] && [ -n "$DESTROY" ] && [ "$DESTROY" -gt "$LAST" ] || fail "no $early after the last submit"
	"$M" "$T/comp.sbt" "$T/early.sbt" --move "$DESTROY:$((LAST + 1))" >/dev/null || fail "sbt_mutate --move"
	rc=0
	timeout 120 "$R" --validate "$T/early.sbt" >"$T/early.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || fail "early $early: exit $rc: $(tail -5 "$T/early.out")"
	! grep -q 'VUID-' "$T/early.out" || fail "early $early: $(grep VUID- "$T/early.out" | head -3)"
done
echo "ok: 28 hostile traces stop with exit 1 naming the record; --wait-timeout checked"
