/*
 * rpvk_shader.c - what shaders, layouts, pipelines and framebuffers the
 * replay created need of each other, checked before a call reaches the
 * driver (docs/hostile-traces.md).
 *
 * The replay keeps (rpvk.shobjs):
 *   - of each shader module, the resource variables of its SPIR-V: set,
 *     binding, the kind of descriptor they take, their array length, and
 *     whether any function of the module uses them (a load, store, access
 *     chain, atomic, call argument, ... names the variable: "statically
 *     used" in the specification's words; entry points are not told apart);
 *   - of each descriptor set layout, its bindings (number, type, count,
 *     stages, VkDescriptorBindingFlags, immutable samplers), and copies of
 *     them in each pipeline layout (a set layout may be destroyed while a
 *     pipeline layout made from it lives on);
 *   - of each pipeline, the (set, binding) pairs its shaders use (a
 *     stage's module's, or the code its pNext gives in a
 *     VkShaderModuleCreateInfo), whether they use push constants, and for
 *     a graphics pipeline the dynamic state it leaves to the command
 *     buffer with the static values that say whether a draw reads it (a
 *     pipeline linked from libraries: theirs, together, bindings too);
 *   - of each framebuffer, its attachments' image views (none for an
 *     imageless one: the begin gives them), and of each view the image it
 *     views.
 * Refused, naming the record, the call and what is wrong:
 *   - a pipeline whose shader uses a binding its layout lacks, of another
 *     kind, with fewer descriptors than the shader's array, or not
 *     visible to the shader's stage (the layout must match the shader:
 *     lavapipe's compiled code read past its descriptor table);
 *   - vkCmdBeginRenderPass[2] with a framebuffer whose image view, or the
 *     image under it, was destroyed, or whose image's memory was freed; of
 *     an imageless framebuffer, the same of the views the begin gives
 *     (VkRenderPassAttachmentBeginInfo), and a begin that gives none or
 *     another number than the framebuffer was made with.
 * rpvk_state.c and rpvk_dset.c use the rest: a draw's dynamic state and
 * the bindings a draw or dispatch reads that no write ever reached.
 * Objects this file never saw created (imported ones, swapchain images,
 * pipeline libraries made before the trace began) are not judged.
 */
#include "replayer/vulkan/rpvk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kinds of descriptor a shader variable takes (0: not told by the type). */
enum {
	RPVK_DK_ANY = 0,
	RPVK_DK_SAMPLER,
	RPVK_DK_SAMPLED_IMAGE,
	RPVK_DK_COMBINED,
	RPVK_DK_STORAGE_IMAGE,
	RPVK_DK_UNIFORM_TEXEL,
	RPVK_DK_STORAGE_TEXEL,
	RPVK_DK_INPUT_ATTACHMENT,
	RPVK_DK_UNIFORM_BUFFER,
	RPVK_DK_STORAGE_BUFFER,
	RPVK_DK_ACCEL
};

static const char *const rpvk_dk_names[] = {
	"descriptor", "sampler", "sampled image", "combined image sampler", "storage image",
	"uniform texel buffer", "storage texel buffer", "input attachment", "uniform buffer",
	"storage buffer", "acceleration structure"
};

typedef struct rpvk_sh_var {
	uint32_t set, binding;
	uint32_t kind;             /* RPVK_DK_* */
	uint32_t count;            /* array length; 1 when not an array, 0: runtime-sized */
	uint8_t used;              /* statically used */
} rpvk_sh_var;

typedef struct rpvk_sh_module {
	uint32_t n;
	rpvk_sh_var *v;            /* owned */
	uint8_t push;              /* a function uses a push constant block */
} rpvk_sh_module;

typedef struct rpvk_sh_playout {
	uint32_t nsets;
	rpvk_sh_layout *sets;      /* owned copies; known == 0 where not judged */
} rpvk_sh_playout;

typedef struct rpvk_sh_fb {
	uint32_t n;                /* attachments */
	uint8_t imageless;         /* views given when a render pass begins */
	uint64_t *views;           /* owned; 0 where not judged (all 0 when
	                              imageless) */
} rpvk_sh_fb;

/* ---- SPIR-V --------------------------------------------------------------- */

enum {
	RPVK_SPV_MAGIC = 0x07230203u,
	RPVK_SPV_MAX_IDS = 1u << 20 /* ids past it: the module is not judged */
};

typedef struct rpvk_spv_id {
	uint32_t op;               /* the opcode that made the id (0: none) */
	uint32_t a, b, c;          /* its operands, by opcode (rpvk_spv_scan) */
	uint32_t set, binding;
	uint8_t has_set, has_binding, block, buffer_block;
} rpvk_spv_id;

/* The descriptor kind and array length of a variable of pointer type ptr. */
static void rpvk_spv_kind(const rpvk_spv_id *ids, uint32_t bound, uint32_t ptr, uint32_t *kind,
                          uint32_t *count)
{
	uint32_t sc, t;
	*kind = RPVK_DK_ANY;
	*count = 1;
	if (ptr >= bound || ids[ptr].op != 32)
		return;
	sc = ids[ptr].a;
	t = ids[ptr].b;
	if (t < bound && (ids[t].op == 28 || ids[t].op == 29)) {
		if (ids[t].op == 29)
			*count = 0;
		else if (ids[t].b < bound && ids[ids[t].b].op == 43)
			*count = ids[ids[t].b].a;
		else
			*count = 0; /* a specialization constant: not judged */
		t = ids[t].a;
	}
	if (t >= bound)
		return;
	switch (ids[t].op) {
	case 26:
		*kind = RPVK_DK_SAMPLER;
		break;
	case 27: /* a: the image type; of Dim Buffer: a uniform texel buffer
	          * (GLSL's samplerBuffer, before SPIR-V 1.6 forbade it) */
		*kind = ids[t].a < bound && ids[ids[t].a].op == 25 && ids[ids[t].a].a == 5 ?
		        RPVK_DK_UNIFORM_TEXEL : RPVK_DK_COMBINED;
		break;
	case 25: /* a: Dim, b: Sampled */
		if (ids[t].a == 5)
			*kind = ids[t].b == 1 ? RPVK_DK_UNIFORM_TEXEL : ids[t].b == 2 ? RPVK_DK_STORAGE_TEXEL : RPVK_DK_ANY;
		else if (ids[t].a == 6)
			*kind = RPVK_DK_INPUT_ATTACHMENT;
		else
			*kind = ids[t].b == 1 ? RPVK_DK_SAMPLED_IMAGE : ids[t].b == 2 ? RPVK_DK_STORAGE_IMAGE : RPVK_DK_ANY;
		break;
	case 30:
		if (sc == 12 || (sc == 2 && ids[t].buffer_block))
			*kind = RPVK_DK_STORAGE_BUFFER;
		else if (sc == 2 && ids[t].block)
			*kind = RPVK_DK_UNIFORM_BUFFER;
		break;
	case 5341:
		*kind = RPVK_DK_ACCEL;
		break;
	default:
		break;
	}
}

static void rpvk_spv_use(rpvk_spv_id *ids, uint32_t bound, uint32_t id)
{
	if (id < bound && ids[id].op == 59)
		ids[id].c |= 0x80000000u; /* used */
}

/* Operands of instruction w (n words) that may name a variable. */
static void rpvk_spv_uses(rpvk_spv_id *ids, uint32_t bound, const uint32_t *w, uint32_t n)
{
	uint32_t op = w[0] & 0xffffu, i;
	switch (op) {
	case 61: case 65: case 66: case 67: case 68: case 70: case 60: case 83:
	case 227: case 229: case 230: case 231: case 232: case 233: case 234: case 235:
	case 236: case 237: case 238: case 239: case 240: case 241: case 242: case 318:
	case 5614: case 5615: case 5616: case 6035:
		if (n > 3)
			rpvk_spv_use(ids, bound, w[3]);
		break;
	case 62: case 228: case 319:
		if (n > 1)
			rpvk_spv_use(ids, bound, w[1]);
		break;
	case 63: case 64:
		for (i = 1; i < 3 && i < n; i++)
			rpvk_spv_use(ids, bound, w[i]);
		break;
	case 401: case 402: case 403:
		for (i = 3; i < 5 && i < n; i++)
			rpvk_spv_use(ids, bound, w[i]);
		break;
	case 169:
		for (i = 4; i < 6 && i < n; i++)
			rpvk_spv_use(ids, bound, w[i]);
		break;
	case 57:
		for (i = 4; i < n; i++)
			rpvk_spv_use(ids, bound, w[i]);
		break;
	case 245:
		for (i = 3; i < n; i += 2)
			rpvk_spv_use(ids, bound, w[i]);
		break;
	default:
		break;
	}
}

/* The resource variables of SPIR-V code (words, n of them) into m; 0 when
 * the code is not read (then nothing is judged). */
static int rpvk_spv_scan(const uint32_t *code, size_t n, rpvk_sh_module *m)
{
	rpvk_spv_id *ids;
	uint32_t bound, nv = 0;
	size_t i;
	if (n < 5 || code[0] != RPVK_SPV_MAGIC || code[3] == 0 || code[3] > RPVK_SPV_MAX_IDS)
		return 0;
	bound = code[3];
	if (!(ids = calloc(bound, sizeof(*ids))))
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		for (i = 5; i < n;) {
			const uint32_t *w = &code[i];
			uint32_t wc = w[0] >> 16, op = w[0] & 0xffffu;
			if (wc == 0 || wc > n - i)
				break;
			if (pass == 1) {
				rpvk_spv_uses(ids, bound, w, wc);
				i += wc;
				continue;
			}
			switch (op) {
			case 25: /* OpTypeImage result, sampled type, Dim, Depth, Arrayed, MS, Sampled */
				if (wc > 7 && w[1] < bound) {
					ids[w[1]].op = op;
					ids[w[1]].a = w[3];
					ids[w[1]].b = w[7];
				}
				break;
			case 26: case 27: case 30: case 5341: /* result[, image type] */
				if (wc > 1 && w[1] < bound) {
					ids[w[1]].op = op;
					ids[w[1]].a = op == 27 && wc > 2 ? w[2] : 0;
				}
				break;
			case 28: case 29: /* result, element type[, length] */
				if (wc > 2 && w[1] < bound) {
					ids[w[1]].op = op;
					ids[w[1]].a = w[2];
					ids[w[1]].b = wc > 3 ? w[3] : 0;
				}
				break;
			case 32: /* OpTypePointer result, storage class, type */
				if (wc > 3 && w[1] < bound) {
					ids[w[1]].op = op;
					ids[w[1]].a = w[2];
					ids[w[1]].b = w[3];
				}
				break;
			case 43: /* OpConstant type, result, value */
				if (wc > 3 && w[2] < bound) {
					ids[w[2]].op = op;
					ids[w[2]].a = w[3];
				}
				break;
			case 59: /* OpVariable type, result, storage class (uniform
			            constant, uniform, storage buffer, push constant) */
				if (wc > 3 && w[2] < bound && (w[3] == 0 || w[3] == 2 || w[3] == 12 || w[3] == 9)) {
					ids[w[2]].op = op;
					ids[w[2]].a = w[1];
					ids[w[2]].c = w[3];
					nv++;
				}
				break;
			case 71: /* OpDecorate target, decoration, literal */
				if (wc > 2 && w[1] < bound) {
					rpvk_spv_id *t = &ids[w[1]];
					if (w[2] == 2)
						t->block = 1;
					else if (w[2] == 3)
						t->buffer_block = 1;
					else if (w[2] == 33 && wc > 3) {
						t->binding = w[3];
						t->has_binding = 1;
					} else if (w[2] == 34 && wc > 3) {
						t->set = w[3];
						t->has_set = 1;
					}
				}
				break;
			default:
				break;
			}
			i += wc;
		}
	}
	m->n = 0;
	m->v = nv ? calloc(nv, sizeof(*m->v)) : NULL;
	for (uint32_t id = 0; id < bound; id++)
		if (ids[id].op == 59 && ids[id].c == (9u | 0x80000000u))
			m->push = 1;
	for (uint32_t id = 0; m->v && id < bound; id++) {
		rpvk_sh_var *v;
		if (ids[id].op != 59 || !ids[id].has_set || !ids[id].has_binding || m->n >= nv)
			continue;
		v = &m->v[m->n++];
		v->set = ids[id].set;
		v->binding = ids[id].binding;
		v->used = (ids[id].c & 0x80000000u) != 0;
		rpvk_spv_kind(ids, bound, ids[id].a, &v->kind, &v->count);
	}
	free(ids);
	return nv == 0 || m->v != NULL;
}

/* ---- objects -------------------------------------------------------------- */

static void rpvk_sh_module_free(rpvk_sh_module *m)
{
	if (m) {
		free(m->v);
		free(m);
	}
}

void rpvk_sh_layout_finish(rpvk_sh_layout *l)
{
	free(l->b);
	memset(l, 0, sizeof(*l));
}

static void rpvk_sh_playout_free(rpvk_sh_playout *p)
{
	for (uint32_t i = 0; p && i < p->nsets; i++)
		rpvk_sh_layout_finish(&p->sets[i]);
	if (p)
		free(p->sets);
	free(p);
}

static void rpvk_sh_pipe_free(rpvk_sh_pipe *p)
{
	if (p)
		free(p->use);
	free(p);
}

static void rpvk_sh_fb_free(rpvk_sh_fb *f)
{
	if (f)
		free(f->views);
	free(f);
}

/* What a slot of rpvk.shobjs owns. */
static void rpvk_sh_slot_free(uint32_t type, uint64_t val)
{
	void *p = (void *)(uintptr_t)val;
	switch (type) {
	case VK_OBJECT_TYPE_SHADER_MODULE:
		rpvk_sh_module_free(p);
		break;
	case VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT: {
		rpvk_sh_layout *l = p;
		rpvk_sh_layout_finish(l);
		free(l);
		break;
	}
	case VK_OBJECT_TYPE_PIPELINE_LAYOUT:
		rpvk_sh_playout_free(p);
		break;
	case VK_OBJECT_TYPE_PIPELINE:
		rpvk_sh_pipe_free(p);
		break;
	case VK_OBJECT_TYPE_FRAMEBUFFER:
		rpvk_sh_fb_free(p);
		break;
	default: /* IMAGE_VIEW -> image, IMAGE -> 1: values */
		break;
	}
}

static void *rpvk_sh_get(rpvk *r, VkObjectType type, uint64_t live)
{
	const rpvk_map_slot *s = live ? rpvk_map_get(&r->shobjs, (uint32_t)type, live) : NULL;
	return s ? (void *)(uintptr_t)s->val : NULL;
}

static void rpvk_sh_drop(rpvk *r, VkObjectType type, uint64_t live)
{
	const rpvk_map_slot *s = live ? rpvk_map_get(&r->shobjs, (uint32_t)type, live) : NULL;
	if (!s)
		return;
	rpvk_sh_slot_free((uint32_t)type, s->val);
	rpvk_map_del(&r->shobjs, (uint32_t)type, live);
}

/* Keep p (owned) as what (type, live) is; freed when it cannot be kept. */
static void rpvk_sh_keep(rpvk *r, VkObjectType type, uint64_t live, void *p)
{
	rpvk_sh_drop(r, type, live);
	if (p && rpvk_map_put(&r->shobjs, (uint32_t)type, live, (uint64_t)(uintptr_t)p, 0) != 0)
		rpvk_sh_slot_free((uint32_t)type, (uint64_t)(uintptr_t)p);
}

void rpvk_shader_clear(rpvk *r)
{
	for (size_t i = 0; i < r->shobjs.cap; i++) {
		const rpvk_map_slot *s = &r->shobjs.slots[i];
		if (s->type && s->type != RPVK_MAP_TOMB)
			rpvk_sh_slot_free(s->type, s->val);
	}
	rpvk_map_clear(&r->shobjs);
}

void rpvk_shader_free(rpvk *r)
{
	rpvk_shader_clear(r);
	rpvk_map_free(&r->shobjs);
}

static int rpvk_sh_binding_cmp(const void *a, const void *b)
{
	uint32_t x = ((const rpvk_sh_binding *)a)->binding, y = ((const rpvk_sh_binding *)b)->binding;
	return x < y ? -1 : x > y;
}

int rpvk_shader_layout_copy(rpvk *r, VkDescriptorSetLayout layout, rpvk_sh_layout *out)
{
	const rpvk_sh_layout *l = rpvk_sh_get(r, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
	                                      (uint64_t)(uintptr_t)layout);
	memset(out, 0, sizeof(*out));
	if (!l)
		return 0;
	if (l->n && !(out->b = malloc(l->n * sizeof(*out->b))))
		return 0;
	if (l->n)
		memcpy(out->b, l->b, l->n * sizeof(*out->b));
	out->n = l->n;
	out->known = 1;
	return 1;
}

int rpvk_sh_layout_find(const rpvk_sh_layout *l, uint32_t binding)
{
	uint32_t lo = 0, hi = l->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->b[mid].binding == binding)
			return (int)mid;
		if (l->b[mid].binding < binding)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void rpvk_sh_layout_created(rpvk *r, const sbt_vk_args_vkCreateDescriptorSetLayout *a)
{
	const VkDescriptorSetLayoutCreateInfo *ci = a->pCreateInfo;
	const VkDescriptorSetLayoutBindingFlagsCreateInfo *fl = NULL;
	rpvk_sh_layout *l;
	if (a->ret != VK_SUCCESS || !a->pSetLayout || !*a->pSetLayout || !ci)
		return;
	for (const VkBaseInStructure *p = ci->pNext; p; p = p->pNext)
		if (p->sType == VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO)
			fl = (const VkDescriptorSetLayoutBindingFlagsCreateInfo *)(const void *)p;
	if (!(l = calloc(1, sizeof(*l))))
		return;
	l->known = 1;
	if (ci->bindingCount && ci->pBindings && !(l->b = calloc(ci->bindingCount, sizeof(*l->b)))) {
		free(l);
		return;
	}
	for (uint32_t i = 0; l->b && i < ci->bindingCount; i++) {
		const VkDescriptorSetLayoutBinding *b = &ci->pBindings[i];
		rpvk_sh_binding *o = &l->b[l->n++];
		o->binding = b->binding;
		o->type = (uint32_t)b->descriptorType;
		o->count = b->descriptorCount;
		o->stages = b->stageFlags;
		o->flags = fl && fl->pBindingFlags && i < fl->bindingCount ? fl->pBindingFlags[i] : 0;
		o->immutable = b->pImmutableSamplers != NULL;
	}
	if (l->n)
		qsort(l->b, l->n, sizeof(*l->b), rpvk_sh_binding_cmp);
	rpvk_sh_keep(r, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, (uint64_t)(uintptr_t)*a->pSetLayout, l);
}

static void rpvk_sh_playout_created(rpvk *r, const sbt_vk_args_vkCreatePipelineLayout *a)
{
	const VkPipelineLayoutCreateInfo *ci = a->pCreateInfo;
	rpvk_sh_playout *p;
	if (a->ret != VK_SUCCESS || !a->pPipelineLayout || !*a->pPipelineLayout || !ci)
		return;
	if (!(p = calloc(1, sizeof(*p))))
		return;
	if (ci->setLayoutCount && ci->pSetLayouts &&
	    !(p->sets = calloc(ci->setLayoutCount, sizeof(*p->sets)))) {
		free(p);
		return;
	}
	for (uint32_t i = 0; p->sets && i < ci->setLayoutCount; i++, p->nsets++)
		rpvk_shader_layout_copy(r, ci->pSetLayouts[i], &p->sets[i]);
	rpvk_sh_keep(r, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)(uintptr_t)*a->pPipelineLayout, p);
}

/* Whether a shader variable of kind takes a layout binding of type. */
static int rpvk_sh_kind_fits(uint32_t kind, uint32_t type)
{
	switch (kind) {
	case RPVK_DK_SAMPLER:
		return type == VK_DESCRIPTOR_TYPE_SAMPLER || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
	case RPVK_DK_SAMPLED_IMAGE:
		return type == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
	case RPVK_DK_COMBINED:
		return type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
	case RPVK_DK_STORAGE_IMAGE:
		return type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
	case RPVK_DK_UNIFORM_TEXEL:
		return type == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
	case RPVK_DK_STORAGE_TEXEL:
		return type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
	case RPVK_DK_INPUT_ATTACHMENT:
		return type == VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
	case RPVK_DK_UNIFORM_BUFFER:
		return type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
		       type == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK;
	case RPVK_DK_STORAGE_BUFFER:
		return type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
	case RPVK_DK_ACCEL:
		return type == VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR ||
		       type == VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_NV;
	default:
		return 1;
	}
}

/* Layout types this file knows; a binding of another (mutable, an
 * extension's) is not judged. */
static int rpvk_sh_type_known(uint32_t type)
{
	return type <= VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT || type == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK ||
	       type == VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR ||
	       type == VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_NV;
}

static const char *rpvk_sh_stage_name(VkShaderStageFlagBits s)
{
	switch (s) {
	case VK_SHADER_STAGE_VERTEX_BIT: return "vertex";
	case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: return "tessellation control";
	case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT: return "tessellation evaluation";
	case VK_SHADER_STAGE_GEOMETRY_BIT: return "geometry";
	case VK_SHADER_STAGE_FRAGMENT_BIT: return "fragment";
	case VK_SHADER_STAGE_COMPUTE_BIT: return "compute";
	default: return "other";
	}
}

/* The shader code stage st gives in its pNext (VkShaderModuleCreateInfo,
 * with no module: VK_EXT_graphics_pipeline_library), or NULL. */
static const VkShaderModuleCreateInfo *rpvk_sh_stage_code(const VkPipelineShaderStageCreateInfo *st)
{
	for (const VkBaseInStructure *n = st->pNext; n; n = n->pNext)
		if (n->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO)
			return (const VkShaderModuleCreateInfo *)(const void *)n;
	return NULL;
}

/* The module of stage st: the one it names, or the code its pNext gives
 * read into *tmp (its variables owned by the caller: free tmp->v); NULL
 * when not known (a module not seen made, code not read). */
static const rpvk_sh_module *rpvk_sh_stage_module(rpvk *r, const VkPipelineShaderStageCreateInfo *st,
                                                  rpvk_sh_module *tmp)
{
	const VkShaderModuleCreateInfo *ci;
	memset(tmp, 0, sizeof(*tmp));
	if (st->module)
		return rpvk_sh_get(r, VK_OBJECT_TYPE_SHADER_MODULE, (uint64_t)(uintptr_t)st->module);
	if (!(ci = rpvk_sh_stage_code(st)) || !ci->pCode)
		return NULL;
	if (!rpvk_spv_scan(ci->pCode, ci->codeSize / 4, tmp)) {
		free(tmp->v);
		memset(tmp, 0, sizeof(*tmp));
		return NULL;
	}
	return tmp;
}

/* Pipeline p uses (set, binding). */
static void rpvk_sh_pipe_use(rpvk_sh_pipe *p, uint32_t set, uint32_t binding)
{
	uint32_t u = 0;
	while (u < p->nuse && (p->use[u].set != set || p->use[u].binding != binding))
		u++;
	if (u < p->nuse)
		return;
	if (p->nuse == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 8;
		void *g = realloc(p->use, cap * sizeof(*p->use));
		if (!g)
			return; /* not kept: that binding's writes are not judged */
		p->use = g;
		p->cap = cap;
	}
	p->use[p->nuse].set = set;
	p->use[p->nuse].binding = binding;
	p->nuse++;
}

/* One stage of pipeline i against its layout: RP_ERR_TRACE (diag set)
 * when a variable the shader uses has no binding that takes it.  The
 * shader is the stage's module's, or the code its pNext gives. */
static rp_status rpvk_sh_stage_check(rpvk *r, uint32_t i, const VkPipelineShaderStageCreateInfo *st,
                                     const rpvk_sh_playout *pl, rpvk_sh_pipe *out)
{
	rpvk_sh_module tmp;
	const rpvk_sh_module *m = rpvk_sh_stage_module(r, st, &tmp);
	const char *stage = rpvk_sh_stage_name(st->stage);
	rp_status rs = RP_OK;
	char what[200];
	if (out && m && m->push)
		out->push = 1;
	if (out && st->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT)
		out->tess = 1;
	for (uint32_t k = 0; m && k < m->n; k++) {
		const rpvk_sh_var *v = &m->v[k];
		const rpvk_sh_layout *l;
		const rpvk_sh_binding *b;
		int at;
		if (!v->used)
			continue;
		if (out)
			rpvk_sh_pipe_use(out, v->set, v->binding);
		if (!pl)
			continue;
		if (v->set >= pl->nsets) {
			snprintf(what, sizeof(what), "its layout has %u descriptor sets", pl->nsets);
			goto refuse;
		}
		l = &pl->sets[v->set];
		if (!l->known)
			continue;
		if ((at = rpvk_sh_layout_find(l, v->binding)) < 0) {
			snprintf(what, sizeof(what), "set %u's layout lacks that binding", v->set);
			goto refuse;
		}
		b = &l->b[at];
		if (!rpvk_sh_type_known(b->type))
			continue;
		if (!b->count) {
			snprintf(what, sizeof(what), "set %u's layout gives that binding no descriptors", v->set);
			goto refuse;
		}
		if (!rpvk_sh_kind_fits(v->kind, b->type)) {
			snprintf(what, sizeof(what), "the shader takes a %s there and the layout gives "
			         "descriptor type %u", rpvk_dk_names[v->kind], b->type);
			goto refuse;
		}
		if (!(b->stages & (uint32_t)st->stage)) {
			snprintf(what, sizeof(what), "the layout's binding is not visible to the %s stage "
			         "(stageFlags 0x%x)", stage, b->stages);
			goto refuse;
		}
		if (v->count > b->count && b->type != VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK &&
		    !(b->flags & VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT)) {
			snprintf(what, sizeof(what), "the shader's array has %u descriptors and the layout's "
			         "binding %u", v->count, b->count);
			goto refuse;
		}
		continue;
	refuse:
		rs = rpvk_fail(r, RP_ERR_TRACE, "pipeline %u: its %s shader uses descriptor set %u "
		               "binding %u, and %s: a valid application never makes this call, and a "
		               "driver may crash on it", i, stage, v->set, v->binding, what);
		break;
	}
	free(tmp.v);
	return rs;
}

/* When a draw reads a dynamic state (the specification's VUID-vkCmdDraw-*
 * rules for "must have been called in the current command buffer prior to
 * this drawing command", with their conditions): */
enum {
	RPVK_WHEN_ALWAYS = 0,     /* every draw */
	RPVK_WHEN_RASTER,         /* rasterization is not discarded */
	RPVK_WHEN_LINES,          /* ... and lines are rasterized (a line
	                             topology, or polygonMode LINE) */
	RPVK_WHEN_DEPTH_BIAS,     /* ... and depth bias is enabled */
	RPVK_WHEN_BLEND_CONSTS,   /* ... and an enabled blend uses the constants */
	RPVK_WHEN_DEPTH_BOUNDS,   /* ... and the depth bounds test is enabled */
	RPVK_WHEN_STENCIL,        /* ... and the stencil test is enabled */
	RPVK_WHEN_DEPTH_TEST,     /* ... and the depth test is enabled */
	RPVK_WHEN_VERTEX_INPUT,   /* the pipeline has vertex input bindings */
	RPVK_WHEN_TESS,           /* the pipeline has a tessellation evaluation
	                             shader */
	RPVK_WHEN_COLORS,         /* rasterization is not discarded, and the
	                             pipeline has colour attachments */
	RPVK_WHEN_BLENDING,       /* ... and blending is enabled */
	RPVK_WHEN_STIPPLE,        /* lines are rasterized, stippled */
	RPVK_WHEN_LOGIC_OP,       /* colour attachments, the logic op enabled */
	RPVK_WHEN_SAMPLE_LOCS     /* rasterization is not discarded, and custom
	                             sample locations are enabled */
};

/* The dynamic states judged: the state, its bit, the call that sets it,
 * when a draw reads it and the specification's rule.  Enables come first:
 * when one is missing, the states that depend on it cannot be judged, and
 * it is the one named. */
static const struct rpvk_sh_dyn_rule {
	VkDynamicState state;
	uint64_t bit;
	uint8_t when;
	const char *name;
	int8_t att;               /* RPVK_ATT_*: set per colour attachment; -1 */
	const char *vuid;         /* VUID-vkCmdDraw-<this>, of the specification
	                             after 1.3.239 (1.3.239 has one rule for
	                             all, VUID-vkCmdDraw-commandBuffer-02701,
	                             without the conditions) */
} rpvk_sh_dyn[] = {
	{ VK_DYNAMIC_STATE_RASTERIZER_DISCARD_ENABLE, RPVK_DYN_DISCARD, RPVK_WHEN_ALWAYS,
	  "rasterizer discard enable (vkCmdSetRasterizerDiscardEnable)", -1, "None-04876" },
	{ VK_DYNAMIC_STATE_PRIMITIVE_TOPOLOGY, RPVK_DYN_TOPOLOGY, RPVK_WHEN_ALWAYS,
	  "primitive topology (vkCmdSetPrimitiveTopology)", -1, "None-07842" },
	{ VK_DYNAMIC_STATE_PRIMITIVE_RESTART_ENABLE, RPVK_DYN_PRIMITIVE_RESTART_ENABLE, RPVK_WHEN_ALWAYS,
	  "primitive restart enable (vkCmdSetPrimitiveRestartEnable)", -1, "None-04879" },
	{ VK_DYNAMIC_STATE_DEPTH_BIAS_ENABLE, RPVK_DYN_DEPTH_BIAS_ENABLE, RPVK_WHEN_RASTER,
	  "depth bias enable (vkCmdSetDepthBiasEnable)", -1, "None-04877" },
	{ VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE, RPVK_DYN_DEPTH_TEST_ENABLE, RPVK_WHEN_RASTER,
	  "depth test enable (vkCmdSetDepthTestEnable)", -1, "None-07843" },
	{ VK_DYNAMIC_STATE_DEPTH_BOUNDS_TEST_ENABLE, RPVK_DYN_DEPTH_BOUNDS_TEST_ENABLE, RPVK_WHEN_RASTER,
	  "depth bounds test enable (vkCmdSetDepthBoundsTestEnable)", -1, "None-07846" },
	{ VK_DYNAMIC_STATE_STENCIL_TEST_ENABLE, RPVK_DYN_STENCIL_TEST_ENABLE, RPVK_WHEN_RASTER,
	  "stencil test enable (vkCmdSetStencilTestEnable)", -1, "None-07847" },
	{ VK_DYNAMIC_STATE_VIEWPORT, RPVK_DYN_VIEWPORT, RPVK_WHEN_RASTER,
	  "viewport (vkCmdSetViewport)", -1, "None-07831" },
	{ VK_DYNAMIC_STATE_SCISSOR, RPVK_DYN_SCISSOR, RPVK_WHEN_RASTER,
	  "scissor (vkCmdSetScissor)", -1, "None-07832" },
	{ VK_DYNAMIC_STATE_VIEWPORT_WITH_COUNT, RPVK_DYN_VIEWPORT_COUNT, RPVK_WHEN_RASTER,
	  "viewport with count (vkCmdSetViewportWithCount)", -1, "viewportCount-03417" },
	{ VK_DYNAMIC_STATE_SCISSOR_WITH_COUNT, RPVK_DYN_SCISSOR_COUNT, RPVK_WHEN_RASTER,
	  "scissor with count (vkCmdSetScissorWithCount)", -1, "scissorCount-03418" },
	{ VK_DYNAMIC_STATE_CULL_MODE, RPVK_DYN_CULL_MODE, RPVK_WHEN_RASTER,
	  "cull mode (vkCmdSetCullMode)", -1, "None-07840" },
	{ VK_DYNAMIC_STATE_FRONT_FACE, RPVK_DYN_FRONT_FACE, RPVK_WHEN_RASTER,
	  "front face (vkCmdSetFrontFace)", -1, "None-07841" },
	{ VK_DYNAMIC_STATE_LINE_WIDTH, RPVK_DYN_LINE_WIDTH, RPVK_WHEN_LINES,
	  "line width (vkCmdSetLineWidth)", -1, "None-07833" },
	{ VK_DYNAMIC_STATE_DEPTH_BIAS, RPVK_DYN_DEPTH_BIAS, RPVK_WHEN_DEPTH_BIAS,
	  "depth bias (vkCmdSetDepthBias)", -1, "None-07834" },
	{ VK_DYNAMIC_STATE_BLEND_CONSTANTS, RPVK_DYN_BLEND_CONSTANTS, RPVK_WHEN_BLEND_CONSTS,
	  "blend constants (vkCmdSetBlendConstants)", -1, "None-07835" },
	{ VK_DYNAMIC_STATE_DEPTH_BOUNDS, RPVK_DYN_DEPTH_BOUNDS, RPVK_WHEN_DEPTH_BOUNDS,
	  "depth bounds (vkCmdSetDepthBounds)", -1, "None-07836" },
	{ VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK, RPVK_DYN_STENCIL_COMPARE_MASK, RPVK_WHEN_STENCIL,
	  "stencil compare mask (vkCmdSetStencilCompareMask)", -1, "None-07837" },
	{ VK_DYNAMIC_STATE_STENCIL_WRITE_MASK, RPVK_DYN_STENCIL_WRITE_MASK, RPVK_WHEN_STENCIL,
	  "stencil write mask (vkCmdSetStencilWriteMask)", -1, "None-07838" },
	{ VK_DYNAMIC_STATE_STENCIL_REFERENCE, RPVK_DYN_STENCIL_REFERENCE, RPVK_WHEN_STENCIL,
	  "stencil reference (vkCmdSetStencilReference)", -1, "None-07839" },
	{ VK_DYNAMIC_STATE_STENCIL_OP, RPVK_DYN_STENCIL_OP, RPVK_WHEN_STENCIL,
	  "stencil op (vkCmdSetStencilOp)", -1, "None-07848" },
	{ VK_DYNAMIC_STATE_DEPTH_WRITE_ENABLE, RPVK_DYN_DEPTH_WRITE_ENABLE, RPVK_WHEN_DEPTH_TEST,
	  "depth write enable (vkCmdSetDepthWriteEnable)", -1, "None-07844" },
	{ VK_DYNAMIC_STATE_DEPTH_COMPARE_OP, RPVK_DYN_DEPTH_COMPARE_OP, RPVK_WHEN_DEPTH_TEST,
	  "depth compare op (vkCmdSetDepthCompareOp)", -1, "None-07845" },
	{ VK_DYNAMIC_STATE_VERTEX_INPUT_BINDING_STRIDE, RPVK_DYN_VERTEX_STRIDE, RPVK_WHEN_VERTEX_INPUT,
	  "vertex input binding stride (vkCmdBindVertexBuffers2 with pStrides)", -1, "pStrides-04884" },
	/* VK_EXT_extended_dynamic_state3: the states lavapipe 22.3.6 has
	 * (extendedDynamicState3* features); the enables before what depends
	 * on them */
	{ VK_DYNAMIC_STATE_DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT, RPVK_DYN_DEPTH_CLIP_NEGATIVE_ONE_TO_ONE,
	  RPVK_WHEN_ALWAYS, "depth clip negative one to one (vkCmdSetDepthClipNegativeOneToOneEXT)",
	  -1, "None-07639" },
	{ VK_DYNAMIC_STATE_TESSELLATION_DOMAIN_ORIGIN_EXT, RPVK_DYN_TESS_DOMAIN_ORIGIN, RPVK_WHEN_TESS,
	  "tessellation domain origin (vkCmdSetTessellationDomainOriginEXT)", -1, "None-07619" },
	{ VK_DYNAMIC_STATE_POLYGON_MODE_EXT, RPVK_DYN_POLYGON_MODE, RPVK_WHEN_RASTER,
	  "polygon mode (vkCmdSetPolygonModeEXT)", -1, "None-07621" },
	{ VK_DYNAMIC_STATE_COLOR_BLEND_ENABLE_EXT, RPVK_DYN_COLOR_BLEND_ENABLE, RPVK_WHEN_COLORS,
	  "color blend enable (vkCmdSetColorBlendEnableEXT)", RPVK_ATT_BLEND_ENABLE, "firstAttachment-07476" },
	{ VK_DYNAMIC_STATE_DEPTH_CLAMP_ENABLE_EXT, RPVK_DYN_DEPTH_CLAMP_ENABLE, RPVK_WHEN_RASTER,
	  "depth clamp enable (vkCmdSetDepthClampEnableEXT)", -1, "None-07620" },
	{ VK_DYNAMIC_STATE_RASTERIZATION_SAMPLES_EXT, RPVK_DYN_RASTERIZATION_SAMPLES, RPVK_WHEN_RASTER,
	  "rasterization samples (vkCmdSetRasterizationSamplesEXT)", -1, "None-07622" },
	{ VK_DYNAMIC_STATE_SAMPLE_MASK_EXT, RPVK_DYN_SAMPLE_MASK, RPVK_WHEN_RASTER,
	  "sample mask (vkCmdSetSampleMaskEXT)", -1, "None-07623" },
	{ VK_DYNAMIC_STATE_ALPHA_TO_COVERAGE_ENABLE_EXT, RPVK_DYN_ALPHA_TO_COVERAGE_ENABLE, RPVK_WHEN_RASTER,
	  "alpha to coverage enable (vkCmdSetAlphaToCoverageEnableEXT)", -1, "None-07624" },
	{ VK_DYNAMIC_STATE_ALPHA_TO_ONE_ENABLE_EXT, RPVK_DYN_ALPHA_TO_ONE_ENABLE, RPVK_WHEN_RASTER,
	  "alpha to one enable (vkCmdSetAlphaToOneEnableEXT)", -1, "None-07625" },
	{ VK_DYNAMIC_STATE_LOGIC_OP_ENABLE_EXT, RPVK_DYN_LOGIC_OP_ENABLE, RPVK_WHEN_RASTER,
	  "logic op enable (vkCmdSetLogicOpEnableEXT)", -1, "None-07626" },
	{ VK_DYNAMIC_STATE_COLOR_WRITE_MASK_EXT, RPVK_DYN_COLOR_WRITE_MASK, RPVK_WHEN_COLORS,
	  "color write mask (vkCmdSetColorWriteMaskEXT)", RPVK_ATT_WRITE_MASK, "firstAttachment-07478" },
	{ VK_DYNAMIC_STATE_DEPTH_CLIP_ENABLE_EXT, RPVK_DYN_DEPTH_CLIP_ENABLE, RPVK_WHEN_RASTER,
	  "depth clip enable (vkCmdSetDepthClipEnableEXT)", -1, "None-07633" },
	{ VK_DYNAMIC_STATE_PROVOKING_VERTEX_MODE_EXT, RPVK_DYN_PROVOKING_VERTEX_MODE, RPVK_WHEN_RASTER,
	  "provoking vertex mode (vkCmdSetProvokingVertexModeEXT)", -1, "None-07636" },
	{ VK_DYNAMIC_STATE_LINE_RASTERIZATION_MODE_EXT, RPVK_DYN_LINE_RASTERIZATION_MODE, RPVK_WHEN_LINES,
	  "line rasterization mode (vkCmdSetLineRasterizationModeEXT)", -1, "None-07637" },
	{ VK_DYNAMIC_STATE_LINE_STIPPLE_ENABLE_EXT, RPVK_DYN_LINE_STIPPLE_ENABLE, RPVK_WHEN_LINES,
	  "line stipple enable (vkCmdSetLineStippleEnableEXT)", -1, "None-07638" },
	{ VK_DYNAMIC_STATE_COLOR_BLEND_EQUATION_EXT, RPVK_DYN_COLOR_BLEND_EQUATION, RPVK_WHEN_BLENDING,
	  "color blend equation (vkCmdSetColorBlendEquationEXT)", RPVK_ATT_BLEND_EQUATION, "firstAttachment-07477" },
	/* ... and its sample locations enable, which needs VK_EXT_sample_locations
	 * (lavapipe 22.3.6 has neither that nor the feature) */
	{ VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_ENABLE_EXT, RPVK_DYN_SAMPLE_LOCATIONS_ENABLE, RPVK_WHEN_RASTER,
	  "sample locations enable (vkCmdSetSampleLocationsEnableEXT)", -1, "None-07634" },
	/* the other extensions' states lavapipe 22.3.6 has, and the sample
	 * locations (VK_EXT_sample_locations, which it lacks) */
	{ VK_DYNAMIC_STATE_VERTEX_INPUT_EXT, RPVK_DYN_VERTEX_INPUT, RPVK_WHEN_ALWAYS,
	  "vertex input (vkCmdSetVertexInputEXT)", -1, "None-04914" },
	{ VK_DYNAMIC_STATE_LINE_STIPPLE_EXT, RPVK_DYN_LINE_STIPPLE, RPVK_WHEN_STIPPLE,
	  "line stipple (vkCmdSetLineStippleEXT)", -1, "None-07849" },
	{ VK_DYNAMIC_STATE_LOGIC_OP_EXT, RPVK_DYN_LOGIC_OP, RPVK_WHEN_LOGIC_OP,
	  "logic op (vkCmdSetLogicOpEXT)", -1, "logicOp-04878" },
	{ VK_DYNAMIC_STATE_COLOR_WRITE_ENABLE_EXT, RPVK_DYN_COLOR_WRITE_ENABLE, RPVK_WHEN_COLORS,
	  "color write enable (vkCmdSetColorWriteEnableEXT)", RPVK_ATT_WRITE_ENABLE, "None-07749" },
	{ VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_EXT, RPVK_DYN_SAMPLE_LOCATIONS, RPVK_WHEN_SAMPLE_LOCS,
	  "sample locations (vkCmdSetSampleLocationsEXT)", -1, "None-06666" },
};
#define RPVK_SH_NDYN (sizeof(rpvk_sh_dyn) / sizeof(rpvk_sh_dyn[0]))

const char *rpvk_shader_dyn_name(uint64_t bit)
{
	for (size_t k = 0; k < RPVK_SH_NDYN; k++)
		if (rpvk_sh_dyn[k].bit == bit)
			return rpvk_sh_dyn[k].name;
	return "dynamic state";
}

uint64_t rpvk_shader_dyn_missing(const rpvk_sh_pipe *p, uint64_t set, uint64_t on, uint64_t inherited,
                                 const rpvk_att_state *att, uint32_t *attachment)
{
	/* an enable's value: the command buffer's where the pipeline leaves
	 * it dynamic (and it was set), the pipeline's otherwise */
	uint64_t val = (p->on & ~p->dyn) | (on & set & p->dyn);
	int raster = !(val & RPVK_DYN_DISCARD);
	int lines = raster && (val & (RPVK_DYN_TOPOLOGY | RPVK_DYN_POLYGON_MODE));
	/* the colour attachments, and those blending (per attachment: the
	 * command buffer's where the blend enable is dynamic) */
	uint32_t colors = p->colors >= 32 ? UINT32_MAX : ((uint32_t)1 << p->colors) - 1;
	uint32_t blending = colors & ((p->dyn & RPVK_DYN_COLOR_BLEND_ENABLE) ? att->blend_on : p->blend_on);
	*attachment = UINT32_MAX;
	for (size_t k = 0; k < RPVK_SH_NDYN; k++) {
		uint64_t bit = rpvk_sh_dyn[k].bit;
		uint32_t need = rpvk_sh_dyn[k].att == RPVK_ATT_BLEND_EQUATION ? blending : colors;
		int reads;
		if (!(p->dyn & bit) || (inherited & bit))
			continue;
		if (set & bit) {
			/* set: for every colour attachment the draw reads it of */
			if (rpvk_sh_dyn[k].att < 0 || !raster || !(need & ~att->set[rpvk_sh_dyn[k].att]))
				continue;
			need &= ~att->set[rpvk_sh_dyn[k].att];
			for (*attachment = 0; !(need & ((uint32_t)1 << *attachment)); ++*attachment)
				;
			return bit;
		}
		switch (rpvk_sh_dyn[k].when) {
		case RPVK_WHEN_ALWAYS: reads = 1; break;
		case RPVK_WHEN_RASTER: reads = raster; break;
		case RPVK_WHEN_LINES: reads = lines; break;
		case RPVK_WHEN_DEPTH_BIAS: reads = raster && (val & RPVK_DYN_DEPTH_BIAS_ENABLE); break;
		case RPVK_WHEN_BLEND_CONSTS: reads = raster && p->blend_consts; break;
		case RPVK_WHEN_DEPTH_BOUNDS: reads = raster && (val & RPVK_DYN_DEPTH_BOUNDS_TEST_ENABLE); break;
		case RPVK_WHEN_STENCIL: reads = raster && (val & RPVK_DYN_STENCIL_TEST_ENABLE); break;
		case RPVK_WHEN_DEPTH_TEST: reads = raster && (val & RPVK_DYN_DEPTH_TEST_ENABLE); break;
		case RPVK_WHEN_TESS: reads = p->tess; break;
		case RPVK_WHEN_COLORS: reads = raster && p->colors; break;
		case RPVK_WHEN_BLENDING: reads = raster && blending; break;
		case RPVK_WHEN_STIPPLE: reads = lines && (val & RPVK_DYN_LINE_STIPPLE_ENABLE); break;
		case RPVK_WHEN_LOGIC_OP: reads = raster && p->colors && (val & RPVK_DYN_LOGIC_OP_ENABLE); break;
		case RPVK_WHEN_SAMPLE_LOCS: reads = raster && (val & RPVK_DYN_SAMPLE_LOCATIONS_ENABLE); break;
		default: reads = p->vertex_bindings; break;
		}
		if (reads)
			return bit;
	}
	return 0;
}

static int rpvk_sh_blend_const(VkBlendFactor f)
{
	return f == VK_BLEND_FACTOR_CONSTANT_COLOR || f == VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR ||
	       f == VK_BLEND_FACTOR_CONSTANT_ALPHA || f == VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA;
}

static int rpvk_sh_line_topology(VkPrimitiveTopology t)
{
	return t == VK_PRIMITIVE_TOPOLOGY_LINE_LIST || t == VK_PRIMITIVE_TOPOLOGY_LINE_STRIP ||
	       t == VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY ||
	       t == VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY;
}

/* The dynamic states a graphics pipeline leaves to the command buffer, and
 * the static values that say whether a draw reads them.  States the
 * pipeline's create info leaves out (no rasterization, depth/stencil or
 * blend state) count as disabled.  With the blend or the vertex input
 * left dynamic too (extended dynamic state 3,
 * VK_EXT_vertex_input_dynamic_state), blend constants and the stride are
 * taken as not read; a polygon mode or blend enable left dynamic is the
 * command buffer's (vkCmdSetPolygonModeEXT, vkCmdSetColorBlendEnableEXT). */
static void rpvk_sh_pipe_dyn(rpvk *r, const VkGraphicsPipelineCreateInfo *ci, rpvk_sh_pipe *p)
{
	const VkPipelineDynamicStateCreateInfo *d = ci->pDynamicState;
	const VkPipelineRasterizationStateCreateInfo *rs = ci->pRasterizationState;
	const VkPipelineDepthStencilStateCreateInfo *dss = ci->pDepthStencilState;
	const VkPipelineColorBlendStateCreateInfo *cbs = ci->pColorBlendState;
	const VkPipelineLibraryCreateInfoKHR *libs = NULL;
	int parts = 0; /* it is made of library parts itself (GPL) */
	p->dyn_known = 1;
	for (const VkBaseInStructure *n = ci->pNext; n; n = n->pNext)
		if (n->sType == VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR)
			libs = (const VkPipelineLibraryCreateInfoKHR *)(const void *)n;
		else if (n->sType == VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT)
			parts = 1;
	/* linked from libraries: their dynamic states and static values, all
	 * together (each library holds some of the state; one the replay does
	 * not know makes the pipeline not judged) */
	for (uint32_t i = 0; libs && libs->pLibraries && i < libs->libraryCount; i++) {
		const rpvk_sh_pipe *l = rpvk_sh_get(r, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)libs->pLibraries[i]);
		if (!l || !l->dyn_known) {
			p->dyn_known = 0;
			return;
		}
		p->dyn |= l->dyn;
		p->on |= l->on;
		p->blend_consts |= l->blend_consts;
		p->vertex_bindings |= l->vertex_bindings;
		p->colors = l->colors > p->colors ? l->colors : p->colors;
		p->blend_on |= l->blend_on;
		p->tess |= l->tess;
		p->push |= l->push;
		for (uint32_t u = 0; u < l->nuse; u++)
			rpvk_sh_pipe_use(p, l->use[u].set, l->use[u].binding);
	}
	if (libs && !parts)
		return; /* the link's own state is the libraries' */
	for (uint32_t i = 0; d && d->pDynamicStates && i < d->dynamicStateCount; i++)
		for (size_t k = 0; k < RPVK_SH_NDYN; k++)
			if (d->pDynamicStates[i] == rpvk_sh_dyn[k].state)
				p->dyn |= rpvk_sh_dyn[k].bit;
	if (rs && rs->rasterizerDiscardEnable)
		p->on |= RPVK_DYN_DISCARD;
	if (rs && rs->depthBiasEnable)
		p->on |= RPVK_DYN_DEPTH_BIAS_ENABLE;
	if (rs && rs->polygonMode == VK_POLYGON_MODE_LINE)
		p->on |= RPVK_DYN_POLYGON_MODE;
	if (ci->pInputAssemblyState && rpvk_sh_line_topology(ci->pInputAssemblyState->topology))
		p->on |= RPVK_DYN_TOPOLOGY;
	for (const VkBaseInStructure *n = rs ? rs->pNext : NULL; n; n = n->pNext)
		if (n->sType == VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT &&
		    ((const VkPipelineRasterizationLineStateCreateInfoEXT *)(const void *)n)->stippledLineEnable)
			p->on |= RPVK_DYN_LINE_STIPPLE_ENABLE;
	if (dss && dss->depthTestEnable)
		p->on |= RPVK_DYN_DEPTH_TEST_ENABLE;
	if (dss && dss->stencilTestEnable)
		p->on |= RPVK_DYN_STENCIL_TEST_ENABLE;
	if (dss && dss->depthBoundsTestEnable)
		p->on |= RPVK_DYN_DEPTH_BOUNDS_TEST_ENABLE;
	/* custom sample locations: VkPipelineSampleLocationsStateCreateInfoEXT
	 * chained to the multisample state */
	for (const VkBaseInStructure *n = ci->pMultisampleState ? ci->pMultisampleState->pNext : NULL; n;
	     n = n->pNext)
		if (n->sType == VK_STRUCTURE_TYPE_PIPELINE_SAMPLE_LOCATIONS_STATE_CREATE_INFO_EXT &&
		    ((const VkPipelineSampleLocationsStateCreateInfoEXT *)(const void *)n)->sampleLocationsEnable)
			p->on |= RPVK_DYN_SAMPLE_LOCATIONS_ENABLE;
	if (cbs && cbs->attachmentCount)
		p->colors = cbs->attachmentCount;
	if (cbs && cbs->logicOpEnable)
		p->on |= RPVK_DYN_LOGIC_OP_ENABLE;
	for (uint32_t i = 0; cbs && cbs->pAttachments && i < cbs->attachmentCount; i++) {
		const VkPipelineColorBlendAttachmentState *a = &cbs->pAttachments[i];
		if (a->blendEnable)
			p->on |= RPVK_DYN_COLOR_BLEND_ENABLE;
		if (a->blendEnable && i < 32)
			p->blend_on |= (uint32_t)1 << i;
		if (a->blendEnable && (rpvk_sh_blend_const(a->srcColorBlendFactor) ||
		                       rpvk_sh_blend_const(a->dstColorBlendFactor) ||
		                       rpvk_sh_blend_const(a->srcAlphaBlendFactor) ||
		                       rpvk_sh_blend_const(a->dstAlphaBlendFactor)))
			p->blend_consts = 1;
	}
	if (ci->pVertexInputState && ci->pVertexInputState->vertexBindingDescriptionCount)
		p->vertex_bindings = 1;
	/* what decides whether a draw reads the blend constants or the
	 * stride left dynamic itself (the create info's value is ignored):
	 * the state is not judged */
	for (uint32_t i = 0; d && d->pDynamicStates && i < d->dynamicStateCount; i++)
		switch (d->pDynamicStates[i]) {
		case VK_DYNAMIC_STATE_COLOR_BLEND_ENABLE_EXT:
		case VK_DYNAMIC_STATE_COLOR_BLEND_EQUATION_EXT: p->blend_consts = 0; break;
		case VK_DYNAMIC_STATE_VERTEX_INPUT_EXT: p->vertex_bindings = 0; break;
		default: break;
		}
}

/* A pipeline's dynamic states: none negative (every enum value a Vulkan
 * version or extension defines is at least 0, so a newer driver knows no
 * such value either; lavapipe died of SIGSEGV on one, replay_mutants.sh
 * seed 51 over vk_dynstate --secondary), none vk.xml 1.3.239 does not
 * name (an extension's values need it enabled, and the layer lets a
 * program enable only extensions vk.xml 1.3.239 knows, all of whose
 * values it names; later core versions' dynamic states are values of
 * such extensions; lavapipe died of SIGSEGV on 1006623992, seed 105),
 * none twice (VUID-VkPipelineDynamicStateCreateInfo-pDynamicStates-01442). */
static rp_status rpvk_sh_dyn_check(rpvk *r, uint32_t i, const VkPipelineDynamicStateCreateInfo *d)
{
	for (uint32_t k = 0; d && d->pDynamicStates && k < d->dynamicStateCount; k++) {
		if ((int32_t)d->pDynamicStates[k] < 0)
			return rpvk_fail(r, RP_ERR_TRACE, "pipeline %u: dynamic state %u is %d, which no "
			                 "Vulkan version or extension defines: a valid application never makes "
			                 "this call, and a driver may crash on it", i, k,
			                 (int)d->pDynamicStates[k]);
		if (!sbt_vk_known_dynamic_state((int64_t)d->pDynamicStates[k]))
			return rpvk_fail(r, RP_ERR_TRACE, "pipeline %u: dynamic state %u is %d, which vk.xml "
			                 "1.3.239 does not name: no extension a traced device can enable defines "
			                 "it, so a valid application never makes this call, and a driver may "
			                 "crash on it", i, k, (int)d->pDynamicStates[k]);
		for (uint32_t j = 0; j < k; j++)
			if (d->pDynamicStates[j] == d->pDynamicStates[k])
				return rpvk_fail(r, RP_ERR_TRACE, "pipeline %u: dynamic states %u and %u are both "
				                 "%d: a valid application never makes this call, and a driver may "
				                 "crash on it", i, j, k, (int)d->pDynamicStates[k]);
	}
	return RP_OK;
}

static rpvk_sh_pipe *rpvk_sh_pipe_new(rpvk *r, const VkPipelineShaderStageCreateInfo *stages, uint32_t n)
{
	rpvk_sh_pipe *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	for (uint32_t s = 0; stages && s < n; s++)
		rpvk_sh_stage_check(r, 0, &stages[s], NULL, p);
	return p;
}

/* ---- framebuffers --------------------------------------------------------- */

static void rpvk_sh_fb_created(rpvk *r, const sbt_vk_args_vkCreateFramebuffer *a)
{
	const VkFramebufferCreateInfo *ci = a->pCreateInfo;
	uint32_t n = ci ? ci->attachmentCount : 0;
	int imageless = ci && (ci->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT);
	rpvk_sh_fb *f;
	if (a->ret != VK_SUCCESS || !a->pFramebuffer || !*a->pFramebuffer || !n || (!imageless && !ci->pAttachments))
		return;
	if (!(f = calloc(1, sizeof(*f))) || !(f->views = calloc(n, sizeof(*f->views)))) {
		free(f);
		return;
	}
	f->n = n;
	f->imageless = (uint8_t)imageless;
	for (uint32_t i = 0; !imageless && i < f->n; i++) {
		uint64_t v = (uint64_t)(uintptr_t)ci->pAttachments[i];
		const rpvk_map_slot *s = rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW, v);
		/* only views this file saw made, of images it saw made */
		if (s && s->val)
			f->views[i] = v;
	}
	rpvk_sh_keep(r, VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)(uintptr_t)*a->pFramebuffer, f);
}

/* The VkRenderPassAttachmentBeginInfo of bi, or NULL. */
static const VkRenderPassAttachmentBeginInfo *rpvk_sh_pass_views(const VkRenderPassBeginInfo *bi)
{
	for (const VkBaseInStructure *n = bi->pNext; n; n = n->pNext)
		if (n->sType == VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO)
			return (const VkRenderPassAttachmentBeginInfo *)(const void *)n;
	return NULL;
}

/* Attachment i of the render pass f begins with bi: a live view this file
 * saw made (of an image it saw made), or 0 when not judged. */
static uint64_t rpvk_sh_pass_view(rpvk *r, const rpvk_sh_fb *f, const VkRenderPassBeginInfo *bi, uint32_t i)
{
	const VkRenderPassAttachmentBeginInfo *ab;
	const rpvk_map_slot *s;
	uint64_t v;
	if (!f->imageless)
		return f->views[i];
	ab = rpvk_sh_pass_views(bi);
	if (!ab || !ab->pAttachments || i >= ab->attachmentCount)
		return 0;
	v = (uint64_t)(uintptr_t)ab->pAttachments[i];
	/* one of an image not seen made (a swapchain's) is not judged (a
	 * destroyed one does not get here: its handle names nothing, and
	 * the begin does not decode) */
	s = rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW, v);
	return s && !s->val ? 0 : v;
}

int rpvk_shader_pass_attachments(rpvk *r, const VkRenderPassBeginInfo *bi, uint64_t *out, uint32_t max)
{
	const rpvk_sh_fb *f = bi ? rpvk_sh_get(r, VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)(uintptr_t)bi->framebuffer) : NULL;
	uint32_t n = 0;
	for (uint32_t i = 0; f && i < f->n && n + 2 <= max; i++) {
		uint64_t v = rpvk_sh_pass_view(r, f, bi, i);
		const rpvk_map_slot *s;
		if (!v || !(s = rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW, v)) || !s->val)
			continue;
		out[n++] = v;
		out[n++] = s->val;
	}
	return (int)n;
}

static rp_status rpvk_sh_begin_pass(rpvk *r, const VkRenderPassBeginInfo *bi)
{
	const rpvk_sh_fb *f = bi ? rpvk_sh_get(r, VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)(uintptr_t)bi->framebuffer) : NULL;
	const VkRenderPassAttachmentBeginInfo *ab = f && f->imageless ? rpvk_sh_pass_views(bi) : NULL;
	if (f && f->imageless && (!ab || ab->attachmentCount != f->n || !ab->pAttachments))
		return rpvk_fail(r, RP_ERR_TRACE, "the framebuffer is imageless and was made with %u "
		                 "attachments, and the render pass begins with %u "
		                 "(VkRenderPassAttachmentBeginInfo%s): a valid application never makes this "
		                 "call, and a driver may crash on it", f->n, ab && ab->pAttachments ?
		                 ab->attachmentCount : 0, ab ? "" : " absent");
	for (uint32_t i = 0; f && i < f->n; i++) {
		uint64_t v = rpvk_sh_pass_view(r, f, bi, i);
		const rpvk_map_slot *s;
		const char *why;
		if (!v)
			continue;
		if (!(s = rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW, v)))
			why = "its image view was destroyed";
		else if (!rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE, s->val))
			why = "the image of its image view was destroyed";
		else if (rpvk_state_res_freed(r, VK_OBJECT_TYPE_IMAGE, s->val))
			why = "the memory of its image was freed";
		else
			continue;
		return rpvk_fail(r, RP_ERR_TRACE, "attachment %u of the %sframebuffer: %s before the "
		                 "render pass begins: a valid application never makes this call, and a "
		                 "driver may crash on it", i, f->imageless ? "imageless " : "", why);
	}
	return RP_OK;
}

/* ---- the hooks ------------------------------------------------------------ */

const rpvk_sh_pipe *rpvk_shader_pipe(rpvk *r, uint64_t pipeline)
{
	return rpvk_sh_get(r, VK_OBJECT_TYPE_PIPELINE, pipeline);
}

rp_status rpvk_shader_before(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	switch (cmd) {
	case SBT_VK_CMD_vkCreateComputePipelines: {
		const sbt_vk_args_vkCreateComputePipelines *a = args;
		rp_status st = RP_OK;
		for (uint32_t i = 0; st == RP_OK && a->pCreateInfos && i < a->createInfoCount; i++) {
			const rpvk_sh_playout *pl = rpvk_sh_get(r, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
			                                        (uint64_t)(uintptr_t)a->pCreateInfos[i].layout);
			st = rpvk_spirv_check(r, rpvk_sh_stage_code(&a->pCreateInfos[i].stage));
			if (st == RP_OK && pl)
				st = rpvk_sh_stage_check(r, i, &a->pCreateInfos[i].stage, pl, NULL);
		}
		return st;
	}
	case SBT_VK_CMD_vkCreateGraphicsPipelines: {
		const sbt_vk_args_vkCreateGraphicsPipelines *a = args;
		rp_status st = RP_OK;
		for (uint32_t i = 0; st == RP_OK && a->pCreateInfos && i < a->createInfoCount; i++) {
			const VkPipelineShaderStageCreateInfo *stages = a->pCreateInfos[i].pStages;
			uint32_t n = a->pCreateInfos[i].stageCount;
			const rpvk_sh_playout *pl = rpvk_sh_get(r, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
			                                        (uint64_t)(uintptr_t)a->pCreateInfos[i].layout);
			/* pStages may be absent (vk.xml: optional, noautovalidity) where
			 * a library part has no shaders, and lavapipe then still reads
			 * stageCount of them (SIGSEGV: replay_mutants.sh seed 604 over
			 * vk_dynstate --library) */
			if (n && !stages)
				return rpvk_fail(r, RP_ERR_TRACE, "pipeline %u: stageCount is %u and pStages is "
				                 "absent: a valid application never makes this call, and a driver "
				                 "may crash on it", i, n);
			if ((st = rpvk_sh_dyn_check(r, i, a->pCreateInfos[i].pDynamicState)) != RP_OK)
				return st;
			for (uint32_t s = 0; st == RP_OK && stages && s < n; s++)
				st = rpvk_spirv_check(r, rpvk_sh_stage_code(&stages[s]));
			for (uint32_t s = 0; st == RP_OK && pl && stages && s < n; s++)
				st = rpvk_sh_stage_check(r, i, &stages[s], pl, NULL);
		}
		return st;
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass:
		return rpvk_sh_begin_pass(r, ((const sbt_vk_args_vkCmdBeginRenderPass *)args)->pRenderPassBegin);
	case SBT_VK_CMD_vkCmdBeginRenderPass2:
	case SBT_VK_CMD_vkCmdBeginRenderPass2KHR:
		return rpvk_sh_begin_pass(r, ((const sbt_vk_args_vkCmdBeginRenderPass2 *)args)->pRenderPassBegin);
	default:
		return RP_OK;
	}
}

void rpvk_shader_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	switch (cmd) {
	case SBT_VK_CMD_vkCreateShaderModule: {
		const sbt_vk_args_vkCreateShaderModule *a = args;
		rpvk_sh_module *m;
		if (a->ret != VK_SUCCESS || !a->pShaderModule || !*a->pShaderModule || !a->pCreateInfo ||
		    !a->pCreateInfo->pCode || !(m = calloc(1, sizeof(*m))))
			break;
		if (!rpvk_spv_scan(a->pCreateInfo->pCode, a->pCreateInfo->codeSize / 4, m)) {
			rpvk_sh_module_free(m);
			m = NULL; /* not judged */
		}
		rpvk_sh_keep(r, VK_OBJECT_TYPE_SHADER_MODULE, (uint64_t)(uintptr_t)*a->pShaderModule, m);
		break;
	}
	case SBT_VK_CMD_vkDestroyShaderModule:
		rpvk_sh_drop(r, VK_OBJECT_TYPE_SHADER_MODULE,
		             (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyShaderModule *)args)->shaderModule);
		break;
	case SBT_VK_CMD_vkCreateDescriptorSetLayout:
		rpvk_sh_layout_created(r, args);
		break;
	case SBT_VK_CMD_vkDestroyDescriptorSetLayout:
		rpvk_sh_drop(r, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
		             (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyDescriptorSetLayout *)args)->descriptorSetLayout);
		break;
	case SBT_VK_CMD_vkCreatePipelineLayout:
		rpvk_sh_playout_created(r, args);
		break;
	case SBT_VK_CMD_vkDestroyPipelineLayout:
		rpvk_sh_drop(r, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
		             (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyPipelineLayout *)args)->pipelineLayout);
		break;
	case SBT_VK_CMD_vkCreateComputePipelines: {
		const sbt_vk_args_vkCreateComputePipelines *a = args;
		for (uint32_t i = 0; a->ret == VK_SUCCESS && a->pCreateInfos && a->pPipelines &&
		                     i < a->createInfoCount; i++)
			if (a->pPipelines[i])
				rpvk_sh_keep(r, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)a->pPipelines[i],
				             rpvk_sh_pipe_new(r, &a->pCreateInfos[i].stage, 1));
		break;
	}
	case SBT_VK_CMD_vkCreateGraphicsPipelines: {
		const sbt_vk_args_vkCreateGraphicsPipelines *a = args;
		for (uint32_t i = 0; a->ret == VK_SUCCESS && a->pCreateInfos && a->pPipelines &&
		                     i < a->createInfoCount; i++) {
			rpvk_sh_pipe *p;
			if (!a->pPipelines[i])
				continue;
			p = rpvk_sh_pipe_new(r, a->pCreateInfos[i].pStages, a->pCreateInfos[i].stageCount);
			if (p)
				rpvk_sh_pipe_dyn(r, &a->pCreateInfos[i], p);
			rpvk_sh_keep(r, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)a->pPipelines[i], p);
		}
		break;
	}
	case SBT_VK_CMD_vkDestroyPipeline:
		rpvk_sh_drop(r, VK_OBJECT_TYPE_PIPELINE,
		             (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyPipeline *)args)->pipeline);
		break;
	case SBT_VK_CMD_vkCreateImage: {
		const sbt_vk_args_vkCreateImage *a = args;
		if (a->ret == VK_SUCCESS && a->pImage && *a->pImage)
			rpvk_map_put(&r->shobjs, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)*a->pImage, 1, 0);
		break;
	}
	case SBT_VK_CMD_vkDestroyImage:
		rpvk_map_del(&r->shobjs, VK_OBJECT_TYPE_IMAGE,
		             (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyImage *)args)->image);
		break;
	case SBT_VK_CMD_vkCreateImageView: {
		const sbt_vk_args_vkCreateImageView *a = args;
		uint64_t img = a->pCreateInfo ? (uint64_t)(uintptr_t)a->pCreateInfo->image : 0;
		/* a view of an image not seen made (a swapchain's) is kept with
		 * image 0: seen made, not judged */
		if (a->ret == VK_SUCCESS && a->pView && *a->pView)
			rpvk_map_put(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)(uintptr_t)*a->pView,
			             img && rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE, img) ? img : 0, 0);
		break;
	}
	case SBT_VK_CMD_vkDestroyImageView:
		rpvk_map_del(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW,
		             (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyImageView *)args)->imageView);
		break;
	case SBT_VK_CMD_vkCreateFramebuffer:
		rpvk_sh_fb_created(r, args);
		break;
	case SBT_VK_CMD_vkDestroyFramebuffer:
		rpvk_sh_drop(r, VK_OBJECT_TYPE_FRAMEBUFFER,
		             (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyFramebuffer *)args)->framebuffer);
		break;
	default:
		break;
	}
}
