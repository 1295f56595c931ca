#!/bin/sh
# tsreplay judges the state of a primary command buffer after
# vkCmdExecuteCommands (issue 12; replayer/vulkan/rpvk_state.c,
# docs/hostile-traces.md).  The specification: "all state of the primary
# command buffer is undefined after an execute secondary command buffer
# command is recorded", the render pass aside.  `vk_dynstate --execute`
# executes a secondary command buffer first (outside the render pass: it
# fills a scratch buffer), then binds its pipeline, sets every dynamic state,
# binds the vertex buffer and pushes its constants, and draws: its trace
# replays with every checkpoint equal and no VUID- line from the Khronos
# validation layer (tsreplay --validate), and draws the pixels vk_dynstate
# draws.
# Changed with tests/fuzz/sbt_mutate, moving one call ahead of the execute
# (so that it was made before it and not since), each must stop with exit 1
# at the triangle's draw and the exact message:
#   - vkCmdBindPipeline: the pipeline it draws with;
#   - vkCmdBindVertexBuffers2: the vertex buffers;
#   - vkCmdPushConstants: the push constants (its vertex shader uses them);
#   - vkCmdSetViewport: the viewport, a dynamic state not set since;
# and vkCmdSetDepthBounds moved ahead replays (the depth bounds test is off:
# no draw reads it; without --validate, since the 1.3.239 layer asks for
# every dynamic state).  The scratch buffer the secondary fills destroyed
# before the primary's submit is refused at the submit, naming the
# secondary (what a secondary uses, the submit of the primary that executes
# it uses: the null device aborted on it, vk_null_mutants.sh seed 1446 of
# corpus_vk_null/vk_dynstate_execute, now crash_secondary_destroyed).
# A dispatch after the execute: `vk_compute --execute` executes a secondary
# (it fills a scratch buffer) at the start of each round, then binds the
# compute pipeline and the descriptor set and dispatches; its trace replays
# equal under validation, and the results match vk_compute's without
# --execute.  Round 0's vkCmdBindPipeline, or its vkCmdBindDescriptorSets,
# moved ahead of round 0's execute stops with exit 1 at round 0's
# vkCmdDispatch, naming the compute pipeline or the descriptor sets; the
# execute moved after the dispatch (nothing after it reads the state it
# leaves undefined: a barrier and a copy) replays equal under validation.
# An indexed draw with a descriptor set after the execute: `vk_dynstate
# --execute --indexed` also binds an index buffer and a descriptor set its
# pipeline's layout has (a uniform buffer the shaders do not read) after
# the execute and draws the triangle with vkCmdDrawIndexed; its trace
# replays equal under validation and it draws vk_dynstate's pixels.
# vkCmdBindIndexBuffer, or vkCmdBindDescriptorSets, moved ahead of the
# execute stops with exit 1 at the vkCmdDrawIndexed, naming the index
# buffer or the descriptor sets, with no VUID- line; either left out (bound
# nowhere in the command buffer) stops there too: "has no index buffer bound
# for the indexed draw", "has no descriptor set bound, and its pipeline's
# layout has descriptors".
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
TRACESMITH_OUTPUT=$T/ex.sbt vk_env_run "$T/ex.capture.log" "$P" --execute ||
	fail "vk_dynstate --execute under VK_LAYER_tracesmith and validation"
vk_env_layers_none
H=$(sed -n 's/^vk_dynstate: hash \(0x[0-9a-f]*\)$/\1/p' "$T/plain.log")
[ -n "$H" ] || fail "vk_dynstate: $(cat "$T/plain.log")"
grep -qx "vk_dynstate: execute hash $H" "$T/ex.capture.log" || fail "vk_dynstate --execute: $(cat "$T/ex.capture.log")"

. "$TOP/tests/support/vk_hostile.sh"
# seq_of NAME N: the sequence number of the Nth (from 1) record of call NAME
# in $T/ex.sbt.
seq_of() {
	"$I" --dump "$T/ex.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | sed -n "${2}p"
}
# hostile NAME WANT OP...: the mutant of $T/ex.sbt stops with exit 1, its
# stderr holding WANT.
hostile() {
	name=$1 want=$2
	shift 2
	"$M" "$T/ex.sbt" "$T/$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
	rc=0
	timeout 120 "$R" "$T/$name.sbt" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "$name: tsreplay hung"
	[ "$rc" -eq 1 ] || fail "$name: exit $rc (expected 1): $(cat "$T/$name.err")"
	grep -qF -- "$want" "$T/$name.err" || fail "$name: '$want' not in: $(cat "$T/$name.err")"
}
TAIL=": a valid application never makes this call, and a driver may crash on it"

replays ex "$T/ex.sbt" --validate

EXEC=$(seq_of vkCmdExecuteCommands 1)
DRAW=$(seq_of vkCmdDraw 1)
[ -n "$EXEC" ] && [ -n "$DRAW" ] || fail "vk_dynstate --execute's trace lacks its execute or draw"
# The primary's first command is the execute: a call moved to its place
# comes before it, and the execute is then at seq EXEC + 1.
UNDEF="bound or set before vkCmdExecuteCommands (record seq $((EXEC + 1))) and not since: executing secondary command buffers leaves the primary command buffer's state undefined$TAIL"
n_hostile=0
# ahead CALL WHAT: CALL moved ahead of the execute is refused at the draw,
# naming WHAT.
ahead() {
	s=$(seq_of "$1" 1)
	[ -n "$s" ] && [ "$s" -gt "$EXEC" ] || fail "vk_dynstate --execute's trace lacks $1 after its execute"
	hostile "ahead_$1" "record seq $DRAW vkCmdDraw: command buffer 0x" --move "$s:$EXEC"
	grep -qF "uses $2, $UNDEF" "$T/ahead_$1.err" || fail "ahead_$1: $(cat "$T/ahead_$1.err")"
	n_hostile=$((n_hostile + 1))
}
ahead vkCmdBindPipeline "the graphics pipeline it draws with"
ahead vkCmdBindVertexBuffers2 "the vertex buffers its pipeline's vertex input reads"
ahead vkCmdPushConstants "the push constants its pipeline's shaders use"
VP=$(seq_of vkCmdSetViewport 1)
hostile ahead_viewport "record seq $DRAW vkCmdDraw: command buffer 0x" --move "$VP:$EXEC"
grep -qF "draws with a pipeline whose viewport (vkCmdSetViewport) is dynamic state, not set since vkCmdExecuteCommands (record seq $((EXEC + 1))) left the primary command buffer's state undefined$TAIL" \
	"$T/ahead_viewport.err" || fail "ahead_viewport: $(cat "$T/ahead_viewport.err")"
n_hostile=$((n_hostile + 1))
# A state no draw reads may stay as the execute left it.
BOUNDS=$(seq_of vkCmdSetDepthBounds 1)
"$M" "$T/ex.sbt" "$T/bounds.sbt" --move "$BOUNDS:$EXEC" >/dev/null || fail "sbt_mutate bounds"
"$I" --dump "$T/bounds.sbt" | grep -q "^seq=$EXEC .* vulkan\.vkCmdSetDepthBounds " ||
	fail "vkCmdSetDepthBounds did not move ahead of the execute"
replays bounds "$T/bounds.sbt"
# The scratch buffer (256 bytes, the only buffer the secondary names)
# destroyed just before the submit.
SUBMIT=$(seq_of vkQueueSubmit 1)
SCRATCH=$("$I" --dump "$T/ex.sbt" | sed -n 's/^seq=[0-9]* .* vulkan\.vkCreateBuffer .* pCreateInfo\.size=256 .* pBuffer=\(0x[0-9a-f]*\).*/\1/p')
[ -n "$SCRATCH" ] || fail "vk_dynstate --execute's trace lacks its scratch buffer"
GONE=$("$I" --dump "$T/ex.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.vkDestroyBuffer .* buffer=$SCRATCH .*/\1/p")
[ -n "$SUBMIT" ] && [ -n "$GONE" ] || fail "vk_dynstate --execute's trace lacks its submit or the scratch buffer's destroy"
hostile scratch "record seq $((SUBMIT + 1)) vkQueueSubmit: command buffer 0x" --move "$GONE:$SUBMIT"
grep -qF "is executed by the command buffer submitted, and a buffer, image, descriptor set, pipeline or framebuffer it uses was destroyed since it was recorded$TAIL" \
	"$T/scratch.err" || fail "scratch: $(cat "$T/scratch.err")"
n_hostile=$((n_hostile + 1))

# ---- a dispatch after the execute (vk_compute --execute) -----------------------------
C=$VK_ENV_BUILD/tests/programs/vk_compute
vk_env_layers_validation
vk_env_run "$T/cplain.log" "$C" --submits 2 || fail "vk_compute under validation"
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/cex.sbt vk_env_run "$T/cex.capture.log" "$C" --submits 2 --execute ||
	fail "vk_compute --execute under VK_LAYER_tracesmith and validation"
vk_env_layers_none
CH=$(sed -n 's/^vk_compute: size 4096 submits 2 hash \(0x[0-9a-f]*\) .*/\1/p' "$T/cplain.log")
[ -n "$CH" ] || fail "vk_compute: $(cat "$T/cplain.log")"
grep -q "^vk_compute: size 4096 submits 2 hash $CH " "$T/cex.capture.log" ||
	fail "vk_compute --execute: $(cat "$T/cex.capture.log")"
replays cex "$T/cex.sbt" --validate
cseq() { # NAME: the first record of call NAME in $T/cex.sbt
	"$I" --dump "$T/cex.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | head -n 1
}
CEXEC=$(cseq vkCmdExecuteCommands)
CDISP=$(cseq vkCmdDispatch)
[ -n "$CEXEC" ] && [ -n "$CDISP" ] && [ "$CEXEC" -lt "$CDISP" ] ||
	fail "vk_compute --execute's trace lacks its execute or dispatch after it"
CUNDEF="bound or set before vkCmdExecuteCommands (record seq $((CEXEC + 1))) and not since: executing secondary command buffers leaves the primary command buffer's state undefined$TAIL"
# cahead CALL WHAT: round 0's CALL moved ahead of its execute is refused at
# its dispatch, naming WHAT.
cahead() {
	s=$(cseq "$1")
	[ -n "$s" ] && [ "$s" -gt "$CEXEC" ] && [ "$s" -lt "$CDISP" ] ||
		fail "vk_compute --execute's trace lacks $1 between its execute and dispatch"
	"$M" "$T/cex.sbt" "$T/cahead_$1.sbt" --move "$s:$CEXEC" >/dev/null || fail "cahead_$1: sbt_mutate"
	rc=0
	timeout 120 "$R" "$T/cahead_$1.sbt" >"$T/cahead_$1.out" 2>"$T/cahead_$1.err" || rc=$?
	[ "$rc" -eq 1 ] || fail "cahead_$1: exit $rc (expected 1): $(cat "$T/cahead_$1.err")"
	grep -qF "record seq $CDISP vkCmdDispatch: command buffer 0x" "$T/cahead_$1.err" &&
		grep -qF "uses $2, $CUNDEF" "$T/cahead_$1.err" || fail "cahead_$1: $(cat "$T/cahead_$1.err")"
	n_hostile=$((n_hostile + 1))
}
cahead vkCmdBindPipeline "the compute pipeline it dispatches with"
cahead vkCmdBindDescriptorSets "the descriptor sets its pipeline's layout has"
"$M" "$T/cex.sbt" "$T/clate.sbt" --move "$CEXEC:$CDISP" >/dev/null || fail "sbt_mutate clate"
"$I" --dump "$T/clate.sbt" | grep -q "^seq=$((CDISP - 1)) .* vulkan\.vkCmdDispatch " &&
	"$I" --dump "$T/clate.sbt" | grep -q "^seq=$CDISP .* vulkan\.vkCmdExecuteCommands " ||
	fail "the execute did not move after the dispatch"
replays clate "$T/clate.sbt" --validate

# ---- an indexed draw with a descriptor set after the execute (vk_dynstate --execute --indexed)
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/ix.sbt vk_env_run "$T/ix.capture.log" "$P" --execute --indexed ||
	fail "vk_dynstate --execute --indexed under VK_LAYER_tracesmith and validation"
vk_env_layers_none
grep -qx "vk_dynstate: execute indexed hash $H" "$T/ix.capture.log" ||
	fail "vk_dynstate --execute --indexed: $(cat "$T/ix.capture.log")"
replays ix "$T/ix.sbt" --validate
iseq() { # NAME: the first record of call NAME in $T/ix.sbt
	"$I" --dump "$T/ix.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | head -n 1
}
IEXEC=$(iseq vkCmdExecuteCommands)
IDRAW=$(iseq vkCmdDrawIndexed)
[ -n "$IEXEC" ] && [ -n "$IDRAW" ] && [ "$IEXEC" -lt "$IDRAW" ] ||
	fail "vk_dynstate --execute --indexed's trace lacks its execute or indexed draw after it"
IUNDEF="bound or set before vkCmdExecuteCommands (record seq $((IEXEC + 1))) and not since: executing secondary command buffers leaves the primary command buffer's state undefined$TAIL"
# iahead CALL WHAT: CALL moved ahead of the execute is refused at the
# indexed draw, naming WHAT.
iahead() {
	s=$(iseq "$1")
	[ -n "$s" ] && [ "$s" -gt "$IEXEC" ] && [ "$s" -lt "$IDRAW" ] ||
		fail "vk_dynstate --execute --indexed's trace lacks $1 between its execute and draw"
	"$M" "$T/ix.sbt" "$T/iahead_$1.sbt" --move "$s:$IEXEC" >/dev/null || fail "iahead_$1: sbt_mutate"
	rc=0
	timeout 120 "$R" "$T/iahead_$1.sbt" >"$T/iahead_$1.out" 2>"$T/iahead_$1.err" || rc=$?
	[ "$rc" -eq 1 ] || fail "iahead_$1: exit $rc (expected 1): $(cat "$T/iahead_$1.err")"
	grep -qF "record seq $IDRAW vkCmdDrawIndexed: command buffer 0x" "$T/iahead_$1.err" &&
		grep -qF "uses $2, $IUNDEF" "$T/iahead_$1.err" || fail "iahead_$1: $(cat "$T/iahead_$1.err")"
	! grep -q "VUID-" "$T/iahead_$1.err" "$T/iahead_$1.out" || fail "iahead_$1: a VUID- line: $(cat "$T/iahead_$1.err")"
	n_hostile=$((n_hostile + 1))
}
iahead vkCmdBindIndexBuffer "the index buffer the indexed draw reads"
iahead vkCmdBindDescriptorSets "the descriptor sets its pipeline's layout has"
# idrop CALL WANT: CALL left out (bound nowhere in the command buffer) is
# refused at the indexed draw with WANT.
idrop() {
	s=$(iseq "$1")
	"$M" "$T/ix.sbt" "$T/idrop_$1.sbt" --drop "$s" >/dev/null || fail "idrop_$1: sbt_mutate"
	rc=0
	timeout 120 "$R" "$T/idrop_$1.sbt" >"$T/idrop_$1.out" 2>"$T/idrop_$1.err" || rc=$?
	[ "$rc" -eq 1 ] || fail "idrop_$1: exit $rc (expected 1): $(cat "$T/idrop_$1.err")"
	grep -qF "record seq $IDRAW vkCmdDrawIndexed: command buffer 0x" "$T/idrop_$1.err" &&
		grep -qF "$2$TAIL" "$T/idrop_$1.err" || fail "idrop_$1: $(cat "$T/idrop_$1.err")"
	! grep -q "VUID-" "$T/idrop_$1.err" "$T/idrop_$1.out" || fail "idrop_$1: a VUID- line: $(cat "$T/idrop_$1.err")"
	n_hostile=$((n_hostile + 1))
}
idrop vkCmdBindIndexBuffer "has no index buffer bound for the indexed draw"
idrop vkCmdBindDescriptorSets "has no descriptor set bound, and its pipeline's layout has descriptors"
echo "ok: vk_dynstate --execute (with --indexed too) and vk_compute --execute replay clean under validation, a state no draw reads set ahead of the execute replays, so does an execute moved after the dispatch; $n_hostile hostile traces stop with exit 1 naming the record"
