#!/bin/sh
# The exports' memory counter against tsinfo --memory (issue 10: the
# memory profile has "a counter track in the exports"; docs/emulator.md
# "tsexport", docs/tsinfo.md "--memory"), on the libcuda test double:
# - cuda_leak_app (device, pitch, async, managed and VMM memory, a VMM
#   allocation released while mapped, one leak of 3000 bytes) and
#   cuda_driver_app (two module globals, counted from their lookup to the
#   module's unload): the JSON counter "memory in use" and the Perfetto
#   counter tracks "device memory in use" / "host memory in use" (decoded
#   by protoc) reach GPU 0's and the host's peak that tsinfo --memory
#   gives, and end at what it says is still live at the end of the trace.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
X="$TOP/$BUILD/tsexport"
PROGS="$TOP/$BUILD/tests/cuda"

for p in leak driver; do
	expect_rc 0 "cap.$p" "$CAP" -o "$T/$p.sbt" -- "$PROGS/cuda_${p}_app"
	expect_rc 0 "mem.$p" "$TOP/$BUILD/tsinfo" --memory --json "$T/$p.sbt"
	# GPU 0's and the host's peak and end, from tsinfo
	ref=$(python3 -c "
import json, sys
d = {x['device']: x for x in json.load(open(sys.argv[1]))['devices']}
g, h = d['GPU 0'], d.get('host', {'peak_bytes': 0, 'in_use_end': 0})
print(g['peak_bytes'], g['in_use_end'], h['peak_bytes'], h['in_use_end'])
" "$T/mem.$p.out") || fail "$p: tsinfo --memory --json: $(cat "$T/mem.$p.out")"
	set -- $ref
	[ "$1" -gt 0 ] || fail "$p: no device peak in $(cat "$T/mem.$p.out")"

	expect_rc 0 "json.$p" "$X" -f json -o "$T/$p.json" "$T/$p.sbt"
	python3 -c "
import json, sys
C = [e['args'] for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] == 'C' and e['name'] == 'memory in use']
got = (max(c['device'] for c in C), C[-1]['device'], max(c['host'] for c in C), C[-1]['host'])
assert got == ($1, $2, $3, $4), (got, C)
" "$T/$p.json" || fail "$p: the JSON counter is not tsinfo's ($ref)"

	if command -v protoc >/dev/null 2>&1 && "$X" -f perfetto -o "$T/probe.pt" "$T/$p.sbt" 2>/dev/null; then
		expect_rc 0 "pf.$p" "$X" -f perfetto -o "$T/$p.pt" "$T/$p.sbt"
		protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
			"$TOP/emulator/proto/perfetto_trace.proto" <"$T/$p.pt" >"$T/$p.txt" ||
			fail "protoc cannot decode $p.pt"
		python3 -c "
import re, sys
P = open(sys.argv[1]).read().split('packet {')[1:]
names = dict(m.groups() for m in (re.search(r'^    uuid: (\d+)\n    name: \"(.*?)\"', b, re.M) for b in P) if m)
V = {}
for b in P:
    if 'TYPE_COUNTER' in b:
        tr = re.search(r'track_uuid: (\d+)', b).group(1)
        V.setdefault(names[tr], []).append(int(re.search(r'counter_value: (-?\d+)', b).group(1)))
d, h = V['device memory in use'], V.get('host memory in use', [0])
got = (max(d), d[-1], max(h), h[-1])
assert got == ($1, $2, $3, $4), (got, V)
" "$T/$p.txt" || fail "$p: the Perfetto counters are not tsinfo's ($ref)"
	fi
	echo "$p: counter peak $1 bytes, $2 at the end (device); $3, $4 (host): as tsinfo --memory"
done
