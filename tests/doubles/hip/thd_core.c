/*
 * thd_core.c - the double's state, device, errors, streams, events and
 * graphs made by stream capture (thd.h says what is modelled).
 */
#include "tests/doubles/hip/thd.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* lock: the registries (thd.h); objects_lock: the object registry alone,
 * so that an object can be made under lock. */
static struct {
	pthread_mutex_t lock;
	pthread_mutex_t objects_lock;
	void **objects;          /* every handle object made (thd_object_new) */
	size_t nobjects, capobjects;
} thd_g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0 };

void *thd_object_new(size_t size)
{
	void *o = calloc(1, size);

	if (!o)
		return NULL;
	pthread_mutex_lock(&thd_g.objects_lock);
	if (thd_g.nobjects == thd_g.capobjects) {
		size_t cap = thd_g.capobjects ? thd_g.capobjects * 2 : 64;
		void **v = realloc(thd_g.objects, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&thd_g.objects_lock);
			free(o);
			return NULL;
		}
		thd_g.objects = v;
		thd_g.capobjects = cap;
	}
	thd_g.objects[thd_g.nobjects++] = o;
	pthread_mutex_unlock(&thd_g.objects_lock);
	return o;
}

static __thread hipError_t thd_last_error;

void thd_lock(void)
{
	pthread_mutex_lock(&thd_g.lock);
}

void thd_unlock(void)
{
	pthread_mutex_unlock(&thd_g.lock);
}

hipError_t thd_ret(hipError_t r)
{
	if (r != hipSuccess)
		thd_last_error = r;
	return r;
}

void thd_say(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "libamdhip64 test double: %s\n", line);
}

/* ---- device and errors ---------------------------------------------------- */

THD_EXPORT hipError_t hipInit(unsigned int flags)
{
	return thd_ret(flags ? hipErrorInvalidValue : hipSuccess);
}

/* TSHIP_DOUBLE_DEVICES=N (1 to THD_MAX_DEVICES, default 1): how many
 * devices the double has.  They share one memory (host memory, as every
 * allocation of the double is), one scheduler and one registry; what is
 * per device is what a program can ask: the current device of each thread
 * (hipSetDevice / hipGetDevice, 0 at first, as clr's), the ordinals calls
 * check, a default memory pool each. */
static pthread_once_t thd_devices_once = PTHREAD_ONCE_INIT;
static int thd_devices = 1;
static _Thread_local int thd_cur_device;

static void thd_devices_read(void)
{
	const char *v = getenv("TSHIP_DOUBLE_DEVICES");
	char *end;
	long n;

	if (!v || !*v)
		return;
	n = strtol(v, &end, 10);
	if (*end || n < 1 || n > THD_MAX_DEVICES) {
		thd_say("TSHIP_DOUBLE_DEVICES=%s is not a device count from 1 to %d: 1 device", v,
		        THD_MAX_DEVICES);
		return;
	}
	thd_devices = (int)n;
}

int thd_device_count(void)
{
	pthread_once(&thd_devices_once, thd_devices_read);
	return thd_devices;
}

int thd_device_ok(long device)
{
	return device >= 0 && device < thd_device_count();
}

int thd_device_current(void)
{
	return thd_cur_device;
}

void thd_device_make_current(int device)
{
	thd_cur_device = device;
}

THD_EXPORT hipError_t hipGetDeviceCount(int *count)
{
	if (!count)
		return thd_ret(hipErrorInvalidValue);
	*count = thd_device_count();
	return hipSuccess;
}

/* clr's hipSetDevice: an ordinal outside [0, count) is hipErrorInvalidDevice. */
THD_EXPORT hipError_t hipSetDevice(int device)
{
	if (!thd_device_ok(device))
		return thd_ret(hipErrorInvalidDevice);
	thd_cur_device = device;
	return hipSuccess;
}

THD_EXPORT hipError_t hipGetDevice(int *device)
{
	if (!device)
		return thd_ret(hipErrorInvalidValue);
	*device = thd_cur_device;
	return hipSuccess;
}

/* Every device of the double reaches every other's memory (one memory). */
THD_EXPORT hipError_t hipDeviceCanAccessPeer(int *can, int device, int peer)
{
	if (!can)
		return thd_ret(hipErrorInvalidValue);
	if (device == peer) { /* clr: a device is not its own peer */
		*can = 0;
		return hipSuccess;
	}
	if (!thd_device_ok(device) || !thd_device_ok(peer))
		return thd_ret(hipErrorInvalidDevice);
	*can = 1;
	return hipSuccess;
}

THD_EXPORT hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
	if (!name || len <= 0)
		return thd_ret(hipErrorInvalidValue);
	if (!thd_device_ok(device))
		return thd_ret(hipErrorInvalidDevice);
	snprintf(name, (size_t)len, "libamdhip64 test double (gfx90a twins on the CPU)");
	return hipSuccess;
}

THD_EXPORT hipError_t hipDeviceSynchronize(void)
{
	return thd_ret(thd_sync_device());
}

THD_EXPORT hipError_t hipDeviceReset(void)
{
	thd_sync_device();
	return hipSuccess;
}

/* What ROCm 5.2.3's runtime answers; TSHIP_DOUBLE_RUNTIME_VERSION=N (a
 * positive number) answers N instead, so that a test can show what the
 * interposer does under another runtime's version.  The double stays ROCm
 * 5.2's in everything else but hipGraphInstantiate and hipGraphExecUpdate,
 * which follow clr 6.0-6.2 when N is ROCm 6's or later (thd_graph.c).
 * *bad set when the variable is there but not a positive version. */
int thd_runtime_version(int *bad)
{
	const char *v = getenv("TSHIP_DOUBLE_RUNTIME_VERSION");
	char *end;
	long n;

	if (bad)
		*bad = 0;
	if (!v || !*v)
		return 50222153;
	n = strtol(v, &end, 10);
	if (*end || n < 1 || n > 0x7fffffff) {
		if (bad)
			*bad = 1;
		return 50222153;
	}
	return (int)n;
}

THD_EXPORT hipError_t hipRuntimeGetVersion(int *version)
{
	int bad;

	if (!version)
		return thd_ret(hipErrorInvalidValue);
	*version = thd_runtime_version(&bad);
	if (bad)
		thd_say("TSHIP_DOUBLE_RUNTIME_VERSION=%s is not a positive version: 50222153",
		        getenv("TSHIP_DOUBLE_RUNTIME_VERSION"));
	return hipSuccess;
}

THD_EXPORT hipError_t hipGetLastError(void)
{
	hipError_t r = thd_last_error;
	thd_last_error = hipSuccess;
	return r;
}

THD_EXPORT hipError_t hipPeekAtLastError(void)
{
	return thd_last_error;
}

#define THD_ERRORS(X)                                                                 \
	X(hipSuccess, "no error") X(hipErrorInvalidValue, "invalid argument")             \
	X(hipErrorOutOfMemory, "out of memory") X(hipErrorNotInitialized, "initialization error") \
	X(hipErrorInvalidSymbol, "invalid device symbol")                                 \
	X(hipErrorInvalidDevicePointer, "invalid device pointer")                         \
	X(hipErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")            \
	X(hipErrorNoDevice, "no ROCm-capable device is detected")                         \
	X(hipErrorInvalidDevice, "invalid device ordinal")                                \
	X(hipErrorInvalidImage, "device kernel image is invalid")                         \
	X(hipErrorNoBinaryForGpu, "no kernel image is available for execution on the device") \
	X(hipErrorInvalidHandle, "invalid resource handle")                               \
	X(hipErrorNotFound, "named symbol not found")                                     \
	X(hipErrorNotReady, "device not ready")                                           \
	X(hipErrorIllegalAddress, "an illegal memory access was encountered")             \
	X(hipErrorLaunchFailure, "unspecified launch failure")                            \
	X(hipErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing") \
	X(hipErrorStreamCaptureUnmatched, "capture was not initiated in this stream")     \
	X(hipErrorNotSupported, "operation not supported")                                \
	X(hipErrorLaunchTimeOut, "the launch timed out and was terminated")               \
	X(hipErrorInvalidConfiguration, "invalid configuration argument")                 \
	X(hipErrorInvalidDeviceFunction, "invalid device function")                       \
	X(hipErrorFileNotFound, "file not found")                                         \
	X(hipErrorIllegalState, "operation not permitted in this state")

THD_EXPORT const char *hipGetErrorName(hipError_t e)
{
	switch (e) {
#define THD_X_NAME(code, text) case code: return #code;
	THD_ERRORS(THD_X_NAME)
#undef THD_X_NAME
	default: return "hipErrorUnknown";
	}
}

THD_EXPORT const char *hipGetErrorString(hipError_t e)
{
	switch (e) {
#define THD_X_TEXT(code, text) case code: return text;
	THD_ERRORS(THD_X_TEXT)
#undef THD_X_TEXT
	default: return "unknown error";
	}
}

/* ---- streams ------------------------------------------------------------------ */

static int thd_stream_ok(hipStream_t s)
{
	return s == NULL || s->magic == THD_LIVE;
}

struct ihipGraph *thd_stream_capture(hipStream_t s, int *bad)
{
	*bad = !thd_stream_ok(s);
	return *bad || !s ? NULL : s->capture;
}

static hipError_t thd_stream_new(hipStream_t *out, unsigned flags, int priority)
{
	struct ihipStream_t *s;

	if (!out)
		return thd_ret(hipErrorInvalidValue);
	s = thd_object_new(sizeof(*s));
	if (!s)
		return thd_ret(hipErrorOutOfMemory);
	s->magic = THD_LIVE;
	s->flags = flags;
	s->priority = priority;
	thd_sched_add_stream(s);
	*out = s;
	return hipSuccess;
}

/* clr's getPerThreadDefaultStream: a blocking stream of the calling
 * thread's own, made at its first _spt call (NULL, the null stream, when
 * it cannot be made). */
static _Thread_local hipStream_t thd_pt_stream;

hipStream_t thd_per_thread_stream(void)
{
	if (!thd_pt_stream && thd_stream_new(&thd_pt_stream, 0, 0) != hipSuccess)
		thd_pt_stream = NULL;
	return thd_pt_stream;
}

hipError_t thd_spt_finish(hipStream_t stream, hipError_t r)
{
	if (r != hipSuccess || !stream)
		return r;
	return thd_ret(thd_sync_stream(stream));
}

THD_EXPORT hipError_t hipStreamCreate(hipStream_t *stream)
{
	return thd_stream_new(stream, 0, 0);
}

THD_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
	return thd_stream_new(stream, flags, 0);
}

THD_EXPORT hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags,
                                                   int priority)
{
	return thd_stream_new(stream, flags, priority);
}

THD_EXPORT hipError_t hipStreamDestroy(hipStream_t stream)
{
	if (!stream || stream->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	thd_sync_stream(stream); /* its work runs first, as the runtime's does */
	stream->magic = THD_DEAD;
	return hipSuccess;
}

THD_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream)
{
	if (!thd_stream_ok(stream))
		return thd_ret(hipErrorInvalidHandle);
	if (stream && stream->capture)
		return thd_ret(hipErrorStreamCaptureUnsupported);
	return thd_ret(thd_sync_stream(stream));
}

/* The double finishes the work when asked (a query answering "not ready"
 * would leave a polling program waiting for work only a sync runs). */
THD_EXPORT hipError_t hipStreamQuery(hipStream_t stream)
{
	if (!thd_stream_ok(stream))
		return thd_ret(hipErrorInvalidHandle);
	if (stream && stream->capture)
		return hipSuccess;
	return thd_ret(thd_sync_stream(stream));
}

THD_EXPORT hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
	thd_node n;

	if (!thd_stream_ok(stream) || !event || event->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	if (flags)
		return thd_ret(hipErrorInvalidValue);
	if (stream && stream->capture)
		return hipSuccess; /* one stream per capture here: nothing to join */
	memset(&n, 0, sizeof(n));
	n.kind = THD_NODE_WAIT;
	n.ev = event;
	n.gen = event->gen_queued; /* the recording queued last, as of now */
	return thd_ret(thd_enqueue(stream, &n));
}

THD_EXPORT hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)
{
	struct ihipGraph *g;

	(void)mode;
	if (!stream)
		return thd_ret(hipErrorStreamCaptureUnsupported); /* not the null stream */
	if (stream->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	if (stream->capture)
		return thd_ret(hipErrorIllegalState);
	g = thd_object_new(sizeof(*g));
	if (!g)
		return thd_ret(hipErrorOutOfMemory);
	g->magic = THD_LIVE;
	stream->capture = g;
	return hipSuccess;
}

THD_EXPORT hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *graph)
{
	if (!stream || stream->magic != THD_LIVE || !graph)
		return thd_ret(!graph ? hipErrorInvalidValue : hipErrorInvalidHandle);
	if (!stream->capture)
		return thd_ret(hipErrorStreamCaptureUnmatched);
	*graph = stream->capture;
	stream->capture = NULL;
	return hipSuccess;
}

THD_EXPORT hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus *status)
{
	if (!thd_stream_ok(stream) || !status)
		return thd_ret(!status ? hipErrorInvalidValue : hipErrorInvalidHandle);
	*status = stream && stream->capture ? hipStreamCaptureStatusActive : hipStreamCaptureStatusNone;
	return hipSuccess;
}

/* ---- graphs ----------------------------------------------------------------------- */

hipError_t thd_graph_add(struct ihipGraph *g, const thd_node *n)
{
	thd_node *v = realloc(g->nodes, (g->n + 1) * sizeof(*v));

	if (!v)
		return thd_ret(hipErrorOutOfMemory);
	g->nodes = v;
	v[g->n++] = *n;
	return hipSuccess;
}

hipError_t thd_node_run(const thd_node *n)
{
	switch (n->kind) {
	case THD_NODE_KERNEL:
		return thd_kernel_run(n->fn, n->grid, n->block, n->args, n->args_len);
	case THD_NODE_COPY:
		return thd_copy(n->dst, n->src, n->size);
	case THD_NODE_MEMSET:
		return thd_fill(n->dst, n->value, n->elem, n->elem ? n->size / n->elem : 0);
	case THD_NODE_RECORD:
	case THD_NODE_WAIT:
		break;
	}
	return hipErrorInvalidValue;
}

THD_EXPORT hipError_t hipGraphInstantiate(hipGraphExec_t *exec, hipGraph_t graph,
                                          hipGraphNode_t *error_node, char *log, size_t log_size)
{
	struct hipGraphExec *e;
	hipError_t r;

	(void)error_node;
	if (log && log_size)
		log[0] = '\0';
	if (!exec || !graph || graph->magic != THD_LIVE)
		return thd_ret(!exec ? hipErrorInvalidValue : hipErrorInvalidHandle);
	e = thd_object_new(sizeof(*e));
	if (!e)
		return thd_ret(hipErrorOutOfMemory);
	/* kernarg bytes shared with the graph; e stays in the registry */
	r = thd_graph_flatten_from(graph, &e->nodes, &e->from, &e->n);
	if (r != hipSuccess)
		return thd_ret(r);
	if (graph->ngnodes &&
	    !(e->clones = malloc(graph->ngnodes * sizeof(*e->clones))))
		return thd_ret(hipErrorOutOfMemory);
	if (graph->ngnodes)
		memcpy(e->clones, graph->gnodes, graph->ngnodes * sizeof(*e->clones));
	e->nclones = graph->ngnodes;
	if ((r = thd_graph_exec_order(graph, e)) != hipSuccess)
		return thd_ret(r);
	e->graph = graph;
	e->magic = THD_LIVE;
	*exec = e;
	return hipSuccess;
}

THD_EXPORT hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t stream)
{
	hipError_t r = hipSuccess;

	if (!exec || exec->magic != THD_LIVE || !thd_stream_ok(stream))
		return thd_ret(hipErrorInvalidHandle);
	for (size_t i = 0; i < exec->n && r == hipSuccess; i++) {
		thd_node n = exec->nodes[i]; /* its kernarg bytes stay the graph's */
		n.owned = NULL;
		r = thd_enqueue(stream, &n);
	}
	return thd_ret(r);
}

THD_EXPORT hipError_t hipGraphExecDestroy(hipGraphExec_t exec)
{
	if (!exec || exec->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	exec->magic = THD_DEAD;
	return hipSuccess;
}

THD_EXPORT hipError_t hipGraphDestroy(hipGraph_t graph)
{
	if (!graph || graph->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	graph->magic = THD_DEAD; /* its kernarg bytes stay: an exec may use them */
	return hipSuccess;
}

/* ---- events --------------------------------------------------------------------- */

static uint64_t thd_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

THD_EXPORT hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
	struct ihipEvent_t *e;

	if (!event)
		return thd_ret(hipErrorInvalidValue);
	e = thd_object_new(sizeof(*e));
	if (!e)
		return thd_ret(hipErrorOutOfMemory);
	e->magic = THD_LIVE;
	e->flags = flags;
	*event = e;
	return hipSuccess;
}

THD_EXPORT hipError_t hipEventCreate(hipEvent_t *event)
{
	return hipEventCreateWithFlags(event, 0);
}

THD_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
	thd_node n;

	if (!event || event->magic != THD_LIVE || !thd_stream_ok(stream))
		return thd_ret(hipErrorInvalidHandle);
	if (stream && stream->capture) {
		event->ns = thd_now_ns(); /* not a node here: one stream per capture */
		return hipSuccess;
	}
	memset(&n, 0, sizeof(n));
	n.kind = THD_NODE_RECORD;
	n.ev = event;
	return thd_ret(thd_enqueue(stream, &n));
}

THD_EXPORT hipError_t hipEventSynchronize(hipEvent_t event)
{
	if (!event || event->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	return thd_ret(thd_sync_event(event));
}

/* Finishes the work it waits for (hipStreamQuery says why). */
THD_EXPORT hipError_t hipEventQuery(hipEvent_t event)
{
	return hipEventSynchronize(event);
}

/* As clr's hipEventElapsedTime and hip::Event::elapsedTime check, in their
 * order: a null event is hipErrorInvalidHandle before a null ms is
 * hipErrorInvalidValue; an event never recorded, or one created with
 * hipEventDisableTiming (either of the two), is hipErrorInvalidHandle; a
 * recording not run yet is hipErrorNotReady; an event against itself is
 * 0 ms. */
THD_EXPORT hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
	if (!start || !stop || start->magic != THD_LIVE || stop->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	if (!ms)
		return thd_ret(hipErrorInvalidValue);
	if (!start->gen_queued || !stop->gen_queued)
		return thd_ret(hipErrorInvalidHandle);
	if ((start->flags | stop->flags) & hipEventDisableTiming)
		return thd_ret(hipErrorInvalidHandle);
	if (start->gen_done < start->gen_queued || stop->gen_done < stop->gen_queued)
		return thd_ret(hipErrorNotReady);
	*ms = start == stop ? 0.0f : (float)((double)(int64_t)(stop->ns - start->ns) / 1e6);
	return hipSuccess;
}

THD_EXPORT hipError_t hipEventDestroy(hipEvent_t event)
{
	if (!event || event->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	event->magic = THD_DEAD;
	return hipSuccess;
}

/* ---- hipGetProcAddress ----------------------------------------------------------------- */

/*
 * ROCm 6's hipGetProcAddress (5.2 has none; the double serves it so that
 * the interposer's handling of it can be tested), as clr answers it: a
 * null or empty symbol or a null pfn: hipErrorInvalidValue; the runtime's
 * own export of that name (dlsym on its own handle: clr's
 * getDynamicLibraryHandle), else *pfn = NULL, status 1
 * (HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND) and hipErrorInvalidValue;
 * status 0 when found.  clr's renamings for hipVersion >= 600
 * (hipGetDeviceProperties -> hipGetDevicePropertiesR0600, hipChooseDevice)
 * are not made: the double has no such variants.
 */
THD_EXPORT hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion,
                                        uint64_t flags, int *symbolStatus)
{
	Dl_info me;
	void *self;

	(void)hipVersion;
	(void)flags;
	if (!symbol || !*symbol || !pfn)
		return thd_ret(hipErrorInvalidValue);
	if (!dladdr((void *)hipGetProcAddress, &me) || !me.dli_fname ||
	    !(self = dlopen(me.dli_fname, RTLD_LAZY | RTLD_NOLOAD)))
		return thd_ret(hipErrorInvalidValue);
	*pfn = dlsym(self, symbol);
	dlclose(self);
	if (symbolStatus)
		*symbolStatus = *pfn ? 0 : 1;
	return *pfn ? hipSuccess : thd_ret(hipErrorInvalidValue);
}
