#!/bin/sh
# OpenGL through Mesa's zink (Mesa 22.3, OpenGL on Vulkan) under the layer:
# zink is the Vulkan application here, with the command stream a real GL
# driver makes (dynamic rendering, extended dynamic state 1-3, vertex
# input as dynamic state, push descriptors through templates, multi-draw)
# and no fence: it waits for its work with timeline semaphores only.
# tests/programs/gl_zink draws 30 frames (a vertex buffer rewritten by
# glBufferSubData and glMapBufferRange, a texture updated by
# glTexSubImage2D, immediate-mode quads) and prints a hash of each frame
# read back with glReadPixels.  On a private Xvfb, with the validation
# layer below ours:
# - zink alone: the renderer is zink, no VUID- line;
# - under VK_INSTANCE_LAYERS=VK_LAYER_tracesmith: the same 30 hashes, and
#   readback checkpoints taken at zink's vkWaitSemaphores calls (before
#   the layer followed timeline signals the device never looked idle to
#   it: the trace's 22 checkpoints were all taken at the vkQueueWaitIdle
#   of zink's teardown, of the last frame's bytes only); tsreplay
#   --validate matches every one; tsexport --races finds no race (zink
#   waits on the program's thread and submits from its own; the emulator
#   reported 100 confirmed races before a host wait ordered every
#   thread's later submits);
# - under tscapture --submits 21-41 (a window opening mid-run: its
#   snapshot recreates zink's objects, templates and timeline semaphore):
#   the same hashes, and the window's replay matches every checkpoint it
#   holds (before, it held none).
# - glmark2 2023.01's pulsar scene (--off-screen --validate: one frame,
#   one pixel read back and checked by glmark2) under VK_INSTANCE_LAYERS:
#   zink draws its five quads with one vkCmdDrawMultiEXT whose elements lie
#   12 bytes apart (stride 12; VkMultiDrawInfoEXT is 8).  The layer read
#   them as packed, so the trace held other draws and the replay's pixel
#   differed; now the encoder gathers them (vk.xml's stride=, the trace's
#   stride is the element's size) and the replay matches the checkpoint.
# - glmark2's whole --validate run (33 scenes) under VK_INSTANCE_LAYERS:
#   glmark2's own checks give what they give without the layer, and the
#   replay matches all 61 checkpoints (before the first-map rule, 60).
# Mesa 22.3 picks zink on a software Vulkan device only with
# LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=zink; it then shows nothing in
# the window (no swapchain), which the test does not need.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
P=$BUILD/tests/programs/gl_zink
[ -x "$P" ] || fail "$P is not built (make; it needs libgl-dev)"
command -v glmark2 >/dev/null 2>&1 || fail "glmark2 is not installed (glmark2-x11, scripts/deps.sh)"
vk_env_init
vk_env_zink "$T/xdg"
vk_env_xvfb_start

vk_env_layers_validation
vk_env_run "$T/plain.log" "$P" --frames 30 || fail "gl_zink on zink alone"
grep -q '^renderer zink' "$T/plain.log" ||
	fail "the GL renderer is not zink: $(grep '^renderer' "$T/plain.log")"
grep '^frame ' "$T/plain.log" >"$T/plain.hashes"
[ "$(wc -l <"$T/plain.hashes")" -eq 30 ] || fail "gl_zink printed $(wc -l <"$T/plain.hashes") frames"

# the whole run under VK_INSTANCE_LAYERS
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/zink.sbt vk_env_run "$T/ours.log" "$P" --frames 30 ||
	fail "gl_zink under our layer"
grep '^frame ' "$T/ours.log" | cmp -s - "$T/plain.hashes" ||
	fail "the frames read back under our layer differ from zink alone"
vk_env_replay_matched "$T/zink.sbt" "$T/replay.log" "the whole run's trace"
! grep -q ' vulkan.vkWaitForFences ' "$T/zink.sbt.dump" ||
	fail "zink waited on a fence: the test no longer covers timeline-only waits"
first=$(sed -n 's/.* checkpoint call_seq=\([0-9]*\) .*/\1/p' "$T/zink.sbt.dump" | head -n 1)
grep -q "^seq=$first [^ ]* [^ ]* vulkan.vkWaitSemaphores " "$T/zink.sbt.dump" ||
	fail "the first checkpoint (of call $first) is not at a vkWaitSemaphores"
# the emulator on zink's stream: no race (before, 100 confirmed: zink waits
# on the program's thread and submits the next batch from its own, and a
# wait ordered only its own thread's submits)
"$BUILD/tsexport" --races "$T/zink.sbt" >"$T/races.txt" 2>&1 || fail "tsexport --races: $(tail -2 "$T/races.txt")"
[ "$(tail -n 1 "$T/races.txt")" = "races: 0 confirmed, 0 possible" ] ||
	fail "tsexport --races on zink's trace: $(tail -n 1 "$T/races.txt"); first: $(sed -n 1,3p "$T/races.txt")"
grep -q ' vulkan.vkCmdPushDescriptorSetWithTemplateKHR ' "$T/zink.sbt.dump" ||
	fail "zink pushed no descriptors through a template: the race check no longer covers them"
echo "ok: whole run, 30 frames equal, $m checkpoints matched, no race"

# a window of submits 21-41
vk_env_layers_validation
vk_env_run "$T/win.log" "$BUILD/tscapture" -o "$T/w.sbt" --submits 21-41 -- "$P" --frames 30 ||
	fail "gl_zink under tscapture --submits 21-41"
grep '^frame ' "$T/win.log" | cmp -s - "$T/plain.hashes" ||
	fail "the frames read back under tscapture differ from zink alone"
win=$(ls "$T"/w-*.sbt 2>/dev/null | head -n 1)
[ -n "$win" ] || fail "tscapture wrote no window trace: $(tail -3 "$T/win.log")"
vk_env_replay_matched "$win" "$T/wreplay.log" "the window's trace"
echo "ok: window of submits 21-41, $m checkpoints matched"

# glmark2's pulsar scene: a multi-draw with a stride over the element's size.
# zink leaves objects alive when glmark2 ends (VUID-vkDestroyDevice-device-00378,
# with the validation layer alone too): that one ID is filtered here, and
# in the replay, which repeats zink's teardown.
export VK_LAYER_MESSAGE_ID_FILTER=VUID-vkDestroyDevice-device-00378
vk_env_layers_validation
vk_env_run "$T/pulsar_plain.log" glmark2 --off-screen --validate -b pulsar ||
	fail "glmark2 -b pulsar on zink alone"
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/pulsar.sbt vk_env_run "$T/pulsar.log" glmark2 --off-screen --validate -b pulsar ||
	fail "glmark2 -b pulsar under our layer"
grep -q 'Validation: Success' "$T/pulsar.log" ||
	fail "glmark2's own check of the pulsar frame: $(grep 'Validation' "$T/pulsar.log")"
"$BUILD/tsinfo" --dump "$T/pulsar.sbt" >"$T/pulsar.dump" || fail "tsinfo cannot read the pulsar trace"
grep ' vulkan.vkCmdDrawMultiEXT ' "$T/pulsar.dump" >"$T/multi" ||
	fail "zink made no vkCmdDrawMultiEXT: the test no longer covers strided multi-draws"
grep -q 'drawCount=5 .* stride=8$' "$T/multi" ||
	fail "the multi-draw: $(cut -c1-300 "$T/multi")"
for i in 0 1 2 3 4; do
	grep -q "pVertexInfo\[$i\].firstVertex=0 pVertexInfo\[$i\].vertexCount=6 " "$T/multi" ||
		fail "draw $i of the multi-draw is not zink's (0, 6): $(cut -c1-400 "$T/multi")"
done
vk_env_replay_matched "$T/pulsar.sbt" "$T/preplay.log" "the pulsar trace"
echo "ok: glmark2 pulsar, its strided multi-draw recorded, $m checkpoint matched"

# glmark2's whole --validate run: 33 scenes, each frame read back and
# checked by glmark2 itself. zink's own validation messages, with or
# without our layer, are filtered (two IDs besides the teardown's; the
# list is colon-separated). The same scenes pass glmark2's check under our
# layer, and the replay matches every checkpoint: before the first-map
# rule (docs/vulkan-layer.md, "Mapped memory") one of its 61 differed, the
# 2 MiB readback buffer's whole-mapping checkpoint holding lavapipe's heap
# leftovers.
export VK_LAYER_MESSAGE_ID_FILTER=VUID-vkDestroyDevice-device-00378:VUID-vkCmdDrawMultiEXT-None-02859:VUID-vkCmdSetColorBlendEquationEXT-attachmentCount-arraylength
vk_env_layers_validation
vk_env_run "$T/g_plain.log" glmark2 --off-screen --validate || fail "glmark2 --validate on zink alone"
grep 'Validation:' "$T/g_plain.log" >"$T/g_plain.v"
[ "$(grep -c 'Validation: Success' "$T/g_plain.v")" -gt 20 ] ||
	fail "glmark2 --validate on zink alone: $(grep -c 'Validation: Success' "$T/g_plain.v") scenes pass"
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/glmark2.sbt vk_env_run "$T/g_ours.log" glmark2 --off-screen --validate ||
	fail "glmark2 --validate under our layer"
grep 'Validation:' "$T/g_ours.log" >"$T/g_ours.v"
cmp -s "$T/g_plain.v" "$T/g_ours.v" ||
	fail "glmark2's checks differ under our layer: $(diff "$T/g_plain.v" "$T/g_ours.v" | head -5)"
vk_env_replay_matched "$T/glmark2.sbt" "$T/greplay.log" "the glmark2 trace"
echo "ok: glmark2 --validate, $(grep -c 'Validation: Success' "$T/g_ours.v") scenes pass as without the layer, $m checkpoints matched"
