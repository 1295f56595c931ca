#!/bin/sh
# Installs the Debian packages TraceSmith needs to build, test and benchmark.
# (HIP: Debian's ROCm 5.2 hipcc and runtime, which run with no AMD GPU, and
# libelf + msgpack-c for the code-object reader, zlib + libzstd for
# compressed bundles, LLVM 19's clang-offload-bundler -compress and the zstd
# command to make them in tests; docs/hip.md.  mpv, ffmpeg, vkd3d-demos,
# ddnet and Qt Quick through PyQt6 (python3-pyqt6.qtquick,
# qml6-module-qtquick, qml6-module-qtqml-workerscript): real Vulkan
# applications the tests capture and replay,
# test_vk_real_apps.sh; mangohud and vkbasalt: implicit layers users run
# beside ours, test_vk_layer_neighbours.sh; librenderdoc and
# python3-renderdoc: RenderDoc's layer and replay beside ours,
# test_vk_renderdoc.sh; libgl-dev, libgl1-mesa-dri and glmark2-x11:
# OpenGL through Mesa's zink (OpenGL on Vulkan) as the Vulkan application,
# tests/programs/gl_zink.c and test_vk_zink.sh; piglit: its GLSL shader
# tests on zink, test_vk_piglit.sh; libvkfft-dev and glslang-dev: VkFFT,
# a Fourier-transform library that makes its compute shaders at run time,
# tests/programs/vk_fft.c and test_vk_fft.sh.)
# Idempotent: packages already present are left alone.  Run as root (or
# with sudo available).
set -eu
PKGS="build-essential make pkg-config python3 liblz4-dev lz4 libxxhash-dev xxhash
libunwind-dev libdw-dev clang valgrind hyperfine
libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools gfxreconstruct
glslang-tools spirv-tools xvfb xauth x11-utils libxcb1-dev libx11-dev xdotool
graphviz libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libpng-dev
libwayland-dev libxrandr-dev mpv ffmpeg vkd3d-demos ddnet mangohud vkbasalt
python3-pyqt6.qtquick qml6-module-qtquick qml6-module-qtqml-workerscript
librenderdoc python3-renderdoc libgl-dev libgl1-mesa-dri glmark2-x11 piglit
libvkfft-dev glslang-dev
python3-pandas man-db
hipcc libamdhip64-dev libelf-dev libmsgpack-dev
libzstd-dev zlib1g-dev zstd clang-tools-19"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
