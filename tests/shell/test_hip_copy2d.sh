#!/bin/sh
# Pitched copies and memsets and peer copies through HIP (docs/hip.md),
# with hip_copy2d (tests/hip/hip_copy2d.hip, no kernel):
# - on the libamdhip64 test double the program computes what the copies
#   and memsets make (rows through a host pitch of their own, an inner
#   rectangle zeroed, the padding a hipMemset2D filled, the peer copies
#   from device 0 to device 0), and the peer copy naming device 1 is
#   hipErrorInvalidDevice (101);
# - tscapture records hipMemset2D, hipMemcpy2D (host to device with its
#   rows packed as a blob, device to host checkpointed), hipMemset2DAsync,
#   hipMemcpy2DAsync (device to device; device to host checkpointed at the
#   stream's synchronization), hipMemcpyPeer and hipMemcpyPeerAsync (device
#   to device, destination and source devices), the failed peer copy with
#   its result; the output is unchanged;
# - tsreplay replays it with its three checkpoints equal: at the captured
#   addresses, moved (--hip-no-reserve), with --check-determinism (and
#   --per-command: the pitched and peer copies' destinations compared after
#   each), with --streams single;
# - dropping the hipMemset2DAsync, or the hipMemcpyPeerAsync, from the
#   trace makes the replay differ (exit 3): both are replayed;
# - the real runtime (Debian's, no AMD GPU): the program runs to its end,
#   tscapture records the calls with the runtime's errors, and tsreplay
#   ends with the one line naming the missing device (exit 1).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_copy2d" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
# (a sanitizer build's double needs its runtime first: test_hip_replay.sh)
SANRT=$(ldd "$DBL/libamdhip64.so.5" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}')
PRE=${SANRT:+env LD_PRELOAD=$SANRT}

# all_match NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# checkpoints compared, all matched.
all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}
# seq_of CALL [N]: the seq of the Nth (default 1st) record of CALL in the dump.
seq_of() {
	grep " hip\.$1 " "$T/dump.out" | sed -n "${2:-1}s/^seq=\([0-9]*\) .*/\1/p"
}

(
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
expect_rc 0 run $PRE "$H/hip_copy2d"
has run out "wide[1] 10.0 0.0 0.0 13.0 14.0 pad 0.0"
has run out "packed[13] 23.0 sum 274.0 raw[20] 0x7f raw[127] 0x7f"
has run out "hipMemcpyPeer device 1 101"
[ "$(grep -c ' 0$' "$T/run.out")" -eq "$(($(wc -l <"$T/run.out") - 3))" ] ||
	fail "a call other than the device-1 peer copy failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_copy2d"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
grep -q ' hip\.hipMemset2D .*size=128 pitch=32 width=32 height=4 elem_size=1 value=127' "$T/dump.out" ||
	fail "no hipMemset2D record: $(grep Memset "$T/dump.out")"
grep -q ' hip\.hipMemcpy2D .*size=80 width=20 height=4 blob=[0-9]* host=[0-9]* sub=1 dst_pitch=32 src_pitch=20' "$T/dump.out" ||
	fail "no host-to-device hipMemcpy2D record with its rows: $(grep Memcpy2D "$T/dump.out")"
grep -q ' hip\.hipMemset2DAsync .*size=16 pitch=32 width=8 height=2 elem_size=1 stream=' "$T/dump.out" ||
	fail "no hipMemset2DAsync record: $(grep Memset "$T/dump.out")"
grep -q ' hip\.hipMemcpy2DAsync .*width=20 height=4 stream=[0-9]* sub=3 dst_pitch=20 src_pitch=32' "$T/dump.out" ||
	fail "no device-to-device hipMemcpy2DAsync record: $(grep Memcpy2D "$T/dump.out")"
grep -q ' hip\.hipMemcpyPeer dst=[0-9]* src=[0-9]* size=80 sub=3' "$T/dump.out" ||
	fail "no hipMemcpyPeer record: $(grep Peer "$T/dump.out")"
grep -q ' hip\.hipMemcpyPeerAsync .*size=80 stream=[0-9]* sub=3' "$T/dump.out" ||
	fail "no hipMemcpyPeerAsync record: $(grep Peer "$T/dump.out")"
grep -q ' hip\.hipMemcpyPeer result=101 device="1" ' "$T/dump.out" ||
	fail "no failed hipMemcpyPeer record naming device 1: $(grep Peer "$T/dump.out")"
for call in "hipMemcpy2D 2" hipMemcpy2DAsync hipMemcpy; do
	case $call in
	"hipMemcpy2D 2") s=$(seq_of hipMemcpy2D 2) ;;
	hipMemcpy2DAsync) s=$(seq_of hipMemcpy2DAsync 2) ;;
	*) s=$(seq_of hipMemcpy) ;;
	esac
	[ -n "$s" ] && grep -q "checkpoint call_seq=$s " "$T/dump.out" ||
		fail "no checkpoint of the device-to-host $call (seq '$s')"
done
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 3 ] || fail "not 3 checkpoints: $(grep checkpoint "$T/dump.out")"

all_match replay 3 "$T/c.sbt"
grep -q "not its captured" "$T/replay.err" && fail "an allocation was moved without --hip-no-reserve: $(cat "$T/replay.err")"
all_match moved 3 --hip-no-reserve "$T/c.sbt"
all_match determinism 3 --check-determinism "$T/c.sbt"
all_match percmd 3 --check-determinism --per-command --hip-no-reserve "$T/c.sbt"
# one result per write: the memset, the upload, the inner memset, the
# packed copy, the two peer copies
r=$(json_field "$T/percmd.out" command_results)
[ "$r" = 6 ] || fail "--per-command compared '$r' results, not 6: $(cat "$T/percmd.out")"
all_match single 3 --streams single "$T/c.sbt"

# Both the pitched memset and the peer copy are replayed: without them the
# replay differs.
for call in hipMemset2DAsync hipMemcpyPeerAsync; do
	expect_rc 0 "mut.$call" "$MUT" "$T/c.sbt" "$T/no$call.sbt" --drop "$(seq_of $call)"
	expect_rc 3 "drop.$call" "$RP" "$T/no$call.sbt"
	has "drop.$call" out "differ"
done
) || exit 1

# The real runtime with no AMD GPU: the program runs to its end, the calls
# are recorded with the runtime's errors, the replay ends with one line.
unset LD_LIBRARY_PATH
if ldconfig -p 2>/dev/null | grep -q 'libamdhip64.so.5 '; then
	expect_rc 0 real.run "$H/hip_copy2d"
	has real.run out "packed[13] "
	expect_rc 0 real.cap "$CAP" -o "$T/real.sbt" -- "$H/hip_copy2d"
	cmp -s "$T/real.run.out" "$T/real.cap.out" || fail "real: output changed under tscapture"
	expect_rc 0 real.dump "$INFO" --dump "$T/real.sbt"
	for call in hipMemset2D hipMemcpy2D hipMemset2DAsync hipMemcpy2DAsync hipMemcpyPeer hipMemcpyPeerAsync; do
		grep -q " hip\.$call result=" "$T/real.dump.out" || fail "real: no failed $call record"
	done
	rc=0
	"$RP" "$T/real.sbt" >"$T/real.out" 2>"$T/real.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		[ "$rc" -eq 1 ] || fail "real: exit $rc"
		[ "$(cat "$T/real.err")" = "tsreplay: backend hip: cannot open: no AMD GPU: hipGetDeviceCount failed with hipErrorNoDevice (100) from libamdhip64.so.5; this trace needs a HIP device to replay" ] ||
			fail "real: stderr is not the one line: $(cat "$T/real.err")"
	fi
fi
echo "ok"
