/*
 * sbt_checkpoint.c - hashing observable results and the SBT_TYPE_CHECKPOINT
 * payload codec.
 *
 * Payload: varint call_seq, varint object, varint offset, varint length,
 * varint block_size, u64 hash (LE), varint nblocks, nblocks x u64 block hash
 * (LE).  block_size is a power of two and nblocks == ceil(length/block_size);
 * a decoder refuses anything else.
 */
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_format.h"

#define SBT_CP_MAX_BLOCKS 4096u
#define SBT_CP_MIN_BLOCK 64u

uint32_t sbt_checkpoint_block_size(uint64_t len)
{
	uint64_t bs = SBT_CP_MIN_BLOCK;
	while (bs < (1ull << 31) && (len + bs - 1) / bs > SBT_CP_MAX_BLOCKS)
		bs <<= 1;
	return (uint32_t)bs;
}

static uint64_t sbt_cp_nblocks(uint64_t len, uint32_t bs)
{
	return len / bs + (len % bs != 0);
}

sbt_status sbt_checkpoint_compute(const void *data, uint64_t len, sbt_checkpoint *cp)
{
	const uint8_t *p = data;
	uint64_t nb, i;
	uint64_t *blocks = NULL;
	if (!cp || (!data && len))
		return SBT_ERR_ARG;
	cp->block_size = sbt_checkpoint_block_size(len);
	nb = sbt_cp_nblocks(len, cp->block_size);
	if (nb) {
		blocks = malloc(nb * sizeof(*blocks));
		if (!blocks)
			return SBT_ERR_NOMEM;
	}
	for (i = 0; i < nb; i++) {
		uint64_t off = i * cp->block_size;
		uint64_t n = len - off < cp->block_size ? len - off : cp->block_size;
		blocks[i] = sbt_fmt_hash64(p + off, (size_t)n);
	}
	cp->length = len;
	cp->hash = sbt_fmt_hash64(p, (size_t)len);
	cp->nblocks = (uint32_t)nb;
	cp->block_hashes = blocks;
	return SBT_OK;
}

void sbt_checkpoint_free(sbt_checkpoint *cp)
{
	if (!cp)
		return;
	free((void *)cp->block_hashes);
	cp->block_hashes = NULL;
	cp->nblocks = 0;
}

sbt_status sbt_checkpoint_encode(const sbt_checkpoint *cp, uint8_t **buf_out, size_t *len_out)
{
	uint8_t *buf, *q;
	uint32_t i;
	if (!cp || !buf_out || !len_out || !cp->block_size ||
	    (cp->block_size & (cp->block_size - 1)) ||
	    sbt_cp_nblocks(cp->length, cp->block_size) != cp->nblocks ||
	    (cp->nblocks && !cp->block_hashes))
		return SBT_ERR_ARG;
	buf = malloc(6 * 10 + 8 + (size_t)cp->nblocks * 8);
	if (!buf)
		return SBT_ERR_NOMEM;
	q = buf;
	q += sbt_varint_put(q, cp->call_seq);
	q += sbt_varint_put(q, cp->object);
	q += sbt_varint_put(q, cp->offset);
	q += sbt_varint_put(q, cp->length);
	q += sbt_varint_put(q, cp->block_size);
	sbt_fmt_store_u64(q, cp->hash);
	q += 8;
	q += sbt_varint_put(q, cp->nblocks);
	for (i = 0; i < cp->nblocks; i++, q += 8)
		sbt_fmt_store_u64(q, cp->block_hashes[i]);
	*buf_out = buf;
	*len_out = (size_t)(q - buf);
	return SBT_OK;
}

sbt_status sbt_checkpoint_decode(const uint8_t *p, size_t len, sbt_checkpoint *cp)
{
	const uint8_t *end = p ? p + len : p; /* no arithmetic on NULL (len is then 0) */
	uint64_t bs, nb, i;
	uint64_t *blocks = NULL;
	sbt_checkpoint c;
	if (!cp || (!p && len))
		return SBT_ERR_ARG;
	memset(&c, 0, sizeof(c));
	if (sbt_varint_get(&p, end, &c.call_seq) || sbt_varint_get(&p, end, &c.object) ||
	    sbt_varint_get(&p, end, &c.offset) || sbt_varint_get(&p, end, &c.length) ||
	    sbt_varint_get(&p, end, &bs))
		return SBT_ERR_CORRUPT;
	if (!bs || bs > (1ull << 31) || (bs & (bs - 1)) || end - p < 8)
		return SBT_ERR_CORRUPT;
	c.block_size = (uint32_t)bs;
	c.hash = sbt_fmt_load_u64(p);
	p += 8;
	if (sbt_varint_get(&p, end, &nb) || nb != sbt_cp_nblocks(c.length, c.block_size) ||
	    nb > (uint64_t)(end - p) / 8)
		return SBT_ERR_CORRUPT;
	if (nb) {
		blocks = malloc(nb * sizeof(*blocks));
		if (!blocks)
			return SBT_ERR_NOMEM;
	}
	for (i = 0; i < nb; i++, p += 8)
		blocks[i] = sbt_fmt_load_u64(p);
	c.nblocks = (uint32_t)nb;
	c.block_hashes = blocks;
	*cp = c;
	return SBT_OK;
}
