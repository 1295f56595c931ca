/*
 * tsreplay - replay an SBT trace on a live device and compare its
 * checkpoints (see docs/replay.md).  The backends this build has are listed
 * here; the Vulkan and CUDA backends join this table as they land.
 */
#include <stddef.h>

#include "replayer/rp.h"

int main(int argc, char **argv)
{
	/* No real backend yet: every trace gets "has no backend in this build". */
	static const rp_backend_ops *const tsreplay_backends[1] = {NULL};
	return rp_main(argc, argv, tsreplay_backends, 0);
}
