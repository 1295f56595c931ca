#!/bin/sh
# tsreplay --check-determinism --per-command on Vulkan names the vkCmd*
# inside a submit after which the runs part (docs/vulkan-replay.md
# "--per-command"): the replay copies what each command may have written
# into memory of its own right behind it, and compares those copies
# between runs where the submit's results differ.  Every replay runs under
# the Khronos validation layer (a VUID- line fails the test); lavapipe.
# - the two-queue trace of test_vk_sched.sh with --neighbours (vk_race
#   --split --barrier --second-queue --neighbours, the copy's submit moved
#   to queue 1 by vk_requeue: a missing semaphore wait): the copy's command
#   buffer holds a vkCmdFillBuffer of a buffer of its own, the barrier,
#   the vkCmdCopyBuffer, a barrier and a vkCmdUpdateBuffer; under
#   --schedule-seeds 2,1 the fill and the update write the same bytes in
#   both orders, the copy does not (zeros when it runs before the
#   dispatch): exit 4 naming the vkCmdCopyBuffer's seq, command buffer 0
#   and index 2 of the submit, the same in --json (commands_part.command);
# - without --barrier the copy is index 1 of its command buffer, and named
#   so;
# - with --consumer a second dispatch (reading the first one's buffer
#   through a second descriptor set, writing one of its own) comes before
#   the copy: the vkCmdDispatch is named (index 4: fill, barrier, bind
#   pipeline, bind sets, dispatch);
# - the captured order (no seeds): the runs agree after every command;
# - a program with render passes (vk_offscreen: draws, then a copy of the
#   image), one with several submits (vk_compute), one with secondary
#   command buffers (vk_reach) and one submitting a command buffer recorded
#   once in every round (vk_trim_churn): the runs agree, and the copies the
#   replay records behind each render pass and command draw no validation
#   message.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/shell.sh"
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
I=$VK_ENV_BUILD/tsinfo
P=$VK_ENV_BUILD/tests/programs
for f in "$R" "$I" "$P/vk_race" "$P/vk_requeue" "$P/vk_offscreen" "$P/vk_compute" "$P/vk_reach" \
	"$P/vk_trim_churn"; do
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

# two_queues NAME ARGS...: vk_race --split --second-queue --neighbours ARGS
# captured, its second submit moved to queue 1 ($T/NAME.sbt); sets
# copy_submit and copy_seq (the seqs of that submit and of its
# vkCmdCopyBuffer)
two_queues() {
	tn=$1
	shift
	capture "$tn.one" "$P/vk_race" --split --second-queue --neighbours "$@"
	vk_env_layers_none
	"$P/vk_requeue" "$T/$tn.one.sbt" "$T/$tn.sbt" 2 >"$T/$tn.requeue.log" ||
		fail "$tn: vk_requeue: $(cat "$T/$tn.requeue.log")"
	copy_submit=$(sed -n 's/^vk_requeue: seq \([0-9]*\) .*/\1/p' "$T/$tn.requeue.log")
	[ -n "$copy_submit" ] || fail "$tn: vk_requeue moved no submit: $(cat "$T/$tn.requeue.log")"
	"$I" --dump "$T/$tn.sbt" >"$T/$tn.dump" || fail "$tn: tsinfo --dump"
	copy_seq=$(sed -n 's/^seq=\([0-9]*\) .* vulkan\.vkCmdCopyBuffer .*/\1/p' "$T/$tn.dump")
	[ "$(echo "$copy_seq" | wc -w)" = 1 ] || fail "$tn: not one vkCmdCopyBuffer: '$copy_seq'"
}

# ---- the copy, between a fill and an update of another buffer, is named ---------
two_queues race --barrier
replay 4 race.det --check-determinism --schedule-seeds 2,1 "$T/race.sbt"
has race.det err "tsreplay: runs differ: run 1 and run 2 part first after the command at seq $copy_seq (vkCmdCopyBuffer, command buffer 0, index 2 in it) of the submit at seq $copy_submit (--per-command)"
has race.det err "  call:     seq $copy_submit vulkan.vkQueueSubmit"
has race.det err "  run 2 bytes: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
replay 4 race.json --json --check-determinism --per-command --schedule-seeds 2,1 "$T/race.sbt"
python3 - "$T/race.json.out" "$copy_submit" "$copy_seq" <<'EOF' || fail "--json: $(cat "$T/race.json.out")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["commands_part"]
assert c["call_seq"] == int(sys.argv[2]), c
assert c["call"] == "vulkan.vkQueueSubmit", c
assert c["command"] == {"seq": int(sys.argv[3]), "call": "vkCmdCopyBuffer", "unit": "submit",
                        "group": "command buffer", "group_index": 0, "index": 2}, c["command"]
EOF

# the captured order: the runs agree after every command
replay 0 race.same --check-determinism --per-command "$T/race.sbt"
has race.same out "tsreplay: runs agree with each other at every checkpoint and after every command"

# ---- without the barrier the copy is the second command of its buffer ---------
two_queues nobar
replay 4 nobar.det --check-determinism --schedule-seeds 2,1 "$T/nobar.sbt"
has nobar.det err "tsreplay: runs differ: run 1 and run 2 part first after the command at seq $copy_seq (vkCmdCopyBuffer, command buffer 0, index 1 in it) of the submit at seq $copy_submit (--per-command)"

# ---- a dispatch ahead of the copy is named instead ------------------------------
two_queues cons --barrier --consumer
disp_seq=$(sed -n 's/^seq=\([0-9]*\) .* vulkan\.vkCmdDispatch .*/\1/p' "$T/cons.dump" | tail -n 1)
[ -n "$disp_seq" ] && [ "$disp_seq" -lt "$copy_seq" ] || fail "cons: no second dispatch before the copy"
replay 4 cons.det --check-determinism --schedule-seeds 2,1 "$T/cons.sbt"
has cons.det err "tsreplay: runs differ: run 1 and run 2 part first after the command at seq $disp_seq (vkCmdDispatch, command buffer 0, index 4 in it) of the submit at seq $copy_submit (--per-command)"

# ---- render passes and many submits: agreeing runs, no validation message ------
capture off "$P/vk_offscreen" --frames 2
replay 0 off.det --check-determinism --per-command "$T/off.sbt"
has off.det out "tsreplay: runs agree with each other at every checkpoint and after every command"
capture comp "$P/vk_compute" --size 4096 --submits 3
replay 0 comp.det --check-determinism --per-command --runs 3 "$T/comp.sbt"
has comp.det out "tsreplay: runs agree with each other at every checkpoint and after every command"
has comp.det out "tsreplay: per-command: 9 results (command, allocation) compared per run"
for prog in vk_reach vk_trim_churn; do
	capture "$prog" "$P/$prog"
	replay 0 "$prog.det" --check-determinism --per-command "$T/$prog.sbt"
	has "$prog.det" out "tsreplay: runs agree with each other at every checkpoint and after every command"
done
echo "test_vk_percmd_inner: ok"
