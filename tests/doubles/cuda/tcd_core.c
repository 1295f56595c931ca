/*
 * tcd_core.c - the double's state, configuration, call counters, handle
 * registry, errors, devices and contexts.
 *
 * Configuration (read once, when the library is loaded):
 *   TSCUDA_DOUBLE_DEVICES=1|2     how many fake devices (default 1)
 *   TSCUDA_DOUBLE_SEED=N          seeded mode: unordered work runs in an order
 *                                 drawn from N (see tcd_sched.c)
 *   TSCUDA_DOUBLE_ADDR_SEED=N     device addresses drawn from N instead of
 *                                 from getrandom (so they repeat across runs)
 *   TSCUDA_DOUBLE_RESERVE=measured|honour|refuse|fail
 *                                 cuMemAddressReserve with a fixed address:
 *                                 placed as the real driver was measured to
 *                                 place it (default; the rules and the facts
 *                                 they encode are in tcd_mem.c), placed there
 *                                 whenever free, the hint always ignored
 *                                 (another address, as the driver documents
 *                                 for a hint it cannot honour), or
 *                                 CUDA_ERROR_INVALID_VALUE
 *   TSCUDA_DOUBLE_STATS=FILE      "name count" per exported entry point that
 *                                 was called, then "bytes_dtoh N" and
 *                                 "bytes_htod N" (bytes copies moved each
 *                                 way), and "prelinked_fatbins N" (of
 *                                 version 2 wrappers loaded), written at
 *                                 exit (or unload)
 *   TSCUDA_DOUBLE_QUIET=1         do not explain rejected calls on stderr
 *   TSCUDA_DOUBLE_RACY=1          the program races on device memory on
 *                                 purpose (tests of race finders): under
 *                                 ThreadSanitizer the stream workers' runs
 *                                 of kernels, copies and memsets are hidden
 *                                 from it (tcd_sched.c); nothing otherwise
 * A malformed value is an error: the double says which and exits 2.
 */
#include "tests/doubles/cuda/tcd.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

struct tcd_state tcd_g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.devices = 1,
	.reserve = TCD_RESERVE_MEASURED,
};

#define TCD_DEVICE_MEMORY ((size_t)16 << 30)
#define TCD_CTX_STACK 8

/* The calling thread's context stack (cuCtxPush/Pop; SetCurrent replaces the top). */
static __thread struct tcd_ctx *tcd_tls_ctx[TCD_CTX_STACK];
static __thread unsigned tcd_tls_ctx_depth;

#define TCD_NAME_STR(sym) #sym,
static const char *const tcd_fn_names[TCD_FN_COUNT] = { TCD_EXPORTS(TCD_NAME_STR) };
#undef TCD_NAME_STR

void tcd_config_die(const char *var, const char *value, const char *want)
{
	fprintf(stderr, "libcuda test double: %s must be %s, got '%s'\n", var, want, value);
	exit(2);
}

static bool tcd_config_u64(const char *var, uint64_t *out)
{
	const char *v = getenv(var);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return false;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || *end || *v == '-')
		tcd_config_die(var, v, "a non-negative number");
	*out = n;
	return true;
}

static uint64_t tcd_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t tcd_rng_next(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ull;
	return tcd_mix(*state);
}

/* TSCUDA_DOUBLE_RACY: ThreadSanitizer's dynamic annotations, when its
 * runtime is in the process (looked up, as tcd_mem.c does: the double is
 * built with or without it); all four or none. */
static void tcd_racy_config(void)
{
	static const char *const names[4] = {"AnnotateIgnoreReadsBegin", "AnnotateIgnoreWritesBegin",
					     "AnnotateIgnoreWritesEnd", "AnnotateIgnoreReadsEnd"};
	void (*f[4])(const char *, int);

	if (!dlsym(RTLD_DEFAULT, "__tsan_init"))
		return;
	for (int i = 0; i < 4; i++)
		if (!(f[i] = (void (*)(const char *, int))dlsym(RTLD_DEFAULT, names[i])))
			return;
	memcpy(tcd_g.racy_hide, f, sizeof(f));
}

__attribute__((constructor)) static void tcd_config_load(void)
{
	uint64_t n;
	const char *v;

	if (tcd_config_u64("TSCUDA_DOUBLE_DEVICES", &n)) {
		if (n < 1 || n > 2)
			tcd_config_die("TSCUDA_DOUBLE_DEVICES", getenv("TSCUDA_DOUBLE_DEVICES"), "1 or 2");
		tcd_g.devices = (int)n;
	}
	if (tcd_config_u64("TSCUDA_DOUBLE_SEED", &n)) {
		tcd_g.seeded = true;
		tcd_g.sched_rng = tcd_mix(n);
	}
	if (tcd_config_u64("TSCUDA_DOUBLE_ADDR_SEED", &n)) {
		tcd_g.addr_rng = tcd_mix(n ^ 0xadd7e55ull);
	} else if (getrandom(&tcd_g.addr_rng, sizeof(tcd_g.addr_rng), 0) != sizeof(tcd_g.addr_rng)) {
		tcd_g.addr_rng = tcd_mix((uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&n);
	}
	v = getenv("TSCUDA_DOUBLE_RESERVE");
	if (v && *v) {
		if (!strcmp(v, "measured"))
			tcd_g.reserve = TCD_RESERVE_MEASURED;
		else if (!strcmp(v, "honour") || !strcmp(v, "honor"))
			tcd_g.reserve = TCD_RESERVE_HONOUR;
		else if (!strcmp(v, "refuse"))
			tcd_g.reserve = TCD_RESERVE_REFUSE;
		else if (!strcmp(v, "fail"))
			tcd_g.reserve = TCD_RESERVE_FAIL;
		else
			tcd_config_die("TSCUDA_DOUBLE_RESERVE", v, "measured, honour, refuse or fail");
	}
	v = getenv("TSCUDA_DOUBLE_STATS");
	if (v && *v)
		tcd_g.stats_path = strdup(v);
	v = getenv("TSCUDA_DOUBLE_QUIET");
	tcd_g.quiet = v && *v && strcmp(v, "0");
	v = getenv("TSCUDA_DOUBLE_RACY");
	if (v && *v && strcmp(v, "0"))
		tcd_racy_config();
}

/* Stats are written by a destructor so that they cover the whole process,
 * however it ends up calling exit; sorted by name for easy diffing. */
static int tcd_stats_cmp(const void *a, const void *b)
{
	return strcmp(tcd_fn_names[*(const int *)a], tcd_fn_names[*(const int *)b]);
}

__attribute__((destructor)) static void tcd_stats_write(void)
{
	int order[TCD_FN_COUNT];
	FILE *f;

	if (!tcd_g.stats_path)
		return;
	for (int i = 0; i < TCD_FN_COUNT; i++)
		order[i] = i;
	qsort(order, TCD_FN_COUNT, sizeof(order[0]), tcd_stats_cmp);
	f = fopen(tcd_g.stats_path, "w");
	if (!f) {
		fprintf(stderr, "libcuda test double: cannot write TSCUDA_DOUBLE_STATS file %s: %s\n",
			tcd_g.stats_path, strerror(errno));
		return;
	}
	/* Before the names, so the file stays sorted: "bytes_" < "cu". */
	fprintf(f, "bytes_dtoh %llu\nbytes_htod %llu\n", atomic_load(&tcd_g.bytes_dtoh),
		atomic_load(&tcd_g.bytes_htod));
	for (int i = 0; i < TCD_FN_COUNT; i++) {
		unsigned long c = atomic_load(&tcd_g.counts[order[i]]);
		if (c)
			fprintf(f, "%s %lu\n", tcd_fn_names[order[i]], c);
	}
	/* After the names: "prelinked_" > "cu". */
	fprintf(f, "prelinked_fatbins %llu\n", atomic_load(&tcd_g.prelinked_fatbins));
	if (fclose(f))
		fprintf(stderr, "libcuda test double: error writing %s: %s\n", tcd_g.stats_path, strerror(errno));
}

void tcd_count(enum tcd_fn fn)
{
	atomic_fetch_add_explicit(&tcd_g.counts[fn], 1, memory_order_relaxed);
}

bool tcd_initialized(void)
{
	return atomic_load_explicit(&tcd_g.initialized, memory_order_acquire) != 0;
}

uint64_t tcd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- errors ---- */

#define TCD_ERRORS(X) \
	X(CUDA_SUCCESS, "no error") \
	X(CUDA_ERROR_INVALID_VALUE, "an argument is out of range or null") \
	X(CUDA_ERROR_OUT_OF_MEMORY, "not enough (test double) device memory") \
	X(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called") \
	X(CUDA_ERROR_DEINITIALIZED, "the driver is shutting down") \
	X(CUDA_ERROR_PROFILER_DISABLED, NULL) \
	X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, NULL) \
	X(CUDA_ERROR_PROFILER_ALREADY_STARTED, NULL) \
	X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, NULL) \
	X(CUDA_ERROR_STUB_LIBRARY, NULL) \
	X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, NULL) \
	X(CUDA_ERROR_DEVICE_UNAVAILABLE, NULL) \
	X(CUDA_ERROR_NO_DEVICE, "no device") \
	X(CUDA_ERROR_INVALID_DEVICE, "no such device ordinal") \
	X(CUDA_ERROR_DEVICE_NOT_LICENSED, NULL) \
	X(CUDA_ERROR_INVALID_IMAGE, "the image is not a module of the test double") \
	X(CUDA_ERROR_INVALID_CONTEXT, "no valid current context") \
	X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, NULL) \
	X(CUDA_ERROR_MAP_FAILED, NULL) \
	X(CUDA_ERROR_UNMAP_FAILED, NULL) \
	X(CUDA_ERROR_ARRAY_IS_MAPPED, NULL) \
	X(CUDA_ERROR_ALREADY_MAPPED, "the range is already mapped") \
	X(CUDA_ERROR_NO_BINARY_FOR_GPU, NULL) \
	X(CUDA_ERROR_ALREADY_ACQUIRED, NULL) \
	X(CUDA_ERROR_NOT_MAPPED, "the range is not mapped") \
	X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, NULL) \
	X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, NULL) \
	X(CUDA_ERROR_ECC_UNCORRECTABLE, NULL) \
	X(CUDA_ERROR_UNSUPPORTED_LIMIT, NULL) \
	X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, NULL) \
	X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, NULL) \
	X(CUDA_ERROR_INVALID_PTX, NULL) \
	X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, NULL) \
	X(CUDA_ERROR_NVLINK_UNCORRECTABLE, NULL) \
	X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, NULL) \
	X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, NULL) \
	X(CUDA_ERROR_JIT_COMPILATION_DISABLED, NULL) \
	X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, NULL) \
	X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, NULL) \
	X(CUDA_ERROR_CONTAINED, NULL) \
	X(CUDA_ERROR_INVALID_SOURCE, NULL) \
	X(CUDA_ERROR_FILE_NOT_FOUND, "the module file cannot be read") \
	X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, NULL) \
	X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, NULL) \
	X(CUDA_ERROR_OPERATING_SYSTEM, NULL) \
	X(CUDA_ERROR_INVALID_HANDLE, "the handle is unknown or destroyed") \
	X(CUDA_ERROR_ILLEGAL_STATE, "the object is in the wrong state for this call") \
	X(CUDA_ERROR_LOSSY_QUERY, NULL) \
	X(CUDA_ERROR_NOT_FOUND, "no such name") \
	X(CUDA_ERROR_NOT_READY, "work is still pending") \
	X(CUDA_ERROR_ILLEGAL_ADDRESS, "an address outside every allocation") \
	X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "the launch asks for more than a block can have") \
	X(CUDA_ERROR_LAUNCH_TIMEOUT, NULL) \
	X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, NULL) \
	X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, NULL) \
	X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, NULL) \
	X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, NULL) \
	X(CUDA_ERROR_CONTEXT_IS_DESTROYED, "the context was destroyed") \
	X(CUDA_ERROR_ASSERT, NULL) \
	X(CUDA_ERROR_TOO_MANY_PEERS, NULL) \
	X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, NULL) \
	X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, NULL) \
	X(CUDA_ERROR_HARDWARE_STACK_ERROR, NULL) \
	X(CUDA_ERROR_ILLEGAL_INSTRUCTION, NULL) \
	X(CUDA_ERROR_MISALIGNED_ADDRESS, NULL) \
	X(CUDA_ERROR_INVALID_ADDRESS_SPACE, NULL) \
	X(CUDA_ERROR_INVALID_PC, NULL) \
	X(CUDA_ERROR_LAUNCH_FAILED, NULL) \
	X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "the cooperative grid does not fit on the device") \
	X(CUDA_ERROR_TENSOR_MEMORY_LEAK, NULL) \
	X(CUDA_ERROR_NOT_PERMITTED, "the operation is not permitted") \
	X(CUDA_ERROR_NOT_SUPPORTED, "not supported by the test double") \
	X(CUDA_ERROR_SYSTEM_NOT_READY, NULL) \
	X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, NULL) \
	X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, NULL) \
	X(CUDA_ERROR_MPS_CONNECTION_FAILED, NULL) \
	X(CUDA_ERROR_MPS_RPC_FAILURE, NULL) \
	X(CUDA_ERROR_MPS_SERVER_NOT_READY, NULL) \
	X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, NULL) \
	X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, NULL) \
	X(CUDA_ERROR_MPS_CLIENT_TERMINATED, NULL) \
	X(CUDA_ERROR_CDP_NOT_SUPPORTED, NULL) \
	X(CUDA_ERROR_CDP_VERSION_MISMATCH, NULL) \
	X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "not allowed while a stream is being captured") \
	X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated by an earlier error") \
	X(CUDA_ERROR_STREAM_CAPTURE_MERGE, NULL) \
	X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "the stream is not capturing") \
	X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, NULL) \
	X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, NULL) \
	X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "the legacy stream would join a capture") \
	X(CUDA_ERROR_CAPTURED_EVENT, NULL) \
	X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, NULL) \
	X(CUDA_ERROR_TIMEOUT, NULL) \
	X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, NULL) \
	X(CUDA_ERROR_EXTERNAL_DEVICE, NULL) \
	X(CUDA_ERROR_INVALID_CLUSTER_SIZE, NULL) \
	X(CUDA_ERROR_FUNCTION_NOT_LOADED, NULL) \
	X(CUDA_ERROR_INVALID_RESOURCE_TYPE, NULL) \
	X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, NULL) \
	X(CUDA_ERROR_KEY_ROTATION, NULL) \
	X(CUDA_ERROR_UNKNOWN, "unknown error") \
	/* end of TCD_ERRORS */

struct tcd_error_row {
	CUresult code;
	const char *name;
	const char *text;
};

#define TCD_ERROR_ROW(code, text) { code, #code, text },
static const struct tcd_error_row tcd_errors[] = { TCD_ERRORS(TCD_ERROR_ROW) };
#undef TCD_ERROR_ROW

static const struct tcd_error_row *tcd_error_find(CUresult r)
{
	for (size_t i = 0; i < sizeof(tcd_errors) / sizeof(tcd_errors[0]); i++)
		if (tcd_errors[i].code == r)
			return &tcd_errors[i];
	return NULL;
}

const char *tcd_error_name(CUresult r)
{
	const struct tcd_error_row *e = tcd_error_find(r);

	return e ? e->name : "an unknown CUresult";
}

CUresult tcd_fail(CUresult r, const char *call, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	if (tcd_g.quiet)
		return r;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "libcuda test double: %s: %s (%s)\n", call, msg, tcd_error_name(r));
	return r;
}

void tcd_warn(const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "libcuda test double: %s\n", msg);
}

TCD_API(CUresult, cuGetErrorName)(CUresult error, const char **pStr)
{
	const struct tcd_error_row *e;

	TCD_ENTER(cuGetErrorName);
	if (!pStr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGetErrorName", "pStr is NULL");
	e = tcd_error_find(error);
	*pStr = e ? e->name : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
TCD_EXPORT(cuGetErrorName)

TCD_API(CUresult, cuGetErrorString)(CUresult error, const char **pStr)
{
	const struct tcd_error_row *e;

	TCD_ENTER(cuGetErrorString);
	if (!pStr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGetErrorString", "pStr is NULL");
	e = tcd_error_find(error);
	*pStr = e ? (e->text ? e->text : "no description in the test double") : NULL;
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
TCD_EXPORT(cuGetErrorString)

/* ---- handle registry: an open-addressing set of every object pointer ---- */

static size_t tcd_handle_slot(void *const *tab, size_t cap, const void *p)
{
	size_t i = (size_t)tcd_mix((uint64_t)(uintptr_t)p) & (cap - 1);

	while (tab[i] && tab[i] != p)
		i = (i + 1) & (cap - 1);
	return i;
}

static void tcd_handle_insert_locked(void *p)
{
	if ((tcd_g.handle_count + 1) * 2 > tcd_g.handle_cap) {
		size_t cap = tcd_g.handle_cap ? tcd_g.handle_cap * 2 : 256;
		void **tab = calloc(cap, sizeof(*tab));

		if (!tab) {
			tcd_warn("out of host memory for the handle table");
			abort();
		}
		for (size_t i = 0; i < tcd_g.handle_cap; i++)
			if (tcd_g.handles[i])
				tab[tcd_handle_slot(tab, cap, tcd_g.handles[i])] = tcd_g.handles[i];
		free(tcd_g.handles);
		tcd_g.handles = tab;
		tcd_g.handle_cap = cap;
	}
	tcd_g.handles[tcd_handle_slot(tcd_g.handles, tcd_g.handle_cap, p)] = p;
	tcd_g.handle_count++;
}

static bool tcd_handle_known_locked(const void *p)
{
	return tcd_g.handle_cap && tcd_g.handles[tcd_handle_slot(tcd_g.handles, tcd_g.handle_cap, p)] == p;
}

void *tcd_obj_new(size_t bytes, enum tcd_kind kind)
{
	struct tcd_obj *o = calloc(1, bytes);

	if (!o)
		return NULL;
	o->magic = TCD_MAGIC_LIVE;
	o->kind = kind;
	pthread_mutex_lock(&tcd_g.lock);
	tcd_handle_insert_locked(o);
	pthread_mutex_unlock(&tcd_g.lock);
	return o;
}

void tcd_obj_kill(void *obj)
{
	((struct tcd_obj *)obj)->magic = TCD_MAGIC_DEAD;
}

static const char *const tcd_kind_names[] = {
	[TCD_KIND_CTX] = "context", [TCD_KIND_STREAM] = "stream", [TCD_KIND_EVENT] = "event",
	[TCD_KIND_MODULE] = "module", [TCD_KIND_FUNCTION] = "function", [TCD_KIND_LIBRARY] = "library",
	[TCD_KIND_KERNEL] = "kernel", [TCD_KIND_GRAPH] = "graph", [TCD_KIND_GRAPH_EXEC] = "graph exec",
	[TCD_KIND_MEMHANDLE] = "allocation handle", [TCD_KIND_ARRAY] = "array",
	[TCD_KIND_GRAPH_NODE] = "graph node",
};

/* A live object of that kind, checked without a word on stderr. */
bool tcd_obj_is_locked(const void *handle, enum tcd_kind kind)
{
	const struct tcd_obj *o = handle;

	return handle && tcd_handle_known_locked(handle) && o->kind == kind && o->magic == TCD_MAGIC_LIVE;
}

CUresult tcd_obj_get_locked(const void *handle, enum tcd_kind kind, const char *call, const char *what, void *out)
{
	const struct tcd_obj *o = handle;

	if (!handle)
		return tcd_fail(CUDA_ERROR_INVALID_HANDLE, call, "%s is NULL", what);
	if (!tcd_handle_known_locked(handle))
		return tcd_fail(CUDA_ERROR_INVALID_HANDLE, call, "%s %p is not a handle the double made", what, handle);
	if (o->kind != kind)
		return tcd_fail(CUDA_ERROR_INVALID_HANDLE, call, "%s %p is a %s, not a %s", what, handle,
				tcd_kind_names[o->kind], tcd_kind_names[kind]);
	if (o->magic != TCD_MAGIC_LIVE)
		return tcd_fail(kind == TCD_KIND_CTX ? CUDA_ERROR_INVALID_CONTEXT : CUDA_ERROR_INVALID_HANDLE, call,
				"%s %p was destroyed", what, handle);
	*(const void **)out = handle;
	return CUDA_SUCCESS;
}

CUresult tcd_obj_get(const void *handle, enum tcd_kind kind, const char *call, const char *what, void *out)
{
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(handle, kind, call, what, out);
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

/* ---- init, version ---- */

static pthread_once_t tcd_init_once = PTHREAD_ONCE_INIT;
static CUresult tcd_init_result = CUDA_ERROR_UNKNOWN;

static struct tcd_ctx *tcd_ctx_make(int device, bool primary, unsigned flags)
{
	struct tcd_ctx *c = tcd_obj_new(sizeof(*c), TCD_KIND_CTX);

	if (!c)
		return NULL;
	c->device = device;
	c->primary = primary;
	c->flags = flags;
	c->legacy = tcd_stream_new(c, TCD_STREAM_LEGACY, 0, 0);
	if (!c->legacy) {
		tcd_obj_kill(c);
		return NULL;
	}
	return c;
}

static void tcd_init_run(void)
{
	for (int d = 0; d < tcd_g.devices; d++) {
		tcd_g.primary[d] = tcd_ctx_make(d, true, 0);
		if (!tcd_g.primary[d]) {
			tcd_init_result = CUDA_ERROR_OUT_OF_MEMORY;
			return;
		}
	}
	tcd_init_result = CUDA_SUCCESS;
	atomic_store_explicit(&tcd_g.initialized, 1, memory_order_release);
}

TCD_API(CUresult, cuInit)(unsigned int Flags)
{
	TCD_ENTER(cuInit);
	if (Flags != 0)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuInit", "Flags must be 0, got %u", Flags);
	pthread_once(&tcd_init_once, tcd_init_run);
	if (tcd_init_result != CUDA_SUCCESS)
		return tcd_fail(tcd_init_result, "cuInit", "could not create the primary contexts");
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuInit)

TCD_API(CUresult, cuDriverGetVersion)(int *driverVersion)
{
	TCD_ENTER(cuDriverGetVersion);
	if (!driverVersion)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDriverGetVersion", "driverVersion is NULL");
	*driverVersion = CUDA_VERSION;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDriverGetVersion)

/* ---- devices ---- */

static CUresult tcd_device_check(CUdevice dev, const char *call)
{
	if (dev < 0 || dev >= tcd_g.devices)
		return tcd_fail(CUDA_ERROR_INVALID_DEVICE, call, "device %d does not exist (the double has %d)", dev,
				tcd_g.devices);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuDeviceGet)(CUdevice *device, int ordinal)
{
	TCD_ENTER_INIT(cuDeviceGet);
	if (!device)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGet", "device is NULL");
	if (tcd_device_check(ordinal, "cuDeviceGet") != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDeviceGet)

TCD_API(CUresult, cuDeviceGetCount)(int *count)
{
	TCD_ENTER_INIT(cuDeviceGetCount);
	if (!count)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetCount", "count is NULL");
	*count = tcd_g.devices;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDeviceGetCount)

TCD_API(CUresult, cuDeviceGetName)(char *name, int len, CUdevice dev)
{
	TCD_ENTER_INIT(cuDeviceGetName);
	if (!name || len <= 0)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetName", "name is NULL or len %d <= 0", len);
	if (tcd_device_check(dev, "cuDeviceGetName") != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	snprintf(name, (size_t)len, "TraceSmith libcuda test double %d", dev);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDeviceGetName)

static int tcd_attribute(CUdevice_attribute a)
{
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 0x7fffffff;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 48 * 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 48 * 1024;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 8;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
	case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 2;
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
	default: return 0;
	}
}

TCD_API(CUresult, cuDeviceGetAttribute)(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	TCD_ENTER_INIT(cuDeviceGetAttribute);
	if (!pi)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetAttribute", "pi is NULL");
	if (tcd_device_check(dev, "cuDeviceGetAttribute") != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	if ((int)attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceGetAttribute", "attribute %d is out of range",
				(int)attrib);
	*pi = tcd_attribute(attrib);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDeviceGetAttribute)

TCD_API(CUresult, cuDeviceTotalMem)(unsigned int *bytes, CUdevice dev)
{
	TCD_ENTER_INIT(cuDeviceTotalMem);
	if (!bytes)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceTotalMem", "bytes is NULL");
	if (tcd_device_check(dev, "cuDeviceTotalMem") != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	*bytes = 0xffffffffu; /* the legacy ABI cannot say 16 GiB */
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDeviceTotalMem)

TCD_API(CUresult, cuDeviceTotalMem_v2)(size_t *bytes, CUdevice dev)
{
	TCD_ENTER_INIT(cuDeviceTotalMem_v2);
	if (!bytes)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDeviceTotalMem_v2", "bytes is NULL");
	if (tcd_device_check(dev, "cuDeviceTotalMem_v2") != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	*bytes = TCD_DEVICE_MEMORY;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDeviceTotalMem_v2)

static CUresult tcd_uuid(CUuuid *uuid, CUdevice dev, const char *call)
{
	if (!uuid)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "uuid is NULL");
	if (tcd_device_check(dev, call) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	memset(uuid, 0, sizeof(*uuid));
	memcpy(uuid->bytes, "tsmith-double-", 14);
	uuid->bytes[15] = (char)('0' + dev);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuDeviceGetUuid)(CUuuid *uuid, CUdevice dev)
{
	TCD_ENTER_INIT(cuDeviceGetUuid);
	return tcd_uuid(uuid, dev, "cuDeviceGetUuid");
}
TCD_EXPORT(cuDeviceGetUuid)

TCD_API(CUresult, cuDeviceGetUuid_v2)(CUuuid *uuid, CUdevice dev)
{
	TCD_ENTER_INIT(cuDeviceGetUuid_v2);
	return tcd_uuid(uuid, dev, "cuDeviceGetUuid_v2");
}
TCD_EXPORT(cuDeviceGetUuid_v2)

/* ---- contexts ---- */

struct tcd_ctx *tcd_ctx_current(void)
{
	return tcd_tls_ctx_depth ? tcd_tls_ctx[tcd_tls_ctx_depth - 1] : NULL;
}

CUresult tcd_ctx_require(const char *call, struct tcd_ctx **out)
{
	struct tcd_ctx *c = tcd_ctx_current();

	if (!c)
		return tcd_fail(CUDA_ERROR_INVALID_CONTEXT, call, "no context is current on this thread");
	if (c->h.magic != TCD_MAGIC_LIVE)
		return tcd_fail(CUDA_ERROR_INVALID_CONTEXT, call, "the current context %p was destroyed", (void *)c);
	*out = c;
	return tcd_ctx_sticky(c, call);
}

static void tcd_ctx_set_top(struct tcd_ctx *c)
{
	if (!tcd_tls_ctx_depth) {
		if (c)
			tcd_tls_ctx[tcd_tls_ctx_depth++] = c;
		return;
	}
	if (c)
		tcd_tls_ctx[tcd_tls_ctx_depth - 1] = c;
	else
		tcd_tls_ctx_depth--;
}

/* The body of cuDevicePrimaryCtxRetain, shared with the side door
 * (tcd_procaddr.c), which must not go through any exported symbol. */
CUresult tcd_primary_retain(CUcontext *pctx, CUdevice dev, const char *call)
{
	if (!tcd_initialized())
		return tcd_fail(CUDA_ERROR_NOT_INITIALIZED, call, "cuInit has not been called");
	if (!pctx)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pctx is NULL");
	if (tcd_device_check(dev, call) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&tcd_g.lock);
	tcd_g.primary[dev]->retains++;
	pthread_mutex_unlock(&tcd_g.lock);
	*pctx = (CUcontext)tcd_g.primary[dev];
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuDevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev)
{
	TCD_ENTER_INIT(cuDevicePrimaryCtxRetain);
	return tcd_primary_retain(pctx, dev, "cuDevicePrimaryCtxRetain");
}
TCD_EXPORT(cuDevicePrimaryCtxRetain)

static CUresult tcd_primary_release(CUdevice dev, const char *call)
{
	CUresult r = CUDA_SUCCESS;

	if (tcd_device_check(dev, call) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&tcd_g.lock);
	if (tcd_g.primary[dev]->retains == 0)
		r = CUDA_ERROR_INVALID_CONTEXT;
	else
		tcd_g.primary[dev]->retains--;
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS)
		return tcd_fail(r, call, "the primary context of device %d is not retained", dev);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuDevicePrimaryCtxRelease)(CUdevice dev)
{
	TCD_ENTER_INIT(cuDevicePrimaryCtxRelease);
	return tcd_primary_release(dev, "cuDevicePrimaryCtxRelease");
}
TCD_EXPORT(cuDevicePrimaryCtxRelease)

TCD_API(CUresult, cuDevicePrimaryCtxRelease_v2)(CUdevice dev)
{
	TCD_ENTER_INIT(cuDevicePrimaryCtxRelease_v2);
	return tcd_primary_release(dev, "cuDevicePrimaryCtxRelease_v2");
}
TCD_EXPORT(cuDevicePrimaryCtxRelease_v2)

TCD_API(CUresult, cuDevicePrimaryCtxGetState)(CUdevice dev, unsigned int *flags, int *active)
{
	TCD_ENTER_INIT(cuDevicePrimaryCtxGetState);
	if (!flags || !active)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuDevicePrimaryCtxGetState", "flags or active is NULL");
	if (tcd_device_check(dev, "cuDevicePrimaryCtxGetState") != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&tcd_g.lock);
	*flags = tcd_g.primary[dev]->flags;
	*active = tcd_g.primary[dev]->retains > 0;
	pthread_mutex_unlock(&tcd_g.lock);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDevicePrimaryCtxGetState)

static CUresult tcd_ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev, const char *call)
{
	struct tcd_ctx *c;

	if (!pctx)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pctx is NULL");
	if (tcd_device_check(dev, call) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_DEVICE;
	if (flags & ~0xffu)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "unknown flags 0x%x", flags);
	c = tcd_ctx_make(dev, false, flags);
	if (!c)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	if (tcd_tls_ctx_depth == TCD_CTX_STACK)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "the context stack is full (%d)", TCD_CTX_STACK);
	tcd_tls_ctx[tcd_tls_ctx_depth++] = c;
	*pctx = (CUcontext)c;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuCtxCreate)(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	TCD_ENTER_INIT(cuCtxCreate);
	return tcd_ctx_create(pctx, flags, dev, "cuCtxCreate");
}
TCD_EXPORT(cuCtxCreate)

TCD_API(CUresult, cuCtxCreate_v2)(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	TCD_ENTER_INIT(cuCtxCreate_v2);
	return tcd_ctx_create(pctx, flags, dev, "cuCtxCreate_v2");
}
TCD_EXPORT(cuCtxCreate_v2)

TCD_API(CUresult, cuCtxCreate_v4)(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
				  CUdevice dev)
{
	TCD_ENTER_INIT(cuCtxCreate_v4);
	if (ctxCreateParams && (ctxCreateParams->execAffinityParams || ctxCreateParams->cigParams))
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, "cuCtxCreate_v4",
				"execution affinity and CIG parameters are not supported by the double");
	return tcd_ctx_create(pctx, flags, dev, "cuCtxCreate_v4");
}
TCD_EXPORT(cuCtxCreate_v4)

static CUresult tcd_ctx_destroy(CUcontext ctx, const char *call)
{
	struct tcd_ctx *c;
	CUresult r = tcd_obj_get(ctx, TCD_KIND_CTX, call, "ctx", &c);

	if (r != CUDA_SUCCESS)
		return r;
	if (c->primary)
		return tcd_fail(CUDA_ERROR_INVALID_CONTEXT, call,
				"%p is a primary context: release it with cuDevicePrimaryCtxRelease", (void *)c);
	r = tcd_sync_ctx(c, call);
	tcd_obj_kill(c);
	for (unsigned i = 0; i < tcd_tls_ctx_depth; i++)
		if (tcd_tls_ctx[i] == c) {
			memmove(&tcd_tls_ctx[i], &tcd_tls_ctx[i + 1], (tcd_tls_ctx_depth - i - 1) * sizeof(c));
			tcd_tls_ctx_depth--;
			i--;
		}
	return r;
}

TCD_API(CUresult, cuCtxDestroy)(CUcontext ctx)
{
	TCD_ENTER_INIT(cuCtxDestroy);
	return tcd_ctx_destroy(ctx, "cuCtxDestroy");
}
TCD_EXPORT(cuCtxDestroy)

TCD_API(CUresult, cuCtxDestroy_v2)(CUcontext ctx)
{
	TCD_ENTER_INIT(cuCtxDestroy_v2);
	return tcd_ctx_destroy(ctx, "cuCtxDestroy_v2");
}
TCD_EXPORT(cuCtxDestroy_v2)

TCD_API(CUresult, cuCtxSetCurrent)(CUcontext ctx)
{
	struct tcd_ctx *c = NULL;

	TCD_ENTER_INIT(cuCtxSetCurrent);
	if (ctx && tcd_obj_get(ctx, TCD_KIND_CTX, "cuCtxSetCurrent", "ctx", &c) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	tcd_ctx_set_top(c);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuCtxSetCurrent)

TCD_API(CUresult, cuCtxGetCurrent)(CUcontext *pctx)
{
	TCD_ENTER_INIT(cuCtxGetCurrent);
	if (!pctx)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuCtxGetCurrent", "pctx is NULL");
	*pctx = (CUcontext)tcd_ctx_current();
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuCtxGetCurrent)

TCD_API(CUresult, cuCtxGetDevice)(CUdevice *device)
{
	struct tcd_ctx *c;
	CUresult r;

	TCD_ENTER_INIT(cuCtxGetDevice);
	if (!device)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuCtxGetDevice", "device is NULL");
	r = tcd_ctx_require("cuCtxGetDevice", &c);
	if (r == CUDA_SUCCESS)
		*device = c->device;
	return r;
}
TCD_EXPORT(cuCtxGetDevice)

TCD_API(CUresult, cuCtxSynchronize)(void)
{
	struct tcd_ctx *c;
	CUresult r;

	TCD_ENTER_INIT(cuCtxSynchronize);
	r = tcd_ctx_require("cuCtxSynchronize", &c);
	if (r != CUDA_SUCCESS)
		return r;
	if (tcd_capture_active_global())
		return tcd_fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuCtxSynchronize",
				"a stream is being captured in global or thread-local mode");
	return tcd_sync_ctx(c, "cuCtxSynchronize");
}
TCD_EXPORT(cuCtxSynchronize)

/*
 * The profiler's markers (cudaProfiler.h): no profiler is attached to the
 * double, so they only check what the driver documents (CUDA_SUCCESS, or
 * CUDA_ERROR_INVALID_CONTEXT without a current context) and return
 * CUDA_SUCCESS, as the real driver does when no profiler is attached.
 * TSCUDA_DOUBLE_STATS counts them, so a test can see they reached the
 * driver.
 */
TCD_API(CUresult, cuProfilerStart)(void)
{
	struct tcd_ctx *c;
	TCD_ENTER_INIT(cuProfilerStart);
	return tcd_ctx_require("cuProfilerStart", &c);
}
TCD_EXPORT(cuProfilerStart)

TCD_API(CUresult, cuProfilerStop)(void)
{
	struct tcd_ctx *c;
	TCD_ENTER_INIT(cuProfilerStop);
	return tcd_ctx_require("cuProfilerStop", &c);
}
TCD_EXPORT(cuProfilerStop)

static CUresult tcd_ctx_push(CUcontext ctx, const char *call)
{
	struct tcd_ctx *c;
	CUresult r = tcd_obj_get(ctx, TCD_KIND_CTX, call, "ctx", &c);

	if (r != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (tcd_tls_ctx_depth == TCD_CTX_STACK)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "the context stack is full (%d)", TCD_CTX_STACK);
	tcd_tls_ctx[tcd_tls_ctx_depth++] = c;
	return CUDA_SUCCESS;
}

static CUresult tcd_ctx_pop(CUcontext *pctx, const char *call)
{
	if (!tcd_tls_ctx_depth)
		return tcd_fail(CUDA_ERROR_INVALID_CONTEXT, call, "the context stack is empty");
	tcd_tls_ctx_depth--;
	if (pctx)
		*pctx = (CUcontext)tcd_tls_ctx[tcd_tls_ctx_depth];
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuCtxPushCurrent)(CUcontext ctx)
{
	TCD_ENTER_INIT(cuCtxPushCurrent);
	return tcd_ctx_push(ctx, "cuCtxPushCurrent");
}
TCD_EXPORT(cuCtxPushCurrent)

TCD_API(CUresult, cuCtxPushCurrent_v2)(CUcontext ctx)
{
	TCD_ENTER_INIT(cuCtxPushCurrent_v2);
	return tcd_ctx_push(ctx, "cuCtxPushCurrent_v2");
}
TCD_EXPORT(cuCtxPushCurrent_v2)

TCD_API(CUresult, cuCtxPopCurrent)(CUcontext *pctx)
{
	TCD_ENTER_INIT(cuCtxPopCurrent);
	return tcd_ctx_pop(pctx, "cuCtxPopCurrent");
}
TCD_EXPORT(cuCtxPopCurrent)

TCD_API(CUresult, cuCtxPopCurrent_v2)(CUcontext *pctx)
{
	TCD_ENTER_INIT(cuCtxPopCurrent_v2);
	return tcd_ctx_pop(pctx, "cuCtxPopCurrent_v2");
}
TCD_EXPORT(cuCtxPopCurrent_v2)
