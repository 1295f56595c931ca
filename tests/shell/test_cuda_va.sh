#!/bin/sh
# Same-address capture on the libcuda test double (which follows the real
# driver's measured address rules, facts 1-4 of the shared gpu-fixtures
# README: another process never gets the driver's addresses, one large
# reservation in a far window is honoured):
#   - allocations are placed in the window and recorded with it; a program
#     whose kernel follows device pointers stored in cuMemAlloc'd memory,
#     and one that allocates and frees in churn, replay at exactly the
#     captured addresses (no relocation warning), three runs agreeing;
#   - 100,000 live 256-byte allocations take a bounded footprint (chunks of
#     2 MiB, counted by the double's cuMemCreate calls);
#   - a preallocation of 8 GiB makes the recorder copy under 1 MiB (the
#     double's bytes_dtoh), and the trace stays small;
#   - a stream-ordered free releases its memory once the stream reached it,
#     never before (seeded double: nothing runs until the host waits);
#   - a second device's allocations land in its own window (BASE + 512 GiB)
#     and replay there;
#   - the program's own cuMemAddressReserve(0) lands in the window and
#     replays; cuMemGetAddressRange and cuPointerGetAttribute's range answer
#     the allocation, not the chunk;
#   - the cudart-like program's module arrives through a fatbin wrapper and
#     the trace holds the fatbin (unwrapped), its context through the side
#     door and is recorded as inferred primary context; a version 2 (-rdc)
#     wrapper's prelinked fatbins are recorded and handed back at replay;
#   - texture objects are recorded with their descriptions and created again
#     in order with the same handles (a driver numbering them otherwise is
#     said once);
#   - the runtime's exit-time teardown is recorded (no "after the trace was
#     closed");
#   - the exit report is one stderr line;
#   - the window disabled or unavailable gives one warning and a capture
#     that works (replay relocates).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
SO="$TOP/$BUILD/interpose/libtracesmith_cuda.so"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
if tsan_build; then
	echo "the window at 0x200000000000 is outside TSan's memory layout"
	exit 77
fi
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TRACESMITH_CUDA_VA TSCUDA_DOUBLE_STATS \
	TSCUDA_DOUBLE_SEED TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
APP="$TOP/$BUILD/tests/cuda/cuda_alloc_app"
BASE=35184372088832 # 0x200000000000
END=35734127902720  # BASE + 512 GiB

# in_window TRACE: every cuMemAlloc of TRACE lies in the default window.
in_window() {
	"$INFO" --dump "$1" | sed -n 's/.* cuda.cuMemAlloc dst=\([0-9]*\) .*/\1/p' >"$T/addrs"
	[ -s "$T/addrs" ] || fail "$1: no allocation recorded"
	while read -r a; do
		[ "$a" -ge "$BASE" ] && [ "$a" -lt "$END" ] || fail "$1: allocation at $a is outside the window"
	done <"$T/addrs"
}

# exact NAME TRACE: replays with every checkpoint matched, nothing relocated,
# and three runs agree.
exact() {
	expect_rc 0 "$1" "$RP" "$2"
	has "$1" out "0 differ"
	if grep -q 'could not be placed' "$T/$1.err"; then
		fail "$1: relocated: $(cat "$T/$1.err")"
	fi
	expect_rc 0 "$1.det" "$RP" --check-determinism --runs 3 "$2"
}

# ---- pointers in device memory, churn ---------------------------------------------
for mode in "chase 300" "churn 120"; do
	set -- $mode
	expect_rc 0 "$1.plain" "$APP" --"$1" "$2"
	expect_rc 0 "$1.cap" "$CAP" -o "$T/$1.sbt" -- "$APP" --"$1" "$2"
	[ "$(cat "$T/$1.plain.out")" = "$(cat "$T/$1.cap.out")" ] ||
		fail "$1: captured run printed '$(cat "$T/$1.cap.out")', plain '$(cat "$T/$1.plain.out")'"
	"$INFO" --dump "$T/$1.sbt" | grep -q "cuda.tsVaWindow dst=$BASE size=549755813888" ||
		fail "$1: no window record"
	in_window "$T/$1.sbt"
	exact "$1.replay" "$T/$1.sbt"
done
# Churn reuses freed ranges: some address is allocated twice.
"$INFO" --dump "$T/churn.sbt" | sed -n 's/.* cuda.cuMemAlloc dst=\([0-9]*\) .*/\1/p' | sort | uniq -d >"$T/reused"
[ -s "$T/reused" ] || fail "churn: no freed range was reused"
# Without the window, the chase cannot replay: its pointers in device memory
# name addresses the replay's process cannot have (fact 3).
TRACESMITH_CUDA_VA=off expect_rc 0 chase.off.cap "$CAP" -o "$T/chase.off.sbt" -- "$APP" --chase 300
has chase.off.cap err "TRACESMITH_CUDA_VA=off: device allocations stay at the driver's addresses"
rc=0
"$RP" "$T/chase.off.sbt" >"$T/chase.off.out" 2>"$T/chase.off.err" || rc=$?
[ "$rc" -ne 0 ] || fail "chase.off: replayed at relocated addresses without an error"
has chase.off err "could not be placed at that address"
has chase.off err "CUDA_ERROR_ILLEGAL_ADDRESS"

# ---- many small allocations: a bounded footprint ------------------------------------
TSCUDA_DOUBLE_STATS="$T/many.stats" expect_rc 0 many.cap "$CAP" -o "$T/many.sbt" -- "$APP" --many 100000
creates=$(sed -n 's/^cuMemCreate \([0-9]*\)$/\1/p' "$T/many.stats")
# 100,000 x 256 B (512 B slots) fill 25 chunks of 2 MiB.
[ -n "$creates" ] && [ "$creates" -le 30 ] || fail "many: $creates cuMemCreate calls for 100,000 allocations"
in_window "$T/many.sbt"
expect_rc 0 many.replay "$RP" "$T/many.sbt"
has many.replay out "0 differ"

# ---- a preallocation of 8 GiB --------------------------------------------------------
TSCUDA_DOUBLE_STATS="$T/pre.stats" expect_rc 0 pre.cap "$CAP" -o "$T/pre.sbt" -- "$APP" --prealloc 8192 --chase 20
dtoh=$(sed -n 's/^bytes_dtoh \([0-9]*\)$/\1/p' "$T/pre.stats")
[ -n "$dtoh" ] && [ "$dtoh" -lt 1048576 ] || fail "prealloc: the recorder and program copied $dtoh bytes to the host"
size=$(stat -c %s "$T/pre.sbt")
[ "$size" -lt 1048576 ] || fail "prealloc: the trace is $size bytes"
expect_rc 0 pre.replay "$RP" "$T/pre.sbt"
# With full keyframes the preallocation is in them (a range can start there).
TSCUDA_DOUBLE_STATS="$T/pre.full.stats" TRACESMITH_SNAPSHOT=launch \
	expect_rc 0 pre.full "$CAP" -o "$T/pre.full.sbt" -- "$APP" --chase 4 --prealloc 64
expect_rc 0 pre.full.replay "$RP" "$T/pre.full.sbt"

# ---- the program's own reservation; range queries -----------------------------------
expect_rc 0 reserve.cap "$CAP" -o "$T/reserve.sbt" -- "$APP" --reserve
r=$("$INFO" --dump "$T/reserve.sbt" | sed -n 's/.* cuda.cuMemAddressReserve dst=\([0-9]*\) .*/\1/p')
[ -n "$r" ] && [ "$r" -ge "$BASE" ] && [ "$r" -lt "$END" ] || fail "reserve: the program's reservation is at '$r'"
exact reserve.replay "$T/reserve.sbt"
expect_rc 0 range.plain "$APP" --range
expect_rc 0 range.cap "$CAP" -o "$T/range.sbt" -- "$APP" --range
has range.cap out "cuda_alloc_app: range offset 100 size>=3000 1 attr offset 100 attr size>=3000 1"
[ "$(cat "$T/range.plain.out")" = "$(cat "$T/range.cap.out")" ] || fail "range: plain and captured runs differ"

# ---- stream-ordered frees: released when the stream reaches them, never before ------------
# With the double's seeded scheduling no stream runs until the host waits,
# so the stream has not reached the free when the next allocation comes:
# that one must not get the freed range; after the synchronization the
# next one does (first fit).
TSCUDA_DOUBLE_SEED=3 expect_rc 0 async.cap "$CAP" -o "$T/async.sbt" -- "$APP" --async
has async.cap out "cuda_alloc_app: async reused before sync 0 after sync 1"
"$INFO" --dump "$T/async.sbt" | grep -q " cuda.cuMemAllocAsync dst=$BASE " || fail "async: the stream-ordered allocation is not in the window"
exact async.replay "$T/async.sbt"

# ---- a second GPU: its own window at BASE + 512 GiB ----------------------------------------
TSCUDA_DOUBLE_DEVICES=2 expect_rc 0 dev1.cap "$CAP" -o "$T/dev1.sbt" -- "$APP" --device 1 --chase 50 --reserve
"$INFO" --dump "$T/dev1.sbt" | grep -q 'cuda.tsVaWindow device="1" dst=35734127902720 size=549755813888' ||
	fail "dev1: no window for device 1 at 0x208000000000: $("$INFO" --dump "$T/dev1.sbt" | grep tsVaWindow)"
"$INFO" --dump "$T/dev1.sbt" | sed -n 's/.* cuda.cuMemAlloc dst=\([0-9]*\) .*/\1/p' | while read -r a; do
	[ "$a" -ge "$END" ] || { echo "$a"; break; }
done >"$T/dev1.low"
[ ! -s "$T/dev1.low" ] || fail "dev1: an allocation of device 1 at $(cat "$T/dev1.low") is below its window"
TSCUDA_DOUBLE_DEVICES=2 exact dev1.replay "$T/dev1.sbt"

# ---- texture objects: recorded with their descriptions, created again -----------------
expect_rc 0 tex.cap "$CAP" -o "$T/tex.sbt" -- "$APP" --texture
"$INFO" --dump "$T/tex.sbt" >"$T/tex.dump"
[ "$(grep -c ' cuda.cuTexObjectCreate handle=[12] res_desc=0200' "$T/tex.dump")" = 2 ] ||
	fail "tex: the creations are not recorded with their linear resources: $(grep TexObj "$T/tex.dump")"
grep -q ' cuda.cuTexObjectCreate .*tex_desc=' "$T/tex.dump" || fail "tex: no texture description recorded"
[ "$(grep -c ' cuda.cuTexObjectDestroy ' "$T/tex.dump")" = 2 ] || fail "tex: destroys not recorded"
exact tex.replay "$T/tex.sbt"
if grep -q 'texture object was' "$T/tex.replay.err"; then
	fail "tex: the replay's handles differ from the capture's: $(cat "$T/tex.replay.err")"
fi
# A driver that numbers them otherwise: said once, since parameters holding
# them cannot be rewritten.
TSCUDA_DOUBLE_TEX_BASE=100 expect_rc 0 tex.other "$RP" "$T/tex.sbt"
has tex.other err "the texture object was 1 at capture and is 100 in this replay; kernel parameters holding it are not rewritten"
[ "$(grep -c 'texture object was' "$T/tex.other.err")" = 1 ] || fail "tex: the handle warning is not said once"

# ---- cudart's way: the fatbin wrapper and the side door -------------------------------
expect_rc 0 rt.cap "$CAP" -o "$T/rt.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_runtime_like"
"$INFO" --dump "$T/rt.sbt" >"$T/rt.dump"
grep ' cuda.cuLibraryLoadData ' "$T/rt.dump" | grep -q 'blob=' || fail "rt: the module was recorded without its image: $(grep cuLibraryLoadData "$T/rt.dump")"
grep ' cuda.cuLibraryLoadData ' "$T/rt.dump" | grep -q 'value=1 .*sub=2\|sub=2 .*value=1\|value=1.*sub=2' ||
	fail "rt: the image is not recorded as an unwrapped fatbin: $(grep cuLibraryLoadData "$T/rt.dump")"
# The side door's context is first seen at cuCtxSetCurrent: recorded as
# the device's primary context, inferred, just before it.
awk '/ cuda.cuDevicePrimaryCtxRetain .*sub=1/{p=NR} / cuda.cuCtxSetCurrent /{if(!s)s=NR} END{exit !(p && p<s)}' "$T/rt.dump" ||
	fail "rt: no inferred primary context before cuCtxSetCurrent: $(grep -m3 'Ctx' "$T/rt.dump")"
expect_rc 0 rt.replay "$RP" "$T/rt.sbt"
has rt.replay out "0 differ"
expect_rc 0 rt.info "$INFO" "$T/rt.sbt"
has rt.info out "cuda modules 1 loaded"
has rt.info out "0 without image"

# An -rdc build's version 2 wrapper: the prelinked fatbins are stored too, and
# replay hands the driver a version 2 wrapper again (the double counts the
# prelinked fatbins it was given).
expect_rc 0 rdc.cap "$CAP" -o "$T/rdc.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_runtime_like" --rdc
"$INFO" --dump "$T/rdc.sbt" | grep ' cuda.cuLibraryLoadData ' | grep -q 'value=2 sub=2 prelinked=' ||
	fail "rdc: the prelinked fatbins are not recorded: $("$INFO" --dump "$T/rdc.sbt" | grep cuLibraryLoadData)"
TSCUDA_DOUBLE_STATS="$T/rdc.stats" expect_rc 0 rdc.replay "$RP" "$T/rdc.sbt"
has rdc.replay out "4 compared, 4 matched, 0 differ"
grep -qx 'prelinked_fatbins 1' "$T/rdc.stats" || fail "rdc: replay did not pass the prelinked list: $(cat "$T/rdc.stats")"

# ---- exit-time teardown; the one-line report ------------------------------------------
expect_rc 0 td "$CAP" -o "$T/td.sbt" -- "$APP" --exit-teardown
if grep -q 'after the trace was closed' "$T/td.err"; then
	fail "teardown: $(cat "$T/td.err")"
fi
"$INFO" --dump "$T/td.sbt" | tail -n 2 | grep -q 'cuda.cuMemFree ' || fail "teardown: the exit-time free is not in the trace"
"$INFO" --dump "$T/td.sbt" | tail -n 1 | grep -q 'cuda.cuModuleUnload ' || fail "teardown: the exit-time unload is not the last record"
LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/one.sbt" expect_rc 0 one "$APP" --churn 8
[ "$(wc -l <"$T/one.err")" -eq 1 ] || fail "the exit report is not one line: $(cat "$T/one.err")"
has one err "tracesmith: cuda: "
has one err " launches, "
has one err "; trace $T/one.sbt"
TRACESMITH_LOG=info LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/info.sbt" expect_rc 0 info "$APP" --churn 8
has info err "cuda: calls seen: "

# ---- no window: disabled, or refused by the driver --------------------------------------
LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/off.sbt" TRACESMITH_CUDA_VA=off expect_rc 0 off "$APP" --churn 8
[ "$(grep -c 'warning' "$T/off.err")" -eq 1 ] || fail "off: not one warning: $(cat "$T/off.err")"
has off err "TRACESMITH_CUDA_VA=off"
expect_rc 0 off.replay "$RP" "$T/off.sbt"
has off.replay out "0 differ"
LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/refused.sbt" TSCUDA_DOUBLE_RESERVE=refuse expect_rc 0 refused "$APP" --churn 8
[ "$(grep -c 'warning' "$T/refused.err")" -eq 1 ] || fail "refused: not one warning: $(cat "$T/refused.err")"
has refused err "cannot reserve the address window 0x200000000000+0x8000000000 for device 0 (the driver placed it elsewhere)"
expect_rc 0 refused.replay "$RP" "$T/refused.sbt"
has refused.replay out "0 differ"
LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/bad.sbt" TRACESMITH_CUDA_VA=0x123 expect_rc 0 badva "$APP" --churn 2
has badva err "TRACESMITH_CUDA_VA='0x123' is not off or BASE[:SIZE]"
# Another window: device 0 at 0x300000000000.
LD_PRELOAD="$SO" TRACESMITH_OUTPUT="$T/alt.sbt" TRACESMITH_CUDA_VA=0x300000000000:64G expect_rc 0 alt "$APP" --chase 50
"$INFO" --dump "$T/alt.sbt" | grep -q 'cuda.tsVaWindow dst=52776558133248 size=68719476736' || fail "alt: window not recorded"
exact alt.replay "$T/alt.sbt"
echo ok
