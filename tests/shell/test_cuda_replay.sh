#!/bin/sh
# tsreplay's CUDA backend on the libcuda test double, end to end: the
# driver-API program and the runtime-style one (dlopen + dlsym +
# cuGetProcAddress) captured with tscapture (default snapshot policy) and
# replayed with every checkpoint equal; the double's seeded reordering and
# fresh addresses at replay; --streams single and multi (both equal, and
# really different: the double counts the stream calls); --range through a
# keyframe; --check-determinism; a planted divergence (one byte of an
# upload changed) reported with seq, call, allocation, offset and kernel
# (exit 3); a stream-captured graph rebuilt and replayed with equal checkpoints;
# --range from full keyframes only (the default start keyframe is partial); no driver, and a driver
# without a GPU, each named.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
PROGS="$TOP/$BUILD/tests/cuda"
TOOL="$TOP/$BUILD/tests/programs/vk_tracetool"

# all_match NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# checkpoints, all matched.
all_match() {
	# (expect_rc sets name and want: keep ours apart)
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}

# seq_of TRACE PATTERN: the seq of the first record whose dump has PATTERN.
seq_of() {
	"$INFO" --dump "$1" | grep -F -- "$2" | head -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/'
}

# ---- capture both programs (seeded reordering at capture too) ----------------
for p in cuda_driver_app cuda_runtime_like; do
	expect_rc 0 "$p.plain" "$PROGS/$p" --size 3000
	TSCUDA_DOUBLE_SEED=3 expect_rc 0 "$p.cap" "$CAP" -o "$T/$p.sbt" -- "$PROGS/$p" --size 3000
	[ "$(cut -d' ' -f4- "$T/$p.plain.out")" = "$(cut -d' ' -f4- "$T/$p.cap.out")" ] ||
		fail "$p: the captured run printed '$(cat "$T/$p.cap.out")', the plain one '$(cat "$T/$p.plain.out")'"
done
# Each program reads back 4 results: one async copy, three synchronous.
for p in cuda_driver_app cuda_runtime_like; do
	all_match "$p.replay" 4 "$T/$p.sbt"
	# fresh random addresses and other seeded orders at replay
	for seed in 1 2 5; do
		TSCUDA_DOUBLE_SEED=$seed all_match "$p.seed$seed" 4 "$T/$p.sbt"
	done
	all_match "$p.single" 4 --streams single "$T/$p.sbt"
	TSCUDA_DOUBLE_SEED=4 all_match "$p.multi" 4 --streams=multi "$T/$p.sbt"
	# allocations away from their captured addresses: parameters patched
	all_match "$p.noreserve" 4 --cuda-no-reserve "$T/$p.sbt"
	has "$p.noreserve" err "tsreplay: cuda: warning: seq "
	has "$p.noreserve" err "pointer-valued kernel parameters are patched"
done
# Same-address capture: both programs' first allocation is at the start of
# the default window (capture places allocations itself, deterministically).
a1=$("$INFO" --dump "$T/cuda_driver_app.sbt" | grep -m1 'cuda.cuMemAlloc ' | sed 's/.* dst=\([0-9]*\).*/\1/')
a2=$("$INFO" --dump "$T/cuda_runtime_like.sbt" | grep -m1 'cuda.cuMemAlloc ' | sed 's/.* dst=\([0-9]*\).*/\1/')
[ "$a1" = "$WIN_BASE" ] && [ "$a2" = "$WIN_BASE" ] ||
	fail "the captures' first allocations are at $a1 and $a2, not the window's base $WIN_BASE"
"$INFO" --dump "$T/cuda_driver_app.sbt" | grep -q "cuda.tsVaWindow dst=$WIN_BASE size=$WIN_SIZE" ||
	fail "no window record in the driver program's trace"
# Without the window the driver's addresses differ from run to run (measured
# fact 1), so replay cannot rely on luck: the same program twice.
for i in 1 2; do
	TRACESMITH_CUDA_VA=off expect_rc 0 "off$i" "$CAP" -o "$T/off$i.sbt" -- "$PROGS/cuda_driver_app" --size 3000
done
b1=$("$INFO" --dump "$T/off1.sbt" | grep -m1 'cuda.cuMemAlloc ' | sed 's/.* dst=\([0-9]*\).*/\1/')
b2=$("$INFO" --dump "$T/off2.sbt" | grep -m1 'cuda.cuMemAlloc ' | sed 's/.* dst=\([0-9]*\).*/\1/')
[ -n "$b1" ] && [ "$b1" != "$b2" ] || fail "TRACESMITH_CUDA_VA=off: the two captures allocated at the same address $b1"
if "$INFO" --dump "$T/off1.sbt" | grep -q 'cuda.tsVaWindow'; then
	fail "TRACESMITH_CUDA_VA=off still recorded a window"
fi

# ---- single vs multi really differ: the double counts the replay's calls -------
TSCUDA_DOUBLE_STATS="$T/multi.stats" all_match stats.multi 4 "$T/cuda_driver_app.sbt"
TSCUDA_DOUBLE_STATS="$T/single.stats" all_match stats.single 4 --streams single "$T/cuda_driver_app.sbt"
grep -qx 'cuStreamCreate 2' "$T/multi.stats" || fail "multi: streams created: $(grep cuStream "$T/multi.stats")"
grep -qx 'cuStreamWaitEvent 2' "$T/multi.stats" || fail "multi: waits: $(grep cuStream "$T/multi.stats")"
! grep -q '^cuStreamCreate \|^cuStreamWaitEvent ' "$T/single.stats" ||
	fail "single: streams or waits used: $(grep cuStream "$T/single.stats")"
grep -q '^cuLaunchKernel 5$' "$T/single.stats" || fail "single: launches: $(grep Launch "$T/single.stats")"

# ---- --range through a keyframe, and determinism -----------------------------------
# The default policy's start keyframe is partial (memory made while recording
# is rebuilt from the calls), so a range cannot start there: it
# fast-forwards from the start.  Full keyframes (TRACESMITH_SNAPSHOT=N) are
# restore points.
D="$T/cuda_driver_app.sbt"
a=$(seq_of "$D" 'name="saxpy" stream=')
b=$(seq_of "$D" 'cuda.cuEventDestroy')
kf=$(seq_of "$D" ' keyframe ')
[ -n "$a" ] && [ -n "$b" ] && [ -n "$kf" ] && [ "$kf" -lt "$a" ] || fail "trace layout: saxpy $a, end $b, keyframe $kf"
# checkpoints in [a, b): the async readback's comes after saxpy, its copy before
ncp=$("$INFO" --dump "$D" | sed -n 's/^seq=\([0-9]*\) .* checkpoint .*/\1/p' |
	while read -r q; do [ "$q" -ge "$a" ] && [ "$q" -lt "$b" ] && echo "$q"; done | wc -l)
[ "$ncp" -ge 1 ] || fail "no checkpoint in [$a, $b)"
all_match range.partial "$ncp" --range "$a:$b" "$D"
has range.partial err "tsreplay: fast-forwarded"
has range.partial err "(no keyframe)"
F="$T/cuda_driver_app.full.sbt"
TRACESMITH_SNAPSHOT=2 expect_rc 0 cap.full "$CAP" -o "$F" -- "$PROGS/cuda_driver_app" --size 3000
a=$(seq_of "$F" 'name="saxpy" stream=')
b=$(seq_of "$F" 'cuda.cuEventDestroy')
kf=$("$INFO" --dump "$F" | sed -n 's/^seq=\([0-9]*\) .* keyframe .*/\1/p' |
	while read -r q; do [ "$q" -le "$a" ] && echo "$q"; done | tail -n 1)
[ -n "$a" ] && [ -n "$b" ] && [ -n "$kf" ] || fail "full trace layout: saxpy $a, end $b, keyframe $kf"
ncp=$("$INFO" --dump "$F" | sed -n 's/^seq=\([0-9]*\) .* checkpoint .*/\1/p' |
	while read -r q; do [ "$q" -ge "$a" ] && [ "$q" -lt "$b" ] && echo "$q"; done | wc -l)
all_match range "$ncp" --range "$a:$b" "$F"
has range err "tsreplay: restored keyframe at seq $kf, fast-forwarded"
[ "$(json_field "$T/range.out" first_executed_seq)" = "$a" ] || fail "range: $(cat "$T/range.out")"
[ "$(json_field "$T/range.out" keyframe_seq)" = "$kf" ] || fail "range: $(cat "$T/range.out")"
fa=$a fb=$b fkf=$kf fncp=$ncp
TSCUDA_DOUBLE_SEED=6 all_match determinism 4 --check-determinism --runs 3 "$D"
[ "$(json_field "$T/determinism.out" runs_done)" = 3 ] || fail "determinism: $(cat "$T/determinism.out")"
R="$T/cuda_runtime_like.sbt"
ra=$(seq_of "$R" 'name="saxpy" stream=')
rb=$(seq_of "$R" 'cuda.cuEventDestroy')
rncp=$("$INFO" --dump "$R" | sed -n 's/^seq=\([0-9]*\) .* checkpoint .*/\1/p' |
	while read -r q; do [ "$q" -ge "$ra" ] && [ "$q" -lt "$rb" ] && echo "$q"; done | wc -l)
all_match determinism.range "$rncp" --check-determinism --range "$ra:$rb" "$R"

# ---- a planted divergence: one byte of the first upload (array a of vadd) --------
up=$(seq_of "$D" 'cuda.cuMemcpyHtoD ')
blob=$("$INFO" --dump "$D" | grep -m1 'cuda.cuMemcpyHtoD ' | sed 's/.* blob=\([0-9]*\).*/\1/')
[ -n "$blob" ] || fail "no upload blob in $D"
expect_rc 0 poke "$TOOL" poke "$D" "$T/bad.sbt" --blob "$blob" --byte 404
expect_rc 3 bad "$RP" "$T/bad.sbt"
dtoh=$(seq_of "$D" 'cuda.cuMemcpyDtoHAsync')
reduce=$(seq_of "$D" 'name="reduce" stream=')
part=$("$INFO" --dump "$D" | grep -m1 'cuda.cuMemcpyDtoHAsync' | sed 's/.* src=\([0-9]*\).*/\1/')
part_hex=$(printf '0x%x' "$part")
has bad err "tsreplay: the replay differs from the capture at checkpoint seq"
has bad err "  call:     seq $dtoh cuda.cuMemcpyDtoHAsync"
has bad err "tsreplay: cuda: the device-to-host copy at seq $dtoh differs from the capture"
has bad err "  allocation: $part_hex (cuMemAlloc at seq "
has bad err "  offset:   0 in the allocation (first differing block of 64 bytes)"
has bad err "  kernel:   reduce (launch seq $reduce), the last kernel given a pointer into it"
has bad out "checkpoints: 4 compared, 2 matched, 2 differ"
# In the trace with full keyframes the upload comes before the keyframe a
# range restores: restoring from it hides the change, which shows the full
# replay computed from the upload.
fup=$(seq_of "$F" 'cuda.cuMemcpyHtoD ')
fblob=$("$INFO" --dump "$F" | grep -m1 'cuda.cuMemcpyHtoD ' | sed 's/.* blob=\([0-9]*\).*/\1/')
expect_rc 0 poke.full "$TOOL" poke "$F" "$T/bad.full.sbt" --blob "$fblob" --byte 404
expect_rc 3 bad.full "$RP" "$T/bad.full.sbt"
all_match bad.range "$fncp" --range "$fa:$fb" "$T/bad.full.sbt"
[ "$fup" -lt "$fkf" ] || fail "the upload (seq $fup) is not before the keyframe (seq $fkf)"

# ---- graph launches -----------------------------------------------------------------
expect_rc 0 graph.cap "$CAP" -o "$T/graph.sbt" -- "$PROGS/cuda_graph_app"
g=$(seq_of "$T/graph.sbt" 'cuda.cuGraphLaunch')
# The graph was built by stream capture and its instantiation recorded: the
# replay rebuilds it, launches it, and every checkpoint after it matches.
ngcp=$("$INFO" --dump "$T/graph.sbt" | grep -c ' checkpoint ')
[ "$ngcp" -ge 1 ] || fail "graph: no checkpoint in the trace"
"$INFO" --dump "$T/graph.sbt" | grep -q 'cuda.cuGraphInstantiate ' || fail "graph: cuGraphInstantiate not recorded"
all_match graph "$ngcp" "$T/graph.sbt"
lastcp=$("$INFO" --dump "$T/graph.sbt" | sed -n 's/^seq=\([0-9]*\) .* checkpoint .*/\1/p' | tail -n 1)
[ "$lastcp" -gt "$g" ] || fail "graph: no checkpoint after the graph launch (seq $g)"
all_match graph.det "$ngcp" --check-determinism --runs 2 "$T/graph.sbt"
# (A launch of an exec the trace did not build is refused naming the launch: test_rpcuda_backend.)
# A copy to the host captured into the graph ran at each graph launch, not
# when it was recorded: it gets no checkpoint of its own (one taken at the
# next synchronization would hash the buffer before the graph ran), and the
# replay's checkpoints all match.
expect_rc 0 graph.rb.cap "$CAP" -o "$T/graph.rb.sbt" -- "$PROGS/cuda_graph_app" --readback
cs=$(seq_of "$T/graph.rb.sbt" 'cuda.cuMemcpyDtoHAsync')
[ -n "$cs" ] || fail "graph.rb: the captured copy to the host is not recorded"
if "$INFO" --dump "$T/graph.rb.sbt" | grep -q " checkpoint call_seq=$cs "; then
	fail "graph.rb: the copy captured into the graph (seq $cs) has a checkpoint"
fi
ngcp=$("$INFO" --dump "$T/graph.rb.sbt" | grep -c ' checkpoint ')
all_match graph.rb "$ngcp" "$T/graph.rb.sbt"

# ---- no driver; a driver without a GPU ---------------------------------------------------
TRACESMITH_CUDA_DRIVER="$T/none/libcuda.so.1" expect_rc 1 nodriver "$RP" "$D"
has nodriver err "tsreplay: backend cuda: cannot open: no CUDA driver: $T/none/libcuda.so.1 not found ("
if ! env -u LD_LIBRARY_PATH ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	env -u LD_LIBRARY_PATH "$RP" "$D" >"$T/nolib.out" 2>"$T/nolib.err" && fail "replayed without libcuda.so.1"
	has nolib err "no CUDA driver: libcuda.so.1 not found ("
fi
mkdir -p "$T/nogpu"
cat >"$T/nogpu/stub.c" <<'EOF'
/* A driver that loads but finds no device (CUDA_ERROR_NO_DEVICE). */
int cuGetErrorName(int r, const char **s) { *s = r == 100 ? "CUDA_ERROR_NO_DEVICE" : "?"; return 0; }
int cuInit(unsigned flags) { (void)flags; return 100; }
int cuDeviceGetCount(int *n) { *n = 0; return 0; }
int cuDeviceGet(int *d, int o) { (void)d; (void)o; return 100; }
int cuCtxSetCurrent(void *c) { (void)c; return 201; }
int cuCtxSynchronize(void) { return 201; }
EOF
cc -shared -fPIC -Wall -Wextra -Werror "$T/nogpu/stub.c" -o "$T/nogpu/libcuda.so.1" || fail "cannot build the stub driver"
TRACESMITH_CUDA_DRIVER="$T/nogpu/libcuda.so.1" expect_rc 1 nogpu "$RP" "$D"
has nogpu err "tsreplay: backend cuda: cannot open: CUDA driver found but no GPU: cuInit failed with CUDA_ERROR_NO_DEVICE (100)"
echo ok
