/*
 * vk_requeue - rewrites a one-queue Vulkan trace into a two-queue one, for
 * the sampled orders across queues (tests/shell/test_vk_sched.sh):
 * lavapipe has one queue, so no program captured here makes submits on
 * two.  The trace must come from a program that got its queue twice
 * (vk_race --second-queue: two vkGetDeviceQueue records of queue 0 of one
 * family).  The copy keeps every record, with its seq, time, thread and
 * stack, and the type names, strings, stacks, metadata and blobs, and
 * changes three kinds of record:
 *
 *   - vkCreateDevice: the family's VkDeviceQueueCreateInfo asks for two
 *     queues (its priority given twice);
 *   - the second vkGetDeviceQueue: queue index 1, and a handle of its own
 *     (the captured one with bit 62 flipped);
 *   - the vkQueueSubmit records numbered N,... (counting from 1 in record
 *     order): made on that handle.
 *
 * usage: vk_requeue IN OUT N[,N...]
 * Prints "vk_requeue: seq S[,seq S...] on queue 0x... (family F, index 1)".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_vk.h"
#include "tracesmith/sbt.h"

#define VRQ_MAX_SUBMITS 64

typedef struct vrq {
	sbt_reader *r;
	sbt_writer *w;
	sbt_vk_arena *arena;
	sbt_vk_enc enc;
	void *args;
	uint32_t moved[VRQ_MAX_SUBMITS]; /* submit ordinals to move */
	size_t nmoved;
	uint32_t submits, getqueues, printed;
	uint32_t family;
	uint64_t queue;                  /* the new queue's handle; 0: not yet */
} vrq;

static int vrq_fail(const char *what, const char *why)
{
	fprintf(stderr, "vk_requeue: %s: %s\n", what, why);
	return 1;
}

/* Type names, strings and stacks (ids kept), and metadata. */
static int vrq_tables(vrq *q, const sbt_trace_info *in)
{
	const char *name, *key, *value;
	const sbt_frame *frames;
	uint32_t type, nframes, id, got;
	size_t i;

	for (i = 0; sbt_reader_type_at(q->r, i, &type, &name) == SBT_OK; i++)
		if (sbt_writer_define_type(q->w, type, name) != SBT_OK)
			return vrq_fail("define_type", name);
	for (id = 1; id <= in->string_count; id++) {
		const char *s = sbt_reader_string(q->r, id);
		if (!s || sbt_writer_intern(q->w, s, &got) != SBT_OK || got != id)
			return vrq_fail("strings", "a string cannot keep its id");
	}
	for (id = 1; id <= in->stack_count; id++)
		if (sbt_reader_stack(q->r, id, &frames, &nframes) != SBT_OK ||
		    sbt_writer_put_stack(q->w, id, frames, nframes, &got) != SBT_OK || got != id)
			return vrq_fail("stacks", "a stack cannot keep its id");
	for (i = 0; sbt_reader_meta_at(q->r, i, &key, &value) == SBT_OK; i++)
		if (sbt_writer_set_meta(q->w, key, value) != SBT_OK)
			return vrq_fail("set_meta", key);
	return 0;
}

/* Blobs have no list: ids are probed from 1 until every one is found. */
static int vrq_blobs(vrq *q, const sbt_trace_info *in)
{
	uint64_t id, found = 0, limit = 4 * in->blob_count + 4096;

	for (id = 1; found < in->blob_count && id <= limit; id++) {
		void *data = NULL;
		size_t len = 0;
		uint64_t got;
		sbt_status st = sbt_reader_blob_get(q->r, id, &data, &len);

		if (st == SBT_ERR_NOT_FOUND)
			continue;
		if (st != SBT_OK)
			return vrq_fail("blob", sbt_strerror(st));
		st = sbt_writer_put_blob(q->w, id, data, len, &got);
		free(data);
		if (st != SBT_OK)
			return vrq_fail("put_blob", sbt_strerror(st));
		found++;
	}
	return found < in->blob_count ? vrq_fail("blobs", "not all found") : 0;
}

static int vrq_moves(const vrq *q, uint32_t ordinal)
{
	for (size_t i = 0; i < q->nmoved; i++)
		if (q->moved[i] == ordinal)
			return 1;
	return 0;
}

/* vkCreateDevice asking two queues of q->family; the others as captured. */
static void vrq_create_device(vrq *q, sbt_vk_args_vkCreateDevice *a)
{
	VkDeviceCreateInfo *ci = (VkDeviceCreateInfo *)a->pCreateInfo;
	VkDeviceQueueCreateInfo *qci;
	float *prio;

	if (!ci || !ci->queueCreateInfoCount)
		return;
	qci = sbt_vk_arena_alloc(q->arena, ci->queueCreateInfoCount * sizeof(*qci));
	prio = sbt_vk_arena_alloc(q->arena, 2 * sizeof(float));
	if (!qci || !prio)
		return;
	memcpy(qci, ci->pQueueCreateInfos, ci->queueCreateInfoCount * sizeof(*qci));
	for (uint32_t i = 0; i < ci->queueCreateInfoCount; i++)
		if (qci[i].queueFamilyIndex == q->family && qci[i].queueCount < 2) {
			prio[0] = prio[1] = qci[i].pQueuePriorities ? qci[i].pQueuePriorities[0] : 1.0f;
			qci[i].queueCount = 2;
			qci[i].pQueuePriorities = prio;
		}
	ci->pQueueCreateInfos = qci;
}

/* Decode, change, encode one record; *changed 0 when it stays as it is. */
static int vrq_rewrite(vrq *q, const sbt_record *rec, enum sbt_vk_cmd cmd, int *changed)
{
	*changed = 0;
	if (cmd != SBT_VK_CMD_vkCreateDevice && cmd != SBT_VK_CMD_vkGetDeviceQueue &&
	    cmd != SBT_VK_CMD_vkQueueSubmit)
		return 0;
	sbt_vk_arena_reset(q->arena);
	memset(q->args, 0, sbt_vk_args_size(cmd));
	if (sbt_vk_decode(cmd, rec->payload, rec->payload_len, q->arena, q->args, NULL) != SBT_VK_OK)
		return vrq_fail(sbt_vk_cmd_name(cmd), sbt_vk_arena_message(q->arena));
	if (cmd == SBT_VK_CMD_vkCreateDevice) {
		vrq_create_device(q, q->args);
		*changed = 1;
	} else if (cmd == SBT_VK_CMD_vkGetDeviceQueue && ++q->getqueues == 2) {
		sbt_vk_args_vkGetDeviceQueue *a = q->args;
		if (a->queueFamilyIndex != q->family || a->queueIndex != 0 || !a->pQueue)
			return vrq_fail("vkGetDeviceQueue", "the second is not queue 0 of the first's family");
		a->queueIndex = 1;
		q->queue = (uint64_t)(uintptr_t)*a->pQueue ^ (1ull << 62);
		*a->pQueue = (VkQueue)(uintptr_t)q->queue;
		*changed = 1;
	} else if (cmd == SBT_VK_CMD_vkQueueSubmit && vrq_moves(q, ++q->submits)) {
		sbt_vk_args_vkQueueSubmit *a = q->args;
		if (!q->queue)
			return vrq_fail("vkQueueSubmit", "a submit to move comes before the second vkGetDeviceQueue");
		a->queue = (VkQueue)(uintptr_t)q->queue;
		printf("%sseq %llu", q->printed++ ? "," : "", (unsigned long long)rec->seq);
		*changed = 1;
	}
	if (!*changed)
		return 0;
	q->enc.len = 0;
	if (sbt_vk_encode(&q->enc, cmd, q->args) != SBT_VK_OK)
		return vrq_fail(sbt_vk_cmd_name(cmd), "cannot encode it again");
	return 0;
}

/* The family of the first vkGetDeviceQueue (the program's queue). */
static int vrq_find_family(vrq *q, const char *path)
{
	sbt_record rec;
	enum sbt_vk_cmd cmd;
	sbt_status st;

	while ((st = sbt_reader_next(q->r, &rec)) == SBT_OK) {
		const char *name = sbt_reader_type_name(q->r, rec.type);
		if (name && sbt_vk_cmd_by_name(name, &cmd) == 0 && cmd == SBT_VK_CMD_vkGetDeviceQueue) {
			sbt_vk_args_vkGetDeviceQueue *a = q->args;
			sbt_vk_arena_reset(q->arena);
			if (sbt_vk_decode(cmd, rec.payload, rec.payload_len, q->arena, a, NULL) != SBT_VK_OK)
				return vrq_fail(path, "cannot decode its vkGetDeviceQueue");
			q->family = a->queueFamilyIndex;
			return 0;
		}
	}
	return vrq_fail(path, "no vkGetDeviceQueue record");
}

int main(int argc, char **argv)
{
	vrq q;
	sbt_trace_info in;
	sbt_record rec;
	sbt_status st;
	char *list, *tok, *end;
	int rc = 1;

	memset(&q, 0, sizeof(q));
	if (argc != 4) {
		fprintf(stderr, "usage: vk_requeue IN OUT N[,N...]\n");
		return 2;
	}
	list = argv[3];
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		unsigned long n = strtoul(tok, &end, 10);
		if (*end || !n || n > UINT32_MAX || q.nmoved == VRQ_MAX_SUBMITS) {
			fprintf(stderr, "vk_requeue: bad submit number '%s'\n", tok);
			return 2;
		}
		q.moved[q.nmoved++] = (uint32_t)n;
	}
	sbt_vk_enc_init(&q.enc);
	q.args = calloc(1, 4096);
	if (!q.args || sbt_vk_arena_create(1u << 24, &q.arena) != SBT_VK_OK) {
		vrq_fail("setup", "out of memory");
		goto out;
	}
	if ((st = sbt_reader_open(argv[1], NULL, &q.r)) != SBT_OK) {
		vrq_fail(argv[1], sbt_strerror(st));
		goto out;
	}
	sbt_reader_get_info(q.r, &in);
	if (vrq_find_family(&q, argv[1]) != 0)
		goto out;
	if ((st = sbt_reader_seek_seq(q.r, in.first_seq)) != SBT_OK) {
		vrq_fail(argv[1], sbt_strerror(st));
		goto out;
	}
	if ((st = sbt_writer_open(argv[2], NULL, &q.w)) != SBT_OK) {
		vrq_fail(argv[2], sbt_strerror(st));
		goto out;
	}
	if (vrq_tables(&q, &in) != 0 || vrq_blobs(&q, &in) != 0)
		goto out;
	printf("vk_requeue: ");
	while ((st = sbt_reader_next(q.r, &rec)) == SBT_OK) {
		const char *name = sbt_reader_type_name(q.r, rec.type);
		enum sbt_vk_cmd cmd;
		int changed = 0;

		if (name && sbt_vk_cmd_by_name(name, &cmd) == 0 && sbt_vk_args_size(cmd) <= 4096 &&
		    vrq_rewrite(&q, &rec, cmd, &changed) != 0)
			goto out;
		if (changed) {
			rec.payload = q.enc.data;
			rec.payload_len = q.enc.len;
		}
		if ((st = sbt_writer_append(q.w, &rec)) != SBT_OK) {
			vrq_fail("append", sbt_strerror(st));
			goto out;
		}
	}
	if (st != SBT_END) {
		vrq_fail(argv[1], sbt_strerror(st));
		goto out;
	}
	if (!q.queue || q.submits < q.moved[q.nmoved - 1]) {
		vrq_fail(argv[1], "no second vkGetDeviceQueue, or fewer submits than named");
		goto out;
	}
	st = sbt_writer_close(q.w);
	q.w = NULL;
	if (st != SBT_OK) {
		vrq_fail("close", sbt_strerror(st));
		goto out;
	}
	printf(" on queue 0x%llx (family %u, index 1)\n", (unsigned long long)q.queue, q.family);
	rc = 0;
out:
	sbt_writer_close(q.w);
	sbt_reader_close(q.r);
	sbt_vk_arena_free(q.arena);
	sbt_vk_enc_free(&q.enc);
	free(q.args);
	return rc;
}
