/*
 * tsinfo.h - what the parts of the tsinfo command share: the text helpers
 * of tsinfo.c and the memory profile of tsinfo_memory.c (tsinfo --memory,
 * docs/tsinfo.md "--memory").
 */
#ifndef TRACESMITH_TSINFO_H
#define TRACESMITH_TSINFO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracesmith/sbt.h"

#define TSI_EXIT_OK 0
#define TSI_EXIT_BAD 1
#define TSI_EXIT_USAGE 2

/* "1.5 MiB" (bytes below 1024: "17 B"). */
void tsi_human(uint64_t bytes, char *out, size_t n);
/* s as a JSON string literal. */
void tsi_json_str(FILE *f, const char *s);
/* Free text with non-printing bytes as \xNN. */
void tsi_print_text(FILE *f, const char *s);

/* tsinfo --memory: reads every record of r (borrowed, positioned at the
 * start) and prints the memory profile of the trace at path, as text or,
 * with json, one JSON object.  Returns a TSI_EXIT_* status. */
int tsi_memory(const char *path, sbt_reader *r, int json);

#endif /* TRACESMITH_TSINFO_H */
