/*
 * emu_vk.h - what a Vulkan trace adds to the graph (emu_vk.c and
 * emu_vk_cmd.c build it, emu_race.c asks it for order).  Internal to the
 * emulator.
 *
 * The happens-before relation of Vulkan is not a chain per queue: two
 * commands submitted one after the other on one queue may overlap unless
 * a barrier, a semaphore or a host wait orders them.  It is kept in two
 * parts (docs/emulator.md "Vulkan"):
 *
 *   completion points  a queue's batches (VkSubmitInfo) are numbered from 1;
 *                      "batch k of queue Q is complete" covers every
 *                      command of batches 1..k of Q, so these points form a
 *                      chain per queue.  Each command carries a vector
 *                      clock vc[Q] = the last completion point of Q known
 *                      to precede it (through semaphores, fences and host
 *                      waits): a full execution and memory dependency.
 *   barriers           inside one queue, in submission order, by stage
 *                      class (transfer, compute, graphics): reach[c] =
 *                      the last position on the queue of a class-c command
 *                      this command is ordered after by barriers (chains
 *                      included); memory barriers are kept per queue to
 *                      check availability and visibility for writes.
 */
#ifndef TRACESMITH_EMU_VK_H
#define TRACESMITH_EMU_VK_H

#include "emulator/emu_internal.h"
#include "serializer/sbt_mem.h"

#define EMU_VK_QMAX 16       /* queues a trace may use */
#define EMU_VK_CLASSES 3

enum { EMU_VK_TRANSFER, EMU_VK_COMPUTE, EMU_VK_GRAPHICS };

/* Per node of a Vulkan graph (parallel to g->nodes). */
typedef struct emu_vk_node {
	uint64_t submit_seq;          /* the vkQueueSubmit* that ran it */
	uint32_t batch;               /* 1-based batch number on its queue */
	uint32_t pos;                 /* 1-based command position on its queue */
	uint32_t reach[EMU_VK_CLASSES];
	uint32_t floor;               /* every command of its queue up to this position
	                                 precedes it with its writes visible (a global
	                                 barrier from and to all classes, all writes) */
	uint32_t vc[EMU_VK_QMAX];     /* by stream index of the queue */
	uint8_t cls;
} emu_vk_node;

/* A barrier on a queue: after its first `after` commands.  One that
 * makes writes available and one that makes them visible may be two
 * barriers, the second's first scope chained to the first's second
 * directly or through barriers between (execution-only ones too, whose
 * srcw and dsta are 0). */
typedef struct emu_vk_mbar {
	uint32_t after;
	uint8_t src, dst;             /* its stage classes, first and second scope */
	uint8_t srcw;                 /* classes whose writes it makes available */
	uint8_t dsta;                 /* classes it makes available writes visible to */
	uint8_t global;               /* every resource, else alloc [lo, hi) */
	uint32_t alloc;
	uint64_t lo, hi;
} emu_vk_mbar;

typedef EMU_VEC(emu_vk_mbar) emu_vk_mbarvec;

/* Where a write access's write was made visible, as far as emu_vk_before
 * has looked along its queue's barriers: that depends on the access and
 * the barriers only, so each is looked at once per access. */
typedef struct emu_vk_vis {
	uint32_t next;                  /* 1 + the barrier to look at next; 0: not begun */
	uint32_t at[EMU_VK_CLASSES];    /* 1 + the barrier making it visible to each class; 0 */
	uint8_t avail;                  /* second scopes of barriers that made it available */
} emu_vk_vis;

/* What a present or sparse bind follows, or what follows one: a step, or
 * (step EMU_NONE) 1 + another of them (emu_vk_graph.sync). */
typedef struct emu_vk_link {
	uint32_t step;
	uint32_t sync;
} emu_vk_link;

/* A vkQueuePresentKHR or vkQueueBindSparse: it runs no command, so it is
 * no step, but a sampled order moves it like a submit (emu_order.c).  It
 * follows its queue's last step and last such record, and the steps (or
 * such records) that signaled what it waits for. */
typedef struct emu_vk_sync {
	uint64_t seq;
	uint32_t stream;              /* its queue */
	uint8_t present;              /* 1 vkQueuePresentKHR, 0 vkQueueBindSparse */
	uint32_t link_first, link_count; /* into emu_vk_graph.sync_link */
} emu_vk_sync;

/* Per access of a Vulkan graph (parallel to g->acc): the writes of
 * class-c commands of its queue up to position vis[c] are visible to its
 * command, as emu_vk_before would find for each: by global memory
 * barriers (chains included), or by one barrier on the whole resource
 * that makes them available and visible at once. */
typedef struct emu_vk_accvis {
	uint32_t vis[EMU_VK_CLASSES];
} emu_vk_accvis;

struct emu_vk_graph {
	EMU_VEC(emu_vk_node) node;
	EMU_VEC(emu_vk_accvis) accvis;
	emu_vk_mbarvec *mbar;         /* per stream, in order of `after` */
	size_t nmbar;
	emu_vk_vis *vis;              /* by access index, made when first needed (emu_vk_before) */
	size_t nvis;
	/* the submits (vkQueueSubmit*) each of whose batches is a step, by
	 * seq: those a sampled order may move (emu_order.c) */
	EMU_VEC(uint64_t) whole;
	/* presents and sparse binds, by seq; what each follows */
	EMU_VEC(emu_vk_sync) sync;
	EMU_VEC(emu_vk_link) sync_link;
	/* steps that follow one of them (the next step of its queue, a batch
	 * that waits for what a sparse bind signals), in step order: (step,
	 * 1 + sync) */
	EMU_VEC(emu_vk_link) after_sync;
};

/* Build g from a Vulkan trace (records named "vulkan.*"), reading from
 * the open reader g->r; every record also goes to mem (borrowed, made by
 * sbt_mem_init), memory in use.  EMU_ERR_NOT_CUDA when it has none. */
emu_status emu_vk_build(emu_graph *g, sbt_mem *mem, char *err, size_t errlen);
void emu_vk_free(struct emu_vk_graph *vk);

/*
 * Whether access a's command happens before access b's (a's node earlier
 * in index order), for a race between them: *full is set when the order
 * covers every earlier command of a's queue as well (a completion point,
 * or b's floor), so that the race scan can stop looking at that queue.
 */
int emu_vk_before(const emu_graph *g, const emu_access *a, const emu_access *b, int *full);
/* The *full part of emu_vk_before alone, for accesses that cannot race
 * (no barrier is looked at). */
int emu_vk_before_full(const emu_graph *g, const emu_access *a, const emu_access *b);

/* What the accesses of one allocation on one queue up to a command did,
 * for emu_vk_covers: the classes of the commands (bit c: class c), and
 * per class the last position of a command that wrote or may have
 * written it (0: none). */
typedef struct emu_vk_sofar {
	uint32_t wrote[EMU_VK_CLASSES];
	uint8_t any;
} emu_vk_sofar;
/* s with access a added (a's command is its queue's latest so far). */
void emu_vk_sofar_add(const emu_graph *g, emu_vk_sofar *s, const emu_access *a);
/*
 * Whether every access s summarises (those of a's allocation on a's queue
 * up to a's command) is ordered before b wherever the two may conflict,
 * as emu_vk_before would say pair by pair: through the queue's barriers
 * alone, b after each class's writes with them visible to it, and, if b
 * writes, after every command up to a.  Lets the race scan stop looking
 * at a queue (0: look on).
 */
int emu_vk_covers(const emu_graph *g, const emu_access *a, const emu_vk_sofar *s, const emu_access *b);

#endif /* TRACESMITH_EMU_VK_H */
