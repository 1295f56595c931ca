#!/bin/sh
# What the CUDA interposer does at a launch without asking the driver, and
# that the record is still what the driver would have said.
# Stream capture: it knows which streams are capturing from the capture
# calls it intercepts (interpose/cuda/tcu_capture.c) and records each
# launch's capture_status as the driver has it: captures begun through
# cuStreamBeginCapture_v2, the legacy cuStreamBeginCapture and the
# per-thread forms, a capture that failed to begin, an invalidated one,
# launches on other streams meanwhile; the driver is asked only while a
# capture is going on and once per stream (exact counts from the exit
# report).  A capture begun before the interposer was loaded (a program
# that dlopens it late) is found at the first launch on its stream, gets no
# keyframe (which would have synchronized the capturing stream and broken
# the capture), and from then on every launch asks the driver; so does one
# whose end is the first we see.
# Functions: asking for the same function again keeps its parameter layout
# (asked of the driver once); after a module unload it is asked again.
# Threads: four threads asking for functions and launching at once, one of
# them capturing now and then, get every record right.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
SO="$TOP/$BUILD/interpose/libtracesmith_cuda.so"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
[ -e "$SO" ] || fail "the interposer $SO was not built"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG \
	TRACESMITH_OUTPUT TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS \
	TSCUDA_DOUBLE_SEED
export TSCUDA_DOUBLE_QUIET=1
# The per-name tables of the exit report are read below: they are printed
# at the info level (the default prints the one-line summary).
export TRACESMITH_LOG=info
CFLAGS_T="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I$TOP -I/usr/local/cuda/include"
# Under TSan the programs built here are instrumented too: an uninstrumented
# program that gets the TSan runtime through the double or our interposer
# crashes before main.
tsan_build && CFLAGS_T="$CFLAGS_T -fsanitize=thread"
MOD="$DBL/modules/kernels.so"
[ -e "$MOD" ] || fail "the double's module $MOD was not built"

# Shared by both programs: the double's "empty" kernel; each launch's
# grid_x is its number, so the trace says which launch a record is.
cat >"$T/common.h" <<'EOF'
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
	fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #x, (int)r_); exit(1); } } while (0)
static char img[4 << 20];
static CUmodule mod;
static CUcontext ctx;
static CUfunction setup(const char *module)
{
	CUdevice dev; CUfunction f;
	FILE *fp = fopen(module, "rb");
	if (!fp || fread(img, 1, sizeof(img), fp) == 0) { fprintf(stderr, "cannot read %s\n", module); exit(2); }
	fclose(fp);
	CK(cuInit(0)); CK(cuDeviceGet(&dev, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx)); CK(cuModuleLoadData(&mod, img));
	CK(cuModuleGetFunction(&f, mod, "empty"));
	return f;
}
EOF

# ---- 1. captures the interposer sees begin --------------------------------
cat >"$T/cap.c" <<'EOF'
#include "common.h"
/* The legacy and per-thread exports, which cuda.h only names through macros. */
#undef cuStreamBeginCapture
CUresult CUDAAPI cuStreamBeginCapture(CUstream s);
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode m);
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream s, CUgraph *g);
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
	unsigned bx, unsigned by, unsigned bz, unsigned sh, CUstream s, void **p, void **e);
static CUfunction f;
static unsigned nl;
/* Launch number ++nl on s; print what its capture_status must be. */
static CUresult L(CUstream s, int pt, int want)
{
	CUresult r;
	nl++;
	r = pt ? cuLaunchKernel_ptsz(f, nl, 1, 1, 1, 1, 1, 0, s, NULL, NULL)
	       : cuLaunchKernel(f, nl, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
	printf("launch %u %d\n", nl, want);
	return r;
}
int main(int argc, char **argv)
{
	CUstream s1, s2; CUgraph g; CUevent e;
	f = setup(argv[1]);
	(void)argc;
	CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CK(cuEventCreate(&e, 0));
	CK(L(s1, 0, 0));                                    /* 1 */
	CK(cuStreamBeginCapture_v2(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CK(L(s1, 0, 1));                                    /* 2 */
	CK(L(s2, 0, 0));                                    /* 3: another stream meanwhile */
	CK(cuStreamEndCapture(s1, &g));
	CK(L(s1, 0, 0));                                    /* 4 */
	CK(cuStreamBeginCapture(s2));                       /* the legacy form */
	CK(L(s2, 0, 1));                                    /* 5 */
	CK(cuStreamEndCapture(s2, &g));
	CK(L(s2, 0, 0));                                    /* 6 */
	CK(cuStreamBeginCapture_v2_ptsz(NULL, CU_STREAM_CAPTURE_MODE_RELAXED)); /* per-thread stream */
	CK(L(NULL, 1, 1));                                  /* 7 */
	CK(L(s1, 0, 0));                                    /* 8 */
	CK(cuStreamEndCapture_ptsz(NULL, &g));
	CK(L(NULL, 1, 0));                                  /* 9 */
	if (cuStreamBeginCapture_v2(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS) {
		fprintf(stderr, "capturing the legacy stream succeeded\n"); return 1;
	}
	CK(L(s1, 0, 0));                                    /* 10: after a failed begin */
	CK(cuEventRecord(e, s2));
	CK(cuStreamBeginCapture_v2(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
	/* a wait on work outside the capture invalidates it
	 * (CUDA_ERROR_STREAM_CAPTURE_ISOLATION) */
	if (cuStreamWaitEvent(s1, e, 0) != CUDA_ERROR_STREAM_CAPTURE_ISOLATION) {
		fprintf(stderr, "a capture waited on an event recorded outside it\n"); return 1;
	}
	if (L(s1, 0, CU_STREAM_CAPTURE_STATUS_INVALIDATED) != CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) { /* 11 */
		fprintf(stderr, "a launch into an invalidated capture did not fail\n"); return 1;
	}
	if (cuStreamEndCapture(s1, &g) != CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
		fprintf(stderr, "ending an invalidated capture did not say so\n"); return 1;
	}
	for (int i = 0; i < 40; i++)
		CK(L(s1, 0, 0));                                /* 12..51 */
	for (int i = 0; i < 3; i++) {                       /* the same function again */
		CUfunction again;
		CK(cuModuleGetFunction(&again, mod, "empty"));
		if (again != f) { fprintf(stderr, "another handle for the same function\n"); return 1; }
	}
	CK(L(s1, 0, 0));                                    /* 52 */
	CK(cuModuleUnload(mod));                            /* and after a reload */
	CK(cuModuleLoadData(&mod, img));
	CK(cuModuleGetFunction(&f, mod, "empty"));
	CK(L(s1, 0, 0));                                    /* 53 */
	CK(cuStreamSynchronize(s1)); CK(cuStreamSynchronize(s2));
	return 0;
}
EOF
cc $CFLAGS_T -I"$T" "$T/cap.c" -L"$DBL" -lcuda -o "$T/cap" || fail "cannot build the capture program"

# Each launch record's grid_x and capture_status (0 when absent), in order.
launch_status() { # TRACE OUT
	"$TOP/$BUILD/tsinfo" --dump "$1" >"$2.dump" 2>&1 || fail "tsinfo --dump $1: $(cat "$2.dump")"
	grep ' cuda.cuLaunchKernel ' "$2.dump" | awk '{
		g = ""; c = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^grid_x=/) g = substr($i, 8)
			if ($i ~ /^capture_status=/) c = substr($i, 16)
		}
		print "launch " g " " c }' >"$2"
}
own_count() { # ERRFILE CALL: the recorder's own calls of CALL (0 when none)
	n=$(sed -n 's/.*cuda: calls made by the recorder itself: //p' "$1" | tr ' ' '\n' |
		awk -F= -v c="$2" '$1 == c { print $2 }')
	echo "${n:-0}"
}

rc=0
LD_LIBRARY_PATH="$DBL" LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/cap.sbt" \
	"$T/cap" "$MOD" >"$T/cap.out" 2>"$T/cap.err" || rc=$?
[ "$rc" -eq 0 ] || fail "cap: exit $rc: $(cat "$T/cap.err")"
grep '^launch ' "$T/cap.out" >"$T/cap.want"
[ "$(wc -l <"$T/cap.want")" = 53 ] || fail "cap: the program printed $(wc -l <"$T/cap.want") launches, expected 53"
launch_status "$T/cap.sbt" "$T/cap.got"
diff "$T/cap.want" "$T/cap.got" >"$T/cap.diff" ||
	fail "cap: recorded capture_status differs from the driver's (want, got): $(cat "$T/cap.diff")"
# The driver was asked at the first launch on each stream and while a
# capture went on (launches 1, 2, 3, 5, 8, 11; the ends of s1 (twice) and
# s2), and for the per-thread stream at 7, at its end and at 9 (its first
# launch outside a capture); never in the 42 launches at the end.
[ "$(own_count "$T/cap.err" cuStreamIsCapturing)" = 9 ] ||
	fail "cap: cuStreamIsCapturing asked $(own_count "$T/cap.err" cuStreamIsCapturing) times, expected 9: $(grep 'recorder itself' "$T/cap.err")"
[ "$(own_count "$T/cap.err" cuStreamIsCapturing_ptsz)" = 3 ] ||
	fail "cap: cuStreamIsCapturing_ptsz asked $(own_count "$T/cap.err" cuStreamIsCapturing_ptsz) times, expected 3"
# The layout of "empty" (no parameters: one question) was asked at its
# first launch and again after the reload only.
[ "$(own_count "$T/cap.err" cuFuncGetParamInfo)" = 2 ] ||
	fail "cap: cuFuncGetParamInfo asked $(own_count "$T/cap.err" cuFuncGetParamInfo) times, expected 2"
grep ' cuda.cuLaunchKernel .*grid_x=53 ' "$T/cap.got.dump" | grep -q 'name="empty"' ||
	fail "cap: the launch after the reload has no kernel name: $(grep 'grid_x=53 ' "$T/cap.got.dump")"
# The legacy begin is tracked, counted, and still not a model record.
grep 'cuda: not modeled' "$T/cap.err" | grep -q 'cuStreamBeginCapture=1' ||
	fail "cap: the legacy cuStreamBeginCapture is not reported as not modeled: $(cat "$T/cap.err")"
[ "$(grep -c ' cuda.cuStreamBeginCapture ' "$T/cap.got.dump")" = 4 ] ||
	fail "cap: $(grep -c ' cuda.cuStreamBeginCapture ' "$T/cap.got.dump") cuStreamBeginCapture records, expected 4 (the _v2 calls)"
# One keyframe, at launch 1: none went into a capture.
[ "$(grep -c ' keyframe ' "$T/cap.got.dump")" = 1 ] || fail "cap: $(grep -c ' keyframe ' "$T/cap.got.dump") keyframes, expected 1"
# With a keyframe at every launch, none may be taken inside a capture (it
# would synchronize the capturing stream, which the double refuses).
rc=0
LD_LIBRARY_PATH="$DBL" LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/capl.sbt" TRACESMITH_SNAPSHOT=launch \
	"$T/cap" "$MOD" >"$T/capl.out" 2>"$T/capl.err" || rc=$?
[ "$rc" -eq 0 ] || fail "cap, snapshot=launch: exit $rc: $(cat "$T/capl.err")"
launch_status "$T/capl.sbt" "$T/capl.got"
diff "$T/cap.want" "$T/capl.got" >/dev/null || fail "cap, snapshot=launch: capture_status differs"
# 53 launches, 3 of them captured (2, 5, 7) and 1 into the invalidated
# capture (11): keyframes before and after the other 49.
[ "$(grep -c ' keyframe ' "$T/capl.got.dump")" = 98 ] ||
	fail "cap, snapshot=launch: $(grep -c ' keyframe ' "$T/capl.got.dump") keyframes, expected 98"

# ---- 2. captures begun where the interposer did not see them ---------------------
cat >"$T/late.c" <<'EOF'
#include <dlfcn.h>
#include <string.h>
#include "common.h"
/* Linked to the double itself; the interposer is dlopened later, with a
 * capture already going on. */
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*end_fn)(CUstream, CUgraph *);
int main(int argc, char **argv)
{
	CUfunction f = setup(argv[1]);
	CUstream s, s2; CUgraph g; void *h; launch_fn L; end_fn E;
	CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	if (!(h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL))) { fprintf(stderr, "%s\n", dlerror()); return 2; }
	L = (launch_fn)dlsym(h, "cuLaunchKernel");
	E = (end_fn)dlsym(h, "cuStreamEndCapture");
	if (!L || !E || (void *)L == (void *)cuLaunchKernel) { fprintf(stderr, "no interposer entry points\n"); return 2; }
	if (argc > 3 && !strcmp(argv[3], "end")) {
		CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); /* unseen, into the capture */
		CK(E(s, &g));                                              /* the first we see of it */
		CK(L(f, 2, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
		CK(L(f, 3, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
	} else {
		CK(L(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));  /* into the capture begun before */
		CK(L(f, 2, 1, 1, 1, 1, 1, 0, s2, NULL, NULL));
		CK(cuStreamEndCapture(s, &g));   /* fails if anything synchronized s meanwhile */
		CK(L(f, 3, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
		CK(L(f, 4, 1, 1, 1, 1, 1, 0, s2, NULL, NULL));
	}
	CK(cuStreamSynchronize(s)); CK(cuStreamSynchronize(s2));
	printf("late ok\n");
	return 0;
}
EOF
cc $CFLAGS_T -I"$T" "$T/late.c" -L"$DBL" -lcuda -ldl -o "$T/late" || fail "cannot build the late-loading program"

rc=0
LD_LIBRARY_PATH="$DBL" TRACESMITH_OUTPUT="$T/late.sbt" TRACESMITH_LOG=info \
	"$T/late" "$MOD" "$SO" >"$T/late.out" 2>"$T/late.err" || rc=$?
[ "$rc" -eq 0 ] || fail "late: exit $rc: $(cat "$T/late.err")"
has late out "late ok"
has late err "was capturing at a launch, a capture this library did not see begin"
launch_status "$T/late.sbt" "$T/late.got"
printf 'launch 1 1\nlaunch 2 0\nlaunch 3 0\nlaunch 4 0\n' >"$T/late.want"
diff "$T/late.want" "$T/late.got" >"$T/late.diff" || fail "late: capture_status (want, got): $(cat "$T/late.diff")"
# From the unseen capture on, every launch asks, s2's second one included.
[ "$(own_count "$T/late.err" cuStreamIsCapturing)" = 4 ] ||
	fail "late: cuStreamIsCapturing asked $(own_count "$T/late.err" cuStreamIsCapturing) times, expected 4"
# The keyframe went to launch 2 (s2), not into the capture.
awk '/ keyframe /{k=NR} / cuda.cuLaunchKernel /{n++; if (n == 2) l2 = NR} END{exit !(k && l2 && k < l2)}' \
	"$T/late.got.dump" || fail "late: the start keyframe is not at launch 2"

rc=0
LD_LIBRARY_PATH="$DBL" TRACESMITH_OUTPUT="$T/lateend.sbt" TRACESMITH_LOG=info \
	"$T/late" "$MOD" "$SO" end >"$T/lateend.out" 2>"$T/lateend.err" || rc=$?
[ "$rc" -eq 0 ] || fail "late end: exit $rc: $(cat "$T/lateend.err")"
has lateend err "ended capturing, a capture this library did not see begin"
launch_status "$T/lateend.sbt" "$T/lateend.got"
printf 'launch 2 0\nlaunch 3 0\n' >"$T/lateend.want"
diff "$T/lateend.want" "$T/lateend.got" >"$T/lateend.diff" ||
	fail "late end: capture_status (want, got): $(cat "$T/lateend.diff")"
[ "$(own_count "$T/lateend.err" cuStreamIsCapturing)" = 2 ] ||
	fail "late end: cuStreamIsCapturing asked $(own_count "$T/lateend.err" cuStreamIsCapturing) times, expected 2"

# ---- 3. threads at once ------------------------------------------------------------
cat >"$T/mt.c" <<'EOF'
#include <pthread.h>
#include <stdint.h>
#include "common.h"
enum { NT = 4, NL = 200 };
/* Thread t launches NL times on its own stream, grid (t + 1, i + 1):
 * "fill" (a no-op: n = 0) at odd i, "empty" at even i, each function asked
 * for again before every launch; thread 0 captures launches 40..49 of
 * every 50. */
static void *run(void *arg)
{
	int t = (int)(intptr_t)arg;
	CUstream s; CUgraph g;
	CK(cuCtxSetCurrent(ctx));
	CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	for (int i = 0; i < NL; i++) {
		CUfunction f; uint64_t p = 0; uint32_t v = 7, st = 1, n = 0;
		void *pr[] = { &p, &v, &st, &n };
		CK(cuModuleGetFunction(&f, mod, i % 2 ? "fill" : "empty"));
		if (t == 0 && i % 50 == 40)
			CK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
		CK(cuLaunchKernel(f, t + 1, i + 1, 1, 1, 1, 1, 0, s, i % 2 ? pr : NULL, NULL));
		if (t == 0 && i % 50 == 49)
			CK(cuStreamEndCapture(s, &g));
	}
	CK(cuStreamSynchronize(s));
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t th[NT];
	(void)argc;
	setup(argv[1]);
	for (int t = 0; t < NT; t++)
		if (pthread_create(&th[t], NULL, run, (void *)(intptr_t)t)) return 2;
	for (int t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	printf("mt ok\n");
	return 0;
}
EOF
cc $CFLAGS_T -I"$T" "$T/mt.c" -L"$DBL" -lcuda -lpthread -o "$T/mt" || fail "cannot build the threaded program"
rc=0
LD_LIBRARY_PATH="$DBL" LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/mt.sbt" \
	"$T/mt" "$MOD" >"$T/mt.out" 2>"$T/mt.err" || rc=$?
[ "$rc" -eq 0 ] || fail "mt: exit $rc: $(cat "$T/mt.err")"
has mt out "mt ok"
"$TOP/$BUILD/tsinfo" --dump "$T/mt.sbt" >"$T/mt.dump" 2>&1 || fail "tsinfo --dump: $(cat "$T/mt.dump")"
# Every launch once, with its kernel's name, its parameters (fill: 20
# bytes) and capture_status 1 exactly when thread 0 was capturing.
grep ' cuda.cuLaunchKernel ' "$T/mt.dump" | awk -v q='"' '{
	t = i = c = 0; name = params = ""
	for (k = 1; k <= NF; k++) {
		if ($k ~ /^grid_x=/) t = substr($k, 8) - 1
		if ($k ~ /^grid_y=/) i = substr($k, 8) - 1
		if ($k ~ /^name=/) name = substr($k, 6)
		if ($k ~ /^params=/) params = substr($k, 8)
		if ($k ~ /^capture_status=/) c = substr($k, 16)
	}
	n++
	want = (t == 0 && i % 50 >= 40) ? 1 : 0
	if (name != q (i % 2 ? "fill" : "empty") q || length(params) != (i % 2 ? 40 : 0) || c != want) {
		print "thread " t " launch " i ": name " name ", params " params ", capture_status " c " (want " want ")"
		bad++
	}
	seen[t " " i]++
} END {
	if (n != 800) { print n " launch records, expected 800"; bad++ }
	for (k in seen) if (seen[k] != 1) { print "launch " k " recorded " seen[k] " times"; bad++ }
	exit bad > 0 }' >"$T/mt.bad" || fail "mt: $(head -5 "$T/mt.bad")"
# Layouts were asked once per function (empty: 1 question, fill: 5), give or
# take threads racing to a first launch: nowhere near once per launch.
n=$(own_count "$T/mt.err" cuFuncGetParamInfo)
[ "$n" -ge 6 ] && [ "$n" -le 24 ] || fail "mt: cuFuncGetParamInfo asked $n times for 800 launches"
echo "ok"
