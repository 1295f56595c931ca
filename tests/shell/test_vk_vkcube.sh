#!/bin/sh
# The real-application test (issue 3): vkcube from vulkan-tools, which
# nobody here wrote, captured with VK_LAYER_tracesmith over the Khronos
# validation layer under a private Xvfb, replayed offscreen by tsreplay with
# screenshots of frames 1, 100 and 300, and compared (RGB, alpha ignored)
# with what GFXReconstruct's replay of its own capture of the same run shows
# for those frames.  The trace must hold no presented image: no frame's
# pixels appear in it, and its blobs are far smaller than 300 frames.

set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
P="$BUILD/tests/programs"
FRAMES="1 100 300"
T=$(mktemp -d)
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
vk_env_tsan_skip vkcube
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
command -v gfxrecon-replay >/dev/null 2>&1 || fail "gfxrecon-replay is not installed (gfxreconstruct)"
for t in vk_imgcmp vk_tracetool; do
	[ -x "$P/$t" ] || fail "$P/$t is not built"
done
[ -x "$BUILD/tsreplay" ] || fail "$BUILD/tsreplay is not built"
vk_env_xvfb_start

# ---- capture with our layer (validation below it) ---------------------------
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/cube.sbt vk_env_run "$T/capture.log" vkcube --c 300 ||
	fail "vkcube under VK_LAYER_tracesmith"
[ -s "$T/cube.sbt" ] || fail "the layer wrote no trace (is VK_LAYER_tracesmith found? $VK_ADD_LAYER_PATH)"
"$BUILD/tsinfo" "$T/cube.sbt" >"$T/cube.info" || fail "tsinfo on the vkcube trace"
grep -Eq '^frames +300 \(1-300\)$' "$T/cube.info" || fail "trace frames: $(grep '^frames' "$T/cube.info")"

# ---- GFXReconstruct: capture the same program, replay with screenshots ------
vk_env_layers_none
VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE=$T/cube.gfxr \
	GFXRECON_CAPTURE_FILE_TIMESTAMP=false vk_env_run "$T/gfxr_capture.log" vkcube --c 300 ||
	fail "vkcube under GFXReconstruct"
mkdir "$T/gfxr"
vk_env_run "$T/gfxr_replay.log" gfxrecon-replay --screenshots 1,100,300 \
	--screenshot-format bmp --screenshot-dir "$T/gfxr" "$T/cube.gfxr" || fail "gfxrecon-replay"
for n in $FRAMES; do
	[ -s "$T/gfxr/screenshot_frame_$n.bmp" ] || fail "GFXReconstruct wrote no screenshot of frame $n"
done
# The frames must differ from each other (the cube turns), or comparing
# them would prove little.
"$P/vk_imgcmp" "$T/gfxr/screenshot_frame_1.bmp" "$T/gfxr/screenshot_frame_100.bmp" >/dev/null &&
	fail "GFXReconstruct's frames 1 and 100 are the same image"

# ---- our replay, offscreen, over validation ----------------------------------
mkdir "$T/ours"
(
	cd "$T/ours"
	unset DISPLAY
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/replay.log" \
		"$VK_ENV_BUILD/tsreplay" --offscreen --screenshot 1,100,300 "$T/cube.sbt"
) || fail "tsreplay --offscreen of the vkcube trace"

# Our screenshot of frame N: the one PPM in $T/ours whose name ends in N
# after a non-digit (frame_1.ppm, cube-100.ppm, ...).
frame_file() {
	for f in "$T/ours"/*.ppm; do
		[ -f "$f" ] || continue
		case ${f##*/} in
		*[!0-9]"$1".ppm | "$1".ppm) echo "$f" && return 0 ;;
		esac
	done
	return 1
}
for n in $FRAMES; do
	f=$(frame_file "$n") || fail "tsreplay wrote no PPM screenshot of frame $n (in $T/ours: $(ls "$T/ours"))"
	out=$("$P/vk_imgcmp" "$f" "$T/gfxr/screenshot_frame_$n.bmp") ||
		fail "frame $n: ours vs GFXReconstruct: $out"
done

# ---- the trace holds no presented image --------------------------------------
"$P/vk_tracetool" blobs "$T/cube.sbt" >"$T/blobs" || fail "vk_tracetool blobs"
set -- $(cat "$T/blobs") # blobs N of M bytes B largest L
bytes=$6
frame_bytes=$(wc -c <"$T/gfxr/screenshot_frame_1.bmp" | tr -d ' ')
# 300 frames of pixels would be 300 * frame_bytes; allow a twentieth of that
# (textures, vertex and uniform data are in the trace, frames must not be).
[ "$bytes" -lt $((300 * frame_bytes / 20)) ] ||
	fail "trace blobs hold $bytes bytes, not far below 300 frames ($((300 * frame_bytes)) bytes)"
for n in $FRAMES; do
	"$P/vk_imgcmp" --raw "$T/gfxr/screenshot_frame_$n.bmp" "$T/frame$n.bgra" || fail "--raw $n"
	"$P/vk_tracetool" find "$T/cube.sbt" "$T/frame$n.bgra" --window 64 >"$T/find$n" ||
		fail "vk_tracetool find frame $n"
	grep -q ' hits 0$' "$T/find$n" || fail "frame $n's pixels are in the trace: $(head -3 "$T/find$n")"
done
echo ok
