#!/bin/sh
# Pitched copies and memsets (2D and 3D) and peer copies through HIP
# (docs/hip.md), with hip_pitched (tests/hip/hip_pitched.hip, no kernel):
# - on the libamdhip64 test double the program computes what the copies
#   and memsets make (rows through a host pitch of their own, an inner
#   rectangle zeroed, the padding a hipMemset2D filled, the peer copies
#   from device 0 to device 0, a box copied in by hipMemcpy3D at a
#   position, a narrower box zeroed by hipMemset3DAsync, rows moved by
#   hipMemcpyParam2DAsync and read back by hipMemcpy3DAsync and
#   hipMemcpyParam2D), and the peer copy naming device 1 is
#   hipErrorInvalidDevice (101);
# - tscapture records hipMemset2D, hipMemcpy2D (host to device with its
#   rows packed as a blob, device to host checkpointed), hipMemset2DAsync,
#   hipMemcpy2DAsync (device to device; device to host checkpointed at the
#   stream's synchronization), hipMemcpyPeer and hipMemcpyPeerAsync
#   (device to device, destination and source devices), hipMemset3D(Async),
#   hipMemcpy3D (host to device, its box packed as a blob), hipMemcpy3DAsync
#   and hipMemcpyParam2D (device to host at positions, checkpointed packed),
#   hipMemcpyParam2DAsync (the pitched copies with CUDA's memory types of
#   their sides), the failed peer copy with its result; the output is
#   unchanged;
# - tsreplay replays it with its six checkpoints equal: at the captured
#   addresses, moved (--hip-no-reserve), with --check-determinism (and
#   --per-command: the pitched and peer copies' destinations compared after
#   each), with --streams single;
# - tsexport --races: none; with "racy" (no event between the two
#   non-blocking streams) the 3D upload and the pitched copy reading it
#   race, each over the bytes its rows cover;
# - damaged traces (seeded mutants) end with a result or one named error;
# - dropping the hipMemset2DAsync, the hipMemcpyPeerAsync or the
#   hipMemset3DAsync from the trace makes the replay differ (exit 3): each
#   is replayed;
# - the real runtime (Debian's, no AMD GPU): the program runs to its end,
#   tscapture records the calls with the runtime's errors, and tsreplay
#   ends with the one line naming the missing device (exit 1).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_pitched" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
# (a sanitizer build's double needs its runtime first: test_hip_replay.sh)
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
# HIP's default window lies outside ThreadSanitizer's memory layout
# (hip_window).
hip_window

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
expect_rc 0 run $PRE "$H/hip_pitched"
has run out "wide[1] 10.0 0.0 0.0 13.0 14.0 pad 0.0"
has run out "packed[13] 23.0 sum 274.0 raw[20] 0x7f raw[127] 0x7f"
has run out "hipMemcpyPeer device 1 101"
has run out "box slice 1 row 1: 11 11 00 00 52 53 54 55 56 57 11 11 (sum 2866)"
has run out "flat: 00 42 43 44 45 46 47 11 11 00 00 4a 4b 4c 4d 4e 4f 11 11 00"
has run out "back: 48 49 4a 4b 4c 4d 4e 4f 50 51 52 53 54 55 56 57"
[ "$(grep '^hip' "$T/run.out" | grep -v ' 0$')" = "hipMemcpyPeer device 1 101" ] ||
	fail "a call other than the device-1 peer copy failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_pitched"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
grep -q ' hip\.hipMemset2D .*size=128 pitch=32 width=32 height=4 elem_size=1 value=127' "$T/dump.out" ||
	fail "no hipMemset2D record: $(grep Memset "$T/dump.out")"
grep -q ' hip\.hipMemcpy2D .*size=80 width=20 height=4 blob=[0-9]* host=[0-9]* sub=1 dst_type=2 src_type=1 dst_pitch=32 src_pitch=20' "$T/dump.out" ||
	fail "no host-to-device hipMemcpy2D record with its rows: $(grep Memcpy2D "$T/dump.out")"
grep -q ' hip\.hipMemset2DAsync .*size=16 pitch=32 width=8 height=2 elem_size=1 stream=' "$T/dump.out" ||
	fail "no hipMemset2DAsync record: $(grep Memset "$T/dump.out")"
grep -q ' hip\.hipMemcpy2DAsync .*width=20 height=4 stream=[0-9]* sub=3 dst_type=2 src_type=2 dst_pitch=20 src_pitch=32' "$T/dump.out" ||
	fail "no device-to-device hipMemcpy2DAsync record: $(grep Memcpy2D "$T/dump.out")"
grep -q ' hip\.hipMemcpyPeer dst=[0-9]* src=[0-9]* size=80 sub=3' "$T/dump.out" ||
	fail "no hipMemcpyPeer record: $(grep Peer "$T/dump.out")"
grep -q ' hip\.hipMemcpyPeerAsync .*size=80 stream=[0-9]* sub=3' "$T/dump.out" ||
	fail "no hipMemcpyPeerAsync record: $(grep Peer "$T/dump.out")"
grep -q ' hip\.hipMemcpyPeer result=101 device="1" ' "$T/dump.out" ||
	fail "no failed hipMemcpyPeer record naming device 1: $(grep Peer "$T/dump.out")"
grep -q ' hip\.hipMemset3D .*size=96 pitch=16 width=16 height=3 depth=2 elem_size=1 value=17 dst_height=3' "$T/dump.out" ||
	fail "no hipMemset3D record: $(grep Memset3D "$T/dump.out")"
grep -q ' hip\.hipMemcpy3D .*size=32 width=8 height=2 depth=2 blob=[0-9]* host=[0-9]* sub=1 dst_type=2 src_type=1 dst_x=4 dst_y=1 dst_pitch=16 src_pitch=8 dst_height=3 src_height=2' "$T/dump.out" ||
	fail "no host-to-device hipMemcpy3D record with its box: $(grep Memcpy3D "$T/dump.out")"
grep -q ' hip\.hipMemset3DAsync .*size=8 pitch=16 width=2 height=2 depth=2 elem_size=1 stream=[0-9]* dst_height=3' "$T/dump.out" ||
	fail "no hipMemset3DAsync record: $(grep Memset3D "$T/dump.out")"
grep -q ' hip\.hipMemcpyParam2DAsync .*size=16 width=8 height=2 stream=[0-9]* sub=3 dst_type=2 src_type=2 src_x=6 src_y=1 dst_pitch=8 src_pitch=16' "$T/dump.out" ||
	fail "no hipMemcpyParam2DAsync record: $(grep Param2D "$T/dump.out")"
grep -q ' hip\.hipMemcpy3DAsync .*size=72 width=12 height=3 depth=2 stream=[0-9]* host=[0-9]* sub=2 dst_type=1 src_type=2 src_x=2 dst_pitch=20 src_pitch=16 dst_height=3 src_height=3' "$T/dump.out" ||
	fail "no device-to-host hipMemcpy3DAsync record: $(grep Memcpy3D "$T/dump.out")"
grep -q ' hip\.hipMemcpyParam2D .*size=16 width=8 height=2 host=[0-9]* sub=2 dst_type=1 src_type=2 dst_x=1 dst_pitch=10 src_pitch=8' "$T/dump.out" ||
	fail "no device-to-host hipMemcpyParam2D record: $(grep Param2D "$T/dump.out")"
for call in "hipMemcpy2D 2" "hipMemcpy2DAsync 2" "hipMemcpy 1" "hipMemcpy3DAsync 1" "hipMemcpyParam2D 1"; do
	s=$(seq_of $call)
	[ -n "$s" ] && grep -q "checkpoint call_seq=$s " "$T/dump.out" ||
		fail "no checkpoint of the device-to-host $call (seq '$s')"
done
# the 3D read's checkpoint names the allocation and the offset of its
# first byte (srcPos x = 2)
grep -q "checkpoint call_seq=$(seq_of hipMemcpy3DAsync) object=[0-9a-fx]* offset=2 length=72 " "$T/dump.out" ||
	fail "the hipMemcpy3DAsync checkpoint: $(grep checkpoint "$T/dump.out")"
[ "$(grep -c ' checkpoint ' "$T/dump.out")" -eq 6 ] || fail "not 6 checkpoints: $(grep checkpoint "$T/dump.out")"

all_match replay 6 "$T/c.sbt"
grep -q "not its captured" "$T/replay.err" && fail "an allocation was moved without --hip-no-reserve: $(cat "$T/replay.err")"
all_match moved 6 --hip-no-reserve "$T/c.sbt"
all_match determinism 6 --check-determinism "$T/c.sbt"
all_match percmd 6 --check-determinism --per-command --hip-no-reserve "$T/c.sbt"
# one result per write: the memset, the upload, the inner memset, the
# packed copy, the two peer copies; the 3D memset, the 3D upload, the 3D
# inner memset, the device-to-device hipMemcpyParam2DAsync; on the two
# streams the 3D upload and the pitched copy
r=$(json_field "$T/percmd.out" command_results)
[ "$r" = 12 ] || fail "--per-command compared '$r' results, not 12: $(cat "$T/percmd.out")"
all_match single 6 --streams single "$T/c.sbt"

# The emulator finds the pitched copies' device footprints (CUDA's memory
# types on HIP records): on two non-blocking streams with no event between
# them, the hipMemcpy3DAsync writing w3's box and the hipMemcpyParam2DAsync
# reading two of its rows race (exit 1), over exactly those bytes; with the
# event they do not.
expect_rc 0 races "$TOP/$BUILD/tsexport" --races "$T/c.sbt"
has races out "races: 0 confirmed, 0 possible"
expect_rc 0 cap.racy $PRE "$CAP" -o "$T/racy.sbt" -- "$H/hip_pitched" racy
expect_rc 1 races.racy "$TOP/$BUILD/tsexport" --races "$T/racy.sbt"
has races.racy out "races: 1 confirmed, 0 possible"
grep -q '^  seq [0-9]* copy_h2d hipMemcpy3DAsync on stream 0x[0-9a-f]* (non-blocking) writes 0x[0-9a-f]*[02468ace]00\.\.0x[0-9a-f]*[02468ace]38 (allocation of 64 bytes' "$T/races.racy.out" ||
	fail "the race report does not give the 3D upload's box: $(cat "$T/races.racy.out")"
grep -q '^  seq [0-9]* copy_d2d hipMemcpyParam2DAsync on stream 0x[0-9a-f]* (non-blocking) reads 0x[0-9a-f]*[02468ace]10\.\.0x[0-9a-f]*[02468ace]28 (allocation of 64 bytes' "$T/races.racy.out" ||
	fail "the race report does not give the pitched copy's rows: $(cat "$T/races.racy.out")"
# A 3D memset covers every slice: hipMemset3D of 16 x 3 x 2 bytes (pitch
# 16: one piece) and hipMemset3DAsync of a 2 x 2 x 2 box set 96 and 8 bytes
# (the emulator counted the first slice only before).
expect_rc 0 json "$TOP/$BUILD/tsexport" -f json -o "$T/p.json" "$T/c.sbt"
grep -q '"name":"hipMemset3D","cat":"memset",[^}]*"bytes":96,' "$T/p.json" ||
	fail "hipMemset3D is not 96 bytes in the JSON export: $(grep -o '"name":"hipMemset3D[^}]*' "$T/p.json")"
grep -q '"name":"hipMemset3DAsync","cat":"memset",[^}]*"bytes":8,' "$T/p.json" ||
	fail "hipMemset3DAsync is not 8 bytes in the JSON export: $(grep -o '"name":"hipMemset3DAsync[^}]*' "$T/p.json")"

# Damaged traces (40 seeded mutants: bytes, cuts, moves, drops, handles)
# end with a result or one named error, never a crash or a hang: a pitched
# record's numbers are untrusted.
mkdir -p "$T/mut"
expect_rc 0 mutants "$MUT" --batch "$T/c.sbt" "$T/mut" 1 40
for f in "$T/mut"/*.sbt; do
	rc=0
	timeout 60 "$RP" -q --check-determinism --runs 2 "$f" >/dev/null 2>"$T/mut.err" || rc=$?
	case $rc in
	0 | 3) ;;
	1) grep -q '^tsreplay: ' "$T/mut.err" ||
		fail "$f ($(grep "$(basename "$f"):" "$T/mutants.out")): exit 1 without a message: $(cat "$T/mut.err")" ;;
	*) fail "$f ($(grep "$(basename "$f"):" "$T/mutants.out")): exit $rc: $(cat "$T/mut.err")" ;;
	esac
done

# Both the pitched memset and the peer copy are replayed: without them the
# replay differs.
for call in hipMemset2DAsync hipMemcpyPeerAsync hipMemset3DAsync; do
	expect_rc 0 "mut.$call" "$MUT" "$T/c.sbt" "$T/no$call.sbt" --drop "$(seq_of $call)"
	expect_rc 3 "drop.$call" "$RP" "$T/no$call.sbt"
	has "drop.$call" out "differ"
done
) || exit 1

# The real runtime with no AMD GPU: the program runs to its end, the calls
# are recorded with the runtime's errors, the replay ends with one line.
unset LD_LIBRARY_PATH
if ldconfig -p 2>/dev/null | grep -q 'libamdhip64.so.5 '; then
	expect_rc 0 real.run "$H/hip_pitched"
	has real.run out "packed[13] "
	# (PRE: the sanitizer build's interposer in the uninstrumented program)
	expect_rc 0 real.cap $PRE "$CAP" -o "$T/real.sbt" -- "$H/hip_pitched"
	cmp -s "$T/real.run.out" "$T/real.cap.out" || fail "real: output changed under tscapture"
	expect_rc 0 real.dump "$INFO" --dump "$T/real.sbt"
	for call in hipMemset2D hipMemcpy2D hipMemset2DAsync hipMemcpy2DAsync hipMemcpyPeer hipMemcpyPeerAsync \
		hipMemset3D hipMemcpy3D hipMemset3DAsync hipMemcpyParam2DAsync hipMemcpy3DAsync hipMemcpyParam2D; do
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
