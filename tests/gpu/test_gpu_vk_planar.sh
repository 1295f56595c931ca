#!/bin/sh
# GPU only (make test-gpu): trimmed capture of multi-planar images on the
# GPU's own driver (no lavapipe, which has no multi-planar format).
# vk_trim_planar in three variants: G8_B8R8_2PLANE_420_UNORM (2plane),
# G8_B8_R8_3PLANE_420_UNORM (3plane), and the 2-plane format created
# DISJOINT with each plane in its own device-local allocation and its
# planes in different layouts (disjoint).  Per variant: a full capture; a
# --submits 4-7 capture whose snapshot leaves no image out (the planes are
# read and restored through staging copies, TRACESMITH_VK_SNAPSHOT_STAGING
# unset: the memory is device-local); the window's replay has every
# checkpoint equal, and its checkpoints are among the full capture's; under
# the Khronos validation layer (where GPU_VK_VALIDATION names a folder with
# it) the window replays with no VUID- or Validation Error message.  A
# variant the driver does not support (vk_trim_planar exits 3) is reported
# and skipped, except the 2-plane one, which fails: every driver this runs
# on supports it.  Uses the NVIDIA ICD; lavapipe's must not answer.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
# Only the NVIDIA ICD is offered to the loader, so lavapipe cannot answer.
gpu_vk_nvidia_only
P=$BUILD/tests/programs
[ -x "$P/vk_trim_planar" ] || fail "no $P/vk_trim_planar (make, or scripts/gpu_pack.sh)"

# planar NAME must|may OPTIONS...: one variant of vk_trim_planar; may: a
# driver without the format skips it.
planar() {
	n=$1
	need=$2
	shift 2
	rc=0
	"$P/vk_trim_planar" "$@" >"$T/$n.plain.out" 2>"$T/$n.plain.err" || rc=$?
	if [ "$rc" = 3 ] && [ "$need" = may ]; then
		echo "$n: skipped, the driver does not support it: $(cat "$T/$n.plain.err")"
		return 0
	fi
	[ "$rc" = 0 ] || fail "$n: plain run exited $rc: $(tail -n 3 "$T/$n.plain.err")"
	expect_rc 0 "$n.full" "$BUILD/tscapture" -o "$T/${n}full.sbt" -- "$P/vk_trim_planar" "$@"
	expect_rc 0 "$n.capture" env TRACESMITH_LOG=info "$BUILD/tscapture" --submits 4-7 \
		-o "$T/$n.sbt" -- "$P/vk_trim_planar" "$@"
	S=$T/$n-submits-4-7.sbt
	[ -s "$S" ] || fail "$n: no window trace: $(ls "$T")"
	! grep -q 'VkImage .*left out of the snapshot' "$T/$n.capture.err" ||
		fail "$n: the snapshot left the image out: $(grep -h 'VkImage .*left out' "$T/$n.capture.err" | head -n 2)"
	expect_rc 0 "$n.replay" "$BUILD/tsreplay" "$S"
	grep -q ' 0 differ' "$T/$n.replay.out" "$T/$n.replay.err" ||
		fail "$n: replay: $(cat "$T/$n.replay.out" "$T/$n.replay.err" | tail -n 3)"
	"$BUILD/tsinfo" --dump "$T/${n}full.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' >"$T/$n.full.ck"
	k=0
	for h in $("$BUILD/tsinfo" --dump "$S" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p'); do
		grep -qx "$h" "$T/$n.full.ck" || fail "$n: the window's checkpoint $h is none of the full capture's"
		k=$((k + 1))
	done
	[ "$k" -gt 0 ] || fail "$n: the window trace has no checkpoint"
	if [ -n "${GPU_VK_VALIDATION:-}" ]; then
		VK_ADD_LAYER_PATH=$GPU_VK_VALIDATION VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
			expect_rc 0 "$n.vreplay" "$BUILD/tsreplay" "$S"
		! grep -q 'VUID-\|Validation Error' "$T/$n.vreplay.out" "$T/$n.vreplay.err" ||
			fail "$n: validation: $(grep -h 'VUID-\|Validation Error' "$T/$n.vreplay.out" "$T/$n.vreplay.err" | head -n 3)"
	fi
	echo "$n: $(grep -h 'checkpoints:' "$T/$n.replay.out" "$T/$n.replay.err" | tail -n 1);" \
		"$k window checkpoints among the full capture's${GPU_VK_VALIDATION:+, clean under validation};" \
		"snapshot: $(grep -h -i 'snapshot' "$T/$n.capture.err" | head -n 2 | tr '\n' ' ')"
}
gpu_part planar_2plane planar planar_2plane must
gpu_part planar_3plane planar planar_3plane may --3plane
gpu_part planar_disjoint planar planar_disjoint may --disjoint
gpu_done
