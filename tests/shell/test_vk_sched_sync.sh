#!/bin/sh
# Presents and sparse binds in the sampled orders of a Vulkan trace
# (docs/emulator.md "Sampled orders", docs/replay.md "Sampled orders"):
# they move like submits, after their queue's earlier work and the signals
# they wait for, and the submits that come next on their queue or wait for
# what they signal follow them.
# - a synthetic two-queue trace (tests/programs/vk_present_gen, 64 frames:
#   acquire; a submit on queue 0 waiting for the acquire and signaling R; a
#   submit on queue 1; a present on queue 0 waiting for R; a sparse bind on
#   queue 1 signaling B; a submit on queue 0 waiting for B): for 20 seeds
#   tsreplay --emulate --schedule-seed lists every submit, present and
#   sparse bind once, each queue in submission order (presents and binds
#   included), each present after the submit that signals its semaphore,
#   each waiting submit after the sparse bind, nothing across an acquire;
#   over the seeds a present runs both before and after queue 1's submit
#   of its frame and before and after the sparse bind, and the 20 orders
#   differ;
# - a program that presents (vk_trim_swapchain, captured under Xvfb): its
#   presents are units of the order ("present on queue ..."), and the
#   replay of the order offscreen and in a window, and --check-determinism
#   --schedule-seeds 1,2, exit 0 with no validation message.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/shell.sh"
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
P=$VK_ENV_BUILD/tests/programs
for f in "$R" "$VK_ENV_BUILD/tsinfo" "$P/vk_present_gen" "$P/vk_trim_swapchain"; do
	[ -x "$f" ] || fail "$f is not built"
done

# ---- the synthetic trace: what each order keeps, and what moves -------------------
"$P/vk_present_gen" "$T/gen.sbt" 64 >"$T/gen.log" || fail "vk_present_gen: $(cat "$T/gen.log")"
grep -qF "vk_present_gen: 64 frames, 192 submits, 64 presents, 64 sparse binds" "$T/gen.log" ||
	fail "vk_present_gen: $(cat "$T/gen.log")"
"$VK_ENV_BUILD/tsinfo" --dump "$T/gen.sbt" >"$T/gen.dump" || fail "tsinfo --dump"
for s in $(seq 1 20); do
	expect_rc 0 gen.o$s "$R" --emulate --schedule-seed "$s" "$T/gen.sbt"
done
python3 - "$T" <<'EOF' || fail "synthetic orders"
import re, sys
t = sys.argv[1]
units, acquires = {}, []
for line in open(t + "/gen.dump"):
    m = re.match(r"seq=(\d+) \S+ \S+ vulkan\.(vkQueueSubmit|vkQueuePresentKHR|vkQueueBindSparse|vkAcquireNextImageKHR) ", line)
    if not m:
        continue
    seq, call = int(m.group(1)), m.group(2)
    if call == "vkAcquireNextImageKHR":
        acquires.append(seq)
    else:
        units[seq] = {"vkQueueSubmit": "submit", "vkQueuePresentKHR": "present",
                      "vkQueueBindSparse": "sparse bind"}[call]
assert len(acquires) == 64 and len(units) == 64 * 5, (len(acquires), len(units))
# per frame, in record order: submit q0, submit q1, present q0, bind q1, submit q0
frames = [sorted(s for s in units if a < s and (i + 1 == len(acquires) or s < acquires[i + 1]))
          for i, a in enumerate(acquires)]
assert all(len(f) == 5 for f in frames)
queue_of = {}
for f in frames:
    assert [units[s] for s in f] == ["submit", "submit", "present", "sparse bind", "submit"], f
    for s, q in zip(f, (0, 1, 0, 1, 0)):
        queue_of[s] = q
hashes, present_vs_q1, present_vs_bind = set(), set(), set()
for s in range(1, 21):
    out = open("%s/gen.o%d.out" % (t, s)).read().splitlines()
    hashes.add(out[0].split()[4])
    items = [re.match(r"  seq (\d+) (submit|present|sparse bind) on queue 0x900([01]) \(family 0, index \3\)(?:, before seq (\d+))?$", l)
             for l in out[1:]]
    assert all(items), [l for l, m in zip(out[1:], items) if not m][:3]
    seqs = [int(m.group(1)) for m in items]
    assert sorted(seqs) == sorted(units), "seed %d: not every unit once" % s
    pos = {q: i for i, q in enumerate(seqs)}
    last = {}
    for m in items:
        seq, kind, q = int(m.group(1)), m.group(2), int(m.group(3))
        assert units[seq] == kind and queue_of[seq] == q, (s, seq, kind, q)
        assert last.get(q, 0) < seq, "seed %d: queue %d out of order at seq %d" % (s, q, seq)
        last[q] = seq
        later = [a for a in acquires if a > seq]
        want = str(later[0]) if later else None
        assert m.group(4) == want, (s, seq, m.group(4), want)
    for f in frames:
        s0, s1, pr, bind, s2 = f
        assert pos[s0] < pos[pr], "seed %d: present %d before the submit it waits for" % (s, pr)
        assert pos[bind] < pos[s2], "seed %d: submit %d before the sparse bind it waits for" % (s, s2)
        assert pos[pr] < pos[s2] and pos[s1] < pos[bind], "seed %d: a queue out of order" % s
        present_vs_q1.add(pos[pr] < pos[s1])
        present_vs_bind.add(pos[pr] < pos[bind])
assert present_vs_q1 == {True, False}, present_vs_q1
assert present_vs_bind == {True, False}, present_vs_bind
assert len(hashes) == 20, hashes
EOF

# ---- a program that presents: its presents replayed from the order -------------
vk_env_xvfb_start
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/sw.sbt vk_env_run "$T/sw.capture.log" "$P/vk_trim_swapchain" --frames 4 ||
	fail "capture: $(cat "$T/sw.capture.log")"
expect_rc 0 sw.order "$R" --emulate --schedule-seed 1 "$T/sw.sbt"
[ "$(grep -c '^  seq [0-9]* present on queue 0x[0-9a-f]* (family 0, index 0), before seq [0-9]*$' "$T/sw.order.out")" = 4 ] ||
	fail "the presents are not units of the order: $(cat "$T/sw.order.out")"
vk_env_layers_validation
expect_rc 0 sw.window "$R" --schedule-seed 1 "$T/sw.sbt"
vk_env_clean "$T/sw.window.err" || fail "window: the validation layer objected"
has sw.window out "frames 1-4 replayed"
vk_env_xvfb_stop
unset DISPLAY
expect_rc 0 sw.off "$R" --check-determinism --schedule-seeds 1,2 "$T/sw.sbt"
vk_env_clean "$T/sw.off.err" || fail "offscreen: the validation layer objected"
has sw.off out "tsreplay: runs agree with each other at every checkpoint and after every command"
echo "vk sched sync: presents and sparse binds move in 20 sampled orders, a presenting program replays its order"
