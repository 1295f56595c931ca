#!/bin/sh
# Sampled orders of a Vulkan trace's submits across queues (docs/replay.md
# "Sampled orders", docs/emulator.md "Sampled orders").  lavapipe has one
# queue, so the two-queue traces are made from captures: vk_race --split
# --barrier --second-queue (a dispatch writes a buffer in one submit, a
# barrier and a copy read it in a second submit, made through a second
# vkGetDeviceQueue of the same queue), then tests/programs/vk_requeue
# rewrites the trace so that the second submit is on queue 1 of the family
# (vkCreateDevice asks two).  There the barrier no longer orders the copy
# after the dispatch: a planted missing semaphore wait.  With --semaphore
# transfer the first submit signals a semaphore the second waits for.
# Replayed on lavapipe, the two captured queues share its one queue
# (tsreplay says so); each submit is waited for, so the device runs the
# sampled order.
# - without the wait: tsexport --races sees the race across the queues;
#   tsreplay --emulate --schedule-seed N prints the order a seed draws, and
#   seeds draw both orders (seed 1: the copy's submit first, seed 2: the
#   captured order); tsreplay --schedule-seed replays the same order (same
#   hash), matching the capture in the captured order (exit 0) and not in
#   the other (exit 3, the readback all zeros); --check-determinism
#   --schedule-seeds 2,1 exits 4 naming the first differing checkpoint and
#   its call (vkWaitForFences), and --json says the same; the likely race
#   at the checkpoint and after the copy's submit (--per-command, implied)
#   names the dispatch/copy pair on the device buffer, followed back from
#   the readback memory through the copy;
# - with the wait: ten seeds draw one order, the captured one, and
#   --check-determinism --schedule-seeds 1,...,10 agrees (exit 0);
# - the one-queue capture itself: the order is the captured one, said in
#   one line, and its replay matches (exit 0);
# - tsreplay --emulate --schedule-seed refuses a bad seed and --json (exit 2);
# - on a synthetic three-queue trace (tests/programs/vk_race_gen: 512
#   submits round-robin, every 16th signalling a semaphore the next one
#   waits for, vkDeviceWaitIdle after every 256th), for 20 seeds every
#   submit is in the order once, each queue keeps its submission order,
#   each waiting submit comes after the one it waits for, none crosses a
#   vkDeviceWaitIdle, and the seeds draw 20 different orders.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/shell.sh"
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
X=$VK_ENV_BUILD/tsexport
P=$VK_ENV_BUILD/tests/programs
for f in "$R" "$X" "$P/vk_race" "$P/vk_requeue"; do
	[ -x "$f" ] || fail "$f is not built"
done
unset DISPLAY

# two_queues NAME ARGS...: vk_race --split --barrier --second-queue ARGS
# captured into $T/NAME.one.sbt, rewritten into $T/NAME.sbt
two_queues() {
	tn=$1
	shift
	vk_env_layers_ours
	TRACESMITH_OUTPUT=$T/$tn.one.sbt vk_env_run "$T/$tn.capture.log" \
		"$P/vk_race" --split --barrier --second-queue "$@" || fail "$tn: capture"
	vk_env_layers_none
	"$P/vk_requeue" "$T/$tn.one.sbt" "$T/$tn.sbt" 2 >"$T/$tn.requeue.log" ||
		fail "$tn: vk_requeue: $(cat "$T/$tn.requeue.log")"
	grep -q "^vk_requeue: seq [0-9]* on queue 0x[0-9a-f]* (family 0, index 1)$" "$T/$tn.requeue.log" ||
		fail "$tn: vk_requeue moved no submit: $(cat "$T/$tn.requeue.log")"
}

two_queues nowait
two_queues wait --semaphore transfer
copy_submit=$(sed -n 's/^vk_requeue: seq \([0-9]*\) .*/\1/p' "$T/nowait.requeue.log")

# the emulator: the race is across the queues, and the wait removes it
expect_rc 1 nowait.races "$X" --races "$T/nowait.sbt"
has nowait.races out "races: 0 confirmed, 1 possible"
grep -q "^  seq [0-9]* transfer vkCmdCopyBuffer (submitted at seq $copy_submit) on queue 0x[0-9a-f]* (family 0, index 1) reads buffer" \
	"$T/nowait.races.out" || fail "the copy is not on queue index 1: $(cat "$T/nowait.races.out")"
expect_rc 0 wait.races "$X" --races "$T/wait.sbt"

# the orders: seed 1 runs the second queue's submit first, seed 2 the captured order
order() { # NAME SEED TRACE
	expect_rc 0 "$1" "$R" --emulate --schedule-seed "$2" "$3"
	[ "$(grep -c '^  seq [0-9]* submit on queue ' "$T/$1.out")" = 2 ] || fail "$1: not two submits: $(cat "$T/$1.out")"
	sed -n 's/^  seq \([0-9]*\) submit on queue 0x[0-9a-f]* (family 0, index \([01]\)).*/\1@\2/p' "$T/$1.out" |
		tr '\n' ' '
}
o1=$(order nowait.o1 1 "$T/nowait.sbt")
o2=$(order nowait.o2 2 "$T/nowait.sbt")
first=${o2%%@0 *}
[ -n "$first" ] && [ "$first" -lt "$copy_submit" ] || fail "seed 2: order '$o2', expected the dispatch's submit (queue 0) first"
[ "$o2" = "$first@0 $copy_submit@1 " ] || fail "seed 2: order '$o2', expected the captured order"
[ "$o1" = "$copy_submit@1 $first@0 " ] || fail "seed 1: order '$o1', expected the copy's submit ($copy_submit, queue 1) first"
has nowait.o1 out "schedule seed 1: order 0x"
has nowait.o1 out "of 2 commands, 1 of them run after a command the capture issued later"
has nowait.o2 out "of 2 commands, 0 of them run after a command the capture issued later"
h1=$(sed -n 's/^schedule seed 1: order \(0x[0-9a-f]*\) .*/\1/p' "$T/nowait.o1.out")
h2=$(sed -n 's/^schedule seed 2: order \(0x[0-9a-f]*\) .*/\1/p' "$T/nowait.o2.out")
[ -n "$h1" ] && [ "$h1" != "$h2" ] || fail "seeds 1 and 2: hashes '$h1' '$h2'"

# replayed in those orders: the captured one matches the capture, the other not
expect_rc 0 nowait.r2 "$R" --schedule-seed 2 "$T/nowait.sbt"
has nowait.r2 out "tsreplay: schedule seed 2: order $h2 of 2 commands, 0 of them run after"
has nowait.r2 out "checkpoints: 1 compared, 1 matched, 0 differ"
has nowait.r2 err "tsreplay: vulkan: seq 11 vkCreateDevice: queue family 0 has 1 queue here, the trace asked for 2: its queues share that one (index modulo 1)"
expect_rc 3 nowait.r1 "$R" --schedule-seed 1 "$T/nowait.sbt"
has nowait.r1 out "tsreplay: schedule seed 1: order $h1 of 2 commands, 1 of them run after"
has nowait.r1 err "tsreplay: the replay differs from the capture at checkpoint seq"
has nowait.r1 err "  replay bytes: 00 00 00 00 00 00 00 00"
expect_rc 0 nowait.plain "$R" "$T/nowait.sbt"

# two seeds compared: exit 4 at the first differing checkpoint
expect_rc 4 nowait.det "$R" --check-determinism --schedule-seeds 2,1 "$T/nowait.sbt"
cp_seq=$(sed -n 's/^tsreplay: runs differ: run 1 and run 2 part first at checkpoint seq \([0-9]*\)$/\1/p' "$T/nowait.det.err")
[ -n "$cp_seq" ] || fail "no checkpoint named: $(cat "$T/nowait.det.err")"
has nowait.det err "  call:     seq $((cp_seq - 1)) vulkan.vkWaitForFences"
has nowait.det err "tsreplay: likely race: run 1 (seed 2) and run 2 (seed 1) part at checkpoint seq $cp_seq"
# the checkpoint covers the host-visible readback; the emulator follows the
# copy back to the device buffer the dispatch writes and names that pair,
# here and for the submit --per-command (implied by the seeds) names first
has nowait.det err "tsreplay: likely race: run 1 (seed 2) and run 2 (seed 1) part after the command at seq $copy_submit (vulkan.vkQueueSubmit, memory 0x"
[ "$(grep -c '^  race (possible): seq [0-9]* dispatch vkCmdDispatch reads and may write 0x0\.\.0x1000 <-> seq [0-9]* transfer vkCmdCopyBuffer reads 0x0\.\.0x1000$' "$T/nowait.det.err")" = 2 ] ||
	fail "the dispatch/copy pair is not named twice: $(cat "$T/nowait.det.err")"
if grep -q "the emulator finds no unordered pair" "$T/nowait.det.err"; then
	fail "a likely race without its pair: $(cat "$T/nowait.det.err")"
fi
has nowait.det out "tsreplay: run 1: schedule seed 2: order $h2"
has nowait.det out "tsreplay: run 2: schedule seed 1: order $h1"
expect_rc 4 nowait.json "$R" --json --check-determinism --schedule-seeds 2,1 "$T/nowait.sbt"
python3 - "$T/nowait.json.out" "$cp_seq" "$h1" "$h2" <<'EOF' || fail "--json: $(cat "$T/nowait.json.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schedule"] == [
    {"run": 1, "seed": 2, "order_hash": sys.argv[4], "commands": 2, "out_of_order": 0},
    {"run": 2, "seed": 1, "order_hash": sys.argv[3], "commands": 2, "out_of_order": 1}], d["schedule"]
assert d["runs_part"]["checkpoint_seq"] == int(sys.argv[2]), d["runs_part"]
EOF

# with the semaphore wait: one legal order, and the seeds agree
h=
for s in 1 2 3 4 5 6 7 8 9 10; do
	expect_rc 0 wait.o$s "$R" --emulate --schedule-seed "$s" "$T/wait.sbt"
	hs=$(sed -n "s/^schedule seed $s: order \(0x[0-9a-f]*\) of 2 commands, 0 of them .*/\1/p" "$T/wait.o$s.out")
	[ -n "$hs" ] || fail "wait, seed $s: not the captured order: $(cat "$T/wait.o$s.out")"
	[ -z "$h" ] || [ "$hs" = "$h" ] || fail "wait, seed $s: order $hs, seed 1 drew $h"
	h=$hs
done
expect_rc 0 wait.det "$R" --check-determinism --schedule-seeds 1,2,3,4,5,6,7,8,9,10 "$T/wait.sbt"
has wait.det out "checkpoints"
[ "$(grep -c "^tsreplay: run [0-9]*: schedule seed [0-9]*: order $h of 2 commands, 0 of them" "$T/wait.det.out")" = 10 ] ||
	fail "wait: not ten runs of the captured order: $(cat "$T/wait.det.out")"

# one queue: the order is the captured one, said once
expect_rc 0 one "$R" --schedule-seed 1 "$T/nowait.one.sbt"
has one err "tsreplay: --schedule-seed: $T/nowait.one.sbt: every submit goes to one queue (0x"
has one err "), which runs them in submission order: the order is the captured one"
has one out "0 of them run after a command the capture issued later"
has one out "checkpoints: 1 compared, 1 matched, 0 differ"
# legal orders on a synthetic three-queue trace, checked against its records
G=$P/vk_race_gen
[ -x "$G" ] || fail "$G is not built"
"$G" "$T/gen.sbt" 4096 3 >"$T/gen.log" || fail "vk_race_gen: $(cat "$T/gen.log")"
"$VK_ENV_BUILD/tsinfo" --dump "$T/gen.sbt" >"$T/gen.dump" || fail "tsinfo --dump"
for s in $(seq 1 20); do
	expect_rc 0 gen.o$s "$R" --emulate --schedule-seed "$s" "$T/gen.sbt"
done
python3 - "$T" <<'EOF' || fail "synthetic orders"
import re, sys
t = sys.argv[1]
submits, waits, barriers = {}, set(), []
for line in open(t + "/gen.dump"):
    m = re.match(r"seq=(\d+) .* vulkan\.vkQueueSubmit queue=0x0*([0-9a-f]+) ", line)
    if m:
        submits[int(m.group(1))] = int(m.group(2), 16)
        if "waitSemaphoreCount=1" in line:
            waits.add(int(m.group(1)))
    elif re.match(r"seq=\d+ .* vulkan\.vkDeviceWaitIdle", line):
        barriers.append(int(line.split()[0][4:]))
order_seqs = sorted(submits)
assert len(order_seqs) == 512 and len(waits) == 32 and len(barriers) == 2, (len(order_seqs), len(waits), barriers)
hashes = set()
for s in range(1, 21):
    out = open("%s/gen.o%d.out" % (t, s)).read().splitlines()
    hashes.add(out[0].split()[4])
    items = [re.match(r"  seq (\d+) submit on queue 0x([0-9a-f]+) .*, before seq (\d+)$", l) for l in out[1:]]
    assert all(items), out[:3]
    seqs = [int(m.group(1)) for m in items]
    pos = {q: i for i, q in enumerate(seqs)}
    assert sorted(seqs) == order_seqs, "seed %d: not every submit once" % s
    last = {}
    for m in items:
        q, seq, before = int(m.group(2), 16), int(m.group(1)), int(m.group(3))
        assert submits[seq] == q, (s, seq)
        assert last.get(q, 0) < seq, "seed %d: queue 0x%x out of order at seq %d" % (s, q, seq)
        last[q] = seq
        assert before == min(b for b in barriers if b > seq), (s, seq, before)
    for w in waits:
        prev = order_seqs[order_seqs.index(w) - 1]
        assert pos[prev] < pos[w], "seed %d: seq %d runs before seq %d it waits for" % (s, w, prev)
assert len(hashes) == 20, hashes
EOF

# usage errors of the order listing
expect_rc 2 bad.seed "$R" --emulate --schedule-seed abc "$T/wait.sbt"
has bad.seed err "tsreplay: --schedule-seed: expected a decimal number from 0 to 18446744073709551615, got 'abc'"
expect_rc 2 bad.json "$R" --emulate --json --schedule-seed 1 "$T/wait.sbt"
has bad.json err "tsreplay: --emulate --schedule-seed prints an order: not with --json"
echo "vk sched: two queues, seeds 1 and 2 differ (exit 3 and 4 at checkpoint $cp_seq), with the wait 10 seeds agree"
