/*
 * tsreplay - replay an SBT trace on a live device and compare its
 * checkpoints (see docs/replay.md).  The backends this build has are listed
 * here; the CUDA one only where the toolkit headers were found (it dlopens
 * the driver at run time, see docs/cuda-replay.md).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu.h"

#include "replayer/rp.h"
#include "replayer/vulkan/rpvk_backend.h"
#ifdef TS_HAVE_CUDA
#include "replayer/cuda/rpcu_backend.h"
#endif
#ifdef TS_HAVE_HIP
#include "replayer/hip/rphip_backend.h"
#endif

/* rp_race_lookup_fn on the emulator: the races with a side touching
 * [lo, hi) (emu_races_touching: on Vulkan also through the copies that
 * filled it). */
typedef struct tsreplay_races {
	uint64_t lo, hi;
	rp_race_pair *pairs;
	size_t max, n;
} tsreplay_races;

static void tsreplay_race_side(const emu_race_side *e, rp_race_side *out)
{
	out->seq = e->seq;
	snprintf(out->kind, sizeof(out->kind), "%s", e->kind);
	snprintf(out->name, sizeof(out->name), "%s", e->name);
	snprintf(out->access, sizeof(out->access), "%s", e->access);
	out->lo = e->lo;
	out->hi = e->hi;
}

static int tsreplay_race_one(void *ctx, const emu_race_desc *r)
{
	tsreplay_races *c = ctx;
	if (c->n < c->max) {
		c->pairs[c->n].confirmed = r->confirmed;
		tsreplay_race_side(&r->first, &c->pairs[c->n].first);
		tsreplay_race_side(&r->second, &c->pairs[c->n].second);
	}
	c->n++;
	return 0;
}

static rp_status tsreplay_races_touching(const char *path, uint64_t lo, uint64_t hi,
                                         rp_race_pair *pairs, size_t max, size_t *n_out,
                                         rp_diag *diag)
{
	tsreplay_races c = {lo, hi, pairs, max, 0};
	emu_graph *g = NULL;
	char err[256] = "";
	emu_status est;

	*n_out = 0;
	est = emu_graph_build(path, &g, err, sizeof(err));
	if (est == EMU_OK)
		est = emu_races_touching(g, lo, hi, tsreplay_race_one, &c);
	emu_graph_free(g);
	if (est != EMU_OK) {
		rp_diag_set(diag, "%s", err[0] ? err : emu_strerror(est));
		return RP_ERR_BACKEND;
	}
	*n_out = c.n;
	return RP_OK;
}

/* rp_order_source on the emulator's sampled orders (emu_order_*). */
typedef struct tsreplay_orders {
	emu_order_plan *plan;
	rp_order_item *items; /* the last sample's, in the replayer's terms */
} tsreplay_orders;

static void tsreplay_order_close(void *ctx)
{
	tsreplay_orders *o = ctx;

	if (!o)
		return;
	emu_order_close(o->plan);
	free(o->items);
	free(o);
}

static rp_status tsreplay_order_open(const char *path, void **ctx_out, rp_diag *diag)
{
	tsreplay_orders *o = calloc(1, sizeof(*o));
	char err[512] = "";
	emu_status est;

	if (!o) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	est = emu_order_open(path, &o->plan, err, sizeof(err));
	if (est != EMU_OK) {
		tsreplay_order_close(o);
		rp_diag_set(diag, "%s", err[0] ? err : emu_strerror(est));
		/* a trace no order is made for is refused like a bad value */
		return est == EMU_ERR_NOT_CUDA || est == EMU_ERR_STATE ? RP_ERR_USAGE
		       : est == EMU_ERR_NOMEM                          ? RP_ERR_NOMEM
		                                                       : RP_ERR_TRACE;
	}
	if (err[0]) /* a note (a Vulkan trace on one queue) */
		rp_diag_set(diag, "%s", err);
	*ctx_out = o;
	return RP_OK;
}

static rp_status tsreplay_order_sample(void *ctx, uint64_t seed, rp_order *out, rp_diag *diag)
{
	tsreplay_orders *o = ctx;
	const emu_order_item *items = NULL;
	rp_order_item *copy;
	size_t n = 0;
	emu_status est;

	est = emu_order_sample(o->plan, seed, &items, &n, &out->hash, &out->moved);
	if (est != EMU_OK) {
		rp_diag_set(diag, "%s", emu_strerror(est));
		return RP_ERR_BACKEND;
	}
	copy = realloc(o->items, (n ? n : 1) * sizeof(*copy));
	if (!copy) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	o->items = copy;
	for (size_t i = 0; i < n; i++) {
		copy[i].seq = items[i].seq;
		copy[i].release_before = items[i].release_before;
	}
	out->items = copy;
	out->n = n;
	return RP_OK;
}

static void tsreplay_order_describe(void *ctx, uint64_t seq, char *buf, size_t len)
{
	tsreplay_orders *o = ctx;
	const char *kind = NULL;
	const char *name = emu_order_describe(o->plan, seq, &kind);

	if (len)
		buf[0] = '\0';
	if (name && kind && strcmp(kind, "kernel") == 0)
		snprintf(buf, len, "kernel %s", name);
}

int main(int argc, char **argv)
{
	static const rp_backend_ops *const tsreplay_backends[] = {
		&rpvk_backend_ops,
#ifdef TS_HAVE_CUDA
		&rpcu_backend_ops,
#endif
#ifdef TS_HAVE_HIP
		&rphip_backend_ops,
#endif
	};
	/* --emulate: the emulator, no device (emulator/emu_cli.c) */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--emulate") == 0)
			return emu_cli_emulate(argc, argv);
	static const rp_order_source tsreplay_order_source = {
		tsreplay_order_open, tsreplay_order_sample, tsreplay_order_describe, tsreplay_order_close,
	};
	static const rp_main_extras tsreplay_extras = {tsreplay_races_touching, &tsreplay_order_source};
	return rp_main_ext(argc, argv, tsreplay_backends,
	                   sizeof(tsreplay_backends) / sizeof(tsreplay_backends[0]), &tsreplay_extras);
}
