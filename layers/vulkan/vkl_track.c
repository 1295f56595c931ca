/*
 * vkl_track.c - written-page tracking of the shadow mappings (vkl_track.h).
 *
 * uffd: one userfaultfd per process, opened with UFFD_USER_MODE_ONLY (no
 * privilege needed: only faults of user code are handled, and in
 * asynchronous mode the kernel resolves them itself), features
 * UFFD_FEATURE_WP_ASYNC (and WP_UNPOPULATED where the kernel has it).  A
 * region is registered in write-protect mode and protected whole; a look
 * is one PAGEMAP_SCAN ioctl per 512 written runs, with PM_SCAN_WP_MATCHING
 * so that the pages it reports are protected again atomically.  Writes by
 * the kernel on the application's behalf (read(2) into the mapping) are
 * seen too.
 *
 * guard: the pages are PROT_READ; a SIGSEGV handler finds the region of
 * the faulting address in a lock-free table, makes the page writable and
 * then marks it; a look clears each mark before protecting its page again
 * and before the caller compares it, so a write racing with the look is
 * either compared now or faults and is reported next time.  A fault
 * outside every region goes to the handler installed before ours (or to
 * the default action); the previous handler is restored when the last
 * region goes.  Kernel writes into a protected page fail with EFAULT
 * instead of faulting: the reason guard pages are the fallback only.
 *
 * Dense writes: when a look finds at least half of its pages written, the
 * next VKL_TRACK_REST looks of that region report everything without
 * protecting (no fault per page per submit), then tracking resumes; a
 * region found dense again rests twice as long each time (up to
 * VKL_TRACK_REST_MAX looks), one found sparse starts over.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "capture/cap.h"
#include "layers/vulkan/vkl_track.h"

/* What Debian 12's kernel headers (6.1) lack, with the values of the
 * kernel's uapi headers: include/uapi/linux/userfaultfd.h (6.5, 6.7) and
 * include/uapi/linux/fs.h (PAGEMAP_SCAN, 6.7). */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
#define PAGE_IS_WRITTEN (1 << 1)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
struct page_region {
	uint64_t start;
	uint64_t end;
	uint64_t categories;
};
struct pm_scan_arg {
	uint64_t size;
	uint64_t flags;
	uint64_t start;
	uint64_t end;
	uint64_t walk_end;
	uint64_t vec;
	uint64_t vec_len;
	uint64_t max_pages;
	uint64_t category_inverted;
	uint64_t category_mask;
	uint64_t category_anyof_mask;
	uint64_t return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif
/* The page categories vkl_track_populated asks for (fs.h, 6.7). */
#ifndef PAGE_IS_FILE
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PAGE_IS_PFNZERO (1 << 5)
#endif
/* PROCMAP_QUERY on /proc/self/maps (fs.h, 6.11): one VMA's kind. */
#ifndef PROCMAP_QUERY
#define PROCMAP_QUERY_VMA_SHARED 0x08
struct procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#endif

#define VKL_TRACK_REST 8
#define VKL_TRACK_REST_MAX 256
#define VKL_TRACK_VEC 512
#define VKL_TRACK_SLOTS 1024

static pthread_once_t vkl_track_once = PTHREAD_ONCE_INIT;
static vkl_track_kind vkl_track_kind_chosen;
static int vkl_track_uffd = -1;
static int vkl_track_pagemap = -1;
static size_t vkl_track_page;

const char *vkl_track_name(vkl_track_kind k)
{
	switch (k) {
	case VKL_TRACK_UFFD: return "uffd";
	case VKL_TRACK_GUARD: return "guard";
	default: return "shadow";
	}
}

/* ---- uffd -------------------------------------------------------------- */

static int vkl_track_uffd_open(uint64_t features)
{
	struct uffdio_api api;
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		return -1;
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	api.features = features;
	if (ioctl(fd, UFFDIO_API, &api) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int vkl_track_uffd_protect(void *base, size_t len, int wp)
{
	struct uffdio_writeprotect w;
	w.range.start = (uintptr_t)base;
	w.range.len = len;
	w.mode = wp ? UFFDIO_WRITEPROTECT_MODE_WP : 0;
	return ioctl(vkl_track_uffd, UFFDIO_WRITEPROTECT, &w);
}

static int vkl_track_uffd_add(void *base, size_t len)
{
	struct uffdio_register r;
	memset(&r, 0, sizeof(r));
	r.range.start = (uintptr_t)base;
	r.range.len = len;
	r.mode = UFFDIO_REGISTER_MODE_WP;
	if (ioctl(vkl_track_uffd, UFFDIO_REGISTER, &r) != 0)
		return -1;
	if (vkl_track_uffd_protect(base, len, 1) != 0) {
		struct uffdio_range u = { (uintptr_t)base, len };
		ioctl(vkl_track_uffd, UFFDIO_UNREGISTER, &u);
		return -1;
	}
	return 0;
}

static void vkl_track_uffd_remove(void *base, size_t len)
{
	struct uffdio_range u = { (uintptr_t)base, len };
	ioctl(vkl_track_uffd, UFFDIO_UNREGISTER, &u);
}

/* Written runs of [a, b) (addresses), protected again; fn per run.
 * Returns -1 when the scan fails (the caller reports everything). */
static long vkl_track_uffd_scan(uint8_t *a, uint8_t *b, int wp,
                                void (*fn)(void *, uint8_t *, uint8_t *), void *ctx)
{
	struct page_region vec[VKL_TRACK_VEC];
	struct pm_scan_arg arg;
	uint64_t at = (uintptr_t)a;
	long pages = 0;
	while (at < (uintptr_t)b) {
		long n, i;
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.flags = (wp ? PM_SCAN_WP_MATCHING : 0) | PM_SCAN_CHECK_WPASYNC;
		arg.start = at;
		arg.end = (uintptr_t)b;
		arg.vec = (uintptr_t)vec;
		arg.vec_len = VKL_TRACK_VEC;
		arg.category_mask = PAGE_IS_WRITTEN;
		arg.return_mask = PAGE_IS_WRITTEN;
		n = ioctl(vkl_track_pagemap, PAGEMAP_SCAN, &arg);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++) {
			fn(ctx, (uint8_t *)(uintptr_t)vec[i].start, (uint8_t *)(uintptr_t)vec[i].end);
			pages += (long)((vec[i].end - vec[i].start) / vkl_track_page);
		}
		if (arg.walk_end <= at)
			return -1;
		at = arg.walk_end;
	}
	return pages;
}

static void vkl_track_emit_run(void *ctx, uint8_t *a, uint8_t *b);

/* Whether the running kernel tracks a probe page: registered, written,
 * reported once, then not. */
static int vkl_track_uffd_probe(void)
{
	long r1, r2;
	int ok;
	uint8_t *p = mmap(NULL, vkl_track_page, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	p[0] = 1;
	ok = vkl_track_uffd_add(p, vkl_track_page) == 0;
	if (ok) {
		p[0] = 2;
		r1 = vkl_track_uffd_scan(p, p + vkl_track_page, 1, vkl_track_emit_run, NULL);
		r2 = vkl_track_uffd_scan(p, p + vkl_track_page, 1, vkl_track_emit_run, NULL);
		ok = r1 == 1 && r2 == 0;
		vkl_track_uffd_remove(p, vkl_track_page);
	}
	munmap(p, vkl_track_page);
	return ok;
}

/* The userfaultfd features the tracker's descriptor was opened with. */
static uint64_t vkl_track_uffd_features;

/*
 * In a fork child both descriptors name the parent: a userfaultfd belongs
 * to the process that opened it (registering or protecting a range through
 * it acts on the parent's memory at those addresses), and procfs resolved
 * /proc/self/pagemap at open, so a look would read the parent's pages and
 * write-protect them again, hiding the parent's writes from its own next
 * look.  The child opens its own (open, close, the syscall and an ioctl:
 * nothing that takes a lock).  Its copies of the shadow mappings are not
 * registered with either (the kernel drops a registration at fork unless
 * UFFD_FEATURE_EVENT_FORK asked to keep it), so their scans fail
 * (PM_SCAN_CHECK_WPASYNC) and every look at them reports the whole range;
 * mappings the child makes are tracked again.  A descriptor the child
 * cannot open is -1: no registration then (the shadow compare), and scans
 * fail the same way.
 */
static void vkl_track_atfork_child(void)
{
	int uffd = vkl_track_uffd_open(vkl_track_uffd_features);
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (vkl_track_uffd >= 0)
		close(vkl_track_uffd);
	if (vkl_track_pagemap >= 0)
		close(vkl_track_pagemap);
	vkl_track_uffd = uffd;
	vkl_track_pagemap = pm;
}

static int vkl_track_uffd_init(void)
{
	vkl_track_page = (size_t)sysconf(_SC_PAGESIZE);
	vkl_track_uffd_features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
	vkl_track_uffd = vkl_track_uffd_open(vkl_track_uffd_features);
	if (vkl_track_uffd < 0) {
		vkl_track_uffd_features = UFFD_FEATURE_WP_ASYNC;
		vkl_track_uffd = vkl_track_uffd_open(vkl_track_uffd_features);
	}
	if (vkl_track_uffd < 0)
		return 0;
	vkl_track_pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (vkl_track_pagemap >= 0 && vkl_track_uffd_probe()) {
		pthread_atfork(NULL, NULL, vkl_track_atfork_child);
		return 1;
	}
	if (vkl_track_pagemap >= 0)
		close(vkl_track_pagemap);
	close(vkl_track_uffd);
	vkl_track_pagemap = vkl_track_uffd = -1;
	return 0;
}

/* ---- guard ------------------------------------------------------------- */

typedef struct vkl_track_slot {
	_Atomic(uintptr_t) base; /* 0: free */
	_Atomic(size_t) len;
	_Atomic(uint8_t *) marks; /* one per page, 1: written */
} vkl_track_slot;

static vkl_track_slot vkl_track_slots[VKL_TRACK_SLOTS];
static pthread_mutex_t vkl_track_guard_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction vkl_track_prev; /* the handler before ours */
static int vkl_track_guard_users;

/* A fault at addr on a guarded page: made writable and marked, 1; not
 * ours, 0.  Also the capture runtime's fault owner (cap_fault_owner_set),
 * so a guard fault is handled when the runtime's crash handler was
 * installed after ours and sees it first. */
static int vkl_track_claim(void *fault)
{
	uintptr_t addr = (uintptr_t)fault;
	int saved = errno;
	for (int i = 0; i < VKL_TRACK_SLOTS; i++) {
		uintptr_t b = atomic_load(&vkl_track_slots[i].base);
		size_t len = atomic_load(&vkl_track_slots[i].len), pg;
		uint8_t *marks;
		if (!b || addr < b || addr - b >= len)
			continue;
		marks = atomic_load(&vkl_track_slots[i].marks);
		pg = (addr - b) / vkl_track_page;
		/* writable first, then marked: see the file's comment */
		if (mprotect((void *)(b + pg * vkl_track_page), vkl_track_page,
		             PROT_READ | PROT_WRITE) == 0) {
			atomic_store((_Atomic uint8_t *)&marks[pg], 1);
			errno = saved;
			return 1;
		}
	}
	errno = saved;
	return 0;
}

static void vkl_track_segv(int sig, siginfo_t *si, void *uc)
{
	if (vkl_track_claim(si->si_addr))
		return;
	/* not ours: the application's handler, or the default action */
	if (vkl_track_prev.sa_flags & SA_SIGINFO) {
		vkl_track_prev.sa_sigaction(sig, si, uc);
	} else if (vkl_track_prev.sa_handler != SIG_DFL && vkl_track_prev.sa_handler != SIG_IGN) {
		vkl_track_prev.sa_handler(sig);
	} else {
		/* the fault repeats on return, now with the default action */
		signal(SIGSEGV, SIG_DFL);
	}
}

static int vkl_track_guard_add(vkl_track *t)
{
	size_t npages = t->len / vkl_track_page;
	uint8_t *marks = calloc(npages ? npages : 1, 1);
	int slot = -1;
	if (!marks)
		return -1;
	pthread_mutex_lock(&vkl_track_guard_mu);
	for (int i = 0; i < VKL_TRACK_SLOTS; i++) {
		if (!atomic_load(&vkl_track_slots[i].base)) {
			slot = i;
			break;
		}
	}
	if (slot >= 0 && vkl_track_guard_users == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = vkl_track_segv;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGSEGV, &sa, &vkl_track_prev) != 0)
			slot = -1;
		else
			cap_fault_owner_set(vkl_track_claim);
	}
	if (slot >= 0) {
		vkl_track_guard_users++;
		atomic_store(&vkl_track_slots[slot].marks, marks);
		atomic_store(&vkl_track_slots[slot].len, t->len);
		atomic_store(&vkl_track_slots[slot].base, (uintptr_t)t->base);
		if (mprotect(t->base, t->len, PROT_READ) != 0) {
			atomic_store(&vkl_track_slots[slot].base, 0);
			vkl_track_guard_users--;
			slot = -1;
		}
	}
	pthread_mutex_unlock(&vkl_track_guard_mu);
	if (slot < 0) {
		free(marks);
		return -1;
	}
	t->slot = slot;
	return 0;
}

static void vkl_track_guard_remove(vkl_track *t)
{
	vkl_track_slot *s = &vkl_track_slots[t->slot];
	mprotect(t->base, t->len, PROT_READ | PROT_WRITE);
	pthread_mutex_lock(&vkl_track_guard_mu);
	atomic_store(&s->base, 0);
	free(atomic_load(&s->marks));
	atomic_store(&s->marks, NULL);
	if (--vkl_track_guard_users == 0) {
		struct sigaction cur;
		/* ours still installed: put the previous one back */
		if (sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_sigaction == vkl_track_segv)
			sigaction(SIGSEGV, &vkl_track_prev, NULL);
	}
	pthread_mutex_unlock(&vkl_track_guard_mu);
}

/* Whether guard faults still reach us: our handler is the one installed,
 * or the capture runtime's, which asks us first (an application may
 * replace either; its faults would then never reach us). */
static int vkl_track_guard_installed(void)
{
	struct sigaction cur;
	return (sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	        cur.sa_sigaction == vkl_track_segv) ||
	       cap_fault_owner_reached(vkl_track_claim);
}

/* Eight marks read as one word (the marks array comes from calloc, so a
 * multiple of eight is aligned). */
typedef uint64_t vkl_track_marks8 __attribute__((may_alias));

static long vkl_track_guard_scan(vkl_track *t, uint8_t *a, uint8_t *b, int wp,
                                 void (*fn)(void *, uint8_t *, uint8_t *), void *ctx)
{
	_Atomic uint8_t *marks = (_Atomic uint8_t *)atomic_load(&vkl_track_slots[t->slot].marks);
	size_t p = (size_t)(a - t->base) / vkl_track_page, e = (size_t)(b - t->base) / vkl_track_page;
	long pages = 0;
	while (p < e) {
		size_t q;
		/* thirty-two marks, then eight, a step where they are all
		 * clear: a look at a mapping the host wrote sparsely reads the
		 * marks of every page */
		if (!(p & 31) && p + 32 <= e) {
			const vkl_track_marks8 *w = (const void *)&marks[p];
			if (!(__atomic_load_n(w, __ATOMIC_RELAXED) | __atomic_load_n(w + 1, __ATOMIC_RELAXED) |
			      __atomic_load_n(w + 2, __ATOMIC_RELAXED) |
			      __atomic_load_n(w + 3, __ATOMIC_RELAXED))) {
				p += 32;
				continue;
			}
		}
		if (!(p & 7) && p + 8 <= e &&
		    !__atomic_load_n((const vkl_track_marks8 *)(const void *)&marks[p],
		                     __ATOMIC_RELAXED)) {
			p += 8;
			continue;
		}
		if (!atomic_load_explicit(&marks[p], memory_order_relaxed)) {
			p++;
			continue;
		}
		for (q = p; q < e && atomic_load_explicit(&marks[q], memory_order_relaxed); q++)
			if (wp)
				atomic_store(&marks[q], 0);
		if (wp)
			mprotect(t->base + p * vkl_track_page, (q - p) * vkl_track_page, PROT_READ);
		fn(ctx, t->base + p * vkl_track_page, t->base + q * vkl_track_page);
		pages += (long)(q - p);
		p = q;
	}
	return pages;
}

/* ---- choice ------------------------------------------------------------ */

static void vkl_track_choose(void)
{
	const char *v = getenv("TRACESMITH_VK_TRACKER");
	int want = -1;
	vkl_track_page = (size_t)sysconf(_SC_PAGESIZE);
	if (v && *v) {
		if (!strcmp(v, "uffd"))
			want = VKL_TRACK_UFFD;
		else if (!strcmp(v, "guard"))
			want = VKL_TRACK_GUARD;
		else if (!strcmp(v, "shadow"))
			want = VKL_TRACK_SHADOW;
		else
			CAP_WARN("TRACESMITH_VK_TRACKER=%s is not uffd, guard or shadow: choosing one", v);
	}
	if (want == VKL_TRACK_SHADOW || want == VKL_TRACK_GUARD) {
		vkl_track_kind_chosen = (vkl_track_kind)want;
	} else if (vkl_track_uffd_init()) {
		vkl_track_kind_chosen = VKL_TRACK_UFFD;
	} else {
		if (want == VKL_TRACK_UFFD)
			CAP_WARN("TRACESMITH_VK_TRACKER=uffd: userfaultfd asynchronous write-protect with "
			         "PAGEMAP_SCAN is not available here (kernel 6.7 or later): using guard "
			         "pages");
		vkl_track_kind_chosen = VKL_TRACK_GUARD;
	}
	CAP_INFO("Vulkan layer: mapped memory tracker %s", vkl_track_name(vkl_track_kind_chosen));
}

vkl_track_kind vkl_track_active(void)
{
	pthread_once(&vkl_track_once, vkl_track_choose);
	return vkl_track_kind_chosen;
}

void vkl_track_register(vkl_track *t, void *base, size_t len)
{
	vkl_track_kind k = vkl_track_active();
	memset(t, 0, sizeof(*t));
	t->base = base;
	t->len = len;
	t->kind = VKL_TRACK_SHADOW;
	if (k == VKL_TRACK_UFFD && vkl_track_uffd_add(base, len) == 0)
		t->kind = VKL_TRACK_UFFD;
	else if (k == VKL_TRACK_GUARD && vkl_track_guard_add(t) == 0)
		t->kind = VKL_TRACK_GUARD;
}

/* The regions registered by vkl_track_register_shared and tracked: no two
 * overlap.  The mutex also covers their registration and unregistration
 * with the kernel, so that a region registered over pages another is
 * leaving is registered after that one's unregistration, not undone by it. */
static pthread_mutex_t vkl_track_shared_mu = PTHREAD_MUTEX_INITIALIZER;
static vkl_track *vkl_track_shared_list;

void vkl_track_register_shared(vkl_track *t, void *base, size_t len)
{
	const vkl_track *o;
	pthread_mutex_lock(&vkl_track_shared_mu);
	for (o = vkl_track_shared_list; o; o = o->shared_next)
		if ((uint8_t *)base < o->base + o->len && o->base < (uint8_t *)base + len)
			break;
	if (o) {
		memset(t, 0, sizeof(*t));
		t->base = base;
		t->len = len;
		t->kind = VKL_TRACK_SHADOW;
		CAP_DEBUG("Vulkan layer: the %zu bytes at %p share pages with other imported host "
		          "memory: not tracked, compared whole at each look",
		          len, base);
	} else {
		vkl_track_register(t, base, len);
		if (t->kind != VKL_TRACK_SHADOW) {
			t->shared = 1;
			t->shared_next = vkl_track_shared_list;
			vkl_track_shared_list = t;
		}
	}
	pthread_mutex_unlock(&vkl_track_shared_mu);
}

void vkl_track_unregister(vkl_track *t)
{
	int shared = t->shared;
	if (shared) {
		vkl_track **p;
		pthread_mutex_lock(&vkl_track_shared_mu);
		for (p = &vkl_track_shared_list; *p && *p != t; p = &(*p)->shared_next)
			;
		if (*p)
			*p = t->shared_next;
		t->shared = 0;
		t->shared_next = NULL;
	}
	if (t->kind == VKL_TRACK_UFFD)
		vkl_track_uffd_remove(t->base, t->len);
	else if (t->kind == VKL_TRACK_GUARD)
		vkl_track_guard_remove(t);
	t->kind = VKL_TRACK_SHADOW;
	if (shared)
		pthread_mutex_unlock(&vkl_track_shared_mu);
}

/* Runs handed on to the caller, adjacent ones joined. */
typedef struct vkl_track_out {
	vkl_track *t;
	void (*fn)(void *, size_t, size_t);
	void *ctx;
	size_t lo, hi; /* the run held back; lo == hi: none */
} vkl_track_out;

static void vkl_track_emit(vkl_track_out *o, size_t lo, size_t hi)
{
	if (lo >= hi)
		return;
	if (o->lo < o->hi && o->hi == lo) {
		o->hi = hi;
		return;
	}
	if (o->lo < o->hi)
		o->fn(o->ctx, o->lo, o->hi);
	o->lo = lo;
	o->hi = hi;
}

static void vkl_track_emit_run(void *ctx, uint8_t *a, uint8_t *b)
{
	vkl_track_out *o = ctx;
	if (!o) /* the probe */
		return;
	vkl_track_emit(o, (size_t)(a - o->t->base), (size_t)(b - o->t->base));
}

void vkl_track_look(vkl_track *t, size_t lo, size_t hi,
                    void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx)
{
	vkl_track_out o = { t, fn, ctx, 0, 0 };
	size_t a, b;
	long pages = -1;
	int wp;
	t->exact = 0;
	if (lo >= hi)
		return;
	a = (lo + vkl_track_page - 1) / vkl_track_page * vkl_track_page;
	b = hi / vkl_track_page * vkl_track_page;
	if (t->kind == VKL_TRACK_SHADOW || a >= b) {
		fn(ctx, lo, hi);
		return;
	}
	if (t->kind == VKL_TRACK_GUARD && !vkl_track_guard_installed()) {
		CAP_WARN("Vulkan layer: the SIGSEGV handler of the guard-page tracker was replaced: "
		         "comparing whole mappings from now on");
		vkl_track_unregister(t);
		fn(ctx, lo, hi);
		return;
	}
	t->looks++;
	/* dense: report everything for a while, without protecting again */
	wp = t->rest == 0;
	if (!wp)
		t->rest--;
	vkl_track_emit(&o, lo, a);
	if (!wp)
		vkl_track_emit(&o, a, b);
	else if (t->kind == VKL_TRACK_UFFD)
		pages = vkl_track_uffd_scan(t->base + a, t->base + b, 1, vkl_track_emit_run, &o);
	else
		pages = vkl_track_guard_scan(t, t->base + a, t->base + b, 1, vkl_track_emit_run, &o);
	if (wp && pages < 0) {
		CAP_WARN("Vulkan layer: PAGEMAP_SCAN failed (%s): comparing the whole mapping from "
		         "now on", strerror(errno));
		vkl_track_unregister(t);
		o.lo = o.hi = 0;
		fn(ctx, lo, hi);
		return;
	}
	if (wp) {
		t->exact = 1;
		t->pages_seen += (b - a) / vkl_track_page;
		t->pages_written += (uint64_t)pages;
		/* dense again after a rest: a rest twice as long (up to
		 * VKL_TRACK_REST_MAX looks); sparse: back to the shortest */
		if ((size_t)pages * 2 * vkl_track_page >= b - a && b - a >= 16 * vkl_track_page) {
			t->rest_len = t->rest_len ? t->rest_len * 2 : VKL_TRACK_REST;
			if (t->rest_len > VKL_TRACK_REST_MAX)
				t->rest_len = VKL_TRACK_REST_MAX;
			t->rest = t->rest_len;
		} else {
			t->rest_len = 0;
		}
	}
	vkl_track_emit(&o, b, hi);
	if (o.lo < o.hi)
		fn(ctx, o.lo, o.hi);
}

/* ---- populated pages ----------------------------------------------------- */

/* Whether a read of an unpopulated page of the VMA q describes yields
 * zeros: private and anonymous (no file, no device; unnamed, the heap, or
 * named by PR_SET_VMA_ANON_NAME), base pages. */
static int vkl_track_vma_zero(const struct procmap_query *q, const char *name, size_t page)
{
	if ((q->vma_flags & PROCMAP_QUERY_VMA_SHARED) || q->inode || q->dev_major ||
	    q->dev_minor || q->vma_page_size != page)
		return 0;
	return q->vma_name_size == 0 || !strcmp(name, "[heap]") || !strncmp(name, "[anon:", 6);
}

int vkl_track_zero_known(const void *p, size_t len)
{
	const char *v = getenv("TRACESMITH_VK_MAP_SCAN");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t at = (uintptr_t)p / page * page, end = (uintptr_t)p + len;
	int fd, ok = 1;
	if (v && !strcmp(v, "0"))
		return 0;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (ok && at < end) {
		struct procmap_query q;
		char name[128];
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_addr = at;
		q.vma_name_addr = (uintptr_t)name;
		q.vma_name_size = sizeof(name);
		/* older kernels: ENOTTY; a name too long: ENAMETOOLONG */
		ok = ioctl(fd, PROCMAP_QUERY, &q) == 0 && q.vma_start <= at && q.vma_end > at &&
		     vkl_track_vma_zero(&q, name, page);
		at = q.vma_end;
	}
	close(fd);
	return ok;
}

int vkl_track_populated(const void *p, size_t len, void (*fn)(void *ctx, size_t lo, size_t hi),
                        void *ctx)
{
	struct page_region vec[VKL_TRACK_VEC];
	struct pm_scan_arg arg;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	uint64_t at = lo / page * page, end = (hi + page - 1) / page * page;
	uintptr_t run_lo = 0, run_hi = 0; /* the run held back: joined to the next if it touches */
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), ret = -1;
	if (fd < 0)
		return -1;
	while (at < end) {
		long n, i;
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = at;
		arg.end = end;
		arg.vec = (uintptr_t)vec;
		arg.vec_len = VKL_TRACK_VEC;
		arg.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_FILE;
		arg.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_FILE | PAGE_IS_PFNZERO;
		n = ioctl(fd, PAGEMAP_SCAN, &arg);
		if (n < 0 || arg.walk_end <= at)
			goto out_close;
		for (i = 0; i < n; i++) {
			uintptr_t a = (uintptr_t)vec[i].start, b = (uintptr_t)vec[i].end;
			/* the shared zero page: reads as zero, like a hole */
			if ((vec[i].categories & PAGE_IS_PFNZERO) &&
			    !(vec[i].categories & (PAGE_IS_SWAPPED | PAGE_IS_FILE)))
				continue;
			a = a < lo ? lo : a;
			b = b > hi ? hi : b;
			if (a >= b)
				continue;
			if (run_lo < run_hi && run_hi == a) {
				run_hi = b;
				continue;
			}
			if (run_lo < run_hi)
				fn(ctx, run_lo - lo, run_hi - lo);
			run_lo = a;
			run_hi = b;
		}
		at = arg.walk_end;
	}
	if (run_lo < run_hi)
		fn(ctx, run_lo - lo, run_hi - lo);
	ret = 0;
out_close:
	close(fd);
	return ret;
}
