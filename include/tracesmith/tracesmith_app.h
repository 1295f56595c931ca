/*
 * tracesmith_app.h - let a program start, end and trigger TraceSmith
 * captures and mark its frames, without linking TraceSmith.
 *
 *   #include "tracesmith/tracesmith_app.h"
 *   tracesmith_trigger_capture(1);      // capture the next frame
 *   tracesmith_start_capture();         // ... or a window of your own
 *   run_the_interesting_part();
 *   tracesmith_end_capture();
 *
 * Header only.  The functions find the capture libraries already loaded in
 * the process (the Vulkan layer, the CUDA and HIP interposers) with
 * dlopen(RTLD_NOLOAD) and dlsym, once, and act on each; when the program
 * is not running under capture they do nothing and return
 * TRACESMITH_APP_NOT_CAPTURING.  Link with -ldl on glibc older than 2.34.
 *
 * Windows opened here follow docs/capture.md "Triggers": they count only
 * when capture runs with a trigger (tscapture --app, or any other trigger
 * option; TRACESMITH_TRIGGER=app), each goes to its own trace file, and it
 * starts with a snapshot of the live state.  Under a whole-run capture the
 * start, end and trigger calls do nothing and return TRACESMITH_APP_WHOLE_RUN.
 */
#ifndef TRACESMITH_APP_H
#define TRACESMITH_APP_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#define TRACESMITH_APP_API_VERSION 1

enum {
	TRACESMITH_APP_OK = 0,
	TRACESMITH_APP_ALREADY = 1,          /* a window was open already / none was open */
	TRACESMITH_APP_NOT_CAPTURING = -1,   /* no TraceSmith library in the process */
	TRACESMITH_APP_WHOLE_RUN = -2,       /* capture runs without a trigger */
	TRACESMITH_APP_FAILED = -3           /* the window's trace could not be written */
};

/* What each TraceSmith front-end library exports (tracesmith_app_get_api). */
typedef struct tracesmith_app_api {
	uint32_t version;
	int (*start_capture)(void);              /* open a window now */
	int (*end_capture)(void);                /* close the open window now */
	int (*trigger_capture)(uint32_t frames); /* capture the next `frames` frames */
	void (*mark_frame)(void);                /* a frame ends (programs that never present) */
	int (*is_capturing)(void);               /* 1 while a window is open */
	int (*start_capture_named)(const char *why); /* start_capture, recording `why`
	                                                as the window's trigger */
} tracesmith_app_api;

typedef const tracesmith_app_api *(*tracesmith_app_get_api_fn)(uint32_t version);

#define TRACESMITH_APP_MAX_LIBS 4

/* The APIs of the capture libraries loaded now, found once. */
static inline const tracesmith_app_api *const *tracesmith_app_apis_(void)
{
	static const tracesmith_app_api *apis[TRACESMITH_APP_MAX_LIBS + 1];
	static int looked;
	static const char *const libs[] = {"libVkLayer_tracesmith.so", "libtracesmith_cuda.so",
	                                   "libtracesmith_hip.so"};
	size_t n = 0, i;
	if (looked)
		return apis;
	looked = 1;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD);
		tracesmith_app_get_api_fn get;
		const tracesmith_app_api *a;
		size_t k;
		if (!h)
			continue;
		get = (tracesmith_app_get_api_fn)dlsym(h, "tracesmith_app_get_api");
		a = get ? get(TRACESMITH_APP_API_VERSION) : NULL;
		for (k = 0; k < n; k++)
			if (apis[k] == a)
				a = NULL;
		if (a && n < TRACESMITH_APP_MAX_LIBS)
			apis[n++] = a;
	}
	{
		/* A library loaded under another name (an installed copy). */
		tracesmith_app_get_api_fn get =
			(tracesmith_app_get_api_fn)dlsym(RTLD_DEFAULT, "tracesmith_app_get_api");
		const tracesmith_app_api *a = get ? get(TRACESMITH_APP_API_VERSION) : NULL;
		size_t k;
		for (k = 0; k < n; k++)
			if (apis[k] == a)
				a = NULL;
		if (a && n < TRACESMITH_APP_MAX_LIBS)
			apis[n++] = a;
	}
	apis[n] = NULL;
	return apis;
}

/* The first answer that is not "nothing to do", else the last one. */
#define TRACESMITH_APP_EACH_(call)                                                   \
	const tracesmith_app_api *const *a_ = tracesmith_app_apis_();                    \
	int rc_ = TRACESMITH_APP_NOT_CAPTURING;                                          \
	for (; *a_; a_++) {                                                              \
		int r_ = (*a_)->call;                                                    \
		if (rc_ == TRACESMITH_APP_NOT_CAPTURING || r_ == TRACESMITH_APP_OK)      \
			rc_ = r_;                                                        \
	}                                                                                \
	return rc_

/* Open a capture window now. */
static inline int tracesmith_start_capture(void)
{
	TRACESMITH_APP_EACH_(start_capture());
}

/* Open a capture window now, recording `why` as what triggered it (the
 * window record's trigger text, tsinfo's "trigger '...'"). */
static inline int tracesmith_start_capture_named(const char *why)
{
	TRACESMITH_APP_EACH_(start_capture_named(why));
}

/* Close the open capture window now. */
static inline int tracesmith_end_capture(void)
{
	TRACESMITH_APP_EACH_(end_capture());
}

/* Capture the next `frames` frames (from the next frame boundary on). */
static inline int tracesmith_trigger_capture(uint32_t frames)
{
	TRACESMITH_APP_EACH_(trigger_capture(frames));
}

/* 1 while a window is open, 0 when not, TRACESMITH_APP_NOT_CAPTURING. */
static inline int tracesmith_is_capturing(void)
{
	TRACESMITH_APP_EACH_(is_capturing());
}

/* A frame ends: for programs that never present (compute), so that frame
 * ranges and trigger_capture count something. */
static inline void tracesmith_mark_frame(void)
{
	const tracesmith_app_api *const *a = tracesmith_app_apis_();
	for (; *a; a++)
		(*a)->mark_frame();
}

#endif /* TRACESMITH_APP_H */
