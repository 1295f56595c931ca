// gpu_driver_kernels - compiled with nvcc -cubin for gpu_driver_cubin, which
// loads the cubin's bytes with cuModuleLoadData.  extern "C" keeps the names
// unmangled for cuModuleGetFunction.
extern "C" __global__ void gpu_fill(unsigned *p, unsigned value, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = value + i * 7u;
}

struct gpu_node {
	unsigned long long next;
	unsigned value;
	unsigned pad;
};

// Follows device pointers stored in device memory (replay must keep them valid).
extern "C" __global__ void gpu_chase(const gpu_node *head, unsigned *out, unsigned max)
{
	const gpu_node *nd = head;
	for (unsigned i = 0; nd && i < max; i++) {
		out[i] = nd->value * 2654435761u + i;
		nd = (const gpu_node *)nd->next;
	}
}
