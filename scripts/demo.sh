#!/bin/sh
# The main job until the Vulkan layer lands (run by `make run`): capture
# testapi_demo (a compute program on the testapi test double), show what is
# in its trace, replay it and check that every checkpoint matches the
# capture, then replay it three times and check the runs agree.
# usage: scripts/demo.sh [BUILD]   (default: build).  Exits non-zero if any
# step fails.
set -eu
BUILD=${1:-build}
DEMO="$BUILD/tests/programs/testapi_demo"
REPLAY="$BUILD/tests/programs/tsreplay_test"
TRACE="$BUILD/demo.sbt"

for f in "$DEMO" "$REPLAY"; do
	[ -x "$f" ] || { echo "demo: $f is missing; run make first" >&2; exit 1; }
done

echo "== 1. capture: $DEMO"
rm -f "$TRACE"
if [ -x "$BUILD/tscapture" ]; then
	"$BUILD/tscapture" -o "$TRACE" -- "$DEMO"
else
	echo "demo: $BUILD/tscapture is not built yet; capturing through TRACESMITH_OUTPUT instead"
	TRACESMITH_OUTPUT="$TRACE" "$DEMO"
fi
[ -s "$TRACE" ] || { echo "demo: the capture wrote no trace at $TRACE" >&2; exit 1; }

echo
echo "== 2. what is in the trace: $TRACE"
if [ -x "$BUILD/tsinfo" ]; then
	"$BUILD/tsinfo" "$TRACE"
else
	echo "demo: $BUILD/tsinfo is not built yet; skipping the trace summary"
fi

echo
echo "== 3. replay (testapi backend): every checkpoint must match the capture"
"$REPLAY" "$TRACE"

echo
echo "== 4. determinism: three runs from clean state must agree"
"$REPLAY" --check-determinism --runs 3 "$TRACE"

echo
echo "demo: ok (the replay recomputed what the program read, and it matches the capture)"
