/*
 * tscapture - run a program with capture on and say what it wrote.
 *
 *   tscapture [-o FILE] [--stacks none|work|all] [--help] -- PROGRAM [ARGS]
 *
 * The program's own exit status is passed through (death by signal N
 * becomes 128+N, with a message).  The child gets TRACESMITH_OUTPUT=FILE
 * and TRACESMITH_OWNER_PID=<its pid>: it writes exactly FILE, and any
 * process it starts writes <stem>-<pid>.sbt beside it.  Afterwards every
 * trace produced is listed with its size and record count.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracesmith/sbt.h"

#define TSC_DEFAULT_OUTPUT "tracesmith.sbt"

typedef struct tsc_opts {
	const char *output;
	const char *stacks; /* NULL: the runtime's default */
	char **argv;        /* the program and its arguments */
} tsc_opts;

static void tsc_usage(FILE *f)
{
	fprintf(f,
	        "usage: tscapture [-o FILE] [--stacks none|work|all] [--] PROGRAM [ARGS...]\n"
	        "\n"
	        "Runs PROGRAM with TraceSmith capture on and lists the traces written.\n"
	        "\n"
	        "  -o, --output FILE   trace file (default ./" TSC_DEFAULT_OUTPUT "); processes the\n"
	        "                      program starts write <stem>-<pid>.sbt beside it\n"
	        "  --stacks MODE       host call stacks: none, work (default) or all\n"
	        "  -h, --help          this help\n"
	        "\n"
	        "The exit status is PROGRAM's (128+N if it died of signal N); 127 if it\n"
	        "could not be run, 2 for a usage error.  Other settings come from the\n"
	        "TRACESMITH_* environment variables (see docs/capture.md).\n");
}

/* 0: parsed; otherwise the exit status to return. */
static int tsc_parse(int argc, char **argv, tsc_opts *o)
{
	int i;
	o->output = TSC_DEFAULT_OUTPUT;
	o->stacks = NULL;
	o->argv = NULL;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			tsc_usage(stdout);
			return -1;
		}
		if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
		    strcmp(a, "--stacks") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "tscapture: %s needs a value\n", a);
				goto out_usage;
			}
			if (a[1] == 'o' || a[2] == 'o')
				o->output = argv[++i];
			else
				o->stacks = argv[++i];
			continue;
		}
		if (strncmp(a, "--output=", 9) == 0) {
			o->output = a + 9;
			continue;
		}
		if (strncmp(a, "--stacks=", 9) == 0) {
			o->stacks = a + 9;
			continue;
		}
		if (a[0] == '-' && a[1]) {
			fprintf(stderr, "tscapture: unknown option '%s'\n", a);
			goto out_usage;
		}
		break; /* the program, without "--" */
	}
	if (i >= argc) {
		fprintf(stderr, "tscapture: no program to run\n");
		goto out_usage;
	}
	if (!o->output[0]) {
		fprintf(stderr, "tscapture: -o needs a file name\n");
		goto out_usage;
	}
	if (o->stacks && strcmp(o->stacks, "none") != 0 && strcmp(o->stacks, "work") != 0 &&
	    strcmp(o->stacks, "all") != 0) {
		fprintf(stderr, "tscapture: --stacks '%s' is not none, work or all\n", o->stacks);
		goto out_usage;
	}
	o->argv = argv + i;
	return 0;

out_usage:
	tsc_usage(stderr);
	return 2;
}

/*
 * Front-end hook-up: where the Vulkan layer (VK_INSTANCE_LAYERS,
 * VK_ADD_LAYER_PATH) and the CUDA/HIP interposers (LD_PRELOAD) will be
 * put in the child's environment.  Runs in the child, before exec.
 * Returns 0, or -1 with a message printed.
 */
/* Prepend `item` to the ':'-separated list in variable `var`, unless the
 * list has it already.  Returns 0, or -1 with a message printed. */
static int tsc_env_prepend(const char *var, const char *item)
{
	const char *old = getenv(var);
	size_t n = strlen(item);
	const char *p;
	char *v;
	int rc;
	for (p = old; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : p + strlen(p))
		if (strncmp(p, item, n) == 0 && (p[n] == ':' || p[n] == '\0'))
			return 0;
	if (!old || !*old)
		return setenv(var, item, 1) == 0 ? 0 : -1;
	v = malloc(n + 1 + strlen(old) + 1);
	if (!v) {
		fprintf(stderr, "tscapture: out of memory setting %s\n", var);
		return -1;
	}
	sprintf(v, "%s:%s", item, old);
	rc = setenv(var, v, 1);
	free(v);
	return rc == 0 ? 0 : -1;
}

/*
 * The folder, beside tscapture (the build tree) or under its install prefix,
 * that holds `file`: the first of rel[] (relative to tscapture's own
 * folder) where it is readable.  0 and the folder in dir_out, or -1.
 */
static int tsc_find_beside(const char *const *rel, size_t nrel, const char *file,
                           char *dir_out, size_t dir_len)
{
	char exe[4096], path[8400];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	size_t i;
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	for (i = 0; i < nrel; i++) {
		snprintf(dir_out, dir_len, "%s/%s", exe, rel[i]);
		snprintf(path, sizeof(path), "%s/%s", dir_out, file);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -1;
}

/*
 * The Vulkan layer, enabled as an implicit layer where its implicit
 * manifest is found beside tscapture (build/share/vulkan/implicit_layer.d/
 * in the build tree, bin/../share/vulkan/implicit_layer.d/ installed): the
 * folder above vulkan/ goes first in XDG_DATA_DIRS (the loader's search
 * path for implicit layers; the default /usr/local/share:/usr/share stays
 * after it, drivers' manifests live there) and TRACESMITH_VK_IMPLICIT=1
 * switches it on.  Only an implicit layer may filter the loader's instance
 * extension list, so the program never sees one we cannot record.  Layers
 * the user listed in VK_INSTANCE_LAYERS stay, below ours.
 *
 * Otherwise (the implicit manifest missing) the explicit way:
 * VK_LAYER_tracesmith first in VK_INSTANCE_LAYERS and the folder of its
 * explicit manifest in VK_ADD_LAYER_PATH; without either, the loader's own
 * search (a system install) has to find it.
 */
static int tsc_setup_vulkan(void)
{
	static const char *const irel[] = {"share/vulkan/implicit_layer.d",
	                                   "../share/vulkan/implicit_layer.d"};
	static const char *const rel[] = {"layers", "../share/vulkan/explicit_layer.d"};
	char dir[4200];
	if (tsc_find_beside(irel, sizeof(irel) / sizeof(irel[0]), "VkLayer_tracesmith.json", dir,
	                    sizeof(dir)) == 0) {
		const char *old = getenv("XDG_DATA_DIRS");
		/* dir ends in /vulkan/implicit_layer.d: the data folder is above */
		dir[strlen(dir) - strlen("/vulkan/implicit_layer.d")] = '\0';
		if ((!old || !*old) && setenv("XDG_DATA_DIRS", "/usr/local/share:/usr/share", 1) != 0)
			return -1;
		if (tsc_env_prepend("XDG_DATA_DIRS", dir) != 0)
			return -1;
		return setenv("TRACESMITH_VK_IMPLICIT", "1", 1) == 0 ? 0 : -1;
	}
	if (tsc_find_beside(rel, sizeof(rel) / sizeof(rel[0]), "VkLayer_tracesmith.json", dir,
	                    sizeof(dir)) == 0 &&
	    tsc_env_prepend("VK_ADD_LAYER_PATH", dir) != 0)
		return -1;
	return tsc_env_prepend("VK_INSTANCE_LAYERS", "VK_LAYER_tracesmith");
}

/*
 * The CUDA interposer: libtracesmith_cuda.so goes first in LD_PRELOAD (the
 * user's entries stay after it), found beside tscapture in the build tree
 * (build/interpose/) or under the install prefix (bin/../lib/tracesmith/).
 * When neither has it (built without cuda.h), CUDA is not captured.
 */
static int tsc_setup_cuda(void)
{
	static const char *const rel[] = {"interpose", "../lib/tracesmith"};
	char dir[4200], path[4300];
	if (tsc_find_beside(rel, sizeof(rel) / sizeof(rel[0]), "libtracesmith_cuda.so", dir,
	                    sizeof(dir)) != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/libtracesmith_cuda.so", dir);
	return tsc_env_prepend("LD_PRELOAD", path);
}

static int tsc_setup_frontends(const tsc_opts *o)
{
	(void)o;
	if (tsc_setup_vulkan() != 0) {
		fprintf(stderr, "tscapture: cannot set up the Vulkan layer's environment\n");
		return -1;
	}
	if (tsc_setup_cuda() != 0) {
		fprintf(stderr, "tscapture: cannot set up LD_PRELOAD for the CUDA interposer\n");
		return -1;
	}
	return 0;
}

/* The stem trace names share: FILE minus a trailing ".sbt". */
static void tsc_split(const char *output, char *dir, size_t dir_len, char *stem,
                      size_t stem_len)
{
	const char *slash = strrchr(output, '/');
	const char *base = slash ? slash + 1 : output;
	size_t n = strlen(base);
	if (slash)
		snprintf(dir, dir_len, "%.*s", (int)(slash - output + (slash == output)), output);
	else
		snprintf(dir, dir_len, ".");
	if (n >= 4 && strcmp(base + n - 4, ".sbt") == 0)
		n -= 4;
	snprintf(stem, stem_len, "%.*s", (int)n, base);
}

static void tsc_report_one(const char *path, int *count)
{
	struct stat sb;
	sbt_reader *r = NULL;
	sbt_status st;
	if (stat(path, &sb) != 0)
		return;
	(*count)++;
	st = sbt_reader_open(path, NULL, &r);
	if (st == SBT_OK) {
		sbt_trace_info info;
		sbt_reader_get_info(r, &info);
		fprintf(stderr, "tscapture: wrote %s (%lld bytes, %" PRIu64 " records%s)\n", path,
		        (long long)sb.st_size, info.record_count,
		        info.has_index ? "" : ", no index: not closed cleanly");
		if (sbt_reader_message(r)[0])
			fprintf(stderr, "tscapture:   %s\n", sbt_reader_message(r));
	} else {
		fprintf(stderr, "tscapture: wrote %s (%lld bytes), but it cannot be read: %s%s%s\n",
		        path, (long long)sb.st_size, sbt_strerror(st), r ? ": " : "",
		        r ? sbt_reader_message(r) : "");
	}
	sbt_reader_close(r);
}

/* FILE, then every <stem>-<pid>.sbt written since the program started. */
static void tsc_report(const char *output, time_t started)
{
	char dir[4096], stem[1024];
	DIR *d;
	struct dirent *de;
	int count = 0;
	size_t sl;

	tsc_report_one(output, &count);
	tsc_split(output, dir, sizeof(dir), stem, sizeof(stem));
	sl = strlen(stem);
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d)) != NULL) {
			const char *name = de->d_name, *q;
			char path[8192];
			struct stat sb;
			size_t n = strlen(name);
			if (strncmp(name, stem, sl) != 0 || name[sl] != '-' || n < sl + 6 ||
			    strcmp(name + n - 4, ".sbt") != 0)
				continue;
			for (q = name + sl + 1; q < name + n - 4 && *q >= '0' && *q <= '9'; q++)
				;
			if (q != name + n - 4 || q == name + sl + 1)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			if (stat(path, &sb) != 0 || sb.st_mtime < started)
				continue;
			tsc_report_one(path, &count);
		}
		closedir(d);
	}
	if (count == 0)
		fprintf(stderr, "tscapture: no trace written (the program made no recorded calls)\n");
}

int main(int argc, char **argv)
{
	tsc_opts o;
	pid_t pid;
	int status, rc, fds[2];
	char errbuf[16];
	time_t started;
	ssize_t got;

	rc = tsc_parse(argc, argv, &o);
	if (rc == -1)
		return 0;
	if (rc != 0)
		return rc;
	/* A trace left from an earlier run must not be reported as this one. */
	if (unlink(o.output) != 0 && errno != ENOENT)
		fprintf(stderr, "tscapture: warning: cannot remove old '%s': %s\n", o.output,
		        strerror(errno));
	/* exec failure comes back through a close-on-exec pipe. */
	if (pipe2(fds, O_CLOEXEC) != 0) {
		fprintf(stderr, "tscapture: pipe: %s\n", strerror(errno));
		return 1;
	}
	started = time(NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "tscapture: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		char pidstr[32];
		int err;
		close(fds[0]);
		snprintf(pidstr, sizeof(pidstr), "%ld", (long)getpid());
		setenv("TRACESMITH_OUTPUT", o.output, 1);
		setenv("TRACESMITH_OWNER_PID", pidstr, 1);
		if (o.stacks)
			setenv("TRACESMITH_STACKS", o.stacks, 1);
		if (tsc_setup_frontends(&o) != 0)
			_exit(127);
		execvp(o.argv[0], o.argv);
		err = errno;
		if (write(fds[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	/* tscapture outlives a Ctrl-C so that it can still report. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	do {
		got = read(fds[0], errbuf, sizeof(int));
	} while (got < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "tscapture: waitpid: %s\n", strerror(errno));
			return 1;
		}
	}
	if (got == (ssize_t)sizeof(int)) {
		int err;
		memcpy(&err, errbuf, sizeof(err));
		fprintf(stderr, "tscapture: cannot run '%s': %s\n", o.argv[0], strerror(err));
		return 127;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		fprintf(stderr, "tscapture: '%s' was killed by signal %d (%s)%s\n", o.argv[0], sig,
		        strsignal(sig), WCOREDUMP(status) ? ", core dumped" : "");
		rc = 128 + sig;
	} else {
		rc = WEXITSTATUS(status);
	}
	tsc_report(o.output, started);
	return rc;
}
