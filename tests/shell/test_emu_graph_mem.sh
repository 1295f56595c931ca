#!/bin/sh
# Graph memory per launch (issue 10: the memory profile and race detection;
# docs/tsinfo.md "--memory", docs/emulator.md "graph memory nodes"):
# CUDA allocates graph memory anew each time a graph runs ("graph
# allocations are considered recreated every time a graph runs"), so
# tsinfo --memory and the exports' memory counter count it ("graph") from
# each cuGraphLaunch to its free, and the race pass judges every access to
# its address by happens-before, naming the launch whose memory it is.
# Synthetic traces (tests/support/emu_gen.c):
# - graph_mem_relaunch: one exec launched twice on s1 (seq 9 and 12), the
#   first launch's memory freed by cuMemFreeAsync; a reader on s2 waits for
#   an event recorded after the first launch only: it races with the second
#   launch's w (one report, exact text), the two launches do not; the
#   second launch's memory is a leak named by that cuGraphLaunch and its
#   stack.  Before, the reader touched no allocation (it was recorded after
#   the free of the first launch's memory) and no race was reported.
# - graph_mem_ordered: the reader waits for the event after the second
#   launch: no race.
# - graph_mem_paths: an exec made with AUTO_FREE_ON_LAUNCH launched 3
#   times (each launch frees the last one's memory: never two live), a graph
#   whose free node frees the third launch's memory, and a capture another
#   stream joins through an event, whose cuMemAllocAsync (8192 bytes) is
#   allocated at the captured graph's launch and left live; a
#   cuMemAllocAsync after the capture is async memory at its record: the
#   exact series of changes.
# - hip_graph_mem: HIP records, hipMallocAsync / hipFreeAsync in a stream
#   capture on device 1: 2 graph allocations of 4096 bytes, one per launch,
#   each freed at its launch; a kernel on another stream races with both
#   launches' kernel, each report naming its launch.
# On the libcuda test double, tests/cuda/cuda_graph_nodes --launches 2 with
# --alloc-node (a free node), --alloc-node --no-free-node (cuMemFreeAsync
# after each launch) and --capture-alloc (cuMemAllocAsync/cuMemFreeAsync in
# a stream capture; with the address window and with TRACESMITH_CUDA_VA=off):
# the graph kind holds 8192 bytes from each of the two launches to its free
# (the launch itself, or the cuMemFreeAsync after it), so GPU 0 peaks at
# 32768 bytes (the program's three 8192-byte buffers and the graph memory)
# at the first launch and ends at 0, and the JSON counter "memory in use"
# reaches the same peak and end.  Before, the allocation node's memory was
# not counted (peak 24576) and the capture's was counted once, as "async",
# from its cuMemAllocAsync record.
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
INFO="$TOP/$BUILD/tsinfo"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$X" ] && [ -x "$INFO" ] || fail "no $X or $INFO (make)"
[ -x "$GEN" ] || fail "no $GEN (make $BUILD/tests/programs/emu_gen_trace)"

# ---- synthetic traces: races ------------------------------------------------------------------
for s in graph_mem_relaunch graph_mem_ordered graph_mem_paths hip_graph_mem; do
	expect_rc 0 "gen.$s" "$GEN" "$s" "$T/$s.sbt"
done
expect_rc 1 relaunch.r "$X" --races "$T/graph_mem_relaunch.sbt"
cat >"$T/relaunch.want" <<'EOF'
race (possible): no happens-before order between
  seq 12 kernel w on stream 0x100 (non-blocking) reads and may write 0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch at seq 12)
      #0 0x1007 emu_gen!seq7
  seq 15 kernel reader on stream 0x200 (non-blocking) reads and may write 0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch at seq 12)
      #0 0x100f emu_gen!seq15
races: 0 confirmed, 1 possible
EOF
cmp -s "$T/relaunch.want" "$T/relaunch.r.out" ||
	fail "graph_mem_relaunch: the race report is not the second launch's w and the reader: $(cat "$T/relaunch.r.out")"
expect_rc 0 ordered.r "$X" --races "$T/graph_mem_ordered.sbt"
[ "$(cat "$T/ordered.r.out")" = "races: 0 confirmed, 0 possible" ] ||
	fail "graph_mem_ordered: a race reported: $(cat "$T/ordered.r.out")"
expect_rc 1 hip.r "$X" --races "$T/hip_graph_mem.sbt"
cat >"$T/hip.want" <<'EOF'
race (possible): no happens-before order between
  seq 10 kernel k on stream 0x100 reads and may write 0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch at seq 10)
      #0 0x1006 emu_gen!seq6
  seq 12 kernel after on stream 0x200 (non-blocking) reads and may write 0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch at seq 11)
      #0 0x100c emu_gen!seq12
race (possible): no happens-before order between
  seq 11 kernel k on stream 0x100 reads and may write 0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch at seq 11)
      #0 0x1006 emu_gen!seq6
  seq 12 kernel after on stream 0x200 (non-blocking) reads and may write 0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch at seq 11)
      #0 0x100c emu_gen!seq12
races: 0 confirmed, 2 possible
EOF
cmp -s "$T/hip.want" "$T/hip.r.out" || fail "hip_graph_mem: not the two launches' k with after: $(cat "$T/hip.r.out")"

# graph_kind NAME JSON DEVICE: "allocations frees bytes_allocated peak_bytes
# peak_seq live live_bytes" of the graph kind on DEVICE in tsinfo --memory --json.
graph_kind() {
	python3 -c "
import json, sys
D = [d for d in json.load(open(sys.argv[1]))['devices'] if d['device'] == sys.argv[2]]
K = [k for d in D for k in d['kinds'] if k['kind'] == 'graph']
assert len(K) == 1, D
k = K[0]
print(k['allocations'], k['frees'], k['bytes_allocated'], k['peak_bytes'], k['peak_seq'], k['live'], k['live_bytes'])
" "$2" "$3" || fail "$1: no graph kind on $3 in $(cat "$2")"
}

# ---- synthetic traces: tsinfo --memory ---------------------------------------------------------
for s in graph_mem_relaunch graph_mem_ordered; do
	expect_rc 0 "mem.$s" "$INFO" --memory --json "$T/$s.sbt"
	# two launches of 4096 bytes, the first freed; peak at the first launch
	[ "$(graph_kind "$s" "$T/mem.$s.out" "GPU 0")" = "2 1 8192 4096 9 1 4096" ] ||
		fail "$s: graph memory $(graph_kind "$s" "$T/mem.$s.out" "GPU 0")"
done
expect_rc 0 relaunch.mem "$INFO" --memory "$T/graph_mem_relaunch.sbt"
has relaunch.mem out "  4096 bytes (4.0 KiB) graph on GPU 0, at 0x7000400000
    by cuda.cuGraphLaunch at seq 12, 0.000012000 s, thread 1
      #0  0x000000000000100c emu_gen!seq12"
expect_rc 0 mem.paths "$INFO" --memory --json "$T/graph_mem_paths.sbt"
python3 -c "
import json, sys
M = json.load(open(sys.argv[1]))
got = [(e['seq'], e['kind'], e['delta'], e['in_use']) for e in M['events'] if e['seq'] > 4]
want = [(9, 'graph', 4096, 4096), (10, 'graph', -4096, 0), (10, 'graph', 4096, 4096),
        (11, 'graph', -4096, 0), (11, 'graph', 4096, 4096), (15, 'graph', -4096, 0),
        (25, 'graph', 8192, 16384), (26, 'async', 4096, 20480)]
assert got == want, got
G = {d['device']: d for d in M['devices']}
assert (G['GPU 0']['peak_bytes'], G['GPU 0']['in_use_end']) == (4096, 0), G
assert (M['live'], M['live_bytes']) == (4, 20480), M
" "$T/mem.paths.out" >"$T/paths.check" 2>&1 || fail "graph_mem_paths: $(cat "$T/paths.check")"
expect_rc 0 mem.hip "$INFO" --memory --json "$T/hip_graph_mem.sbt"
[ "$(graph_kind hip "$T/mem.hip.out" "GPU 1")" = "2 2 8192 4096 10 0 0" ] ||
	fail "hip_graph_mem: graph memory $(graph_kind hip "$T/mem.hip.out" "GPU 1")"

# ---- the libcuda double: cuda_graph_nodes ------------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA TRACESMITH_TRIGGER \
	TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
PROG="$TOP/$BUILD/tests/cuda/cuda_graph_nodes"
expect_rc 0 cap.galloc "$CAP" -o "$T/galloc.sbt" -- "$PROG" --launches 2 --alloc-node
expect_rc 0 cap.gnofree "$CAP" -o "$T/gnofree.sbt" -- "$PROG" --launches 2 --alloc-node --no-free-node
expect_rc 0 cap.gcap "$CAP" -o "$T/gcap.sbt" -- "$PROG" --launches 2 --capture-alloc
expect_rc 0 cap.gcapoff env TRACESMITH_CUDA_VA=off "$CAP" -o "$T/gcapoff.sbt" -- "$PROG" --launches 2 --capture-alloc

# check_mem NAME FREED: the graph memory of $T/NAME.sbt in tsinfo --memory
# --json: one event of +8192 at each of the trace's last two cuGraphLaunch
# records (in use 32768) and one of -8192 (in use 24576) at the same launch
# (FREED = launch) or at the cuMemFreeAsync right after it (FREED = free);
# GPU 0's peak 32768 at the first of them and 0 at the end; the JSON
# counter of the exports the same peak and end.
check_mem() {
	expect_rc 0 "mem.$1" "$INFO" --memory --json "$T/$1.sbt"
	expect_rc 0 "dump.$1" "$INFO" --dump --json "$T/$1.sbt"
	expect_rc 0 "json.$1" "$X" -f json -o "$T/$1.json" "$T/$1.sbt"
	python3 -c "
import json, sys
M = json.load(open(sys.argv[1]))
R = [json.loads(l) for l in open(sys.argv[2])]
freed = sys.argv[4]
L = [r['seq'] for r in R if r['name'] == 'cuda.cuGraphLaunch'][-2:]
nxt = {r['seq'] - 1: r for r in R}
want = []
for l in L:
    if freed == 'free':
        assert nxt[l]['name'] == 'cuda.cuMemFreeAsync', nxt[l]
        f = l + 1
    else:
        f = l
    want += [(l, 8192, 32768), (f, -8192, 24576)]
got = [(e['seq'], e['delta'], e['in_use']) for e in M['events'] if e['kind'] == 'graph']
assert got == want, ('graph events', got, want)
G = [d for d in M['devices'] if d['device'] == 'GPU 0']
assert len(G) == 1 and (G[0]['peak_bytes'], G[0]['peak_seq'], G[0]['in_use_end']) == (32768, L[0], 0), G
K = [k for k in G[0]['kinds'] if k['kind'] == 'graph'][0]
assert (K['allocations'], K['frees'], K['bytes_allocated'], K['peak_bytes'], K['live_bytes']) == (2, 2, 16384, 8192, 0), K
assert not [k for k in G[0]['kinds'] if k['kind'] == 'async'], G
C = [e['args'] for e in json.load(open(sys.argv[3]))['traceEvents'] if e['ph'] == 'C' and e['name'] == 'memory in use']
assert (max(c['device'] for c in C), C[-1]['device']) == (32768, 0), C
print('launches', L)
" "$T/mem.$1.out" "$T/dump.$1.out" "$T/$1.json" "$2" >"$T/check.$1.out" 2>&1 ||
		fail "$1: $(cat "$T/check.$1.out")"
	echo "$1: graph memory 8192 bytes per launch at seq $(sed -n 's/launches //p' "$T/check.$1.out"), GPU 0 peak 32768 bytes, counter as tsinfo"
}
check_mem galloc launch
check_mem gnofree free
check_mem gcap launch
check_mem gcapoff launch

# the races of these traces stay those of test_emu_graph_nodes.sh: the
# graph memory's own accesses (the memset node, the second vadd; the
# capture's memset and kernel) are ordered inside each launch and the
# launches by their stream
for n in galloc gnofree gcap gcapoff; do
	expect_rc 1 "$n.r" "$X" --races "$T/$n.sbt"
	has "$n.r" out "races: 8 confirmed, 0 possible"
	if grep -q 'graph memory of' "$T/$n.r.out"; then
		fail "$n: a race on graph memory: $(cat "$T/$n.r.out")"
	fi
done
exit 0
