/*
 * testapi_backend.h - the replay backend of the testapi TEST DOUBLE, for
 * test builds of tsreplay (tests/programs/tsreplay_test.c).
 *
 * Test hooks, read from the environment at open:
 *   TESTAPI_DOUBLE_NOISE=1        every testapi.mix also adds the run number
 *                                 (1, 2, ...) to the first byte it wrote:
 *                                 simulated nondeterminism.
 *   TESTAPI_DOUBLE_CORRUPT=SEQ[:OFF]  after executing record SEQ, flip every
 *                                 bit of byte OFF (default 0) of the buffer
 *                                 it wrote: a planted divergence, the same
 *                                 in every run.
 *   TESTAPI_DOUBLE_REPLAY_LOG=path  one line per record given to the
 *                                 backend: "RUN SEQ NAME MODE", MODE one of
 *                                 exec, ff (fast-forward), restore, skip.
 */
#ifndef TRACESMITH_TESTAPI_BACKEND_H
#define TRACESMITH_TESTAPI_BACKEND_H

#include "replayer/rp.h"

extern const rp_backend_ops testapi_backend_ops;

#endif
