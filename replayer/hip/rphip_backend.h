/*
 * rphip_backend.h - the HIP replay backend (prefix rphip_): replays the
 * hip.* records of the compute record model (serializer/sbt_compute.h)
 * through a libamdhip64 it dlopens (libamdhip64.so.5, or
 * TRACESMITH_HIP_RUNTIME).  docs/hip.md "Replay" says what it does.
 */
#ifndef TRACESMITH_RPHIP_BACKEND_H
#define TRACESMITH_RPHIP_BACKEND_H

#include "replayer/rp.h"

extern const rp_backend_ops rphip_backend_ops;

#endif
