/*
 * tsinfo - what is in an SBT trace.
 *
 *   tsinfo TRACE                 summary (sizes, counts by API/type/thread, meta,
 *                                frames with the run's numbers, a trimmed trace's
 *                                capture window and snapshot)
 *   tsinfo --json TRACE          the same summary as one JSON object
 *   tsinfo --dump TRACE          one line per record (--json: JSON lines)
 *   tsinfo --verify TRACE        check every chunk; name each damaged offset
 *   tsinfo --memory TRACE        memory over time per device and kind, the
 *                                peak, what is live at the end (tsinfo_memory.c)
 *   tsinfo --extract DIR TRACE   shaders, module images, uploads, snapshots
 *                                as files (tsinfo_extract.c)
 *
 * Exit status (docs/tsinfo.md): 0 readable (a torn tail alone is a warning
 * on stderr, since a killed capture leaves one and everything before it is
 * good); 1 the file cannot be read, is not SBT, is corrupt, or --verify
 * found any damage (a torn tail included: verify asks "is it intact?");
 * 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serializer/sbt_cli.h"
#include "serializer/sbt_compute.h"
#include "serializer/sbt_dump.h"
#include "serializer/sbt_format.h"
#include "serializer/sbt_vk.h"
#include "serializer/tools/tsinfo.h"
#include "tracesmith/sbt.h"

typedef enum { TSI_SUMMARY, TSI_DUMP, TSI_VERIFY, TSI_CHUNKS, TSI_MEMORY, TSI_EXTRACT } tsi_mode;

typedef struct tsi_opts {
	tsi_mode mode;
	int json;
	int stacks;
	int salvage;
	int has_range;
	uint64_t range_a, range_b; /* [a, b) */
	const char *path;
	const char *extract;       /* --extract DIR */
	size_t elements;           /* --elements N|all; 0: the dump's default */
} tsi_opts;

static void tsi_usage(FILE *f)
{
	fputs("usage: tsinfo [--dump [--json] [--stacks] [--range A:B] [--elements N]] TRACE\n"
	      "       tsinfo --json | --verify | --chunks | --memory [--json] TRACE\n"
	      "       tsinfo --extract DIR TRACE\n"
	      "\n"
	      "Without options: a summary of TRACE (size, version, id, start time,\n"
	      "index, records by API and type, threads, frames with the run's numbers,\n"
	      "capture window and snapshot of a trimmed trace, keyframes, time span,\n"
	      "blob bytes and dedup, compression, stacks, metadata).\n"
	      "\n"
	      "  --dump        one line per record: seq, time (s), thread, type,\n"
	      "                decoded payload (or length and leading hex), stack id\n"
	      "  --json        JSON: with --dump one object per line, else the summary\n"
	      "  --stacks      with each record, its host call stack (implies --dump)\n"
	      "  --range A:B   only records with A <= seq < B, A: and :B (implies --dump)\n"
	      "  --elements N  array elements shown by --dump, or all (default 8; JSON all)\n"
	      "  --verify      check every chunk's checksum and read every record;\n"
	      "                exit 0 if intact, 1 naming each damaged offset\n"
	      "  --chunks      one line per chunk: offset, type, codec, sizes, entries\n"
	      "  --memory      memory over time per device and kind, peak, leaks, stacks\n"
	      "  --extract DIR shaders, module images, uploads as files, DIR/index.json\n"
	      "  --salvage     skip past corrupt chunks instead of stopping there\n"
	      "  -h, --help    this text;  --version  the TraceSmith version\n"
	      "\n"
	      "Exit: 0 ok (a torn tail is a warning), 1 unreadable or damaged, 2 usage.\n",
	      f);
}

static int tsi_parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

/* "A:B", "A:" or ":B": half-open [A, B) over sequence numbers. */
static int tsi_parse_range(const char *s, uint64_t *a, uint64_t *b)
{
	const char *colon = strchr(s, ':');
	size_t alen, blen;

	if (!colon || strchr(colon + 1, ':'))
		return -1;
	alen = (size_t)(colon - s);
	blen = strlen(colon + 1);
	if (alen == 0 && blen == 0)
		return -1;
	*a = 0;
	*b = UINT64_MAX;
	if (alen && tsi_parse_u64(s, alen, a) != 0)
		return -1;
	if (blen && tsi_parse_u64(colon + 1, blen, b) != 0)
		return -1;
	return *a <= *b ? 0 : -1;
}

enum {
	TSI_OPT_DUMP = 256,
	TSI_OPT_JSON,
	TSI_OPT_STACKS,
	TSI_OPT_VERIFY,
	TSI_OPT_CHUNKS,
	TSI_OPT_SALVAGE,
	TSI_OPT_RANGE,
	TSI_OPT_VERSION,
	TSI_OPT_MEMORY,
	TSI_OPT_EXTRACT,
	TSI_OPT_ELEMENTS
};

static const struct option tsi_longopts[] = {
	{"help", no_argument, NULL, 'h'},
	{"dump", no_argument, NULL, TSI_OPT_DUMP},
	{"json", no_argument, NULL, TSI_OPT_JSON},
	{"stacks", no_argument, NULL, TSI_OPT_STACKS},
	{"verify", no_argument, NULL, TSI_OPT_VERIFY},
	{"chunks", no_argument, NULL, TSI_OPT_CHUNKS},
	{"salvage", no_argument, NULL, TSI_OPT_SALVAGE},
	{"range", required_argument, NULL, TSI_OPT_RANGE},
	{"version", no_argument, NULL, TSI_OPT_VERSION},
	{"memory", no_argument, NULL, TSI_OPT_MEMORY},
	{"extract", required_argument, NULL, TSI_OPT_EXTRACT},
	{"elements", required_argument, NULL, TSI_OPT_ELEMENTS},
	{NULL, 0, NULL, 0}
};

/* The message for what getopt_long refused. */
static void tsi_getopt_error(int c, char **argv)
{
	char msg[256];
	sbt_cli_getopt_message(tsi_longopts, c, argv, optopt == TSI_OPT_RANGE ? "A:B" : NULL, msg,
	                       sizeof(msg));
	sbt_cli_usage_error("tsinfo", "%s", msg);
}

static int tsi_add_path(tsi_opts *o, const char *a)
{
	if (o->path) {
		sbt_cli_usage_error("tsinfo", "more than one trace given ('%s', '%s')", o->path, a);
		return -1;
	}
	o->path = a;
	return 0;
}

static int tsi_parse_args(int argc, char **argv, tsi_opts *o)
{
	int c, dump = 0, verify = 0, chunks = 0, memory = 0;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	/* "-": the trace may come before, between or after the options. */
	while ((c = getopt_long(argc, argv, "-:h", tsi_longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (tsi_add_path(o, optarg) != 0)
				return -1;
			break;
		case 'h':
			tsi_usage(stdout);
			exit(TSI_EXIT_OK);
		case TSI_OPT_VERSION:
			sbt_cli_version("tsinfo");
			exit(TSI_EXIT_OK);
		case TSI_OPT_DUMP:
			dump = 1;
			break;
		case TSI_OPT_JSON:
			o->json = 1;
			break;
		case TSI_OPT_STACKS:
			o->stacks = 1;
			break;
		case TSI_OPT_VERIFY:
			verify = 1;
			break;
		case TSI_OPT_CHUNKS:
			chunks = 1;
			break;
		case TSI_OPT_SALVAGE:
			o->salvage = 1;
			break;
		case TSI_OPT_MEMORY:
			memory = 1;
			break;
		case TSI_OPT_EXTRACT:
			o->extract = optarg;
			break;
		case TSI_OPT_ELEMENTS: {
			char *end = NULL;
			unsigned long long n;
			if (strcmp(optarg, "all") == 0) {
				o->elements = SIZE_MAX;
				break;
			}
			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || !end || *end || optarg[0] == '-' || n == 0 || n > SIZE_MAX) {
				sbt_cli_usage_error("tsinfo", "bad --elements '%s': want a number of "
				                    "elements from 1, or all", optarg);
				return -1;
			}
			o->elements = (size_t)n;
			break;
		}
		case TSI_OPT_RANGE:
			if (tsi_parse_range(optarg, &o->range_a, &o->range_b) != 0) {
				sbt_cli_usage_error("tsinfo", "bad --range '%s': want A:B, A: or :B with "
				                    "A <= B (sequence numbers, B excluded)", optarg);
				return -1;
			}
			o->has_range = 1;
			break;
		default:
			tsi_getopt_error(c, argv);
			return -1;
		}
	}
	for (; optind < argc; optind++) /* after "--" */
		if (tsi_add_path(o, argv[optind]) != 0)
			return -1;
	if (!o->path) {
		sbt_cli_usage_error("tsinfo", "no trace file given");
		return -1;
	}
	if (o->elements && !(dump || o->stacks || o->has_range)) {
		sbt_cli_usage_error("tsinfo", "--elements goes with --dump");
		return -1;
	}
	if ((verify || chunks) && (dump || o->stacks || o->has_range || o->json)) {
		sbt_cli_usage_error("tsinfo", "--verify and --chunks take no other option");
		return -1;
	}
	if (o->extract && (memory || verify || chunks || dump || o->stacks || o->has_range ||
	                   o->json)) {
		sbt_cli_usage_error("tsinfo", "--extract goes with --salvage only");
		return -1;
	}
	if (memory && (verify || chunks || dump || o->stacks || o->has_range)) {
		sbt_cli_usage_error("tsinfo", "--memory goes with --json and --salvage only");
		return -1;
	}
	if (verify && chunks) {
		sbt_cli_usage_error("tsinfo", "--verify and --chunks go one at a time");
		return -1;
	}
	o->mode = o->extract ? TSI_EXTRACT : memory ? TSI_MEMORY : verify ? TSI_VERIFY : chunks ? TSI_CHUNKS
	        : (dump || o->stacks || o->has_range) ? TSI_DUMP : TSI_SUMMARY;
	return 0;
}

/* ---- counting: a small open-addressing map from u64 keys ------------- */

typedef struct tsi_slot {
	uint64_t key;
	uint64_t count;
	const char *name; /* borrowed from the reader's string table */
	int used;
} tsi_slot;

typedef struct tsi_map {
	tsi_slot *slots;
	size_t cap; /* power of two */
	size_t used;
} tsi_map;

static uint64_t tsi_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* The slot for key, created (count 0) if new; NULL when out of memory. */
static tsi_slot *tsi_map_get(tsi_map *m, uint64_t key)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		tsi_slot *ns = calloc(ncap, sizeof(*ns));
		size_t j;
		if (!ns)
			return NULL;
		for (j = 0; j < m->cap; j++) {
			if (!m->slots[j].used)
				continue;
			i = tsi_mix(m->slots[j].key) & (ncap - 1);
			while (ns[i].used)
				i = (i + 1) & (ncap - 1);
			ns[i] = m->slots[j];
		}
		free(m->slots);
		m->slots = ns;
		m->cap = ncap;
	}
	i = tsi_mix(key) & (m->cap - 1);
	while (m->slots[i].used && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->slots[i].used) {
		m->slots[i].used = 1;
		m->slots[i].key = key;
		m->used++;
	}
	return &m->slots[i];
}

/* The used slots, packed into a malloc'd array (owned by the caller). */
static tsi_slot *tsi_map_list(const tsi_map *m)
{
	tsi_slot *out = malloc((m->used ? m->used : 1) * sizeof(*out));
	size_t i, n = 0;

	if (!out)
		return NULL;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			out[n++] = m->slots[i];
	return out;
}

static int tsi_cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const tsi_slot *)a)->key, y = ((const tsi_slot *)b)->key;
	return x < y ? -1 : x > y;
}

/* ---- what a full read of the trace found ------------------------------ */

typedef struct tsi_scan {
	tsi_map types;   /* type -> records */
	tsi_map threads; /* thread id -> records, name */
	uint64_t records;
	uint64_t first_seq, last_seq;
	uint64_t min_time, max_time;
	sbt_status error;  /* SBT_OK, or what stopped the read */
	char message[512]; /* the reader's words for it */
	/* CUDA module and library loads that worked: how many, the bytes of
	 * their images (before dedup), and how many were recorded without one
	 * (replay cannot load those). */
	uint64_t cu_loads, cu_image_bytes, cu_no_image;
	/* CUDA's and HIP's graphs and execs changed by calls replay does not
	 * model (cuda. and hip.tsGraphNotModeled records that worked), counted
	 * once each as the exit reports count them, and those calls by name,
	 * in the order first met (replay refuses the launches of such
	 * graphs). */
	struct tsi_nm {
		tsi_map graphs; /* graph or exec (or node) -> records */
		struct tsi_call_count {
			char name[64];
			uint64_t count;
		} *calls;
		size_t ncalls;
	} cu_nm, hip_nm;
	/* A trimmed trace (docs/tsinfo.md "Trimmed traces"): its window, and
	 * the state snapshot between WINDOW and SNAPSHOT_END. */
	int has_window;
	sbt_window window;
	sbt_status window_error;     /* SBT_OK, or the WINDOW payload did not decode */
	int has_snapshot_end;
	uint64_t snapshot_records;   /* records between WINDOW and SNAPSHOT_END */
	uint64_t snapshot_first_seq, snapshot_last_seq;
	/* Frames, counted the way tsreplay presents them (docs/tsinfo.md
	 * "Frames"): FRAME records (a trimmed trace's after its snapshot), with
	 * the run's numbers, plus presents at the end of the trace whose FRAME
	 * record was cut off. */
	uint64_t frame_records;
	uint64_t first_frame, last_frame; /* FRAME payload numbers */
	uint32_t present_type;            /* vulkan.vkQueuePresentKHR here; 0 none */
	tsi_map pending;                  /* thread -> presents after its last FRAME */
	uint64_t frames_cut;
} tsi_scan;

static void tsi_scan_free(tsi_scan *s)
{
	free(s->types.slots);
	free(s->threads.slots);
	free(s->pending.slots);
	free(s->cu_nm.graphs.slots);
	free(s->cu_nm.calls);
	free(s->hip_nm.graphs.slots);
	free(s->hip_nm.calls);
}

/* The type number the trace gives `name`, or 0. */
static uint32_t tsi_type_named(const sbt_reader *r, const char *name)
{
	uint32_t type;
	const char *n;
	size_t i;
	for (i = 0; sbt_reader_type_at(r, i, &type, &n) == SBT_OK; i++)
		if (n && strcmp(n, name) == 0)
			return type;
	return 0;
}

/* Window, snapshot and frame bookkeeping for one record. */
static sbt_status tsi_scan_frames(tsi_scan *s, const sbt_record *rec)
{
	tsi_slot *pend;
	uint64_t frame;
	const uint8_t *p = rec->payload;

	if (rec->type == SBT_TYPE_WINDOW && s->records == 0) {
		s->has_window = 1;
		s->window_error = sbt_window_decode(rec->payload, rec->payload_len, &s->window);
		return SBT_OK;
	}
	if (s->has_window && !s->has_snapshot_end) {
		if (rec->type == SBT_TYPE_SNAPSHOT_END) {
			s->has_snapshot_end = 1;
			return SBT_OK;
		}
		if (s->snapshot_records++ == 0)
			s->snapshot_first_seq = rec->seq;
		s->snapshot_last_seq = rec->seq;
		return SBT_OK; /* the snapshot recreates state; it holds no frame */
	}
	if (rec->type == SBT_TYPE_FRAME) {
		if (sbt_varint_get(&p, rec->payload + rec->payload_len, &frame) != 0)
			return SBT_OK;
		if (s->frame_records++ == 0)
			s->first_frame = frame;
		s->last_frame = frame;
		pend = tsi_map_get(&s->pending, rec->thread);
		if (!pend)
			return SBT_ERR_NOMEM;
		pend->count = 0;
	} else if (s->present_type && rec->type == s->present_type) {
		pend = tsi_map_get(&s->pending, rec->thread);
		if (!pend)
			return SBT_ERR_NOMEM;
		pend->count++;
	}
	return SBT_OK;
}

/* The most call names a summary lists; the calls of other names are
 * counted under "(other)" (a damaged trace may name any number). */
#define TSI_NM_CALLS_MAX 32

/* A tsGraphNotModeled record: its graph or exec counted once, its call by
 * name.  SBT_ERR_NOMEM when out of memory. */
static sbt_status tsi_scan_graph_not_modeled(const sbt_cm_call *c, struct tsi_nm *s)
{
	uint64_t key = c->handle ? c->handle : c->parent ? c->parent : c->node;
	char name[sizeof(s->calls[0].name)];
	size_t i, len = c->name_len < sizeof(name) ? c->name_len : sizeof(name) - 1;
	tsi_slot *g;

	if (c->result != 0)
		return SBT_OK;
	if (key) {
		if (!(g = tsi_map_get(&s->graphs, key)))
			return SBT_ERR_NOMEM;
		g->count++;
	}
	/* the trace's bytes: printable ones kept, others shown as '?' */
	for (i = 0; i < len; i++)
		name[i] = c->name[i] >= 0x20 && c->name[i] < 0x7f ? (char)c->name[i] : '?';
	name[len] = 0;
	for (i = 0; i < s->ncalls; i++)
		if (strcmp(s->calls[i].name, name) == 0)
			break;
	if (i == s->ncalls && i >= TSI_NM_CALLS_MAX)
		snprintf(name, sizeof(name), "(other)");
	for (i = 0; i < s->ncalls; i++)
		if (strcmp(s->calls[i].name, name) == 0)
			break;
	if (i == s->ncalls) {
		struct tsi_call_count *n = realloc(s->calls, (i + 1) * sizeof(*n));
		if (!n)
			return SBT_ERR_NOMEM;
		s->calls = n;
		s->ncalls++;
		memcpy(n[i].name, name, sizeof(name));
		n[i].count = 0;
	}
	s->calls[i].count++;
	return SBT_OK;
}

/* A compute-model record: a module or library load counted with its
 * image, a graph changed by a call not modeled counted (SBT_ERR_NOMEM
 * when out of memory). */
static sbt_status tsi_scan_compute(const sbt_reader *r, const sbt_record *rec, tsi_scan *s)
{
	const char *name = sbt_reader_type_name(r, rec->type);
	sbt_cm_kind k;
	sbt_cm_call c;
	if (!name || sbt_cm_kind_by_name(name, &k) != 0)
		return SBT_OK;
	if (k == SBT_CM_K_tsGraphNotModeled) {
		struct tsi_nm *nm = strncmp(name, SBT_CM_API_CUDA ".", strlen(SBT_CM_API_CUDA ".")) == 0 ? &s->cu_nm
		                    : strncmp(name, SBT_CM_API_HIP ".", strlen(SBT_CM_API_HIP ".")) == 0 ? &s->hip_nm
		                    : NULL;
		return nm && sbt_cm_decode(rec->payload, rec->payload_len, &c) == SBT_OK
		               ? tsi_scan_graph_not_modeled(&c, nm)
		               : SBT_OK;
	}
	if (strncmp(name, SBT_CM_API_HIP ".", strlen(SBT_CM_API_HIP ".")) == 0)
		return SBT_OK; /* HIP's module loads are not counted as CUDA's */
	if (k != SBT_CM_K_cuModuleLoad && k != SBT_CM_K_cuModuleLoadData &&
	    k != SBT_CM_K_cuModuleLoadDataEx && k != SBT_CM_K_cuModuleLoadFatBinary &&
	    k != SBT_CM_K_cuLibraryLoadData && k != SBT_CM_K_cuLibraryLoadFromFile)
		return SBT_OK;
	if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK || c.result != 0)
		return SBT_OK;
	s->cu_loads++;
	if (c.blob)
		s->cu_image_bytes += c.size;
	else
		s->cu_no_image++;
	return SBT_OK;
}

/* Reads every record; stops at the end or at damage (kept in s->error). */
static sbt_status tsi_scan_records(sbt_reader *r, tsi_scan *s)
{
	sbt_record rec;
	sbt_status st;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->present_type = tsi_type_named(r, "vulkan.vkQueuePresentKHR");
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		tsi_slot *ty = tsi_map_get(&s->types, rec.type);
		tsi_slot *th = tsi_map_get(&s->threads, rec.thread);
		if (!ty || !th || tsi_scan_frames(s, &rec) != SBT_OK)
			return SBT_ERR_NOMEM;
		ty->count++;
		th->count++;
		if (((rec.type >= SBT_CM_TYPE_BASE && rec.type < SBT_CM_TYPE(SBT_CM_KIND_COUNT)) ||
		     (rec.type >= SBT_CM_HIP_TYPE_BASE && rec.type < SBT_CM_HIP_TYPE(SBT_CM_HIP_COUNT))) &&
		    tsi_scan_compute(r, &rec, s) != SBT_OK)
			return SBT_ERR_NOMEM;
		if (rec.type == SBT_TYPE_THREAD) {
			const uint8_t *p = rec.payload;
			uint64_t id;
			if (sbt_varint_get(&p, rec.payload + rec.payload_len, &id) == 0 &&
			    id <= UINT32_MAX) {
				const char *name = sbt_reader_string(r, (uint32_t)id);
				if (name)
					th->name = name;
			}
		}
		if (s->records == 0) {
			s->first_seq = rec.seq;
			s->min_time = s->max_time = rec.time_ns;
		}
		s->last_seq = rec.seq;
		if (rec.time_ns < s->min_time)
			s->min_time = rec.time_ns;
		if (rec.time_ns > s->max_time)
			s->max_time = rec.time_ns;
		s->records++;
	}
	for (i = 0; i < s->pending.cap; i++)
		if (s->pending.slots[i].used)
			s->frames_cut += s->pending.slots[i].count;
	if (st != SBT_END) {
		s->error = st;
		snprintf(s->message, sizeof(s->message), "%s", sbt_reader_message(r));
		if (!s->message[0])
			snprintf(s->message, sizeof(s->message), "%s", sbt_strerror(st));
	}
	return SBT_OK;
}

/* ---- summary ---------------------------------------------------------- */

/* The API a type belongs to: its name up to the first '.'. */
static void tsi_api_of(const char *name, uint32_t type, char *out, size_t n)
{
	const char *dot = strchr(name, '.');

	if (dot && dot != name)
		snprintf(out, n, "%.*s", (int)(dot - name), name);
	else if (type < SBT_TYPE_FIRST_API)
		snprintf(out, n, "core");
	else
		snprintf(out, n, "(unnamed)");
}

typedef struct tsi_type_row {
	uint32_t type;
	uint64_t count;
	const char *name;
	char api[64];
} tsi_type_row;

static int tsi_cmp_type_row(const void *a, const void *b)
{
	const tsi_type_row *x = a, *y = b;
	int c = strcmp(x->api, y->api);
	if (c)
		return c;
	return x->type < y->type ? -1 : x->type > y->type;
}

/* Non-printing bytes of free text (meta values, names) as \xNN. */
void tsi_print_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

void tsi_json_str(FILE *f, const char *s)
{
	sbt_dump_buf b = { 0 };
	sbt_dump_json_string(&b, s, strlen(s));
	if (b.data)
		fputs(b.data, f);
	sbt_dump_buf_free(&b);
}

static void tsi_format_wall(uint64_t ns, char *out, size_t n)
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (ns == 0 || !gmtime_r(&secs, &tm)) {
		snprintf(out, n, "unknown");
		return;
	}
	snprintf(out, n, "%04d-%02d-%02d %02d:%02d:%02d.%09llu UTC", tm.tm_year + 1900,
	         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	         (unsigned long long)(ns % 1000000000u));
}

void tsi_human(uint64_t bytes, char *out, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, n, "%llu B", (unsigned long long)bytes);
	else
		snprintf(out, n, "%.1f %s", v, units[u]);
}

static double tsi_ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* The frames line's numbers: how many, the first and last (the run's
 * numbers), 0 when there is none. */
static uint64_t tsi_frames(const tsi_scan *s, uint64_t *first, uint64_t *last)
{
	uint64_t base = s->has_window && s->window_error == SBT_OK && s->window.first_frame
	                    ? s->window.first_frame
	                    : 1;
	if (s->frame_records) {
		*first = s->first_frame;
		*last = s->last_frame + s->frames_cut;
	} else {
		*first = base;
		*last = base + s->frames_cut - 1;
	}
	return s->frame_records + s->frames_cut;
}

static void tsi_summary_text(const char *path, const sbt_reader *r, const sbt_trace_info *in,
                             const tsi_scan *s, tsi_type_row *rows,
                             size_t nrows, tsi_slot *threads, size_t nthreads)
{
	char buf[96], h1[32], h2[32], h3[32], h4[32];
	const char *key, *value;
	uint64_t nframes, first = 0, last = 0;
	size_t i, width = 28;
	int k;

	printf("trace        %s\n", path);
	tsi_human(in->file_size, h1, sizeof(h1));
	printf("file size    %llu bytes (%s)\n", (unsigned long long)in->file_size, h1);
	printf("version      %u.%u (features 0x%llx%s)\n", in->header.version_major,
	       in->header.version_minor, (unsigned long long)in->header.features,
	       in->header.features & SBT_FEATURE_KEYED_BLOBS ? ": keyed blobs" : "");
	printf("trace id     ");
	for (k = 0; k < 16; k++)
		printf("%02x", in->header.trace_id[k]);
	printf("\n");
	tsi_format_wall(in->header.start_wall_ns, buf, sizeof(buf));
	printf("started      %s\n", buf);
	printf("index        %s\n", in->has_index ? "found (trailer)" : "rebuilt by scanning");
	if (in->truncated)
		printf("torn tail    dropped at offset %llu (%llu bytes)\n",
		       (unsigned long long)in->truncated_at,
		       (unsigned long long)(in->file_size - in->truncated_at));
	else
		printf("torn tail    none\n");
	if (s->error)
		printf("damage       %s\n", s->message);
	printf("chunks       %llu\n", (unsigned long long)in->chunk_count);
	if (s->records)
		printf("records      %llu (seq %llu..%llu)\n", (unsigned long long)s->records,
		       (unsigned long long)s->first_seq, (unsigned long long)s->last_seq);
	else
		printf("records      0\n");
	printf("time span    %.9f s\n",
	       s->records ? (double)(s->max_time - s->min_time) / 1e9 : 0.0);
	if (s->has_window && s->window_error != SBT_OK) {
		printf("window       the WINDOW record does not decode: %s\n",
		       sbt_strerror(s->window_error));
	} else if (s->has_window) {
		printf("window       %llu of the run, trigger '", (unsigned long long)s->window.index);
		tsi_print_text(stdout, s->window.trigger);
		printf("', first frame %llu, first submit %llu, first launch %llu\n",
		       (unsigned long long)s->window.first_frame,
		       (unsigned long long)s->window.first_submit,
		       (unsigned long long)s->window.first_launch);
	}
	if (s->has_window && s->has_snapshot_end && s->snapshot_records)
		printf("snapshot     %llu records (seq %llu..%llu)\n",
		       (unsigned long long)s->snapshot_records,
		       (unsigned long long)s->snapshot_first_seq,
		       (unsigned long long)s->snapshot_last_seq);
	else if (s->has_window && s->has_snapshot_end)
		printf("snapshot     0 records\n");
	else if (s->has_window)
		printf("snapshot     incomplete: %llu records and no SNAPSHOT_END (the trace ends "
		       "inside its state snapshot)\n", (unsigned long long)s->snapshot_records);
	nframes = tsi_frames(s, &first, &last);
	if (nframes == 0)
		printf("frames       0\n");
	else if (s->frames_cut == 0)
		printf("frames       %llu (%llu-%llu)\n", (unsigned long long)nframes,
		       (unsigned long long)first, (unsigned long long)last);
	else if (s->frames_cut == 1)
		printf("frames       %llu (%llu-%llu; the trace ends after the present of frame %llu, "
		       "before its FRAME record)\n", (unsigned long long)nframes,
		       (unsigned long long)first, (unsigned long long)last,
		       (unsigned long long)last);
	else
		printf("frames       %llu (%llu-%llu; the trace ends after the presents of frames "
		       "%llu-%llu, before their FRAME records)\n", (unsigned long long)nframes,
		       (unsigned long long)first, (unsigned long long)last,
		       (unsigned long long)(last - s->frames_cut + 1), (unsigned long long)last);
	printf("keyframes    %llu\n", (unsigned long long)in->keyframe_count);
	printf("stacks       %llu\n", (unsigned long long)in->stack_count);
	printf("strings      %llu\n", (unsigned long long)in->string_count);
	tsi_human(in->blob_bytes_logical, h1, sizeof(h1));
	tsi_human(in->blob_bytes_unique, h2, sizeof(h2));
	tsi_human(in->blob_bytes_stored, h3, sizeof(h3));
	printf("blobs        %llu: %s before dedup, %s after, %s stored\n",
	       (unsigned long long)in->blob_count, h1, h2, h3);
	tsi_human(in->raw_bytes, h1, sizeof(h1));
	tsi_human(in->stored_bytes, h4, sizeof(h4));
	printf("compression  %.2fx (%s of chunk payload stored as %s)\n",
	       tsi_ratio(in->raw_bytes, in->stored_bytes), h1, h4);
	if (s->cu_loads) {
		tsi_human(s->cu_image_bytes, h1, sizeof(h1));
		printf("cuda modules %llu loaded, %s of images (%.1f %% of blob bytes before dedup), "
		       "%llu without image%s\n",
		       (unsigned long long)s->cu_loads, h1,
		       in->blob_bytes_logical ? 100.0 * (double)s->cu_image_bytes /
		                                    (double)in->blob_bytes_logical
		                              : 0.0,
		       (unsigned long long)s->cu_no_image,
		       s->cu_no_image ? " (replay cannot load those)" : "");
	}
	for (int api = 0; api < 2; api++) {
		const struct tsi_nm *nm = api ? &s->hip_nm : &s->cu_nm;
		if (!nm->graphs.used)
			continue;
		printf("%s graphs%s%zu graph%s or exec%s changed by calls not modeled (replay refuses their "
		       "launches):", api ? "hip" : "cuda", api ? "   " : "  ", nm->graphs.used, nm->graphs.used == 1 ? "" : "s",
		       nm->graphs.used == 1 ? "" : "s");
		for (i = 0; i < nm->ncalls; i++)
			printf("%s %s=%llu", i ? "," : "", nm->calls[i].name,
			       (unsigned long long)nm->calls[i].count);
		printf("\n");
	}

	/* The name column is as wide as the longest name, so counts stay in one
	 * column (vulkan.vkGetPhysicalDeviceQueueFamilyProperties is 47). */
	for (i = 0; i < nrows; i++)
		if (strlen(rows[i].name) > width)
			width = strlen(rows[i].name);
	printf("records by API and type:\n");
	for (i = 0; i < nrows; i++) {
		uint64_t api_total = 0;
		size_t j;
		if (i == 0 || strcmp(rows[i].api, rows[i - 1].api) != 0) {
			for (j = i; j < nrows && strcmp(rows[j].api, rows[i].api) == 0; j++)
				api_total += rows[j].count;
			printf("  %-*s %12llu\n", (int)width + 2, rows[i].api,
			       (unsigned long long)api_total);
		}
		if (rows[i].name[0])
			printf("    %-*s %12llu\n", (int)width, rows[i].name,
			       (unsigned long long)rows[i].count);
		else {
			snprintf(buf, sizeof(buf), "type#%u", rows[i].type);
			printf("    %-*s %12llu\n", (int)width, buf,
			       (unsigned long long)rows[i].count);
		}
	}
	printf("threads:\n");
	for (i = 0; i < nthreads; i++) {
		printf("  %-12llu %12llu records", (unsigned long long)threads[i].key,
		       (unsigned long long)threads[i].count);
		if (threads[i].name) {
			printf("  ");
			tsi_print_text(stdout, threads[i].name);
		}
		printf("\n");
	}
	printf("metadata:\n");
	for (i = 0; sbt_reader_meta_at(r, i, &key, &value) == SBT_OK; i++) {
		printf("  ");
		tsi_print_text(stdout, key);
		printf(" = ");
		tsi_print_text(stdout, value);
		printf("\n");
	}
}

static void tsi_summary_json(const char *path, const sbt_reader *r, const sbt_trace_info *in,
                             const char *open_msg, const tsi_scan *s, tsi_type_row *rows,
                             size_t nrows, tsi_slot *threads, size_t nthreads)
{
	char buf[96];
	const char *key, *value;
	uint64_t nframes, first = 0, last = 0;
	size_t i;
	int k;

	printf("{\"trace\":");
	tsi_json_str(stdout, path);
	printf(",\"file_size\":%llu,\"version\":\"%u.%u\",\"features\":%llu,\"trace_id\":\"",
	       (unsigned long long)in->file_size, in->header.version_major,
	       in->header.version_minor, (unsigned long long)in->header.features);
	for (k = 0; k < 16; k++)
		printf("%02x", in->header.trace_id[k]);
	tsi_format_wall(in->header.start_wall_ns, buf, sizeof(buf));
	printf("\",\"start_wall_ns\":%llu,\"start_wall\":\"%s\",\"has_index\":%s",
	       (unsigned long long)in->header.start_wall_ns, buf, in->has_index ? "true" : "false");
	if (in->truncated) {
		printf(",\"torn_tail\":{\"offset\":%llu,\"message\":",
		       (unsigned long long)in->truncated_at);
		tsi_json_str(stdout, open_msg);
		printf("}");
	} else {
		printf(",\"torn_tail\":null");
	}
	printf(",\"damage\":");
	if (s->error)
		tsi_json_str(stdout, s->message);
	else
		printf("null");
	printf(",\"chunks\":%llu,\"records\":%llu,\"first_seq\":%llu,\"last_seq\":%llu",
	       (unsigned long long)in->chunk_count, (unsigned long long)s->records,
	       (unsigned long long)s->first_seq, (unsigned long long)s->last_seq);
	nframes = tsi_frames(s, &first, &last);
	printf(",\"time_span_ns\":%llu,\"frames\":%llu,\"keyframes\":%llu,\"stacks\":%llu"
	       ",\"strings\":%llu",
	       (unsigned long long)(s->records ? s->max_time - s->min_time : 0),
	       (unsigned long long)nframes, (unsigned long long)in->keyframe_count,
	       (unsigned long long)in->stack_count, (unsigned long long)in->string_count);
	if (nframes)
		printf(",\"first_frame\":%llu,\"last_frame\":%llu", (unsigned long long)first,
		       (unsigned long long)last);
	else
		printf(",\"first_frame\":null,\"last_frame\":null");
	printf(",\"frames_cut\":%llu,\"window\":", (unsigned long long)s->frames_cut);
	if (s->has_window && s->window_error == SBT_OK) {
		printf("{\"index\":%llu,\"trigger\":", (unsigned long long)s->window.index);
		tsi_json_str(stdout, s->window.trigger);
		printf(",\"first_frame\":%llu,\"first_submit\":%llu,\"first_launch\":%llu}",
		       (unsigned long long)s->window.first_frame,
		       (unsigned long long)s->window.first_submit,
		       (unsigned long long)s->window.first_launch);
	} else if (s->has_window) {
		printf("{\"error\":");
		tsi_json_str(stdout, sbt_strerror(s->window_error));
		printf("}");
	} else {
		printf("null");
	}
	printf(",\"snapshot\":");
	if (s->has_window) {
		printf("{\"records\":%llu,\"complete\":%s", (unsigned long long)s->snapshot_records,
		       s->has_snapshot_end ? "true" : "false");
		if (s->snapshot_records)
			printf(",\"first_seq\":%llu,\"last_seq\":%llu",
			       (unsigned long long)s->snapshot_first_seq,
			       (unsigned long long)s->snapshot_last_seq);
		printf("}");
	} else {
		printf("null");
	}
	printf(",\"blobs\":{\"count\":%llu,\"bytes_logical\":%llu,\"bytes_unique\":%llu"
	       ",\"bytes_stored\":%llu}",
	       (unsigned long long)in->blob_count, (unsigned long long)in->blob_bytes_logical,
	       (unsigned long long)in->blob_bytes_unique, (unsigned long long)in->blob_bytes_stored);
	printf(",\"raw_bytes\":%llu,\"stored_bytes\":%llu,\"compression_ratio\":%.4f",
	       (unsigned long long)in->raw_bytes, (unsigned long long)in->stored_bytes,
	       tsi_ratio(in->raw_bytes, in->stored_bytes));
	printf(",\"cuda_modules\":{\"loaded\":%llu,\"image_bytes\":%llu,\"without_image\":%llu}",
	       (unsigned long long)s->cu_loads, (unsigned long long)s->cu_image_bytes,
	       (unsigned long long)s->cu_no_image);
	for (int api = 0; api < 2; api++) {
		const struct tsi_nm *nm = api ? &s->hip_nm : &s->cu_nm;
		if (api && !nm->graphs.used) /* hip's only when there are some: the CUDA object stays */
			continue;
		printf(",\"%s_graphs_not_modeled\":{\"graphs\":%zu,\"calls\":[", api ? "hip" : "cuda",
		       nm->graphs.used);
		for (i = 0; i < nm->ncalls; i++) {
			printf("%s{\"name\":", i ? "," : "");
			tsi_json_str(stdout, nm->calls[i].name);
			printf(",\"records\":%llu}", (unsigned long long)nm->calls[i].count);
		}
		printf("]}");
	}
	printf(",\"types\":[");
	for (i = 0; i < nrows; i++) {
		printf("%s{\"type\":%u,\"name\":", i ? "," : "", rows[i].type);
		tsi_json_str(stdout, rows[i].name);
		printf(",\"api\":");
		tsi_json_str(stdout, rows[i].api);
		printf(",\"records\":%llu}", (unsigned long long)rows[i].count);
	}
	printf("],\"threads\":[");
	for (i = 0; i < nthreads; i++) {
		printf("%s{\"thread\":%llu,\"records\":%llu,\"name\":", i ? "," : "",
		       (unsigned long long)threads[i].key, (unsigned long long)threads[i].count);
		if (threads[i].name)
			tsi_json_str(stdout, threads[i].name);
		else
			printf("null");
		printf("}");
	}
	printf("],\"meta\":{");
	for (i = 0; sbt_reader_meta_at(r, i, &key, &value) == SBT_OK; i++) {
		printf("%s", i ? "," : "");
		tsi_json_str(stdout, key);
		printf(":");
		tsi_json_str(stdout, value);
	}
	printf("}}\n");
}

static int tsi_summary(const tsi_opts *o, sbt_reader *r, const char *open_msg)
{
	sbt_trace_info in;
	tsi_scan s;
	tsi_slot *types = NULL, *threads = NULL;
	tsi_type_row *rows = NULL;
	size_t i;
	int rc = TSI_EXIT_BAD;

	sbt_reader_get_info(r, &in);
	if (tsi_scan_records(r, &s) != SBT_OK) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out_free_scan;
	}
	types = tsi_map_list(&s.types);
	threads = tsi_map_list(&s.threads);
	rows = malloc((s.types.used ? s.types.used : 1) * sizeof(*rows));
	if (!types || !threads || !rows) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out_free_lists;
	}
	for (i = 0; i < s.types.used; i++) {
		rows[i].type = (uint32_t)types[i].key;
		rows[i].count = types[i].count;
		rows[i].name = sbt_dump_type_name(r, rows[i].type);
		tsi_api_of(rows[i].name, rows[i].type, rows[i].api, sizeof(rows[i].api));
	}
	qsort(rows, s.types.used, sizeof(*rows), tsi_cmp_type_row);
	qsort(threads, s.threads.used, sizeof(*threads), tsi_cmp_key);

	if (o->json)
		tsi_summary_json(o->path, r, &in, open_msg, &s, rows, s.types.used, threads,
		                 s.threads.used);
	else
		tsi_summary_text(o->path, r, &in, &s, rows, s.types.used, threads,
		                 s.threads.used);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "tsinfo: writing output: %s\n", strerror(errno));
		goto out_free_lists;
	}
	if (s.error) {
		fprintf(stderr, "tsinfo: %s: %s (records after it not shown; --salvage skips it)\n",
		        o->path, s.message);
		goto out_free_lists;
	}
	rc = TSI_EXIT_OK;
out_free_lists:
	free(rows);
	free(threads);
	free(types);
out_free_scan:
	tsi_scan_free(&s);
	return rc;
}

/* ---- dump ------------------------------------------------------------- */

static int tsi_dump(const tsi_opts *o, sbt_reader *r)
{
	sbt_dump *d = NULL;
	sbt_dump_session *blobs = NULL;
	sbt_dump_options dopt;
	sbt_dump_buf buf = { 0 };
	sbt_record rec;
	sbt_status st;
	int rc = TSI_EXIT_BAD;

	st = sbt_dump_create(&d);
	if (st == SBT_OK)
		st = sbt_cm_dump_register(d); /* the compute (CUDA) records */
	if (st == SBT_OK)
		st = sbt_vk_dump_register(d); /* the Vulkan records */
	if (st == SBT_OK)
		st = sbt_dump_session_create(r, &blobs); /* shaders etc. by reference */
	if (st != SBT_OK) {
		fprintf(stderr, "tsinfo: %s\n", sbt_strerror(st));
		goto out_free_dump;
	}
	memset(&dopt, 0, sizeof(dopt));
	dopt.format = o->json ? SBT_DUMP_JSON : SBT_DUMP_TEXT;
	dopt.with_stack = o->stacks;
	dopt.max_elements = o->elements;
	dopt.session = blobs;
	if (o->has_range && o->range_a > 0) {
		st = sbt_reader_seek_seq(r, o->range_a);
		if (st == SBT_ERR_NOT_FOUND || st == SBT_END) {
			rc = TSI_EXIT_OK; /* nothing at or after A */
			goto out_free_dump;
		}
		if (st != SBT_OK)
			goto out_read_error;
	}
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		if (o->has_range && rec.seq < o->range_a)
			continue;
		if (o->has_range && rec.seq >= o->range_b) {
			st = SBT_END;
			break;
		}
		if (sbt_dump_record(d, r, &rec, &dopt, &buf) != SBT_OK) {
			fprintf(stderr, "tsinfo: out of memory\n");
			goto out_free_buf;
		}
		if (buf.len >= 1 << 16) {
			fwrite(buf.data, 1, buf.len, stdout);
			buf.len = 0;
		}
	}
	if (buf.len)
		fwrite(buf.data, 1, buf.len, stdout);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "tsinfo: writing output: %s\n", strerror(errno));
		goto out_free_buf;
	}
	if (st != SBT_END)
		goto out_read_error;
	rc = TSI_EXIT_OK;
	goto out_free_buf;

out_read_error:
	fprintf(stderr, "tsinfo: %s: %s\n", o->path,
	        sbt_reader_message(r)[0] ? sbt_reader_message(r) : sbt_strerror(st));
out_free_buf:
	sbt_dump_buf_free(&buf);
out_free_dump:
	sbt_dump_session_free(blobs);
	sbt_dump_free(d);
	return rc;
}

/* The reader's status for a missing file is a bare I/O error; say why. */
static int tsi_check_readable(const char *path)
{
	char why[512];
	FILE *f;

	if (sbt_cli_check_trace_path(path, why, sizeof(why)) != 0) {
		fprintf(stderr, "tsinfo: %s: %s\n", path, why);
		return -1;
	}
	f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "tsinfo: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	fclose(f);
	return 0;
}

/* ---- verify ----------------------------------------------------------- */

/* Distinct damaged offsets, in the order first seen. */
typedef struct tsi_damage {
	uint64_t offsets[64];
	size_t count;
	int overflow; /* more than fit: counted, not listed */
} tsi_damage;

static void tsi_damage_add(tsi_damage *d, uint64_t off)
{
	size_t i;

	for (i = 0; i < d->count; i++)
		if (d->offsets[i] == off)
			return;
	if (d->count < sizeof(d->offsets) / sizeof(d->offsets[0]))
		d->offsets[d->count++] = off;
	else
		d->overflow++;
}

/* The reader names damage as "... at offset N ..." (possibly several notes
 * joined by "; "); every such offset is a damaged place. */
static size_t tsi_damage_scan(tsi_damage *d, const char *msg)
{
	const char *p = msg;
	size_t found = 0;

	while ((p = strstr(p, "at offset ")) != NULL) {
		char *end;
		unsigned long long off;
		p += strlen("at offset ");
		off = strtoull(p, &end, 10);
		if (end != p) {
			tsi_damage_add(d, off);
			found++;
		}
	}
	return found;
}

/*
 * The reader is opened with salvage, so that damage in one chunk does not
 * hide damage in a later one, and without verify, so that open takes the
 * chunk list from the index when there is one (verify would stop at the
 * first bad payload).  Then every chunk's payload checksum is checked
 * through the chunk walk, and every record is read through the normal path
 * (which also checks lengths and varints).  Each problem is one line on
 * stderr naming its offset; the verdict counts distinct damaged offsets.
 */
static int tsi_verify(const tsi_opts *o)
{
	sbt_reader_options ropt;
	sbt_reader *r = NULL;
	sbt_trace_info in;
	sbt_chunk_info ci;
	sbt_record rec;
	sbt_status st;
	tsi_damage dmg;
	uint64_t records = 0, other = 0;
	size_t i;

	if (tsi_check_readable(o->path) != 0)
		return TSI_EXIT_BAD;
	memset(&dmg, 0, sizeof(dmg));
	memset(&ropt, 0, sizeof(ropt));
	ropt.salvage = 1;
	st = sbt_reader_open(o->path, &ropt, &r);
	if (st != SBT_OK) {
		char why[512];
		sbt_cli_open_error(o->path, st, r, why, sizeof(why));
		fprintf(stderr, "tsinfo: %s: %s\n", o->path, why);
		sbt_reader_close(r);
		return TSI_EXIT_BAD;
	}
	if (sbt_reader_message(r)[0]) {
		fprintf(stderr, "tsinfo: %s: %s\n", o->path, sbt_reader_message(r));
		if (tsi_damage_scan(&dmg, sbt_reader_message(r)) == 0)
			other++;
	}
	sbt_reader_get_info(r, &in);
	if (in.truncated)
		tsi_damage_add(&dmg, in.truncated_at);
	for (i = 0; (st = sbt_reader_chunk_at(r, i, &ci)) == SBT_OK; i++) {
		sbt_status vs = sbt_reader_verify_chunk(r, i);
		if (vs != SBT_OK) {
			const char *m = sbt_reader_message(r);
			fprintf(stderr, "tsinfo: %s: chunk %zu at offset %llu: %s\n", o->path, i,
			        (unsigned long long)ci.offset, m[0] ? m : sbt_strerror(vs));
			tsi_damage_add(&dmg, ci.offset);
		}
	}
	if (st != SBT_END) {
		const char *m = sbt_reader_message(r);
		fprintf(stderr, "tsinfo: %s: chunk walk stopped at chunk %zu: %s\n", o->path, i,
		        m[0] ? m : sbt_strerror(st));
		if (tsi_damage_scan(&dmg, m) == 0)
			other++;
	}
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK)
		records++;
	if (st != SBT_END) {
		const char *m = sbt_reader_message(r);
		fprintf(stderr, "tsinfo: %s: reading records: %s\n", o->path,
		        m[0] ? m : sbt_strerror(st));
		if (tsi_damage_scan(&dmg, m) == 0)
			other++;
	}
	sbt_reader_close(r);
	if (dmg.count || dmg.overflow || other) {
		fprintf(stderr, "tsinfo: %s: %llu problem(s) found", o->path,
		        (unsigned long long)(dmg.count + (size_t)dmg.overflow + other));
		if (dmg.count) {
			fprintf(stderr, "; damaged at offset%s", dmg.count > 1 ? "s" : "");
			for (i = 0; i < dmg.count; i++)
				fprintf(stderr, "%s %llu", i ? "," : "", (unsigned long long)dmg.offsets[i]);
		}
		fprintf(stderr, "\n");
		return TSI_EXIT_BAD;
	}
	printf("%s: ok: %zu chunks, %llu records, checksums good%s\n", o->path, i,
	       (unsigned long long)records,
	       in.has_index ? "" : " (no index: the writer did not close it; rebuilt by scanning)");
	return TSI_EXIT_OK;
}

/* ---- chunks ----------------------------------------------------------- */

static const char *tsi_chunk_type_name(uint32_t type)
{
	switch (type) {
	case SBT_CHUNK_RECORDS: return "records";
	case SBT_CHUNK_STRINGS: return "strings";
	case SBT_CHUNK_STACKS: return "stacks";
	case SBT_CHUNK_TYPES: return "types";
	case SBT_CHUNK_META: return "meta";
	case SBT_CHUNK_BLOBS: return "blobs";
	case SBT_CHUNK_INDEX: return "index";
	default: return "unknown";
	}
}

static const char *tsi_codec_name(uint32_t codec)
{
	return codec == SBT_CODEC_NONE ? "none" : codec == SBT_CODEC_LZ4 ? "lz4" : "?";
}

static int tsi_chunks(sbt_reader *r)
{
	sbt_chunk_info ci;
	sbt_status st;
	size_t i;

	printf("%-6s %-12s %-8s %-5s %10s %10s %8s %s\n", "chunk", "offset", "type", "codec",
	       "raw", "stored", "entries", "first_seq");
	for (i = 0; (st = sbt_reader_chunk_at(r, i, &ci)) == SBT_OK; i++)
		printf("%-6zu %-12llu %-8s %-5s %10u %10u %8u %llu\n", i,
		       (unsigned long long)ci.offset, tsi_chunk_type_name(ci.type),
		       tsi_codec_name(ci.codec), ci.raw_size, ci.stored_size, ci.record_count,
		       (unsigned long long)ci.first_seq);
	if (st != SBT_END && st != SBT_ERR_NOT_FOUND) {
		fprintf(stderr, "tsinfo: chunk %zu: %s\n", i,
		        sbt_reader_message(r)[0] ? sbt_reader_message(r) : sbt_strerror(st));
		return TSI_EXIT_BAD;
	}
	return TSI_EXIT_OK;
}

/* ---- main ------------------------------------------------------------- */

int main(int argc, char **argv)
{
	tsi_opts o;
	sbt_reader_options ropt;
	sbt_reader *r = NULL;
	sbt_trace_info in;
	sbt_status st;
	char open_msg[512];
	int rc;

	if (tsi_parse_args(argc, argv, &o) != 0)
		return TSI_EXIT_USAGE;
	if (o.mode == TSI_VERIFY)
		return tsi_verify(&o);

	if (tsi_check_readable(o.path) != 0)
		return TSI_EXIT_BAD;
	memset(&ropt, 0, sizeof(ropt));
	ropt.salvage = o.salvage;
	st = sbt_reader_open(o.path, &ropt, &r);
	if (st != SBT_OK) {
		const char *m = r ? sbt_reader_message(r) : "";
		char why[512];
		sbt_cli_open_error(o.path, st, r, why, sizeof(why));
		fprintf(stderr, "tsinfo: %s: %s\n", o.path, why);
		/* Corruption in the middle: the chunks before it are still worth
		 * showing; the exit status says the file is damaged. */
		if (st != SBT_ERR_CORRUPT || !r) {
			sbt_reader_close(r);
			return TSI_EXIT_BAD;
		}
		snprintf(open_msg, sizeof(open_msg), "%s", m);
	} else {
		snprintf(open_msg, sizeof(open_msg), "%s", sbt_reader_message(r));
		sbt_reader_get_info(r, &in);
		if (in.truncated || open_msg[0])
			fprintf(stderr, "tsinfo: warning: %s: %s\n", o.path,
			        open_msg[0] ? open_msg : "torn tail dropped");
	}

	if (o.mode == TSI_DUMP)
		rc = tsi_dump(&o, r);
	else if (o.mode == TSI_CHUNKS)
		rc = tsi_chunks(r);
	else if (o.mode == TSI_MEMORY)
		rc = tsi_memory(o.path, r, o.json);
	else if (o.mode == TSI_EXTRACT)
		rc = tsi_extract(o.path, r, o.extract);
	else
		rc = tsi_summary(&o, r, open_msg);
	sbt_reader_close(r);
	return st == SBT_OK ? rc : TSI_EXIT_BAD;
}
