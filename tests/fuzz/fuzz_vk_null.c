/*
 * fuzz_vk_null - a whole SBT trace replayed in-process by tsreplay's
 * Vulkan backend against the null device of vk_null.c (no driver): the
 * reader, the Vulkan decoder and every replay-side check (command buffer
 * state, regions, waits, frees) on untrusted input (issue 12).
 *
 * An input is a trace file's bytes (the mutants of tests/fuzz/sbt_mutate
 * keep every checksum right, so damage reaches the decoder and the
 * replayer).  The replay must end, either replayed or stopped with a
 * message naming the record; a crash, a sanitizer report, or an abort of
 * the null device (the replay handed it what a driver would trip over) is
 * a finding.  Built with libFuzzer (make fuzz) and with
 * tests/fuzz/vk_null_main.c (make test, and the mutant runs of
 * tests/fuzz/vk_null_mutants.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replayer/rp_session.h"
#include "replayer/vulkan/rpvk_backend.h"
#include "tests/fuzz/fuzz_vk_null.h"
#include "tests/fuzz/vk_null.h"

int fvn_replay(const uint8_t *data, size_t size, char *msg, size_t msg_len)
{
	static const rp_backend_ops *const backends[] = {&rpvk_backend_ops};
	/* offscreen, short waits: the null device finishes nothing by itself */
	static const rp_option_value bopts[] = {{"--offscreen", NULL}, {"--wait-timeout", "0.01"}};
	rp_options opt;
	rp_session *s = NULL;
	rp_report rep;
	rp_diag diag = {""};
	char path[64];
	int fd, rc = FVN_REPLAYED;
	rp_status st;

	msg[0] = '\0';
	fd = memfd_create("fuzz_vk_null", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		snprintf(msg, msg_len, "cannot hold the input in a memfd");
		if (fd >= 0)
			close(fd);
		return FVN_STOPPED;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&opt, 0, sizeof(opt));
	memset(&rep, 0, sizeof(rep));
	opt.trace_path = path;
	opt.range.end = UINT64_MAX;
	opt.runs = 1;
	/* VK_NULL_PER_COMMAND=1: two runs compared after every command, so the
	 * replay's per-command splitting (rpvk_percmd.c) runs too */
	if (getenv("VK_NULL_PER_COMMAND") && !strcmp(getenv("VK_NULL_PER_COMMAND"), "1")) {
		opt.runs = 2;
		opt.per_command = 1;
	}
	opt.quiet = 1;
	opt.backend_options = bopts;
	opt.nbackend_options = sizeof(bopts) / sizeof(bopts[0]);
	st = rp_session_open(&opt, backends, 1, &s, &diag);
	if (st == RP_OK)
		st = rp_session_replay(s, &rep, &diag);
	rp_session_close(s);
	if (st != RP_OK) {
		snprintf(msg, msg_len, "%s", diag.text[0] ? diag.text : rp_strerror(st));
		rc = FVN_STOPPED;
	}
	close(fd);
	vk_null_reset();
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[512];
	static int quiet;
	if (!quiet) {
		unsetenv("DISPLAY");
		quiet = 1;
	}
	fvn_replay(data, size, msg, sizeof(msg));
	return 0;
}
