/*
 * cap_symbols.c - naming the return addresses of host call stacks, on the
 * writer thread, once per address:
 *
 *     object!function+0xoff (file:line)
 *
 * The function and the source line come from the object's symbol table
 * and debug information through elfutils' libdwfl, where the object has
 * them (static functions included, which dladdr cannot name; the line
 * only from a line table in the object itself, cap_sym_own_lines); without
 * libdw, or for an address it cannot place, dladdr gives what the dynamic
 * symbol table has (`object!function+0xoff`, or `object+0xoff`).
 *
 * libdw is opened with dlopen at the first stack, not linked: a front-end
 * library loaded into every captured program does not drag elfutils and
 * its compression libraries in with it, and a machine without libdw (the
 * GPU machines the tools are copied to) still gets dladdr's names.  Only
 * the writer thread calls in here, so the state needs no lock.
 *
 * Separate debug files are looked for on this machine only, never through
 * a debuginfod server (cap_sym_find_debuginfo).
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "capture/cap_internal.h"

#define CAP_SYM_MAX_REPORTS 32

/* The libdwfl entry points used, looked up in libdw.so.1. */
static struct {
	int tried;
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	int reports;                  /* times the mappings were reported */
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	void (*end)(Dwfl *);
	void (*report_begin)(Dwfl *);
	int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *),
	                  void *);
	int (*proc_report)(Dwfl *, pid_t);
	Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
	const char *(*addrinfo)(Dwfl_Module *, Dwarf_Addr, GElf_Off *, GElf_Sym *, GElf_Word *,
	                        Elf **, Dwarf_Addr *);
	Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
	const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, int *, int *);
	Elf *(*getelf)(Dwfl_Module *, GElf_Addr *);
	int (*shdrstrndx)(Elf *, size_t *);
	Elf_Scn *(*nextscn)(Elf *, Elf_Scn *);
	GElf_Shdr *(*getshdr)(Elf_Scn *, GElf_Shdr *);
	char *(*strptr)(Elf *, size_t, size_t);
	/* libdwfl's own finders of debug files */
	int (*standard_find_debuginfo)(Dwfl_Module *, void **, const char *, Dwarf_Addr,
	                               const char *, const char *, GElf_Word, char **);
	int (*build_id_find_debuginfo)(Dwfl_Module *, void **, const char *, Dwarf_Addr,
	                               const char *, const char *, GElf_Word, char **);
} cap_dw;

/* Whether name (a .gnu_debuglink file name) is beside the object at path,
 * in .debug/ there, or under /usr/lib/debug/ in the object's directory:
 * where libdwfl's standard search looks by default. */
static int cap_sym_debuglink_here(const char *path, const char *name)
{
	char dir[PATH_MAX], cand[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int n = slash ? (int)(slash - path) : 1;
	if (!slash)
		path = ".";
	if (n >= (int)sizeof dir)
		return 0;
	memcpy(dir, path, (size_t)n);
	dir[n] = 0;
	if ((snprintf(cand, sizeof cand, "%s/%s", dir, name) < (int)sizeof cand &&
	     stat(cand, &st) == 0) ||
	    (snprintf(cand, sizeof cand, "%s/.debug/%s", dir, name) < (int)sizeof cand &&
	     stat(cand, &st) == 0) ||
	    (snprintf(cand, sizeof cand, "/usr/lib/debug%s/%s", dir, name) < (int)sizeof cand &&
	     stat(cand, &st) == 0))
		return 1;
	return 0;
}

/* The debug file of an object whose own symbol table is only the dynamic
 * one: by build ID under /usr/lib/debug/.build-id, else by its debuglink.
 * dwfl_standard_find_debuginfo, finding neither, goes on to ask the
 * debuginfod client, whose first use initialises libcurl and OpenSSL, and
 * which waits up to 90 seconds for each object when DEBUGINFOD_URLS names a
 * server.  From the capture's writer thread, in the program's process,
 * that raced the program's exit: OpenSSL's exit handler, registered by that
 * first use while exit() ran the handlers, freed what the first use was
 * filling (SIGSEGV in OPENSSL_LH_insert under piglit's shader_runner on
 * zink: 5 of its 2,371 tests in one run).  So the standard search runs
 * only when a debug file is there to find by its debuglink (should that
 * file fail libdwfl's CRC check, the standard search still asks the
 * client); otherwise no debug file. */
static int cap_sym_find_debuginfo(Dwfl_Module *mod, void **arg, const char *modname,
                                  Dwarf_Addr base, const char *file, const char *link,
                                  GElf_Word crc, char **debug_file)
{
	char real[PATH_MAX];
	int fd = cap_dw.build_id_find_debuginfo(mod, arg, modname, base, file, link, crc,
	                                        debug_file);
	if (fd >= 0 || !file || !link || !*link)
		return fd;
	if (!cap_sym_debuglink_here(file, link) &&
	    !(realpath(file, real) && cap_sym_debuglink_here(real, link)))
		return -1;
	return cap_dw.standard_find_debuginfo(mod, arg, modname, base, file, link, crc, debug_file);
}

static int cap_sym_dw_open(void)
{
	void *h;
	if (cap_dw.tried)
		return cap_dw.dwfl != NULL;
	cap_dw.tried = 1;
	h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
#define CAP_DW(field, name) *(void **)&cap_dw.field = dlsym(h, name)
	CAP_DW(begin, "dwfl_begin");
	CAP_DW(end, "dwfl_end");
	CAP_DW(report_begin, "dwfl_report_begin");
	CAP_DW(report_end, "dwfl_report_end");
	CAP_DW(proc_report, "dwfl_linux_proc_report");
	CAP_DW(addrmodule, "dwfl_addrmodule");
	CAP_DW(addrinfo, "dwfl_module_addrinfo");
	CAP_DW(getsrc, "dwfl_module_getsrc");
	CAP_DW(lineinfo, "dwfl_lineinfo");
	CAP_DW(getelf, "dwfl_module_getelf");
	CAP_DW(shdrstrndx, "elf_getshdrstrndx"); /* libelf, which libdw links */
	CAP_DW(nextscn, "elf_nextscn");
	CAP_DW(getshdr, "gelf_getshdr");
	CAP_DW(strptr, "elf_strptr");
	CAP_DW(build_id_find_debuginfo, "dwfl_build_id_find_debuginfo");
	*(void **)&cap_dw.cb.find_elf = dlsym(h, "dwfl_linux_proc_find_elf");
	CAP_DW(standard_find_debuginfo, "dwfl_standard_find_debuginfo");
#undef CAP_DW
	cap_dw.cb.find_debuginfo = cap_sym_find_debuginfo;
	cap_dw.cb.debuginfo_path = &cap_dw.debuginfo_path;
	if (!cap_dw.begin || !cap_dw.end || !cap_dw.report_begin || !cap_dw.report_end ||
	    !cap_dw.proc_report || !cap_dw.addrmodule || !cap_dw.addrinfo || !cap_dw.getsrc ||
	    !cap_dw.lineinfo || !cap_dw.getelf || !cap_dw.shdrstrndx || !cap_dw.nextscn ||
	    !cap_dw.getshdr || !cap_dw.strptr || !cap_dw.cb.find_elf ||
	    !cap_dw.standard_find_debuginfo || !cap_dw.build_id_find_debuginfo)
		return 0; /* left open: the library stays as long as the process */
	cap_dw.dwfl = cap_dw.begin(&cap_dw.cb);
	return cap_dw.dwfl != NULL;
}

/* Report the process's mappings (again: objects loaded since). */
static int cap_sym_dw_report(void)
{
	cap_dw.report_begin(cap_dw.dwfl);
	if (cap_dw.proc_report(cap_dw.dwfl, getpid()) != 0)
		return -1;
	return cap_dw.report_end(cap_dw.dwfl, NULL, NULL);
}

static const char *cap_sym_base(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* Whether the object of mod carries its own line table (a .debug_line
 * section, compressed or not): the line of an address is looked up only
 * there.  An object whose debug information is in a separate file (a
 * distribution's -dbg package: libc6-dbg for libc's frames under every
 * program's main) is named from its symbols alone, since libdw would read
 * and decompress that file's whole DWARF at the first address: 200 million
 * instructions for libc's on the writer thread as a capture starts, while
 * the program runs (docs/benchmarks.md, thirteenth session). */
static int cap_sym_own_lines(Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = cap_dw.getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	if (!elf || cap_dw.shdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = cap_dw.nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (!cap_dw.getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = cap_dw.strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_line") || !strcmp(name, ".zdebug_line")))
			return 1;
	}
	return 0;
}

/* libdwfl's name for pc: 1 when it placed the address in an object. */
static int cap_sym_dw_name(uint64_t pc, uint64_t ip, char *buf, size_t len)
{
	Dwfl_Module *mod;
	const char *object = NULL, *fn, *file;
	GElf_Off off = 0;
	GElf_Sym sym;
	Dwfl_Line *line;
	Dl_info di;
	int lineno = 0;
	size_t n;

	if (!cap_sym_dw_open())
		return 0;
	mod = cap_dw.addrmodule(cap_dw.dwfl, pc);
	/* First use, or an object loaded since: report the mappings again (a
	 * bounded number of times: code outside every object, JIT code, would
	 * otherwise have /proc/self/maps read for each of its addresses). */
	if (!mod && cap_dw.reports < CAP_SYM_MAX_REPORTS) {
		cap_dw.reports++;
		if (cap_sym_dw_report() == 0)
			mod = cap_dw.addrmodule(cap_dw.dwfl, pc);
	}
	if (!mod)
		return 0;
	fn = cap_dw.addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	if (!fn)
		return 0;
	if (dladdr((void *)(uintptr_t)pc, &di) && di.dli_fname)
		object = cap_sym_base(di.dli_fname);
	/* off is from the symbol to pc; the frame names the return address. */
	n = (size_t)snprintf(buf, len, "%s!%s+0x%" PRIx64, object ? object : "?", fn,
	                     (uint64_t)off + (ip - pc));
	line = cap_sym_own_lines(mod) ? cap_dw.getsrc(mod, pc) : NULL;
	file = line ? cap_dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (file && lineno > 0 && n < len)
		snprintf(buf + n, len - n, " (%s:%d)", file, lineno);
	return 1;
}

void cap_sym_describe_(uint64_t ip, char *buf, size_t len)
{
	Dl_info di;
	/* A return address: name the call instruction before it. */
	uint64_t pc = ip - 1;
	buf[0] = 0;
	if (cap_sym_dw_name(pc, ip, buf, len))
		return;
	if (dladdr((void *)(uintptr_t)pc, &di) && di.dli_fname) {
		const char *base = cap_sym_base(di.dli_fname);
		if (di.dli_sname && di.dli_saddr)
			snprintf(buf, len, "%s!%s+0x%" PRIx64, base, di.dli_sname,
			         ip - (uint64_t)(uintptr_t)di.dli_saddr);
		else
			snprintf(buf, len, "%s+0x%" PRIx64, base, ip - (uint64_t)(uintptr_t)di.dli_fbase);
	}
}

/* The runtime is linked into each front-end library (the layer, the
 * interposers): their frames are the wrapper the program called.  Linked
 * into a program (the tests' own tools), nothing is cut. */
int cap_sym_is_ours_(uint64_t ip)
{
	static int looked;
	static const void *self_base;
	Dl_info di;
	if (!looked) {
		looked = 1;
		if (dladdr((void *)cap_sym_is_ours_, &di) && di.dli_fname &&
		    strstr(cap_sym_base(di.dli_fname), ".so"))
			self_base = di.dli_fbase;
	}
	return self_base && dladdr((void *)(uintptr_t)(ip - 1), &di) && di.dli_fbase == self_base;
}
