#version 450
// vk_trim_churn --xfb: vk_tri.vert's position, also written to transform
// feedback buffer 0 (one vec4 a vertex).
layout(location = 0) in vec2 in_pos;
layout(location = 1) in vec3 in_color;
layout(xfb_buffer = 0, xfb_stride = 16) out;
layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out vec4 out_pos;

layout(push_constant) uniform Push {
	vec2 offset;
	float scale;
} pc;

void main()
{
	vec4 p = vec4(in_pos * pc.scale + pc.offset, 0.0, 1.0);
	gl_Position = p;
	out_pos = p + vec4(in_color, 0.0);
}
