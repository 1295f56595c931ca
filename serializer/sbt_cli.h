/*
 * sbt_cli.h - what the command-line tools (tscapture, tsinfo, tsreplay,
 * tsexport) share: the messages for options getopt_long refused, usage
 * errors, --version, and why a trace cannot be opened.
 */
#ifndef TRACESMITH_SBT_CLI_H
#define TRACESMITH_SBT_CLI_H

#include <getopt.h>
#include <stddef.h>

#include "tracesmith/sbt.h"

/*
 * The message (without the tool's name) for what getopt_long refused:
 * c is '?' (an unknown option, or a value given to a flag) or ':' (a
 * missing value, described as "needs NEEDS"); argv[optind - 1] is the
 * argument it was reading.  Written into buf, always terminated.
 */
void sbt_cli_getopt_message(const struct option *opts, int c, char **argv, const char *needs,
                            char *buf, size_t len);

/* The exit status of a usage error, the same for every tool. */
#define SBT_CLI_EXIT_USAGE 2

/*
 * A usage error as every tool says it: "TOOL: MESSAGE" and then
 * "try 'TOOL --help'" on stderr, not the whole help.  Returns
 * SBT_CLI_EXIT_USAGE.
 */
int sbt_cli_usage_error(const char *tool, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --version: "TOOL (TraceSmith) VERSION" on stdout, the version the
 * capture runtime writes into a trace (tracesmith/version.h). */
void sbt_cli_version(const char *tool);

/*
 * Whether path may be opened as a trace without harm: 0 when it is a
 * regular file or does not exist (opening it says why), -1 when it is
 * something else (a directory, a FIFO, a device, a socket), with why in
 * buf.  Never opens path: open() of a FIFO with no writer blocks, and
 * opening a device may act on it.  sbt_reader_open refuses the same.
 */
int sbt_cli_check_trace_path(const char *path, char *buf, size_t len);

/*
 * Why sbt_reader_open(path) failed with st, in words a user reads after
 * "PATH: ": what the file is when it cannot be a trace (no such file, a
 * directory, not a regular file), else the reader's own message (r may be
 * NULL), else sbt_strerror(st).  Written into buf, always terminated.
 */
void sbt_cli_open_error(const char *path, sbt_status st, const sbt_reader *r, char *buf,
                        size_t len);

#endif /* TRACESMITH_SBT_CLI_H */
