/*
 * tsreplay - replay an SBT trace on a live device and compare its
 * checkpoints (see docs/replay.md).  The backends this build has are listed
 * here; the CUDA one only where the toolkit headers were found (it dlopens
 * the driver at run time, see docs/cuda-replay.md).
 */
#include <stddef.h>
#include <string.h>

#include "emulator/emu.h"

#include "replayer/rp.h"
#include "replayer/vulkan/rpvk_backend.h"
#ifdef TS_HAVE_CUDA
#include "replayer/cuda/rpcu_backend.h"
#endif

int main(int argc, char **argv)
{
	static const rp_backend_ops *const tsreplay_backends[] = {
		&rpvk_backend_ops,
#ifdef TS_HAVE_CUDA
		&rpcu_backend_ops,
#endif
	};
	/* --emulate: the emulator, no device (emulator/emu_cli.c) */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--emulate") == 0)
			return emu_cli_emulate(argc, argv);
	return rp_main(argc, argv, tsreplay_backends,
	               sizeof(tsreplay_backends) / sizeof(tsreplay_backends[0]));
}
