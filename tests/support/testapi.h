/*
 * testapi.h - a TEST DOUBLE of a compute API, so the capture -> replay path
 * can be tested end to end without a GPU.
 *
 * A program allocates "device" buffers, writes host data into them, runs a
 * few "kernels" on them and reads results back, like a tiny CUDA.  The
 * "device" is host memory.  Every call runs for the program and records
 * itself through the capture runtime (capture/cap.h): writes carry their
 * data as blobs, reads record a checkpoint (the hash of the bytes the
 * program got, not the bytes).  The replay backend (testapi_backend.c)
 * recomputes every kernel and so reproduces the reads' bytes.
 *
 * Calls return 0 (or a buffer id) on success; on a bad argument they
 * return -1 (or 0), record nothing, and testapi_last_error() says why.
 * Calls are serialized by one lock, so seq order is execution order.
 */
#ifndef TRACESMITH_TESTAPI_H
#define TRACESMITH_TESTAPI_H

#include <stddef.h>
#include <stdint.h>

/* A new zero-filled buffer of size bytes; returns its id (from 1), 0 on error. */
uint64_t testapi_alloc(uint64_t size);
/* Host -> device copy of len bytes into buf at off. */
int testapi_write(uint64_t buf, uint64_t off, const void *data, uint64_t len);
/* Kernels.  fill: the bytes of value (little-endian) repeated over
 * [off, off+len).  add: dst = a + b as little-endian uint32 words over the
 * first len bytes (len % 4 == 0).  scale: uint32 words in [off, off+len)
 * multiplied by factor (wrapping).  mix: each uint64 word w at index i of
 * [off, off+len) becomes xorshift64*(w ^ (seed + i)) (len % 8 == 0). */
int testapi_kernel_fill(uint64_t buf, uint64_t off, uint64_t len, uint32_t value);
int testapi_kernel_add(uint64_t dst, uint64_t a, uint64_t b, uint64_t len);
int testapi_kernel_scale(uint64_t buf, uint64_t off, uint64_t len, uint32_t factor);
int testapi_kernel_mix(uint64_t buf, uint64_t off, uint64_t len, uint64_t seed);
/* Device -> host copy; records a checkpoint of the len bytes. */
int testapi_read(uint64_t buf, uint64_t off, void *out, uint64_t len);
int testapi_free(uint64_t buf);
/* Why the last failing call failed (one message for the process). */
const char *testapi_last_error(void);

#endif
