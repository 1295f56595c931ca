/*
 * vk_fft - Fourier transforms on the device with VkFFT 1.2.26 (Debian's
 * libvkfft-dev, a real library: header-only, its compute shaders made at
 * run time with glslang and sized to the device), for capture and replay
 * tests with a command stream none of our own programs writes.
 *
 * One plan (initializeVkFFT: shaders compiled, lookup tables uploaded with
 * VkFFT's own command buffer and fence) serves every round.  Each round the
 * host writes new input into a mapped staging buffer, and one command
 * buffer copies it into a device-local buffer, runs the forward transform
 * in place, copies the spectrum to a mapped readback buffer, runs the
 * inverse transform and copies that to a second readback buffer.  The host
 * waits on the round's fence and checks both against its own discrete
 * Fourier transform in double precision: the spectrum against the DFT of
 * the input, the inverse against the input times the number of points
 * (VkFFT does not normalise).  An error above the tolerance (1e-3 of the
 * largest magnitude in single precision, 1e-9 in double) exits 1.
 *
 * Sizes need not be powers of two (mixed radix up to 13).  A size with a
 * larger prime factor makes VkFFT 1.2.26 use Bluestein's algorithm, which
 * here, without any layer but the validation layer, binds a null buffer
 * (VUID-VkDescriptorBufferInfo-buffer-02998) and gives wrong results
 * (vk_fft exits 1): the tests do not use such sizes.
 *
 * usage: vk_fft [--size N] [--dims D] [--batch B] [--rounds R] [--double]
 *               [--r2c]
 * Prints one line: the options, the XXH3-64 hash of every readback word of
 * every round, and the largest errors of the last round relative to the
 * largest magnitude (%.1e: deterministic with the hash).
 */
#include <math.h>

#define VKFFT_BACKEND 0
#include <vkFFT.h>

#include "tests/programs/vk_prog.h"

typedef struct vkf_opts {
	uint32_t size, dims, batch, rounds;
	int dbl, r2c;
} vkf_opts;

static void vkf_usage(FILE *f)
{
	fprintf(f, "usage: vk_fft [--size N] [--dims D] [--batch B] [--rounds R] [--double] [--r2c]\n"
	           "  --size N    points along each axis (2..4096, default 256)\n"
	           "  --dims D    axes: 1, 2 or 3 (default 1)\n"
	           "  --batch B   transforms side by side (1..64, default 1)\n"
	           "  --rounds R  submits, each with new input (1..1000, default 3)\n"
	           "  --double    double precision (the shaderFloat64 feature)\n"
	           "  --r2c       real input, half the spectrum along the first axis\n");
}

static void vkf_parse(int argc, char **argv, vkf_opts *o)
{
	int i;
	o->size = 256;
	o->dims = 1;
	o->batch = 1;
	o->rounds = 3;
	o->dbl = o->r2c = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--size")) {
			o->size = vkp_parse_u32("vk_fft", a, vkp_next_arg(argc, argv, &i), 2, 4096);
		} else if (!strcmp(a, "--dims")) {
			o->dims = vkp_parse_u32("vk_fft", a, vkp_next_arg(argc, argv, &i), 1, 3);
		} else if (!strcmp(a, "--batch")) {
			o->batch = vkp_parse_u32("vk_fft", a, vkp_next_arg(argc, argv, &i), 1, 64);
		} else if (!strcmp(a, "--rounds")) {
			o->rounds = vkp_parse_u32("vk_fft", a, vkp_next_arg(argc, argv, &i), 1, 1000);
		} else if (!strcmp(a, "--double")) {
			o->dbl = 1;
		} else if (!strcmp(a, "--r2c")) {
			o->r2c = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			vkf_usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "vk_fft: unknown option '%s'\n", a);
			vkf_usage(stderr);
			exit(2);
		}
	}
	{
		uint64_t pts = o->batch;
		uint32_t d;
		for (d = 0; d < o->dims; d++)
			pts *= o->size;
		if (pts > (1u << 22)) {
			fprintf(stderr, "vk_fft: %u^%u points times %u transforms is more than 4194304\n",
			        o->size, o->dims, o->batch);
			exit(2);
		}
	}
}

/* The layout of one transform's data in the buffer: along the first axis
 * a row of `row` reals (complex: 2N; real input: 2(N/2+1), the spectrum's
 * length, VkFFT's in-place padding), then the other axes of N rows. */
typedef struct vkf_shape {
	uint32_t n, dims, batch;
	int r2c;
	size_t row;      /* reals per row */
	size_t rows;     /* rows per transform */
	size_t pts;      /* points per transform: N^dims */
	size_t reals;    /* per transform */
	size_t total;    /* reals in the buffer */
} vkf_shape;

static vkf_shape vkf_shape_of(const vkf_opts *o)
{
	vkf_shape s;
	uint32_t d;
	s.n = o->size;
	s.dims = o->dims;
	s.batch = o->batch;
	s.r2c = o->r2c;
	s.row = o->r2c ? 2 * (o->size / 2 + 1) : 2 * (size_t)o->size;
	s.rows = 1;
	for (d = 1; d < o->dims; d++)
		s.rows *= o->size;
	s.pts = s.rows * o->size;
	s.reals = s.row * s.rows;
	s.total = s.reals * o->batch;
	return s;
}

/* Round r's input value k of transform b (real or imaginary part). */
static double vkf_input(uint32_t r, uint32_t b, size_t k)
{
	uint32_t h = vkp_compute_input((uint32_t)k, r * 131u + b);
	return ((double)(h & 0xffffu) - 32768.0) / 32768.0;
}

/* A complex array of n^dims points as doubles, interleaved. */
static void vkf_dft_axis(double *x, const vkf_shape *s, uint32_t axis, int sign, double *tmp)
{
	size_t n = s->n, stride = 1, lines = 1, i, j, k;
	uint32_t d;
	for (d = 0; d < axis; d++)
		stride *= n;
	for (d = 0; d < s->dims; d++)
		if (d != axis)
			lines *= n;
	for (i = 0; i < lines; i++) {
		/* the line's first point: i split around the axis */
		size_t lo = i % stride, hi = i / stride, base = lo + hi * stride * n;
		for (k = 0; k < n; k++) {
			double re = 0, im = 0;
			for (j = 0; j < n; j++) {
				double a = sign * 2.0 * M_PI * (double)((j * k) % n) / (double)n;
				double xr = x[2 * (base + j * stride)], xi = x[2 * (base + j * stride) + 1];
				re += xr * cos(a) - xi * sin(a);
				im += xr * sin(a) + xi * cos(a);
			}
			tmp[2 * k] = re;
			tmp[2 * k + 1] = im;
		}
		for (k = 0; k < n; k++) {
			x[2 * (base + k * stride)] = tmp[2 * k];
			x[2 * (base + k * stride) + 1] = tmp[2 * k + 1];
		}
	}
}

static double vkf_get(const void *p, int dbl, size_t i)
{
	return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void vkf_put(void *p, int dbl, size_t i, double v)
{
	if (dbl)
		((double *)p)[i] = v;
	else
		((float *)p)[i] = (float)v;
}

/* Writes round r's input into the staging mapping; keeps it in x (all
 * transforms, as complex doubles, n^dims points each). */
static void vkf_fill(const vkf_shape *s, int dbl, uint32_t r, void *map, double *x)
{
	size_t pts = s->pts, b, row, k;
	memset(map, 0, s->total * (dbl ? 8 : 4));
	for (b = 0; b < s->batch; b++)
		for (row = 0; row < s->rows; row++)
			for (k = 0; k < s->n; k++) {
				size_t p = row * s->n + k, at = b * s->reals + row * s->row;
				double re = vkf_input(r, (uint32_t)b, 2 * p);
				double im = s->r2c ? 0.0 : vkf_input(r, (uint32_t)b, 2 * p + 1);
				if (s->r2c) {
					vkf_put(map, dbl, at + k, re);
				} else {
					vkf_put(map, dbl, at + 2 * k, re);
					vkf_put(map, dbl, at + 2 * k + 1, im);
				}
				/* the value the device sees, rounded as it is */
				x[2 * (b * pts + p)] = vkf_get(map, dbl, s->r2c ? at + k : at + 2 * k);
				x[2 * (b * pts + p) + 1] = s->r2c ? 0.0 : vkf_get(map, dbl, at + 2 * k + 1);
			}
}

/* The largest error of the device's forward result (fwd) and inverse result
 * (inv) against the DFT of x and x times the points, each relative to the
 * largest magnitude of what it is compared with. */
static void vkf_check(const vkf_shape *s, int dbl, const double *x, const void *fwd, const void *inv,
                      double *err_fwd, double *err_inv)
{
	size_t pts = s->pts, b, row, k;
	double *f = malloc(2 * pts * sizeof(double)), *tmp = malloc(2 * s->n * sizeof(double));
	double ef = 0, ei = 0, mf = 0, mi = 0;
	uint32_t d;
	if (!f || !tmp) {
		fprintf(stderr, "vk_fft: out of memory\n");
		exit(1);
	}
	for (b = 0; b < s->batch; b++) {
		const double *xb = x + 2 * b * pts;
		memcpy(f, xb, 2 * pts * sizeof(double));
		for (d = 0; d < s->dims; d++)
			vkf_dft_axis(f, s, d, -1, tmp);
		for (row = 0; row < s->rows; row++) {
			size_t kn = s->r2c ? s->n / 2 + 1 : s->n;
			for (k = 0; k < kn; k++) {
				size_t p = row * s->n + k, at = b * s->reals + row * s->row + 2 * k;
				double dr = vkf_get(fwd, dbl, at) - f[2 * p];
				double di = vkf_get(fwd, dbl, at + 1) - f[2 * p + 1];
				ef = fmax(ef, hypot(dr, di));
				mf = fmax(mf, hypot(f[2 * p], f[2 * p + 1]));
			}
			for (k = 0; k < s->n; k++) {
				size_t p = row * s->n + k, at = b * s->reals + row * s->row;
				double want_r = xb[2 * p] * (double)pts, want_i = xb[2 * p + 1] * (double)pts;
				double dr, di;
				if (s->r2c) {
					dr = vkf_get(inv, dbl, at + k) - want_r;
					di = 0;
				} else {
					dr = vkf_get(inv, dbl, at + 2 * k) - want_r;
					di = vkf_get(inv, dbl, at + 2 * k + 1) - want_i;
				}
				ei = fmax(ei, hypot(dr, di));
				mi = fmax(mi, hypot(want_r, want_i));
			}
		}
	}
	*err_fwd = mf > 0 ? ef / mf : ef;
	*err_inv = mi > 0 ? ei / mi : ei;
	free(f);
	free(tmp);
}

/* A barrier from what came before (transfer or compute writes) to what
 * comes next (transfer or compute reads and writes) on the whole buffer. */
static void vkf_barrier(VkCommandBuffer cb, VkBuffer buf, VkPipelineStageFlags src,
                        VkAccessFlags src_access, VkPipelineStageFlags dst, VkAccessFlags dst_access)
{
	VkBufferMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	b.srcAccessMask = src_access;
	b.dstAccessMask = dst_access;
	b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.buffer = buf;
	b.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(cb, src, dst, 0, 0, NULL, 1, &b, 0, NULL);
}

int main(int argc, char **argv)
{
	vkf_opts o;
	vkf_shape s;
	vkp_ctx c;
	vkp_buffer staging, data, out_fwd, out_inv;
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkFence fence, plan_fence;
	VkFFTConfiguration cfg;
	VkFFTApplication app;
	VkFFTLaunchParams lp;
	VkFFTResult fr;
	VkDeviceSize bytes;
	uint64_t buffer_size;
	XXH3_state_t *hs;
	double *x, err_fwd = 0, err_inv = 0, tol;
	uint32_t r;

	vkf_parse(argc, argv, &o);
	s = vkf_shape_of(&o);
	bytes = (VkDeviceSize)s.total * (o.dbl ? 8 : 4);
	vkp_ctx_init(&c, "vk_fft", o.dbl ? VKP_FLOAT64 : 0);

	vkp_buffer_create(&c, &staging, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);
	vkp_buffer_create(&c, &data, bytes,
	                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
	                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
	vkp_buffer_create(&c, &out_fwd, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);
	vkp_buffer_create(&c, &out_inv, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &pool));
	cbai.commandPool = pool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &plan_fence));

	/* the plan: VkFFT submits its lookup tables' upload on our queue,
	 * waiting on plan_fence */
	memset(&cfg, 0, sizeof(cfg));
	memset(&app, 0, sizeof(app));
	cfg.FFTdim = o.dims;
	cfg.size[0] = cfg.size[1] = cfg.size[2] = 1;
	for (r = 0; r < o.dims; r++)
		cfg.size[r] = o.size;
	cfg.numberBatches = o.batch;
	cfg.doublePrecision = (uint64_t)o.dbl;
	cfg.performR2C = (uint64_t)o.r2c;
	cfg.physicalDevice = &c.phys;
	cfg.device = &c.device;
	cfg.queue = &c.queue;
	cfg.commandPool = &pool;
	cfg.fence = &plan_fence;
	buffer_size = (uint64_t)bytes;
	cfg.bufferSize = &buffer_size;
	cfg.buffer = &data.buf;
	fr = initializeVkFFT(&app, cfg);
	if (fr != VKFFT_SUCCESS)
		vkp_die(&c, "initializeVkFFT failed: VkFFTResult %d", (int)fr);

	x = malloc(2 * sizeof(double) * s.pts * s.batch);
	hs = XXH3_createState();
	if (!x || !hs)
		vkp_die(&c, "out of memory");
	XXH3_64bits_reset(hs);
	for (r = 0; r < o.rounds; r++) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
		VkBufferCopy whole = { 0, 0, bytes };

		vkf_fill(&s, o.dbl, r, staging.map, x);
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		vkCmdCopyBuffer(cb, staging.buf, data.buf, 1, &whole);
		vkf_barrier(cb, data.buf, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
		            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
		memset(&lp, 0, sizeof(lp));
		lp.commandBuffer = &cb;
		lp.buffer = &data.buf;
		fr = VkFFTAppend(&app, -1, &lp);
		if (fr != VKFFT_SUCCESS)
			vkp_die(&c, "VkFFTAppend (forward) failed: VkFFTResult %d", (int)fr);
		vkf_barrier(cb, data.buf, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
		            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
		vkCmdCopyBuffer(cb, data.buf, out_fwd.buf, 1, &whole);
		vkf_barrier(cb, data.buf, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
		            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
		fr = VkFFTAppend(&app, 1, &lp);
		if (fr != VKFFT_SUCCESS)
			vkp_die(&c, "VkFFTAppend (inverse) failed: VkFFTResult %d", (int)fr);
		vkf_barrier(cb, data.buf, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
		            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
		vkCmdCopyBuffer(cb, data.buf, out_inv.buf, 1, &whole);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cb;
		VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
		vkp_fence_wait_reset(&c, fence);
		vkp_buffer_invalidate(&c, &out_fwd);
		vkp_buffer_invalidate(&c, &out_inv);
		XXH3_64bits_update(hs, out_fwd.map, (size_t)bytes);
		XXH3_64bits_update(hs, out_inv.map, (size_t)bytes);
		vkf_check(&s, o.dbl, x, out_fwd.map, out_inv.map, &err_fwd, &err_inv);
		tol = o.dbl ? 1e-9 : 1e-3;
		if (!(err_fwd <= tol) || !(err_inv <= tol)) {
			fprintf(stderr, "vk_fft: round %u: error %.3e forward, %.3e inverse, above %.0e\n", r,
			        err_fwd, err_inv, tol);
			return 1;
		}
	}
	printf("vk_fft: size %u dims %u batch %u rounds %u %s%s hash 0x%016llx err %.1e %.1e\n", o.size,
	       o.dims, o.batch, o.rounds, o.dbl ? "double" : "single", o.r2c ? " r2c" : "",
	       (unsigned long long)XXH3_64bits_digest(hs), err_fwd, err_inv);

	XXH3_freeState(hs);
	free(x);
	deleteVkFFT(&app);
	vkDestroyFence(c.device, plan_fence, NULL);
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, pool, NULL);
	vkp_buffer_destroy(&c, &out_inv);
	vkp_buffer_destroy(&c, &out_fwd);
	vkp_buffer_destroy(&c, &data);
	vkp_buffer_destroy(&c, &staging);
	vkp_ctx_finish(&c);
	return 0;
}
