#!/bin/sh
# --range A:B executes exactly the API records with A <= seq < B, fast-
# forwards those before A (without comparing their checkpoints), stops at
# B, and starts from the nearest keyframe when the trace has one.  The
# capture's own log of record seqs is the independent reference.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
DEMO="$BUILD/tests/programs/testapi_demo"
REPLAY="$BUILD/tests/programs/tsreplay_test"
capture() { # NAME SNAPSHOT KEYFRAMES(0|1)
	TESTAPI_DOUBLE_KEYFRAMES=$3 TRACESMITH_SNAPSHOT=$2 TRACESMITH_OUTPUT="$T/$1.sbt" TESTAPI_DOUBLE_CAPTURE_LOG="$T/$1.cap" \
		"$DEMO" 6 512 >/dev/null || fail "capture $1"
}

# replay_range NAME A B: A or B may be empty.
replay_range() {
	name=$1 a=$2 b=$3
	rc=0
	TESTAPI_DOUBLE_REPLAY_LOG="$T/r.log" "$REPLAY" --json --range "$a:$b" "$T/$name.sbt" \
		>"$T/r.json" 2>"$T/r.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/r.err" >&2; fail "$name $a:$b: exit $rc"; }
	lo=${a:-0}
	hi=${b:-999999999}
	# Expected: captured API records (keyframe markers aside) in [lo, hi).
	awk -v lo="$lo" -v hi="$hi" '$2 ~ /^testapi\./ && $1 >= lo && $1 < hi {print $1}' \
		"$T/$name.cap" >"$T/want.exec"
	awk -v lo="$lo" '$2 ~ /^testapi\./ && $1 < lo {print $1}' "$T/$name.cap" >"$T/want.before"
	awk -v lo="$lo" -v hi="$hi" '$2 == "checkpoint" && $1 >= lo && $1 < hi' "$T/$name.cap" |
		wc -l | tr -d ' ' >"$T/want.cps"
	# Got: what the backend was given in range (executed, or a skipped snapshot).
	awk -v lo="$lo" '$3 != "keyframe" && $2 >= lo && ($4 == "exec" || $4 == "skip" || $4 == "restore") {print $2}' \
		"$T/r.log" >"$T/got.exec"
	cmp -s "$T/want.exec" "$T/got.exec" || {
		diff "$T/want.exec" "$T/got.exec" | head >&2
		fail "$name $a:$b: executed records differ from the captured ones in range"
	}
	[ "$(json_field "$T/r.json" records_executed)" = "$(wc -l <"$T/want.exec" | tr -d ' ')" ] ||
		fail "$name $a:$b: records_executed wrong: $(cat "$T/r.json")"
	[ "$(json_field "$T/r.json" checkpoints)" = "$(cat "$T/want.cps")" ] ||
		fail "$name $a:$b: checkpoints wrong: $(cat "$T/r.json")"
	[ "$(json_field "$T/r.json" mismatched)" = 0 ] || fail "$name $a:$b: mismatches"
	if awk -v hi="$hi" '$2 >= hi {found=1} END {exit !found}' "$T/r.log"; then
		fail "$name $a:$b: a record at or after $hi reached the backend"
	fi
}

# --- no keyframe after the start: fast-forward from the beginning --------
capture plain none 0
# A = the 3rd testapi.mix, B = the 5th testapi.read.
A=$(awk '$2 == "testapi.mix" {n++; if (n == 3) print $1}' "$T/plain.cap")
B=$(awk '$2 == "testapi.read" {n++; if (n == 5) print $1}' "$T/plain.cap")
[ -n "$A" ] && [ -n "$B" ] || fail "demo trace too short"
# TESTAPI_DOUBLE_KEYFRAMES=0: not even the capture-start keyframe.
grep -q ' keyframe$' "$T/plain.cap" && fail "plain capture wrote a keyframe"
replay_range plain "$A" "$B"
before=$(wc -l <"$T/want.before" | tr -d ' ')
[ "$(json_field "$T/r.json" records_fast_forwarded)" = "$before" ] ||
	fail "fast-forward count is not $before: $(cat "$T/r.json")"
grep -q "fast-forwarded $before records before seq $A (no keyframe)" "$T/r.err" ||
	fail "no fast-forward note: $(cat "$T/r.err")"
awk -v lo="$A" '$2 < lo && $3 != "keyframe" && $4 != "ff" && $4 != "skip" {bad=1} END {exit bad}' "$T/r.log" ||
	fail "records before $A were not marked fast-forward"
replay_range plain "$A" ""
replay_range plain "" "$B"

# --- keyframes after every kernel: restore the nearest one at or before A --
capture keyed 1 1
A=$(awk '$2 == "testapi.read" {n++; if (n == 7) print $1}' "$T/keyed.cap")
B=$(awk '$2 == "testapi.read" {n++; if (n == 10) print $1}' "$T/keyed.cap")
K=$(awk -v a="$A" '$2 == "keyframe" && $1 <= a {k = $1} END {print k}' "$T/keyed.cap")
[ -n "$K" ] && [ "$K" -gt 1 ] || fail "no keyframe before $A"
replay_range keyed "$A" "$B"
grep -q "restored keyframe at seq $K" "$T/r.err" || fail "keyframe $K not used: $(cat "$T/r.err")"
grep -q "\"keyframe_seq\":$K" "$T/r.json" || fail "JSON lacks keyframe_seq $K"
# Nothing before the keyframe reached the backend; its snapshots restored state.
if awk -v k="$K" '$2 < k {found=1} END {exit !found}' "$T/r.log"; then
	fail "records before keyframe $K were executed"
fi
grep -q "^1 $K keyframe restore$" "$T/r.log" || fail "backend not told to restore at $K"
grep -q ' testapi.snapshot restore$' "$T/r.log" || fail "no snapshot restored"

# --- a range with no records is an error; bad syntax is a usage error ----
rc=0
"$REPLAY" --range 900000:900010 "$T/plain.sbt" >/dev/null 2>"$T/e.err" || rc=$?
[ "$rc" -eq 1 ] || fail "empty range: exit $rc, expected 1"
grep -q "range selects no records" "$T/e.err" || fail "empty range message: $(cat "$T/e.err")"
for bad in "10" "20:10" "a:b" "1:2:3" ":"; do
	rc=0
	"$REPLAY" --range "$bad" "$T/plain.sbt" >/dev/null 2>"$T/e.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "--range '$bad': exit $rc, expected 2"
	grep -q "^tsreplay: --range: range" "$T/e.err" || fail "--range '$bad' message: $(cat "$T/e.err")"
	grep -qx "try 'tsreplay --help'" "$T/e.err" || fail "--range '$bad': no pointer to --help"
done
echo "ok"
