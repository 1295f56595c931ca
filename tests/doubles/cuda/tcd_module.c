/*
 * tcd_module.c - module and library loading, functions and kernels, their
 * parameter layout, and launches.
 *
 * An image is whatever the driver takes (tcd_image.c reads them): a fatbin
 * wrapper, a fatbin, an ELF cubin, PTX, or the double's own module (an
 * x86-64 shared object from tests/doubles/cuda/modules/, alone or as an ELF
 * entry of a fatbin).  Like the driver, the double is not told the image's
 * size: the image's headers say it.  A double module is written to a memfd
 * and dlopened; its kernels are host functions.  A real image's kernels,
 * names and parameter layouts come from the image; each runs by its host
 * twin (tcd_twins.c) where one is registered under its name, and otherwise
 * runs nothing and is counted (tcd_ext.h, NOT RUN).  Code only for another
 * architecture than the device's (sm_90) is CUDA_ERROR_NO_BINARY_FOR_GPU.
 *
 * Kernels run guarded (tcd_guard.c): a wild access is not a crash but
 * CUDA_ERROR_ILLEGAL_ADDRESS, sticky for the context, as on the driver.
 */
#include "tests/doubles/cuda/tcd.h"
#include "tests/doubles/cuda/tcd_ext.h"
#include "tests/doubles/cuda/tcd_image.h"
#include "tests/doubles/cuda/tcd_twins.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TCD_MAX_SHARED (48u * 1024u)
#define TCD_COOP_MAX_BLOCKS 256u
/* The device's compute capability (cuDeviceGetAttribute: 9.0), major*10+minor. */
#define TCD_DEVICE_ARCH 90u

static CUresult tcd_desc_check(const struct tcd_module_desc *d, const char *call)
{
	if (d->magic != TCD_MODULE_MAGIC || d->abi != TCD_MODULE_ABI)
		return tcd_fail(CUDA_ERROR_INVALID_IMAGE, call, "tcd_module_table has magic 0x%x abi %u, expected 0x%x abi %u",
				d->magic, d->abi, TCD_MODULE_MAGIC, TCD_MODULE_ABI);
	for (uint32_t i = 0; i < d->kernel_count; i++) {
		const struct tcd_kernel_desc *k = &d->kernels[i];

		if (!k->name || !k->fn || (k->param_count && !k->params))
			return tcd_fail(CUDA_ERROR_INVALID_IMAGE, call, "kernel %u of the module table is incomplete", i);
		for (uint32_t p = 0; p < k->param_count; p++)
			if (k->params[p].offset + k->params[p].size > k->param_bytes)
				return tcd_fail(CUDA_ERROR_INVALID_IMAGE, call,
						"kernel %s parameter %u lies outside its %u-byte buffer", k->name, p,
						k->param_bytes);
	}
	return CUDA_SUCCESS;
}

static void tcd_module_kill(struct tcd_module *m)
{
	for (uint32_t i = 0; i < m->desc->global_count; i++)
		tcd_range_remove((uintptr_t)m->desc->globals[i].addr);
	for (uint32_t i = 0; i < m->desc->kernel_count; i++)
		if (m->funcs[i])
			tcd_obj_kill(m->funcs[i]);
	/* The shared object stays mapped, as a real image's table is kept:
	 * graphs built from its kernels hold their descriptions and may still
	 * launch them (an unload moved ahead of a graph launch made
	 * cuGraphLaunch read unmapped memory). */
	tcd_obj_kill(m);
}

/* A double module: the shared object's bytes go to a memfd that is dlopened. */
static CUresult tcd_module_load_host(struct tcd_module **out, const void *image, size_t size, const char *call)
{
	struct tcd_module *m = NULL;
	char path[64];
	void *dl = NULL;
	const struct tcd_module_desc *desc;
	CUresult r;
	int fd = -1;

	fd = memfd_create("tcd-module", MFD_CLOEXEC);
	if (fd < 0) {
		r = tcd_fail(CUDA_ERROR_OPERATING_SYSTEM, call, "memfd_create: %s", strerror(errno));
		goto out;
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, (const char *)image + done, size - done);

		if (n <= 0) {
			r = tcd_fail(CUDA_ERROR_OPERATING_SYSTEM, call, "writing the image to a memfd: %s", strerror(errno));
			goto out_close_fd;
		}
		done += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		r = tcd_fail(CUDA_ERROR_INVALID_IMAGE, call, "the image does not load as a shared object: %s", dlerror());
		goto out_close_fd;
	}
	desc = dlsym(dl, "tcd_module_table");
	if (!desc) {
		r = tcd_fail(CUDA_ERROR_INVALID_IMAGE, call, "the shared object has no tcd_module_table");
		goto out_dlclose;
	}
	if ((r = tcd_desc_check(desc, call)) != CUDA_SUCCESS)
		goto out_dlclose;
	m = tcd_obj_new(sizeof(*m), TCD_KIND_MODULE);
	if (!m || !(m->funcs = calloc(desc->kernel_count + 1, sizeof(*m->funcs)))) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		goto out_kill;
	}
	m->dl = dl;
	m->memfd = -1;
	m->image_bytes = size;
	m->desc = desc;
	for (uint32_t i = 0; i < desc->kernel_count; i++) {
		struct tcd_function *f = tcd_obj_new(sizeof(*f), TCD_KIND_FUNCTION);

		if (!f) {
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
			goto out_kill;
		}
		f->module = m;
		f->k = &desc->kernels[i];
		m->funcs[i] = f;
	}
	for (uint32_t i = 0; i < desc->global_count; i++)
		if (tcd_range_add((uintptr_t)desc->globals[i].addr, desc->globals[i].bytes, TCD_RANGE_GLOBAL, 0) !=
		    CUDA_SUCCESS) {
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
			goto out_kill;
		}
	*out = m;
	r = CUDA_SUCCESS;
	goto out_close_fd;
out_kill:
	if (m) {
		if (m->funcs) {
			for (uint32_t i = 0; i < desc->global_count; i++)
				tcd_range_remove((uintptr_t)desc->globals[i].addr);
			for (uint32_t i = 0; i < desc->kernel_count; i++)
				if (m->funcs[i])
					tcd_obj_kill(m->funcs[i]);
		}
		tcd_obj_kill(m);
	}
out_dlclose:
	dlclose(dl);
out_close_fd:
	close(fd);
out:
	return r;
}

/* A real image's kernels become a module table with no host functions;
 * each function is bound to its twin, if the double has one. */
static CUresult tcd_module_load_real(struct tcd_module **out, struct tcd_image *img, const char *call)
{
	struct tcd_module *m = NULL;
	struct tcd_module_desc *d = calloc(1, sizeof(*d));
	struct tcd_kernel_desc *ks = calloc(img->kernel_count + 1, sizeof(*ks));
	CUresult r = CUDA_SUCCESS;

	if (!d || !ks || !(m = tcd_obj_new(sizeof(*m), TCD_KIND_MODULE)) ||
	    !(m->funcs = calloc(img->kernel_count + 1, sizeof(*m->funcs)))) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		goto out_free;
	}
	for (size_t i = 0; i < img->kernel_count; i++) {
		const struct tcd_image_kernel *ik = &img->kernels[i];

		ks[i].name = ik->name;
		ks[i].param_count = ik->param_count;
		ks[i].param_bytes = ik->param_bytes;
		ks[i].params = ik->params;
	}
	d->magic = TCD_MODULE_MAGIC;
	d->abi = TCD_MODULE_ABI;
	d->kernel_count = (uint32_t)img->kernel_count;
	d->kernels = ks;
	m->memfd = -1;
	m->desc = d;
	m->image = img;
	m->real_desc = d;
	for (uint32_t i = 0; i < d->kernel_count; i++) {
		struct tcd_function *f = tcd_obj_new(sizeof(*f), TCD_KIND_FUNCTION);

		if (!f) {
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
			goto out_kill;
		}
		f->module = m;
		f->k = &ks[i];
		f->real = true;
		f->twin = tcd_twin_find(ks[i].name);
		/* A kernel of the same name built from other source is not the twin's. */
		if (f->twin && f->twin->param_bytes != ks[i].param_bytes) {
			if (!tcd_g.quiet)
				tcd_warn("kernel %s takes %u parameter bytes in this image, its host twin %u: "
					 "the twin is not used", ks[i].name, ks[i].param_bytes, f->twin->param_bytes);
			f->twin = NULL;
		}
		m->funcs[i] = f;
	}
	*out = m;
	return CUDA_SUCCESS;
out_kill:
	for (uint32_t i = 0; i < d->kernel_count; i++)
		if (m->funcs[i])
			tcd_obj_kill(m->funcs[i]);
out_free:
	if (m)
		tcd_obj_kill(m);
	free(d);
	free(ks);
	tcd_image_free(img);
	return r;
}

struct tcd_parse_call {
	const void *image;
	size_t max;
	struct tcd_image *img;
	tcd_image_status status;
	char why[256];
};

static void tcd_parse_guarded(void *arg)
{
	struct tcd_parse_call *p = arg;

	p->status = tcd_image_parse(p->image, p->max, TCD_DEVICE_ARCH, &p->img, p->why, sizeof(p->why));
}

/* known_size: the image's length when the double knows it (a file), else 0. */
static CUresult tcd_module_load(struct tcd_module **out, const void *image, size_t known_size, const char *call)
{
	struct tcd_parse_call p = { image, known_size ? known_size : SIZE_MAX, NULL, TCD_IMAGE_INVALID, "" };
	uintptr_t fault = 0;
	CUresult r;

	if (!out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the output handle pointer is NULL");
	if (!image)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "image is NULL");
	/* The headers the image's length comes from may be lies, and a wrapper
	 * holds a pointer: reading follows them, guarded. */
	if (tcd_guard_call(tcd_parse_guarded, &p, &fault))
		return tcd_fail(CUDA_ERROR_INVALID_IMAGE, call, "reading the image faulted at %p (its headers point outside it)",
				(void *)fault);
	switch (p.status) {
	case TCD_IMAGE_OK:
		atomic_fetch_add_explicit(&tcd_g.prelinked_fatbins, p.img->prelinked, memory_order_relaxed);
		break;
	case TCD_IMAGE_NO_BINARY:
		return tcd_fail(CUDA_ERROR_NO_BINARY_FOR_GPU, call, "%s", p.why);
	case TCD_IMAGE_NOMEM:
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "%s", p.why);
	case TCD_IMAGE_INVALID:
	default:
		return tcd_fail(CUDA_ERROR_INVALID_IMAGE, call, "%s", p.why);
	}
	if (p.img->code != TCD_IMAGE_CODE_HOST)
		return tcd_module_load_real(out, p.img, call);
	r = tcd_module_load_host(out, p.img->host, p.img->host_bytes, call);
	tcd_image_free(p.img);
	return r;
}

static CUresult tcd_ctx_check(const char *call)
{
	struct tcd_ctx *c;

	return tcd_ctx_require(call, &c);
}

TCD_API(CUresult, cuModuleLoadData)(CUmodule *module, const void *image)
{
	CUresult r;

	TCD_ENTER_INIT(cuModuleLoadData);
	if ((r = tcd_ctx_check("cuModuleLoadData")) != CUDA_SUCCESS)
		return r;
	return tcd_module_load((struct tcd_module **)module, image, 0, "cuModuleLoadData");
}
TCD_EXPORT(cuModuleLoadData)

TCD_API(CUresult, cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned int numOptions,
				      CUjit_option *options, void **optionValues)
{
	CUresult r;

	TCD_ENTER_INIT(cuModuleLoadDataEx);
	if ((r = tcd_ctx_check("cuModuleLoadDataEx")) != CUDA_SUCCESS)
		return r;
	if (numOptions && (!options || !optionValues))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuModuleLoadDataEx", "%u options but no option arrays",
				numOptions);
	/* JIT options have nothing to act on in the double. */
	return tcd_module_load((struct tcd_module **)module, image, 0, "cuModuleLoadDataEx");
}
TCD_EXPORT(cuModuleLoadDataEx)

TCD_API(CUresult, cuModuleLoadFatBinary)(CUmodule *module, const void *fatCubin)
{
	CUresult r;

	TCD_ENTER_INIT(cuModuleLoadFatBinary);
	if ((r = tcd_ctx_check("cuModuleLoadFatBinary")) != CUDA_SUCCESS)
		return r;
	return tcd_module_load((struct tcd_module **)module, fatCubin, 0, "cuModuleLoadFatBinary");
}
TCD_EXPORT(cuModuleLoadFatBinary)

TCD_API(CUresult, cuModuleLoad)(CUmodule *module, const char *fname)
{
	FILE *f;
	unsigned char *buf = NULL;
	long size;
	CUresult r;

	TCD_ENTER_INIT(cuModuleLoad);
	if ((r = tcd_ctx_check("cuModuleLoad")) != CUDA_SUCCESS)
		return r;
	if (!fname)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuModuleLoad", "fname is NULL");
	f = fopen(fname, "rb");
	if (!f)
		return tcd_fail(CUDA_ERROR_FILE_NOT_FOUND, "cuModuleLoad", "cannot open %s: %s", fname, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    (size_t)size > TCD_IMAGE_MAX || !(buf = malloc((size_t)size + 8)) ||
	    fread(buf, 1, (size_t)size, f) != (size_t)size) {
		r = tcd_fail(CUDA_ERROR_FILE_NOT_FOUND, "cuModuleLoad", "cannot read %s", fname);
		goto out_close;
	}
	memset(buf + size, 0, 8);
	r = tcd_module_load((struct tcd_module **)module, buf, (size_t)size, "cuModuleLoad");
out_close:
	free(buf);
	fclose(f);
	return r;
}
TCD_EXPORT(cuModuleLoad)

static CUresult tcd_module_get(CUmodule h, const char *call, struct tcd_module **out)
{
	return tcd_obj_get(h, TCD_KIND_MODULE, call, "hmod", out);
}

TCD_API(CUresult, cuModuleUnload)(CUmodule hmod)
{
	struct tcd_module *m;
	CUresult r;

	TCD_ENTER_INIT(cuModuleUnload);
	if ((r = tcd_module_get(hmod, "cuModuleUnload", &m)) != CUDA_SUCCESS)
		return r;
	if (m->library)
		return tcd_fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleUnload",
				"module %p belongs to a library: unload the library", (void *)m);
	/* Its code must not be unmapped under a running kernel. */
	r = tcd_sync_all("cuModuleUnload");
	tcd_module_kill(m);
	return r;
}
TCD_EXPORT(cuModuleUnload)

static int tcd_kernel_index(const struct tcd_module *m, const char *name)
{
	for (uint32_t i = 0; i < m->desc->kernel_count; i++)
		if (!strcmp(m->desc->kernels[i].name, name))
			return (int)i;
	return -1;
}

TCD_API(CUresult, cuModuleGetFunction)(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	struct tcd_module *m;
	CUresult r;
	int i;

	TCD_ENTER_INIT(cuModuleGetFunction);
	if (!hfunc || !name)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuModuleGetFunction", "hfunc or name is NULL");
	if ((r = tcd_module_get(hmod, "cuModuleGetFunction", &m)) != CUDA_SUCCESS)
		return r;
	i = tcd_kernel_index(m, name);
	if (i < 0)
		return tcd_fail(CUDA_ERROR_NOT_FOUND, "cuModuleGetFunction", "no kernel named '%s' in module %p", name,
				(void *)m);
	*hfunc = (CUfunction)m->funcs[i];
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuModuleGetFunction)

static CUresult tcd_global(const struct tcd_module *m, const char *name, uintptr_t *dptr, size_t *bytes,
			   const char *call)
{
	if (!name)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "name is NULL");
	for (uint32_t i = 0; i < m->desc->global_count; i++)
		if (!strcmp(m->desc->globals[i].name, name)) {
			*dptr = (uintptr_t)m->desc->globals[i].addr;
			*bytes = m->desc->globals[i].bytes;
			return CUDA_SUCCESS;
		}
	return tcd_fail(CUDA_ERROR_NOT_FOUND, call, "no global named '%s'", name);
}

TCD_API(CUresult, cuModuleGetGlobal)(CUdeviceptr_v1 *dptr, unsigned int *bytes, CUmodule hmod, const char *name)
{
	struct tcd_module *m;
	uintptr_t p;
	size_t n;
	CUresult r;

	TCD_ENTER_INIT(cuModuleGetGlobal);
	if ((r = tcd_module_get(hmod, "cuModuleGetGlobal", &m)) != CUDA_SUCCESS ||
	    (r = tcd_global(m, name, &p, &n, "cuModuleGetGlobal")) != CUDA_SUCCESS)
		return r;
	if (p > 0xffffffffu)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuModuleGetGlobal",
				"global '%s' at 0x%lx does not fit the legacy 32-bit device pointer", name, (unsigned long)p);
	if (dptr)
		*dptr = (CUdeviceptr_v1)p;
	if (bytes)
		*bytes = (unsigned)n;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuModuleGetGlobal)

TCD_API(CUresult, cuModuleGetGlobal_v2)(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
	struct tcd_module *m;
	uintptr_t p;
	size_t n;
	CUresult r;

	TCD_ENTER_INIT(cuModuleGetGlobal_v2);
	if ((r = tcd_module_get(hmod, "cuModuleGetGlobal_v2", &m)) != CUDA_SUCCESS ||
	    (r = tcd_global(m, name, &p, &n, "cuModuleGetGlobal_v2")) != CUDA_SUCCESS)
		return r;
	if (dptr)
		*dptr = (CUdeviceptr)p;
	if (bytes)
		*bytes = n;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuModuleGetGlobal_v2)

/* ---- libraries and kernels (context-independent handles) ---- */

TCD_API(CUresult, cuLibraryLoadData)(CUlibrary *library, const void *code, CUjit_option *jitOptions,
				     void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions,
				     void **libraryOptionValues, unsigned int numLibraryOptions)
{
	const char *call = "cuLibraryLoadData";
	struct tcd_module *m;
	struct tcd_library *l;
	CUresult r;

	TCD_ENTER_INIT(cuLibraryLoadData);
	if (!library)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "library is NULL");
	if ((numJitOptions && (!jitOptions || !jitOptionsValues)) ||
	    (numLibraryOptions && (!libraryOptions || !libraryOptionValues)))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "option counts without option arrays");
	if ((r = tcd_module_load(&m, code, 0, call)) != CUDA_SUCCESS)
		return r;
	l = tcd_obj_new(sizeof(*l), TCD_KIND_LIBRARY);
	if (!l || !(l->kernels = calloc(m->desc->kernel_count + 1, sizeof(*l->kernels)))) {
		tcd_module_kill(m);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	}
	for (uint32_t i = 0; i < m->desc->kernel_count; i++) {
		struct tcd_kernel_obj *k = tcd_obj_new(sizeof(*k), TCD_KIND_KERNEL);

		if (!k) {
			tcd_module_kill(m);
			return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		}
		k->library = l;
		k->function = m->funcs[i];
		l->kernels[i] = k;
	}
	l->module = m;
	m->library = l;
	*library = (CUlibrary)l;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuLibraryLoadData)

TCD_API(CUresult, cuLibraryUnload)(CUlibrary library)
{
	struct tcd_library *l;
	CUresult r;

	TCD_ENTER_INIT(cuLibraryUnload);
	if ((r = tcd_obj_get(library, TCD_KIND_LIBRARY, "cuLibraryUnload", "library", &l)) != CUDA_SUCCESS)
		return r;
	r = tcd_sync_all("cuLibraryUnload");
	for (uint32_t i = 0; i < l->module->desc->kernel_count; i++)
		tcd_obj_kill(l->kernels[i]);
	tcd_obj_kill(l);
	tcd_module_kill(l->module);
	return r;
}
TCD_EXPORT(cuLibraryUnload)

TCD_API(CUresult, cuLibraryGetKernel)(CUkernel *pKernel, CUlibrary library, const char *name)
{
	struct tcd_library *l;
	CUresult r;
	int i;

	TCD_ENTER_INIT(cuLibraryGetKernel);
	if (!pKernel || !name)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuLibraryGetKernel", "pKernel or name is NULL");
	if ((r = tcd_obj_get(library, TCD_KIND_LIBRARY, "cuLibraryGetKernel", "library", &l)) != CUDA_SUCCESS)
		return r;
	i = tcd_kernel_index(l->module, name);
	if (i < 0)
		return tcd_fail(CUDA_ERROR_NOT_FOUND, "cuLibraryGetKernel", "no kernel named '%s' in library %p", name,
				(void *)l);
	*pKernel = (CUkernel)l->kernels[i];
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuLibraryGetKernel)

TCD_API(CUresult, cuLibraryGetModule)(CUmodule *pMod, CUlibrary library)
{
	struct tcd_library *l;
	CUresult r;

	TCD_ENTER_INIT(cuLibraryGetModule);
	if (!pMod)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuLibraryGetModule", "pMod is NULL");
	if ((r = tcd_ctx_check("cuLibraryGetModule")) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_obj_get(library, TCD_KIND_LIBRARY, "cuLibraryGetModule", "library", &l)) != CUDA_SUCCESS)
		return r;
	*pMod = (CUmodule)l->module;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuLibraryGetModule)

TCD_API(CUresult, cuLibraryGetGlobal)(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
	struct tcd_library *l;
	uintptr_t p;
	size_t n;
	CUresult r;

	TCD_ENTER_INIT(cuLibraryGetGlobal);
	if ((r = tcd_ctx_check("cuLibraryGetGlobal")) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_obj_get(library, TCD_KIND_LIBRARY, "cuLibraryGetGlobal", "library", &l)) != CUDA_SUCCESS ||
	    (r = tcd_global(l->module, name, &p, &n, "cuLibraryGetGlobal")) != CUDA_SUCCESS)
		return r;
	if (dptr)
		*dptr = (CUdeviceptr)p;
	if (bytes)
		*bytes = n;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuLibraryGetGlobal)

TCD_API(CUresult, cuKernelGetFunction)(CUfunction *pFunc, CUkernel kernel)
{
	struct tcd_kernel_obj *k;
	CUresult r;

	TCD_ENTER_INIT(cuKernelGetFunction);
	if (!pFunc)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuKernelGetFunction", "pFunc is NULL");
	if ((r = tcd_ctx_check("cuKernelGetFunction")) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_obj_get(kernel, TCD_KIND_KERNEL, "cuKernelGetFunction", "kernel", &k)) != CUDA_SUCCESS)
		return r;
	*pFunc = (CUfunction)k->function;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuKernelGetFunction)

/* A CUfunction, or a CUkernel passed where a CUfunction is expected (the
 * driver accepts both in launches and queries). */
static CUresult tcd_function_resolve(const void *h, const char *call, const char *what, struct tcd_function **out)
{
	struct tcd_function *f = NULL;

	pthread_mutex_lock(&tcd_g.lock);
	if (tcd_obj_is_locked(h, TCD_KIND_FUNCTION))
		f = (struct tcd_function *)h;
	else if (tcd_obj_is_locked(h, TCD_KIND_KERNEL))
		f = ((const struct tcd_kernel_obj *)h)->function;
	if (f && f->h.magic != TCD_MAGIC_LIVE)
		f = NULL;
	pthread_mutex_unlock(&tcd_g.lock);
	if (f) {
		*out = f;
		return CUDA_SUCCESS;
	}
	/* Not usable: let the checked lookup say why. */
	return tcd_obj_get(h, TCD_KIND_FUNCTION, call, what, out);
}

static CUresult tcd_name(const char **name, const void *h, enum tcd_kind kind, const char *call)
{
	struct tcd_function *f;
	struct tcd_kernel_obj *k;
	CUresult r;

	if (!name)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "name is NULL");
	if (kind == TCD_KIND_KERNEL) {
		if ((r = tcd_obj_get(h, TCD_KIND_KERNEL, call, "hfunc", &k)) != CUDA_SUCCESS)
			return r;
		f = k->function;
	} else if ((r = tcd_function_resolve(h, call, "hfunc", &f)) != CUDA_SUCCESS) {
		return r;
	}
	*name = f->k->name;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuKernelGetName)(const char **name, CUkernel hfunc)
{
	TCD_ENTER_INIT(cuKernelGetName);
	return tcd_name(name, hfunc, TCD_KIND_KERNEL, "cuKernelGetName");
}
TCD_EXPORT(cuKernelGetName)

TCD_API(CUresult, cuFuncGetName)(const char **name, CUfunction hfunc)
{
	TCD_ENTER_INIT(cuFuncGetName);
	return tcd_name(name, hfunc, TCD_KIND_FUNCTION, "cuFuncGetName");
}
TCD_EXPORT(cuFuncGetName)

static CUresult tcd_param_info(const struct tcd_function *f, size_t idx, size_t *off, size_t *size, const char *call)
{
	if (!off)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "paramOffset is NULL");
	if (idx >= f->k->param_count)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "kernel %s has %u parameters, index %zu asked", f->k->name,
				f->k->param_count, idx);
	*off = f->k->params[idx].offset;
	if (size)
		*size = f->k->params[idx].size;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuFuncGetParamInfo)(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
	struct tcd_function *f;
	CUresult r;

	TCD_ENTER_INIT(cuFuncGetParamInfo);
	if ((r = tcd_function_resolve(func, "cuFuncGetParamInfo", "func", &f)) != CUDA_SUCCESS)
		return r;
	return tcd_param_info(f, paramIndex, paramOffset, paramSize, "cuFuncGetParamInfo");
}
TCD_EXPORT(cuFuncGetParamInfo)

TCD_API(CUresult, cuKernelGetParamInfo)(CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
	struct tcd_kernel_obj *k;
	CUresult r;

	TCD_ENTER_INIT(cuKernelGetParamInfo);
	if ((r = tcd_obj_get(kernel, TCD_KIND_KERNEL, "cuKernelGetParamInfo", "kernel", &k)) != CUDA_SUCCESS)
		return r;
	return tcd_param_info(k->function, paramIndex, paramOffset, paramSize, "cuKernelGetParamInfo");
}
TCD_EXPORT(cuKernelGetParamInfo)

/* ---- launches ---- */


static CUresult tcd_pack_params(const struct tcd_kernel_desc *k, void **params, void **extra, unsigned char *buf,
				const char *call)
{
	if (params && extra)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "both kernelParams and extra are given");
	if (params) {
		for (uint32_t i = 0; i < k->param_count; i++) {
			if (!params[i])
				return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "kernelParams[%u] of kernel %s is NULL", i,
						k->name);
			memcpy(buf + k->params[i].offset, params[i], k->params[i].size);
		}
		return CUDA_SUCCESS;
	}
	if (extra) {
		const void *p = NULL;
		const size_t *size = NULL;

		for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				p = extra[i + 1];
			else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
				size = extra[i + 1];
			else
				return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "extra[%zu] is an unknown key %p", i, extra[i]);
		}
		if (!p || !size)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call,
					"extra needs both CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE");
		if (*size < k->param_bytes)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "extra's buffer has %zu bytes, kernel %s needs %u",
					*size, k->name, k->param_bytes);
		memcpy(buf, p, k->param_bytes);
		return CUDA_SUCCESS;
	}
	if (k->param_count)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "kernel %s takes %u parameters but none were given",
				k->name, k->param_count);
	return CUDA_SUCCESS;
}

static void tcd_not_run(const char *name);

/* The kernel op of a launch (or of a graph's kernel node: a->stream
 * unused), its arguments checked and its parameters copied (the caller
 * may reuse its storage at once). */
CUresult tcd_kernel_op(const struct tcd_launch_args *a, const char *call, struct tcd_op **out)
{
	static const unsigned max_grid[3] = { 0x7fffffffu, 65535u, 65535u };
	static const unsigned max_block[3] = { 1024u, 1024u, 64u };
	struct tcd_function *f;
	struct tcd_op *op;
	CUresult r;

	if ((r = tcd_function_resolve(a->f, call, "f", &f)) != CUDA_SUCCESS)
		return r;
	for (int d = 0; d < 3; d++) {
		if (a->grid[d] == 0 || a->grid[d] > max_grid[d])
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "grid dimension %c is %u (1 to %u)", "xyz"[d],
					a->grid[d], max_grid[d]);
		if (a->block[d] == 0 || a->block[d] > max_block[d])
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "block dimension %c is %u (1 to %u)", "xyz"[d],
					a->block[d], max_block[d]);
	}
	if ((uint64_t)a->block[0] * a->block[1] * a->block[2] > 1024)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%u x %u x %u threads per block exceed 1024", a->block[0],
				a->block[1], a->block[2]);
	if (a->shared > TCD_MAX_SHARED)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%u bytes of shared memory exceed %u", a->shared,
				TCD_MAX_SHARED);
	if (a->cooperative && (uint64_t)a->grid[0] * a->grid[1] * a->grid[2] > TCD_COOP_MAX_BLOCKS)
		return tcd_fail(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, call,
				"a cooperative grid of more than %u blocks cannot be co-resident", TCD_COOP_MAX_BLOCKS);
	op = tcd_op_new(TCD_OP_KERNEL);
	if (!op || !(op->u.kernel.params = calloc(1, f->k->param_bytes ? f->k->param_bytes : 1))) {
		tcd_op_free(op);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	}
	if ((r = tcd_pack_params(f->k, a->params, a->extra, op->u.kernel.params, call)) != CUDA_SUCCESS) {
		tcd_op_free(op);
		return r;
	}
	op->u.kernel.k = f->k;
	op->u.kernel.f = f;
	memcpy(op->u.kernel.grid, a->grid, sizeof(a->grid));
	memcpy(op->u.kernel.block, a->block, sizeof(a->block));
	op->u.kernel.shared = a->shared;
	*out = op;
	return CUDA_SUCCESS;
}

void tcd_kernel_op_made(const struct tcd_op *op)
{
	/* Counted when the launch is made, not when a stream worker gets to
	 * it: a replayer asking right after the launch must already see it. */
	if (op->u.kernel.f->real && !op->u.kernel.f->twin)
		tcd_not_run(op->u.kernel.k->name);
}

static CUresult tcd_launch(const struct tcd_launch_args *a, const char *call)
{
	struct tcd_stream *s;
	struct tcd_op *op;
	const struct tcd_function *f;
	CUresult r;

	if ((r = tcd_kernel_op(a, call, &op)) != CUDA_SUCCESS)
		return r;
	f = op->u.kernel.f;
	if ((r = tcd_stream_resolve(a->stream, a->per_thread, call, &s)) != CUDA_SUCCESS) {
		tcd_op_free(op);
		return r;
	}
	r = tcd_enqueue(s, op, call, NULL);
	if (r == CUDA_SUCCESS && f->real && !f->twin)
		tcd_not_run(f->k->name);
	return r;
}

CUresult tcd_ctx_sticky(struct tcd_ctx *ctx, const char *call)
{
	CUresult e = (CUresult)atomic_load(&ctx->sticky);

	if (e == CUDA_SUCCESS)
		return CUDA_SUCCESS;
	return tcd_fail(e, call, "context %p is broken: an earlier kernel or copy made an illegal memory access", (const void *)ctx);
}

/* A launch of a real kernel with no twin: counted, and said once per name.
 * (A launch captured into a graph counts when it is made too.) */
static void tcd_not_run(const char *name)
{
	bool seen = false;

	atomic_fetch_add(&tcd_g.launches_not_run, 1);
	pthread_mutex_lock(&tcd_g.lock);
	for (size_t i = 0; i < tcd_g.not_run_count && !seen; i++)
		seen = !strcmp(tcd_g.not_run_names[i], name);
	if (!seen) {
		char **n = realloc(tcd_g.not_run_names, (tcd_g.not_run_count + 1) * sizeof(*n));

		if (n) {
			tcd_g.not_run_names = n;
			n[tcd_g.not_run_count] = strdup(name);
			if (n[tcd_g.not_run_count])
				tcd_g.not_run_count++;
		}
	}
	pthread_mutex_unlock(&tcd_g.lock);
	if (!seen && !tcd_g.quiet)
		tcd_warn("kernel %s has no host twin: not run", name);
}

unsigned long long tscuda_double_launches_not_run(void) __attribute__((visibility("default")));
unsigned long long tscuda_double_launches_not_run(void)
{
	return atomic_load(&tcd_g.launches_not_run);
}

/* Device memory a kernel may touch: the ranges it last reached, so that a
 * twin's loads and stores (one check each) seldom take the registry's
 * lock.  Ranges do not go while a kernel runs: frees, unmaps and unloads
 * wait for the work in flight first. */
#define TCD_REACH_CACHE 4
struct tcd_reach_cache {
	uintptr_t lo[TCD_REACH_CACHE], hi[TCD_REACH_CACHE];
	unsigned next;
	uint64_t wild; /* the address refused, for the message */
};

/* tcd_twin_translate_fn: a twin's address is a host address when it lies
 * in memory a kernel may reach, else the twin ends with TCD_TWIN_FAULT. */
static void *tcd_twin_reach(void *ctx, uint64_t addr, size_t bytes)
{
	struct tcd_reach_cache *c = ctx;
	uintptr_t lo, hi;

	for (unsigned i = 0; i < TCD_REACH_CACHE; i++)
		if (addr >= c->lo[i] && addr < c->hi[i] && bytes <= c->hi[i] - addr)
			return (void *)(uintptr_t)addr;
	if (!tcd_range_reachable((uintptr_t)addr, bytes, &lo, &hi)) {
		c->wild = addr;
		return NULL;
	}
	c->lo[c->next] = lo;
	c->hi[c->next] = hi;
	c->next = (c->next + 1) % TCD_REACH_CACHE;
	return (void *)(uintptr_t)addr;
}

/* tcd_kernel_launch.reach for the double's module kernels. */
static void tcd_module_reach(const void *p, uint64_t bytes)
{
	uintptr_t lo, hi;

	if (bytes && (bytes > SIZE_MAX || !tcd_range_reachable((uintptr_t)p, (size_t)bytes, &lo, &hi)))
		tcd_guard_fault((uintptr_t)p);
}

/* One kernel run as tcd_guard_call runs it. */
struct tcd_kernel_call {
	const struct tcd_op *op;
	struct tcd_kernel_launch l;      /* double modules */
	struct tcd_twin_launch tl;       /* twins */
	enum tcd_twin_result twin_result;
};

static void tcd_kernel_call_run(void *arg)
{
	struct tcd_kernel_call *c = arg;
	const struct tcd_function *f = c->op->u.kernel.f;

	if (f && f->real)
		c->twin_result = tcd_twin_run(f->twin, &c->tl);
	else
		c->op->u.kernel.k->fn(&c->l);
}

void tcd_kernel_run(const struct tcd_op *op, struct tcd_ctx *ctx)
{
	const struct tcd_function *f = op->u.kernel.f;
	const struct tcd_kernel_desc *k = op->u.kernel.k;
	struct tcd_kernel_call c;
	struct tcd_reach_cache cache;
	uintptr_t fault = 0;
	bool faulted;

	if (f && f->real && !f->twin)
		return; /* counted and said at the launch (tcd_launch) */
	memset(&c, 0, sizeof(c));
	c.op = op;
	memcpy(c.l.grid, op->u.kernel.grid, sizeof(c.l.grid));
	memcpy(c.l.block, op->u.kernel.block, sizeof(c.l.block));
	c.l.shared_bytes = op->u.kernel.shared;
	c.l.shared = op->u.kernel.shared ? calloc(1, op->u.kernel.shared) : NULL;
	c.l.params = op->u.kernel.params;
	c.l.reach = tcd_module_reach;
	c.l.array_of = tcd_tex_array_of;
	if (op->u.kernel.shared && !c.l.shared) {
		tcd_warn("kernel %s: no host memory for %u bytes of shared memory; not run", k->name, op->u.kernel.shared);
		return;
	}
	memcpy(c.tl.grid, op->u.kernel.grid, sizeof(c.tl.grid));
	memcpy(c.tl.block, op->u.kernel.block, sizeof(c.tl.block));
	c.tl.params = op->u.kernel.params;
	c.tl.param_bytes = k->param_bytes;
	memset(&cache, 0, sizeof(cache));
	c.tl.translate = tcd_twin_reach;
	c.tl.translate_ctx = &cache;
	faulted = tcd_guard_call(tcd_kernel_call_run, &c, &fault);
	free(c.l.shared);
	if (!faulted && c.twin_result == TCD_TWIN_FAULT) {
		/* the twin's address check found it before the access */
		faulted = true;
		fault = (uintptr_t)cache.wild;
	}
	if (!faulted && c.twin_result == TCD_TWIN_DONE)
		return;
	/* The first fault breaks the context; later launches in it never run. */
	if (!faulted && c.twin_result == TCD_TWIN_TIMEOUT) {
		atomic_store(&ctx->sticky, (int)CUDA_ERROR_LAUNCH_TIMEOUT);
		if (!tcd_g.quiet)
			tcd_warn("kernel %s: %u x %u x %u blocks of %u x %u x %u threads are more than its host twin "
				 "runs (%llu): context %p is broken (CUDA_ERROR_LAUNCH_TIMEOUT)", k->name, c.tl.grid[0],
				 c.tl.grid[1], c.tl.grid[2], c.tl.block[0], c.tl.block[1], c.tl.block[2],
				 (unsigned long long)TCD_TWIN_MAX_THREADS, (void *)ctx);
		return;
	}
	atomic_store(&ctx->sticky, (int)CUDA_ERROR_ILLEGAL_ADDRESS);
	if (!tcd_g.quiet) {
		if (faulted)
			tcd_warn("kernel %s made an illegal memory access at %p: context %p is broken "
				 "(CUDA_ERROR_ILLEGAL_ADDRESS)", k->name, (void *)fault, (void *)ctx);
		else
			tcd_warn("kernel %s: its host twin could not run it (result %d): context %p is broken "
				 "(CUDA_ERROR_ILLEGAL_ADDRESS)", k->name, (int)c.twin_result, (void *)ctx);
	}
}

#define TCD_LAUNCH_ARGS(pt, coop)                                                                              \
	{ f, { gridDimX, gridDimY, gridDimZ }, { blockDimX, blockDimY, blockDimZ }, sharedMemBytes, hStream,   \
	  kernelParams, TCD_EXTRA, coop, pt }

#define TCD_EXTRA extra
TCD_API(CUresult, cuLaunchKernel)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
				  unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
				  unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
	const struct tcd_launch_args a = TCD_LAUNCH_ARGS(false, false);

	TCD_ENTER_INIT(cuLaunchKernel);
	return tcd_launch(&a, "cuLaunchKernel");
}
TCD_EXPORT(cuLaunchKernel)

TCD_API(CUresult, cuLaunchKernel_ptsz)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				       unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
				       unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
				       void **kernelParams, void **extra)
{
	const struct tcd_launch_args a = TCD_LAUNCH_ARGS(true, false);

	TCD_ENTER_INIT(cuLaunchKernel_ptsz);
	return tcd_launch(&a, "cuLaunchKernel_ptsz");
}
TCD_EXPORT(cuLaunchKernel_ptsz)
#undef TCD_EXTRA

#define TCD_EXTRA NULL
TCD_API(CUresult, cuLaunchCooperativeKernel)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
					     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
					     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
					     void **kernelParams)
{
	const struct tcd_launch_args a = TCD_LAUNCH_ARGS(false, true);

	TCD_ENTER_INIT(cuLaunchCooperativeKernel);
	return tcd_launch(&a, "cuLaunchCooperativeKernel");
}
TCD_EXPORT(cuLaunchCooperativeKernel)

TCD_API(CUresult, cuLaunchCooperativeKernel_ptsz)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
						  unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
						  unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
						  void **kernelParams)
{
	const struct tcd_launch_args a = TCD_LAUNCH_ARGS(true, true);

	TCD_ENTER_INIT(cuLaunchCooperativeKernel_ptsz);
	return tcd_launch(&a, "cuLaunchCooperativeKernel_ptsz");
}
TCD_EXPORT(cuLaunchCooperativeKernel_ptsz)
#undef TCD_EXTRA

static CUresult tcd_launch_ex(const CUlaunchConfig *c, CUfunction f, void **params, void **extra, bool pt,
			      const char *call)
{
	struct tcd_launch_args a;

	if (!c)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "config is NULL");
	if (c->numAttrs && !c->attrs)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "numAttrs is %u but attrs is NULL", c->numAttrs);
	a = (struct tcd_launch_args){ f,     { c->gridDimX, c->gridDimY, c->gridDimZ },
				      { c->blockDimX, c->blockDimY, c->blockDimZ },
				      c->sharedMemBytes, c->hStream, params, extra, false, pt };
	for (unsigned i = 0; i < c->numAttrs; i++) {
		if ((int)c->attrs[i].id <= 0 || c->attrs[i].id >= CU_LAUNCH_ATTRIBUTE_MAX)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "attrs[%u].id %d is unknown", i, (int)c->attrs[i].id);
		/* Other attributes change scheduling on a GPU, not results. */
		if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
			a.cooperative = c->attrs[i].value.cooperative != 0;
	}
	return tcd_launch(&a, call);
}

TCD_API(CUresult, cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
	TCD_ENTER_INIT(cuLaunchKernelEx);
	return tcd_launch_ex(config, f, kernelParams, extra, false, "cuLaunchKernelEx");
}
TCD_EXPORT(cuLaunchKernelEx)

TCD_API(CUresult, cuLaunchKernelEx_ptsz)(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
					 void **extra)
{
	TCD_ENTER_INIT(cuLaunchKernelEx_ptsz);
	return tcd_launch_ex(config, f, kernelParams, extra, true, "cuLaunchKernelEx_ptsz");
}
TCD_EXPORT(cuLaunchKernelEx_ptsz)
