/*
 * vkl_record.c - encoding calls and handing them to the capture runtime.
 *
 * Each thread keeps two codec buffers (sbt_vk_enc): one for call payloads,
 * one for the tsResult record that may follow a call recorded before it
 * ran.  They grow to the largest payload the thread has encoded and are
 * reused, so the steady state allocates nothing; a thread-exit destructor
 * frees them.  Byte arrays of VKL_BLOB_THRESHOLD bytes or more (shader
 * code, vkCmdUpdateBuffer data, pipeline caches) go to the blob store,
 * where identical pages are stored once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl.h"
#include "serializer/sbt_vk.h"

typedef struct vkl_tls {
	sbt_vk_enc call;
	sbt_vk_enc result;
	sbt_vk_enc flat; /* the writer thread's, for vkl_flat_encode (no blob store) */
	int ready;
	int blob_used; /* the last call payload put a byte array in the blob store */
} vkl_tls;

static __thread vkl_tls vkl_tls_state;
static pthread_once_t vkl_rec_once = PTHREAD_ONCE_INIT;
static pthread_key_t vkl_rec_key;
static _Atomic int vkl_rec_failed_logged;

static void vkl_rec_thread_exit(void *arg)
{
	vkl_tls *t = arg;
	sbt_vk_enc_free(&t->call);
	sbt_vk_enc_free(&t->result);
	sbt_vk_enc_free(&t->flat);
	t->ready = 0;
}

static void vkl_rec_init(void)
{
	size_t n = 0;
	const sbt_vk_type_desc *types = sbt_vk_types(&n);
	_Static_assert(sizeof(sbt_vk_type_desc) == sizeof(cap_type_desc),
	               "sbt_vk_type_desc must match cap_type_desc");
	_Static_assert(offsetof(sbt_vk_type_desc, name) == offsetof(cap_type_desc, name),
	               "sbt_vk_type_desc must match cap_type_desc");
	pthread_key_create(&vkl_rec_key, vkl_rec_thread_exit);
	cap_register_api(SBT_VK_API_NAME, (const cap_type_desc *)types, n);
	cap_set_bare_encoder(vkl_flat_encode_bare);
}

void vkl_record_register(void)
{
	pthread_once(&vkl_rec_once, vkl_rec_init);
}

static int vkl_rec_blob_put(void *ctx, const void *data, size_t len, uint64_t *blob_id_out)
{
	vkl_tls *t = ctx;
	t->blob_used = 1;
	*blob_id_out = cap_blob(data, len);
	return *blob_id_out ? 0 : -1;
}

static vkl_tls *vkl_rec_tls(void)
{
	vkl_tls *t = &vkl_tls_state;
	if (__builtin_expect(!t->ready, 0)) {
		vkl_record_register();
		sbt_vk_enc_init(&t->call);
		sbt_vk_enc_init(&t->result);
		sbt_vk_enc_init(&t->flat);
		t->call.blob_threshold = VKL_BLOB_THRESHOLD;
		t->call.blob_put = vkl_rec_blob_put;
		t->call.blob_ctx = t;
		t->result.blob_threshold = VKL_BLOB_THRESHOLD;
		t->result.blob_put = vkl_rec_blob_put;
		t->result.blob_ctx = t;
		pthread_setspecific(vkl_rec_key, t);
		t->ready = 1;
	}
	return t;
}

int vkl_recording(void)
{
	return cap_active();
}

static void vkl_rec_failed(uint32_t cmd, sbt_vk_status st)
{
	const char *name = sbt_vk_cmd_name((enum sbt_vk_cmd)cmd);
	char note[160];
	int n = snprintf(note, sizeof(note), "vulkan: %s not recorded: %s", name ? name : "?",
	                 sbt_vk_strerror(st));
	if (!atomic_exchange(&vkl_rec_failed_logged, 1))
		CAP_ERROR("Vulkan layer: %s", note + 8);
	cap_record(SBT_TYPE_NOTE, 0, note, n > 0 ? (size_t)n : 0);
}

uint64_t vkl_record_call(uint32_t cmd, unsigned flags, const void *args, size_t template_len,
                         const uint8_t **payload_out, size_t *len_out, int *inline_out)
{
	vkl_tls *t = vkl_rec_tls();
	sbt_vk_status st;
	uint64_t seq;
	*payload_out = NULL;
	*len_out = 0;
	*inline_out = 0;
	t->call.len = 0;
	t->call.template_data_len = template_len;
	t->blob_used = 0;
	st = sbt_vk_encode(&t->call, (enum sbt_vk_cmd)cmd, args);
	if (__builtin_expect(st != SBT_VK_OK, 0)) {
		vkl_rec_failed(cmd, st);
		return 0;
	}
	seq = cap_record(SBT_VK_CMD_TYPE(cmd), flags, t->call.data, t->call.len);
	if (seq) {
		*payload_out = t->call.data;
		*len_out = t->call.len;
		*inline_out = !t->blob_used;
	}
	return seq;
}

uint64_t vkl_emit_template(uint32_t cmd, unsigned flags, const void *args, size_t template_len)
{
	const uint8_t *p;
	size_t len;
	int in;
	if (vkl_trim_on())
		return vkl_trim_emit(cmd, flags, args, template_len);
	if (!cap_active())
		return 0;
	return vkl_record_call(cmd, flags, args, template_len, &p, &len, &in);
}

/* No cap_active() first: cap_record answers 0 when not recording, and
 * outside a recording session (before start, after shutdown) encoding for
 * nothing costs less than asking on every call. */
uint64_t vkl_emit(uint32_t cmd, unsigned flags, const void *args)
{
	const uint8_t *p;
	size_t len;
	int in;
	if (vkl_trim_on())
		return vkl_trim_emit(cmd, flags, args, 0);
	return vkl_record_call(cmd, flags, args, 0, &p, &len, &in);
}

/*
 * Deferred vkCmd* records.  The raw form is [u32 cmd][u32 ptr_off][the
 * argument struct][its array]: what sbt_vk_flat says the call is made of,
 * copied on the application's thread; the writer thread rebuilds the
 * argument struct (its array pointer aimed at the copied array) and
 * encodes it with the generated codec into the payload a direct record
 * would have had.  Nothing else in the struct is a pointer the encoder
 * follows: a handle is recorded as its value, so a handle destroyed (and
 * its value reused) before the writer runs is still recorded as the value
 * the call named; an array pointer whose count is 0 is copied as it was
 * and, being ignored, never read.
 */
typedef union vkl_flat_args {
	uint64_t align;
	uint8_t b[VKL_FLAT_ARGS_MAX];
} vkl_flat_args;

/* Command cmd's argument struct, rebuilt, through the generated codec. */
static inline __attribute__((always_inline)) size_t
vkl_flat_encode_args(enum sbt_vk_cmd cmd, const vkl_flat_args *args, uint8_t *out, size_t out_cap)
{
	/* the calling (writer) thread's buffer, freed when it exits; it
	 * never records a Vulkan call itself, and no byte array here is long
	 * enough for the blob store, which it may not call */
	sbt_vk_enc *e = &vkl_rec_tls()->flat;
	e->len = 0;
	e->template_data_len = 0;
	/* Only out of memory fails a flat command's encoding: the record
	 * stays, with an empty payload. */
	if (sbt_vk_encode(e, cmd, args->b) != SBT_VK_OK)
		return 0;
	if (e->len <= out_cap)
		memcpy(out, e->data, e->len);
	return e->len;
}

/* Command cmd's argument struct of n bytes (sbt_vk_args_size) and array
 * (body, len bytes in all), its array pointer at byte ptr_off of the
 * struct, or none (ptr_off unused). */
static inline __attribute__((always_inline)) size_t
vkl_flat_encode_body(enum sbt_vk_cmd cmd, size_t n, size_t ptr_off, const uint8_t *body,
                     size_t len, uint8_t *out, size_t out_cap)
{
	vkl_flat_args args;
	if (n == 0 || n > sizeof(args.b) || n > len || (len > n && ptr_off + 8 > n))
		return 0; /* the layer never makes one */
	memcpy(args.b, body, n);
	if (len > n) {
		const uint8_t *array = body + n;
		memcpy(args.b + ptr_off, &array, sizeof(array));
	}
	return vkl_flat_encode_args(cmd, &args, out, out_cap);
}

size_t vkl_flat_encode(const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_cap)
{
	uint32_t head[2];
	if (raw_len < VKL_FLAT_HEAD)
		return 0;
	memcpy(head, raw, sizeof(head));
	return vkl_flat_encode_body((enum sbt_vk_cmd)head[0],
	                            sbt_vk_args_size((enum sbt_vk_cmd)head[0]), head[1],
	                            raw + VKL_FLAT_HEAD, raw_len - VKL_FLAT_HEAD, out, out_cap);
}

/* Each command's array pointer offset in its struct plus 1, once a bare
 * record of it was encoded (0: not yet).  Atomic only because a late round
 * may run on another thread than the writer (capture/cap_internal.h); every
 * thread stores the same value. */
static _Atomic uint32_t vkl_flat_ptr_off[SBT_VK_CMD_COUNT];

/* The array pointer's offset in command id's struct of n bytes, from
 * sbt_vk_flat (which reads only the counts, here all 0), kept for the next
 * record; n + 8 (refused by the encoder) when it has none (0: no command's
 * array pointer is its first member, the command buffer). */
static __attribute__((noinline)) uint32_t vkl_flat_ptr_off_find(uint32_t id, size_t n)
{
	vkl_flat_args zero = {0};
	size_t ptr_off = 0, array_len = 0;
	const void *array = NULL;
	if (n > sizeof(zero.b) || sbt_vk_flat((enum sbt_vk_cmd)id, zero.b, &array, &array_len,
	                                      &ptr_off) != n || ptr_off == 0)
		ptr_off = n + 8;
	atomic_store_explicit(&vkl_flat_ptr_off[id], (uint32_t)ptr_off + 1, memory_order_relaxed);
	return (uint32_t)ptr_off;
}

/* A bare record's raw bytes are the struct and its array, except where the
 * array pointer is the struct's last member: then the array takes the
 * pointer's place (the record-first wrappers, scripts/vkgen/layer.py), and
 * the struct is rebuilt with the pointer aimed at it, or NULL when the
 * record has no array bytes (the pointer was NULL or its count 0, where
 * the codec writes no array either way).  The array pointer's place is
 * looked up once a command: sbt_vk_flat's switch, a call, was about 40
 * instructions a record on the writer. */
size_t vkl_flat_encode_bare(uint32_t type, const uint8_t *raw, size_t raw_len, uint8_t *out,
                            size_t out_cap)
{
	uint32_t id = type - SBT_VK_CMD_TYPE(0), known;
	size_t n, ptr_off;
	if (id >= SBT_VK_CMD_COUNT)
		return 0;
	n = sbt_vk_args_size((enum sbt_vk_cmd)id);
	known = atomic_load_explicit(&vkl_flat_ptr_off[id], memory_order_relaxed);
	ptr_off = known ? known - 1 : vkl_flat_ptr_off_find(id, n);
	if (n && ptr_off + 8 == n) {
		vkl_flat_args args;
		const uint8_t *array = raw_len > ptr_off ? raw + ptr_off : NULL;
		if (raw_len < ptr_off || n > sizeof(args.b))
			return 0; /* the layer never makes one */
		memcpy(args.b, raw, ptr_off);
		memcpy(args.b + ptr_off, &array, sizeof(array));
		return vkl_flat_encode_args((enum sbt_vk_cmd)id, &args, out, out_cap);
	}
	return vkl_flat_encode_body((enum sbt_vk_cmd)id, n, ptr_off, raw, raw_len, out, out_cap);
}

uint64_t vkl_record_flat(uint32_t cmd, const void *args, size_t args_len, const void *array,
                         size_t array_len, size_t ptr_off)
{
	uint32_t head[2];
	cap_rec *rec;
	uint8_t *raw;
	if (__builtin_expect(array_len >= VKL_BLOB_THRESHOLD || args_len > VKL_FLAT_ARGS_MAX, 0)) {
		const uint8_t *p;
		size_t len;
		int in;
		return vkl_record_call(cmd, 0, args, 0, &p, &len, &in);
	}
	raw = cap_fast_begin_deferred(SBT_VK_CMD_TYPE(cmd), 0, vkl_flat_encode,
	                                VKL_FLAT_HEAD + args_len + array_len, &rec);
	if (!raw)
		return 0;
	head[0] = cmd;
	head[1] = (uint32_t)ptr_off;
	memcpy(raw, head, sizeof(head));
	memcpy(raw + VKL_FLAT_HEAD, args, args_len);
	if (array_len)
		memcpy(raw + VKL_FLAT_HEAD + args_len, array, array_len);
	return cap_fast_commit(rec, VKL_FLAT_HEAD + args_len + array_len);
}

void vkl_emit_flat_slow(uint32_t cmd, const void *args, size_t args_len, const void *array,
                        size_t array_len, size_t ptr_off)
{
	if (vkl_trim_on())
		vkl_trim_emit_flat(cmd, args, args_len, array, array_len, ptr_off);
	else
		vkl_record_flat(cmd, args, args_len, array, array_len, ptr_off);
}

void vkl_emit_result(uint64_t seq, VkResult result, uint32_t cmd, const void *args)
{
	vkl_tls *t;
	sbt_vk_ts_result r;
	sbt_vk_status st;
	if (!seq || !cap_active())
		return;
	t = vkl_rec_tls();
	r.seq = seq;
	r.result = result;
	r.outputs = NULL;
	r.outputs_len = 0;
	if (args) {
		t->call.len = 0;
		t->call.template_data_len = 0;
		st = sbt_vk_encode(&t->call, (enum sbt_vk_cmd)cmd, args);
		if (st != SBT_VK_OK)
			goto out_failed;
		r.outputs = t->call.data;
		r.outputs_len = t->call.len;
	}
	t->result.len = 0;
	st = sbt_vk_ts_result_encode(&t->result, &r);
	if (st != SBT_VK_OK)
		goto out_failed;
	cap_record(SBT_VK_TYPE_TS_RESULT, 0, t->result.data, t->result.len);
	return;

out_failed:
	vkl_rec_failed(cmd, st);
}

uint64_t vkl_emit_memory_write(uint64_t memory, uint64_t offset, const void *data,
                               uint64_t size)
{
	vkl_tls *t;
	sbt_vk_ts_memory_write w;
	if (!cap_active())
		return 0;
	t = vkl_rec_tls();
	w.memory = memory;
	w.offset = offset;
	w.size = size;
	w.blob_id = cap_blob(data, (size_t)size);
	if (!w.blob_id)
		return 0;
	t->result.len = 0;
	if (sbt_vk_ts_memory_write_encode(&t->result, &w) != SBT_VK_OK)
		return 0;
	/* no CAP_REC_WORK: the submit, flush or unmap that publishes the
	 * write follows with its own stack, and a page-sized write would
	 * otherwise pay an unwind per page */
	return cap_record(SBT_VK_TYPE_TS_MEMORY_WRITE, 0, t->result.data, t->result.len);
}

uint64_t vkl_emit_memory_writes(uint64_t memory, uint64_t base, const uint8_t *src,
                                const uint64_t (*runs)[2], size_t n)
{
	vkl_tls *t;
	cap_rec *rec;
	uint64_t total = 0, blob_id, *pieces;
	uint8_t *out;
	if (!n || !cap_active())
		return 0;
	t = vkl_rec_tls();
	for (size_t k = 0; k < n; k++)
		total += runs[k][1];
	/* the runs' bytes go straight into the capture buffer, gathered; each
	 * run is a piece of the blob, so its pages are keyed as the blob of
	 * a tsMemoryWrite of that run would be, and deduplicate as well */
	out = cap_blob_begin((size_t)total, n, &rec);
	if (!out)
		return 0;
	for (size_t k = 0; k < n; k++) {
		memcpy(out, src + (runs[k][0] - base), (size_t)runs[k][1]);
		out += runs[k][1];
	}
	pieces = cap_blob_pieces(rec, (size_t)total);
	for (size_t k = 0; k < n; k++)
		pieces[k] = runs[k][1];
	blob_id = cap_blob_commit(rec, (size_t)total, n);
	t->result.len = 0;
	if (sbt_vk_ts_memory_writes_encode(&t->result, memory, blob_id, runs, n) != SBT_VK_OK)
		return 0;
	/* no CAP_REC_WORK, as for tsMemoryWrite */
	return cap_record(SBT_VK_TYPE_TS_MEMORY_WRITES, 0, t->result.data, t->result.len);
}

uint64_t vkl_emit_memory_writes_room(uint64_t memory, cap_rec *rec, const uint8_t *room,
                                     const uint64_t (*runs)[2], size_t n)
{
	vkl_tls *t = vkl_rec_tls();
	uint64_t total = 0, blob_id, *pieces;
	(void)room; /* filled by the caller */
	for (size_t k = 0; k < n; k++)
		total += runs[k][1];
	pieces = cap_blob_pieces(rec, (size_t)total);
	if (!pieces) {
		cap_blob_cancel(rec);
		return 0;
	}
	for (size_t k = 0; k < n; k++)
		pieces[k] = runs[k][1];
	blob_id = cap_blob_commit(rec, (size_t)total, n);
	t->result.len = 0;
	if (!blob_id ||
	    sbt_vk_ts_memory_writes_encode(&t->result, memory, blob_id, runs, n) != SBT_VK_OK)
		return 0;
	return cap_record(SBT_VK_TYPE_TS_MEMORY_WRITES, 0, t->result.data, t->result.len);
}

uint64_t vkl_emit_query_results(uint64_t pool, uint32_t first, uint32_t count, uint32_t flags,
                                uint32_t stride, const void *bytes)
{
	vkl_tls *t;
	sbt_vk_ts_query_results q;
	sbt_vk_status st;
	if (!cap_active())
		return 0;
	t = vkl_rec_tls();
	q.pool = pool;
	q.first = first;
	q.count = count;
	q.flags = flags;
	q.stride = stride;
	q.bytes = bytes;
	q.len = (size_t)count * stride;
	t->result.len = 0;
	st = sbt_vk_ts_query_results_encode(&t->result, &q);
	if (st != SBT_VK_OK) {
		CAP_WARN("Vulkan: %s of VkQueryPool 0x%llx not recorded: %s",
		         SBT_VK_TS_QUERY_RESULTS_NAME, (unsigned long long)pool, sbt_vk_strerror(st));
		return 0;
	}
	return cap_record(SBT_VK_TYPE_TS_QUERY_RESULTS, 0, t->result.data, t->result.len);
}
