#include "tst.h"

#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tst_failures;
static char tst_dir[512];

const char *tst_tmpdir(void)
{
	if (!tst_dir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tst_dir, sizeof(tst_dir), "%s/tstest-XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tst_dir)) {
			perror("mkdtemp");
			exit(1);
		}
	}
	return tst_dir;
}

const char *tst_path(const char *name)
{
	static char bufs[8][1024];
	static unsigned next;
	char *b = bufs[next++ % 8];
	snprintf(b, sizeof(bufs[0]), "%s/%s", tst_tmpdir(), name);
	return b;
}

unsigned char *tst_read_file(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto out_close;
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
		goto out_close;
	}
	*len_out = (size_t)n;
out_close:
	fclose(f);
	return buf;
}

int tst_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;
	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

int tst_done(void)
{
	if (tst_dir[0]) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tst_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "warning: could not remove %s\n", tst_dir);
	}
	if (tst_failures) {
		fprintf(stderr, "%d check(s) failed\n", tst_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}

int tst_modes(int argc, char **argv, const char *const *modes, size_t n,
              int (*run)(const char *mode))
{
	if (argc > 1) {
		int rc = run(argv[1]);
		if (rc < 0) {
			fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], argv[1]);
			return 2;
		}
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		int st = 0;
		pid_t pid;
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			exit(1);
		}
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], modes[i], (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "%s: mode %s failed (status %d)\n", argv[0], modes[i], st);
			tst_failures++;
		}
	}
	return tst_done();
}
