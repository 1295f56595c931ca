#!/bin/sh
# The capture runtime's lifecycle, seen from outside the process: lazy start
# (no record, no file), exact FILE versus <stem>-<pid>.sbt, fork (also from
# an exit handler after the trace was finished at exit), a trace that
# cannot be written, fatal signals, TRACESMITH_DISABLE and bad variables.
set -u
BUILD=${BUILD:-build}
TOP=${TOP:-.}
T="$TOP/$BUILD/tests/programs/cap_tool"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# Sanitizer builds (make asan/tsan) run this too: the runtime starts its
# writer thread in a fork child of a threaded parent, which TSan refuses by
# default, and the SIGSEGV case needs the program's handlers, not the
# sanitizer's.  No effect on a normal build.
TSAN_OPTIONS="${TSAN_OPTIONS:-} die_after_fork=0 handle_segv=0"
ASAN_OPTIONS="${ASAN_OPTIONS:-} handle_segv=0"
export TSAN_OPTIONS ASAN_OPTIONS
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
# expect FILE "line" ...: each line must appear in `cap_tool check FILE`.
expect() {
	f=$1
	shift
	if ! "$T" check "$f" >"$tmp/check.out" 2>&1; then
		fail "cap_tool check $f failed: $(head -3 "$tmp/check.out")"
		return
	fi
	for want in "$@"; do
		grep -qx "$want" "$tmp/check.out" || fail "$f: no line '$want' in: $(tr '\n' '|' <"$tmp/check.out")"
	done
}
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG \
	TRACESMITH_MEMORY_MB TRACESMITH_FLUSH_MS TRACESMITH_SNAPSHOT

# 1. No recorded call: no file, even though types and meta were set.
TRACESMITH_OUTPUT="$tmp/none.sbt" "$T" none >"$tmp/out" 2>"$tmp/err" || fail "none: exit $?"
[ -e "$tmp/none.sbt" ] && fail "none: a trace was written for a process that recorded nothing"
[ -s "$tmp/err" ] && fail "none: unexpected stderr: $(cat "$tmp/err")"

# 2. Exact FILE when OWNER_PID is this process (sh -c execs, keeping $$).
TRACESMITH_OUTPUT="$tmp/own.sbt" sh -c 'TRACESMITH_OWNER_PID=$$ exec "$0" record 10' "$T" >/dev/null ||
	fail "own: exit $?"
[ -f "$tmp/own.sbt" ] || fail "own: $tmp/own.sbt not written"
expect "$tmp/own.sbt" "records 10" "contiguous 1" "has_index 1"

# 3. OWNER_PID names another process: <stem>-<pid>.sbt.
TRACESMITH_OUTPUT="$tmp/other.sbt" TRACESMITH_OWNER_PID=1 sh -c 'echo $$ >"$1"; exec "$0" record 7' "$T" "$tmp/pid" >/dev/null ||
	fail "other: exit $?"
pid=$(cat "$tmp/pid")
[ -e "$tmp/other.sbt" ] && fail "other: wrote the owner's file"
[ -f "$tmp/other-$pid.sbt" ] || fail "other: $tmp/other-$pid.sbt not written ($(ls "$tmp"))"
[ -f "$tmp/other-$pid.sbt" ] && expect "$tmp/other-$pid.sbt" "records 7" "meta pid $pid"
# ... and a name without .sbt gets the suffix added.
TRACESMITH_OUTPUT="$tmp/plain" TRACESMITH_OWNER_PID=1 sh -c 'echo $$ >"$1"; exec "$0" record 2' "$T" "$tmp/pid" >/dev/null
pid=$(cat "$tmp/pid")
[ -f "$tmp/plain-$pid.sbt" ] || fail "plain: $tmp/plain-$pid.sbt not written"

# 4. Fork: the child writes its own file with only its records; the parent's
# file holds only the parent's.
TRACESMITH_OUTPUT="$tmp/fork.sbt" "$T" fork >"$tmp/out" || fail "fork: exit $?"
child=$(sed -n 's/^child //p' "$tmp/out")
[ -n "$child" ] || fail "fork: no child pid printed"
expect "$tmp/fork.sbt" "records 5" "contiguous 1" "type 64 count 5 stacks 0"
grep -q "^type 65" "$tmp/check.out" && fail "fork: the child's records are in the parent's file"
if [ -f "$tmp/fork-$child.sbt" ]; then
	expect "$tmp/fork-$child.sbt" "records 5" "contiguous 1" "type 65 count 5 stacks 0" "meta pid $child"
	grep -q "^type 64" "$tmp/check.out" && fail "fork: the parent's records are in the child's file"
else
	fail "fork: $tmp/fork-$child.sbt not written ($(ls "$tmp"))"
fi
# A fork from an exit handler that runs after the trace was finished at
# exit: the child lets go of (and frees) what the writer left for the late
# records and exits cleanly; the parent's late records are in its file.
TRACESMITH_OUTPUT="$tmp/latefork.sbt" "$T" latefork 4 >"$tmp/out" 2>"$tmp/err" ||
	fail "latefork: exit $?: $(cat "$tmp/err")"
grep -q "^late child [0-9]" "$tmp/out" || fail "latefork: no child pid printed: $(cat "$tmp/out")"
expect "$tmp/latefork.sbt" "records 6" "contiguous 1" "type 64 count 4 stacks 0" "type 65 count 2 stacks 0"

# 5. Unwritable path: one message naming path and reason, the program goes
# on, its output intact, exit 0.
TRACESMITH_OUTPUT="$tmp/no/such/dir/x.sbt" "$T" record 50 >"$tmp/out" 2>"$tmp/err" ||
	fail "unwritable: program exit $?"
[ "$(cat "$tmp/out")" = "recorded 50" ] || fail "unwritable: program output changed: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "unwritable: expected one message, got: $(cat "$tmp/err")"
grep -q "$tmp/no/such/dir/x.sbt" "$tmp/err" || fail "unwritable: message does not name the path: $(cat "$tmp/err")"
grep -q "No such file or directory" "$tmp/err" || fail "unwritable: message does not say why: $(cat "$tmp/err")"
# A device that refuses writes (ENOSPC) once it is open.
if [ -w /dev/full ]; then
	TRACESMITH_OUTPUT=/dev/full "$T" record 50 >"$tmp/out" 2>"$tmp/err" || fail "/dev/full: program exit $?"
	[ "$(cat "$tmp/out")" = "recorded 50" ] || fail "/dev/full: output changed: $(cat "$tmp/out")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "/dev/full: expected one message, got: $(cat "$tmp/err")"
	grep -q "/dev/full" "$tmp/err" || fail "/dev/full: message does not name the path: $(cat "$tmp/err")"
fi

# A write that fails mid-run (file size limit, SIGXFSZ ignored so write(2)
# says EFBIG): one message, recording stops, the program finishes, and the
# part written stays readable (the torn tail dropped).
(
	trap '' XFSZ
	ulimit -f 1000 # 512 KB in dash, 1 MB in bash: under the 2.6 MB the run writes
	TRACESMITH_OUTPUT="$tmp/big.sbt" exec "$T" record 300000
) >"$tmp/out" 2>"$tmp/err" || fail "EFBIG: program exit $?"
[ "$(cat "$tmp/out")" = "recorded 300000" ] || fail "EFBIG: output changed: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "EFBIG: expected one message, got: $(cat "$tmp/err")"
grep -q "'$tmp/big.sbt'.*File too large; recording stopped" "$tmp/err" ||
	fail "EFBIG: message: $(cat "$tmp/err")"
expect "$tmp/big.sbt" "contiguous 1" "counter_ok 1" "end ok"
n=$(sed -n 's/^records //p' "$tmp/check.out")
[ "${n:-0}" -gt 0 ] && [ "${n:-0}" -lt 300000 ] || fail "EFBIG: $n records readable"

# 6. abort() after recording: the trace is readable and holds the records.
TRACESMITH_OUTPUT="$tmp/abort.sbt" "$T" abort 100 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 134 ] || fail "abort: exit $rc, expected 134 (SIGABRT passed on)"
expect "$tmp/abort.sbt" "records 100" "contiguous 1" "counter_ok 1"

# 7. SIGTERM, and a SIGSEGV, the same way.
TRACESMITH_OUTPUT="$tmp/term.sbt" "$T" signal 40 15 >/dev/null 2>&1
rc=$?
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc, expected 143"
expect "$tmp/term.sbt" "records 40" "contiguous 1"
TRACESMITH_OUTPUT="$tmp/segv.sbt" "$T" signal 30 11 >/dev/null 2>&1
rc=$?
[ $rc -eq 139 ] || fail "SIGSEGV: exit $rc, expected 139"
expect "$tmp/segv.sbt" "records 30" "contiguous 1"

# An application handler installed before capture started still runs after
# the runtime's flush (chained), and decides the exit status.
TRACESMITH_OUTPUT="$tmp/chain.sbt" "$T" chain 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 42 ] || fail "chain: exit $rc, expected 42 from the application's handler"
grep -qx "app handler ran" "$tmp/out" || fail "chain: the application's handler did not run: $(cat "$tmp/out")"
expect "$tmp/chain.sbt" "records 20" "contiguous 1"

# 8. Disabled: no file, no message, the program runs.
TRACESMITH_DISABLE=1 TRACESMITH_OUTPUT="$tmp/dis.sbt" "$T" record 5 >"$tmp/out" 2>"$tmp/err" || fail "disable: exit $?"
[ -e "$tmp/dis.sbt" ] && fail "disable: a trace was written"
[ -s "$tmp/err" ] && fail "disable: unexpected stderr: $(cat "$tmp/err")"
grep -q "not taken" "$tmp/out" "$tmp/err" && fail "disable: program saw an error"

# 9. Bad values: one warning each naming variable and value, defaults used.
TRACESMITH_OUTPUT="$tmp/bad.sbt" TRACESMITH_STACKS=sometimes TRACESMITH_MEMORY_MB=-3 \
	TRACESMITH_FLUSH_MS=soon TRACESMITH_SNAPSHOT=0 TRACESMITH_LOG=loud TRACESMITH_DISABLE=maybe \
	"$T" record 3 >/dev/null 2>"$tmp/err" || fail "bad values: exit $?"
for v in "TRACESMITH_STACKS='sometimes'" "TRACESMITH_MEMORY_MB='-3'" "TRACESMITH_FLUSH_MS='soon'" \
	"TRACESMITH_SNAPSHOT='0'" "TRACESMITH_LOG='loud'" "TRACESMITH_DISABLE='maybe'"; do
	[ "$(grep -c "$v" "$tmp/err")" -eq 1 ] || fail "bad values: want one warning with $v, got: $(cat "$tmp/err")"
done
[ "$(wc -l <"$tmp/err")" -eq 6 ] || fail "bad values: expected 6 lines, got: $(cat "$tmp/err")"
expect "$tmp/bad.sbt" "records 3" "meta capture.stacks work" "meta capture.memory_mb 256"
# Good values are taken.
TRACESMITH_OUTPUT="$tmp/good.sbt" TRACESMITH_STACKS=all TRACESMITH_MEMORY_MB=8 TRACESMITH_LOG=error \
	"$T" record 3 >/dev/null 2>"$tmp/err" || fail "good values: exit $?"
[ -s "$tmp/err" ] && fail "good values: unexpected stderr: $(cat "$tmp/err")"
expect "$tmp/good.sbt" "records 3" "type 64 count 3 stacks 3" "meta capture.stacks all" "meta capture.memory_mb 8"
# The memory bound's range ends at 16 GiB (a bare entry's seq is its low
# 32 bits, which the writer completes: docs/capture.md).
TRACESMITH_OUTPUT="$tmp/big.sbt" TRACESMITH_MEMORY_MB=16385 "$T" record 3 >/dev/null 2>"$tmp/err" ||
	fail "memory 16385: exit $?"
grep -q "TRACESMITH_MEMORY_MB='16385' is not a number of MiB in 1..16384; using 256" "$tmp/err" ||
	fail "memory 16385: want the range's warning, got: $(cat "$tmp/err")"
expect "$tmp/big.sbt" "records 3" "meta capture.memory_mb 256"
TRACESMITH_OUTPUT="$tmp/max.sbt" TRACESMITH_MEMORY_MB=16384 "$T" record 3 >/dev/null 2>"$tmp/err" ||
	fail "memory 16384: exit $?"
[ -s "$tmp/err" ] && fail "memory 16384: unexpected stderr: $(cat "$tmp/err")"
expect "$tmp/max.sbt" "records 3" "meta capture.memory_mb 16384"

[ $fails -eq 0 ] && echo ok
exit $fails
