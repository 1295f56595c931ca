/*
 * thip_core.c - finding the real HIP runtime's functions, handing out this
 * library's wrappers where a program looks entry points up on the
 * runtime's handle (dlsym), the per-call bookkeeping (reentrancy,
 * counting, whether to record), recording a model record, and the exit
 * report.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

/* One runtime function, found at its first use: fn once found (set once,
 * never changed); else looked = the runtime generation (thip_g.rt_gen + 1)
 * in which it was not found, so that a runtime found later is asked again. */
typedef struct thip_slot {
	void *_Atomic fn;
	atomic_uint looked;
} thip_slot;

static struct {
	pthread_once_t once;
	int enabled;                         /* TRACESMITH_API lets hip record */
	thip_slot real[THIP_FN_COUNT];
	atomic_uint_fast64_t calls[THIP_FN_COUNT];
	/* the same for the generated trampolines (thip_tramp.S) */
	thip_slot gen_real[THIP_GEN_COUNT];
	atomic_uint_fast64_t gen_calls[THIP_GEN_COUNT];
	/* THIP_RT_LIST: the generated slot of each (its index + 1; 0 not yet
	 * found, -1 none: then rt_own[] is its slot) */
	atomic_int rt_index[THIP_RT_COUNT];
	thip_slot rt_own[THIP_RT_COUNT];
	/* a runtime a dlsym on a handle found (opened by the program with
	 * RTLD_LOCAL, so not after this library in lookup order), asked after
	 * RTLD_NEXT; rt_gen counts the times it was set (once) */
	void *_Atomic rt_handle;
	atomic_uint rt_gen;
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

/* ---- finding the runtime's functions ---------------------------------------------------- */

/*
 * This library exports dlsym and dlvsym (below), so neither can find the C
 * library's for it: a call to either from here binds to our own export.
 * The one lookup that needs no lookup function is the bootstrap: the C
 * library's dlvsym is read from the dynamic symbol table of the object
 * that defines dladdr (libc.so.6 since glibc 2.34, libdl.so.2 before: the
 * one that defines dlvsym too), its default (not hidden) definition,
 * through its GNU hash table (thip_libc_dlvsym).  Everything else this
 * library looks up for itself goes through that dlvsym: the C library's
 * dlsym, dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34") (a versioned lookup
 * skips every unversioned definition, this library's and the CUDA
 * interposer's), and through that the runtime's functions.  Sanitizer
 * runtimes look their interceptions up with dlsym and dlvsym while they
 * start, before their shadow state exists: what our dlsym and dlvsym run
 * for them is uninstrumented (THIP_EARLY).
 */
#define THIP_EARLY __attribute__((no_sanitize_address, no_sanitize_thread))

typedef void *(*thip_dlsym_fn)(void *, const char *);
typedef void *(*thip_dlvsym_fn)(void *, const char *, const char *);

static thip_dlvsym_fn _Atomic thip_libc_dlvsym_ptr;
static thip_dlvsym_fn _Atomic thip_next_dlvsym_ptr;
static thip_dlsym_fn _Atomic thip_libc_dlsym_ptr;
static thip_dlsym_fn _Atomic thip_next_dlsym_ptr;

/* A dynamic-section address: glibc relocates them in place where the
 * section is writable (x86-64), not where it is read-only. */
THIP_EARLY static const void *thip_elf_ptr(const struct link_map *lm, ElfW(Addr) a)
{
	return (const void *)(a < lm->l_addr ? lm->l_addr + a : a);
}

/* Whether a and b are the same string: by hand, since a sanitizer
 * runtime may reach the bootstrap while it starts, before its own strcmp
 * interception can run. */
THIP_EARLY static int thip_elf_same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* The default definition of name in lm's own dynamic symbol table, found
 * through its GNU hash table; NULL when it has none (or no such table). */
THIP_EARLY static void *thip_elf_default(const struct link_map *lm, const char *name)
{
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	const uint32_t *gnu = NULL, *buckets, *chain;
	const ElfW(Half) *versym = NULL;
	uint32_t h = 5381, i;

	for (const ElfW(Dyn) *d = lm->l_ld; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			sym = thip_elf_ptr(lm, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			str = thip_elf_ptr(lm, d->d_un.d_ptr);
		else if (d->d_tag == DT_GNU_HASH)
			gnu = thip_elf_ptr(lm, d->d_un.d_ptr);
		else if (d->d_tag == DT_VERSYM)
			versym = thip_elf_ptr(lm, d->d_un.d_ptr);
	}
	if (!sym || !str || !gnu || !gnu[0])
		return NULL;
	for (const char *c = name; *c; c++)
		h = h * 33 + (uint8_t)*c;
	/* gnu: nbuckets, symoffset, bloom words, bloom shift, bloom, buckets, chain */
	buckets = (const uint32_t *)((const ElfW(Addr) *)&gnu[4] + gnu[2]);
	chain = buckets + gnu[0];
	i = buckets[h % gnu[0]];
	if (i < gnu[1])
		return NULL;
	for (;; i++) {
		uint32_t ch = chain[i - gnu[1]];
		if ((ch | 1) == (h | 1) && sym[i].st_shndx != SHN_UNDEF &&
		    (!versym || !(versym[i] & 0x8000)) && thip_elf_same(str + sym[i].st_name, name))
			return (void *)(lm->l_addr + sym[i].st_value);
		if (ch & 1)
			return NULL;
	}
}

/* The C library's dlvsym, the bootstrap above; resolved on first use. */
THIP_EARLY static thip_dlvsym_fn thip_libc_dlvsym(void)
{
	thip_dlvsym_fn f = atomic_load_explicit(&thip_libc_dlvsym_ptr, memory_order_acquire);
	struct link_map *lm = NULL;
	Dl_info di;

	if (!f && dladdr1((void *)dladdr, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm) {
		f = (thip_dlvsym_fn)thip_elf_default(lm, "dlvsym");
		atomic_store_explicit(&thip_libc_dlvsym_ptr, f, memory_order_release);
	}
	return f;
}

THIP_EARLY static thip_dlsym_fn thip_libc_dlsym(void)
{
	thip_dlsym_fn f = atomic_load_explicit(&thip_libc_dlsym_ptr, memory_order_acquire);
	thip_dlvsym_fn vsym;
	if (!f && (vsym = thip_libc_dlvsym())) {
		f = (thip_dlsym_fn)vsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!f)
			f = (thip_dlsym_fn)vsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
		atomic_store_explicit(&thip_libc_dlsym_ptr, f, memory_order_release);
	}
	return f;
}

/* The dlvsym after this library in lookup order: another preloaded
 * library's, else the C library's (the CUDA interposer exports none). */
THIP_EARLY __attribute__((visibility("hidden"))) thip_dlvsym_fn thip_next_dlvsym(void);
THIP_EARLY thip_dlvsym_fn thip_next_dlvsym(void)
{
	thip_dlvsym_fn f = atomic_load_explicit(&thip_next_dlvsym_ptr, memory_order_acquire);
	thip_dlsym_fn libc;
	if (!f && (libc = thip_libc_dlsym())) {
		f = (thip_dlvsym_fn)libc(RTLD_NEXT, "dlvsym");
		if (!f)
			f = thip_libc_dlvsym();
		atomic_store_explicit(&thip_next_dlvsym_ptr, f, memory_order_release);
	}
	return f;
}

/* The dlsym after this library in lookup order: the CUDA interposer's when
 * it is preloaded after this one (tscapture's order), so that its own
 * handing out of cu* wrappers still happens, else the C library's. */
THIP_EARLY __attribute__((visibility("hidden"))) thip_dlsym_fn thip_next_dlsym(void);
THIP_EARLY thip_dlsym_fn thip_next_dlsym(void)
{
	thip_dlsym_fn f = atomic_load_explicit(&thip_next_dlsym_ptr, memory_order_acquire);
	thip_dlsym_fn libc;
	if (!f && (libc = thip_libc_dlsym())) {
		f = (thip_dlsym_fn)libc(RTLD_NEXT, "dlsym");
		if (!f)
			f = libc;
		atomic_store_explicit(&thip_next_dlsym_ptr, f, memory_order_release);
	}
	return f;
}

/* This library's loaded segments, [lo, hi): found once (two first callers
 * find the same). */
static uintptr_t _Atomic thip_self_lo, thip_self_hi;

static int thip_self_phdr(struct dl_phdr_info *info, size_t size, void *base)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	(void)size;
	if ((void *)info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	atomic_store(&thip_self_lo, lo);
	atomic_store(&thip_self_hi, hi);
	return 1;
}

/* Whether p lies in this library (a range test: dladdr for every lookup
 * cost more than the lookup). */
static int thip_is_ours(const void *p)
{
	uintptr_t hi = atomic_load(&thip_self_hi);
	Dl_info me;

	if (!hi) {
		if (!dladdr((void *)thip_is_ours, &me) || !dl_iterate_phdr(thip_self_phdr, me.dli_fbase))
			return 0;
		hi = atomic_load(&thip_self_hi);
	}
	return (uintptr_t)p >= atomic_load(&thip_self_lo) && (uintptr_t)p < hi;
}

/* The runtime's definition of name: after this library in lookup order,
 * else in the runtime a dlsym on a handle found (thip_adopt); never one of
 * this library's own. */
static void *thip_lookup(const char *name)
{
	thip_dlsym_fn libc = thip_libc_dlsym();
	void *h, *f;

	if (!libc)
		return NULL;
	f = libc(RTLD_NEXT, name);
	if (!f && (h = atomic_load(&thip_g.rt_handle)))
		f = libc(h, name);
	return f && !thip_is_ours(f) ? f : NULL;
}

/* The function of slot s, named name (or alias, when the runtime exports it
 * under that spelling instead); NULL when the runtime has none (asked
 * again once a runtime is found by thip_adopt). */
static void *thip_slot_get(thip_slot *s, const char *name, const char *alias)
{
	void *f = atomic_load_explicit(&s->fn, memory_order_acquire), *none = NULL;
	unsigned gen;

	if (f)
		return f;
	gen = atomic_load(&thip_g.rt_gen) + 1;
	if (atomic_load_explicit(&s->looked, memory_order_acquire) == gen)
		return NULL;
	f = thip_lookup(name);
	if (!f && alias)
		f = thip_lookup(alias);
	if (f && !atomic_compare_exchange_strong(&s->fn, &none, f))
		f = none;
	atomic_store_explicit(&s->looked, gen, memory_order_release);
	return f;
}

/* The other spelling of a hand-wrapped entry point: hipExtModuleLaunchKernel
 * is C in ROCm 6, C++-mangled in 5.2. */
static const char *thip_fn_alias(thip_fn fn)
{
	if (fn == THIP_FN_hipExtModuleLaunchKernel)
		return THIP_EXT_LAUNCH_MANGLED;
	if (fn == THIP_FN_hipExtModuleLaunchKernel_mangled)
		return "hipExtModuleLaunchKernel";
	return NULL;
}

static void *thip_real(thip_fn fn)
{
	return thip_slot_get(&thip_g.real[fn], thip_fn_name(fn), thip_fn_alias(fn));
}

void *thip_own(thip_fn fn)
{
	pthread_once(&thip_g.once, thip_init_once);
	return thip_real(fn);
}

/* The index of name among the generated trampolines (sorted by the
 * generator), or -1. */
static int thip_gen_find(const char *name)
{
	size_t lo = 0, hi = THIP_GEN_COUNT;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(thip_gen_names[mid], name);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static const char *const thip_rt_names[THIP_RT_COUNT] = {
#define THIP_X_RT_NAME(n) #n,
	THIP_RT_LIST(THIP_X_RT_NAME)
#undef THIP_X_RT_NAME
};

void *thip_rt_get(thip_rt id)
{
	int index = atomic_load_explicit(&thip_g.rt_index[id], memory_order_acquire);

	if (!index) {
		index = thip_gen_find(thip_rt_names[id]);
		index = index < 0 ? -1 : index + 1;
		atomic_store_explicit(&thip_g.rt_index[id], index, memory_order_release);
	}
	if (index < 0)
		return thip_slot_get(&thip_g.rt_own[id], thip_rt_names[id], NULL);
	return thip_slot_get(&thip_g.gen_real[index - 1], thip_rt_names[id], NULL);
}

/* ---- dlsym on the runtime's handle ------------------------------------------------------ */

/* This library's own export named name (a wrapper or a trampoline), or NULL. */
static void *thip_export(const char *name)
{
	static void *_Atomic self;
	thip_dlsym_fn libc = thip_libc_dlsym();
	void *h = atomic_load(&self), *f;
	Dl_info me;

	if (!libc)
		return NULL;
	if (!h) {
		if (!dladdr((void *)thip_export, &me) || !me.dli_fname)
			return NULL;
		h = dlopen(me.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			return NULL;
		atomic_store(&self, h);
	}
	f = libc(h, name);
	/* dlsym on a handle also searches what the library depends on */
	return f && thip_is_ours(f) ? f : NULL;
}

/* The slot of the entry point this library exports as name, with the other
 * spelling it may be looked up under; NULL when it exports none. */
static thip_slot *thip_slot_by_name(const char *name, const char **alias)
{
	int i;

	*alias = NULL;
	for (i = 0; i < THIP_FN_COUNT; i++) {
		if (!strcmp(thip_fn_name((thip_fn)i), name)) {
			*alias = thip_fn_alias((thip_fn)i);
			return &thip_g.real[i];
		}
	}
	i = thip_gen_find(name);
	return i < 0 ? NULL : &thip_g.gen_real[i];
}

/* f was found on a handle: remember the runtime that holds it, for the
 * functions RTLD_NEXT does not find (the program opened it with
 * RTLD_LOCAL).  The first one found is kept. */
static void thip_rt_note(void *f)
{
	Dl_info di;
	void *h, *none = NULL;

	if (atomic_load(&thip_g.rt_handle) || !dladdr(f, &di) || !di.dli_fname)
		return;
	h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return;
	if (atomic_compare_exchange_strong(&thip_g.rt_handle, &none, h))
		atomic_fetch_add(&thip_g.rt_gen, 1);
	else
		dlclose(h);
}

void *thip_adopt(const char *name, void *f)
{
	const char *alias;
	thip_slot *s;
	void *ours, *cur, *none = NULL;

	if (!f || !name || thip_is_ours(f) || !(ours = thip_export(name)) ||
	    !(s = thip_slot_by_name(name, &alias)))
		return NULL;
	cur = thip_slot_get(s, name, alias);
	if (!cur) {
		thip_rt_note(f);
		cur = atomic_compare_exchange_strong(&s->fn, &none, f) ? f : none;
	}
	if (cur != f) {
		CAP_DEBUG("hip: %s found on a handle is not the runtime's this library calls: "
		          "handed out as found, not recorded", name);
		return NULL;
	}
	return ours;
}

/* The names this library may export (thip.map): the cheap test before
 * anything else is looked at.  Early (THIP_EARLY): a sanitizer's runtime
 * looks its own names up through our dlsym before it is ready, and this
 * is all such a lookup reaches (under make tsan an instrumented entry
 * here crashed every process the library was preloaded into). */
THIP_EARLY static int thip_is_hip_name(const char *name)
{
	return !strncmp(name, "hip", 3) || !strncmp(name, "__hip", 5) ||
	       !strncmp(name, "_Z24hipExtModuleLaunchKernel", 28);
}

/*
 * Whether name is one this library exports while the runtime defines no
 * function of that very spelling (ROCm 5.2 has hipExtModuleLaunchKernel
 * only C++-mangled, and no hipGetProcAddress, hipLaunchHostFunc,
 * hipGraphKernelNodeGetAttribute, hipGraphKernelNodeSetAttribute or
 * hipTexRefGetMipMappedArray): a lookup that would find our export then
 * answers as it would without the interposer.  When it is withheld the
 * failed lookups made here leave dlerror set (thip_lookup's last one).
 */
THIP_EARLY static int thip_withheld(const char *name)
{
	const char *alias;

	if (!name || !thip_is_hip_name(name) || !thip_slot_by_name(name, &alias))
		return 0;
	return !thip_lookup(name);
}

THIP_EARLY static void *thip_dlsym_absent(void *handle, const char *name)
{
	(void)handle;
	(void)name;
	return NULL;
}

/* The dlsym our dlsym jumps into for RTLD_NEXT and RTLD_DEFAULT, asked by
 * the caller at return address caller: the next one, or, for a name
 * withheld (above), one that answers NULL.  dlerror then reads as the C
 * library's for the caller's own object ("LIB: undefined symbol: NAME")
 * when the caller is a shared object (the lookup is repeated in its
 * scope); for the main program, whose name the C library takes from argv,
 * it names the runtime (or this library, when no runtime is known). */
THIP_EARLY __attribute__((visibility("hidden"))) thip_dlsym_fn thip_dlsym_route(const char *name,
                                                                               void *caller);
THIP_EARLY thip_dlsym_fn thip_dlsym_route(const char *name, void *caller)
{
	thip_dlsym_fn next = thip_next_dlsym(), libc;
	struct link_map *lm = NULL;
	Dl_info di;

	if (!next || !thip_withheld(name))
		return next;
	libc = thip_libc_dlsym();
	if (!thip_is_ours(caller) && dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm &&
	    lm->l_name && lm->l_name[0] && libc(lm, name))
		(void)libc(RTLD_NEXT, name); /* found in its own scope: keep a message */
	return thip_dlsym_absent;
}

/*
 * dlsym.  A program that opens the runtime itself and looks its entry
 * points up on that handle (Triton's HIP driver: dlopen("libamdhip64.so"),
 * dlsym(lib, "hipModuleLaunchKernel")) is handed this library's wrapper of
 * each name it exports, when the runtime's function found is the one the
 * wrapper calls (or, for a runtime the program opened with RTLD_LOCAL,
 * which RTLD_NEXT does not find, becomes it).  Everything else is the next
 * dlsym's answer as it gave it.
 *
 * RTLD_NEXT means "after the caller's object", found from the return
 * address, and RTLD_DEFAULT searches the caller's scope: for those two our
 * dlsym jumps into the next one with the caller's return address still on
 * the stack (x86-64, as the trampolines), so they keep their meaning
 * exactly, and an interposer layered after this one still finds the
 * runtime through RTLD_NEXT.  This library comes before the runtime in
 * every scope (LD_PRELOAD), so a hip* name finds its export first: that is
 * the wrapper for a name the runtime has, but for one it lacks the lookup
 * must fail as without us (thip_dlsym_route).  The next dlsym is the CUDA interposer's
 * when tscapture preloads it after this library (it hands out its cu*
 * wrappers in turn), else the C library's.  No lookup made here goes
 * through dlsym again: no recursion.
 */
THIP_EARLY __attribute__((visibility("hidden"))) void *thip_dlsym_handle(void *handle,
                                                                       const char *name);

__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "	cmpq $-1, %rdi\n"            /* RTLD_NEXT */
        "	je 2f\n"
        "	testq %rdi, %rdi\n"          /* RTLD_DEFAULT */
        "	jne thip_dlsym_handle\n"
        "2:	pushq %rdi\n"
        "	pushq %rsi\n"
        "	subq $8, %rsp\n"              /* keep the call 16-byte aligned */
        "	movq %rsi, %rdi\n"            /* the name */
        "	movq 24(%rsp), %rsi\n"        /* the caller's return address */
        "	call thip_dlsym_route\n"
        "	addq $8, %rsp\n"
        "	popq %rsi\n"
        "	popq %rdi\n"
        "	testq %rax, %rax\n"
        "	jz 1f\n"
        "	jmp *%rax\n"                  /* the next dlsym, as if called by our caller */
        "1:	ret\n"
        ".size dlsym, .-dlsym\n");

/*
 * Our dlsym is reached first when this library is the first in the
 * process's lookup order, or when the libraries preloaded before it that
 * define dlsym pass on the lookups they do not answer (the CUDA
 * interposer does, for every name but the cu* ones it hands out, in
 * LD_PRELOAD="libtracesmith_cuda.so libtracesmith_hip.so").  Whether they
 * do is found once, when the library is loaded, by one lookup on this
 * library's own handle through the first dlsym, marked per thread
 * (thip_tls_probe): the mark set means it reached ours.  A library that
 * answers it itself gets one warning (nothing later can tell: such a
 * program's lookups never reach this library).
 */
static __thread int thip_tls_probe;

__attribute__((constructor)) static void thip_dlsym_order_check(void)
{
	thip_dlsym_fn libc = thip_libc_dlsym(), first;
	void *self;
	int reached;
	Dl_info di;

	if (!libc)
		return;
	first = (thip_dlsym_fn)libc(RTLD_DEFAULT, "dlsym");
	if (!first || first == libc || thip_is_ours((void *)first) ||
	    !cap_api_enabled(SBT_CM_API_HIP))
		return;
	if (!dladdr((void *)thip_dlsym_order_check, &di) || !di.dli_fname ||
	    !(self = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD)))
		return;
	thip_tls_probe = 1;
	(void)first(self, "dlsym");
	reached = thip_tls_probe == 2;
	thip_tls_probe = 0;
	dlclose(self);
	if (reached)
		return;
	CAP_WARN("hip: dlsym is answered first by %s, loaded before this library: a program that "
	         "looks HIP entry points up on the runtime's handle gets the runtime's own "
	         "functions, and their calls are not recorded (put libtracesmith_hip.so first in "
	         "LD_PRELOAD, as tscapture does)",
	         dladdr((void *)first, &di) && di.dli_fname ? di.dli_fname : "another library");
}

#if defined(__SANITIZE_THREAD__)
/*
 * make tsan: this library is instrumented, and ThreadSanitizer's runtime
 * must come before the C library in the process's lookup order for its
 * interceptions (pthread_create, malloc, the mutexes) to be the ones
 * called.  In an uninstrumented program (hipcc's) the runtime is only
 * this library's dependency, loaded after the program's own, so it comes
 * after the C library: the first thread the capture starts then dies in
 * its first instrumented function (SIGSEGV in __tsan_func_entry).  Nothing
 * here can reorder the process; it is said once, with the way out.
 */
__attribute__((constructor)) static void thip_tsan_order_check(void)
{
	thip_dlsym_fn libc = thip_libc_dlsym();
	void *first, *tsan;
	Dl_info di, rt;

	if (!libc || !(first = libc(RTLD_DEFAULT, "pthread_create")) || !dladdr(first, &di) ||
	    !di.dli_fname || strstr(di.dli_fname, "libtsan"))
		return;
	tsan = libc(RTLD_DEFAULT, "__tsan_init");
	CAP_ERROR("hip: this ThreadSanitizer build of the interposer is loaded into a program "
	          "whose pthread_create is %s's, not the TSan runtime's: the capture's threads "
	          "will crash; preload the runtime first (LD_PRELOAD=%s)",
	          di.dli_fname, tsan && dladdr(tsan, &rt) && rt.dli_fname ? rt.dli_fname : "libtsan.so");
}
#endif

THIP_EARLY void *thip_dlsym_handle(void *handle, const char *name)
{
	thip_dlsym_fn next = thip_next_dlsym();
	void *r, *ours;

	if (thip_tls_probe)
		thip_tls_probe = 2;
	if (!next)
		return NULL;
	r = next(handle, name);
	if (!r || !name || !thip_is_hip_name(name))
		return r;
	/* a handle whose scope holds this library (dlopen(NULL)) found our
	 * export of a name the runtime lacks: not there without us */
	if (thip_is_ours(r) && thip_withheld(name))
		return NULL;
	ours = thip_adopt(name, r);
	return ours ? ours : r;
}

/*
 * dlvsym.  A lookup by version on a handle is answered as dlsym's (above)
 * when the version asked for is the runtime's default one for the name
 * (the definition a plain dlsym on the same handle finds, the one the
 * wrapper calls): this library's wrapper.  Another version (an older,
 * hidden definition a runtime may keep beside the default, with an ABI of
 * its own) and every other name are the next dlvsym's answer as it gave
 * it.  RTLD_NEXT and RTLD_DEFAULT jump into the next dlvsym with the
 * caller's return address on the stack, as dlsym's do: the C library's
 * dlvsym found that way (dlvsym(RTLD_NEXT, "dlvsym", "GLIBC_2.34") from a
 * program skips this unversioned export) is the way past the interposer.
 */
THIP_EARLY __attribute__((visibility("hidden"))) void *
thip_dlvsym_handle(void *handle, const char *name, const char *version);

__asm__(".text\n"
        ".globl dlvsym\n"
        ".type dlvsym, @function\n"
        "dlvsym:\n"
        "	cmpq $-1, %rdi\n"            /* RTLD_NEXT */
        "	je 2f\n"
        "	testq %rdi, %rdi\n"          /* RTLD_DEFAULT */
        "	jne thip_dlvsym_handle\n"
        "2:	pushq %rdi\n"
        "	pushq %rsi\n"
        "	pushq %rdx\n"                /* three pushes keep the call 16-byte aligned */
        "	call thip_next_dlvsym\n"
        "	popq %rdx\n"
        "	popq %rsi\n"
        "	popq %rdi\n"
        "	testq %rax, %rax\n"
        "	jz 1f\n"
        "	jmp *%rax\n"                  /* the next dlvsym, as if called by our caller */
        "1:	ret\n"
        ".size dlvsym, .-dlvsym\n");

THIP_EARLY void *thip_dlvsym_handle(void *handle, const char *name, const char *version)
{
	thip_dlvsym_fn next = thip_next_dlvsym();
	thip_dlsym_fn libc = thip_libc_dlsym();
	void *r, *ours;

	if (!next)
		return NULL;
	r = next(handle, name, version);
	if (!r || !name || !thip_is_hip_name(name) || !libc || libc(handle, name) != r)
		return r;
	ours = thip_adopt(name, r);
	return ours ? ours : r;
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
	f = thip_slot_get(&thip_g.gen_real[index], thip_gen_names[index], NULL);
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
