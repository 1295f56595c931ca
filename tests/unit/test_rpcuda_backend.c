/*
 * test_rpcuda_backend - the CUDA replay backend driven record by record on
 * traces this test writes itself, against the libcuda test double (found
 * beside this program, handed over with TRACESMITH_CUDA_DRIVER):
 *   - a good trace: module, allocation at a captured address, upload,
 *     a "fill" launch, download; the checkpoint bytes are what fill
 *     computes (the trace holds only their hash);
 *   - the same with --cuda-no-reserve: the allocation moves, the launch's
 *     pointer parameter is patched, the bytes are the same;
 *   - bad input, each refused with a message naming the record seq and
 *     call: a function, a stream and an event the trace never created, a
 *     copy outside every allocation, a record type the model does not
 *     have, a graph launch, a checkpoint of a copy that was never made.
 */
#include "tests/support/tst.h"

#ifdef TS_HAVE_CUDA
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replayer/cuda/rpc_backend.h"
#include "serializer/sbt_compute.h"

#define TST_N 256u
#define TST_ADDR 0x5a5a00001000ull /* the "captured" device address */
#define TST_CTX 0xc0c0ull
#define TST_MOD 0xd0d0ull
#define TST_FN 0xf0f0ull

typedef struct tst_trace {
	sbt_writer *w;
	uint64_t seq;
	uint64_t next_blob;
} tst_trace;

static char tst_dir[PATH_MAX];
static void *tst_image;
static size_t tst_image_len;

static void *tst_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	void *buf;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void tst_begin(tst_trace *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	TST_REQUIRE(sbt_writer_open(path, NULL, &t->w) == SBT_OK);
	TST_REQUIRE(sbt_cm_define_types(t->w) == SBT_OK);
	TST_REQUIRE(sbt_writer_set_meta(t->w, "api", "cuda") == SBT_OK);
	t->next_blob = 1;
}

static uint64_t tst_rec(tst_trace *t, uint32_t type, const sbt_cm_call *c)
{
	uint8_t buf[4096];
	size_t len = 0;
	sbt_record r = {0};
	TST_REQUIRE(sbt_cm_encode(c, buf, sizeof(buf), &len) == SBT_OK);
	r.type = type;
	r.seq = ++t->seq;
	r.payload = buf;
	r.payload_len = len;
	TST_REQUIRE(sbt_writer_append(t->w, &r) == SBT_OK);
	return r.seq;
}

static uint64_t tst_call(tst_trace *t, sbt_cm_kind k, const sbt_cm_call *c)
{
	return tst_rec(t, SBT_CM_TYPE(k), c);
}

static uint64_t tst_blob(tst_trace *t, const void *data, size_t len)
{
	uint64_t id = t->next_blob++;
	TST_REQUIRE(sbt_writer_put_blob(t->w, id, data, len, NULL) == SBT_OK);
	return id;
}

/* Context, module and the "fill" function, then one allocation. */
static void tst_prologue(tst_trace *t)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	tst_call(t, SBT_CM_K_cuInit, &c);
	sbt_cm_call_init(&c);
	tst_call(t, SBT_CM_K_cuDeviceGet, &c);
	sbt_cm_call_init(&c);
	c.ctx = TST_CTX;
	tst_call(t, SBT_CM_K_cuDevicePrimaryCtxRetain, &c);
	tst_call(t, SBT_CM_K_cuCtxSetCurrent, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_MOD;
	c.blob = tst_blob(t, tst_image, tst_image_len);
	c.size = tst_image_len;
	tst_call(t, SBT_CM_K_cuModuleLoadData, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_FN;
	c.parent = TST_MOD;
	c.name = (const uint8_t *)"fill";
	c.name_len = 4;
	tst_call(t, SBT_CM_K_cuModuleGetFunction, &c);
	sbt_cm_call_init(&c);
	c.dst = TST_ADDR;
	c.size = TST_N * 4;
	c.sub = SBT_CM_MEM_DEVICE;
	tst_call(t, SBT_CM_K_cuMemAlloc, &c);
}

/* fill(p, value, stride, n) on fn, stream. */
static uint64_t tst_launch(tst_trace *t, uint64_t fn, uint64_t stream, uint64_t p)
{
	uint8_t params[24] = {0}, layout[4 * SBT_CM_LAYOUT_BYTES];
	uint32_t v[3] = {1000, 3, TST_N};
	sbt_cm_call c;
	for (int i = 0; i < 8; i++)
		params[i] = (uint8_t)(p >> (8 * i));
	memcpy(params + 8, v, sizeof(v));
	sbt_cm_layout_put(layout, 0, 8);
	sbt_cm_layout_put(layout + 8, 8, 4);
	sbt_cm_layout_put(layout + 16, 12, 4);
	sbt_cm_layout_put(layout + 24, 16, 4);
	sbt_cm_call_init(&c);
	c.handle = fn;
	c.name = (const uint8_t *)"fill";
	c.name_len = 4;
	c.grid_x = 2, c.grid_y = 1, c.grid_z = 1;
	c.block_x = 128, c.block_y = 1, c.block_z = 1;
	c.stream = stream;
	c.params = params;
	c.params_len = sizeof(params);
	c.layout = layout;
	c.layout_len = sizeof(layout);
	return tst_call(t, SBT_CM_K_cuLaunchKernel, &c);
}

/* A device->host copy of the whole allocation and its checkpoint, whose
 * hash is of what fill computes. */
static void tst_download(tst_trace *t)
{
	uint32_t want[TST_N];
	sbt_checkpoint cp = {0};
	uint8_t *enc = NULL;
	size_t enc_len = 0;
	sbt_record r = {0};
	sbt_cm_call c;
	for (unsigned i = 0; i < TST_N; i++)
		want[i] = 1000 + 3 * i;
	sbt_cm_call_init(&c);
	c.src = TST_ADDR;
	c.size = sizeof(want);
	c.host = 0x1234;
	c.sub = SBT_CM_COPY_DTOH;
	TST_REQUIRE(sbt_checkpoint_compute(want, sizeof(want), &cp) == SBT_OK);
	cp.call_seq = tst_call(t, SBT_CM_K_cuMemcpyDtoH, &c);
	cp.object = TST_ADDR;
	TST_REQUIRE(sbt_checkpoint_encode(&cp, &enc, &enc_len) == SBT_OK);
	r.type = SBT_TYPE_CHECKPOINT;
	r.seq = ++t->seq;
	r.payload = enc;
	r.payload_len = enc_len;
	TST_REQUIRE(sbt_writer_append(t->w, &r) == SBT_OK);
	free(enc);
	sbt_checkpoint_free(&cp);
}

/* Replays path record by record; returns the first failure (RP_OK when
 * none) with its message in diag; *matched counts checkpoints whose bytes
 * hash as captured. */
static rp_status tst_replay(const char *path, const char *option, rp_diag *diag, int *matched)
{
	sbt_reader *r = NULL;
	rp_backend_open_args args = {0};
	rp_option_value opt = {option, NULL};
	void *state = NULL;
	sbt_record rec;
	rp_status st;

	*matched = 0;
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	args.trace = r;
	args.trace_path = path;
	args.quiet = 1;
	args.options = option ? &opt : NULL;
	args.noptions = option ? 1 : 0;
	st = rpc_backend_ops.open(&args, &state, diag);
	if (st != RP_OK)
		goto out_close;
	{
		/* a second reader to iterate, as the core does */
		sbt_reader *it = NULL;
		TST_REQUIRE(sbt_reader_open(path, NULL, &it) == SBT_OK);
		while (st == RP_OK && sbt_reader_next(it, &rec) == SBT_OK) {
			if (rec.type == SBT_TYPE_CHECKPOINT) {
				sbt_checkpoint cp;
				const void *bytes = NULL;
				TST_REQUIRE(sbt_checkpoint_decode(rec.payload, rec.payload_len, &cp) == SBT_OK);
				st = rpc_backend_ops.checkpoint(state, &cp, &bytes, diag);
				if (st == RP_OK) {
					rp_check_result res;
					rp_diag d = {""};
					TST_REQUIRE(rp_check_bytes(&cp, bytes, cp.length, &res, &d) == RP_OK);
					*matched += res.match;
				}
				sbt_checkpoint_free(&cp);
			} else if (rec.type >= SBT_TYPE_FIRST_API) {
				st = rpc_backend_ops.execute(state, &rec, 0, diag);
			}
		}
		sbt_reader_close(it);
	}
	rpc_backend_ops.close(state);
out_close:
	sbt_reader_close(r);
	return st;
}

static void tst_expect_error(const char *path, rp_status want, const char *text)
{
	rp_diag d = {""};
	int matched;
	rp_status st = tst_replay(path, NULL, &d, &matched);
	TST_CHECK_EQ_U64(st, want);
	if (!strstr(d.text, text)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", d.text, text);
		tst_failures++;
	}
}

static void tst_good(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	int matched = 0;
	sbt_cm_call c;
	uint32_t zero[TST_N] = {0};
	tst_begin(&t, path);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.dst = TST_ADDR;
	c.size = sizeof(zero);
	c.blob = tst_blob(&t, zero, sizeof(zero));
	c.sub = SBT_CM_COPY_HTOD;
	tst_call(&t, SBT_CM_K_cuMemcpyHtoD, &c);
	tst_launch(&t, TST_FN, 0, TST_ADDR);
	tst_download(&t);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);

	TST_CHECK_EQ_U64(tst_replay(path, NULL, &d, &matched), RP_OK);
	if (d.text[0])
		fprintf(stderr, "good trace: %s\n", d.text);
	TST_CHECK_EQ_U64(matched, 1);
	/* Not at the captured address: the pointer parameter is rewritten. */
	d.text[0] = '\0';
	TST_CHECK_EQ_U64(tst_replay(path, "--cuda-no-reserve", &d, &matched), RP_OK);
	if (d.text[0])
		fprintf(stderr, "good trace, no reserve: %s\n", d.text);
	TST_CHECK_EQ_U64(matched, 1);
}

int main(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], dir[] = "/tmp/tst_rpcuda.XXXXXX";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	tst_trace t;
	sbt_cm_call c;
	size_t i;
	char traces[8][PATH_MAX + 32];

	TST_REQUIRE(n > 0);
	exe[n] = '\0';
	snprintf(tst_dir, sizeof(tst_dir), "%s", dirname(exe));
	snprintf(path, sizeof(path), "%s/doubles/cuda/libcuda.so.1", tst_dir);
	if (access(path, R_OK) != 0) {
		puts("no CUDA toolkit headers: the libcuda double is not built");
		return 77;
	}
	setenv("TRACESMITH_CUDA_DRIVER", path, 1);
	setenv("TSCUDA_DOUBLE_QUIET", "1", 1);
	snprintf(path, sizeof(path), "%s/doubles/cuda/modules/kernels.so", tst_dir);
	tst_image = tst_read(path, &tst_image_len);
	TST_REQUIRE(mkdtemp(dir) != NULL);
	for (i = 0; i < 8; i++)
		snprintf(traces[i], sizeof(traces[i]), "%s/t%zu.sbt", dir, i);

	tst_good(traces[0]);

	/* A launch of a function the trace never obtained. */
	tst_begin(&t, traces[1]);
	tst_prologue(&t);
	tst_launch(&t, 0xbadf, 0, TST_ADDR);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[1], RP_ERR_NOT_FOUND,
	                 "record seq 8 (cuda.cuLaunchKernel): function 0xbadf (kernel 'fill') was never "
	                 "obtained in the trace");

	/* ... on a stream it never created. */
	tst_begin(&t, traces[2]);
	tst_prologue(&t);
	tst_launch(&t, TST_FN, 0x5151, TST_ADDR);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[2], RP_ERR_NOT_FOUND,
	                 "record seq 8 (cuda.cuLaunchKernel): stream 0x5151 was never created in the trace");

	/* An upload to an address no allocation holds, and one past the end. */
	tst_begin(&t, traces[3]);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.dst = TST_ADDR + TST_N * 4 - 4;
	c.size = 8;
	c.blob = tst_blob(&t, "12345678", 8);
	tst_call(&t, SBT_CM_K_cuMemcpyHtoD, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[3], RP_ERR_TRACE, "record seq 8 (cuda.cuMemcpyHtoD): destination "
	                 "0x5a5a000013fc + 8 runs past the end of the allocation 0x5a5a00001000 "
	                 "(1024 bytes, seq 7)");
	tst_begin(&t, traces[3]);
	tst_prologue(&t);
	c.dst = 0x1000;
	tst_call(&t, SBT_CM_K_cuMemcpyHtoD, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[3], RP_ERR_TRACE, "record seq 8 (cuda.cuMemcpyHtoD): destination 0x1000 "
	                 "(8 bytes) lies in no allocation the trace made");

	/* A record type the model does not have. */
	tst_begin(&t, traces[4]);
	tst_prologue(&t);
	TST_REQUIRE(sbt_writer_define_type(t.w, 0x2f00, "cuda.cuFooBar") == SBT_OK);
	sbt_cm_call_init(&c);
	tst_rec(&t, 0x2f00, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[4], RP_ERR_UNSUPPORTED, "record seq 8 (cuda.cuFooBar): type 12032 is "
	                 "not a call of the CUDA record model");

	/* A graph launch. */
	tst_begin(&t, traces[5]);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.handle = 0x6a6a;
	tst_call(&t, SBT_CM_K_cuGraphLaunch, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[5], RP_ERR_UNSUPPORTED, "record seq 8 (cuda.cuGraphLaunch): graph replay "
	                 "is not supported yet (graph exec 0x6a6a)");

	/* Waiting on an event the trace never created. */
	tst_begin(&t, traces[6]);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.event = 0xe7e7;
	tst_call(&t, SBT_CM_K_cuEventSynchronize, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[6], RP_ERR_NOT_FOUND, "record seq 8 (cuda.cuEventSynchronize): event "
	                 "0xe7e7 was never created in the trace");

	/* A checkpoint of a copy that failed at capture (so it is not replayed). */
	{
		tst_begin(&t, traces[7]);
		tst_prologue(&t);
		sbt_cm_call_init(&c);
		c.src = TST_ADDR;
		c.size = 16;
		c.result = 1; /* CUDA_ERROR_INVALID_VALUE */
		tst_call(&t, SBT_CM_K_cuMemcpyDtoH, &c);
		{
			uint8_t zeros[16] = {0}, *enc = NULL;
			size_t enc_len = 0;
			sbt_checkpoint cp = {0};
			sbt_record r = {0};
			TST_REQUIRE(sbt_checkpoint_compute(zeros, sizeof(zeros), &cp) == SBT_OK);
			cp.call_seq = t.seq;
			cp.object = TST_ADDR;
			TST_REQUIRE(sbt_checkpoint_encode(&cp, &enc, &enc_len) == SBT_OK);
			r.type = SBT_TYPE_CHECKPOINT;
			r.seq = ++t.seq;
			r.payload = enc;
			r.payload_len = enc_len;
			TST_REQUIRE(sbt_writer_append(t.w, &r) == SBT_OK);
			free(enc);
			sbt_checkpoint_free(&cp);
		}
		TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
		tst_expect_error(traces[7], RP_ERR_NOT_FOUND, "this replay made no device-to-host copy at seq 8");
	}

	for (i = 0; i < 8; i++)
		unlink(traces[i]);
	rmdir(dir);
	free(tst_image);
	return tst_failures ? 1 : 0;
}
#else
int main(void)
{
	puts("no CUDA toolkit headers: the CUDA replay backend is not built");
	return 77;
}
#endif
