/*
 * sbt_cut - copies a trace up to (not including) the record with sequence
 * number SEQ, as a trace cut at that point would hold it: every record
 * before it, with its seq, time, thread and stack, and the type names,
 * strings, stacks, metadata and blobs they may refer to.  Tests use it to
 * make a trace that ends between a present and its FRAME record, which a
 * Ctrl-C inside vkQueuePresentKHR leaves (the layer records a present
 * before passing it down and the FRAME record after it returns).
 *
 * usage: sbt_cut IN OUT SEQ
 * Strings and stacks keep their ids (they are written in id order); blob
 * ids are kept as recorded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracesmith/sbt.h"

static int sbt_cut_fail(const char *what, sbt_status st, const sbt_reader *r)
{
	fprintf(stderr, "sbt_cut: %s: %s%s%s\n", what, sbt_strerror(st),
	        r && sbt_reader_message(r)[0] ? ": " : "", r ? sbt_reader_message(r) : "");
	return 1;
}

/* Type names, strings (ids kept), stacks (ids kept) and metadata. */
static int sbt_cut_tables(sbt_reader *r, sbt_writer *w, const sbt_trace_info *in)
{
	const char *name, *key, *value;
	const sbt_frame *frames;
	uint32_t type, nframes, id, got;
	sbt_status st;
	size_t i;

	for (i = 0; sbt_reader_type_at(r, i, &type, &name) == SBT_OK; i++)
		if ((st = sbt_writer_define_type(w, type, name)) != SBT_OK)
			return sbt_cut_fail("define_type", st, NULL);
	for (id = 1; id <= in->string_count; id++) {
		const char *s = sbt_reader_string(r, id);
		if (!s || (st = sbt_writer_intern(w, s, &got)) != SBT_OK || got != id) {
			fprintf(stderr, "sbt_cut: string %u cannot keep its id\n", id);
			return 1;
		}
	}
	for (id = 1; id <= in->stack_count; id++) {
		if ((st = sbt_reader_stack(r, id, &frames, &nframes)) != SBT_OK)
			return sbt_cut_fail("stack", st, r);
		if ((st = sbt_writer_put_stack(w, id, frames, nframes, &got)) != SBT_OK || got != id) {
			fprintf(stderr, "sbt_cut: stack %u cannot keep its id\n", id);
			return 1;
		}
	}
	for (i = 0; sbt_reader_meta_at(r, i, &key, &value) == SBT_OK; i++)
		if ((st = sbt_writer_set_meta(w, key, value)) != SBT_OK)
			return sbt_cut_fail("set_meta", st, NULL);
	return 0;
}

/* Blobs have no list: ids are probed from 1 until every one is found (the
 * runtime hands them out in order, so few are missing). */
static int sbt_cut_blobs(sbt_reader *r, sbt_writer *w, const sbt_trace_info *in)
{
	uint64_t id, found = 0, limit = 4 * in->blob_count + 4096;
	sbt_status st;

	for (id = 1; found < in->blob_count && id <= limit; id++) {
		void *data = NULL;
		size_t len = 0;
		uint64_t got;
		st = sbt_reader_blob_get(r, id, &data, &len);
		if (st == SBT_ERR_NOT_FOUND)
			continue;
		if (st != SBT_OK)
			return sbt_cut_fail("blob", st, r);
		st = sbt_writer_put_blob(w, id, data, len, &got);
		free(data);
		if (st != SBT_OK)
			return sbt_cut_fail("put_blob", st, NULL);
		found++;
	}
	if (found < in->blob_count) {
		fprintf(stderr, "sbt_cut: found %llu of %llu blobs\n", (unsigned long long)found,
		        (unsigned long long)in->blob_count);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	sbt_reader *r = NULL;
	sbt_writer *w = NULL;
	sbt_trace_info in;
	sbt_record rec;
	sbt_status st;
	uint64_t cut, copied = 0;
	char *end = NULL;
	int rc = 1;

	if (argc != 4 || !(cut = strtoull(argv[3], &end, 10)) || *end) {
		fprintf(stderr, "usage: sbt_cut IN OUT SEQ\n");
		return 2;
	}
	if ((st = sbt_reader_open(argv[1], NULL, &r)) != SBT_OK) {
		sbt_cut_fail(argv[1], st, r);
		goto out;
	}
	sbt_reader_get_info(r, &in);
	if ((st = sbt_writer_open(argv[2], NULL, &w)) != SBT_OK) {
		sbt_cut_fail(argv[2], st, NULL);
		goto out;
	}
	if (sbt_cut_tables(r, w, &in) != 0 || sbt_cut_blobs(r, w, &in) != 0)
		goto out;
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK && rec.seq < cut) {
		if ((st = sbt_writer_append(w, &rec)) != SBT_OK) {
			sbt_cut_fail("append", st, NULL);
			goto out;
		}
		copied++;
	}
	if (st != SBT_OK && st != SBT_END) {
		sbt_cut_fail("reading", st, r);
		goto out;
	}
	st = sbt_writer_close(w);
	w = NULL;
	if (st != SBT_OK) {
		sbt_cut_fail("close", st, NULL);
		goto out;
	}
	printf("copied %llu records\n", (unsigned long long)copied);
	rc = 0;
out:
	sbt_writer_close(w);
	sbt_reader_close(r);
	return rc;
}
