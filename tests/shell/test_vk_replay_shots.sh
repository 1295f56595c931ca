#!/bin/sh
# Replay conveniences (issue 13), as a user runs them: vkcube --c 5 captured
# by tscapture on a private Xvfb (validation below our layer), replayed
# offscreen over validation:
# - --screenshot 1-3,5 --screenshot-format png writes frame_1..3,5.png and
#   no frame_4; --screenshot-all writes every frame (PPM, the default), and
#   each PNG has the same pixels as the PPM of its frame;
# - a --screenshot frame beyond the trace's frames is warned about, naming
#   the trace's frames; a trimmed trace (--frames 3-4) keeps the run's
#   numbers: --screenshot 3-4 writes frame_3 and frame_4, frame 1 is beyond;
# - the end of the replay says the replay time, frames and frames per
#   second; a trace without checkpoints says none were compared;
# - a GFXReconstruct capture of vkcube given to tsinfo and tsreplay is named.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
vk_env_init
vk_env_tsan_skip vkcube
P="$VK_ENV_BUILD/tests/programs"
[ -x "$P/vk_imgcmp" ] || fail "$P/vk_imgcmp is not built"
vk_env_xvfb_start
# tscapture loads our layer itself (implicit); validation goes below it.
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
vk_env_run "$T/cap.log" "$VK_ENV_BUILD/tscapture" -o "$T/cube.sbt" -- vkcube --c 5 ||
	fail "tscapture of vkcube"
vk_env_run "$T/trim.log" "$VK_ENV_BUILD/tscapture" --frames 3-4 -o "$T/trim.sbt" -- vkcube --c 5 ||
	fail "tscapture --frames 3-4 of vkcube"
[ -s "$T/trim-frames-3-4.sbt" ] || fail "no trimmed trace (in $T: $(ls "$T"))"

# replay NAME DIR ARGS...: tsreplay --offscreen ARGS in DIR (made), over
# validation, its stdout and stderr in $T/NAME.log.
replay() {
	r_name=$1 r_dir=$2
	shift 2
	mkdir -p "$r_dir"
	(
		cd "$r_dir"
		unset DISPLAY
		vk_env_run "$T/$r_name.log" "$VK_ENV_BUILD/tsreplay" --offscreen "$@"
	) || fail "$r_name: tsreplay $*"
}

# ---- ranges, PNG ------------------------------------------------------------------
replay png "$T/png" --screenshot 1-3,5 --screenshot-format png "$T/cube.sbt"
for n in 1 2 3 5; do
	[ -s "$T/png/frame_$n.png" ] || fail "png: no frame_$n.png (in $T/png: $(ls "$T/png"))"
done
[ "$(ls "$T/png")" = "$(printf 'frame_1.png\nframe_2.png\nframe_3.png\nframe_5.png')" ] ||
	fail "png: files other than frames 1-3 and 5: $(ls "$T/png")"
grep -q "^tsreplay: vulkan: [0-9]* calls, 5 frames presented, 4 screenshots" "$T/png.log" ||
	fail "png: summary: $(cat "$T/png.log")"
grep -q "warning" "$T/png.log" && fail "png: a warning: $(grep warning "$T/png.log")"

# ---- every frame, PPM; the PNGs hold the same pixels -------------------------------
replay all "$T/all" --screenshot-all "$T/cube.sbt"
[ "$(ls "$T/all")" = "$(printf 'frame_1.ppm\nframe_2.ppm\nframe_3.ppm\nframe_4.ppm\nframe_5.ppm')" ] ||
	fail "--screenshot-all: $(ls "$T/all")"
for n in 1 2 3 5; do
	out=$("$P/vk_imgcmp" "$T/png/frame_$n.png" "$T/all/frame_$n.ppm") ||
		fail "frame $n: PNG and PPM differ: $out"
	case $out in "same "*) ;; *) fail "frame $n: vk_imgcmp said '$out'" ;; esac
done
"$P/vk_imgcmp" "$T/all/frame_1.ppm" "$T/all/frame_5.ppm" >/dev/null &&
	fail "frames 1 and 5 are the same image: comparing them proves little"

# ---- frames per second, checkpoints -------------------------------------------------
grep -Eq "^tsreplay: replay time [0-9]+\.[0-9]{3} s, 5 frames, [0-9]+\.[0-9] frames per second$" "$T/all.log" ||
	fail "no frames-per-second line: $(cat "$T/all.log")"
# vkcube only presents: its trace holds no checkpoint.
grep -q "^tsreplay: checkpoints: 0 compared, 0 matched, 0 differ$" "$T/all.log" ||
	fail "vkcube's trace compared checkpoints: $(cat "$T/all.log")"
grep -q "^tsreplay: no checkpoints to compare: the trace holds none (a program that only presents makes none: capture it with TRACESMITH_FRAME_HASH=1 to compare its presented images); exit 0 says only that the replay ran$" \
	"$T/all.log" || fail "0 checkpoints compared, not said plainly: $(cat "$T/all.log")"

# ---- beyond the trace; a trimmed trace's frames keep the run's numbers -------------
replay beyond "$T/beyond" --screenshot 2,9 "$T/cube.sbt"
grep -q "^tsreplay: warning: --screenshot frame 9 is beyond the trace's frames 1-5; not written$" \
	"$T/beyond.log" || fail "beyond: no warning for frame 9: $(cat "$T/beyond.log")"
[ "$(ls "$T/beyond")" = frame_2.ppm ] || fail "beyond: files: $(ls "$T/beyond")"
replay trim "$T/trim" --screenshot 1,3-4 "$T/trim-frames-3-4.sbt"
[ "$(ls "$T/trim")" = "$(printf 'frame_3.ppm\nframe_4.ppm')" ] || fail "trim: files: $(ls "$T/trim")"
grep -q "^tsreplay: warning: --screenshot frame 1 is beyond the trace's frames 3-4; not written$" \
	"$T/trim.log" || fail "trim: no warning for frame 1: $(cat "$T/trim.log")"
grep -Eq "^tsreplay: replay time [0-9]+\.[0-9]{3} s, 2 frames, " "$T/trim.log" ||
	fail "trim: frames per second line: $(cat "$T/trim.log")"
# The trimmed replay's frame 3 is the whole replay's frame 3.
out=$("$P/vk_imgcmp" "$T/trim/frame_3.ppm" "$T/all/frame_3.ppm") ||
	fail "trimmed frame 3 differs from the whole run's: $out"

# ---- a GFXReconstruct capture is named --------------------------------------------
if command -v gfxrecon-replay >/dev/null 2>&1; then
	VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE=$T/cube.gfxr \
		GFXRECON_CAPTURE_FILE_TIMESTAMP=false vk_env_run "$T/gfxr.log" vkcube --c 2 ||
		fail "vkcube under GFXReconstruct"
	for tool in tsinfo tsreplay; do
		expect_rc 1 "gfxr.$tool" "$VK_ENV_BUILD/$tool" "$T/cube.gfxr"
		[ "$(cat "$T/gfxr.$tool.err")" = "$tool: $T/cube.gfxr: a GFXReconstruct capture, not an SBT trace: replay it with gfxrecon-replay" ] ||
			fail "$tool on a GFXReconstruct capture: $(cat "$T/gfxr.$tool.err")"
	done
else
	fail "gfxrecon-replay is not installed (gfxreconstruct)"
fi
echo ok
