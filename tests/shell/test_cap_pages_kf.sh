#!/bin/sh
# CUDA keyframes stored through the page-hash pool (capture/cap_pages.c),
# on the libcuda test double: cuda_alloc_app --chase 4 --prealloc 96
# captured with TRACESMITH_SNAPSHOT=launch, its preallocation untouched
# but for a few pages (two of its three chunks all zero: value=1, no
# blob) and filled (--fill-prealloc: every
# page one pattern), each with TRACESMITH_HASH_THREADS=0 (every page
# hashed on the recording thread) and 3 (three helpers, forced on however
# many CPUs there are):
# - the keyframe and tsSnapshot records (blob ids, sizes, zero chunks) and
#   the trace's blob totals are the same both ways;
# - TRACESMITH_LOG=info prints the keyframe timing line: the MiB copied
#   (the tsSnapshot records' sizes added up) and the helpers running;
# - a TRACESMITH_HASH_THREADS that is not a number in 0..64 is warned
#   about, and the capture goes on with the default.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA TRACESMITH_HASH_THREADS
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
INFO="$TOP/$BUILD/tsinfo"
APP="$TOP/$BUILD/tests/cuda/cuda_alloc_app"

# snap NAME: the keyframe and snapshot records of $T/NAME.sbt without
# their times and threads, then the trace's blob line without the bytes
# stored (compressed: where the writer cut its blob tables depends on
# when it ran, so that differs between any two runs).
snap() {
	"$INFO" --dump "$T/$1.sbt" | grep -E ' keyframe | cuda\.tsSnapshot ' |
		sed -E 's/ t=[0-9.]+ tid=[0-9]+//' >"$T/$1.snap"
	"$INFO" "$T/$1.sbt" | grep -E '^blobs ' | sed 's/, [0-9.]* [KMG]*i*B stored//' >>"$T/$1.snap"
}

for fill in untouched filled; do
	args="--chase 4 --prealloc 96"
	[ $fill = filled ] && args="$args --fill-prealloc"
	for th in 0 3; do
		n=$fill$th
		# shellcheck disable=SC2086
		TRACESMITH_SNAPSHOT=launch TRACESMITH_LOG=info TRACESMITH_HASH_THREADS=$th \
			expect_rc 0 "$n" "$CAP" -o "$T/$n.sbt" -- "$APP" $args
		snap "$n"
		mib=$(awk '/ cuda\.tsSnapshot /{ for (i = 1; i <= NF; i++) if ($i ~ /^size=/) s += substr($i, 6) }
			END { printf "%.1f", s / 1048576 }' "$T/$n.snap")
		has "$n" err "tracesmith: keyframes: $mib MiB copied from device memory, "
		has "$n" err " s storing them ($th page-hash threads)"
	done
	cmp -s "$T/${fill}0.snap" "$T/${fill}3.snap" ||
		fail "$fill: the snapshots differ with 3 hash threads: $(diff "$T/${fill}0.snap" "$T/${fill}3.snap")"
	# three 32 MiB chunks of preallocation in each of the two keyframes
	nsnap=$(grep -c ' cuda\.tsSnapshot dst=[0-9]* size=33554432 ' "$T/${fill}0.snap")
	nzero=$(grep -c ' cuda\.tsSnapshot dst=[0-9]* size=33554432 value=1' "$T/${fill}0.snap")
	[ "$nsnap" = 6 ] || fail "$fill: $nsnap snapshot records of 32 MiB, expected 6"
	if [ $fill = untouched ]; then
		[ "$nzero" = 4 ] || fail "$fill: $nzero of 6 zero chunks, expected 4"
	else
		[ "$nzero" = 0 ] || fail "$fill: $nzero zero chunks, expected none"
	fi
done

TRACESMITH_SNAPSHOT=launch TRACESMITH_HASH_THREADS=many \
	expect_rc 0 bad "$CAP" -o "$T/bad.sbt" -- "$APP" --chase 4 --prealloc 64 --fill-prealloc
has bad err "tracesmith: warning: TRACESMITH_HASH_THREADS='many' is not a number of threads in 0..64; using min(CPUs - 1, 4)"
snap bad
grep -q ' cuda\.tsSnapshot dst=[0-9]* size=33554432 blob=' "$T/bad.snap" || fail "bad: no snapshot blob"
echo "ok"
