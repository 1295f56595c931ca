#!/bin/sh
# tsreplay refuses the submit of a command buffer that a descriptor update
# made invalid (issue 12; replayer/vulkan/rpvk_state.c and rpvk_dset.c,
# docs/hostile-traces.md).  The specification: when a set a command buffer
# in the recording or executable state binds is updated (a write, a copy or
# a template) in a binding created without UPDATE_AFTER_BIND or
# UPDATE_UNUSED_WHILE_PENDING, the command buffer becomes invalid.  The
# Khronos validation layer 1.3.239 reports nothing for it (seen by hand:
# the update moved after the bind, as below, replayed under --validate with
# the check taken out, with no VUID- line).
# The traces: vk_compute (one set of three storage buffers, written before
# each round's recording; the command buffer is recorded again each
# round), vk_partial (its set 0's layout carries binding flags, 0) and
# vk_reach (phase 3 writes a set through a descriptor update template).
# Changed with tests/fuzz/sbt_mutate, each must stop with exit 1 at the
# submit with the exact message:
#   - vk_compute's vkUpdateDescriptorSets moved after the bind, and after
#     vkEndCommandBuffer (the command buffer executable);
#   - vk_partial's write of binding 0 moved after the bind, binding 1 made
#     UPDATE_UNUSED_WHILE_PENDING (the flag is the updated binding's);
#   - vk_reach's vkUpdateDescriptorSetWithTemplate moved after the bind;
# and these replay with every checkpoint equal:
#   - vk_compute's update repeated between the first submit's wait and the
#     second recording (the first command buffer becomes invalid and is not
#     submitted again; the second binds the set after the update), under
#     --validate;
#   - vk_partial's write of binding 0 moved after the bind with binding 0
#     made UPDATE_AFTER_BIND, or UPDATE_UNUSED_WHILE_PENDING (without
#     --validate: lavapipe lacks descriptorBindingStorageBufferUpdateAfterBind
#     and descriptorBindingUpdateUnusedWhilePending, which the layer then
#     names).
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
PR=$VK_ENV_BUILD/tests/programs
[ -x "$M" ] || fail "$M is not built"
unset DISPLAY

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/comp.sbt vk_env_run "$T/comp.capture.log" "$PR/vk_compute" --size 4096 --submits 2 ||
	fail "vk_compute under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/part.sbt vk_env_run "$T/part.capture.log" "$PR/vk_partial" --size 1024 --submits 2 ||
	fail "vk_partial under VK_LAYER_tracesmith and validation"
TRACESMITH_OUTPUT=$T/reach.sbt vk_env_run "$T/reach.capture.log" "$PR/vk_reach" ||
	fail "vk_reach under VK_LAYER_tracesmith and validation"
vk_env_layers_none

. "$TOP/tests/support/vk_hostile.sh"
# mutant NAME SRC OP...: $T/NAME.sbt made from $T/SRC.sbt.
mutant() {
	name=$1 src=$2
	shift 2
	"$M" "$T/$src.sbt" "$T/$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
}
# hostile NAME WANT: $T/NAME.sbt stops with exit 1, its stderr holding WANT.
hostile() {
	rc=0
	timeout 120 "$R" "$T/$1.sbt" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "$1: tsreplay hung"
	[ "$rc" -eq 1 ] || fail "$1: exit $rc (expected 1): $(cat "$T/$1.err")"
	grep -qF -- "$2" "$T/$1.err" || fail "$1: '$2' not in: $(cat "$T/$1.err")"
}
TAIL=": a valid application never makes this call, and a driver may crash on it"
# invalid SUBMIT: where the message of the submit at seq SUBMIT starts.
invalid() {
	echo "record seq $1 vkQueueSubmit: command buffer 0x"
}
# after_bind BINDING UPDATE: the rest of it, for BINDING updated at seq
# UPDATE.
after_bind() {
	echo "is submitted, and binding $1 of a descriptor set it binds was updated at record seq $2, after the bind, without UPDATE_AFTER_BIND or UPDATE_UNUSED_WHILE_PENDING in its layout: that update made the command buffer invalid$TAIL"
}
n_hostile=0

replays comp "$T/comp.sbt" --validate

# ---- vk_compute -----------------------------------------------------------------------
UPD=$(seq_of vkUpdateDescriptorSets 1 comp)
BIND=$(seq_of vkCmdBindDescriptorSets 1 comp)
END=$(seq_of vkEndCommandBuffer 1 comp)
SUBMIT=$(seq_of vkQueueSubmit 1 comp)
BEGIN2=$(seq_of vkBeginCommandBuffer 2 comp)
[ -n "$UPD" ] && [ -n "$BIND" ] && [ -n "$END" ] && [ -n "$SUBMIT" ] && [ -n "$BEGIN2" ] &&
	[ "$UPD" -lt "$BIND" ] || fail "vk_compute's trace lacks a call the test moves"
# --move SEQ:TO puts SEQ's call at TO's place and the calls between one
# earlier: the update lands right after the bind (at BIND), or after the end.
mutant after_bind comp --move "$UPD:$BIND"
hostile after_bind "$(invalid "$SUBMIT")"
grep -qF "$(after_bind 0 "$BIND")" "$T/after_bind.err" || fail "after_bind: $(cat "$T/after_bind.err")"
mutant after_end comp --move "$UPD:$END"
hostile after_end "$(invalid "$SUBMIT")"
grep -qF "$(after_bind 0 "$END")" "$T/after_end.err" || fail "after_end: $(cat "$T/after_end.err")"
n_hostile=$((n_hostile + 2))
# The update repeated before the second recording: the dup takes UPD + 1 and
# the calls after it one later (the second begin at BEGIN2 + 1); the copy
# moved to BEGIN2 lands just before the begin.
mutant between comp --dup "$UPD" --move "$((UPD + 1)):$BEGIN2"
"$I" --dump "$T/between.sbt" | grep -q "^seq=$BEGIN2 .* vulkan\.vkUpdateDescriptorSets " ||
	fail "between: the update is not before the second recording"
replays between "$T/between.sbt" --validate

# ---- vk_partial: the flags of the updated binding ---------------------------------------
PDSL=$(seq_of vkCreateDescriptorSetLayout 1 part)
PUPD=$(seq_of vkUpdateDescriptorSets 1 part)
PBIND=$(seq_of vkCmdBindDescriptorSets 1 part)
PSUBMIT=$(seq_of vkQueueSubmit 1 part)
[ -n "$PDSL" ] && [ -n "$PUPD" ] && [ -n "$PBIND" ] && [ -n "$PSUBMIT" ] ||
	fail "vk_partial's trace lacks a call the test changes"
"$I" --dump "$T/part.sbt" | grep -q "^seq=$PUPD .*pDescriptorWrites\[0\].dstBinding=0 " ||
	fail "vk_partial's first update does not write binding 0"
# Varints 19 and 23 of the layout's payload are its pBindingFlags[0] and [1].
# flags FLAG0 FLAG1: the layout's binding flags, as the dump shows them.
flags() {
	printf 'pBindingFlags\\[0\\]=0x%016x pCreateInfo.pNext.VkDescriptorSetLayoutBindingFlagsCreateInfo.pBindingFlags\\[1\\]=0x%016x' "$1" "$2"
}
mutant uuwp1 part --varint "$PDSL:23:2" --move "$PUPD:$PBIND"
"$I" --dump "$T/uuwp1.sbt" | grep -q "^seq=$PDSL .*$(flags 0 2)" || fail "uuwp1: $("$I" --dump "$T/uuwp1.sbt" | grep "^seq=$PDSL ")"
hostile uuwp1 "$(invalid "$PSUBMIT")"
grep -qF "$(after_bind 0 "$PBIND")" "$T/uuwp1.err" || fail "uuwp1: $(cat "$T/uuwp1.err")"
n_hostile=$((n_hostile + 1))
for f in 1:uab 2:uuwp; do
	mutant "${f#*:}0" part --varint "$PDSL:19:${f%%:*}" --move "$PUPD:$PBIND"
	"$I" --dump "$T/${f#*:}0.sbt" | grep -q "^seq=$PDSL .*$(flags "${f%%:*}" 0)" ||
		fail "${f#*:}0: $("$I" --dump "$T/${f#*:}0.sbt" | grep "^seq=$PDSL ")"
	replays "${f#*:}0" "$T/${f#*:}0.sbt"
done

# ---- vk_reach: a template update ----------------------------------------------------------
TPL=$(seq_of vkUpdateDescriptorSetWithTemplate 1 reach)
[ -n "$TPL" ] || fail "vk_reach's trace lacks its template update"
# the bind of the set it writes (phase 3), and the submit after it
TSET=$("$I" --dump "$T/reach.sbt" | grep "^seq=$TPL " | sed -n 's/.* descriptorSet=\(0x[0-9a-f]*\) .*/\1/p')
TBIND=$("$I" --dump "$T/reach.sbt" | grep " vulkan\.vkCmdBindDescriptorSets .*pDescriptorSets\[0\]=$TSET " |
	sed -n 's/^seq=\([0-9]*\) .*/\1/p' | head -n 1)
TSUBMIT=$("$I" --dump "$T/reach.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.vkQueueSubmit .*/\1/p" |
	awk -v t="$TBIND" '$1 > t' | head -n 1)
[ -n "$TSET" ] && [ -n "$TBIND" ] && [ -n "$TSUBMIT" ] ||
	fail "vk_reach's trace lacks the bind or submit of the set its template update writes"
mutant tpl reach --move "$TPL:$TBIND"
hostile tpl "$(invalid "$TSUBMIT")"
grep -qF "is submitted, and a descriptor set it binds was updated through a template at record seq $TBIND, after the bind, and its layout has no binding with UPDATE_AFTER_BIND or UPDATE_UNUSED_WHILE_PENDING: that update made the command buffer invalid$TAIL" \
	"$T/tpl.err" || fail "tpl: $(cat "$T/tpl.err")"
n_hostile=$((n_hostile + 1))
echo "ok: vk_compute's trace, and 3 whose sets are updated where the rules allow it, replay; $n_hostile hostile traces stop with exit 1 naming the record"
