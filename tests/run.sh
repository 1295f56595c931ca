#!/bin/sh
# Runs the whole suite: every unit test binary in $BUILD/tests and every
# tests/shell/test_*.sh, each with a time limit and its output kept in
# $BUILD/test-logs.  A test that exits 77 could not run here (a missing
# toolkit, say): it is reported as skipped with its reason, never as passed.
# The last line is "N passed, N failed, N skipped".
BUILD=${BUILD:-build}
export BUILD
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
LOGS="$BUILD/test-logs"
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
rm -rf "$LOGS"
# Sanitizer builds (make asan) preload our interposer ahead of the ASan
# runtime in programs run under tscapture; ASan would refuse to start.
ASAN_OPTIONS="verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS
# make tsan: races inside libraries we do not build (lavapipe, the
# validation layer) are left out; the file says which and why.
TSAN_OPTIONS="suppressions=$TOP/tests/support/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export TSAN_OPTIONS
mkdir -p "$LOGS"
pass=0
fail=0
skip=0
failed=""

# Traces in the source tree's top folder: a test that leaves one there (a
# tool run under our layer with no TRACESMITH_OUTPUT) fails, and the file
# is removed.
stray_traces() {
	(cd "$TOP" && ls -1 -- *.sbt 2>/dev/null) | sort
}

run_one() {
	name=$1
	shift
	start=$(date +%s)
	before=$(stray_traces)
	if timeout "$TEST_TIMEOUT" "$@" >"$LOGS/$name.log" 2>&1 &&
		left_behind "$name" "$before"; then
		pass=$((pass + 1))
		echo "PASS $name ($(($(date +%s) - start))s)"
	else
		rc=$?
		if [ "$rc" -eq 77 ]; then
			skip=$((skip + 1))
			echo "SKIP $name: $(tail -n 1 "$LOGS/$name.log")"
			return
		fi
		fail=$((fail + 1))
		failed="$failed $name"
		echo "FAIL $name (exit $rc, $(($(date +%s) - start))s); last lines of $LOGS/$name.log:"
		tail -n 20 "$LOGS/$name.log" | sed 's/^/    /'
	fi
}

# left_behind NAME BEFORE: succeeds when test NAME wrote no trace into $TOP.
left_behind() {
	new=$(printf '%s\n' "$(stray_traces)" | grep -vxF -e "$2" -e '' || true)
	[ -z "$new" ] && return 0
	for f in $new; do
		echo "$1 left a trace in the source tree: $TOP/$f" >>"$LOGS/$1.log"
		rm -f -- "$TOP/$f"
	done
	return 1
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
if [ -x "$BUILD/tests/fuzz_sbt_reader_replay" ]; then
	run_one fuzz_corpus "$BUILD/tests/fuzz_sbt_reader_replay" "$TOP"/tests/fuzz/corpus/*
fi
if [ -x "$BUILD/tests/fuzz_cm_codec_replay" ]; then
	run_one fuzz_cm_corpus "$BUILD/tests/fuzz_cm_codec_replay" "$TOP"/tests/fuzz/corpus_cm/*
fi
for t in "$TOP"/tests/shell/test_*.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$t" .sh)" sh "$t"
done

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
