#version 450
// vk_trim_image's reader of its storage image: words[y * width + x] is
// texel (x, y) of the R32_UINT image, so a test sees the image's contents
// in a buffer without a copy from the image (which has no transfer-source
// usage of its own: the capture layer adds it while it tracks).
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D img;
layout(std430, set = 0, binding = 1) writeonly buffer Words {
	uint words[];
} outputs;

void main()
{
	ivec2 size = imageSize(img);
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	if (p.x < size.x && p.y < size.y)
		outputs.words[p.y * size.x + p.x] = imageLoad(img, p).r;
}
