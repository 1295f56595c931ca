# TraceSmith build.  `make` builds everything into $(BUILD); see README.md.
#
# Layout conventions (so new files need no Makefile edit):
#   serializer/*.c, capture/*.c, replayer/*.c   -> one static library each
#   <module>/tools/NAME.c                       -> $(BUILD)/NAME (a command)
#   tests/unit/test_*.c                         -> $(BUILD)/tests/test_* (run by make test)
#   tests/support/*.c                           -> linked into every test and test program
#   tests/programs/*.c                          -> $(BUILD)/tests/programs/*
#   tests/shell/test_*.sh                       -> run by make test
#   tests/bench/bench_*.c                       -> $(BUILD)/tests/bench/* (run by make bench)
#   tests/gpu/                                  -> make test-gpu only
#   <module>/generated/*.c                      -> part of the module's library
#   replayer/vulkan/*.c                         -> part of libtsrp.a (Vulkan backend)
#   layers/vulkan/*.c + generated/*.c           -> $(BUILD)/layers/libVkLayer_tracesmith.so
#                                                  + VkLayer_tracesmith.json (VK_ADD_LAYER_PATH)
#   tests/shaders/*.{comp,vert,frag}            -> $(BUILD)/tests/shaders/*.spv (glslangValidator)
#   interpose/cuda/*.c + generated/*.c          -> $(BUILD)/interpose/libtracesmith_cuda.so (LD_PRELOAD)
#   interpose/nvtx/*.c                          -> $(BUILD)/interpose/libtracesmith_nvtx.so (NVTX_INJECTION64_PATH)
#   replayer/cuda/*.c                           -> part of libtsrp.a (CUDA backend, dlopens libcuda.so.1)
#   tests/doubles/cuda/*.c                      -> $(BUILD)/tests/doubles/cuda/libcuda.so.1 (CPU test double)
#   tests/unit/test_tcd_*.c                     -> also link the double's tcd_image.c and tcd_twins.c
#   emulator/*.c + generated/*.c                -> $(BUILD)/lib/libtsemu.a (the stream-scheduler emulator;
#                                                  generated/: protoc-c of emulator/proto, with protobuf-c)
#   emulator/tools/NAME.c                       -> $(BUILD)/NAME (linked with libtsemu.a)
#   tests/unit/test_emu_*.c                     -> also link libtsemu.a
#   tests/doubles/cuda/modules/*.c              -> $(BUILD)/tests/doubles/cuda/modules/*.so (its "kernels")
#   tests/libs/*.c                              -> $(BUILD)/tests/libs/*.so (shared objects tests load)
#   tests/cuda/*.c                              -> $(BUILD)/tests/cuda/* (programs on the driver API,
#                                                  linked against the double's libcuda.so)
#   tests/cuda/lib/*.c                          -> $(BUILD)/tests/cuda/lib/lib*.so (libraries of
#                                                  those programs, linked against it too)
#   serializer/*.c + serializer/lib/*.c         -> $(BUILD)/lib/libtracesmith.so.1 (the reader and writer
#                                                  for other programs and python/tracesmith)
#   docs/man/*.1                                -> PREFIX/share/man/man1 (make install)
# The CUDA parts need the toolkit's cuda.h (CUDA_INC); without it they are
# left out of the build and their tests report themselves skipped.

BUILD ?= build
PREFIX ?= /usr/local
CC ?= cc
CFLAGS ?= -O2 -g
SAN ?=

WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wpointer-arith \
        -Wundef -Werror
CUDA_INC ?= $(firstword $(wildcard /usr/local/cuda/include))
HAVE_CUDA := $(if $(wildcard $(CUDA_INC)/cuda.h),1,)
# protobuf-c (libprotobuf-c-dev): tsexport -f perfetto; without it that
# format reports itself unavailable.
HAVE_PROTOBUF_C := $(if $(wildcard /usr/include/protobuf-c/protobuf-c.h),1,)
CPPFLAGS_ALL := -D_GNU_SOURCE -Iinclude -I. -I/usr/include/x86_64-linux-gnu $(if $(HAVE_CUDA),-I$(CUDA_INC) -DTS_HAVE_CUDA=1) \
                $(if $(HAVE_PROTOBUF_C),-DTS_HAVE_PROTOBUF_C=1)
CFLAGS_ALL := $(WARN) $(CFLAGS) $(SAN) -fPIC -pthread $(CPPFLAGS_ALL) -MMD -MP
LDLIBS_BASE := -llz4 -lxxhash -lunwind -ldl -lpthread -lm
# (SPIRV-Tools: the replayer validates shader modules; a static C++
# library, hence libstdc++)
LDLIBS_ALL := $(LDLIBS_BASE) -lvulkan -lxcb -lpng -lSPIRV-Tools -lstdc++
LDFLAGS_ALL := $(SAN) -pthread -Wl,--as-needed $(LDFLAGS)

# The codec's round-trip self-test (generated) and its driver are test code:
# not in libtssbt.a or libtracesmith.so; libtstestsupport.a carries them to
# the tests that call sbt_vk_selftest_run.
SBT_SELFTEST_SRC := serializer/generated/sbt_vk_selftest.c serializer/sbt_vk_selftest_support.c
SBT_SRC  := $(filter-out $(SBT_SELFTEST_SRC),$(wildcard serializer/*.c serializer/generated/*.c))
CAP_SRC  := $(wildcard capture/*.c capture/generated/*.c)
RP_SRC   := $(wildcard replayer/*.c replayer/generated/*.c replayer/vulkan/*.c) \
            $(if $(HAVE_CUDA),$(wildcard replayer/cuda/*.c))
TCU_SRC  := $(if $(HAVE_CUDA),$(wildcard interpose/cuda/*.c interpose/cuda/generated/*.c))
TNV_SRC  := $(if $(HAVE_CUDA),$(wildcard interpose/nvtx/*.c))
CUDBL_SRC := $(if $(HAVE_CUDA),$(wildcard tests/doubles/cuda/*.c))
CUDBL_MOD_SRC := $(if $(HAVE_CUDA),$(wildcard tests/doubles/cuda/modules/*.c))
CUPROG_SRC := $(if $(HAVE_CUDA),$(wildcard tests/cuda/*.c))
CULIB_SRC := $(if $(HAVE_CUDA),$(wildcard tests/cuda/lib/*.c))
LAYER_SRC := $(wildcard layers/vulkan/*.c layers/vulkan/generated/*.c)
SHADER_SRC := $(wildcard tests/shaders/*.comp tests/shaders/*.vert tests/shaders/*.frag)
TESTLIB_SRC := $(wildcard tests/libs/*.c)
SUP_SRC  := $(wildcard tests/support/*.c)
TOOL_SRC := $(wildcard serializer/tools/*.c capture/tools/*.c replayer/tools/*.c)
# Files that are parts of a command rather than commands of their own.
TSINFO_PARTS := serializer/tools/tsinfo_memory.c serializer/tools/tsinfo_extract.c
TOOL_SRC := $(filter-out $(TSINFO_PARTS),$(TOOL_SRC))
EMU_SRC  := $(wildcard emulator/*.c) $(if $(HAVE_PROTOBUF_C),$(wildcard emulator/generated/*.c))
LDLIBS_EMU := $(if $(HAVE_PROTOBUF_C),-lprotobuf-c)
EMU_TOOL_SRC := $(wildcard emulator/tools/*.c)
TEST_SRC := $(wildcard tests/unit/test_*.c)
PROG_SRC := $(wildcard tests/programs/*.c)
BENCH_SRC := $(wildcard tests/bench/bench_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB_SBT := $(BUILD)/lib/libtssbt.a
LIB_CAP := $(BUILD)/lib/libtscap.a
LIB_RP  := $(BUILD)/lib/libtsrp.a
LIB_SUP := $(BUILD)/lib/libtstestsupport.a
LIB_EMU := $(BUILD)/lib/libtsemu.a
LIBS := $(LIB_RP) $(LIB_CAP) $(LIB_SBT)
LIB_TS_SRC := $(SBT_SRC) $(wildcard serializer/lib/*.c)
LIB_TS_SO := $(BUILD)/lib/libtracesmith.so.1 $(BUILD)/lib/libtracesmith.so

TOOLS := $(patsubst %.c,$(BUILD)/%,$(notdir $(TOOL_SRC)))
EMU_TOOLS := $(patsubst %.c,$(BUILD)/%,$(notdir $(EMU_TOOL_SRC)))
TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))
PROGS := $(patsubst tests/programs/%.c,$(BUILD)/tests/programs/%,$(PROG_SRC))
BENCHES := $(patsubst tests/bench/%.c,$(BUILD)/tests/bench/%,$(BENCH_SRC))
FUZZ_REPLAY := $(BUILD)/tests/fuzz_sbt_reader_replay $(BUILD)/tests/fuzz_cm_codec_replay \
	$(BUILD)/tests/fuzz_tcd_image_replay
# the trace mutator the hostile-trace tests and `make fuzz` use (tests/fuzz/sbt_mutate.c)
FUZZ_REPLAY += $(BUILD)/tests/sbt_mutate $(BUILD)/tests/fuzz_cm_codec_mutate
# whole traces replayed against the null Vulkan device (tests/fuzz/vk_null.c)
FUZZ_REPLAY += $(BUILD)/tests/vk_null_main
# the CUDA replay in one process, against the libcuda double (tests/fuzz/fuzz_cu_replay.c)
FUZZ_REPLAY += $(if $(HAVE_CUDA),$(BUILD)/tests/fuzz_cu_replay_replay)
LAYER_SO := $(if $(LAYER_SRC),$(BUILD)/layers/libVkLayer_tracesmith.so $(BUILD)/layers/VkLayer_tracesmith.json $(BUILD)/share/vulkan/implicit_layer.d/VkLayer_tracesmith.json)
SHADERS := $(patsubst tests/shaders/%,$(BUILD)/tests/shaders/%.spv,$(SHADER_SRC))
TCU_SO := $(if $(TCU_SRC),$(BUILD)/interpose/libtracesmith_cuda.so)
TNV_SO := $(if $(TNV_SRC),$(BUILD)/interpose/libtracesmith_nvtx.so)
CUDBL := $(if $(CUDBL_SRC),$(BUILD)/tests/doubles/cuda/libcuda.so.1 $(BUILD)/tests/doubles/cuda/libcuda.so)
CUDBL_MODS := $(patsubst tests/doubles/cuda/modules/%.c,$(BUILD)/tests/doubles/cuda/modules/%.so,$(CUDBL_MOD_SRC))
CUPROGS := $(patsubst tests/cuda/%.c,$(BUILD)/tests/cuda/%,$(CUPROG_SRC))
CULIBS := $(patsubst tests/cuda/lib/%.c,$(BUILD)/tests/cuda/lib/lib%.so,$(CULIB_SRC))
TESTLIBS := $(patsubst tests/libs/%.c,$(BUILD)/tests/libs/%.so,$(TESTLIB_SRC))

# Parallel by default (one job per core) unless -j is given; objects and
# other files made on the way are kept (.SECONDARY), so `make run` leaves
# nothing for the next `make` to redo.
ifeq ($(filter -j%,$(MAKEFLAGS))$(filter j%,$(firstword $(MAKEFLAGS))),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
.SECONDARY:

.PHONY: all test test-gpu bench asan ubsan tsan fuzz fuzz-tcd-image regen install uninstall run clean check-regen
all: $(LIBS) $(LIB_TS_SO) $(LIB_EMU) $(TOOLS) $(EMU_TOOLS) $(TESTS) $(PROGS) $(BENCHES) $(FUZZ_REPLAY) $(LAYER_SO) \
     $(SHADERS) $(TCU_SO) $(TNV_SO) $(CUDBL) $(CUDBL_MODS) $(CUPROGS) $(CULIBS) $(TESTLIBS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB_SBT): $(call obj,$(SBT_SRC))
$(LIB_CAP): $(call obj,$(CAP_SRC))
$(LIB_RP):  $(call obj,$(RP_SRC))
$(LIB_SUP): $(call obj,$(SUP_SRC) $(SBT_SELFTEST_SRC))
$(LIB_EMU): $(call obj,$(EMU_SRC))
$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# libtracesmith.so.1: the SBT reader and writer as a shared library
# (docs/python.md); exports only the functions of include/tracesmith/sbt.h
# and sbt_json.h (version script; tests/shell/test_python.sh checks).
$(BUILD)/lib/libtracesmith.so.1: $(call obj,$(LIB_TS_SRC)) serializer/lib/libtracesmith.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,--no-undefined -Wl,-soname,libtracesmith.so.1 \
		-Wl,--version-script=serializer/lib/libtracesmith.map $(call obj,$(LIB_TS_SRC)) $(LDLIBS_BASE) -o $@
$(BUILD)/lib/libtracesmith.so: $(BUILD)/lib/libtracesmith.so.1
	ln -sf libtracesmith.so.1 $@

# The Vulkan layer: exports only the loader entry points (version script),
# stays resident once loaded (-z nodelete) so the writer thread never runs
# unmapped code.  The manifest points at the library beside it.
$(BUILD)/layers/libVkLayer_tracesmith.so: $(call obj,$(LAYER_SRC)) $(LIB_CAP) $(LIB_SBT) layers/vulkan/vkl.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-z,nodelete -Wl,-soname,libVkLayer_tracesmith.so \
		-Wl,--version-script=layers/vulkan/vkl.map \
		$(call obj,$(LAYER_SRC)) $(LIB_CAP) $(LIB_SBT) $(LDLIBS_BASE) -o $@
# The layer's thread-locals through TLS descriptors: in a dlopen'ed object
# glibc then resolves them to the static TLS block when it has room (an
# offset load instead of a __tls_get_addr call per access), and falls back
# to the dynamic path when it has not.  Not under the sanitizers, whose
# runtimes follow thread-locals through __tls_get_addr.
$(call obj,$(LAYER_SRC)): CFLAGS_ALL += $(if $(SAN),,-mtls-dialect=gnu2)
# The dispatch-only build of the layer (VKL_DISPATCH_ONLY: every wrapper
# finds the next layer's entry point and calls it, nothing more), for the
# per-command comparison of tests/bench/vk_cmd_bench.sh; built by make bench.
LAYER_DISPATCH := $(BUILD)/layers_dispatch/libVkLayer_tracesmith.so $(BUILD)/layers_dispatch/VkLayer_tracesmith.json
$(BUILD)/obj_dispatch/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DVKL_DISPATCH_ONLY=1 -c $< -o $@
$(BUILD)/layers_dispatch/libVkLayer_tracesmith.so: $(patsubst %.c,$(BUILD)/obj_dispatch/%.o,$(LAYER_SRC)) $(LIB_CAP) $(LIB_SBT) layers/vulkan/vkl.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-z,nodelete -Wl,-soname,libVkLayer_tracesmith.so \
		-Wl,--version-script=layers/vulkan/vkl.map \
		$(patsubst %.c,$(BUILD)/obj_dispatch/%.o,$(LAYER_SRC)) $(LIB_CAP) $(LIB_SBT) $(LDLIBS_BASE) -o $@
# (the manifest names the library: asking for it builds both, as
# docs/vulkan-layer.md and tests/bench/vk_cmd_bench.sh say)
$(BUILD)/layers_dispatch/VkLayer_tracesmith.json: layers/vulkan/VkLayer_tracesmith.json.in $(BUILD)/layers_dispatch/libVkLayer_tracesmith.so
	@mkdir -p $(dir $@)
	sed 's|@LIBRARY_PATH@|./libVkLayer_tracesmith.so|' $< > $@
$(BUILD)/layers/VkLayer_tracesmith.json: layers/vulkan/VkLayer_tracesmith.json.in
	@mkdir -p $(dir $@)
	sed 's|@LIBRARY_PATH@|./libVkLayer_tracesmith.so|' $< > $@
# The same layer as an implicit one, enabled by TRACESMITH_VK_IMPLICIT=1 and
# found through XDG_DATA_DIRS (tscapture sets both): only implicit layers
# may filter the loader's instance extension list.
$(BUILD)/share/vulkan/implicit_layer.d/VkLayer_tracesmith.json: layers/vulkan/VkLayer_tracesmith_implicit.json.in
	@mkdir -p $(dir $@)
	sed 's|@LIBRARY_PATH@|../../../layers/libVkLayer_tracesmith.so|' $< > $@

# The CUDA interposer: an LD_PRELOAD library exporting the cu* entry points
# and dlsym (version script interpose/cuda/tcu.map), resident once loaded.
$(BUILD)/interpose/libtracesmith_cuda.so: $(call obj,$(TCU_SRC)) $(LIB_CAP) $(LIB_SBT) interpose/cuda/tcu.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-z,nodelete -Wl,-soname,libtracesmith_cuda.so \
		-Wl,--version-script=interpose/cuda/tcu.map \
		$(call obj,$(TCU_SRC)) $(LIB_CAP) $(LIB_SBT) $(LDLIBS_BASE) -o $@

# The NVTX injection library (capture windows from NVTX ranges): links no
# TraceSmith code, reaches the capture libraries through the in-app API.
$(BUILD)/interpose/libtracesmith_nvtx.so: $(call obj,$(TNV_SRC)) interpose/nvtx/tnv.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,--version-script=interpose/nvtx/tnv.map \
		$(call obj,$(TNV_SRC)) -ldl -o $@

# The CPU test double of libcuda.so.1 (named as a double in every message).
$(BUILD)/tests/doubles/cuda/libcuda.so.1: $(call obj,$(CUDBL_SRC)) $(LIB_SBT)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-soname,libcuda.so.1 $(call obj,$(CUDBL_SRC)) $(LIB_SBT) $(LDLIBS_BASE) -o $@
$(BUILD)/tests/doubles/cuda/libcuda.so: $(BUILD)/tests/doubles/cuda/libcuda.so.1
	ln -sf libcuda.so.1 $@
$(BUILD)/tests/doubles/cuda/modules/%.so: $(BUILD)/obj/tests/doubles/cuda/modules/%.o
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) $< -o $@
$(BUILD)/tests/cuda/%: $(BUILD)/obj/tests/cuda/%.o $(CUDBL) $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -rdynamic $< $(LIB_SUP) $(LIBS) -L$(BUILD)/tests/doubles/cuda -lcuda $(LDLIBS_ALL) -o $@
$(BUILD)/tests/cuda/lib/lib%.so: $(BUILD)/obj/tests/cuda/lib/%.o $(CUDBL)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) $< -L$(BUILD)/tests/doubles/cuda -lcuda -o $@
# cuda_late_calls calls the driver from its library's exit code
# (tests/shell/test_cuda_late_calls.sh).
$(BUILD)/tests/cuda/cuda_late_calls: $(BUILD)/tests/cuda/lib/libcuda_late_lib.so
$(BUILD)/tests/cuda/cuda_late_calls: LDLIBS_ALL += -L$(BUILD)/tests/cuda/lib -lcuda_late_lib \
	-Wl,-rpath,'$$ORIGIN/lib'

# ---- HIP (docs/hip.md) ----
# The AMDGPU code-object reader (serializer/amdgpu/*.c -> libtsamd.a, with
# libelf, msgpack-c, and zlib and libzstd for compressed bundles), the HIP interposer (interpose/hip/*.c ->
# $(BUILD)/interpose/libtracesmith_hip.so, against /usr/include/hip), and
# the HIP test programs (tests/hip: *.hip built by hipcc for two targets,
# hip_module_kernels.hip as a --genco bundle, hip_module.c by $(CC) against
# libamdhip64).  Each part is left out when what it needs is missing
# (scripts/deps.sh installs it all); their tests then exit 77.
HIPCC ?= $(firstword $(wildcard /usr/bin/hipcc /opt/rocm/bin/hipcc))
HIP_ARCHS ?= --offload-arch=gfx90a --offload-arch=gfx1030
HAVE_AMD_READER := $(if $(wildcard /usr/include/msgpack.h),$(if $(wildcard /usr/include/libelf.h),$(if \
	$(wildcard /usr/include/zstd.h),$(if $(wildcard /usr/include/zlib.h),1))))
HAVE_HIP := $(if $(HAVE_AMD_READER),$(if $(wildcard /usr/include/hip/hip_runtime_api.h),1))
HAVE_HIPCC := $(if $(HAVE_HIP),$(HIPCC))
LDLIBS_AMD := -lelf -lmsgpackc -lzstd -lz
AMD_SRC := $(if $(HAVE_AMD_READER),$(wildcard serializer/amdgpu/*.c))
LIB_AMD := $(BUILD)/lib/libtsamd.a
THIP_SRC := $(if $(HAVE_HIP),$(wildcard interpose/hip/*.c interpose/hip/generated/*.c))
THIP_OBJ := $(call obj,$(THIP_SRC)) $(if $(HAVE_HIP),$(BUILD)/obj/interpose/hip/generated/thip_tramp.o)
THIP_SO := $(if $(THIP_SRC),$(BUILD)/interpose/libtracesmith_hip.so)
HIP_TRAMP_BINS := $(if $(THIP_SRC),$(BUILD)/tests/hip/libhip_fake.so $(BUILD)/tests/hip/hip_tramp_check \
	$(BUILD)/tests/hip/hip_success_app)
HIP_READER_BINS := $(if $(AMD_SRC),$(LIB_AMD) $(BUILD)/tests/hip/hip_reader_check $(BUILD)/tests/fuzz_amd_image_replay)
# HIP test programs in C with no kernel (built by $(CC) against libamdhip64,
# no hipcc needed): tests/hip/hip_array.c
HIP_C_PROGS := $(BUILD)/tests/hip/hip_array $(BUILD)/tests/hip/hip_capture_free $(BUILD)/tests/hip/hip_multi \
	$(BUILD)/tests/hip/hip_array3d $(BUILD)/tests/hip/hip_ctx $(BUILD)/tests/hip/hip_spt \
	$(BUILD)/tests/hip/hip_graph_nm $(BUILD)/tests/hip/hip_capture_unseen $(BUILD)/tests/hip/hip_event_sync \
	$(BUILD)/tests/hip/hip_procaddr $(BUILD)/tests/hip/hip_dlsym $(BUILD)/tests/hip/hip_graph_exec
HIP_PROGS := $(if $(HAVE_HIPCC),$(patsubst tests/hip/%.hip,$(BUILD)/tests/hip/%,$(filter-out %_kernels.hip,$(wildcard tests/hip/*.hip))) \
	$(BUILD)/tests/hip/hip_module $(BUILD)/tests/hip/hip_module_kernels.hsaco) \
	$(if $(HAVE_HIP),$(HIP_C_PROGS))
all: $(HIP_READER_BINS) $(THIP_SO) $(HIP_PROGS) $(HIP_TRAMP_BINS)
$(call obj,$(THIP_SRC) tests/hip/hip_module.c tests/hip/hip_fake_runtime.c tests/hip/hip_tramp_check.c \
	tests/hip/hip_success_app.c $(patsubst $(BUILD)/tests/hip/%,tests/hip/%.c,$(HIP_C_PROGS))): \
	CFLAGS_ALL += -D__HIP_PLATFORM_AMD__
# a fake runtime answering with checksums of its arguments, and its caller
# (tests/shell/test_hip_interpose.sh: the trampolines pass arguments through)
$(BUILD)/tests/hip/libhip_fake.so: $(BUILD)/obj/tests/hip/hip_fake_runtime.o
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-soname,libhip_fake.so $< -o $@
$(BUILD)/tests/hip/hip_tramp_check: $(BUILD)/obj/tests/hip/hip_tramp_check.o $(BUILD)/tests/hip/libhip_fake.so
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $< -Wl,--no-as-needed -L$(BUILD)/tests/hip -lhip_fake -ldl -o $@
$(BUILD)/tests/hip/hip_success_app: $(BUILD)/obj/tests/hip/hip_success_app.o $(BUILD)/tests/hip/libhip_fake.so $(LIB_SUP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $< $(LIB_SUP) -L$(BUILD)/tests/hip -lhip_fake -o $@
$(LIB_AMD): $(call obj,$(AMD_SRC))
$(BUILD)/tests/hip/hip_reader_check: $(BUILD)/obj/tests/hip/hip_reader_check.o $(LIB_AMD) $(LIB_SUP) $(LIB_SBT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(filter %.o,$^) $(LIB_AMD) $(LIB_SUP) $(LIB_SBT) $(LDLIBS_AMD) $(LDLIBS_BASE) -o $@
$(BUILD)/tests/fuzz_amd_image_replay: $(BUILD)/obj/tests/fuzz/fuzz_amd_image.o $(BUILD)/obj/tests/fuzz/replay_main.o \
		$(LIB_AMD) $(LIB_SUP) $(LIB_SBT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(filter %.o,$^) $(LIB_AMD) $(LIB_SUP) $(LIB_SBT) $(LDLIBS_AMD) $(LDLIBS_BASE) -o $@
# The HIP interposer: exports the HIP entry points it hooks (version script
# interpose/hip/thip.map), resident once loaded.
$(BUILD)/interpose/libtracesmith_hip.so: $(THIP_OBJ) $(LIB_AMD) $(LIB_CAP) $(LIB_SBT) interpose/hip/thip.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-z,nodelete -Wl,-soname,libtracesmith_hip.so \
		-Wl,--version-script=interpose/hip/thip.map \
		$(THIP_OBJ) $(LIB_AMD) $(LIB_CAP) $(LIB_SBT) $(LDLIBS_AMD) $(LDLIBS_BASE) -o $@
# the generated trampolines (scripts/hipgen/gen.py; x86-64 assembly)
$(BUILD)/obj/interpose/hip/generated/thip_tramp.o: interpose/hip/generated/thip_tramp.S
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -c $< -o $@
$(BUILD)/tests/hip/%: tests/hip/%.hip
	@mkdir -p $(dir $@)
	$(HIPCC) $(HIP_ARCHS) -O2 -o $@ $<
$(BUILD)/tests/hip/%.hsaco: tests/hip/%.hip
	@mkdir -p $(dir $@)
	$(HIPCC) $(HIP_ARCHS) -O2 --genco -o $@ $<
$(HIP_C_PROGS): $(BUILD)/tests/hip/%: $(BUILD)/obj/tests/hip/%.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) $< -lamdhip64 -o $@
$(BUILD)/tests/hip/hip_module: $(BUILD)/obj/tests/hip/hip_module.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $< -lamdhip64 -o $@
# The HIP replay backend (replayer/hip/*.c -> libtsrphip.a, linked into
# tsreplay, which then lists it: -DTS_HAVE_HIP) and the CPU test double of
# libamdhip64.so.5 (tests/doubles/hip/*.c; soname and symbol versions of
# the real runtime, thd.map; docs/hip.md "The test double").
RPHIP_SRC := $(if $(HAVE_HIP),$(wildcard replayer/hip/*.c))
LIB_RPHIP := $(BUILD)/lib/libtsrphip.a
HIPDBL_SRC := $(if $(HAVE_HIP),$(wildcard tests/doubles/hip/*.c))
HIPDBL := $(if $(HIPDBL_SRC),$(BUILD)/tests/doubles/hip/libamdhip64.so.5)
all: $(if $(RPHIP_SRC),$(LIB_RPHIP)) $(HIPDBL)
$(LIB_RPHIP): $(call obj,$(RPHIP_SRC))
$(call obj,$(RPHIP_SRC)): CFLAGS_ALL += -D__HIP_PLATFORM_AMD__
$(call obj,$(HIPDBL_SRC)): CFLAGS_ALL += -D__HIP_PLATFORM_AMD__ -fvisibility=hidden
ifneq ($(HAVE_HIP),)
$(BUILD)/obj/replayer/tools/tsreplay.o: CFLAGS_ALL += -DTS_HAVE_HIP=1
endif
$(BUILD)/tests/doubles/hip/libamdhip64.so.5: $(call obj,$(HIPDBL_SRC)) $(LIB_AMD) $(LIB_SBT) tests/doubles/hip/thd.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) -Wl,-soname,libamdhip64.so.5 -Wl,-Bsymbolic \
		-Wl,--version-script=tests/doubles/hip/thd.map $(call obj,$(HIPDBL_SRC)) \
		$(LIB_AMD) $(LIB_SBT) $(LDLIBS_AMD) $(LDLIBS_BASE) -o $@
.PHONY: fuzz-amd-image
fuzz: fuzz-amd-image
fuzz-amd-image:
	@mkdir -p $(BUILD)/fuzz/corpus_amd
	$(MAKE) BUILD=build/fuzzlib CC=clang CFLAGS="-O1 -g" SAN="-fsanitize=fuzzer-no-link,address" build/fuzzlib/lib/libtssbt.a
	clang $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined $(CPPFLAGS_ALL) tests/fuzz/fuzz_amd_image.c \
		serializer/amdgpu/sbt_amd_image.c serializer/amdgpu/sbt_amd_meta.c serializer/amdgpu/sbt_amd_ccob.c \
		build/fuzzlib/lib/libtssbt.a $(LDLIBS_AMD) $(LDLIBS_BASE) -o $(BUILD)/fuzz/fuzz_amd_image
	cp tests/fuzz/corpus_amd/* $(BUILD)/fuzz/corpus_amd/
	$(BUILD)/fuzz/fuzz_amd_image -max_total_time=$(FUZZ_SECONDS) $(BUILD)/fuzz/corpus_amd

$(BUILD)/tests/libs/%.so: $(BUILD)/obj/tests/libs/%.o
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS_ALL) $< -ldl -o $@

$(BUILD)/tests/shaders/%.spv: tests/shaders/%
	@mkdir -p $(dir $@)
	glslangValidator -V -o $@ $<

# Commands: each tool links the libraries (only what it uses is pulled in),
# and its parts (tsinfo: TSINFO_PARTS).
define tool_rule
$(BUILD)/$(notdir $(basename $(1))): $(call obj,$(1)) $(TOOL_LIBS_$(notdir $(basename $(1)))) $(LIBS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS_ALL) $$(filter %.o,$$^) $(TOOL_LIBS_$(notdir $(basename $(1)))) $(LIBS) $$(LDLIBS_ALL) $(TOOL_LDLIBS_$(notdir $(basename $(1)))) -o $$@
endef
# tsreplay --emulate runs the emulator (emulator/emu_cli.c).
# With HIP: the HIP replay backend (libtsrphip.a, with the code-object reader).
TOOL_LIBS_tsreplay := $(LIB_EMU) $(if $(HAVE_HIP),$(LIB_RPHIP) $(LIB_AMD))
TOOL_LDLIBS_tsreplay := $(LDLIBS_EMU) $(if $(HAVE_HIP),$(LDLIBS_AMD))
$(foreach t,$(TOOL_SRC),$(eval $(call tool_rule,$(t))))
$(BUILD)/tsinfo: $(call obj,$(TSINFO_PARTS))

# The emulator's tools and unit tests (tests/unit/test_emu_*.c) link libtsemu.a.
define emu_tool_rule
$(BUILD)/$(notdir $(basename $(1))): $(call obj,$(1)) $(LIB_EMU) $(LIB_SBT)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS_ALL) $$< $(LIB_EMU) $(LIB_SBT) $$(LDLIBS_EMU) $$(LDLIBS_BASE) -o $$@
endef
$(foreach t,$(EMU_TOOL_SRC),$(eval $(call emu_tool_rule,$(t))))
$(BUILD)/tests/test_emu_%: $(BUILD)/obj/tests/unit/test_emu_%.o $(LIB_EMU) $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $< $(LIB_EMU) $(LIB_SUP) $(LIBS) $(LDLIBS_EMU) $(LDLIBS_ALL) -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $< $(LIB_SUP) $(LIBS) $(LDLIBS_ALL) -o $@

# Unit tests of the libcuda double's image reader and host twins
# (tests/unit/test_tcd_*.c) link those files alone: they need no cuda.h.
TCD_UNIT_OBJ := $(call obj,tests/doubles/cuda/tcd_image.c tests/doubles/cuda/tcd_twins.c)
$(BUILD)/tests/test_tcd_%: $(BUILD)/obj/tests/unit/test_tcd_%.o $(TCD_UNIT_OBJ) $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $< $(TCD_UNIT_OBJ) $(LIB_SUP) $(LIBS) $(LDLIBS_ALL) -o $@

$(BUILD)/tests/programs/%: $(BUILD)/obj/tests/programs/%.o $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -rdynamic $< $(LIB_SUP) $(LIBS) $(LDLIBS_ALL) -o $@

# gl_zink is an OpenGL program (Mesa's zink under the layer): GLX and Xlib.
$(BUILD)/tests/programs/gl_zink: LDLIBS_ALL += -lGL -lX11
# vk_fft runs VkFFT (libvkfft-dev), which compiles its shaders with glslang
# (glslang-dev: static libraries, linked as its glslang.pc lists them).
# Debian 12's vkFFT.h (1.2.26) does not build against its glslang 12 as it
# is: it initialises command buffer handles with {} (C23; gcc 12 refuses
# it), and fills glslang_resource_t by position, to which glslang 12 added
# nine mesh-shader limits before the last two members.  The build mends a
# copy of it in $(BUILD)/gen/vkfft (the handles set to 0, the nine limits
# given glslang's defaults) and stops if the header changed.
VKFFT_H := $(BUILD)/gen/vkfft/vkFFT.h
$(VKFFT_H): $(wildcard /usr/include/vkFFT.h)
	@test -f /usr/include/vkFFT.h || \
	    { echo "/usr/include/vkFFT.h is missing: install libvkfft-dev (scripts/deps.sh)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	sed -e 's/\(VkCommandBuffer [a-zA-Z]*\) = {};/\1 = 0;/' \
	    -e 's#\(/\* \.maxMeshViewCountNV = \*/ 4,\)#\1 /* glslang 12 */ 256, 256, 128, 128, 128, 128, 128, 128, 4,#' \
	    /usr/include/vkFFT.h >$@.tmp
	@test "$$(grep -c '/\* glslang 12 \*/' $@.tmp)" = 2 && ! grep -q 'VkCommandBuffer [a-zA-Z]* = {}' $@.tmp || \
	    { echo "/usr/include/vkFFT.h: not the VkFFT 1.2.26 header the build knows how to mend" >&2; exit 1; }
	mv $@.tmp $@
$(call obj,tests/programs/vk_fft.c): $(VKFFT_H)
$(call obj,tests/programs/vk_fft.c): CFLAGS_ALL += -isystem $(BUILD)/gen/vkfft
$(BUILD)/tests/programs/vk_fft: LDLIBS_ALL += -Wl,--start-group -lglslang -lMachineIndependent \
	-lOSDependent -lHLSL -lOGLCompiler -lGenericCodeGen -lSPVRemapper -lSPIRV -lSPIRV-Tools-opt \
	-lSPIRV-Tools -Wl,--end-group -lstdc++ -lm

$(BUILD)/tests/bench/%: $(BUILD)/obj/tests/bench/%.o $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -rdynamic $< $(LIB_SUP) $(LIBS) $(LDLIBS_ALL) -o $@

# The fuzz targets, driven by a plain main over the committed corpora so that
# `make test` exercises them without clang.  `make fuzz` builds them with libFuzzer.
$(BUILD)/tests/fuzz_%_replay: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/replay_main.o $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(filter %.o,$^) $(LIB_SUP) $(LIBS) $(LDLIBS_ALL) -o $@

# the same targets on in-process mutants of their corpus (tests/fuzz/mutate_main.c)
$(BUILD)/tests/fuzz_%_mutate: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/mutate_main.o $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(filter %.o,$^) $(LIB_SUP) $(LIBS) $(LDLIBS_ALL) -o $@

$(BUILD)/tests/sbt_mutate: $(BUILD)/obj/tests/fuzz/sbt_mutate.o $(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $< $(LIB_SUP) $(LIBS) $(LDLIBS_ALL) -o $@

# The Vulkan backend replaying whole traces against the null device of
# tests/fuzz/vk_null.c, which is linked instead of -lvulkan (no driver):
# tests/shell/test_vk_null_corpus.sh, tests/fuzz/vk_null_mutants.sh.
$(BUILD)/tests/vk_null_main: $(call obj,tests/fuzz/fuzz_vk_null.c tests/fuzz/vk_null.c tests/fuzz/vk_null_main.c) \
		$(LIB_SUP) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(filter %.o,$^) $(LIB_SUP) $(LIBS) $(filter-out -lvulkan,$(LDLIBS_ALL)) -o $@

# The same for the libcuda double's image reader, over the images in
# tests/fixtures (tests/shell/test_tcd_image_corpus.sh); `make fuzz-tcd-image`.
$(BUILD)/tests/fuzz_tcd_image_replay: $(BUILD)/obj/tests/fuzz/fuzz_tcd_image.o $(BUILD)/obj/tests/fuzz/replay_main.o \
		$(call obj,tests/doubles/cuda/tcd_image.c) $(LIB_SUP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(filter %.o,$^) $(LIB_SUP) $(LDLIBS_BASE) -o $@

test: all
	@BUILD=$(BUILD) sh tests/run.sh

test-gpu: all
	@BUILD=$(BUILD) sh tests/gpu/run.sh

bench: all $(LAYER_DISPATCH)
	@BUILD=$(BUILD) sh tests/bench/run.sh

# Sanitizer variants of the whole suite, each in its own build folder.
asan:
	$(MAKE) BUILD=build/asan CFLAGS="-O1 -g -fno-omit-frame-pointer" SAN="-fsanitize=address,undefined" test
ubsan:
	$(MAKE) BUILD=build/ubsan CFLAGS="-O1 -g" SAN="-fsanitize=undefined -fno-sanitize-recover=undefined" test
tsan:
	$(MAKE) BUILD=build/tsan CFLAGS="-O1 -g" SAN="-fsanitize=thread" test

FUZZ_SECONDS ?= 60
FUZZ_MUTANTS ?= 200
fuzz:
	@mkdir -p $(BUILD)/fuzz
	$(MAKE) BUILD=build/fuzzlib CC=clang CFLAGS="-O1 -g" SAN="-fsanitize=fuzzer-no-link,address" build/fuzzlib/lib/libtssbt.a
	clang $(WARN) -O1 -g -fsanitize=fuzzer,address $(CPPFLAGS_ALL) tests/fuzz/fuzz_sbt_reader.c \
		build/fuzzlib/lib/libtssbt.a $(LDLIBS_ALL) -o $(BUILD)/fuzz/fuzz_sbt_reader
	@mkdir -p $(BUILD)/fuzz/corpus
	cp tests/fuzz/corpus/* $(BUILD)/fuzz/corpus/
	$(BUILD)/fuzz/fuzz_sbt_reader -max_total_time=$(FUZZ_SECONDS) $(BUILD)/fuzz/corpus
	clang $(WARN) -O1 -g -fsanitize=fuzzer,address $(CPPFLAGS_ALL) tests/fuzz/fuzz_cm_codec.c \
		build/fuzzlib/lib/libtssbt.a $(LDLIBS_ALL) -o $(BUILD)/fuzz/fuzz_cm_codec
	@mkdir -p $(BUILD)/fuzz/corpus_cm
	cp tests/fuzz/corpus_cm/* $(BUILD)/fuzz/corpus_cm/
	$(BUILD)/fuzz/fuzz_cm_codec -max_total_time=$(FUZZ_SECONDS) $(BUILD)/fuzz/corpus_cm
	# mutants of real traces through tsreplay on lavapipe (tests/fuzz/replay_mutants.sh)
	$(MAKE) all
	BUILD=$(BUILD) sh tests/fuzz/replay_mutants.sh $(FUZZ_MUTANTS)

# The Vulkan backend against the null device (tests/fuzz/vk_null.c) with
# libFuzzer, from tests/fuzz/corpus_vk_null, its mutations sbt_mutate's
# checksum-keeping ones (tests/fuzz/sbt_fuzz_mutator.c); then VK_NULL_MUTANTS (2000)
# structure-aware mutants of each corpus trace (checksums kept valid:
# tests/fuzz/vk_null_mutants.sh) through the sanitizer build of make asan.
VK_NULL_MUTANTS ?= 2000
fuzz: fuzz-vk-null
.PHONY: fuzz-vk-null
fuzz-vk-null:
	@mkdir -p $(BUILD)/fuzz/corpus_vk_null
	$(MAKE) BUILD=build/fuzzlib CC=clang CFLAGS="-O1 -g" SAN="-fsanitize=fuzzer-no-link,address" \
		build/fuzzlib/lib/libtsrp.a build/fuzzlib/lib/libtscap.a build/fuzzlib/lib/libtssbt.a
	clang $(WARN) -O1 -g -fsanitize=fuzzer,address -Dmain=sbt_mutate_main $(CPPFLAGS_ALL) tests/fuzz/fuzz_vk_null.c \
		tests/fuzz/vk_null.c tests/fuzz/sbt_mutate.c tests/fuzz/sbt_fuzz_mutator.c build/fuzzlib/lib/libtsrp.a build/fuzzlib/lib/libtscap.a build/fuzzlib/lib/libtssbt.a \
		$(filter-out -lvulkan,$(LDLIBS_ALL)) -o $(BUILD)/fuzz/fuzz_vk_null
	cp tests/fuzz/corpus_vk_null/* $(BUILD)/fuzz/corpus_vk_null/
	$(BUILD)/fuzz/fuzz_vk_null -max_total_time=$(FUZZ_SECONDS) -timeout=30 $(BUILD)/fuzz/corpus_vk_null
	$(MAKE) BUILD=build/asan CFLAGS="-O1 -g -fno-omit-frame-pointer" SAN="-fsanitize=address,undefined" \
		build/asan/tests/vk_null_main build/asan/tests/sbt_mutate
	BUILD=build/asan sh tests/fuzz/vk_null_mutants.sh $(VK_NULL_MUTANTS) tests/fuzz/corpus_vk_null/vk_compute \
		tests/fuzz/corpus_vk_null/vk_offscreen

# The libcuda double's image reader, from the fixture images.
fuzz-tcd-image:
	@mkdir -p $(BUILD)/fuzz/tcd_image_corpus
	clang $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined $(CPPFLAGS_ALL) tests/fuzz/fuzz_tcd_image.c \
		tests/doubles/cuda/tcd_image.c -llz4 -ldl -o $(BUILD)/fuzz/fuzz_tcd_image
	cp tests/fixtures/h100/*.cubin tests/fixtures/h100/*.fatbin tests/fixtures/nvcc13/*.fatbin \
		$(BUILD)/fuzz/tcd_image_corpus/
	$(BUILD)/fuzz/fuzz_tcd_image -max_total_time=$(FUZZ_SECONDS) $(BUILD)/fuzz/tcd_image_corpus

# The CUDA replay against the libcuda double under libFuzzer (tests/fuzz/fuzz_cu_replay.c,
# sbt_mutate's checksum-keeping mutations), seeded with the H100 traces; part of `make fuzz`.
FUZZ_CU_LIBS := build/fuzzcu/lib/libtsrp.a build/fuzzcu/lib/libtscap.a build/fuzzcu/lib/libtssbt.a
.PHONY: fuzz-cu-replay
fuzz: fuzz-cu-replay
fuzz-cu-replay:
	@mkdir -p $(BUILD)/fuzz/corpus_cu
	$(MAKE) BUILD=build/fuzzcu CC=clang CFLAGS="-O1 -g" SAN="-fsanitize=fuzzer-no-link,address,undefined" \
		$(FUZZ_CU_LIBS) build/fuzzcu/tests/doubles/cuda/libcuda.so.1
	clang $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Dmain=sbt_mutate_main \
		$(CPPFLAGS_ALL) tests/fuzz/fuzz_cu_replay.c tests/fuzz/sbt_mutate.c tests/fuzz/sbt_fuzz_mutator.c $(FUZZ_CU_LIBS) $(LDLIBS_ALL) \
		-o $(BUILD)/fuzz/fuzz_cu_replay
	cp tests/fixtures/h100/fixed-va/driver_cubin.sbt $(BUILD)/fuzz/corpus_cu/fixed_va_driver_cubin.sbt
	cp tests/fixtures/h100/as-captured/driver_cubin.sbt $(BUILD)/fuzz/corpus_cu/as_captured_driver_cubin.sbt
	cp tests/fixtures/h100/fixed-va/saxpy_static.sbt $(BUILD)/fuzz/corpus_cu/fixed_va_saxpy_static.sbt
	TRACESMITH_CUDA_DRIVER=$(CURDIR)/build/fuzzcu/tests/doubles/cuda/libcuda.so.1 TSCUDA_DOUBLE_QUIET=1 \
		ASAN_OPTIONS=detect_leaks=0 $(BUILD)/fuzz/fuzz_cu_replay -max_len=8000000 \
		-max_total_time=$(FUZZ_SECONDS) $(BUILD)/fuzz/corpus_cu

# Generated code: every generator is listed in scripts/regen.sh.
regen:
	sh scripts/regen.sh
check-regen:
	sh scripts/regen.sh --check

# The main job: capture a bundled program, show and replay its trace.
run: all
	sh scripts/demo.sh $(BUILD)

# make install: these files under $(DESTDIR)$(PREFIX); make uninstall removes
# the same list.  The implicit layer manifest goes to a folder of our own that
# the Vulkan loader does not search (tscapture puts it in XDG_DATA_DIRS), so
# that the explicit one is the only VK_LAYER_tracesmith the loader lists.
INST := $(DESTDIR)$(PREFIX)
INST_IMPLICIT := share/tracesmith/vulkan/implicit_layer.d
TS_VERSION := $(shell sed -n 's/^\#define TRACESMITH_VERSION "\(.*\)"/\1/p' include/tracesmith/version.h)
MAN_PAGES := $(wildcard docs/man/*.1)
INST_FILES := $(addprefix bin/,$(notdir $(TOOLS) $(EMU_TOOLS))) $(wildcard include/tracesmith/*.h) \
	$(addprefix lib/,$(notdir $(LIBS) $(LIB_TS_SO))) lib/pkgconfig/tracesmith.pc \
	$(addprefix share/doc/tracesmith/,$(notdir $(wildcard docs/*.md))) \
	$(addprefix share/man/man1/,$(notdir $(MAN_PAGES))) \
	$(if $(LAYER_SO),lib/tracesmith/libVkLayer_tracesmith.so \
		share/vulkan/explicit_layer.d/VkLayer_tracesmith.json $(INST_IMPLICIT)/VkLayer_tracesmith.json) \
	$(addprefix lib/tracesmith/,$(notdir $(TCU_SO) $(TNV_SO) $(THIP_SO)))
# Their folders, parents first.  install writes the ones it had to create to
# share/tracesmith/install-folders; uninstall removes those, and our own
# (the ones named tracesmith), once empty.
INST_DIRS := bin include include/tracesmith lib lib/pkgconfig share share/doc share/doc/tracesmith \
	share/man share/man/man1 share/tracesmith \
	$(if $(LAYER_SO)$(TCU_SO)$(THIP_SO),lib/tracesmith) \
	$(if $(LAYER_SO),share/vulkan share/vulkan/explicit_layer.d share/tracesmith/vulkan $(INST_IMPLICIT))
INST_OWN_DIRS := include/tracesmith lib/tracesmith share/doc/tracesmith share/tracesmith \
	share/tracesmith/vulkan $(INST_IMPLICIT)
# Where installs before this layout put the implicit manifest (the loader
# then listed the layer twice): install and uninstall remove it, and its
# folder once empty.
INST_OLD_IMPLICIT := share/vulkan/implicit_layer.d/VkLayer_tracesmith.json
INST_RM_OLD_IMPLICIT := rm -f $(INST)/$(INST_OLD_IMPLICIT); \
	if [ -d $(INST)/$(dir $(INST_OLD_IMPLICIT)) ]; then rmdir $(INST)/$(dir $(INST_OLD_IMPLICIT)) 2>/dev/null || :; fi

install: all
	@made=$$(cat $(INST)/share/tracesmith/install-folders 2>/dev/null); \
	for d in $(INST_DIRS); do [ -d $(INST)/$$d ] || made="$$made $$d"; done; \
	install -d $(addprefix $(INST)/,$(INST_DIRS)) && \
	for d in $$made; do echo $$d; done | sort -u >$(INST)/share/tracesmith/install-folders
	install -m 755 $(TOOLS) $(EMU_TOOLS) $(INST)/bin/
	install -m 644 include/tracesmith/*.h $(INST)/include/tracesmith/
	install -m 644 $(LIBS) $(INST)/lib/
	install -m 755 $(BUILD)/lib/libtracesmith.so.1 $(INST)/lib/
	ln -sf libtracesmith.so.1 $(INST)/lib/libtracesmith.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(TS_VERSION)|' serializer/lib/tracesmith.pc.in \
		>$(INST)/lib/pkgconfig/tracesmith.pc
	install -m 644 docs/*.md $(INST)/share/doc/tracesmith/
	install -m 644 $(MAN_PAGES) $(INST)/share/man/man1/
	if [ -n "$(LAYER_SO)" ]; then \
		install -m 755 $(BUILD)/layers/libVkLayer_tracesmith.so $(INST)/lib/tracesmith/; \
		sed 's|@LIBRARY_PATH@|$(PREFIX)/lib/tracesmith/libVkLayer_tracesmith.so|' \
			layers/vulkan/VkLayer_tracesmith.json.in >$(INST)/share/vulkan/explicit_layer.d/VkLayer_tracesmith.json; \
		sed 's|@LIBRARY_PATH@|$(PREFIX)/lib/tracesmith/libVkLayer_tracesmith.so|' \
			layers/vulkan/VkLayer_tracesmith_implicit.json.in >$(INST)/$(INST_IMPLICIT)/VkLayer_tracesmith.json; \
		$(INST_RM_OLD_IMPLICIT); \
	fi
	if [ -n "$(TCU_SO)" ]; then \
		install -m 755 $(TCU_SO) $(TNV_SO) $(INST)/lib/tracesmith/; \
	fi
	if [ -n "$(THIP_SO)" ]; then \
		install -m 755 $(THIP_SO) $(INST)/lib/tracesmith/; \
	fi

uninstall:
	rm -f $(addprefix $(INST)/,$(INST_FILES))
	@$(INST_RM_OLD_IMPLICIT)
	@list=$$(cat $(INST)/share/tracesmith/install-folders 2>/dev/null); \
	rm -f $(INST)/share/tracesmith/install-folders; \
	for d in $$(for d in $$list $(INST_OWN_DIRS); do echo $$d; done | sort -ru); do \
		if [ -d $(INST)/$$d ] && ! rmdir $(INST)/$$d 2>/dev/null; then \
			echo "uninstall: $(INST)/$$d is not empty: left"; fi; \
	done

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(BUILD)/obj_dispatch -name '*.d' 2>/dev/null)
