/*
 * sbt_cli.c - the messages the command-line tools share (sbt_cli.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "serializer/sbt_cli.h"
#include "tracesmith/version.h"

void sbt_cli_getopt_message(const struct option *opts, int c, char **argv, const char *needs,
                            char *buf, size_t len)
{
	const char *a = argv[optind - 1];
	const struct option *lo;
	int is_long = strncmp(a, "--", 2) == 0, matches = 0;
	size_t n;
	if (c == ':') {
		snprintf(buf, len, "%s needs %s", a, needs && needs[0] ? needs : "a value");
		return;
	}
	for (lo = opts; optopt && lo->name; lo++)
		if (lo->val == optopt && is_long) {
			snprintf(buf, len, "--%s takes no value", lo->name);
			return;
		}
	if (optopt && optopt < 256 && !is_long) {
		snprintf(buf, len, "unknown option '-%c'", optopt);
		return;
	}
	/* getopt_long leaves an ambiguous abbreviation as unknown. */
	n = is_long ? strcspn(a + 2, "=") : 0;
	for (lo = opts; is_long && lo->name; lo++)
		matches += strncmp(lo->name, a + 2, n) == 0;
	if (matches > 1)
		snprintf(buf, len, "option '%s' is ambiguous: give more of its name", a);
	else
		snprintf(buf, len, "unknown option '%s'", a);
}

int sbt_cli_usage_error(const char *tool, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry '%s --help'\n", tool);
	return SBT_CLI_EXIT_USAGE;
}

void sbt_cli_version(const char *tool)
{
	printf("%s (TraceSmith) %s\n", tool, TRACESMITH_VERSION);
}

int sbt_cli_check_trace_path(const char *path, char *buf, size_t len)
{
	struct stat sb;
	if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode))
		return 0;
	snprintf(buf, len, "%s", S_ISDIR(sb.st_mode) ? "is a directory, not a trace file" :
	         "not a regular file (a device, pipe or socket), not a trace file");
	return -1;
}

void sbt_cli_open_error(const char *path, sbt_status st, const sbt_reader *r, char *buf,
                        size_t len)
{
	struct stat sb;
	const char *m = r ? sbt_reader_message(r) : "";
	if (stat(path, &sb) != 0)
		snprintf(buf, len, "%s", strerror(errno));
	else if (sbt_cli_check_trace_path(path, buf, len) != 0)
		return;
	else if (m[0])
		snprintf(buf, len, "%s", m);
	else
		snprintf(buf, len, "%s", sbt_strerror(st));
}
