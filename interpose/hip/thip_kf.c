/*
 * thip_kf.c - keyframes of HIP capture: the bytes of live device memory
 * at a launch, as the records CUDA's keyframes are (serializer/
 * sbt_compute.h: a `keyframe` marker, then hip.tsSnapshot records), so
 * that replay restores them to start a --range there and compares them
 * with its own memory mid-replay (replayer/hip/rphip_snapshot.c).
 *
 * The policy is the capture runtime's TRACESMITH_SNAPSHOT (docs/cuda.md
 * "Keyframes"), taken as CUDA takes it:
 *   - at the program's first launch, a start keyframe: with the default
 *     policy partial (flags SBT_CM_KF_PARTIAL), holding only what replay
 *     cannot rebuild from the recorded calls (allocations made while not
 *     recording, managed memory the CPU writes directly), and written only
 *     when it holds something; full under the other policies;
 *   - launch: a full keyframe before and after every launch;
 *   - N: a full keyframe after every N-th launch.
 * A full keyframe holds every live device allocation (hipMalloc, Pitch,
 * Async, FromPoolAsync, Managed), module global (hipModuleGetGlobal) and
 * __device__ variable of a registered fat binary (its host shadow as the
 * address, read with hipMemcpyFromSymbol), in chunks of at most
 * THIP_KF_CHUNK bytes, each one tsSnapshot record with its bytes as a blob
 * (cap_blob_pages: pages the file holds already cost a hash), or value = 1
 * and no blob when they were all zero; a chunk the runtime could not read
 * has its error as result and a note.  A full keyframe holds every live
 * HIP array as well (thip_kf_array: rows read with hipMemcpy3D, records of
 * sub SBT_CM_MEM_ARRAY) and says so (flags SBT_CM_KF_ARRAYS).
 *
 * The copies go through the runtime: hipDeviceSynchronize first (every
 * stream's work issued before the launch is in the keyframe, so its bytes
 * do not depend on timing; replay waits for all its work before comparing
 * too), then a synchronous hipMemcpy (hipMemcpyFromSymbol) per chunk into
 * one reusable host buffer.  While a stream capture is going on no
 * keyframe is taken (synchronizing would end it; the launch is not run
 * then anyway when its stream captures).  Keyframes never interleave
 * (thip_kf_g.mu).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

#define THIP_KF_CHUNK (32u << 20)

static struct {
	pthread_mutex_t mu;           /* one keyframe at a time; guards buf */
	atomic_int start_taken;
	atomic_uint_fast64_t launches; /* launch ordinals handed out */
	atomic_uint_fast64_t keyframes;
	uint8_t *buf;                 /* THIP_KF_CHUNK bytes, made at the first keyframe */
} thip_kf_g = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int thip_kf_all_zero(const uint8_t *p, size_t n)
{
	static const uint8_t zero[4096];
	while (n >= sizeof(zero)) {
		if (memcmp(p, zero, sizeof(zero)) != 0)
			return 0;
		p += sizeof(zero);
		n -= sizeof(zero);
	}
	return memcmp(p, zero, n) == 0;
}

typedef hipError_t (*thip_kf_copy_fn)(void *, const void *, size_t, hipMemcpyKind);
typedef hipError_t (*thip_kf_from_symbol_fn)(void *, const void *, size_t, size_t, hipMemcpyKind);

/* Copy n bytes at off of m into the staging buffer. */
static hipError_t thip_kf_read(const thip_live *m, uint64_t off, size_t n)
{
	thip_kf_from_symbol_fn from;
	thip_kf_copy_fn copy;
	if (m->symbol) {
		from = (thip_kf_from_symbol_fn)thip_own(THIP_FN_hipMemcpyFromSymbol);
		return from ? from(thip_kf_g.buf, (const void *)(uintptr_t)m->addr, n, (size_t)off,
		                   hipMemcpyDeviceToHost)
		            : THIP_NO_RUNTIME;
	}
	copy = (thip_kf_copy_fn)thip_own(THIP_FN_hipMemcpy);
	return copy ? copy(thip_kf_g.buf, (const void *)(uintptr_t)(m->addr + off), n,
	                   hipMemcpyDeviceToHost)
	            : THIP_NO_RUNTIME;
}

static void thip_kf_chunk(const thip_live *m, uint64_t off, size_t n)
{
	static const char why[] = "could not be read";
	hipError_t r = thip_kf_read(m, off, n);
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = m->addr + off;
	c.size = n;
	c.sub = m->kind;
	if (r != hipSuccess) {
		c.result = (uint64_t)r;
		c.note = (const uint8_t *)why;
		c.note_len = sizeof(why) - 1;
	} else if (thip_kf_all_zero(thip_kf_g.buf, n)) {
		c.value = 1;
	} else {
		c.blob = cap_blob_pages(thip_kf_g.buf, n);
	}
	thip_record(SBT_CM_HIP_tsSnapshot, &c, 0);
}

/* Rows [y, y + rows) of slice z of array a into the staging buffer
 * (hipMemcpy3D: the array side's position and the extent in elements). */
static hipError_t thip_kf_read_rows(const thip_array_live *a, uint64_t y, uint64_t z, uint64_t rows)
{
	hipError_t (*copy3d)(const struct hipMemcpy3DParms *) =
		(hipError_t(*)(const struct hipMemcpy3DParms *))thip_own(THIP_FN_hipMemcpy3D);
	struct hipMemcpy3DParms p;

	if (!copy3d)
		return THIP_NO_RUNTIME;
	memset(&p, 0, sizeof(p));
	p.srcArray = (hipArray *)(uintptr_t)a->handle;
	p.srcPos = make_hipPos((size_t)0, (size_t)y, (size_t)z);
	p.dstPtr = make_hipPitchedPtr(thip_kf_g.buf, (size_t)(a->info.width * a->info.elem),
	                              (size_t)a->info.width, (size_t)rows);
	p.extent = make_hipExtent((size_t)a->info.width, (size_t)rows, 1);
	p.kind = hipMemcpyDeviceToHost;
	return copy3d(&p);
}

/* A full keyframe's records of array a: per slice, runs of whole rows of
 * at most THIP_KF_CHUNK bytes (at least one row), each one tsSnapshot
 * record (sub SBT_CM_MEM_ARRAY: handle, dst_y = first row, dst_z = slice,
 * height = rows, width = row bytes). */
static uint64_t thip_kf_array_rows(const thip_array_live *a)
{
	uint64_t row = a->info.width * a->info.elem;
	return row && row <= THIP_KF_CHUNK ? THIP_KF_CHUNK / row : 0;
}

static uint64_t thip_kf_array_chunks(const thip_array_live *a)
{
	uint64_t per = thip_kf_array_rows(a), rows = a->info.height ? a->info.height : 1;
	uint64_t slices = a->info.depth ? a->info.depth : 1;
	return per ? slices * ((rows + per - 1) / per) : 0;
}

static void thip_kf_array(const thip_array_live *a)
{
	static const char why[] = "could not be read";
	uint64_t per = thip_kf_array_rows(a), rows = a->info.height ? a->info.height : 1;
	uint64_t slices = a->info.depth ? a->info.depth : 1, row = a->info.width * a->info.elem;

	for (uint64_t z = 0; per && z < slices; z++)
		for (uint64_t y = 0; y < rows; y += per) {
			uint64_t n = rows - y < per ? rows - y : per;
			hipError_t r = thip_kf_read_rows(a, y, z, n);
			sbt_cm_call c;
			sbt_cm_call_init(&c);
			c.sub = SBT_CM_MEM_ARRAY;
			c.handle = a->handle;
			c.dst_y = y;
			c.dst_z = z;
			c.height = n;
			c.width = row;
			c.size = n * row;
			if (r != hipSuccess) {
				c.result = (uint64_t)r;
				c.note = (const uint8_t *)why;
				c.note_len = sizeof(why) - 1;
			} else if (thip_kf_all_zero(thip_kf_g.buf, (size_t)c.size)) {
				c.value = 1;
			} else {
				c.blob = cap_blob_pages(thip_kf_g.buf, (size_t)c.size);
			}
			thip_record(SBT_CM_HIP_tsSnapshot, &c, 0);
		}
}

/* What a keyframe holds of m (thip_kf.c's comment). */
static int thip_kf_wants(const thip_live *m, int partial)
{
	if (!m->size)
		return 0;
	return !partial || !m->recorded || m->kind == SBT_CM_MEM_MANAGED;
}

static void thip_keyframe(unsigned why, uint64_t ordinal, hipStream_t stream, int partial)
{
	hipError_t (*sync)(void) = (hipError_t(*)(void))thip_own(THIP_FN_hipDeviceSynchronize);
	thip_live *live = NULL;
	thip_array_live *arrays = NULL;
	size_t n, kept = 0, narrays = 0;
	uint64_t chunks = 0;
	int all_arrays = 0;
	sbt_cm_call kf;
	uint8_t payload[256];
	size_t len = 0;

	pthread_mutex_lock(&thip_kf_g.mu);
	n = thip_live_list(&live);
	if (!live) {
		CAP_ERROR("hip: out of memory: keyframe skipped");
		goto out_unlock;
	}
	for (size_t i = 0; i < n; i++)
		if (thip_kf_wants(&live[i], partial)) {
			live[kept++] = live[i];
			chunks += (live[i].size + THIP_KF_CHUNK - 1) / THIP_KF_CHUNK;
		}
	/* A full keyframe holds every live array too (SBT_CM_KF_ARRAYS); one
	 * whose element size is not known is left out, and then the flag is. */
	if (!partial) {
		narrays = thip_array_list(&arrays);
		all_arrays = 1;
		for (size_t i = 0; i < narrays; i++) {
			uint64_t k = thip_kf_array_chunks(&arrays[i]);
			chunks += k;
			all_arrays &= k != 0;
		}
	}
	/* A partial keyframe with nothing in it says nothing. */
	if (partial && !kept)
		goto out_free;
	if ((kept || narrays) && !thip_kf_g.buf && !(thip_kf_g.buf = malloc(THIP_KF_CHUNK))) {
		CAP_ERROR("hip: out of memory: keyframe skipped");
		goto out_free;
	}
	if (sync)
		sync(); /* an error is the program's: the next call that waits returns it */
	sbt_cm_call_init(&kf);
	kf.count = chunks;
	kf.sub = why;
	kf.value = ordinal;
	kf.stream = (uint64_t)(uintptr_t)stream;
	kf.flags = partial ? SBT_CM_KF_PARTIAL : all_arrays ? SBT_CM_KF_ARRAYS : 0;
	if (sbt_cm_encode(&kf, payload, sizeof(payload), &len) != SBT_OK)
		goto out_free;
	cap_keyframe_begin(payload, len);
	for (size_t i = 0; i < kept; i++)
		for (uint64_t off = 0; off < live[i].size; off += THIP_KF_CHUNK) {
			uint64_t left = live[i].size - off;
			thip_kf_chunk(&live[i], off, left < THIP_KF_CHUNK ? (size_t)left : THIP_KF_CHUNK);
		}
	for (size_t i = 0; i < narrays; i++)
		thip_kf_array(&arrays[i]);
	atomic_fetch_add(&thip_kf_g.keyframes, 1);
out_free:
	free(arrays);
	free(live);
out_unlock:
	pthread_mutex_unlock(&thip_kf_g.mu);
}

uint64_t thip_kf_before(hipStream_t stream, int capturing)
{
	const cap_config *cfg = cap_config_get();
	uint64_t ordinal = atomic_fetch_add(&thip_kf_g.launches, 1) + 1;
	if (capturing)
		return ordinal;
	if (!atomic_load_explicit(&thip_kf_g.start_taken, memory_order_relaxed) &&
	    atomic_exchange(&thip_kf_g.start_taken, 1) == 0)
		thip_keyframe(SBT_CM_KF_START, ordinal, stream, cfg->snapshot == CAP_SNAPSHOT_NONE);
	else if (cfg->snapshot == CAP_SNAPSHOT_LAUNCH)
		thip_keyframe(SBT_CM_KF_BEFORE_LAUNCH, ordinal, stream, 0);
	return ordinal;
}

void thip_kf_after(uint64_t ordinal, hipStream_t stream, int capturing)
{
	const cap_config *cfg = cap_config_get();
	if (capturing)
		return;
	if (cfg->snapshot == CAP_SNAPSHOT_LAUNCH)
		thip_keyframe(SBT_CM_KF_AFTER_LAUNCH, ordinal, stream, 0);
	else if (cfg->snapshot == CAP_SNAPSHOT_EVERY && cfg->snapshot_every &&
	         ordinal % cfg->snapshot_every == 0)
		thip_keyframe(SBT_CM_KF_EVERY, ordinal, stream, 0);
}

uint64_t thip_kf_count(void)
{
	return atomic_load(&thip_kf_g.keyframes);
}
