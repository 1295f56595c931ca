#!/bin/sh
# gpu_pack.sh [DEST] - prepares what a lent GPU machine needs to run
# `make test-gpu` without building: the lent machines have CUDA, nvcc,
# PyTorch and Triton but none of our Debian packages, and each of their
# minutes counts.  Builds here (make, then every tests/gpu program with nvcc
# for sm_90) and copies into DEST (default .gpu, which .git/info/exclude
# should ignore):
#   DEST/build/   the tools, interposers, Vulkan layer, test programs and
#                 shaders, stripped, laid out as $(BUILD) is (with the
#                 dispatch-only layer build), plus gpu/ (the
#                 nvcc programs, used there with GPU_PREBUILT=1);
#   DEST/lib/     the shared libraries they need that such a machine lacks
#                 (lz4, libunwind, liblzma, the Vulkan loader, xcb, png,
#                 libelf, msgpack), found with ldd here.
# On the machine: `sh tests/gpu/lease.sh DEST` (with `carry: [DEST]`).
set -eu
DEST=${1:-.gpu}
BUILD=${BUILD:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
ARCH=${GPU_ARCH:-sm_90}
make -s BUILD="$BUILD" all "$BUILD/layers_dispatch/libVkLayer_tracesmith.so" \
	"$BUILD/layers_dispatch/VkLayer_tracesmith.json" >/dev/null
rm -rf "$DEST"
B=$DEST/build
mkdir -p "$B/interpose" "$B/layers" "$B/tests/programs" "$B/tests/shaders" "$B/tests/cuda" "$B/gpu" "$DEST/lib"
for t in tscapture tsreplay tsinfo tsexport; do
	strip -o "$B/$t" "$BUILD/$t"
done
for f in "$BUILD"/interpose/*.so "$BUILD"/layers/*.so; do
	strip -o "$B/${f#"$BUILD"/}" "$f"
done
cp "$BUILD"/layers/*.json "$B/layers/"
# the dispatch-only build of the layer (tests/gpu/bench_vk_callbound.sh)
mkdir -p "$B/layers_dispatch"
strip -o "$B/layers_dispatch/libVkLayer_tracesmith.so" "$BUILD/layers_dispatch/libVkLayer_tracesmith.so"
cp "$BUILD/layers_dispatch/VkLayer_tracesmith.json" "$B/layers_dispatch/"
for p in vk_compute vk_offscreen vk_multithread vk_trim_image vk_race vk_hostmem vk_trim_layouts vk_callbound \
	vk_trim_planar vk_sampleloc vk_mapwrite vk_trim_churn vk_fresh vk_fft; do
	strip -o "$B/tests/programs/$p" "$BUILD/tests/programs/$p"
done
cp "$BUILD"/tests/shaders/*.spv "$B/tests/shaders/"
strip -o "$B/tests/cuda/cuda_alloc_loop" "$BUILD/tests/cuda/cuda_alloc_loop" # tests/bench/cuda_mem_bench.sh
strip -o "$B/tests/cuda/cuda_graph_nodes" "$BUILD/tests/cuda/cuda_graph_nodes" # tests/gpu/test_gpu_graph_nodes.sh
strip -o "$B/tests/cuda/cuda_stream_memop" "$BUILD/tests/cuda/cuda_stream_memop" # tests/gpu/test_gpu_stream_memop.sh
strip -o "$B/tests/cuda/cuda_stream_query" "$BUILD/tests/cuda/cuda_stream_query" # the same
strip -o "$B/tests/test_cap_clock" "$BUILD/tests/test_cap_clock" # tests/gpu/test_gpu_clock.sh
strip -o "$B/tests/sbt_mutate" "$BUILD/tests/sbt_mutate" # tests/gpu/test_gpu_vk_sampleloc.sh

S=tests/gpu
G=$B/gpu
"$NVCC" -arch="$ARCH" -I$S -o "$G/gpu_saxpy_static" $S/gpu_saxpy.cu
"$NVCC" -arch="$ARCH" -cudart shared -I$S -o "$G/gpu_saxpy_shared" $S/gpu_saxpy.cu
"$NVCC" -arch="$ARCH" -cubin -o "$G/gpu_driver_kernels.cubin" $S/gpu_driver_kernels.cu
cc -std=c11 -O2 -I"$CUDA_HOME/include" -I$S -o "$G/gpu_driver_cubin" $S/gpu_driver_cubin.c \
	-L"$CUDA_HOME/lib64/stubs" -lcuda
"$NVCC" -arch="$ARCH" -I$S -o "$G/gpu_sgemm" $S/gpu_sgemm.cu -lcublas
"$NVCC" -arch="$ARCH" -rdc=true -I$S -o "$G/gpu_rdc" $S/gpu_rdc_main.cu $S/gpu_rdc_dev.cu
"$NVCC" -arch="$ARCH" -I$S -o "$G/gpu_atomics" $S/gpu_atomics.cu
"$NVCC" -arch="$ARCH" -I$S -o "$G/gpu_arrays" $S/gpu_arrays.cu
"$NVCC" -arch="$ARCH" -I$S -o "$G/gpu_windows" $S/gpu_windows.cu
"$NVCC" -O2 -arch="$ARCH" -I$S -o "$G/gpu_launch_loop" $S/gpu_launch_loop.cu
"$NVCC" -O2 -arch="$ARCH" -I$S -o "$G/gpu_prealloc" $S/gpu_prealloc.cu
cc -std=c11 -O2 -fPIC -shared -I"$CUDA_HOME/include" -o "$G/libcupti_count.so" $S/cupti_count.c \
	-L"$CUDA_HOME/lib64" -L"$CUDA_HOME/extras/CUPTI/lib64" -lcupti -lpthread
strip "$G"/gpu_* 2>/dev/null || true

# cuda_graph_nodes on the real driver (test_gpu_graph_nodes.sh): the
# double's kernels built for the GPU, and what the program prints on the
# double for each option set, which the GPU's plain run must print too.
"$NVCC" -arch="$ARCH" -cubin -o "$G/kernels.cubin" $S/gpu_double_kernels.cu
mkdir -p "$G/expect"
grep -v '^#' $S/graph_nodes.sets | while read -r name kind args; do
	# shellcheck disable=SC2086 # the set's arguments are words
	LD_LIBRARY_PATH="$BUILD/tests/doubles/cuda" TSCUDA_DOUBLE_QUIET=1 \
		"$BUILD/tests/cuda/cuda_graph_nodes" $args >"$G/expect/$name.out" 2>/dev/null ||
		{ echo "gpu_pack: cuda_graph_nodes $args failed on the double" >&2; exit 1; }
done

# The GL dispatch libraries (libglvnd): the NVIDIA Vulkan driver
# (libGLX_nvidia) needs them and the lent machines lack them (the loader
# answered VK_ERROR_INCOMPATIBLE_DRIVER without them).
for l in libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libOpenGL.so.0 libGL.so.1; do
	f=$(ldconfig -p | sed -n "s/^[[:space:]]*$l (libc6,x86-64) => //p" | head -n 1)
	[ -n "$f" ] && cp -L "$f" "$DEST/lib/$l"
done

# The Khronos validation layer (Debian's 1.3.239; the lent machines lack
# it), stripped, with its manifest: test_gpu_vulkan.sh uses it where
# GPU_VK_VALIDATION names this folder.  22 MB: the pack then travels
# compressed (GPU_PACK_XZ below).
V=/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so
if [ -f "$V" ] && [ -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ]; then
	mkdir -p "$DEST/vvl"
	strip -o "$DEST/vvl/libVkLayer_khronos_validation.so" "$V"
	sed 's|"library_path": *"[^"]*"|"library_path": "./libVkLayer_khronos_validation.so"|' \
		/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json >"$DEST/vvl/VkLayer_khronos_validation.json"
fi

# Libraries: everything ldd resolves for what we carry, except the C
# library, libstdc++/libgcc and zlib, which the machine has (and which
# PyTorch, loaded beside our interposer, must get in its own versions).
for f in "$B"/tscapture "$B"/tsreplay "$B"/tsinfo "$B"/tsexport "$B"/interpose/*.so "$B"/layers/*.so "$B"/tests/programs/* \
	"$DEST"/lib/lib*GL*.so.*; do
	ldd "$f" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p'
done | sort -u | while read -r l; do
	case $(basename "$l") in
	libc.so* | libm.so* | libpthread* | libdl.so* | librt.so* | libstdc++* | libgcc_s* | libz.so*) continue ;;
	libcuda.so* | libcudart* | libcublas*) continue ;;
	esac
	cp -L "$l" "$DEST/lib/"
done
# What was built: the device machine's copy of the repository may carry
# older git metadata, so the pack says it.
git log -1 --format='commit %h %s' >"$DEST/COMMIT" 2>/dev/null || true
git status --porcelain --untracked-files=no | grep -q . && echo "(with uncommitted changes)" >>"$DEST/COMMIT"

# GPU_PACK_XZ=FILE: also DEST as one xz tar (what travels must stay under
# 64 MiB with the working tree); on the machine:
#   python3 -c 'import tarfile; tarfile.open("FILE").extractall()'
if [ -n "${GPU_PACK_XZ:-}" ]; then
	mkdir -p "$(dirname "$GPU_PACK_XZ")"
	tar -cJf "$GPU_PACK_XZ" "$DEST"
fi
du -sh "$DEST"
