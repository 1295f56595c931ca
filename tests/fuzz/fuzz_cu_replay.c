/*
 * fuzz_cu_replay - fuzz target for the CUDA replay path in one process:
 * an input is a whole SBT trace, and tsreplay's own code (rp_main with
 * the CUDA backend) reads it, decodes every compute record, checks it and
 * replays it against the libcuda test double, which the backend dlopens
 * as it would a driver (TRACESMITH_CUDA_DRIVER; by default
 * dirname(/proc/self/exe)/doubles/cuda/libcuda.so.1, where the build puts
 * it beside build/tests/).  The double runs the kernels it has host code
 * for, so a mutated launch reaches host code too.
 *
 * A bad trace must end the replay with a message and an exit status, never
 * with a crash, a sanitizer report or a hang: the target asserts nothing
 * else (the sanitizers and the caller's time bound do).  Mutants worth
 * replaying keep their checksums: tests/fuzz/sbt_mutate writes them, and
 * tests/fuzz/cu_replay_mutants.sh replays N of them through the plain
 * build of this target (tests/fuzz/replay_main.c) under ASan and UBSan.
 * `make fuzz` builds it with libFuzzer too (make fuzz-cu-replay), seeded
 * with the H100 traces and linked with tests/fuzz/sbt_fuzz_mutator.c:
 * libFuzzer's mutations are then sbt_mutate's, which keep every checksum
 * valid, where byte edits would mostly stop at the reader's first
 * checksum.
 *
 * Each input is replayed in a child process of its own (fork, then the
 * decode, the backend and the double in that one process), because the
 * driver's state outlives a replay: a kernel's illegal address is sticky
 * for the whole process on a real GPU ("the process must be terminated
 * and relaunched") and in the double for its context, so one faulting
 * mutant would fail every later one; and the double keeps the threads of
 * destroyed streams until exit.  A child killed by a signal makes the
 * target abort, naming the signal, so the caller sees the crash.
 * FUZZ_CU_FORK=0 replays in the calling process instead (for a debugger).
 *
 * A device call that does not return within 10 s (tsreplay --wait-timeout
 * 10: a kernel that never finishes) ends the child with exit 1 and a
 * message naming the record, well inside the callers' time bounds.
 *
 * FUZZ_CU_REPORT=1 prints "exit N" after each input (what tsreplay would
 * have exited with); rp_main's own messages go to stderr as tsreplay's do.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replayer/cuda/rpcu_backend.h"
#include "replayer/rp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The one trace file every input is written to (this process's). */
static struct {
	char path[PATH_MAX];
	int ready;
	int report;
	int fork;
} fz_cu;

static int fz_cu_setup(void)
{
	char exe[PATH_MAX], dbl[PATH_MAX + 64];
	const char *tmp = getenv("TMPDIR");
	ssize_t n;
	int fd;

	if (!getenv("TRACESMITH_CUDA_DRIVER")) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return -1;
		exe[n] = '\0';
		if (strrchr(exe, '/'))
			*strrchr(exe, '/') = '\0';
		snprintf(dbl, sizeof(dbl), "%s/doubles/cuda/libcuda.so.1", exe);
		setenv("TRACESMITH_CUDA_DRIVER", dbl, 1);
	}
	setenv("TSCUDA_DOUBLE_QUIET", "1", 0);
	snprintf(fz_cu.path, sizeof(fz_cu.path), "%s/fuzz_cu_replay.XXXXXX.sbt", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemps(fz_cu.path, 4);
	if (fd < 0)
		return -1;
	close(fd);
	fz_cu.report = getenv("FUZZ_CU_REPORT") && !strcmp(getenv("FUZZ_CU_REPORT"), "1");
	fz_cu.fork = !(getenv("FUZZ_CU_FORK") && !strcmp(getenv("FUZZ_CU_FORK"), "0"));
	fz_cu.ready = 1;
	return 0;
}

static void fz_cu_cleanup(void)
{
	if (fz_cu.ready)
		unlink(fz_cu.path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const rp_backend_ops *const ops[] = {&rpcu_backend_ops};
	char arg0[] = "tsreplay", arg1[] = "--wait-timeout", arg2[] = "10";
	char *argv[] = {arg0, arg1, arg2, fz_cu.path, NULL};
	FILE *f;
	int rc;

	if (!fz_cu.ready) {
		if (fz_cu_setup() != 0) {
			perror("fuzz_cu_replay: cannot make its trace file");
			abort();
		}
		atexit(fz_cu_cleanup);
	}
	f = fopen(fz_cu.path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror("fuzz_cu_replay: cannot write its trace file");
		abort();
	}
	fflush(stdout);
	fflush(stderr);
	if (fz_cu.fork) {
		pid_t pid = fork(), got;
		int status = 0;
		if (pid < 0) {
			perror("fuzz_cu_replay: fork");
			abort();
		}
		if (pid == 0) {
			rc = rp_main(4, argv, ops, 1);
			fflush(stdout);
			fflush(stderr);
			_exit(rc);
		}
		while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (got < 0) {
			perror("fuzz_cu_replay: waitpid");
			abort();
		}
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "fuzz_cu_replay: the replay was killed by signal %d\n", WTERMSIG(status));
			abort();
		}
		rc = WEXITSTATUS(status);
	} else {
		rc = rp_main(4, argv, ops, 1);
		fflush(stdout);
		fflush(stderr);
	}
	if (fz_cu.report)
		printf("exit %d\n", rc);
	return 0;
}
