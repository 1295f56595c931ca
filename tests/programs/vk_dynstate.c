/*
 * vk_dynstate - a graphics program whose pipelines leave most of their state
 * to the command buffer, for the replay's dynamic-state and framebuffer
 * checks (docs/hostile-traces.md, tests/shell/test_vk_hostile_dynamic.sh).
 *
 * Vulkan 1.3 (the extended dynamic states are core there).  One render pass
 * over a colour and a depth/stencil image.  Pipeline "tri" (triangle list)
 * leaves to the command buffer: viewport, scissor, line width, depth bias,
 * blend constants, depth bounds, the three stencil masks and reference,
 * cull mode, front face, primitive topology, depth test, write and compare
 * op, depth bounds test, stencil test and op, rasterizer discard, depth
 * bias and primitive restart enables, and the vertex input binding stride.
 * Pipeline "line" (a static line list) leaves the same but the topology.
 * Each state is set once with one call, in this order, after "tri" is bound:
 * vkCmdSetViewport, vkCmdSetScissor, vkCmdSetLineWidth, vkCmdSetDepthBias,
 * vkCmdSetBlendConstants, vkCmdSetDepthBounds, vkCmdSetStencilCompareMask,
 * vkCmdSetStencilWriteMask, vkCmdSetStencilReference, vkCmdSetCullMode,
 * vkCmdSetFrontFace, vkCmdSetPrimitiveTopology, vkCmdSetDepthTestEnable,
 * vkCmdSetDepthWriteEnable, vkCmdSetDepthCompareOp,
 * vkCmdSetDepthBoundsTestEnable (VK_FALSE: lavapipe lacks the depthBounds
 * feature), vkCmdSetStencilTestEnable, vkCmdSetStencilOp,
 * vkCmdSetRasterizerDiscardEnable, vkCmdSetDepthBiasEnable (VK_TRUE),
 * vkCmdSetPrimitiveRestartEnable, then vkCmdBindVertexBuffers2 with a
 * stride.  The blend of "tri" uses the constants (CONSTANT_COLOR).  Then
 * one triangle draw, "line" bound, one line draw.
 *
 * usage: vk_dynstate [--imageless] [--secondary] [--library] [--execute] [--indexed] [--eds3]
 *                    [--more] [--inline] [--mrt] [--write-count N]
 *   --imageless   the framebuffer is imageless (VK_FRAMEBUFFER_CREATE_
 *                 IMAGELESS_BIT, core 1.2): its views are given when the
 *                 render pass begins (VkRenderPassAttachmentBeginInfo)
 *   --secondary   the binds, state and draws are recorded in a secondary
 *                 command buffer the render pass executes
 *   --library     "tri" is linked from four pipeline libraries
 *                 (VK_EXT_graphics_pipeline_library), each leaving its
 *                 part's states dynamic (all but the topology, which is
 *                 then not set)
 *   --execute     the primary command buffer first executes a secondary
 *                 one (outside the render pass: it fills a scratch buffer),
 *                 then binds "tri", sets every state, binds the vertex
 *                 buffer and pushes its constants before it begins the
 *                 render pass (inline) and draws: state set after
 *                 vkCmdExecuteCommands, as the specification asks (it
 *                 leaves the primary's state undefined)
 *   --indexed     with --execute: the pipeline layout also has a descriptor
 *                 set (a uniform buffer the shaders do not read), which the
 *                 primary binds after the execute with an index buffer
 *                 (indices 0, 1, 2), and the triangle is drawn with
 *                 vkCmdDrawIndexed: the same pixels
 *   --eds3        VK_EXT_extended_dynamic_state3: both pipelines also
 *                 leave to the command buffer the 16 states lavapipe
 *                 22.3.6 has (tessellation domain origin, depth clamp
 *                 enable, polygon mode, rasterization samples, sample
 *                 mask, alpha to coverage and alpha to one enables, logic
 *                 op enable, color blend enable and equation, color write
 *                 mask, depth clip enable, provoking vertex mode, line
 *                 rasterization mode, line stipple enable, depth clip
 *                 negative one to one; with VK_EXT_depth_clip_enable,
 *                 VK_EXT_depth_clip_control, VK_EXT_provoking_vertex and
 *                 VK_EXT_line_rasterization), each set with one call after
 *                 the others, in this order, to the values the static
 *                 state has
 *   --inline      with --library: the two shader libraries give their
 *                 shader code in the stage's pNext (VkShaderModuleCreateInfo,
 *                 module VK_NULL_HANDLE), not as a shader module
 *   --more        the states of the other extensions lavapipe 22.3.6 has:
 *                 both pipelines also leave to the command buffer the
 *                 vertex input (VK_EXT_vertex_input_dynamic_state), the
 *                 line stipple (VK_EXT_line_rasterization: Bresenham lines,
 *                 stippled), the logic op (VK_EXT_extended_dynamic_state2;
 *                 the logic op is enabled, COPY) and the colour write
 *                 enable (VK_EXT_color_write_enable), set in this order
 *                 after the others by vkCmdSetVertexInputEXT,
 *                 vkCmdSetLineStippleEXT, vkCmdSetLogicOpEXT and
 *                 vkCmdSetColorWriteEnableEXT (not with --eds3 or
 *                 --library)
 *   --mrt         with --more: a second colour attachment (attachment 2 of
 *                 the render pass, colour attachment 1 of the subpass,
 *                 cleared to red), written by the fragment shader
 *                 (vk_tri2.frag: the complement of attachment 0's colour)
 *                 and masked: vkCmdSetColorWriteEnableEXT gives VK_TRUE,
 *                 VK_FALSE.  The program checks that attachment 1 holds
 *                 its clear colour everywhere after the draws
 *   --write-count N  with --mrt: vkCmdSetColorWriteEnableEXT's
 *                 attachmentCount (default 2, from 2 to 16; those from 2
 *                 on are VK_FALSE).  The specification asks at least the
 *                 pipeline's 2 and at most maxColorAttachments (lavapipe's
 *                 8): a larger count is invalid usage, for a hostile trace
 *                 captured without the validation layer
 *                 (tests/shell/test_vk_hostile_colorwrite.sh)
 * Prints the XXH3-64 hash of the colour image (RGBA8, 64 x 64; with --mrt,
 * of both colour images, attachment 0's rows then attachment 1's).
 */
#include "tests/programs/vk_prog.h"

#define VKD_SIZE 64u
#define VKD_PIXELS (VKD_SIZE * VKD_SIZE)
/* --mrt's second attachment's clear colour, as RGBA8 in memory */
#define VKD_CLEAR2 0xff000080u
#define VKD_COLOR VK_FORMAT_R8G8B8A8_UNORM

typedef struct vkd_vertex {
	float pos[2];
	float color[3];
} vkd_vertex;

static const VkDynamicState vkd_dyn[] = {
	VK_DYNAMIC_STATE_VIEWPORT,
	VK_DYNAMIC_STATE_SCISSOR,
	VK_DYNAMIC_STATE_LINE_WIDTH,
	VK_DYNAMIC_STATE_DEPTH_BIAS,
	VK_DYNAMIC_STATE_BLEND_CONSTANTS,
	VK_DYNAMIC_STATE_DEPTH_BOUNDS,
	VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK,
	VK_DYNAMIC_STATE_STENCIL_WRITE_MASK,
	VK_DYNAMIC_STATE_STENCIL_REFERENCE,
	VK_DYNAMIC_STATE_CULL_MODE,
	VK_DYNAMIC_STATE_FRONT_FACE,
	VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE,
	VK_DYNAMIC_STATE_DEPTH_WRITE_ENABLE,
	VK_DYNAMIC_STATE_DEPTH_COMPARE_OP,
	VK_DYNAMIC_STATE_DEPTH_BOUNDS_TEST_ENABLE,
	VK_DYNAMIC_STATE_STENCIL_TEST_ENABLE,
	VK_DYNAMIC_STATE_STENCIL_OP,
	VK_DYNAMIC_STATE_RASTERIZER_DISCARD_ENABLE,
	VK_DYNAMIC_STATE_DEPTH_BIAS_ENABLE,
	VK_DYNAMIC_STATE_PRIMITIVE_RESTART_ENABLE,
	VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE,
	VK_DYNAMIC_STATE_PRIMITIVE_TOPOLOGY, /* last: "line" has it static */
};
#define VKD_NDYN (uint32_t)(sizeof(vkd_dyn) / sizeof(vkd_dyn[0]))

/* vkd_dyn by the part of the pipeline each state belongs to: the vertex
 * input interface, pre-rasterization shaders, fragment shader and
 * fragment output (the specification's graphics pipeline library parts).
 * The topology stays static: the 1.3.239 validation layer does not find a
 * linked pipeline's topology (VUID-vkCmdDraw-primitiveTopology-03420,
 * "Unhandled VkPrimitiveTopology"). */
static const VkDynamicState vkd_dyn_vertex[] = {
	VK_DYNAMIC_STATE_PRIMITIVE_RESTART_ENABLE, VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE,
};
static const VkDynamicState vkd_dyn_raster[] = {
	VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR, VK_DYNAMIC_STATE_LINE_WIDTH,
	VK_DYNAMIC_STATE_DEPTH_BIAS, VK_DYNAMIC_STATE_CULL_MODE, VK_DYNAMIC_STATE_FRONT_FACE,
	VK_DYNAMIC_STATE_RASTERIZER_DISCARD_ENABLE, VK_DYNAMIC_STATE_DEPTH_BIAS_ENABLE,
};
static const VkDynamicState vkd_dyn_fragment[] = {
	VK_DYNAMIC_STATE_DEPTH_BOUNDS, VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK,
	VK_DYNAMIC_STATE_STENCIL_WRITE_MASK, VK_DYNAMIC_STATE_STENCIL_REFERENCE,
	VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE, VK_DYNAMIC_STATE_DEPTH_WRITE_ENABLE,
	VK_DYNAMIC_STATE_DEPTH_COMPARE_OP, VK_DYNAMIC_STATE_DEPTH_BOUNDS_TEST_ENABLE,
	VK_DYNAMIC_STATE_STENCIL_TEST_ENABLE, VK_DYNAMIC_STATE_STENCIL_OP,
};
static const VkDynamicState vkd_dyn_output[] = { VK_DYNAMIC_STATE_BLEND_CONSTANTS };

/* --eds3: vkd_dyn, then these (the topology still last) */
static const VkDynamicState vkd_dyn3[] = {
	VK_DYNAMIC_STATE_TESSELLATION_DOMAIN_ORIGIN_EXT,
	VK_DYNAMIC_STATE_DEPTH_CLAMP_ENABLE_EXT,
	VK_DYNAMIC_STATE_POLYGON_MODE_EXT,
	VK_DYNAMIC_STATE_RASTERIZATION_SAMPLES_EXT,
	VK_DYNAMIC_STATE_SAMPLE_MASK_EXT,
	VK_DYNAMIC_STATE_ALPHA_TO_COVERAGE_ENABLE_EXT,
	VK_DYNAMIC_STATE_ALPHA_TO_ONE_ENABLE_EXT,
	VK_DYNAMIC_STATE_LOGIC_OP_ENABLE_EXT,
	VK_DYNAMIC_STATE_COLOR_BLEND_ENABLE_EXT,
	VK_DYNAMIC_STATE_COLOR_BLEND_EQUATION_EXT,
	VK_DYNAMIC_STATE_COLOR_WRITE_MASK_EXT,
	VK_DYNAMIC_STATE_DEPTH_CLIP_ENABLE_EXT,
	VK_DYNAMIC_STATE_PROVOKING_VERTEX_MODE_EXT,
	VK_DYNAMIC_STATE_LINE_RASTERIZATION_MODE_EXT,
	VK_DYNAMIC_STATE_LINE_STIPPLE_ENABLE_EXT,
	VK_DYNAMIC_STATE_DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT,
};
#define VKD_NDYN3 (uint32_t)(sizeof(vkd_dyn3) / sizeof(vkd_dyn3[0]))

/* --more: vkd_dyn, then these (the topology still last) */
static const VkDynamicState vkd_dyn_more[] = {
	VK_DYNAMIC_STATE_VERTEX_INPUT_EXT,
	VK_DYNAMIC_STATE_LINE_STIPPLE_EXT,
	VK_DYNAMIC_STATE_LOGIC_OP_EXT,
	VK_DYNAMIC_STATE_COLOR_WRITE_ENABLE_EXT,
};
#define VKD_NMORE (uint32_t)(sizeof(vkd_dyn_more) / sizeof(vkd_dyn_more[0]))

/* The setters of --more's states. */
typedef struct vkd_more {
	PFN_vkCmdSetVertexInputEXT vertex_input;
	PFN_vkCmdSetLineStippleEXT line_stipple;
	PFN_vkCmdSetLogicOpEXT logic_op;
	PFN_vkCmdSetColorWriteEnableEXT color_write;
	uint32_t write_count;      /* vkCmdSetColorWriteEnableEXT's attachmentCount: the
	                              first VK_TRUE, the others VK_FALSE */
} vkd_more;

/* The extended dynamic state 3 setters (device functions of extensions:
 * not exported by the loader). */
typedef struct vkd_eds3 {
	PFN_vkCmdSetTessellationDomainOriginEXT domain_origin;
	PFN_vkCmdSetDepthClampEnableEXT depth_clamp;
	PFN_vkCmdSetPolygonModeEXT polygon_mode;
	PFN_vkCmdSetRasterizationSamplesEXT samples;
	PFN_vkCmdSetSampleMaskEXT sample_mask;
	PFN_vkCmdSetAlphaToCoverageEnableEXT alpha_to_coverage;
	PFN_vkCmdSetAlphaToOneEnableEXT alpha_to_one;
	PFN_vkCmdSetLogicOpEnableEXT logic_op;
	PFN_vkCmdSetColorBlendEnableEXT blend_enable;
	PFN_vkCmdSetColorBlendEquationEXT blend_equation;
	PFN_vkCmdSetColorWriteMaskEXT write_mask;
	PFN_vkCmdSetDepthClipEnableEXT depth_clip;
	PFN_vkCmdSetProvokingVertexModeEXT provoking_vertex;
	PFN_vkCmdSetLineRasterizationModeEXT line_mode;
	PFN_vkCmdSetLineStippleEnableEXT line_stipple;
	PFN_vkCmdSetDepthClipNegativeOneToOneEXT clip_negative_one;
} vkd_eds3;

static PFN_vkVoidFunction vkd_proc(const vkp_ctx *c, const char *name)
{
	PFN_vkVoidFunction f = vkGetDeviceProcAddr(c->device, name);
	if (!f)
		vkp_die(c, "the device lacks %s", name);
	return f;
}

static void vkd_eds3_load(const vkp_ctx *c, vkd_eds3 *e)
{
	e->domain_origin = (PFN_vkCmdSetTessellationDomainOriginEXT)vkd_proc(c, "vkCmdSetTessellationDomainOriginEXT");
	e->depth_clamp = (PFN_vkCmdSetDepthClampEnableEXT)vkd_proc(c, "vkCmdSetDepthClampEnableEXT");
	e->polygon_mode = (PFN_vkCmdSetPolygonModeEXT)vkd_proc(c, "vkCmdSetPolygonModeEXT");
	e->samples = (PFN_vkCmdSetRasterizationSamplesEXT)vkd_proc(c, "vkCmdSetRasterizationSamplesEXT");
	e->sample_mask = (PFN_vkCmdSetSampleMaskEXT)vkd_proc(c, "vkCmdSetSampleMaskEXT");
	e->alpha_to_coverage = (PFN_vkCmdSetAlphaToCoverageEnableEXT)vkd_proc(c, "vkCmdSetAlphaToCoverageEnableEXT");
	e->alpha_to_one = (PFN_vkCmdSetAlphaToOneEnableEXT)vkd_proc(c, "vkCmdSetAlphaToOneEnableEXT");
	e->logic_op = (PFN_vkCmdSetLogicOpEnableEXT)vkd_proc(c, "vkCmdSetLogicOpEnableEXT");
	e->blend_enable = (PFN_vkCmdSetColorBlendEnableEXT)vkd_proc(c, "vkCmdSetColorBlendEnableEXT");
	e->blend_equation = (PFN_vkCmdSetColorBlendEquationEXT)vkd_proc(c, "vkCmdSetColorBlendEquationEXT");
	e->write_mask = (PFN_vkCmdSetColorWriteMaskEXT)vkd_proc(c, "vkCmdSetColorWriteMaskEXT");
	e->depth_clip = (PFN_vkCmdSetDepthClipEnableEXT)vkd_proc(c, "vkCmdSetDepthClipEnableEXT");
	e->provoking_vertex = (PFN_vkCmdSetProvokingVertexModeEXT)vkd_proc(c, "vkCmdSetProvokingVertexModeEXT");
	e->line_mode = (PFN_vkCmdSetLineRasterizationModeEXT)vkd_proc(c, "vkCmdSetLineRasterizationModeEXT");
	e->line_stipple = (PFN_vkCmdSetLineStippleEnableEXT)vkd_proc(c, "vkCmdSetLineStippleEnableEXT");
	e->clip_negative_one = (PFN_vkCmdSetDepthClipNegativeOneToOneEXT)vkd_proc(c, "vkCmdSetDepthClipNegativeOneToOneEXT");
}

static void vkd_more_load(const vkp_ctx *c, vkd_more *m)
{
	m->vertex_input = (PFN_vkCmdSetVertexInputEXT)vkd_proc(c, "vkCmdSetVertexInputEXT");
	m->line_stipple = (PFN_vkCmdSetLineStippleEXT)vkd_proc(c, "vkCmdSetLineStippleEXT");
	m->logic_op = (PFN_vkCmdSetLogicOpEXT)vkd_proc(c, "vkCmdSetLogicOpEXT");
	m->color_write = (PFN_vkCmdSetColorWriteEnableEXT)vkd_proc(c, "vkCmdSetColorWriteEnableEXT");
}

/* Instance and device of Vulkan 1.3 with imageless framebuffers (and, with
 * library, graphics pipeline libraries; with eds3, extended dynamic state
 * 3 and the extensions its states belong to; with more, --more's). */
static void vkd_ctx_init(vkp_ctx *c, int library, int eds3, int more)
{
	const char *exts[8];
	VkPhysicalDeviceVertexInputDynamicStateFeaturesEXT fvi = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_INPUT_DYNAMIC_STATE_FEATURES_EXT,
		.vertexInputDynamicState = VK_TRUE
	};
	VkPhysicalDeviceExtendedDynamicState2FeaturesEXT f2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_2_FEATURES_EXT, .pNext = &fvi,
		.extendedDynamicState2LogicOp = VK_TRUE
	};
	VkPhysicalDeviceLineRasterizationFeaturesEXT fline = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT, .pNext = &f2,
		.bresenhamLines = VK_TRUE, .stippledBresenhamLines = VK_TRUE
	};
	VkPhysicalDeviceColorWriteEnableFeaturesEXT fcw = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COLOR_WRITE_ENABLE_FEATURES_EXT, .pNext = &fline,
		.colorWriteEnable = VK_TRUE
	};
	VkPhysicalDeviceFeatures core = { .logicOp = VK_TRUE };
	uint32_t next = 0;
	VkPhysicalDeviceExtendedDynamicState3FeaturesEXT f3 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT,
		.extendedDynamicState3TessellationDomainOrigin = VK_TRUE,
		.extendedDynamicState3DepthClampEnable = VK_TRUE,
		.extendedDynamicState3PolygonMode = VK_TRUE,
		.extendedDynamicState3RasterizationSamples = VK_TRUE,
		.extendedDynamicState3SampleMask = VK_TRUE,
		.extendedDynamicState3AlphaToCoverageEnable = VK_TRUE,
		.extendedDynamicState3AlphaToOneEnable = VK_TRUE,
		.extendedDynamicState3LogicOpEnable = VK_TRUE,
		.extendedDynamicState3ColorBlendEnable = VK_TRUE,
		.extendedDynamicState3ColorBlendEquation = VK_TRUE,
		.extendedDynamicState3ColorWriteMask = VK_TRUE,
		.extendedDynamicState3DepthClipEnable = VK_TRUE,
		.extendedDynamicState3ProvokingVertexMode = VK_TRUE,
		.extendedDynamicState3LineRasterizationMode = VK_TRUE,
		.extendedDynamicState3LineStippleEnable = VK_TRUE,
		.extendedDynamicState3DepthClipNegativeOneToOne = VK_TRUE,
	};
	VkPhysicalDeviceDepthClipEnableFeaturesEXT fclip = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT, .pNext = &f3,
		.depthClipEnable = VK_TRUE
	};
	VkPhysicalDeviceDepthClipControlFeaturesEXT fctl = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_CONTROL_FEATURES_EXT, .pNext = &fclip,
		.depthClipControl = VK_TRUE
	};
	VkPhysicalDeviceGraphicsPipelineLibraryFeaturesEXT gpl = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT,
		.graphicsPipelineLibrary = VK_TRUE
	};
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkPhysicalDeviceVulkan12Features f12 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.imagelessFramebuffer = VK_TRUE
	};
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12 };
	VkPhysicalDevice devs[8];
	VkQueueFamilyProperties fams[16];
	uint32_t ndev = 8, nfam = 16, i;
	float prio = 1.0f;
	VkResult r;

	memset(c, 0, sizeof(*c));
	c->prog = "vk_dynstate";
	app.pApplicationName = c->prog;
	app.apiVersion = VK_API_VERSION_1_3;
	ici.pApplicationInfo = &app;
	VKP_CHECK(c, vkCreateInstance(&ici, NULL, &c->instance));
	r = vkEnumeratePhysicalDevices(c->instance, &ndev, devs);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0)
		vkp_die(c, "no Vulkan physical device");
	c->phys = devs[0];
	vkGetPhysicalDeviceProperties(c->phys, &c->dev_props);
	vkGetPhysicalDeviceMemoryProperties(c->phys, &c->mem_props);
	if (c->dev_props.apiVersion < VK_API_VERSION_1_3)
		vkp_die(c, "device '%s' is not Vulkan 1.3", c->dev_props.deviceName);
	vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &nfam, fams);
	for (i = 0; i < nfam && !(fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT); i++)
		;
	if (i == nfam)
		vkp_die(c, "device '%s' has no graphics queue", c->dev_props.deviceName);
	c->qfam = i;
	qci.queueFamilyIndex = i;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	if (library) {
		f12.pNext = &gpl;
		exts[next++] = VK_KHR_PIPELINE_LIBRARY_EXTENSION_NAME;
		exts[next++] = VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME;
	}
	if (eds3) {
		gpl.pNext = library ? &fctl : NULL;
		if (!library)
			f12.pNext = &fctl;
		exts[next++] = VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME;
		exts[next++] = VK_EXT_DEPTH_CLIP_ENABLE_EXTENSION_NAME;
		exts[next++] = VK_EXT_DEPTH_CLIP_CONTROL_EXTENSION_NAME;
		exts[next++] = VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME;
		exts[next++] = VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME;
	}
	if (more) {
		f12.pNext = &fcw;
		dci.pEnabledFeatures = &core;
		exts[next++] = VK_EXT_VERTEX_INPUT_DYNAMIC_STATE_EXTENSION_NAME;
		exts[next++] = VK_EXT_EXTENDED_DYNAMIC_STATE_2_EXTENSION_NAME;
		exts[next++] = VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME;
		exts[next++] = VK_EXT_COLOR_WRITE_ENABLE_EXTENSION_NAME;
	}
	dci.enabledExtensionCount = next;
	dci.ppEnabledExtensionNames = next ? exts : NULL;
	VKP_CHECK(c, vkCreateDevice(c->phys, &dci, NULL, &c->device));
	vkGetDeviceQueue(c->device, c->qfam, 0, &c->queue);
}

static VkFormat vkd_depth_format(const vkp_ctx *c)
{
	const VkFormat fmts[] = { VK_FORMAT_D32_SFLOAT_S8_UINT, VK_FORMAT_D24_UNORM_S8_UINT,
	                          VK_FORMAT_D16_UNORM_S8_UINT };
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		VkFormatProperties p;
		vkGetPhysicalDeviceFormatProperties(c->phys, fmts[i], &p);
		if (p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)
			return fmts[i];
	}
	vkp_die(c, "no depth/stencil attachment format");
	return VK_FORMAT_UNDEFINED;
}

static void vkd_image(const vkp_ctx *c, VkFormat fmt, VkImageUsageFlags usage,
                      VkImageAspectFlags aspect, VkImage *img, VkDeviceMemory *mem, VkImageView *view)
{
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkImageViewCreateInfo ivci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	VkMemoryRequirements req;

	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = fmt;
	ici.extent = (VkExtent3D){ VKD_SIZE, VKD_SIZE, 1 };
	ici.mipLevels = 1;
	ici.arrayLayers = 1;
	ici.samples = VK_SAMPLE_COUNT_1_BIT;
	ici.tiling = VK_IMAGE_TILING_OPTIMAL;
	ici.usage = usage;
	ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(c, vkCreateImage(c->device, &ici, NULL, img));
	vkGetImageMemoryRequirements(c->device, *img, &req);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, mem));
	VKP_CHECK(c, vkBindImageMemory(c->device, *img, *mem, 0));
	ivci.image = *img;
	ivci.viewType = VK_IMAGE_VIEW_TYPE_2D;
	ivci.format = fmt;
	ivci.subresourceRange = (VkImageSubresourceRange){ aspect, 0, 1, 0, 1 };
	VKP_CHECK(c, vkCreateImageView(c->device, &ivci, NULL, view));
}

/* The binds, every dynamic state (with e, extended dynamic state 3's
 * too; with m, --more's), the vertex buffer and the push constants. */
static void vkd_record_state(VkCommandBuffer cb, VkPipeline tri, VkPipelineLayout layout, VkBuffer vbuf,
                             int library, const vkd_eds3 *e, const vkd_more *m)
{
	const VkViewport vp = { 0, 0, (float)VKD_SIZE, (float)VKD_SIZE, 0.0f, 1.0f };
	const VkRect2D sc = { { 0, 0 }, { VKD_SIZE, VKD_SIZE } };
	const float blend[4] = { 1.0f, 0.75f, 0.5f, 1.0f };
	const float push[3] = { 0.0f, 0.0f, 1.0f };
	VkDeviceSize zero = 0, stride = sizeof(vkd_vertex);

	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, tri);
	vkCmdSetViewport(cb, 0, 1, &vp);
	vkCmdSetScissor(cb, 0, 1, &sc);
	vkCmdSetLineWidth(cb, 1.0f);
	vkCmdSetDepthBias(cb, 0.0f, 0.0f, 0.0f);
	vkCmdSetBlendConstants(cb, blend);
	vkCmdSetDepthBounds(cb, 0.0f, 1.0f);
	vkCmdSetStencilCompareMask(cb, VK_STENCIL_FACE_FRONT_AND_BACK, 0xff);
	vkCmdSetStencilWriteMask(cb, VK_STENCIL_FACE_FRONT_AND_BACK, 0xff);
	vkCmdSetStencilReference(cb, VK_STENCIL_FACE_FRONT_AND_BACK, 1);
	vkCmdSetCullMode(cb, VK_CULL_MODE_NONE);
	vkCmdSetFrontFace(cb, VK_FRONT_FACE_COUNTER_CLOCKWISE);
	if (!library) /* static in the linked "tri" */
		vkCmdSetPrimitiveTopology(cb, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST);
	vkCmdSetDepthTestEnable(cb, VK_TRUE);
	vkCmdSetDepthWriteEnable(cb, VK_TRUE);
	vkCmdSetDepthCompareOp(cb, VK_COMPARE_OP_LESS_OR_EQUAL);
	vkCmdSetDepthBoundsTestEnable(cb, VK_FALSE);
	vkCmdSetStencilTestEnable(cb, VK_TRUE);
	vkCmdSetStencilOp(cb, VK_STENCIL_FACE_FRONT_AND_BACK, VK_STENCIL_OP_KEEP, VK_STENCIL_OP_REPLACE,
	                  VK_STENCIL_OP_KEEP, VK_COMPARE_OP_ALWAYS);
	vkCmdSetRasterizerDiscardEnable(cb, VK_FALSE);
	vkCmdSetDepthBiasEnable(cb, VK_TRUE);
	vkCmdSetPrimitiveRestartEnable(cb, VK_FALSE);
	if (e) {
		const VkSampleMask mask = ~0u;
		const VkBool32 on = VK_TRUE;
		const VkColorBlendEquationEXT eq = {
			VK_BLEND_FACTOR_CONSTANT_COLOR, VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD,
			VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD
		};
		const VkColorComponentFlags rgba = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
		                                   VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
		e->domain_origin(cb, VK_TESSELLATION_DOMAIN_ORIGIN_UPPER_LEFT);
		e->depth_clamp(cb, VK_FALSE);
		e->polygon_mode(cb, VK_POLYGON_MODE_FILL);
		e->samples(cb, VK_SAMPLE_COUNT_1_BIT);
		e->sample_mask(cb, VK_SAMPLE_COUNT_1_BIT, &mask);
		e->alpha_to_coverage(cb, VK_FALSE);
		e->alpha_to_one(cb, VK_FALSE);
		e->logic_op(cb, VK_FALSE);
		e->blend_enable(cb, 0, 1, &on);
		e->blend_equation(cb, 0, 1, &eq);
		e->write_mask(cb, 0, 1, &rgba);
		e->depth_clip(cb, VK_TRUE);
		e->provoking_vertex(cb, VK_PROVOKING_VERTEX_MODE_FIRST_VERTEX_EXT);
		e->line_mode(cb, VK_LINE_RASTERIZATION_MODE_DEFAULT_EXT);
		e->line_stipple(cb, VK_FALSE);
		e->clip_negative_one(cb, VK_FALSE);
	}
	if (m) {
		const VkVertexInputBindingDescription2EXT b = {
			VK_STRUCTURE_TYPE_VERTEX_INPUT_BINDING_DESCRIPTION_2_EXT, NULL, 0, sizeof(vkd_vertex),
			VK_VERTEX_INPUT_RATE_VERTEX, 1
		};
		const VkVertexInputAttributeDescription2EXT at[2] = {
			{ VK_STRUCTURE_TYPE_VERTEX_INPUT_ATTRIBUTE_DESCRIPTION_2_EXT, NULL, 0, 0,
			  VK_FORMAT_R32G32_SFLOAT, 0 },
			{ VK_STRUCTURE_TYPE_VERTEX_INPUT_ATTRIBUTE_DESCRIPTION_2_EXT, NULL, 1, 0,
			  VK_FORMAT_R32G32B32_SFLOAT, sizeof(float) * 2 },
		};
		VkBool32 on[16] = { VK_TRUE };
		m->vertex_input(cb, 1, &b, 2, at);
		m->line_stipple(cb, 1, 0xf0f0);
		m->logic_op(cb, VK_LOGIC_OP_COPY);
		m->color_write(cb, m->write_count, on);
	}
	vkCmdBindVertexBuffers2(cb, 0, 1, &vbuf, &zero, NULL, &stride);
	vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(push), push);
}

/* The two draws ("tri" bound, then "line"; the triangle with
 * vkCmdDrawIndexed when indexed, its indices 0, 1, 2). */
static void vkd_record_calls(VkCommandBuffer cb, VkPipeline line, int indexed)
{
	if (indexed)
		vkCmdDrawIndexed(cb, 3, 1, 0, 0, 0);
	else
		vkCmdDraw(cb, 3, 1, 0, 0);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, line);
	vkCmdDraw(cb, 2, 1, 3, 0);
}

/* The SPIR-V of build/tests/shaders/NAME (beside the program's folder) as
 * a create info chained to a stage (its code owned by the caller). */
static VkShaderModuleCreateInfo vkd_code_load(const vkp_ctx *c, const char *name)
{
	VkShaderModuleCreateInfo smi = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO };
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	uint32_t *code;
	FILE *f;
	long len;

	if (n <= 0)
		vkp_die(c, "cannot read /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/../shaders/%s", exe, name);
	if (!(f = fopen(path, "rb")))
		vkp_die(c, "%s: %s (run make to compile tests/shaders)", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || len % 4 || fseek(f, 0, SEEK_SET) != 0)
		vkp_die(c, "%s: not a SPIR-V file (size is not a positive multiple of 4)", path);
	if (!(code = malloc((size_t)len)))
		vkp_die(c, "out of memory");
	if (fread(code, 1, (size_t)len, f) != (size_t)len)
		vkp_die(c, "%s: short read", path);
	fclose(f);
	smi.codeSize = (size_t)len;
	smi.pCode = code;
	return smi;
}

/* "tri" of full, linked from four libraries (out: the libraries, kept
 * until the end: the 1.3.239 validation layer died of SIGSEGV at a draw
 * with a pipeline whose libraries were destroyed), each library part of
 * full with its part's dynamic states; with code, the shader libraries
 * give code[0] and code[1] in their stages' pNext instead of modules. */
static VkPipeline vkd_linked(const vkp_ctx *c, const VkGraphicsPipelineCreateInfo *full, VkPipeline libs[4],
                             const VkShaderModuleCreateInfo *code)
{
	VkPipelineShaderStageCreateInfo st[2] = { full->pStages[0], full->pStages[1] };
	static const VkGraphicsPipelineLibraryFlagsEXT part[4] = {
		VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT,
		VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT,
		VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT,
		VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT,
	};
	const VkDynamicState *dyn[4] = { vkd_dyn_vertex, vkd_dyn_raster, vkd_dyn_fragment, vkd_dyn_output };
	const uint32_t ndyn[4] = {
		sizeof(vkd_dyn_vertex) / sizeof(vkd_dyn_vertex[0]), sizeof(vkd_dyn_raster) / sizeof(vkd_dyn_raster[0]),
		sizeof(vkd_dyn_fragment) / sizeof(vkd_dyn_fragment[0]), sizeof(vkd_dyn_output) / sizeof(vkd_dyn_output[0]),
	};
	VkPipeline linked;
	VkPipelineLibraryCreateInfoKHR lci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR };
	VkGraphicsPipelineCreateInfo ci;
	if (code) {
		for (int i = 0; i < 2; i++) {
			st[i].pNext = &code[i];
			st[i].module = VK_NULL_HANDLE;
		}
	}
	for (int i = 0; i < 4; i++) {
		VkGraphicsPipelineLibraryCreateInfoEXT li = {
			.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT, .flags = part[i]
		};
		VkPipelineDynamicStateCreateInfo ds = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
			.dynamicStateCount = ndyn[i], .pDynamicStates = dyn[i]
		};
		memset(&ci, 0, sizeof(ci));
		ci.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
		ci.pNext = &li;
		ci.flags = VK_PIPELINE_CREATE_LIBRARY_BIT_KHR;
		ci.pDynamicState = &ds;
		switch (i) {
		case 0:
			ci.pVertexInputState = full->pVertexInputState;
			ci.pInputAssemblyState = full->pInputAssemblyState;
			break;
		case 1:
			ci.stageCount = 1;
			ci.pStages = &st[0];
			ci.pViewportState = full->pViewportState;
			ci.pRasterizationState = full->pRasterizationState;
			ci.layout = full->layout;
			ci.renderPass = full->renderPass;
			break;
		case 2:
			ci.stageCount = 1;
			ci.pStages = &st[1];
			ci.pMultisampleState = full->pMultisampleState;
			ci.pDepthStencilState = full->pDepthStencilState;
			ci.layout = full->layout;
			ci.renderPass = full->renderPass;
			break;
		default:
			ci.pMultisampleState = full->pMultisampleState;
			ci.pColorBlendState = full->pColorBlendState;
			ci.renderPass = full->renderPass;
			break;
		}
		VKP_CHECK(c, vkCreateGraphicsPipelines(c->device, VK_NULL_HANDLE, 1, &ci, NULL, &libs[i]));
	}
	lci.libraryCount = 4;
	lci.pLibraries = libs;
	memset(&ci, 0, sizeof(ci));
	ci.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
	ci.pNext = &lci;
	ci.layout = full->layout;
	VKP_CHECK(c, vkCreateGraphicsPipelines(c->device, VK_NULL_HANDLE, 1, &ci, NULL, &linked));
	return linked;
}

int main(int argc, char **argv)
{
	int imageless = 0, secondary = 0, library = 0, execute = 0, eds3 = 0, more = 0, inl = 0, mrt = 0;
	int indexed = 0;
	uint32_t write_count = 2, natt, ncolors;
	VkShaderModuleCreateInfo code[2];
	VkDynamicState dyn_all[sizeof(vkd_dyn) / sizeof(vkd_dyn[0]) + sizeof(vkd_dyn3) / sizeof(vkd_dyn3[0]) +
	                       sizeof(vkd_dyn_more) / sizeof(vkd_dyn_more[0])];
	uint32_t nextra;
	vkd_eds3 e3;
	vkd_more mo;
	VkPipelineRasterizationLineStateCreateInfoEXT lsci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT,
		.lineRasterizationMode = VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT,
		.stippledLineEnable = VK_TRUE, .lineStippleFactor = 1, .lineStipplePattern = 0xffff
	};
	vkp_ctx c;
	vkp_buffer vbuf, readback, scratch, ibuf;
	VkDescriptorSetLayoutBinding dslb = { 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, NULL };
	VkDescriptorSetLayoutCreateInfo dslci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO };
	VkDescriptorPoolSize dps = { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1 };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkDescriptorBufferInfo dbi;
	VkWriteDescriptorSet wds = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
	VkDescriptorPool dpool = VK_NULL_HANDLE;
	VkDescriptorSet dset = VK_NULL_HANDLE;
	VkFormat dfmt;
	VkImage cimg, dimg, c2img = VK_NULL_HANDLE;
	VkDeviceMemory cmem, dmem, c2mem = VK_NULL_HANDLE;
	VkImageView views[3] = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE };
	VkAttachmentDescription att[3];
	VkAttachmentReference cref[2] = {
		{ 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL }, { 2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL }
	};
	VkAttachmentReference dref = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub;
	VkSubpassDependency dep;
	VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
	VkFramebufferAttachmentImageInfo fai[3];
	VkFramebufferAttachmentsCreateInfo fac = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO };
	VkFramebufferCreateInfo fbci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
	VkRenderPassAttachmentBeginInfo rpab = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(float) * 3 };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkPipelineShaderStageCreateInfo stages[2];
	VkVertexInputBindingDescription vib = { 0, sizeof(vkd_vertex), VK_VERTEX_INPUT_RATE_VERTEX };
	VkVertexInputAttributeDescription via[2] = {
		{ 0, 0, VK_FORMAT_R32G32_SFLOAT, 0 },
		{ 1, 0, VK_FORMAT_R32G32B32_SFLOAT, sizeof(float) * 2 },
	};
	VkPipelineVertexInputStateCreateInfo vis = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
	VkPipelineInputAssemblyStateCreateInfo ias = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO };
	VkPipelineViewportStateCreateInfo vps = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO };
	VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO };
	VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO };
	VkPipelineDepthStencilStateCreateInfo dss = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO };
	VkPipelineColorBlendAttachmentState cba[2];
	VkPipelineColorBlendStateCreateInfo cbs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO };
	VkPipelineDynamicStateCreateInfo ds = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO };
	VkGraphicsPipelineCreateInfo gpci = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkCommandBufferInheritanceInfo inh = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
	VkRenderPassBeginInfo rpbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkClearValue clear[3];
	VkBufferImageCopy bic;
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	VkRenderPass rp;
	VkFramebuffer fb;
	VkPipelineLayout layout;
	VkShaderModule vs, fs;
	VkPipeline tri, line, libs[4] = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE };
	VkCommandPool cpool;
	VkCommandBuffer cb, cb2 = VK_NULL_HANDLE;
	VkFence fence;
	vkd_vertex *v;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--imageless")) {
			imageless = 1;
		} else if (!strcmp(argv[i], "--secondary")) {
			secondary = 1;
		} else if (!strcmp(argv[i], "--library")) {
			library = 1;
		} else if (!strcmp(argv[i], "--execute")) {
			execute = 1;
		} else if (!strcmp(argv[i], "--indexed")) {
			indexed = 1;
		} else if (!strcmp(argv[i], "--eds3")) {
			eds3 = 1;
		} else if (!strcmp(argv[i], "--more")) {
			more = 1;
		} else if (!strcmp(argv[i], "--inline")) {
			inl = 1;
		} else if (!strcmp(argv[i], "--mrt")) {
			mrt = 1;
		} else if (!strcmp(argv[i], "--write-count") && i + 1 < argc) {
			char *end;
			unsigned long n = strtoul(argv[++i], &end, 10);
			if (*end || n < 2 || n > 16) {
				fprintf(stderr, "vk_dynstate: --write-count '%s' is not a count from 2 to 16\n", argv[i]);
				return 2;
			}
			write_count = (uint32_t)n;
		} else {
			fprintf(stderr, "usage: vk_dynstate [--imageless] [--secondary] [--library] [--execute] "
			        "[--indexed] [--eds3] [--more] [--inline] [--mrt] [--write-count N]\n");
			return 2;
		}
	}
	if (mrt && !more) {
		fprintf(stderr, "vk_dynstate: --mrt goes with --more\n");
		return 2;
	}
	natt = mrt ? 3 : 2;
	ncolors = mrt ? 2 : 1;
	mo.write_count = mrt ? write_count : 1;
	if (execute && secondary) {
		fprintf(stderr, "vk_dynstate: --execute and --secondary do not go together\n");
		return 2;
	}
	if (indexed && !execute) {
		fprintf(stderr, "vk_dynstate: --indexed goes with --execute\n");
		return 2;
	}
	if (inl && !library) {
		fprintf(stderr, "vk_dynstate: --inline goes with --library\n");
		return 2;
	}
	if (more && (eds3 || library)) {
		fprintf(stderr, "vk_dynstate: --more goes with neither --eds3 nor --library\n");
		return 2;
	}
	vkd_ctx_init(&c, library, eds3, more);
	if (eds3)
		vkd_eds3_load(&c, &e3);
	if (more)
		vkd_more_load(&c, &mo);
	dfmt = vkd_depth_format(&c);
	vkd_image(&c, VKD_COLOR, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
	          VK_IMAGE_ASPECT_COLOR_BIT, &cimg, &cmem, &views[0]);
	vkd_image(&c, dfmt, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
	          VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, &dimg, &dmem, &views[1]);
	if (mrt)
		vkd_image(&c, VKD_COLOR, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
		          VK_IMAGE_ASPECT_COLOR_BIT, &c2img, &c2mem, &views[2]);
	vkp_buffer_create(&c, &vbuf, sizeof(vkd_vertex) * 5, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);
	vkp_buffer_create(&c, &readback, VKD_PIXELS * 4 * ncolors, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);
	if (execute)
		vkp_buffer_create(&c, &scratch, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);
	if (indexed) {
		/* the indices at 0, the uniform block the set names at 256 */
		static const uint32_t idx[3] = { 0, 1, 2 };
		vkp_buffer_create(&c, &ibuf, 512, VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);
		memset(ibuf.map, 0, 512);
		memcpy(ibuf.map, idx, sizeof(idx));
	}
	v = vbuf.map;
	v[0] = (vkd_vertex){ { 0.0f, -0.8f }, { 1.0f, 0.2f, 0.2f } };
	v[1] = (vkd_vertex){ { 0.8f, 0.7f }, { 0.2f, 1.0f, 0.2f } };
	v[2] = (vkd_vertex){ { -0.8f, 0.7f }, { 0.2f, 0.2f, 1.0f } };
	v[3] = (vkd_vertex){ { -0.9f, -0.9f }, { 1.0f, 1.0f, 1.0f } };
	v[4] = (vkd_vertex){ { 0.9f, 0.9f }, { 1.0f, 1.0f, 1.0f } };

	memset(att, 0, sizeof(att));
	att[0].format = VKD_COLOR;
	att[0].samples = VK_SAMPLE_COUNT_1_BIT;
	att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
	att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
	att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
	att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	att[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	att[1] = att[0];
	att[1].format = dfmt;
	att[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	att[1].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
	att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
	att[2] = att[0];
	memset(&sub, 0, sizeof(sub));
	sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
	sub.colorAttachmentCount = ncolors;
	sub.pColorAttachments = cref;
	sub.pDepthStencilAttachment = &dref;
	memset(&dep, 0, sizeof(dep));
	dep.srcSubpass = 0;
	dep.dstSubpass = VK_SUBPASS_EXTERNAL;
	dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
	dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
	dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	rpci.attachmentCount = natt;
	rpci.pAttachments = att;
	rpci.subpassCount = 1;
	rpci.pSubpasses = &sub;
	rpci.dependencyCount = 1;
	rpci.pDependencies = &dep;
	VKP_CHECK(&c, vkCreateRenderPass(c.device, &rpci, NULL, &rp));

	fbci.renderPass = rp;
	fbci.attachmentCount = natt;
	fbci.width = VKD_SIZE;
	fbci.height = VKD_SIZE;
	fbci.layers = 1;
	if (imageless) {
		memset(fai, 0, sizeof(fai));
		for (i = 0; i < (int)natt; i++) {
			fai[i].sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO;
			fai[i].width = VKD_SIZE;
			fai[i].height = VKD_SIZE;
			fai[i].layerCount = 1;
			fai[i].viewFormatCount = 1;
			fai[i].pViewFormats = i == 1 ? &dfmt : &att[0].format;
		}
		fai[0].usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
		fai[1].usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
		fai[2].usage = fai[0].usage;
		fac.attachmentImageInfoCount = natt;
		fac.pAttachmentImageInfos = fai;
		fbci.pNext = &fac;
		fbci.flags = VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT;
	} else {
		fbci.pAttachments = views;
	}
	VKP_CHECK(&c, vkCreateFramebuffer(c.device, &fbci, NULL, &fb));

	plci.pushConstantRangeCount = 1;
	plci.pPushConstantRanges = &pcr;
	if (indexed) {
		/* a uniform buffer at set 0 binding 0 (the shaders do not read it) */
		dslci.bindingCount = 1;
		dslci.pBindings = &dslb;
		VKP_CHECK(&c, vkCreateDescriptorSetLayout(c.device, &dslci, NULL, &dsl));
		dpci.maxSets = 1;
		dpci.poolSizeCount = 1;
		dpci.pPoolSizes = &dps;
		VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &dpool));
		dsai.descriptorPool = dpool;
		dsai.descriptorSetCount = 1;
		dsai.pSetLayouts = &dsl;
		VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, &dset));
		dbi = (VkDescriptorBufferInfo){ ibuf.buf, 256, 256 };
		wds.dstSet = dset;
		wds.descriptorCount = 1;
		wds.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
		wds.pBufferInfo = &dbi;
		vkUpdateDescriptorSets(c.device, 1, &wds, 0, NULL);
		plci.setLayoutCount = 1;
		plci.pSetLayouts = &dsl;
	}
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	vs = vkp_shader_load(&c, "vk_tri.vert.spv");
	fs = vkp_shader_load(&c, mrt ? "vk_tri2.frag.spv" : "vk_tri.frag.spv");
	memset(stages, 0, sizeof(stages));
	stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
	stages[0].module = vs;
	stages[0].pName = "main";
	stages[1] = stages[0];
	stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
	stages[1].module = fs;
	vis.vertexBindingDescriptionCount = 1;
	vis.pVertexBindingDescriptions = &vib;
	vis.vertexAttributeDescriptionCount = 2;
	vis.pVertexAttributeDescriptions = via;
	ias.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
	vps.viewportCount = 1;
	vps.scissorCount = 1;
	rs.polygonMode = VK_POLYGON_MODE_FILL;
	rs.lineWidth = 1.0f;
	ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
	dss.maxDepthBounds = 1.0f;
	memset(cba, 0, sizeof(cba));
	cba[0].blendEnable = VK_TRUE;
	cba[0].srcColorBlendFactor = VK_BLEND_FACTOR_CONSTANT_COLOR;
	cba[0].dstColorBlendFactor = VK_BLEND_FACTOR_ZERO;
	cba[0].colorBlendOp = VK_BLEND_OP_ADD;
	cba[0].srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
	cba[0].dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
	cba[0].alphaBlendOp = VK_BLEND_OP_ADD;
	cba[0].colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
	                        VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
	cba[1] = cba[0];
	cbs.attachmentCount = ncolors;
	cbs.pAttachments = cba;
	/* the topology last: "line" leaves it out */
	memcpy(dyn_all, vkd_dyn, (VKD_NDYN - 1) * sizeof(*vkd_dyn));
	nextra = 0;
	if (eds3) {
		memcpy(&dyn_all[VKD_NDYN - 1], vkd_dyn3, sizeof(vkd_dyn3));
		nextra = VKD_NDYN3;
	}
	if (more) {
		memcpy(&dyn_all[VKD_NDYN - 1], vkd_dyn_more, sizeof(vkd_dyn_more));
		nextra = VKD_NMORE;
		rs.pNext = &lsci;
		cbs.logicOpEnable = VK_TRUE;
		cbs.logicOp = VK_LOGIC_OP_COPY;
	}
	dyn_all[VKD_NDYN - 1 + nextra] = VK_DYNAMIC_STATE_PRIMITIVE_TOPOLOGY;
	ds.dynamicStateCount = VKD_NDYN + nextra;
	ds.pDynamicStates = dyn_all;
	gpci.stageCount = 2;
	gpci.pStages = stages;
	gpci.pVertexInputState = &vis;
	gpci.pInputAssemblyState = &ias;
	gpci.pViewportState = &vps;
	gpci.pRasterizationState = &rs;
	gpci.pMultisampleState = &ms;
	gpci.pDepthStencilState = &dss;
	gpci.pColorBlendState = &cbs;
	gpci.pDynamicState = &ds;
	gpci.layout = layout;
	gpci.renderPass = rp;
	if (inl) {
		code[0] = vkd_code_load(&c, "vk_tri.vert.spv");
		code[1] = vkd_code_load(&c, "vk_tri.frag.spv");
	}
	if (library)
		tri = vkd_linked(&c, &gpci, libs, inl ? code : NULL);
	else
		VKP_CHECK(&c, vkCreateGraphicsPipelines(c.device, VK_NULL_HANDLE, 1, &gpci, NULL, &tri));
	ias.topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
	ds.dynamicStateCount--;
	VKP_CHECK(&c, vkCreateGraphicsPipelines(c.device, VK_NULL_HANDLE, 1, &gpci, NULL, &line));

	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	if (secondary) {
		cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb2));
		inh.renderPass = rp;
		inh.framebuffer = fb;
		bi.flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT;
		bi.pInheritanceInfo = &inh;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb2, &bi));
		vkd_record_state(cb2, tri, layout, vbuf.buf, library, eds3 ? &e3 : NULL, more ? &mo : NULL);
		vkd_record_calls(cb2, line, 0);
		VKP_CHECK(&c, vkEndCommandBuffer(cb2));
		bi.flags = 0;
		bi.pInheritanceInfo = NULL;
	} else if (execute) {
		/* executed outside the render pass: no render pass state */
		cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb2));
		bi.pInheritanceInfo = &inh;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb2, &bi));
		vkCmdFillBuffer(cb2, scratch.buf, 0, VK_WHOLE_SIZE, 0x5a5a5a5au);
		VKP_CHECK(&c, vkEndCommandBuffer(cb2));
		bi.pInheritanceInfo = NULL;
	}
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
	memset(clear, 0, sizeof(clear));
	clear[0].color.float32[2] = 0.25f;
	clear[0].color.float32[3] = 1.0f;
	clear[1].depthStencil.depth = 1.0f;
	clear[2].color.float32[0] = 0.5f; /* VKD_CLEAR2 */
	clear[2].color.float32[3] = 1.0f;
	rpbi.renderPass = rp;
	rpbi.framebuffer = fb;
	rpbi.renderArea = (VkRect2D){ { 0, 0 }, { VKD_SIZE, VKD_SIZE } };
	rpbi.clearValueCount = natt;
	rpbi.pClearValues = clear;
	if (imageless) {
		rpab.attachmentCount = natt;
		rpab.pAttachments = views;
		rpbi.pNext = &rpab;
	}
	if (execute) {
		/* everything the draws use set after the execute */
		vkCmdExecuteCommands(cb, 1, &cb2);
		vkd_record_state(cb, tri, layout, vbuf.buf, library, eds3 ? &e3 : NULL, more ? &mo : NULL);
		if (indexed) {
			vkCmdBindIndexBuffer(cb, ibuf.buf, 0, VK_INDEX_TYPE_UINT32);
			vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &dset, 0, NULL);
		}
	}
	vkCmdBeginRenderPass(cb, &rpbi, secondary ? VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS
	                                          : VK_SUBPASS_CONTENTS_INLINE);
	if (secondary) {
		vkCmdExecuteCommands(cb, 1, &cb2);
	} else {
		if (!execute)
			vkd_record_state(cb, tri, layout, vbuf.buf, library, eds3 ? &e3 : NULL, more ? &mo : NULL);
		vkd_record_calls(cb, line, indexed);
	}
	vkCmdEndRenderPass(cb);
	memset(&bic, 0, sizeof(bic));
	bic.imageSubresource = (VkImageSubresourceLayers){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 };
	bic.imageExtent = (VkExtent3D){ VKD_SIZE, VKD_SIZE, 1 };
	vkCmdCopyImageToBuffer(cb, cimg, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buf, 1, &bic);
	if (mrt) {
		bic.bufferOffset = VKD_PIXELS * 4;
		vkCmdCopyImageToBuffer(cb, c2img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buf, 1, &bic);
	}
	bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = readback.buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL,
	                     1, &bmb, 0, NULL);
	VKP_CHECK(&c, vkEndCommandBuffer(cb));
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
	vkp_fence_wait_reset(&c, fence);
	for (i = 0; mrt && i < (int)VKD_PIXELS; i++) {
		uint32_t px;
		memcpy(&px, (const uint8_t *)readback.map + (VKD_PIXELS + (uint32_t)i) * 4, 4);
		if (px != VKD_CLEAR2)
			vkp_die(&c, "--mrt: pixel %d of colour attachment 1 is 0x%08x, not its clear colour "
			        "0x%08x: its colour write enable VK_FALSE did not mask it", i, px, VKD_CLEAR2);
	}
	printf("vk_dynstate: %s%s%s%s%s%s%s%s%shash 0x%016llx\n", imageless ? "imageless " : "",
	       secondary ? "secondary " : "", library ? "library " : "", inl ? "inline " : "",
	       execute ? "execute " : "", indexed ? "indexed " : "", eds3 ? "eds3 " : "", more ? "more " : "", mrt ? "mrt " : "",
	       (unsigned long long)XXH3_64bits(readback.map, VKD_PIXELS * 4 * ncolors));

	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, line, NULL);
	vkDestroyPipeline(c.device, tri, NULL);
	for (i = 0; i < 4; i++)
		vkDestroyPipeline(c.device, libs[i], NULL);
	vkDestroyShaderModule(c.device, fs, NULL);
	vkDestroyShaderModule(c.device, vs, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	if (indexed) {
		vkDestroyDescriptorPool(c.device, dpool, NULL);
		vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	}
	vkDestroyFramebuffer(c.device, fb, NULL);
	vkDestroyRenderPass(c.device, rp, NULL);
	for (i = 1; i >= 0; i--)
		vkDestroyImageView(c.device, views[i], NULL);
	vkDestroyImage(c.device, dimg, NULL);
	vkDestroyImage(c.device, cimg, NULL);
	vkFreeMemory(c.device, dmem, NULL);
	vkFreeMemory(c.device, cmem, NULL);
	if (mrt) {
		vkDestroyImageView(c.device, views[2], NULL);
		vkDestroyImage(c.device, c2img, NULL);
		vkFreeMemory(c.device, c2mem, NULL);
	}
	vkp_buffer_destroy(&c, &readback);
	if (execute)
		vkp_buffer_destroy(&c, &scratch);
	vkp_buffer_destroy(&c, &vbuf);
	if (indexed)
		vkp_buffer_destroy(&c, &ibuf);
	if (inl) {
		free((void *)code[0].pCode);
		free((void *)code[1].pCode);
	}
	vkp_ctx_finish(&c);
	return 0;
}
