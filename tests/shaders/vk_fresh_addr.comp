#version 450
// tests/programs/vk_fresh's part 3: writes count words through a buffer
// device address pushed as a constant (GL_EXT_buffer_reference), so the
// only way to the memory is the address the program asked for.
#extension GL_EXT_buffer_reference : require

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words {
	uint w[];
};

layout(push_constant) uniform Push {
	Words dst;
	uint count;
	uint seed;
} p;

layout(local_size_x = 64) in;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < p.count)
		p.dst.w[i] = (i * 2654435761u) ^ p.seed;
}
