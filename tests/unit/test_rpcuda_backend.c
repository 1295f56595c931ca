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
 *     have, a graph launch of an exec the trace did not build (neither
 *     by stream capture nor node by node), a checkpoint of a copy that
 *     was never made;
 *   - same-address replay in a VA window (tsVaWindow, and the default
 *     window of traces without one): exact addresses, granules shared by
 *     allocations with reference counts, the program's own reservation
 *     inside the window, stream-ordered allocations, addresses again in a
 *     second run, the fallback when the window is taken;
 *   - contexts named without a creation (the inferred primary context),
 *     cuCtxSynchronize of a named context, no-op frees, calls that failed
 *     at capture and what they "returned", cuLaunchHostFunc's note,
 *     attributes and JIT options, a graph built by stream capture replayed
 *     with its checkpoint equal, module image architectures, and the
 *     double's not-run report (through a shim exporting its counter).
 */
#include "tests/support/tst.h"

#ifdef TS_HAVE_CUDA
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replayer/cuda/rpcu_backend.h"
#include "replayer/cuda/rpcu_internal.h"
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

/* How the prologue names its context. */
enum { TST_CTX_RETAINED, TST_CTX_UNNAMED, TST_CTX_INFERRED };

/* Context (retained, first seen in cuCtxSetCurrent, or retained by an
 * inferred record), module and the "fill" function. */
static void tst_prologue_ctx(tst_trace *t, int how)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	tst_call(t, SBT_CM_K_cuInit, &c);
	sbt_cm_call_init(&c);
	tst_call(t, SBT_CM_K_cuDeviceGet, &c);
	sbt_cm_call_init(&c);
	c.ctx = TST_CTX;
	c.sub = how == TST_CTX_INFERRED;
	if (how != TST_CTX_UNNAMED)
		tst_call(t, SBT_CM_K_cuDevicePrimaryCtxRetain, &c);
	c.sub = 0;
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
}

static uint64_t tst_alloc(tst_trace *t, sbt_cm_kind k, uint64_t addr, uint64_t size)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = addr;
	c.size = size;
	c.sub = k == SBT_CM_K_cuMemAllocAsync ? SBT_CM_MEM_ASYNC : SBT_CM_MEM_DEVICE;
	return tst_call(t, k, &c);
}

static uint64_t tst_free(tst_trace *t, sbt_cm_kind k, uint64_t addr)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	if (k == SBT_CM_K_cuMemFreeHost)
		c.host = addr;
	else
		c.dst = addr;
	return tst_call(t, k, &c);
}

/* Context, module and the "fill" function, then one allocation. */
static void tst_prologue(tst_trace *t)
{
	tst_prologue_ctx(t, TST_CTX_RETAINED);
	tst_alloc(t, SBT_CM_K_cuMemAlloc, TST_ADDR, TST_N * 4);
}

/* fill(p, value, stride, n) on fn, stream; capture: recorded while the
 * stream was being captured into a graph. */
static uint64_t tst_launch_cap(tst_trace *t, uint64_t fn, uint64_t stream, uint64_t p, uint64_t capture)
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
	c.capture_status = capture;
	return tst_call(t, SBT_CM_K_cuLaunchKernel, &c);
}

static uint64_t tst_launch(tst_trace *t, uint64_t fn, uint64_t stream, uint64_t p)
{
	return tst_launch_cap(t, fn, stream, p, 0);
}

/* A checkpoint of the copy at seq call_seq, of `bytes` read from addr. */
static void tst_checkpoint(tst_trace *t, uint64_t call_seq, uint64_t addr, const void *bytes, size_t len)
{
	sbt_checkpoint cp = {0};
	uint8_t *enc = NULL;
	size_t enc_len = 0;
	sbt_record r = {0};
	TST_REQUIRE(sbt_checkpoint_compute(bytes, len, &cp) == SBT_OK);
	cp.call_seq = call_seq;
	cp.object = addr;
	TST_REQUIRE(sbt_checkpoint_encode(&cp, &enc, &enc_len) == SBT_OK);
	r.type = SBT_TYPE_CHECKPOINT;
	r.seq = ++t->seq;
	r.payload = enc;
	r.payload_len = enc_len;
	TST_REQUIRE(sbt_writer_append(t->w, &r) == SBT_OK);
	free(enc);
	sbt_checkpoint_free(&cp);
}

/* A device->host copy of TST_N words at addr and its checkpoint, whose
 * hash is of what fill computes (zeros = 1: of zeros, what was uploaded). */
static void tst_download_at(tst_trace *t, uint64_t addr, int zeros)
{
	uint32_t want[TST_N];
	sbt_cm_call c;
	for (unsigned i = 0; i < TST_N; i++)
		want[i] = zeros ? 0 : 1000 + 3 * i;
	sbt_cm_call_init(&c);
	c.src = addr;
	c.size = sizeof(want);
	c.host = 0x1234;
	c.sub = SBT_CM_COPY_DTOH;
	tst_checkpoint(t, tst_call(t, SBT_CM_K_cuMemcpyDtoH, &c), addr, want, sizeof(want));
}

static void tst_download(tst_trace *t)
{
	tst_download_at(t, TST_ADDR, 0);
}

/* TST_N zero words to addr (async on stream when async). */
static void tst_upload_zero(tst_trace *t, uint64_t addr, int async, uint64_t stream, uint64_t capture)
{
	static const uint32_t zero[TST_N];
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = addr;
	c.size = sizeof(zero);
	c.blob = tst_blob(t, zero, sizeof(zero));
	c.sub = SBT_CM_COPY_HTOD;
	c.stream = stream;
	c.capture_status = capture;
	tst_call(t, async ? SBT_CM_K_cuMemcpyHtoDAsync : SBT_CM_K_cuMemcpyHtoD, &c);
}

/* Called before (after = 0) and after (after = 1) each API record. */
typedef void (*tst_hook)(rpcu_state *s, const sbt_record *rec, int after);

/* How tst_replay_ex replays: options, runs (reset between them), a hook,
 * quiet or not; results: checkpoints matched, and not compared (the
 * backend gave no bytes). */
typedef struct tst_run {
	const rp_option_value *opts;
	size_t nopts;
	unsigned runs;
	tst_hook hook;
	int loud;
	int matched, not_compared;
} tst_run;

/* Replays path record by record, as the core does; returns the first
 * failure (RP_OK when none) with its message in diag. */
static rp_status tst_replay_ex(const char *path, tst_run *run, rp_diag *diag)
{
	sbt_reader *r = NULL;
	rp_backend_open_args args = {0};
	void *state = NULL;
	sbt_record rec;
	rp_status st;
	unsigned n;

	run->matched = run->not_compared = 0;
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	args.trace = r;
	args.trace_path = path;
	args.quiet = !run->loud;
	args.options = run->opts;
	args.noptions = run->nopts;
	st = rpcu_backend_ops.open(&args, &state, diag);
	if (st != RP_OK)
		goto out_close;
	for (n = 0; n < (run->runs ? run->runs : 1) && st == RP_OK; n++) {
		/* a second reader to iterate, as the core does */
		sbt_reader *it = NULL;
		if (n)
			TST_REQUIRE(rpcu_backend_ops.reset(state, diag) == RP_OK);
		TST_REQUIRE(sbt_reader_open(path, NULL, &it) == SBT_OK);
		while (st == RP_OK && sbt_reader_next(it, &rec) == SBT_OK) {
			if (rec.type == SBT_TYPE_CHECKPOINT) {
				sbt_checkpoint cp;
				const void *bytes = NULL;
				TST_REQUIRE(sbt_checkpoint_decode(rec.payload, rec.payload_len, &cp) == SBT_OK);
				st = rpcu_backend_ops.checkpoint(state, &cp, &bytes, diag);
				if (st == RP_OK && !bytes) {
					run->not_compared++;
				} else if (st == RP_OK) {
					rp_check_result res;
					rp_diag d = {""};
					TST_REQUIRE(rp_check_bytes(&cp, bytes, cp.length, &res, &d) == RP_OK);
					run->matched += res.match;
				}
				sbt_checkpoint_free(&cp);
			} else if (rec.type >= SBT_TYPE_FIRST_API) {
				if (run->hook)
					run->hook(state, &rec, 0);
				st = rpcu_backend_ops.execute(state, &rec, 0, diag);
				if (run->hook && st == RP_OK)
					run->hook(state, &rec, 1);
			}
		}
		sbt_reader_close(it);
	}
	rpcu_backend_ops.close(state);
out_close:
	sbt_reader_close(r);
	return st;
}

static rp_status tst_replay(const char *path, const char *option, rp_diag *diag, int *matched)
{
	rp_option_value opt = {option, NULL};
	tst_run run = {0};
	rp_status st;
	run.opts = option ? &opt : NULL;
	run.nopts = option ? 1 : 0;
	st = tst_replay_ex(path, &run, diag);
	*matched = run.matched;
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

/* ---- same-address replay in a window -------------------------------------------------- */

static const char *tst_main_args[4];
static char tst_main_out[4096];
static rp_status tst_main_run(const char *path, tst_run *run, rp_diag *d);
static const char *tst_stderr_of(rp_status (*fn)(const char *, tst_run *, rp_diag *), const char *path,
                                 tst_run *run, rp_diag *d, rp_status *st);

#define TST_WIN 0x300000000000ull          /* a tsVaWindow record's window */
#if defined(__SANITIZE_THREAD__)
#define TST_UNDER_TSAN 1
#else
#define TST_UNDER_TSAN 0
#endif
#define TST_WIN_SIZE ((uint64_t)512 << 30) /* as capture reserves: the size a real driver honours */
#define TST_MIB ((uint64_t)1 << 20)

static uint64_t tst_seq_a, tst_seq_b, tst_seq_c, tst_seq_free_a, tst_seq_free_b, tst_seq_end;
static uint64_t tst_live_b[2];
static unsigned tst_hook_runs;

static long tst_range_at(rpcu_state *s, uint64_t cap)
{
	long i = rpcu_ranges_find(&s->ranges, cap);
	return i >= 0 && s->ranges.v[i].cap == cap ? i : -1;
}

static unsigned tst_granule_refs(rpcu_state *s, uint64_t addr)
{
	for (size_t i = 0; i < s->ngranules; i++)
		if (s->granules[i].addr == addr)
			return s->granules[i].refs;
	return 0;
}

/* What the window trace must show after each of its records. */
static void tst_window_hook(rpcu_state *s, const sbt_record *rec, int after)
{
	long i;
	if (!after)
		return;
	if (rec->seq == tst_seq_a) {
		TST_CHECK_EQ_U64(s->nwindows, 1);
		TST_CHECK(s->windows[0].reserved);
		i = tst_range_at(s, TST_WIN);
		TST_REQUIRE(i >= 0);
		TST_CHECK_EQ_U64(s->ranges.v[i].live, TST_WIN);
		TST_CHECK(s->ranges.v[i].in_window);
		TST_CHECK_EQ_U64(s->ngranules, 1);
		TST_CHECK_EQ_U64(s->npieces, 0); /* no reservation of its own */
	} else if (rec->seq == tst_seq_b) {
		/* B shares A's granule. */
		i = tst_range_at(s, TST_WIN + 0x400);
		TST_REQUIRE(i >= 0);
		TST_CHECK_EQ_U64(s->ranges.v[i].live, TST_WIN + 0x400);
		TST_CHECK_EQ_U64(s->ngranules, 1);
		TST_CHECK_EQ_U64(tst_granule_refs(s, TST_WIN), 2);
		tst_live_b[tst_hook_runs] = s->ranges.v[i].live;
	} else if (rec->seq == tst_seq_c) {
		/* C spans granules 1 and 2. */
		TST_CHECK_EQ_U64(s->ngranules, 3);
		TST_CHECK_EQ_U64(tst_granule_refs(s, TST_WIN + 2 * TST_MIB), 1);
		TST_CHECK_EQ_U64(tst_granule_refs(s, TST_WIN + 4 * TST_MIB), 1);
	} else if (rec->seq == tst_seq_free_a) {
		TST_CHECK_EQ_U64(s->ngranules, 3); /* B still uses granule 0 */
		TST_CHECK_EQ_U64(tst_granule_refs(s, TST_WIN), 1);
	} else if (rec->seq == tst_seq_free_b) {
		TST_CHECK_EQ_U64(s->ngranules, 2); /* granule 0 unmapped */
		TST_CHECK_EQ_U64(tst_granule_refs(s, TST_WIN), 0);
	} else if (rec->seq == tst_seq_end) {
		tst_hook_runs++;
	}
}

static void tst_window_records(tst_trace *t, uint64_t win)
{
	sbt_cm_call c;
	tst_prologue_ctx(t, TST_CTX_RETAINED);
	if (win == TST_WIN) {
		sbt_cm_call_init(&c);
		c.dst = TST_WIN;
		c.size = TST_WIN_SIZE;
		tst_call(t, SBT_CM_K_tsVaWindow, &c);
	}
	tst_seq_a = tst_alloc(t, SBT_CM_K_cuMemAlloc, win, 0x400);
	tst_seq_b = tst_alloc(t, SBT_CM_K_cuMemAlloc, win + 0x400, TST_N * 4);
	tst_seq_c = tst_alloc(t, SBT_CM_K_cuMemAlloc, win + 3 * TST_MIB, 2 * TST_MIB);
	tst_upload_zero(t, win + 0x400, 0, 0, 0);
	tst_launch(t, TST_FN, 0, win + 0x400);
	tst_download_at(t, win + 0x400, 0);
	tst_seq_free_a = tst_free(t, SBT_CM_K_cuMemFree, win);
	tst_seq_free_b = tst_free(t, SBT_CM_K_cuMemFree, win + 0x400);
	tst_seq_end = tst_free(t, SBT_CM_K_cuMemFree, win + 3 * TST_MIB);
}

static void tst_windows(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	tst_run run = {0};
	rp_option_value noreserve = {"--cuda-no-reserve", NULL};

	/* A tsVaWindow record: exact addresses, shared granules, two runs. */
	tst_begin(&t, path);
	tst_window_records(&t, TST_WIN);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	run.runs = 2;
	run.hook = tst_window_hook;
	tst_hook_runs = 0;
	TST_CHECK_EQ_U64(tst_replay_ex(path, &run, &d), RP_OK);
	if (d.text[0])
		fprintf(stderr, "window trace: %s\n", d.text);
	TST_CHECK_EQ_U64(run.matched, 2);
	TST_CHECK_EQ_U64(tst_hook_runs, 2);
	TST_CHECK_EQ_U64(tst_live_b[0], TST_WIN + 0x400);
	TST_CHECK_EQ_U64(tst_live_b[1], tst_live_b[0]); /* run 2: the same address */
	/* The tool: three runs agree, every checkpoint equal. */
	{
		rp_status st;
		memset(tst_main_args, 0, sizeof(tst_main_args));
		tst_main_args[0] = "--check-determinism";
		tst_stderr_of(tst_main_run, path, &run, &d, &st);
		TST_CHECK_EQ_U64(st, 0);
		TST_CHECK(strstr(tst_main_out, "checkpoints: 1 compared, 1 matched, 0 differ\n") != NULL);
		TST_CHECK(strstr(tst_main_out, "runs agree with each other at every checkpoint") != NULL);
		memset(tst_main_args, 0, sizeof(tst_main_args));
	}

	/* No record, allocations in the default window of device 0. */
	tst_begin(&t, path);
	tst_window_records(&t, RPCU_WINDOW_BASE);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	memset(&run, 0, sizeof(run));
	TST_CHECK_EQ_U64(tst_replay_ex(path, &run, &d), RP_OK);
	TST_CHECK_EQ_U64(run.matched, 1);
	{
		rp_backend_open_args args = {0};
		sbt_reader *r = NULL;
		void *state = NULL;
		rpcu_state *s;
		TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
		args.trace = r;
		args.quiet = 1;
		TST_REQUIRE(rpcu_backend_ops.open(&args, &state, &d) == RP_OK);
		s = state;
		TST_CHECK_EQ_U64(s->nwindows, 1);
		TST_CHECK_EQ_U64(s->windows[0].base, RPCU_WINDOW_BASE);
		TST_CHECK_EQ_U64(s->windows[0].size, RPCU_WINDOW_SIZE);
		TST_CHECK(!s->windows[0].from_record);
		rpcu_backend_ops.close(state);
		sbt_reader_close(r);
	}

	/* --cuda-no-reserve: no window, allocations relocated, still equal. */
	memset(&run, 0, sizeof(run));
	run.opts = &noreserve;
	run.nopts = 1;
	TST_CHECK_EQ_U64(tst_replay_ex(path, &run, &d), RP_OK);
	TST_CHECK_EQ_U64(run.matched, 1);
}

/* The window's address range is taken: the window cannot be had, the
 * allocations fall back to placement one by one (refused too), move, and
 * the pointer parameter is patched. */
static uint64_t tst_moved_live;
static void tst_fallback_hook(rpcu_state *s, const sbt_record *rec, int after)
{
	long i;
	if (!after || rec->seq != tst_seq_b)
		return;
	TST_CHECK(!s->windows[0].reserved);
	TST_CHECK(strstr(s->windows[0].why, "could not be reserved") != NULL);
	i = tst_range_at(s, TST_WIN + 0x400);
	TST_REQUIRE(i >= 0);
	TST_CHECK(!s->ranges.v[i].in_window);
	tst_moved_live = s->ranges.v[i].live;
}

static void tst_window_fallback(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	tst_run run = {0};
	void *blocker;
	tst_begin(&t, path);
	tst_window_records(&t, TST_WIN);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	blocker = mmap((void *)(uintptr_t)TST_WIN, 64 * TST_MIB, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	TST_REQUIRE(blocker == (void *)(uintptr_t)TST_WIN);
	run.hook = tst_fallback_hook;
	run.loud = 1;
	{
		rp_status st;
		const char *err = tst_stderr_of(tst_replay_ex, path, &run, &d, &st);
		const char *w = strstr(err, "tsreplay: cuda: warning: seq ");
		TST_CHECK_EQ_U64(st, RP_OK);
		/* One warning, naming the window and what the driver did. */
		TST_CHECK(w && strstr(w, ": the 1024 bytes captured at 0x300000000000 could not be placed at that "
		                         "address (the 512 GiB window at 0x300000000000 could not be reserved: the "
		                         "driver placed it at 0x") != NULL);
		TST_CHECK(w && !strstr(w + 1, "tsreplay: cuda: warning:"));
		if (tst_failures)
			fprintf(stderr, "fallback said: %s\n", err);
	}
	if (d.text[0])
		fprintf(stderr, "fallback: %s\n", d.text);
	TST_CHECK_EQ_U64(run.matched, 1);
	TST_CHECK(tst_moved_live != 0 && tst_moved_live != TST_WIN + 0x400);
	munmap(blocker, 64 * TST_MIB);
}

/* The program's own reservation inside the window, its own mapping there,
 * and stream-ordered allocations placed in the window. */
static void tst_window_vmm_hook(rpcu_state *s, const sbt_record *rec, int after)
{
	long i;
	if (!after || rec->seq != tst_seq_a)
		return;
	i = tst_range_at(s, TST_WIN + 64 * TST_MIB);
	TST_REQUIRE(i >= 0);
	TST_CHECK(s->ranges.v[i].in_window);
	TST_CHECK_EQ_U64(s->ranges.v[i].live, TST_WIN + 64 * TST_MIB);
	i = tst_range_at(s, TST_WIN + 0x400);
	TST_REQUIRE(i >= 0);
	TST_CHECK(s->ranges.v[i].in_window);
	TST_CHECK_EQ_U64(s->ranges.v[i].live, TST_WIN + 0x400);
}

static void tst_window_vmm(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	tst_run run = {0};
	sbt_cm_call c;
	const uint64_t res = TST_WIN + 64 * TST_MIB;
	tst_begin(&t, path);
	tst_prologue_ctx(&t, TST_CTX_RETAINED);
	sbt_cm_call_init(&c);
	c.dst = TST_WIN;
	c.size = TST_WIN_SIZE;
	tst_call(&t, SBT_CM_K_tsVaWindow, &c);
	sbt_cm_call_init(&c);
	c.dst = res;
	c.size = 4 * TST_MIB;
	c.sub = SBT_CM_MEM_VMM_RESERVE;
	tst_call(&t, SBT_CM_K_cuMemAddressReserve, &c);
	sbt_cm_call_init(&c);
	c.handle = 0x4444;
	c.size = 2 * TST_MIB;
	tst_call(&t, SBT_CM_K_cuMemCreate, &c);
	sbt_cm_call_init(&c);
	c.dst = res;
	c.size = 2 * TST_MIB;
	c.handle = 0x4444;
	tst_call(&t, SBT_CM_K_cuMemMap, &c);
	c.handle = 0;
	c.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	tst_call(&t, SBT_CM_K_cuMemSetAccess, &c);
	tst_alloc(&t, SBT_CM_K_cuMemAllocAsync, TST_WIN + 0x400, TST_N * 4);
	tst_seq_a = t.seq;
	tst_upload_zero(&t, res, 0, 0, 0);
	tst_launch(&t, TST_FN, 0, res);
	tst_download_at(&t, res, 0);
	tst_upload_zero(&t, TST_WIN + 0x400, 0, 0, 0);
	tst_launch(&t, TST_FN, 0, TST_WIN + 0x400);
	tst_download_at(&t, TST_WIN + 0x400, 0);
	tst_free(&t, SBT_CM_K_cuMemFreeAsync, TST_WIN + 0x400);
	sbt_cm_call_init(&c);
	c.dst = res;
	c.size = 2 * TST_MIB;
	tst_call(&t, SBT_CM_K_cuMemUnmap, &c);
	sbt_cm_call_init(&c);
	c.handle = 0x4444;
	tst_call(&t, SBT_CM_K_cuMemRelease, &c);
	sbt_cm_call_init(&c);
	c.dst = res;
	c.size = 4 * TST_MIB;
	tst_call(&t, SBT_CM_K_cuMemAddressFree, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	run.hook = tst_window_vmm_hook;
	run.runs = 2;
	TST_CHECK_EQ_U64(tst_replay_ex(path, &run, &d), RP_OK);
	if (d.text[0])
		fprintf(stderr, "window vmm: %s\n", d.text);
	TST_CHECK_EQ_U64(run.matched, 4);
}

/* ---- contexts, frees, failed calls ----------------------------------------------------- */

static void tst_contexts(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	int matched = 0, how;
	sbt_cm_call c;
	for (how = TST_CTX_UNNAMED; how <= TST_CTX_INFERRED; how++) {
		tst_begin(&t, path);
		tst_prologue_ctx(&t, how);
		tst_alloc(&t, SBT_CM_K_cuMemAlloc, TST_ADDR, TST_N * 4);
		tst_upload_zero(&t, TST_ADDR, 0, 0, 0);
		tst_launch(&t, TST_FN, 0, TST_ADDR);
		sbt_cm_call_init(&c);
		c.ctx = TST_CTX; /* cuCtxSynchronize_v2(ctx) */
		tst_call(&t, SBT_CM_K_cuCtxSynchronize, &c);
		/* a second context the trace never made, pushed: the primary one too */
		c.ctx = 0xc1c1;
		tst_call(&t, SBT_CM_K_cuCtxPushCurrent, &c);
		tst_call(&t, SBT_CM_K_cuCtxPopCurrent, &c);
		tst_download(&t);
		TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
		d.text[0] = '\0';
		TST_CHECK_EQ_U64(tst_replay(path, NULL, &d, &matched), RP_OK);
		if (d.text[0])
			fprintf(stderr, "context mode %d: %s\n", how, d.text);
		TST_CHECK_EQ_U64(matched, 1);
	}
}

static void tst_frees_and_failures(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	int matched = 0;
	sbt_cm_call c;
	tst_begin(&t, path);
	tst_prologue(&t);
	/* What the driver accepts as no-ops. */
	tst_free(&t, SBT_CM_K_cuMemFree, 0);
	tst_free(&t, SBT_CM_K_cuMemFreeAsync, 0);
	tst_free(&t, SBT_CM_K_cuMemFreeHost, 0);
	/* Calls that failed at capture, and later calls naming what they
	 * "returned": not re-issued, nothing errors. */
	sbt_cm_call_init(&c);
	c.dst = 0x7e7e00000000ull;
	c.size = (uint64_t)1 << 40;
	c.result = CUDA_ERROR_OUT_OF_MEMORY;
	tst_call(&t, SBT_CM_K_cuMemAlloc, &c);
	tst_free(&t, SBT_CM_K_cuMemFree, 0x7e7e00000000ull);
	sbt_cm_call_init(&c);
	c.handle = 0xbad0;
	c.blob = tst_blob(&t, "not an image", 12);
	c.size = 12;
	c.result = CUDA_ERROR_NO_BINARY_FOR_GPU;
	tst_call(&t, SBT_CM_K_cuModuleLoadData, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xbad1;
	c.parent = 0xbad0;
	c.name = (const uint8_t *)"fill";
	c.name_len = 4;
	tst_call(&t, SBT_CM_K_cuModuleGetFunction, &c);
	tst_launch(&t, 0xbad1, 0, TST_ADDR);
	sbt_cm_call_init(&c);
	c.handle = 0xbad2;
	c.result = CUDA_ERROR_INVALID_VALUE;
	tst_call(&t, SBT_CM_K_cuStreamCreate, &c);
	tst_launch(&t, TST_FN, 0xbad2, TST_ADDR);
	/* The same value made for real later (the program's variable reused):
	 * no longer skipped. */
	sbt_cm_call_init(&c);
	c.handle = 0xbad2;
	tst_call(&t, SBT_CM_K_cuStreamCreate, &c);
	tst_upload_zero(&t, TST_ADDR, 0, 0, 0);
	tst_launch(&t, TST_FN, 0xbad2, TST_ADDR);
	tst_download(&t);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	TST_CHECK_EQ_U64(tst_replay(path, NULL, &d, &matched), RP_OK);
	if (d.text[0])
		fprintf(stderr, "frees and failures: %s\n", d.text);
	TST_CHECK_EQ_U64(matched, 1);
}

/* ---- host functions, attributes, JIT options ------------------------------------------------ */

/* Runs fn with stderr going to a file; returns what it wrote (static). */
static const char *tst_stderr_of(rp_status (*fn)(const char *, tst_run *, rp_diag *), const char *path,
                                 tst_run *run, rp_diag *d, rp_status *st)
{
	static char text[4096];
	char name[] = "/tmp/tst_rpcuda_err.XXXXXX";
	int fd = mkstemp(name), saved = dup(2);
	ssize_t n;
	TST_REQUIRE(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	*st = fn(path, run, d);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(name);
	return text;
}

static void tst_host_func_and_attributes(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	tst_run run = {0};
	sbt_cm_call c;
	uint8_t jit[3 * SBT_CM_JIT_BYTES] = {0};
	const char *err;
	rp_status st;
	tst_begin(&t, path);
	tst_prologue(&t);
	/* JIT options: a register limit (a value), a log buffer and its size
	 * (a pointer into the capturing process: dropped). */
	jit[0] = CU_JIT_MAX_REGISTERS;
	jit[8] = 32;
	jit[16] = CU_JIT_INFO_LOG_BUFFER;
	jit[24 + 5] = 0x7f;
	jit[32] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
	jit[40 + 1] = 0x10;
	sbt_cm_call_init(&c);
	c.handle = 0xd1d1;
	c.blob = tst_blob(&t, tst_image, tst_image_len);
	c.size = tst_image_len;
	c.jit = jit;
	c.jit_len = sizeof(jit);
	tst_call(&t, SBT_CM_K_cuModuleLoadDataEx, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_FN;
	c.attr = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
	c.ivalue = 1024;
	tst_call(&t, SBT_CM_K_cuFuncSetAttribute, &c);
	tst_upload_zero(&t, TST_ADDR, 0, 0, 0);
	sbt_cm_call_init(&c);
	tst_call(&t, SBT_CM_K_cuLaunchHostFunc, &c);
	tst_launch(&t, TST_FN, 0, TST_ADDR);
	tst_call(&t, SBT_CM_K_cuLaunchHostFunc, &c);
	tst_download(&t);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	run.loud = 1;
	err = tst_stderr_of(tst_replay_ex, path, &run, &d, &st);
	TST_CHECK_EQ_U64(st, RP_OK);
	if (d.text[0])
		fprintf(stderr, "host func: %s\n", d.text);
	TST_CHECK_EQ_U64(run.matched, 1);
	/* Said once, with the first one's seq. */
	TST_CHECK(strstr(err, "tsreplay: cuda: note: seq 11: cuLaunchHostFunc: host functions are not "
	                      "run on replay; each keeps its place in stream order") != NULL);
	TST_CHECK(strstr(strstr(err, "cuLaunchHostFunc") + 1, "cuLaunchHostFunc:") == NULL);

	/* An attribute of a function the trace never obtained. */
	tst_begin(&t, path);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.handle = 0xf00d;
	c.attr = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
	c.ivalue = 1024;
	tst_call(&t, SBT_CM_K_cuFuncSetAttribute, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(path, RP_ERR_NOT_FOUND, "record seq 8 (cuda.cuFuncSetAttribute): function 0xf00d "
	                 "was never created in the trace");
}

/* ---- graphs built by stream capture ------------------------------------------------------------ */

#define TST_STREAM 0x5757ull
#define TST_GRAPH 0x6060ull
#define TST_EXEC 0x6161ull

static void tst_graph(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	int matched = 0;
	sbt_cm_call c;
	tst_begin(&t, path);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.handle = TST_STREAM;
	c.flags = CU_STREAM_NON_BLOCKING;
	tst_call(&t, SBT_CM_K_cuStreamCreate, &c);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	c.flags = CU_STREAM_CAPTURE_MODE_GLOBAL;
	tst_call(&t, SBT_CM_K_cuStreamBeginCapture, &c);
	tst_upload_zero(&t, TST_ADDR, 1, TST_STREAM, 1);
	tst_launch_cap(&t, TST_FN, TST_STREAM, TST_ADDR, 1);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	c.handle = TST_GRAPH;
	tst_call(&t, SBT_CM_K_cuStreamEndCapture, &c);
	/* Nothing ran yet: the allocation holds what the driver gave it. */
	sbt_cm_call_init(&c);
	c.handle = TST_EXEC;
	c.parent = TST_GRAPH;
	tst_call(&t, SBT_CM_K_cuGraphInstantiate, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_EXEC;
	c.stream = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuGraphLaunch, &c);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuStreamSynchronize, &c);
	tst_download(&t);
	sbt_cm_call_init(&c);
	c.handle = TST_EXEC;
	tst_call(&t, SBT_CM_K_cuGraphExecDestroy, &c);
	c.handle = TST_GRAPH;
	tst_call(&t, SBT_CM_K_cuGraphDestroy, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	TST_CHECK_EQ_U64(tst_replay(path, NULL, &d, &matched), RP_OK);
	if (d.text[0])
		fprintf(stderr, "graph: %s\n", d.text);
	TST_CHECK_EQ_U64(matched, 1);
	/* One stream: no capture to rebuild the graph with; refused by name. */
	d.text[0] = '\0';
	{
		rp_option_value single = {"--streams", "single"};
		tst_run run = {0};
		run.opts = &single;
		run.nopts = 1;
		TST_CHECK_EQ_U64(tst_replay_ex(path, &run, &d), RP_ERR_UNSUPPORTED);
		TST_CHECK(strstr(d.text, "(cuda.cuGraphLaunch): graphs are not rebuilt with --streams single") !=
		          NULL);
	}
}

/* A capture that ended in failure at capture (invalidated): the replay's
 * capture of the stream ends too, and later work on the stream runs. */
static void tst_graph_invalidated(const char *path)
{
	tst_trace t;
	rp_diag d = {""};
	int matched = 0;
	sbt_cm_call c;
	tst_begin(&t, path);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.handle = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuStreamCreate, &c);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuStreamBeginCapture, &c);
	tst_launch_cap(&t, TST_FN, TST_STREAM, TST_ADDR, 1);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	c.handle = TST_GRAPH;
	c.result = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	tst_call(&t, SBT_CM_K_cuStreamEndCapture, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_EXEC;
	c.parent = TST_GRAPH;
	tst_call(&t, SBT_CM_K_cuGraphInstantiate, &c); /* names what the failed call returned */
	tst_upload_zero(&t, TST_ADDR, 1, TST_STREAM, 0);
	tst_launch(&t, TST_FN, TST_STREAM, TST_ADDR);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuStreamSynchronize, &c);
	tst_download(&t);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	TST_CHECK_EQ_U64(tst_replay(path, NULL, &d, &matched), RP_OK);
	if (d.text[0])
		fprintf(stderr, "invalidated capture: %s\n", d.text);
	TST_CHECK_EQ_U64(matched, 1);
}

/* A replay that starts at a keyframe (--range) after a graph was captured
 * in a window: restoring rebuilds the allocation at its address and the
 * graph from its captured work, and the launch after the keyframe
 * computes the checkpoint. */
static void tst_graph_keyframe(const char *path)
{
	static const uint32_t junk[TST_N] = {7, 7, 7};
	tst_trace t;
	rp_diag d = {""};
	tst_run run = {0};
	sbt_cm_call c;
	uint8_t buf[256];
	size_t len = 0;
	sbt_record r = {0};
	uint64_t kf;
	char range[32];
	rp_status st;
	const uint64_t b = TST_WIN + 0x400;

	tst_begin(&t, path);
	tst_prologue_ctx(&t, TST_CTX_UNNAMED);
	sbt_cm_call_init(&c);
	c.dst = TST_WIN;
	c.size = TST_WIN_SIZE;
	tst_call(&t, SBT_CM_K_tsVaWindow, &c);
	tst_alloc(&t, SBT_CM_K_cuMemAlloc, b, TST_N * 4);
	sbt_cm_call_init(&c);
	c.handle = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuStreamCreate, &c);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuStreamBeginCapture, &c);
	tst_upload_zero(&t, b, 1, TST_STREAM, 1);
	tst_launch_cap(&t, TST_FN, TST_STREAM, b, 1);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	c.handle = TST_GRAPH;
	tst_call(&t, SBT_CM_K_cuStreamEndCapture, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_EXEC;
	c.parent = TST_GRAPH;
	tst_call(&t, SBT_CM_K_cuGraphInstantiate, &c);
	/* the keyframe: one snapshot of the allocation (junk the graph overwrites) */
	sbt_cm_call_init(&c);
	c.count = 1;
	c.sub = SBT_CM_KF_BEFORE_LAUNCH;
	TST_REQUIRE(sbt_cm_encode(&c, buf, sizeof(buf), &len) == SBT_OK);
	r.type = SBT_TYPE_KEYFRAME;
	r.seq = kf = ++t.seq;
	r.payload = buf;
	r.payload_len = len;
	TST_REQUIRE(sbt_writer_append(t.w, &r) == SBT_OK);
	sbt_cm_call_init(&c);
	c.dst = b;
	c.size = sizeof(junk);
	c.blob = tst_blob(&t, junk, sizeof(junk));
	c.sub = SBT_CM_MEM_DEVICE;
	tst_call(&t, SBT_CM_K_tsSnapshot, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_EXEC;
	c.stream = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuGraphLaunch, &c);
	sbt_cm_call_init(&c);
	c.stream = TST_STREAM;
	tst_call(&t, SBT_CM_K_cuStreamSynchronize, &c);
	tst_download_at(&t, b, 0);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);

	snprintf(range, sizeof(range), "%llu:", (unsigned long long)kf + 1);
	memset(tst_main_args, 0, sizeof(tst_main_args));
	tst_main_args[0] = "--range";
	tst_main_args[1] = range;
	tst_stderr_of(tst_main_run, path, &run, &d, &st);
	TST_CHECK_EQ_U64(st, 0);
	TST_CHECK(strstr(tst_main_out, "from the keyframe at seq") != NULL);
	TST_CHECK(strstr(tst_main_out, "checkpoints: 1 compared, 1 matched, 0 differ\n") != NULL);
	if (tst_failures || getenv("TST_VERBOSE"))
		fprintf(stderr, "graph keyframe: %s\n", tst_main_out);
	memset(tst_main_args, 0, sizeof(tst_main_args));
}

/* ---- module image architectures ---------------------------------------------------------------- */

static void tst_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void tst_image_arch(void)
{
	char path[PATH_MAX + 64], buf[96];
	uint8_t fat[16 + 2 * (64 + 16)] = {0}, *e;
	size_t len;
	void *cubin;
	/* The real sm_90 cubin (ELF ABI 8: the SM in e_flags bits 8..15). */
	snprintf(path, sizeof(path), "%s/../../tests/fixtures/h100/gpu_driver_kernels.cubin", tst_dir);
	if (access(path, R_OK) != 0)
		snprintf(path, sizeof(path), "tests/fixtures/h100/gpu_driver_kernels.cubin");
	cubin = tst_read(path, &len);
	TST_CHECK_EQ_U64(rpcu_image_arch(cubin, len, buf, sizeof(buf)), 90);
	TST_CHECK(strcmp(buf, "sm_90") == 0);
	/* Truncated: not read past its end. */
	TST_CHECK_EQ_U64(rpcu_image_arch(cubin, 40, buf, sizeof(buf)), 0);
	free(cubin);
	/* The real fatbin of gpu_saxpy (blob 2 of its fixed-va trace): an
	 * sm_90 cubin and sm_90 PTX. */
	snprintf(path, sizeof(path), "%s/../../tests/fixtures/h100/gpu_saxpy.fatbin", tst_dir);
	if (access(path, R_OK) != 0)
		snprintf(path, sizeof(path), "tests/fixtures/h100/gpu_saxpy.fatbin");
	cubin = tst_read(path, &len);
	TST_CHECK_EQ_U64(rpcu_image_arch(cubin, len, buf, sizeof(buf)), 90);
	TST_CHECK(strcmp(buf, "sm_90, sm_90 (PTX)") == 0);
	/* Untrusted bytes: every truncation and seeded byte changes of the real
	 * fatbin read nothing outside the length given (run under ASan). */
	{
		uint8_t *m = malloc(len);
		uint32_t x = 0x9e3779b9u;
		TST_REQUIRE(m != NULL);
		for (size_t n = 0; n <= len; n++) {
			uint8_t *exact = malloc(n ? n : 1); /* ASan sees a read past n */
			TST_REQUIRE(exact != NULL);
			memcpy(exact, cubin, n);
			rpcu_image_arch(exact, n, buf, sizeof(buf));
			free(exact);
		}
		for (int i = 0; i < 4000; i++) {
			memcpy(m, cubin, len);
			for (int j = 0; j < 4; j++) {
				x ^= x << 13, x ^= x >> 17, x ^= x << 5;
				m[x % 96] = (uint8_t)(x >> 8); /* the headers */
			}
			rpcu_image_arch(m, len - (x >> 20) % 64, buf, sizeof(buf));
		}
		free(m);
	}
	free(cubin);
	/* A fatbin with an sm_80 cubin and sm_90 PTX (entry layout of the real
	 * fatbins: u16 kind, u16, u32 header size, u64 size, arch at 28). */
	tst_put32(fat, SBT_CM_FATBIN_MAGIC);
	fat[4] = 1;
	fat[6] = 16;
	fat[8] = 2 * (64 + 16);
	e = fat + 16;
	e[0] = 2;
	e[4] = 64;
	e[8] = 16;
	tst_put32(e + 28, 80);
	e += 64 + 16;
	e[0] = 1;
	e[4] = 64;
	e[8] = 16;
	tst_put32(e + 28, 90);
	TST_CHECK_EQ_U64(rpcu_image_arch(fat, sizeof(fat), buf, sizeof(buf)), 80);
	TST_CHECK(strcmp(buf, "sm_80, sm_90 (PTX)") == 0);
	/* A body size past the end: nothing. */
	fat[9] = 0x10;
	TST_CHECK_EQ_U64(rpcu_image_arch(fat, sizeof(fat), buf, sizeof(buf)), 0);
}

/* ---- the double's not-run report ------------------------------------------------------------- */

static void tst_copy_file(const char *from, const char *to)
{
	size_t len;
	void *data = tst_read(from, &len);
	FILE *f = fopen(to, "wb");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
	free(data);
}

/* tsreplay (rp_main) with tst_main_args before the trace; its exit status
 * as the status, its stdout into tst_main_out. */

static rp_status tst_main_run(const char *path, tst_run *run, rp_diag *d)
{
	const rp_backend_ops *ops[] = {&rpcu_backend_ops};
	char *argv[8];
	char name[] = "/tmp/tst_rpcuda_out.XXXXXX";
	int argc = 0, fd = mkstemp(name), saved = dup(1), rc;
	ssize_t n;
	(void)run;
	(void)d;
	argv[argc++] = "tsreplay";
	for (size_t i = 0; i < 4 && tst_main_args[i]; i++)
		argv[argc++] = (char *)tst_main_args[i];
	argv[argc++] = (char *)path;
	argv[argc] = NULL;
	TST_REQUIRE(fd >= 0 && saved >= 0);
	fflush(stdout);
	dup2(fd, 1);
	rc = rp_main(argc, argv, ops, 1);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, tst_main_out, sizeof(tst_main_out) - 1);
	tst_main_out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(name);
	return (rp_status)rc;
}

/* Attributes re-issued on the live handles (through the shim, which has
 * the entry points the double lacks). */
#define TST_LIB 0x1b1bull
#define TST_KERN 0x1c1cull
typedef int (*tst_last_attr_fn)(int *, void **, int *, int *, int *);
static tst_last_attr_fn tst_last_attr;
static int tst_attr_checked;

static void tst_attr_hook(rpcu_state *s, const sbt_record *rec, int after)
{
	sbt_cm_kind k;
	sbt_cm_call c;
	int kernel, attr, value, device;
	void *handle;
	rpcu_obj *o;
	if (!after || (rec->type != SBT_CM_TYPE(SBT_CM_K_cuFuncSetAttribute) &&
	               rec->type != SBT_CM_TYPE(SBT_CM_K_cuKernelSetAttribute)))
		return;
	k = (sbt_cm_kind)(rec->type - SBT_CM_TYPE_BASE);
	TST_REQUIRE(sbt_cm_decode(rec->payload, rec->payload_len, &c) == SBT_OK);
	o = rpcu_objs_get(&s->objs, k == SBT_CM_K_cuKernelSetAttribute ? RPCU_O_KERNEL : RPCU_O_FUNCTION, c.handle);
	TST_REQUIRE(o != NULL);
	TST_CHECK(tst_last_attr(&kernel, &handle, &attr, &value, &device) > 0);
	TST_CHECK_EQ_U64(kernel, k == SBT_CM_K_cuKernelSetAttribute);
	TST_CHECK_EQ_U64((uintptr_t)handle, o->live);
	TST_CHECK_EQ_U64(attr, c.attr);
	TST_CHECK_EQ_U64(value, c.ivalue);
	if (kernel)
		TST_CHECK_EQ_U64(device, 0);
	tst_attr_checked++;
}

static void tst_attributes(const char *path, void *shim)
{
	tst_trace t;
	rp_diag d = {""};
	tst_run run = {0};
	sbt_cm_call c;
	*(void **)&tst_last_attr = dlsym(shim, "tst_shim_last_attribute");
	TST_REQUIRE(tst_last_attr != NULL);
	tst_begin(&t, path);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.handle = TST_LIB;
	c.blob = tst_blob(&t, tst_image, tst_image_len);
	c.size = tst_image_len;
	tst_call(&t, SBT_CM_K_cuLibraryLoadData, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_KERN;
	c.parent = TST_LIB;
	c.name = (const uint8_t *)"fill";
	c.name_len = 4;
	tst_call(&t, SBT_CM_K_cuLibraryGetKernel, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_KERN;
	c.attr = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
	c.ivalue = 4096;
	tst_call(&t, SBT_CM_K_cuKernelSetAttribute, &c);
	sbt_cm_call_init(&c);
	c.handle = TST_FN;
	c.attr = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
	c.ivalue = -1;
	tst_call(&t, SBT_CM_K_cuFuncSetAttribute, &c);
	/* JIT options: a log buffer and its size (pointer-valued: dropped)
	 * around an optimization level and a register limit (passed on). */
	{
		uint8_t jit[4 * SBT_CM_JIT_BYTES] = {0};
		jit[0] = CU_JIT_INFO_LOG_BUFFER;
		jit[8 + 5] = 0x7f;
		jit[16] = CU_JIT_OPTIMIZATION_LEVEL;
		jit[24] = 3;
		jit[32] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
		jit[40 + 1] = 0x10;
		jit[48] = CU_JIT_MAX_REGISTERS;
		jit[56] = 64;
		sbt_cm_call_init(&c);
		c.handle = 0xd2d2;
		c.blob = tst_blob(&t, tst_image, tst_image_len);
		c.size = tst_image_len;
		c.jit = jit;
		c.jit_len = sizeof(jit);
		tst_call(&t, SBT_CM_K_cuModuleLoadDataEx, &c);
	}
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	run.hook = tst_attr_hook;
	tst_attr_checked = 0;
	TST_CHECK_EQ_U64(tst_replay_ex(path, &run, &d), RP_OK);
	if (d.text[0])
		fprintf(stderr, "attributes: %s\n", d.text);
	TST_CHECK_EQ_U64(tst_attr_checked, 2);
	{
		unsigned (*last_jit)(int *, unsigned long long *, unsigned);
		int opts[4] = {0};
		unsigned long long vals[4] = {0};
		*(void **)&last_jit = dlsym(shim, "tst_shim_last_jit");
		TST_REQUIRE(last_jit != NULL);
		TST_CHECK_EQ_U64(last_jit(opts, vals, 4), 2);
		TST_CHECK_EQ_U64(opts[0], CU_JIT_OPTIMIZATION_LEVEL);
		TST_CHECK_EQ_U64(vals[0], 3);
		TST_CHECK_EQ_U64(opts[1], CU_JIT_MAX_REGISTERS);
		TST_CHECK_EQ_U64(vals[1], 64);
	}
}

static void tst_not_run(const char *path)
{
	char shim[PATH_MAX + 64], dbl[PATH_MAX + 64];
	tst_trace t;
	rp_diag d = {""};
	tst_run run = {0};
	const char *err;
	rp_status st;
	snprintf(shim, sizeof(shim), "%s/libs/cuda_notrun_shim.so", tst_dir);
	snprintf(dbl, sizeof(dbl), "%s", getenv("TRACESMITH_CUDA_DRIVER"));
	TST_REQUIRE(access(shim, R_OK) == 0);
	tst_begin(&t, path);
	tst_prologue(&t);
	tst_upload_zero(&t, TST_ADDR, 0, 0, 0);
	tst_download_at(&t, TST_ADDR, 1); /* before the launch: compared */
	tst_launch(&t, TST_FN, 0, TST_ADDR);
	tst_download(&t);                 /* after: not compared */
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	if (getenv("TST_KEEP_TRACE"))
		tst_copy_file(path, getenv("TST_KEEP_TRACE"));
	setenv("TST_SHIM_DRIVER", dbl, 1);
	setenv("TRACESMITH_CUDA_DRIVER", shim, 1);
	run.loud = 1;
	err = tst_stderr_of(tst_replay_ex, path, &run, &d, &st);
	TST_CHECK_EQ_U64(st, RP_OK);
	TST_CHECK_EQ_U64(run.matched, 1);
	TST_CHECK_EQ_U64(run.not_compared, 1);
	TST_CHECK(strstr(err, "tsreplay: cuda: note: seq 11: the launch of kernel 'fill' ran nothing on "
	                      "this driver") != NULL);
	TST_CHECK(strstr(err, "device-to-host checkpoints from here on are not compared") != NULL);
	/* The whole tool: exit 0 (the compared one matched), the summary says
	 * how many were not compared. */
	memset(tst_main_args, 0, sizeof(tst_main_args));
	tst_stderr_of(tst_main_run, path, &run, &d, &st);
	TST_CHECK_EQ_U64(st, 0);
	TST_CHECK(strstr(tst_main_out, "checkpoints: 1 compared, 1 matched, 0 differ, 1 NOT COMPARED") != NULL);
	TST_CHECK(strstr(tst_main_out, "not compared (after the launch at seq 11, which ran nothing on the "
	                               "test double): checkpoint seq 13") != NULL);
	tst_main_args[0] = "--json";
	tst_stderr_of(tst_main_run, path, &run, &d, &st);
	TST_CHECK_EQ_U64(st, 0);
	TST_CHECK(strstr(tst_main_out, "\"checkpoints\":1,\"matched\":1,\"mismatched\":0,"
	                               "\"not_compared\":1,\"not_compared_seqs\":[13]") != NULL);
	tst_main_args[0] = "--check-determinism";
	tst_stderr_of(tst_main_run, path, &run, &d, &st);
	TST_CHECK_EQ_U64(st, 0);
	TST_CHECK(strstr(tst_main_out, "runs agree with each other at every checkpoint") != NULL);
	if (tst_failures)
		fprintf(stderr, "tsreplay said:\n%s", tst_main_out);

	/* An image for another GPU: both architectures named (the real sm_90
	 * cubin, which the shim's driver refuses as no binary for the GPU). */
	{
		char cubin_path[PATH_MAX + 64];
		size_t len;
		void *cubin;
		sbt_cm_call c;
		snprintf(cubin_path, sizeof(cubin_path), "%s/../../tests/fixtures/h100/gpu_driver_kernels.cubin",
		         tst_dir);
		if (access(cubin_path, R_OK) != 0) /* a deeper build directory (build/asan) */
			snprintf(cubin_path, sizeof(cubin_path), "tests/fixtures/h100/gpu_driver_kernels.cubin");
		cubin = tst_read(cubin_path, &len);
		tst_begin(&t, path);
		sbt_cm_call_init(&c);
		tst_call(&t, SBT_CM_K_cuInit, &c);
		tst_call(&t, SBT_CM_K_cuDeviceGet, &c);
		c.ctx = TST_CTX;
		tst_call(&t, SBT_CM_K_cuDevicePrimaryCtxRetain, &c);
		tst_call(&t, SBT_CM_K_cuCtxSetCurrent, &c);
		sbt_cm_call_init(&c);
		c.handle = TST_MOD;
		c.blob = tst_blob(&t, cubin, len);
		c.size = len;
		c.sub = SBT_CM_IMAGE_ELF;
		tst_call(&t, SBT_CM_K_cuModuleLoadData, &c);
		TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
		free(cubin);
	}
	setenv("TST_SHIM_NO_BINARY", "1", 1);
	memset(&run, 0, sizeof(run));
	TST_CHECK_EQ_U64(tst_replay_ex(path, &run, &d), RP_ERR_UNSUPPORTED);
	TST_CHECK(strstr(d.text, "record seq 5 (cuda.cuModuleLoadData): cuModuleLoadData failed with "
	                         "CUDA_ERROR_NO_BINARY_FOR_GPU (209): the image is built for sm_90, and "
	                         "device 0 is sm_90; replay on a GPU of the capture's architecture") != NULL);
	if (tst_failures)
		fprintf(stderr, "no binary: %s\n", d.text);
	unsetenv("TST_SHIM_NO_BINARY");
	{
		void *shim_dl = dlopen(shim, RTLD_NOW | RTLD_NOLOAD);
		TST_REQUIRE(shim_dl != NULL);
		tst_attributes(path, shim_dl);
		dlclose(shim_dl);
	}
	setenv("TRACESMITH_CUDA_DRIVER", dbl, 1);
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
	/* The windows at 0x200000000000 and 0x300000000000 lie outside
	 * ThreadSanitizer's memory layout: the window tests run in the other
	 * builds (tests/shell/test_cuda_replay.sh covers a window TSan can
	 * map). */
	if (TST_UNDER_TSAN) {
		puts("window tests skipped under TSan (addresses outside its memory layout)");
	} else {
		tst_windows(traces[0]);
		tst_window_fallback(traces[0]);
		tst_window_vmm(traces[0]);
	}
	tst_contexts(traces[0]);
	tst_frees_and_failures(traces[0]);
	tst_host_func_and_attributes(traces[0]);
	tst_graph(traces[0]);
	if (!TST_UNDER_TSAN)
		tst_graph_keyframe(traces[0]);
	tst_graph_invalidated(traces[0]);
	tst_image_arch();
	tst_not_run(traces[0]);

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
	tst_expect_error(traces[5], RP_ERR_UNSUPPORTED, "record seq 8 (cuda.cuGraphLaunch): graph exec "
	                 "0x6a6a was not built from the trace: neither its graph's construction (stream "
	                 "capture, or cuGraphCreate and its nodes) nor its instantiation is there (made "
	                 "before recording began?), so it cannot be replayed; replay a --range that ends "
	                 "before seq 8");

	/* Waiting on an event the trace never created. */
	tst_begin(&t, traces[6]);
	tst_prologue(&t);
	sbt_cm_call_init(&c);
	c.event = 0xe7e7;
	tst_call(&t, SBT_CM_K_cuEventSynchronize, &c);
	TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
	tst_expect_error(traces[6], RP_ERR_NOT_FOUND, "record seq 8 (cuda.cuEventSynchronize): event "
	                 "0xe7e7 was never created in the trace");

	/* A checkpoint of a copy that failed at capture (so it is not replayed):
	 * not compared. */
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
		{
			/* Not a replay error: not compared, saying why. */
			tst_run run = {0};
			rp_diag d = {""};
			TST_CHECK_EQ_U64(tst_replay_ex(traces[7], &run, &d), RP_OK);
			TST_CHECK_EQ_U64(run.not_compared, 1);
			TST_CHECK(strstr(d.text, "the copy at seq 8 failed at capture with CUDA_ERROR_INVALID_VALUE (1)") !=
			          NULL);
		}
		/* A checkpoint of a copy the trace does not have is still an error. */
		tst_begin(&t, traces[7]);
		tst_prologue(&t);
		tst_checkpoint(&t, 99, TST_ADDR, "0123456789abcdef", 16);
		TST_REQUIRE(sbt_writer_close(t.w) == SBT_OK);
		tst_expect_error(traces[7], RP_ERR_NOT_FOUND, "this replay made no device-to-host copy at seq 99");
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
