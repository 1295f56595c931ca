/*
 * cuda_notrun_shim - a stand-in "driver" for the replayer's not-run
 * reporting tests: it forwards cuGetProcAddress (both ABIs) to the libcuda
 * test double named by TST_SHIM_DRIVER and exports the double's not-run
 * counter (tests/doubles/cuda/tcd_ext.h), which here counts every
 * cuLaunchKernel made through it; with TST_SHIM_NO_BINARY set, its
 * cuModuleLoadData answers CUDA_ERROR_NO_BINARY_FOR_GPU; and it has the
 * cuFuncSetAttribute and cuKernelSetAttribute the double lacks, which only
 * note their arguments; the JIT options cuModuleLoadDataEx is given are
 * noted too.  So the replayer's reaction to launches
 * that ran nothing is tested with kernels that did run, without changing
 * the double.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static void *tst_shim_fn(const char *name)
{
	static void *dl;
	const char *path = getenv("TST_SHIM_DRIVER");
	if (!dl && path)
		dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	return dl ? dlsym(dl, name) : NULL;
}

typedef int (*tst_shim_launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                  unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                                  void **extra);
static tst_shim_launch_fn tst_shim_launch;
static unsigned long long tst_shim_launches;

static int tst_shim_launch_counted(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, void *stream,
                                   void **params, void **extra)
{
	tst_shim_launches++;
	return tst_shim_launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}

/* With TST_SHIM_NO_BINARY set, module loads fail as for an image built
 * for another GPU (CUDA_ERROR_NO_BINARY_FOR_GPU, 209). */
static int tst_shim_no_binary(void **module, const void *image)
{
	(void)module;
	(void)image;
	return 209;
}

/* cuFuncSetAttribute / cuKernelSetAttribute, which the double lacks: the
 * last call is kept for the test to read (tst_shim_last_attribute). */
static struct {
	int calls, kernel, attr, value, device;
	void *handle;
} tst_shim_attr;

static int tst_shim_func_set_attribute(void *func, int attr, int value)
{
	tst_shim_attr.calls++;
	tst_shim_attr.kernel = 0;
	tst_shim_attr.handle = func;
	tst_shim_attr.attr = attr;
	tst_shim_attr.value = value;
	tst_shim_attr.device = -1;
	return 0;
}

static int tst_shim_kernel_set_attribute(int attr, int value, void *kernel, int device)
{
	tst_shim_attr.calls++;
	tst_shim_attr.kernel = 1;
	tst_shim_attr.handle = kernel;
	tst_shim_attr.attr = attr;
	tst_shim_attr.value = value;
	tst_shim_attr.device = device;
	return 0;
}

/* The number of attribute calls so far, and the last one's arguments. */
int tst_shim_last_attribute(int *kernel, void **handle, int *attr, int *value, int *device)
{
	*kernel = tst_shim_attr.kernel;
	*handle = tst_shim_attr.handle;
	*attr = tst_shim_attr.attr;
	*value = tst_shim_attr.value;
	*device = tst_shim_attr.device;
	return tst_shim_attr.calls;
}

/* cuModuleLoadDataEx: the JIT options it was given are kept
 * (tst_shim_last_jit), then the double's is called. */
typedef int (*tst_shim_load_ex_fn)(void **module, const void *image, unsigned n, int *options, void **values);
static tst_shim_load_ex_fn tst_shim_load_ex;
static struct {
	unsigned n;
	int options[8];
	unsigned long long values[8];
} tst_shim_jit;

static int tst_shim_load_ex_noted(void **module, const void *image, unsigned n, int *options, void **values)
{
	unsigned i;
	tst_shim_jit.n = n;
	for (i = 0; i < n && i < 8; i++) {
		tst_shim_jit.options[i] = options[i];
		tst_shim_jit.values[i] = (unsigned long long)(unsigned long)values[i];
	}
	return tst_shim_load_ex(module, image, n, options, values);
}

/* The last cuModuleLoadDataEx's option count; its first options and values. */
unsigned tst_shim_last_jit(int *options, unsigned long long *values, unsigned max)
{
	unsigned i;
	for (i = 0; i < max && i < tst_shim_jit.n && i < 8; i++) {
		options[i] = tst_shim_jit.options[i];
		values[i] = tst_shim_jit.values[i];
	}
	return tst_shim_jit.n;
}

int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags,
                        int *status)
{
	int (*f)(const char *, void **, int, unsigned long long, int *) =
	    (int (*)(const char *, void **, int, unsigned long long, int *))tst_shim_fn("cuGetProcAddress_v2");
	int r = f ? f(symbol, pfn, version, flags, status) : 999;
	if (r == 0 && *pfn && strcmp(symbol, "cuLaunchKernel") == 0) {
		tst_shim_launch = (tst_shim_launch_fn)*pfn;
		*pfn = (void *)tst_shim_launch_counted;
	}
	if (r == 0 && *pfn && strcmp(symbol, "cuModuleLoadData") == 0 && getenv("TST_SHIM_NO_BINARY"))
		*pfn = (void *)tst_shim_no_binary;
	if (r == 0 && *pfn && strcmp(symbol, "cuModuleLoadDataEx") == 0) {
		tst_shim_load_ex = (tst_shim_load_ex_fn)*pfn;
		*pfn = (void *)tst_shim_load_ex_noted;
	}
	if (r == 0 && (strcmp(symbol, "cuFuncSetAttribute") == 0 || strcmp(symbol, "cuKernelSetAttribute") == 0)) {
		*pfn = symbol[2] == 'F' ? (void *)tst_shim_func_set_attribute : (void *)tst_shim_kernel_set_attribute;
		if (status)
			*status = 0; /* CU_GET_PROC_ADDRESS_SUCCESS */
	}
	return r;
}

int cuGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags)
{
	int (*f)(const char *, void **, int, unsigned long long) =
	    (int (*)(const char *, void **, int, unsigned long long))tst_shim_fn("cuGetProcAddress");
	return f ? f(symbol, pfn, version, flags) : 999;
}

unsigned long long tscuda_double_launches_not_run(void)
{
	return tst_shim_launches;
}
