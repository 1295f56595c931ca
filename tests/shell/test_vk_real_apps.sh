#!/bin/sh
# Real applications other than vkcube, captured as users run them and
# replayed (issue 11's title: real applications under the layer), on a
# private Xvfb with the validation layer below ours:
#
# - mpv (libplacebo, --vo=gpu-next, 30 frames of a test source) under
#   VK_INSTANCE_LAYERS=VK_LAYER_tracesmith: it names objects and labels
#   commands with VK_EXT_debug_utils' commands without enabling the
#   extension (under the layer this was a SIGSEGV), uploads frames through
#   buffers in host memory it imported (VK_EXT_external_memory_host) while
#   its threads change heap data in the same pages (checkpointed as device
#   writes before REFS_READS_ONLY), uses push descriptors and timeline
#   semaphores.  Checks: it exits 0, as without our layer; the trace holds
#   the names, the imports, no checkpoint of imported memory and about 30
#   frames; tsreplay --validate matches every checkpoint and frame hash
#   (TRACESMITH_FRAME_HASH=1).
# - ffmpeg's Vulkan filters (hwupload, gblur_vulkan, scale_vulkan,
#   hwdownload; 25 frames) under the uffd and the guard tracker: it uploads
#   and downloads each plane of a frame through host memory it imports,
#   planes whose page ranges overlap and share pages with heap data its
#   threads change while the copies run.  Its output file equals the run
#   without our layer, no look at imported memory fails, and the replay
#   under validation matches every checkpoint (before the imports were
#   tracked apart and the downloads' regions known, 503 of 2,385 differed).
#   tsexport --races finds its blur's two passes unordered in each frame
#   (the second dispatch samples what the first wrote, no barrier between;
#   synchronization validation agrees), through template data stored as
#   blobs.
#   Then its submits 50-80 under tscapture: the window replays with every
#   checkpoint matched (its snapshot wrote template updates naming image
#   views destroyed since, and the replay stopped at one).
# - mpv --vo=gpu under tscapture --frames 15-45: the window replays with
#   every checkpoint (its snapshot wrote pipeline creations naming pipeline
#   caches destroyed since, and the replay stopped at one).
# - mpv --vo=gpu-next under tscapture --submits 103-160, a window opening
#   inside a frame: the snapshot copies the swapchain image mpv holds, and
#   the window replays with every checkpoint matched.
# - vulkaninfo (every query, with surfaces of each platform) under
#   VK_INSTANCE_LAYERS: its replay answers the surface queries from the
#   capture, never passing the replay's stand-in surfaces to the driver
#   (vkGetPhysicalDeviceSurfaceCapabilities2EXT was passed one, and
#   tsreplay died of SIGSEGV in the loader), with no validation message.
# - vkd3d-gears (Direct3D 12 through vkd3d, which runs until it is
#   closed) under `tscapture --frames 20-50`: the window's trace, with its
#   state snapshot, is written while the program runs on; the program is
#   then stopped (SIGTERM), and the window's replay under validation
#   matches all 31 frame hashes.
# - DDNet 16.4 (a game; its Vulkan backend, its menu) under `tscapture
#   --frames 200-260`: each frame it begins a primary command buffer, has
#   worker threads record secondaries, then executes them.  The window's
#   snapshot wrote such a primary before its secondaries (no kept call
#   between their ends), and the replay stopped at its
#   vkCmdExecuteCommands; now the window's replay under validation matches
#   all 61 frame hashes.  Debian's package ships the shaders' GLSL but not
#   the SPIR-V its Vulkan backend loads: they are compiled into the
#   private home with glslangValidator, as DDNet's build does
#   (cmake/BuildVulkanShaders.cmake at 16.4: output, source, defines).
# - Qt Quick 6.4 on its Vulkan RHI (a QML scene in a QQuickView, from
#   PyQt6) under VK_INSTANCE_LAYERS: replayed with every frame hash.
#
# mpv's own teardown, without our layer as with it, sometimes destroys a
# swapchain semaphore the validation layer still counts as in use
# (VUID-vkDestroySemaphore-semaphore-01137, seen here in plain runs): that
# one message ID is filtered out of every run (VK_LAYER_MESSAGE_ID_FILTER);
# any other VUID- line fails the test.  libplacebo skips software devices
# unless named, so lavapipe is named from vulkaninfo.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
APP=
trap 'vk_env_xvfb_stop; [ -z "$APP" ] || kill "$APP" 2>/dev/null || :; rm -rf "$T"' EXIT INT TERM
. "$TOP/tests/support/ddnet.sh"
for p in mpv ffmpeg vkd3d-gears vulkaninfo $DDNET glslangValidator; do
	command -v $p >/dev/null 2>&1 || fail "$p is not installed (scripts/deps.sh)"
done
/usr/bin/python3 -c 'import PyQt6.QtQuick' 2>/dev/null ||
	fail "PyQt6's QtQuick is not installed (python3-pyqt6.qtquick, scripts/deps.sh)"
vk_env_init
vk_env_tsan_skip mpv
vk_env_xvfb_start
# none of the user's configuration files (mpv, ffmpeg), and nothing written
# into the user's home
HOME=$T
export HOME

# replay_matched SBT DUMP LOG WHAT: tsreplay --validate SBT (no explicit
# layer: it loads the validation layer itself, not ours) matches every
# checkpoint DUMP (SBT's tsinfo --dump) holds; m: how many.
replay_matched() {
	vk_env_layers_none
	vk_env_run "$3" "$BUILD/tsreplay" --validate "$1" || fail "tsreplay --validate of $4"
	m=$(grep -c ' checkpoint ' "$2" || :)
	grep -q "checkpoints: $m compared, $m matched, 0 differ" "$3" ||
		fail "$4, replayed: $(grep 'checkpoints:' "$3") ($m in the trace)"
}

# ---- mpv --------------------------------------------------------------------
export VK_LAYER_MESSAGE_ID_FILTER=VUID-vkDestroySemaphore-semaphore-01137
DEV=$(vulkaninfo --summary 2>/dev/null | sed -n 's/^[[:space:]]*deviceName[[:space:]]*= //p' | head -n 1)
case $DEV in
llvmpipe*) ;;
*) fail "the first Vulkan device is '$DEV', not lavapipe: this test needs mesa-vulkan-drivers alone" ;;
esac
mpv_run() { # LOG: mpv's 30 frames under the layers set
	vk_env_run "$1" mpv --no-config --vulkan-device="$DEV" --vo=gpu-next --gpu-api=vulkan \
		--gpu-context=x11vk --frames=30 --ao=null --msg-level=all=v \
		'av://lavfi:testsrc=size=320x240:rate=30'
}
vk_env_layers_validation
mpv_run "$T/mpv_plain.log" || fail "mpv under the validation layer alone"
grep -q 'Initialized libplacebo' "$T/mpv_plain.log" || fail "mpv did not start libplacebo: $(tail -3 "$T/mpv_plain.log")"
vk_env_layers_ours
TRACESMITH_FRAME_HASH=1 TRACESMITH_OUTPUT="$T/mpv.sbt" mpv_run "$T/mpv.log" ||
	fail "mpv under VK_LAYER_tracesmith"
"$BUILD/tsinfo" --dump "$T/mpv.sbt" >"$T/mpv.dump" || fail "tsinfo cannot read mpv's trace"
grep -q 'vulkan.vkSetDebugUtilsObjectNameEXT ' "$T/mpv.dump" ||
	fail "mpv's trace holds no vkSetDebugUtilsObjectNameEXT: mpv no longer names objects, the test no longer covers it"
grep 'vulkan.vkAllocateMemory .*VkImportMemoryHostPointerInfoEXT' "$T/mpv.dump" |
	tr ' ' '\n' | sed -n 's/^pMemory=//p' >"$T/imported"
[ -s "$T/imported" ] ||
	fail "mpv imported no host memory: the test no longer covers VK_EXT_external_memory_host"
while read -r m; do
	! grep -q " checkpoint .*object=$m " "$T/mpv.dump" ||
		fail "host memory mpv imported ($m), which the device only reads, is checkpointed"
done <"$T/imported"
frames=$(grep -c '^seq=[0-9]* [^ ]* [^ ]* frame ' "$T/mpv.dump" || :)
[ "$frames" -ge 25 ] || fail "mpv's trace has $frames frames, expected about 30"
replay_matched "$T/mpv.sbt" "$T/mpv.dump" "$T/mpv_replay.log" "mpv's trace"
echo "ok: mpv, $frames frames, $m checkpoints matched"

# ---- ffmpeg -----------------------------------------------------------------
unset VK_LAYER_MESSAGE_ID_FILTER
ff() { # LOG OUT: the filter chain into OUT under the layers set
	vk_env_run "$1" ffmpeg -hide_banner -nostats -loglevel error -init_hw_device vulkan=vk:0 \
		-filter_hw_device vk -f lavfi -i testsrc2=size=320x240:rate=25:duration=1 \
		-vf format=yuv420p,hwupload,gblur_vulkan=sigma=2,scale_vulkan=w=160:h=120,hwdownload,format=yuv420p \
		-f rawvideo -y "$2"
}
vk_env_layers_validation
ff "$T/ff_plain.log" "$T/ff_plain.yuv" || fail "ffmpeg under the validation layer alone"
[ -s "$T/ff_plain.yuv" ] || fail "ffmpeg wrote nothing: $(tail -3 "$T/ff_plain.log")"
for k in uffd guard; do
	vk_env_layers_ours
	TRACESMITH_VK_TRACKER=$k TRACESMITH_LOG=info TRACESMITH_OUTPUT="$T/ff_$k.sbt" \
		ff "$T/ff_$k.log" "$T/ff_$k.yuv" || fail "$k: ffmpeg under VK_LAYER_tracesmith"
	cmp -s "$T/ff_plain.yuv" "$T/ff_$k.yuv" || fail "$k: ffmpeg's output under the layer differs"
	grep -q "mapped memory tracker $k" "$T/ff_$k.log" ||
		fail "$k: another tracker ran: $(grep 'mapped memory tracker' "$T/ff_$k.log" | head -1)"
	! grep -q 'PAGEMAP_SCAN failed\|SIGSEGV handler' "$T/ff_$k.log" ||
		fail "$k: a look at imported memory failed: $(grep -m1 'PAGEMAP_SCAN failed\|SIGSEGV handler' "$T/ff_$k.log")"
	"$BUILD/tsinfo" --dump "$T/ff_$k.sbt" >"$T/ff_$k.dump" || fail "$k: tsinfo cannot read ffmpeg's trace"
	grep -q 'vulkan.vkCmdCopyImageToBuffer .*dstBuffer' "$T/ff_$k.dump" &&
		grep -q 'VkImportMemoryHostPointerInfoEXT' "$T/ff_$k.dump" ||
		fail "$k: ffmpeg no longer downloads into imported memory: the test no longer covers it"
	replay_matched "$T/ff_$k.sbt" "$T/ff_$k.dump" "$T/ff_${k}_replay.log" "$k: ffmpeg's trace"
	echo "ok: ffmpeg under $k, output equal, $m checkpoints matched"
done
# The emulator on ffmpeg's stream: each frame gblur_vulkan's two passes run
# in one command buffer, the second pass's dispatch sampling the image the
# first wrote as a storage image, with no barrier between (synchronization
# validation reports the same SYNC-HAZARD-READ-AFTER-WRITE, by hand): one
# possible race a frame.  Its sets are written through update templates
# whose data, over 1 KiB, the layer stores as blobs; before the emulator
# loaded those it saw no descriptor there, and no race.
if "$BUILD/tsexport" --races "$T/ff_uffd.sbt" >"$T/ff.races" 2>&1; then
	fail "tsexport --races finds no race in ffmpeg's stream"
fi
grep -q '^races: 0 confirmed, 25 possible$' "$T/ff.races" || fail "ffmpeg's races: $(tail -1 "$T/ff.races")"
[ "$(grep -c '^  seq [0-9]* dispatch vkCmdDispatch .* reads and may write image ' "$T/ff.races")" = 25 ] &&
	[ "$(grep -c '^  seq [0-9]* dispatch vkCmdDispatch .* reads image ' "$T/ff.races")" = 25 ] ||
	fail "ffmpeg's races are not its blur passes': $(head -3 "$T/ff.races")"
echo "ok: ffmpeg's stream, 25 possible races, one a frame between its blur passes"
# its submits 50-80 (tscapture, the validation layer below ours): ffmpeg
# updates its sets through descriptor update templates each frame and
# destroys the image views an update named; the window's snapshot wrote
# every update it had kept, those naming destroyed views too, and the
# replay stopped at one ("unknown VkImageView").
# From here to the Qt scene the validation layer's unique handles are off
# (VK_LAYER_DISABLES): the layer sees lavapipe's own handles, addresses a
# destroy frees for the next creation, as it does when users run without
# validation.  Before the snapshot took that into account (vkl_snap_alive,
# vkl_snap_retire_zombie), DDNet's window replay stopped at an unknown
# VkShaderModule after validation errors.
VK_LAYER_DISABLES=VK_VALIDATION_FEATURE_DISABLE_UNIQUE_HANDLES_EXT
export VK_LAYER_DISABLES
vk_env_layers_validation
vk_env_run "$T/ffw.log" "$BUILD/tscapture" -o "$T/ffw.sbt" --submits 50-80 \
	-- ffmpeg -hide_banner -nostats -loglevel error -init_hw_device vulkan=vk:0 \
	-filter_hw_device vk -f lavfi -i testsrc2=size=320x240:rate=25:duration=1 \
	-vf format=yuv420p,hwupload,gblur_vulkan=sigma=2,scale_vulkan=w=160:h=120,hwdownload,format=yuv420p \
	-f rawvideo -y "$T/ffw.yuv" || fail "tscapture --submits 50-80 of ffmpeg"
cmp -s "$T/ff_plain.yuv" "$T/ffw.yuv" || fail "ffmpeg's output under tscapture --submits 50-80 differs"
W="$T/ffw-submits-50-80.sbt"
"$BUILD/tsinfo" --dump "$W" >"$T/ffw.dump" || fail "tsinfo cannot read ffmpeg's window"
grep -q 'vulkan.vkUpdateDescriptorSetWithTemplate ' "$T/ffw.dump" ||
	fail "ffmpeg's window updates no set through a template: the test no longer covers it"
replay_matched "$W" "$T/ffw.dump" "$T/ffw_replay.log" "ffmpeg's window"
echo "ok: ffmpeg, submits 50-80, $m checkpoints matched"

# ---- mpv --vo=gpu, a window of frames 15-45 ---------------------------------
# libplacebo's older renderer makes a pipeline cache for each pipeline,
# reads its data and destroys it: the snapshot wrote the kept pipeline
# creations naming those caches, and the replay stopped at the first
# ("unknown VkPipelineCache").  Now they are written without the cache
# (said at TRACESMITH_LOG=info), and the window replays with every
# checkpoint and frame hash matched.
export VK_LAYER_MESSAGE_ID_FILTER=VUID-vkDestroySemaphore-semaphore-01137
vk_env_layers_validation
TRACESMITH_FRAME_HASH=1 TRACESMITH_LOG=info vk_env_run "$T/mpw.log" "$BUILD/tscapture" \
	-o "$T/mpw.sbt" --frames 15-45 -- mpv --no-config --vulkan-device="$DEV" --vo=gpu \
	--gpu-api=vulkan --gpu-context=x11vk --frames=60 --ao=null \
	'av://lavfi:testsrc2=size=320x240:rate=30' || fail "tscapture --frames 15-45 of mpv --vo=gpu"
grep -q 'vkCreateGraphicsPipelines is written without its pipelineCache' "$T/mpw.log" ||
	fail "mpv --vo=gpu's snapshot rewrote no pipeline creation: the test no longer covers it"
W="$T/mpw-frames-15-45.sbt"
"$BUILD/tsinfo" --dump "$W" >"$T/mpw.dump" || fail "tsinfo cannot read mpv's window"
replay_matched "$W" "$T/mpw.dump" "$T/mpw_replay.log" "mpv --vo=gpu's window"
grep -q 'frames 15-45 replayed' "$T/mpw_replay.log" ||
	fail "mpv --vo=gpu's window replay: $(grep 'replayed (' "$T/mpw_replay.log")"
echo "ok: mpv --vo=gpu, frames 15-45, $m checkpoints matched"

# ---- mpv --vo=gpu-next, a window of submits 103-160 -----------------------
# libplacebo acquires a frame's image, then submits several times before
# the present: submit 103 falls inside a frame, with the image acquired and
# drawn into.  The snapshot copies that image (the swapchain given transfer
# usage while tracking); without the copy, in a run by hand, 1 checkpoint
# of the replay differed (the first present's).
vk_env_layers_validation
TRACESMITH_FRAME_HASH=1 TRACESMITH_LOG=info vk_env_run "$T/mps.log" "$BUILD/tscapture" \
	-o "$T/mps.sbt" --submits 103-160 -- mpv --no-config --vulkan-device="$DEV" --vo=gpu-next \
	--gpu-api=vulkan --gpu-context=x11vk --frames=120 --ao=null \
	'av://lavfi:testsrc=size=320x240:rate=30' || fail "tscapture --submits 103-160 of mpv"
grep -q 'Vulkan snapshot: .* 1 images copied' "$T/mps.log" ||
	fail "mpv's snapshot copied no swapchain image: the test no longer covers it: $(grep 'Vulkan snapshot:' "$T/mps.log" | tail -1)"
W="$T/mps-submits-103-160.sbt"
"$BUILD/tsinfo" --dump "$W" >"$T/mps.dump" || fail "tsinfo cannot read mpv's window of submits"
replay_matched "$W" "$T/mps.dump" "$T/mps_replay.log" "mpv's window of submits 103-160"
unset VK_LAYER_MESSAGE_ID_FILTER
echo "ok: mpv --vo=gpu-next, submits 103-160, its held image copied, $m checkpoints matched"

# ---- vulkaninfo --------------------------------------------------------------
vk_env_layers_ours
vk_env_run "$T/vi.log" env TRACESMITH_OUTPUT="$T/vi.sbt" vulkaninfo ||
	fail "vulkaninfo under VK_INSTANCE_LAYERS=VK_LAYER_tracesmith"
"$BUILD/tsinfo" "$T/vi.sbt" >"$T/vi.info" || fail "tsinfo cannot read vulkaninfo's trace"
grep -q 'vulkan.vkGetPhysicalDeviceSurfaceCapabilities2EXT ' "$T/vi.info" ||
	fail "vulkaninfo no longer asks vkGetPhysicalDeviceSurfaceCapabilities2EXT: the test no longer covers it"
vk_env_layers_none
vk_env_run "$T/vi_replay.log" "$BUILD/tsreplay" --validate "$T/vi.sbt" ||
	fail "tsreplay --validate of vulkaninfo's trace"
! grep -q 'Validation Error' "$T/vi_replay.log" ||
	fail "vulkaninfo's replay: $(grep -m1 'Validation Error' "$T/vi_replay.log" | cut -c1-300)"
echo "ok: vulkaninfo, its surface queries replayed from the capture"

# win_capture NAME A-B PROGRAM...: tscapture --frames A-B of a program that
# runs until it is stopped, into $T/NAME-frames-A-B.sbt (log $T/NAME.log),
# under the layers set; once the window has closed the program is stopped
# (SIGTERM).  rc: tscapture's exit status.
win_capture() {
	wc_name=$1 wc_frames=$2
	shift 2
	TRACESMITH_FRAME_HASH=1 TRACESMITH_LOG=info "$BUILD/tscapture" -o "$T/$wc_name.sbt" \
		--frames "$wc_frames" -- "$@" >"$T/$wc_name.log" 2>&1 &
	APP=$!
	vk_env_waitlog "$T/$wc_name.log" 'capture window 1 closed'
	for p in $(pgrep -P "$APP"); do
		kill "$p" 2>/dev/null || :
	done
	rc=0
	wait "$APP" || rc=$?
	APP=
}

# ---- vkd3d-gears, a window of frames 20-50 ----------------------------------
vk_env_layers_validation
win_capture gears 20-50 vkd3d-gears
[ "$rc" = 143 ] || fail "tscapture of vkd3d-gears exited $rc, expected 143 (the program stopped by SIGTERM): $(tail -3 "$T/gears.log")"
vk_env_clean "$T/gears.log" || fail "vkd3d-gears under the layer"
W="$T/gears-frames-20-50.sbt"
grep -q "wrote $W " "$T/gears.log" || fail "tscapture did not list $W: $(tail -3 "$T/gears.log")"
vk_env_run "$T/gears_replay.log" "$BUILD/tsreplay" --validate "$W" ||
	fail "tsreplay --validate of vkd3d-gears' window"
grep -q 'checkpoints: 31 compared, 31 matched, 0 differ' "$T/gears_replay.log" ||
	fail "vkd3d-gears' window replay: $(grep 'checkpoints:' "$T/gears_replay.log")"
grep -q 'frames 20-50 replayed' "$T/gears_replay.log" ||
	fail "vkd3d-gears' window replay: $(grep 'replayed' "$T/gears_replay.log" | tail -1)"
echo "ok: vkd3d-gears, frames 20-50, 31 frame hashes matched"

# ---- DDNet, a window of frames 200-260 --------------------------------------
ddnet_shaders "$T/glslang.log"
vk_env_layers_validation
win_capture dd 200-260 "$DDNET" "gfx_backend Vulkan; gfx_fullscreen 0; snd_enable 0"
# DDNet quits cleanly on SIGTERM
[ "$rc" = 0 ] || fail "tscapture of DDNet exited $rc: $(tail -3 "$T/dd.log")"
! grep -q 'shader file could not load' "$T/dd.log" ||
	fail "DDNet's Vulkan backend found no shaders (another DDNet than 16.4?): $(grep -m1 'shader file' "$T/dd.log")"
grep -q 'gfx: Created Vulkan' "$T/dd.log" || fail "DDNet did not start its Vulkan backend: $(tail -3 "$T/dd.log")"
vk_env_clean "$T/dd.log" || fail "DDNet under the layer"
W="$T/dd-frames-200-260.sbt"
grep -q "wrote $W " "$T/dd.log" || fail "tscapture did not list $W: $(tail -3 "$T/dd.log")"
"$BUILD/tsinfo" --dump "$W" >"$T/dd.dump" || fail "tsinfo cannot read DDNet's window"
grep -q 'vulkan.vkCmdExecuteCommands ' "$T/dd.dump" ||
	fail "DDNet's window executes no secondary command buffer: the test no longer covers it"
vk_env_layers_none
vk_env_run "$T/dd_replay.log" "$BUILD/tsreplay" --validate "$W" ||
	fail "tsreplay --validate of DDNet's window"
grep -q 'checkpoints: 61 compared, 61 matched, 0 differ' "$T/dd_replay.log" ||
	fail "DDNet's window replay: $(grep 'checkpoints:' "$T/dd_replay.log")"
echo "ok: DDNet, frames 200-260, 61 frame hashes matched"

unset VK_LAYER_DISABLES

# ---- Qt Quick (Qt 6.4's scene graph on its Vulkan RHI) ---------------------
# A QML scene (an animated, rotating rectangle and text) in a QQuickView
# from PyQt6, QSG_RHI_BACKEND=vulkan, for 3 s under VK_INSTANCE_LAYERS: it
# exits 0 as without our layer, and the replay under validation matches
# every checkpoint and frame hash.
cat >"$T/scene.qml" <<'QML'
import QtQuick
Rectangle {
    width: 320; height: 240; color: "steelblue"
    Rectangle {
        width: 60; height: 60; color: "orange"; radius: 8
        NumberAnimation on x { from: 0; to: 260; duration: 1000; loops: Animation.Infinite }
        RotationAnimation on rotation { from: 0; to: 360; duration: 1500; loops: Animation.Infinite }
    }
    Text { anchors.centerIn: parent; text: "TraceSmith"; font.pixelSize: 28; color: "white" }
}
QML
cat >"$T/scene.py" <<'PY'
import sys
from PyQt6.QtCore import QTimer, QUrl
from PyQt6.QtGui import QGuiApplication
from PyQt6.QtQuick import QQuickView
app = QGuiApplication(sys.argv)
view = QQuickView()
view.setSource(QUrl.fromLocalFile(sys.argv[1]))
if view.status() != QQuickView.Status.Ready:
    sys.exit("scene.qml: " + "; ".join(e.toString() for e in view.errors()))
view.show()
QTimer.singleShot(3000, app.quit)
sys.exit(app.exec())
PY
qt_run() { # LOG: the scene under the layers set
	QSG_RHI_BACKEND=vulkan XDG_RUNTIME_DIR=$T vk_env_run "$1" /usr/bin/python3 "$T/scene.py" "$T/scene.qml"
}
vk_env_layers_validation
qt_run "$T/qt_plain.log" || fail "the Qt Quick scene under the validation layer alone"
vk_env_layers_ours
TRACESMITH_FRAME_HASH=1 TRACESMITH_OUTPUT="$T/qt.sbt" qt_run "$T/qt.log" ||
	fail "the Qt Quick scene under VK_INSTANCE_LAYERS=VK_LAYER_tracesmith"
"$BUILD/tsinfo" --dump "$T/qt.sbt" >"$T/qt.dump" || fail "tsinfo cannot read the Qt Quick trace"
frames=$(grep -c '^seq=[0-9]* [^ ]* [^ ]* frame ' "$T/qt.dump" || :)
[ "$frames" -ge 20 ] || fail "the Qt Quick trace has $frames frames, expected more than 20 in 3 s"
replay_matched "$T/qt.sbt" "$T/qt.dump" "$T/qt_replay.log" "the Qt Quick trace"
echo "ok: Qt Quick, $frames frames, $m checkpoints matched"
