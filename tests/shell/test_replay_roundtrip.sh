#!/bin/sh
# Capture testapi_demo -> replay with tsreplay_test -> every checkpoint
# matches, every captured API record is executed, and the counts in the
# --json summary equal the capture's own log of what it recorded.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
DEMO="$BUILD/tests/programs/testapi_demo"
REPLAY="$BUILD/tests/programs/tsreplay_test"
# capture NAME [env...] -- runs the demo (3 iterations of 1024 bytes) into
# $T/NAME.sbt, its capture log in $T/NAME.cap.
capture() {
	name=$1
	shift
	env "$@" TRACESMITH_OUTPUT="$T/$name.sbt" TESTAPI_DOUBLE_CAPTURE_LOG="$T/$name.cap" \
		"$DEMO" 3 1024 >"$T/$name.out" || fail "capture $name"
	[ -s "$T/$name.sbt" ] || fail "capture $name wrote no trace"
}

check_full_replay() {
	name=$1
	api=$(grep -c ' testapi\.' "$T/$name.cap")
	cps=$(grep -c ' checkpoint$' "$T/$name.cap")
	[ "$cps" -gt 0 ] || fail "$name: the capture recorded no checkpoint"
	rc=0
	TESTAPI_DOUBLE_REPLAY_LOG="$T/$name.rlog" "$REPLAY" --json "$T/$name.sbt" \
		>"$T/$name.json" 2>"$T/$name.err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/$name.err" >&2; fail "$name: replay exit $rc, expected 0"; }
	[ "$(json_field "$T/$name.json" records_executed)" = "$api" ] ||
		fail "$name: records_executed is not $api: $(cat "$T/$name.json")"
	[ "$(json_field "$T/$name.json" checkpoints)" = "$cps" ] ||
		fail "$name: checkpoints is not $cps: $(cat "$T/$name.json")"
	[ "$(json_field "$T/$name.json" matched)" = "$cps" ] || fail "$name: not all matched"
	[ "$(json_field "$T/$name.json" mismatched)" = 0 ] || fail "$name: mismatches reported"
	grep -q '"result":"match"' "$T/$name.json" || fail "$name: result is not match"
	# The backend saw exactly the captured API records, in order.
	grep ' testapi\.' "$T/$name.cap" | awk '{print $1, $2}' >"$T/$name.want"
	awk '$3 != "keyframe" {print $2, $3}' "$T/$name.rlog" >"$T/$name.got"
	cmp -s "$T/$name.want" "$T/$name.got" || {
		diff "$T/$name.want" "$T/$name.got" | head >&2
		fail "$name: the backend's records differ from the capture's"
	}
	# A full replay restores nothing: snapshots met mid-replay are skipped.
	if grep -q ' restore$' "$T/$name.rlog"; then fail "$name: a full replay restored a keyframe"; fi
}

capture plain TRACESMITH_SNAPSHOT=none
check_full_replay plain
# Keyframes every 2 kernels: their snapshot records must not disturb a full replay.
capture keyed TRACESMITH_SNAPSHOT=2
grep -q ' testapi\.snapshot$' "$T/keyed.cap" || fail "keyed capture wrote no snapshot"
check_full_replay keyed

# The text summary says the same, on stdout; nothing on stderr when piped.
"$REPLAY" "$T/plain.sbt" >"$T/text.out" 2>"$T/text.err" || fail "text replay failed"
cps=$(grep -c ' checkpoint$' "$T/plain.cap")
grep -q "checkpoints: $cps compared, $cps matched, 0 differ" "$T/text.out" ||
	fail "summary lacks the checkpoint count: $(cat "$T/text.out")"
[ ! -s "$T/text.err" ] || fail "stderr not empty on a clean replay: $(cat "$T/text.err")"
# --quiet prints nothing at all.
"$REPLAY" --quiet "$T/plain.sbt" >"$T/q.out" 2>&1 || fail "quiet replay failed"
[ ! -s "$T/q.out" ] || fail "--quiet printed: $(cat "$T/q.out")"
echo "ok"
