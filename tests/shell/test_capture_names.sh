#!/bin/sh
# Where traces go when nobody names them, and two processes at once:
#   - with TRACESMITH_OUTPUT unset, each process writes
#     PROGRAM_YYYYMMDDTHHMMSS_PID.sbt in its folder and says so in one line
#     ("tracesmith: recording to ..."); two programs recording at once
#     leave two complete traces;
#   - two processes given the same TRACESMITH_OUTPUT at once: the second
#     finds the first's trace locked, never truncates it, warns once and
#     writes <stem>-<pid>.sbt; both traces are complete;
#   - tscapture -o naming a trace another live process is writing refuses
#     with exit 2 before running anything, and leaves that trace alone.
. "$TOP/tests/support/shell.sh"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER
TOOL="$TOP/$BUILD/tests/programs/cap_tool"
TSC="$TOP/$BUILD/tscapture"

# wait_file PATH: until PATH exists (10 s at most).
wait_file() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 1000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	[ -e "$1" ] || fail "$1 did not appear"
}

# ---- default names, two at once --------------------------------------------------------
mkdir "$T/d"
(cd "$T/d" && "$TOOL" hold 5 "$T/go1" >"$T/a.out" 2>"$T/a.err") &
pa=$!
(cd "$T/d" && "$TOOL" hold 7 "$T/go1" >"$T/b.out" 2>"$T/b.err") &
pb=$!
i=0
while [ "$(ls "$T/d" | wc -l)" -lt 2 ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
touch "$T/go1"
wait $pa || fail "first program: exit $?"
wait $pb || fail "second program: exit $?"
n=$(ls "$T/d" | grep -Ec '^cap_tool_[0-9]{8}T[0-9]{6}_[0-9]+\.sbt$')
[ "$n" -eq 2 ] || fail "two programs at once: the folder holds $(ls "$T/d")"
for w in a b; do
	[ "$(grep -c 'recording to' "$T/$w.err")" -eq 1 ] || fail "$w: not one 'recording to' line: $(cat "$T/$w.err")"
	f=$(sed -n 's/^tracesmith: recording to //p' "$T/$w.err")
	[ -f "$T/d/$f" ] || fail "$w: said '$f', which is not in the folder ($(ls "$T/d"))"
done
fa=$(sed -n 's/^tracesmith: recording to //p' "$T/a.err")
fb=$(sed -n 's/^tracesmith: recording to //p' "$T/b.err")
[ "$fa" != "$fb" ] || fail "both programs said they record to $fa"
"$TOOL" check "$T/d/$fa" | grep -qx "records 5" || fail "first trace: $("$TOOL" check "$T/d/$fa")"
"$TOOL" check "$T/d/$fb" | grep -qx "records 7" || fail "second trace: $("$TOOL" check "$T/d/$fb")"

# ---- one name given to two processes at once ---------------------------------------------
TRACESMITH_OUTPUT="$T/same.sbt" "$TOOL" hold 5 "$T/go2" >"$T/c.out" 2>"$T/c.err" &
pc=$!
wait_file "$T/same.sbt"
TRACESMITH_OUTPUT="$T/same.sbt" "$TOOL" hold 7 "$T/go2" >"$T/e.out" 2>"$T/e.err" &
pe=$!
wait_file "$T/same-$pe.sbt"

# tscapture -o naming the trace being written: refused, nothing run.
expect_rc 2 busy "$TSC" -o "$T/same.sbt" -- "$TOOL" record 3
has busy err "tscapture: '$T/same.sbt' is being written by another process; choose another -o FILE"
! grep -q recorded "$T/busy.out" || fail "busy: the program ran"

touch "$T/go2"
wait $pc || fail "first writer: exit $?"
wait $pe || fail "second writer: exit $?"
! grep -q 'recording to\|warning' "$T/c.err" || fail "first writer: $(cat "$T/c.err")"
has e err "tracesmith: warning: trace '$T/same.sbt' is being written by another process; recording to '$T/same-$pe.sbt' instead"
"$TOOL" check "$T/same.sbt" | grep -qx "records 5" || fail "same.sbt: $("$TOOL" check "$T/same.sbt")"
"$TOOL" check "$T/same-$pe.sbt" | grep -qx "records 7" || fail "same-$pe.sbt: $("$TOOL" check "$T/same-$pe.sbt")"
echo "ok"
