/*
 * tcd_guard.c - running host code that may follow a wild device address
 * (kernels, twins, the reading of an image the program pointed at) without
 * losing the process to SIGSEGV or SIGBUS.
 *
 * A GPU kernel that touches an address outside every allocation does not
 * crash the program: the driver reports CUDA_ERROR_ILLEGAL_ADDRESS, and the
 * context stays broken.  The double's kernels are host code, so their wild
 * access is a fault of the process.  tcd_guard_call runs a function with a
 * SIGSEGV/SIGBUS handler installed; a fault on the thread running it jumps
 * back (siglongjmp) and is reported to the caller.
 *
 * The handler is installed at the first guarded call and stays: installing
 * and restoring it around every kernel cost several system calls per launch
 * (launch loops ran many times slower).  A fault on a thread that is not
 * inside a guarded call is not the double's: the handler puts back the
 * disposition it found (the program's, a sanitizer's or the default) and
 * returns, so the faulting instruction runs again under it and a real crash
 * still crashes, or reaches the program's own handler.  A program that
 * installs its own SIGSEGV handler after its first kernel replaces the
 * double's: wild accesses in later kernels then reach that handler.  Code
 * run guarded must not hold locks or half-built state a jump would abandon;
 * what it allocated may leak.
 */
#include "tests/doubles/cuda/tcd.h"

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The jump target of the guarded call running on this thread, if any.
 * Thread-local: each stream worker runs its own kernels. */
static __thread sigjmp_buf *tcd_guard_jmp;
static __thread uintptr_t tcd_guard_addr;

/* The dispositions found when the handler was installed (written once, by
 * the pthread_once routine, before any guarded call runs). */
static struct {
	pthread_once_t once;
	struct sigaction prev_segv, prev_bus;
} tcd_guard_g = { .once = PTHREAD_ONCE_INIT };

static void tcd_guard_handler(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *jb = tcd_guard_jmp;

	(void)uc;
	if (jb) {
		tcd_guard_jmp = NULL;
		tcd_guard_addr = (uintptr_t)si->si_addr;
		siglongjmp(*jb, 1);
	}
	/* Not a guarded call's fault: let the previous disposition take it when
	 * the instruction runs again. */
	sigaction(sig, sig == SIGBUS ? &tcd_guard_g.prev_bus : &tcd_guard_g.prev_segv, NULL);
}

static void tcd_guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = tcd_guard_handler;
	/* SA_NODEFER: the jump leaves the handler without sigreturn, so the
	 * signal must not stay blocked (sigsetjmp does not save the mask:
	 * that would be a system call per kernel). */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &tcd_guard_g.prev_segv);
	sigaction(SIGBUS, &sa, &tcd_guard_g.prev_bus);
}

void tcd_guard_fault(uintptr_t addr)
{
	sigjmp_buf *jb = tcd_guard_jmp;

	if (!jb)
		abort(); /* not inside a guarded call: a bug of the double */
	tcd_guard_jmp = NULL;
	tcd_guard_addr = addr;
	siglongjmp(*jb, 1);
}

bool tcd_guard_call(void (*fn)(void *arg), void *arg, uintptr_t *fault_addr)
{
	sigjmp_buf jb;
	volatile bool faulted = false;

	pthread_once(&tcd_guard_g.once, tcd_guard_install);
	if (sigsetjmp(jb, 0) == 0) {
		tcd_guard_jmp = &jb;
		fn(arg);
	} else {
		faulted = true;
		if (fault_addr)
			*fault_addr = tcd_guard_addr;
	}
	tcd_guard_jmp = NULL;
	return faulted;
}
