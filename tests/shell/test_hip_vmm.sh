#!/bin/sh
# The program's own virtual memory under HIP (hip_vmm: hipMemAddressReserve,
# hipMemCreate, hipMemMap, hipMemSetAccess, copies in, saxpy launched on the
# mapped range, the result read back, hipMemUnmap, hipMemRelease,
# hipMemAddressFree): against the real runtime with no GPU, output and exit
# unchanged under tscapture and each call's error recorded as it came; on
# the libamdhip64 test double, output unchanged, every call recorded as
# itself with its fields, replayed with the checkpoint equal at the captured
# reservation, moved (--hip-no-reserve, and a runtime that takes no hint:
# pointer arguments rewritten), with --check-determinism, with --range
# from after the map and from after the copies; keyframes holding the
# mapped range, compared and restored by --range; records naming a handle
# or a range the trace never made refused with one message; tsinfo and
# tsexport read the trace; 40 damaged traces end in a result or a named
# error, never a crash.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_vmm" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_RESERVE
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
EXPORT="$TOP/$BUILD/tsexport"
MUT="$TOP/$BUILD/tests/sbt_mutate"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
VMM_CALLS="hipMemAddressReserve hipMemCreate hipMemMap hipMemSetAccess hipMemUnmap hipMemRelease hipMemAddressFree"

# The real runtime (no GPU here): every call refused, the program runs on.
expect_rc 0 real.run env -u LD_LIBRARY_PATH "$H/hip_vmm"
if grep -q "^hipMemAddressReserve 101" "$T/real.run.out"; then
	# (PRE: the sanitizer build's interposer in the uninstrumented program)
	expect_rc 0 real.cap $PRE env -u LD_LIBRARY_PATH "$CAP" -o "$T/real.sbt" -- "$H/hip_vmm"
	cmp -s "$T/real.run.out" "$T/real.cap.out" ||
		fail "real runtime: output changed under tscapture: $(diff "$T/real.run.out" "$T/real.cap.out")"
	expect_rc 0 real.dump "$INFO" --dump "$T/real.sbt"
	for c in $VMM_CALLS; do
		[ "$(grep -c " hip\.$c result=101" "$T/real.dump.out")" -eq 1 ] ||
			fail "real runtime: $c's 101 not recorded once: $(grep "hip\.$c" "$T/real.dump.out")"
	done
else
	echo "note: this machine's runtime did not refuse hipMemAddressReserve with 101 (a GPU?): $(head -3 "$T/real.run.out")"
fi

export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
expect_rc 0 run $PRE "$H/hip_vmm"
has run out "y[3] 7.0"
for c in $VMM_CALLS; do
	has run out "$c 0"
done
expect_rc 0 cap $PRE "$CAP" -o "$T/v.sbt" -- "$H/hip_vmm"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/v.sbt"
# seq_of CALL [N]: the seq of the Nth (default 1st) record of CALL.
seq_of() {
	sed -n "s/^seq=\([0-9]*\) .* hip\.$1 .*/\1/p" "$T/dump.out" | sed -n "${2:-1}p"
}
for c in $VMM_CALLS; do
	[ "$(grep -c " hip\.$c " "$T/dump.out")" -eq 1 ] || fail "$c not recorded once: $(grep "hip\.$c" "$T/dump.out")"
done
# The fields: the reservation's address and size, the handle made and
# mapped there, the access flags (read-write, 3), the copies into the
# mapped range and the checkpoint of the read back at its base.
va=$(sed -n 's/.* hip\.hipMemAddressReserve dst=\([0-9]*\) size=8192 sub=10 .*/\1/p' "$T/dump.out")
hd=$(sed -n 's/.* hip\.hipMemCreate handle=\([0-9]*\) size=8192 sub=9 .*/\1/p' "$T/dump.out")
[ -n "$va" ] && [ -n "$hd" ] || fail "no reservation or handle of 8192 bytes: $(grep 'hip.hipMem[ACR]' "$T/dump.out")"
has dump out "hip.hipMemMap handle=$hd dst=$va size=8192 sub=11 "
has dump out "hip.hipMemSetAccess flags=3 dst=$va size=8192 count=1 "
has dump out "hip.hipMemcpy dst=$va size=4096 blob="
has dump out "hip.hipMemUnmap dst=$va size=8192 sub=11 "
has dump out "hip.hipMemRelease handle=$hd sub=9 "
has dump out "hip.hipMemAddressFree dst=$va size=8192 sub=10 "
grep -q " checkpoint .* object=$(printf '0x%016x' "$va") offset=4096 length=4096 " "$T/dump.out" ||
	fail "the read back is not checkpointed against the mapped range: $(grep checkpoint "$T/dump.out")"
expect_rc 0 export "$EXPORT" --summary "$T/v.sbt"

# all_match NAME ARGS...: tsreplay --json ARGS exits 0, its one checkpoint matched.
all_match() {
	am_name=$1
	shift
	expect_rc 0 "$am_name" "$RP" --json "$@"
	[ "$(json_field "$T/$am_name.out" checkpoints)" = 1 ] && [ "$(json_field "$T/$am_name.out" matched)" = 1 ] ||
		fail "$am_name: not 1 checkpoint matched: $(cat "$T/$am_name.out")"
}
all_match replay "$T/v.sbt"
if grep -q "not its captured" "$T/replay.err"; then
	fail "the reservation was moved with the hint free: $(cat "$T/replay.err")"
fi
all_match moved --hip-no-reserve "$T/v.sbt"
export TSHIP_DOUBLE_RESERVE=refuse
all_match refused "$T/v.sbt"
unset TSHIP_DOUBLE_RESERVE
has refused err "tsreplay: hip: reservation of seq $(seq_of hipMemAddressReserve) placed at 0x"
has refused err "not its captured $(printf '0x%x' "$va"): pointer arguments of launches are rewritten"
all_match determinism --check-determinism "$T/v.sbt"
has determinism out '"runs":3'
m=$(seq_of hipMemMap)
a=$(seq_of hipMemSetAccess)
all_match range_map --range "$((m + 1)):" --check-determinism "$T/v.sbt"
has range_map err "fast-forwarded $m records before seq $((m + 1))"
l=$(seq_of hipLaunchKernel)
all_match range_launch --range "$l:" --hip-no-reserve "$T/v.sbt"
expect_rc 0 range_none "$RP" --json --range "$((a + 1)):$l" "$T/v.sbt"
[ "$(json_field "$T/range_none.out" checkpoints)" = 0 ] || fail "checkpoints before the launch: $(cat "$T/range_none.out")"

# Keyframes around the launch hold the mapped range (sub 11): compared on
# replay, and the second restored for --range after it.
expect_rc 0 kf.cap env TRACESMITH_SNAPSHOT=launch $PRE "$CAP" -o "$T/k.sbt" -- "$H/hip_vmm"
cmp -s "$T/run.out" "$T/kf.cap.out" || fail "output changed under tscapture with keyframes"
expect_rc 0 kf.dump "$INFO" --dump "$T/k.sbt"
[ "$(grep -c ' hip\.tsSnapshot dst=[0-9]* size=8192 blob=[0-9]* sub=11$' "$T/kf.dump.out")" -eq 2 ] ||
	fail "the mapped range is not in both keyframes: $(grep -A1 keyframe "$T/kf.dump.out")"
all_match kf.replay "$T/k.sbt"
[ "$(json_field "$T/kf.replay.out" keyframes_compared)" = 2 ] && [ "$(json_field "$T/kf.replay.out" keyframes_differ)" = 0 ] ||
	fail "keyframes not compared equal: $(cat "$T/kf.replay.out")"
K=$(grep ' keyframe ' "$T/kf.dump.out" | sed -n '2s/^seq=\([0-9]*\) .*/\1/p')
all_match kf.range --range "$((K + 1)):" "$T/k.sbt"
has kf.range err "restored keyframe at seq $K"

# A map of a handle the trace never made, and one outside every
# reservation: refused with one message.
expect_rc 0 mut "$MUT" "$T/v.sbt" "$T/nohandle.sbt" --drop "$(seq_of hipMemCreate)"
expect_rc 1 nohandle "$RP" "$T/nohandle.sbt"
has nohandle err "tsreplay: backend hip: record seq $m (hip.hipMemMap): allocation handle 0x$(printf '%x' "$hd") was never created in the trace (hipMemCreate)"
expect_rc 0 mut "$MUT" "$T/v.sbt" "$T/nores.sbt" --drop "$(seq_of hipMemAddressReserve)"
expect_rc 1 nores "$RP" "$T/nores.sbt"
has nores err "tsreplay: backend hip: record seq $m (hip.hipMemMap): [$(printf '0x%x' "$va"), +8192) is not inside a reservation the trace made (hipMemAddressReserve)"

# Damaged traces (40 seeded mutants: bytes, cuts, moves, drops, handles)
# end with a result or one named error, never a crash or a hang.
mkdir -p "$T/mut"
expect_rc 0 mutants "$MUT" --batch "$T/v.sbt" "$T/mut" 1 40
for f in "$T"/mut/*.sbt; do
	rc=0
	timeout 60 "$RP" -q --check-determinism --runs 2 "$f" >/dev/null 2>"$T/mut.err" || rc=$?
	case $rc in
	0 | 3) ;;
	1) grep -q '^tsreplay: ' "$T/mut.err" || fail "$f: exit 1 without a message: $(cat "$T/mut.err")" ;;
	*) fail "$f ($(grep "$(basename "$f"):" "$T/mutants.out")): exit $rc: $(cat "$T/mut.err")" ;;
	esac
	timeout 60 "$EXPORT" --summary "$f" >/dev/null 2>&1
	rc=$?
	[ "$rc" -lt 124 ] || fail "$f: tsexport --summary exit $rc"
done
echo "ok"
