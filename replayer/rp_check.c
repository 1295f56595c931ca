/*
 * rp_check.c - comparing the replay's bytes with a checkpoint.
 *
 * A checkpoint carries a hash of the whole range and one per block of
 * block_size bytes (the last block may be short).  The whole hash decides
 * whether the range matches; the block hashes place the first difference
 * at an offset without the capture having stored the bytes.
 */
#include "replayer/rp.h"

rp_status rp_check_pair(const sbt_checkpoint *expected, const sbt_checkpoint *actual,
                        rp_check_result *out, rp_diag *diag)
{
	rp_check_result res = {0};
	uint64_t nblocks;
	uint64_t i;

	if (!expected || !actual || !out) {
		rp_diag_set(diag, "rp_check_pair: missing argument");
		return RP_ERR_ARG;
	}
	if (expected->length != actual->length) {
		rp_diag_set(diag, "checkpoint of object %llu covers %llu bytes, the replay gave %llu",
		            (unsigned long long)expected->object,
		            (unsigned long long)expected->length, (unsigned long long)actual->length);
		return RP_ERR_ARG;
	}
	res.actual_hash = actual->hash;
	if (expected->hash == actual->hash) {
		res.match = 1;
		goto out_done;
	}
	/* Blocks can only be compared when both sides cut the range the same
	 * way and carry every block; otherwise the mismatch stays unplaced. */
	if (expected->block_size == 0 || expected->block_size != actual->block_size ||
	    !expected->block_hashes || !actual->block_hashes)
		goto out_done;
	nblocks = (expected->length + expected->block_size - 1) / expected->block_size;
	if (expected->nblocks != nblocks || actual->nblocks != nblocks)
		goto out_done;
	for (i = 0; i < nblocks; i++) {
		if (expected->block_hashes[i] != actual->block_hashes[i]) {
			uint64_t start = i * expected->block_size;
			uint64_t left = expected->length - start;
			res.located = 1;
			res.block = i;
			res.diff_offset = expected->offset + start;
			res.diff_len = left < expected->block_size ? left : expected->block_size;
			break;
		}
	}
out_done:
	*out = res;
	return RP_OK;
}

rp_status rp_check_bytes(const sbt_checkpoint *expected, const void *data, uint64_t len,
                         rp_check_result *out, rp_diag *diag)
{
	sbt_checkpoint actual = {0};
	sbt_status sst;
	rp_status st;

	if (!expected || (!data && len) || !out) {
		rp_diag_set(diag, "rp_check_bytes: missing argument");
		return RP_ERR_ARG;
	}
	if (len != expected->length) {
		rp_diag_set(diag, "checkpoint of object %llu covers %llu bytes, the replay gave %llu",
		            (unsigned long long)expected->object,
		            (unsigned long long)expected->length, (unsigned long long)len);
		return RP_ERR_ARG;
	}
	sst = sbt_checkpoint_compute(data, len, &actual);
	if (sst != SBT_OK) {
		rp_diag_set(diag, "hashing %llu bytes of object %llu: %s", (unsigned long long)len,
		            (unsigned long long)expected->object, sbt_strerror(sst));
		return sst == SBT_ERR_NOMEM ? RP_ERR_NOMEM : RP_ERR_ARG;
	}
	actual.object = expected->object;
	actual.offset = expected->offset;
	actual.call_seq = expected->call_seq;
	st = rp_check_pair(expected, &actual, out, diag);
	sbt_checkpoint_free(&actual);
	return st;
}
