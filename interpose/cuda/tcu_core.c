/*
 * tcu_core.c - finding the real driver, handing out our wrappers on every
 * path (link-time symbols, dlsym on a driver handle, cuGetProcAddress),
 * counting calls, and the exit report.
 *
 * The driver is TRACESMITH_CUDA_DRIVER (a path) or "libcuda.so.1" as the
 * dynamic loader finds it.  Without one, every entry point says so once and
 * returns CUDA_ERROR_NOT_INITIALIZED.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

tcu_state tcu_g = {
	.once = PTHREAD_ONCE_INIT,
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.kf_mu = PTHREAD_MUTEX_INITIALIZER,
	.va_mu = PTHREAD_MUTEX_INITIALIZER,
	.launch_gate = TCU_GATE_LOUD, /* until tcu_launch_quiet holds */
};

typedef void *(*tcu_dlsym_fn)(void *, const char *);

/* The real dlsym, found without dlsym; resolved on first use. */
static tcu_dlsym_fn _Atomic tcu_real_dlsym_ptr;
/* This thread is inside tcu_init (a driver constructor may call dlsym).
 * Initial-exec, as the capture runtime's thread-locals are: dlsym reads it
 * for every name, also while a sanitizer runtime starts, and the default
 * model's __tls_get_addr is one the sanitizer intercepts and has not set
 * up yet then (make asan: every program under tscapture died at start). */
static __thread int tcu_tls_in_init __attribute__((tls_model("initial-exec")));

_Static_assert(sizeof(sbt_cm_type_desc) == sizeof(cap_type_desc) &&
                   offsetof(sbt_cm_type_desc, name) == offsetof(cap_type_desc, name),
               "sbt_cm_type_desc is laid out like cap_type_desc");

/*
 * Sanitizer runtimes look up their own interceptions with dlsym while they
 * start, before their shadow state exists; in a sanitizer build our dlsym
 * and the path it takes for those names must therefore be uninstrumented
 * (an instrumented load there faults).  No effect on a normal build.
 */
#define TCU_EARLY __attribute__((no_sanitize_address, no_sanitize_thread))

TCU_EARLY __attribute__((visibility("hidden"))) tcu_dlsym_fn tcu_real_dlsym(void);
TCU_EARLY tcu_dlsym_fn tcu_real_dlsym(void)
{
	tcu_dlsym_fn f = atomic_load_explicit(&tcu_real_dlsym_ptr, memory_order_acquire);
	if (!f) {
		f = (tcu_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!f)
			f = (tcu_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
		atomic_store_explicit(&tcu_real_dlsym_ptr, f, memory_order_release);
	}
	return f;
}

/* The dlsym after this library in lookup order (another preloaded
 * interposer's, the HIP one's in LD_PRELOAD="libtracesmith_cuda.so
 * libtracesmith_hip.so"), else the C library's; never this library's own
 * (RTLD_NEXT from here starts after it), so passing a lookup on cannot
 * come back here. */
static tcu_dlsym_fn _Atomic tcu_next_dlsym_ptr;

TCU_EARLY static tcu_dlsym_fn tcu_next_dlsym(void)
{
	tcu_dlsym_fn f = atomic_load_explicit(&tcu_next_dlsym_ptr, memory_order_acquire);
	tcu_dlsym_fn libc;
	if (!f && (libc = tcu_real_dlsym())) {
		f = (tcu_dlsym_fn)libc(RTLD_NEXT, "dlsym");
		if (!f)
			f = libc;
		atomic_store_explicit(&tcu_next_dlsym_ptr, f, memory_order_release);
	}
	return f;
}

int tcu_fn_find(const char *name)
{
	size_t lo = 0, hi = TCU_FN_COUNT;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(tcu_fn_table[mid].name, name);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void tcu_report(void);

static void tcu_init_once(void)
{
	const char *env = getenv(TCU_ENV_DRIVER);
	tcu_dlsym_fn real_dlsym = tcu_real_dlsym();
	size_t ntypes = 0;
	const sbt_cm_type_desc *types = sbt_cm_types(&ntypes);
	Dl_info self, other;

	tcu_tls_in_init = 1;
	tcu_g.driver_name = env && env[0] ? env : TCU_DEFAULT_DRIVER;
	cap_register_api(SBT_CM_API_CUDA, (const cap_type_desc *)types, ntypes);
	cap_on_shutdown(tcu_report);
	cap_shutdown_at_fini(); /* the runtime's teardown runs at exit: record it */
	tcu_live_init(); /* capture windows: what their snapshots recreate */
	if (!real_dlsym) {
		snprintf(tcu_g.driver_error, sizeof(tcu_g.driver_error),
		         "cannot find the C library's dlsym");
		goto out;
	}
	tcu_g.driver = dlopen(tcu_g.driver_name, RTLD_NOW | RTLD_LOCAL);
	if (!tcu_g.driver) {
		const char *e = dlerror();
		snprintf(tcu_g.driver_error, sizeof(tcu_g.driver_error), "cannot load %s%s: %s",
		         tcu_g.driver_name, env && env[0] ? " (" TCU_ENV_DRIVER ")" : "",
		         e ? e : "unknown error");
		goto out;
	}
	for (int i = 0; i < TCU_FN_COUNT; i++)
		atomic_store(&tcu_g.real[i], real_dlsym(tcu_g.driver, tcu_fn_table[i].name));
	/* A driver path that names this library would make every call loop. */
	if (atomic_load(&tcu_g.real[TCU_FN_cuInit]) &&
	    dladdr((void *)tcu_init, &self) && dladdr(atomic_load(&tcu_g.real[TCU_FN_cuInit]), &other) &&
	    self.dli_fbase == other.dli_fbase) {
		snprintf(tcu_g.driver_error, sizeof(tcu_g.driver_error),
		         "%s is the TraceSmith interposer itself, not a CUDA driver", tcu_g.driver_name);
		for (int i = 0; i < TCU_FN_COUNT; i++)
			atomic_store(&tcu_g.real[i], NULL);
		tcu_g.driver = NULL;
		goto out;
	}
	cap_set_meta("cuda.driver", tcu_g.driver_name);
out:
	tcu_tls_in_init = 0;
}

void tcu_init(void)
{
	/* Every wrapped call comes here: once set up, skip pthread_once. */
	if (atomic_load_explicit(&tcu_g.ready, memory_order_acquire))
		return;
	pthread_once(&tcu_g.once, tcu_init_once);
	atomic_store_explicit(&tcu_g.ready, 1, memory_order_release);
}

void *tcu_call_begin(tcu_fn id)
{
	tcu_init();
	if (!cap_enter())
		tcu_count_call(id);
	return atomic_load_explicit(&tcu_g.real[id], memory_order_acquire);
}

/* ---- per-thread counters (tcu_internal.h) --------------------------------- */

__thread __attribute__((tls_model("initial-exec"))) tcu_counts *tcu_tls_counts;
static _Atomic(tcu_counts *) tcu_counts_list;

tcu_counts *tcu_counts_new(void)
{
	tcu_counts *c = calloc(1, sizeof(*c));
	tcu_counts *old;
	if (!c)
		return NULL;
	old = atomic_load(&tcu_counts_list);
	do {
		c->next = old;
	} while (!atomic_compare_exchange_weak(&tcu_counts_list, &old, c));
	tcu_tls_counts = c;
	return c;
}

uint64_t tcu_calls_total(tcu_fn id)
{
	uint64_t n = atomic_load(&tcu_g.calls[id]);
	for (tcu_counts *c = atomic_load(&tcu_counts_list); c; c = c->next)
		n += atomic_load_explicit(&c->calls[id], memory_order_relaxed);
	return n;
}

uint64_t tcu_launches_total(void)
{
	uint64_t n = atomic_load(&tcu_g.launches);
	for (tcu_counts *c = atomic_load(&tcu_counts_list); c; c = c->next)
		n += atomic_load_explicit(&c->launches, memory_order_relaxed);
	return n;
}

CUresult tcu_no_driver(tcu_fn id)
{
	if (atomic_exchange(&tcu_g.no_driver_warned, 1) == 0) {
		if (tcu_g.driver_error[0])
			CAP_ERROR("cuda: %s; CUDA calls return CUDA_ERROR_NOT_INITIALIZED (set %s to the "
			          "driver's path)",
			          tcu_g.driver_error, TCU_ENV_DRIVER);
		else
			CAP_ERROR("cuda: the driver %s has no %s; it returns CUDA_ERROR_NOT_INITIALIZED",
			          tcu_g.driver_name, tcu_fn_table[id].name);
	}
	return tcu_g.driver ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NOT_INITIALIZED;
}

void *tcu_own(tcu_fn id)
{
	void *f = atomic_load_explicit(&tcu_g.real[id], memory_order_acquire);
	if (f)
		atomic_fetch_add_explicit(&tcu_g.own[id], 1, memory_order_relaxed);
	return f;
}

uint64_t tcu_emit(sbt_cm_kind kind, tcu_fn id, sbt_cm_call *c, unsigned flags)
{
	cap_rec *rec;
	uint8_t *p;
	size_t max, n = 0;
	if (tcu_fn_table[id].flags & TCU_FNF_PTDS)
		c->ptds = 1;
	max = sbt_cm_encoded_max(c);
	p = cap_record_begin(SBT_CM_TYPE(kind), flags, max, &rec);
	if (!p)
		return 0;
	if (sbt_cm_encode(c, p, max, &n) != SBT_OK) {
		CAP_ERROR("cuda: cannot encode a %s record", sbt_cm_kind_name(kind));
		n = 0;
	}
	return cap_record_commit(rec, n);
}

/* ---- handing out wrappers ------------------------------------------------ */

static void tcu_note_unwrapped(const char *symbol)
{
	pthread_mutex_lock(&tcu_g.mu);
	for (size_t i = 0; i < tcu_g.nunwrapped; i++)
		if (strcmp(tcu_g.unwrapped[i], symbol) == 0)
			goto out_unlock;
	if (tcu_g.nunwrapped < TCU_MAX_UNWRAPPED) {
		char *s = strdup(symbol);
		if (s)
			tcu_g.unwrapped[tcu_g.nunwrapped++] = s;
	}
out_unlock:
	pthread_mutex_unlock(&tcu_g.mu);
}

/* First index in tcu_fn_by_base whose base is >= symbol. */
static size_t tcu_base_lower(const char *symbol)
{
	size_t lo = 0, hi = TCU_FN_COUNT;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(tcu_fn_table[tcu_fn_by_base[mid]].base, symbol) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The driver answered `fn` for `symbol`: find which exported variant that
 * is (the one whose export has the same address) and hand out our wrapper
 * of it.  A driver may answer with a function it does not export; then the
 * variant is the one cudaTypedefs.h says this version and stream mode
 * name, and the driver's answer fills its slot if the export is missing.
 */
void *tcu_wrap_procaddr(const char *symbol, void *fn, int cuda_version, cuuint64_t flags)
{
	size_t i = tcu_base_lower(symbol);
	int want_pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
	const tcu_fn_version *best = NULL;
	for (size_t k = i; k < TCU_FN_COUNT && strcmp(tcu_fn_table[tcu_fn_by_base[k]].base, symbol) == 0;
	     k++) {
		uint16_t id = tcu_fn_by_base[k];
		if (atomic_load(&tcu_g.real[id]) == fn || tcu_fn_table[id].wrapper == fn)
			return tcu_fn_table[id].wrapper;
	}
	for (size_t k = 0; k < TCU_FN_VERSION_COUNT; k++) {
		const tcu_fn_version *v = &tcu_fn_versions[k];
		if (strcmp(v->base, symbol) != 0 || v->version > (uint32_t)cuda_version)
			continue;
		if (v->per_thread && !want_pt)
			continue;
		if (!best || v->version > best->version ||
		    (v->version == best->version && v->per_thread == want_pt))
			best = v;
	}
	if (!best) {
		tcu_note_unwrapped(symbol);
		return fn;
	}
	{
		void *expected = NULL;
		atomic_compare_exchange_strong(&tcu_g.real[best->fn], &expected, fn);
	}
	atomic_fetch_add(&tcu_g.procaddr_fallbacks, 1);
	return tcu_fn_table[best->fn].wrapper;
}

/*
 * dlsym(RTLD_NEXT, name) means "the next definition after the CALLER's
 * object", and the real dlsym finds its caller from its return address.
 * Other preloaded tools and the sanitizer runtimes chain through
 * RTLD_NEXT behind us; if the real dlsym saw us as the caller they would be
 * handed their own definition back and recurse.  So on x86-64 our dlsym is
 * a few instructions that, for RTLD_NEXT, jump straight into the real dlsym
 * with the caller's return address still on the stack (exact glibc
 * semantics, and nothing that may not run while a sanitizer runtime is
 * still starting); every other handle goes to tcu_dlsym_any.  A cu* name
 * looked up through RTLD_NEXT is therefore not wrapped.  Elsewhere the
 * lookup after the caller's object is redone here in link-map order.
 */
TCU_EARLY __attribute__((visibility("hidden"))) void *tcu_dlsym_any(void *handle,
                                                                  const char *name);

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "	cmpq $-1, %rdi\n"            /* RTLD_NEXT */
        "	jne tcu_dlsym_any\n"
        "	pushq %rdi\n"
        "	pushq %rsi\n"
        "	subq $8, %rsp\n"              /* keep the call 16-byte aligned */
        "	call tcu_real_dlsym\n"
        "	addq $8, %rsp\n"
        "	popq %rsi\n"
        "	popq %rdi\n"
        "	testq %rax, %rax\n"
        "	jz 1f\n"
        "	jmp *%rax\n"                  /* the real dlsym, as if called by our caller */
        "1:	ret\n"
        ".size dlsym, .-dlsym\n");
#else
TCU_EARLY static void *tcu_dlsym_next(tcu_dlsym_fn real, const void *caller, const char *name)
{
	struct link_map *lm = NULL, *l;
	Dl_info info;
	if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return real(RTLD_DEFAULT, name);
	for (l = lm->l_next; l; l = l->l_next) {
		struct link_map *def = NULL;
		void *h, *sym;
		/* A handle for an object already loaded (none for the vDSO). */
		h = dlopen(l->l_name && l->l_name[0] ? l->l_name : NULL, RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		sym = real(h, name);
		dlclose(h);
		/* dlsym on a handle also searches its dependencies: take only a
		 * definition in l itself. */
		if (sym && dladdr1(sym, &info, (void **)&def, RTLD_DL_LINKMAP) && def == l)
			return sym;
	}
	return NULL;
}

__attribute__((visibility("default"))) void *dlsym(void *handle, const char *name)
{
	if (handle == RTLD_NEXT) {
		tcu_dlsym_fn real = tcu_real_dlsym();
		return real ? tcu_dlsym_next(real, __builtin_return_address(0), name) : NULL;
	}
	return tcu_dlsym_any(handle, name);
}
#endif

/*
 * dlsym on a handle: a driver entry point found on it becomes our wrapper.
 * A name this library does not hand out is passed on to the next dlsym in
 * the chain, so an interposer preloaded after this one still sees the
 * program's lookups (the HIP one hands out its hip* wrappers); inside
 * tcu_init every lookup stays the C library's, as before.
 */
TCU_EARLY void *tcu_dlsym_any(void *handle, const char *name)
{
	tcu_dlsym_fn real = tcu_real_dlsym();
	tcu_dlsym_fn next;
	void *r;
	int id = -1;
	if (!real)
		return NULL;
	if (name && name[0] == 'c' && name[1] == 'u' && !tcu_tls_in_init)
		id = tcu_fn_find(name);
	if (id < 0 && !tcu_tls_in_init && (next = tcu_next_dlsym()) != NULL)
		return next(handle, name);
	r = real(handle, name);
	if (!r || id < 0 || r == tcu_fn_table[id].wrapper)
		return r;
	tcu_init();
	if (r == atomic_load(&tcu_g.real[id]))
		return tcu_fn_table[id].wrapper;
	return r;
}

CUresult tcu_m_cuGetProcAddress_v2(tcu_fn id, const char *symbol, void **pfn, int ver,
                                   cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	void *real = tcu_call_begin(id);
	CUresult r;
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = ((tcu_pfn_cuGetProcAddress_v2)real)(symbol, pfn, ver, flags, status);
	if (r == CUDA_SUCCESS && symbol && pfn && *pfn)
		*pfn = tcu_wrap_procaddr(symbol, *pfn, ver, flags);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGetProcAddress(tcu_fn id, const char *symbol, void **pfn, int ver,
                                cuuint64_t flags)
{
	void *real = tcu_call_begin(id);
	CUresult r;
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = ((tcu_pfn_cuGetProcAddress)real)(symbol, pfn, ver, flags);
	if (r == CUDA_SUCCESS && symbol && pfn && *pfn)
		*pfn = tcu_wrap_procaddr(symbol, *pfn, ver, flags);
out:
	tcu_call_end();
	return r;
}

/* Private tables of function pointers: passed through, their ids kept for
 * the report (calls through them are not seen). */
CUresult tcu_m_cuGetExportTable(tcu_fn id, const void **table, const CUuuid *uuid)
{
	void *real = tcu_call_begin(id);
	CUresult r;
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = ((tcu_pfn_cuGetExportTable)real)(table, uuid);
	if (uuid) {
		size_t i;
		pthread_mutex_lock(&tcu_g.mu);
		for (i = 0; i < tcu_g.nexport_tables; i++)
			if (memcmp(&tcu_g.export_tables[i], uuid, sizeof(*uuid)) == 0)
				break;
		if (i == tcu_g.nexport_tables && i < TCU_MAX_EXPORT_TABLES)
			tcu_g.export_tables[tcu_g.nexport_tables++] = *uuid;
		pthread_mutex_unlock(&tcu_g.mu);
	}
out:
	tcu_call_end();
	return r;
}

/* ---- exit report ---------------------------------------------------------- */

/* Appends "name=count" items to a comma list, flushing full lines to the
 * log and keeping the whole list for the trace's metadata. */
typedef struct tcu_list {
	const char *title;
	char line[900];
	size_t line_len;
	char *all;
	size_t all_len, all_cap;
} tcu_list;

static void tcu_list_flush(tcu_list *l)
{
	if (l->line_len)
		CAP_INFO("cuda: %s: %s", l->title, l->line);
	l->line_len = 0;
	l->line[0] = 0;
}

static void tcu_list_add(tcu_list *l, const char *item)
{
	size_t n = strlen(item);
	if (l->line_len && l->line_len + n + 2 >= sizeof(l->line))
		tcu_list_flush(l);
	l->line_len += (size_t)snprintf(l->line + l->line_len, sizeof(l->line) - l->line_len, "%s%s",
	                                l->line_len ? " " : "", item);
	if (l->all_len + n + 2 > l->all_cap) {
		size_t cap = (l->all_cap + n + 2) * 2;
		char *p = realloc(l->all, cap);
		if (!p)
			return;
		l->all = p;
		l->all_cap = cap;
	}
	l->all_len += (size_t)sprintf(l->all + l->all_len, "%s%s", l->all_len ? "," : "", item);
}

static void tcu_list_done(tcu_list *l, const char *meta_key)
{
	tcu_list_flush(l);
	if (l->all)
		cap_set_meta(meta_key, l->all);
	free(l->all);
	l->all = NULL;
}

static void tcu_uuid_text(const CUuuid *u, char out[37])
{
	const unsigned char *b = (const unsigned char *)u->bytes;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
	         b[13], b[14], b[15]);
}

static void tcu_report(void)
{
	tcu_list seen = {.title = "calls seen"}, unmod = {.title = "not modeled (counted only)"};
	tcu_list own = {.title = "calls made by the recorder itself"};
	tcu_list tables = {.title = "cuGetExportTable tables asked for (calls through them are not seen)"};
	tcu_list unwr = {.title = "cuGetProcAddress symbols handed out unwrapped"};
	uint64_t total = 0, nunmod = 0;
	size_t nunmod_names = 0;
	char item[128];

	/* What the program never synchronized (windowed: what it did not
	 * synchronize inside a window, which is no fault of the program's). */
	if (tcu_windowed())
		tcu_pending_forget();
	else
		tcu_pending_drop_all();
	for (int i = 0; i < TCU_FN_COUNT; i++) {
		uint64_t n = tcu_calls_total((tcu_fn)i);
		uint64_t o = atomic_load(&tcu_g.own[i]);
		if (o) {
			snprintf(item, sizeof(item), "%s=%" PRIu64, tcu_fn_table[i].name, o);
			tcu_list_add(&own, item);
		}
		if (!n)
			continue;
		total += n;
		snprintf(item, sizeof(item), "%s=%" PRIu64, tcu_fn_table[i].name, n);
		tcu_list_add(&seen, item);
		if (!(tcu_fn_table[i].flags & TCU_FNF_MODELED)) {
			nunmod += n;
			nunmod_names++;
			tcu_list_add(&unmod, item);
		}
	}
	pthread_mutex_lock(&tcu_g.mu);
	for (size_t i = 0; i < tcu_g.nexport_tables; i++) {
		tcu_uuid_text(&tcu_g.export_tables[i], item);
		tcu_list_add(&tables, item);
	}
	for (size_t i = 0; i < tcu_g.nunwrapped; i++)
		tcu_list_add(&unwr, tcu_g.unwrapped[i]);
	pthread_mutex_unlock(&tcu_g.mu);
	if (total) {
		char extra[256];
		size_t n = 0;
		uint64_t missing = atomic_load(&tcu_g.images_missing);
		uint64_t unplaced = atomic_load(&tcu_g.va.unplaced);
		const char *path = cap_output_path();
		extra[0] = 0;
		if (missing)
			n += (size_t)snprintf(extra + n, sizeof(extra) - n,
			                      ", %" PRIu64 " module%s without image", missing,
			                      missing == 1 ? "" : "s");
		if (atomic_load(&tcu_g.va_kept) && n < sizeof(extra))
			n += (size_t)snprintf(extra + n, sizeof(extra) - n,
			                      ", %" PRIu64 " stream-ordered frees in a capture kept until exit",
			                      atomic_load(&tcu_g.va_kept));
		if (unplaced && n < sizeof(extra))
			n += (size_t)snprintf(extra + n, sizeof(extra) - n,
			                      ", %" PRIu64 " managed allocation%s at driver addresses",
			                      unplaced, unplaced == 1 ? "" : "s");
		if (tcu_g.host_snapshots && n < sizeof(extra))
			n += (size_t)snprintf(extra + n, sizeof(extra) - n,
			                      ", %" PRIu64 " snapshots of pinned host memory kernels read",
			                      tcu_g.host_snapshots);
		pthread_mutex_lock(&tcu_g.mu);
		if (tcu_g.ngraphs_partial && n < sizeof(extra))
			n += (size_t)snprintf(extra + n, sizeof(extra) - n,
			                      ", %" PRIu64 " graph%s or exec%s changed by calls not modeled",
			                      tcu_g.ngraphs_partial, tcu_g.ngraphs_partial == 1 ? "" : "s",
			                      tcu_g.ngraphs_partial == 1 ? "" : "s");
		pthread_mutex_unlock(&tcu_g.mu);
		if (nunmod && n < sizeof(extra))
			n += (size_t)snprintf(extra + n, sizeof(extra) - n,
			                      ", %" PRIu64 " to %zu entry points not modeled "
			                      "(TRACESMITH_LOG=info names them)",
			                      nunmod, nunmod_names);
		cap_report("cuda: %" PRIu64 " calls, %" PRIu64 " launches, %" PRIu64 " keyframes%s%s%s",
		           total, tcu_launches_total(), tcu_g.keyframes, extra,
		           path ? "; trace " : "", path ? path : "");
	}
	tcu_list_done(&seen, "cuda.calls");
	tcu_list_done(&unmod, "cuda.unmodeled");
	tcu_list_done(&own, "cuda.own_calls");
	tcu_list_done(&tables, "cuda.export_tables");
	tcu_list_done(&unwr, "cuda.unwrapped");
	if (tcu_g.dropped_pending)
		CAP_WARN("cuda: %" PRIu64 " async device-to-host copies were never synchronized by the "
		         "program: no checkpoint for them",
		         tcu_g.dropped_pending);
	if (atomic_load(&tcu_g.procaddr_fallbacks))
		CAP_INFO("cuda: %" PRIu64 " cuGetProcAddress answers matched no export and were "
		         "wrapped by version",
		         atomic_load(&tcu_g.procaddr_fallbacks));
}
