#!/bin/sh
# tsreplay's failures: usage errors exit 2 with one line and "try
# 'tsreplay --help'" on stderr; a
# missing, non-SBT, truncated or damaged trace exits 1 with the reader's
# message (truncated and damaged ones after replaying what precedes the
# damage); a trace whose API has no backend (real tsreplay) is refused.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
DEMO="$BUILD/tests/programs/testapi_demo"
REPLAY="$BUILD/tests/programs/tsreplay_test"
TRACESMITH_OUTPUT="$T/d.sbt" "$DEMO" 2 256 >/dev/null || fail "capture"

# --- usage -------------------------------------------------------------------
expect_rc 0 help "$REPLAY" --help
has help out "usage: tsreplay [options] TRACE"
has help out "4  runs differ from each other"
has help out "testapi-double (api testapi)"
[ "$(wc -l <"$T/help.out")" -le 30 ] || fail "--help is longer than a screen"
expect_rc 2 unknown "$REPLAY" --frobnicate "$T/d.sbt"
has unknown err "tsreplay: unknown option '--frobnicate'"
has unknown err "try 'tsreplay --help'"
[ "$(wc -l <"$T/unknown.err")" -eq 2 ] || fail "usage error printed more than two lines"
[ ! -s "$T/unknown.out" ] || fail "usage error wrote to stdout"
expect_rc 2 notrace "$REPLAY"
has notrace err "no trace given"
expect_rc 2 twotraces "$REPLAY" "$T/d.sbt" "$T/d.sbt"
has twotraces err "more than one trace"
expect_rc 2 runsonly "$REPLAY" --runs 3 "$T/d.sbt"
has runsonly err "--runs needs --check-determinism"
expect_rc 2 runsbad "$REPLAY" --check-determinism --runs 1 "$T/d.sbt"
has runsbad err "--runs '1'"
expect_rc 2 rangemissing "$REPLAY" "$T/d.sbt" --range
has rangemissing err "--range needs a value"
# getopt_long: an unambiguous start stands for the option, an ambiguous one
# is refused, options may follow "--"'s trace only as traces
expect_rc 2 ambiguous "$REPLAY" --r 1: "$T/d.sbt"
has ambiguous err "tsreplay: option '--r' is ambiguous: give more of its name"
expect_rc 0 abbrev "$REPLAY" --js --ran=1: "$T/d.sbt"
has abbrev out '"result":"match"'
expect_rc 2 flagvalue "$REPLAY" --json=yes "$T/d.sbt"
has flagvalue err "tsreplay: --json takes no value"
expect_rc 2 dashdash "$REPLAY" -- "$T/d.sbt" --json
has dashdash err "more than one trace given ('--json')"

# --- unreadable traces ---------------------------------------------------------
expect_rc 1 missing "$REPLAY" "$T/nope.sbt"
has missing err "tsreplay: $T/nope.sbt: No such file or directory"
printf 'this is not a trace, just some text that is long enough\n' >"$T/text.sbt"
expect_rc 1 notsbt "$REPLAY" "$T/text.sbt"
has notsbt err "$T/text.sbt: not an SBT trace"
expect_rc 1 notsbtjson "$REPLAY" --json "$T/text.sbt"
has notsbtjson out '"result":"error","exit":1,"error":"'

# --- no backend for the trace's API (the real tsreplay has Vulkan's, and -----
# --- CUDA's where the toolkit headers were found, as for the libcuda double, -
# --- HIP's where the HIP headers were, as for the libamdhip64 double) --------
[ -x "$BUILD/tsreplay" ] || fail "$BUILD/tsreplay is not built"
backends=vulkan
[ -e "$BUILD/tests/doubles/cuda/libcuda.so.1" ] && backends="vulkan, cuda"
[ -e "$BUILD/tests/doubles/hip/libamdhip64.so.5" ] && backends="$backends, hip"
expect_rc 1 nobackend "$BUILD/tsreplay" "$T/d.sbt"
has nobackend err "tsreplay: trace API 'testapi' has no backend in this build (backends: $backends)"

# --- damage: a trace big enough for several record chunks --------------------
TRACESMITH_OUTPUT="$T/big.sbt" TESTAPI_DOUBLE_CAPTURE_LOG="$T/big.cap" "$DEMO" 3000 128 >/dev/null ||
	fail "big capture"
size=$(wc -c <"$T/big.sbt")
# The backend must have executed a prefix of the captured API records.
check_prefix() { # NAME
	awk '$3 != "keyframe" {print $2}' "$T/$1.rlog" >"$T/$1.got"
	n=$(wc -l <"$T/$1.got" | tr -d ' ')
	[ "$n" -gt 0 ] || fail "$1: nothing replayed before the damage"
	total=$(grep -c ' testapi\.' "$T/big.cap")
	[ "$n" -lt "$total" ] || fail "$1: all $total records replayed despite the damage"
	grep ' testapi\.' "$T/big.cap" | head -n "$n" | awk '{print $1}' >"$T/$1.want"
	cmp -s "$T/$1.want" "$T/$1.got" || fail "$1: replayed records are not a prefix of the capture"
}
head -c $((size / 2)) "$T/big.sbt" >"$T/cut.sbt"
expect_rc 1 cut env TESTAPI_DOUBLE_REPLAY_LOG="$T/cut.rlog" "$REPLAY" "$T/cut.sbt"
has cut err "$T/cut.sbt: the trace is truncated at offset "
has cut err "replayed up to seq "
check_prefix cut
# The torn tail starts inside the file we cut.
off=$(sed -n 's/.*truncated at offset \([0-9]*\).*/\1/p' "$T/cut.err" | head -n 1)
[ -n "$off" ] && [ "$off" -le $((size / 2)) ] || fail "cut: offset '$off' not within the file"
# A header alone: no record survives.
head -c 40 "$T/big.sbt" >"$T/tiny.sbt"
expect_rc 1 tiny "$REPLAY" "$T/tiny.sbt"
grep -qE "truncated|no records" "$T/tiny.err" || fail "tiny: $(cat "$T/tiny.err")"
# One flipped byte in the middle of the file: replay up to it, then stop.
python3 - "$T/big.sbt" "$T/flip.sbt" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[len(d) // 2] ^= 0xff
open(sys.argv[2], 'wb').write(d)
PY
expect_rc 1 flip env TESTAPI_DOUBLE_REPLAY_LOG="$T/flip.rlog" "$REPLAY" "$T/flip.sbt"
has flip err "corrupt chunk at offset "
check_prefix flip
echo "ok"
