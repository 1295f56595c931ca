/*
 * emu_spirv.c - the descriptor bindings a SPIR-V module declares, and which
 * of them its shaders may write through (docs/emulator.md "Footprints").
 *
 * One pass over the module collects, per id, the decorations that matter
 * (DescriptorSet, Binding, NonWritable on a variable, NonWritable on the
 * members of a block, BufferBlock) and the types variables point to; the
 * variables with a set and a binding are then judged.  A binding may be
 * written when its variable is a storage buffer (StorageBuffer, or Uniform
 * with BufferBlock) some member of which is not NonWritable, or a storage
 * image or storage texel buffer (OpTypeImage with Sampled 2), unless the
 * variable itself is NonWritable.  Everything else (uniform buffers,
 * sampled images, samplers, acceleration structures) is read.  The whole
 * module counts, whichever entry point a pipeline takes: more bindings,
 * never fewer.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_spirv.h"

enum {
	SPV_MAGIC = 0x07230203,
	SPV_OP_TYPE_IMAGE = 25,
	SPV_OP_TYPE_ARRAY = 28,
	SPV_OP_TYPE_RUNTIME_ARRAY = 29,
	SPV_OP_TYPE_STRUCT = 30,
	SPV_OP_TYPE_POINTER = 32,
	SPV_OP_VARIABLE = 59,
	SPV_OP_DECORATE = 71,
	SPV_OP_MEMBER_DECORATE = 72,
	SPV_DEC_BUFFER_BLOCK = 3,
	SPV_DEC_NON_WRITABLE = 24,
	SPV_DEC_BINDING = 33,
	SPV_DEC_DESCRIPTOR_SET = 34,
	SPV_SC_UNIFORM = 2,
	SPV_SC_STORAGE_BUFFER = 12,
	SPV_ID_MAX = 1u << 22, /* ids a module may have here (Mesa's largest: far fewer) */
};


enum { ID_SET = 1, ID_BINDING = 2, ID_NONWRITABLE = 4, ID_BUFFER_BLOCK = 8, ID_VARIABLE = 16 };

typedef struct spv_id {
	uint32_t set, binding;
	uint32_t type;      /* pointer: pointee; array: element; variable: its pointer type */
	uint32_t members;   /* struct: member count; image: Sampled; pointer, variable: storage class */
	uint64_t nw;        /* struct: members 0..63 decorated NonWritable */
	uint16_t op;        /* the type's opcode, or SPV_OP_VARIABLE */
	uint8_t flags;
} spv_id;

/* 1 when a variable of pointer type ptr (storage class sc) may be written
 * through. */
static int spv_writable(const spv_id *id, uint32_t bound, uint32_t ptr)
{
	uint32_t t, sc;

	if (ptr >= bound || id[ptr].op != SPV_OP_TYPE_POINTER)
		return 1; /* not understood: may write */
	sc = id[ptr].members;
	t = id[ptr].type;
	for (int depth = 0; depth < 8 && t < bound &&
	                    (id[t].op == SPV_OP_TYPE_ARRAY || id[t].op == SPV_OP_TYPE_RUNTIME_ARRAY); depth++)
		t = id[t].type;
	if (t >= bound)
		return 1;
	if (id[t].op == SPV_OP_TYPE_IMAGE)
		return id[t].members == 2;
	if (id[t].op == SPV_OP_TYPE_STRUCT) {
		uint32_t n = id[t].members;
		uint64_t all = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);

		if (sc != SPV_SC_STORAGE_BUFFER && !(sc == SPV_SC_UNIFORM && (id[t].flags & ID_BUFFER_BLOCK)))
			return 0; /* a uniform block */
		return n > 64 || n == 0 || (id[t].nw & all) != all;
	}
	return 0; /* samplers, sampled images, acceleration structures */
}

int emu_spv_bindings(const uint32_t *code, size_t words, emu_spv_binding **out, size_t *nout)
{
	emu_spv_binding *v = NULL;
	spv_id *id;
	uint32_t bound;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (!code || words < 5 || code[0] != SPV_MAGIC)
		return -1;
	bound = code[3];
	if (!bound || bound > SPV_ID_MAX || bound > words * 4 + 64)
		return -1;
	id = calloc(bound, sizeof(*id));
	if (!id)
		return -1;
	for (size_t at = 5; at < words;) {
		uint32_t wc = code[at] >> 16, op = code[at] & 0xffff;
		const uint32_t *a = code + at + 1; /* operands */

		if (!wc || wc > words - at) {
			free(id);
			return -1; /* malformed */
		}
		switch (op) {
		case SPV_OP_DECORATE:
			if (wc >= 3 && a[0] < bound) {
				spv_id *x = &id[a[0]];

				if (a[1] == SPV_DEC_NON_WRITABLE)
					x->flags |= ID_NONWRITABLE;
				else if (a[1] == SPV_DEC_BUFFER_BLOCK)
					x->flags |= ID_BUFFER_BLOCK;
				else if (a[1] == SPV_DEC_DESCRIPTOR_SET && wc >= 4)
					x->set = a[2], x->flags |= ID_SET;
				else if (a[1] == SPV_DEC_BINDING && wc >= 4)
					x->binding = a[2], x->flags |= ID_BINDING;
			}
			break;
		case SPV_OP_MEMBER_DECORATE:
			if (wc >= 4 && a[0] < bound && a[2] == SPV_DEC_NON_WRITABLE && a[1] < 64)
				id[a[0]].nw |= (uint64_t)1 << a[1];
			break;
		case SPV_OP_TYPE_IMAGE: /* result, sampled type, dim, depth, arrayed, ms, sampled, format */
			if (wc >= 9 && a[0] < bound) {
				id[a[0]].op = (uint16_t)op;
				id[a[0]].members = a[6];
			}
			break;
		case SPV_OP_TYPE_ARRAY:
		case SPV_OP_TYPE_RUNTIME_ARRAY:
			if (wc >= 3 && a[0] < bound) {
				id[a[0]].op = (uint16_t)op;
				id[a[0]].type = a[1];
			}
			break;
		case SPV_OP_TYPE_STRUCT:
			if (a[0] < bound) {
				id[a[0]].op = (uint16_t)op;
				id[a[0]].members = wc - 2;
			}
			break;
		case SPV_OP_TYPE_POINTER: /* result, storage class, type */
			if (wc >= 4 && a[0] < bound) {
				id[a[0]].op = (uint16_t)op;
				id[a[0]].members = a[1];
				id[a[0]].type = a[2];
			}
			break;
		case SPV_OP_VARIABLE: /* result type, result, storage class */
			if (wc >= 4 && a[1] < bound) {
				id[a[1]].op = (uint16_t)op;
				id[a[1]].type = a[0];
				id[a[1]].flags |= ID_VARIABLE;
			}
			break;
		default:
			break;
		}
		at += wc;
	}
	for (uint32_t i = 0; i < bound; i++) {
		const spv_id *x = &id[i];
		emu_spv_binding e;
		size_t k;

		if ((x->flags & (ID_VARIABLE | ID_SET | ID_BINDING)) != (ID_VARIABLE | ID_SET | ID_BINDING))
			continue;
		e.set = x->set;
		e.binding = x->binding;
		e.writes = !(x->flags & ID_NONWRITABLE) && spv_writable(id, bound, x->type);
		for (k = 0; k < n && (v[k].set != e.set || v[k].binding != e.binding); k++)
			;
		if (k < n) { /* two variables on one binding (aliases) */
			v[k].writes |= e.writes;
			continue;
		}
		if (n == EMU_SPV_BINDINGS_MAX) { /* a hostile count: not read */
			free(v);
			free(id);
			return -1;
		}
		if (n == cap) {
			emu_spv_binding *nv = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof(*v));

			if (!nv) {
				free(v);
				free(id);
				return -1;
			}
			v = nv;
		}
		v[n++] = e;
	}
	free(id);
	*out = v;
	*nout = n;
	return 0;
}
