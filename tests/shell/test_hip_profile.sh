#!/bin/sh
# tsreplay --profile on HIP traces (docs/replay.md "Profiling", docs/hip.md
# "Replay"), on the libamdhip64 test double:
# - hipEventElapsedTime as the runtime answers it (hip_events): timing
#   events measure 0 ms or more, an event against itself 0 ms,
#   hipEventDisableTiming on either side and an event never recorded
#   hipErrorInvalidHandle (400), a null event before a null result
#   pointer (400, then hipErrorInvalidValue 1);
# - hip_struct (two streams, an event), hip_module (module launches),
#   hip_graph (a graph built by stream capture, launched twice) and
#   hip_pitched (pitched 2D and 3D and peer copies, pitched memsets)
#   captured with tscapture and replayed with --profile: every checkpoint still
#   matches, the trace is byte-identical before and after, TRACE.profile
#   holds the trace's id, "api hip", the double's device name, and one
#   entry per launch, copy and memset that worked at capture and was not
#   captured into a graph (the same seqs), on its captured stream, each
#   with end >= start; the summary and --json count them;
# - tsexport --summary --json reads the sidecar: every command measured
#   but a graph's nodes (its launch is timed as one command), the critical
#   path's costs are the entries' durations;
# - --range: records fast-forwarded before its start are not timed;
# - the real runtime (Debian's, no AMD GPU): --profile ends with the one
#   line naming the missing device, exit 1, and writes no sidecar.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_struct" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
X="$TOP/$BUILD/tsexport"
# (a sanitizer build's double needs its runtime first: test_hip_replay.sh)
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
DEV="libamdhip64 test double (gfx90a twins on the CPU)"

# The double's hipEventElapsedTime.
expect_rc 0 events env LD_LIBRARY_PATH="$DBL" $PRE "$H/hip_events"
for l in "elapsed 0" "elapsed non-negative 1" "elapsed self 0 0.0" \
	"elapsed disable-timing stop 400" "elapsed disable-timing start 400" \
	"elapsed never recorded 400" "elapsed null event 400" "elapsed null ms 1"; do
	grep -qx "$l" "$T/events.out" || fail "hip_events on the double: no line '$l': $(cat "$T/events.out")"
done

# check_profile NAME TRACE SIDECAR: the sidecar's header, and one entry per
# launch, copy and memset of the trace that worked and was not captured,
# on its captured stream, end >= start; their count into $T/NAME.n.
check_profile() {
	cp_id=$("$INFO" --json "$2" | sed 's/.*"trace_id":"\([0-9a-f]*\)".*/\1/')
	"$INFO" --dump "$2" >"$T/$1.dump" || fail "$1: tsinfo --dump"
	python3 - "$T/$1.dump" "$3" "$cp_id" "$DEV" >"$T/$1.n" <<'PY' || fail "$1: the sidecar $3 does not time the trace's commands: $(cat "$3")"
import re, sys
dump, prof, tid, dev = sys.argv[1:5]
timed = re.compile(r"^hip\.(hipLaunchKernel|hipModuleLaunchKernel|hipExtModuleLaunchKernel|"
                   r"hipLaunchCooperativeKernel|hipGraphLaunch|hipMemcpy[A-Za-z0-9]*|hipMemset[A-Za-z0-9]*)$")
want = {}
for line in open(dump):
    f = line.split()
    names = [x for x in f if x.startswith("hip.")]
    if not f or not f[0].startswith("seq=") or not names or not timed.match(names[0]):
        continue
    kv = dict(x.split("=", 1) for x in f if "=" in x)
    if kv.get("result", "0") != "0" or kv.get("capture_status", "0") != "0":
        continue
    want[int(f[0][4:])] = int(kv.get("stream", "0"), 0)
lines = open(prof).read().splitlines()
assert lines[0] == "tsprofile 1", lines[0]
assert lines[1] == "trace " + tid, (lines[1], tid)
assert lines[2] == "api hip", lines[2]
assert lines[3] == "device " + dev, lines[3]
assert lines[4] == "unit ns", lines[4]
got = {}
for l in lines[5:-1]:
    f = l.split()
    assert f[0] == "entry" and len(f) == 6, l
    seq, submit, stream, start, end = int(f[1]), int(f[2]), int(f[3], 16), int(f[4]), int(f[5])
    assert seq == submit and end >= start and seq not in got, l
    got[seq] = stream
assert lines[-1] == "entries %d" % len(got), lines[-1]
assert want and got == want, (sorted(want.items()), sorted(got.items()))
print(len(got))
PY
}

export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for p in struct module graph pitched; do
	case $p in
	module) args="$H/hip_module_kernels.hsaco" ;;
	*) args= ;;
	esac
	expect_rc 0 "$p.cap" $PRE "$CAP" -o "$T/$p.sbt" -- "$H/hip_$p" $args
	sum=$(sha256sum <"$T/$p.sbt")
	expect_rc 0 "$p.prof" "$RP" --profile "$T/$p.sbt"
	[ "$(sha256sum <"$T/$p.sbt")" = "$sum" ] || fail "$p: --profile changed the trace"
	[ ! -e "$T/$p.sbt.profile.tmp" ] || fail "$p: --profile left its temporary file"
	check_profile "$p" "$T/$p.sbt" "$T/$p.sbt.profile"
	n=$(cat "$T/$p.n")
	has "$p.prof" out "0 differ"
	has "$p.prof" out "tsreplay: profile: $n commands timed on $DEV, written to $T/$p.sbt.profile"
	# tsexport finds the sidecar beside the trace and uses every entry
	expect_rc 0 "$p.emu" "$X" --summary --json "$T/$p.sbt"
	python3 - "$T/$p.sbt.profile" "$T/$p.emu.out" "$T/$p.dump" <<'PY' || fail "$p: tsexport does not use the sidecar: $(cat "$T/$p.emu.out")"
import json, re, sys
dur = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "entry":
        dur[int(f[1])] = int(f[5]) - int(f[4])
graph = set()
for line in open(sys.argv[3]):
    m = re.match(r"seq=(\d+) .* hip\.hipGraphLaunch ", line)
    if m:
        graph.add(int(m.group(1)))
s = json.load(open(sys.argv[2]))["summary"]
d = s["durations"]
assert d["profile"] == sys.argv[1], d
# a graph's nodes keep the model's costs (its launch is timed as one
# command), as on CUDA: every other command is measured
assert d["measured"] == len(set(dur) - graph), (d, dur)
assert d["source"] == ("mixed" if graph else "measured"), d
for c in s["critical_path"]:
    if c["seq"] not in graph:
        assert c["cost_ns"] == dur[c["seq"]], (c, dur[c["seq"]])
PY
done

# --json and --profile=FILE
expect_rc 0 struct.json "$RP" --json --profile="$T/elsewhere.profile" "$T/struct.sbt"
n=$(grep -c '^entry ' "$T/elsewhere.profile")
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["result"] == "match" and j["mismatched"] == 0 and j["checkpoints"] > 0, j
p = j["profile"]
assert p["file"] == sys.argv[2] and p["commands"] == int(sys.argv[3]) and p["device"] == sys.argv[4], p
' "$T/struct.json.out" "$T/elsewhere.profile" "$n" "$DEV" || fail "--json --profile=FILE: $(cat "$T/struct.json.out")"

# --range: nothing before its start is timed.
l=$(grep ' hip\.hipLaunchKernel ' "$T/struct.dump" | sed -n '1s/^seq=\([0-9]*\) .*/\1/p')
[ -n "$l" ] || fail "struct: no hipLaunchKernel record"
expect_rc 0 struct.range "$RP" --profile="$T/range.profile" --range "$l:" "$T/struct.sbt"
first=$(grep '^entry ' "$T/range.profile" | cut -d' ' -f2 | sort -n | head -n 1)
[ "$first" = "$l" ] || fail "--range $l: the first timed command is seq $first: $(cat "$T/range.profile")"

# The real runtime with no AMD GPU: the one line, exit 1, no sidecar.
unset LD_LIBRARY_PATH
if ldconfig -p 2>/dev/null | grep -q 'libamdhip64.so.5 '; then
	rc=0
	"$RP" --profile="$T/real.profile" "$T/struct.sbt" >"$T/real.out" 2>"$T/real.err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "note: the real runtime found a device: the trace was profiled on it"
		[ -s "$T/real.profile" ] || fail "real: exit 0 and no sidecar"
	else
		[ "$rc" -eq 1 ] || fail "real: exit $rc, expected 1: $(cat "$T/real.err")"
		[ "$(cat "$T/real.err")" = "tsreplay: backend hip: cannot open: no AMD GPU: hipGetDeviceCount failed with hipErrorNoDevice (100) from libamdhip64.so.5; this trace needs a HIP device to replay" ] ||
			fail "real: stderr is not the one line: $(cat "$T/real.err")"
		[ ! -s "$T/real.out" ] || fail "real: stdout: $(cat "$T/real.out")"
		[ ! -e "$T/real.profile" ] || fail "real: a sidecar was written"
	fi
	# hip_events runs to its end against the real runtime too
	expect_rc 0 events.real "$H/hip_events"
	has events.real out "hipStreamDestroy"
fi
echo "ok"
