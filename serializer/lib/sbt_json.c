/*
 * sbt_json.c - the JSON view of records that libtracesmith.so exports
 * (include/tracesmith/sbt_json.h): a thin layer over the dump table that
 * tsinfo uses, so that the library's callers get the same fields.
 */
#include "tracesmith/sbt_json.h"

#include <stdlib.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_dump.h"
#include "serializer/sbt_vk.h"

struct sbt_json {
	sbt_dump *dump;
	sbt_dump_buf buf;
	sbt_dump_session *blobs;      /* hashes for records of blobs_reader */
	const sbt_reader *blobs_reader;
};

sbt_status sbt_json_create(sbt_json **out)
{
	sbt_json *j;
	sbt_status st;

	if (!out)
		return SBT_ERR_ARG;
	*out = NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return SBT_ERR_NOMEM;
	st = sbt_dump_create(&j->dump);
	if (st == SBT_OK)
		st = sbt_cm_dump_register(j->dump);
	if (st == SBT_OK)
		st = sbt_vk_dump_register(j->dump);
	if (st != SBT_OK) {
		sbt_json_free(j);
		return st;
	}
	*out = j;
	return SBT_OK;
}

void sbt_json_free(sbt_json *j)
{
	if (!j)
		return;
	sbt_dump_free(j->dump);
	sbt_dump_session_free(j->blobs);
	sbt_dump_buf_free(&j->buf);
	free(j);
}

sbt_status sbt_json_record(sbt_json *j, const sbt_reader *r, const sbt_record *rec,
                           int with_stack, const char **text_out, size_t *len_out)
{
	sbt_dump_options opt = { .format = SBT_DUMP_JSON, .with_stack = with_stack };
	sbt_status st;

	if (!j || !rec || !text_out || !len_out)
		return SBT_ERR_ARG;
	if (r && r == j->blobs_reader)
		opt.session = j->blobs;
	j->buf.len = 0;
	st = sbt_dump_record(j->dump, r, rec, &opt, &j->buf);
	if (st != SBT_OK)
		return st;
	if (j->buf.failed || !j->buf.data)
		return SBT_ERR_NOMEM;
	/* the dump ends each object with a newline; the caller gets the object */
	if (j->buf.len && j->buf.data[j->buf.len - 1] == '\n')
		j->buf.data[--j->buf.len] = 0;
	*text_out = j->buf.data;
	*len_out = j->buf.len;
	return SBT_OK;
}

sbt_status sbt_json_hash_blobs(sbt_json *j, sbt_reader *r)
{
	sbt_dump_session *blobs = NULL;
	sbt_status st;

	if (!j)
		return SBT_ERR_ARG;
	if (r) {
		st = sbt_dump_session_create(r, &blobs);
		if (st != SBT_OK)
			return st;
	}
	sbt_dump_session_free(j->blobs);
	j->blobs = blobs;
	j->blobs_reader = r;
	return SBT_OK;
}

const char *sbt_json_type_name(const sbt_reader *r, uint32_t type)
{
	return sbt_dump_type_name(r, type);
}
