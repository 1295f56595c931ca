#!/bin/sh
# tsreplay's CUDA backend survives hostile traces (issue 12), on the libcuda
# test double.  Traces are changed with tests/fuzz/sbt_mutate (records
# re-encoded, every checksum, index and trailer written afresh, so the
# damage reaches the decoder, the backend and the double); each replay is
# bounded by timeout and must never be killed by a signal:
#   - a cuMemFreeHost moved ahead of the wait for the async copy into that
#     pinned memory (before: the checkpoint read the freed memory, and the
#     replay died of SIGSEGV): the free waits for the copy, as a careful
#     application would, and every checkpoint still matches;
#   - a cuMemFree moved ahead of the wait for the launches that use it:
#     waited for, every checkpoint matches;
#   - a cuMemFree moved ahead of the copy that reads it, a module unloaded
#     ahead of a launch of its function, a stream and an event destroyed
#     ahead of their use: exit 1, the record's seq, call and reason ("went
#     at seq N", "destroyed at seq N");
#   - a memset whose width runs past its allocation, a copy whose size does:
#     refused before the driver is asked;
#   - a free of an address inside an allocation, not its start;
#   - a kernel's pointer parameter made wild, for a real kernel run by its
#     host twin (the H100 driver_cubin trace, gpu_fill) and for a kernel of
#     the double's own module (saxpy): the double answers
#     CUDA_ERROR_ILLEGAL_ADDRESS, as the driver does, and the replay stops
#     with exit 1 naming the record where it surfaced;
#   - a launch of a grid the host twin cannot run in reasonable time (grid_x
#     2^31 - 1): CUDA_ERROR_LAUNCH_TIMEOUT, not a hang.
. "$TOP/tests/support/shell.sh"
RANGE=
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
M="$TOP/$BUILD/tests/sbt_mutate"
H100="$TOP/tests/fixtures/h100/fixed-va/driver_cubin.sbt"

expect_rc 0 cap "$CAP" -o "$T/drv.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_driver_app" --size 256
expect_rc 0 orig "$RP" "$T/drv.sbt"
has orig out "4 compared, 4 matched, 0 differ"

# seq_of TRACE N PATTERN: the seq of the Nth record whose dump line has PATTERN.
seq_of() {
	"$INFO" --dump "$1" | grep -F -- "$3" | sed -n "${2}p" | sed 's/^seq=\([0-9]*\) .*/\1/'
}

# replay NAME WANT_RC SRC OP...: the mutated SRC replays, bounded, with
# exit WANT_RC (never a signal, never the bound).
replay() {
	name=$1 want=$2 src=$3
	shift 3
	"$M" "$src" "$T/$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
	rc=0
	timeout -s KILL 120 "$RP" $RANGE "$T/$name.sbt" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -ne 137 ] || fail "$name: tsreplay hung"
	[ "$rc" -le 128 ] || fail "$name: tsreplay was killed by signal $((rc - 128)): $(cat "$T/$name.err")"
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc (expected $want): $(cat "$T/$name.err")"
}

PINNED=$(seq_of "$T/drv.sbt" 1 "cuda.cuMemFreeHost ")
INTO=$(seq_of "$T/drv.sbt" 1 "cuda.cuMemcpyDtoHAsync ")
[ -n "$PINNED" ] && [ -n "$INTO" ] || fail "cuda_driver_app's trace has no pinned free or async read-back"
# The free of the pinned buffer, right after the async copy into it and
# before the stream is synchronised and the checkpoint reads it.  (The
# records after it shift by one, and later checkpoints name their copies
# by seq: the replay ends before them.)
CHECK=$(seq_of "$T/drv.sbt" 1 "checkpoint call_seq=$INTO ")
RANGE="--range 1:$((CHECK + 2))"
replay freehost 0 "$T/drv.sbt" --move "$PINNED:$((INTO + 1))"
has freehost out "1 compared, 1 matched, 0 differ"
RANGE=

# The free of the buffer fill writes (the first allocation), ahead of the
# first stream synchronisation, while fill, saxpy and scale_by_table may
# still run on their stream: the free waits for them, and the checkpoint
# before the shifted ones matches.
FILL=$(seq_of "$T/drv.sbt" 1 'name="fill" stream=')
FREE1=$(seq_of "$T/drv.sbt" 1 "cuda.cuMemFree dst=")
SYNC=$(seq_of "$T/drv.sbt" 1 "cuda.cuStreamSynchronize ")
[ -n "$FILL" ] && [ -n "$FREE1" ] && [ -n "$SYNC" ] || fail "cuda_driver_app's trace lacks a launch, sync or free"
RANGE="--range 1:$((CHECK + 2))"
replay freedev 0 "$T/drv.sbt" --move "$FREE1:$SYNC"
has freedev out "1 compared, 1 matched, 0 differ"
RANGE=
C_READ=$(seq_of "$T/drv.sbt" 1 "cuda.cuMemcpyDtoH src=")
C_SRC=$("$INFO" --dump "$T/drv.sbt" | sed -n "s/^seq=$C_READ .* src=\([0-9]*\) .*/\1/p")
C_FREE=$(seq_of "$T/drv.sbt" 1 "cuda.cuMemFree dst=$C_SRC ")
[ -n "$C_FREE" ] || fail "no cuMemFree of $C_SRC, which seq $C_READ reads"
# ... its free moved ahead of the read-back: the copy names freed memory.
replay freecopy 1 "$T/drv.sbt" --move "$C_FREE:$C_READ"
has freecopy err "record seq $((C_READ + 1)) (cuda.cuMemcpyDtoH): source 0x"
has freecopy err "lies in no allocation the trace made"

# The module unloaded at the place of the first launch of its function fill.
MODULE=$(seq_of "$T/drv.sbt" 1 "cuda.cuModuleUnload ")
replay unload 1 "$T/drv.sbt" --move "$MODULE:$FILL"
has unload err "record seq $((FILL + 1)) (cuda.cuLaunchKernel): function 0x"
has unload err "(kernel 'fill') went at seq $FILL (its module, library or context was unloaded or destroyed there)"

# The first stream destroyed at the place of the first launch on it; the
# first event destroyed ahead of its record.
SDESTROY=$(seq_of "$T/drv.sbt" 1 "cuda.cuStreamDestroy ")
replay stream 1 "$T/drv.sbt" --move "$SDESTROY:$FILL"
has stream err "record seq $((FILL + 1)) (cuda.cuLaunchKernel): stream 0x"
has stream err "was destroyed at seq $FILL"
EDESTROY=$(seq_of "$T/drv.sbt" 1 "cuda.cuEventDestroy ")
EREC=$(seq_of "$T/drv.sbt" 1 "cuda.cuEventRecord ")
replay event 1 "$T/drv.sbt" --move "$EDESTROY:$EREC"
has event err "record seq $((EREC + 1)) (cuda.cuEventRecord): event 0x"
has event err "was destroyed at seq $EREC"

# varint_of SRC SEQ FIELD VALUE: the sbt_mutate --varint op (SEQ:I:VALUE)
# that makes record SEQ's dump show FIELD=VALUE.
varint_of() {
	i=0
	while [ "$i" -lt 24 ]; do
		if "$M" "$1" "$T/probe.sbt" --varint "$2:$i:$4" >/dev/null 2>&1 &&
			"$INFO" --dump "$T/probe.sbt" | grep -q "^seq=$2 .* $3=$4\( \|\$\)"; then
			echo "$2:$i:$4"
			return
		fi
		i=$((i + 1))
	done
	fail "no varint of record $2 is its $3"
}
MEMSET=$(seq_of "$T/drv.sbt" 1 "cuda.cuMemsetD32 ")
replay memset 1 "$T/drv.sbt" --varint "$(varint_of "$T/drv.sbt" "$MEMSET" width 100000)"
has memset err "record seq $MEMSET (cuda.cuMemsetD32): destination 0x"
has memset err "+ 400000 runs past the end of the allocation"
replay copysize 1 "$T/drv.sbt" --varint "$(varint_of "$T/drv.sbt" "$C_READ" size 4096)"
has copysize err "record seq $C_READ (cuda.cuMemcpyDtoH): source 0x"
has copysize err "+ 4096 runs past the end of the allocation"
replay freeinside 1 "$T/drv.sbt" --varint "$(varint_of "$T/drv.sbt" "$C_FREE" dst $((C_SRC + 8)))"
has freeinside err "record seq $C_FREE (cuda.cuMemFree): 0x"
has freeinside err "is not its start: only the address an allocation returned can be freed"

# ---- wild kernels ----------------------------------------------------------------------
# set_of SRC SEQ WANT OFF... : the sbt_mutate --set op (from the payload's
# end) that makes record SEQ's dump show WANT.
set_of() {
	src=$1 seq=$2 want=$3 val=$4
	k=1
	while [ "$k" -le 96 ]; do
		if "$M" "$src" "$T/probe.sbt" --set "$seq:-$k:$val" >/dev/null 2>&1 &&
			"$INFO" --dump "$T/probe.sbt" | grep -q "^seq=$seq .*$want"; then
			echo "$seq:-$k:$val"
			return
		fi
		k=$((k + 1))
	done
	fail "no byte of record $seq makes its dump show $want"
}
# gpu_fill (a real kernel, run by its host twin): its pointer 0x200000000000
# made 0x600000000000, where nothing is allocated.
GFILL=$(seq_of "$H100" 1 'name="gpu_fill" grid_x=')
replay twin 1 "$H100" --set "$(set_of "$H100" "$GFILL" "params=0000000000600000" 96)"
has twin err "CUDA_ERROR_ILLEGAL_ADDRESS (700)"
grep -q "record seq [0-9]* (cuda\.[A-Za-z0-9_]*): " "$T/twin.err" || fail "twin: no record named: $(cat "$T/twin.err")"
# The same launch with grid_x 2^31 - 1: more threads than a twin runs.
replay bigtwin 1 "$H100" --varint "$(varint_of "$H100" "$GFILL" grid_x 2147483647)"
has bigtwin err "CUDA_ERROR_LAUNCH_TIMEOUT (702)"
# saxpy of the double's own module: its x pointer's top byte set, so it
# points far outside every allocation.
SAXPY=$(seq_of "$T/drv.sbt" 1 'name="saxpy" stream=')
SAXPY_X=$("$INFO" --dump "$T/drv.sbt" | sed -n "s/^seq=$SAXPY .*params=\(................\)\(..............\).*/\2/p")
[ -n "$SAXPY_X" ] || fail "no saxpy parameters in record $SAXPY"
replay module 1 "$T/drv.sbt" --set "$(set_of "$T/drv.sbt" "$SAXPY" "params=................${SAXPY_X}40" 64)"
has module err "CUDA_ERROR_ILLEGAL_ADDRESS (700)"
grep -q "record seq [0-9]* (cuda\.[A-Za-z0-9_]*): " "$T/module.err" ||
	fail "module: no record named: $(cat "$T/module.err")"
echo "ok: CUDA hostile replays stop with a message (frees wait, destroyed objects named, regions checked, wild kernels trapped)"
