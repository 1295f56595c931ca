/*
 * sbt_cli.h - what the command-line tools (tscapture, tsinfo, tsreplay)
 * share about parsing their options with getopt_long.
 */
#ifndef TRACESMITH_SBT_CLI_H
#define TRACESMITH_SBT_CLI_H

#include <getopt.h>
#include <stddef.h>

/*
 * The message (without the tool's name) for what getopt_long refused:
 * c is '?' (an unknown option, or a value given to a flag) or ':' (a
 * missing value, described as "needs NEEDS"); argv[optind - 1] is the
 * argument it was reading.  Written into buf, always terminated.
 */
void sbt_cli_getopt_message(const struct option *opts, int c, char **argv, const char *needs,
                            char *buf, size_t len);

#endif /* TRACESMITH_SBT_CLI_H */
