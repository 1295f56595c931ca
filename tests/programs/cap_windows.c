/*
 * cap_windows - a stand-in front-end for the capture-window tests: it
 * "creates objects", records calls, ends frames and begins/ends submits and
 * launches the way the real front-ends do, and writes a state snapshot when
 * a window opens (one record per live object), so the tests can check what
 * each window's file holds.  Run it with TRACESMITH_TRIGGER set.
 *
 *   cap_windows frames N       per frame i: one call record (payload i), frame end;
 *                              an object is created at every odd frame
 *   cap_windows submits N      N submits: unit begin, a record, unit end
 *   cap_windows launches N     the same with launches
 *   cap_windows signal N       frames, sending itself SIGUSR1 after frames 3 and 6
 *   cap_windows app N          frames, the in-app API (tracesmith_app.h) starting
 *                              a window at frame 3, ending it at frame 5, and
 *                              triggering 2 frames at frame 7
 *   cap_windows slow N         frames, 20 ms each, printing "frame i" after each
 *   cap_windows threads N      frames on the main thread while 3 other threads
 *                              record calls all along
 *   cap_windows check FILE     the facts a test asserts, one per line
 */
#include <inttypes.h>
#include <pthread.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "capture/cap.h"
#include "tracesmith/sbt.h"
#include "tracesmith/tracesmith_app.h"

#define CW_CALL 64     /* a call; payload: u64 number */
#define CW_CREATE 65   /* an object created; payload: u64 id */
#define CW_OBJECT 66   /* snapshot: a live object; payload: u64 id */

static const cap_type_desc cw_types[] = {
	{CW_CALL, "test.call"},
	{CW_CREATE, "test.create"},
	{CW_OBJECT, "test.object"},
};

static uint64_t cw_objects; /* live objects: 1..cw_objects */

static void cw_snapshot(void)
{
	for (uint64_t id = 1; id <= cw_objects; id++)
		cap_record(CW_OBJECT, 0, &id, sizeof(id));
}

static void cw_call(uint64_t v)
{
	cap_record(CW_CALL, CAP_REC_WORK, &v, sizeof(v));
}

static void cw_create(void)
{
	uint64_t id = ++cw_objects; /* tracked whether or not recorded */
	cap_record(CW_CREATE, 0, &id, sizeof(id));
}

static int cw_check(const char *path)
{
	sbt_reader *r;
	sbt_record rec;
	sbt_status st;
	uint64_t n = 0, snap = 0, calls = 0, creates = 0, first_seq = 0;
	int seen_end = 0, snap_open = 0;
	st = sbt_reader_open(path, NULL, &r);
	if (st != SBT_OK) {
		fprintf(stderr, "cap_windows: %s: %s\n", path, sbt_strerror(st));
		return 1;
	}
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		uint64_t v = 0;
		if (!n)
			first_seq = rec.seq;
		if (rec.payload_len == 8)
			memcpy(&v, rec.payload, 8);
		if (n == 0 && rec.type != SBT_TYPE_WINDOW)
			printf("first record type %" PRIu32 "\n", rec.type);
		switch (rec.type) {
		case SBT_TYPE_WINDOW: {
			sbt_window w;
			if (sbt_window_decode(rec.payload, rec.payload_len, &w) != SBT_OK) {
				printf("window record undecodable\n");
				break;
			}
			snap_open = 1;
			printf("window %" PRIu64 " trigger '%s' first frame %" PRIu64
			       " submit %" PRIu64 " launch %" PRIu64 "\n",
			       w.index, w.trigger, w.first_frame, w.first_submit, w.first_launch);
			break;
		}
		case SBT_TYPE_SNAPSHOT_END:
			printf("snapshot %" PRIu64 " objects\n", snap);
			seen_end = 1;
			snap_open = 0;
			break;
		case SBT_TYPE_KEYFRAME:
			snap = 0;
			seen_end = 0;
			snap_open = 1;
			printf("keyframe '%.*s'\n", (int)(rec.payload_len < 8 ? rec.payload_len : 8),
			       (const char *)rec.payload);
			break;
		case CW_OBJECT:
			if (seen_end)
				printf("object record after the snapshot\n");
			snap++;
			break;
		case SBT_TYPE_FRAME: {
			const uint8_t *p = rec.payload;
			uint64_t f = 0;
			sbt_varint_get(&p, p + rec.payload_len, &f);
			printf("frame %" PRIu64 "\n", f);
			break;
		}
		case CW_CALL:
			if (!seen_end && first_seq && n > 0 && snap_open)
				printf("call inside the snapshot\n");
			calls++;
			printf("call %" PRIu64 "\n", v);
			break;
		case CW_CREATE:
			creates++;
			break;
		}
		n++;
	}
	printf("records %" PRIu64 " calls %" PRIu64 " creates %" PRIu64 " first seq %s\n", n,
	       calls, creates, first_seq > 1 ? ">1" : "1");
	if (st != SBT_END)
		printf("read error: %s\n", sbt_strerror(st));
	sbt_reader_close(r);
	return 0;
}

static atomic_int_least32_t cw_stop;

static void *cw_thread(void *arg)
{
	uint64_t i = 0;
	(void)arg;
	while (!atomic_load(&cw_stop))
		cw_call(1000000 + i++);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t n;
	if (argc == 3 && strcmp(argv[1], "check") == 0)
		return cw_check(argv[2]);
	if (argc != 3) {
		fprintf(stderr, "usage: cap_windows frames|submits|launches|signal|app|slow|threads N | "
		                "check FILE\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	cap_register_api("test", cw_types, sizeof(cw_types) / sizeof(cw_types[0]));
	cap_on_window_open(cw_snapshot);
	if (strcmp(argv[1], "submits") == 0 || strcmp(argv[1], "launches") == 0) {
		cap_unit u = argv[1][0] == 's' ? CAP_UNIT_SUBMIT : CAP_UNIT_LAUNCH;
		for (uint64_t i = 1; i <= n; i++) {
			if (i % 2)
				cw_create();
			cap_unit_begin(u);
			cw_call(i);
			cap_unit_end(u);
		}
		return 0;
	}
	if (strcmp(argv[1], "threads") == 0) {
		pthread_t th[3];
		for (int k = 0; k < 3; k++)
			pthread_create(&th[k], NULL, cw_thread, NULL);
		for (uint64_t i = 1; i <= n; i++) {
			struct timespec ms = {0, 2000000};
			if (i % 2)
				cw_create();
			cw_call(i);
			cap_frame_end(i);
			nanosleep(&ms, NULL);
		}
		atomic_store(&cw_stop, 1);
		for (int k = 0; k < 3; k++)
			pthread_join(th[k], NULL);
		return 0;
	}
	for (uint64_t i = 1; i <= n; i++) {
		if (strcmp(argv[1], "app") == 0) {
			if (i == 3)
				printf("start %d\n", tracesmith_start_capture());
			if (i == 4) {
				int again = tracesmith_start_capture();
				printf("start again %d capturing %d\n", again,
				       tracesmith_is_capturing());
			}
			if (i == 6) {
				int end = tracesmith_end_capture();
				printf("end %d capturing %d\n", end, tracesmith_is_capturing());
			}
			if (i == 7)
				printf("trigger %d\n", tracesmith_trigger_capture(2));
		}
		if (i % 2)
			cw_create();
		cw_call(i);
		if (strcmp(argv[1], "app") == 0)
			tracesmith_mark_frame();
		else
			cap_frame_end(i);
		if (strcmp(argv[1], "signal") == 0 && (i == 3 || i == 6))
			raise(SIGUSR1);
		if (strcmp(argv[1], "slow") == 0) {
			struct timespec ms = {0, 20000000};
			printf("frame %" PRIu64 "\n", i);
			fflush(stdout);
			nanosleep(&ms, NULL);
		}
	}
	fflush(stdout);
	return 0;
}
