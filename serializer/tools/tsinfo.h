/*
 * tsinfo.h - what the parts of the tsinfo command share: the text helpers
 * of tsinfo.c, the memory profile of tsinfo_memory.c (tsinfo --memory,
 * docs/tsinfo.md "--memory") and the extraction of tsinfo_extract.c.
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

/* tsinfo --extract DIR: writes the shaders, module images, uploads and
 * snapshots of r (borrowed, at the start) into DIR (made if missing) and
 * DIR/index.json (tsinfo_extract.c).  Returns a TSI_EXIT_* status. */
int tsi_extract(const char *path, sbt_reader *r, const char *dir);

#endif /* TRACESMITH_TSINFO_H */
