/*
 * rpvk_query.c - query results a trimmed trace recorded as data
 * (vulkan.tsQueryResults), handed out in place of the driver's.
 *
 * A trimmed capture's snapshot cannot make the replay's driver measure an
 * occlusion count or a pipeline statistic again, so it records the
 * results the queries held when the window opened (and leaves those
 * queries as they are: not reset).  From that record on, the queries it
 * names are "substituted":
 *
 *   - vkGetQueryPoolResults of a substituted query writes the recorded
 *     values (64- or 32-bit, with the availability word when asked) and
 *     does not reach the driver; the other queries of the call do.
 *   - vkCmdCopyQueryPoolResults of substituted queries writes the same
 *     bytes into the destination buffer with one vkCmdUpdateBuffer per
 *     query (a transfer write, like the copy it replaces, so the
 *     application's barriers cover it; only the bytes the copy would
 *     write); runs of other queries are copied by the driver.  The choice
 *     is made when the command is recorded: a query the same command
 *     buffer reset or began before the copy is copied by the driver.
 *   - A substituted query stops being one when the window resets it
 *     (vkResetQueryPool, or a vkCmdResetQueryPool when its command buffer
 *     is submitted), begins it again (vkCmdBeginQuery(IndexedEXT), at
 *     submit), or destroys its pool.
 *
 * Command buffers: the resets and begins of substituted queries recorded
 * in each, kept until it is begun again; a secondary's are added to its
 * primary at vkCmdExecuteCommands.  With no record in the trace nothing
 * here is kept and every hook returns at once.
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/vulkan/rpvk.h"

/* Bounds on what a record may name (a trace is untrusted input): query
 * indexes, and values per query (pipeline statistics count at most 11;
 * one[] below holds them with the availability word). */
#define RPVK_QUERY_MAX (1u << 24)
#define RPVK_QUERY_MAX_VALUES 63u

/* A query pool some of whose queries are (or were) substituted. */
typedef struct rpvk_qpool {
	uint64_t pool;     /* live */
	uint32_t nvalues;  /* values per query recorded, before availability */
	uint32_t count;    /* queries in subst and vals */
	uint8_t *subst;    /* owned: per query, 1 while substituted */
	uint64_t *vals;    /* owned: per query, nvalues values */
} rpvk_qpool;

/* A reset or begin of a substituted query recorded in a command buffer:
 * applied when the command buffer is submitted. */
typedef struct rpvk_qop {
	uint64_t cb, pool; /* live */
	uint32_t first, count;
} rpvk_qop;

struct rpvk_query {
	rpvk_qpool *pools;
	size_t npools, cappools;
	rpvk_qop *ops;
	size_t nops, capops;
};

static rpvk_qpool *rpvk_query_pool(struct rpvk_query *q, uint64_t pool)
{
	size_t i;
	for (i = 0; q && i < q->npools; i++)
		if (q->pools[i].pool == pool)
			return &q->pools[i];
	return NULL;
}

/* Whether any of [first, first + count) of pool is substituted. */
static int rpvk_query_any(const rpvk_qpool *p, uint32_t first, uint32_t count)
{
	uint32_t i;
	for (i = first; p && i < p->count && i - first < count; i++)
		if (p->subst[i])
			return 1;
	return 0;
}

static void rpvk_query_end(rpvk_qpool *p, uint32_t first, uint32_t count)
{
	uint32_t i;
	for (i = first; p && i < p->count && i - first < count; i++)
		p->subst[i] = 0;
}

static rp_status rpvk_query_add_op(rpvk *r, uint64_t cb, uint64_t pool, uint32_t first,
                                   uint32_t count)
{
	struct rpvk_query *q = r->query;
	if (q->nops == q->capops) {
		size_t cap = q->capops ? 2 * q->capops : 16;
		rpvk_qop *n = realloc(q->ops, cap * sizeof(*n));
		if (!n)
			return rpvk_nomem(r);
		q->ops = n;
		q->capops = cap;
	}
	q->ops[q->nops].cb = cb;
	q->ops[q->nops].pool = pool;
	q->ops[q->nops].first = first;
	q->ops[q->nops].count = count;
	q->nops++;
	return RP_OK;
}

static void rpvk_query_drop_ops(struct rpvk_query *q, uint64_t cb)
{
	size_t i, k = 0;
	for (i = 0; i < q->nops; i++)
		if (q->ops[i].cb != cb)
			q->ops[k++] = q->ops[i];
	q->nops = k;
}

static void rpvk_query_submit_cb(struct rpvk_query *q, uint64_t cb)
{
	size_t i;
	for (i = 0; i < q->nops; i++)
		if (q->ops[i].cb == cb)
			rpvk_query_end(rpvk_query_pool(q, q->ops[i].pool), q->ops[i].first,
			               q->ops[i].count);
}

/* Whether command buffer cb resets or begins query k of pool before the
 * command being recorded: that command reads the new result. */
static int rpvk_query_redone(const struct rpvk_query *q, uint64_t cb, uint64_t pool, uint32_t k)
{
	size_t i;
	for (i = 0; i < q->nops; i++)
		if (q->ops[i].cb == cb && q->ops[i].pool == pool && k >= q->ops[i].first &&
		    k - q->ops[i].first < q->ops[i].count)
			return 1;
	return 0;
}

/* The bytes vkGetQueryPoolResults would write for substituted query k
 * with flags (values, then availability); returns their length. */
static size_t rpvk_query_bytes(const rpvk_qpool *p, uint32_t k, VkQueryResultFlags flags,
                               uint8_t *out)
{
	uint32_t v, n = p->nvalues + ((flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) ? 1 : 0);
	size_t len = 0;
	for (v = 0; v < n; v++) {
		uint64_t x = v < p->nvalues ? p->vals[(size_t)k * p->nvalues + v] : 1;
		if (flags & VK_QUERY_RESULT_64_BIT) {
			memcpy(out + len, &x, 8);
			len += 8;
		} else {
			uint32_t y = (uint32_t)x;
			memcpy(out + len, &y, 4);
			len += 4;
		}
	}
	return len;
}

rp_status rpvk_query_results(rpvk *r, const uint8_t *payload, size_t len)
{
	const VkQueryResultFlags want = VK_QUERY_RESULT_64_BIT |
	                                VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
	sbt_vk_ts_query_results rec;
	const rpvk_map_slot *s;
	struct rpvk_query *q;
	rpvk_qpool *p;
	uint32_t i, nv, end, count, values;
	if (sbt_vk_ts_query_results_decode(payload, len, &rec) != SBT_VK_OK) {
		rp_diag_set(r->diag, "record seq %llu %s: cannot decode its payload (%zu bytes)",
		            (unsigned long long)r->seq, SBT_VK_TS_QUERY_RESULTS_NAME, len);
		return RP_ERR_DECODE;
	}
	if ((rec.flags & want) != want || rec.flags & ~(want | VK_QUERY_RESULT_WAIT_BIT)) {
		rp_diag_set(r->diag, "record seq %llu %s: results read with flags 0x%x (this replayer "
		            "knows only 64-bit results with availability, 0x%x)",
		            (unsigned long long)r->seq, SBT_VK_TS_QUERY_RESULTS_NAME,
		            (unsigned)rec.flags, (unsigned)want);
		return RP_ERR_UNSUPPORTED;
	}
	s = rpvk_map_get(&r->handles, VK_OBJECT_TYPE_QUERY_POOL, rec.pool);
	if (!s) {
		rp_diag_set(r->diag, "record seq %llu %s: unknown VkQueryPool 0x%llx: no earlier "
		            "record created it", (unsigned long long)r->seq,
		            SBT_VK_TS_QUERY_RESULTS_NAME, (unsigned long long)rec.pool);
		return RP_ERR_NOT_FOUND;
	}
	if (rec.first > RPVK_QUERY_MAX || rec.count > RPVK_QUERY_MAX - rec.first ||
	    rec.stride / 8 - 1 > RPVK_QUERY_MAX_VALUES) {
		rp_diag_set(r->diag, "record seq %llu %s: queries %u to %u with %u values each (this "
		            "replayer takes queries below %u, at most %u values each)",
		            (unsigned long long)r->seq, SBT_VK_TS_QUERY_RESULTS_NAME, rec.first,
		            rec.first + (rec.count - 1), rec.stride / 8 - 1, RPVK_QUERY_MAX,
		            RPVK_QUERY_MAX_VALUES);
		return RP_ERR_DECODE;
	}
	/* the pool's own queries and values: copies and reads are checked
	 * against those before the recorded bytes stand in for them */
	count = rpvk_state_query_count(r, (VkQueryPool)(uintptr_t)s->val, &values);
	if (count && (rec.first > count || rec.count > count - rec.first)) {
		rp_diag_set(r->diag, "record seq %llu %s: queries %u+%u lie outside VkQueryPool 0x%llx "
		            "(%u queries)", (unsigned long long)r->seq, SBT_VK_TS_QUERY_RESULTS_NAME,
		            rec.first, rec.count, (unsigned long long)rec.pool, count);
		return RP_ERR_TRACE;
	}
	if (values && rec.stride / 8 - 1 != values) {
		rp_diag_set(r->diag, "record seq %llu %s: %u values per query, and the queries of "
		            "VkQueryPool 0x%llx hold %u", (unsigned long long)r->seq,
		            SBT_VK_TS_QUERY_RESULTS_NAME, rec.stride / 8 - 1,
		            (unsigned long long)rec.pool, values);
		return RP_ERR_TRACE;
	}
	if (!r->query && !(r->query = calloc(1, sizeof(*r->query))))
		return rpvk_nomem(r);
	q = r->query;
	nv = rec.stride / 8 - 1;
	end = rec.first + rec.count;
	p = rpvk_query_pool(q, s->val);
	if (!p) {
		if (q->npools == q->cappools) {
			size_t cap = q->cappools ? 2 * q->cappools : 8;
			rpvk_qpool *n = realloc(q->pools, cap * sizeof(*n));
			if (!n)
				return rpvk_nomem(r);
			q->pools = n;
			q->cappools = cap;
		}
		p = &q->pools[q->npools++];
		memset(p, 0, sizeof(*p));
		p->pool = s->val;
		p->nvalues = nv;
	}
	if (p->nvalues != nv) {
		rp_diag_set(r->diag, "record seq %llu %s: VkQueryPool 0x%llx: %u values per query, "
		            "an earlier record had %u", (unsigned long long)r->seq,
		            SBT_VK_TS_QUERY_RESULTS_NAME, (unsigned long long)rec.pool, nv, p->nvalues);
		return RP_ERR_DECODE;
	}
	if (end > p->count) {
		uint8_t *sub = realloc(p->subst, end);
		uint64_t *vals;
		if (!sub)
			return rpvk_nomem(r);
		p->subst = sub;
		vals = realloc(p->vals, (size_t)end * (nv ? nv : 1) * 8);
		if (!vals)
			return rpvk_nomem(r);
		p->vals = vals;
		memset(p->subst + p->count, 0, end - p->count);
		p->count = end;
	}
	for (i = 0; i < rec.count; i++) {
		memcpy(&p->vals[(size_t)(rec.first + i) * nv], rec.bytes + (size_t)i * rec.stride,
		       (size_t)nv * 8);
		p->subst[rec.first + i] = 1;
	}
	return RP_OK;
}

/* vkGetQueryPoolResults with substituted queries: theirs from the record
 * (compared with what the capture read), runs of the others from the
 * driver. */
static rp_status rpvk_query_get(rpvk *r, rpvk_qpool *p, sbt_vk_args_vkGetQueryPoolResults *a)
{
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkResult cap_ret = a->ret, ret = VK_SUCCESS;
	uint8_t *out, one[8 * (RPVK_QUERY_MAX_VALUES + 1)];
	uint32_t k = 0;
	int differs = 0;
	if (!t)
		return RP_ERR_BACKEND;
	if (!t->GetQueryPoolResults)
		return rpvk_missing(r, "vkGetQueryPoolResults");
	out = rpvk_scratch(r, a->dataSize ? a->dataSize : 1);
	if (!out)
		return rpvk_nomem(r);
	while (k < a->queryCount) {
		uint32_t at = a->firstQuery + k, n = 0;
		size_t off = (size_t)k * a->stride;
		if (at < p->count && p->subst[at]) {
			size_t len = rpvk_query_bytes(p, at, a->flags, one);
			if (off + len > a->dataSize)
				return rpvk_fail(r, RP_ERR_TRACE, "query %u's results end past dataSize %zu",
				                 at, a->dataSize);
			memcpy(out + off, one, len);
			if (a->pData && memcmp((const uint8_t *)a->pData + off, one, len) != 0)
				differs = 1;
			k++;
			continue;
		}
		while (k + n < a->queryCount &&
		       !(a->firstQuery + k + n < p->count && p->subst[a->firstQuery + k + n]))
			n++;
		{
			VkResult res = t->GetQueryPoolResults(a->device, a->queryPool, at, n,
			                                      a->dataSize - off, out + off, a->stride,
			                                      a->flags);
			if (res != VK_SUCCESS && ret == VK_SUCCESS)
				ret = res;
		}
		k += n;
	}
	if (differs)
		rpvk_warn(r, "seq %llu vkGetQueryPoolResults: the results recorded in %s differ from "
		          "what the capture read", (unsigned long long)r->seq,
		          SBT_VK_TS_QUERY_RESULTS_NAME);
	a->pData = out;
	a->ret = ret;
	rpvk_result(r, cap_ret, ret);
	return RP_OK;
}

/* vkCmdCopyQueryPoolResults with substituted queries: theirs written by
 * vkCmdUpdateBuffer, runs of the others copied by the driver.  A query the
 * same command buffer reset or began before is not substituted here. */
static rp_status rpvk_query_copy(rpvk *r, rpvk_qpool *p,
                                 const sbt_vk_args_vkCmdCopyQueryPoolResults *a)
{
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->commandBuffer);
	const uint64_t cb = (uint64_t)(uintptr_t)a->commandBuffer;
	uint8_t one[8 * (RPVK_QUERY_MAX_VALUES + 1)];
	uint32_t k = 0;
	if (!t)
		return RP_ERR_BACKEND;
	if (!t->CmdCopyQueryPoolResults || !t->CmdUpdateBuffer)
		return rpvk_missing(r, t->CmdUpdateBuffer ? "vkCmdCopyQueryPoolResults"
		                                          : "vkCmdUpdateBuffer");
	while (k < a->queryCount) {
		uint32_t at = a->firstQuery + k, n = 0;
		VkDeviceSize off = a->dstOffset + (VkDeviceSize)k * a->stride;
		if (at < p->count && p->subst[at] && !rpvk_query_redone(r->query, cb, p->pool, at)) {
			size_t len = rpvk_query_bytes(p, at, a->flags, one);
			t->CmdUpdateBuffer(a->commandBuffer, a->dstBuffer, off, len, one);
			k++;
			continue;
		}
		do
			n++;
		while (k + n < a->queryCount &&
		       !(a->firstQuery + k + n < p->count && p->subst[a->firstQuery + k + n] &&
		         !rpvk_query_redone(r->query, cb, p->pool, a->firstQuery + k + n)));
		t->CmdCopyQueryPoolResults(a->commandBuffer, a->queryPool, at, n, a->dstBuffer, off,
		                           a->stride, a->flags);
		k += n;
	}
	return RP_OK;
}

rp_status rpvk_query_before(rpvk *r, enum sbt_vk_cmd cmd, void *args, int *done_out)
{
	struct rpvk_query *q = r->query;
	rpvk_qpool *p;
	uint32_t i, j;
	*done_out = 0;
	if (!q || !q->npools)
		return RP_OK;
	switch (cmd) {
	case SBT_VK_CMD_vkGetQueryPoolResults: {
		sbt_vk_args_vkGetQueryPoolResults *a = args;
		p = rpvk_query_pool(q, (uint64_t)(uintptr_t)a->queryPool);
		if (!rpvk_query_any(p, a->firstQuery, a->queryCount))
			return RP_OK;
		*done_out = 1;
		return rpvk_query_get(r, p, a);
	}
	case SBT_VK_CMD_vkCmdCopyQueryPoolResults: {
		const sbt_vk_args_vkCmdCopyQueryPoolResults *a = args;
		p = rpvk_query_pool(q, (uint64_t)(uintptr_t)a->queryPool);
		if (!rpvk_query_any(p, a->firstQuery, a->queryCount))
			return RP_OK;
		*done_out = 1;
		return rpvk_query_copy(r, p, a);
	}
	case SBT_VK_CMD_vkCmdResetQueryPool: {
		const sbt_vk_args_vkCmdResetQueryPool *a = args;
		p = rpvk_query_pool(q, (uint64_t)(uintptr_t)a->queryPool);
		if (!rpvk_query_any(p, a->firstQuery, a->queryCount))
			return RP_OK;
		return rpvk_query_add_op(r, (uint64_t)(uintptr_t)a->commandBuffer, p->pool,
		                         a->firstQuery, a->queryCount);
	}
	case SBT_VK_CMD_vkCmdBeginQuery:
	case SBT_VK_CMD_vkCmdBeginQueryIndexedEXT: {
		/* the same leading members: commandBuffer, queryPool, query */
		const sbt_vk_args_vkCmdBeginQuery *a = args;
		p = rpvk_query_pool(q, (uint64_t)(uintptr_t)a->queryPool);
		if (!rpvk_query_any(p, a->query, 1))
			return RP_OK;
		return rpvk_query_add_op(r, (uint64_t)(uintptr_t)a->commandBuffer, p->pool, a->query,
		                         1);
	}
	case SBT_VK_CMD_vkResetQueryPool:
	case SBT_VK_CMD_vkResetQueryPoolEXT: {
		const sbt_vk_args_vkResetQueryPool *a = args;
		rpvk_query_end(rpvk_query_pool(q, (uint64_t)(uintptr_t)a->queryPool), a->firstQuery,
		               a->queryCount);
		return RP_OK;
	}
	case SBT_VK_CMD_vkDestroyQueryPool: {
		const sbt_vk_args_vkDestroyQueryPool *a = args;
		p = rpvk_query_pool(q, (uint64_t)(uintptr_t)a->queryPool);
		if (p) {
			free(p->subst);
			free(p->vals);
			*p = q->pools[--q->npools];
		}
		return RP_OK;
	}
	case SBT_VK_CMD_vkBeginCommandBuffer: {
		const sbt_vk_args_vkBeginCommandBuffer *a = args;
		rpvk_query_drop_ops(q, (uint64_t)(uintptr_t)a->commandBuffer);
		return RP_OK;
	}
	case SBT_VK_CMD_vkCmdExecuteCommands: {
		const sbt_vk_args_vkCmdExecuteCommands *a = args;
		size_t n = q->nops, k;
		for (i = 0; i < a->commandBufferCount; i++)
			for (k = 0; k < n; k++)
				if (q->ops[k].cb == (uint64_t)(uintptr_t)a->pCommandBuffers[i]) {
					rpvk_qop op = q->ops[k];
					rp_status st = rpvk_query_add_op(r, (uint64_t)(uintptr_t)a->commandBuffer,
					                                 op.pool, op.first, op.count);
					if (st != RP_OK)
						return st;
				}
		return RP_OK;
	}
	case SBT_VK_CMD_vkQueueSubmit: {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (i = 0; i < a->submitCount; i++)
			for (j = 0; j < a->pSubmits[i].commandBufferCount; j++)
				rpvk_query_submit_cb(q, (uint64_t)(uintptr_t)a->pSubmits[i].pCommandBuffers[j]);
		return RP_OK;
	}
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR: {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (i = 0; i < a->submitCount; i++)
			for (j = 0; j < a->pSubmits[i].commandBufferInfoCount; j++)
				rpvk_query_submit_cb(
				    q, (uint64_t)(uintptr_t)a->pSubmits[i].pCommandBufferInfos[j].commandBuffer);
		return RP_OK;
	}
	default:
		return RP_OK;
	}
}

void rpvk_query_clear(rpvk *r)
{
	size_t i;
	if (!r->query)
		return;
	for (i = 0; i < r->query->npools; i++) {
		free(r->query->pools[i].subst);
		free(r->query->pools[i].vals);
	}
	free(r->query->pools);
	free(r->query->ops);
	free(r->query);
	r->query = NULL;
}
