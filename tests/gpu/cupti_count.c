/*
 * cupti_count.c - a per-name counter of CUDA driver API calls made through
 * CUPTI's callback API, to cross-check the interposer's own per-name counts.
 * Load it as an injection library (CUDA_INJECTION64_PATH=libcupti_count.so,
 * which calls InitializeInjection) or with LD_PRELOAD (the constructor
 * subscribes).  At exit it writes "name count" lines, sorted by name, to
 * $CUPTI_COUNT_OUT (default stderr).  Counts are per API entry as CUPTI
 * names it (cuLaunchKernel covers _ptsz too).
 */
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CCT_MAX_CBID 4096

static atomic_ulong cct_counts[CCT_MAX_CBID];
static pthread_once_t cct_once = PTHREAD_ONCE_INIT;
static CUpti_SubscriberHandle cct_subscriber;

static void CUPTIAPI cct_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				  const void *data)
{
	const CUpti_CallbackData *cb = data;

	(void)userdata;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER && cbid < CCT_MAX_CBID)
		atomic_fetch_add_explicit(&cct_counts[cbid], 1, memory_order_relaxed);
}

static int cct_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void cct_write(void)
{
	const char *path = getenv("CUPTI_COUNT_OUT");
	FILE *f = path && *path ? fopen(path, "w") : stderr;
	char *lines[CCT_MAX_CBID];
	size_t n = 0;

	cuptiUnsubscribe(cct_subscriber);
	if (!f) {
		fprintf(stderr, "cupti_count: cannot write %s\n", path);
		return;
	}
	for (CUpti_CallbackId id = 0; id < CCT_MAX_CBID; id++) {
		unsigned long c = atomic_load(&cct_counts[id]);
		const char *name = NULL;
		char *line;

		if (!c || cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, id, &name) != CUPTI_SUCCESS || !name)
			continue;
		line = malloc(strlen(name) + 32);
		if (!line)
			break;
		sprintf(line, "%s %lu", name, c);
		lines[n++] = line;
	}
	qsort(lines, n, sizeof(lines[0]), cct_cmp);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n", lines[i]);
		free(lines[i]);
	}
	if (f != stderr)
		fclose(f);
}

static void cct_init(void)
{
	if (cuptiSubscribe(&cct_subscriber, cct_callback, NULL) != CUPTI_SUCCESS ||
	    cuptiEnableDomain(1, cct_subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
		fprintf(stderr, "cupti_count: could not subscribe to driver API callbacks\n");
		return;
	}
	atexit(cct_write);
}

int InitializeInjection(void)
{
	pthread_once(&cct_once, cct_init);
	return 1;
}

__attribute__((constructor)) static void cct_preload(void)
{
	if (!getenv("CUDA_INJECTION64_PATH"))
		pthread_once(&cct_once, cct_init);
}
