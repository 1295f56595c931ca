/*
 * sbt_fuzz_mutator - libFuzzer's custom mutator for targets whose input is
 * a whole SBT trace (fuzz_cu_replay.c, fuzz_vk_null.c): each mutation is
 * one run of tests/fuzz/sbt_mutate --seed SEED on the input, so the mutant
 * keeps every checksum, size, index and trailer right and its damage
 * reaches the decoders and the replayer, where libFuzzer's byte edits
 * would mostly stop at the reader's first checksum.
 *
 * Link it with tests/fuzz/sbt_mutate.c compiled with -Dmain=sbt_mutate_main
 * (the tool's main, called in-process).  Where sbt_mutate cannot read the
 * input (no readable trace) or its mutant is longer than max_size, the
 * mutation is libFuzzer's own byte edit instead.
 *
 * sbt_mutate reads and writes files: two beside one mkstemps name in
 * $TMPDIR (default /tmp), made on first use and removed at exit.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
int sbt_mutate_main(int argc, char **argv);

/* The fuzzer's one process state: the mutator's file names. */
static struct {
	char base[PATH_MAX];
	char in[PATH_MAX + 8];
	char out[PATH_MAX + 8];
	int ready;
} sfm;

static void sfm_cleanup(void)
{
	unlink(sfm.in);
	unlink(sfm.out);
	unlink(sfm.base);
}

static int sfm_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(sfm.base, sizeof(sfm.base), "%s/sbt_fuzz_mutator.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(sfm.base);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(sfm.in, sizeof(sfm.in), "%s.in", sfm.base);
	snprintf(sfm.out, sizeof(sfm.out), "%s.out", sfm.base);
	atexit(sfm_cleanup);
	sfm.ready = 1;
	return 0;
}

/* sbt_mutate IN OUT --seed SEED, its report on stdout silenced. */
static int sfm_run(unsigned int seed)
{
	char arg0[] = "sbt_mutate", arg3[] = "--seed", arg4[24];
	char *argv[] = {arg0, sfm.in, sfm.out, arg3, arg4, NULL};
	int rc, saved, null;

	snprintf(arg4, sizeof(arg4), "%u", seed);
	fflush(stdout);
	saved = dup(1);
	null = open("/dev/null", O_WRONLY);
	if (null >= 0)
		dup2(null, 1);
	rc = sbt_mutate_main(5, argv);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	if (null >= 0)
		close(null);
	return rc;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	size_t n = 0;
	uint8_t *buf;
	FILE *f;

	if (!sfm.ready && sfm_setup() != 0)
		return LLVMFuzzerMutate(data, size, max_size);
	f = fopen(sfm.in, "wb");
	if (!f)
		return LLVMFuzzerMutate(data, size, max_size);
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		goto out;
	}
	if (fclose(f) != 0)
		goto out;
	if (sfm_run(seed) != 0 || !(f = fopen(sfm.out, "rb")))
		goto out;
	buf = malloc(max_size + 1);
	n = buf ? fread(buf, 1, max_size + 1, f) : 0;
	if (n > max_size)
		n = 0; /* longer than libFuzzer allows */
	if (n)
		memcpy(data, buf, n);
	free(buf);
	fclose(f);
out:
	unlink(sfm.in);
	unlink(sfm.out);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
