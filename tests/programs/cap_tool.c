/*
 * cap_tool - a program the capture shell tests run under different
 * TRACESMITH_* settings, and the checker that reads what it wrote.
 *
 *   cap_tool record N        N records of type 64 (payload: 8-byte counter)
 *   cap_tool none            configure, name types, never record
 *   cap_tool fork            3 records, fork: the child records 5 of type 65,
 *                            then the parent 2 more; prints "child PID"
 *   cap_tool latefork N      N records; then, from an exit handler that runs
 *                            after the runtime finished the trace at exit,
 *                            1 record of type 65, a fork whose child exits
 *                            at once, and 1 more of type 65; prints "late
 *                            child PID" (exit 1 if the child failed)
 *   cap_tool abort N         N records, then abort()
 *   cap_tool signal N SIG    N records, then raise(SIG)
 *   cap_tool chain N         installs its own SIGTERM handler (prints "app
 *                            handler ran", _exit(42)), N records, SIGTERM
 *   cap_tool exit N CODE     N records, then exit(CODE)
 *   cap_tool hold N FILE     N records, then waits (up to 30 s) until FILE
 *                            exists, so that another process runs meanwhile
 *   cap_tool stacks          3 records from cap_tool_work_site (CAP_REC_WORK,
 *                            type 64) and 3 from cap_tool_plain_site (type 65)
 *   cap_tool check FILE      prints what the trace holds, one fact a line
 *
 * Output of record modes goes to stdout ("recorded N") so tests can see the
 * program's own output survive whatever capture did.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap.h"
#include "tracesmith/sbt.h"

#define CAP_TOOL_TYPE_A 64
#define CAP_TOOL_TYPE_B 65

static const cap_type_desc cap_tool_types[] = {
	{CAP_TOOL_TYPE_A, "test.a"},
	{CAP_TOOL_TYPE_B, "test.b"},
};

static void cap_tool_record_n(uint32_t type, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = i;
		/* 0 is fine when recording is off (disabled, unwritable trace). */
		if (!cap_record(type, 0, &v, sizeof(v)) && cap_active()) {
			fprintf(stderr, "cap_tool: record %llu not taken\n", (unsigned long long)i);
			break;
		}
	}
}

/* Global (not static) so that -rdynamic exports the names the stack test
 * looks for. */
void cap_tool_work_site(uint64_t i);
void cap_tool_plain_site(uint64_t i);

__attribute__((noinline)) void cap_tool_work_site(uint64_t i)
{
	cap_record(CAP_TOOL_TYPE_A, CAP_REC_WORK, &i, sizeof(i));
	__asm__ volatile("" ::: "memory"); /* keep the call from being a tail call */
}

__attribute__((noinline)) void cap_tool_plain_site(uint64_t i)
{
	cap_record(CAP_TOOL_TYPE_B, 0, &i, sizeof(i));
	__asm__ volatile("" ::: "memory");
}

/* Static: only a full symbol table names it (the program's own, or a
 * separate debug file's when the program is stripped). */
static __attribute__((noinline)) void cap_tool_stacks(void)
{
	/* volatile: one call site each, not an unrolled copy per pass, so
	 * the three records of a site share one stack */
	volatile uint64_t reps = 3;
	for (uint64_t i = 0; i < reps; i++) {
		cap_tool_work_site(i);
		cap_tool_plain_site(i);
	}
	__asm__ volatile("" ::: "memory");
}

typedef struct cap_tool_type_stat {
	uint32_t type;
	uint64_t count;
	uint64_t with_stack;
	uint32_t first_stack;
} cap_tool_type_stat;

static int cap_tool_check(const char *path)
{
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_record rec;
	sbt_status st;
	cap_tool_type_stat types[64];
	size_t ntypes = 0;
	uint64_t tids[256];
	size_t ntids = 0;
	uint64_t n = 0, prev = 0, counter = 0;
	int contiguous = 1, counter_ok = 1, rc = 0;
	const char *k, *v;

	st = sbt_reader_open(path, NULL, &r);
	if (st != SBT_OK) {
		printf("open_error %s: %s\n", sbt_strerror(st), r ? sbt_reader_message(r) : "");
		sbt_reader_close(r);
		return 1;
	}
	sbt_reader_get_info(r, &info);
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		size_t i;
		if ((n == 0 && rec.seq != 1) || (n > 0 && rec.seq != prev + 1))
			contiguous = 0;
		prev = rec.seq;
		n++;
		for (i = 0; i < ntypes && types[i].type != rec.type; i++)
			;
		if (i == ntypes && ntypes < 64) {
			memset(&types[ntypes], 0, sizeof(types[0]));
			types[ntypes++].type = rec.type;
		}
		if (i < ntypes) {
			types[i].count++;
			if (rec.stack_id) {
				if (!types[i].with_stack)
					types[i].first_stack = rec.stack_id;
				types[i].with_stack++;
			}
		}
		if (rec.type == CAP_TOOL_TYPE_A && rec.payload_len == 8) {
			uint64_t c;
			memcpy(&c, rec.payload, 8);
			if (c != counter)
				counter_ok = 0;
			counter++;
		}
		for (i = 0; i < ntids && tids[i] != rec.thread; i++)
			;
		if (i == ntids && ntids < 256)
			tids[ntids++] = rec.thread;
	}
	printf("records %llu\n", (unsigned long long)n);
	printf("info_records %llu\n", (unsigned long long)info.record_count);
	printf("contiguous %d\n", contiguous);
	printf("counter_ok %d\n", counter_ok);
	printf("threads %zu\n", ntids);
	printf("has_index %d\n", info.has_index);
	printf("truncated %d\n", info.truncated);
	printf("end %s\n", st == SBT_END ? "ok" : sbt_strerror(st));
	printf("message %s\n", sbt_reader_message(r));
	for (size_t i = 0; i < ntypes; i++) {
		printf("type %u count %llu stacks %llu\n", types[i].type,
		       (unsigned long long)types[i].count, (unsigned long long)types[i].with_stack);
		if (types[i].with_stack) {
			const sbt_frame *frames;
			uint32_t nf;
			printf("symbols %u", types[i].type);
			if (sbt_reader_stack(r, types[i].first_stack, &frames, &nf) == SBT_OK) {
				for (uint32_t f = 0; f < nf; f++) {
					const char *s = sbt_reader_string(r, frames[f].symbol_id);
					printf(" %s", s && frames[f].symbol_id ? s : "?");
				}
			} else {
				printf(" (stack %u missing)", types[i].first_stack);
			}
			printf("\n");
		}
	}
	for (size_t i = 0; sbt_reader_meta_at(r, i, &k, &v) == SBT_OK; i++)
		printf("meta %s %s\n", k, v);
	if (st != SBT_END)
		rc = 1;
	sbt_reader_close(r);
	return rc;
}

/* The application's own SIGTERM handler, installed before capture starts:
 * the runtime must flush and then hand the signal on to it. */
static void cap_tool_term(int sig)
{
	static const char msg[] = "app handler ran\n";
	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(42);
}

/* Registered before the runtime's own exit handler, so it runs after it:
 * the trace is finished and the runtime records late (CAP_ST_LATE). */
static void cap_tool_late_fork(void)
{
	pid_t pid;
	int status;
	cap_tool_record_n(CAP_TOOL_TYPE_B, 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "cap_tool: late fork child failed\n");
		_exit(1);
	}
	cap_tool_record_n(CAP_TOOL_TYPE_B, 1);
	printf("late child %ld\n", (long)pid);
}

static int cap_tool_usage(void)
{
	fprintf(stderr, "usage: cap_tool record N | none | fork | latefork N | abort N | "
	                "signal N SIG | chain N | exit N CODE | stacks | check FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
	int latefork = strcmp(mode, "latefork") == 0 && argc == 3;

	if (strcmp(mode, "check") == 0 && argc == 3)
		return cap_tool_check(argv[2]);
	if (latefork && atexit(cap_tool_late_fork) != 0)
		return 1;
	cap_register_api("test", cap_tool_types, 2);
	if (latefork) {
		cap_tool_record_n(CAP_TOOL_TYPE_A, n);
		printf("recorded %llu\n", (unsigned long long)n);
		return 0;
	}
	if (strcmp(mode, "record") == 0 && argc == 3) {
		cap_tool_record_n(CAP_TOOL_TYPE_A, n);
		printf("recorded %llu\n", (unsigned long long)n);
		return 0;
	}
	if (strcmp(mode, "none") == 0) {
		cap_set_meta("test.meta", "x");
		printf("stacks=%d exact=%d\n", (int)cap_config_get()->stacks,
		       cap_config_get()->exact_output);
		return 0;
	}
	if (strcmp(mode, "fork") == 0) {
		pid_t pid;
		int status;
		cap_tool_record_n(CAP_TOOL_TYPE_A, 3);
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			cap_tool_record_n(CAP_TOOL_TYPE_B, 5);
			exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "cap_tool: child failed\n");
			return 1;
		}
		cap_tool_record_n(CAP_TOOL_TYPE_A, 2);
		printf("child %ld\n", (long)pid);
		return 0;
	}
	if (strcmp(mode, "abort") == 0 && argc == 3) {
		cap_tool_record_n(CAP_TOOL_TYPE_A, n);
		printf("recorded %llu\n", (unsigned long long)n);
		fflush(stdout);
		abort();
	}
	if (strcmp(mode, "signal") == 0 && argc == 4) {
		cap_tool_record_n(CAP_TOOL_TYPE_A, n);
		printf("recorded %llu\n", (unsigned long long)n);
		fflush(stdout);
		raise(atoi(argv[3]));
		return 0;
	}
	if (strcmp(mode, "chain") == 0 && argc == 3) {
		signal(SIGTERM, cap_tool_term);
		cap_tool_record_n(CAP_TOOL_TYPE_A, n);
		printf("recorded %llu\n", (unsigned long long)n);
		fflush(stdout);
		raise(SIGTERM);
		return 0;
	}
	if (strcmp(mode, "hold") == 0 && argc == 4) {
		struct timespec ms = {0, 10 * 1000000};
		cap_tool_record_n(CAP_TOOL_TYPE_A, n);
		for (int i = 0; i < 3000 && access(argv[3], F_OK) != 0; i++)
			nanosleep(&ms, NULL);
		printf("recorded %llu\n", (unsigned long long)n);
		return 0;
	}
	if (strcmp(mode, "exit") == 0 && argc == 4) {
		cap_tool_record_n(CAP_TOOL_TYPE_A, n);
		exit(atoi(argv[3]));
	}
	if (strcmp(mode, "stacks") == 0) {
		cap_tool_stacks();
		printf("recorded 6\n");
		return 0;
	}
	return cap_tool_usage();
}
