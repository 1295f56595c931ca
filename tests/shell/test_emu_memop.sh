#!/bin/sh
# The emulator on stream memory operations (docs/emulator.md "Stream memory
# operations"), traces of tests/cuda/cuda_stream_memop captured on the
# libcuda test double: in each of 3 rounds the consumer stream's wait is
# recorded before the producer's write that meets it.
# - Each memory-operation record is one command; each wait is ordered after
#   the write-value operation that meets it (the DOT graph's "memory value"
#   edges: cuStreamWriteValue32 -> cuStreamWaitValue32, cuStreamWriteValue64
#   -> cuStreamWaitValue64, the producer's cuStreamBatchMemOp -> the
#   consumer's), so the vadd after each wait follows the producer's fill:
#   29 commands, 51 dependencies (25 across streams), no race (the flags'
#   writes and waits ordered too).
# - The producer's first write dropped: nothing meets the first wait, which
#   the summary reports (naming its record) and which then orders nothing:
#   round 1's vadd and fill race (possible: both reach the buffer through
#   kernel arguments).
# - A graph launch whose batch memory-op node waits for a flag the
#   producer writes after the launch is recorded (--graph): the launch is
#   held until that write and the node follows it (a 4th "memory value"
#   edge; the graph's vadd node after it): 37 commands, no race; the write
#   dropped, the unmet wait names the launch and the graph's vadd races
#   with the fill.
# - Memory operations recorded inside stream captures (--capture: a 4th
#   round whose consumer graph, captured from a cuStreamWaitValue32 and a
#   vadd, is launched before the producer's, captured from a fill and a
#   cuStreamWriteValue32): the captured operations are graph nodes; the
#   consumer's launch is held until the producer's launch and its wait
#   node follows that launch's write node (a 4th "memory value" edge):
#   37 commands, no race; the captured write dropped, the unmet wait
#   names the consumer's launch and its vadd races with the fill.
# - The NOR condition (--nor: a 4th round whose consumer waits until
#   ~(word | 0xffff0000) != 0; the producer writes 0xffff, which does not
#   meet it, then fills and writes 0xfffe, which does): the wait follows
#   the second write (a "memory value" edge from it, none from the first),
#   40 commands, no race; the second write dropped, the first meets
#   nothing: the unmet wait is reported, the first write and the wait's
#   read of the flag are a confirmed race and the vadd races with the fill
#   (possible).
# - A wait met by a kernel's write (--kernel-write: round 1's producer sets
#   the flag with a one-word fill kernel, not cuStreamWriteValue32): no
#   write-value operation meets the wait, which is reported unmet and
#   orders nothing; --races names the fill kernel, unordered with the wait
#   and given a pointer to the flag's allocation, as a command that may
#   write the word and meet the wait (not ordered: a kernel's writes are
#   not known to give the value), after the races it causes (the kernel
#   with the wait's read, round 1's fill with the vadd; both possible).
#   With TRACESMITH_SNAPSHOT=launch the kernel's keyframes prove its write
#   of the flag: it "writes that word" and races with the wait's read
#   (confirmed); the held vadd's keyframes, taken without waiting (their
#   records' note), prove nothing (it still "may write"), and a launch
#   the wait held keeps its ordinal (the flag's write is not put on it).
# - tsreplay --schedule-seed refuses the trace (a wait recorded before the
#   write it waits for).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuda_window
X="$TOP/$BUILD/tsexport"
INFO="$TOP/$BUILD/tsinfo"
M="$TOP/$BUILD/tests/sbt_mutate"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"

seq_of() {
	"$INFO" --dump "$1" | grep -F -- "$2" | sed -n "${3:-1}p" | sed 's/^seq=\([0-9]*\) .*/\1/'
}
# value_edge DOT FROM TO: whether DOT has a "memory value" edge from the
# node of record FROM (labelled A) to the node of record TO (labelled B).
value_edge() {
	a=$(sed -n "s/^[[:space:]]*\(n[0-9]*\) \[label=\"seq $2\\\\n$3\"\];/\1/p" "$1" | head -n 1)
	b=$(sed -n "s/^[[:space:]]*\(n[0-9]*\) \[label=\"seq $4\\\\n$5\"\];/\1/p" "$1" | head -n 1)
	[ -n "$a" ] && [ -n "$b" ] || fail "$1: no node 'seq $2 $3' or 'seq $4 $5': $(cat "$1")"
	grep -q "^[[:space:]]*$a -> $b \[style=dashed,color=purple,label=\"memory value\"\];" "$1"
}

expect_rc 0 cap "$TOP/$BUILD/tscapture" -o "$T/m.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_stream_memop"
expect_rc 0 sum "$X" --summary "$T/m.sbt"
has sum out "commands: 29 on 3 streams, 51 dependencies (25 across streams)"
grep -q "stream memory waits" "$T/sum.out" && fail "sum: a wait reported unmet: $(cat "$T/sum.out")"
expect_rc 0 races "$X" --races "$T/m.sbt"
has races out "races: 0 confirmed, 0 possible"
expect_rc 0 dot "$X" -f dot -o "$T/m.dot" "$T/m.sbt"
[ "$(grep -c 'label="memory value"' "$T/m.dot")" = 3 ] || fail "dot: not 3 memory value edges: $(cat "$T/m.dot")"
W32=$(seq_of "$T/m.sbt" "cuda.cuStreamWaitValue32 ")
S32=$(seq_of "$T/m.sbt" "cuda.cuStreamWriteValue32 ")
W64=$(seq_of "$T/m.sbt" "cuda.cuStreamWaitValue64 ")
S64=$(seq_of "$T/m.sbt" "cuda.cuStreamWriteValue64 ")
WB=$(seq_of "$T/m.sbt" "cuda.cuStreamBatchMemOp " 1)
SB=$(seq_of "$T/m.sbt" "cuda.cuStreamBatchMemOp " 2)
value_edge "$T/m.dot" "$S32" "memset cuStreamWriteValue32" "$W32" "memset cuStreamWaitValue32" ||
	fail "dot: no memory value edge $S32 -> $W32: $(cat "$T/m.dot")"
value_edge "$T/m.dot" "$S64" "memset cuStreamWriteValue64" "$W64" "memset cuStreamWaitValue64" ||
	fail "dot: no memory value edge $S64 -> $W64: $(cat "$T/m.dot")"
value_edge "$T/m.dot" "$SB" "memset cuStreamBatchMemOp" "$WB" "memset cuStreamBatchMemOp" ||
	fail "dot: no memory value edge $SB -> $WB: $(cat "$T/m.dot")"

# ---- the first write dropped: an unmet wait, reported, orders nothing -----------------------------
"$M" "$T/m.sbt" "$T/nowrite.sbt" --drop "$S32" >/dev/null || fail "sbt_mutate --drop $S32"
expect_rc 0 nsum "$X" --summary "$T/nowrite.sbt"
has nsum out "commands: 28 on 3 streams"
has nsum out "stream memory waits no write-value operation satisfies: 1 (the first at seq $W32); they order nothing"
expect_rc 1 nraces "$X" --races "$T/nowrite.sbt"
has nraces out "races: 0 confirmed, 1 possible"
p=$(grep '^  seq' "$T/nraces.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .*/\1/' | sort | tr '\n' ' ')
[ "$p" = "fill vadd " ] || fail "nraces: the race is not fill / vadd: $(cat "$T/nraces.out")"

# ---- a graph launch whose batch memory-op node waits (--graph) ----------------------------------
expect_rc 0 gcap "$TOP/$BUILD/tscapture" -o "$T/g.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_stream_memop" --graph
expect_rc 0 gsum "$X" --summary "$T/g.sbt"
has gsum out "commands: 37 on 3 streams, 68 dependencies (34 across streams)"
expect_rc 0 graces "$X" --races "$T/g.sbt"
has graces out "races: 0 confirmed, 0 possible"
expect_rc 0 gdot "$X" -f dot -o "$T/g.dot" "$T/g.sbt"
GL=$(seq_of "$T/g.sbt" "cuda.cuGraphLaunch ")
GW=$(seq_of "$T/g.sbt" "cuda.cuStreamWriteValue32 " 2)
value_edge "$T/g.dot" "$GW" "memset cuStreamWriteValue32" "$GL" "memset cuGraphAddBatchMemOpNode" ||
	fail "gdot: no memory value edge $GW -> the graph's memory-op node: $(cat "$T/g.dot")"
"$M" "$T/g.sbt" "$T/gnowrite.sbt" --drop "$GW" >/dev/null || fail "sbt_mutate --drop $GW"
expect_rc 0 gnsum "$X" --summary "$T/gnowrite.sbt"
has gnsum out "stream memory waits no write-value operation satisfies: 1 (the first at seq $GL); they order nothing"
expect_rc 1 gnraces "$X" --races "$T/gnowrite.sbt"
has gnraces out "races: 0 confirmed, 1 possible"
p=$(grep '^  seq' "$T/gnraces.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .*/\1/' | sort | tr '\n' ' ')
[ "$p" = "fill vadd " ] || fail "gnraces: the race is not fill / vadd: $(cat "$T/gnraces.out")"

# ---- memory operations recorded inside stream captures (--capture) ---------------------------------
expect_rc 0 ccap "$TOP/$BUILD/tscapture" -o "$T/c.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_stream_memop" --capture
expect_rc 0 csum "$X" --summary "$T/c.sbt"
has csum out "commands: 37 on 3 streams, 68 dependencies (34 across streams)"
grep -q "stream memory waits" "$T/csum.out" && fail "csum: a wait reported unmet: $(cat "$T/csum.out")"
expect_rc 0 craces "$X" --races "$T/c.sbt"
has craces out "races: 0 confirmed, 0 possible"
expect_rc 0 cdot "$X" -f dot -o "$T/c.dot" "$T/c.sbt"
[ "$(grep -c 'label="memory value"' "$T/c.dot")" = 4 ] || fail "cdot: not 4 memory value edges: $(cat "$T/c.dot")"
CL=$(seq_of "$T/c.sbt" "cuda.cuGraphLaunch " 1)
PL=$(seq_of "$T/c.sbt" "cuda.cuGraphLaunch " 2)
CW=$(seq_of "$T/c.sbt" "cuda.cuStreamWriteValue32 " 2)
value_edge "$T/c.dot" "$PL" "memset cuStreamWriteValue32" "$CL" "memset cuStreamWaitValue32" ||
	fail "cdot: no memory value edge from the producer's launch $PL to the consumer's $CL: $(cat "$T/c.dot")"
"$M" "$T/c.sbt" "$T/cnowrite.sbt" --drop "$CW" >/dev/null || fail "sbt_mutate --drop $CW"
expect_rc 0 cnsum "$X" --summary "$T/cnowrite.sbt"
has cnsum out "commands: 36 on 3 streams"
has cnsum out "stream memory waits no write-value operation satisfies: 1 (the first at seq $CL); they order nothing"
expect_rc 1 cnraces "$X" --races "$T/cnowrite.sbt"
has cnraces out "races: 0 confirmed, 1 possible"
p=$(grep '^  seq' "$T/cnraces.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .*/\1/' | sort | tr '\n' ' ')
[ "$p" = "fill vadd " ] || fail "cnraces: the race is not fill / vadd: $(cat "$T/cnraces.out")"

# ---- the NOR condition (--nor) ---------------------------------------------------------------
expect_rc 0 ncap "$TOP/$BUILD/tscapture" -o "$T/n.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_stream_memop" --nor
expect_rc 0 nsum2 "$X" --summary "$T/n.sbt"
has nsum2 out "commands: 40 on 3 streams, 71 dependencies (34 across streams)"
grep -q "stream memory waits" "$T/nsum2.out" && fail "nsum2: a wait reported unmet: $(cat "$T/nsum2.out")"
expect_rc 0 nraces2 "$X" --races "$T/n.sbt"
has nraces2 out "races: 0 confirmed, 0 possible"
expect_rc 0 ndot "$X" -f dot -o "$T/n.dot" "$T/n.sbt"
[ "$(grep -c 'label="memory value"' "$T/n.dot")" = 4 ] || fail "ndot: not 4 memory value edges: $(cat "$T/n.dot")"
NW=$(seq_of "$T/n.sbt" "cuda.cuStreamWaitValue32 " 2)
NS1=$(seq_of "$T/n.sbt" "cuda.cuStreamWriteValue32 " 2)
NS2=$(seq_of "$T/n.sbt" "cuda.cuStreamWriteValue32 " 3)
value_edge "$T/n.dot" "$NS2" "memset cuStreamWriteValue32" "$NW" "memset cuStreamWaitValue32" ||
	fail "ndot: no memory value edge $NS2 -> $NW: $(cat "$T/n.dot")"
value_edge "$T/n.dot" "$NS1" "memset cuStreamWriteValue32" "$NW" "memset cuStreamWaitValue32" &&
	fail "ndot: the write of 0xffff (seq $NS1) meets the NOR wait: $(cat "$T/n.dot")"
"$M" "$T/n.sbt" "$T/nnomeet.sbt" --drop "$NS2" >/dev/null || fail "sbt_mutate --drop $NS2"
expect_rc 0 nnsum "$X" --summary "$T/nnomeet.sbt"
has nnsum out "stream memory waits no write-value operation satisfies: 1 (the first at seq $NW); they order nothing"
expect_rc 1 nnraces "$X" --races "$T/nnomeet.sbt"
has nnraces out "races: 1 confirmed, 1 possible"
has nnraces out "seq $NS1 memset cuStreamWriteValue32 on stream"
p=$(grep '^  seq' "$T/nnraces.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .*/\1/' | sort | tr '\n' ' ')
[ "$p" = "cuStreamWaitValue32 cuStreamWriteValue32 fill vadd " ] ||
	fail "nnraces: the races are not the flag's write / wait and fill / vadd: $(cat "$T/nnraces.out")"

# ---- a wait a kernel's write meets (--kernel-write) ---------------------------------------------------
# (TSCUDA_DOUBLE_RACY=1: the program races on purpose, a kernel's plain
# write of the flag a stream memory wait reads, and the keyframes below are
# copied on the recorder's stream while that kernel may run; under make tsan
# the double hides its workers' accesses from ThreadSanitizer,
# docs/cuda-double.md.  Without it the keyframe's copy was reported as a
# race in one run of three.)
expect_rc 0 kcap env TSCUDA_DOUBLE_RACY=1 "$TOP/$BUILD/tscapture" -o "$T/k.sbt" -- \
	"$TOP/$BUILD/tests/cuda/cuda_stream_memop" --kernel-write
KW=$(seq_of "$T/k.sbt" "cuda.cuStreamWaitValue32 ")
KF=$("$INFO" --dump "$T/k.sbt" | grep 'cuda.cuLaunchKernel .*name="fill" .* grid_x=1 .* block_x=1 ' |
	sed -n 1p | sed 's/^seq=\([0-9]*\) .*/\1/')
[ -n "$KF" ] || fail "k.sbt: no one-word fill kernel"
expect_rc 0 ksum "$X" --summary "$T/k.sbt"
has ksum out "stream memory waits no write-value operation satisfies: 1 (the first at seq $KW); they order nothing"
expect_rc 1 kraces "$X" --races "$T/k.sbt"
has kraces out "races: 0 confirmed, 2 possible"
p=$(grep '^  seq' "$T/kraces.out" | sed 's/^  seq [0-9]* [a-z_0-9]* \([A-Za-z_0-9]*\) .*/\1/' | sort | tr '\n' ' ')
[ "$p" = "cuStreamWaitValue32 fill fill vadd " ] || fail "kraces: not the flag's and round 1's races: $(cat "$T/kraces.out")"
has kraces out "seq $KF kernel fill on stream"
grep -q "^stream memory wait at seq $KW (the 32-bit word at $(printf '0x%x' "$WIN_BASE")) met by no write-value operation: seq $KF kernel fill on stream 0x[0-9a-f]* (non-blocking) may write that word and may meet it; only write-value operations order waits, so it orders nothing\$" "$T/kraces.out" ||
	fail "kraces: the wait's possible writer not named: $(cat "$T/kraces.out")"
# with keyframes: the kernel's write of the flag proven
TRACESMITH_SNAPSHOT=launch expect_rc 0 kkcap env TSCUDA_DOUBLE_RACY=1 "$TOP/$BUILD/tscapture" \
	-o "$T/kk.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_stream_memop" --kernel-write
KKW=$(seq_of "$T/kk.sbt" "cuda.cuStreamWaitValue32 ")
KKF=$("$INFO" --dump "$T/kk.sbt" | grep 'cuda.cuLaunchKernel .*name="fill" .* grid_x=1 .* block_x=1 ' |
	sed -n 1p | sed 's/^seq=\([0-9]*\) .*/\1/')
KKV=$(seq_of "$T/kk.sbt" 'name="vadd" stream=')
expect_rc 1 kkraces "$X" --races "$T/kk.sbt"
grep -q "^stream memory wait at seq $KKW (the 32-bit word at $(printf '0x%x' "$WIN_BASE")) met by no write-value operation: seq $KKF kernel fill on stream 0x[0-9a-f]* (non-blocking) writes that word and may meet it;" "$T/kkraces.out" ||
	fail "kkraces: the kernel's proven write of the flag not named: $(cat "$T/kkraces.out")"
has kkraces out "seq $KKF kernel fill on stream"
grep -q "^  seq $KKV kernel vadd .* writes " "$T/kkraces.out" && fail "kkraces: the held vadd proven to write: $(cat "$T/kkraces.out")"
grep -q "^  seq $KKV kernel vadd .* reads and may write " "$T/kkraces.out" ||
	fail "kkraces: the held vadd's accesses: $(cat "$T/kkraces.out")"
# the program's own writes meet every wait: nothing named
grep -q "^stream memory wait at" "$T/races.out" "$T/graces.out" "$T/craces.out" && fail "a met wait named"

# ---- sampled orders refuse it ---------------------------------------------------------------
expect_rc 2 seed "$TOP/$BUILD/tsreplay" --schedule-seed 1 "$T/m.sbt"
has seed err "seq $W32 is a stream memory wait for a write recorded after it: a sampled order is drawn as the records are read (replay it without --schedule-seed)"
echo "ok"
