#!/bin/sh
# A real application under the layer: vkcube --c 30 on a private Xvfb with
# VK_LAYER_tracesmith over the validation layer.  It exits 0 with no VUID-
# line; the trace has exactly 30 frames (one per vkQueuePresentKHR), every
# present recorded, and no presented image in it: blobs hold the texture
# and uniform updates, far less than one 500x500 RGBA frame.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
command -v vkcube >/dev/null 2>&1 || fail "vkcube is not installed (vulkan-tools)"
vk_env_init
vk_env_tsan_skip vkcube
vk_env_layers_ours
vk_env_xvfb_start
export TRACESMITH_OUTPUT="$T/cube.sbt"
vk_env_run "$T/vkcube.log" vkcube --c 30 || fail "vkcube under the layer"
"$BUILD/tsinfo" --json "$T/cube.sbt" >"$T/info.json" || fail "tsinfo cannot read the trace"
frames=$(json_field "$T/info.json" frames)
[ "$frames" = 30 ] || fail "trace has $frames frames, expected 30"
"$BUILD/tsinfo" "$T/cube.sbt" >"$T/info.txt"
presents=$(awk '$1 == "vulkan.vkQueuePresentKHR" {print $2}' "$T/info.txt")
[ "$presents" = 30 ] || fail "$presents vkQueuePresentKHR records, expected 30"
blob_bytes=$(sed -n 's/.*"bytes_logical":\([0-9]*\).*/\1/p' "$T/info.json")
[ -n "$blob_bytes" ] || fail "no blob byte count in tsinfo --json"
[ "$blob_bytes" -lt $((500 * 500 * 4)) ] ||
	fail "the trace holds $blob_bytes blob bytes: presented images would be in it"
echo "ok: 30 frames, $blob_bytes blob bytes"
