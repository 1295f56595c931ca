#!/bin/sh
# The exports' memory counter against tsinfo --memory (issue 10: the
# memory profile has "a counter track in the exports"; docs/emulator.md
# "tsexport", docs/tsinfo.md "--memory"): both read one accounting
# (serializer/sbt_mem.c), and on each trace here the JSON counter "memory
# in use" and the Perfetto counter tracks "device memory in use" / "host
# memory in use" (decoded by protoc) reach the GPU's and the host's peak
# that tsinfo --memory --json gives, and end at its in_use_end:
# - the H100 traces tests/fixtures/h100/*/*.sbt, among them driver_cubin
#   (three cuMemAlloc ended by the context's teardown, cuCtxDestroy: the
#   counter ends at 0, where it ended at 26,624 bytes before the two shared
#   one accounting) and triton_add (memory live at the end, on the GPU and
#   the host);
# - on the HIP double: hip_race (two hipMalloc, a __device__ global counted
#   from its __hipRegisterVar to its __hipUnregisterFatBinary);
# - on the libcuda test double: cuda_leak_app (device, pitch, async,
#   managed and VMM memory, a VMM allocation released while mapped, one
#   leak of 3000 bytes) and cuda_driver_app (two module globals, counted
#   from their lookup to the module's unload).
# (test_tsinfo_memory.sh holds the JSON counter to tsinfo on its traces:
# Vulkan, a trimmed trace, memory older than the trace, random payloads.)
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
INFO="$TOP/$BUILD/tsinfo"
[ -x "$X" ] && [ -x "$INFO" ] || fail "no $X or $INFO (make)"
HAVE_PROTOC=
command -v protoc >/dev/null 2>&1 && HAVE_PROTOC=1

# agree NAME TRACE: the exports' counters reach tsinfo's peak and end
# (the device one: the trace's one GPU; the host one: "host", 0 if none).
agree() {
	expect_rc 0 "mem.$1" "$INFO" --memory --json "$2"
	ref=$(python3 -c "
import json, sys
D = json.load(open(sys.argv[1]))['devices']
g = [x for x in D if x['api'] != 'host']
h = [x for x in D if x['api'] == 'host'] or [{'peak_bytes': 0, 'in_use_end': 0}]
assert len(g) == 1, 'not one GPU: %r' % D
print(g[0]['peak_bytes'], g[0]['in_use_end'], h[0]['peak_bytes'], h[0]['in_use_end'])
" "$T/mem.$1.out") || fail "$1: tsinfo --memory --json: $(cat "$T/mem.$1.out")"
	set -- "$1" "$2" $ref
	[ "$3" -gt 0 ] || fail "$1: no device peak in $(cat "$T/mem.$1.out")"

	expect_rc 0 "json.$1" "$X" -f json -o "$T/$1.json" "$2"
	python3 -c "
import json, sys
C = [e['args'] for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] == 'C' and e['name'] == 'memory in use']
got = (max(c['device'] for c in C), C[-1]['device'], max(c['host'] for c in C), C[-1]['host'])
assert got == ($3, $4, $5, $6), (got, C)
" "$T/$1.json" || fail "$1: the JSON counter is not tsinfo's ($ref)"

	if [ -n "$HAVE_PROTOC" ] && "$X" -f perfetto -o "$T/probe.pt" "$2" 2>/dev/null; then
		expect_rc 0 "pf.$1" "$X" -f perfetto -o "$T/$1.pt" "$2"
		protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
			"$TOP/emulator/proto/perfetto_trace.proto" <"$T/$1.pt" >"$T/$1.txt" ||
			fail "protoc cannot decode $1.pt"
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
assert got == ($3, $4, $5, $6), (got, V)
" "$T/$1.txt" || fail "$1: the Perfetto counters are not tsinfo's ($ref)"
	fi
	echo "$1: counter peak $3 bytes, $4 at the end (device); $5, $6 (host): as tsinfo --memory"
}

# ---- the H100 traces ------------------------------------------------------------------
for f in "$TOP"/tests/fixtures/h100/*/*.sbt; do
	n="h100-$(basename "$(dirname "$f")")-$(basename "$f" .sbt)"
	agree "$n" "$f"
done
# driver_cubin: its allocations are ended by cuCtxDestroy, nothing is live
for v in as-captured fixed-va; do
	[ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['live'])" "$T/mem.h100-$v-driver_cubin.out")" = 0 ] ||
		fail "h100-$v: tsinfo counts memory live at the end: $(cat "$T/mem.h100-$v-driver_cubin.out")"
done

# ---- the HIP double: hip_race (two hipMalloc, a __device__ global) ------------------
HDBL="$TOP/$BUILD/tests/doubles/hip"
if [ -e "$HDBL/libamdhip64.so.5" ] && [ -x "$TOP/$BUILD/tests/hip/hip_race" ]; then
	SANRT=$(sanitizer_runtime "$HDBL/libamdhip64.so.5")
	expect_rc 0 cap.hip env ${SANRT:+LD_PRELOAD=$SANRT} LD_LIBRARY_PATH="$HDBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		TSHIP_DOUBLE_SEED= "$TOP/$BUILD/tscapture" -o "$T/hip.sbt" -- "$TOP/$BUILD/tests/hip/hip_race"
	agree hip "$T/hip.sbt"
else
	echo "no HIP double or hipcc: hip_race not checked"
fi

# ---- the libcuda double -----------------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
if [ ! -e "$DBL/libcuda.so.1" ]; then
	echo "no CUDA toolkit headers: the double's programs not built (the H100 traces checked)"
	exit 0
fi
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for p in leak driver; do
	expect_rc 0 "cap.$p" "$TOP/$BUILD/tscapture" -o "$T/$p.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_${p}_app"
	agree "$p" "$T/$p.sbt"
done
