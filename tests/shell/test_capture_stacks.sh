#!/bin/sh
# Host call stacks by policy: TRACESMITH_STACKS=none gives no record a stack,
# work (the default) only the CAP_REC_WORK records, all every record; a
# stack's symbols name the function that made the call, with its source
# line where the object carries its own line table, without one where its
# debug information is in a separate file.
set -u
BUILD=${BUILD:-build}
TOP=${TOP:-.}
T="$TOP/$BUILD/tests/programs/cap_tool"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG

# run MODE: records with the policy MODE ("" = unset) into $tmp/s.sbt and
# leaves the checker's output in $tmp/check.out.
run() {
	rm -f "$tmp/s.sbt"
	if [ -n "$1" ]; then
		TRACESMITH_STACKS=$1 TRACESMITH_OUTPUT="$tmp/s.sbt" "$T" stacks >/dev/null || fail "$1: exit $?"
	else
		TRACESMITH_OUTPUT="$tmp/s.sbt" "$T" stacks >/dev/null || fail "default: exit $?"
	fi
	"$T" check "$tmp/s.sbt" >"$tmp/check.out" || fail "${1:-default}: check failed: $(cat "$tmp/check.out")"
}
has() {
	grep -qx "$2" "$tmp/check.out" || fail "$1: no line '$2' in: $(tr '\n' '|' <"$tmp/check.out")"
}
sym_has() { # MODE TYPE FUNCTION
	grep "^symbols $2 " "$tmp/check.out" | grep -q "!$3+0x" ||
		fail "$1: stack of type $2 does not name $3: $(grep "^symbols $2" "$tmp/check.out")"
}

run none
has none "type 64 count 3 stacks 0"
has none "type 65 count 3 stacks 0"
grep -q "^symbols" "$tmp/check.out" && fail "none: symbols printed for a stack"

for m in work ""; do
	run "$m"
	has "${m:-default}" "type 64 count 3 stacks 3"
	has "${m:-default}" "type 65 count 3 stacks 0"
	sym_has "${m:-default}" 64 cap_tool_work_site
	sym_has "${m:-default}" 64 main
	# the runtime's own frames are cut off: the first frame is the caller
	first=$(grep "^symbols 64 " "$tmp/check.out" | cut -d' ' -f3)
	case $first in *'!cap_tool_work_site+0x'*) ;; *) fail "${m:-default}: first frame is $first" ;; esac
	# with the source line from the debug information (cap_symbols.c)
	line=$(grep -n '^__attribute__((noinline)) void cap_tool_work_site' "$TOP/tests/programs/cap_tool.c" | cut -d: -f1)
	grep "^symbols 64 " "$tmp/check.out" | grep -Eq "cap_tool!cap_tool_work_site\+0x[0-9a-f]+ \(tests/programs/cap_tool\.c:($((line + 1))|$((line + 2))|$((line + 3))|$((line + 4))|$((line + 5))|$((line + 6)))\)" ||
		fail "${m:-default}: no source line in the first frame: $(grep '^symbols 64' "$tmp/check.out")"
done
# three records from one call site share one stack
has work "meta capture.stacks_unique 1"

# An object whose line table is in a separate debug file (as a
# distribution's -dbg package holds libc's) is named from its symbols, with
# no line: libdw would read and decompress all of that file's DWARF at the
# first address (cap_symbols.c, cap_sym_own_lines).  The same program with
# its debug information moved to cap_tool.debug beside it (found through
# its debuglink): the function named, no source line.
if command -v objcopy >/dev/null 2>&1; then
	mkdir "$tmp/split"
	objcopy --only-keep-debug "$T" "$tmp/split/cap_tool.debug"
	objcopy --strip-debug --add-gnu-debuglink="$tmp/split/cap_tool.debug" "$T" "$tmp/split/cap_tool"
	rm -f "$tmp/s.sbt"
	TRACESMITH_OUTPUT="$tmp/s.sbt" "$tmp/split/cap_tool" stacks >/dev/null || fail "split: exit $?"
	"$T" check "$tmp/s.sbt" >"$tmp/check.out" || fail "split: check failed: $(cat "$tmp/check.out")"
	sym_has split 64 cap_tool_work_site
	grep "^symbols 64 " "$tmp/check.out" | grep -q 'cap_tool!cap_tool_work_site+0x[0-9a-f]* (' &&
		fail "split: a source line from the separate debug file: $(grep '^symbols 64' "$tmp/check.out")"
	# Stripped of every symbol but the dynamic ones, with the debug file
	# in .debug/ beside it: the static cap_tool_stacks is named from there.
	mkdir "$tmp/split/all" "$tmp/split/all/.debug"
	cp "$tmp/split/cap_tool.debug" "$tmp/split/all/.debug/"
	objcopy --strip-all --add-gnu-debuglink="$tmp/split/cap_tool.debug" "$T" "$tmp/split/all/cap_tool"
	rm -f "$tmp/s.sbt"
	TRACESMITH_OUTPUT="$tmp/s.sbt" "$tmp/split/all/cap_tool" stacks >/dev/null || fail "stripped: exit $?"
	"$T" check "$tmp/s.sbt" >"$tmp/check.out" || fail "stripped: check failed: $(cat "$tmp/check.out")"
	sym_has stripped 64 cap_tool_stacks
	# With no debug file anywhere, no debuginfod server is asked (its
	# client, started by the writer thread, raced the program's exit and
	# waits up to 90 s an object): DEBUGINFOD_VERBOSE would print each
	# query, and the client would make its cache folder.
	mkdir "$tmp/bare"
	objcopy --strip-all "$T" "$tmp/bare/cap_tool"
	rm -f "$tmp/s.sbt"
	DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_VERBOSE=1 DEBUGINFOD_CACHE_PATH="$tmp/bare/cache" \
		TRACESMITH_OUTPUT="$tmp/s.sbt" "$tmp/bare/cap_tool" stacks >"$tmp/bare.out" 2>&1 ||
		fail "bare: exit $?"
	"$T" check "$tmp/s.sbt" >"$tmp/check.out" || fail "bare: check failed: $(cat "$tmp/check.out")"
	sym_has bare 64 cap_tool_work_site
	! grep -q debuginfod "$tmp/bare.out" && [ ! -e "$tmp/bare/cache" ] ||
		fail "bare: a debuginfod server was asked: $(head -3 "$tmp/bare.out")"
else
	fail "objcopy (binutils) is not installed"
fi

run all
has all "type 64 count 3 stacks 3"
has all "type 65 count 3 stacks 3"
sym_has all 64 cap_tool_work_site
sym_has all 65 cap_tool_plain_site
has all "meta capture.stacks_unique 2"

[ $fails -eq 0 ] && echo ok
exit $fails
