#!/bin/sh
# run.sh - WebGPU programs on wgpu (Deno's navigator.gpu) under the layer,
# by hand: not part of `make test`, as Deno and TensorFlow.js come from the
# npm registry (docs/vulkan-layer.md, "WebGPU on wgpu").
#
#   sh tests/programs/webgpu/run.sh DIR
#
# DIR gets `npm install deno@2.9.6 @tensorflow/tfjs-core@4.22.0
# @tensorflow/tfjs-backend-webgpu@4.22.0 @tensorflow/tfjs-layers@4.22.0`
# the first time.  Needs a DISPLAY (Xvfb), lavapipe and the validation
# layer as the tests do, and `make` run.  For each program: the line it
# prints (a hash of what it read back) alone on lavapipe under validation
# and under VK_LAYER_tracesmith must be equal, with no VUID- line; the
# trace must replay under `tsreplay --validate` with every checkpoint
# matched, agree with itself under --check-determinism, and have no race
# by `tsexport --races`.  Prints one line per program; exits 1 on any
# difference.
set -eu
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
DIR=${1:?usage: run.sh DIR}
HERE=$TOP/tests/programs/webgpu
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
if [ ! -x "$DIR/node_modules/@deno/linux-x64-glibc/deno" ]; then
	(cd "$DIR" && npm install --no-audit --no-fund deno@2.9.6 @tensorflow/tfjs-core@4.22.0 \
	    @tensorflow/tfjs-backend-webgpu@4.22.0 @tensorflow/tfjs-layers@4.22.0 >/dev/null)
fi
DENO=$DIR/node_modules/@deno/linux-x64-glibc/deno
export VK_ADD_LAYER_PATH="$BUILD/layers"
export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
export VK_KHRONOS_VALIDATION_DEBUG_ACTION=VK_DBG_LAYER_ACTION_LOG_MSG
bad=0
for p in compute render_compute tfjs_ops tfjs_train; do
	cp "$HERE/$p.js" "$DIR/$p.js" # beside node_modules, for its imports
	out=$DIR/$p
	VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$DENO" run -A "$DIR/$p.js" >"$out.plain" 2>&1 || true
	rm -f "$out.sbt"
	VK_INSTANCE_LAYERS=VK_LAYER_tracesmith:VK_LAYER_KHRONOS_validation TRACESMITH_OUTPUT="$out.sbt" \
	    "$DENO" run -A "$DIR/$p.js" >"$out.ours" 2>&1 || true
	a=$(grep hash "$out.plain" || echo "no hash"); b=$(grep hash "$out.ours" || echo "no hash")
	v=$(cat "$out.plain" "$out.ours" | grep -c "VUID-" || true)
	"$BUILD/tsreplay" --validate "$out.sbt" >"$out.replay" 2>&1 || true
	"$BUILD/tsreplay" --check-determinism "$out.sbt" >"$out.det" 2>&1 || true
	"$BUILD/tsexport" --races "$out.sbt" >"$out.races" 2>&1 || true
	cps=$(grep "checkpoints:" "$out.replay" || echo "no checkpoints")
	det=$(grep -c "runs agree" "$out.det" || true)
	races=$(tail -n 1 "$out.races")
	echo "$p: $b; $cps; determinism ${det:-0}; $races; VUID- lines $v"
	if [ "$a" != "$b" ] || [ "$v" != 0 ] || ! echo "$cps" | grep -q " 0 differ" || [ "${det:-0}" != 1 ] ||
	   [ "$races" != "races: 0 confirmed, 0 possible" ]; then
		echo "$p: differs (alone: $a)"
		bad=1
	fi
done
exit $bad
