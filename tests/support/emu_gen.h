/*
 * emu_gen.h - synthetic CUDA traces for the emulator's tests, written
 * straight through sbt_writer and the compute record codec (no capture, no
 * driver): each scenario has a known graph, schedule and race verdict,
 * which tests/unit/test_emu_*.c check exactly and tests/shell/test_emulator.sh
 * exports (through tests/programs/emu_gen_trace).
 *
 * Records are issued by thread 1 (unless a scenario says), 1000 ns after the
 * previous one, with
 * a one-frame stack named "emu_gen!seq<N>".
 */
#ifndef TRACESMITH_EMU_GEN_H
#define TRACESMITH_EMU_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "serializer/sbt_compute.h"

typedef struct emu_gen emu_gen;

emu_gen *emu_gen_open(const char *path);
/* One record of kind k with c's fields (result 0 unless set). */
void emu_gen_call(emu_gen *g, sbt_cm_kind k, const sbt_cm_call *c);
/* A keyframe marker (sub SBT_CM_KF_*, the launch ordinal, count snapshots). */
void emu_gen_keyframe(emu_gen *g, unsigned sub, uint64_t ordinal, uint64_t count);
/* A tsSnapshot of size bytes at dst holding data. */
void emu_gen_snapshot(emu_gen *g, uint64_t dst, const void *data, size_t size);
/* Closes the trace; exits the process with a message on any writer error. */
void emu_gen_close(emu_gen *g);

/* Shorthands. */
void emu_gen_stream(emu_gen *g, uint64_t handle, unsigned flags);
void emu_gen_alloc(emu_gen *g, uint64_t dst, uint64_t size);
/* A kernel whose parameters are the pointers ptrs[0..n); captured when
 * capturing is set (the launch became a graph node). */
void emu_gen_kernel(emu_gen *g, uint64_t stream, const char *name, const uint64_t *ptrs, size_t n,
                    int capturing);
/* A cuGraphAddKernelNode of node to graph after deps[0..ndeps), its
 * parameters the pointers ptrs[0..n) (at most 8 of each). */
void emu_gen_kernel_node(emu_gen *g, uint64_t graph, uint64_t node, const uint64_t *deps, size_t ndeps,
                         const char *name, const uint64_t *ptrs, size_t n);
void emu_gen_record(emu_gen *g, uint64_t event, uint64_t stream);
void emu_gen_wait(emu_gen *g, uint64_t stream, uint64_t event);

/* Writes the named scenario (emu_gen.c lists them) to path; -1 if the name
 * is unknown. */
int emu_gen_scenario(const char *name, const char *path);

#endif
