/*
 * rpvk_backend.c - the Vulkan backend's entry points (rp_backend_ops), the
 * captured -> live handle maps, the decode hooks, result comparison and
 * the front-end records (vulkan.tsMemoryWrite(s), vulkan.tsResult).
 *
 * Records are found by NAME (the trace's type table), never by number:
 * the first time a record type is met its name is resolved with
 * sbt_vk_cmd_by_name and the answer is cached in r->types.
 */
#include "replayer/vulkan/rpvk.h"
#include "replayer/vulkan/rpvk_backend.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* r->types keys: the record type; values: what it is. */
#define RPVK_TYPE_KEY 1u
#define RPVK_KIND_MEMORY_WRITE ((uint64_t)SBT_VK_CMD_COUNT + 1)
#define RPVK_KIND_RESULT ((uint64_t)SBT_VK_CMD_COUNT + 2)
#define RPVK_KIND_UNKNOWN ((uint64_t)SBT_VK_CMD_COUNT + 3)
#define RPVK_KIND_QUERY_RESULTS ((uint64_t)SBT_VK_CMD_COUNT + 4)
#define RPVK_KIND_MEMORY_WRITES ((uint64_t)SBT_VK_CMD_COUNT + 5)

/* ---- map ----------------------------------------------------------------- */

static size_t rpvk_map_hash(uint32_t type, uint64_t key)
{
	uint64_t h = key ^ ((uint64_t)type * 0x9e3779b97f4a7c15ull);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

static int rpvk_map_grow(rpvk_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 256, i;
	rpvk_map_slot *old = m->slots;
	size_t ocap = m->cap;

	if (m->live * 4 < m->cap)
		ncap = m->cap; /* mostly tombstones: rehash in place size */
	m->slots = calloc(ncap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = ncap;
	m->used = m->live = 0;
	for (i = 0; i < ocap; i++)
		if (old[i].type && old[i].type != RPVK_MAP_TOMB)
			rpvk_map_put(m, old[i].type, old[i].key, old[i].val, old[i].aux);
	free(old);
	return 0;
}

int rpvk_map_put(rpvk_map *m, uint32_t type, uint64_t key, uint64_t val, int32_t aux)
{
	rpvk_map_slot *s = (rpvk_map_slot *)rpvk_map_get(m, type, key);
	size_t i, mask;

	if (s) {
		s->val = val;
		s->aux = aux;
		return 0;
	}
	if ((m->used + 1) * 4 >= m->cap * 3 && rpvk_map_grow(m) != 0)
		return -1;
	mask = m->cap - 1;
	/* Not present: the first empty or deleted slot of its probe chain. */
	for (i = rpvk_map_hash(type, key) & mask;; i = (i + 1) & mask) {
		s = &m->slots[i];
		if (s->type == 0 || s->type == RPVK_MAP_TOMB)
			break;
	}
	if (s->type == 0)
		m->used++;
	s->type = type;
	s->key = key;
	s->val = val;
	s->aux = aux;
	m->live++;
	return 0;
}

const rpvk_map_slot *rpvk_map_probe(rpvk_map *m, uint32_t type, uint64_t key)
{
	size_t i, mask;
	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = rpvk_map_hash(type, key) & mask;; i = (i + 1) & mask) {
		const rpvk_map_slot *s = &m->slots[i];
		if (s->type == 0)
			return NULL;
		if (s->type == type && s->key == key) {
			m->memo[type & (RPVK_MAP_MEMO - 1)] = i;
			return s;
		}
	}
}

void rpvk_map_del(rpvk_map *m, uint32_t type, uint64_t key)
{
	rpvk_map_slot *s = (rpvk_map_slot *)rpvk_map_get(m, type, key);
	if (!s)
		return;
	s->type = RPVK_MAP_TOMB;
	m->live--;
}

void rpvk_map_clear(rpvk_map *m)
{
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->used = m->live = 0;
}

void rpvk_map_free(rpvk_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* ---- messages ------------------------------------------------------------- */

const char *rpvk_result_name(VkResult res)
{
	switch (res) {
#define RPVK_R(x) case x: return #x;
	RPVK_R(VK_SUCCESS) RPVK_R(VK_NOT_READY) RPVK_R(VK_TIMEOUT) RPVK_R(VK_EVENT_SET)
	RPVK_R(VK_EVENT_RESET) RPVK_R(VK_INCOMPLETE) RPVK_R(VK_ERROR_OUT_OF_HOST_MEMORY)
	RPVK_R(VK_ERROR_OUT_OF_DEVICE_MEMORY) RPVK_R(VK_ERROR_INITIALIZATION_FAILED)
	RPVK_R(VK_ERROR_DEVICE_LOST) RPVK_R(VK_ERROR_MEMORY_MAP_FAILED)
	RPVK_R(VK_ERROR_LAYER_NOT_PRESENT) RPVK_R(VK_ERROR_EXTENSION_NOT_PRESENT)
	RPVK_R(VK_ERROR_FEATURE_NOT_PRESENT) RPVK_R(VK_ERROR_INCOMPATIBLE_DRIVER)
	RPVK_R(VK_ERROR_TOO_MANY_OBJECTS) RPVK_R(VK_ERROR_FORMAT_NOT_SUPPORTED)
	RPVK_R(VK_ERROR_FRAGMENTED_POOL) RPVK_R(VK_ERROR_UNKNOWN)
	RPVK_R(VK_ERROR_OUT_OF_POOL_MEMORY) RPVK_R(VK_ERROR_INVALID_EXTERNAL_HANDLE)
	RPVK_R(VK_ERROR_FRAGMENTATION) RPVK_R(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
	RPVK_R(VK_PIPELINE_COMPILE_REQUIRED) RPVK_R(VK_ERROR_SURFACE_LOST_KHR)
	RPVK_R(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR) RPVK_R(VK_SUBOPTIMAL_KHR)
	RPVK_R(VK_ERROR_OUT_OF_DATE_KHR)
#undef RPVK_R
	default: return "VkResult";
	}
}

const char *rpvk_cmd_label(const rpvk *r)
{
	const char *n = sbt_vk_cmd_name(r->cmd);
	return n ? n : "?";
}

rp_status rpvk_fail(rpvk *r, rp_status st, const char *fmt, ...)
{
	char text[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rp_diag_set(r->diag, "record seq %llu %s: %s", (unsigned long long)r->seq,
	            rpvk_cmd_label(r), text);
	return st;
}

void rpvk_warn(rpvk *r, const char *fmt, ...)
{
	va_list ap;
	r->warnings++;
	if (r->quiet || r->run > 1 || r->warnings > RPVK_MAX_WARNINGS)
		return;
	fputs("tsreplay: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (r->warnings == RPVK_MAX_WARNINGS)
		fputs("tsreplay: warning: further warnings are counted, not shown\n", stderr);
}

rp_status rpvk_missing(rpvk *r, const char *name)
{
	return rpvk_fail(r, RP_ERR_UNSUPPORTED, "the replay's Vulkan does not provide %s "
	                 "(extension not enabled or not supported by this device)", name);
}

rp_status rpvk_nomem(rpvk *r)
{
	return rpvk_fail(r, RP_ERR_NOMEM, "out of memory");
}

/* Results that depend on timing only (a poll that found the work not yet
 * done) are not differences. */
static int rpvk_result_timing(VkResult captured, VkResult live)
{
	return (captured == VK_NOT_READY || captured == VK_TIMEOUT) && live == VK_SUCCESS;
}

static void rpvk_result_differs(rpvk *r, uint64_t seq, enum sbt_vk_cmd cmd, VkResult captured,
                                VkResult live)
{
	const char *n = sbt_vk_cmd_name(cmd);
	if (rpvk_result_timing(captured, live))
		return;
	if (r->run == 1)
		r->differing_results++;
	rpvk_warn(r, "seq %llu %s returned %s (%d), the capture got %s (%d)",
	          (unsigned long long)seq, n ? n : "?", rpvk_result_name(live), (int)live,
	          rpvk_result_name(captured), (int)captured);
}

/* A pending entry whose slot is needed again: no tsResult came, so the
 * capture's call returned VK_SUCCESS. */
static void rpvk_pending_settle(rpvk *r, rpvk_pending *p)
{
	if (p->seq && !p->done && p->live != VK_SUCCESS)
		rpvk_result_differs(r, p->seq, p->cmd, VK_SUCCESS, p->live);
	memset(p, 0, sizeof(*p));
}

void rpvk_result(rpvk *r, VkResult captured, VkResult live)
{
	if (r->cmd_flags & RPVK_F_BEFORE) {
		rpvk_pending *p = &r->pending[r->seq % RPVK_PENDING];
		rpvk_pending_settle(r, p);
		p->seq = r->seq;
		p->cmd = r->cmd;
		p->live = live;
		return;
	}
	if (captured != live)
		rpvk_result_differs(r, r->seq, r->cmd, captured, live);
}

static void rpvk_pending_settle_all(rpvk *r)
{
	size_t i;
	for (i = 0; i < RPVK_PENDING; i++)
		rpvk_pending_settle(r, &r->pending[i]);
}

/* ---- handles -------------------------------------------------------------- */

static int rpvk_dispatchable(VkObjectType type)
{
	return type == VK_OBJECT_TYPE_INSTANCE || type == VK_OBJECT_TYPE_PHYSICAL_DEVICE ||
	       type == VK_OBJECT_TYPE_DEVICE || type == VK_OBJECT_TYPE_QUEUE ||
	       type == VK_OBJECT_TYPE_COMMAND_BUFFER;
}

rp_status rpvk_bind(rpvk *r, VkObjectType type, uint64_t captured, uint64_t live)
{
	int32_t owner = r->cur_dev;
	if (type == VK_OBJECT_TYPE_PHYSICAL_DEVICE || type == VK_OBJECT_TYPE_INSTANCE)
		owner = r->cur_inst;
	if (rpvk_map_put(&r->handles, (uint32_t)type, captured, live, owner) != 0)
		return RP_ERR_NOMEM;
	if (rpvk_dispatchable(type) && rpvk_map_put(&r->owners, (uint32_t)type, live, 0, owner) != 0)
		return RP_ERR_NOMEM;
	if (type == VK_OBJECT_TYPE_QUEUE && owner >= 0)
		rpvk_device_add_queue(r, owner, (VkQueue)(uintptr_t)live);
	return RP_OK;
}

void rpvk_forget(rpvk *r, VkObjectType type, uint64_t live)
{
	size_t i;
	if (!live)
		return;
	for (i = 0; i < r->nmapped; i++)
		if (r->mapped[i].type == (uint32_t)type && r->mapped[i].live == live) {
			rpvk_map_del(&r->handles, (uint32_t)type, r->mapped[i].captured);
			break;
		}
}

static const char *rpvk_type_name(VkObjectType t)
{
	switch (t) {
#define RPVK_T(e, s) case e: return s;
	RPVK_T(VK_OBJECT_TYPE_INSTANCE, "VkInstance") RPVK_T(VK_OBJECT_TYPE_PHYSICAL_DEVICE, "VkPhysicalDevice")
	RPVK_T(VK_OBJECT_TYPE_DEVICE, "VkDevice") RPVK_T(VK_OBJECT_TYPE_QUEUE, "VkQueue")
	RPVK_T(VK_OBJECT_TYPE_SEMAPHORE, "VkSemaphore") RPVK_T(VK_OBJECT_TYPE_COMMAND_BUFFER, "VkCommandBuffer")
	RPVK_T(VK_OBJECT_TYPE_FENCE, "VkFence") RPVK_T(VK_OBJECT_TYPE_DEVICE_MEMORY, "VkDeviceMemory")
	RPVK_T(VK_OBJECT_TYPE_BUFFER, "VkBuffer") RPVK_T(VK_OBJECT_TYPE_IMAGE, "VkImage")
	RPVK_T(VK_OBJECT_TYPE_EVENT, "VkEvent") RPVK_T(VK_OBJECT_TYPE_QUERY_POOL, "VkQueryPool")
	RPVK_T(VK_OBJECT_TYPE_BUFFER_VIEW, "VkBufferView") RPVK_T(VK_OBJECT_TYPE_IMAGE_VIEW, "VkImageView")
	RPVK_T(VK_OBJECT_TYPE_SHADER_MODULE, "VkShaderModule") RPVK_T(VK_OBJECT_TYPE_PIPELINE_CACHE, "VkPipelineCache")
	RPVK_T(VK_OBJECT_TYPE_PIPELINE_LAYOUT, "VkPipelineLayout") RPVK_T(VK_OBJECT_TYPE_RENDER_PASS, "VkRenderPass")
	RPVK_T(VK_OBJECT_TYPE_PIPELINE, "VkPipeline")
	RPVK_T(VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, "VkDescriptorSetLayout")
	RPVK_T(VK_OBJECT_TYPE_SAMPLER, "VkSampler") RPVK_T(VK_OBJECT_TYPE_DESCRIPTOR_POOL, "VkDescriptorPool")
	RPVK_T(VK_OBJECT_TYPE_DESCRIPTOR_SET, "VkDescriptorSet") RPVK_T(VK_OBJECT_TYPE_FRAMEBUFFER, "VkFramebuffer")
	RPVK_T(VK_OBJECT_TYPE_COMMAND_POOL, "VkCommandPool") RPVK_T(VK_OBJECT_TYPE_SURFACE_KHR, "VkSurfaceKHR")
	RPVK_T(VK_OBJECT_TYPE_SWAPCHAIN_KHR, "VkSwapchainKHR")
	RPVK_T(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, "VkDescriptorUpdateTemplate")
#undef RPVK_T
	default: return "handle";
	}
}

int rpvk_lookup(rpvk *r, VkObjectType type, uint64_t captured, uint64_t *live_out)
{
	const rpvk_map_slot *s;
	if (!captured) {
		*live_out = 0;
		return 0;
	}
	s = rpvk_map_get(&r->handles, (uint32_t)type, captured);
	if (!s) {
		rpvk_fail(r, RP_ERR_NOT_FOUND, "unknown %s 0x%llx (object type %d): no earlier record "
		          "created it, or its creation failed in this replay", rpvk_type_name(type),
		          (unsigned long long)captured, (int)type);
		return -1;
	}
	*live_out = s->val;
	return 0;
}

static sbt_vk_status rpvk_hook_map(void *ctx, VkObjectType type, uint64_t captured, uint64_t *live_out)
{
	rpvk *r = ctx;
	const rpvk_map_slot *s = captured ? rpvk_map_get(&r->handles, (uint32_t)type, captured) : NULL;
	if (s) {
		*live_out = s->val;
	} else if (rpvk_lookup(r, type, captured, live_out) != 0) {
		r->handle_error = 1;
		return SBT_VK_ERR_HANDLE;
	}
	if (r->nmapped < sizeof(r->mapped) / sizeof(r->mapped[0])) {
		r->mapped[r->nmapped].type = (uint32_t)type;
		r->mapped[r->nmapped].captured = captured;
		r->mapped[r->nmapped].live = *live_out;
		r->nmapped++;
	}
	return SBT_VK_OK;
}

/* An enum value vk.xml does not name, met by the last decode: warned
 * about once per field and value.  A negative one is refused (RP_ERR_TRACE),
 * but a command's VkResult (".ret"): the registry gives negative values to
 * VkResult's errors only, so no Vulkan version or extension, and no newer
 * driver, knows it (lavapipe died of SIGSEGV on a VkImageViewCreateInfo
 * format of -2147483648, replay_mutants.sh seed 102 over vk_dynstate
 * --execute's trace). */
static rp_status rpvk_unknown_enum(rpvk *r)
{
	const char *field;
	int64_t value;
	size_t i, n;
	if (!sbt_vk_arena_unknown_enum(r->arena, &field, &value))
		return RP_OK;
	n = strlen(field);
	if (value < 0 && (n < 4 || strcmp(field + n - 4, ".ret") != 0))
		return rpvk_fail(r, RP_ERR_TRACE, "%s is %lld, which no Vulkan version or extension "
		                 "defines (only VkResult has negative values): a valid application never "
		                 "makes this call, and a driver may crash on it", field, (long long)value);
	for (i = 0; i < r->nunknown_enums; i++)
		if (r->unknown_enums[i].value == value && strcmp(r->unknown_enums[i].field, field) == 0)
			return RP_OK;
	if (i == sizeof(r->unknown_enums) / sizeof(r->unknown_enums[0]))
		return RP_OK; /* that many kinds: the first ones said it */
	r->unknown_enums[i].field = field; /* a string literal of the codec */
	r->unknown_enums[i].value = value;
	r->nunknown_enums++;
	rpvk_warn(r, "record seq %llu %s: %s is %lld, a value vk.xml %s does not name; passed on "
	          "as it is (a newer driver may know it)", (unsigned long long)r->seq,
	          rpvk_cmd_label(r), field, (long long)value, SBT_VK_VKXML_VERSION);
	return RP_OK;
}

static sbt_vk_status rpvk_hook_blob(void *ctx, uint64_t blob_id, size_t len, const void **data_out)
{
	rpvk *r = ctx;
	void *data = NULL;
	size_t got = 0;
	if (r->nblobs == r->blobs_cap) {
		size_t ncap = r->blobs_cap ? 2 * r->blobs_cap : 8;
		void **nb = realloc(r->blobs, ncap * sizeof(*nb));
		if (!nb)
			return SBT_VK_ERR_NOMEM;
		r->blobs = nb;
		r->blobs_cap = ncap;
	}
	if (sbt_reader_blob_get(r->trace, blob_id, &data, &got) != SBT_OK)
		return SBT_VK_ERR_BLOB;
	if (got != len) {
		free(data);
		return SBT_VK_ERR_BLOB;
	}
	r->blobs[r->nblobs++] = data;
	*data_out = data;
	return SBT_VK_OK;
}

static void rpvk_blobs_release(rpvk *r)
{
	size_t i;
	for (i = 0; i < r->nblobs; i++)
		free(r->blobs[i]);
	r->nblobs = 0;
}

const rpvk_itable *rpvk_itable_for(rpvk *r, uint64_t live)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->owners, VK_OBJECT_TYPE_INSTANCE, live);
	if (!s)
		s = rpvk_map_get(&r->owners, VK_OBJECT_TYPE_PHYSICAL_DEVICE, live);
	if (!s || s->aux < 0 || s->aux >= r->ninst || !r->inst[s->aux].live) {
		rpvk_fail(r, RP_ERR_BACKEND, "no live instance owns dispatchable handle 0x%llx",
		          (unsigned long long)live);
		return NULL;
	}
	r->cur_inst = s->aux;
	return &r->inst[s->aux].t;
}

const rpvk_dtable *rpvk_dtable_lookup(rpvk *r, uint64_t live)
{
	/* Command buffers first: vkCmd* calls are most of any trace. */
	static const VkObjectType kinds[] = {VK_OBJECT_TYPE_COMMAND_BUFFER, VK_OBJECT_TYPE_DEVICE,
	                                     VK_OBJECT_TYPE_QUEUE};
	const rpvk_map_slot *s = NULL;
	size_t i;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !s; i++)
		s = rpvk_map_get(&r->owners, (uint32_t)kinds[i], live);
	if (!s || s->aux < 0 || s->aux >= r->ndev || !r->dev[s->aux].live) {
		rpvk_fail(r, RP_ERR_BACKEND, "no live device owns dispatchable handle 0x%llx",
		          (unsigned long long)live);
		return NULL;
	}
	r->cur_dev = s->aux;
	r->cur_inst = r->dev[s->aux].inst;
	return &r->dev[s->aux].t;
}

uint64_t *rpvk_save_handles(rpvk *r, const void *handles, size_t n)
{
	uint64_t *out;
	if (!n || !handles)
		return NULL;
	out = sbt_vk_arena_alloc(r->arena, n * sizeof(uint64_t));
	if (out)
		memcpy(out, handles, n * sizeof(uint64_t)); /* handles are 64-bit here */
	return out;
}

_Static_assert(sizeof(VkBuffer) == sizeof(uint64_t) && sizeof(VkDevice) == sizeof(uint64_t),
               "handles are saved as u64 arrays");

void *rpvk_scratch(rpvk *r, size_t n)
{
	return sbt_vk_arena_alloc(r->arena, n);
}

uint64_t rpvk_fake_handle(rpvk *r)
{
	r->next_fake += 0x100;
	return r->next_fake;
}

/* ---- front-end records ------------------------------------------------------ */

static rp_status rpvk_ts_result(rpvk *r, const sbt_record *rec)
{
	sbt_vk_ts_result res;
	rpvk_pending *p;
	if (sbt_vk_ts_result_decode(rec->payload, rec->payload_len, &res) != SBT_VK_OK) {
		rp_diag_set(r->diag, "record seq %llu %s: cannot decode its payload (%zu bytes)",
		            (unsigned long long)rec->seq, SBT_VK_TS_RESULT_NAME, rec->payload_len);
		return RP_ERR_DECODE;
	}
	p = &r->pending[res.seq % RPVK_PENDING];
	if (p->seq != res.seq || !p->seq)
		return RP_OK; /* its call was outside the replayed range, or long ago */
	p->done = 1;
	if (p->live != res.result)
		rpvk_result_differs(r, p->seq, p->cmd, res.result, p->live);
	return RP_OK;
}

/* ---- ops ----------------------------------------------------------------------- */

static enum sbt_vk_cmd rpvk_kind(rpvk *r, uint32_t type, uint64_t *kind_out)
{
	size_t h = type % (sizeof(r->kind_memo) / sizeof(r->kind_memo[0]));
	const rpvk_map_slot *s;
	enum sbt_vk_cmd cmd = (enum sbt_vk_cmd)0;
	uint64_t kind;
	if (r->kind_memo[h].type == type && type) {
		kind = r->kind_memo[h].kind;
		*kind_out = kind;
		return kind < SBT_VK_CMD_COUNT ? (enum sbt_vk_cmd)kind : cmd;
	}
	s = rpvk_map_get(&r->types, RPVK_TYPE_KEY, type);
	if (s) {
		r->kind_memo[h].type = type;
		r->kind_memo[h].kind = (uint32_t)s->val;
		*kind_out = s->val;
		return s->val < SBT_VK_CMD_COUNT ? (enum sbt_vk_cmd)s->val : cmd;
	}
	{
		const char *name = sbt_reader_type_name(r->trace, type);
		if (name && strcmp(name, SBT_VK_TS_MEMORY_WRITE_NAME) == 0)
			kind = RPVK_KIND_MEMORY_WRITE;
		else if (name && strcmp(name, SBT_VK_TS_MEMORY_WRITES_NAME) == 0)
			kind = RPVK_KIND_MEMORY_WRITES;
		else if (name && strcmp(name, SBT_VK_TS_RESULT_NAME) == 0)
			kind = RPVK_KIND_RESULT;
		else if (name && strcmp(name, SBT_VK_TS_QUERY_RESULTS_NAME) == 0)
			kind = RPVK_KIND_QUERY_RESULTS;
		else if (name && sbt_vk_cmd_by_name(name, &cmd) == 0)
			kind = (uint64_t)cmd;
		else
			kind = RPVK_KIND_UNKNOWN;
	}
	rpvk_map_put(&r->types, RPVK_TYPE_KEY, type, kind, 0);
	*kind_out = kind;
	return cmd;
}

static rp_status rpvk_execute(void *state, const sbt_record *rec, unsigned flags, rp_diag *diag)
{
	rpvk *r = state;
	uint64_t kind;
	enum sbt_vk_cmd cmd = rpvk_kind(r, rec->type, &kind);
	const rpvk_cmd *info;
	sbt_vk_status vst;
	void *args;
	rp_status st;
	int done;

	if (r->skip_seq) {
		/* a snapshot's records follow its marker without a gap (the
		 * capture runtime lets no other thread record meanwhile); the
		 * first gap is its snapshot_end record */
		if (rec->seq == r->skip_seq + 1) {
			r->skip_seq = rec->seq;
			return RP_OK;
		}
		r->skip_seq = 0;
	}
	r->diag = diag;
	r->seq = rec->seq;
	rpvk_blobs_release(r);
	sbt_vk_arena_reset(r->arena);
	if (kind == RPVK_KIND_MEMORY_WRITE)
		return rpvk_memory_write(r, rec->payload, rec->payload_len);
	if (kind == RPVK_KIND_MEMORY_WRITES)
		return rpvk_memory_writes(r, rec->payload, rec->payload_len);
	if (kind == RPVK_KIND_RESULT)
		return rpvk_ts_result(r, rec);
	if (kind == RPVK_KIND_QUERY_RESULTS)
		return rpvk_query_results(r, rec->payload, rec->payload_len);
	if (kind == RPVK_KIND_UNKNOWN) {
		const char *name = sbt_reader_type_name(r->trace, rec->type);
		rp_diag_set(diag, "record seq %llu: '%s' is not a Vulkan command this replayer knows "
		            "(vk.xml %s)", (unsigned long long)rec->seq, name && *name ? name : "(unnamed)",
		            "1.3.239");
		return RP_ERR_UNSUPPORTED;
	}
	r->cmd = cmd;
	info = &rpvk_cmds[cmd];
	r->cmd_flags = info->flags;
	if (!info->call) {
		const char *why = rpvk_cmd_why(cmd);
		return rpvk_fail(r, RP_ERR_UNSUPPORTED, "not modelled by the Vulkan replayer%s%s",
		                 why ? ": " : "", why ? why : "");
	}
	args = r->args; /* sbt_vk_decode clears what the command uses */
	r->nmapped = 0;
	r->handle_error = 0;
	vst = sbt_vk_decode(cmd, rec->payload, rec->payload_len, r->arena, args, &r->hooks);
	if (vst != SBT_VK_OK) {
		if (r->handle_error)
			return RP_ERR_NOT_FOUND; /* diag names the handle */
		/* the arena's message names the member, and says the status */
		return rpvk_fail(r, RP_ERR_DECODE, "cannot decode its payload (%zu bytes): %s",
		                 rec->payload_len, *sbt_vk_arena_message(r->arena) ?
		                 sbt_vk_arena_message(r->arena) : sbt_vk_strerror(vst));
	}
	if ((st = rpvk_unknown_enum(r)) != RP_OK)
		return st;
	if ((info->flags & RPVK_F_LAYOUT) && r->offscreen)
		rpvk_rewrite_layouts(r, cmd, args);
	st = rpvk_state_before(r, cmd, info->flags, args);
	if (st == RP_OK)
		st = rpvk_sync_before(r, cmd, args);
	if (st != RP_OK)
		return st;
	if (r->profile && (st = rpvk_profile_before(r, cmd, args)) != RP_OK)
		return st;
	if (r->pc && (st = rpvk_percmd_before(r, cmd, args)) != RP_OK)
		return st;
	rpvk_queue_remap(r, cmd, args);
	st = rpvk_query_before(r, cmd, args, &done);
	if (st == RP_OK && !done)
		st = info->call(r, args);
	if (st == RP_OK) {
		rpvk_state_after(r, cmd, args);
		rpvk_sync_after(r, cmd, args);
	}
	if (st == RP_OK && r->serialise)
		st = rpvk_wait_serialised(r, cmd, args);
	if (st == RP_OK && r->pc)
		st = rpvk_percmd_after(r, cmd, args, flags);
	if (st == RP_OK && r->profile)
		st = rpvk_profile_after(r, cmd, args, flags);
	if (st == RP_OK)
		r->calls++;
	else if (!diag->text[0])
		rpvk_fail(r, st, "%s", rp_strerror(st));
	return st;
}

/* The frame a periodic snapshot's marker names ("snapshot", varint frame);
 * 0 when the marker is not a Vulkan layer's snapshot. */
static int rpvk_snapshot_frame(const sbt_record *marker, uint64_t *frame_out)
{
	const uint8_t *p = marker->payload;
	size_t n = marker->payload_len, i;
	uint64_t v = 0;
	if (n < 9 || memcmp(p, "snapshot", 8) != 0)
		return 0;
	for (i = 8; i < n && i < 8 + 10; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * (i - 8));
		if (!(p[i] & 0x80)) {
			*frame_out = v;
			return 1;
		}
	}
	return 0;
}

static int rpvk_keyframe_is_start(const sbt_record *marker)
{
	uint64_t frame;
	return rpvk_snapshot_frame(marker, &frame);
}

/* A periodic snapshot (TRACESMITH_SNAPSHOT_FRAMES): ordinary records that
 * recreate the live state.  Restoring (the replay starts here): they run
 * as they come, and frames count on from the snapshot's.  Met in the
 * middle of a replay: the state exists already, so they are skipped. */
static rp_status rpvk_keyframe(void *state, const sbt_record *marker, int restore, rp_diag *diag)
{
	rpvk *r = state;
	uint64_t frame;
	(void)diag;
	if (!rpvk_snapshot_frame(marker, &frame))
		return RP_OK;
	if (!restore) {
		r->skip_seq = marker->seq;
		return RP_OK;
	}
	r->frame_base = frame;
	if (!r->quiet && r->run <= 1)
		fprintf(stderr, "tsreplay: vulkan: restoring the snapshot taken after frame %llu "
		        "(seq %llu)\n", (unsigned long long)frame, (unsigned long long)marker->seq);
	return RP_OK;
}

static rp_status rpvk_checkpoint(void *state, const sbt_checkpoint *expected, const void **bytes_out,
                                 rp_diag *diag)
{
	rpvk *r = state;
	rp_status st;
	r->diag = diag;
	if (rpvk_frame_checkpoint(r, expected, bytes_out, &st))
		return st;
	return rpvk_memory_checkpoint(r, expected, bytes_out);
}

static void rpvk_clear(rpvk *r)
{
	rpvk_pending_settle_all(r);
	rpvk_profile_release(r);
	rpvk_percmd_release(r);
	rpvk_instance_teardown(r);
	rpvk_mem_clear(r);
	rpvk_template_clear(r);
	rpvk_map_clear(&r->handles);
	rpvk_map_clear(&r->owners);
	rpvk_map_clear(&r->swapchains);
	rpvk_map_clear(&r->syncs);
	rpvk_state_clear(r);
	rpvk_query_clear(r);
	memset(r->pending, 0, sizeof(r->pending));
	r->nreqs = 0;
	r->settled_seq = 0;
	if (r->nphys)
		memset(r->phys, 0, r->nphys * sizeof(r->phys[0]));
	r->cur_inst = r->cur_dev = -1;
}

/* A --screenshot frame the run did not present: before a trimmed trace's
 * first frame or after its last, warned once per range at the end. */
static void rpvk_shots_beyond(rpvk *r)
{
	uint64_t first = r->frame_base + 1, last = r->frame_base + r->frames;
	size_t i;
	for (i = 0; i < r->nshots; i++) {
		const rpvk_shot_range *s = &r->shots[i];
		if (s->first >= first && s->last <= last)
			continue;
		if (r->frames == 0)
			rpvk_warn(r, "--screenshot frame %llu: the trace presents no frames; no "
			          "screenshot written", (unsigned long long)(s->first < first ? s->first
			                                                                   : s->last));
		else
			rpvk_warn(r, "--screenshot frame %llu is beyond the trace's frames %llu-%llu; "
			          "not written", (unsigned long long)(s->first < first ? s->first : s->last),
			          (unsigned long long)first, (unsigned long long)last);
	}
}

static void rpvk_summary(rpvk *r)
{
	if (r->run == 1)
		rpvk_shots_beyond(r);
	if (r->quiet || r->run > 1)
		return;
	/* A program that marks its frames without presenting (the in-app
	 * API, offscreen rendering) has frames but presents none: say that,
	 * not "0 frames", beside the core's "frames A-B replayed". */
	if (r->frames)
		fprintf(stderr, "tsreplay: vulkan: %llu calls, %llu frames presented",
		        (unsigned long long)r->calls, (unsigned long long)r->frames);
	else
		fprintf(stderr, "tsreplay: vulkan: %llu calls, nothing presented",
		        (unsigned long long)r->calls);
	if (r->frame_base && r->frames)
		fprintf(stderr, " (frames %llu-%llu of the capture)",
		        (unsigned long long)r->frame_base + 1,
		        (unsigned long long)(r->frame_base + r->frames));
	if (r->window_frames)
		fprintf(stderr, " (%llu shown in a window)", (unsigned long long)r->window_frames);
	fprintf(stderr, ", %llu screenshots", (unsigned long long)r->shots_written);
	if (r->frame_hashes)
		fprintf(stderr, ", %llu frame hashes compared", (unsigned long long)r->frame_hashes);
	if (r->frame_hashes_differ)
		fprintf(stderr, " (%llu differ, the first at frame %llu)",
		        (unsigned long long)r->frame_hashes_differ,
		        (unsigned long long)r->frame_first_differ);
	if (r->differing_results)
		fprintf(stderr, ", %llu results differ from the capture",
		        (unsigned long long)r->differing_results);
	if (r->warnings)
		fprintf(stderr, ", %llu warnings", (unsigned long long)r->warnings);
	fputc('\n', stderr);
}

/* A trimmed trace's frames before its first: the capture runtime's
 * "window.first_frame" meta, minus one (0 for a whole trace). */
static uint64_t rpvk_first_frame(const sbt_reader *trace)
{
	const char *v = trace ? sbt_reader_meta(trace, "window.first_frame") : NULL;
	char *end;
	unsigned long long n;
	if (!v || *v < '0' || *v > '9')
		return 0;
	n = strtoull(v, &end, 10);
	return *end == '\0' && n > 0 ? (uint64_t)n - 1 : 0;
}

static rp_status rpvk_reset(void *state, rp_diag *diag)
{
	rpvk *r = state;
	r->diag = diag;
	rpvk_clear(r);
	rpvk_percmd_clear(r);
	rpvk_summary(r);
	r->run++;
	r->calls = r->frames = r->shots_written = r->window_frames = 0;
	r->frame_hashes = r->frame_hashes_differ = r->frame_first_differ = 0;
	r->present_seq = 0;
	r->skip_seq = 0;
	r->frame_base = rpvk_first_frame(r->trace);
	return RP_OK;
}

static void rpvk_close(void *state)
{
	rpvk *r = state;
	rp_diag d = {""};
	if (!r)
		return;
	r->diag = &d;
	rpvk_clear(r);
	rpvk_summary(r);
	rpvk_window_close(r);
	rpvk_slots_free(r);
	rpvk_blobs_release(r);
	free(r->blobs);
	rpvk_map_free(&r->handles);
	rpvk_map_free(&r->owners);
	rpvk_map_free(&r->mems);
	rpvk_map_free(&r->swapchains);
	rpvk_map_free(&r->templates);
	rpvk_map_free(&r->types);
	rpvk_profile_free(r);
	rpvk_percmd_free(r);
	rpvk_map_free(&r->syncs);
	rpvk_state_free(r);
	rpvk_query_clear(r);
	free(r->args);
	sbt_vk_arena_free(r->arena);
	free(r->cp_buf);
	free(r->fh_buf);
	free(r->shots);
	free(r);
}

/* ---- options -------------------------------------------------------------- */

/* A frame number from 1 at *p, plain decimal; advances *p.  0, or -1. */
static int rpvk_scan_frame(const char **p, uint64_t *v_out)
{
	const char *digits = *p;
	uint64_t v = 0;
	int over = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		over |= v > (UINT64_MAX - (uint64_t)(**p - '0')) / 10;
		v = v * 10 + (uint64_t)(**p - '0');
	}
	if (*p == digits || v == 0 || over)
		return -1;
	*v_out = v;
	return 0;
}

/* --screenshot "1-3,10,300": frame numbers from 1 and ranges A-B (A <= B),
 * comma-separated.  Counts the items into *n_out and, when out is not
 * NULL, stores them there (room for *n_out from a first call with out
 * NULL). */
static rp_status rpvk_scan_shots(const char *text, rpvk_shot_range *out, size_t *n_out,
                                 rp_diag *diag)
{
	const char *p = text;
	size_t n = 0;
	for (;;) {
		rpvk_shot_range s;
		if (rpvk_scan_frame(&p, &s.first) != 0)
			goto out_bad;
		s.last = s.first;
		if (*p == '-') {
			p++;
			if (rpvk_scan_frame(&p, &s.last) != 0 || s.last < s.first)
				goto out_bad;
		}
		if (*p != ',' && *p != '\0')
			goto out_bad;
		if (out)
			out[n] = s;
		n++;
		if (!*p++)
			break;
	}
	*n_out = n;
	return RP_OK;
out_bad:
	rp_diag_set(diag, "--screenshot: expected frame numbers from 1 or ranges A-B (A <= B), "
	            "comma-separated, got '%s'", text);
	return RP_ERR_USAGE;
}

/* --screenshot-format: png or ppm.  1 for png, 0 for ppm, -1 neither. */
static int rpvk_shot_format(const char *v)
{
	return strcmp(v, "png") == 0 ? 1 : strcmp(v, "ppm") == 0 ? 0 : -1;
}

static rp_status rpvk_check_dir(const char *dir, rp_diag *diag)
{
	struct stat sb;
	const char *why = NULL;
	if (!*dir)
		why = "empty";
	else if (stat(dir, &sb) != 0)
		why = strerror(errno);
	else if (!S_ISDIR(sb.st_mode))
		why = "not a directory";
	if (why) {
		rp_diag_set(diag, "--screenshot-dir: expected a directory, got '%s' (%s)", dir, why);
		return RP_ERR_USAGE;
	}
	return RP_OK;
}

int rpvk_device_index(const char *sel, unsigned long *idx_out)
{
	const char *p;
	unsigned long v = 0;
	for (p = sel; *p >= '0' && *p <= '9'; p++)
		v = v > (ULONG_MAX - 9) / 10 ? ULONG_MAX : v * 10 + (unsigned long)(*p - '0');
	if (p == sel || *p)
		return 0;
	*idx_out = v; /* past every device when it saturated */
	return 1;
}

/* rp_backend_ops.check_option: what can be refused without a device. */
static rp_status rpvk_check_option(const rp_option_value *o, rp_diag *diag)
{
	const char *v = o->value ? o->value : "";
	size_t n;
	uint64_t ns;
	if (strcmp(o->name, "--screenshot") == 0)
		return rpvk_scan_shots(v, NULL, &n, diag);
	if (strcmp(o->name, "--screenshot-dir") == 0)
		return rpvk_check_dir(v, diag);
	if (strcmp(o->name, "--screenshot-format") == 0 && rpvk_shot_format(v) < 0) {
		rp_diag_set(diag, "--screenshot-format: expected png or ppm, got '%s'", v);
		return RP_ERR_USAGE;
	}
	if (strcmp(o->name, "--wait-timeout") == 0 && rpvk_wait_parse(v, &ns) != 0) {
		rp_diag_set(diag, "--wait-timeout: expected seconds (> 0), got '%s'", v);
		return RP_ERR_USAGE;
	}
	if (strcmp(o->name, "--device") == 0 && !*v) {
		rp_diag_set(diag, "--device: expected a physical device index (0, 1, ...) or part of "
		            "its name, got ''");
		return RP_ERR_USAGE;
	}
	return RP_OK;
}

static int rpvk_shot_cmp(const void *a, const void *b)
{
	uint64_t x = ((const rpvk_shot_range *)a)->first, y = ((const rpvk_shot_range *)b)->first;
	return x < y ? -1 : x > y;
}

/* --screenshot -> r->shots, sorted. */
static rp_status rpvk_parse_shots(rpvk *r, const char *text, rp_diag *diag)
{
	size_t n = 0;
	rp_status st = rpvk_scan_shots(text, NULL, &n, diag);
	if (st != RP_OK)
		return st;
	r->shots = calloc(n, sizeof(*r->shots));
	if (!r->shots) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	rpvk_scan_shots(text, r->shots, &n, diag);
	r->nshots = n;
	qsort(r->shots, n, sizeof(*r->shots), rpvk_shot_cmp);
	return RP_OK;
}

static rp_status rpvk_open(const rp_backend_open_args *args, void **state_out, rp_diag *diag)
{
	rpvk *r = calloc(1, sizeof(*r));
	int offscreen_opt = 0;
	rp_status st = RP_OK;
	size_t args_size = 0;
	size_t i;

	if (!r) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	r->profile = args->profile;
	r->trace = args->trace;
	r->frame_base = rpvk_first_frame(r->trace);
	r->quiet = args->quiet;
	r->serialise = args->serialise;
	if (args->per_command && rpvk_percmd_open(r) != RP_OK) {
		rp_diag_set(diag, "out of memory");
		st = RP_ERR_NOMEM;
		goto out_fail;
	}
	r->device_sel = args->device;
	r->run = 1;
	r->cur_inst = r->cur_dev = -1;
	r->next_fake = 0x7f5e000000000000ull;
	snprintf(r->shot_dir, sizeof(r->shot_dir), ".");
	rpvk_wait_init(r);
	for (i = 0; i < args->noptions; i++) {
		const char *n = args->options[i].name, *v = args->options[i].value;
		if (strcmp(n, "--validate") == 0) {
			r->validate = 1;
		} else if (strcmp(n, "--offscreen") == 0) {
			offscreen_opt = 1;
		} else if (strcmp(n, "--no-spirv-check") == 0) {
			r->spirv_unchecked = 1;
		} else if (strcmp(n, "--screenshot") == 0) {
			free(r->shots);
			r->shots = NULL;
			st = rpvk_parse_shots(r, v ? v : "", diag);
			if (st != RP_OK)
				goto out_fail;
		} else if (strcmp(n, "--screenshot-dir") == 0) {
			st = rpvk_check_dir(v ? v : "", diag);
			if (st != RP_OK)
				goto out_fail;
			snprintf(r->shot_dir, sizeof(r->shot_dir), "%s", v);
		} else if (strcmp(n, "--screenshot-all") == 0) {
			r->shot_all = 1;
		} else if (strcmp(n, "--wait-timeout") == 0) {
			if (rpvk_wait_parse(v, &r->wait_ns) != 0) {
				rp_diag_set(diag, "--wait-timeout: expected seconds (> 0), got '%s'", v ? v : "");
				st = RP_ERR_USAGE;
				goto out_fail;
			}
		} else if (strcmp(n, "--screenshot-format") == 0) {
			r->shot_png = rpvk_shot_format(v ? v : "");
			if (r->shot_png < 0) {
				rp_diag_set(diag, "--screenshot-format: expected png or ppm, got '%s'",
				            v ? v : "");
				st = RP_ERR_USAGE;
				goto out_fail;
			}
		}
	}
	/* Swapchain images are plain images in both modes; with a display
	 * and no --offscreen, rpvk_window.c also shows them in a window. */
	r->offscreen = 1;
	st = rpvk_window_open(r, offscreen_opt, args->trace_path, diag);
	if (st != RP_OK)
		goto out_fail;
	if (sbt_vk_arena_create(0, &r->arena) != SBT_VK_OK) {
		rp_diag_set(diag, "out of memory");
		st = RP_ERR_NOMEM;
		goto out_fail;
	}
	/* One buffer for every record's arguments, reused: decoding does not
	 * take (and clear) arena bytes for them each time. */
	for (i = 0; i < SBT_VK_CMD_COUNT; i++)
		if (sbt_vk_args_size((enum sbt_vk_cmd)i) > args_size)
			args_size = sbt_vk_args_size((enum sbt_vk_cmd)i);
	r->args = calloc(1, args_size ? args_size : 1);
	if (!r->args) {
		rp_diag_set(diag, "out of memory");
		st = RP_ERR_NOMEM;
		goto out_fail;
	}
	r->hooks.ctx = r;
	r->hooks.map_handle = rpvk_hook_map;
	r->hooks.load_blob = rpvk_hook_blob;
	*state_out = r;
	return RP_OK;
out_fail:
	rpvk_close(r);
	return st;
}

static const rp_option_desc rpvk_options[] = {
	{"--offscreen", NULL, "Vulkan: swapchain as plain images even with a display"},
	{"--no-spirv-check", NULL, "Vulkan: shader code SPIRV-Tools rejects goes to the driver, warned"},
	{"--screenshot", "N[-M][,...]", "Vulkan: write presented frames N (from 1), N to M, as images"},
	{"--screenshot-all", NULL, "Vulkan: write every presented frame as an image"},
	{"--screenshot-dir", "DIR", "Vulkan: where screenshots go: frame_N.ppm|png (default .)"},
	{"--screenshot-format", "FMT", "Vulkan: screenshot files: ppm (default) or png"},
	{"--validate", NULL, "Vulkan: replay under VK_LAYER_KHRONOS_validation"},
	{"--wait-timeout", "SECONDS", "Vulkan: the longest wait for the device (default 60)"},
	{NULL, NULL, NULL},
};

const rp_backend_ops rpvk_backend_ops = {
	.name = "vulkan",
	.api = SBT_VK_API_NAME,
	.open = rpvk_open,
	.execute = rpvk_execute,
	.checkpoint = rpvk_checkpoint,
	.keyframe = rpvk_keyframe,
	.keyframe_is_start = rpvk_keyframe_is_start,
	.reset = rpvk_reset,
	.close = rpvk_close,
	.options = rpvk_options,
	.check_option = rpvk_check_option,
	.profile_finish = rpvk_profile_finish,
	.command_results = rpvk_percmd_results,
	.command_part = rpvk_percmd_part,
	.serialises = 1,
};
