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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap_internal.h"

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

void cap_config_parse_(cap_config *cfg)
{
	static const char *const cap_log_words[] = {"error", "warn", "info", "debug"};
	static const char *const cap_stack_words[] = {"none", "work", "all"};
	const char *v;
	uint64_t n;
	int w;

	memset(cfg, 0, sizeof(*cfg));
	cfg->output = "tracesmith.sbt";
	cfg->exact_output = 1;
	cfg->log_level = CAP_LOG_WARN;
	cfg->stacks = CAP_STACKS_WORK;
	cfg->snapshot = CAP_SNAPSHOT_NONE;
	cfg->memory_bound = 256ull << 20;
	cfg->flush_interval_ms = 1000;

	/* The level first, so that it gates the warnings below. */
	if ((v = getenv("TRACESMITH_LOG")) != NULL) {
		w = cap_config_parse_word(v, cap_log_words, 4);
		if (w < 0)
			cap_config_warn(cfg, "TRACESMITH_LOG='%s' is not error|warn|info|debug; using warn", v);
		else
			cfg->log_level = (cap_log_level)w;
	}
	if ((v = getenv("TRACESMITH_OUTPUT")) != NULL) {
		if (!v[0])
			cap_config_warn(cfg, "TRACESMITH_OUTPUT is empty; using %s", cfg->output);
		else
			cfg->output = v;
	}
	if ((v = getenv("TRACESMITH_STACKS")) != NULL) {
		w = cap_config_parse_word(v, cap_stack_words, 3);
		if (w < 0)
			cap_config_warn(cfg, "TRACESMITH_STACKS='%s' is not none|work|all; using work", v);
		else
			cfg->stacks = (cap_stacks_mode)w;
	}
	if ((v = getenv("TRACESMITH_SNAPSHOT")) != NULL) {
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
	if ((v = getenv("TRACESMITH_MEMORY_MB")) != NULL) {
		if (cap_config_parse_u64(v, 1u << 20, &n) == 0)
			cfg->memory_bound = n << 20;
		else
			cap_config_warn(cfg, "TRACESMITH_MEMORY_MB='%s' is not a number of MiB in 1..1048576; using 256", v);
	}
	if ((v = getenv("TRACESMITH_FLUSH_MS")) != NULL) {
		if (cap_config_parse_u64(v, 3600000, &n) == 0)
			cfg->flush_interval_ms = (uint32_t)n;
		else
			cap_config_warn(cfg, "TRACESMITH_FLUSH_MS='%s' is not a number of milliseconds in 1..3600000; using 1000", v);
	}
	if ((v = getenv("TRACESMITH_DISABLE")) != NULL) {
		if (strcmp(v, "1") == 0)
			cfg->disabled = 1;
		else if (strcmp(v, "0") != 0 && v[0])
			cap_config_warn(cfg, "TRACESMITH_DISABLE='%s' is not 0 or 1; capture stays enabled", v);
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
