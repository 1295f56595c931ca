/*
 * vk_null_main - replays each trace named on the command line in-process
 * against the null Vulkan device (fuzz_vk_null.c), without libFuzzer: for
 * `make test` (a small corpus) and for runs over many mutants
 * (tests/fuzz/vk_null_mutants.sh).
 *
 * usage: vk_null_main [--timeout SECONDS] FILE...
 * Prints one line per file before it runs ("run FILE", flushed, so a crash
 * names its input) and one after: "replayed FILE" or "stopped FILE: the
 * replay's message".  A replay that takes longer than SECONDS (default 10)
 * is a hang: "hang FILE", exit 124.  In a build with AddressSanitizer and
 * leak detection on (ASAN_OPTIONS detect_leaks=1), memory left unreachable
 * after a file's replay is a leak: LeakSanitizer's report on stderr, "leak
 * FILE" and exit 87 right after that file (the leaked blocks would be
 * reported again after every later one).  Exit 0 when every file ran to an
 * end (replayed or stopped with a message naming a record), 1 when a
 * stop's message names no record, 2 on usage.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_vk_null.h"
#include "tests/support/tst.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
/* Nonzero when LeakSanitizer finds unreachable memory now (0 when leak
 * detection is off). */
#define VNM_LEAKED() __lsan_do_recoverable_leak_check()
#else
#define VNM_LEAKED() 0
#endif

static const char *vnm_current;

static void vnm_alarm(int sig)
{
	char line[4200];
	int n = snprintf(line, sizeof(line), "hang %s\n", vnm_current ? vnm_current : "?");
	(void)sig;
	if (n > 0 && write(STDOUT_FILENO, line, (size_t)n) < 0)
		_exit(125);
	_exit(124);
}

int main(int argc, char **argv)
{
	unsigned timeout = 10;
	int i = 1, bad = 0;
	if (argc > 2 && strcmp(argv[1], "--timeout") == 0) {
		timeout = (unsigned)atoi(argv[2]);
		i = 3;
	}
	if (i >= argc || !timeout) {
		fprintf(stderr, "usage: vk_null_main [--timeout SECONDS] FILE...\n");
		return 2;
	}
	unsetenv("DISPLAY");
	signal(SIGALRM, vnm_alarm);
	for (; i < argc; i++) {
		size_t len = 0;
		char msg[512];
		unsigned char *buf = tst_read_file(argv[i], &len);
		int rc;
		if (!buf) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			bad = 1;
			continue;
		}
		printf("run %s\n", argv[i]);
		fflush(stdout);
		vnm_current = argv[i];
		alarm(timeout);
		rc = fvn_replay(buf, len, msg, sizeof(msg));
		alarm(0);
		free(buf);
		if (rc == FVN_REPLAYED) {
			printf("replayed %s\n", argv[i]);
		} else {
			printf("stopped %s: %s\n", argv[i], msg);
			/* a damaged trace stops at the record, or the reader names
			 * the file's problem */
			if (!strstr(msg, "record seq ") && !strstr(msg, "checkpoint seq ") &&
			    !strstr(msg, "/proc/self/fd/"))
				bad = 1;
		}
		if (VNM_LEAKED()) {
			printf("leak %s\n", argv[i]);
			fflush(stdout);
			_exit(87); /* not the exit-time leak check again */
		}
		fflush(stdout);
	}
	return bad;
}
