#!/bin/sh
# The layer's record of a call's array at every size (docs/vulkan-layer.md,
# "What a recorded command costs"): vk_callbound --sizes records
# vkCmdPushConstants of 4 to 128 bytes (byte i of the size-N push is
# (N * 7 + i) & 0xff).  Captured under VK_LAYER_tracesmith with the
# validation layer below it, recording the whole run with the record times
# from the timestamp counter (where the CPU's counter is invariant: the
# record-first wrappers, which copy 4 to 64 bytes inline and hand the rest
# to the general path) and from CLOCK_MONOTONIC (the general path only):
# every push is in the trace with its exact bytes, both ways, and the
# program prints what it prints alone.  Then the record-first path's
# times (below).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/python.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
P=$VK_ENV_BUILD/tests/programs/vk_callbound
[ -x "$P" ] || fail "$P is not built"
unset TRACESMITH_TRIGGER TRACESMITH_CLOCK TRACESMITH_DISABLE

vk_env_layers_none
"$P" --submits 2 --cmds 10 --every 5 --sizes >"$T/plain.log" 2>&1 || fail "vk_callbound --sizes alone: $(cat "$T/plain.log")"
want=$(sed -n 's/^\(vk_callbound: submits .* hash [0-9a-fx]*\) .*/\1/p' "$T/plain.log")
[ -n "$want" ] || fail "vk_callbound printed no hash: $(cat "$T/plain.log")"

for clock in auto monotonic; do
	vk_env_layers_ours
	TRACESMITH_CLOCK=$clock TRACESMITH_STACKS=none TRACESMITH_OUTPUT=$T/$clock.sbt \
		vk_env_run "$T/$clock.log" "$P" --submits 2 --cmds 10 --every 5 --sizes ||
		fail "$clock: capture of vk_callbound --sizes"
	grep -qF "$want" "$T/$clock.log" || fail "$clock: under the layer the program printed $(grep '^vk_callbound' "$T/$clock.log")"
	# the first 32 pushes (the loop's come after), whole, through the
	# Python reader (tsinfo --dump shows 32 bytes of a blob)
	ts_python - "$T/$clock.sbt" >"$T/$clock.check" 2>&1 <<'PY' ||
import sys
import tracesmith
pushes = [r for r in tracesmith.open(sys.argv[1]) if r.name == "vulkan.vkCmdPushConstants"][:32]
bad = []
for k, r in enumerate(pushes):
    n = 4 * (k + 1)
    want = bytes((n * 7 + b) & 0xff for b in range(n))
    if r.fields["size"] != n or not r.payload.endswith(want):
        bad.append("push %d: size %s, payload %s" % (k + 1, r.fields["size"], r.payload.hex()))
if len(pushes) != 32 or bad:
    sys.exit("%d pushes; %s" % (len(pushes), "; ".join(bad[:3])))
PY
		fail "$clock: the pushes recorded differ from the program's: $(cat "$T/$clock.check")"
done

# Record times on the record-first path (cap_fast_seal_deferred_coarse):
# the counter is read once in 16 of a thread's vkCmd* records and the
# others take that value, so the loop's commands (400 a submit) are in runs
# of at most 16 equal times, never going back, and a submit (not on that
# path) has a time of its own, no earlier than the commands before it.
vk_env_layers_ours
TRACESMITH_STACKS=none TRACESMITH_OUTPUT=$T/times.sbt vk_env_run "$T/times.log" "$P" --submits 3 --cmds 400 --every 100 ||
	fail "times: capture of vk_callbound"
ts_python - "$T/times.sbt" >"$T/times.check" 2>&1 <<'PY' ||
import sys
import tracesmith
recs = list(tracesmith.open(sys.argv[1]))
cmds = [r for r in recs if r.name.startswith("vulkan.vkCmd")]
run = longest = 0
prev = None
for r in cmds:
    if prev is not None and r.time_ns < prev:
        sys.exit("seq %d: time %d before the previous command's %d" % (r.seq, r.time_ns, prev))
    run = run + 1 if r.time_ns == prev else 1
    longest = max(longest, run)
    prev = r.time_ns
distinct = len(set(r.time_ns for r in cmds))
if len(cmds) < 1200 or longest > 16 or distinct < len(cmds) // 16:
    sys.exit("%d commands, %d distinct times, longest run %d" % (len(cmds), distinct, longest))
last = {}
for r in recs:
    if r.name.startswith("vulkan.vkCmd"):
        last[r.thread] = r.time_ns
    elif r.name == "vulkan.vkQueueSubmit" and r.time_ns < last.get(r.thread, 0):
        sys.exit("submit seq %d before its commands" % r.seq)
print("%d commands, %d distinct times, longest run %d" % (len(cmds), distinct, longest))
PY
	fail "times: $(cat "$T/times.check")"
echo "ok: $(cat "$T/times.check")"
