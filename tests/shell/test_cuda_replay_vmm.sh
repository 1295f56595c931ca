#!/bin/sh
# tsreplay's CUDA backend and captured addresses, on the libcuda double's
# VMM pointer-chasing program (cuda_vmm_app: a linked list whose nodes hold
# device addresses of other nodes, in a range from cuMemAddressReserve):
#   - reserve honoured (the double's default): the range is reserved at its
#     captured address, the chase reads what the capture read, no warning;
#     the same over three runs of --check-determinism (reset gives the
#     addresses back and takes them again);
#   - reserve refused (TSCUDA_DOUBLE_RESERVE=refuse: the hint is ignored)
#     or failed (=fail): one warning names the record and says pointers in
#     memory may be stale.  The head pointer (a kernel parameter) is
#     patched, but the nodes' next pointers in device memory still hold
#     captured addresses: the chase follows them out of the replay's
#     memory, so the replay does not succeed (on the double a kernel is host
#     code, so the process dies; on a GPU it would be an illegal address);
#   - with --cuda-relocate-memory, those pointers are rewritten in the
#     uploaded data, and the checkpoint matches again.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"

# one_match NAME ARGS...: exit 0, the one checkpoint matched.
one_match() {
	om_name=$1
	shift
	expect_rc 0 "$om_name" "$RP" --json "$@"
	grep -q '"checkpoints":1,"matched":1,' "$T/$om_name.out" || fail "$om_name: $(cat "$T/$om_name.out")"
}

expect_rc 0 cap "$TOP/$BUILD/tscapture" -o "$T/vmm.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_vmm_app" --nodes 500
res=$("$INFO" --dump "$T/vmm.sbt" | grep -m1 'cuda.cuMemAddressReserve')
rseq=$(echo "$res" | sed 's/^seq=\([0-9]*\) .*/\1/')
rdst=$(printf '0x%x' "$(echo "$res" | sed 's/.* dst=\([0-9]*\).*/\1/')")
[ -n "$rseq" ] || fail "no cuMemAddressReserve in the trace"

# ---- reserve honoured ------------------------------------------------------------------
one_match honour "$T/vmm.sbt"
! grep -q 'warning' "$T/honour.err" || fail "honour: unexpected warning: $(cat "$T/honour.err")"
expect_rc 0 determinism "$RP" --check-determinism --runs 3 "$T/vmm.sbt"
has determinism out "checkpoints: 1 compared, 1 matched, 0 differ"
has determinism out "runs agree with each other at every checkpoint"

# ---- reserve refused or failing: warned, stale pointers in memory ------------------------
for mode in refuse fail; do
	rc=0
	TSCUDA_DOUBLE_RESERVE=$mode "$RP" "$T/vmm.sbt" >"$T/$mode.out" 2>"$T/$mode.err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$mode: the chase through stale pointers replayed as if it matched: $(cat "$T/$mode.out")"
	has "$mode" err "tsreplay: cuda: warning: seq $rseq: the"
	has "$mode" err "captured at $rdst could not be placed at that address"
	has "$mode" err "pointer-valued kernel parameters are patched, but pointers stored inside device memory may be stale"
	[ "$(grep -c 'tsreplay: cuda: warning' "$T/$mode.err")" -eq 1 ] || fail "$mode: more than one warning"
	TSCUDA_DOUBLE_RESERVE=$mode one_match "$mode.relocate" --cuda-relocate-memory "$T/vmm.sbt"
	has "$mode.relocate" err "could not be placed at that address"
done
has refuse err "(the driver placed it at 0x"
has fail err "(cuMemAddressReserve failed with CUDA_ERROR_INVALID_VALUE (1))"

# ---- a fixed address asked for at capture is the one reserved at replay ------------------------
# Outside the double's random window, so nothing else can be there first.
# Under TSan the double honours only [2^32, 2^39) (TSan's memory layout)
# and draws from below 7 * 2^36, so the address is one just above that.
fixed=0x7a5500000000
tsan_build && fixed=0x7a55000000
expect_rc 0 fixed.cap "$TOP/$BUILD/tscapture" -o "$T/fixed.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_vmm_app" \
	--nodes 64 --addr $fixed
has fixed.cap out "reserved $fixed asked $fixed"
one_match fixed "$T/fixed.sbt"
echo ok
