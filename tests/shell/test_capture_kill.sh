#!/bin/sh
# A program that records without end is SIGKILLed: no exit handler runs, so
# the trace must be readable as the periodic flush (TRACESMITH_FLUSH_MS) left
# it - records from seq 1 with no gap, at most a torn tail dropped.
set -u
BUILD=${BUILD:-build}
TOP=${TOP:-.}
L="$TOP/$BUILD/tests/programs/cap_writer_loop"
T="$TOP/$BUILD/tests/programs/cap_tool"
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG

f="$tmp/loop.sbt"
TRACESMITH_OUTPUT="$f" TRACESMITH_FLUSH_MS=200 "$L" 2>"$tmp/err" &
pid=$!
# Wait (up to 30 s) until periodic flushes have grown the file past 64 KiB.
i=0
while [ $i -lt 300 ]; do
	size=$(stat -c %s "$f" 2>/dev/null || echo 0)
	[ "$size" -gt 65536 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
[ "$size" -gt 65536 ] || fail "trace did not grow past 64 KiB (size $size)"
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=
[ -s "$tmp/err" ] && fail "the program complained: $(cat "$tmp/err")"

if "$T" check "$f" >"$tmp/check.out" 2>&1; then
	grep -qx "contiguous 1" "$tmp/check.out" || fail "records not contiguous from seq 1"
	grep -qx "counter_ok 1" "$tmp/check.out" || fail "payload counters out of order"
	grep -qx "has_index 0" "$tmp/check.out" || fail "a killed program cannot have written an index"
	n=$(sed -n 's/^records //p' "$tmp/check.out")
	[ "${n:-0}" -gt 0 ] || fail "no records"
	msg=$(sed -n 's/^message //p' "$tmp/check.out")
	if [ -n "$msg" ]; then
		echo "$msg" | grep -qi "tail" || fail "unexpected reader message: $msg"
	fi
	echo "records read after SIGKILL: $n; reader message: ${msg:-none}"
else
	fail "trace unreadable after SIGKILL: $(cat "$tmp/check.out")"
fi

# tsinfo (the serializer's tool) must accept it too, once it exists.
if [ -x "$TOP/$BUILD/tsinfo" ]; then
	"$TOP/$BUILD/tsinfo" "$f" >"$tmp/info.out" 2>&1 || fail "tsinfo exit $?: $(tail -3 "$tmp/info.out")"
fi

[ $fails -eq 0 ] && echo ok
exit $fails
