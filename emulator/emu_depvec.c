/*
 * emu_depvec.c - dependency lists that hold each dependency once
 * (emu_internal.h: emu_depvec).
 *
 * A dependency repeats another when both name the same step and the same
 * node1 (0: the whole step); the kind plays no part, the first one's
 * stays.  Below EMU_DEPVEC_INDEX entries a repeat is found by reading the
 * list.  From there on an open-addressing table (linear probing, at most
 * half full) maps (step, node1) to the first entry with it.  Entries
 * appended without the check (EMU_PUSH) are taken in when the table is
 * next used, a repeat among them leaving the first in the table, so the
 * table answers exactly what reading the list would: whether some entry
 * has that step and node1.  The list keeps its order, so the steps'
 * dependencies (and every export of them) come out as they did when the
 * list was read.  Where the table cannot be allocated the list is read.
 */
#include <stdlib.h>

#include "emulator/emu_internal.h"

#define EMU_DEPVEC_MIN_BITS 7

static size_t emu_depvec_slot(const emu_depvec *dv, uint32_t step, uint32_t node1)
{
	uint64_t k = ((uint64_t)step << 24 | node1) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> (64 - dv->idx_bits));
}

/* The slot of the entry with (step, node1), or the free slot it would take. */
static size_t emu_depvec_probe(const emu_depvec *dv, uint32_t step, uint32_t node1)
{
	size_t mask = ((size_t)1 << dv->idx_bits) - 1;

	for (size_t i = emu_depvec_slot(dv, step, node1);; i = (i + 1) & mask) {
		uint32_t p = dv->idx[i];

		if (!p || (dv->v[p - 1].step == step && dv->v[p - 1].node1 == node1))
			return i;
	}
}

void emu_depvec_unindex(emu_depvec *dv)
{
	free(dv->idx);
	dv->idx = NULL;
	dv->idx_bits = 0;
	dv->idx_n = 0;
}

/* Brings the table up to v[0 .. n), with room for one more entry; remade
 * four times the list's length when it would be more than half full (so
 * it is remade once per doubling of the list).  0, or -1 when it cannot
 * be had (then there is none). */
static int emu_depvec_index(emu_depvec *dv)
{
	if (dv->idx_n > dv->n || dv->n >= UINT32_MAX)
		emu_depvec_unindex(dv); /* shrunk by hand, or past what a slot holds */
	if (dv->n >= UINT32_MAX)
		return -1;
	if (!dv->idx || 2 * (dv->n + 1) > (size_t)1 << dv->idx_bits) {
		unsigned bits = EMU_DEPVEC_MIN_BITS;
		uint32_t *t;

		while (((size_t)1 << bits) < 4 * (dv->n + 1))
			bits++;
		t = calloc((size_t)1 << bits, sizeof(*t));
		emu_depvec_unindex(dv);
		if (!t)
			return -1;
		dv->idx = t;
		dv->idx_bits = bits;
	}
	for (; dv->idx_n < dv->n; dv->idx_n++) {
		const emu_dep *d = &dv->v[dv->idx_n];
		size_t i = emu_depvec_probe(dv, d->step, d->node1);

		if (!dv->idx[i])
			dv->idx[i] = (uint32_t)dv->idx_n + 1;
	}
	return 0;
}

int emu_depvec_has_indexed(emu_depvec *dv, uint32_t step, uint32_t node1)
{
	if (emu_depvec_index(dv) == 0)
		return dv->idx[emu_depvec_probe(dv, step, node1)] != 0;
	for (size_t i = 0; i < dv->n; i++)
		if (dv->v[i].step == step && dv->v[i].node1 == node1)
			return 1;
	return 0;
}

void emu_depvec_free(emu_depvec *dv)
{
	free(dv->v);
	dv->v = NULL;
	dv->n = dv->cap = 0;
	emu_depvec_unindex(dv);
}
