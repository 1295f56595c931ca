/*
 * tnv_inject.c - libtracesmith_nvtx.so, the NVTX injection library that
 * turns NVTX ranges into capture windows (TRACESMITH_TRIGGER=nvtx:NAME,
 * tscapture --nvtx NAME; docs/cuda.md "Capture windows").
 *
 * NVTX v3 is header-only: the program's own copy of the NVTX code, at its
 * first NVTX call, dlopens the library NVTX_INJECTION64_PATH names and
 * calls its InitializeInjectionNvtx2 with the export-table getter
 * (nvtx3/nvtxDetail/nvtxInit.h).  From the NVTX_ETID_CALLBACKS table we
 * take the core module's function table (GetModuleFunctionTable with
 * NVTX_CB_MODULE_CORE: an array, indexed by NVTX_CBID_CORE_*, of pointers
 * to the slots the program's NVTX calls go through) and put our functions
 * in the range slots: push/pop and start/end, in the ASCII, wide and Ex
 * forms.  A range whose message is NAME (ASCII, wide or an Ex message of
 * either type; registered strings and domain ranges are not seen) opens a
 * window when it begins; when the last such range still open ends, the
 * window closes.  Push ranges are per thread (the level each push and pop
 * returns is the thread's depth, as NVTX specifies); start/end ranges may
 * end on another thread.
 *
 * The window is opened and closed through the in-app API
 * (include/tracesmith/tracesmith_app.h): the capture libraries loaded in
 * the process, found with dlopen(RTLD_NOLOAD), so this library links no
 * TraceSmith code and does nothing when the program is not under capture.
 * NAME comes from TRACESMITH_TRIGGER; without an nvtx: trigger the library
 * installs nothing.
 *
 * State: one struct, tnv_g: the trigger name, written once by the
 * injection's initialisation (NVTX calls it once, under its own lock, before
 * any range function of ours can run), and the open NAME ranges, under
 * tnv_g.mu; the push stack is per thread.
 */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tracesmith/tracesmith_app.h"

#define TNV_VISIBLE __attribute__((visibility("default")))
#define TNV_STACK_BITS 256 /* push depths whose NAME-ness is remembered */
#define TNV_MAX_STARTED 64 /* start/end ranges named NAME open at once */

static struct tnv_state {
	char name[128];        /* NAME of TRACESMITH_TRIGGER's nvtx:NAME */
	pthread_mutex_t mu;    /* guards the rest */
	unsigned open;         /* NAME ranges open (push and start) */
	nvtxRangeId_t next_id; /* ids start/end ranges get, from 1 */
	nvtxRangeId_t started[TNV_MAX_STARTED]; /* open NAME start ranges, 0: free */
} tnv_g = {.mu = PTHREAD_MUTEX_INITIALIZER, .next_id = 1};

/* This thread's push ranges: how deep, and which levels are NAME.  In the
 * static TLS block (initial-exec, 40 bytes of the room glibc keeps for
 * libraries loaded later): NVTX dlopens us, and dynamic TLS would be
 * allocated behind the program's back on each thread's first push (and
 * trips LeakSanitizer's thread scan under make asan). */
static __thread __attribute__((tls_model("initial-exec"))) struct tnv_stack {
	int depth;
	uint64_t named[TNV_STACK_BITS / 64];
} tnv_tls;

/* NAME from TRACESMITH_TRIGGER's nvtx:NAME item; 0 when there is none. */
static int tnv_read_trigger(void)
{
	const char *t = getenv("TRACESMITH_TRIGGER");
	while (t && *t) {
		size_t n = strcspn(t, ",");
		if (n > 5 && strncmp(t, "nvtx:", 5) == 0 && n - 5 < sizeof(tnv_g.name)) {
			memcpy(tnv_g.name, t + 5, n - 5);
			tnv_g.name[n - 5] = 0;
			return 1;
		}
		t += n;
		if (*t == ',')
			t++;
	}
	return 0;
}

static int tnv_is_name(const char *m)
{
	return m && strcmp(m, tnv_g.name) == 0;
}

static int tnv_is_name_w(const wchar_t *m)
{
	size_t i;
	if (!m)
		return 0;
	for (i = 0; tnv_g.name[i]; i++)
		if (m[i] != (wchar_t)(unsigned char)tnv_g.name[i])
			return 0;
	return m[i] == 0;
}

static int tnv_is_name_ex(const nvtxEventAttributes_t *a)
{
	if (!a)
		return 0;
	if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
		return tnv_is_name(a->message.ascii);
	if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE)
		return tnv_is_name_w(a->message.unicode);
	return 0;
}

/* A NAME range begins / ends: the first opens the window, the end of the
 * last open one closes it. */
static void tnv_named_begin(void)
{
	int first;
	pthread_mutex_lock(&tnv_g.mu);
	first = tnv_g.open++ == 0;
	pthread_mutex_unlock(&tnv_g.mu);
	if (first) {
		char why[160];
		snprintf(why, sizeof(why), "nvtx %s", tnv_g.name);
		tracesmith_start_capture_named(why);
	}
}

static void tnv_named_end(void)
{
	int last = 0;
	pthread_mutex_lock(&tnv_g.mu);
	if (tnv_g.open)
		last = --tnv_g.open == 0;
	pthread_mutex_unlock(&tnv_g.mu);
	if (last)
		tracesmith_end_capture();
}

/* ---- push / pop (per thread) --------------------------------------------- */

static int tnv_push(int named)
{
	int level = tnv_tls.depth++;
	if (level < TNV_STACK_BITS) {
		uint64_t bit = 1ull << (level % 64);
		if (named)
			tnv_tls.named[level / 64] |= bit;
		else
			tnv_tls.named[level / 64] &= ~bit;
	}
	if (named)
		tnv_named_begin();
	return level;
}

static int NVTX_API tnv_push_a(const char *message)
{
	return tnv_push(tnv_is_name(message));
}

static int NVTX_API tnv_push_w(const wchar_t *message)
{
	return tnv_push(tnv_is_name_w(message));
}

static int NVTX_API tnv_push_ex(const nvtxEventAttributes_t *attr)
{
	return tnv_push(tnv_is_name_ex(attr));
}

static int NVTX_API tnv_pop(void)
{
	int level, named = 0;
	if (tnv_tls.depth == 0)
		return -1; /* no range open on this thread */
	level = --tnv_tls.depth;
	if (level < TNV_STACK_BITS)
		named = (tnv_tls.named[level / 64] >> (level % 64)) & 1;
	if (named)
		tnv_named_end();
	return level;
}

/* ---- start / end (any thread) ---------------------------------------------- */

static nvtxRangeId_t tnv_start(int named)
{
	nvtxRangeId_t id;
	int kept = 0;
	pthread_mutex_lock(&tnv_g.mu);
	id = tnv_g.next_id++;
	for (size_t i = 0; named && i < TNV_MAX_STARTED; i++) {
		if (!tnv_g.started[i]) {
			tnv_g.started[i] = id;
			kept = 1;
			break;
		}
	}
	pthread_mutex_unlock(&tnv_g.mu);
	if (kept)
		tnv_named_begin();
	return id;
}

static nvtxRangeId_t NVTX_API tnv_start_a(const char *message)
{
	return tnv_start(tnv_is_name(message));
}

static nvtxRangeId_t NVTX_API tnv_start_w(const wchar_t *message)
{
	return tnv_start(tnv_is_name_w(message));
}

static nvtxRangeId_t NVTX_API tnv_start_ex(const nvtxEventAttributes_t *attr)
{
	return tnv_start(tnv_is_name_ex(attr));
}

static void NVTX_API tnv_end(nvtxRangeId_t id)
{
	int named = 0;
	pthread_mutex_lock(&tnv_g.mu);
	for (size_t i = 0; id && i < TNV_MAX_STARTED; i++) {
		if (tnv_g.started[i] == id) {
			tnv_g.started[i] = 0;
			named = 1;
			break;
		}
	}
	pthread_mutex_unlock(&tnv_g.mu);
	if (named)
		tnv_named_end();
}

/* ---- the injection entry point ---------------------------------------------- */

/* Our function into slot cbid of the core table, when the table has it. */
static void tnv_install(NvtxFunctionTable table, unsigned size, unsigned cbid, NvtxFunctionPointer fn)
{
	if (cbid < size && table[cbid])
		*table[cbid] = fn;
}

/* Called once by the program's NVTX code; 1: attached, 0: failed (NVTX
 * then unloads the library and its calls stay no-ops). */
TNV_VISIBLE int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
	const NvtxExportTableCallbacks *cb;
	NvtxFunctionTable table = NULL;
	unsigned size = 0;

	if (!tnv_read_trigger())
		return 1; /* attached, with nothing to do */
	cb = get_export_table ? (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS)
	                      : NULL;
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->GetModuleFunctionTable ||
	    !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || !table)
		return 0;
	tnv_install(table, size, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)tnv_push_a);
	tnv_install(table, size, NVTX_CBID_CORE_RangePushW, (NvtxFunctionPointer)tnv_push_w);
	tnv_install(table, size, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)tnv_push_ex);
	tnv_install(table, size, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)tnv_pop);
	tnv_install(table, size, NVTX_CBID_CORE_RangeStartA, (NvtxFunctionPointer)tnv_start_a);
	tnv_install(table, size, NVTX_CBID_CORE_RangeStartW, (NvtxFunctionPointer)tnv_start_w);
	tnv_install(table, size, NVTX_CBID_CORE_RangeStartEx, (NvtxFunctionPointer)tnv_start_ex);
	tnv_install(table, size, NVTX_CBID_CORE_RangeEnd, (NvtxFunctionPointer)tnv_end);
	return 1;
}
