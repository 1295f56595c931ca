/*
 * test_vkl_track - the written-page tracker of the layer's shadow mappings
 * (layers/vulkan/vkl_track.c, compiled in), once per tracker in a child
 * process each (the choice is made once per process): uffd where the
 * kernel has it, guard, and shadow.  On a 64-page region: nothing written
 * reports nothing; the pages written are reported exactly, as joined runs;
 * a page written twice once; a write after a look by the next one; pages
 * only partly inside the range looked at always, whole pages inside it
 * only when written; every page written makes the next looks report
 * everything for a while (twice as long when dense again), then tracking
 * resumes; with uffd, a write by the
 * kernel (read(2) into the region) is seen, and a fork child's looks
 * leave the parent's marks alone while the child tracks its own.  Guard: a fault outside every
 * region reaches the handler installed before ours, which is back in
 * place after the last region is unregistered; after unregistering, the
 * pages are writable without a fault.  Guard again with the capture
 * runtime's crash handler installed after the tracker's: guard faults are
 * still the tracker's, other faults still end the program.
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layers/vulkan/vkl_track.c"
#include "tests/support/tst.h"

#define T_PAGES 64

static size_t t_page;
static size_t t_runs[2 * T_PAGES + 8][2];
static size_t t_nruns;

static void t_collect(void *ctx, size_t lo, size_t hi)
{
	(void)ctx;
	if (t_nruns < sizeof(t_runs) / sizeof(t_runs[0])) {
		t_runs[t_nruns][0] = lo;
		t_runs[t_nruns][1] = hi;
	}
	t_nruns++;
}

static void t_look(vkl_track *t, size_t lo, size_t hi)
{
	t_nruns = 0;
	vkl_track_look(t, lo, hi, t_collect, NULL);
}

/* The last look reported exactly these runs, in pages (lo0, hi0, lo1, ...). */
static int t_is(size_t n, const size_t *pages)
{
	if (t_nruns != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (t_runs[i][0] != pages[2 * i] * t_page || t_runs[i][1] != pages[2 * i + 1] * t_page)
			return 0;
	return 1;
}

static sigjmp_buf t_jmp;
static volatile sig_atomic_t t_app_faults;

static void t_app_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	t_app_faults++;
	siglongjmp(t_jmp, 1);
}

static void t_one(vkl_track_kind want)
{
	uint8_t *r = mmap(NULL, T_PAGES * t_page, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *none = mmap(NULL, t_page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction app, cur;
	vkl_track t;
	int i;

	TST_REQUIRE(r != MAP_FAILED && none != MAP_FAILED);
	TST_CHECK_EQ_U64(vkl_track_active(), want);
	memset(&app, 0, sizeof(app));
	app.sa_sigaction = t_app_handler;
	app.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&app.sa_mask);
	TST_REQUIRE(sigaction(SIGSEGV, &app, NULL) == 0);
	memset(r, 1, T_PAGES * t_page);
	madvise(r, T_PAGES * t_page, MADV_NOHUGEPAGE);
	vkl_track_register(&t, r, T_PAGES * t_page);
	TST_CHECK_EQ_U64(t.kind, want);

	if (want == VKL_TRACK_SHADOW) {
		r[5 * t_page] = 2;
		t_look(&t, 0, T_PAGES * t_page);
		TST_CHECK(t_is(1, (const size_t[]){ 0, T_PAGES }));
		vkl_track_unregister(&t);
		munmap(r, T_PAGES * t_page);
		munmap(none, t_page);
		return;
	}

	/* nothing written */
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK_EQ_U64(t_nruns, 0);
	/* exactly the pages written, adjacent ones joined, twice written once */
	r[3 * t_page + 17] = 2;
	r[3 * t_page + 4000] = 3;
	r[10 * t_page] = 2;
	r[11 * t_page + 5] = 2;
	r[40 * t_page + t_page - 1] = 2;
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(3, (const size_t[]){ 3, 4, 10, 12, 40, 41 }));
	/* a look protects again: nothing new, then a write after it */
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK_EQ_U64(t_nruns, 0);
	r[5 * t_page] = 9;
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 5, 6 }));
	/* part of the region: only what lies inside is looked at; pages
	 * partly inside always reported, and the rest keeps its marks */
	r[20 * t_page] = 4;
	r[30 * t_page] = 4;
	t_nruns = 0;
	vkl_track_look(&t, 10 * t_page + 100, 25 * t_page + 50, t_collect, NULL);
	TST_CHECK_EQ_U64(t_nruns, 3);
	TST_CHECK(t_runs[0][0] == 10 * t_page + 100 && t_runs[0][1] == 11 * t_page);
	TST_CHECK(t_runs[1][0] == 20 * t_page && t_runs[1][1] == 21 * t_page);
	TST_CHECK(t_runs[2][0] == 25 * t_page && t_runs[2][1] == 25 * t_page + 50);
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 30, 31 }));
	/* a range inside one page: reported as it is */
	t_nruns = 0;
	vkl_track_look(&t, 7 * t_page + 1, 7 * t_page + 9, t_collect, NULL);
	TST_CHECK(t_nruns == 1 && t_runs[0][0] == 7 * t_page + 1 && t_runs[0][1] == 7 * t_page + 9);

	if (want == VKL_TRACK_UFFD) {
		/* the kernel writing on the program's behalf */
		int fds[2];
		TST_REQUIRE(pipe(fds) == 0);
		TST_REQUIRE(write(fds[1], "kernel", 6) == 6);
		TST_CHECK(read(fds[0], r + 50 * t_page + 8, 6) == 6);
		close(fds[0]);
		close(fds[1]);
		t_look(&t, 0, T_PAGES * t_page);
		TST_CHECK(t_is(1, (const size_t[]){ 50, 51 }));

		/* a fork child's looks leave the parent's marks alone: page 9
		 * written before the fork is still the parent's next look's;
		 * the child's copy reports everything, a region it registers
		 * itself exactly what it writes */
		r[9 * t_page] = 6;
		fflush(NULL);
		pid_t pid = fork();
		TST_REQUIRE(pid >= 0);
		if (pid == 0) {
			uint8_t *c = mmap(NULL, 4 * t_page, PROT_READ | PROT_WRITE,
			                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			vkl_track ct;
			int ok;
			t_look(&t, 0, T_PAGES * t_page);
			ok = t_is(1, (const size_t[]){ 0, T_PAGES });
			memset(c, 1, 4 * t_page);
			vkl_track_register(&ct, c, 4 * t_page);
			c[2 * t_page] = 2;
			t_look(&ct, 0, 4 * t_page);
			ok = ok && ct.kind == VKL_TRACK_UFFD && t_is(1, (const size_t[]){ 2, 3 });
			vkl_track_unregister(&ct);
			_exit(ok ? 0 : 1);
		}
		{
			int st = 0;
			TST_REQUIRE(waitpid(pid, &st, 0) == pid);
			TST_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
		t_look(&t, 0, T_PAGES * t_page);
		TST_CHECK(t_is(1, (const size_t[]){ 9, 10 }));
	}
	if (want == VKL_TRACK_GUARD) {
		/* a fault that is not ours reaches the application's handler */
		t_app_faults = 0;
		if (sigsetjmp(t_jmp, 1) == 0)
			*(volatile uint8_t *)none = 1;
		TST_CHECK_EQ_U64(t_app_faults, 1);
		/* and a write into the region did not */
		r[12 * t_page] = 5;
		TST_CHECK_EQ_U64(t_app_faults, 1);
		t_look(&t, 0, T_PAGES * t_page);
		TST_CHECK(t_is(1, (const size_t[]){ 12, 13 }));
	}

	/* every page written: reported whole, then everything for the rest
	 * period without protecting, then tracked again */
	memset(r, 7, T_PAGES * t_page);
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 0, T_PAGES }));
	for (i = 0; i < VKL_TRACK_REST; i++) {
		t_look(&t, 0, T_PAGES * t_page);
		TST_CHECK(t_is(1, (const size_t[]){ 0, T_PAGES }));
	}
	/* dense again after the rest: a rest twice as long */
	memset(r, 8, T_PAGES * t_page);
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 0, T_PAGES }));
	TST_CHECK_EQ_U64(t.rest, 2 * VKL_TRACK_REST);
	for (i = 0; i < 2 * VKL_TRACK_REST; i++)
		t_look(&t, 0, T_PAGES * t_page);
	t_look(&t, 0, T_PAGES * t_page); /* protects again: nothing written */
	TST_CHECK_EQ_U64(t_nruns, 0);
	TST_CHECK_EQ_U64(t.rest_len, 0);
	r[63 * t_page] = 1;
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 63, 64 }));

	/* unregistered: writable without a fault, every look reports all */
	vkl_track_unregister(&t);
	TST_CHECK_EQ_U64(t.kind, VKL_TRACK_SHADOW);
	t_app_faults = 0;
	if (sigsetjmp(t_jmp, 1) == 0)
		memset(r, 3, T_PAGES * t_page);
	TST_CHECK_EQ_U64(t_app_faults, 0);
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 0, T_PAGES }));
	/* the application's handler is back in place */
	TST_CHECK(sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	          cur.sa_sigaction == t_app_handler);
	/* a new region at the same place starts afresh */
	vkl_track_register(&t, r, T_PAGES * t_page);
	TST_CHECK_EQ_U64(t.kind, want);
	r[2 * t_page] = 1;
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 2, 3 }));
	vkl_track_unregister(&t);
	munmap(r, T_PAGES * t_page);
	munmap(none, t_page);
}

/* Guard, with the capture runtime started after the region was guarded,
 * so its crash handler is installed after the tracker's and sees every
 * fault first: a write to a guarded page is still the tracker's (the
 * runtime asks its fault owner, cap_fault_owner_set) and the program goes
 * on; the tracker knows its faults still reach it; a fault on no guarded
 * page still ends the program with SIGSEGV. */
static void t_runtime_after(void)
{
	uint8_t *r = mmap(NULL, T_PAGES * t_page, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *none = mmap(NULL, t_page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction cur;
	vkl_track t;
	pid_t pid;
	int i, st;

	TST_REQUIRE(r != MAP_FAILED && none != MAP_FAILED);
	memset(r, 1, T_PAGES * t_page);
	madvise(r, T_PAGES * t_page, MADV_NOHUGEPAGE);
	vkl_track_register(&t, r, T_PAGES * t_page);
	TST_REQUIRE(t.kind == VKL_TRACK_GUARD);
	TST_REQUIRE(cap_active() == 1);
	TST_CHECK(sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	          cur.sa_sigaction != vkl_track_segv);
	TST_CHECK(vkl_track_guard_installed());
	for (i = 0; i < 2 * VKL_TRACK_REST + 2; i++)
		t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK_EQ_U64(t_nruns, 0);
	r[7 * t_page] = 5;
	r[9 * t_page + 3] = 5;
	t_look(&t, 0, T_PAGES * t_page);
	TST_CHECK(t_is(2, (const size_t[]){ 7, 8, 9, 10 }));
	TST_CHECK_EQ_U64(r[7 * t_page], 5);
	fflush(NULL);
	pid = fork();
	TST_REQUIRE(pid >= 0);
	if (pid == 0) {
		none[0] = 1;
		_exit(0);
	}
	TST_REQUIRE(waitpid(pid, &st, 0) == pid);
	TST_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	vkl_track_unregister(&t);
	munmap(r, T_PAGES * t_page);
	munmap(none, t_page);
}

/* Under `make asan`: ASan's own SIGSEGV handler would be the one installed
 * before ours, so a fault on no guarded page would end in its report and
 * exit status 1 rather than the default action this test checks for.  With
 * handle_segv=0 the chain ends where it does in a plain build; nothing
 * else here relies on ASan catching a fault. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0";
}

/* The same under `make tsan`: ThreadSanitizer's handler reported the fault
 * as its own SEGV and exited 66. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "handle_segv=0";
}

/*
 * vkl_track_register_shared (imported host memory): a region overlapping
 * one registered that way is not tracked, so the kernel's registration and
 * marks of the shared page stay the first region's: after the second goes,
 * the first still reports exactly its written pages (when both were
 * registered, the second's unregister took page 3's registration (uffd) or
 * protection (guard) from the first: its next look failed and reported
 * everything, or missed the write to page 3).  Once the first
 * is gone, a region over the same pages is tracked.
 */
static void t_shared(vkl_track_kind want)
{
	uint8_t *r = mmap(NULL, 6 * t_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	                  -1, 0);
	vkl_track a, b, c;
	TST_REQUIRE(r != MAP_FAILED);
	memset(r, 1, 6 * t_page);
	madvise(r, 6 * t_page, MADV_NOHUGEPAGE);
	vkl_track_register_shared(&a, r, 4 * t_page);
	vkl_track_register_shared(&b, r + 3 * t_page, 3 * t_page);
	TST_CHECK_EQ_U64(a.kind, want);
	TST_CHECK_EQ_U64(b.kind, VKL_TRACK_SHADOW);
	r[1 * t_page] = 2;
	r[3 * t_page] = 2;
	t_look(&a, 0, 4 * t_page);
	TST_CHECK(want == VKL_TRACK_SHADOW ? t_is(1, (const size_t[]){ 0, 4 })
	                                   : t_is(2, (const size_t[]){ 1, 2, 3, 4 }));
	t_look(&b, 0, 3 * t_page);
	TST_CHECK(t_is(1, (const size_t[]){ 0, 3 }));
	vkl_track_unregister(&b);
	r[2 * t_page] = 3;
	r[3 * t_page] = 3; /* the page the two shared */
	t_look(&a, 0, 4 * t_page);
	TST_CHECK(want == VKL_TRACK_SHADOW ? t_is(1, (const size_t[]){ 0, 4 })
	                                   : t_is(1, (const size_t[]){ 2, 4 }));
	vkl_track_unregister(&a);
	vkl_track_register_shared(&c, r + 3 * t_page, 3 * t_page);
	TST_CHECK_EQ_U64(c.kind, want);
	vkl_track_unregister(&c);
	munmap(r, 6 * t_page);
}

int main(void)
{
	static const vkl_track_kind kinds[] = { VKL_TRACK_UFFD, VKL_TRACK_GUARD, VKL_TRACK_SHADOW };
	t_page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		pid_t pid;
		int st;
		fflush(NULL);
		pid = fork();
		TST_REQUIRE(pid >= 0);
		if (pid == 0) {
			setenv("TRACESMITH_VK_TRACKER", vkl_track_name(kinds[k]), 1);
			if (kinds[k] == VKL_TRACK_UFFD && !vkl_track_uffd_init()) {
				/* the kernel lacks it: said, and the next ones run */
				printf("uffd: not available on this kernel (6.7 or later needed)\n");
				fflush(NULL);
				_exit(0);
			}
			if (vkl_track_uffd >= 0) {
				close(vkl_track_uffd);
				close(vkl_track_pagemap);
				vkl_track_uffd = vkl_track_pagemap = -1;
			}
			t_one(kinds[k]);
			t_shared(kinds[k]);
			printf("%s: %s\n", vkl_track_name(kinds[k]), tst_failures ? "FAILED" : "ok");
			fflush(NULL);
			_exit(tst_failures ? 1 : 0);
		}
		TST_REQUIRE(waitpid(pid, &st, 0) == pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "tracker %s: checks failed (status 0x%x)\n", vkl_track_name(kinds[k]),
			        st);
			tst_failures++;
		}
	}
	{
		pid_t pid;
		int st;
		fflush(NULL);
		pid = fork();
		TST_REQUIRE(pid >= 0);
		if (pid == 0) {
			setenv("TRACESMITH_VK_TRACKER", "guard", 1);
			setenv("TRACESMITH_OUTPUT", tst_path("after.sbt"), 1);
			t_runtime_after();
			printf("guard, runtime started after: %s\n", tst_failures ? "FAILED" : "ok");
			fflush(NULL);
			_exit(tst_failures ? 1 : 0);
		}
		TST_REQUIRE(waitpid(pid, &st, 0) == pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "guard, runtime started after: checks failed (status 0x%x)\n", st);
			tst_failures++;
		}
	}
	return tst_done();
}
