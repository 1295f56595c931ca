#!/bin/sh
# A Vulkan shader that never finishes on replay (issue 12: waits end, and
# the end of a replay does not wait forever for the device; the CUDA
# version is test_cuda_hostile_waits.sh).  tests/programs/vk_hang
# dispatches tests/shaders/vk_hang.comp, whose invocations spin while a
# "go" word in a mapped buffer is 0; the program writes it non-zero, so at
# capture the dispatch ends at once.  The trace, changed with
# tests/fuzz/sbt_mutate so the word replays as 0 (the tsMemoryWrites
# record that carries it dropped, and the tsMemoryWrite of the mapping's
# contents when it was mapped: the replay's new memory starts zeroed, and
# the driver's need not have held zeros at capture (under ASan lavapipe's
# memory holds the malloc fill, 0xbe: a go word of 0xbebebebe)), runs for
# hours on lavapipe (the shader's comment says why not for
# ever: llvmpipe ends each invocation's loops after 65535 turns).  Under
# the Khronos validation layer (tsreplay --validate, no VUID- line) and
# --wait-timeout 2, each replay ends, bounded by timeout and never killed:
#   - the untouched trace replays with its checkpoint equal;
#   - go as 0: the vkWaitForFences stops the replay after 2 s naming its
#     record, exit 1; then the end of the replay waits the same 2 s for the
#     device, warns that it was left busy and not destroyed, and exits
#     (the process ends while lavapipe's thread still runs the shader): at
#     least 4 s and well under the 60 s the default bound would take;
#   - go as 0 and the wait dropped: the vkDestroyFence of the fence still
#     in flight waits for the device first (it used to reach the driver:
#     VUID-vkDestroyFence-fence-01120) and stops after 2 s naming its
#     record, exit 1, with the same warning;
#   - go as 0 and every record after the submit dropped: nothing in the
#     trace waits, the replay itself has nothing left to fail, the end of
#     the replay waits 2 s, warns, and exits 0 ("exit 0 says only that the
#     replay ran": no checkpoint is left).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
M=$VK_ENV_BUILD/tests/sbt_mutate
I=$VK_ENV_BUILD/tsinfo
[ -x "$M" ] || fail "$M is not built"
unset DISPLAY

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/hang.sbt vk_env_run "$T/capture.log" "$VK_ENV_BUILD/tests/programs/vk_hang" ||
	fail "vk_hang under VK_LAYER_tracesmith"
grep -qx "vk_hang: go 0x600df1a6 result 0x800df1a6 turns 0" "$T/capture.log" ||
	fail "vk_hang: $(cat "$T/capture.log")"
vk_env_layers_none

# seq_of CALL: the sequence number of the first CALL record of hang.sbt.
seq_of() {
	"$I" --dump "$T/hang.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | head -n 1
}
WRITE=$(seq_of tsMemoryWrites)
SUBMIT=$(seq_of vkQueueSubmit)
WAIT=$(seq_of vkWaitForFences)
DFENCE=$(seq_of vkDestroyFence)
LAST=$("$I" --dump "$T/hang.sbt" | sed -n 's/^seq=\([0-9]*\) .*/\1/p' | tail -n 1)
[ -n "$WRITE" ] && [ -n "$SUBMIT" ] && [ -n "$WAIT" ] && [ -n "$DFENCE" ] ||
	fail "vk_hang's trace lacks its memory write, submit, wait or fence destroy"
# INIT: the go memory's contents when it was mapped.
GOMEM=$("$I" --dump "$T/hang.sbt" | sed -n "s/^seq=$WRITE .* vulkan\.tsMemoryWrites memory=\([^ ]*\) .*/\1/p")
INIT=$("$I" --dump "$T/hang.sbt" |
	sed -n "s/^seq=\([0-9]*\) .* vulkan\.tsMemoryWrite memory=$GOMEM offset=0 .*/\1/p" | head -n 1)
[ -n "$GOMEM" ] && [ -n "$INIT" ] || fail "vk_hang's trace lacks the go memory's contents at its map"
[ "$INIT" -lt "$WRITE" ] && [ "$WRITE" -lt "$SUBMIT" ] && [ "$SUBMIT" -lt "$WAIT" ] &&
	[ "$WAIT" -lt "$DFENCE" ] ||
	fail "vk_hang's trace: map $INIT, write $WRITE, submit $SUBMIT, wait $WAIT, destroy $DFENCE out of order"
"$I" --dump "$T/hang.sbt" | grep -q "^seq=$WRITE .* vulkan\.tsMemoryWrites .* bytes=4 " ||
	fail "the go word is not the 4 bytes of record $WRITE"

# replay NAME WANT_RC: $T/NAME.sbt under validation with --wait-timeout 2,
# bounded; exit WANT_RC, no VUID- line; its seconds in $secs.
replay() {
	rc=0
	t0=$(date +%s)
	timeout -s KILL 60 "$R" --validate --wait-timeout 2 "$T/$1.sbt" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
	secs=$(($(date +%s) - t0))
	[ "$rc" -ne 137 ] || fail "$1: tsreplay hung (killed after 60 s)"
	[ "$rc" -le 128 ] || fail "$1: tsreplay was killed by signal $((rc - 128)): $(cat "$T/$1.err")"
	[ "$rc" -eq "$2" ] || fail "$1: exit $rc (expected $2): $(cat "$T/$1.err")"
	cat "$T/$1.out" "$T/$1.err" >"$T/$1.all"
	vk_env_clean "$T/$1.all" || fail "$1: the validation layer reported the replay"
}
BUSY="tsreplay: warning: a device was still busy 2 s after the replay's last wait: left as it is, not destroyed"
busy() { # NAME: warned once, and ended after both 2 s waits
	[ "$(grep -cxF "$BUSY" "$T/$1.err")" -eq 1 ] || fail "$1: no busy-device warning: $(cat "$T/$1.err")"
	[ "$secs" -ge "$2" ] && [ "$secs" -le 30 ] || fail "$1: took $secs s (expected $2..30)"
}

cp "$T/hang.sbt" "$T/clean.sbt"
replay clean 0
grep -q "1 compared, 1 matched, 0 differ" "$T/clean.out" || fail "clean: $(tail -n 3 "$T/clean.out")"
! grep -q "warning" "$T/clean.out" "$T/clean.err" || fail "clean: $(cat "$T/clean.err")"

"$M" "$T/hang.sbt" "$T/go0.sbt" --drop "$INIT" --drop "$WRITE" >/dev/null ||
	fail "sbt_mutate --drop $INIT --drop $WRITE"
replay go0 1
grep -qxF "tsreplay: backend vulkan: record seq $WAIT vkWaitForFences: the fence wait did not finish within 2 s, although it did at capture (tsreplay --wait-timeout SECONDS waits longer)" \
	"$T/go0.err" || fail "go0: $(cat "$T/go0.err")"
busy go0 4

"$M" "$T/hang.sbt" "$T/nowait.sbt" --drop "$INIT" --drop "$WRITE" --drop "$WAIT" >/dev/null || fail "sbt_mutate nowait"
replay nowait 1
grep -qxF "tsreplay: backend vulkan: record seq $DFENCE vkDestroyFence: the device did not finish within 2 s the work that may use the object being destroyed (tsreplay --wait-timeout SECONDS waits longer)" \
	"$T/nowait.err" || fail "nowait: $(cat "$T/nowait.err")"
busy nowait 4

ops="--drop $INIT --drop $WRITE"
s=$((SUBMIT + 1))
while [ "$s" -le "$LAST" ]; do
	"$I" --dump "$T/hang.sbt" | grep -q "^seq=$s frame " || ops="$ops --drop $s"
	s=$((s + 1))
done
# shellcheck disable=SC2086
"$M" "$T/hang.sbt" "$T/tail.sbt" $ops >/dev/null || fail "sbt_mutate tail"
replay tail 0
busy tail 2
grep -q "0 compared, 0 matched, 0 differ" "$T/tail.out" || fail "tail: $(tail -n 3 "$T/tail.out")"
echo "ok: vk_hang's never-ending shader: wait stopped at seq $WAIT, destroy at seq $DFENCE, exit's wait bounded"
