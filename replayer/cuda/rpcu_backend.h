/*
 * rpcu_backend.h - the CUDA backend of tsreplay (docs/cuda-replay.md).
 *
 * Built only where the CUDA toolkit headers are (TS_HAVE_CUDA); it dlopens
 * the driver at run time, so a build with it runs on machines without one
 * and says so when a CUDA trace is replayed there.
 */
#ifndef TRACESMITH_RPCU_BACKEND_H
#define TRACESMITH_RPCU_BACKEND_H

#include "replayer/rp.h"

extern const rp_backend_ops rpcu_backend_ops;

#endif
