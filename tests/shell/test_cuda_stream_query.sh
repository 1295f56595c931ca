#!/bin/sh
# The libcuda test double's cuStreamQuery against the real driver's:
# tests/cuda/cuda_stream_query (one stream at a time held by a stream
# memory wait, each kind of stream queried from two threads) prints on the
# double, plain, under seeded scheduling (TSCUDA_DOUBLE_SEED 1 and 2) and
# under capture, exactly what it printed on the H100
# (tests/fixtures/h100/stream_query.txt): the legacy stream busy while any
# blocking stream is, a per-thread default stream busy only to its thread.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_LOG TRACESMITH_OUTPUT TRACESMITH_SNAPSHOT \
	TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED TSCUDA_DOUBLE_ADDR_SEED
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PROG="$TOP/$BUILD/tests/cuda/cuda_stream_query"
WANT="$TOP/tests/fixtures/h100/stream_query.txt"
expect_rc 0 plain "$PROG"
cmp -s "$WANT" "$T/plain.out" || fail "plain: the double answers otherwise than the H100: $(diff "$WANT" "$T/plain.out")"
for seed in 1 2; do
	TSCUDA_DOUBLE_SEED=$seed expect_rc 0 seed$seed "$PROG"
	cmp -s "$WANT" "$T/seed$seed.out" || fail "seed $seed: $(diff "$WANT" "$T/seed$seed.out")"
done
expect_rc 0 cap "$TOP/$BUILD/tscapture" -o "$T/q.sbt" -- "$PROG"
cmp -s "$WANT" "$T/cap.out" || fail "under capture: $(diff "$WANT" "$T/cap.out")"
echo "ok: the double's cuStreamQuery answers as the H100's did, plain, seeded and captured"
