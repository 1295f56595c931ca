/*
 * cap_config.c - TRACESMITH_* variables and the logging they gate.
 *
 * Every variable is read once.  A value that cannot be understood gets one
 * warning naming the variable and the value, and the default is used: a
 * typo in the environment must never take the application down.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap_internal.h"
#include "capture/cap_keys.h"

uint64_t cap_now_ns_(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One write(2) per message so lines from several threads do not mix. */
void cap_log_emit_(cap_log_level threshold, cap_log_level level, const char *fmt,
                   va_list ap)
{
	static const char *const cap_log_tags[] = {"error: ", "warning: ", "", "debug: "};
	char buf[1024];
	int n, m;
	if ((int)level > (int)threshold)
		return;
	n = snprintf(buf, sizeof(buf), "tracesmith: %s", cap_log_tags[level]);
	m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	while (n > 0) {
		ssize_t w = write(2, buf, (size_t)n);
		if (w < 0 && errno == EINTR)
			continue;
		break;
	}
}

void cap_report(const char *fmt, ...)
{
	va_list ap;
	if ((int)cap_config_get()->log_level < (int)CAP_LOG_WARN)
		return;
	va_start(ap, fmt);
	/* An untagged line (the info level's form) at the warn threshold. */
	cap_log_emit_(CAP_LOG_INFO, CAP_LOG_INFO, fmt, ap);
	va_end(ap);
}

void cap_log(cap_log_level level, const char *fmt, ...)
{
	va_list ap;
	const cap_config *cfg = cap_config_get();
	va_start(ap, fmt);
	cap_log_emit_(cfg->log_level, level, fmt, ap);
	va_end(ap);
}

/* Warnings while parsing go through the level parsed so far. */
static void cap_config_warn(const cap_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void cap_config_warn(const cap_config *cfg, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cap_log_emit_(cfg->log_level, CAP_LOG_WARN, fmt, ap);
	va_end(ap);
}

/* Positive decimal integer, whole string; 0 on success. */
static int cap_config_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	if (!s[0] || s[0] == '-' || s[0] == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int cap_config_parse_word(const char *s, const char *const *words, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return -1;
}

/* "A-B" (inclusive, 1 <= A <= B); 0 on success. */
static int cap_config_parse_range(const char *s, uint64_t *a, uint64_t *b)
{
	char buf[64];
	char *dash;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (!dash)
		return -1;
	*dash = '\0';
	if (cap_config_parse_u64(buf, UINT64_MAX / 2, a) != 0 ||
	    cap_config_parse_u64(dash + 1, UINT64_MAX / 2, b) != 0 || *b < *a)
		return -1;
	return 0;
}

/*
 * TRACESMITH_TRIGGER: comma-separated frames:A-B | submits:A-B |
 * launches:A-B | key:NAME[:COUNT] | signal | app | profiler | nvtx:NAME.
 * An item that cannot be understood is left out with a warning; if none is
 * left, the whole run is captured (the warning says so).
 */
static void cap_config_parse_trigger(cap_config *cfg, const char *v)
{
	static const char *const units[] = {"frames:", "submits:", "launches:"};
	char item[256];
	const char *p = v;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		int ok = 0;
		if (n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
			for (int u = 0; u < 3; u++) {
				size_t ul = strlen(units[u]);
				if (strncmp(item, units[u], ul) == 0 && !(cfg->triggers & CAP_TRIG_RANGE) &&
				    cap_config_parse_range(item + ul, &cfg->range_first,
				                           &cfg->range_last) == 0) {
					cfg->triggers |= CAP_TRIG_RANGE;
					cfg->range_unit = u;
					ok = 1;
				}
			}
			if (strncmp(item, "key:", 4) == 0) {
				char *name = item + 4, *colon = strchr(name, ':');
				uint64_t count = 1;
				if (colon) {
					*colon = '\0';
					if (cap_config_parse_u64(colon + 1, 1000000, &count) != 0)
						count = 0;
				}
				if (count && cap_key_lookup(name) && strlen(name) < sizeof(cfg->key_name)) {
					strcpy(cfg->key_name, name);
					cfg->key_frames = (uint32_t)count;
					cfg->triggers |= CAP_TRIG_KEY;
					ok = 1;
				}
			} else if (strcmp(item, "signal") == 0) {
				cfg->triggers |= CAP_TRIG_SIGNAL;
				ok = 1;
			} else if (strcmp(item, "app") == 0) {
				cfg->triggers |= CAP_TRIG_APP;
				ok = 1;
			} else if (strcmp(item, "profiler") == 0) {
				cfg->triggers |= CAP_TRIG_PROFILER;
				ok = 1;
			} else if (strncmp(item, "nvtx:", 5) == 0 && item[5] &&
			           strlen(item + 5) < sizeof(cfg->nvtx_name)) {
				strcpy(cfg->nvtx_name, item + 5);
				cfg->triggers |= CAP_TRIG_NVTX;
				ok = 1;
			}
		}
		if (!ok)
			cap_config_warn(cfg, "TRACESMITH_TRIGGER: '%.*s' is not frames:A-B, submits:A-B, "
			                "launches:A-B, key:NAME[:COUNT], signal, app, profiler or "
			                "nvtx:NAME (one range at most); left out", (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
	if (!cfg->triggers)
		cap_config_warn(cfg, "TRACESMITH_TRIGGER='%s' names no trigger; capturing the whole run", v);
}

int cap_api_enabled(const char *api)
{
	const char *list = cap_config_get()->api;
	const char *p = list;
	size_t n = strlen(api);
	int named_any = 0;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int neg = len > 0 && p[0] == '-';
		const char *name = p + neg;
		size_t nl = len - (size_t)neg;
		if (nl == n && strncmp(name, api, n) == 0)
			return !neg;
		if (!neg)
			named_any = 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return !named_any;
}

/*
 * The trace's name when TRACESMITH_OUTPUT is unset: PROG_YYYYMMDDTHHMMSS_PID.sbt
 * in the current folder (the program's name, local time, the process id),
 * so that two programs recording at once, or two runs of one, never write
 * the same file.  Characters other than letters, digits, '.', '-' and '_'
 * in the name become '_'.
 */
static char cap_default_output[192];

void cap_trace_default_name(const char *program, long pid, char *out, size_t n)
{
	char prog[64], when[32] = "unknown";
	const char *base = program ? strrchr(program, '/') : NULL;
	time_t now = time(NULL);
	struct tm tm;
	size_t len = 0;
	base = base ? base + 1 : program;
	for (; base && base[len] && len < sizeof(prog) - 1; len++) {
		char c = base[len];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '.' || c == '-' || c == '_';
		prog[len] = ok ? c : '_';
	}
	prog[len] = 0;
	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	snprintf(out, n, "%s_%s_%ld.sbt", len ? prog : "tracesmith", when, pid);
}

static const char *cap_config_default_output(void)
{
	cap_trace_default_name(program_invocation_short_name, (long)getpid(), cap_default_output,
	                       sizeof(cap_default_output));
	return cap_default_output;
}

/*
 * Layer settings (the Vulkan convention every layer follows): lines
 * `tracesmith.NAME = VALUE` in vk_layer_settings.txt, found through
 * VK_LAYER_SETTINGS_PATH (the file, or a folder holding it) or in the
 * current folder.  NAME is a TRACESMITH_ variable's name after the prefix,
 * in lower case (`tracesmith.output`, `tracesmith.stacks`, ...); the
 * variable, when set, wins over the file.  '#' starts a comment; lines of
 * other layers are not ours and are skipped; an unknown tracesmith.NAME is
 * warned about.  Read once, with the rest of the configuration.
 */
#define CAP_SETTINGS_MAX 32

static const char *const cap_setting_names[] = {
	"log", "output", "stacks", "snapshot", "memory_mb", "flush_ms",
	"disable", "trigger", "snapshot_frames", "api", "frame_hash", "clock",
	"hash_threads",
};

static struct {
	char *name[CAP_SETTINGS_MAX];
	char *value[CAP_SETTINGS_MAX];
	int n;
} cap_settings;

static char *cap_settings_trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static void cap_settings_load(const cap_config *cfg)
{
	const char *where = getenv("VK_LAYER_SETTINGS_PATH");
	char path[4096], line[1024];
	struct stat sb;
	FILE *f;
	int lineno = 0;
	if (where && *where && stat(where, &sb) == 0 && S_ISDIR(sb.st_mode))
		snprintf(path, sizeof(path), "%s/vk_layer_settings.txt", where);
	else
		snprintf(path, sizeof(path), "%s", where && *where ? where : "vk_layer_settings.txt");
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *eq, *key, *val;
		size_t i;
		lineno++;
		if (hash)
			*hash = 0;
		key = cap_settings_trim(line);
		if (strncmp(key, "tracesmith.", 11) != 0)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			cap_config_warn(cfg, "%s:%d: '%s' is not tracesmith.NAME = VALUE; ignored", path,
			                lineno, key);
			continue;
		}
		*eq = 0;
		key = cap_settings_trim(key + 11);
		val = cap_settings_trim(eq + 1);
		for (i = 0; i < sizeof(cap_setting_names) / sizeof(cap_setting_names[0]); i++)
			if (strcmp(key, cap_setting_names[i]) == 0)
				break;
		if (i == sizeof(cap_setting_names) / sizeof(cap_setting_names[0])) {
			cap_config_warn(cfg, "%s:%d: unknown setting tracesmith.%s; ignored", path, lineno,
			                key);
			continue;
		}
		if (cap_settings.n < CAP_SETTINGS_MAX) {
			cap_settings.name[cap_settings.n] = strdup(key);
			cap_settings.value[cap_settings.n] = strdup(val);
			if (cap_settings.name[cap_settings.n] && cap_settings.value[cap_settings.n])
				cap_settings.n++;
		}
	}
	fclose(f);
}

/* Settings a front-end was handed through its API before the
 * configuration was read (cap_config_preset: the Vulkan layer's
 * VK_EXT_layer_settings); below the file and the variables. */
static struct {
	char *name[CAP_SETTINGS_MAX];
	char *value[CAP_SETTINGS_MAX];
	int n;
} cap_presets;
static atomic_int cap_config_read;

int cap_config_preset(const char *name, const char *value)
{
	size_t i;
	if (atomic_load(&cap_config_read))
		return -1;
	for (i = 0; i < sizeof(cap_setting_names) / sizeof(cap_setting_names[0]); i++)
		if (strcmp(name, cap_setting_names[i]) == 0)
			break;
	if (i == sizeof(cap_setting_names) / sizeof(cap_setting_names[0]))
		return -2;
	for (int k = 0; k < cap_presets.n; k++)
		if (strcmp(cap_presets.name[k], name) == 0)
			return 0; /* the first one given stays, as the extension says */
	if (cap_presets.n == CAP_SETTINGS_MAX)
		return -3;
	cap_presets.name[cap_presets.n] = strdup(name);
	cap_presets.value[cap_presets.n] = strdup(value);
	if (!cap_presets.name[cap_presets.n] || !cap_presets.value[cap_presets.n])
		return -3;
	cap_presets.n++;
	return 0;
}

/* The value of a TRACESMITH_ variable, or of its layer setting. */
static const char *cap_setting(const char *env)
{
	const char *v = getenv(env);
	char name[64];
	size_t i;
	if (v)
		return v;
	for (i = 0; env[11 + i] && i < sizeof(name) - 1; i++)
		name[i] = (char)(env[11 + i] >= 'A' && env[11 + i] <= 'Z' ? env[11 + i] - 'A' + 'a'
		                                                         : env[11 + i]);
	name[i] = 0;
	/* The first line naming a setting wins, as with the variable. */
	for (int k = 0; k < cap_settings.n; k++)
		if (strcmp(cap_settings.name[k], name) == 0)
			return cap_settings.value[k];
	for (int k = 0; k < cap_presets.n; k++)
		if (strcmp(cap_presets.name[k], name) == 0)
			return cap_presets.value[k];
	return NULL;
}

void cap_config_parse_(cap_config *cfg)
{
	static const char *const cap_log_words[] = {"error", "warn", "info", "debug"};
	static const char *const cap_stack_words[] = {"none", "work", "all"};
	const char *v;
	uint64_t n;
	int w;

	memset(cfg, 0, sizeof(*cfg));
	cfg->output = NULL; /* below */
	cfg->exact_output = 1;
	cfg->log_level = CAP_LOG_WARN;
	cfg->stacks = CAP_STACKS_WORK;
	cfg->snapshot = CAP_SNAPSHOT_NONE;
	cfg->memory_bound = 256ull << 20;
	cfg->flush_interval_ms = 1000;
	cfg->hash_threads = -1;

	atomic_store(&cap_config_read, 1);
	cap_settings_load(cfg);
	/* The level first, so that it gates the warnings below. */
	if ((v = cap_setting("TRACESMITH_LOG")) != NULL) {
		w = cap_config_parse_word(v, cap_log_words, 4);
		if (w < 0)
			cap_config_warn(cfg, "TRACESMITH_LOG='%s' is not error|warn|info|debug; using warn", v);
		else
			cfg->log_level = (cap_log_level)w;
	}
	if ((v = cap_setting("TRACESMITH_OUTPUT")) != NULL && v[0]) {
		cfg->output = v;
	} else {
		cfg->output = cap_config_default_output();
		cfg->output_default = 1;
		if (v)
			cap_config_warn(cfg, "TRACESMITH_OUTPUT is empty; using %s", cfg->output);
	}
	if ((v = cap_setting("TRACESMITH_STACKS")) != NULL) {
		w = cap_config_parse_word(v, cap_stack_words, 3);
		if (w < 0)
			cap_config_warn(cfg, "TRACESMITH_STACKS='%s' is not none|work|all; using work", v);
		else
			cfg->stacks = (cap_stacks_mode)w;
	}
	if ((v = cap_setting("TRACESMITH_SNAPSHOT")) != NULL) {
		if (strcmp(v, "none") == 0) {
			cfg->snapshot = CAP_SNAPSHOT_NONE;
		} else if (strcmp(v, "launch") == 0) {
			cfg->snapshot = CAP_SNAPSHOT_LAUNCH;
		} else if (cap_config_parse_u64(v, UINT64_MAX, &n) == 0) {
			cfg->snapshot = CAP_SNAPSHOT_EVERY;
			cfg->snapshot_every = n;
		} else {
			cap_config_warn(cfg, "TRACESMITH_SNAPSHOT='%s' is not none|launch|N (N > 0); using none", v);
		}
	}
	if ((v = cap_setting("TRACESMITH_MEMORY_MB")) != NULL) {
		/* at most 16 GiB: a bare entry's seq is its low 32 bits, which
		 * the writer completes while fewer than 2^32 records wait for it
		 * (cap_internal.h, cap_ent_bare_seq; an entry is 8 bytes or more) */
		if (cap_config_parse_u64(v, 16384, &n) == 0)
			cfg->memory_bound = n << 20;
		else
			cap_config_warn(cfg, "TRACESMITH_MEMORY_MB='%s' is not a number of MiB in 1..16384; using 256", v);
	}
	if ((v = cap_setting("TRACESMITH_WARM_MB")) != NULL) {
		if (v[0] == '0' && v[1] == '\0') {
			cfg->warm_bytes = 0;
			cfg->warm_fixed = 1;
		} else if (cap_config_parse_u64(v, 1u << 20, &n) == 0) {
			cfg->warm_bytes = n << 20;
			cfg->warm_fixed = 1;
		} else {
			cap_config_warn(cfg, "TRACESMITH_WARM_MB='%s' is not a number of MiB in 0..1048576; "
			                "using 16", v);
		}
	}
	if ((v = cap_setting("TRACESMITH_FLUSH_MS")) != NULL) {
		if (cap_config_parse_u64(v, 3600000, &n) == 0)
			cfg->flush_interval_ms = (uint32_t)n;
		else
			cap_config_warn(cfg, "TRACESMITH_FLUSH_MS='%s' is not a number of milliseconds in 1..3600000; using 1000", v);
	}
	if ((v = cap_setting("TRACESMITH_DISABLE")) != NULL) {
		if (strcmp(v, "1") == 0)
			cfg->disabled = 1;
		else if (strcmp(v, "0") != 0 && v[0])
			cap_config_warn(cfg, "TRACESMITH_DISABLE='%s' is not 0 or 1; capture stays enabled", v);
	}
	if ((v = cap_setting("TRACESMITH_FRAME_HASH")) != NULL) {
		if (strcmp(v, "1") == 0)
			cfg->frame_hash = 1;
		else if (strcmp(v, "0") != 0 && v[0])
			cap_config_warn(cfg, "TRACESMITH_FRAME_HASH='%s' is not 0 or 1; presented images "
			                "are not hashed", v);
	}
	if ((v = cap_setting("TRACESMITH_CLOCK")) != NULL) {
		if (strcmp(v, "monotonic") == 0)
			cfg->clock_monotonic = 1;
		else if (strcmp(v, "auto") != 0 && v[0])
			cap_config_warn(cfg, "TRACESMITH_CLOCK='%s' is not auto or monotonic; using auto", v);
	}
	if ((v = cap_setting("TRACESMITH_HASH_THREADS")) != NULL) {
		if (strcmp(v, "0") == 0)
			cfg->hash_threads = 0;
		else if (cap_config_parse_u64(v, 64, &n) == 0)
			cfg->hash_threads = (int)n;
		else
			cap_config_warn(cfg, "TRACESMITH_HASH_THREADS='%s' is not a number of threads in "
			                "0..64; using min(CPUs - 1, 4)", v);
	}
	if ((v = cap_setting("TRACESMITH_TRIGGER")) != NULL && v[0])
		cap_config_parse_trigger(cfg, v);
	if ((v = cap_setting("TRACESMITH_SNAPSHOT_FRAMES")) != NULL) {
		if (cap_config_parse_u64(v, UINT32_MAX, &n) == 0)
			cfg->snapshot_frames = n;
		else
			cap_config_warn(cfg, "TRACESMITH_SNAPSHOT_FRAMES='%s' is not a number of frames > 0; no periodic snapshots", v);
	}
	if ((v = cap_setting("TRACESMITH_API")) != NULL) {
		if (strlen(v) >= sizeof(cfg->api))
			cap_config_warn(cfg, "TRACESMITH_API='%s' is too long; every front-end records", v);
		else
			strcpy(cfg->api, v);
	}
	/* tscapture names the process it started; any other process (a child
	 * of it, a helper it runs) writes <stem>-<pid>.sbt beside it. */
	if ((v = getenv("TRACESMITH_OWNER_PID")) != NULL) {
		if (cap_config_parse_u64(v, INT32_MAX, &n) == 0)
			cfg->exact_output = (pid_t)n == getpid();
		else
			cap_config_warn(cfg, "TRACESMITH_OWNER_PID='%s' is not a process id; ignored", v);
	}
}
