#!/bin/sh
# The CUDA interposer against the libcuda test double: a driver-API program
# and a runtime-style one (dlopen + dlsym(h, "cuGetProcAddress_v2") and
# every entry point through cuGetProcAddress) are both recorded in full;
# per-name counts equal the double's own; calls we do not model are
# reported at exit; keyframe policies; reentrancy; a missing driver;
# tscapture's LD_PRELOAD.  The programs and the kernel module are written
# here so that the test says exactly which calls it makes.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
SO="$TOP/$BUILD/interpose/libtracesmith_cuda.so"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
[ -e "$SO" ] || fail "the interposer $SO was not built"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG \
	TRACESMITH_OUTPUT TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS
export TSCUDA_DOUBLE_QUIET=1
# The per-name tables of the exit report are read below: they are printed
# at the info level (the default prints the one-line summary).
export TRACESMITH_LOG=info
# Counts are compared with the double's per entry point; allocations placed
# in the address window never reach the double's cuMemAlloc, so placement
# is off here (tests/shell/test_cuda_va.sh tests it).
export TRACESMITH_CUDA_VA=off
CFLAGS_T="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I$TOP -I/usr/local/cuda/include"
# Under TSan the programs built here are instrumented too: an uninstrumented
# program that gets the TSan runtime through the double or our interposer
# crashes before main.
tsan_build && CFLAGS_T="$CFLAGS_T -fsanitize=thread"

# ---- the kernel module: saxpy y = a*x + y over n floats -------------------
cat >"$T/mod.c" <<'EOF'
#include "tests/doubles/cuda/modules/tcd_module.h"
struct saxpy_params { float *x; float *y; float a; int n; };
static void saxpy(const struct tcd_kernel_launch *l)
{
	const struct saxpy_params *p = l->params;
	for (int i = 0; i < p->n; i++)
		p->y[i] = p->a * p->x[i] + p->y[i];
}
static const struct tcd_param saxpy_p[] = {
	TCD_PARAM(struct saxpy_params, x), TCD_PARAM(struct saxpy_params, y),
	TCD_PARAM(struct saxpy_params, a), TCD_PARAM(struct saxpy_params, n) };
static const struct tcd_kernel_desc kernels[] = {
	TCD_KERNEL("saxpy", saxpy, struct saxpy_params, saxpy_p) };
const struct tcd_module_desc tcd_module_table = {
	TCD_MODULE_MAGIC, TCD_MODULE_ABI, 1, 0, kernels, 0 };
EOF
cc $CFLAGS_T -shared -fPIC "$T/mod.c" -o "$T/mod.so" || fail "cannot build the test module"

# ---- a driver-API program ---------------------------------------------------
cat >"$T/drv.c" <<'EOF'
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
	fprintf(stderr, "drv: %s failed: %d\n", #x, (int)r_); exit(1); } } while (0)
enum { N = 1000 };
int main(int argc, char **argv)
{
	CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction f; CUstream s;
	CUdeviceptr dx, dy; int count, nl = argc > 2 ? atoi(argv[2]) : 2;
	float x[N], y[N], out[N], a = 2.0f; int n = N;
	FILE *fp = fopen(argv[1], "rb"); static char img[1 << 20]; size_t len;
	const void *table; CUuuid uuid; double sum = 0;
	if (!fp) return 2;
	len = fread(img, 1, sizeof(img), fp); fclose(fp); (void)len;
	for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	for (int i = 0; i < 3; i++) CK(cuDeviceGetCount(&count));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CK(cuModuleLoadData(&mod, img));
	CK(cuModuleGetFunction(&f, mod, "saxpy"));
	CK(cuMemAlloc(&dx, sizeof(x)));
	CK(cuMemAlloc(&dy, sizeof(y)));
	CK(cuMemcpyHtoD(dx, x, sizeof(x)));
	CK(cuMemcpyHtoD(dy, y, sizeof(y)));
	CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	for (int i = 0; i < nl; i++) {
		void *params[] = { &dx, &dy, &a, &n };
		CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
	}
	{	/* the extra form: one packed buffer */
		struct { CUdeviceptr x, y; float a; int n; } buf = { dx, dy, a, n };
		size_t bs = sizeof(buf);
		void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bs,
		                  CU_LAUNCH_PARAM_END };
		CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, extra));
	}
	CK(cuMemcpyDtoHAsync(out, dy, sizeof(out), s));
	CK(cuStreamSynchronize(s));
	memset(&uuid, 0x5a, sizeof(uuid));
	(void)cuGetExportTable(&table, &uuid);
	CK(cuMemcpyDtoH(out, dy, sizeof(out)));
	for (int i = 0; i < N; i++) sum += out[i];
	CK(cuMemFree(dx));
	CK(cuMemFree(dy));
	printf("sum %.1f\n", sum);
	return 0;
}
EOF
cc $CFLAGS_T "$T/drv.c" -L"$DBL" -lcuda -o "$T/drv" || fail "cannot build the driver-API program"

# ---- a runtime-style program: nothing linked, all through cuGetProcAddress ----
cat >"$T/rt.c" <<'EOF'
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
typedef CUresult (*gpa_t)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
static gpa_t gpa;
static void *get(const char *name, cuuint64_t flags)
{
	void *p = NULL; CUdriverProcAddressQueryResult st;
	if (gpa(name, &p, 12080, flags, &st) != CUDA_SUCCESS || !p) {
		fprintf(stderr, "rt: no %s\n", name); exit(1);
	}
	return p;
}
#define PT CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
	fprintf(stderr, "rt: %s failed: %d\n", #x, (int)r_); exit(1); } } while (0)
enum { N = 256 };
int main(int argc, char **argv)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CUresult (*init)(unsigned); CUresult (*devget)(CUdevice *, int);
	CUresult (*retain)(CUcontext *, CUdevice); CUresult (*setcur)(CUcontext);
	CUresult (*libload)(CUlibrary *, const void *, CUjit_option *, void **, unsigned,
	                    CUlibraryOption *, void **, unsigned);
	CUresult (*getk)(CUkernel *, CUlibrary, const char *);
	CUresult (*alloc)(CUdeviceptr *, size_t); CUresult (*h2d)(CUdeviceptr, const void *, size_t);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
	                   unsigned, CUstream, void **, void **);
	CUresult (*d2h)(void *, CUdeviceptr, size_t); CUresult (*sync)(CUstream);
	CUdevice dev; CUcontext ctx; CUlibrary lib; CUkernel k; CUdeviceptr dx, dy;
	float x[N], y[N], a = 3.0f; int n = N; double sum = 0;
	static char img[1 << 20]; FILE *fp = fopen(argv[1], "rb");
	if (!h || !fp || argc < 2) { fprintf(stderr, "rt: %s\n", dlerror()); return 2; }
	if (fread(img, 1, sizeof(img), fp) == 0) return 2;
	fclose(fp);
	gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
	if (!gpa) return 2;
	init = get("cuInit", 0); devget = get("cuDeviceGet", 0);
	retain = get("cuDevicePrimaryCtxRetain", 0); setcur = get("cuCtxSetCurrent", 0);
	libload = get("cuLibraryLoadData", 0); getk = get("cuLibraryGetKernel", 0);
	alloc = get("cuMemAlloc", 0); h2d = get("cuMemcpyHtoD", PT);
	launch = get("cuLaunchKernel", PT); d2h = get("cuMemcpyDtoH", PT);
	sync = get("cuStreamSynchronize", PT);
	for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = (float)i; }
	CK(init(0)); CK(devget(&dev, 0)); CK(retain(&ctx, dev)); CK(setcur(ctx));
	CK(libload(&lib, img, NULL, NULL, 0, NULL, NULL, 0));
	CK(getk(&k, lib, "saxpy"));
	CK(alloc(&dx, sizeof(x))); CK(alloc(&dy, sizeof(y)));
	CK(h2d(dx, x, sizeof(x))); CK(h2d(dy, y, sizeof(y)));
	{
		void *params[] = { &dx, &dy, &a, &n };
		CK(launch((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
	}
	CK(sync(NULL));
	CK(d2h(y, dy, sizeof(y)));
	for (int i = 0; i < N; i++) sum += y[i];
	printf("sum %.1f\n", sum);
	return 0;
}
EOF
cc $CFLAGS_T "$T/rt.c" -ldl -o "$T/rt" || fail "cannot build the runtime-style program"

# ---- helpers ----------------------------------------------------------------
run_cap() { # NAME TRACE PROGRAM ARGS...: under LD_PRELOAD, double stats in $T/NAME.stats
	name=$1 trace=$2
	shift 2
	rc=0
	LD_LIBRARY_PATH="$DBL" LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$trace" \
		TSCUDA_DOUBLE_STATS="$T/$name.stats" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/$name.err" >&2; fail "$name: exit $rc"; }
}
# Our per-name counts (program's calls) from the exit report, "name count" lines.
our_counts() {
	sed -n 's/.*cuda: calls seen: //p' "$T/$1.err" | tr ' ' '\n' | grep = | tr '=' ' ' | sort
}
own_counts() {
	sed -n 's/.*cuda: calls made by the recorder itself: //p' "$T/$1.err" | tr ' ' '\n' |
		grep = | tr '=' ' ' | sort
}
# Every name the double counted equals what we saw plus what we called ourselves.
check_counts() {
	name=$1
	[ -s "$T/$name.stats" ] || fail "$name: the double wrote no stats"
	our_counts "$name" >"$T/$name.ours"
	own_counts "$name" >"$T/$name.own"
	awk 'FNR == NR { ours[$1] += $2; next } FILENAME ~ /own$/ { ours[$1] += $2; next }
	     $1 ~ /^cu/ && $2 > 0 { dbl[$1] = $2 }
	     END { for (k in dbl) if (dbl[k] != ours[k]) { print k, "double", dbl[k], "ours", ours[k]; bad = 1 }
	           for (k in ours) if (!(k in dbl)) { print k, "ours", ours[k], "double 0"; bad = 1 }
	           exit bad }' "$T/$name.ours" "$T/$name.own" "$T/$name.stats" >"$T/$name.diff" ||
		fail "$name: per-name counts differ from the double's: $(cat "$T/$name.diff")"
}
count_of() { # NAME CALL: our count of CALL
	our_counts "$1" | awk -v c="$2" '$1 == c { print $2 }'
}
dump() { "$TOP/$BUILD/tsinfo" --dump "$1" >"$T/$2.dump" 2>&1 || fail "tsinfo --dump $1: $(cat "$T/$2.dump")"; }
nrec() { grep -cE " $2( |$)" "$T/$1.dump" || true; }

# ---- 1. the driver-API program, fully recorded ------------------------------
run_cap drv "$T/drv.sbt" "$T/drv" "$T/mod.so"
has drv out "sum 2998000.0" # y = 2*x + 1, three times: 6x + 1
check_counts drv
[ "$(count_of drv cuLaunchKernel)" = 3 ] || fail "drv: cuLaunchKernel count $(count_of drv cuLaunchKernel)"
[ "$(count_of drv cuDeviceGetCount)" = 3 ] || fail "drv: cuDeviceGetCount count"
[ "$(count_of drv cuMemcpyHtoD_v2)" = 2 ] || fail "drv: cuMemcpyHtoD_v2 count"
has drv err "cuda: not modeled (counted only): "
grep "not modeled" "$T/drv.err" | grep -q "cuDeviceGetCount=3" || fail "drv: cuDeviceGetCount not reported as not modeled"
grep "not modeled" "$T/drv.err" | grep -q "cuGetExportTable=1" || fail "drv: cuGetExportTable not reported"
has drv err "5a5a5a5a-5a5a-5a5a-5a5a-5a5a5a5a5a5a"
grep "not modeled" "$T/drv.err" | grep -q "cuLaunchKernel" && fail "drv: cuLaunchKernel reported as not modeled"
dump "$T/drv.sbt" drv
for t in cuInit cuDeviceGet cuDevicePrimaryCtxRetain cuCtxSetCurrent cuModuleLoadData \
	cuModuleGetFunction cuStreamCreate cuStreamSynchronize cuMemcpyDtoHAsync cuMemcpyDtoH; do
	[ "$(nrec drv cuda.$t)" = 1 ] || fail "drv: $(nrec drv cuda.$t) cuda.$t records, expected 1"
done
[ "$(nrec drv cuda.cuLaunchKernel)" = 3 ] || fail "drv: launches recorded: $(nrec drv cuda.cuLaunchKernel)"
[ "$(nrec drv cuda.cuMemAlloc)" = 2 ] || fail "drv: allocations recorded"
[ "$(nrec drv cuda.cuMemcpyHtoD)" = 2 ] || fail "drv: host-to-device copies recorded"
[ "$(nrec drv cuda.cuMemFree)" = 2 ] || fail "drv: frees recorded"
[ "$(nrec drv cuda.cuDeviceGetCount)" = 0 ] || fail "drv: an unmodeled call got a record"
# Launch fields: the kernel by name, its layout (4 params: 8,8,4,4 bytes =
# 24) and parameter bytes; the extra form carries its buffer.
grep ' cuda.cuLaunchKernel ' "$T/drv.dump" | head -1 >"$T/l1"
grep -q 'name="saxpy"' "$T/l1" || fail "launch: no kernel name: $(cat "$T/l1")"
grep -q 'grid_x=1 ' "$T/l1" || fail "launch: grid: $(cat "$T/l1")"
grep -q 'params=[0-9a-f]\{48\}' "$T/l1" || fail "launch: 24 parameter bytes expected: $(cat "$T/l1")"
grep -q 'layout=' "$T/l1" || fail "launch: no layout: $(cat "$T/l1")"
grep ' cuda.cuLaunchKernel ' "$T/drv.dump" | sed -n 3p | grep -q 'extra=' || fail "launch: extra form not recorded"
# Module image: the .so's bytes, sized from its ELF header.
size=$(stat -c %s "$T/mod.so")
grep ' cuda.cuModuleLoadData ' "$T/drv.dump" | grep -q "size=$size " || fail "module image: not $size bytes: $(grep cuModuleLoadData "$T/drv.dump")"
# Host-to-device copies carry a blob; device-to-host ones a checkpoint each.
grep ' cuda.cuMemcpyHtoD ' "$T/drv.dump" | grep -vq 'blob=' && fail "HtoD without data"
[ "$(grep -c ' checkpoint ' "$T/drv.dump")" = 2 ] || fail "drv: $(grep -c ' checkpoint ' "$T/drv.dump") checkpoints, expected 2"
# The async copy's checkpoint comes after the synchronization, not at the copy.
awk '/ cuda.cuMemcpyDtoHAsync /{a=NR} / cuda.cuStreamSynchronize /{s=NR} / checkpoint /{if(!c)c=NR} END{exit !(a<s && s<c)}' \
	"$T/drv.dump" || fail "drv: the async checkpoint is not after cuStreamSynchronize"
# One keyframe at capture start (the first launch) by default.
[ "$(grep -c ' keyframe ' "$T/drv.dump")" = 1 ] || fail "drv: default policy: keyframes $(grep -c ' keyframe ' "$T/drv.dump")"
# Both allocations were made while recording: replay rebuilds them from the
# recorded calls, so the default start keyframe is partial and holds neither.
[ "$(nrec drv cuda.tsSnapshot)" = 0 ] || fail "drv: the partial start keyframe holds $(nrec drv cuda.tsSnapshot) allocations, expected 0"
# (the marker's payload is dumped as hex: field flags, key 0x10, value 1 first)
grep ' keyframe ' "$T/drv.dump" | grep -q 'hex=1001' || fail "drv: the start keyframe is not marked partial: $(grep ' keyframe ' "$T/drv.dump")"
awk '/ keyframe /{k=NR} / cuda.cuLaunchKernel /{if(!l)l=NR} END{exit !(k<l)}' "$T/drv.dump" ||
	fail "drv: the start keyframe is not before the first launch"

# ---- 2. the runtime-style program --------------------------------------------
run_cap rt "$T/rt.sbt" "$T/rt" "$T/mod.so"
has rt out "sum 33408.0" # y = 3*1 + i
check_counts rt
# Every call went through cuGetProcAddress: we saw them all, the exact
# variants the driver picked, per-thread ones kept distinct.
for c in cuInit cuDeviceGet cuDevicePrimaryCtxRetain cuCtxSetCurrent cuLibraryLoadData \
	cuLibraryGetKernel cuLaunchKernel_ptsz cuStreamSynchronize_ptsz cuMemcpyDtoH_v2_ptds; do
	[ "$(count_of rt $c)" = 1 ] || fail "rt: $c seen $(count_of rt $c) times, expected 1"
done
[ "$(count_of rt cuMemAlloc_v2)" = 2 ] || fail "rt: cuMemAlloc_v2 count"
[ "$(count_of rt cuMemcpyHtoD_v2_ptds)" = 2 ] || fail "rt: cuMemcpyHtoD_v2_ptds count"
[ "$(count_of rt cuGetProcAddress_v2)" = 11 ] || fail "rt: cuGetProcAddress_v2 count $(count_of rt cuGetProcAddress_v2)"
dump "$T/rt.sbt" rt
grep ' cuda.cuLaunchKernel ' "$T/rt.dump" >"$T/l2"
[ "$(wc -l <"$T/l2")" = 1 ] || fail "rt: launches recorded: $(cat "$T/l2")"
grep -q 'sub=1 ' "$T/l2" || fail "rt: the CUkernel passed as a CUfunction is not marked: $(cat "$T/l2")"
grep -q 'ptds=1' "$T/l2" || fail "rt: the per-thread launch is not marked ptds"
grep -q 'name="saxpy"' "$T/l2" || fail "rt: kernel name: $(cat "$T/l2")"
grep -q 'params=' "$T/l2" || fail "rt: parameters (cuKernelGetParamInfo): $(cat "$T/l2")"
[ "$(nrec rt cuda.cuLibraryLoadData)" = 1 ] || fail "rt: library load not recorded"

# ---- 3. keyframe policies ------------------------------------------------------
TRACESMITH_SNAPSHOT=launch run_cap kfl "$T/kfl.sbt" "$T/drv" "$T/mod.so" 3
dump "$T/kfl.sbt" kfl
[ "$(grep -c ' keyframe ' "$T/kfl.dump")" = 8 ] || fail "snapshot=launch: $(grep -c ' keyframe ' "$T/kfl.dump") keyframes for 4 launches, expected 8"
TRACESMITH_SNAPSHOT=2 run_cap kf2 "$T/kf2.sbt" "$T/drv" "$T/mod.so" 5
dump "$T/kf2.sbt" kf2
[ "$(grep -c ' keyframe ' "$T/kf2.dump")" = 4 ] || fail "snapshot=2: $(grep -c ' keyframe ' "$T/kf2.dump") keyframes for 6 launches, expected 4 (start + 3)"
check_counts kfl
# Unchanged memory costs nothing: 8 keyframes of 2 allocations store few unique bytes.
"$TOP/$BUILD/tsinfo" --json "$T/kfl.sbt" >"$T/kfl.json"
uniq=$(json_field "$T/kfl.json" bytes_unique)
logical=$(json_field "$T/kfl.json" bytes_logical)
[ -n "$uniq" ] && [ -n "$logical" ] && [ "$uniq" -lt "$logical" ] || fail "keyframes not deduplicated: unique $uniq of $logical"

# ---- 4. reentrancy: a "driver" whose cuMemcpyHtoD_v2 calls other entry points ---
cat >"$T/shim.c" <<'EOF'
#include <cuda.h>
/* Calls through the PLT: under LD_PRELOAD these reach the interposer again. */
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	CUresult r = cuMemcpyHtoDAsync_v2(dst, src, n, 0);
	return r != CUDA_SUCCESS ? r : cuStreamSynchronize(0);
}
EOF
cc $CFLAGS_T -shared -fPIC "$T/shim.c" -L"$DBL" -lcuda -o "$T/shim.so" || fail "cannot build the shim"
TRACESMITH_CUDA_DRIVER="$T/shim.so" run_cap re "$T/re.sbt" "$T/drv" "$T/mod.so"
has re out "sum 2998000.0"
dump "$T/re.sbt" re
[ "$(nrec re cuda.cuMemcpyHtoD)" = 2 ] || fail "reentrancy: HtoD records $(nrec re cuda.cuMemcpyHtoD)"
[ "$(nrec re cuda.cuMemcpyHtoDAsync)" = 0 ] || fail "reentrancy: the nested copies were recorded"
[ "$(nrec re cuda.cuStreamSynchronize)" = 1 ] || fail "reentrancy: the nested synchronizations were recorded"
[ -z "$(count_of re cuMemcpyHtoDAsync_v2)" ] || fail "reentrancy: nested calls were counted"

# ---- 5. a missing driver: a clear message and the call's failure, no crash -------
rc=0
LD_LIBRARY_PATH="$DBL" LD_PRELOAD="$SO" TRACESMITH_CUDA_DRIVER="$T/nope/libcuda.so.1" \
	TRACESMITH_OUTPUT="$T/none.sbt" "$T/drv" "$T/mod.so" >"$T/none.out" 2>"$T/none.err" || rc=$?
[ "$rc" -eq 1 ] || fail "missing driver: exit $rc: $(cat "$T/none.err")"
has none err "cannot load $T/nope/libcuda.so.1 (TRACESMITH_CUDA_DRIVER)"
has none err "cuInit(0) failed: 3" # CUDA_ERROR_NOT_INITIALIZED

# ---- 6. tscapture puts the interposer in LD_PRELOAD, keeping the user's -----------
rc=0
LD_LIBRARY_PATH="$DBL" LD_PRELOAD="$T/shim.so" TRACESMITH_CUDA_DRIVER="$DBL/libcuda.so.1" \
	"$TOP/$BUILD/tscapture" -o "$T/tsc.sbt" -- sh -c 'echo "$LD_PRELOAD"; exec "$0" "$@"' \
	"$T/drv" "$T/mod.so" >"$T/tsc.out" 2>"$T/tsc.err" || rc=$?
[ "$rc" -eq 0 ] || fail "tscapture: exit $rc: $(cat "$T/tsc.err")"
has tsc out "interpose/libtracesmith_cuda.so:$T/shim.so"
dump "$T/tsc.sbt" tsc
[ "$(nrec tsc cuda.cuLaunchKernel)" = 3 ] || fail "tscapture: launches recorded $(nrec tsc cuda.cuLaunchKernel)"
echo "ok"
