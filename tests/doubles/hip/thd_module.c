/*
 * thd_module.c - registration, modules, globals and launches of the
 * double (thd.h says which behaviour of ROCm's clr it follows).
 */
#include "tests/doubles/hip/thd.h"
#include "tests/doubles/hip/thd_twins.h"

#include <dlfcn.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The device this double claims to be: its code object is preferred in a
 * bundle. */
#define THD_TARGET "hipv4-amdgcn-amd-amdhsa--gfx90a"
#define THD_TARGET_PREFIX "hipv4-amdgcn-amd-amdhsa--"

/* Host stubs of <<<>>> kernels and host shadows of __device__ variables,
 * from registration; the pushed launch configuration of this thread. */
typedef struct thd_stub {
	const void *host;
	struct ihipModuleSymbol_t *fn;
} thd_stub;

typedef struct thd_var {
	const void *host;
	thd_global *g;
} thd_var;

static struct {
	thd_stub *stubs;
	size_t nstubs;
	thd_var *vars;
	size_t nvars;
	atomic_ullong not_run;
	char **not_run_names;
	size_t n_not_run_names;
	struct ihipModuleSymbol_t **fns; /* every hipFunction_t handed out */
	size_t nfns;
} thd_mod_g;

typedef struct thd_config {
	dim3 grid, block;
	size_t shared;
	hipStream_t stream;
} thd_config;

#define THD_CONFIG_DEPTH 8
static __thread thd_config thd_configs[THD_CONFIG_DEPTH];
static __thread unsigned thd_nconfigs;

THD_EXPORT unsigned long long tship_double_launches_not_run(void)
{
	return atomic_load(&thd_mod_g.not_run);
}

/* ---- code objects ------------------------------------------------------------- */

/* The code object of image (a bundle or one ELF) this device runs: the
 * gfx90a entry, else the first amdgcn one. */
static hipError_t thd_code_object(const uint8_t *image, size_t len, const uint8_t **co,
                                  size_t *co_len)
{
	sbt_amd_kind kind;
	size_t size, count, pick = SIZE_MAX;
	sbt_amd_entry e;

	if (sbt_amd_image_size(image, len, &size, &kind) != SBT_AMD_OK)
		return hipErrorInvalidImage;
	if (kind == SBT_AMD_IMAGE_ELF) {
		*co = image;
		*co_len = size;
		return hipSuccess;
	}
	if (kind != SBT_AMD_IMAGE_BUNDLE || sbt_amd_bundle_count(image, size, &count) != SBT_AMD_OK)
		return hipErrorInvalidImage;
	for (size_t i = 0; i < count; i++) {
		if (sbt_amd_bundle_entry_at(image, size, i, &e) != SBT_AMD_OK)
			return hipErrorInvalidImage;
		if (e.size == 0 || e.id_len < strlen(THD_TARGET_PREFIX) ||
		    memcmp(e.id, THD_TARGET_PREFIX, strlen(THD_TARGET_PREFIX)) != 0)
			continue;
		if (pick == SIZE_MAX ||
		    (e.id_len == strlen(THD_TARGET) && memcmp(e.id, THD_TARGET, e.id_len) == 0))
			pick = i;
	}
	if (pick == SIZE_MAX)
		return hipErrorNoBinaryForGpu;
	sbt_amd_bundle_entry_at(image, size, pick, &e);
	*co = image + e.offset;
	*co_len = e.size;
	return hipSuccess;
}

/* The code object's global variables (STT_OBJECT symbols), each a device
 * allocation holding its initial bytes. */
static hipError_t thd_globals_read(struct ihipModule_t *m, const uint8_t *co, size_t len)
{
	hipError_t r = hipErrorInvalidImage;
	char *copy = malloc(len);
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;

	if (!copy)
		return hipErrorOutOfMemory;
	memcpy(copy, co, len);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, len);
	if (!elf)
		goto out_free;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			goto out_end;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr dsh;
			Elf_Scn *ds;
			const char *name;
			thd_global *g;
			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    sym.st_size == 0 || GELF_ST_BIND(sym.st_info) == STB_LOCAL)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			ds = elf_getscn(elf, sym.st_shndx);
			if (!name || !ds || !gelf_getshdr(ds, &dsh))
				goto out_end;
			g = realloc(m->globals, (m->nglobals + 1) * sizeof(*g));
			if (!g) {
				r = hipErrorOutOfMemory;
				goto out_end;
			}
			m->globals = g;
			g = &m->globals[m->nglobals];
			g->size = sym.st_size;
			g->name = strdup(name);
			g->bytes = mmap(NULL, (sym.st_size + 4095) & ~4095ull, PROT_READ | PROT_WRITE,
			                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (!g->name || g->bytes == MAP_FAILED) {
				free(g->name);
				r = hipErrorOutOfMemory;
				goto out_end;
			}
			m->nglobals++;
			if (dsh.sh_type != SHT_NOBITS) {
				uint64_t off = sym.st_value - dsh.sh_addr;
				if (sym.st_value < dsh.sh_addr || off > dsh.sh_size ||
				    sym.st_size > dsh.sh_size - off || dsh.sh_offset + off > len ||
				    sym.st_size > len - dsh.sh_offset - off)
					goto out_end;
				memcpy(g->bytes, co + dsh.sh_offset + off, sym.st_size);
			}
			if (thd_mem_add((uintptr_t)g->bytes, g->size, 0, THD_MEM_GLOBAL) != 0) {
				r = hipErrorOutOfMemory;
				goto out_end;
			}
		}
	}
	r = hipSuccess;
out_end:
	elf_end(elf);
out_free:
	free(copy);
	return r;
}

/* Load image (sized from its header; len SIZE_MAX trusts it, as the
 * runtime does for the calls that pass no length). */
static hipError_t thd_module_load(const void *image, size_t len, int registered,
                                  struct ihipModule_t **out)
{
	struct ihipModule_t *m;
	const uint8_t *co;
	size_t co_len;
	char why[160];
	hipError_t r;

	if (!image)
		return hipErrorInvalidValue;
	r = thd_code_object(image, len, &co, &co_len);
	if (r != hipSuccess)
		return r;
	m = thd_object_new(sizeof(*m)); /* stays in the registry, even when refused */
	if (!m)
		return hipErrorOutOfMemory;
	if (sbt_amd_meta_read(co, co_len, &m->meta, why, sizeof(why)) != SBT_AMD_OK) {
		thd_say("code object refused: %s", why);
		return hipErrorInvalidImage;
	}
	r = thd_globals_read(m, co, co_len);
	if (r != hipSuccess)
		return r; /* its globals stay mapped, as every object (thd.h) */
	m->magic = THD_LIVE;
	m->registered = registered;
	*out = m;
	return hipSuccess;
}

thd_global *thd_module_global(struct ihipModule_t *m, const char *name)
{
	for (size_t i = 0; m && i < m->nglobals; i++)
		if (strcmp(m->globals[i].name, name) == 0)
			return &m->globals[i];
	return NULL;
}

static hipError_t thd_function_get(struct ihipModule_t *m, const char *name,
                                   struct ihipModuleSymbol_t **out)
{
	const sbt_amd_kernel *k;
	struct ihipModuleSymbol_t *f, **v;
	hipError_t r = hipSuccess;

	thd_lock();
	for (size_t i = 0; i < m->nfns; i++) {
		if (strcmp(m->fns[i]->name, name) == 0) {
			*out = m->fns[i];
			goto out;
		}
	}
	k = sbt_amd_meta_find(m->meta, name);
	if (!k) {
		r = hipErrorNotFound;
		goto out;
	}
	v = realloc(m->fns, (m->nfns + 1) * sizeof(*v));
	if (v)
		m->fns = v;
	f = v ? thd_object_new(sizeof(*f)) : NULL;
	if (!f || !(f->name = strdup(name))) {
		r = hipErrorOutOfMemory;
		goto out;
	}
	f->magic = THD_LIVE;
	f->mod = m;
	f->k = k;
	m->fns[m->nfns++] = f;
	v = realloc(thd_mod_g.fns, (thd_mod_g.nfns + 1) * sizeof(*v));
	if (v) {
		thd_mod_g.fns = v;
		v[thd_mod_g.nfns++] = f;
	}
	*out = f;
out:
	thd_unlock();
	return r;
}

int thd_function_known(const void *p)
{
	int found = 0;

	thd_lock();
	for (size_t i = 0; i < thd_mod_g.nfns && !found; i++)
		found = (const void *)thd_mod_g.fns[i] == p;
	thd_unlock();
	return found;
}

/* ---- registration (what hipcc's generated constructor calls) ------------------ */

THD_EXPORT void **__hipRegisterFatBinary(const void *data);
THD_EXPORT void __hipRegisterFunction(void **modules, const void *hostFunction,
                                      char *deviceFunction, const char *deviceName,
                                      unsigned int threadLimit, void *tid, void *bid,
                                      dim3 *blockDim, dim3 *gridDim, int *wSize);
THD_EXPORT void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar,
                                 int ext, size_t size, int constant, int global);
THD_EXPORT void __hipUnregisterFatBinary(void **modules);
THD_EXPORT hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                 hipStream_t stream);
THD_EXPORT hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                                hipStream_t *stream);

/* The runtime returns a pointer to its module list; here the module
 * itself (NULL: the program's kernels then fail to launch). */
void **__hipRegisterFatBinary(const void *data)
{
	const uint32_t *w = data;
	const void *bundle;
	struct ihipModule_t *m = NULL;
	hipError_t r;

	if (!w || w[0] != SBT_AMD_WRAPPER_MAGIC) {
		thd_say("__hipRegisterFatBinary: not a fat-binary wrapper (magic 0x%08x)", w ? w[0] : 0);
		return NULL;
	}
	bundle = sbt_amd_wrapper_bundle(data, NULL);
	r = thd_module_load(bundle, SIZE_MAX, 1, &m);
	if (r != hipSuccess) {
		thd_say("__hipRegisterFatBinary: %s", hipGetErrorString(r));
		return NULL;
	}
	return (void **)m;
}

void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize)
{
	struct ihipModule_t *m = (struct ihipModule_t *)modules;
	struct ihipModuleSymbol_t *f = NULL;
	thd_stub *v;

	(void)deviceFunction, (void)threadLimit, (void)tid, (void)bid, (void)blockDim, (void)gridDim;
	(void)wSize;
	if (!m || !deviceName || thd_function_get(m, deviceName, &f) != hipSuccess) {
		thd_say("__hipRegisterFunction: kernel %s is not in its code object",
		        deviceName ? deviceName : "(null)");
		return;
	}
	thd_lock();
	v = realloc(thd_mod_g.stubs, (thd_mod_g.nstubs + 1) * sizeof(*v));
	if (v) {
		thd_mod_g.stubs = v;
		v[thd_mod_g.nstubs++] = (thd_stub){hostFunction, f};
	}
	thd_unlock();
}

void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
                      size_t size, int constant, int global)
{
	struct ihipModule_t *m = (struct ihipModule_t *)modules;
	thd_global *g = thd_module_global(m, deviceVar ? deviceVar : "");
	thd_var *v;

	(void)hostVar, (void)ext, (void)constant, (void)global;
	if (!g || g->size != size) {
		thd_say("__hipRegisterVar: variable %s is not in its code object",
		        deviceVar ? deviceVar : "(null)");
		return;
	}
	thd_lock();
	v = realloc(thd_mod_g.vars, (thd_mod_g.nvars + 1) * sizeof(*v));
	if (v) {
		thd_mod_g.vars = v;
		v[thd_mod_g.nvars++] = (thd_var){var, g};
	}
	thd_unlock();
}

void __hipUnregisterFatBinary(void **modules)
{
	struct ihipModule_t *m = (struct ihipModule_t *)modules;

	thd_sync_device();
	if (m && m->magic == THD_LIVE)
		m->magic = THD_DEAD;
}

hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                      hipStream_t stream)
{
	if (thd_nconfigs == THD_CONFIG_DEPTH)
		return thd_ret(hipErrorInvalidValue);
	thd_configs[thd_nconfigs++] = (thd_config){gridDim, blockDim, sharedMem, stream};
	return hipSuccess;
}

hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                     hipStream_t *stream)
{
	thd_config *c;

	if (!thd_nconfigs)
		return thd_ret(hipErrorInvalidValue);
	c = &thd_configs[--thd_nconfigs];
	*gridDim = c->grid;
	*blockDim = c->block;
	*sharedMem = c->shared;
	*stream = c->stream;
	return hipSuccess;
}

/* ---- modules --------------------------------------------------------------------- */

THD_EXPORT hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
	if (!module)
		return thd_ret(hipErrorInvalidValue);
	return thd_ret(thd_module_load(image, SIZE_MAX, 0, module));
}

THD_EXPORT hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image,
                                          unsigned int numOptions, hipJitOption *options,
                                          void **optionValues)
{
	(void)numOptions, (void)options, (void)optionValues;
	return hipModuleLoadData(module, image);
}

THD_EXPORT hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
	FILE *f;
	uint8_t *buf = NULL;
	long n;
	hipError_t r = hipErrorFileNotFound;

	if (!module || !fname)
		return thd_ret(hipErrorInvalidValue);
	f = fopen(fname, "rb");
	if (!f)
		return thd_ret(r);
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		r = thd_module_load(buf, (size_t)n, 0, module);
	else
		r = hipErrorInvalidImage;
	free(buf);
	fclose(f);
	return thd_ret(r);
}

THD_EXPORT hipError_t hipModuleUnload(hipModule_t module)
{
	if (!module || module->magic != THD_LIVE || module->registered)
		return thd_ret(hipErrorInvalidHandle);
	thd_sync_device(); /* work in flight may use its kernels */
	module->magic = THD_DEAD;
	return hipSuccess;
}

THD_EXPORT hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                           const char *kname)
{
	if (!function || !kname)
		return thd_ret(hipErrorInvalidValue);
	if (!module || module->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	return thd_ret(thd_function_get(module, kname, function));
}

THD_EXPORT hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t hmod,
                                         const char *name)
{
	thd_global *g;

	if (!name)
		return thd_ret(hipErrorInvalidValue);
	if (!hmod || hmod->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	g = thd_module_global(hmod, name);
	if (!g)
		return thd_ret(hipErrorNotFound);
	if (dptr)
		*dptr = g->bytes;
	if (bytes)
		*bytes = g->size;
	return hipSuccess;
}

/* ---- symbols ---------------------------------------------------------------------- */

static thd_global *thd_var_find(const void *host)
{
	thd_global *g = NULL;

	thd_lock();
	for (size_t i = 0; i < thd_mod_g.nvars && !g; i++)
		if (thd_mod_g.vars[i].host == host)
			g = thd_mod_g.vars[i].g;
	thd_unlock();
	return g;
}

static hipError_t thd_symbol_copy(const void *symbol, void *host, size_t n, size_t offset,
                                  int to_symbol, hipStream_t stream)
{
	thd_global *g = thd_var_find(symbol);

	if (!g)
		return thd_ret(hipErrorInvalidSymbol);
	if (offset > g->size || n > g->size - offset)
		return thd_ret(hipErrorInvalidValue);
	return to_symbol ? thd_copy_on(g->bytes + offset, host, n, stream)
	                 : thd_copy_on(host, g->bytes + offset, n, stream);
}

THD_EXPORT hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t n,
                                        size_t offset, hipMemcpyKind kind)
{
	(void)kind;
	return thd_symbol_copy(symbol, (void *)(uintptr_t)src, n, offset, 1, NULL);
}

/* As clr (hip_memory.cpp): the async symbol copies find the symbol's
 * device address, then copy through the exported hipMemcpyAsync, which
 * ROCm 5.2's libamdhip64 calls through its PLT (a JUMP_SLOT relocation),
 * so an interposer sees that call nested in its own.  The double is linked
 * -Bsymbolic (where RTLD_DEFAULT would find its own first): the global
 * scope's hipMemcpyAsync is looked up in the program's handle instead (its
 * own when the double was opened RTLD_LOCAL and is not in that scope).  TSHIP_DOUBLE_NESTED=1 says
 * which object the call went to. */
static hipError_t thd_symbol_copy_async(const char *name, const void *symbol, void *host, size_t n,
                                        size_t offset, int to_symbol, hipMemcpyKind kind,
                                        hipStream_t stream)
{
	hipError_t (*copy)(void *, const void *, size_t, hipMemcpyKind, hipStream_t) = hipMemcpyAsync;
	void *prog = dlopen(NULL, RTLD_NOW); /* the global scope, in load order */
	void *found = prog ? dlsym(prog, "hipMemcpyAsync") : NULL;
	thd_global *g = thd_var_find(symbol);
	const char *nested = getenv("TSHIP_DOUBLE_NESTED");
	Dl_info di;

	if (!g)
		return thd_ret(hipErrorInvalidSymbol);
	if (offset > g->size || n > g->size - offset)
		return thd_ret(hipErrorInvalidValue);
	if (prog)
		dlclose(prog);
	if (found)
		*(void **)&copy = found;
	if (nested && strcmp(nested, "1") == 0 && dladdr(*(void **)&copy, &di) && di.dli_fname) {
		const char *base = strrchr(di.dli_fname, '/');
		thd_say("%s calls hipMemcpyAsync in %s", name, base ? base + 1 : di.dli_fname);
	}
	return to_symbol ? copy(g->bytes + offset, host, n, kind, stream)
	                 : copy(host, g->bytes + offset, n, kind, stream);
}

THD_EXPORT hipError_t hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t n,
                                             size_t offset, hipMemcpyKind kind, hipStream_t s)
{
	return thd_symbol_copy_async("hipMemcpyToSymbolAsync", symbol, (void *)(uintptr_t)src, n,
	                             offset, 1, kind, s);
}

THD_EXPORT hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t n, size_t offset,
                                          hipMemcpyKind kind)
{
	(void)kind;
	return thd_symbol_copy(symbol, dst, n, offset, 0, NULL);
}

THD_EXPORT hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t n,
                                               size_t offset, hipMemcpyKind kind, hipStream_t s)
{
	return thd_symbol_copy_async("hipMemcpyFromSymbolAsync", symbol, dst, n, offset, 0, kind, s);
}

/* ---- running a kernel --------------------------------------------------------------- */

/* The jump target of the twin running on this thread, if any; the
 * dispositions found when the guard was installed (written once, before
 * any twin runs).  A fault outside a twin is not the double's: the handler
 * puts back what it found and returns, so the instruction faults again
 * under the program's own disposition (a real crash still crashes). */
static __thread sigjmp_buf *thd_guard_jmp;
static struct sigaction thd_guard_prev_segv, thd_guard_prev_bus;

static void thd_guard_handler(int sig)
{
	sigjmp_buf *jb = thd_guard_jmp;

	if (jb) {
		thd_guard_jmp = NULL;
		siglongjmp(*jb, 1);
	}
	sigaction(sig, sig == SIGBUS ? &thd_guard_prev_bus : &thd_guard_prev_segv, NULL);
}

static void thd_guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = thd_guard_handler;
	/* SA_NODEFER: the jump leaves the handler without sigreturn */
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &thd_guard_prev_segv);
	sigaction(SIGBUS, &sa, &thd_guard_prev_bus);
}

static void thd_not_run(const char *name)
{
	int seen = 0;

	atomic_fetch_add(&thd_mod_g.not_run, 1);
	thd_lock();
	for (size_t i = 0; i < thd_mod_g.n_not_run_names && !seen; i++)
		seen = !strcmp(thd_mod_g.not_run_names[i], name);
	if (!seen) {
		char **v = realloc(thd_mod_g.not_run_names, (thd_mod_g.n_not_run_names + 1) * sizeof(*v));
		if (v) {
			thd_mod_g.not_run_names = v;
			v[thd_mod_g.n_not_run_names++] = strdup(name);
		}
	}
	thd_unlock();
	if (!seen)
		thd_say("kernel %s has no host twin: NOT RUN", name);
}

hipError_t thd_kernel_run(struct ihipModuleSymbol_t *f, const unsigned grid[3],
                          const unsigned block[3], const uint8_t *args, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const thd_twin *t = thd_twin_find(f->name);
	thd_twin_launch l;
	sigjmp_buf jb;
	volatile enum thd_twin_result res = THD_TWIN_DONE;

	if (!t) {
		thd_not_run(f->name);
		return hipSuccess;
	}
	if (len < t->args_size)
		return hipErrorInvalidValue;
	/* The twins compute one-dimensional grids, as tests/hip launches them. */
	if (grid[1] != 1 || grid[2] != 1 || block[1] != 1 || block[2] != 1) {
		thd_say("kernel %s: the twin runs one-dimensional launches only", f->name);
		return hipErrorNotSupported;
	}
	/* A GPU runs 2^31 blocks in seconds, a host loop over them takes hours:
	 * a larger launch ends as the runtime ends a kernel that ran too long. */
	if ((uint64_t)grid[0] * block[0] > THD_TWIN_MAX_THREADS) {
		thd_say("kernel %s: %llu threads, more than the twin runs", f->name,
		        (unsigned long long)grid[0] * block[0]);
		return hipErrorLaunchTimeOut;
	}
	memcpy(l.grid, grid, sizeof(l.grid));
	memcpy(l.block, block, sizeof(l.block));
	l.args = args;
	l.args_len = len;
	l.mod = f->mod;
	pthread_once(&once, thd_guard_install);
	if (sigsetjmp(jb, 0) == 0) {
		thd_guard_jmp = &jb;
		res = t->fn(&l);
	} else {
		res = THD_TWIN_FAULT;
	}
	thd_guard_jmp = NULL;
	if (res == THD_TWIN_FAULT) {
		thd_say("kernel %s: illegal address", f->name);
		return hipErrorIllegalAddress;
	}
	return res == THD_TWIN_DONE ? hipSuccess : hipErrorInvalidValue;
}

/* Pack or take the kernarg bytes, then run f now or add it to the
 * stream's capture. */
static hipError_t thd_launch(struct ihipModuleSymbol_t *f, const unsigned grid[3],
                             const unsigned block[3], hipStream_t stream, void **params,
                             void **extra)
{
	const sbt_amd_kernel *k;
	uint8_t *buf = NULL;
	size_t len = 0;
	struct ihipGraph *g;
	int bad;
	hipError_t r;

	if (!f || f->magic != THD_LIVE || !f->mod || f->mod->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidResourceHandle);
	g = thd_stream_capture(stream, &bad);
	if (bad)
		return thd_ret(hipErrorInvalidHandle);
	if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
		return thd_ret(hipErrorInvalidConfiguration);
	k = f->k;
	if (extra) {
		const void *p = NULL;
		const size_t *sz = NULL;
		for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
				p = extra[i + 1];
			else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE)
				sz = extra[i + 1];
			else
				return thd_ret(hipErrorInvalidValue);
		}
		if (!p || !sz)
			return thd_ret(hipErrorInvalidValue);
		len = *sz;
		buf = malloc(len ? len : 1);
		if (!buf)
			return thd_ret(hipErrorOutOfMemory);
		memcpy(buf, p, len);
	} else {
		for (size_t i = 0; i < k->explicit_count; i++)
			if (k->args[i].offset + (size_t)k->args[i].size > len)
				len = k->args[i].offset + (size_t)k->args[i].size;
		buf = calloc(1, len ? len : 1);
		if (!buf)
			return thd_ret(hipErrorOutOfMemory);
		if (k->explicit_count && !params) {
			free(buf);
			return thd_ret(hipErrorInvalidValue);
		}
		for (size_t i = 0; i < k->explicit_count; i++)
			memcpy(buf + k->args[i].offset, params[i], k->args[i].size);
	}
	{
		thd_node n = {.kind = THD_NODE_KERNEL, .fn = f, .args = buf, .args_len = len};
		memcpy(n.grid, grid, sizeof(n.grid));
		memcpy(n.block, block, sizeof(n.block));
		if (g) {
			r = thd_graph_add(g, &n);
			if (r != hipSuccess)
				free(buf);
			return thd_ret(r);
		}
		n.owned = buf; /* the queue frees it once the kernel ran */
		return thd_ret(thd_enqueue(stream, &n));
	}
}

THD_EXPORT hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks,
                                      dim3 dimBlocks, void **args, size_t sharedMemBytes,
                                      hipStream_t stream)
{
	struct ihipModuleSymbol_t *f = NULL;
	unsigned grid[3] = {numBlocks.x, numBlocks.y, numBlocks.z};
	unsigned block[3] = {dimBlocks.x, dimBlocks.y, dimBlocks.z};

	(void)sharedMemBytes;
	thd_lock();
	for (size_t i = 0; i < thd_mod_g.nstubs && !f; i++)
		if (thd_mod_g.stubs[i].host == function_address)
			f = thd_mod_g.stubs[i].fn;
	thd_unlock();
	if (!f)
		return thd_ret(hipErrorInvalidDeviceFunction);
	return thd_launch(f, grid, block, stream, args, NULL);
}

/* clr 5.2's cooperative launch of a registered host stub: the launch
 * hipLaunchKernel makes (clr's also refuses a grid larger than the blocks
 * the device holds at once, hipErrorCooperativeLaunchTooLarge: the double
 * has no such limit). */
THD_EXPORT hipError_t hipLaunchCooperativeKernel(const void *f, dim3 gridDim, dim3 blockDimX,
                                                 void **kernelParams, unsigned int sharedMemBytes,
                                                 hipStream_t stream)
{
	return hipLaunchKernel(f, gridDim, blockDimX, kernelParams, sharedMemBytes, stream);
}

THD_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                            unsigned int gridDimY, unsigned int gridDimZ,
                                            unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes,
                                            hipStream_t stream, void **kernelParams, void **extra)
{
	unsigned grid[3] = {gridDimX, gridDimY, gridDimZ};
	unsigned block[3] = {blockDimX, blockDimY, blockDimZ};

	(void)sharedMemBytes;
	if (kernelParams && extra)
		return thd_ret(hipErrorInvalidValue);
	return thd_launch(f, grid, block, stream, kernelParams, extra);
}

/* ROCm 5.2 exports it C++-mangled only: work-item counts, not blocks. */
THD_EXPORT hipError_t thd_ext_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                            uint32_t lx, uint32_t ly, uint32_t lz, size_t shared,
                                            hipStream_t stream, void **params, void **extra,
                                            hipEvent_t start, hipEvent_t stop, uint32_t flags)
	__asm__("_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j");

hipError_t thd_ext_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                 uint32_t lx, uint32_t ly, uint32_t lz, size_t shared,
                                 hipStream_t stream, void **params, void **extra, hipEvent_t start,
                                 hipEvent_t stop, uint32_t flags)
{
	hipError_t r;

	(void)flags;
	if (!lx || !ly || !lz)
		return thd_ret(hipErrorInvalidConfiguration);
	if (start)
		hipEventRecord(start, stream);
	r = hipModuleLaunchKernel(f, (gx + lx - 1) / lx, (gy + ly - 1) / ly, (gz + lz - 1) / lz, lx,
	                          ly, lz, (unsigned)shared, stream, params, extra);
	if (stop && r == hipSuccess)
		hipEventRecord(stop, stream);
	return r;
}

/* ROCm 6's C name of it (hip_ext.h declares it extern "C" there; ROCm 5.2
 * exports only the mangled name): served under the double's tship_rocm6
 * version node so that a program finding it with dlsym can be tested. */
THD_EXPORT hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy,
                                               uint32_t gz, uint32_t lx, uint32_t ly, uint32_t lz,
                                               size_t shared, hipStream_t stream, void **params,
                                               void **extra, hipEvent_t start, hipEvent_t stop,
                                               uint32_t flags)
{
	return thd_ext_module_launch(f, gx, gy, gz, lx, ly, lz, shared, stream, params, extra, start,
	                             stop, flags);
}
