#!/bin/sh
# The CUDA interposer's quiet launch (interpose/cuda/tcu_internal.h,
# tcu_launch_before): a launch skips the keyframe and capture bookkeeping
# when one word, tcu_g.launch_gate, is 0 and its stream is the one this
# thread found known last (or its per-thread default stream).  The word's
# parts are kept by their writers; each is flipped here after launches
# have gone quiet, and the launch after the flip must take the slow path,
# as its record, the keyframes, the snapshots of pinned host memory or the
# recorder's own questions to the driver show:
#   - loud (bit 63, until the start keyframe is taken and the policy takes
#     none per launch): the first launch takes the start keyframe; with
#     TRACESMITH_SNAPSHOT=launch every launch outside a capture gets a
#     keyframe before and after it, with TRACESMITH_SNAPSHOT=2 every second
#     one after it;
#   - pinned host memory (bits 32-62, a count kept by tcu_alloc_add and
#     tcu_alloc_del): a launch whose parameter points into it gets a
#     snapshot of it, also while a second allocation is still live after
#     the first was freed, and none once all are freed;
#   - stream captures (bits 0-31, tcu_capture.c): while one goes on a
#     launch on a stream known not capturing asks the driver (and records
#     capture_status 1 on the capturing stream); after it ends, none asks.
# The stream's tag (the handle, with the top bit for a per-thread variant)
# keys the thread's cache: the same stream through the other kind of
# variant, or the legacy stream named NULL or CU_STREAM_LEGACY, is found
# known without asking the driver again.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
SO="$TOP/$BUILD/interpose/libtracesmith_cuda.so"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
[ -e "$SO" ] || fail "the interposer $SO was not built"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG \
	TRACESMITH_OUTPUT TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS \
	TSCUDA_DOUBLE_SEED TRACESMITH_TRIGGER
export TSCUDA_DOUBLE_QUIET=1
# The recorder's own calls are in the exit report's info-level tables.
export TRACESMITH_LOG=info
CFLAGS_T="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I$TOP -I/usr/local/cuda/include"
tsan_build && CFLAGS_T="$CFLAGS_T -fsanitize=thread"
MOD="$DBL/modules/kernels.so"
[ -e "$MOD" ] || fail "the double's module $MOD was not built"

# Each launch's grid_x is its number; the program prints the capture_status
# each launch must be recorded with.
cat >"$T/gate.c" <<'EOF'
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
	fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #x, (int)r_); exit(1); } } while (0)
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
	unsigned bx, unsigned by, unsigned bz, unsigned sh, CUstream s, void **p, void **e);
static char img[4 << 20];
static CUfunction empty, fill;
static unsigned nl;
/* Launch number ++nl on s (pt: through the per-thread variant), of "fill"
 * with its pointer parameter p (and n = 0: nothing written) when fill_p
 * is set, else of "empty"; print its capture_status. */
static void L(CUstream s, int pt, int want, int use_fill, void *p)
{
	uint64_t ptr = (uint64_t)(uintptr_t)p;
	uint32_t v = 7, st = 1, n = 0;
	void *pr[] = { &ptr, &v, &st, &n };
	CUfunction f = use_fill ? fill : empty;
	void **params = use_fill ? pr : NULL;
	nl++;
	if (pt)
		CK(cuLaunchKernel_ptsz(f, nl, 1, 1, 1, 1, 1, 0, s, params, NULL));
	else
		CK(cuLaunchKernel(f, nl, 1, 1, 1, 1, 1, 0, s, params, NULL));
	printf("launch %u %d\n", nl, want);
}
int main(int argc, char **argv)
{
	CUdevice dev; CUcontext ctx; CUmodule mod; CUstream s1, s2; CUgraph g;
	void *h1, *h2;
	FILE *fp = argc > 1 ? fopen(argv[1], "rb") : NULL;
	if (!fp || fread(img, 1, sizeof(img), fp) == 0) { fprintf(stderr, "cannot read the module\n"); return 2; }
	fclose(fp);
	CK(cuInit(0)); CK(cuDeviceGet(&dev, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx)); CK(cuModuleLoadData(&mod, img));
	CK(cuModuleGetFunction(&empty, mod, "empty"));
	CK(cuModuleGetFunction(&fill, mod, "fill"));
	CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	/* Quiet after the first: every stream asked about once. */
	L(s1, 0, 0, 0, NULL);                     /* 1: the start keyframe */
	L(s2, 0, 0, 0, NULL);                     /* 2 */
	L(s1, 0, 0, 0, NULL);                     /* 3 */
	L(NULL, 0, 0, 0, NULL);                   /* 4: the legacy stream: asked */
	L(NULL, 0, 0, 0, NULL);                   /* 5: known, NULL's tag kept */
	L(NULL, 1, 0, 0, NULL);                   /* 6: NULL, another stream: asked */
	L(CU_STREAM_LEGACY, 0, 0, 0, NULL);       /* 7: the legacy stream by its name */
	L(s1, 1, 0, 0, NULL);                     /* 8: s1 through the per-thread variant */
	L(s2, 1, 0, 0, NULL);                     /* 9 */
	L(s1, 0, 0, 1, NULL);                     /* 10: fill, no host memory */
	/* Pinned host memory: two allocations, then one. */
	CK(cuMemAllocHost(&h1, 4096));
	L(s1, 0, 0, 1, h1);                       /* 11: a snapshot of h1 */
	L(s1, 0, 0, 0, NULL);                     /* 12 */
	CK(cuMemAllocHost(&h2, 4096));
	CK(cuMemFreeHost(h1));
	L(s1, 0, 0, 1, h2);                       /* 13: a snapshot of h2 */
	CK(cuMemFreeHost(h2));
	L(s1, 0, 0, 1, NULL);                     /* 14: none */
	/* A capture on s1, known. */
	CK(cuStreamBeginCapture_v2(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
	L(s1, 0, 1, 0, NULL);                     /* 15: asked, capturing */
	L(s2, 0, 0, 0, NULL);                     /* 16: asked, not */
	L(NULL, 1, 0, 0, NULL);                   /* 17: asked (_ptsz), not */
	CK(cuStreamEndCapture(s1, &g));           /* asked */
	L(s1, 0, 0, 0, NULL);                     /* 18 */
	L(s2, 0, 0, 0, NULL);                     /* 19 */
	L(NULL, 1, 0, 0, NULL);                   /* 20 */
	for (int i = 0; i < 20; i++)
		L(i % 2 ? s1 : s2, 0, 0, 0, NULL);    /* 21..40 */
	CK(cuStreamSynchronize(s1)); CK(cuStreamSynchronize(s2));
	CK(cuStreamSynchronize(NULL));
	return 0;
}
EOF
cc $CFLAGS_T "$T/gate.c" -L"$DBL" -lcuda -o "$T/gate" || fail "cannot build the program"

own_count() { # ERRFILE CALL: the recorder's own calls of CALL (0 when none)
	n=$(sed -n 's/.*cuda: calls made by the recorder itself: //p' "$1" | tr ' ' '\n' |
		awk -F= -v c="$2" '$1 == c { print $2 }')
	echo "${n:-0}"
}
# run NAME [VAR=VALUE...]: the program under the interposer; its dump in
# $T/NAME.dump, each launch's grid_x and capture_status in $T/NAME.got.
run() {
	name=$1
	shift
	rc=0
	env LD_LIBRARY_PATH="$DBL" LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/$name.sbt" "$@" \
		"$T/gate" "$MOD" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$T/$name.err")"
	"$TOP/$BUILD/tsinfo" --dump "$T/$name.sbt" >"$T/$name.dump" 2>&1 ||
		fail "$name: tsinfo --dump: $(cat "$T/$name.dump")"
	grep ' cuda.cuLaunchKernel ' "$T/$name.dump" | awk '{
		g = ""; c = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^grid_x=/) g = substr($i, 8)
			if ($i ~ /^capture_status=/) c = substr($i, 16)
		}
		print "launch " g " " c }' >"$T/$name.got"
	grep '^launch ' "$T/$name.out" >"$T/$name.want"
	[ "$(wc -l <"$T/$name.want")" = 40 ] || fail "$name: the program printed $(wc -l <"$T/$name.want") launches, expected 40"
	diff "$T/$name.want" "$T/$name.got" >"$T/$name.diff" ||
		fail "$name: recorded capture_status differs from the driver's (want, got): $(cat "$T/$name.diff")"
}
# order NAME: the launches (grid_x), keyframes (K) and snapshots of pinned
# host memory (S) of the trace, in order, on one line.
order() {
	awk '/ keyframe / { printf "%sK", sep; sep = " " }
		/ cuda\.tsSnapshot / { printf "%sS", sep; sep = " " }
		/ cuda\.cuLaunchKernel / {
			for (i = 1; i <= NF; i++) if ($i ~ /^grid_x=/) printf "%s%s", sep, substr($i, 8)
			sep = " "
		}
		END { print "" }' "$T/$1.dump"
}
# expect POLICY: that order for the program's 40 launches under POLICY
# (quiet: the start keyframe alone; launch: a keyframe before and after
# each launch outside the capture, 15; 2: after each even one), with the
# snapshots of pinned host memory (a keyframe of their own and the
# snapshot) before launches 11 and 13 (h2 live after h1 went), after the
# policy's keyframe.
expect() {
	awk -v p="$1" 'BEGIN {
		for (n = 1; n <= 40; n++) {
			if (n == 1 || (p == "launch" && n != 15)) { printf "%sK", sep; sep = " " }
			if (n == 11 || n == 13) printf "%sK S", sep
			printf "%s%d", sep, n
			sep = " "
			if ((p == "launch" && n != 15) || (p == "2" && n % 2 == 0)) printf " K"
		}
		print ""
	}'
}
check_order() { # NAME POLICY
	[ "$(order "$1")" = "$(expect "$2")" ] ||
		fail "$1: launches, keyframes (K) and host snapshots (S) in the order
$(order "$1")
expected
$(expect "$2")"
}

# ---- the default policy: quiet after the first launch ------------------------
run quiet
check_order quiet quiet
# The driver was asked at the first launch on s1 (1), s2 (2) and the
# legacy stream (4), during the capture (15, 16) and at its end: 6; through
# the per-thread variant at the per-thread stream's first launch (6, just
# after the legacy stream's NULL was found known) and during the capture
# (17): 2.  Not at 7 (the legacy stream by its other name), 8 and 9 (s1
# and s2 through the per-thread variant), nor after the capture.
[ "$(own_count "$T/quiet.err" cuStreamIsCapturing)" = 6 ] ||
	fail "quiet: cuStreamIsCapturing asked $(own_count "$T/quiet.err" cuStreamIsCapturing) times, expected 6: $(grep 'recorder itself' "$T/quiet.err")"
[ "$(own_count "$T/quiet.err" cuStreamIsCapturing_ptsz)" = 2 ] ||
	fail "quiet: cuStreamIsCapturing_ptsz asked $(own_count "$T/quiet.err" cuStreamIsCapturing_ptsz) times, expected 2"

# ---- a keyframe around every launch, or after every second: never quiet ---------
run launch TRACESMITH_SNAPSHOT=launch
check_order launch launch
[ "$(own_count "$T/launch.err" cuStreamIsCapturing)" = 6 ] ||
	fail "launch: cuStreamIsCapturing asked $(own_count "$T/launch.err" cuStreamIsCapturing) times, expected 6"
run every TRACESMITH_SNAPSHOT=2
check_order every 2
echo "ok"
