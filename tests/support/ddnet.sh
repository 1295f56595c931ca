# ddnet.sh - DDNet for the tests and benchmarks.  Source it after
# vk_env.sh.
#
#   ddnet_shaders LOG   compile DDNet 16.4's Vulkan shaders into
#                       $HOME/.local/share/ddnet/shader/vulkan (set HOME to a
#                       private folder first); glslangValidator's output in
#                       LOG.  Debian's ddnet ships the GLSL of its Vulkan
#                       shaders but not the SPIR-V its backend loads (without
#                       it DDNet falls back to OpenGL); the outputs and
#                       defines are those of DDNet 16.4's
#                       cmake/BuildVulkanShaders.cmake.
#   DDNET               the game's path

DDNET=/usr/games/DDNet

ddnet_shaders() {
	dd_src=/usr/share/games/ddnet/data/shader/vulkan
	dd_spv=$HOME/.local/share/ddnet/shader/vulkan
	mkdir -p "$dd_spv"
	while read -r out src defs; do
		# shellcheck disable=SC2086
		glslangValidator --quiet --client vulkan100 $defs "$dd_src/$src" -o "$dd_spv/$out.spv" \
			>"$1" 2>&1 || vk_env_fail "glslangValidator $defs $dd_src/$src: $(tail -3 "$1")"
	done <<'EOF'
prim.frag prim.frag
prim_textured.frag prim.frag -DTW_TEXTURED
prim.vert prim.vert
prim_textured.vert prim.vert -DTW_TEXTURED
prim3d.frag prim3d.frag
prim3d_textured.frag prim3d.frag -DTW_TEXTURED
prim3d.vert prim3d.vert
prim3d_textured.vert prim3d.vert -DTW_TEXTURED
text.frag text.frag
text.vert text.vert
primex.frag primex.frag
primex.vert primex.vert
primex_rotationless.frag primex.frag
primex_rotationless.vert primex.vert -DTW_ROTATIONLESS
primex_tex.frag primex.frag -DTW_TEXTURED
primex_tex.vert primex.vert
primex_tex_rotationless.frag primex.frag -DTW_TEXTURED
primex_tex_rotationless.vert primex.vert -DTW_ROTATIONLESS
spritemulti.frag spritemulti.frag
spritemulti.vert spritemulti.vert
spritemulti_push.frag spritemulti.frag -DTW_PUSH_CONST
spritemulti_push.vert spritemulti.vert -DTW_PUSH_CONST
tile.frag tile.frag
tile.vert tile.vert
tile_textured.frag tile.frag -DTW_TILE_TEXTURED
tile_textured.vert tile.vert -DTW_TILE_TEXTURED
tile_border.frag tile.frag -DTW_TILE_BORDER
tile_border.vert tile.vert -DTW_TILE_BORDER
tile_border_textured.frag tile.frag -DTW_TILE_BORDER -DTW_TILE_TEXTURED
tile_border_textured.vert tile.vert -DTW_TILE_BORDER -DTW_TILE_TEXTURED
tile_border_line.frag tile.frag -DTW_TILE_BORDER_LINE
tile_border_line.vert tile.vert -DTW_TILE_BORDER_LINE
tile_border_line_textured.frag tile.frag -DTW_TILE_BORDER_LINE -DTW_TILE_TEXTURED
tile_border_line_textured.vert tile.vert -DTW_TILE_BORDER_LINE -DTW_TILE_TEXTURED
quad.frag quad.frag
quad.vert quad.vert
quad_push.frag quad.frag -DTW_PUSH_CONST
quad_push.vert quad.vert -DTW_PUSH_CONST
quad_textured.frag quad.frag -DTW_QUAD_TEXTURED
quad_textured.vert quad.vert -DTW_QUAD_TEXTURED
quad_push_textured.frag quad.frag -DTW_QUAD_TEXTURED -DTW_PUSH_CONST
quad_push_textured.vert quad.vert -DTW_QUAD_TEXTURED -DTW_PUSH_CONST
EOF
}
