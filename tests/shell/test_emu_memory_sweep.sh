#!/bin/sh
# The exports' memory counters against tsinfo --memory on every trace this
# machine can make (issue 10: "a counter track in the exports"; both read
# one accounting, serializer/sbt_mem.c; docs/emulator.md "tsexport",
# docs/tsinfo.md "--memory"). On each trace the JSON counter "memory in
# use" and the Perfetto counter tracks "device memory in use" / "host
# memory in use" (decoded by protoc) reach exactly the peak that tsinfo
# --memory --json gives and end at its in_use_end: the device counter adds
# up the GPUs (or Vulkan devices), so with several its peak is the peak of
# the sum of tsinfo's events on them; the host counter is tsinfo's "host".
# The traces:
# - every synthetic scenario of tests/support/emu_gen.c (among them graph
#   memory on two devices, HIP graph memory, contexts of two devices);
# - on the libcuda test double: every program of tests/cuda that runs with
#   no arguments, cuda_graph_nodes with each of its graph options (graph
#   memory nodes, captures, a capture into a graph, a window), the late
#   calls of cuda_late_calls and cuda_driver_app --racy;
# - on the HIP double: every program of tests/hip that runs with no
#   arguments, and hip_module with its code object;
# - on lavapipe: the Vulkan programs that run with no arguments, and
#   vk_compute trimmed to submits 2-3 (memory from before the window).
# (test_emu_memory.sh: the H100 fixtures; test_tsinfo_memory.sh: memory
# older than the trace, context teardown and random payloads, both
# exports.) Each trace's line is printed: "NAME: device peak P end E,
# host peak P end E".
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
INFO="$TOP/$BUILD/tsinfo"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
CAP="$TOP/$BUILD/tscapture"
[ -x "$X" ] && [ -x "$INFO" ] && [ -x "$GEN" ] || fail "no $X, $INFO or $GEN (make)"
command -v protoc >/dev/null 2>&1 || { echo "no protoc: the Perfetto counters cannot be decoded"; exit 77; }

cat >"$T/agree.py" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
host = [i for i, x in enumerate(d['devices']) if x['api'] == 'host']
dev = [x for x in d['devices'] if x['api'] != 'host']
if len(dev) == 1:
    want_dev = (dev[0]['peak_bytes'], dev[0]['in_use_end'])
else:
    run = peak = 0
    for e in d['events']:
        if e['device'] not in host:
            run += e['delta']
            peak = max(peak, run)
    want_dev = (peak, sum(x['in_use_end'] for x in dev))
h = [d['devices'][i] for i in host] or [{'peak_bytes': 0, 'in_use_end': 0}]
want = want_dev + (h[0]['peak_bytes'], h[0]['in_use_end'])
C = [e['args'] for e in json.load(open(sys.argv[2]))['traceEvents'] if e['ph'] == 'C' and e['name'] == 'memory in use']
got = (max(c['device'] for c in C), C[-1]['device'], max(c['host'] for c in C), C[-1]['host']) if C else (0, 0, 0, 0)
assert got == want, ('json', got, 'tsinfo', want)
P = open(sys.argv[3]).read().split('packet {')[1:]
names = dict(m.groups() for m in (re.search(r'^    uuid: (\d+)\n    name: "(.*?)"', b, re.M) for b in P) if m)
V = {}
for b in P:
    if 'TYPE_COUNTER' in b:
        tr = re.search(r'track_uuid: (\d+)', b).group(1)
        V.setdefault(names[tr], []).append(int(re.search(r'counter_value: (-?\d+)', b).group(1)))
dd, hh = V.get('device memory in use', [0]), V.get('host memory in use', [0])
got = (max(dd), dd[-1], max(hh), hh[-1])
assert got == want, ('perfetto', got, 'tsinfo', want)
print('device peak %d end %d, host peak %d end %d' % want)
EOF

# agree NAME TRACE: both exports' counters are tsinfo's (a line in $T/agreed.log).
agree() {
	expect_rc 0 "$1.mem" "$INFO" --memory --json "$2"
	expect_rc 0 "$1.json" "$X" -f json -o "$T/$1.json" "$2"
	expect_rc 0 "$1.pf" "$X" -f perfetto -o "$T/$1.pt" "$2"
	protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
		"$TOP/emulator/proto/perfetto_trace.proto" <"$T/$1.pt" >"$T/$1.txt" || fail "protoc cannot decode $1.pt"
	line=$(python3 "$T/agree.py" "$T/$1.mem.out" "$T/$1.json" "$T/$1.txt") ||
		fail "$1: the exports' memory counters are not tsinfo --memory's: $(cat "$T/$1.mem.out")"
	echo "$1: $line" | tee -a "$T/agreed.log"
	rm -f "$T/$1.json" "$T/$1.pt" "$T/$1.txt"
}

need=48 # the synthetic scenarios and the Vulkan traces; the doubles' add theirs
# ---- synthetic ------------------------------------------------------------------------
for s in fork legacy hostsync copies graph graph_race graph_wait graph_record graph_child graph_child_get \
	graph_child_rm graph_child_destroy graph_mem graph_mem_nofree graph_mem_relaunch graph_mem_ordered \
	hip_graph_mem graph_mem_paths graph_update graph_capture_to graph_capture_to_nodeps graph_capture_to_alloc graph_disable hip_ctx \
	devices threads race event race_kf readers readers_kf bulk:1000 graphs:2:3:4 wait_chain:100; do
	n=gen-$(echo "$s" | tr : -)
	expect_rc 0 "gen.$n" "$GEN" "$s" "$T/$n.sbt"
	agree "$n" "$T/$n.sbt"
done

# ---- the libcuda double ---------------------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
if [ -e "$DBL/libcuda.so.1" ]; then
	need=$((need + 28))
	(
		unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
			TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
			TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA TRACESMITH_TRIGGER \
			TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES
		cuda_window
		export TSCUDA_DOUBLE_QUIET=1
		export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		P="$TOP/$BUILD/tests/cuda"
		i=0
		for c in cuda_alloc_loop cuda_array_app cuda_driver_app cuda_graph_app cuda_graph_nodes cuda_leak_app \
			cuda_managed_app cuda_race_app cuda_runtime_like cuda_sched_app cuda_vmm_app cuda_wait_app \
			cuda_window_app cuda_zero_copy "cuda_driver_app --racy" "cuda_late_calls --dtor" \
			"cuda_late_calls --atexit" "cuda_late_calls --last" \
			"cuda_graph_nodes --launches 3 --unordered" "cuda_graph_nodes --launches 3 --child --child-get" \
			"cuda_graph_nodes --launches 3 --alloc-node" "cuda_graph_nodes --launches 3 --alloc-node --no-free-node" \
			"cuda_graph_nodes --launches 3 --capture-alloc" "cuda_graph_nodes --launches 3 --capture-to" \
			"cuda_graph_nodes --launches 3 --window --capture-to" \
			"cuda_graph_nodes --launches 3 --alloc-node --no-free-node --gmem-live" \
			"cuda_graph_nodes --launches 3 --window --alloc-node --no-free-node --gmem-live" \
			"cuda_graph_nodes --launches 3 --alloc-node --mem-attr"; do
			set -- $c
			i=$((i + 1))
			n=cuda$i-$1
			p=$1
			shift
			# the programs that race on purpose (TSCUDA_DOUBLE_RACY:
			# under make tsan the double hides its workers' accesses
			# from ThreadSanitizer, docs/cuda-double.md)
			case "$c" in
			cuda_race_app | cuda_sched_app | *--racy* | *--unordered*) racy="env TSCUDA_DOUBLE_RACY=1" ;;
			*) racy= ;;
			esac
			(cd "$T" && expect_rc 0 "cap.$n" $racy "$CAP" -o "$T/$n.sbt" -- "$P/$p" "$@") || exit 1
			agree "$n" "$T/$n.sbt"
			rm -f "$T/$n.sbt"
		done
	) || exit 1
else
	echo "no CUDA toolkit headers: the double's programs not built"
fi

# ---- the HIP double ------------------------------------------------------------------
HDBL="$TOP/$BUILD/tests/doubles/hip"
if [ -e "$HDBL/libamdhip64.so.5" ] && [ -x "$TOP/$BUILD/tests/hip/hip_race" ]; then
	need=$((need + 24))
	SANRT=$(sanitizer_runtime "$HDBL/libamdhip64.so.5")
	H="$TOP/$BUILD/tests/hip"
	for c in hip_alloc_churn hip_array hip_array3d hip_async_alloc hip_capture_free hip_capture_unseen \
		hip_coop_spt hip_ctx hip_event_sync hip_events hip_graph hip_graph_edit hip_graph_nm hip_graph_nodes \
		hip_managed hip_multi hip_pitch_alloc hip_pitched hip_procaddr hip_race hip_saxpy hip_spt hip_struct \
		"hip_module $H/hip_module_kernels.hsaco"; do
		set -- $c
		n=$1
		shift
		(cd "$T" && expect_rc 0 "cap.$n" env ${SANRT:+LD_PRELOAD=$SANRT} \
			LD_LIBRARY_PATH="$HDBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" TSHIP_DOUBLE_SEED= \
			"$CAP" -o "$T/$n.sbt" -- "$H/$n" "$@") || exit 1
		agree "$n" "$T/$n.sbt"
		rm -f "$T/$n.sbt"
	done
else
	echo "no HIP double or hipcc: the HIP programs not checked"
fi

# ---- Vulkan on lavapipe --------------------------------------------------------------
. "$TOP/tests/support/vk_env.sh"
vk_env_init
unset VK_ADD_LAYER_PATH XDG_DATA_DIRS
V="$TOP/$BUILD/tests/programs"
for v in vk_compute vk_hostmem vk_race vk_dynstate vk_mapwrite vk_multithread vk_offscreen vk_partial vk_reach \
	vk_trim_churn vk_trim_image vk_trim_layouts vk_callbound; do
	(cd "$T" && expect_rc 0 "cap.$v" "$CAP" -o "$T/$v.sbt" -- "$V/$v") || exit 1
	agree "$v" "$T/$v.sbt"
	rm -f "$T/$v.sbt"
done
(cd "$T" && expect_rc 0 cap.trim "$CAP" --submits 2-3 -o "$T/trim.sbt" -- "$V/vk_compute" --submits 5) || exit 1
agree vk_compute-trim "$T/trim-submits-2-3.sbt"
expect_rc 0 trim.info "$INFO" --memory --json "$T/trim-submits-2-3.sbt"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['leaks'] and all(l['before'] == 'window' for l in d['leaks']), d['leaks']
" "$T/trim.info.out" || fail "vk_compute-trim: no memory from before the window: $(cat "$T/trim.info.out")"
n=$(wc -l <"$T/agreed.log")
[ "$n" = "$need" ] || fail "$n traces checked, not $need"
echo "$n traces: both exports' counters agree with tsinfo --memory"
exit 0
