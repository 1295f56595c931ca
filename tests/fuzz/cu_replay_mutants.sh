#!/bin/sh
# cu_replay_mutants.sh - mutants of CUDA traces through the CUDA replay in
# one process (issue 12): decode, replay backend and the libcuda test
# double together (tests/fuzz/fuzz_cu_replay.c).
#
#   BUILD=build/asan sh tests/fuzz/cu_replay_mutants.sh N [TRACE...]
#
# Without TRACE it captures the double's test programs (small sizes) with
# tscapture and adds the H100 traces of tests/fixtures/h100 that replay on
# the double (and cuda_array_app with CU_MUTANT_ARRAYS=1).  N mutants (tests/fuzz/sbt_mutate --seed S, S = FIRST ..
# FIRST + N - 1, FIRST from MUTANT_FIRST, default 1; the traces taken in
# turn; every checksum, index and trailer rewritten, so the damage reaches
# the decoder, the backend and the double) are made BATCH at a time
# (default 250) and each batch is replayed in one process of
# $BUILD/tests/fuzz_cu_replay_replay, bounded by BATCH_TIMEOUT seconds
# (default 900).  Mutants are made by MUTATE (default build/tests/sbt_mutate,
# the plain build: only the replay needs the sanitizers).
#
# A batch that crashes, prints a sanitizer report or hangs is replayed
# again one mutant at a time (MUTANT_TIMEOUT seconds each, default 60) to
# name the mutants: one line each, with the sbt_mutate ops that make it.
# After each batch, the counts so far; at the end the summary: mutants,
# how many replayed to the end (exit 0, or 3: differs), stopped with a
# message (exit 1), other exits, crashes, reports, hangs.
# Exit 1 if any mutant crashed, was reported or hung.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
N=${1:?usage: cu_replay_mutants.sh N [TRACE...]}
shift
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
F=$B/tests/fuzz_cu_replay_replay
M=${MUTATE:-$TOP/build/tests/sbt_mutate}
[ -x "$F" ] || { echo "cu_replay_mutants: $F is not built" >&2; exit 1; }
[ -x "$M" ] || { echo "cu_replay_mutants: $M is not built" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/cumutants.XXXXXX")
trap 'rm -rf "$W"' EXIT
BATCH=${BATCH:-250}
BLIMIT=${BATCH_TIMEOUT:-900}
LIMIT=${MUTANT_TIMEOUT:-60}
ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0:allow_user_segv_handler=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS
unset TSCUDA_DOUBLE_SEED TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TSCUDA_DOUBLE_STATS
export TSCUDA_DOUBLE_QUIET=1 FUZZ_CU_REPORT=1
export TRACESMITH_CUDA_DRIVER="$B/tests/doubles/cuda/libcuda.so.1"

if [ $# -eq 0 ]; then
	# The double's programs, captured on the plain build's double.
	P=$TOP/build/tests/cuda
	D=$TOP/build/tests/doubles/cuda
	unset TRACESMITH_OUTPUT TRACESMITH_SNAPSHOT TRACESMITH_CUDA_VA
	cap() {
		out=$1
		shift
		# (on the plain double: TRACESMITH_CUDA_DRIVER names the replay's)
		env -u TRACESMITH_CUDA_DRIVER LD_LIBRARY_PATH="$D" "$TOP/build/tscapture" -o "$W/$out.sbt" -- "$@" \
			>"$W/$out.log" 2>&1 && [ -s "$W/$out.sbt" ] ||
			{ echo "cu_replay_mutants: capturing $*: $(tail -n 3 "$W/$out.log")" >&2; exit 1; }
	}
	cap driver "$P/cuda_driver_app" --size 256
	cap runtime "$P/cuda_runtime_like" --size 256
	cap vmm "$P/cuda_vmm_app" --nodes 8
	cap graph "$P/cuda_graph_app" --launches 3
	cap window "$P/cuda_window_app" --iterations 3
	H=$TOP/tests/fixtures/h100
	set -- "$W/driver.sbt" "$W/runtime.sbt" "$W/vmm.sbt" "$W/graph.sbt" "$W/window.sbt" \
		"$H/fixed-va/driver_cubin.sbt" "$H/as-captured/driver_cubin.sbt" "$H/fixed-va/saxpy_static.sbt"
	# CU_MUTANT_ARRAYS=1: cuda_array_app too (CUDA arrays, texture and
	# surface objects), as a ninth trace (the seeds then fall on other
	# traces than in runs without it)
	if [ "${CU_MUTANT_ARRAYS:-0}" = 1 ]; then
		cap array "$P/cuda_array_app"
		set -- "$@" "$W/array.sbt"
	fi
fi
ntraces=$#
ok=0 stopped=0 other=0 crash=0 report=0 hang=0
first=${MUTANT_FIRST:-1}
last=$((first + N - 1))
start=$(date +%s)

# classify_one FILE OPS: one mutant on its own.
classify_one() {
	rc=0
	timeout -s KILL "$LIMIT" "$F" "$1" >"$W/one.out" 2>"$W/one.err" || rc=$?
	if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$W/one.err"; then
		report=$((report + 1))
		echo "report: $2: $(grep -m1 "ERROR: AddressSanitizer\|runtime error:" "$W/one.err" | cut -c1-220)"
	elif [ "$rc" -eq 137 ]; then
		hang=$((hang + 1))
		echo "hang: $2"
	elif [ "$rc" -gt 128 ]; then
		crash=$((crash + 1))
		echo "crash (signal $((rc - 128))): $2"
	else
		count_exits "$W/one.out"
	fi
}

# count_exits FILE: the "exit N" lines of a clean run.
count_exits() {
	a=$(grep -c '^exit [03]$' "$1" || true)
	b=$(grep -c '^exit 1$' "$1" || true)
	c=$(grep -c '^exit ' "$1" || true)
	ok=$((ok + a))
	stopped=$((stopped + b))
	other=$((other + c - a - b))
}

s=$first
while [ "$s" -le "$last" ]; do
	end=$((s + BATCH - 1))
	[ "$end" -le "$last" ] || end=$last
	rm -f "$W"/m.*.sbt "$W"/ops.*
	files=""
	k=$s
	while [ "$k" -le "$end" ]; do
		i=$(((k - 1) % ntraces + 1))
		eval "trace=\${$i}"
		if "$M" "$trace" "$W/m.$k.sbt" --seed "$k" >"$W/ops.$k" 2>&1; then
			files="$files $W/m.$k.sbt"
		else
			other=$((other + 1))
			echo "other: seed $k ($trace): sbt_mutate: $(cat "$W/ops.$k")"
		fi
		k=$((k + 1))
	done
	rc=0
	# shellcheck disable=SC2086
	timeout -s KILL "$BLIMIT" "$F" $files >"$W/batch.out" 2>"$W/batch.err" || rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$W/batch.err"; then
		count_exits "$W/batch.out"
	else
		echo "batch $s-$end: exit $rc; replaying its mutants one by one"
		for f in $files; do
			k=${f##*/m.}
			k=${k%.sbt}
			i=$(((k - 1) % ntraces + 1))
			eval "trace=\${$i}"
			classify_one "$f" "$trace --seed $k: $(tr '\n' ' ' <"$W/ops.$k")"
		done
	fi
	# so far, for a run stopped early
	echo "after seed $end: $ok replayed to the end, $stopped stopped with a message, $other other, $crash crashed," \
		"$report sanitizer reports, $hang hung ($(($(date +%s) - start)) s)"
	s=$((end + 1))
done
echo "mutants: $N over $ntraces trace(s) in $(($(date +%s) - start)) s: $ok replayed to the end, $stopped" \
	"stopped with a message (exit 1), $other other, $crash crashed, $report sanitizer reports, $hang hung"
[ "$crash" -eq 0 ] && [ "$report" -eq 0 ] && [ "$hang" -eq 0 ]
