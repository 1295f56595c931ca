/*
 * sbt_cli.c - option-parsing messages the command-line tools share
 * (sbt_cli.h).
 */
#include <stdio.h>
#include <string.h>

#include "serializer/sbt_cli.h"

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
