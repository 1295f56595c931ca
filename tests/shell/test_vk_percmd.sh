#!/bin/sh
# tsreplay --check-determinism --per-command on Vulkan traces (docs/replay.md
# "Per-command checkpoints", docs/vulkan-replay.md "--per-command"): after
# every submit the replay reads the memory its command buffers may have
# written, and runs are compared there.  Every replay runs under the
# Khronos validation layer (a VUID- line fails the test); lavapipe.
# - a deterministic program (vk_compute, 3 submits: each a dispatch
#   writing through two storage buffers and a copy into a readback
#   buffer): three runs agree after every submit, 3 results per submit
#   (exit 0), --json says command_results 9;
# - vk_race --split --barrier --map-part: the dispatch's buffer is mapped
#   only in part by the application, so the replay reads it with a copy on
#   the device; the runs agree, the 3 results are all there (none left
#   out with a warning);
# - the two-queue trace of test_vk_sched.sh (vk_race --split --barrier
#   --second-queue, the copy's submit moved to queue 1 by vk_requeue: a
#   missing semaphore wait): --schedule-seeds 2,1 (per-command implied) and
#   with --per-command given exit 4 naming the copy's submit as the first
#   after which the runs part, and inside it the vkCmdCopyBuffer (index 1
#   of its command buffer, after the barrier; more in
#   test_vk_percmd_inner.sh), the readback memory, offset 0 and run 2's
#   bytes (zeros: the copy ran before the dispatch), and as a likely race
#   the emulator's dispatch/copy pair on the device buffer the readback was
#   copied from; --json names it in commands_part; the dispatch's submit,
#   earlier in the trace, agrees;
# - the same trace in its captured order (--per-command, no seeds): the
#   runs agree; with the semaphore wait ten seeds agree (exit 0).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/shell.sh"
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
P=$VK_ENV_BUILD/tests/programs
for f in "$R" "$P/vk_compute" "$P/vk_race" "$P/vk_requeue"; do
	[ -x "$f" ] || fail "$f is not built"
done
unset DISPLAY

# capture NAME PROGRAM ARGS...: under our layer (validation below it)
capture() {
	cn=$1
	shift
	vk_env_layers_ours
	TRACESMITH_OUTPUT=$T/$cn.sbt vk_env_run "$T/$cn.capture.log" "$@" || fail "$cn: capture"
}

# replay WANT NAME ARGS...: tsreplay under validation, no VUID- line
replay() {
	want=$1 rn=$2
	shift 2
	vk_env_layers_validation
	expect_rc "$want" "$rn" "$R" "$@"
	vk_env_clean "$T/$rn.err" || fail "$rn: the validation layer objected"
}

# ---- a deterministic program: every run agrees after every submit -----------------
capture comp "$P/vk_compute" --size 4096 --submits 3
replay 0 comp.det --check-determinism --per-command "$T/comp.sbt"
has comp.det out "tsreplay: runs agree with each other at every checkpoint and after every command"
has comp.det out "tsreplay: per-command: 9 results (command, allocation) compared per run"
replay 0 comp.json --json --check-determinism --per-command "$T/comp.sbt"
python3 - "$T/comp.json.out" <<'EOF' || fail "--json: $(cat "$T/comp.json.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command_results"] == 9, d["command_results"]
assert d["commands_part"] is None, d["commands_part"]
EOF

# ---- memory the application mapped in part: read by a copy on the device ----------
capture part "$P/vk_race" --split --barrier --map-part
replay 0 part.det --check-determinism --per-command "$T/part.sbt"
has part.det out "tsreplay: per-command: 3 results (command, allocation) compared per run"
if grep -q "cannot be read here" "$T/part.det.err"; then
	fail "part: a memory was left out: $(cat "$T/part.det.err")"
fi

# ---- two queues, no semaphore: the order decides, the copy's submit is named -------
capture race.one "$P/vk_race" --split --barrier --second-queue
vk_env_layers_none
"$P/vk_requeue" "$T/race.one.sbt" "$T/race.sbt" 2 >"$T/race.requeue.log" ||
	fail "vk_requeue: $(cat "$T/race.requeue.log")"
copy_submit=$(sed -n 's/^vk_requeue: seq \([0-9]*\) .*/\1/p' "$T/race.requeue.log")
[ -n "$copy_submit" ] || fail "vk_requeue moved no submit: $(cat "$T/race.requeue.log")"

for how in implied given; do
	if [ $how = implied ]; then
		replay 4 race.$how --check-determinism --schedule-seeds 2,1 "$T/race.sbt"
	else
		replay 4 race.$how --check-determinism --per-command --schedule-seeds 2,1 "$T/race.sbt"
	fi
	grep -q "^tsreplay: runs differ: run 1 and run 2 part first after the command at seq [0-9]* (vkCmdCopyBuffer, command buffer 0, index 1 in it) of the submit at seq $copy_submit (--per-command)$" "$T/race.$how.err" ||
		fail "$how: the copy inside the submit is not named: $(cat "$T/race.$how.err")"
	has race.$how err "  call:     seq $copy_submit vulkan.vkQueueSubmit"
	grep -q "^  memory:   0x[0-9a-f]*, 4096 bytes it may have written$" "$T/race.$how.err" ||
		fail "$how: no memory named: $(cat "$T/race.$how.err")"
	has race.$how err "  offset:   0 (first differing block: 64 bytes)"
	has race.$how err "  run 2 bytes: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
	has race.$how out "tsreplay: per-command: 3 results (command, allocation) compared per run"
	grep -q '^  race (possible): seq [0-9]* dispatch vkCmdDispatch reads and may write 0x0\.\.0x1000 <-> seq [0-9]* transfer vkCmdCopyBuffer reads 0x0\.\.0x1000$' "$T/race.$how.err" ||
		fail "$how: the likely race names no dispatch/copy pair: $(cat "$T/race.$how.err")"
done
mem=$(sed -n 's/^  memory:   \(0x[0-9a-f]*\), 4096 bytes it may have written$/\1/p' "$T/race.implied.err")
# the memory named is the one the trace's checkpoint (the host's readback) covers
cp_obj=$(sed -n 's/^  object:   \([0-9]*\), checked range \[0, 4096)$/\1/p' "$T/race.implied.err")
[ -n "$cp_obj" ] && [ "$(printf '0x%x' "$cp_obj")" = "$mem" ] ||
	fail "the memory named ($mem) is not the checkpoint's ($cp_obj): $(cat "$T/race.implied.err")"
replay 4 race.json --json --check-determinism --schedule-seeds 2,1 "$T/race.sbt"
python3 - "$T/race.json.out" "$copy_submit" "$mem" <<'EOF' || fail "--json: $(cat "$T/race.json.out")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["commands_part"]
assert c["call_seq"] == int(sys.argv[2]), c
assert c["call"] == "vulkan.vkQueueSubmit", c
assert d["command_results"] == 3, d["command_results"]
EOF

# the captured order, twice: the runs agree after every submit
replay 0 race.same --check-determinism --per-command "$T/race.sbt"
has race.same out "after every command"

# with the semaphore: one legal order, ten seeds agree after every submit
capture wait.one "$P/vk_race" --split --barrier --second-queue --semaphore transfer
vk_env_layers_none
"$P/vk_requeue" "$T/wait.one.sbt" "$T/wait.sbt" 2 >"$T/wait.requeue.log" ||
	fail "vk_requeue: $(cat "$T/wait.requeue.log")"
replay 0 wait.det --check-determinism --schedule-seeds 1,2,3,4,5,6,7,8,9,10 "$T/wait.sbt"
has wait.det out "tsreplay: runs agree with each other at every checkpoint and after every command"
has wait.det out "tsreplay: per-command: 3 results (command, allocation) compared per run"
echo "test_vk_percmd: ok"
