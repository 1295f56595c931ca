#version 450
// vk_callbound's kernel: one invocation folds the pushed words into a small
// table, so the program's result depends on every push that reached the
// device (a lost or reordered push changes the final hash).
layout(local_size_x = 1) in;

layout(push_constant) uniform Push {
	uint a;
	uint b;
	uint c;
	uint d;
} pc;
layout(std430, set = 0, binding = 0) buffer Table {
	uint v[256];
} table;

void main()
{
	uint k = pc.a & 255u;
	table.v[k] = table.v[k] * 31u + (pc.b ^ (pc.c << 7) ^ (pc.d >> 3));
}
