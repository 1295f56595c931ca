#!/bin/sh
# tsreplay's CUDA backend on hostile traces (issue 12), part two: waits
# end, textures over freed memory, read-only memory.  On the libcuda test
# double; traces changed with tests/fuzz/sbt_mutate; every replay bounded
# by timeout and never killed by a signal:
#   - waits end: cuda_wait_app's kernel spins until a memset on another
#     stream sets its flag.  Its trace replays; with the memset dropped, or
#     on one stream (--streams single), the kernel never finishes and the
#     cuStreamSynchronize waiting for it stops the replay after
#     --wait-timeout seconds naming the record, exit 1; with the records
#     after the launch dropped, the end of the replay does the same instead
#     of waiting forever for the device.  A cuStreamWaitEvent moved ahead
#     of its cuEventRecord waits for nothing (an event never recorded is
#     complete, as the driver documents): on one stream it replays equal, on
#     the captured streams it ends (equal or not: scheduling decides);
#   - texture and surface objects over memory gone (cuda_array_app): the
#     CUDA array under a texture object (or a surface object) destroyed
#     ahead of the kernel launch that reads it, the array destroyed ahead
#     of cuTexObjectCreate, and the texture object's resource made linear
#     memory (record bytes changed) whose cuMemFree moved ahead of the
#     launch or of the creation: refused naming the record, exit 1; the
#     texture object inside a by-value struct parameter (--struct): equal
#     while its array lives, refused naming the struct's byte when the
#     array is destroyed ahead of the launch;
#   - a copy into memory cuMemSetAccess made read-only (cuda_vmm_app,
#     cu_replay_mutants.sh seed 54003: the double's stream worker died of
#     SIGSEGV): refused before the driver is asked, and the double, given
#     it anyway, answers CUDA_ERROR_ILLEGAL_ADDRESS.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA FUZZ_CU_FORK
# (under make tsan a window TSan can map: the default lies outside its layout)
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
M="$TOP/$BUILD/tests/sbt_mutate"
P="$TOP/$BUILD/tests/cuda"

# seq_of TRACE PATTERN: the seq of the first record whose dump line has PATTERN.
seq_of() {
	"$INFO" --dump "$1" | grep -F -- "$2" | head -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/'
}
# replay NAME WANT_RC SRC OPTIONS -- OP...: the mutated SRC (no OP: SRC
# itself) replays with OPTIONS, bounded, with exit WANT_RC; never a signal
# or the outer bound.  Its seconds go to $T/NAME.time.
replay() {
	name=$1 want=$2 src=$3
	shift 3
	opts=
	while [ "$1" != "--" ]; do
		opts="$opts $1"
		shift
	done
	shift
	if [ $# -gt 0 ]; then
		"$M" "$src" "$T/$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
	else
		cp "$src" "$T/$name.sbt"
	fi
	rc=0
	t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout -s KILL 60 "$RP" $opts "$T/$name.sbt" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	echo $(($(date +%s) - t0)) >"$T/$name.time"
	[ "$rc" -ne 137 ] || fail "$name: tsreplay hung"
	[ "$rc" -le 128 ] || fail "$name: tsreplay was killed by signal $((rc - 128)): $(cat "$T/$name.err")"
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc (expected $want): $(cat "$T/$name.err")"
}

# ---- waits end ----------------------------------------------------------------------------
expect_rc 0 capwait "$CAP" -o "$T/wait.sbt" -- "$P/cuda_wait_app"
has capwait out "cuda_wait_app: done 1"
replay waitok 0 "$T/wait.sbt" --wait-timeout 20 --
has waitok out "1 compared, 1 matched, 0 differ"
LAUNCH=$(seq_of "$T/wait.sbt" 'name="wait_flag" stream=')
SET=$(seq_of "$T/wait.sbt" "cuda.cuMemsetD32Async ")
SYNC=$(seq_of "$T/wait.sbt" "cuda.cuStreamSynchronize ")
[ -n "$LAUNCH" ] && [ "$SET" = $((LAUNCH + 1)) ] && [ "$SYNC" = $((LAUNCH + 2)) ] ||
	fail "cuda_wait_app's trace: launch $LAUNCH, memset $SET, sync $SYNC"
wait_msg="the driver did not return within 0.5 s (a kernel that never finishes, or work waiting for what nothing replayed provides); stopped without waiting for the device (tsreplay --wait-timeout SECONDS waits longer)"
replay nomemset 1 "$T/wait.sbt" --wait-timeout 0.5 -- --drop "$SET"
has nomemset err "tsreplay: backend cuda: record seq $SYNC (cuda.cuStreamSynchronize): $wait_msg"
[ "$(cat "$T/nomemset.time")" -le 10 ] || fail "nomemset: $(cat "$T/nomemset.time") s for a 0.5 s bound"
replay single 1 "$T/wait.sbt" --wait-timeout 0.5 --streams single --
has single err "record seq $SYNC (cuda.cuStreamSynchronize): $wait_msg"
drops=
k=$SET
last=$("$INFO" --dump "$T/wait.sbt" | tail -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/')
while [ "$k" -le "$last" ]; do
	drops="$drops --drop $k"
	k=$((k + 1))
done
# shellcheck disable=SC2086
replay tail 1 "$T/wait.sbt" --wait-timeout 0.5 -- $drops
has tail out "tsreplay: replayed"
has tail err "tsreplay: backend cuda: the end of the replay (waiting for its work): $wait_msg"
expect_rc 2 badwait "$RP" --wait-timeout 0 "$T/wait.sbt"
has badwait err "--wait-timeout: expected seconds (> 0), got '0'"

expect_rc 0 capdrv "$CAP" -o "$T/drv.sbt" -- "$P/cuda_driver_app" --size 256
EREC=$(seq_of "$T/drv.sbt" "cuda.cuEventRecord ")
EWAIT=$(seq_of "$T/drv.sbt" "cuda.cuStreamWaitEvent ")
[ "$EWAIT" = $((EREC + 1)) ] || fail "cuda_driver_app's trace: record $EREC, wait $EWAIT"
# A wait moved ahead of its event's record waits for nothing (as the driver
# documents): on one stream the order is the trace's, so every checkpoint
# matches; on the captured streams the consumer may then run before the
# producer, so the replay ends either matching or differing (exit 0 or 3:
# it depends on scheduling), never at the wait bound.
replay waitfirst 0 "$T/drv.sbt" --wait-timeout 20 --streams single -- --move "$EWAIT:$EREC"
has waitfirst out "4 compared, 4 matched, 0 differ"
rc=0
timeout -s KILL 60 "$RP" --wait-timeout 20 "$T/waitfirst.sbt" >"$T/waitfirst2.out" 2>"$T/waitfirst2.err" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] ||
	fail "waitfirst (captured streams): exit $rc (expected 0 or 3): $(cat "$T/waitfirst2.err")"
grep -q "did not return within" "$T/waitfirst2.err" &&
	fail "waitfirst (captured streams): stopped at the wait bound: $(cat "$T/waitfirst2.err")"
grep -q "4 compared" "$T/waitfirst2.out" ||
	fail "waitfirst (captured streams): not every checkpoint compared: $(cat "$T/waitfirst2.out")"

# ---- textures over memory gone ------------------------------------------------------------
expect_rc 0 caparr "$CAP" -o "$T/arr.sbt" -- "$P/cuda_array_app"
TEX=$(seq_of "$T/arr.sbt" "cuda.cuTexObjectCreate ")
SURF=$(seq_of "$T/arr.sbt" "cuda.cuSurfObjectCreate ")
READ=$(seq_of "$T/arr.sbt" 'name="array_read" grid_x=')
INC=$(seq_of "$T/arr.sbt" 'name="surf_inc" grid_x=')
A2=$("$INFO" --dump "$T/arr.sbt" | sed -n 's/^seq=\([0-9]*\) .*cuda.cuArrayCreate handle=\([0-9]*\) width=16 .*/\1 \2/p')
A3=$("$INFO" --dump "$T/arr.sbt" | sed -n 's/^seq=\([0-9]*\) .*cuda.cuArray3DCreate flags=2 handle=\([0-9]*\) .*/\1 \2/p' |
	head -n 1)
A2_SEQ=${A2% *} A3_SEQ=${A3% *}
A2_HEX=$(printf '0x%x' "${A2#* }")
A3_HEX=$(printf '0x%x' "${A3#* }")
A2_DESTROY=$(seq_of "$T/arr.sbt" "cuda.cuArrayDestroy handle=${A2#* }")
A3_DESTROY=$(seq_of "$T/arr.sbt" "cuda.cuArrayDestroy handle=${A3#* }")
[ -n "$TEX" ] && [ -n "$READ" ] && [ -n "$A2_DESTROY" ] && [ -n "$A3_DESTROY" ] ||
	fail "cuda_array_app's trace: tex $TEX, read $READ, destroys $A2_DESTROY $A3_DESTROY"
replay arrgone 1 "$T/arr.sbt" -- --move "$A2_DESTROY:$READ"
has arrgone err "record seq $((READ + 1)) (cuda.cuLaunchKernel): parameter 0 of kernel 'array_read' holds texture object 1 (made at seq $TEX), and its CUDA array $A2_HEX (made at seq $A2_SEQ) was destroyed since: the kernel would reach an array that is gone"
replay surfgone 1 "$T/arr.sbt" -- --move "$A3_DESTROY:$INC"
has surfgone err "record seq $((INC + 1)) (cuda.cuLaunchKernel): parameter 0 of kernel 'surf_inc' holds surface object 2 (made at seq $SURF), and its CUDA array $A3_HEX (made at seq $A3_SEQ) was destroyed since"
# The texture object inside a by-value struct parameter (cuda_array_app
# --struct: array_read_s's first parameter, 16 bytes): it replays equal
# while its array lives, and is refused naming the struct's byte when the
# array is destroyed ahead of the launch.
expect_rc 0 capst "$CAP" -o "$T/st.sbt" -- "$P/cuda_array_app" --struct
[ "$(cat "$T/capst.out")" = "$(cat "$T/caparr.out")" ] || fail "--struct: $(cat "$T/capst.out") vs $(cat "$T/caparr.out")"
ST_TEX=$(seq_of "$T/st.sbt" "cuda.cuTexObjectCreate ")
ST_READ=$(seq_of "$T/st.sbt" 'name="array_read_s" grid_x=')
ST_A2=$("$INFO" --dump "$T/st.sbt" | sed -n 's/^seq=\([0-9]*\) .*cuda.cuArrayCreate handle=\([0-9]*\) width=16 .*/\1 \2/p')
ST_A2_SEQ=${ST_A2% *}
ST_A2_HEX=$(printf '0x%x' "${ST_A2#* }")
ST_A2_DESTROY=$(seq_of "$T/st.sbt" "cuda.cuArrayDestroy handle=${ST_A2#* }")
[ -n "$ST_READ" ] && [ -n "$ST_A2_DESTROY" ] && [ -n "$ST_A2_SEQ" ] ||
	fail "cuda_array_app --struct's trace: read $ST_READ, destroy $ST_A2_DESTROY, array $ST_A2_SEQ"
"$INFO" --dump "$T/st.sbt" | grep -q "^seq=$ST_READ .* layout=0000000010000000" ||
	fail "array_read_s's layout: $("$INFO" --dump "$T/st.sbt" | grep "^seq=$ST_READ ")"
replay stlive 0 "$T/st.sbt" --
has stlive out "matched"
replay stgone 1 "$T/st.sbt" -- --move "$ST_A2_DESTROY:$ST_READ"
has stgone err "record seq $((ST_READ + 1)) (cuda.cuLaunchKernel): parameter 0 of kernel 'array_read_s' (a struct of 16 bytes) holds at byte 0 texture object 1 (made at seq $ST_TEX), and its CUDA array $ST_A2_HEX (made at seq $ST_A2_SEQ) was destroyed since: the kernel would reach an array that is gone"
replay arrfirst 1 "$T/arr.sbt" -- --move "$A2_DESTROY:$TEX"
has arrfirst err "record seq $((TEX + 1)) (cuda.cuTexObjectCreate): cuTexObjectCreate: the resource's CUDA array $A2_HEX was never created in the trace"
# The texture object's resource made linear: 512 bytes of the second
# allocation (0x200000000800 in the default window, the first being 2048
# bytes; WIN_BASE + 2048 in the window of cuda_window), format u32, 1
# channel.  R: where the resource description starts in the record's payload.
LIN=$((WIN_BASE + 2048))
LIN_HEX=$(printf '0x%x' "$LIN")
# its 8 bytes, little-endian: as --set values and as the dump's hex
LIN_B0=$((LIN & 255)) LIN_B1=$((LIN >> 8 & 255)) LIN_B2=$((LIN >> 16 & 255)) LIN_B3=$((LIN >> 24 & 255))
LIN_B4=$((LIN >> 32 & 255)) LIN_B5=$((LIN >> 40 & 255)) LIN_B6=$((LIN >> 48 & 255)) LIN_B7=$((LIN >> 56 & 255))
LIN_LE=$(printf '%02x%02x%02x%02x%02x%02x%02x%02x' $LIN_B0 $LIN_B1 $LIN_B2 $LIN_B3 $LIN_B4 $LIN_B5 $LIN_B6 $LIN_B7)
LIN_ALLOC=$(seq_of "$T/arr.sbt" "cuda.cuMemAlloc dst=$LIN size=512 ")
LIN_FREE=$(seq_of "$T/arr.sbt" "cuda.cuMemFree dst=$LIN ")
[ -n "$LIN_ALLOC" ] && [ -n "$LIN_FREE" ] || fail "cuda_array_app's trace: no 512-byte allocation at $LIN_HEX"
R=
k=0
while [ "$k" -lt 64 ] && [ -z "$R" ]; do
	"$M" "$T/arr.sbt" "$T/probe.sbt" --set "$TEX:$k:119" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/probe.sbt" | grep -q "^seq=$TEX .*res_desc=77" && R=$k
	k=$((k + 1))
done
[ -n "$R" ] || fail "no byte of record $TEX is its resource type"
# resType 2 (LINEAR); devPtr LIN; format 3; 1 channel; 512 bytes
"$M" "$T/arr.sbt" "$T/lin.sbt" --set "$TEX:$R:2" --set "$TEX:$((R + 8)):$LIN_B0" --set "$TEX:$((R + 9)):$LIN_B1" \
	--set "$TEX:$((R + 10)):$LIN_B2" --set "$TEX:$((R + 11)):$LIN_B3" --set "$TEX:$((R + 12)):$LIN_B4" \
	--set "$TEX:$((R + 13)):$LIN_B5" --set "$TEX:$((R + 14)):$LIN_B6" --set "$TEX:$((R + 15)):$LIN_B7" \
	--set "$TEX:$((R + 16)):3" --set "$TEX:$((R + 20)):1" --set "$TEX:$((R + 24)):0" \
	--set "$TEX:$((R + 25)):2" >/dev/null || fail "sbt_mutate: the linear resource"
"$INFO" --dump "$T/lin.sbt" | grep -q "^seq=$TEX .*res_desc=0200000000000000${LIN_LE}0300000001000000000200" ||
	fail "the linear resource: $("$INFO" --dump "$T/lin.sbt" | grep "^seq=$TEX ")"
replay lingone 1 "$T/lin.sbt" -- --move "$LIN_FREE:$READ"
has lingone err "record seq $((READ + 1)) (cuda.cuLaunchKernel): parameter 0 of kernel 'array_read' holds texture object 1 (made at seq $TEX), and its memory at $LIN_HEX (allocated at seq $LIN_ALLOC) was freed since: the kernel would read freed memory"
replay linfirst 1 "$T/lin.sbt" -- --move "$LIN_FREE:$TEX"
has linfirst err "record seq $((TEX + 1)) (cuda.cuTexObjectCreate): the linear texture resource $LIN_HEX (512 bytes) lies in no allocation the trace made (the allocation $LIN_HEX of 512 bytes made at seq $LIN_ALLOC was freed at seq $TEX)"

# ---- read-only memory ---------------------------------------------------------------------
expect_rc 0 capvmm "$CAP" -o "$T/vmm.sbt" -- "$P/cuda_vmm_app" --nodes 8
if tsan_build; then
	# (under make tsan the window moves the addresses, so the seed's
	# mutations land elsewhere: its two that matter, directed)
	expect_rc 0 seed54003 "$M" "$T/vmm.sbt" "$T/m54003.sbt" --varint 12:1:1 --dup 3
else
	expect_rc 0 seed54003 "$M" "$T/vmm.sbt" "$T/m54003.sbt" --seed 54003
	has seed54003 out "varint at 12:1 := 1"
fi
"$INFO" --dump "$T/m54003.sbt" | grep -q "^seq=13 .*cuda.cuMemSetAccess flags=1 " || fail "seed 54003: no read-only access"
replay readonly 1 "$T/m54003.sbt" --
VMM_HEX=$(printf '0x%x' "$WIN_BASE")
has readonly err "record seq 16 (cuda.cuMemcpyHtoD): destination $VMM_HEX + 4194304 is read-only memory (cuMemSetAccess at seq 13 made $VMM_HEX + 4194304 CU_MEM_ACCESS_FLAGS_PROT_READ): writing it faults on a GPU"
echo "ok: CUDA waits end (a kernel that never finishes stops the replay at the bound), textures over memory gone and copies into read-only memory are refused"
