/*
 * tsreplay - replay an SBT trace on a live device and compare its
 * checkpoints (see docs/replay.md).  The backends this build has are listed
 * here; the CUDA backend joins this table when it lands.
 */
#include <stddef.h>

#include "replayer/rp.h"
#include "replayer/vulkan/rpvk_backend.h"

int main(int argc, char **argv)
{
	static const rp_backend_ops *const tsreplay_backends[] = {&rpvk_backend_ops};
	return rp_main(argc, argv, tsreplay_backends,
	               sizeof(tsreplay_backends) / sizeof(tsreplay_backends[0]));
}
