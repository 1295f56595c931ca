#!/bin/sh
# Trimmed Vulkan capture restores images whose subresources are in
# different layouts (issue 9): vk_trim_layouts leaves, after its upload
# (submit 1), image A's mip level 0 in TRANSFER_SRC_OPTIMAL, mip level 1
# layers 0-1 in SHADER_READ_ONLY_OPTIMAL and layers 2-3 in GENERAL, mip
# level 2 in TRANSFER_DST_OPTIMAL; image B with only mip level 0 of layer 0
# used (the rest UNDEFINED); image D's depth in TRANSFER_SRC_OPTIMAL and
# its stencil in GENERAL; image E, a depth/stencil attachment, left by a
# render pass whose final layout is TRANSFER_SRC_OPTIMAL for the depth and
# GENERAL for the stencil (VkAttachmentDescriptionStencilLayout).  Every
# later submit reads each range from the layout it is in.
#
# With TRACESMITH_VK_SNAPSHOT_STAGING=1 the snapshot of `--submits 4-7`
# copies each range out from its own layout and back in (B: one region,
# its one used subresource; D and E: depth and stencil apart), then moves each
# range on to its layout; without it the same barriers follow the memory
# restored through a mapping.  Both trimmed traces' checkpoints are the
# full capture's for the same submits, and their replays under the
# validation layer match all of them.  The layer tracking one layout per
# image put every range in the last layout a barrier named, which the
# validation layer reports at the window's submits as
# UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout (not a VUID-): so
# here every log must be free of "Validation Error" too.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_trim_layouts; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
# tscapture loads our layer itself (implicit); validation goes below it
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
PROG="$BUILD/tests/programs/vk_trim_layouts"

# run LOG cmd...: vk_env_run, and no validation error of any kind
run() {
	run_log=$1
	vk_env_run "$@" || return 1
	if grep -q 'Validation Error' "$run_log"; then
		grep 'Validation Error' "$run_log" | head -n 3 | cut -c1-400 >&2
		return 1
	fi
}
# checkpoints: object, offset, length, hash
cps() {
	"$BUILD/tsinfo" --dump "$1" | grep ' checkpoint ' |
		sed 's/.*\(object=[^ ]*\).*\(offset=[^ ]*\).*\(length=[^ ]*\).*\(hash=[^ ]*\).*/\1 \2 \3 \4/'
}
# the snapshot's own barriers, one line per image barrier: image, aspect
# mask, first mip level, level count, first layer, layer count, new layout,
# "from", old layout
snapshot_moves() {
	"$BUILD/tsinfo" --dump --elements all "$1" | awk '/ snapshot_end( |$)/{exit} {print}' |
		grep 'vulkan.vkCmdPipelineBarrier commandBuffer=0xfff5' |
		tr ' ' '\n' | sed -n 's/^pImageMemoryBarriers\[[0-9]*\]\.//p' | tr -d '"' |
		awk -F= '
			$1 == "oldLayout" { old = $2 }
			$1 == "newLayout" { new = $2 }
			$1 == "image" { img = $2 }
			$1 == "subresourceRange.aspectMask" { a = $2; sub(/^0x0*/, "", a) }
			$1 == "subresourceRange.baseMipLevel" { m = $2 }
			$1 == "subresourceRange.levelCount" { nm = $2 }
			$1 == "subresourceRange.baseArrayLayer" { l = $2 }
			$1 == "subresourceRange.layerCount" { print img, a, m, nm, l, $2, new, "from", old }'
}
# image_of TRACE FORMAT [N]: the handle of the N-th image (default the
# first) of that format the trace creates
image_of() {
	"$BUILD/tsinfo" --dump "$1" | grep "vulkan.vkCreateImage .*format=\"VK_FORMAT_$2\"" |
		tr ' ' '\n' | sed -n 's/^pImage=//p' | sed -n "${3:-1}p"
}

vk_env_run "$T/full.log" "$BUILD/tscapture" -o "$T/full.sbt" -- "$PROG" --rounds 8 ||
	fail "tscapture of vk_trim_layouts (full)"
grep -q '^vk_trim_layouts: rounds 8 hash ' "$T/full.log" || fail "vk_trim_layouts: $(tail -1 "$T/full.log")"
cps "$T/full.sbt" >"$T/full.cps"
# one checkpoint per read (submits 2-8); the window's: submits 4-6 (the
# fence wait of submit 7 comes after the window closes)
[ "$(wc -l <"$T/full.cps" | tr -d ' ')" = 7 ] || fail "the full capture has $(wc -l <"$T/full.cps") checkpoints, expected 7"
sed -n '3,5p' "$T/full.cps" >"$T/full_window.cps"

for mode in stg map; do
	staging=0
	[ "$mode" = map ] || staging=1
	TRACESMITH_VK_SNAPSHOT_STAGING=$staging TRACESMITH_LOG=info run "$T/$mode.log" \
		"$BUILD/tscapture" --submits 4-7 -o "$T/$mode.sbt" -- "$PROG" --rounds 8 ||
		fail "$mode: tscapture --submits 4-7 of vk_trim_layouts"
	W=$T/$mode-submits-4-7.sbt
	[ -s "$W" ] || fail "$mode: no $W (in $T: $(ls "$T"))"
	! grep 'left out' "$T/$mode.log" >"$T/$mode.out" || fail "$mode: the snapshot left something out: $(cat "$T/$mode.out")"
	snapshot_moves "$W" >"$T/$mode.moves"
	A=$(image_of "$W" R8G8B8A8_UINT)
	B=$(image_of "$W" R32_UINT)
	D=$(image_of "$W" D32_SFLOAT_S8_UINT)
	E=$(image_of "$W" D32_SFLOAT_S8_UINT 2)
	[ -n "$A" ] && [ -n "$B" ] && [ -n "$D" ] && [ -n "$E" ] ||
		fail "$mode: the snapshot does not create images A, B, D and E"
	# A's ranges, B's one subresource, D's aspects, each to its own layout
	for want in \
		"$A 1 0 1 0 4 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL" \
		"$A 1 1 1 0 2 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL" \
		"$A 1 1 1 2 2 VK_IMAGE_LAYOUT_GENERAL" \
		"$A 1 2 1 0 4 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL" \
		"$B 1 0 1 0 1 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL" \
		"$D 2 0 1 0 1 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL" \
		"$D 4 0 1 0 1 VK_IMAGE_LAYOUT_GENERAL" \
		"$E 2 0 1 0 1 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL" \
		"$E 4 0 1 0 1 VK_IMAGE_LAYOUT_GENERAL"; do
		grep -q "^$want from " "$T/$mode.moves" ||
			fail "$mode: no snapshot barrier '$want': $(cat "$T/$mode.moves")"
	done
	# B's other subresources were never used: nothing moves them
	n=$(grep -c "^$B " "$T/$mode.moves" || true)
	[ "$n" -eq "$(grep -c "^$B 1 0 1 0 1 " "$T/$mode.moves" || true)" ] ||
		fail "$mode: the snapshot moves subresources of B that were never used: $(grep "^$B " "$T/$mode.moves")"
	cps "$W" >"$T/$mode.cps"
	cmp -s "$T/$mode.cps" "$T/full_window.cps" ||
		fail "$mode: checkpoints of submits 4-6 differ from the full capture's: $(diff "$T/full_window.cps" "$T/$mode.cps" | head -4)"
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION run "$T/${mode}_replay.log" "$VK_ENV_BUILD/tsreplay" "$W" ||
		fail "$mode: tsreplay of the trimmed trace under validation"
	grep -q "checkpoints: 3 compared, 3 matched, 0 differ" "$T/${mode}_replay.log" ||
		fail "$mode: trimmed replay: $(grep 'checkpoints:' "$T/${mode}_replay.log")"
done

# with staging: the copies out and in per range, B in one region
grep -q 'Vulkan snapshot: .*, 4 images copied' "$T/stg.log" ||
	fail "the snapshot did not copy the 4 images: $(grep 'Vulkan snapshot:' "$T/stg.log")"
"$BUILD/tsinfo" --dump "$T/stg-submits-4-7.sbt" | awk '/ snapshot_end( |$)/{exit} {print}' |
	grep 'vulkan.vkCmdCopyBufferToImage commandBuffer=0xfff5' >"$T/stg.copies"
W=$T/stg-submits-4-7.sbt
grep "dstImage=$(image_of "$W" R8G8B8A8_UINT) " "$T/stg.copies" | grep -q 'regionCount=4 ' ||
	fail "image A is not restored in 4 regions (one per range)"
grep "dstImage=$(image_of "$W" R32_UINT) " "$T/stg.copies" | grep -q 'regionCount=1 ' ||
	fail "image B is not restored in 1 region (its one used subresource)"
grep "dstImage=$(image_of "$W" D32_SFLOAT_S8_UINT) " "$T/stg.copies" | grep -q 'regionCount=2 ' ||
	fail "image D is not restored in 2 regions (depth, stencil)"
grep "dstImage=$(image_of "$W" D32_SFLOAT_S8_UINT 2) " "$T/stg.copies" | grep -q 'regionCount=2 ' ||
	fail "image E is not restored in 2 regions (depth, stencil)"
grep -q 'Vulkan snapshot: .*, 0 images copied' "$T/map.log" ||
	fail "without staging the snapshot copied images: $(grep 'Vulkan snapshot:' "$T/map.log")"
echo ok
