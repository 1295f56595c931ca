#version 450
// vk_hang's kernel: each invocation spins while the "go" word is 0, then
// writes y[0] = turns, y[1] = go ^ 0xE0000000 (invocation 0 only).
// vk_hang writes a non-zero go word, so at capture every invocation ends at
// once; a trace edited to replay go as 0 gives a dispatch that does not
// finish for hours (tests/shell/test_vk_hostile_hang.sh).
//
// It cannot spin for ever on lavapipe: llvmpipe ends every loop of an
// invocation after 65535 turns in all (one counter for the whole
// invocation, nested loops included; vk_hang --go 0 prints 65535).  So each
// turn does 256 rounds of integer mixing (unrolled: no loop of its own),
// and vk_hang dispatches 65535 workgroups of 64: 2^32 invocations-turns of
// 256 rounds each, where the capture's run executes no turn at all.
// The buffer is coherent and volatile so every turn reads the word again.
layout(local_size_x = 64) in;

layout(std140, set = 0, binding = 0) uniform Params {
	uint unused;
} params;
layout(std430, set = 0, binding = 1) coherent volatile readonly buffer Go {
	uint go;
} flag;
layout(std430, set = 0, binding = 2) buffer Outputs {
	uint y[];
} outputs;

#define VKH_MIX(v) v = (v ^ (v >> 15)) * 0x2C1B3C6Du
#define VKH_MIX4(v) VKH_MIX(v); VKH_MIX(v); VKH_MIX(v); VKH_MIX(v)
#define VKH_MIX16(v) VKH_MIX4(v); VKH_MIX4(v); VKH_MIX4(v); VKH_MIX4(v)
#define VKH_MIX256(v) VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v); \
	VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v); \
	VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v); \
	VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v); VKH_MIX16(v)

void main()
{
	uint turns = 0u, v = gl_GlobalInvocationID.x;
	while (flag.go == 0u) {
		turns++;
		VKH_MIX256(v);
	}
	if (gl_GlobalInvocationID.x == 0u) {
		outputs.y[0] = turns;
		outputs.y[1] = flag.go ^ 0xE0000000u;
	}
	// the mixing must stay: its result decides a store
	if (v == 0x7FFFFFFFu && turns != 0u)
		outputs.y[2] = v;
}
