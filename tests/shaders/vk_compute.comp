#version 450
// vk_compute's kernel: y[i] = vkc_mix(x[i], round), a pure function of the
// input word and the round.  Every result has its top nibble set to 0xE,
// every input word the program writes has it at 0x1, so no result word can
// equal an input word: a test can look for result bytes in a trace and know
// that finding them means device-written memory was captured as host input.
// tests/programs/vk_compute.c computes the same function on the CPU.
layout(local_size_x = 64) in;

layout(std140, set = 0, binding = 0) uniform Params {
	uint count;
	uint round_index;
} params;
layout(std430, set = 0, binding = 1) readonly buffer Inputs {
	uint x[];
} inputs;
layout(std430, set = 0, binding = 2) writeonly buffer Outputs {
	uint y[];
} outputs;

uint vkc_mix(uint v, uint r)
{
	v ^= r * 0x9E3779B9u;
	v ^= v >> 16;
	v *= 0x85EBCA6Bu;
	v ^= v >> 13;
	v *= 0xC2B2AE35u;
	v ^= v >> 16;
	return (v & 0x0FFFFFFFu) | 0xE0000000u;
}

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < params.count)
		outputs.y[i] = vkc_mix(inputs.x[i], params.round_index);
}
