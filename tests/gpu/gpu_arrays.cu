// gpu_arrays - CUDA arrays through the runtime (tests/gpu/test_gpu_capture_replay.sh):
// a 2D array read by a texture object, a 3D array read and written through a
// surface object, copies to and from host; prints a hash of what it read back.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
enum { W = 16, H = 8, D = 4 };
__global__ void k_tex(cudaTextureObject_t t, unsigned *out) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= W * H) return;
	unsigned x = i % W, y = i / W;
	out[i] = tex2D<unsigned>(t, x + 0.5f, y + 0.5f) * 3 + 5;
}
__global__ void k_surf(cudaSurfaceObject_t s, unsigned *out) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= W * H * D) return;
	unsigned x = i % W, y = i / W % H, z = i / (W * H);
	unsigned v = surf3Dread<unsigned>(s, x * 4, y, z);
	out[i] = v * 3 + 9;
	surf3Dwrite(v + 1, s, x * 4, y, z);
}
static uint64_t mix(uint64_t h, const void *p, size_t n) {
	const unsigned char *b = (const unsigned char *)p;
	for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
	return h;
}
int main() {
	static unsigned h2[H][W], h3[D][H][W], out[W * H * D], b3[D][H][W], b2[H][W];
	for (unsigned y = 0; y < H; y++) for (unsigned x = 0; x < W; x++) h2[y][x] = y * 1000 + x * 7 + 1;
	for (unsigned z = 0; z < D; z++) for (unsigned y = 0; y < H; y++) for (unsigned x = 0; x < W; x++) h3[z][y][x] = z * 100000 + y * 100 + x;
	cudaChannelFormatDesc cd = cudaCreateChannelDesc<unsigned>();
	cudaArray_t a2, a3;
	unsigned *dout;
	uint64_t h = 1469598103934665603ull;
	CK(cudaMallocArray(&a2, &cd, W, H));
	CK(cudaMemcpy2DToArray(a2, 0, 0, h2, sizeof(h2[0]), sizeof(h2[0]), H, cudaMemcpyHostToDevice));
	CK(cudaMalloc3DArray(&a3, &cd, make_cudaExtent(W, H, D), cudaArraySurfaceLoadStore));
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(h3, sizeof(h3[0][0]), W, H);
	p.dstArray = a3;
	p.extent = make_cudaExtent(W, H, D);
	p.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p));
	CK(cudaMalloc(&dout, sizeof(out)));
	cudaResourceDesc rd = {};
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a2;
	cudaTextureDesc td = {};
	td.filterMode = cudaFilterModePoint;
	td.readMode = cudaReadModeElementType;
	cudaTextureObject_t t;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	k_tex<<<2, 64>>>(t, dout);
	CK(cudaMemcpy(out, dout, W * H * 4, cudaMemcpyDeviceToHost));
	h = mix(h, out, W * H * 4);
	rd.res.array.array = a3;
	cudaSurfaceObject_t s;
	CK(cudaCreateSurfaceObject(&s, &rd));
	k_surf<<<8, 64>>>(s, dout);
	CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	h = mix(h, out, sizeof(out));
	memset(&p, 0, sizeof(p));
	p.srcArray = a3;
	p.dstPtr = make_cudaPitchedPtr(b3, sizeof(b3[0][0]), W, H);
	p.extent = make_cudaExtent(W, H, D);
	p.kind = cudaMemcpyDeviceToHost;
	CK(cudaMemcpy3D(&p));
	h = mix(h, b3, sizeof(b3));
	CK(cudaMemcpy2DFromArray(b2, sizeof(b2[0]), a2, 0, 0, sizeof(b2[0]), H, cudaMemcpyDeviceToHost));
	h = mix(h, b2, sizeof(b2));
	CK(cudaDestroyTextureObject(t));
	CK(cudaDestroySurfaceObject(s));
	CK(cudaFreeArray(a2));
	CK(cudaFreeArray(a3));
	CK(cudaFree(dout));
	printf("gpu_arrays: hash %016llx\n", (unsigned long long)h);
	return 0;
}
