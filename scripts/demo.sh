#!/bin/sh
# The main job (run by `make run`): capture a bundled Vulkan program
# (tests/programs/vk_offscreen: a render pass, a draw, the image read back
# through mapped memory) on lavapipe with VK_LAYER_tracesmith, show what is
# in its trace, replay it and check that every checkpoint (the pixels the
# program read) matches the capture, then replay it three times and check
# the runs agree.
# usage: scripts/demo.sh [BUILD]   (default: build).  Exits non-zero if any
# step fails.
set -eu
BUILD=${1:-build}
APP="$BUILD/tests/programs/vk_offscreen"
TRACE="$BUILD/demo.sbt"

for f in "$APP" "$BUILD/tscapture" "$BUILD/tsinfo" "$BUILD/tsreplay" \
	"$BUILD/layers/libVkLayer_tracesmith.so"; do
	[ -e "$f" ] || { echo "demo: $f is missing; run make first" >&2; exit 1; }
done

echo "== 1. capture: tscapture -o $TRACE -- $APP --frames 3"
rm -f "$TRACE"
"$BUILD/tscapture" -o "$TRACE" -- "$APP" --frames 3 --out "$BUILD/demo-capture.ppm"
[ -s "$TRACE" ] || { echo "demo: the capture wrote no trace at $TRACE" >&2; exit 1; }

echo
echo "== 2. what is in the trace: tsinfo $TRACE"
"$BUILD/tsinfo" "$TRACE"

echo
echo "== 3. replay on lavapipe: every checkpoint must match the capture"
"$BUILD/tsreplay" "$TRACE"

echo
echo "== 4. determinism: three runs from clean state must agree"
"$BUILD/tsreplay" --check-determinism --runs 3 "$TRACE"

echo
echo "demo: ok (the replay re-rendered the frames the program read back, and they match the capture)"
