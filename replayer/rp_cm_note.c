/*
 * rp_cm_note.c - the compute backends' kept device-to-host copies: the
 * range a copy read (taken at the copy), where a checkpoint's bytes lie in
 * it, and the note printed for the first copy whose bytes differ from the
 * capture: which allocation it read, where in it the first difference
 * lies, and the last kernel given a pointer into it (the likeliest
 * writer).  The backends print the note once per run.  The same note
 * tells where memory first differs from a full keyframe met mid-replay.
 */
#include "replayer/rp_cm.h"
#include "serializer/sbt_compute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rp_cm_copy_source_take(rp_cm_copy_source *out, const rp_cm_range *r)
{
	memset(out, 0, sizeof(*out));
	if (!r)
		return;
	out->alloc_cap = r->cap;
	out->alloc_size = r->size;
	out->alloc_seq = r->seq;
	out->kernel_seq = r->kernel_seq;
	snprintf(out->kernel, sizeof(out->kernel), "%s", r->kernel);
}

rp_status rp_cm_copy_offset(const sbt_checkpoint *cp, uint64_t vstart, uint64_t len, uint64_t copy_seq,
                            const char *verb, uint64_t *off_out, rp_diag *diag)
{
	uint64_t pos = cp->object + cp->offset, off = pos - vstart;

	if (pos < vstart || off > len || cp->length > len - off) {
		rp_diag_set(diag, "the checkpoint asks for [%llu, +%llu) of object 0x%llx, outside the "
		            "%llu bytes the copy at seq %llu %s", (unsigned long long)cp->offset,
		            (unsigned long long)cp->length, (unsigned long long)cp->object,
		            (unsigned long long)len, (unsigned long long)copy_seq, verb);
		return RP_ERR_TRACE;
	}
	*off_out = off;
	return RP_OK;
}

int rp_cm_note_mismatch(const char *api, uint64_t copy_seq, const rp_cm_copy_source *src, const char *how,
                        const sbt_checkpoint *cp, const uint8_t *bytes)
{
	rp_check_result res;
	rp_diag d = {""};

	if (rp_check_bytes(cp, bytes, cp->length, &res, &d) != RP_OK || res.match)
		return 0;
	fprintf(stderr, "tsreplay: %s: the device-to-host copy at seq %llu differs from the capture\n",
	        api, (unsigned long long)copy_seq);
	if (!src->alloc_cap) {
		fprintf(stderr, "  source:   not inside an allocation the trace made\n");
		return 1;
	}
	fprintf(stderr, "  allocation: 0x%llx (%s at seq %llu, %llu bytes)\n",
	        (unsigned long long)src->alloc_cap, how, (unsigned long long)src->alloc_seq,
	        (unsigned long long)src->alloc_size);
	if (res.located)
		fprintf(stderr, "  offset:   %llu in the allocation (first differing block of %llu bytes)\n",
		        (unsigned long long)(cp->object + res.diff_offset - src->alloc_cap),
		        (unsigned long long)res.diff_len);
	if (src->kernel_seq)
		fprintf(stderr, "  kernel:   %s (launch seq %llu), the last kernel given a pointer into it\n",
		        src->kernel, (unsigned long long)src->kernel_seq);
	else
		fprintf(stderr, "  kernel:   none was given a pointer into it before the copy\n");
	return 1;
}

void rp_cm_note_keyframe(const char *api, uint64_t keyframe_seq, uint64_t command_seq,
                         const rp_cm_copy_source *src, uint64_t offset, uint64_t block)
{
	fprintf(stderr, "tsreplay: %s: the memory after the command at seq %llu differs from the keyframe "
	        "at seq %llu\n", api, (unsigned long long)command_seq, (unsigned long long)keyframe_seq);
	fprintf(stderr, "  allocation: 0x%llx (made at seq %llu, %llu bytes)\n",
	        (unsigned long long)src->alloc_cap, (unsigned long long)src->alloc_seq,
	        (unsigned long long)src->alloc_size);
	fprintf(stderr, "  offset:   %llu in the allocation (first differing block of %llu bytes)\n",
	        (unsigned long long)offset, (unsigned long long)block);
	if (src->kernel_seq)
		fprintf(stderr, "  kernel:   %s (launch seq %llu), the last kernel given a pointer into it\n",
		        src->kernel, (unsigned long long)src->kernel_seq);
	else
		fprintf(stderr, "  kernel:   none was given a pointer into it before the keyframe\n");
}

int rp_cm_keyframe_differs(rp_keyframe_report *kr, uint64_t keyframe_seq, uint64_t command_seq,
                           uint64_t object, const uint8_t *capture, const uint8_t *replay,
                           uint64_t size, uint64_t *at_out)
{
	sbt_checkpoint a = {0}, b = {0};
	uint64_t at = 0;

	if (kr->length)
		return 0; /* the run's first is kept (compared ranges are never empty) */
	while (at < size && capture[at] == replay[at])
		at++;
	at -= at % RP_CM_KF_BLOCK;
	kr->keyframe_seq = keyframe_seq;
	kr->command_seq = command_seq;
	kr->object = object;
	kr->length = size;
	kr->diff_offset = at;
	kr->diff_len = size - at < RP_CM_KF_BLOCK ? size - at : RP_CM_KF_BLOCK;
	kr->nbytes = kr->diff_len < sizeof(kr->bytes_replay) ? (size_t)kr->diff_len : sizeof(kr->bytes_replay);
	memcpy(kr->bytes_replay, replay + at, kr->nbytes);
	memcpy(kr->bytes_capture, capture + at, kr->nbytes);
	if (sbt_checkpoint_compute(capture, size, &a) == SBT_OK &&
	    sbt_checkpoint_compute(replay, size, &b) == SBT_OK) {
		kr->expected_hash = a.hash;
		kr->actual_hash = b.hash;
	}
	sbt_checkpoint_free(&a);
	sbt_checkpoint_free(&b);
	*at_out = at;
	return 1;
}

int rp_cm_keyframe_is_start(const sbt_record *marker)
{
	sbt_cm_call kf;
	return sbt_cm_decode(marker->payload, marker->payload_len, &kf) == SBT_OK &&
	       !(kf.flags & SBT_CM_KF_PARTIAL);
}

rp_status rp_cm_replay_before(sbt_reader *trace, uint64_t stop, rp_cm_record_fn run, void *ctx,
                              rp_diag *diag)
{
	sbt_record rec;
	uint8_t *copy = NULL;
	size_t copy_cap = 0;
	sbt_status sst = sbt_reader_seek_seq(trace, 0);
	rp_status st = RP_OK;

	while (st == RP_OK && sst == SBT_OK && (sst = sbt_reader_next(trace, &rec)) == SBT_OK &&
	       rec.seq < stop) {
		if (rec.payload_len > copy_cap) {
			uint8_t *n = realloc(copy, rec.payload_len);
			if (!n) {
				rp_diag_set(diag, "out of memory");
				st = RP_ERR_NOMEM;
				break;
			}
			copy = n;
			copy_cap = rec.payload_len;
		}
		if (rec.payload_len)
			memcpy(copy, rec.payload, rec.payload_len);
		rec.payload = copy;
		st = run(ctx, &rec, diag);
	}
	if (st == RP_OK && sst != SBT_OK && sst != SBT_END) {
		const char *msg = sbt_reader_message(trace);
		rp_diag_set(diag, "keyframe seq %llu: reading the records before it: %s",
		            (unsigned long long)stop, *msg ? msg : sbt_strerror(sst));
		st = RP_ERR_TRACE;
	}
	free(copy);
	return st;
}

int rp_cm_trace_has_full_keyframe(sbt_reader *trace)
{
	const uint64_t *seqs = NULL;
	size_t n = 0;
	int full = 0;

	if (sbt_reader_keyframes(trace, &seqs, &n) != SBT_OK)
		return 0;
	for (size_t i = 0; i < n && !full; i++) {
		sbt_record rec;
		sbt_cm_call kf;
		if (sbt_reader_seek_seq(trace, seqs[i]) == SBT_OK && sbt_reader_next(trace, &rec) == SBT_OK &&
		    rec.type == SBT_TYPE_KEYFRAME && rec.seq == seqs[i] &&
		    !(rec.payload_len >= 8 && memcmp(rec.payload, "snapshot", 8) == 0) &&
		    sbt_cm_decode(rec.payload, rec.payload_len, &kf) == SBT_OK)
			full = !(kf.flags & SBT_CM_KF_PARTIAL);
	}
	return full;
}

rp_status rp_cm_parse_ordinal(const char *text, const char *api, int *out, rp_diag *diag)
{
	const char *p;
	long v = 0;

	for (p = text; *p >= '0' && *p <= '9' && v <= RP_CM_MAX_DEVICE_ORDINAL; p++)
		v = v * 10 + (*p - '0');
	if (p == text || *p || v > RP_CM_MAX_DEVICE_ORDINAL) {
		rp_diag_set(diag, "--device: expected a %s device ordinal from 0 to %d, got '%s'", api,
		            RP_CM_MAX_DEVICE_ORDINAL, text);
		return RP_ERR_USAGE;
	}
	*out = (int)v;
	return RP_OK;
}
