#!/bin/sh
# Durations from capture times (issue 10: "durations from replay profiling,
# from capture timestamps, or a stated cost model"; docs/emulator.md
# "Durations from capture times"), with no device.  The traces of
# tests/programs/emu_gen_trace (record times chosen; --kernel-ns 1000):
# - captimes: K1 (5000) and K2 (6000) on s1, K3 (7000) and K4 (8000) on s2,
#   cuStreamSynchronize(s1) at 14000, cuCtxSynchronize at 24000, K5
#   (25000) on s1; a command's start is bounded below by the record before
#   it on its thread.  The first wait bounds K1 K2 to [4000, 14000], a
#   modeled path of 2000: x5, 5000 each; the second K3 K4 to [6000,
#   24000]: x9, 9000 each; nothing waits for K5: the model's 1000, after
#   K4 (the host waited for it).  Slices from the first command: K1
#   0+5000, K2 5000+5000, K3 0+9000, K4 9000+9000, K5 18000+1000: makespan
#   19000.
# - captimes_event: s2 waits on an event recorded after K2 before K3 (K3
#   9000, K4 10000): K3 K4's window starts at the first wait's bound
#   14000, [14000, 24000]: x5, 5000 each; K3 10000+5000, K4 15000+5000, K5
#   20000+1000: makespan 21000, every command on the critical path.
# - tsreplay --emulate --durations capture (kernel 10000): the same factors
#   (x0.5, x0.9), K5 10000: makespan 28000.
# - the default is unchanged (the cost model, makespan 3000); --durations
#   capture with --profile is refused (exit 2) by both tools, as is an
#   unknown source.
# - a trace of tests/cuda/cuda_race_app through the CUDA double (when
#   built) runs and says what it used, the counts adding up.
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
R="$TOP/$BUILD/tsreplay"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"
for s in captimes captimes_event; do
	"$GEN" $s "$T/$s.sbt" || fail "emu_gen_trace $s"
done

# ---- the summary ------------------------------------------------------------------
expect_rc 0 ct.sum "$X" --summary --kernel-ns 1000 --durations capture "$T/captimes.sbt"
has ct.sum out "durations: from capture times for 4 of 5 commands (2 of 2 host waits bound them); cost model for the rest"
has ct.sum out "makespan: 19000 ns"
has ct.sum out "critical path: 19000 ns, 3 commands"
expect_rc 0 ct.json "$X" --summary --json --kernel-ns 1000 --durations capture "$T/captimes.sbt"
python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['summary']
d = s['durations']
assert d == {'source': 'mixed', 'capture': 4, 'modeled': 1, 'bounding_waits': 2, 'waits': 2,
             'profile': None, 'device': None}, d
assert (s['makespan_ns'], s['critical_ns']) == (19000, 19000), s
assert [(c['name'], c['cost_ns']) for c in s['critical_path']] == [('K3', 9000), ('K4', 9000), ('K5', 1000)], s
" "$T/ct.json.out" || fail "captimes summary: $(cat "$T/ct.json.out")"

expect_rc 0 ev.json "$X" --summary --json --kernel-ns 1000 --durations capture "$T/captimes_event.sbt"
python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['summary']
assert (s['durations']['capture'], s['durations']['modeled']) == (4, 1), s['durations']
assert (s['makespan_ns'], s['critical_ns']) == (21000, 21000), s
assert [(c['name'], c['cost_ns']) for c in s['critical_path']] == \
    [('K1', 5000), ('K2', 5000), ('K3', 5000), ('K4', 5000), ('K5', 1000)], s
" "$T/ev.json.out" || fail "captimes_event summary: $(cat "$T/ev.json.out")"

# ---- each command's slice and its source in the Chrome JSON export -------------------
slices() { # FILE.sbt NAME EXPECTED
	expect_rc 0 "$2" "$X" -f json --kernel-ns 1000 --durations capture -o "$T/$2.json" "$1"
	python3 -c "
import json, sys
X = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] == 'X']
got = {e['name']: (round(e['ts'] * 1000), round(e['dur'] * 1000), e['args']['duration']) for e in X}
assert got == $3, got
" "$T/$2.json" || fail "$2: the slices are not the rule's: $(cat "$T/$2.json")"
}
slices "$T/captimes.sbt" ct.slices "{'K1': (0, 5000, 'capture'), 'K2': (5000, 5000, 'capture'), \
'K3': (0, 9000, 'capture'), 'K4': (9000, 9000, 'capture'), 'K5': (18000, 1000, 'model')}"
slices "$T/captimes_event.sbt" ev.slices "{'K1': (0, 5000, 'capture'), 'K2': (5000, 5000, 'capture'), \
'K3': (10000, 5000, 'capture'), 'K4': (15000, 5000, 'capture'), 'K5': (20000, 1000, 'model')}"

# ---- tsreplay --emulate ---------------------------------------------------------------
expect_rc 0 rp.sum "$R" --emulate --durations capture "$T/captimes.sbt"
has rp.sum out "durations: from capture times for 4 of 5 commands (2 of 2 host waits bound them); cost model for the rest"
has rp.sum out "makespan: 28000 ns"
expect_rc 0 rp.json "$R" --emulate --json --durations capture "$T/captimes.sbt"
python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['summary']
assert s['durations']['source'] == 'mixed' and s['durations']['capture'] == 4, s['durations']
assert [(c['name'], c['cost_ns']) for c in s['critical_path']] == [('K3', 9000), ('K4', 9000), ('K5', 10000)], s
" "$T/rp.json.out" || fail "tsreplay --emulate --json: $(cat "$T/rp.json.out")"

# ---- the default, and what is refused ------------------------------------------------
expect_rc 0 def.sum "$X" --summary --kernel-ns 1000 "$T/captimes.sbt"
has def.sum out "durations: cost model (no replay profile)"
has def.sum out "makespan: 3000 ns"
expect_rc 2 bad.both "$X" --durations capture --profile "$T/x.profile" "$T/captimes.sbt"
has bad.both err "--durations capture and --profile together"
expect_rc 2 bad.src "$X" --durations guess "$T/captimes.sbt"
has bad.src err "--durations: unknown source 'guess' (capture or model)"
expect_rc 2 rbad.both "$R" --emulate --durations capture --profile "$T/captimes.sbt"
has rbad.both err "--durations capture and --profile together"
expect_rc 2 rbad.src "$R" --emulate --durations model "$T/captimes.sbt"
has rbad.src err "--emulate --durations: expected 'capture', got 'model'"
expect_rc 2 rbad.seed "$R" --emulate --durations capture --schedule-seed 1 "$T/captimes.sbt"
has rbad.seed err "--schedule-seed prints an order: not with --durations"
[ -z "$(ls "$TOP"/*.sbt 2>/dev/null)" ] || fail "a trace was left in the repository's root"

# ---- a trace through the CUDA double ---------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
if [ -e "$DBL/libcuda.so.1" ] && [ -x "$TOP/$BUILD/tests/cuda/cuda_race_app" ]; then
	unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
		TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
		TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
	cuda_window
	export TSCUDA_DOUBLE_QUIET=1
	export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	expect_rc 0 cap "$TOP/$BUILD/tscapture" -o "$T/app.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_race_app" --mode event
	expect_rc 0 app.json "$X" --summary --json --durations capture "$T/app.sbt"
	python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['summary']
d = s['durations']
assert d['source'] in ('capture', 'mixed', 'model'), d
assert d['capture'] + d['modeled'] == s['commands'] and s['commands'] > 0, (d, s['commands'])
assert 0 < d['bounding_waits'] <= d['waits'] and d['capture'] > 0, d
print('double trace: %d commands, %d from capture times, %d of %d waits bound them, makespan %d ns' %
      (s['commands'], d['capture'], d['bounding_waits'], d['waits'], s['makespan_ns']))
" "$T/app.json.out" || fail "the double's trace: $(cat "$T/app.json.out")"
	expect_rc 0 app.sum "$R" --emulate --durations capture "$T/app.sbt"
	grep -q '^durations: from capture times for [1-9][0-9]* of [1-9][0-9]* commands ([1-9][0-9]* of [1-9][0-9]* host waits bound them)' \
		"$T/app.sum.out" || fail "tsreplay --emulate on the double's trace: $(cat "$T/app.sum.out")"
else
	echo "no CUDA double build: its trace is not checked"
fi
echo "durations from capture times: ok"
