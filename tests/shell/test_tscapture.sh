#!/bin/sh
# tscapture: runs the program with capture on, passes its exit status
# through, reports the traces written, and says clearly what went wrong.
set -u
BUILD=${BUILD:-build}
TOP=${TOP:-.}
TSC="$TOP/$BUILD/tscapture"
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
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT

# Capture to FILE: the program's output untouched, the file reported.
"$TSC" -o "$tmp/a.sbt" -- "$T" record 25 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "record: exit $rc: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "recorded 25" ] || fail "record: program output: $(cat "$tmp/out")"
size=$(stat -c %s "$tmp/a.sbt" 2>/dev/null || echo none)
grep -qx "tscapture: wrote $tmp/a.sbt ($size bytes, 25 records)" "$tmp/err" ||
	fail "record: report: $(cat "$tmp/err")"
"$T" check "$tmp/a.sbt" | grep -qx "records 25" || fail "record: trace does not hold 25 records"

# Without "--", and --stacks reaches the program.
"$TSC" -o "$tmp/b.sbt" --stacks all "$T" record 4 >/dev/null 2>"$tmp/err" || fail "no --: exit $?"
"$T" check "$tmp/b.sbt" >"$tmp/check.out"
grep -qx "type 64 count 4 stacks 4" "$tmp/check.out" || fail "--stacks all not applied: $(cat "$tmp/check.out")"

# Default file name in the current directory: PROGRAM_YYYYMMDDTHHMMSS_PID.sbt,
# said once at the start and in the report.
mkdir "$tmp/dflt"
(cd "$tmp/dflt" && "$TSC" -- "$T" record 2 >/dev/null 2>"$tmp/err") || fail "default name: exit $?"
dname=$(cd "$tmp/dflt" && ls)
echo "$dname" | grep -Eqx 'cap_tool_[0-9]{8}T[0-9]{6}_[0-9]+\.sbt' ||
	fail "default name: the folder holds '$dname'"
grep -qx "tscapture: recording to $dname" "$tmp/err" || fail "default name: no 'recording to' line: $(cat "$tmp/err")"
grep -q "tscapture: wrote $dname (" "$tmp/err" || fail "default name: report: $(cat "$tmp/err")"

# Exit status passed through; death by signal -> 128+N with a message.
"$TSC" -o "$tmp/c.sbt" -- "$T" exit 3 7 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 7 ] || fail "exit 7: tscapture exit $rc"
grep -q "3 records" "$tmp/err" || fail "exit 7: report: $(cat "$tmp/err")"
"$TSC" -o "$tmp/d.sbt" -- "$T" abort 5 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 134 ] || fail "abort: tscapture exit $rc, expected 134"
grep -q "killed by signal 6" "$tmp/err" || fail "abort: no signal message: $(cat "$tmp/err")"
grep -q "wrote $tmp/d.sbt (.* 5 records" "$tmp/err" || fail "abort: report: $(cat "$tmp/err")"

# A program that records nothing.
"$TSC" -o "$tmp/e.sbt" -- "$T" none >/dev/null 2>"$tmp/err" || fail "none: exit $?"
grep -qx "tscapture: no trace written (the program made no recorded calls)" "$tmp/err" ||
	fail "none: message: $(cat "$tmp/err")"
[ -e "$tmp/e.sbt" ] && fail "none: a file was written"

# A program that forks: FILE for the program, <stem>-<pid>.sbt for its child.
"$TSC" -o "$tmp/f.sbt" -- "$T" fork >"$tmp/out" 2>"$tmp/err" || fail "fork: exit $?"
child=$(sed -n 's/^child //p' "$tmp/out")
grep -q "wrote $tmp/f.sbt (.* 5 records)" "$tmp/err" || fail "fork: parent report: $(cat "$tmp/err")"
grep -q "wrote $tmp/f-$child.sbt (.* 5 records)" "$tmp/err" || fail "fork: child report: $(cat "$tmp/err")"

# The fork case again and again: a child must never inherit the writer
# thread inside the allocator (it then waited for ever under ASan) nor
# report a leak.  200 rounds under a sanitizer build (make asan), 20 here.
case "$BUILD" in *asan* | *tsan* | *ubsan*) rounds=200 ;; *) rounds=20 ;; esac
i=0
while [ $i -lt $rounds ]; do
	rm -f "$tmp"/fr*.sbt
	timeout 60 "$TSC" -o "$tmp/fr.sbt" -- "$T" fork >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ "$(grep -c ' 5 records)' "$tmp/err")" -ne 2 ]; then
		fail "fork round $i of $rounds: exit $rc (124: hung): $(cat "$tmp/err")"
		break
	fi
	i=$((i + 1))
done

# Errors: a program that does not exist, an unknown flag, nothing to run.
"$TSC" -o "$tmp/g.sbt" -- "$tmp/no-such-program" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 127 ] || fail "missing program: exit $rc"
grep -qx "tscapture: cannot run '$tmp/no-such-program': No such file or directory" "$tmp/err" ||
	fail "missing program: message: $(cat "$tmp/err")"
"$TSC" --bogus -- "$T" record 1 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "unknown flag: exit $rc"
grep -q "unknown option '--bogus'" "$tmp/err" || fail "unknown flag: message: $(cat "$tmp/err")"
grep -qx "try 'tscapture --help'" "$tmp/err" || fail "unknown flag: no pointer to --help"
[ "$(wc -l <"$tmp/err")" -eq 2 ] || fail "unknown flag: more than the message: $(cat "$tmp/err")"
"$TSC" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "no program: exit not 2"
"$TSC" --stacks sometimes -- "$T" record 1 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "bad --stacks: exit not 2"
grep -q "'sometimes'" "$tmp/err" || fail "bad --stacks: message: $(cat "$tmp/err")"
"$TSC" --help >"$tmp/out" 2>&1 || fail "--help: exit $?"
grep -q "^usage: tscapture" "$tmp/out" || fail "--help: no usage"
[ "$(wc -l <"$tmp/out")" -le 24 ] || fail "--help does not fit a screen"

[ $fails -eq 0 ] && echo ok
exit $fails
