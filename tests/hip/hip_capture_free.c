/*
 * hip_capture_free.c - a stream-ordered free on a capturing stream, from
 * plain C (no kernel): on a created stream, a stream capture records a
 * hipMemsetAsync of a hipMalloc'd buffer, a hipMemcpyAsync of it into a
 * second buffer and a hipFreeAsync of the first; the graph is
 * instantiated and launched twice (the second launch after the second
 * buffer was cleared), and the second buffer read back after each.
 *
 * Under tscapture the first buffer lies in the address window, so the
 * interposer serves the free itself: it becomes a node of the graph, and
 * the memory is kept until exit (the exit report counts it).  A runtime
 * asked directly may refuse a free in a capture (the test double does:
 * hipErrorNotSupported), which changes nothing the program prints: its
 * result is not printed.  With the argument `child`, the captured graph
 * is also made the child of a graph made by hipGraphCreate
 * (hipGraphAddChildGraphNode), which is then destroyed unlaunched.
 * Prints the bytes read and each other call that failed; exit status 0
 * once it ran to its end.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define HIPCF_N 4096

static void hipcf_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

int main(int argc, char **argv)
{
	hipStream_t s = NULL;
	hipGraph_t g = NULL, parent = NULL;
	hipGraphNode_t node = NULL;
	hipGraphExec_t e = NULL;
	unsigned char *p = NULL, *q = NULL, host[HIPCF_N];
	unsigned sum;

	hipcf_check("hipStreamCreate", hipStreamCreate(&s));
	hipcf_check("hipMalloc (p)", hipMalloc((void **)&p, HIPCF_N));
	hipcf_check("hipMalloc (q)", hipMalloc((void **)&q, HIPCF_N));
	hipcf_check("hipMemset (q)", hipMemset(q, 0, HIPCF_N));
	hipcf_check("hipStreamBeginCapture", hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
	hipcf_check("hipMemsetAsync", hipMemsetAsync(p, 0x5a, HIPCF_N, s));
	hipcf_check("hipMemcpyAsync", hipMemcpyAsync(q, p, HIPCF_N / 2, hipMemcpyDeviceToDevice, s));
	(void)hipFreeAsync(p, s); /* a node of the graph: see above */
	hipcf_check("hipStreamEndCapture", hipStreamEndCapture(s, &g));
	if (argc > 1 && !strcmp(argv[1], "child")) {
		hipcf_check("hipGraphCreate", hipGraphCreate(&parent, 0));
		hipcf_check("hipGraphAddChildGraphNode",
		            hipGraphAddChildGraphNode(&node, parent, NULL, 0, g));
		hipcf_check("hipGraphDestroy (parent)", hipGraphDestroy(parent));
	}
	hipcf_check("hipGraphInstantiate", hipGraphInstantiate(&e, g, NULL, NULL, 0));
	for (int round = 0; round < 2; round++) {
		hipcf_check("hipGraphLaunch", hipGraphLaunch(e, s));
		hipcf_check("hipStreamSynchronize", hipStreamSynchronize(s));
		memset(host, 0, sizeof(host));
		hipcf_check("hipMemcpy", hipMemcpy(host, q, HIPCF_N, hipMemcpyDeviceToHost));
		sum = 0;
		for (int i = 0; i < HIPCF_N; i++)
			sum += host[i];
		printf("round %d: q[0] %02x q[%d] %02x q[%d] %02x sum %u\n", round, host[0],
		       HIPCF_N / 2 - 1, host[HIPCF_N / 2 - 1], HIPCF_N / 2, host[HIPCF_N / 2], sum);
		hipcf_check("hipMemset (q)", hipMemset(q, 0, HIPCF_N));
	}
	hipcf_check("hipGraphExecDestroy", hipGraphExecDestroy(e));
	hipcf_check("hipGraphDestroy", hipGraphDestroy(g));
	hipcf_check("hipFree (q)", hipFree(q));
	hipcf_check("hipStreamDestroy", hipStreamDestroy(s));
	printf("done\n");
	return 0;
}
