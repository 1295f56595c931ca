#!/bin/sh
# TRACESMITH_FRAME_HASH (issue 13): vk_xwindow, which only presents (each
# frame a clear of the acquired image, nothing read back), on a private
# Xvfb, the validation layer below ours everywhere (no VUID- line):
# - off by default: the trace holds no checkpoint, and its replay says that
#   nothing was compared and points at TRACESMITH_FRAME_HASH;
# - TRACESMITH_FRAME_HASH=1: one checkpoint per present, whose call is that
#   vkQueuePresentKHR record and whose object is the swapchain, covering the
#   whole image; the replay (offscreen, and in a window) compares them all,
#   equal, exit 0, and its summary counts the frame hashes; the same for a
#   trimmed capture (frames 3-5) replayed twice with --check-determinism;
# - the same through vk_layer_settings.txt (tracesmith.frame_hash = 1) and
#   through VK_EXT_layer_settings chained to vkCreateInstance;
# - a copy of the trace whose frame 4 hash is altered, and one whose frame
#   4 is cleared to another colour: exit 3, the mismatch at that
#   checkpoint, named as frame 4 and its present;
# - a value that is not 0 or 1: one warning, no hashes.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

VK_ENV_SYNC=1 # the layer's copy is checked for hazards too
vk_env_init
P=$VK_ENV_BUILD/tests/programs
for t in vk_xwindow vk_tracetool; do
	[ -x "$P/$t" ] || fail "$P/$t is not built"
done
vk_env_xvfb_start
FRAMES=6

# capture NAME [ENV=VALUE...] [-- PROGRAM-ARGS]: vk_xwindow under our layer
# (validation below) into $T/NAME.sbt; its checkpoints in $T/NAME.cps.
capture() {
	name=$1
	shift
	envs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	[ $# -eq 0 ] || shift
	vk_env_layers_ours
	# shellcheck disable=SC2086
	TRACESMITH_OUTPUT=$T/$name.sbt vk_env_run "$T/$name.log" env $envs "$P/vk_xwindow" \
		--frames $FRAMES "$@" || fail "$name: vk_xwindow under the layer"
	grep -q "^frames $FRAMES\$" "$T/$name.log" || fail "$name: $(cat "$T/$name.log")"
	"$P/vk_tracetool" checkpoints "$T/$name.sbt" >"$T/$name.cps" || fail "$name: checkpoints"
}

# presents NAME: the seqs of the trace's vkQueuePresentKHR records, one a line.
presents() {
	"$VK_ENV_BUILD/tsinfo" --dump "$T/$1.sbt" | sed -n 's/^seq=\([0-9]*\) .* vulkan\.vkQueuePresentKHR .*/\1/p'
}

# hashed NAME: one checkpoint per present, on that present, of the swapchain,
# all of one length that is a whole image (320x240 at 4 bytes a texel: the
# window vk_xwindow opens, in the surface's first format on Xvfb).
hashed() {
	presents "$1" >"$T/$1.presents"
	[ "$(wc -l <"$T/$1.presents")" -eq $FRAMES ] || fail "$1: $(wc -l <"$T/$1.presents") presents"
	# checkpoint seq S call C object 0xH offset O length N block K
	awk '{print $5}' "$T/$1.cps" >"$T/$1.calls"
	cmp -s "$T/$1.presents" "$T/$1.calls" ||
		fail "$1: the checkpoints' calls ($(tr '\n' ' ' <"$T/$1.calls")) are not the presents ($(tr '\n' ' ' <"$T/$1.presents"))"
	sc=$("$VK_ENV_BUILD/tsinfo" --dump "$T/$1.sbt" |
		sed -n 's/.* vulkan\.vkCreateSwapchainKHR .*pSwapchain=\(0x[0-9a-f]*\).*/\1/p')
	[ -n "$sc" ] || fail "$1: no swapchain created"
	python3 - "$T/$1.cps" "$sc" <<'EOF' || fail "$1: checkpoints not of swapchain $sc's whole image: $(head -n 2 "$T/$1.cps")"
import sys
sc = int(sys.argv[2], 16)
for line in open(sys.argv[1]):
    f = line.split()
    assert int(f[6], 16) == sc and int(f[8]) == 0 and int(f[10]) == 320 * 240 * 4, line
EOF
}

# replay NAME LOG [ARGS...]: tsreplay under the validation layer, exit 0,
# every frame hash compared and equal.
replay() {
	name=$1 log=$2
	shift 2
	vk_env_layers_validation
	vk_env_run "$T/$log" "$VK_ENV_BUILD/tsreplay" "$@" "$T/$name.sbt" ||
		fail "$name: tsreplay $* (exit 3 means a frame differs: see above)"
	grep -q "^tsreplay: checkpoints: $FRAMES compared, $FRAMES matched, 0 differ\$" "$T/$log" ||
		fail "$name: $(grep checkpoints "$T/$log")"
	grep -q "^tsreplay: vulkan: .*, $FRAMES frame hashes compared" "$T/$log" ||
		fail "$name: the summary does not count the frame hashes: $(grep 'tsreplay: vulkan:' "$T/$log")"
	! grep -q "differ, the first at frame" "$T/$log" || fail "$name: a frame differs: $(cat "$T/$log")"
}

# ---- off by default ---------------------------------------------------------------
capture plain
[ ! -s "$T/plain.cps" ] || fail "a capture without TRACESMITH_FRAME_HASH has checkpoints: $(head -n 2 "$T/plain.cps")"
vk_env_layers_validation
vk_env_run "$T/plain.replay" "$VK_ENV_BUILD/tsreplay" --offscreen "$T/plain.sbt" || fail "plain: tsreplay"
grep -q "^tsreplay: no checkpoints to compare: .*capture it with TRACESMITH_FRAME_HASH=1 to compare its presented images" \
	"$T/plain.replay" || fail "plain: the replay does not point at TRACESMITH_FRAME_HASH: $(cat "$T/plain.replay")"
! grep -q "frame hashes compared" "$T/plain.replay" || fail "plain: frame hashes counted"

# ---- on: one hash per present, all equal in the replay -------------------------------
capture fh TRACESMITH_FRAME_HASH=1
hashed fh
# every record of the trace, checkpoints included, is JSON
"$VK_ENV_BUILD/tsinfo" --dump --json "$T/fh.sbt" >"$T/fh.json" || fail "fh: tsinfo --dump --json"
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/fh.json" ||
	fail "fh: tsinfo --dump --json is not JSON"
replay fh fh.offscreen --offscreen
replay fh fh.window
grep -q "shown in a window" "$T/fh.window" || fail "fh: not replayed in a window: $(cat "$T/fh.window")"

# ---- the layer settings file and VK_EXT_layer_settings ---------------------------------
mkdir "$T/settings"
printf 'tracesmith.frame_hash = 1\n' >"$T/settings/vk_layer_settings.txt"
capture file VK_LAYER_SETTINGS_PATH=$T/settings
hashed file
replay file file.replay --offscreen
capture ext -- --frame-hash-setting
hashed ext
replay ext ext.replay --offscreen

# ---- an altered frame hash: exit 3 at frame 4 ----------------------------------------
cp4=$(sed -n 4p "$T/fh.cps" | awk '{print $3}')
call4=$(sed -n 4p "$T/fh.presents")
out=$("$P/vk_tracetool" poke "$T/fh.sbt" "$T/poked.sbt" --checkpoint "$cp4") || fail "poke"
case $out in
"poked checkpoint seq $cp4 call $call4 "*) ;;
*) fail "poke printed '$out'" ;;
esac
vk_env_layers_validation
rc=0
"$VK_ENV_BUILD/tsreplay" --offscreen "$T/poked.sbt" >"$T/poked.out" 2>"$T/poked.err" || rc=$?
vk_env_clean "$T/poked.err" && vk_env_clean "$T/poked.out" || fail "validation messages in the altered replay"
[ "$rc" = 3 ] || fail "altered frame hash: tsreplay exit $rc, expected 3: $(cat "$T/poked.err")"
grep -q "^tsreplay: vulkan: frame 4 (seq $call4 vkQueuePresentKHR): the presented image differs from the capture's (frame hash)" \
	"$T/poked.err" || fail "the mismatch is not named as frame 4: $(cat "$T/poked.err")"
grep -q "^tsreplay: the replay differs from the capture at checkpoint seq $cp4\$" "$T/poked.err" ||
	fail "the mismatch is not at checkpoint seq $cp4: $(cat "$T/poked.err")"
grep -q "^tsreplay: vulkan: .*, $FRAMES frame hashes compared (1 differ, the first at frame 4)" \
	"$T/poked.err" || fail "the summary: $(grep 'tsreplay: vulkan:' "$T/poked.err")"
grep -q "^tsreplay: checkpoints: $FRAMES compared, $((FRAMES - 1)) matched, 1 differ\$" "$T/poked.out" ||
	fail "altered: $(grep checkpoints "$T/poked.out")"

# ---- an altered draw input: frame 4 cleared to another colour, exit 3 there -------------
# vk_xwindow clears frame N to (N%64/63, N%16/15, 0.5, 1.0): in the 4th
# vkCmdClearColorImage record, 0.5's last byte (3f) becomes 3e (0.125).
clear4=$("$VK_ENV_BUILD/tsinfo" --dump "$T/fh.sbt" |
	sed -n 's/^seq=\([0-9]*\) .* vulkan\.vkCmdClearColorImage .*/\1/p' | sed -n 4p)
[ -n "$clear4" ] || fail "no 4th vkCmdClearColorImage in the trace"
out=$("$P/vk_tracetool" poke "$T/fh.sbt" "$T/drawn.sbt" --record "$clear4" --find 3f0000803f) ||
	fail "poke the clear colour"
rc=0
"$VK_ENV_BUILD/tsreplay" --offscreen "$T/drawn.sbt" >"$T/drawn.out" 2>"$T/drawn.err" || rc=$?
vk_env_clean "$T/drawn.err" && vk_env_clean "$T/drawn.out" || fail "validation messages in the redrawn replay"
[ "$rc" = 3 ] || fail "altered clear colour: tsreplay exit $rc, expected 3: $(cat "$T/drawn.err")"
grep -q "^tsreplay: vulkan: frame 4 (seq $call4 vkQueuePresentKHR): the presented image differs from the capture's (frame hash); first difference in row 0\$" \
	"$T/drawn.err" || fail "altered clear colour: not frame 4, row 0: $(cat "$T/drawn.err")"
grep -q "^tsreplay: the replay differs from the capture at checkpoint seq $cp4\$" "$T/drawn.err" ||
	fail "altered clear colour: not at checkpoint seq $cp4: $(cat "$T/drawn.err")"
grep -q "^tsreplay: checkpoints: $FRAMES compared, $((FRAMES - 1)) matched, 1 differ\$" "$T/drawn.out" ||
	fail "altered clear colour: $(grep checkpoints "$T/drawn.out")"

# ---- a trimmed capture (frames 3-5), and runs compared with each other ----------------
mkdir "$T/trim"
vk_env_layers_validation
TRACESMITH_FRAME_HASH=1 vk_env_run "$T/trim.log" "$VK_ENV_BUILD/tscapture" --frames 3-5 \
	-o "$T/trim/xw.sbt" -- "$P/vk_xwindow" --frames 8 || fail "tscapture --frames 3-5 with frame hashes"
"$P/vk_tracetool" checkpoints "$T/trim/xw-frames-3-5.sbt" >"$T/trim.cps" || fail "trim: checkpoints"
[ "$(wc -l <"$T/trim.cps")" -eq 3 ] || fail "trim: $(wc -l <"$T/trim.cps") frame hashes in frames 3-5"
vk_env_run "$T/trim.replay" "$VK_ENV_BUILD/tsreplay" --offscreen --check-determinism --runs 2 \
	"$T/trim/xw-frames-3-5.sbt" || fail "trim: tsreplay --check-determinism"
grep -q "^tsreplay: checkpoints: 3 compared, 3 matched, 0 differ\$" "$T/trim.replay" &&
	grep -q "^tsreplay: vulkan: .* (frames 3-5 of the capture), 0 screenshots, 3 frame hashes compared\$" "$T/trim.replay" &&
	grep -q "^tsreplay: runs agree with each other at every checkpoint\$" "$T/trim.replay" ||
	fail "trim: $(cat "$T/trim.replay")"

# ---- a value that is not 0 or 1 ------------------------------------------------------
capture bad TRACESMITH_FRAME_HASH=yes
n=$(grep -c "TRACESMITH_FRAME_HASH='yes' is not 0 or 1; presented images are not hashed" "$T/bad.log" || true)
[ "$n" -eq 1 ] || fail "bad value: $n warnings, not 1: $(cat "$T/bad.log")"
[ ! -s "$T/bad.cps" ] || fail "bad value: checkpoints were recorded"
echo ok
