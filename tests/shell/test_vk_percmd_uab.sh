#!/bin/sh
# tsreplay --check-determinism --per-command follows a descriptor set
# updated after the command buffer that binds it was recorded, as
# VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT and
# UPDATE_UNUSED_WHILE_PENDING_BIT allow (issue 12;
# replayer/vulkan/rpvk_percmd.c, docs/vulkan-replay.md "--per-command").
# A dispatch or render pass that binds a set with such a storage binding
# copies, behind it, every memory bound to a buffer or image when it is
# recorded; at each submit its sets are resolved again and only the
# memories they reach then give results.
#
# The trace: vk_race --split --barrier --second-queue --neighbours
# --consumer --binding-flags, its copy's submit moved to queue 1 by
# vk_requeue (as test_vk_percmd_inner.sh's "cons" case): the second
# command buffer's consumer dispatch (index 4) reads the first dispatch's
# buffer through a second set and writes its own buffer; under
# --schedule-seeds 2,1 it is the first command whose result differs.
# The program's layout carries binding flags (none): the test makes all
# three bindings UPDATE_AFTER_BIND (or UPDATE_UNUSED_WHILE_PENDING) and
# moves the second set's vkUpdateDescriptorSets after the second command
# buffer's vkEndCommandBuffer.  lavapipe 22.3.6 has no update-after-bind
# feature for storage or uniform buffers (descriptorBindingStorageBuffer-
# UpdateAfterBind, descriptorBindingUniformBufferUpdateAfterBind and
# descriptorBindingUpdateUnusedWhilePending are false; only inline uniform
# blocks have it), so no program can do this validly here: those edited
# traces replay without --validate (the layer names the missing features,
# VUID-VkDescriptorSetLayoutBindingFlagsCreateInfo-descriptorBinding...-
# 03005/03008, and the layout's missing UPDATE_AFTER_BIND_POOL flag,
# VUID-VkDescriptorSetLayoutCreateInfo-flags-03000).  Checked:
#   - the captured trace (flags none, update before the recording), under
#     the validation layer: the runs part after the vkCmdDispatch, index 4;
#   - UPDATE_AFTER_BIND, update after the end: the runs part after the
#     vkCmdDispatch, index 4, in --json too (the set was empty when the
#     dispatch was recorded: before, the report named the vkCmdCopyBuffer
#     after it, index 5); UPDATE_UNUSED_WHILE_PENDING: the same; in the
#     captured order the runs agree;
#   - the consumer's output memory allocated and bound after the recording
#     too: no copy behind the dispatch covers it, a warning says so (exact
#     text) and the report names the submit alone;
#   - a memory the consumer does not reach freed between the recording and
#     the submit: the replay keeps it while the consumer's copies read it
#     (no refusal), and frees it (no VUID- line at vkDestroyDevice);
#   - the consumer recorded in a secondary command buffer
#     (--consumer-secondary): the report names the vkCmdExecuteCommands
#     (index 2), as captured under validation and edited as above.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/shell.sh"
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
I=$VK_ENV_BUILD/tsinfo
M=$VK_ENV_BUILD/tests/sbt_mutate
P=$VK_ENV_BUILD/tests/programs
for f in "$R" "$I" "$M" "$P/vk_race" "$P/vk_requeue"; do
	[ -x "$f" ] || fail "$f is not built"
done
unset DISPLAY

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/one.sbt vk_env_run "$T/one.capture.log" "$P/vk_race" --split --barrier --second-queue \
	--neighbours --consumer --binding-flags || fail "vk_race under VK_LAYER_tracesmith and validation"
vk_env_layers_none
"$P/vk_requeue" "$T/one.sbt" "$T/cons.sbt" 2 >"$T/requeue.log" || fail "vk_requeue: $(cat "$T/requeue.log")"
SUBMIT=$(sed -n 's/^vk_requeue: seq \([0-9]*\) .*/\1/p' "$T/requeue.log")
"$I" --dump "$T/cons.sbt" >"$T/cons.dump" || fail "tsinfo --dump"
# seq_of NAME N: the sequence number of the Nth (from 1; $ the last) record
# of call NAME in the dump $DUMP
DUMP=$T/cons.dump
seq_of() {
	sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" "$DUMP" | sed -n "$2p"
}
DSL=$(seq_of vkCreateDescriptorSetLayout 1)
UPD2=$(seq_of vkUpdateDescriptorSets 2)
END2=$(seq_of vkEndCommandBuffer '$')
DISP=$(seq_of vkCmdDispatch '$')
COPY=$(seq_of vkCmdCopyBuffer 1)
[ -n "$SUBMIT" ] && [ -n "$DSL" ] && [ -n "$UPD2" ] && [ -n "$END2" ] && [ -n "$DISP" ] && [ -n "$COPY" ] &&
	[ "$UPD2" -lt "$DISP" ] && [ "$DISP" -lt "$COPY" ] && [ "$COPY" -lt "$END2" ] ||
	fail "the trace lacks a call the test moves: $(grep -c . "$T/cons.dump") records"
# the second update writes the set the consumer binds (the last bind)
SET2=$(sed -n "s/^seq=$UPD2 .* pDescriptorWrites\[0\]\.dstSet=\(0x[0-9a-f]*\) .*/\1/p" "$T/cons.dump")
[ -n "$SET2" ] && [ "$(seq_of vkCmdBindDescriptorSets '$')" -lt "$DISP" ] &&
	grep "^seq=$(seq_of vkCmdBindDescriptorSets '$') " "$T/cons.dump" | grep -q " pDescriptorSets\[0\]=$SET2 " ||
	fail "the second update does not write the set the consumer binds"
# The layout's payload: varints 24, 28 and 32 are the first bytes of
# pBindingFlags[0], [1] and [2] (4 bytes each).
flags() {
	printf 'pBindingFlags\\[0\\]=0x%016x .*pBindingFlags\\[1\\]=0x%016x .*pBindingFlags\\[2\\]=0x%016x' "$1" "$1" "$1"
}
grep -q "^seq=$DSL .*$(flags 0)" "$T/cons.dump" || fail "the layout carries no binding flags: $(grep "^seq=$DSL " "$T/cons.dump")"

part() { # SEQ CALL INDEX: the first line of a report naming that command
	echo "tsreplay: runs differ: run 1 and run 2 part first after the command at seq $1 ($2, command buffer 0, index $3 in it) of the submit at seq $SUBMIT (--per-command)"
}

# ---- as captured, under validation --------------------------------------------------
vk_env_layers_validation
expect_rc 4 cons.det "$R" --check-determinism --schedule-seeds 2,1 "$T/cons.sbt"
vk_env_clean "$T/cons.det.err" || fail "cons: the validation layer objected"
has cons.det err "$(part "$DISP" vkCmdDispatch 4)"
vk_env_layers_none

# ---- the update after the end: UPDATE_AFTER_BIND, UPDATE_UNUSED_WHILE_PENDING -------------
# --move puts the update at END2's place, the end one earlier: the update
# follows the end, and the dispatch and copy sit one seq earlier.
for f in 1:uab 2:uuwp; do
	n=${f#*:} v=${f%%:*}
	"$M" "$T/cons.sbt" "$T/$n.sbt" --varint "$DSL:24:$v" --varint "$DSL:28:$v" --varint "$DSL:32:$v" \
		--move "$UPD2:$END2" >/dev/null || fail "$n: sbt_mutate"
	"$I" --dump "$T/$n.sbt" >"$T/$n.dump"
	grep -q "^seq=$DSL .*$(flags "$v")" "$T/$n.dump" || fail "$n: $(grep "^seq=$DSL " "$T/$n.dump")"
	grep -q "^seq=$END2 .* vulkan\.vkUpdateDescriptorSets " "$T/$n.dump" &&
		grep -q "^seq=$((END2 - 1)) .* vulkan\.vkEndCommandBuffer " "$T/$n.dump" ||
		fail "$n: the update does not follow the end"
	expect_rc 4 "$n.det" "$R" --check-determinism --schedule-seeds 2,1 "$T/$n.sbt"
	has "$n.det" err "$(part "$((DISP - 1))" vkCmdDispatch 4)"
done
expect_rc 4 uab.json "$R" --json --check-determinism --schedule-seeds 2,1 "$T/uab.sbt"
python3 - "$T/uab.json.out" "$((DISP - 1))" <<'PY' || fail "--json: $(cat "$T/uab.json.out")"
import json, sys
c = json.load(open(sys.argv[1]))["commands_part"]["command"]
assert c == {"seq": int(sys.argv[2]), "call": "vkCmdDispatch", "unit": "submit",
             "group": "command buffer", "group_index": 0, "index": 4}, c
PY
expect_rc 0 uab.same "$R" --check-determinism --per-command "$T/uab.sbt"
has uab.same out "tsreplay: runs agree with each other at every checkpoint and after every command"

# ---- the consumer's memory made after the recording -----------------------------------------
# The consumer's output buffer is the last one made: its vkAllocateMemory
# and vkBindBufferMemory move after the end (each to END2's place), then
# the update (two seqs earlier by now) after them.
ALLOC=$(seq_of vkAllocateMemory '$')
BIND=$(seq_of vkBindBufferMemory '$')
[ "$BIND" -eq $((ALLOC + 1)) ] && [ "$BIND" -lt "$UPD2" ] || fail "the consumer's buffer is not made last"
"$M" "$T/cons.sbt" "$T/late.sbt" --varint "$DSL:24:1" --varint "$DSL:28:1" --varint "$DSL:32:1" \
	--move "$ALLOC:$END2" --move "$ALLOC:$END2" --move "$((UPD2 - 2)):$END2" >/dev/null || fail "late: sbt_mutate"
"$I" --dump "$T/late.sbt" >"$T/late.dump"
for k in "$((END2 - 3)):vkEndCommandBuffer" "$((END2 - 2)):vkAllocateMemory" "$((END2 - 1)):vkBindBufferMemory" \
	"$END2:vkUpdateDescriptorSets"; do
	grep -q "^seq=${k%%:*} .* vulkan\.${k#*:} " "$T/late.dump" || fail "late: seq ${k%%:*} is not ${k#*:}"
done
MEM=$(sed -n "s/^seq=$((END2 - 1)) .* memory=\(0x[0-9a-f]*\) .*/\1/p" "$T/late.dump" | sed 's/^0x0*/0x/')
expect_rc 4 late.det "$R" --check-determinism --schedule-seeds 2,1 "$T/late.sbt"
grep -qE "^tsreplay: warning: --per-command: the command at seq $((DISP - 3)) \(vkCmdDispatch, index 4 of command buffer 0x[0-9a-f]+\) reaches VkDeviceMemory $MEM through a descriptor set updated after it was recorded, and its per-command copies do not cover that memory \(made since\); from it on, a difference in its submit names the submit only$" \
	"$T/late.det.err" || fail "late: no warning for $MEM: $(cat "$T/late.det.err")"
has late.det err "tsreplay: runs differ: run 1 and run 2 part first after the command at seq $SUBMIT (--per-command)"

# ---- unrelated memory freed between the recording and the submit ---------------------------
# The first dispatch's inputs (binding 1 of the first set, which only the
# first command buffer binds) are unmapped, destroyed and freed right after
# the first submit, before the second: legal (the first command buffer is
# not submitted again).  The consumer's copies (every memory) read that
# memory; the replay keeps it until the command buffer goes instead of
# refusing the submit (a build without the keeping refused it:
# "--per-command: command buffer 0x... is submitted, and VkDeviceMemory
# 0x..., which its commands' per-command copies read, was freed since it
# was recorded ...").  Under --validate the
# only VUID- lines are the binding flags' (above): none for a memory left
# unfreed at vkDestroyDevice, nor for a copy from freed memory.
UPD1=$(seq_of vkUpdateDescriptorSets 1)
INBUF=$(sed -n "s/^seq=$UPD1 .* pDescriptorWrites\[1\]\.pBufferInfo\[0\]\.buffer=\(0x[0-9a-f]*\) .*/\1/p" "$T/cons.dump")
INMEM=$(sed -n "s/^seq=[0-9]* .* vulkan\.vkBindBufferMemory .* buffer=$INBUF memory=\(0x[0-9a-f]*\) .*/\1/p" "$T/cons.dump")
SUBMIT1=$(seq_of vkQueueSubmit 1)
UNMAP=$(sed -n "s/^seq=\([0-9]*\) .* vulkan\.vkUnmapMemory .* memory=$INMEM .*/\1/p" "$T/cons.dump")
[ -n "$INBUF" ] && [ -n "$INMEM" ] && [ -n "$UNMAP" ] && [ "$SUBMIT1" -gt "$END2" ] &&
	grep -q "^seq=$((UNMAP + 1)) .* vulkan\.vkDestroyBuffer .* buffer=$INBUF " "$T/cons.dump" &&
	grep -q "^seq=$((UNMAP + 2)) .* vulkan\.vkFreeMemory .* memory=$INMEM " "$T/cons.dump" ||
	fail "the inputs' unmap, destroy and free are not where the test expects them"
"$M" "$T/uab.sbt" "$T/freed.sbt" --move "$UNMAP:$((SUBMIT1 + 1))" --move "$((UNMAP + 1)):$((SUBMIT1 + 2))" \
	--move "$((UNMAP + 2)):$((SUBMIT1 + 3))" >/dev/null || fail "freed: sbt_mutate"
"$I" --dump "$T/freed.sbt" | grep -q "^seq=$((SUBMIT1 + 3)) .* vulkan\.vkFreeMemory .* memory=$INMEM " ||
	fail "freed: the free is not after the first submit"
expect_rc 0 freed.det "$R" --validate --check-determinism --per-command "$T/freed.sbt"
has freed.det out "tsreplay: runs agree with each other at every checkpoint and after every command"
others=$(grep -o "VUID-[A-Za-z0-9_-]*" "$T/freed.det.err" | sort -u |
	grep -v -e '-descriptorBinding[A-Za-z]*UpdateAfterBind-0300[58]$' -e '^VUID-VkDescriptorSetLayoutCreateInfo-flags-03000$' \
		-e '^VUID-VkDescriptorSetLayoutCreateInfo-pNext-pNext$' || true)
[ -z "$others" ] || fail "freed: the validation layer objected: $others"

# ---- the consumer in a secondary command buffer ------------------------------------------------
# vk_race --consumer-secondary records the consumer's bind and dispatch in
# a secondary command buffer (before the first command buffer) that the
# copy's command buffer executes at index 2: its vkCmdExecuteCommands is
# the flexible unit, through the secondary's set.  Edited as above, the
# report names it (with the secondary's sets not followed it named the
# vkCmdCopyBuffer after it, index 3).
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/sec.one.sbt vk_env_run "$T/sec.capture.log" "$P/vk_race" --split --barrier --second-queue \
	--neighbours --consumer --consumer-secondary --binding-flags ||
	fail "vk_race --consumer-secondary under VK_LAYER_tracesmith and validation"
vk_env_layers_none
"$P/vk_requeue" "$T/sec.one.sbt" "$T/sec.sbt" 2 >"$T/sec.requeue.log" || fail "sec: vk_requeue: $(cat "$T/sec.requeue.log")"
SUBMIT=$(sed -n 's/^vk_requeue: seq \([0-9]*\) .*/\1/p' "$T/sec.requeue.log")
DUMP=$T/sec.dump
"$I" --dump "$T/sec.sbt" >"$DUMP" || fail "sec: tsinfo --dump"
DSL=$(seq_of vkCreateDescriptorSetLayout 1)
UPD2=$(seq_of vkUpdateDescriptorSets 2)
END2=$(seq_of vkEndCommandBuffer '$')
EXEC=$(seq_of vkCmdExecuteCommands 1)
[ -n "$SUBMIT" ] && [ -n "$EXEC" ] && [ "$UPD2" -lt "$EXEC" ] && [ "$EXEC" -lt "$END2" ] ||
	fail "sec: the trace lacks a call the test moves"
vk_env_layers_validation
expect_rc 4 sec.det "$R" --check-determinism --schedule-seeds 2,1 "$T/sec.sbt"
vk_env_clean "$T/sec.det.err" || fail "sec: the validation layer objected"
has sec.det err "$(part "$EXEC" vkCmdExecuteCommands 2)"
vk_env_layers_none
"$M" "$T/sec.sbt" "$T/secuab.sbt" --varint "$DSL:24:1" --varint "$DSL:28:1" --varint "$DSL:32:1" \
	--move "$UPD2:$END2" >/dev/null || fail "secuab: sbt_mutate"
"$I" --dump "$T/secuab.sbt" | grep -q "^seq=$END2 .* vulkan\.vkUpdateDescriptorSets " || fail "secuab: the update does not follow the end"
expect_rc 4 secuab.det "$R" --check-determinism --schedule-seeds 2,1 "$T/secuab.sbt"
has secuab.det err "$(part "$((EXEC - 1))" vkCmdExecuteCommands 2)"
echo "test_vk_percmd_uab: ok"
