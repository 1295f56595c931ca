"""overrides - the ONE list of hand-written exceptions to the Vulkan generators
(codec.py, refs.py, layer.py, replay.py; gen.py runs them).

Everything the generators do not derive from vk.xml alone is here, with the
reason; the modules refer to these lists and hold none of their own.
docs/vulkan-codec.md counts these lists; `python3 scripts/vkgen/gen.py
--overrides` prints the counts.  Any change here changes the generated code:
run `make regen`.
"""

# Window-system platforms whose headers are installed here (and which the
# layer and replayer build with).  Every other platform in vk.xml is excluded:
# its extensions, structs and commands are not carried (the layer hides them).
PLATFORMS_INCLUDED = {
    "xlib": ("VK_USE_PLATFORM_XLIB_KHR", "X11/Xlib.h"),
    "xcb": ("VK_USE_PLATFORM_XCB_KHR", "xcb/xcb.h"),
    "wayland": ("VK_USE_PLATFORM_WAYLAND_KHR", "wayland-client.h"),
    "xlib_xrandr": ("VK_USE_PLATFORM_XLIB_XRANDR_EXT", "X11/extensions/Xrandr.h"),
}

# Why each other platform is excluded (reported in docs and by gen.py).
PLATFORMS_EXCLUDED_WHY = {
    "directfb": "directfb.h is not installed",
    "android": "Android NDK headers are not installed",
    "win32": "windows.h is not available on Linux",
    "vi": "Nintendo Vi headers are not available",
    "ios": "Apple headers are not available",
    "macos": "Apple headers are not available",
    "metal": "Metal headers are not available",
    "fuchsia": "Fuchsia headers are not available",
    "ggp": "Stadia (GGP) headers are not available",
    "screen": "QNX Screen headers are not available",
    "provisional": "provisional (beta) extensions change without notice; "
                   "VK_ENABLE_BETA_EXTENSIONS is not defined",
}

# Non-Vulkan types of the included platforms and how they travel.
#   "u64": an integer (X11 XIDs), varint
#   "u32": an integer, varint
#   "ptr": an opaque pointer (a connection): its value as u64, never
#          dereferenced; the replayer opens its own
PLATFORM_TYPES = {
    "Display": "ptr",
    "xcb_connection_t": "ptr",
    "Window": "u64",
    "VisualID": "u64",
    "xcb_window_t": "u32",
    "xcb_visualid_t": "u32",
    "wl_display": "ptr",
    "wl_surface": "ptr",
    "RROutput": "u64",
}

# void pointers without a length in vk.xml that are opaque cookies: their
# VALUE is recorded (u64), never what they point at.  Any other void* without
# a length makes its struct or command not carried.
OPAQUE_POINTERS = {
    ("VkAllocationCallbacks", "pUserData"): "passed back to the application's allocator",
    ("VkDebugReportCallbackCreateInfoEXT", "pUserData"): "passed back to the callback",
    ("VkDebugUtilsMessengerCreateInfoEXT", "pUserData"): "passed back to the callback",
    ("VkDeviceDeviceMemoryReportCreateInfoEXT", "pUserData"): "passed back to the callback",
    ("VkInitializePerformanceApiInfoINTEL", "pUserData"): "an application cookie",
    ("VkCheckpointDataNV", "pCheckpointMarker"): "an application cookie, returned",
    ("VkCheckpointData2NV", "pCheckpointMarker"): "an application cookie, returned",
    ("vkCmdSetCheckpointNV", "pCheckpointMarker"): "an application cookie",
    ("vkMapMemory", "ppData"): "the mapped address (output); the layer tracks the memory",
    ("vkGetDescriptorSetHostMappingVALVE", "ppData"): "a host address (output)",
    ("VkImportMemoryHostPointerInfoEXT", "pHostPointer"):
        "the application's host memory: the layer tracks it; the replay allocates its own",
    ("vkGetMemoryHostPointerPropertiesEXT", "pHostPointer"):
        "the application's host memory (the replay answers from the capture)",
}

# Parameters whose byte length only another object defines: the encoder
# takes it from sbt_vk_enc.template_data_len, set by the caller.
TEMPLATE_DATA = {
    ("vkUpdateDescriptorSetWithTemplate", "pData"):
        "layout defined by the VkDescriptorUpdateTemplate; handles inside are "
        "not mapped by the codec (the replayer walks the template)",
    ("vkCmdPushDescriptorSetWithTemplateKHR", "pData"):
        "layout defined by the VkDescriptorUpdateTemplate; handles inside are "
        "not mapped by the codec (the replayer walks the template)",
}

# Commands the codec does not carry although their types would encode:
# their data cannot be described from vk.xml.
COMMANDS_EXCLUDED = {
    "vkCmdBuildAccelerationStructuresKHR":
        "ppBuildRangeInfos[i] has pInfos[i].geometryCount elements; vk.xml gives no inner length",
    "vkBuildAccelerationStructuresKHR":
        "host build: ppBuildRangeInfos has no inner length and host addresses point at unsized data",
    "vkCmdBuildAccelerationStructuresIndirectKHR":
        "ppMaxPrimitiveCounts[i] has pInfos[i].geometryCount elements; vk.xml gives no inner length",
    "vkCopyAccelerationStructureToMemoryKHR":
        "host copy into a host address of unsized data",
    "vkCopyMemoryToAccelerationStructureKHR":
        "host copy from a host address of unsized data",
    "vkCopyAccelerationStructureKHR":
        "host command of VK_KHR_acceleration_structure (with its other host builds)",
    "vkWriteAccelerationStructuresPropertiesKHR":
        "host query writing through pData of dataSize: carried only with the host builds",
    "vkGetDeviceFaultInfoEXT":
        "array lengths live in the other parameter (VkDeviceFaultCountsEXT)",
}

# Structs the codec does not carry although vk.xml would let it try.
STRUCTS_EXCLUDED = {
    "VkCuLaunchInfoNVX": "pParams/pExtras are arrays of pointers to unsized data",
}

# Extensions not carried for reasons beyond encoding (the layer hides them).
EXTENSIONS_EXCLUDED = {
}

# Function-pointer members: only whether they were set is recorded (a
# varint 0/1); they decode as NULL.  The replayer installs its own callbacks.
# (The generator lists every such member it meets; nothing to add by hand.)
FUNCPTR_NOTE = "presence only; decodes as NULL"

# Arrays whose count vk.xml gives as an expression the generator evaluates
# on the filled struct in the self-test (values kept small and valid).
SELFTEST_LEN_SOURCES = {
    "codeSize": "4 * (uint32_t)(sbt_vk_t_rand(f) % 8)",
    "rasterizationSamples": "(VkSampleCountFlagBits)(1u << (sbt_vk_t_rand(f) % 7))",
    "samples": "(VkSampleCountFlagBits)(1u << (sbt_vk_t_rand(f) % 7))",
}


# ---- the capture layer -------------------------------------------------------

# The layer (scripts/vkgen/layer.py): commands whose wrappers are written by
# hand in layers/vulkan/vkl_*.c (chain setup, enumeration filters, tool
# properties, mapped memory, submits, presents and frames, waits).
LAYER_HANDWRITTEN = (
    "vkCreateInstance", "vkDestroyInstance",
    "vkEnumerateInstanceExtensionProperties", "vkEnumerateInstanceLayerProperties",
    "vkGetInstanceProcAddr", "vkGetDeviceProcAddr",
    "vkCreateDevice", "vkDestroyDevice",
    "vkEnumerateDeviceExtensionProperties", "vkEnumerateDeviceLayerProperties",
    "vkGetPhysicalDeviceToolProperties", "vkGetPhysicalDeviceToolPropertiesEXT",
    "vkGetPhysicalDeviceProperties",
    "vkGetPhysicalDeviceProperties2", "vkGetPhysicalDeviceProperties2KHR",
    "vkGetPhysicalDeviceFeatures2", "vkGetPhysicalDeviceFeatures2KHR",
    "vkAllocateMemory", "vkFreeMemory", "vkMapMemory", "vkUnmapMemory",
    "vkFlushMappedMemoryRanges", "vkInvalidateMappedMemoryRanges",
    "vkQueueSubmit", "vkQueueSubmit2", "vkQueueSubmit2KHR", "vkQueueBindSparse",
    "vkQueuePresentKHR",
    "vkWaitForFences", "vkGetFenceStatus", "vkQueueWaitIdle", "vkDeviceWaitIdle",
    "vkWaitSemaphores", "vkWaitSemaphoresKHR",
    "vkGetSemaphoreCounterValue", "vkGetSemaphoreCounterValueKHR",
    "vkQueueInsertDebugUtilsLabelEXT",
)

# Recorded BEFORE they are passed down: another thread can observe their
# effect before they return; every vkDestroy*/vkFree* too (a destroyed
# handle value can come back from another thread's create before the
# destroy returns).  The hand-written submit/present/unmap/flush wrappers
# do the same.
LAYER_RECORD_BEFORE = (
    "vkSetEvent", "vkResetEvent", "vkSignalSemaphore", "vkSignalSemaphoreKHR",
    "vkResetFences", "vkResetCommandPool", "vkResetDescriptorPool",
    "vkResetQueryPool", "vkResetQueryPoolEXT",
)
LAYER_RECORD_BEFORE_PREFIXES = ("vkDestroy", "vkFree")

# Generated wrappers that also tell layers/vulkan/vkl_reach.c (the memory a
# submission reaches) what the call did: resources, their memory bindings,
# views, framebuffers, descriptor set contents, command buffer lifetimes.
# Called after the call (before it for the record-before ones above).
# Every vkCmd* whose parameters name memory-reaching handles (refs.py) is
# followed by vkl_reach_cmd without being listed.
LAYER_REACH = (
    "vkCreateBuffer", "vkCreateImage", "vkCreateImageView", "vkCreateBufferView",
    "vkCreateFramebuffer",
    "vkBindBufferMemory", "vkBindBufferMemory2", "vkBindBufferMemory2KHR",
    "vkBindImageMemory", "vkBindImageMemory2", "vkBindImageMemory2KHR",
    "vkDestroyBuffer", "vkDestroyImage", "vkDestroyImageView", "vkDestroyBufferView",
    "vkDestroyFramebuffer",
    "vkAllocateCommandBuffers", "vkFreeCommandBuffers", "vkDestroyCommandPool",
    "vkBeginCommandBuffer",
    "vkAllocateDescriptorSets", "vkFreeDescriptorSets", "vkResetDescriptorPool",
    "vkDestroyDescriptorPool", "vkUpdateDescriptorSets",
    "vkCreateDescriptorUpdateTemplate", "vkCreateDescriptorUpdateTemplateKHR",
    "vkDestroyDescriptorUpdateTemplate", "vkDestroyDescriptorUpdateTemplateKHR",
    "vkUpdateDescriptorSetWithTemplate", "vkUpdateDescriptorSetWithTemplateKHR",
    "vkCmdPushDescriptorSetWithTemplateKHR",
    "vkGetBufferDeviceAddress", "vkGetBufferDeviceAddressKHR", "vkGetBufferDeviceAddressEXT",
    "vkGetBufferOpaqueCaptureAddress", "vkGetBufferOpaqueCaptureAddressKHR",
    "vkGetDeviceMemoryOpaqueCaptureAddress", "vkGetDeviceMemoryOpaqueCaptureAddressKHR",
)

# Generated wrappers that also tell layers/vulkan/vkl_hotkey.c (the capture
# key) which X connection a surface, and so a swapchain, presents to; after
# the call, before it for the destroys.
LAYER_HOTKEY = (
    "vkCreateXlibSurfaceKHR", "vkCreateXcbSurfaceKHR", "vkDestroySurfaceKHR",
    "vkCreateSwapchainKHR", "vkCreateSharedSwapchainsKHR", "vkDestroySwapchainKHR",
)

# Generated wrappers that, before the call, hand one input parameter to a
# function of the layer and pass down (and record) what it returns, so the
# driver and the trace see the same call: {command: (parameter, function)}.
#   vkCreateImage: while tracking for trimmed capture, images get transfer
#   usage where the format allows it, so a snapshot can copy their contents
#   (layers/vulkan/vkl_trim.c).
#   vkCreateSwapchainKHR: the same for the swapchain's images where the
#   surface allows it, so a snapshot can copy out those the application
#   holds as a window opens.
LAYER_ADJUST = {
    "vkCreateImage": ("pCreateInfo", "vkl_trim_image_info"),
    "vkCreateSwapchainKHR": ("pCreateInfo", "vkl_trim_swapchain_info"),
}

# Records flagged CAP_REC_WORK (a host stack under TRACESMITH_STACKS=work).
LAYER_WORK = (
    "vkQueueSubmit", "vkQueueSubmit2", "vkQueueSubmit2KHR", "vkQueueBindSparse",
    "vkQueuePresentKHR", "vkAllocateMemory", "vkFreeMemory", "vkMapMemory",
    "vkUnmapMemory", "vkFlushMappedMemoryRanges", "vkInvalidateMappedMemoryRanges",
)

# Extensions the layer refuses although the codec could encode their calls:
# their data reaches the device without passing through the layer, so a
# trace of them could not be replayed.  Hidden from enumeration, refused by
# vkCreateDevice/vkCreateInstance (layers/vulkan/vkl_layer.c).
LAYER_REFUSED_EXTENSIONS = {
    "VK_KHR_external_memory_fd": "memory contents come from another process",
    "VK_EXT_external_memory_dma_buf": "memory contents come from another process",
    "VK_KHR_external_semaphore_fd": "semaphore state comes from another process",
    "VK_KHR_external_fence_fd": "fence state comes from another process",
    "VK_EXT_image_drm_format_modifier": "only useful with imported memory",
}


# ---- members the specification says are ignored --------------------------------

# A member the specification says is ignored under some condition may hold
# anything: an uninitialised pointer, a garbage handle.  The encoder reads it
# only when the condition is false; when it is true it writes the member as
# absent (NULL, VK_NULL_HANDLE, or the rule's "absent" value), so neither the
# layer nor decode nor replay ever sees it.  The layer's handle walk
# (sbt_vk_refs) skips it too.
#
# Each rule: "owner" (struct or command), "member", "when" (the condition
# under which the member is ignored), "spec" (the wording it comes from;
# "(paraphrase)" where it is not the specification's own words) and,
# where the absent value is not 0/NULL, "absent" (a C expression).
# Conditions, over sibling members of the same struct:
#   ("not_in", MEMBER, (ENUM, ...))    MEMBER is none of the values
#   ("flag_clear", MEMBER, BIT)         BIT is not set in MEMBER
#   ("flag_set", MEMBER, BIT)           BIT is set in MEMBER
#   ("not_eq", MEMBER, VALUE)           MEMBER differs from VALUE
#   ("rasterizer_discard",)             pRasterizationState->rasterizerDiscardEnable
#                                       is set and not made dynamic by pDynamicState
#   ("lacks_stages", (STAGE_BIT, ...))  pStages lacks one of the stages
#   ("no_rendering_attachment", "depth_stencil" | "color")  a complete
#                                       graphics pipeline for dynamic rendering
#                                       without such attachments
# or over the struct it is reached from:
#   ("dynamic_state", PARENT, (STATE, ...))  one of the VkDynamicState values
#                                       is in PARENT's pDynamicState
#   ("parent_not_in", PARENT, MEMBER, (ENUM, ...))  PARENT's MEMBER is none
#                                       of the values
#   ("parent_flag_clear", PARENT, MEMBER, BIT)  BIT is not set in PARENT's
#                                       MEMBER
# (PARENT's encoder points sbt_vk_e.parent at itself; the handle walker of
# the owner takes its parent; reached from elsewhere, the member is read.)
# or over the command the struct is passed to:
#   ("in_command", COMMAND)             the struct is a parameter of COMMAND
# or over state only the layer has (the encoder reads the member as usual;
# the layer writes it absent in what it records, LAYER_ARG_FIXUPS below):
#   ("primary_command_buffer",)         the command buffer the struct begins
#                                       was allocated PRIMARY
#
# tests/programs/vk_ignored.c has one case per rule (it enumerates the table
# the generator writes, serializer/generated/sbt_vk_ignored.h, and fails on a
# rule without a case); tests/shell/test_vk_ignored.sh runs it.
_IMAGE_TYPES = ("VK_DESCRIPTOR_TYPE_SAMPLER", "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER",
                "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE", "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE",
                "VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT",
                "VK_DESCRIPTOR_TYPE_SAMPLE_WEIGHT_IMAGE_QCOM",
                "VK_DESCRIPTOR_TYPE_BLOCK_MATCH_IMAGE_QCOM")
_BUFFER_TYPES = ("VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER", "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER",
                 "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC",
                 "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC")
_TEXEL_TYPES = ("VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER",
                "VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER")
_DERIVATIVE = ("flag_clear", "flags", "VK_PIPELINE_CREATE_DERIVATIVE_BIT")
_DERIVATIVE_SPEC = ("(paraphrase) Pipeline Derivatives: the base pipeline is named by "
                    "basePipelineHandle or basePipelineIndex only for a pipeline created "
                    "with VK_PIPELINE_CREATE_DERIVATIVE_BIT; vk.xml marks both "
                    "noautovalidity and their VUIDs start \"If flags contains the "
                    "VK_PIPELINE_CREATE_DERIVATIVE_BIT flag\"")

# A secondary command buffer continues a render pass only with
# VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT in its begin info.
_INHERIT_NO_PASS = ("parent_flag_clear", "VkCommandBufferBeginInfo", "flags",
                    "VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT")
_INHERIT_NO_PASS_SPEC = ("VkCommandBufferInheritanceInfo: \"If the VkCommandBuffer will not "
                         "be executed within a render pass instance, or if the render pass "
                         "instance was begun with vkCmdBeginRendering, renderPass, subpass, "
                         "and framebuffer are ignored.\" (the first half: the begin info "
                         "lacks VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT)")
_TEMPLATE_SET = ("not_eq", "templateType", "VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET")
_TEMPLATE_PUSH = ("not_eq", "templateType",
                  "VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR")
_TEMPLATE_PUSH_SPEC = ("VkDescriptorUpdateTemplateCreateInfo: \"%s. This parameter is ignored "
                       "if templateType is not "
                       "VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR\"")

IGNORED_MEMBERS = [
    {"owner": "VkDescriptorSetLayoutBinding", "member": "pImmutableSamplers",
     "when": ("not_in", "descriptorType", ("VK_DESCRIPTOR_TYPE_SAMPLER",
                                           "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER")),
     "spec": "VkDescriptorSetLayoutBinding: \"If descriptorType is not one of these "
             "descriptor types, then pImmutableSamplers is ignored.\""},
    {"owner": "VkWriteDescriptorSet", "member": "pImageInfo",
     "when": ("not_in", "descriptorType", _IMAGE_TYPES),
     "spec": "VkWriteDescriptorSet: \"pImageInfo is a pointer to an array of "
             "VkDescriptorImageInfo structures or is ignored, as described below.\""},
    {"owner": "VkWriteDescriptorSet", "member": "pBufferInfo",
     "when": ("not_in", "descriptorType", _BUFFER_TYPES),
     "spec": "VkWriteDescriptorSet: \"pBufferInfo is a pointer to an array of "
             "VkDescriptorBufferInfo structures or is ignored, as described below.\""},
    {"owner": "VkWriteDescriptorSet", "member": "pTexelBufferView",
     "when": ("not_in", "descriptorType", _TEXEL_TYPES),
     "spec": "VkWriteDescriptorSet: \"pTexelBufferView is a pointer to an array of "
             "VkBufferView handles as described in the Buffer Views section or is "
             "ignored, as described below.\""},
    {"owner": "VkWriteDescriptorSet", "member": "dstSet",
     "when": ("in_command", "vkCmdPushDescriptorSetKHR"),
     "spec": "(paraphrase) vkCmdPushDescriptorSetKHR: push descriptors are written "
             "into the command buffer's push descriptor set, and each element of "
             "pDescriptorWrites is interpreted as for vkUpdateDescriptorSets except "
             "that its dstSet is ignored"},
    {"owner": "VkComputePipelineCreateInfo", "member": "basePipelineHandle",
     "when": _DERIVATIVE, "spec": _DERIVATIVE_SPEC},
    {"owner": "VkComputePipelineCreateInfo", "member": "basePipelineIndex",
     "when": _DERIVATIVE, "absent": "-1", "spec": _DERIVATIVE_SPEC},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "basePipelineHandle",
     "when": _DERIVATIVE, "spec": _DERIVATIVE_SPEC},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "basePipelineIndex",
     "when": _DERIVATIVE, "absent": "-1", "spec": _DERIVATIVE_SPEC},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "pViewportState",
     "when": ("rasterizer_discard",),
     "spec": "(paraphrase) VkGraphicsPipelineCreateInfo: pViewportState defines the "
             "viewport state used when rasterization is enabled; it is ignored if the "
             "pipeline has rasterization disabled"},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "pMultisampleState",
     "when": ("rasterizer_discard",),
     "spec": "(paraphrase) VkGraphicsPipelineCreateInfo: pMultisampleState is ignored "
             "if the pipeline has rasterization disabled"},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "pDepthStencilState",
     "when": ("rasterizer_discard",),
     "spec": "(paraphrase) VkGraphicsPipelineCreateInfo: pDepthStencilState is ignored "
             "if the pipeline has rasterization disabled (or the subpass uses no "
             "depth/stencil attachment: not a rule yet)"},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "pColorBlendState",
     "when": ("rasterizer_discard",),
     "spec": "(paraphrase) VkGraphicsPipelineCreateInfo: pColorBlendState is ignored "
             "if the pipeline has rasterization disabled (or the subpass uses no color "
             "attachments: not a rule yet)"},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "pDepthStencilState",
     "when": ("no_rendering_attachment", "depth_stencil"),
     "spec": "(paraphrase) VkGraphicsPipelineCreateInfo: pDepthStencilState is used for "
             "the depth/stencil attachments accessed during rendering; vk.xml marks it "
             "noautovalidity and VUID-VkGraphicsPipelineCreateInfo-renderPass-06053 "
             "requires it only \"If renderPass is VK_NULL_HANDLE, ... and either of "
             "VkPipelineRenderingCreateInfo::depthAttachmentFormat or "
             "VkPipelineRenderingCreateInfo::stencilAttachmentFormat are not "
             "VK_FORMAT_UNDEFINED\" (a render pass's subpass: not a rule yet)"},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "pColorBlendState",
     "when": ("no_rendering_attachment", "color"),
     "spec": "(paraphrase) VkGraphicsPipelineCreateInfo: pColorBlendState is used for "
             "the color attachments accessed during rendering; vk.xml marks it "
             "noautovalidity and VUID-VkGraphicsPipelineCreateInfo-renderPass-06054 "
             "requires it only \"If renderPass is VK_NULL_HANDLE, ... and "
             "VkPipelineRenderingCreateInfo::colorAttachmentCount is not equal to 0\" "
             "(a render pass's subpass: not a rule yet)"},
    {"owner": "VkGraphicsPipelineCreateInfo", "member": "pTessellationState",
     "when": ("lacks_stages", ("VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT",
                               "VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT")),
     "spec": "(paraphrase) VkGraphicsPipelineCreateInfo: pTessellationState is ignored "
             "if the pipeline does not include a tessellation control shader stage "
             "and a tessellation evaluation shader stage"},
    {"owner": "VkBufferCreateInfo", "member": "pQueueFamilyIndices",
     "when": ("not_eq", "sharingMode", "VK_SHARING_MODE_CONCURRENT"),
     "spec": "VkBufferCreateInfo: \"pQueueFamilyIndices is a pointer to an array of "
             "queue families that will access this buffer. It is ignored if "
             "sharingMode is not VK_SHARING_MODE_CONCURRENT.\""},
    {"owner": "VkImageCreateInfo", "member": "pQueueFamilyIndices",
     "when": ("not_eq", "sharingMode", "VK_SHARING_MODE_CONCURRENT"),
     "spec": "VkImageCreateInfo: \"pQueueFamilyIndices is a pointer to an array of "
             "queue families that will access this image. It is ignored if "
             "sharingMode is not VK_SHARING_MODE_CONCURRENT.\""},
    {"owner": "VkPipelineViewportStateCreateInfo", "member": "pViewports",
     "when": ("dynamic_state", "VkGraphicsPipelineCreateInfo",
              ("VK_DYNAMIC_STATE_VIEWPORT", "VK_DYNAMIC_STATE_VIEWPORT_WITH_COUNT")),
     "spec": "VkPipelineViewportStateCreateInfo: \"pViewports is a pointer to an array "
             "of VkViewport structures, defining the viewport transforms. If the "
             "viewport state is dynamic, this member is ignored.\""},
    {"owner": "VkPipelineViewportStateCreateInfo", "member": "pScissors",
     "when": ("dynamic_state", "VkGraphicsPipelineCreateInfo",
              ("VK_DYNAMIC_STATE_SCISSOR", "VK_DYNAMIC_STATE_SCISSOR_WITH_COUNT")),
     "spec": "VkPipelineViewportStateCreateInfo: \"pScissors is a pointer to an array "
             "of VkRect2D structures defining the rectangular bounds of the scissor for "
             "the corresponding viewport. If the scissor state is dynamic, this member "
             "is ignored.\""},
    {"owner": "VkDescriptorImageInfo", "member": "sampler",
     "when": ("parent_not_in", "VkWriteDescriptorSet", "descriptorType",
              ("VK_DESCRIPTOR_TYPE_SAMPLER", "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER")),
     "spec": "(paraphrase) VkDescriptorImageInfo: sampler is used in descriptor updates "
             "for types VK_DESCRIPTOR_TYPE_SAMPLER and "
             "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER if the binding being updated does "
             "not use immutable samplers (the immutable-sampler half is not a rule yet); "
             "vk.xml marks it noautovalidity"},
    {"owner": "VkDescriptorImageInfo", "member": "imageView",
     "when": ("parent_not_in", "VkWriteDescriptorSet", "descriptorType",
              ("VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE", "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE",
               "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER",
               "VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT",
               "VK_DESCRIPTOR_TYPE_SAMPLE_WEIGHT_IMAGE_QCOM",
               "VK_DESCRIPTOR_TYPE_BLOCK_MATCH_IMAGE_QCOM")),
     "spec": "(paraphrase) VkDescriptorImageInfo: imageView is used in descriptor "
             "updates for types VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, "
             "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER "
             "and VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT (and the QCOM image-processing "
             "types); vk.xml marks it noautovalidity"},
    {"owner": "VkFramebufferCreateInfo", "member": "pAttachments",
     "when": ("flag_set", "flags", "VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT"),
     "spec": "VkFramebufferCreateInfo: \"pAttachments is a pointer to an array of "
             "VkImageView handles, each of which will be used as the corresponding "
             "attachment in a render pass instance. If flags includes "
             "VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT, this parameter is ignored.\""},
    {"owner": "VkSwapchainCreateInfoKHR", "member": "pQueueFamilyIndices",
     "when": ("not_eq", "imageSharingMode", "VK_SHARING_MODE_CONCURRENT"),
     "spec": "(paraphrase) VkSwapchainCreateInfoKHR: pQueueFamilyIndices is \"a pointer "
             "to an array of queue family indices having access to the images of the "
             "swapchain when imageSharingMode is VK_SHARING_MODE_CONCURRENT\"; its VUIDs "
             "start \"If imageSharingMode is VK_SHARING_MODE_CONCURRENT\" and vk.xml "
             "marks it noautovalidity"},
    {"owner": "VkCommandBufferBeginInfo", "member": "pInheritanceInfo",
     "when": ("primary_command_buffer",),
     "spec": "VkCommandBufferBeginInfo: \"pInheritanceInfo is a pointer to a "
             "VkCommandBufferInheritanceInfo structure, used if commandBuffer is a "
             "secondary command buffer. If this is a primary command buffer, then this "
             "value is ignored.\""},
    {"owner": "VkCommandBufferInheritanceInfo", "member": "renderPass",
     "when": _INHERIT_NO_PASS, "spec": _INHERIT_NO_PASS_SPEC},
    {"owner": "VkCommandBufferInheritanceInfo", "member": "subpass",
     "when": _INHERIT_NO_PASS, "spec": _INHERIT_NO_PASS_SPEC},
    {"owner": "VkCommandBufferInheritanceInfo", "member": "framebuffer",
     "when": _INHERIT_NO_PASS, "spec": _INHERIT_NO_PASS_SPEC},
    {"owner": "VkDescriptorUpdateTemplateCreateInfo", "member": "descriptorSetLayout",
     "when": _TEMPLATE_SET,
     "spec": "VkDescriptorUpdateTemplateCreateInfo: \"descriptorSetLayout is the descriptor "
             "set layout used to build the descriptor update template. [...] This parameter "
             "is ignored if templateType is not "
             "VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET.\""},
    {"owner": "VkDescriptorUpdateTemplateCreateInfo", "member": "pipelineBindPoint",
     "when": _TEMPLATE_PUSH,
     "spec": _TEMPLATE_PUSH_SPEC % "pipelineBindPoint is a VkPipelineBindPoint indicating "
                                   "the type of the pipeline that will use the descriptors"},
    {"owner": "VkDescriptorUpdateTemplateCreateInfo", "member": "pipelineLayout",
     "when": _TEMPLATE_PUSH,
     "spec": _TEMPLATE_PUSH_SPEC % "pipelineLayout is a VkPipelineLayout object used to "
                                   "program the bindings"},
    {"owner": "VkDescriptorUpdateTemplateCreateInfo", "member": "set",
     "when": _TEMPLATE_PUSH,
     "spec": _TEMPLATE_PUSH_SPEC % "set is the set number of the descriptor set in the "
                                   "pipeline layout that will be updated"},
]

# Ignored members only the layer can tell (("primary_command_buffer",)
# rules): what a generated wrapper declares and runs after filling vkl_a
# and before recording it, so that the recorded (and walked) arguments hold
# the member as absent.  vkAllocateCommandBuffers keeps each command
# buffer's level in its object-table entry (layer.py created_handles).
LAYER_ARG_FIXUPS = {
    "vkBeginCommandBuffer": ("VkCommandBufferBeginInfo vkl_fix;",
                             "vkl_a.pBeginInfo = vkl_begin_info_recorded(commandBuffer, "
                             "pBeginInfo, &vkl_fix);"),
}

# The generic rule: an input (const) array whose count is 0 is ignored
# ("If COUNT is not 0, P must be a valid pointer to an array of COUNT ..."
# is the only requirement the specification puts on it), e.g.
# VkRenderPassBeginInfo.pClearValues with clearValueCount 0.  The encoder
# writes it as absent.  Output arrays keep their pointer: a non-NULL output
# array of 0 elements differs from NULL (a count query).
IGNORED_ZERO_COUNT_SPEC = ("Valid Usage (Implicit): \"If COUNT is not 0, P must be a "
                           "valid pointer to an array of COUNT ... values\"")


# ---- the decoder and the dump (codec.py) ----------------------------------------

# Arrays whose specification lets them be NULL while their count is not 0,
# although vk.xml does not mark them optional= (they are noautovalidity=):
# the decoder accepts them absent.  {(struct or command, member): the
# specification's words}.
DECODE_ABSENT_OK = {
    ("vkCmdBeginTransformFeedbackEXT", "pCounterBuffers"):
        "\"If pCounterBuffers is NULL, then transform feedback will start capturing "
        "vertex data to byte offset zero in all bound transform feedback buffers.\"",
    ("vkCmdEndTransformFeedbackEXT", "pCounterBuffers"):
        "\"pCounterBuffers is NULL or a pointer to an array of VkBuffer handles\"",
    ("VkImageCompressionControlEXT", "pFixedRateFlags"):
        "\"If flags is VK_IMAGE_COMPRESSION_FIXED_RATE_EXPLICIT_EXT, pFixedRateFlags "
        "must not be NULL\" (only then)",
}

# 32-bit members that tsinfo --dump prints as a version (major.minor.patch,
# sbt_vk_pr_ver) rather than a number: vk.xml gives them the type uint32_t
# only; the specification says they hold VK_MAKE_API_VERSION values.
DUMP_VERSION_MEMBERS = ("apiVersion",)


# ---- the handle walk (refs.py) --------------------------------------------------

# Commands walked besides every vkCmd*: the begin (its inheritance info
# names a framebuffer) and the submits (they name the command buffers).
REFS_EXTRA = ("vkBeginCommandBuffer", "vkQueueSubmit", "vkQueueSubmit2", "vkQueueSubmit2KHR")

# Handle types through which a command cannot reach memory the host maps:
# not walked, so the recording path does not pay for them.  Every other
# handle type is reported (the caller treats one it does not model as
# reaching anything).  Shaders reach memory only through descriptors and
# device addresses; the layer publishes memory that has device addresses
# at every submission.
REFS_NO_MEMORY = frozenset((
    "VkInstance", "VkPhysicalDevice", "VkDevice", "VkQueue", "VkCommandPool",
    "VkPipeline", "VkPipelineLayout", "VkPipelineCache", "VkShaderModule", "VkShaderEXT",
    "VkRenderPass", "VkSampler", "VkSamplerYcbcrConversion", "VkDescriptorSetLayout",
    "VkDescriptorPool", "VkDescriptorUpdateTemplate", "VkQueryPool", "VkEvent", "VkFence",
    "VkSemaphore", "VkSwapchainKHR", "VkSurfaceKHR", "VkDisplayKHR", "VkDisplayModeKHR",
    "VkDebugReportCallbackEXT", "VkDebugUtilsMessengerEXT", "VkValidationCacheEXT",
    "VkPrivateDataSlot", "VkDeferredOperationKHR", "VkPerformanceConfigurationINTEL",
    "VkIndirectCommandsLayoutNV", "VkVideoSessionParametersKHR",
))

# Buffers and images that a command (or a structure, wherever it is walked)
# names only for the device to read: copy and blit sources, vertex, index,
# indirect and predicate buffers, and buffer barriers, which move no bytes.
# The walk reports them as read (sbt_vk_refs' reads_only), so that a
# submission does not take host writes to them for device writes: a
# program's upload buffer with TRANSFER_SRC | TRANSFER_DST usage, in host
# memory it imported (mpv through libplacebo), shares its pages with the
# program's other heap data, which its threads change while the upload
# runs.  A handle named here and, in the same command buffer, anywhere else
# is taken as written.  refs.py checks that each member exists.
REFS_READS_ONLY = {
    "vkCmdBindIndexBuffer": ("buffer",),
    "vkCmdBindVertexBuffers": ("pBuffers",),
    "vkCmdBindVertexBuffers2": ("pBuffers",),
    "vkCmdBindVertexBuffers2EXT": ("pBuffers",),
    "vkCmdDrawIndirect": ("buffer",),
    "vkCmdDrawIndexedIndirect": ("buffer",),
    "vkCmdDispatchIndirect": ("buffer",),
    "vkCmdDrawIndirectCount": ("buffer", "countBuffer"),
    "vkCmdDrawIndirectCountKHR": ("buffer", "countBuffer"),
    "vkCmdDrawIndirectCountAMD": ("buffer", "countBuffer"),
    "vkCmdDrawIndexedIndirectCount": ("buffer", "countBuffer"),
    "vkCmdDrawIndexedIndirectCountKHR": ("buffer", "countBuffer"),
    "vkCmdDrawIndexedIndirectCountAMD": ("buffer", "countBuffer"),
    "vkCmdDrawIndirectByteCountEXT": ("counterBuffer",),
    "vkCmdDrawMeshTasksIndirectNV": ("buffer",),
    "vkCmdDrawMeshTasksIndirectCountNV": ("buffer", "countBuffer"),
    "vkCmdDrawMeshTasksIndirectEXT": ("buffer",),
    "vkCmdDrawMeshTasksIndirectCountEXT": ("buffer", "countBuffer"),
    "vkCmdCopyBuffer": ("srcBuffer",),
    "vkCmdCopyImage": ("srcImage",),
    "vkCmdBlitImage": ("srcImage",),
    "vkCmdCopyBufferToImage": ("srcBuffer",),
    "vkCmdCopyImageToBuffer": ("srcImage",),
    "vkCmdResolveImage": ("srcImage",),
    "VkCopyBufferInfo2": ("srcBuffer",),
    "VkCopyImageInfo2": ("srcImage",),
    "VkBlitImageInfo2": ("srcImage",),
    "VkCopyBufferToImageInfo2": ("srcBuffer",),
    "VkCopyImageToBufferInfo2": ("srcImage",),
    "VkResolveImageInfo2": ("srcImage",),
    "VkConditionalRenderingBeginInfoEXT": ("buffer",),
    "VkBufferMemoryBarrier": ("buffer",),
    "VkBufferMemoryBarrier2": ("buffer",),
}

# Buffers a command writes only where its regions say (copy destinations,
# fills, updates): the walk reports them with access 2
# (SBT_VK_REF_REGIONS), and the layer notes the bytes the regions cover
# (vkl_reach.c, vkl_reach_regions) instead of the whole buffer, so that a
# host write next to them while the copy runs (ffmpeg's download into a
# frame's host memory it imported, whose pages hold other heap data) is not
# taken for the device's.  refs.py checks that each member exists.
REFS_WRITES_REGIONS = {
    "vkCmdCopyBuffer": ("dstBuffer",),
    "vkCmdCopyImageToBuffer": ("dstBuffer",),
    "vkCmdFillBuffer": ("dstBuffer",),
    "vkCmdUpdateBuffer": ("dstBuffer",),
    "VkCopyBufferInfo2": ("dstBuffer",),
    "VkCopyImageToBufferInfo2": ("dstBuffer",),
}


# ---- the capture layer, continued (layer.py) ------------------------------------

# Entry points vkl_procs offers whatever the next layer exposes
# (VKL_PROC_ALWAYS): the proc-address queries, and the tool-properties and
# device extension / layer enumerations, which the layer answers itself
# (layers/vulkan/vkl_layer.c) even when the next layer lacks them.
LAYER_PROC_ALWAYS = (
    "vkGetInstanceProcAddr", "vkGetDeviceProcAddr",
    "vkGetPhysicalDeviceToolProperties", "vkGetPhysicalDeviceToolPropertiesEXT",
    "vkEnumerateDeviceExtensionProperties", "vkEnumerateDeviceLayerProperties",
)

# Commands whose created handles belong to another object than vk.xml's
# parent= says: {command: the parameter that owns them}.  Swapchain images
# (parent= VkDevice) end with their swapchain, so the live-object table
# files them under it.
LAYER_CREATED_PARENT = {
    "vkGetSwapchainImagesKHR": "swapchain",
}

# Commands that end every object allocated from one of their parameters
# without naming those objects: {command: that parameter}.  The wrapper
# removes the parameter's children from the live-object table.
LAYER_REMOVE_CHILDREN = {
    "vkResetDescriptorPool": "descriptorPool",
}

# Hand-written layer wrappers (LAYER_HANDWRITTEN) that record the call
# before passing it down, so that a VkResult other than VK_SUCCESS arrives
# later in a vulkan.tsResult record.  With LAYER_RECORD_BEFORE and
# LAYER_RECORD_BEFORE_PREFIXES they make replay.py's RPVK_F_BEFORE set.
# (vkFlushMappedMemoryRanges records before too, layers/vulkan/vkl_queue.c,
# but is not listed: replay compares its result with the recorded one.)
LAYER_HANDWRITTEN_RECORD_BEFORE = (
    "vkQueueSubmit", "vkQueueSubmit2", "vkQueueSubmit2KHR", "vkQueueBindSparse",
    "vkQueuePresentKHR",
)


# ---- the replayer (replay.py) ---------------------------------------------------

# Commands written by hand in replayer/vulkan/rpvk_*.c (rpvk_o_<name>),
# with the reason.  Everything else the codec carries gets generated glue
# (or, where generic glue cannot replay it, a reason in rpvk_cmd_why).
REPLAY_HANDWRITTEN = {
    # instance and device: strip loader/layer pNext, --validate, --device
    "vkCreateInstance": "strip loader/layer pNext and debug callbacks; add validation",
    "vkDestroyInstance": "drop the instance table",
    "vkEnumeratePhysicalDevices": "map physical devices by enumeration order or --device",
    "vkEnumeratePhysicalDeviceGroups": "groups of one mapped physical device",
    "vkEnumeratePhysicalDeviceGroupsKHR": "groups of one mapped physical device",
    "vkCreateDevice": "strip loader pNext; queue families as captured",
    "vkDestroyDevice": "drop the device table and its swapchains",
    "vkGetInstanceProcAddr": "no effect on replay",
    "vkGetDeviceProcAddr": "no effect on replay",
    "vkEnumerateInstanceExtensionProperties": "query: answered from the capture",
    "vkEnumerateInstanceLayerProperties": "query: answered from the capture",
    "vkEnumerateInstanceVersion": "query: answered from the capture",
    "vkEnumerateDeviceExtensionProperties": "query: answered from the capture",
    "vkEnumerateDeviceLayerProperties": "query: answered from the capture",
    # memory
    "vkGetPhysicalDeviceMemoryProperties": "keep captured and live memory types for the remap",
    "vkGetPhysicalDeviceMemoryProperties2": "keep captured and live memory types for the remap",
    "vkGetPhysicalDeviceMemoryProperties2KHR": "keep captured and live memory types for the remap",
    "vkGetBufferMemoryRequirements": "captured vs live size, for allocation sizes",
    "vkGetImageMemoryRequirements": "captured vs live size, for allocation sizes",
    "vkGetBufferMemoryRequirements2": "captured vs live size, for allocation sizes",
    "vkGetBufferMemoryRequirements2KHR": "captured vs live size, for allocation sizes",
    "vkGetImageMemoryRequirements2": "captured vs live size, for allocation sizes",
    "vkGetImageMemoryRequirements2KHR": "captured vs live size, for allocation sizes",
    "vkGetMemoryHostPointerPropertiesEXT":
        "query of the capturing process's host address: answered from the capture",
    "vkAllocateMemory": "memory type remap and size from the live requirements",
    "vkFreeMemory": "forget the mapping",
    "vkMapMemory": "keep the live pointer for tsMemoryWrite and checkpoints",
    "vkGetBufferDeviceAddress": "stop where the live address is not the captured one",
    "vkGetBufferDeviceAddressKHR": "stop where the live address is not the captured one",
    "vkGetBufferDeviceAddressEXT": "stop where the live address is not the captured one",
    "vkUnmapMemory": "forget the live pointer",
    # waits (rpvk_wait.c): a wait that succeeded at capture must complete at
    # replay, within --wait-timeout, and one nothing replayed signals is an error
    "vkWaitForFences": "bounded wait when the capture's wait succeeded; unsignalled fences refused",
    "vkGetFenceStatus": "wait (bounded) for the fence when it was signalled at capture",
    "vkWaitSemaphores": "bounded wait when the capture's wait succeeded",
    "vkWaitSemaphoresKHR": "bounded wait when the capture's wait succeeded",
    "vkQueueWaitIdle": "bounded: an empty submit with a fence of ours",
    "vkDeviceWaitIdle": "bounded: an empty submit with a fence of ours on every queue",
    # descriptor update templates: handles inside pData
    "vkCreateDescriptorUpdateTemplate": "keep the entries to map handles in pData",
    "vkCreateDescriptorUpdateTemplateKHR": "keep the entries to map handles in pData",
    "vkDestroyDescriptorUpdateTemplate": "forget the entries",
    "vkDestroyDescriptorUpdateTemplateKHR": "forget the entries",
    "vkUpdateDescriptorSetWithTemplate": "map the handles inside pData",
    "vkUpdateDescriptorSetWithTemplateKHR": "map the handles inside pData",
    "vkCmdPushDescriptorSetWithTemplateKHR": "map the handles inside pData",
    # debug callbacks: the capture's function pointers do not exist here
    "vkCreateDebugUtilsMessengerEXT": "a fake handle: the callback is not in the trace",
    "vkDestroyDebugUtilsMessengerEXT": "the fake handle",
    "vkCreateDebugReportCallbackEXT": "a fake handle: the callback is not in the trace",
    "vkDestroyDebugReportCallbackEXT": "the fake handle",
    "vkSetDebugUtilsObjectNameEXT": "objectHandle mapped through objectType",
    "vkSetDebugUtilsObjectTagEXT": "objectHandle mapped through objectType",
    # window system: offscreen swapchain of plain images
    "vkCreateXcbSurfaceKHR": "offscreen: a fake surface",
    "vkCreateXlibSurfaceKHR": "offscreen: a fake surface",
    "vkCreateWaylandSurfaceKHR": "offscreen: a fake surface",
    "vkCreateHeadlessSurfaceEXT": "offscreen: a fake surface",
    "vkDestroySurfaceKHR": "the fake surface",
    "vkGetPhysicalDeviceSurfaceSupportKHR": "query: answered from the capture",
    "vkGetPhysicalDeviceSurfaceCapabilitiesKHR": "query: answered from the capture",
    "vkGetPhysicalDeviceSurfaceCapabilities2KHR": "query: answered from the capture",
    "vkGetPhysicalDeviceSurfaceCapabilities2EXT": "query: answered from the capture",
    "vkGetPhysicalDeviceSurfaceFormatsKHR": "query: answered from the capture",
    "vkGetPhysicalDeviceSurfaceFormats2KHR": "query: answered from the capture",
    "vkGetPhysicalDeviceSurfacePresentModesKHR": "query: answered from the capture",
    "vkGetPhysicalDevicePresentRectanglesKHR": "query: answered from the capture",
    "vkGetDeviceGroupSurfacePresentModesKHR": "query: answered from the capture",
    "vkGetPhysicalDeviceXcbPresentationSupportKHR": "query: answered from the capture",
    "vkGetPhysicalDeviceXlibPresentationSupportKHR": "query: answered from the capture",
    "vkGetPhysicalDeviceWaylandPresentationSupportKHR": "query: answered from the capture",
    "vkCreateSwapchainKHR": "offscreen: plain images",
    "vkCreateSharedSwapchainsKHR": "offscreen: plain images, each as vkCreateSwapchainKHR",
    "vkWaitForPresentKHR": "offscreen swapchain: its presents are done; the captured result",
    "vkGetRefreshCycleDurationGOOGLE": "query of the offscreen swapchain: answered from the capture",
    "vkGetPastPresentationTimingGOOGLE": "query of the offscreen swapchain: answered from the capture",
    "vkGetSwapchainCounterEXT": "query of the offscreen swapchain: answered from the capture",
    "vkSetHdrMetadataEXT": "offscreen swapchain: no display to tell",
    "vkSetLocalDimmingAMD": "offscreen swapchain: no display to tell",
    "vkReleaseSwapchainImagesEXT": "offscreen swapchain: acquires return the captured image, "
                                   "nothing to release",
    "vkDestroySwapchainKHR": "offscreen: plain images",
    "vkGetSwapchainImagesKHR": "offscreen: the plain images, bound to the captured handles",
    "vkGetSwapchainStatusKHR": "offscreen: answered from the capture",
    "vkAcquireNextImageKHR": "offscreen: the captured index; an empty submit signals",
    "vkAcquireNextImage2KHR": "offscreen: the captured index; an empty submit signals",
    "vkQueuePresentKHR": "offscreen: an empty submit waits; frames and screenshots",
}

# Image layouts rewritten (PRESENT_SRC_KHR -> GENERAL) for the offscreen
# swapchain before the generated glue runs (replayer/vulkan/rpvk_swapchain.c).
REPLAY_LAYOUT_REWRITE = (
    "vkCreateRenderPass", "vkCreateRenderPass2", "vkCreateRenderPass2KHR",
    "vkCmdPipelineBarrier", "vkCmdPipelineBarrier2", "vkCmdPipelineBarrier2KHR",
    "vkCmdWaitEvents", "vkCmdWaitEvents2", "vkCmdWaitEvents2KHR",
    "vkCmdSetEvent2", "vkCmdSetEvent2KHR",
)
