/*
 * tsreplay_test - tsreplay with the testapi TEST DOUBLE's backend added, so
 * the replayer can be tested end to end without a GPU.  Same command line
 * and exit statuses as tsreplay (docs/replay.md); the backend's test hooks
 * are in tests/support/testapi_backend.h.
 */
#include "replayer/rp.h"
#include "tests/support/testapi_backend.h"

int main(int argc, char **argv)
{
	static const rp_backend_ops *const tsreplay_test_backends[] = {&testapi_backend_ops};
	return rp_main(argc, argv, tsreplay_test_backends,
	               sizeof(tsreplay_test_backends) / sizeof(tsreplay_test_backends[0]));
}
