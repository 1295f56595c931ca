#!/bin/sh
# Trimmed Vulkan capture restores image contents (issue 9): vk_trim_image
# writes three optimal-tiling images before the window (A: 3 mip levels, 2
# layers, sampled; B: a storage image without transfer-source usage; D:
# depth and stencil, 2 mip levels) and reads them inside it (A and D
# copied to buffers, B through a compute shader), each round checked by
# the program itself; a fourth, C, is a colour attachment no render pass
# loads.
#
# With TRACESMITH_VK_SNAPSHOT_STAGING=1 (memory read as memory the host
# cannot map is: on lavapipe all of it can) the snapshot of `--submits 4-7`
# copies the three images out on the device and restores them with
# vkCmdCopyBufferToImage from staging buffers of its own (D's depth and
# stencil separately); B can be copied
# because the layer added transfer usage at its creation (the trace's
# vkCreateImage says so); C's memory is left out (its contents are never
# read), although the layer gave C transfer usage too.  The trimmed trace's checkpoints are the full
# capture's for the same submits, and its replay under the validation layer
# matches all of them.  Without staging the snapshot reads the memory
# through a mapping, with the same checkpoints.  Every run: no VUID-.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_trim_image; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
# tscapture loads our layer itself (implicit); validation goes below it
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
PROG="$BUILD/tests/programs/vk_trim_image"

# checkpoints: object, offset, length, hash
cps() {
	"$BUILD/tsinfo" --dump "$1" | grep ' checkpoint ' |
		sed 's/.*\(object=[^ ]*\).*\(offset=[^ ]*\).*\(length=[^ ]*\).*\(hash=[^ ]*\).*/\1 \2 \3 \4/'
}
# the snapshot: what comes before its end
snapshot() {
	"$BUILD/tsinfo" --dump "$1" | awk '/ snapshot_end( |$)/{exit} {print}'
}

vk_env_run "$T/full.log" "$BUILD/tscapture" -o "$T/full.sbt" -- "$PROG" --rounds 8 ||
	fail "tscapture of vk_trim_image (full)"
grep -q '^vk_trim_image: rounds 8 hash ' "$T/full.log" || fail "vk_trim_image: $(tail -1 "$T/full.log")"
cps "$T/full.sbt" >"$T/full.cps"
[ -s "$T/full.cps" ] || fail "the full capture has no checkpoint"

# ---- through staging copies: the images copied out and back in ----------------
TRACESMITH_VK_SNAPSHOT_STAGING=1 TRACESMITH_LOG=info vk_env_run "$T/stg.log" \
	"$BUILD/tscapture" --submits 4-7 -o "$T/stg.sbt" -- "$PROG" --rounds 8 ||
	fail "tscapture --submits 4-7 of vk_trim_image with staging copies"
S=$T/stg-submits-4-7.sbt
[ -s "$S" ] || fail "no $S (in $T: $(ls "$T"))"
grep 'left out' "$T/stg.log" | grep -v 'holds only attachments no render pass loads' >"$T/stg.out" &&
	fail "the snapshot left something out: $(cat "$T/stg.out")"
grep -q 'Vulkan snapshot: .*, 3 images copied' "$T/stg.log" ||
	fail "the snapshot did not copy the 3 images: $(grep 'Vulkan snapshot:' "$T/stg.log")"
grep -q 'VkDeviceMemory 0x[0-9a-f]* holds only attachments no render pass loads' "$T/stg.log" ||
	fail "the memory of the attachment no render pass loads is not left out: $(grep 'Vulkan snapshot:' "$T/stg.log")"
snapshot "$S" >"$T/stg.dump"
n=$(grep -c 'vulkan.vkCmdCopyBufferToImage commandBuffer=0xfff5' "$T/stg.dump" || true)
[ "$n" = 3 ] || fail "the snapshot restores $n images through vkCmdCopyBufferToImage, expected 3"
# B (R32_UINT): the layer added transfer-source usage (0x1) to storage and
# transfer-destination usage (0x8 | 0x2), and the trace creates it so
grep 'vulkan.vkCreateImage ' "$T/stg.dump" | grep 'format="VK_FORMAT_R32_UINT"' >"$T/stg.b" ||
	fail "the snapshot does not create image B: $(grep 'vkCreateImage' "$T/stg.dump" | head -2)"
grep -q 'pCreateInfo.usage=0x000000000000000b ' "$T/stg.b" ||
	fail "image B's creation lacks the added transfer usage: $(cut -c1-400 "$T/stg.b")"
# A is restored in all 3 mip levels and both layers, D in 2 mip levels of
# depth and 2 of stencil
grep 'vulkan.vkCmdCopyBufferToImage commandBuffer=0xfff5' "$T/stg.dump" >"$T/stg.copies"
grep -q 'regionCount=3 ' "$T/stg.copies" || fail "image A is not restored in 3 regions (one per mip level)"
grep 'regionCount=4 ' "$T/stg.copies" | grep -q 'pRegions\[3\].imageSubresource.aspectMask=0x0*4 ' ||
	fail "image D is not restored in 4 regions, the last of stencil: $(grep 'regionCount=4 ' "$T/stg.copies" | cut -c1-300)"
cps "$S" >"$T/stg.cps"
n=$(wc -l <"$T/stg.cps" | tr -d ' ')
[ "$n" -ge 9 ] || fail "the trimmed trace has $n checkpoints, expected those of submits 4-6 at least"
# three checkpoints per round (the buffers of A, B and D), none for the
# uploads: submit k (round k - 2) has lines 3k - 5 to 3k - 3
sed -n "7,$((6 + n))p" "$T/full.cps" >"$T/full_window.cps"
cmp -s "$T/stg.cps" "$T/full_window.cps" ||
	fail "checkpoints of submits 4.. differ: $(diff "$T/full_window.cps" "$T/stg.cps" | head -4)"
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/stg_replay.log" "$VK_ENV_BUILD/tsreplay" "$S" ||
	fail "tsreplay of the trimmed trace with staging copies"
grep -q "checkpoints: $n compared, $n matched, 0 differ" "$T/stg_replay.log" ||
	fail "trimmed replay with staging copies: $(grep 'checkpoints:' "$T/stg_replay.log")"

# ---- through a mapping (the memory is host-visible here) ----------------------
TRACESMITH_LOG=info vk_env_run "$T/map.log" "$BUILD/tscapture" --submits 4-7 -o "$T/map.sbt" -- \
	"$PROG" --rounds 8 || fail "tscapture --submits 4-7 of vk_trim_image"
M=$T/map-submits-4-7.sbt
[ -s "$M" ] || fail "no $M (in $T: $(ls "$T"))"
grep -q 'Vulkan snapshot: .*, 0 images copied' "$T/map.log" ||
	fail "without staging the snapshot copied images: $(grep 'Vulkan snapshot:' "$T/map.log")"
cps "$M" >"$T/map.cps"
cmp -s "$T/map.cps" "$T/stg.cps" ||
	fail "checkpoints through a mapping differ from those through copies: $(diff "$T/stg.cps" "$T/map.cps" | head -4)"
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/map_replay.log" "$VK_ENV_BUILD/tsreplay" "$M" ||
	fail "tsreplay of the trimmed trace"
grep -q "checkpoints: $n compared, $n matched, 0 differ" "$T/map_replay.log" ||
	fail "trimmed replay: $(grep 'checkpoints:' "$T/map_replay.log")"
echo ok
