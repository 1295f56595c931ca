#!/bin/sh
# HIP contexts (docs/hip.md "Contexts"), with hip_ctx (tests/hip/hip_ctx.c,
# no kernel), on the libamdhip64 test double with two devices:
# - the double serves them as ROCm 5.2's clr does: a context is its device
#   (one handle a device), hipCtxCreate pushes without changing the current
#   device, hipCtxSetCurrent / hipCtxPushCurrent make the context's device
#   current, hipCtxPopCurrent leaves it, hipCtxGetCurrent gives the current
#   device's context; the codes clr gives what it refuses;
# - tscapture records each call with its context and the current device
#   after it, and what is made after hipCtxSetCurrent on device 1 with
#   device=1, in device 1's address window; the output is unchanged;
# - tsreplay maps each context to its device: the checkpoint is equal
#   (plain, moved, --check-determinism, --range from after the switches),
#   hipCtxSetCurrent alone makes the replay use device 1 (on a one-device
#   double it gives the note), and a context the trace never made, or one
#   handle named as two devices, is refused by name; 40 seeded mutants end
#   with a result or one named error.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_ctx" ] || { echo "no libamdhip64 to link against: hip_ctx is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TRACESMITH_HIP_VA TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BASE=70368744177664 # 0x400000000000, the default window
SIZE=549755813888   # 512 GiB
if tsan_build; then
	TRACESMITH_HIP_VA=0x4000000000:64G BASE=274877906944 SIZE=68719476736
	export TRACESMITH_HIP_VA
fi
B1=$((BASE + SIZE))

all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}
seq_of() {
	grep " hip\.$1\( \|\$\)" "$T/dump.out" | sed -n "${2:-1}s/^seq=\([0-9]*\) .*/\1/p"
}

# one device: the calls naming device 1 fail, the rest runs on device 0
expect_rc 0 one $PRE "$H/hip_ctx"
has one out "hipCtxCreate (1) 1"
has one out "after hipCtxSetCurrent: device 0"
has one out "device 1: 21 0a 5a hash 4191771648"

export TSHIP_DOUBLE_DEVICES=2
expect_rc 0 run $PRE "$H/hip_ctx" checks
has run out "after hipCtxCreate: device 0"
has run out "after hipCtxSetCurrent: device 1"
has run out "after hipCtxPushCurrent: device 0"
has run out "popped device 0's context"
has run out "after hipCtxPopCurrent: device 0"
has run out "current device 0's context"
has run out "after hipCtxSetCurrent again: device 1"
has run out "device 1: 21 0a 5a hash 4191771648"
# clr's codes
has run out "create on device 99 1"
has run out "push null 201"
has run out "retain device 99 101"
has run out "retain null 1"
has run out "release device 99 101"
has run out "destroy null 1"
has run out "device null 1"
[ "$(grep -c '^hip' "$T/run.out")" -eq 0 ] || fail "a call failed on the two-device double: $(cat "$T/run.out")"

expect_rc 0 plain $PRE "$H/hip_ctx"
expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_ctx"
cmp -s "$T/plain.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/plain.out" "$T/cap.out")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
C0=$(sed -n 's/.* hip\.hipDevicePrimaryCtxRetain ctx=\([0-9]*\)$/\1/p' "$T/dump.out")
C1=$(sed -n 's/.* hip\.hipCtxCreate ctx=\([0-9]*\) device="1"$/\1/p' "$T/dump.out")
[ -n "$C0" ] && [ -n "$C1" ] && [ "$C0" != "$C1" ] ||
	fail "no retain of device 0 and creation on device 1: $(grep Ctx "$T/dump.out")"
[ "$(grep -c " hip\.hipCtxSetCurrent ctx=$C1 device=\"1\"\$" "$T/dump.out")" -eq 2 ] ||
	fail "not two hipCtxSetCurrent of device 1's context: $(grep SetCurrent "$T/dump.out")"
grep -q " hip\.hipCtxPushCurrent ctx=$C0\$" "$T/dump.out" || fail "no hipCtxPushCurrent of device 0's context"
grep -q " hip\.hipCtxPopCurrent ctx=$C0\$" "$T/dump.out" || fail "no hipCtxPopCurrent (device 0 stays current)"
grep -q " hip\.hipCtxGetCurrent ctx=$C0 sub=1\$" "$T/dump.out" || fail "no hipCtxGetCurrent of device 0's context"
grep -q " hip\.hipCtxDestroy ctx=$C1\$" "$T/dump.out" || fail "no hipCtxDestroy"
grep -q " hip\.hipDevicePrimaryCtxRelease\$" "$T/dump.out" || fail "no hipDevicePrimaryCtxRelease"
[ "$(grep -c ' hip\.hipCtxGetDevice device="1"$' "$T/dump.out")" -eq 2 ] || fail "not two hipCtxGetDevice of device 1"
# what is made after hipCtxSetCurrent(device 1's) is device 1's, in its window
grep -q " hip\.hipMalloc device=\"1\" dst=$B1 size=4096 " "$T/dump.out" ||
	fail "device 1's hipMalloc is not recorded with its device in its window: $(grep hipMalloc "$T/dump.out")"
grep -q ' hip\.hipStreamCreate device="1" ' "$T/dump.out" || fail "device 1's stream is not recorded with its device"
grep -q " hip\.hipMalloc dst=$BASE size=4096 " "$T/dump.out" ||
	fail "device 0's hipMalloc (after hipCtxPushCurrent) is not in device 0's window: $(grep hipMalloc "$T/dump.out")"

all_match replay 1 "$T/c.sbt"
[ ! -s "$T/replay.err" ] || fail "replay on two devices said something: $(cat "$T/replay.err")"
all_match moved 1 --hip-no-reserve "$T/c.sbt"
all_match determinism 1 --check-determinism "$T/c.sbt"
S=$(seq_of hipCtxSetCurrent 2)
all_match range 1 --range "$S:" "$T/c.sbt"
# hipCtxSetCurrent alone switches the replay to device 1: on one device
# the records up to it give the note, those before it do not (--range A:B
# ends before B)
S=$(seq_of hipCtxSetCurrent)
expect_rc 0 upto env TSHIP_DOUBLE_DEVICES=1 "$RP" --range "1:$((S + 1))" "$T/c.sbt"
has upto err "tsreplay: hip: the trace uses device 1 and the runtime has 1 device: the work of every device it does not have replays on device 0"
expect_rc 0 before env TSHIP_DOUBLE_DEVICES=1 "$RP" --range "1:$S" "$T/c.sbt"
! grep -q "the trace uses device 1" "$T/before.err" || fail "the note came before hipCtxSetCurrent: $(cat "$T/before.err")"
(TSHIP_DOUBLE_DEVICES=1 && all_match onedev 1 "$T/c.sbt" && has onedev err "the trace uses device 1 and the runtime has 1 device") || exit 1

# a hipCtxSetCurrent naming a context the trace never made (its creation
# dropped)
expect_rc 0 mut.create "$MUT" "$T/c.sbt" "$T/bad.sbt" --drop "$(seq_of hipCtxCreate)"
expect_rc 1 bad "$RP" "$T/bad.sbt"
has bad err "(hip.hipCtxSetCurrent): HIP context 0x$(printf '%x' "$C1") was never made in the trace (by hipCtxCreate, hipDevicePrimaryCtxRetain or hipCtxGetCurrent)"
# device 1's context named by hipCtxGetCurrent as device 0's
S=$(seq_of hipCtxGetCurrent)
i=0
while [ "$i" -lt 40 ]; do
	"$MUT" "$T/c.sbt" "$T/two.sbt" --varint "$S:$i:$C1" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/two.sbt" | grep -q "^seq=$S .* hip\.hipCtxGetCurrent ctx=$C1 sub=1\$" &&
		break
	i=$((i + 1))
done
[ "$i" -lt 40 ] || fail "no varint of record $S is its context"
expect_rc 1 two "$RP" "$T/two.sbt"
has two err "record seq $S (hip.hipCtxGetCurrent): HIP context 0x$(printf '%x' "$C1") is device 1's (seq $(seq_of hipCtxCreate)) and here device 0's: a context is one device"

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
exit 0
