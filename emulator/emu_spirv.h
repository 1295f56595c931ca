/*
 * emu_spirv.h - the descriptor bindings of a SPIR-V module, for the Vulkan
 * graph builder (emu_vk_cmd.c).  Internal to the emulator.
 */
#ifndef TRACESMITH_EMU_SPIRV_H
#define TRACESMITH_EMU_SPIRV_H

#include <stddef.h>
#include <stdint.h>

/* Bindings a module, or a pipeline's stages together, may declare here
 * (more: not read, every descriptor counts); real shaders have tens. */
#define EMU_SPV_BINDINGS_MAX 4096

typedef struct emu_spv_binding {
	uint32_t set, binding;
	uint8_t writes;  /* its shaders may write through it */
} emu_spv_binding;

/* The bindings module code (words 32-bit words) declares, one per (set,
 * binding): 0 with *out (malloc'd, NULL when none) and *n; -1 when the code
 * is not SPIR-V read here (another byte order, malformed, too many ids or
 * bindings): then nothing is known of it. */
int emu_spv_bindings(const uint32_t *code, size_t words, emu_spv_binding **out, size_t *n);

#endif /* TRACESMITH_EMU_SPIRV_H */
