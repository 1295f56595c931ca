#!/bin/sh
# The per-stream state machine of the emulator's simulation (docs/emulator.md
# "Scheduling and the cost model": Idle, Waiting, Pending, Running, Done),
# checked exactly on the fork trace of tests/programs/emu_gen_trace (K1 on
# s1 = 0x100; K2 on s2 = 0x200 after an event recorded after K1; K3 on s1;
# K4 on s1 after an event recorded after K2; every kernel 1000 ns; records
# 1000 ns apart, the first command at seq 5, so the host issues K1 at 0, K2
# at 3000, K3 at 4000 and K4 at 7000 ns):
# - 4 engines: s1 runs K1 K3 K4 back to back (running 3000); s2 waits for
#   K1 (waiting 0..1000), runs K2, then is done (1000..3000);
# - 1 engine: K2 and K3 are ready at 1000 and K2 (the lower seq) takes the
#   engine, so s1 is pending 1000..2000; makespan 4000;
# - --issue-times: a stream whose next command the host has not issued yet
#   is idle, not pending: s1 idle 1000..4000 and 5000..7000, s2 idle
#   0..3000; makespan 8000;
# and each stream's times add up to the makespan.
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"
"$GEN" fork "$T/fork.sbt" || fail "emu_gen_trace fork"

# states NAME MAKESPAN 'S1' 'S2' OPTIONS...: the summary's stream_states;
# S1 and S2 are "idle pending running waiting done changes" in ns
states() {
	name=$1 mk=$2 s1=$3 s2=$4
	shift 4
	expect_rc 0 "$name" "$X" --json --kernel-ns 1000 "$@" "$T/fork.sbt"
	python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['summary']
assert s['makespan_ns'] == $mk, s['makespan_ns']
want = {'stream 0x100 (non-blocking)': [int(x) for x in '$s1'.split()],
        'stream 0x200 (non-blocking)': [int(x) for x in '$s2'.split()]}
got = {x['stream']: [x['idle_ns'], x['pending_ns'], x['running_ns'], x['waiting_ns'], x['done_ns'], x['changes']]
       for x in s['stream_states']}
assert got == want, (got, want)
assert all(sum(v[:5]) == $mk for v in got.values()), got
" "$T/$name.out" || fail "$name: stream states: $(cat "$T/$name.out")"
}

#                            idle pending running waiting done changes
states four 3000      '   0     0    3000      0       0    3' \
                      '   0     0    1000   1000    1000    3'
states one 4000       '   0  1000    3000      0       0    5' \
                      '   0     0    1000   1000    2000    3' --compute-engines 1
states issued 8000    '5000     0    3000      0       0    7' \
                      '3000     0    1000      0    4000    2' --issue-times

# the same in the human summary
expect_rc 0 issued.txt "$X" --kernel-ns 1000 --issue-times "$T/fork.sbt"
has issued.txt out "stream 0x100 (non-blocking): 3 steps, 7 state changes; idle 5000 ns, pending 0 ns, running 3000 ns, waiting 0 ns, done 0 ns"
has issued.txt out "stream 0x200 (non-blocking): 1 steps, 2 state changes; idle 3000 ns, pending 0 ns, running 1000 ns, waiting 0 ns, done 4000 ns"
echo "emulator stream states: ok"
