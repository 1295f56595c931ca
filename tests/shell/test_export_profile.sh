#!/bin/sh
# Measured durations in the exports (issue 10: the replay profile is "read
# by the emulator and exporters"; docs/emulator.md "Measured durations"),
# with no device: a sidecar in the format tsreplay --profile writes
# (docs/replay.md "Profile sidecar") for the fork trace of
# tests/programs/emu_gen_trace (K1 seq 5 on stream 0x100; K2 seq 8 on 0x200
# after K1; K3 seq 9 on 0x100; K4 seq 12 on 0x100 after K2 and K3) gives
# K1 3000 ns, K2 500, K3 1500, K4 2000.  On 4 engines K1 runs 0..3000, K2
# 3000..3500, K3 3000..4500, K4 4500..6500:
# - --summary --json: every duration measured, makespan and critical path
#   6500 (K1 K3 K4);
# - -f json: each command's slice starts and lasts as above (microseconds),
#   its args.duration "measured";
# - -f perfetto, decoded by protoc: each slice's begin and end timestamps
#   the same, its "duration" annotation "measured";
# - a sidecar timing K1 and K4 only: "mixed", K2 and K3 keep the cost
#   model's 1000 ns (--kernel-ns) and say "model" in both exports.
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"
"$GEN" fork "$T/fork.sbt" || fail "emu_gen_trace fork"
id=$("$TOP/$BUILD/tsinfo" --json "$T/fork.sbt" | sed 's/.*"trace_id":"\([0-9a-f]*\)".*/\1/')
[ ${#id} -eq 32 ] || fail "no trace id for fork.sbt: '$id'"

# sidecar FILE ENTRY...: a profile of fork.sbt with the given entry lines
sidecar() {
	f=$1
	shift
	{
		printf 'tsprofile 1\ntrace %s\napi cuda\ndevice Test Device\nunit ns\n' "$id"
		for e in "$@"; do echo "entry $e"; done
		echo "entries $#"
	} >"$f"
}
sidecar "$T/all.profile" "5 5 0x100 0 3000" "8 8 0x200 3000 3500" "9 9 0x100 3000 4500" "12 12 0x100 4500 6500"
sidecar "$T/some.profile" "5 5 0x100 0 3000" "12 12 0x100 4500 6500"

# the expected (start, duration, source) per command: start and duration in ns
ALL="{'K1': (0, 3000, 'measured'), 'K2': (3000, 500, 'measured'), 'K3': (3000, 1500, 'measured'), 'K4': (4500, 2000, 'measured')}"
# K1 3000; K2 and K3 the model's 1000 from 3000; K4 2000 from 4000
SOME="{'K1': (0, 3000, 'measured'), 'K2': (3000, 1000, 'model'), 'K3': (3000, 1000, 'model'), 'K4': (4000, 2000, 'measured')}"

# ---- the summary ------------------------------------------------------------------
expect_rc 0 sum.all "$X" --summary --json --kernel-ns 1000 --profile "$T/all.profile" "$T/fork.sbt"
python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['summary']
d = s['durations']
assert (d['source'], d['measured'], d['modeled'], d['device']) == ('measured', 4, 0, 'Test Device'), d
assert (s['makespan_ns'], s['critical_ns']) == (6500, 6500), s
assert [(c['name'], c['cost_ns']) for c in s['critical_path']] == [('K1', 3000), ('K3', 1500), ('K4', 2000)], s
" "$T/sum.all.out" || fail "summary with the profile: $(cat "$T/sum.all.out")"
expect_rc 0 sum.some "$X" --summary --kernel-ns 1000 --profile "$T/some.profile" "$T/fork.sbt"
has sum.some out "durations: measured for 2 of 4 commands (replay profile $T/some.profile, device Test Device)"
has sum.some out "makespan: 6000 ns"

# ---- JSON -----------------------------------------------------------------------------
for p in all some; do
	[ $p = all ] && slices=$ALL || slices=$SOME
	expect_rc 0 "json.$p" "$X" -f json --kernel-ns 1000 --profile "$T/$p.profile" -o "$T/$p.json" "$T/fork.sbt"
	python3 -c "
import json, sys
X = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] == 'X']
got = {e['name']: (round(e['ts'] * 1000), round(e['dur'] * 1000), e['args']['duration']) for e in X}
assert got == $slices, got
" "$T/$p.json" || fail "json.$p: the slices are not the profile's: $(cat "$T/$p.json")"
done

# ---- Perfetto ---------------------------------------------------------------------------
if command -v protoc >/dev/null 2>&1 && "$X" -f perfetto -o "$T/probe.pt" "$T/fork.sbt" 2>/dev/null; then
	for p in all some; do
		[ $p = all ] && slices=$ALL || slices=$SOME
		expect_rc 0 "pf.$p" "$X" -f perfetto --kernel-ns 1000 --profile "$T/$p.profile" -o "$T/$p.pt" "$T/fork.sbt"
		protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
			"$TOP/emulator/proto/perfetto_trace.proto" <"$T/$p.pt" >"$T/$p.txt" ||
			fail "protoc cannot decode $p.pt"
		# slices: a begin (its name interned, its "duration" annotation
		# a string) and the next end on the same track
		python3 -c "
import re, sys
t = open(sys.argv[1]).read()
names = dict(re.findall(r'event_names \{\s*iid: (\d+)\s*name: \"(.*?)\"', t))
got, open_ = {}, {}
for b in t.split('packet {')[1:]:
    if 'track_event' not in b:
        continue
    ts = int(re.search(r'^  timestamp: (\d+)$', b, re.M).group(1))
    ty = re.search(r'^    type: (\w+)$', b, re.M).group(1)
    tr = re.search(r'^    track_uuid: (\d+)$', b, re.M).group(1)
    if ty == 'TYPE_SLICE_BEGIN':
        src = re.findall(r'string_value: \"(measured|model)\"', b)
        assert len(src) == 1, b
        open_.setdefault(tr, []).append((names[re.search(r'^    name_iid: (\d+)$', b, re.M).group(1)], ts, src[0]))
    elif ty == 'TYPE_SLICE_END':
        n, start, src = open_[tr].pop()
        got[n] = (start, ts - start, src)
assert got == $slices, got
" "$T/$p.txt" || fail "pf.$p: the slices are not the profile's: $(head -c 3000 "$T/$p.txt")"
	done
else
	echo "no protoc or no protobuf-c build: the Perfetto export is not checked"
fi
echo "exports with measured durations: ok"
