#!/bin/sh
# RenderDoc beside TraceSmith (Debian's RenderDoc 1.24: its library, its
# implicit Vulkan layer and its Python module, driven by
# tests/support/renderdoc_tool.py as RenderDoc's UI drives a program: the
# library preloaded, a target control connection, one frame's capture
# asked for).  Users run both: a frame captured in RenderDoc while our
# layer records the run, RenderDoc's replay of a capture recorded by us,
# and our replay inspected in RenderDoc.  On a private Xvfb, lavapipe, the
# validation layer below, its messages printed even where the program has
# a debug messenger of its own (RenderDoc's replay has one; vk_env.sh).
#
# RenderDoc 1.24 draws validation messages of its own, without our layer as
# with it: VUID-VkMappedMemoryRange-size-01390 (its capture reads an
# image back through vkInvalidateMappedMemoryRanges of a size that is not
# a multiple of nonCoherentAtomSize), filtered here, and
# UNASSIGNED-API-Version-Violation and, in its replay,
# UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout (not VUID- lines).
# Part 1 runs RenderDoc alone to show that the filter is all it needs.
#
#  1. RenderDoc alone captures a frame of `vkcube --c 2000`: no VUID- line.
#  2. Ours and RenderDoc's layers both (ours in VK_INSTANCE_LAYERS, so
#     RenderDoc's implicit layer above ours: its capture-time readbacks go
#     through ours): RenderDoc's frame N, replayed by RenderDoc, is pixel
#     for pixel our trace's frame N+1 (RenderDoc counts frames from 0), and
#     our trace replays under validation with all 2000 frame hashes (and
#     the checkpoints of RenderDoc's readbacks) matched.
#  3. RenderDoc's replay of that capture, captured by ours: it reads back
#     the same bytes as without ours, and our trace of it replays with
#     every checkpoint matched.
#  4. RenderDoc captures a frame of tsreplay replaying our trace: that
#     frame, replayed by RenderDoc, is pixel for pixel our frame.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
[ -f /usr/share/vulkan/implicit_layer.d/renderdoc_capture.json ] ||
	fail "RenderDoc's Vulkan layer is not installed (scripts/deps.sh: librenderdoc)"
/usr/bin/python3 -c 'import renderdoc' 2>/dev/null ||
	fail "RenderDoc's Python module is not installed (scripts/deps.sh: python3-renderdoc)"
vk_env_init
vk_env_tsan_skip vkcube
vk_env_xvfb_start
VK_LAYER_MESSAGE_ID_FILTER=VUID-VkMappedMemoryRange-size-01390
export VK_LAYER_MESSAGE_ID_FILTER
RDT="/usr/bin/python3 $TOP/tests/support/renderdoc_tool.py"
unset ENABLE_VULKAN_RENDERDOC_CAPTURE RENDERDOC_CAPFILE

# rd_capture NAME PROGRAM...: RenderDoc captures one frame of PROGRAM (asked
# for half a second after it connects) into $T/NAME_frame<N>.rdc; sets
# RDC (the file) and RDF (N); log $T/NAME.log, checked as vk_env_run does
rd_capture() {
	rc_name=$1
	shift
	# shellcheck disable=SC2086
	vk_env_run "$T/$rc_name.log" $RDT capture --after 0.5 --stem "$T/$rc_name" -- "$@" ||
		fail "$rc_name: RenderDoc's capture: $(tail -3 "$T/$rc_name.log")"
	RDC=$(sed -n 's/^renderdoc: captured \(.*\) frame [0-9]*$/\1/p' "$T/$rc_name.log")
	RDF=$(sed -n 's/^renderdoc: captured .* frame \([0-9]*\)$/\1/p' "$T/$rc_name.log")
	[ -f "$RDC" ] || fail "$rc_name: RenderDoc made no capture: $(tail -3 "$T/$rc_name.log")"
}

# rd_replay NAME RDC: RenderDoc replays RDC; the last draw's output in
# $T/NAME.raw, log $T/NAME.log
rd_replay() {
	# shellcheck disable=SC2086
	vk_env_run "$T/$1.log" $RDT replay "$2" "$T/$1.raw" ||
		fail "$1: RenderDoc's replay of $2: $(tail -3 "$T/$1.log")"
	grep -q '^renderdoc: replayed .* 500 x 500 B8G8R8A8_UNORM, 1000000 bytes$' "$T/$1.log" ||
		fail "$1: RenderDoc's replay: $(grep '^renderdoc' "$T/$1.log")"
}

# same_frame RAW PPM: RenderDoc's B8G8R8A8 texels are the screenshot's pixels
same_frame() {
	/usr/bin/python3 - "$1" "$2" <<'EOF' || fail "RenderDoc's $1 is not tsreplay's $2"
import sys
raw = open(sys.argv[1], "rb").read()
ppm = open(sys.argv[2], "rb").read().split(b"\n", 3)
assert ppm[0] == b"P6" and ppm[1] == b"500 500", ppm[:2]
rgb = bytearray(len(raw) // 4 * 3)
rgb[0::3], rgb[1::3], rgb[2::3] = raw[2::4], raw[1::4], raw[0::4]
sys.exit(0 if bytes(rgb) == ppm[3] else 1)
EOF
}

# all_matched LOG: tsreplay's LOG compared 2000 frame hashes (vkcube's) and
# matched every checkpoint (those and, beside RenderDoc, its readbacks')
all_matched() {
	grep -q ', 2000 frame hashes compared' "$1" &&
		grep -q 'checkpoints: \([0-9]*\) compared, \1 matched, 0 differ' "$1" || {
		grep 'frame hashes\|checkpoints:' "$1" >&2
		return 1
	}
}

# screenshot TRACE N: tsreplay's frame N of TRACE, offscreen, into $T/shots
screenshot() {
	rm -rf "$T/shots"
	mkdir "$T/shots"
	vk_env_layers_none
	vk_env_run "$T/shot.log" "$BUILD/tsreplay" --offscreen --screenshot "$2" --screenshot-dir "$T/shots" "$1" ||
		fail "tsreplay --screenshot $2 of $1"
	[ -f "$T/shots/frame_$2.ppm" ] || fail "tsreplay wrote no frame_$2.ppm: $(tail -3 "$T/shot.log")"
}

# ---- 1. RenderDoc alone -------------------------------------------------------
vk_env_layers_validation
rd_capture alone vkcube --c 2000
echo "ok: RenderDoc alone captured vkcube's frame $RDF, no VUID- line"

# ---- 2. both layers -----------------------------------------------------------
vk_env_layers_ours
TRACESMITH_FRAME_HASH=1 TRACESMITH_OUTPUT="$T/cube.sbt" rd_capture both vkcube --c 2000
CUBE_RDC=$RDC
vk_env_layers_none
vk_env_run "$T/cube_replay.log" "$BUILD/tsreplay" --validate "$T/cube.sbt" ||
	fail "tsreplay --validate of vkcube captured beside RenderDoc"
all_matched "$T/cube_replay.log" || fail "vkcube captured beside RenderDoc, replayed"
rd_replay both_rd "$CUBE_RDC"
screenshot "$T/cube.sbt" $((RDF + 1))
same_frame "$T/both_rd.raw" "$T/shots/frame_$((RDF + 1)).ppm"
echo "ok: beside RenderDoc: our 2000 frame hashes matched; RenderDoc's frame $RDF is our frame $((RDF + 1))"

# ---- 3. RenderDoc's replay, captured by ours ------------------------------------
vk_env_layers_ours
TRACESMITH_OUTPUT="$T/rdreplay.sbt" rd_replay rdreplay "$CUBE_RDC"
cmp -s "$T/both_rd.raw" "$T/rdreplay.raw" ||
	fail "RenderDoc's replay read back other bytes under our layer"
vk_env_layers_none
"$BUILD/tsinfo" --dump "$T/rdreplay.sbt" >"$T/rdreplay.dump" || fail "tsinfo cannot read RenderDoc's replay's trace"
m=$(grep -c ' checkpoint ' "$T/rdreplay.dump" || :)
[ "$m" -ge 2 ] || fail "RenderDoc's replay's trace has $m checkpoints: its readbacks are not in it"
vk_env_run "$T/rdreplay_replay.log" "$BUILD/tsreplay" --validate "$T/rdreplay.sbt" ||
	fail "tsreplay --validate of RenderDoc's replay"
grep -q "checkpoints: $m compared, $m matched, 0 differ" "$T/rdreplay_replay.log" ||
	fail "RenderDoc's replay, replayed: $(grep 'checkpoints:' "$T/rdreplay_replay.log") ($m in the trace)"
echo "ok: RenderDoc's replay under our layer: same bytes, $m checkpoints matched"

# ---- 4. RenderDoc captures tsreplay ------------------------------------------------
vk_env_layers_validation
rd_capture tsreplay "$BUILD/tsreplay" "$T/cube.sbt"
all_matched "$T/tsreplay.log" || fail "tsreplay under RenderDoc"
TSR_RDF=$RDF
rd_replay tsreplay_rd "$RDC"
screenshot "$T/cube.sbt" $((TSR_RDF + 1))
same_frame "$T/tsreplay_rd.raw" "$T/shots/frame_$((TSR_RDF + 1)).ppm"
echo "ok: RenderDoc captured tsreplay's frame $TSR_RDF: our frame $((TSR_RDF + 1)), pixel for pixel"
