#!/bin/sh
# A Vulkan program killed (SIGKILL) inside a capture window, through the
# real layer (issue 9: "a program killed in the middle of a window leaves a
# readable trace to the last flush"; the stand-in front-end's case is
# test_capture_windows.sh case 10, the CUDA interposer's
# test_capture_kill_cuda.sh).  On a private Xvfb, under the validation
# layer: tscapture --frames 5-100000 of vk_xwindow (TRACESMITH_FLUSH_MS=100,
# TRACESMITH_FRAME_HASH=1: a checkpoint of each presented image), the
# program killed from outside once the window's file passed 100,000 bytes,
# while it presents; no exit handler runs, so the file has no index.
#
#  - tscapture exits 137 saying the program was killed by signal 9 and that
#    the file was not closed cleanly; it is the only file.
#  - tsinfo reads it (exit 0, index rebuilt by scanning; a torn tail, if
#    the kill cut a flush, dropped): the window record (frames 5-100000,
#    first frame 5), the snapshot, and frames 5-L, L the last frame whose
#    present the file holds (when the cut falls after a present and before
#    its FRAME record, tsinfo says so and counts that frame).
#  - tsreplay (offscreen, under validation) replays it to its end: frames
#    5-L presented, every frame hash it holds matched (one per frame, the
#    last perhaps cut off); frames 5, 6 and L are
#    pixel-equal to those of a whole-run capture of vk_xwindow --frames L.
#  - The file with its last 100 bytes cut off (a flush torn by the kill):
#    tsinfo drops the torn tail with a warning, exits 0 and counts fewer
#    frames; tsreplay replays what comes before, every frame hash matched,
#    and exits 1 saying the trace is truncated (docs/replay.md: a
#    truncated trace is an error).
# No VUID- message anywhere.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
CAP=
trap 'vk_env_xvfb_stop; [ -z "$CAP" ] || kill -9 "$CAP" 2>/dev/null || :; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
unset TRACESMITH_FLUSH_MS TRACESMITH_FRAME_HASH TRACESMITH_TRIGGER TRACESMITH_LOG
XW=$VK_ENV_BUILD/tests/programs/vk_xwindow
[ -x "$XW" ] || fail "$XW is not built"
for t in tsinfo tscapture tsreplay; do
	[ -x "$VK_ENV_BUILD/$t" ] || fail "$VK_ENV_BUILD/$t is not built"
done
vk_env_xvfb_start
vk_env_layers_validation # tscapture puts ours above it

# ---- the capture, killed inside its window ----------------------------------------
F=$T/xw-frames-5-100000.sbt
TRACESMITH_FLUSH_MS=100 TRACESMITH_FRAME_HASH=1 "$VK_ENV_BUILD/tscapture" -o "$T/xw.sbt" \
	--frames 5-100000 -- "$XW" >"$T/cap.log" 2>&1 &
CAP=$!
i=0
until [ "$(stat -c %s "$F" 2>/dev/null || echo 0)" -gt 100000 ]; do
	i=$((i + 1))
	[ "$i" -le 600 ] || fail "the window's file did not pass 100,000 bytes in 60 s: $(tail -3 "$T/cap.log")"
	sleep 0.1
done
app=$(pgrep -P "$CAP" -x vk_xwindow || true)
[ -n "$app" ] || fail "no vk_xwindow under tscapture (pid $CAP)"
kill -9 "$app"
rc=0
wait "$CAP" || rc=$?
CAP=
[ "$rc" -eq 137 ] || fail "tscapture exit $rc, expected 137: $(cat "$T/cap.log")"
vk_env_clean "$T/cap.log" || fail "the capture: validation messages"
grep -q "^tscapture: '$XW' was killed by signal 9 (Killed)\$" "$T/cap.log" ||
	fail "the capture: $(cat "$T/cap.log")"
grep -q "^tscapture: wrote $F ([0-9]* bytes, [0-9]* records, no index: not closed cleanly)\$" \
	"$T/cap.log" || fail "the capture: $(grep '^tscapture: wrote' "$T/cap.log" || echo 'no wrote line')"
[ "$(ls "$T"/xw*.sbt)" = "$F" ] || fail "files $(ls "$T"/xw*.sbt), not ${F##*/} alone"

# ---- tsinfo reads it --------------------------------------------------------------
"$VK_ENV_BUILD/tsinfo" "$F" >"$T/info" 2>"$T/info.err" || fail "tsinfo exit $?: $(cat "$T/info.err")"
grep -q '^index        rebuilt by scanning$' "$T/info" || fail "$(grep '^index' "$T/info")"
grep -Eq '^torn tail    (none|dropped at offset [0-9]+ \([0-9]+ bytes\))$' "$T/info" ||
	fail "$(grep '^torn tail' "$T/info" || echo 'no torn tail line')"
grep -q "^window       1 of the run, trigger 'frames 5-100000', first frame 5, first submit 5, first launch 1\$" \
	"$T/info" || fail "$(grep '^window' "$T/info" || echo 'no window line')"
grep -Eq '^snapshot     [1-9][0-9]* records \(seq 2\.\.[0-9]+\)$' "$T/info" ||
	fail "$(grep '^snapshot' "$T/info" || echo 'no snapshot line')"
L=$(sed -n 's/^frames  *[0-9]* (5-\([0-9]*\)[;)].*/\1/p' "$T/info")
[ -n "$L" ] && [ "$L" -ge 7 ] || fail "$(grep '^frames' "$T/info" || echo 'no frames line') (want frames 5-L, L > 6)"
n=$((L - 4))
grep -Eq "^frames +$n \(5-$L(\)|; the trace ends after the present of frame $L, before its FRAME record\))\$" \
	"$T/info" || fail "$(grep '^frames' "$T/info")"

# ---- tsreplay replays it; its frames are the whole run's ------------------------
# replay NAME TRACE RC FRAMES [OPTION...]: tsreplay offscreen under
# validation, exit RC, screenshots of FRAMES into $T/NAME.
replay() {
	r_name=$1 r_trace=$2 r_rc=$3 r_frames=$4
	shift 4
	mkdir "$T/$r_name"
	rc=0
	(
		unset DISPLAY
		VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION "$VK_ENV_BUILD/tsreplay" --offscreen "$@" \
			--screenshot "$r_frames" --screenshot-dir "$T/$r_name" "$r_trace"
	) >"$T/$r_name.log" 2>&1 || rc=$?
	[ "$rc" -eq "$r_rc" ] || fail "tsreplay of $r_name: exit $rc, expected $r_rc: $(tail -5 "$T/$r_name.log")"
	vk_env_clean "$T/$r_name.log" || fail "tsreplay of $r_name: validation messages"
}
# frame_hashes TRACE FRAMES: the checkpoints TRACE holds, one per present
# of its FRAMES but perhaps the last (the kill may fall between a present
# and its hash).
frame_hashes() {
	fh=$("$VK_ENV_BUILD/tsinfo" --dump "$1" 2>/dev/null | grep -c ' checkpoint ' || true)
	[ "$fh" -eq "$2" ] || [ "$fh" -eq $(($2 - 1)) ] ||
		fail "${1##*/}: $fh frame hashes for $2 frames"
	echo "$fh"
}
replay killed "$F" 0 "5,6,$L"
grep -q "$n frames presented (frames 5-$L of the capture)" "$T/killed.log" ||
	fail "killed: $(grep 'frames presented' "$T/killed.log")"
grep -q "^tsreplay: note: $F was not closed by its capture (no index: the program was killed or died while recording); it holds the calls up to its last flush, and the replay ends there\$" "$T/killed.log" ||
	fail "killed: the replay does not say the trace was cut short: $(head -5 "$T/killed.log")"
k=$(frame_hashes "$F" "$n")
grep -q "^tsreplay: checkpoints: $k compared, $k matched, 0 differ\$" "$T/killed.log" ||
	fail "killed: $(grep 'checkpoints:' "$T/killed.log") (want $k, all matched)"

mkdir "$T/whole"
vk_env_run "$T/whole.log" "$VK_ENV_BUILD/tscapture" -o "$T/whole/xw.sbt" -- "$XW" --frames "$L" ||
	fail "tscapture of vk_xwindow --frames $L"
replay wshots "$T/whole/xw.sbt" 0 "5,6,$L"
! grep -q "was not closed by its capture" "$T/wshots.log" || fail "a finished capture's replay says it was cut short"
cmp -s "$T/wshots/frame_5.ppm" "$T/wshots/frame_6.ppm" &&
	fail "frames 5 and 6 of the whole run's replay are the same image"
for f in 5 6 "$L"; do
	[ -s "$T/killed/frame_$f.ppm" ] || fail "the killed window's replay wrote no frame $f"
	[ -s "$T/wshots/frame_$f.ppm" ] || fail "the whole run's replay wrote no frame $f"
	cmp -s "$T/killed/frame_$f.ppm" "$T/wshots/frame_$f.ppm" ||
		fail "frame $f: the killed window's replay differs from the whole run's"
done

# ---- a torn tail ----------------------------------------------------------------
size=$(wc -c <"$F" | tr -d ' ')
head -c $((size - 100)) "$F" >"$T/torn.sbt"
"$VK_ENV_BUILD/tsinfo" "$T/torn.sbt" >"$T/torn.info" 2>"$T/torn.err" || fail "tsinfo of the torn copy: exit $?"
grep -Eq '^torn tail    dropped at offset [0-9]+ \([0-9]+ bytes\)$' "$T/torn.info" ||
	fail "torn: $(grep '^torn tail' "$T/torn.info" || echo 'no torn tail line')"
grep -q 'torn.sbt: torn tail at offset [0-9]* ([0-9]* bytes) dropped' "$T/torn.err" ||
	fail "torn: no warning: $(cat "$T/torn.err")"
Lt=$(sed -n 's/^frames  *[0-9]* (5-\([0-9]*\)[;)].*/\1/p' "$T/torn.info")
[ -n "$Lt" ] && [ "$Lt" -le "$L" ] || fail "torn: $(grep '^frames' "$T/torn.info") (the whole file: 5-$L)"
replay torn "$T/torn.sbt" 1 5 --json
grep -q "torn.sbt: the trace is truncated at offset [0-9]*; replayed up to seq [0-9]*, the records after it are lost" \
	"$T/torn.log" || fail "torn: $(tail -3 "$T/torn.log")"
grep -q "$((Lt - 4)) frames presented (frames 5-$Lt of the capture)" "$T/torn.log" ||
	fail "torn: $(grep 'frames presented' "$T/torn.log") (want frames 5-$Lt)"
# (an error prints no summary line: the JSON report counts them)
k=$(frame_hashes "$T/torn.sbt" "$((Lt - 4))")
grep -q "\"checkpoints\":$k,\"matched\":$k,\"mismatched\":0,.*\"result\":\"error\",\"exit\":1," "$T/torn.log" ||
	fail "torn: $(grep '"checkpoints"' "$T/torn.log" || echo 'no JSON report') (want $k, all matched)"
echo "test_capture_kill_vulkan: ok"
