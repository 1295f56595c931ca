// gpu_rdc_dev - the device function gpu_rdc_main.cu links against (-rdc).
#include <cstdint>

__device__ uint32_t gpu_rdc_step(uint32_t x)
{
	return x * 2654435761u + (x >> 3);
}
