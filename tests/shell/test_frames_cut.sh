#!/bin/sh
# tsinfo and tsreplay count the frames of a Vulkan trace the same way,
# also for a trace cut between a present and its FRAME record (a Ctrl-C
# inside vkQueuePresentKHR: the layer records a present before passing it
# down and writes the FRAME record after it returns).  The rule
# (docs/tsinfo.md "Frames"): a frame counts once its present is in the
# trace.  vkcube --c 5 is captured on a private Xvfb under the validation
# layer; sbt_cut copies its trace up to the last FRAME record; for both
# traces tsinfo's frame count equals the frames the Vulkan backend presents
# and the frames tsreplay reports, with the same numbers.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
vk_env_init
vk_env_tsan_skip vkcube
vk_env_layers_ours
vk_env_xvfb_start
TRACESMITH_OUTPUT="$T/cube.sbt" vk_env_run "$T/vkcube.log" vkcube --c 5 || fail "vkcube under the layer"
vk_env_layers_none

"$BUILD/tsinfo" --dump "$T/cube.sbt" >"$T/dump" || fail "tsinfo --dump"
last_frame_seq=$(sed -n 's/^seq=\([0-9]*\) .* [Ff][Rr][Aa][Mm][Ee] frame=5$/\1/p' "$T/dump")
[ -n "$last_frame_seq" ] || fail "no FRAME record of frame 5: $(grep FRAME "$T/dump")"
# everything before the FRAME record: the present (and its result) stay
"$BUILD/tests/programs/sbt_cut" "$T/cube.sbt" "$T/cut.sbt" "$last_frame_seq" >/dev/null ||
	fail "sbt_cut"

# frames NAME TRACE N CUT: tsinfo and tsreplay both say N frames, 1-N, CUT
# of them without their FRAME record.
frames() {
	f_name=$1 f_trace=$2 f_n=$3 f_cut=$4
	expect_rc 0 "$f_name.info" "$BUILD/tsinfo" --json "$f_trace"
	[ "$(json_field "$T/$f_name.info.out" frames)" = "$f_n" ] ||
		fail "$f_name: tsinfo: $(cat "$T/$f_name.info.out")"
	has "$f_name.info" out "\"first_frame\":1,\"last_frame\":$f_n,\"frames_cut\":$f_cut,"
	(
		cd "$T"
		unset DISPLAY
		VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/$f_name.replay" \
			"$VK_ENV_BUILD/tsreplay" --offscreen --screenshot "$f_n" "$f_trace"
	) || fail "$f_name: tsreplay"
	grep -q "^tsreplay: vulkan: [0-9]* calls, $f_n frames presented, 1 screenshots" "$T/$f_name.replay" ||
		fail "$f_name: the backend did not present $f_n frames: $(cat "$T/$f_name.replay")"
	grep -q "^tsreplay: frames 1-$f_n replayed ($f_n, numbered as in the captured run)" "$T/$f_name.replay" ||
		fail "$f_name: tsreplay's frames: $(cat "$T/$f_name.replay")"
	[ -s "$T/frame_$f_n.ppm" ] || fail "$f_name: no screenshot of frame $f_n"
	rm -f "$T/frame_$f_n.ppm"
}
frames whole "$T/cube.sbt" 5 0
frames cut "$T/cut.sbt" 5 1
grep -q "^tsreplay: frames 1-5 replayed (5, numbered as in the captured run); the trace ends after the present of frame 5, before its FRAME record$" "$T/cut.replay" ||
	fail "cut: tsreplay does not say the FRAME record is missing: $(cat "$T/cut.replay")"
"$BUILD/tsinfo" "$T/cut.sbt" >"$T/cut.txt" || fail "tsinfo cut"
grep -q '^frames       5 (1-5; the trace ends after the present of frame 5, before its FRAME record)$' \
	"$T/cut.txt" || fail "cut: tsinfo's frames line: $(grep '^frames' "$T/cut.txt")"
grep -Eiq '^    frame +4$' "$T/cut.txt" || fail "cut: want 4 FRAME records: $(grep FRAME "$T/cut.txt")"
echo ok
