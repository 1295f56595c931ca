#version 450
// vk_partial's kernel (tests/programs/vk_partial.c): y[i] = 3 * i + 1, or
// extra.x[i] when the push constant use_extra is not 0.  The program never
// sets it: binding 1 is statically used and dynamically never reached
// (which lets a PARTIALLY_BOUND binding 1 stay unwritten).  The layout's
// set 1 is used by nothing here.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Outputs {
	uint y[];
} outputs;
layout(std430, set = 0, binding = 1) readonly buffer Extra {
	uint x[];
} extra;
layout(push_constant) uniform Push {
	uint count;
	uint use_extra;
} push;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < push.count)
		outputs.y[i] = push.use_extra != 0u ? extra.x[i] : 3u * i + 1u;
}
