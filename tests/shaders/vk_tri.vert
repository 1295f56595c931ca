#version 450
// vk_offscreen's vertex stage: positions and colours from the vertex
// buffer, a per-draw offset and scale from push constants.
layout(location = 0) in vec2 in_pos;
layout(location = 1) in vec3 in_color;
layout(location = 0) out vec3 out_color;

layout(push_constant) uniform Push {
	vec2 offset;
	float scale;
} pc;

void main()
{
	gl_Position = vec4(in_pos * pc.scale + pc.offset, 0.0, 1.0);
	out_color = in_color;
}
