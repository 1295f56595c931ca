/*
 * tscapture - run a program with capture on and say what it wrote.
 *
 *   tscapture [-o FILE] [--stacks none|work|all] [--api LIST]
 *             [--snapshot-frames N] [TRIGGERS] [--help] -- PROGRAM [ARGS]
 *
 *   TRIGGERS: --frame KEY[:COUNT], --frames A-B | --submits A-B |
 *             --launches A-B, --signal, --app, --profiler, --nvtx NAME
 *
 * The program's own exit status is passed through (death by signal N
 * becomes 128+N, with a message).  The child gets TRACESMITH_OUTPUT=FILE
 * and TRACESMITH_OWNER_PID=<its pid>: it writes exactly FILE, and any
 * process it starts writes <stem>-<pid>.sbt beside it.  Options become the
 * child's TRACESMITH_STACKS, TRACESMITH_API, TRACESMITH_SNAPSHOT_FRAMES and
 * TRACESMITH_TRIGGER (one comma-separated list of every trigger given).
 * With a trigger the run is captured in windows, each to its own file:
 * <stem>-frames-A-B.sbt (and -submits-, -launches-) for ranges and hotkey
 * presses, <stem>-window-K.sbt for the others, <stem>-<pid>-... from other
 * processes; FILE itself is not written.  Afterwards every trace produced
 * is listed with its size and record count; a range that never happened
 * is said so, and exits 3 when the program itself exited 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap.h"
#include "capture/cap_keys.h"
#include "serializer/sbt_cli.h"
#include "tracesmith/sbt.h"

#define TSC_DEFAULT_KEY "F12"
#define TSC_EXIT_USAGE 2
#define TSC_EXIT_NO_RANGE 3   /* a range that never happened; the program exited 0 */
#define TSC_MAX_KEY_FRAMES 100000u
#define TSC_MAX_NVTX_NAME 127 /* what the runtime keeps (cap_config.nvtx_name) */

/* The front-ends --api may name, in the order tscapture sets them up. */
typedef enum { TSC_API_VULKAN, TSC_API_CUDA, TSC_API_HIP, TSC_API_COUNT } tsc_api;
static const char *const tsc_api_names[TSC_API_COUNT] = {"vulkan", "cuda", "hip"};

typedef struct tsc_opts {
	const char *output;
	const char *stacks;          /* NULL: the runtime's default */
	const char *api;             /* --api as given; NULL: every front-end */
	int api_on[TSC_API_COUNT];   /* 1: set this front-end up */
	const char *snapshot_frames; /* --snapshot-frames as given, or NULL */
	/* triggers */
	const char *range_kind;      /* "frames", "submits", "launches", or NULL */
	uint64_t range_first, range_last;
	const char *key;             /* --frame KEY[:COUNT] as given, or NULL */
	int signal, app, profiler;
	const char *nvtx;            /* --nvtx NAME, or NULL */
	char trigger[512];           /* TRACESMITH_TRIGGER; "" without triggers */
	char **argv;                 /* the program and its arguments */
} tsc_opts;

static void tsc_usage(FILE *f)
{
	fprintf(f,
	        "usage: tscapture [-o FILE] [OPTIONS] [TRIGGERS] [--] PROGRAM [ARGS...]\n"
	        "Runs PROGRAM with TraceSmith capture on and lists the traces written.\n"
	        "  -o, --output FILE    trace (default ./PROGRAM_YYYYMMDDTHHMMSS_PID.sbt); other processes\n"
	        "                       write <stem>-<pid>.sbt beside it\n"
	        "  --stacks MODE        host call stacks: none, work (default) or all\n"
	        "  --api LIST           front-ends: vulkan,cuda,hip; -NAME leaves one out\n"
	        "  --snapshot-frames N  whole run: a state snapshot every N frames\n"
	        "  -h, --help           this help; --version: the TraceSmith version\n"
	        "Triggers capture windows only, each to <stem>-frames-A-B.sbt (ranges, KEY)\n"
	        "or <stem>-window-K.sbt (K-th window); FILE itself is not written:\n"
	        "  --frame KEY[:COUNT]  COUNT frames (1) after each press of KEY (F12; X11)\n"
	        "  --frames A-B         frames A to B, from 1 (--submits A-B, --launches A-B:\n"
	        "                       queue submits, kernel launches); one range at most\n"
	        "  --signal             each SIGUSR1 opens or closes a window\n"
	        "  --app                windows the program opens (tracesmith_app.h)\n"
	        "  --profiler           from cuProfilerStart to cuProfilerStop\n"
	        "  --nvtx NAME          inside NVTX ranges named NAME\n"
	        "Exit: PROGRAM's (128+N if it died of signal N); 127 it could not run;\n"
	        "2 usage error; 3 the range never happened (PROGRAM exited 0).  Other\n"
	        "settings: TRACESMITH_* variables (docs/capture.md).\n");
}

/* "A-B": whole numbers from 1, A <= B.  0, or -1. */
static int tsc_parse_range(const char *s, uint64_t *first, uint64_t *last)
{
	const char *dash = strchr(s, '-');
	uint64_t v[2] = {0, 0};
	const char *p = s;
	int k;
	if (!dash)
		return -1;
	for (k = 0; k < 2; k++) {
		const char *end = k == 0 ? dash : s + strlen(s);
		if (p == end)
			return -1;
		for (; p < end; p++) {
			if (*p < '0' || *p > '9' || v[k] > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
				return -1;
			v[k] = v[k] * 10 + (uint64_t)(*p - '0');
		}
		p = dash + 1;
	}
	if (v[0] == 0 || v[0] > v[1])
		return -1;
	*first = v[0];
	*last = v[1];
	return 0;
}

/* --frame KEY[:COUNT]: a key cap_key_lookup knows and 1 <= COUNT <= max. */
static int tsc_check_key(const char *arg)
{
	char key[64];
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	if (n == 0 || n >= sizeof(key)) {
		fprintf(stderr, "tscapture: --frame '%s': expected KEY or KEY:COUNT\n", arg);
		return -1;
	}
	memcpy(key, arg, n);
	key[n] = '\0';
	if (cap_key_lookup(key) == 0) {
		fprintf(stderr, "tscapture: --frame: unknown key '%s'; the keys are %s\n", key,
		        cap_key_names());
		return -1;
	}
	if (colon) {
		char *end = NULL;
		unsigned long c;
		errno = 0;
		c = strtoul(colon + 1, &end, 10);
		if (errno || colon[1] < '0' || colon[1] > '9' || *end || c < 1 ||
		    c > TSC_MAX_KEY_FRAMES) {
			fprintf(stderr, "tscapture: --frame '%s': COUNT must be a number of frames "
			                "from 1 to %u\n", arg, TSC_MAX_KEY_FRAMES);
			return -1;
		}
	}
	return 0;
}

/* --api LIST: names from tsc_api_names, each optionally "-"; sets
 * o->api_on as cap_api_enabled() will read the list (a list naming any
 * front-end enables only those; one of exclusions only, all but those). */
static int tsc_check_api(const char *list, tsc_opts *o)
{
	int named[TSC_API_COUNT] = {0}; /* 1 included, -1 excluded */
	int includes = 0, i;
	const char *p = list;
	if (!*list) {
		fprintf(stderr, "tscapture: --api needs a list such as vulkan,cuda or -vulkan\n");
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		int minus = *p == '-';
		const char *name = p + minus;
		size_t len = n - (size_t)minus;
		for (i = 0; i < TSC_API_COUNT; i++)
			if (strlen(tsc_api_names[i]) == len && strncmp(tsc_api_names[i], name, len) == 0)
				break;
		if (i == TSC_API_COUNT) {
			fprintf(stderr, "tscapture: --api: unknown front-end '%.*s' (vulkan, cuda, hip; "
			                "-NAME leaves one out)\n", (int)n, p);
			return -1;
		}
		if (named[i] && named[i] != (minus ? -1 : 1)) {
			fprintf(stderr, "tscapture: --api: '%s' both names and leaves out %s\n", list,
			        tsc_api_names[i]);
			return -1;
		}
		named[i] = minus ? -1 : 1;
		includes |= !minus;
		p += n;
		if (*p == ',' && !*++p) {
			fprintf(stderr, "tscapture: --api: '%s' ends in a comma\n", list);
			return -1;
		}
	}
	for (i = 0; i < TSC_API_COUNT; i++)
		o->api_on[i] = includes ? named[i] == 1 : named[i] != -1;
	return 0;
}

/* Append ",item" (or "item" first) to the list t of cap bytes holding *n;
 * -1 when it does not fit. */
static int tsc_trigger_add(char *t, size_t cap, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int tsc_trigger_add(char *t, size_t cap, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;
	if (*n) {
		if (*n + 1 >= cap)
			return -1;
		t[(*n)++] = ',';
		t[*n] = '\0';
	}
	va_start(ap, fmt);
	w = vsnprintf(t + *n, cap - *n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= cap - *n)
		return -1;
	*n += (size_t)w;
	return 0;
}

/* TRACESMITH_TRIGGER from the trigger options, in a fixed order
 * (docs/capture.md). */
static int tsc_build_trigger(tsc_opts *o)
{
	char *t = o->trigger;
	size_t cap = sizeof(o->trigger), n = 0;
	int bad = 0;
	t[0] = '\0';
	if (o->range_kind)
		bad |= tsc_trigger_add(t, cap, &n, "%s:%" PRIu64 "-%" PRIu64, o->range_kind,
		                       o->range_first, o->range_last);
	if (o->key)
		bad |= tsc_trigger_add(t, cap, &n, "key:%s", o->key);
	if (o->signal)
		bad |= tsc_trigger_add(t, cap, &n, "signal");
	if (o->app)
		bad |= tsc_trigger_add(t, cap, &n, "app");
	if (o->profiler)
		bad |= tsc_trigger_add(t, cap, &n, "profiler");
	if (o->nvtx)
		bad |= tsc_trigger_add(t, cap, &n, "nvtx:%s", o->nvtx);
	if (bad) {
		fprintf(stderr, "tscapture: the triggers make too long a TRACESMITH_TRIGGER\n");
		return -1;
	}
	return 0;
}

enum {
	TSC_OPT_STACKS = 256,
	TSC_OPT_API,
	TSC_OPT_SNAPSHOT_FRAMES,
	TSC_OPT_FRAME,
	TSC_OPT_FRAMES,
	TSC_OPT_SUBMITS,
	TSC_OPT_LAUNCHES,
	TSC_OPT_SIGNAL,
	TSC_OPT_APP,
	TSC_OPT_PROFILER,
	TSC_OPT_NVTX,
	TSC_OPT_VERSION
};

static const struct option tsc_longopts[] = {
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{"stacks", required_argument, NULL, TSC_OPT_STACKS},
	{"api", required_argument, NULL, TSC_OPT_API},
	{"snapshot-frames", required_argument, NULL, TSC_OPT_SNAPSHOT_FRAMES},
	{"frame", optional_argument, NULL, TSC_OPT_FRAME},
	{"frames", required_argument, NULL, TSC_OPT_FRAMES},
	{"submits", required_argument, NULL, TSC_OPT_SUBMITS},
	{"launches", required_argument, NULL, TSC_OPT_LAUNCHES},
	{"signal", no_argument, NULL, TSC_OPT_SIGNAL},
	{"app", no_argument, NULL, TSC_OPT_APP},
	{"profiler", no_argument, NULL, TSC_OPT_PROFILER},
	{"nvtx", required_argument, NULL, TSC_OPT_NVTX},
	{"version", no_argument, NULL, TSC_OPT_VERSION},
	{NULL, 0, NULL, 0}
};

/* The message for what getopt_long refused. */
static void tsc_getopt_error(int c, char **argv)
{
	char msg[256];
	sbt_cli_getopt_message(tsc_longopts, c, argv, NULL, msg, sizeof(msg));
	sbt_cli_usage_error("tscapture", "%s", msg);
}

/*
 * Without -o: PROG_YYYYMMDDTHHMMSS_PID.sbt in the current folder (the
 * program's base name, local time, tscapture's pid), the name the capture
 * runtime gives a trace when TRACESMITH_OUTPUT is unset (docs/capture.md),
 * so two captures at once never share a file.
 */
static char tsc_default_name[192];

static const char *tsc_default_output(const char *program)
{
	cap_trace_default_name(program, (long)getpid(), tsc_default_name, sizeof(tsc_default_name));
	return tsc_default_name;
}

/* 1 when another live process holds path's lock: the capture runtime
 * locks the trace it writes (flock), so it is someone's trace in the
 * making, not an old one to remove. */
static int tsc_output_busy(const char *path)
{
	int busy = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		busy = errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

/* 0: parsed; -1: --help or --version shown; otherwise the exit status to
 * return.  A usage error is one message then "try 'tscapture --help'". */
static int tsc_parse(int argc, char **argv, tsc_opts *o)
{
	int c, i;
	memset(o, 0, sizeof(*o));
	o->output = NULL; /* tsc_default_output once PROGRAM is known */
	for (i = 0; i < TSC_API_COUNT; i++)
		o->api_on[i] = 1;
	opterr = 0;
	optind = 1;
	/* "+": options end at PROGRAM, whose own options are its own. */
	while ((c = getopt_long(argc, argv, "+:ho:", tsc_longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			tsc_usage(stdout);
			return -1;
		case TSC_OPT_VERSION:
			sbt_cli_version("tscapture");
			return -1;
		case 'o':
			o->output = optarg;
			break;
		case TSC_OPT_STACKS:
			o->stacks = optarg;
			break;
		case TSC_OPT_API:
			if (tsc_check_api(optarg, o) != 0)
				goto out_usage;
			o->api = optarg;
			break;
		case TSC_OPT_SNAPSHOT_FRAMES: {
			char *end = NULL;
			unsigned long long v;
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || optarg[0] < '0' || optarg[0] > '9' || *end || v == 0) {
				fprintf(stderr, "tscapture: --snapshot-frames '%s': expected a number of "
				                "frames from 1\n", optarg);
				goto out_usage;
			}
			o->snapshot_frames = optarg;
			break;
		}
		case TSC_OPT_FRAME:
			/* KEY is optional: "--frame=KEY", "--frame KEY", or F12 when
			 * the next argument is an option ("--" included) or absent. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (o->key) {
				fprintf(stderr, "tscapture: --frame given twice\n");
				goto out_usage;
			}
			if (optarg && tsc_check_key(optarg) != 0)
				goto out_usage;
			o->key = optarg ? optarg : TSC_DEFAULT_KEY;
			break;
		case TSC_OPT_FRAMES:
		case TSC_OPT_SUBMITS:
		case TSC_OPT_LAUNCHES: {
			const char *kind = c == TSC_OPT_FRAMES ? "frames" : c == TSC_OPT_SUBMITS ? "submits"
			                                                                          : "launches";
			if (o->range_kind) {
				fprintf(stderr, "tscapture: --%s: one range at most (--%s was given)\n", kind,
				        o->range_kind);
				goto out_usage;
			}
			if (tsc_parse_range(optarg, &o->range_first, &o->range_last) != 0) {
				fprintf(stderr, "tscapture: --%s '%s': expected A-B, whole numbers from 1 "
				                "with A <= B\n", kind, optarg);
				goto out_usage;
			}
			o->range_kind = kind;
			break;
		}
		case TSC_OPT_SIGNAL:
			o->signal = 1;
			break;
		case TSC_OPT_APP:
			o->app = 1;
			break;
		case TSC_OPT_PROFILER:
			o->profiler = 1;
			break;
		case TSC_OPT_NVTX:
			if (o->nvtx) {
				fprintf(stderr, "tscapture: --nvtx given twice\n");
				goto out_usage;
			}
			if (!optarg[0] || strchr(optarg, ',') || strlen(optarg) > TSC_MAX_NVTX_NAME) {
				fprintf(stderr, "tscapture: --nvtx '%s': expected a range name, not empty, "
				                "without ',' and at most %d bytes\n", optarg, TSC_MAX_NVTX_NAME);
				goto out_usage;
			}
			o->nvtx = optarg;
			break;
		default:
			tsc_getopt_error(c, argv);
			return TSC_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tscapture: no program to run\n");
		goto out_usage;
	}
	if (o->output && !o->output[0]) {
		fprintf(stderr, "tscapture: -o needs a file name\n");
		goto out_usage;
	}
	if (o->stacks && strcmp(o->stacks, "none") != 0 && strcmp(o->stacks, "work") != 0 &&
	    strcmp(o->stacks, "all") != 0) {
		fprintf(stderr, "tscapture: --stacks '%s' is not none, work or all\n", o->stacks);
		goto out_usage;
	}
	if (tsc_build_trigger(o) != 0)
		goto out_usage;
	if (o->snapshot_frames && o->trigger[0]) {
		fprintf(stderr, "tscapture: --snapshot-frames is for a whole-run capture; it does "
		                "not go with a trigger\n");
		goto out_usage;
	}
	/* Not a usage error, but nothing can work: refuse before running. */
	if (o->key && (!getenv("DISPLAY") || !getenv("DISPLAY")[0])) {
		fprintf(stderr, "tscapture: --frame reads the key on the program's X11 display, and "
		                "DISPLAY is not set (no X11 display)\n");
		return TSC_EXIT_USAGE;
	}
	o->argv = argv + optind;
	return 0;

out_usage:
	fprintf(stderr, "try 'tscapture --help'\n");
	return TSC_EXIT_USAGE;
}

/*
 * Whether the traces can be written where -o says: the folder that holds
 * FILE (and every other trace of the run) exists and this user may create
 * files in it, and FILE is not a folder itself.  Checked before the program
 * runs, so that a typo costs no run.  0, or -1 with a message naming the
 * folder and why.
 */
static int tsc_check_output(const char *output)
{
	char dir[4096];
	const char *slash = strrchr(output, '/');
	struct stat sb;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == output)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - output), output);
	if (stat(dir, &sb) != 0) {
		fprintf(stderr, "tscapture: cannot write '%s': folder '%s': %s\n", output, dir,
		        strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "tscapture: cannot write '%s': '%s' is not a folder\n", output, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "tscapture: cannot write '%s': folder '%s' is not writable: %s\n",
		        output, dir, strerror(errno));
		return -1;
	}
	/* tscapture never makes a link, so one at the path is not ours: not to
	 * delete (the user made it) and not to write through (what it points
	 * at may be anything). */
	if (lstat(output, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		fprintf(stderr, "tscapture: cannot write '%s': it is a symbolic link; -o names the "
		                "trace file (give the path it points to, or remove the link)\n",
		        output);
		return -1;
	}
	if (stat(output, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "tscapture: cannot write '%s': it is a folder; -o names the trace "
		                "file\n", output);
		return -1;
	}
	/* The old trace is removed before the run: anything that is not a
	 * regular file (a FIFO, /dev/null) is not an old trace, and is not
	 * ours to delete or write into. */
	if (stat(output, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		fprintf(stderr, "tscapture: cannot write '%s': not a regular file (a device, pipe or "
		                "socket); -o names the trace file\n", output);
		return -1;
	}
	return 0;
}

/* Remove path if it is a trace an earlier run left: a regular file.
 * Anything else (a link, a FIFO, a device) is not ours. */
static void tsc_remove_old(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return;
	if (unlink(path) != 0 && errno != ENOENT)
		fprintf(stderr, "tscapture: warning: cannot remove old '%s': %s\n", path,
		        strerror(errno));
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
 * in the build tree, bin/../share/tracesmith/vulkan/implicit_layer.d/
 * installed: a folder the loader does not search by itself, so that only
 * the explicit manifest is listed outside tscapture): the folder above
 * vulkan/ goes first in XDG_DATA_DIRS (the loader's search path for
 * implicit layers; the default /usr/local/share:/usr/share stays after it,
 * drivers' manifests live there) and TRACESMITH_VK_IMPLICIT=1 switches it
 * on.  Only an implicit layer may filter the loader's instance
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
	                                   "../share/tracesmith/vulkan/implicit_layer.d"};
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
static int tsc_setup_cuda(const tsc_opts *o)
{
	static const char *const rel[] = {"interpose", "../lib/tracesmith"};
	char dir[4200], path[4300];
	if (tsc_find_beside(rel, sizeof(rel) / sizeof(rel[0]), "libtracesmith_cuda.so", dir,
	                    sizeof(dir)) != 0)
		return 0;
	/* --nvtx: NVTX v3 is header-only and calls what NVTX_INJECTION64_PATH
	 * names; our injection library turns the named range into a window. */
	snprintf(path, sizeof(path), "%s/libtracesmith_nvtx.so", dir);
	if (o->nvtx) {
		if (access(path, R_OK) != 0) {
			fprintf(stderr, "tscapture: --nvtx needs %s, which is missing\n", path);
			return -1;
		}
		if (setenv("NVTX_INJECTION64_PATH", path, 1) != 0)
			return -1;
	}
	snprintf(path, sizeof(path), "%s/libtracesmith_cuda.so", dir);
	return tsc_env_prepend("LD_PRELOAD", path);
}

/* The HIP interposer, the same way: libtracesmith_hip.so first in
 * LD_PRELOAD (docs/hip.md); not captured when it was not built. */
static int tsc_setup_hip(void)
{
	static const char *const rel[] = {"interpose", "../lib/tracesmith"};
	char dir[4200], path[4300];
	if (tsc_find_beside(rel, sizeof(rel) / sizeof(rel[0]), "libtracesmith_hip.so", dir,
	                    sizeof(dir)) != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/libtracesmith_hip.so", dir);
	return tsc_env_prepend("LD_PRELOAD", path);
}

/* The front-ends --api leaves on (all without it). */
static int tsc_setup_frontends(const tsc_opts *o)
{
	if (o->api_on[TSC_API_VULKAN] && tsc_setup_vulkan() != 0) {
		fprintf(stderr, "tscapture: cannot set up the Vulkan layer's environment\n");
		return -1;
	}
	if (o->api_on[TSC_API_CUDA] && tsc_setup_cuda(o) != 0) {
		fprintf(stderr, "tscapture: cannot set up the CUDA interposer's environment "
		                "(LD_PRELOAD, NVTX_INJECTION64_PATH)\n");
		return -1;
	}
	/* After CUDA's, so it lands before it: the user's entries stay right
	 * after the CUDA interposer (tests/shell/test_cuda_interpose.sh). */
	if (o->api_on[TSC_API_HIP] && tsc_setup_hip() != 0) {
		fprintf(stderr, "tscapture: cannot set up the HIP interposer's environment (LD_PRELOAD)\n");
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

/* What a file beside FILE is. */
typedef enum {
	TSC_NAME_OTHER,  /* not ours */
	TSC_NAME_CHILD,  /* <stem>-<pid>.sbt: another process's whole run */
	TSC_NAME_WINDOW  /* <stem>[-<pid>]-frames-A-B.sbt (submits, launches), or
	                    <stem>[-<pid>]-window-K.sbt: one capture window */
} tsc_name_kind;

static const char *tsc_digits(const char *p)
{
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

/* The kind of `name` for `stem`; for a window file *what points at its
 * part after the pid ("frames-100-110.sbt", "window-2.sbt"). */
static tsc_name_kind tsc_name_of(const char *name, const char *stem, const char **what)
{
	static const char *const kinds[] = {"frames-", "submits-", "launches-"};
	size_t sl = strlen(stem), i;
	const char *p, *q;
	if (strncmp(name, stem, sl) != 0 || name[sl] != '-')
		return TSC_NAME_OTHER;
	p = name + sl + 1;
	q = tsc_digits(p);
	if (q != p && strcmp(q, ".sbt") == 0)
		return TSC_NAME_CHILD;
	if (q != p && *q == '-')
		p = q + 1;
	*what = p;
	if (strncmp(p, "window-", 7) == 0) {
		q = tsc_digits(p + 7);
		return q != p + 7 && strcmp(q, ".sbt") == 0 ? TSC_NAME_WINDOW : TSC_NAME_OTHER;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t kl = strlen(kinds[i]);
		const char *a = p + kl, *b;
		if (strncmp(p, kinds[i], kl) != 0)
			continue;
		q = tsc_digits(a);
		if (q == a || *q != '-')
			return TSC_NAME_OTHER;
		b = q + 1;
		q = tsc_digits(b);
		return q != b && strcmp(q, ".sbt") == 0 ? TSC_NAME_WINDOW : TSC_NAME_OTHER;
	}
	return TSC_NAME_OTHER;
}

/* Window files an earlier run with the same stem left must not be
 * reported as this run's (FILE itself is removed by main). */
static void tsc_remove_old_windows(const char *output)
{
	char dir[4096], stem[1024], path[8192];
	struct dirent *de;
	DIR *d;
	tsc_split(output, dir, sizeof(dir), stem, sizeof(stem));
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		const char *what;
		if (tsc_name_of(de->d_name, stem, &what) != TSC_NAME_WINDOW)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		tsc_remove_old(path);
	}
	closedir(d);
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
		char why[512];
		sbt_cli_open_error(path, st, r, why, sizeof(why));
		fprintf(stderr, "tscapture: wrote %s (%lld bytes), but it cannot be read: %s\n", path,
		        (long long)sb.st_size, why);
	}
	sbt_reader_close(r);
}

/* Names in version order, so that window 10 follows window 9. */
/* Whether window file part `what` ("frames-100-110.sbt") is the range's
 * window: the runtime names it KIND-a-B, where a is the unit it opened at
 * (A, or later when the program started counting past A). */
static int tsc_is_range_window(const tsc_opts *o, const char *what)
{
	size_t kl = strlen(o->range_kind);
	unsigned long long a, b;
	char *end;
	if (strncmp(what, o->range_kind, kl) != 0 || what[kl] != '-')
		return 0;
	a = strtoull(what + kl + 1, &end, 10);
	if (*end != '-')
		return 0;
	b = strtoull(end + 1, &end, 10);
	return strcmp(end, ".sbt") == 0 && a >= o->range_first && a <= o->range_last &&
	       b == o->range_last;
}

static int tsc_cmp_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/*
 * FILE, then every <stem>-<pid>.sbt and window file written since the
 * program started, by name.  Returns 1 when a range was asked for and no
 * process wrote its window, else 0.
 */
static int tsc_report(const tsc_opts *o, time_t started)
{
	const char *env = getenv("TRACESMITH_TRIGGER");
	int windowed = o->trigger[0] || (env && env[0]);
	char dir[4096], stem[1024], path[8192];
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int count = 0, range_seen = 0;
	struct dirent *de;
	DIR *d;

	tsc_report_one(o->output, &count);
	tsc_split(o->output, dir, sizeof(dir), stem, sizeof(stem));
	d = opendir(dir);
	while (d && (de = readdir(d)) != NULL) {
		const char *what = NULL;
		tsc_name_kind k = tsc_name_of(de->d_name, stem, &what);
		struct stat sb;
		if (k == TSC_NAME_OTHER)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &sb) != 0 || sb.st_mtime < started)
			continue;
		if (k == TSC_NAME_WINDOW && o->range_kind && tsc_is_range_window(o, what))
			range_seen = 1;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char **nn = realloc(names, ncap * sizeof(*nn));
			if (!nn)
				break; /* listed below as far as memory went */
			names = nn;
			cap = ncap;
		}
		if ((names[n] = strdup(de->d_name)) != NULL)
			n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), tsc_cmp_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		tsc_report_one(path, &count);
		free(names[i]);
	}
	free(names);
	if (count == 0)
		fprintf(stderr, "tscapture: no trace written (%s)\n",
		        windowed ? "no capture window opened"
		                 : "the program made no recorded calls");
	if (o->range_kind && !range_seen) {
		fprintf(stderr, "tscapture: %s %" PRIu64 "-%" PRIu64 " never happened (no window was "
		                "captured)\n", o->range_kind, o->range_first, o->range_last);
		return 1;
	}
	return 0;
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
	if (!o.output) {
		o.output = tsc_default_output(o.argv[0]);
		fprintf(stderr, "tscapture: recording to %s\n", o.output);
	}
	if (tsc_check_output(o.output) != 0)
		return TSC_EXIT_USAGE;
	if (tsc_output_busy(o.output)) {
		fprintf(stderr, "tscapture: '%s' is being written by another process; choose another "
		                "-o FILE\n", o.output);
		return TSC_EXIT_USAGE;
	}
	/* A trace left from an earlier run must not be reported as this one. */
	tsc_remove_old(o.output);
	tsc_remove_old_windows(o.output);
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
		if (o.api)
			setenv("TRACESMITH_API", o.api, 1);
		if (o.snapshot_frames)
			setenv("TRACESMITH_SNAPSHOT_FRAMES", o.snapshot_frames, 1);
		if (o.trigger[0])
			setenv("TRACESMITH_TRIGGER", o.trigger, 1);
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
	if (tsc_report(&o, started) && rc == 0)
		rc = TSC_EXIT_NO_RANGE;
	return rc;
}
