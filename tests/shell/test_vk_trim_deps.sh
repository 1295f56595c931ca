#!/bin/sh
# Trimmed Vulkan capture (issue 9): live objects whose creation names an
# object destroyed since, and layouts left by secondary command buffers.
#
# vk_trim_churn --orphans makes, before the rounds, a framebuffer whose
# image view, image, the image's memory and render pass are destroyed right
# after it, and a texel buffer view whose buffer is destroyed; it destroys
# both in round 8 (submit 9).  A `--submits 6-9` window: the snapshot
# recreates the view, the image with its memory and the render pass for
# the framebuffer and destroys them again; buffers are not recreated for
# others, so the buffer view is left out and its destroy in the window is
# not recorded (the framebuffer's is).
#
# vk_trim_churn --secondary uploads an image in round 0 through a secondary
# command buffer (barriers to TRANSFER_DST_OPTIMAL, then to
# TRANSFER_SRC_OPTIMAL) and copies it out in every later round: the
# snapshot moves the image to the layout the secondary left, and, read
# through staging copies (TRACESMITH_VK_SNAPSHOT_STAGING=1), copies its
# contents (an image whose layout the layer thinks undefined holds
# nothing to copy).
#
# vk_trim_churn --timestamps writes two timestamp queries in round 0 and
# reads them from the host (waiting) in every later round: the snapshot
# resets the pool and writes both again, so the window's
# vkGetQueryPoolResults succeed on replay as they did in the capture (a
# timestamp's value differs between any two runs).
#
# Each trimmed trace replays under the Khronos validation layer with its
# checkpoints equal to the same submits of a full capture.  No VUID-.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_trim_churn; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
CHURN=$BUILD/tests/programs/vk_trim_churn

# checkpoints: object, offset, length, hash
cps() {
	"$BUILD/tsinfo" --dump "$1" | grep ' checkpoint ' |
		sed 's/.*\(object=[^ ]*\).*\(offset=[^ ]*\).*\(length=[^ ]*\).*\(hash=[^ ]*\).*/\1 \2 \3 \4/'
}
snapshot() { # TRACE: the records before the snapshot end
	"$BUILD/tsinfo" --dump "$1" | awk '/ snapshot_end( |$)/{exit} {print}'
}
window() { # TRACE: the records after the snapshot end
	"$BUILD/tsinfo" --dump "$1" | awk 'w {print} / snapshot_end( |$)/{w = 1}'
}
# The trimmed trace's checkpoints are a run of the full trace's: the run
# that ends with the full trace's checkpoints of submit LAST (the window's
# last submit, whose checkpoints are the trimmed trace's last; each
# round's results differ, so the place is one).
same_checkpoints() { # FULL TRIM NAME
	cps "$1" >"$T/full.cps"
	cps "$2" >"$T/trim.cps"
	n=$(wc -l <"$T/trim.cps" | tr -d ' ')
	[ "$n" -ge 3 ] || fail "$3: the trimmed trace has $n checkpoints"
	end=$(grep -nxF "$(tail -n 1 "$T/trim.cps")" "$T/full.cps" | cut -d: -f1)
	[ "$(echo "$end" | wc -w)" = 1 ] ||
		fail "$3: the trimmed trace's last checkpoint is not once in the full trace (lines: ${end:-none})"
	[ "$end" -ge "$n" ] || fail "$3: more checkpoints in the window than before its end"
	sed -n "$((end - n + 1)),${end}p" "$T/full.cps" >"$T/full_window.cps"
	cmp -s "$T/trim.cps" "$T/full_window.cps" ||
		fail "$3: checkpoints differ: $(diff "$T/full_window.cps" "$T/trim.cps" | head -4)"
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/$3.replay.log" \
		"$VK_ENV_BUILD/tsreplay" "$2" || fail "$3: tsreplay of the trimmed trace"
	grep -q "checkpoints: $n compared, $n matched, 0 differ" "$T/$3.replay.log" ||
		fail "$3: trimmed replay: $(grep 'checkpoints:' "$T/$3.replay.log")"
}

# ---- orphans: a framebuffer outliving its view, image, memory, pass ---------
vk_env_run "$T/ofull.log" "$BUILD/tscapture" -o "$T/orph.sbt" -- "$CHURN" --rounds 12 --orphans ||
	fail "tscapture of vk_trim_churn --orphans (full)"
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/ofull_replay.log" \
	"$VK_ENV_BUILD/tsreplay" "$T/orph.sbt" || fail "tsreplay of the full --orphans trace"
TRACESMITH_LOG=info vk_env_run "$T/otrim.log" "$BUILD/tscapture" --submits 6-9 \
	-o "$T/otrim.sbt" -- "$CHURN" --rounds 12 --orphans ||
	fail "tscapture --submits 6-9 of vk_trim_churn --orphans"
O=$T/otrim-submits-6-9.sbt
[ -s "$O" ] || fail "no $O (in $T: $(ls "$T"))"
snapshot "$O" >"$T/osnap.dump"
window "$O" >"$T/owin.dump"
for call in vkCreateRenderPass vkCreateImage vkAllocateMemory vkBindImageMemory \
	vkCreateImageView vkCreateFramebuffer vkDestroyImageView vkDestroyImage vkFreeMemory \
	vkDestroyRenderPass; do
	grep -q "vulkan.$call " "$T/osnap.dump" ||
		fail "the snapshot has no $call (what the framebuffer needs, recreated and destroyed)"
done
# the zombies go after the framebuffer is made, newest first
grep -n 'vulkan.vk\(CreateFramebuffer\|DestroyImageView\|DestroyImage\|FreeMemory\) ' \
	"$T/osnap.dump" | sed 's/^\([0-9]*\):.*vulkan\.\(vk[A-Za-z]*\) .*/\2/' | tail -n 4 |
	tr '\n' ' ' >"$T/oorder"
case $(cat "$T/oorder") in
*"vkCreateFramebuffer vkDestroyImageView vkDestroyImage vkFreeMemory "*) ;;
*) fail "the snapshot's framebuffer and what it needs, in order: $(cat "$T/oorder")" ;;
esac
grep -q 'vulkan.vkCreateBufferView ' "$T/osnap.dump" &&
	fail "the snapshot creates the buffer view whose buffer was destroyed"
grep -q 'vulkan.vkDestroyFramebuffer ' "$T/owin.dump" ||
	fail "the window does not destroy the framebuffer"
grep -q 'vulkan.vkDestroyBufferView ' "$T/owin.dump" &&
	fail "the window records the destroy of the buffer view the snapshot left out"
grep -q 'a vkDestroyBufferView of 0x[0-9a-f]* is not recorded: the snapshot left that object out' \
	"$T/otrim.log" || fail "no note that the buffer view's destroy is not recorded"
grep -q 'vkCreateFramebuffer is left out' "$T/otrim.log" &&
	fail "the framebuffer was left out: $(grep 'left out' "$T/otrim.log" | head -3)"
same_checkpoints "$T/orph.sbt" "$O" orphans

# ---- a secondary command buffer's layouts, through staging copies ----------
vk_env_run "$T/sfull.log" "$BUILD/tscapture" -o "$T/sec.sbt" -- "$CHURN" --rounds 12 --secondary ||
	fail "tscapture of vk_trim_churn --secondary (full)"
TRACESMITH_VK_SNAPSHOT_STAGING=1 TRACESMITH_LOG=info vk_env_run "$T/strim.log" \
	"$BUILD/tscapture" --submits 6-9 -o "$T/strim.sbt" -- "$CHURN" --rounds 12 --secondary ||
	fail "tscapture --submits 6-9 of vk_trim_churn --secondary"
S=$T/strim-submits-6-9.sbt
[ -s "$S" ] || fail "no $S (in $T: $(ls "$T"))"
grep -q 'left out' "$T/strim.log" && fail "the snapshot left out: $(grep 'left out' "$T/strim.log")"
grep -q ' 1 images copied' "$T/strim.log" ||
	fail "the snapshot did not copy the image: $(grep 'Vulkan snapshot:' "$T/strim.log" | tail -1)"
snapshot "$S" >"$T/ssnap.dump"
grep 'vulkan.vkCmdCopyBufferToImage commandBuffer=0xfff5' "$T/ssnap.dump" >/dev/null ||
	fail "the snapshot does not copy the image's contents back"
# the image goes on to TRANSFER_SRC_OPTIMAL after its copy
grep 'vulkan.vkCmdPipelineBarrier commandBuffer=0xfff5' "$T/ssnap.dump" |
	grep -q 'oldLayout="VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL".*newLayout="VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL"' ||
	fail "the snapshot does not move the image to TRANSFER_SRC_OPTIMAL: $(grep 'vkCmdPipelineBarrier commandBuffer=0xfff5' "$T/ssnap.dump" | cut -c1-300)"
same_checkpoints "$T/sec.sbt" "$S" secondary

# ---- timestamps written before the window, read inside it --------------------
vk_env_run "$T/qfull.log" "$BUILD/tscapture" -o "$T/ts.sbt" -- "$CHURN" --rounds 12 --timestamps ||
	fail "tscapture of vk_trim_churn --timestamps (full)"
vk_env_run "$T/qtrim.log" "$BUILD/tscapture" --submits 6-9 -o "$T/qtrim.sbt" -- \
	"$CHURN" --rounds 12 --timestamps || fail "tscapture --submits 6-9 of vk_trim_churn --timestamps"
Q=$T/qtrim-submits-6-9.sbt
[ -s "$Q" ] || fail "no $Q (in $T: $(ls "$T"))"
snapshot "$Q" >"$T/qsnap.dump"
grep -q 'vulkan.vkCmdResetQueryPool commandBuffer=0xfff5.* firstQuery=0 queryCount=2' "$T/qsnap.dump" ||
	fail "the snapshot does not reset the query pool"
n=$(grep -c 'vulkan.vkCmdWriteTimestamp commandBuffer=0xfff5' "$T/qsnap.dump")
[ "$n" = 2 ] || fail "the snapshot writes $n timestamps, expected 2"
n=$(window "$Q" | grep -c 'vulkan.vkGetQueryPoolResults ')
[ "$n" -ge 3 ] || fail "the window reads the timestamps $n times"
same_checkpoints "$T/ts.sbt" "$Q" timestamps
grep -q 'vkGetQueryPoolResults returned' "$T/timestamps.replay.log" &&
	fail "the window's query reads: $(grep 'vkGetQueryPoolResults returned' "$T/timestamps.replay.log" | head -2)"
grep -q 'results differ from the capture' "$T/timestamps.replay.log" &&
	fail "timestamps replay: $(grep 'results differ' "$T/timestamps.replay.log")"
echo ok
