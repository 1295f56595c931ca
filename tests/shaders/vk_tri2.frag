#version 450
// vk_dynstate --mrt: vk_tri.frag's colour into attachment 0 and its
// complement into attachment 1 (which the program masks with
// vkCmdSetColorWriteEnableEXT, so it keeps its clear colour).
layout(location = 0) in vec3 in_color;
layout(location = 0) out vec4 out_frag;
layout(location = 1) out vec4 out_second;

void main()
{
	out_frag = vec4(in_color, 1.0);
	out_second = vec4(vec3(1.0) - in_color, 1.0);
}
