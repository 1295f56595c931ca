/*
 * chain_uname - a preloaded library that wraps uname(2) and chains to the
 * next definition through dlsym(RTLD_NEXT, ...), as tracing tools and the
 * sanitizer runtimes do.  With the CUDA interposer preloaded ahead of it,
 * RTLD_NEXT must still mean "after this library": the wrapper marks the
 * node name so a test can see it ran exactly once and reached libc.
 */
#include <dlfcn.h>
#include <string.h>
#include <sys/utsname.h>

int uname(struct utsname *u)
{
	int (*next)(struct utsname *) = (int (*)(struct utsname *))dlsym(RTLD_NEXT, "uname");
	int r;
	if (!next || next == uname)
		return -1;
	r = next(u);
	if (r == 0) {
		size_t n = strlen(u->nodename);
		if (n + 8 < sizeof(u->nodename))
			memcpy(u->nodename + n, "+chain", 7);
	}
	return r;
}
