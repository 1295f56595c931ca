// gpu_sgemm - one cuBLAS SGEMM (256 x 256) on small integers, whose float
// products are exact, so the hash of C is the same on every GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gpu_common.h"

int main(void)
{
	const int n = 256;
	float *ha = (float *)malloc(n * n * 4), *hb = (float *)malloc(n * n * 4), *hc = (float *)malloc(n * n * 4);
	float *a, *b, *c, one = 1.0f, zero = 0.0f;
	cublasHandle_t h;

	for (int i = 0; i < n * n; i++) {
		ha[i] = (float)(i % 7);
		hb[i] = (float)((i * 3) % 5);
	}
	GPU_CK_RT(cudaMalloc(&a, n * n * 4));
	GPU_CK_RT(cudaMalloc(&b, n * n * 4));
	GPU_CK_RT(cudaMalloc(&c, n * n * 4));
	GPU_CK_RT(cudaMemcpy(a, ha, n * n * 4, cudaMemcpyHostToDevice));
	GPU_CK_RT(cudaMemcpy(b, hb, n * n * 4, cudaMemcpyHostToDevice));
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
	    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "gpu_sgemm: cuBLAS failed\n");
		return 1;
	}
	GPU_CK_RT(cudaMemcpy(hc, c, n * n * 4, cudaMemcpyDeviceToHost));
	printf("gpu_sgemm: n %d hash 0x%016llx\n", n, (unsigned long long)gpu_fnv(hc, n * n * 4, GPU_FNV_SEED));
	cublasDestroy(h);
	GPU_CK_RT(cudaFree(a));
	GPU_CK_RT(cudaFree(b));
	GPU_CK_RT(cudaFree(c));
	free(ha);
	free(hb);
	free(hc);
	return 0;
}
