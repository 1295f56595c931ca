/*
 * emu_vk_build.h - the Vulkan graph builder's state, shared by emu_vk.c
 * (queues, submits, synchronization, the pass) and emu_vk_cmd.c (what is
 * recorded into command buffers, and the objects footprints name).
 * Internal to the emulator.
 */
#ifndef TRACESMITH_EMU_VK_BUILD_H
#define TRACESMITH_EMU_VK_BUILD_H

#include "emulator/emu_build.h"
#include "emulator/emu_spirv.h"
#include "emulator/emu_vk.h"
#include "serializer/sbt_vk.h"

#define EMU_VK_SETS 32        /* descriptor sets bound per bind point */
#define EMU_VK_VBUFS 32       /* vertex buffer bindings */
#define EMU_VK_ALL ((1u << EMU_VK_CLASSES) - 1u)
#define EMU_VK_BARRIER 0xffu  /* an item that is a barrier, not a command */

/* A handle -> index map (open addressing; values EMU_NONE when gone). */
typedef struct emu_vk_map {
	uint64_t *key;
	uint32_t *val;
	size_t n, cap;
} emu_vk_map;

uint32_t emu_vk_map_get(const emu_vk_map *m, uint64_t key);
int emu_vk_map_put(emu_vk_map *m, uint64_t key, uint32_t val); /* 0, or -1 out of memory */
void emu_vk_map_free(emu_vk_map *m);

typedef uint32_t emu_vk_vc[EMU_VK_QMAX];

/* to = max(to, from) over the first n queues (the others are 0 in both). */
static inline void emu_vk_vc_max(emu_vk_vc to, const emu_vk_vc from, size_t n)
{
	for (size_t q = 0; q < n; q++)
		to[q] = from[q] > to[q] ? from[q] : to[q];
}

/* One recorded item of a command buffer: a command or a barrier. */
typedef struct emu_vk_item {
	uint64_t seq, bytes;
	uint32_t stack_id, name;
	uint32_t acc_first, acc_count;  /* in the command buffer's acc (node unused) */
	uint8_t kind;                   /* EMU_K_*, or EMU_VK_BARRIER */
	uint8_t cls;
	/* a barrier: classes of its two scopes, and its memory dependency */
	uint8_t src, dst, srcw, dsta, global;
	uint32_t alloc;
	uint64_t lo, hi;
} emu_vk_item;

/* A descriptor: one array element of one binding of a set. */
typedef struct emu_vk_desc {
	uint32_t binding, elem;
	uint32_t alloc;                 /* 0: none (a sampler, a null descriptor) */
	uint32_t mode;
	uint64_t lo, hi;                /* a dynamic buffer: before its dynamic offset,
	                                   hi UINT64_MAX for VK_WHOLE_SIZE */
	uint8_t dyn;                    /* a dynamic uniform or storage buffer */
} emu_vk_desc;

typedef struct emu_vk_set {
	EMU_VEC(emu_vk_desc) d;
	uint32_t layout;                /* index in emu_vk_builder.layout; EMU_NONE */
} emu_vk_set;

/* A descriptor set layout's dynamic buffer bindings, by binding number:
 * the order its sets' dynamic offsets come in. */
typedef struct emu_vk_dynb {
	uint32_t binding, count;
} emu_vk_dynb;

typedef struct emu_vk_layout {
	EMU_VEC(emu_vk_dynb) dyn;
	uint32_t ndyn;                  /* dynamic descriptors in all */
} emu_vk_layout;

/* The descriptor bindings a shader module, or a pipeline's shaders, declare
 * (emu_spirv.h); known 0 when its code was not read (then every bound
 * descriptor counts). */
typedef struct emu_vk_shader {
	EMU_VEC(emu_spv_binding) b;
	int known;
} emu_vk_shader;

/* A descriptor update template: its entries, and for push descriptors the
 * bind point (0 graphics, 1 compute; -1: another, or not for pushes). */
typedef struct emu_vk_tmpl {
	EMU_VEC(VkDescriptorUpdateTemplateEntry) e;
	int bind_point;
} emu_vk_tmpl;

typedef struct emu_vk_cb {
	EMU_VEC(emu_vk_item) items;
	emu_accvec acc;
	uint64_t pool;
	uint64_t sets[2][EMU_VK_SETS];   /* graphics, compute bind points */
	uint32_t vbuf[EMU_VK_VBUFS];     /* alloc of each vertex binding (0: none) */
	uint64_t vbuf_off[EMU_VK_VBUFS];
	uint32_t ibuf;
	uint64_t ibuf_off;
	uint64_t render_pass;            /* inside vkCmdBeginRenderPass*: its render pass */
	uint32_t pipe[2];                /* 1 + the emu_vk_shader of the pipeline bound (0: none) */
	/* the dynamic offsets of each bound set: dynoff[bp] from
	 * dyn_first[bp][set], dyn_count[bp][set] of them (UINT32_MAX: not
	 * known, its layout unseen) */
	EMU_VEC(uint32_t) dynoff[2];
	uint32_t dyn_first[2][EMU_VK_SETS], dyn_count[2][EMU_VK_SETS];
	emu_vk_set push[2];              /* vkCmdPushDescriptorSetKHR's set, per bind point */
	uint32_t push_at[2];             /* its set number */
	uint8_t push_used[2];
} emu_vk_cb;

/* A subpass dependency of a render pass with VK_SUBPASS_EXTERNAL on one
 * side: a barrier before the render pass (into) or after it. */
typedef struct emu_vk_rpdep {
	int into;
	VkPipelineStageFlags2 src, dst;
	VkAccessFlags2 srca, dsta;
} emu_vk_rpdep;

/* A render pass: its external dependencies, and per attachment the
 * accesses its instance makes (EMU_A_*: load and store operations, layout
 * transitions, what its subpasses use it as; 0: none). */
typedef struct emu_vk_rpass {
	EMU_VEC(emu_vk_rpdep) deps;
	EMU_VEC(uint8_t) mode;
} emu_vk_rpass;

/* A buffer view or image view: what it names (an image view: the range of
 * its image's subresources from its first to its last, emu_vk_image). */
typedef struct emu_vk_view {
	uint32_t alloc;
	uint64_t lo, hi;
} emu_vk_view;

/* A framebuffer: the views of its attachments (none when imageless: the
 * begin info names them). */
typedef struct emu_vk_fb {
	EMU_VEC(emu_vk_view) att;
	int imageless;
} emu_vk_fb;

/* An image's footprint is its subresources: mip level m, array layer l is
 * index m * layers + l of its allocation (whose size is mips * layers).
 * Aspects and regions are not told apart. */
typedef struct emu_vk_image {
	uint32_t alloc;
	VkFormat format;
	uint32_t mips, layers;
} emu_vk_image;

/* What a signal made known: the clock, and the step that signaled (EMU_NONE: none),
 * and the present or sparse bind it follows last (1 + its index in
 * emu_vk_graph.sync; 0: none). */
typedef struct emu_vk_sig {
	uint64_t value;
	uint32_t step;
	uint32_t sync;
	emu_vk_vc vc;
} emu_vk_sig;

typedef struct emu_vk_sem {
	int timeline;
	int signaled;                   /* binary: a signal not yet waited on */
	EMU_VEC(emu_vk_sig) sigs;       /* binary: one; timeline: by value */
} emu_vk_sem;

typedef struct emu_vk_resvis {
	uint32_t vis[EMU_VK_CLASSES][EMU_VK_CLASSES];
} emu_vk_resvis;

typedef struct emu_vk_queue {
	uint32_t stream;
	uint32_t batch, pos;
	uint32_t last_step;             /* EMU_NONE */
	uint32_t last_sync;             /* 1 + its last present or sparse bind since last_step; 0 */
	EMU_VEC(uint32_t) batch_step;   /* per batch: its step or the last one before (EMU_NONE) */
	emu_vk_vc front[EMU_VK_CLASSES]; /* what the next command of each class is after */
	emu_vk_vc all;                  /* what its commands so far are after */
	uint32_t reach[EMU_VK_CLASSES][EMU_VK_CLASSES];
	uint32_t floor[EMU_VK_CLASSES];  /* emu_vk_node.floor of the next command of each class */
	/* by global barriers: writes of class x commands up to position
	 * avail[x][y] made available, reaching the class-y stages of the
	 * next barriers' first scopes; vis[x][y]: made visible to class y */
	uint32_t avail[EMU_VK_CLASSES][EMU_VK_CLASSES], vis[EMU_VK_CLASSES][EMU_VK_CLASSES];
	emu_vk_vc host_seen;            /* host clock entries already made dependencies */
} emu_vk_queue;

typedef struct emu_vk_builder {
	emu_graph *g;
	struct emu_vk_graph *vk;
	const sbt_record *rec;
	sbt_vk_arena *arena;
	void *args;
	int16_t *cmd_of;                /* record type -> sbt_vk_cmd, -1 */
	uint32_t ntypes;
	emu_vk_map buffers, images, bviews, iviews, sets, cbs, queues, sems, fences, swapchains, rpasses,
	        fbs, tmpls, modules, pipes, layouts;
	EMU_VEC(emu_vk_layout) layout;
	/* (stream << 32 | allocation) -> index in resvis: the writes of
	 * class-x commands on that queue up to position vis[x][y] made
	 * available and visible to class y by one barrier on the whole
	 * resource */
	emu_vk_map resvises;
	EMU_VEC(emu_vk_resvis) resvis;
	EMU_VEC(emu_vk_rpass) rpass;
	EMU_VEC(emu_vk_fb) fb;
	EMU_VEC(uint32_t) buffer_alloc;
	EMU_VEC(emu_vk_image) image;
	EMU_VEC(emu_vk_view) view;
	EMU_VEC(emu_vk_set) set;
	EMU_VEC(emu_vk_tmpl) tmpl;
	EMU_VEC(emu_vk_shader) shader;  /* of modules and pipelines */
	EMU_VEC(emu_vk_cb) cb;
	EMU_VEC(emu_vk_queue) q;
	EMU_VEC(emu_vk_sem) sem;
	EMU_VEC(emu_vk_sig) fence;      /* value 1: signaled by a submit */
	/* what any host thread has waited for, as of the record being read:
	 * seqs are taken in real time as records are sealed, a wait's after
	 * its call returned and a submit's (or host signal's) before its call
	 * (docs/capture.md), so what is submitted after a wait's seq runs after
	 * what it waited for, whichever thread submits */
	emu_vk_vc host;
	EMU_VEC(emu_vk_sig) present;    /* per (swapchain, image index): what its last present waited for */
	EMU_VEC(uint64_t) present_key;
	emu_depvec tmp;
	EMU_VEC(uint32_t) tmp_sync;     /* 1 + the presents and sparse binds the step being made follows */
	char *err;
	size_t errlen;
} emu_vk_builder;

/* One handler per group of calls: reads the decoded arguments (b->args) of
 * the record b->rec; 0, or -1 (out of memory, or b->err says why). */
typedef int (*emu_vk_handler)(emu_vk_builder *b, enum sbt_vk_cmd cmd);

/* The handler of a command recorded into a command buffer or creating what
 * footprints name (emu_vk_cmd.c); NULL for the others. */
emu_vk_handler emu_vk_cmd_handler(enum sbt_vk_cmd cmd);

/* The stage classes (1 << EMU_VK_TRANSFER ...) of a stage mask in the first
 * synchronization scope (first) or the second. */
uint8_t emu_vk_classes(VkPipelineStageFlags2 m, int first);

#endif /* TRACESMITH_EMU_VK_BUILD_H */
