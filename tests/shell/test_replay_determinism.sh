#!/bin/sh
# --check-determinism: exit 0 on a deterministic replay that matches the
# capture; 4 when runs differ (planted noise), naming the first checkpoint
# where they part and the runs; 3 when every run agrees but all differ from
# the capture (a planted divergence), naming checkpoint seq, call seq and
# type, object and offset.  Plain replay of the divergence exits 3 too.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
DEMO="$BUILD/tests/programs/testapi_demo"
REPLAY="$BUILD/tests/programs/tsreplay_test"
TRACESMITH_OUTPUT="$T/d.sbt" TESTAPI_DOUBLE_CAPTURE_LOG="$T/d.cap" "$DEMO" 3 1024 >/dev/null ||
	fail "capture"

# Deterministic: all runs agree and match.
expect_rc 0 clean "$REPLAY" --check-determinism "$T/d.sbt"
has clean out "3 runs"
has clean out "runs agree with each other at every checkpoint"
expect_rc 0 clean5 "$REPLAY" --check-determinism --runs 5 --json "$T/d.sbt"
has clean5 out '"runs_done":5'
has clean5 out '"result":"match"'

# The first checkpoint after the first mix: there runs part (noise) or the
# replay leaves the capture (corruption).  Its call is the read before it.
MIX1=$(awk '$2 == "testapi.mix" {print $1; exit}' "$T/d.cap")
MIX2=$(awk '$2 == "testapi.mix" {n++; if (n == 2) {print $1; exit}}' "$T/d.cap")
CP1=$(awk -v m="$MIX1" '$2 == "checkpoint" && $1 > m {print $1; exit}' "$T/d.cap")
CP2=$(awk -v m="$MIX2" '$2 == "checkpoint" && $1 > m {print $1; exit}' "$T/d.cap")
READ2=$(awk -v c="$CP2" '$2 == "testapi.read" && $1 < c {r = $1} END {print r}' "$T/d.cap")
[ -n "$CP1" ] && [ -n "$CP2" ] && [ -n "$READ2" ] || fail "demo trace lacks mixes or reads"

# Noise: every run adds its own number after each mix -> runs differ.
expect_rc 4 noise env TESTAPI_DOUBLE_NOISE=1 "$REPLAY" --check-determinism --runs 3 "$T/d.sbt"
has noise err "runs differ: run 1 and run 2 part first at checkpoint seq $CP1"
has noise err "run 1: 0x"
has noise err "run 3: 0x"
has noise err "offset:   0 (first differing block"
has noise out "runs differ from each other"
expect_rc 4 noisej env TESTAPI_DOUBLE_NOISE=1 "$REPLAY" --check-determinism --json "$T/d.sbt"
has noisej out "\"runs_part\":{\"checkpoint_seq\":$CP1,"
has noisej out '"result":"nondeterministic"'

# Planted divergence: byte 100 of the second mix's output flipped in every
# run -> runs agree, all differ from the capture at the checkpoint after it.
CORRUPT="$MIX2:100"
expect_rc 3 diverge env TESTAPI_DOUBLE_CORRUPT="$CORRUPT" "$REPLAY" --check-determinism "$T/d.sbt"
has diverge err "the replay differs from the capture at checkpoint seq $CP2"
has diverge err "call:     seq $READ2 testapi.read"
has diverge err "object:   3, checked range [0, 1024)"
has diverge err "offset:   64 (first differing block: 64 bytes)"
has diverge out "runs agree with each other at every checkpoint"
# The bytes shown are the replay's bytes at offset 64: byte 100 is the 37th.
expect_rc 3 divergej env TESTAPI_DOUBLE_CORRUPT="$CORRUPT" "$REPLAY" --json "$T/d.sbt"
has divergej out "\"first_mismatch\":{\"checkpoint_seq\":$CP2,\"call_seq\":$READ2,\"call\":\"testapi.read\",\"object\":3,\"range_offset\":0,\"range_length\":1024,\"offset\":64,"
has divergej out '"result":"mismatch"'
# Plain replay, text: the same report, and the capture's host stack of the call.
expect_rc 3 plain env TESTAPI_DOUBLE_CORRUPT="$CORRUPT" "$REPLAY" "$T/d.sbt"
has plain err "checkpoint seq $CP2"
has plain err "host stack of the call at capture:"
has plain err "testapi_read"
# Noise and divergence together: nondeterminism wins (4).
expect_rc 4 both env TESTAPI_DOUBLE_NOISE=1 TESTAPI_DOUBLE_CORRUPT="$CORRUPT" "$REPLAY" \
	--check-determinism "$T/d.sbt"
echo "ok"
