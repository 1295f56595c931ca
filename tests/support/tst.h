/*
 * tst.h - the few helpers unit tests share.  A test is a program: it exits
 * 0 when every check held, 1 otherwise, and says which check failed.
 */
#ifndef TRACESMITH_TST_H
#define TRACESMITH_TST_H

#include <stdio.h>
#include <stdlib.h>

extern int tst_failures;

#define TST_CHECK(cond)                                                      \
	do {                                                                     \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
			        #cond);                                                  \
			tst_failures++;                                                  \
		}                                                                    \
	} while (0)

/* A check that stops the test: later steps depend on it. */
#define TST_REQUIRE(cond)                                                    \
	do {                                                                     \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: required check failed: %s\n", __FILE__,  \
			        __LINE__, #cond);                                        \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define TST_CHECK_EQ_U64(a, b)                                               \
	do {                                                                     \
		unsigned long long tst_a_ = (unsigned long long)(a);                 \
		unsigned long long tst_b_ = (unsigned long long)(b);                 \
		if (tst_a_ != tst_b_) {                                              \
			fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n",        \
			        __FILE__, __LINE__, #a, #b, tst_a_, tst_b_);             \
			tst_failures++;                                                  \
		}                                                                    \
	} while (0)

/* A fresh directory under $TMPDIR (or /tmp), removed by tst_done(). */
const char *tst_tmpdir(void);
/* path = tmpdir + "/" + name, in a static rotating buffer. */
const char *tst_path(const char *name);
/* Reads a whole file into a malloc'd buffer; NULL on error. */
unsigned char *tst_read_file(const char *path, size_t *len_out);
int tst_write_file(const char *path, const void *data, size_t len);
/* Prints the verdict, removes the temp dir, returns the exit status. */
int tst_done(void);
/* For a test whose cases each need a process of their own (the capture
 * runtime reads its configuration once): with no argument, runs this
 * program again once per mode (argv[0] executed with the mode as its
 * argument), counts a mode whose process does not exit 0 as a failure and
 * returns tst_done(); with a mode, returns run(mode), the mode's exit
 * status (-1: a mode run does not know, said, and 2). */
int tst_modes(int argc, char **argv, const char *const *modes, size_t n,
              int (*run)(const char *mode));

#endif
