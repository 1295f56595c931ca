#!/bin/sh
# piglit's GLSL shader tests (piglit 2022-01, shader_runner) on Mesa 22.3's
# zink under the layer: OpenGL on Vulkan, each test a small GL program
# whose Vulkan command stream is zink's (compute, tessellation, geometry,
# atomics, images, 64-bit types, subgroups, transform of every kind of
# shader input).  The whole corpus (2,371 tests) was run by hand on
# 2026-11-28 (docs/vulkan-layer.md); this test runs one test of each of
# the 55 folders where the corpus passes with between 2 and 60
# checkpoints, and the tests the faults found there were seen in, with
# one of piglit's other programs.
#
# For each, on a private Xvfb with the validation layer below ours:
#   - zink alone: piglit's result is pass, no VUID- line;
#   - under VK_INSTANCE_LAYERS=VK_LAYER_tracesmith: pass, no VUID- line;
#   - tsreplay --validate of the trace: exit 0, every checkpoint matched,
#     no VUID- line.
# The faults' tests:
#   - arb_compute_shader basic-texelFetch: its pipeline layout has three
#     sets with bindings, and tsreplay read that count as a buffer whose
#     memory was freed and refused the submit;
#   - arb_texture_buffer_object-formats (fs gpu_shader4): a samplerBuffer,
#     an OpTypeSampledImage of an image of Dim Buffer, which tsreplay took
#     for a combined image sampler where the layout has a uniform texel
#     buffer, and refused the pipeline;
#   - fbo-3d: 2D views of a 3D image's slices, whose layers tsreplay
#     judged against the image's one array layer, refusing the view;
#   - three tests whose shaders zink makes with no capability for
#     OpDemoteToHelperInvocation or ViewportIndex, or an OpAtomicFAddEXT on
#     a pointer to another type (lavapipe compiles them): tsreplay stops at
#     the module, naming --no-spirv-check, and with it replays them with a
#     warning per module and every checkpoint matched.
# (The crash at exit, OpenSSL started by libdw's debuginfod client on the
# writer thread, is checked where it can be made certain:
# test_capture_stacks.sh.)
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT INT TERM
PIG=/usr/lib/x86_64-linux-gnu/piglit
[ -x "$PIG/bin/shader_runner" ] || fail "piglit is not installed (piglit, scripts/deps.sh)"
vk_env_init
vk_env_zink "$T/xdg"
vk_env_xvfb_start

n=0
# check NAME [TSREPLAY-FLAGS] -- COMMAND...: COMMAND on zink alone, under
# our layer and replayed; sets m (its checkpoints) and last (its folder).
check() {
	name=$1
	shift
	flags=
	while [ "$1" != -- ]; do
		flags="$flags $1"
		shift
	done
	shift
	d=$T/$n
	n=$((n + 1))
	mkdir "$d"
	vk_env_layers_validation
	vk_env_run "$d/plain.log" timeout 120 "$@" || fail "$name on zink alone"
	grep -q '"result": "pass"' "$d/plain.log" || fail "$name on zink alone: $(tail -2 "$d/plain.log")"
	vk_env_layers_ours
	TRACESMITH_OUTPUT=$d/t.sbt vk_env_run "$d/ours.log" timeout 120 "$@" ||
		fail "$name under our layer"
	grep -q '"result": "pass"' "$d/ours.log" || fail "$name under our layer: $(tail -2 "$d/ours.log")"
	m=$("$BUILD/tsinfo" --dump "$d/t.sbt" | grep -c ' checkpoint ' || :)
	[ "$m" -gt 0 ] || fail "$name: the trace holds no checkpoint"
	vk_env_layers_none
	# shellcheck disable=SC2086 # flags: words
	vk_env_run "$d/replay.log" timeout 300 "$BUILD/tsreplay" --validate $flags "$d/t.sbt" ||
		fail "$name: tsreplay --validate$flags"
	grep -q "checkpoints: $m compared, $m matched, 0 differ" "$d/replay.log" ||
		fail "$name, replayed: $(grep 'checkpoints:' "$d/replay.log") ($m in the trace)"
	last=$d
}

# one NAME [TSREPLAY-FLAGS]: the shader test spec/NAME.shader_test
one() {
	f=$PIG/tests/spec/$1.shader_test
	[ -f "$f" ] || fail "$1: no $f"
	check "$@" -- "$PIG/bin/shader_runner" "$f" -auto -fbo
}

total=0
while read -r name; do
	one "$name"
	total=$((total + m))
done <<EOF
amd_shader_trinary_minmax/execution/max3-basic
arb_arrays_of_arrays/execution/atomic_counters/fs-indirect-index
arb_compute_shader/execution/atomic-counter
arb_compute_variable_group_size/execution/basic-local-size
arb_cull_distance/basic-cull-1
arb_derivative_control/execution/derivatives-vs-flat-input
arb_draw_instanced/execution/draw-non-instanced
arb_enhanced_layouts/execution/component-layout/fs-output
arb_fragment_coord_conventions/fp-arb-fragment-coord-conventions-none
arb_fragment_layer_viewport/layer-gs-no-write
arb_fragment_program/dph
arb_fragment_program_shadow/masked
arb_get_program_binary/execution/uniform-after-restore
arb_gl_spirv/execution/ssbo/aoa-2
arb_gpu_shader5/execution/built-in-functions/const-bitCount
arb_gpu_shader_fp64/execution/built-in-functions/const-fma-double
arb_gpu_shader_int64/execution/fs-conversion-b2i64
arb_provoking_vertex/clipped-strip-first
arb_separate_shader_objects/execution/layout-location-block-with-struct-member
arb_shader_atomic_counter_ops/execution/add
arb_shader_atomic_counters/execution/fs-layout
arb_shader_ballot/execution/fs-ballot-if-else
arb_shader_bit_encoding/execution/and-clamp
arb_shader_group_vote/cs-all
arb_shader_image_load_store/execution/basic-imageStore-from-uniform
arb_shader_storage_buffer_object/execution/basic
arb_shader_subroutine/execution/array-subroutines-explicit-location
arb_shader_texture_lod/execution/glsl-fs-shadow2DGradARB-02
arb_shading_language_420pack/execution/aggregate-dynamic-initializer-matrix
arb_shading_language_include/execution/associated_strings
arb_tessellation_shader/execution/16in-1out
arb_texture_query_levels/execution/fs-baselevel
arb_texture_query_lod/execution/fs-textureQueryLOD-linear
arb_texture_rectangle/glsl-fs-shadow2DRect-02
arb_uniform_buffer_object/2-buffers-bug
arb_vertex_attrib_64bit/execution/vs-fp64-input-trunc
arb_vertex_program/arl
ext_demote_to_helper_invocation/execution/demote
ext_gpu_shader4/execution/fs-shift-left-of-shift-left
ext_shader_integer_mix/execution/fs-mix-bvec4
ext_texture_array/glsl-fs-shadow1DArray-02
gl-3.1/attributeless-vertexid
glsl-1.10/execution/algebraic/glsl-algebraic-add-add-1
glsl-1.20/compiler/unused-const-array
glsl-1.30/execution/clipping/fs-clip-distance-explicitly-sized
glsl-1.40/execution/gl_DepthRangeParameters
glsl-1.40-compat/execution/built-in-constants
glsl-1.50/execution/compatibility/clipping/gs-clip-vertex-const-accept
glsl-3.30/execution/glsl-bug-109601
glsl-4.40/execution/fs-interpolateAtCentroid-swizzle
glsl-4.50/execution/helper-invocation
mesa_shader_integer_functions/execution/built-in-functions/const-bitCount
nv_shader_atomic_float/execution/shared-atomicExchange-float
nv_shader_atomic_int64/execution/shared-atomicAdd-int
scope_limits_in_loop/do-while-scope-var-in
arb_compute_shader/execution/basic-texelFetch
EOF
# A uniform texel buffer read through GLSL's samplerBuffer: the shader's
# variable is an OpTypeSampledImage of an image of Dim Buffer, which
# tsreplay took for a combined image sampler and refused the pipeline.
PIGLIT_SOURCE_DIR=$PIG
export PIGLIT_SOURCE_DIR
check "arb_texture_buffer_object-formats fs gpu_shader4" -- \
	"$PIG/bin/arb_texture_buffer_object-formats" fs gpu_shader4 -auto -fbo
total=$((total + m))
# Rendering into slices of a 3D texture: zink's 2D views of a 3D image
# made 2D-array compatible take a depth slice as their layer, which
# tsreplay refused as a layer outside the image.
check fbo-3d -- "$PIG/bin/fbo-3d" -auto -fbo
total=$((total + m))
echo "ok: $n piglit tests pass on zink as without the layer, $total checkpoints matched in their replays"

# Shader code lavapipe takes and SPIRV-Tools does not: the replay stops at
# the module and names the way past; with it, each replays.  (Not
# ssbo-atomicAdd-float, whose fragments colour themselves by the order
# their atomicAdd ran in: its image is not fixed by the program, and one
# .ci/run replayed it with other pixels.  shared-atomicAdd-float leaves
# only counts.)
k=0
for name in ext_demote_to_helper_invocation/execution/demote_with_derivatives \
	arb_fragment_layer_viewport/viewport-gs-write-simple \
	nv_shader_atomic_float/execution/shared-atomicAdd-float; do
	one "$name" --no-spirv-check
	grep -q "^tsreplay: warning: record seq [0-9]* vkCreateShaderModule: the shader code is not valid SPIR-V (.*); passed to the driver (--no-spirv-check)$" \
		"$last/replay.log" || fail "$name: no warning of the module passed on: $(grep warning "$last/replay.log")"
	rc=0
	"$BUILD/tsreplay" "$last/t.sbt" >"$last/strict.log" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || fail "$name: tsreplay without --no-spirv-check exited $rc, expected 1"
	grep -q "vkCreateShaderModule: the shader module is not valid SPIR-V (.*); tsreplay --no-spirv-check passes it to the driver$" \
		"$last/strict.log" || fail "$name: without --no-spirv-check: $(tail -3 "$last/strict.log")"
	k=$((k + 1))
done
echo "ok: $k traces with shader code SPIRV-Tools rejects stop without --no-spirv-check and replay with it"
