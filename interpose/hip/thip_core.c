/*
 * thip_core.c - finding the real HIP runtime's functions, the per-call
 * bookkeeping (reentrancy, counting, whether to record), recording a
 * model record, and the exit report.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

static struct {
	pthread_once_t once;
	int enabled;                         /* TRACESMITH_API lets hip record */
	void *_Atomic real[THIP_FN_COUNT];   /* resolved at first call */
	atomic_int resolved[THIP_FN_COUNT];  /* 1: looked up (real may be NULL) */
	atomic_uint_fast64_t calls[THIP_FN_COUNT];
	/* the same for the generated trampolines (thip_tramp.S) */
	void *_Atomic gen_real[THIP_GEN_COUNT];
	atomic_int gen_resolved[THIP_GEN_COUNT];
	atomic_uint_fast64_t gen_calls[THIP_GEN_COUNT];
	atomic_uint_fast64_t launches;
	atomic_uint_fast64_t modules;
	atomic_uint_fast64_t no_image;
	atomic_int missing_said;
} thip_g = {.once = PTHREAD_ONCE_INIT};

static const char *const thip_fn_names[THIP_FN_COUNT] = {
#define THIP_X_NAME(n, m) #n,
	THIP_FN_LIST(THIP_X_NAME)
#undef THIP_X_NAME
};

static const unsigned char thip_fn_modeled[THIP_FN_COUNT] = {
#define THIP_X_MODELED(n, m) m,
	THIP_FN_LIST(THIP_X_MODELED)
#undef THIP_X_MODELED
};

_Static_assert(sizeof(sbt_cm_type_desc) == sizeof(cap_type_desc) &&
                   offsetof(sbt_cm_type_desc, name) == offsetof(cap_type_desc, name),
               "sbt_cm_type_desc is laid out like cap_type_desc");

const char *thip_fn_name(thip_fn id)
{
	if (id == THIP_FN_hipExtModuleLaunchKernel_mangled)
		return THIP_EXT_LAUNCH_MANGLED;
	return (unsigned)id < THIP_FN_COUNT ? thip_fn_names[id] : "?";
}

static void thip_report(void);

static void thip_init_once(void)
{
	size_t ntypes = 0;
	const sbt_cm_type_desc *types = sbt_cm_hip_types(&ntypes);
	thip_g.enabled = cap_api_enabled(SBT_CM_API_HIP);
	if (!thip_g.enabled)
		return;
	cap_register_api(SBT_CM_API_HIP, (const cap_type_desc *)types, ntypes);
	cap_on_shutdown(thip_report);
	/* hipcc's module destructor unregisters its fat binaries from an exit
	 * handler: close the trace after it, from our destructor. */
	cap_shutdown_at_fini();
}

/* The runtime's definition of fn, after this library in lookup order.  A
 * name the runtime exports under another spelling (hipExtModuleLaunchKernel:
 * C in ROCm 6, C++-mangled in 5.2) is looked up under both. */
static void *thip_real(thip_fn fn)
{
	void *f = atomic_load_explicit(&thip_g.real[fn], memory_order_acquire);
	if (f || atomic_load_explicit(&thip_g.resolved[fn], memory_order_acquire))
		return f;
	f = dlsym(RTLD_NEXT, thip_fn_name(fn));
	if (!f && fn == THIP_FN_hipExtModuleLaunchKernel)
		f = dlsym(RTLD_NEXT, THIP_EXT_LAUNCH_MANGLED);
	if (!f && fn == THIP_FN_hipExtModuleLaunchKernel_mangled)
		f = dlsym(RTLD_NEXT, "hipExtModuleLaunchKernel");
	atomic_store_explicit(&thip_g.real[fn], f, memory_order_release);
	atomic_store_explicit(&thip_g.resolved[fn], 1, memory_order_release);
	return f;
}

void *thip_own(thip_fn fn)
{
	pthread_once(&thip_g.once, thip_init_once);
	return thip_real(fn);
}

void *thip_begin(thip_call *call, thip_fn fn)
{
	void *real;
	pthread_once(&thip_g.once, thip_init_once);
	call->fn = fn;
	call->nested = cap_enter();
	call->record = 0;
	call->ptds = 0;
	call->node = NULL;
	if (!call->nested) {
		atomic_fetch_add_explicit(&thip_g.calls[fn], 1, memory_order_relaxed);
		call->record = thip_g.enabled && cap_active();
	}
	real = thip_real(fn);
	if (!real && !atomic_exchange(&thip_g.missing_said, 1))
		CAP_ERROR("hip: %s: not found after the interposer (is libamdhip64 loaded?); "
		          "calls it does not find return hipErrorNotInitialized",
		          thip_fn_name(fn));
	return real;
}

/*
 * Every generated trampoline comes here first, with its caller's arguments
 * saved (thip_tramp.S): a call that is the program's own (not made from
 * inside a wrapped call) is counted; the trampoline then jumps to what this
 * returns.  Nothing is recorded: these are the calls not modeled.
 */
__attribute__((visibility("hidden"))) void *thip_gen_begin(unsigned index)
{
	void *f;
	int nested;
	if (index >= THIP_GEN_COUNT)
		return NULL;
	pthread_once(&thip_g.once, thip_init_once);
	nested = cap_enter();
	cap_leave();
	if (!nested)
		atomic_fetch_add_explicit(&thip_g.gen_calls[index], 1, memory_order_relaxed);
	f = atomic_load_explicit(&thip_g.gen_real[index], memory_order_acquire);
	if (f || atomic_load_explicit(&thip_g.gen_resolved[index], memory_order_acquire))
		return f;
	f = dlsym(RTLD_NEXT, thip_gen_names[index]);
	atomic_store_explicit(&thip_g.gen_real[index], f, memory_order_release);
	atomic_store_explicit(&thip_g.gen_resolved[index], 1, memory_order_release);
	if (!f && !atomic_exchange(&thip_g.missing_said, 1))
		CAP_ERROR("hip: %s: not found after the interposer (is libamdhip64 loaded?); "
		          "calls it does not find return hipErrorNotInitialized",
		          thip_gen_names[index]);
	return f;
}

void thip_end(thip_call *call)
{
	(void)call;
	cap_leave();
}

/* The calling thread's current device, as the runtime keeps it (per
 * thread, 0 until the thread's first hipSetDevice that worked). */
static _Thread_local int thip_cur_dev;

void thip_device_set(int device)
{
	thip_cur_dev = device;
}

int thip_device_get(void)
{
	return thip_cur_dev;
}

/* Records of what belongs to a device: made on the thread's current one. */
static int thip_is_per_device(sbt_cm_hip_call hcall)
{
	switch (hcall) {
	case SBT_CM_HIP_hipMalloc: case SBT_CM_HIP_hipMallocPitch: case SBT_CM_HIP_hipMallocAsync:
	case SBT_CM_HIP_hipMallocFromPoolAsync: case SBT_CM_HIP_hipMallocManaged:
	case SBT_CM_HIP_hipStreamCreate: case SBT_CM_HIP_hipStreamCreateWithFlags:
	case SBT_CM_HIP_hipStreamCreateWithPriority:
	case SBT_CM_HIP_hipModuleLoad: case SBT_CM_HIP_hipModuleLoadData:
	case SBT_CM_HIP_hipModuleLoadDataEx:
	case SBT_CM_HIP_hipMallocArray: case SBT_CM_HIP_hipArrayCreate:
	case SBT_CM_HIP_hipArray3DCreate: case SBT_CM_HIP_hipMalloc3DArray:
	case SBT_CM_HIP_hipMallocMipmappedArray: case SBT_CM_HIP_hipMipmappedArrayCreate:
		return 1;
	default:
		return 0;
	}
}

uint64_t thip_record(sbt_cm_hip_call hcall, const sbt_cm_call *call, unsigned flags)
{
	uint8_t stack_buf[512];
	uint8_t *buf = stack_buf;
	sbt_cm_call dc;
	const sbt_cm_call *c = call;
	size_t max, len = 0;
	uint64_t seq = 0;

	if (thip_cur_dev && thip_is_per_device(hcall)) {
		dc = *call;
		dc.device = thip_cur_dev;
		c = &dc;
	}
	max = sbt_cm_encoded_max(c);
	if (max > sizeof(stack_buf)) {
		buf = malloc(max);
		if (!buf) {
			CAP_ERROR("hip: out of memory recording %s", sbt_cm_hip_name(hcall));
			return 0;
		}
	}
	if (sbt_cm_encode(c, buf, max, &len) == SBT_OK)
		seq = cap_record(SBT_CM_HIP_TYPE(hcall), flags, buf, len);
	else
		CAP_ERROR("hip: cannot encode %s", sbt_cm_hip_name(hcall));
	if (buf != stack_buf)
		free(buf);
	return seq;
}

void thip_count_launch(void)
{
	atomic_fetch_add_explicit(&thip_g.launches, 1, memory_order_relaxed);
}

void thip_count_module(int without_image)
{
	atomic_fetch_add_explicit(&thip_g.modules, 1, memory_order_relaxed);
	if (without_image)
		atomic_fetch_add_explicit(&thip_g.no_image, 1, memory_order_relaxed);
}

/* "name=count name=count" of the entry points whose modeled value is
 * `which` (-1: every one called), into a malloc'ed string. */
static char *thip_count_list(int which, uint64_t *total_out, unsigned *names_out)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	uint64_t total = 0;
	unsigned names = 0;
	if (!s)
		return NULL;
	s[0] = 0;
	for (int i = 0; i < THIP_FN_COUNT + THIP_GEN_COUNT; i++) {
		int gen = i >= THIP_FN_COUNT;
		uint64_t n = gen ? atomic_load(&thip_g.gen_calls[i - THIP_FN_COUNT])
		                 : atomic_load(&thip_g.calls[i]);
		unsigned modeled = gen ? 0 : thip_fn_modeled[i];
		const char *name = gen ? thip_gen_names[i - THIP_FN_COUNT] : thip_fn_name((thip_fn)i);
		char item[192];
		int k;
		if (!n || (which >= 0 && modeled != (unsigned)which))
			continue;
		total += n;
		names++;
		k = snprintf(item, sizeof(item), "%s%s=%" PRIu64, len ? " " : "", name, n);
		if (k < 0)
			continue;
		if (len + (size_t)k + 1 > cap) {
			char *t;
			while (len + (size_t)k + 1 > cap)
				cap *= 2;
			t = realloc(s, cap);
			if (!t)
				break;
			s = t;
		}
		memcpy(s + len, item, (size_t)k + 1);
		len += (size_t)k;
	}
	if (total_out)
		*total_out = total;
	if (names_out)
		*names_out = names;
	return s;
}

static void thip_report(void)
{
	uint64_t all = 0, unmodeled = 0;
	unsigned names = 0;
	char *seen = thip_count_list(-1, &all, NULL);
	char *un = thip_count_list(0, &unmodeled, &names);
	uint64_t launches = atomic_load(&thip_g.launches);
	uint64_t modules = atomic_load(&thip_g.modules), no_image = atomic_load(&thip_g.no_image);
	uint64_t kept = thip_va_kept(), keyframes = thip_kf_count(), nm = thip_graph_nm_count();
	char extra[320] = "";
	size_t n = 0;

	if (!all)
		goto out;
	if (no_image)
		n += (size_t)snprintf(extra, sizeof(extra), ", %" PRIu64 " module%s without image",
		                      no_image, no_image == 1 ? "" : "s");
	if (kept && n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n,
		                      ", %" PRIu64 " stream-ordered frees in a capture kept until exit", kept);
	if (keyframes && n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, ", %" PRIu64 " keyframe%s", keyframes,
		                      keyframes == 1 ? "" : "s");
	if (nm && n < sizeof(extra))
		snprintf(extra + n, sizeof(extra) - n, ", %" PRIu64 " graph%s or exec%s changed by calls "
		         "not modeled", nm, nm == 1 ? "" : "s", nm == 1 ? "" : "s");
	if (seen)
		cap_set_meta("hip.calls", seen);
	if (un)
		cap_set_meta("hip.unmodeled", un);
	cap_report("hip: %" PRIu64 " calls, %" PRIu64 " launches, %" PRIu64 " modules%s, %" PRIu64
	           " to %u entry points not modeled (TRACESMITH_LOG=info names them); trace %s",
	           all, launches, modules, extra, unmodeled, names,
	           cap_output_path() ? cap_output_path() : "(none)");
	CAP_INFO("hip: calls seen: %s", seen ? seen : "");
	CAP_INFO("hip: not modeled (counted only): %s", un ? un : "");
out:
	free(seen);
	free(un);
}
