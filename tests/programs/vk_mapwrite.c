/*
 * vk_mapwrite - the mapped-memory benchmark program: one persistently
 * mapped, host-coherent buffer of MIB MiB; before each of SUBMITS submits
 * the host writes PERMILLE thousandths of its pages (whole pages, chosen
 * anew each submit, spread over the buffer), then submits a copy of 256
 * bytes out of the first page written into a small result buffer and
 * waits for its fence.  The submit reaches the whole mapped buffer, so a
 * capture layer has to find what the host wrote in all of it; the device
 * itself does almost nothing, so that finding is what the run time shows.
 *
 * usage: vk_mapwrite [--mib M | --kib K] [--permille P] [--submits S] [--bytes B]
 *                    [--copy-once | --track] [--edge] [--prefill]
 *                    [--remap [--device-writes]]
 * --kib K sizes the buffer in KiB instead (a multiple of the page size).
 * --edge maps the buffer from byte 1280 to 1024 bytes before its end (the
 * first and last pages only partly mapped), flushes every range it writes
 * (vkFlushMappedMemoryRanges, in 256-byte units), writes part of those two
 * pages and the first 1 KiB of page 1 each submit besides the spread
 * pages (taken from pages 2 on), and has the device fill 256 bytes of
 * page 1 at 2048 (the result copied from there) before each copy; only
 * every second submit waits (vkQueueWaitIdle), so the host writes page 1
 * while the device may still be writing it.
 * --bytes B writes B bytes of each page chosen instead of the whole page
 * (at an offset that moves each submit), over a mapping first filled with
 * pseudo-random bytes (so that a capture recording whole pages cannot
 * hide their size in compression): the case where page-granular
 * recording costs most trace size.
 * --prefill writes every fourth page of the buffer's first half once
 * (VKM_PREFILL_TURN's bytes), then unmaps the buffer and maps it again,
 * before anything else: the driver's pages are then partly populated with
 * those bytes and partly never touched when the mapping the loop writes is
 * made (tests/shell/test_vk_map_scan.sh).
 * --remap maps the buffer only while writing: it is filled once (with
 * the pseudo-random bytes of --bytes, so that the driver's pages are all
 * populated, as in a program that maps an object it wrote before) and
 * unmapped; then each submit maps it whole, writes B bytes (--bytes,
 * default 1 KiB) in one page, unmaps it and submits a copy of 256 bytes
 * from where it wrote: the small object a program maps and unmaps every
 * frame, where what a capture does at each vkMapMemory is what the run
 * time shows (tests/bench/vk_map_bench.sh, remap points).  It writes one
 * page a submit (--permille is not taken), and the mapping hash is of a
 * mapping made after the loop.
 * --device-writes (with --remap) has the device fill the last 256 bytes
 * of the page the next submit writes (vkCmdFillBuffer after the copy,
 * with a value that changes each submit) while the buffer is unmapped;
 * the next mapping must show them (checked before the host writes: the
 * program fails if it does not), and the host's write into that page
 * then is an ordinary host write (tests/shell/test_vk_map_remap.sh: a
 * capture layer that keeps an unmapped object's memory must read the
 * device's bytes again at the next map).
 * --copy-once also copies each written page once into a private buffer
 * after writing it: the least any capture must do with the data written,
 * a baseline of tests/bench/vk_map_bench.sh.
 * --track writes the pages into a private shadow of the mapping that the
 * capture layer's own page tracker watches (layers/vulkan/vkl_track.c, the
 * tracker it would choose, TRACESMITH_VK_TRACKER honoured) and, before each
 * submit, copies the runs the tracker reports into the mapping: the least
 * a capture that tracks written pages must do (one fault per page written,
 * the look, one copy), the other baseline.
 * The bytes written are varied (vkm_fill): each 8-byte word a function of
 * its offset in the buffer and of the submit, so that no two pages hold the
 * same bytes, a page rewritten holds different bytes each time, and nothing
 * compresses; and every byte differs from what the place held before (zero,
 * or what an earlier submit wrote there, up to 127 submits back), so that
 * a byte compare finds each write whole.  (Random bytes would leave about
 * one byte in 256 equal.)  Only the --bytes and --edge writes over the
 * random fill may find a byte that already held its value.
 * Prints the XXH3-64 hash of the result buffer (a pure function of the
 * options) and the wall time of the submit loop in milliseconds, then the
 * XXH3-64 hash of the whole mapping (with --track: of what the tracker's
 * runs brought into it).
 */
#include <sys/mman.h>

#include "tests/programs/vk_prog.h"
/* the layer's tracker itself, for --track (as tests/unit/test_vkl_track.c) */
#include "layers/vulkan/vkl_track.c"

#define VKM_COPY 256
/* --edge: the mapping leaves out this many bytes at the start and end of
 * the buffer, and each flushed range is a multiple of VKM_ATOM (the most
 * nonCoherentAtomSize may be) */
#define VKM_EDGE_LO 1280
#define VKM_EDGE_HI 1024
#define VKM_ATOM 256
#define VKM_FILL 2048
/* --remap: the bytes written a submit unless --bytes says */
#define VKM_REMAP_BYTES 1024
/* --device-writes: the device fills this many bytes at the end of a page */
#define VKM_DEV_BYTES 256
/* --prefill's bytes: vkm_fill's at this submit (whose turn no submit
 * before the 127th repeats) */
#define VKM_PREFILL_TURN 255u

/* The written bytes' word at byte offset 8 * w of the buffer, at a submit
 * whose turn is vkm_turn(s): (w * VKM_MIX) with the low bit of every byte
 * set (never zero, the driver's initial bytes), each byte then XORed with
 * the same even value, which differs between any two submits less than 128
 * apart (so every byte of a rewritten word differs from what it held).
 * VKM_MIX is odd: the 2^61 word offsets a buffer can have give distinct
 * words, and no two pages repeat or share runs of bytes that LZ4 could
 * find. */
#define VKM_MIX 0x9e3779b97f4a7c15ull
#define VKM_ODD 0x0101010101010101ull

static uint64_t vkm_turn(uint32_t s)
{
	return (uint64_t)((s & 127u) << 1) * VKM_ODD;
}

/* The bytes [pos, pos + n) of the buffer written at submit s, at dst: one
 * add, OR, XOR and store per word (about what writing the bytes from
 * elsewhere costs), the unaligned ends a byte at a time. */
static void vkm_fill(uint8_t *dst, size_t pos, size_t n, uint32_t s)
{
	const uint64_t turn = vkm_turn(s);
	size_t k = 0;
	uint64_t g;
	for (; k < n && (pos + k) % 8; k++)
		dst[k] = (uint8_t)(((((pos + k) / 8 * VKM_MIX) | VKM_ODD) ^ turn) >>
		                   (8 * ((pos + k) % 8)));
	g = (uint64_t)((pos + k) / 8) * VKM_MIX;
	for (; k + 8 <= n; k += 8, g += VKM_MIX) {
		uint64_t v = (g | VKM_ODD) ^ turn;
		memcpy(dst + k, &v, 8);
	}
	for (; k < n; k++)
		dst[k] = (uint8_t)(((g | VKM_ODD) ^ turn) >> (8 * ((pos + k) % 8)));
}

/* --edge: host writes [lo, hi) of the buffer at submit s, at wr (the
 * mapping of [lo_off, ...)), flushed */
static void vkm_edge_write(const vkp_ctx *c, const vkp_buffer *b, uint8_t *wr, size_t lo_off,
                           size_t lo, size_t hi, uint32_t s)
{
	VkMappedMemoryRange r = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE };
	vkm_fill(wr + (lo - lo_off), lo, hi - lo, s);
	r.memory = b->mem;
	r.offset = lo / VKM_ATOM * VKM_ATOM;
	r.size = (hi + VKM_ATOM - 1) / VKM_ATOM * VKM_ATOM - r.offset;
	VKP_CHECK(c, vkFlushMappedMemoryRanges(c->device, 1, &r));
}

/* --track: the private shadow the program writes, and the mapping the
 * tracker's runs are copied into. */
typedef struct vkm_shadow {
	uint8_t *base; /* page-aligned, len bytes */
	size_t len;
	uint8_t *map; /* the Vulkan mapping */
	vkl_track trk;
} vkm_shadow;

static void vkm_copy_run(void *ctx, size_t lo, size_t hi)
{
	vkm_shadow *sh = ctx;
	memcpy(sh->map + lo, sh->base + lo, hi - lo);
}

/* --device-writes: the fill value of submit s (every byte the same, never
 * the same two submits in a row) */
static uint32_t vkm_dev_value(uint32_t s)
{
	return 0x01010101u * (uint32_t)(1u + (s * 37u + 11u) % 255u);
}

static void vkm_usage(FILE *f)
{
	fprintf(f, "usage: vk_mapwrite [--mib M | --kib K] [--permille P] [--submits S] [--bytes B]\n"
	           "                   [--copy-once | --track] [--edge] [--prefill]\n"
	           "                   [--remap [--device-writes]]\n"
	           "  --mib M       mapped buffer size in MiB (1..4096, default 64)\n"
	           "  --kib K       mapped buffer size in KiB instead (pages, up to 4 GiB)\n"
	           "  --permille P  thousandths of its pages written before each submit\n"
	           "                (1..1000, default 10)\n"
	           "  --submits S   submits (1..100000, default 50)\n"
	           "  --bytes B     bytes written in each page chosen (1..page size,\n"
	           "                default the whole page); the mapping starts random\n"
	           "  --edge        map an unaligned part, flush, let the device write\n"
	           "                where the host writes, wait every second submit\n"
	           "  --prefill     write every 4th page of the first half, unmap, map again\n"
	           "  --remap       fill the buffer once; each submit maps it, writes B bytes\n"
	           "                (--bytes, default 1024) of one page, unmaps it\n"
	           "  --device-writes  with --remap: the device fills 256 bytes of the\n"
	           "                page the next submit writes; each map checks them\n"
	           "  --copy-once   copy each written page once more (a baseline)\n"
	           "  --track       write into a shadow the layer's page tracker watches,\n"
	           "                copy what it reports into the mapping (a baseline)\n");
}

int main(int argc, char **argv)
{
	uint32_t mib = 64, kib = 0, permille = 10, submits = 50, bytes = 0, s, j;
	int copy_once = 0, track = 0, edge = 0, prefill = 0, remap = 0, permille_set = 0, i;
	int dev_writes = 0;
	size_t dev_at = 0; /* --device-writes: where the last fill went */
	uint32_t dev_seen = 0;
	size_t size;
	size_t lo_off = 0, hi_off; /* the mapped bytes of the buffer */
	VkCommandBuffer cbs[2];
	vkm_shadow sh = { 0 };
	uint8_t *wr; /* where the pages are written: the mapping, or the shadow */
	vkp_ctx c;
	vkp_buffer src, dst;
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), npages, nwrite;
	uint8_t *side = NULL;
	double t0, t1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--mib")) {
			mib = vkp_parse_u32("vk_mapwrite", a, vkp_next_arg(argc, argv, &i), 1, 4096);
		} else if (!strcmp(a, "--permille")) {
			permille = vkp_parse_u32("vk_mapwrite", a, vkp_next_arg(argc, argv, &i), 1, 1000);
			permille_set = 1;
		} else if (!strcmp(a, "--kib")) {
			kib = vkp_parse_u32("vk_mapwrite", a, vkp_next_arg(argc, argv, &i), 1, 4194304);
		} else if (!strcmp(a, "--submits")) {
			submits = vkp_parse_u32("vk_mapwrite", a, vkp_next_arg(argc, argv, &i), 1, 100000);
		} else if (!strcmp(a, "--bytes")) {
			bytes = vkp_parse_u32("vk_mapwrite", a, vkp_next_arg(argc, argv, &i), 1,
			                      (uint32_t)page);
		} else if (!strcmp(a, "--edge")) {
			edge = 1;
		} else if (!strcmp(a, "--prefill")) {
			prefill = 1;
		} else if (!strcmp(a, "--remap")) {
			remap = 1;
		} else if (!strcmp(a, "--device-writes")) {
			dev_writes = 1;
		} else if (!strcmp(a, "--copy-once")) {
			copy_once = 1;
		} else if (!strcmp(a, "--track")) {
			track = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			vkm_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_mapwrite: unknown option '%s'\n", a);
			vkm_usage(stderr);
			return 2;
		}
	}
	if (copy_once && track) {
		fprintf(stderr, "vk_mapwrite: --copy-once and --track are two baselines: one at a time\n");
		vkm_usage(stderr);
		return 2;
	}
	if (edge && prefill) {
		fprintf(stderr, "vk_mapwrite: --edge maps its own part: not with --prefill\n");
		return 2;
	}
	if (edge && (copy_once || track)) {
		fprintf(stderr, "vk_mapwrite: --edge is not a baseline: not with --copy-once or --track\n");
		return 2;
	}
	if (remap && (copy_once || track || edge || prefill || permille_set)) {
		fprintf(stderr, "vk_mapwrite: --remap writes one page a submit into its own mappings: "
		                "not with --permille, --copy-once, --track, --edge or --prefill\n");
		return 2;
	}
	if (dev_writes && !remap) {
		fprintf(stderr, "vk_mapwrite: --device-writes goes with --remap\n");
		return 2;
	}
	size = kib ? (size_t)kib * 1024 : (size_t)mib * 1048576;
	if (size % page) {
		fprintf(stderr, "vk_mapwrite: --kib %u is not a whole number of %zu-byte pages\n",
		        (unsigned)kib, page);
		return 2;
	}
	if (edge && size < 4 * page) {
		fprintf(stderr, "vk_mapwrite: --edge needs at least 4 pages, not %zu\n", size / page);
		return 2;
	}
	npages = size / page;
	nwrite = remap ? 1 : (npages * permille + 999) / 1000;
	hi_off = npages * page;
	if (edge) {
		lo_off = VKM_EDGE_LO;
		hi_off -= VKM_EDGE_HI;
		if (nwrite > npages - 3)
			nwrite = npages - 3;
	}

	vkp_ctx_init(&c, "vk_mapwrite", 0);
	vkp_buffer_create(&c, &src, (VkDeviceSize)size,
	                  VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
	                          (edge || dev_writes ? VK_BUFFER_USAGE_TRANSFER_DST_BIT : 0),
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	if (edge) {
		vkUnmapMemory(c.device, src.mem);
		VKP_CHECK(&c, vkMapMemory(c.device, src.mem, lo_off, hi_off - lo_off, 0, &src.map));
	}
	if (prefill) {
		for (size_t p = 0; p < npages / 2; p += 4)
			vkm_fill((uint8_t *)src.map + p * page, p * page, page, VKM_PREFILL_TURN);
		vkUnmapMemory(c.device, src.mem);
		VKP_CHECK(&c, vkMapMemory(c.device, src.mem, 0, VK_WHOLE_SIZE, 0, &src.map));
	}
	vkp_buffer_create(&c, &dst, VKM_COPY, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	if (copy_once && !(side = malloc(nwrite * page)))
		vkp_die(&c, "out of memory for the copy-once buffer (%zu bytes)", nwrite * page);
	wr = src.map;
	if (remap && !bytes)
		bytes = page < VKM_REMAP_BYTES ? (uint32_t)page : VKM_REMAP_BYTES;
	if (bytes) {
		/* xorshift64: the same bytes every run */
		uint64_t x = 0x9e3779b97f4a7c15ull;
		for (size_t k = 0; k + 8 <= hi_off - lo_off; k += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(wr + k, &x, 8);
		}
	} else {
		bytes = (uint32_t)page;
	}
	if (remap) {
		vkUnmapMemory(c.device, src.mem);
		src.map = NULL;
	}
	if (track) {
		/* populated with the mapping's contents, as the layer's shadow */
		sh.len = npages * page;
		sh.map = src.map;
		sh.base = mmap(NULL, sh.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (sh.base == MAP_FAILED)
			vkp_die(&c, "no memory for the --track shadow (%zu bytes)", sh.len);
		madvise(sh.base, sh.len, MADV_NOHUGEPAGE);
		memcpy(sh.base, src.map, sh.len);
		vkl_track_register(&sh.trk, sh.base, sh.len);
		printf("vk_mapwrite: --track with the %s tracker\n", vkl_track_name(sh.trk.kind));
		wr = sh.base;
	}
	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 2;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, cbs));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	t0 = vkp_now();
	for (s = 0; s < submits; s++) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
		VkBufferCopy region;
		/* nwrite pages spread evenly, shifted each submit */
		size_t first = (size_t)(s * 7919u) % npages;
		size_t copy_at = first * page;

		cb = cbs[edge ? s & 1 : 0];
		if (edge) {
			vkm_edge_write(&c, &src, wr, lo_off, 2048, 3072, s);
			vkm_edge_write(&c, &src, wr, lo_off, page, page + 1024, s);
			vkm_edge_write(&c, &src, wr, lo_off, hi_off - (page - VKM_EDGE_HI), hi_off, s);
			for (j = 0; j < nwrite; j++) {
				size_t p = 2 + (first + (size_t)j * (npages - 3) / nwrite) % (npages - 3);
				vkm_edge_write(&c, &src, wr, lo_off, p * page, p * page + page, s);
			}
		}
		if (remap) {
			void *m;
			VKP_CHECK(&c, vkMapMemory(c.device, src.mem, 0, VK_WHOLE_SIZE, 0, &m));
			wr = m;
			/* the device's fill of the last submit, seen before the host
			 * writes over any of it */
			if (dev_writes && s > 0) {
				uint32_t want = vkm_dev_value(s - 1);
				for (size_t k = 0; k < VKM_DEV_BYTES; k += 4)
					if (memcmp(wr + dev_at + k, &want, 4) != 0)
						vkp_die(&c, "--device-writes: submit %u's mapping holds 0x%02x at "
						            "byte %zu, where the device filled 0x%02x",
						        (unsigned)s, wr[dev_at + k], dev_at + k, want & 0xffu);
				dev_seen++;
			}
		}
		for (j = 0; j < nwrite && !edge; j++) {
			size_t p = (first + (size_t)j * npages / nwrite) % npages;
			size_t at = p * page + (size_t)s * 8 % (page - bytes + 1);
			vkm_fill(wr + at, at, bytes, s);
			if (side)
				memcpy(side + (size_t)j * page, wr + at, bytes);
			/* --remap: the result is what this submit wrote (what
			 * fits of it before the buffer's end) */
			if (remap)
				copy_at = at + VKM_COPY <= size ? at : size - VKM_COPY;
		}
		if (remap)
			vkUnmapMemory(c.device, src.mem);
		if (track)
			vkl_track_look(&sh.trk, 0, sh.len, vkm_copy_run, &sh);
		region = (VkBufferCopy){ (VkDeviceSize)copy_at, 0, VKM_COPY };
		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		if (edge) {
			VkMemoryBarrier fb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER };
			vkCmdFillBuffer(cb, src.buf, page + VKM_FILL, VKM_COPY, 0x01010101u * (s & 0xff));
			fb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
			fb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
			vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
			                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &fb, 0, NULL, 0, NULL);
			region.srcOffset = page + VKM_FILL;
		}
		vkCmdCopyBuffer(cb, src.buf, dst.buf, 1, &region);
		if (dev_writes) {
			/* the page the next submit writes, its last bytes, after the
			 * copy has read (the same page when there is only one) */
			VkMemoryBarrier rb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER };
			size_t next = (size_t)((s + 1) * 7919u) % npages;
			rb.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
			rb.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
			vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
			                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &rb, 0, NULL, 0, NULL);
			dev_at = next * page + page - VKM_DEV_BYTES;
			vkCmdFillBuffer(cb, src.buf, dev_at, VKM_DEV_BYTES, vkm_dev_value(s));
		}
		{
			VkMemoryBarrier hb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER };
			hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
			hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
			vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
			                     0, 1, &hb, 0, NULL, 0, NULL);
		}
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cb;
		if (!edge) {
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
			vkp_fence_wait_reset(&c, fence);
		} else {
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, VK_NULL_HANDLE));
			if ((s & 1) || s + 1 == submits)
				VKP_CHECK(&c, vkQueueWaitIdle(c.queue));
		}
	}
	t1 = vkp_now();
	if (remap)
		VKP_CHECK(&c, vkMapMemory(c.device, src.mem, 0, VK_WHOLE_SIZE, 0, &src.map));
	printf("vk_mapwrite: %s %u permille %u submits %u pages %zu hash 0x%016llx loop_ms %.1f\n",
	       kib ? "kib" : "mib", (unsigned)(kib ? kib : mib), (unsigned)permille,
	       (unsigned)submits, nwrite,
	       (unsigned long long)XXH3_64bits(dst.map, VKM_COPY), (t1 - t0) * 1000.0);
	printf("vk_mapwrite: mapping hash 0x%016llx\n",
	       (unsigned long long)XXH3_64bits(src.map, hi_off - lo_off));
	if (dev_writes)
		printf("vk_mapwrite: device writes seen at %u of %u mappings\n", (unsigned)dev_seen,
		       (unsigned)(submits - 1));

	free(side);
	if (track) {
		vkl_track_unregister(&sh.trk);
		munmap(sh.base, sh.len);
	}
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkp_buffer_destroy(&c, &dst);
	vkp_buffer_destroy(&c, &src);
	vkp_ctx_finish(&c);
	return 0;
}
