#!/bin/sh
# The CUDA replay fuzz target (tests/fuzz/fuzz_cu_replay.c: decode, the
# replay backend and the libcuda test double in one process per input)
# over a small corpus, as make test replays every fuzz target's corpus:
# the H100 traces of tests/fixtures/h100 that replay on the double, a
# capture of cuda_driver_app, one mutant for each crash and hang class the
# mutants found (each once killed the replay or hung it), and
# CU_FUZZ_MUTANTS (default 300) seeded mutants of those traces.  Every
# input must end with an exit status tsreplay gives a trace (0, 1 with a
# message, 3), never a signal or a sanitizer report (under make asan).
# Classes:
#   - cuMemFreeHost moved between the async copy into pinned memory and its
#     checkpoint (the checkpoint read freed memory: SIGSEGV);
#   - a kernel's pointer parameter made wild (the double's host code
#     followed it);
#   - a twin launch of 2^31 - 1 blocks (hours of host loops: a hang);
#   - a module unloaded ahead of its launches (the driver was handed a
#     function of an unloaded module);
#   - a module unloaded ahead of the launch of a graph captured from its
#     kernels (cuda_graph_app: the double unmapped the module, and
#     cuGraphLaunch read its kernel table from unmapped memory: SIGSEGV,
#     found by cu_replay_mutants.sh at seeds 41108 and 140700);
#   - a cuMemcpyHtoD into VMM memory a mutated cuMemSetAccess made
#     read-only (cuda_vmm_app, cu_replay_mutants.sh seed 54003: the
#     double's stream worker died of SIGSEGV at 0x200000000000).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
F="$TOP/$BUILD/tests/fuzz_cu_replay_replay"
[ -e "$DBL/libcuda.so.1" ] && [ -x "$F" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED TSCUDA_DOUBLE_ADDR_SEED \
	TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA FUZZ_CU_FORK
# (under make tsan a window TSan can map: the default lies outside its layout)
cuda_window
export TSCUDA_DOUBLE_QUIET=1 FUZZ_CU_REPORT=1 TRACESMITH_CUDA_DRIVER="$DBL/libcuda.so.1"
ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS
M="$TOP/$BUILD/tests/sbt_mutate"
INFO="$TOP/$BUILD/tsinfo"
H="$TOP/tests/fixtures/h100"
N=${CU_FUZZ_MUTANTS:-300}

LD_LIBRARY_PATH="$DBL" expect_rc 0 cap "$TOP/$BUILD/tscapture" -o "$T/drv.sbt" -- \
	"$TOP/$BUILD/tests/cuda/cuda_driver_app" --size 256
LD_LIBRARY_PATH="$DBL" expect_rc 0 capgraph "$TOP/$BUILD/tscapture" -o "$T/graph.sbt" -- \
	"$TOP/$BUILD/tests/cuda/cuda_graph_app" --launches 3
LD_LIBRARY_PATH="$DBL" expect_rc 0 capvmm "$TOP/$BUILD/tscapture" -o "$T/vmm.sbt" -- \
	"$TOP/$BUILD/tests/cuda/cuda_vmm_app" --nodes 8
set -- "$H/fixed-va/driver_cubin.sbt" "$H/as-captured/driver_cubin.sbt" "$H/fixed-va/saxpy_static.sbt" \
	"$T/drv.sbt" "$T/graph.sbt"

seq_of() {
	"$INFO" --dump "$1" | grep -F -- "$2" | head -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/'
}
# mutant NAME SRC WANT OP...: a class's input; WANT must show in its dump.
mutant() {
	name=$1 src=$2 want=$3
	shift 3
	"$M" "$src" "$T/c_$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
	"$INFO" --dump "$T/c_$name.sbt" | grep -q -- "$want" || fail "$name: '$want' not in its dump"
}
PINNED=$(seq_of "$T/drv.sbt" "cuda.cuMemFreeHost ")
INTO=$(seq_of "$T/drv.sbt" "cuda.cuMemcpyDtoHAsync ")
FILL=$(seq_of "$T/drv.sbt" 'name="fill" stream=')
UNLOAD=$(seq_of "$T/drv.sbt" "cuda.cuModuleUnload ")
mutant freehost "$T/drv.sbt" "^seq=$((INTO + 1)) .*cuda.cuMemFreeHost " --move "$PINNED:$((INTO + 1))"
mutant unload "$T/drv.sbt" "^seq=$FILL .*cuda.cuModuleUnload " --move "$UNLOAD:$FILL"
# driver_cubin's record 15 is gpu_fill's launch: its pointer 0x200000000000
# made 0x600000000000 (payload byte -37), its grid_x 2^31 - 1 (varint 13).
mutant wild "$H/fixed-va/driver_cubin.sbt" "^seq=15 .*params=0000000000600000" --set 15:-37:96
mutant bigtwin "$H/fixed-va/driver_cubin.sbt" "^seq=15 .*grid_x=2147483647 " --varint 15:13:2147483647
GUNLOAD=$(seq_of "$T/graph.sbt" "cuda.cuModuleUnload ")
GLAUNCH=$(seq_of "$T/graph.sbt" "cuda.cuGraphLaunch ")
mutant graphunload "$T/graph.sbt" "^seq=$GLAUNCH .*cuda.cuModuleUnload " --move "$GUNLOAD:$GLAUNCH"
if tsan_build; then
	# (under make tsan the window moves the addresses, so the seed's
	# mutations land elsewhere: its two that matter, directed)
	mutant readonly "$T/vmm.sbt" "^seq=13 .*cuda.cuMemSetAccess flags=1 " --varint 12:1:1 --dup 3
else
	mutant readonly "$T/vmm.sbt" "^seq=13 .*cuda.cuMemSetAccess flags=1 " --seed 54003
fi
inputs="$* $T/c_freehost.sbt $T/c_unload.sbt $T/c_wild.sbt $T/c_bigtwin.sbt $T/c_graphunload.sbt"
inputs="$inputs $T/c_readonly.sbt"

ntraces=$#
s=1
while [ "$s" -le "$N" ]; do
	i=$(((s - 1) % ntraces + 1))
	eval "trace=\${$i}"
	"$M" "$trace" "$T/m$s.sbt" --seed "$s" >/dev/null || fail "sbt_mutate $trace --seed $s"
	inputs="$inputs $T/m$s.sbt"
	s=$((s + 1))
done

rc=0
# shellcheck disable=SC2086
timeout -s KILL 600 "$F" $inputs >"$T/fuzz.out" 2>"$T/fuzz.err" || rc=$?
! grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$T/fuzz.err" ||
	fail "a sanitizer report: $(grep -m1 -A12 "ERROR: AddressSanitizer\|runtime error:" "$T/fuzz.err")"
[ "$rc" -eq 0 ] || fail "fuzz_cu_replay_replay exit $rc: $(tail -n 5 "$T/fuzz.err")"
want=$(echo $inputs | wc -w)
[ "$(grep -c '^exit ' "$T/fuzz.out")" -eq "$want" ] || fail "$want inputs, $(grep -c '^exit ' "$T/fuzz.out") replayed"
bad=$(grep '^exit ' "$T/fuzz.out" | grep -v '^exit [013]$' | head -n 1)
[ -z "$bad" ] || fail "an input ended with '$bad'"
# The classes end as they should: each stops with exit 1 and a message,
# the unmutated fixed-va driver_cubin replays with its checkpoints equal.
awk '/^exit /{e=$2} / bytes ok$/{print $1, e}' "$T/fuzz.out" >"$T/results"
for c in freehost unload wild bigtwin readonly; do
	grep -q "c_$c.sbt: 1\$" "$T/results" || fail "$c: $(grep "c_$c" "$T/results")"
done
if tsan_build; then
	# (0x200000000000 lies outside TSan's memory layout: the double cannot
	# place the fixed-va fixture's window there, so it is replayed moved and
	# a pointer it keeps in device memory is stale)
	echo "note: a TSan build: fixed-va/driver_cubin.sbt is replayed moved, its checkpoints not required equal"
else
	grep -q "fixed-va/driver_cubin.sbt: 0\$" "$T/results" || fail "driver_cubin: $(head -n 1 "$T/results")"
fi
grep -q "CUDA_ERROR_ILLEGAL_ADDRESS" "$T/fuzz.err" || fail "no illegal address reported"
grep -q "CUDA_ERROR_LAUNCH_TIMEOUT" "$T/fuzz.err" || fail "no launch timeout reported"
grep -q "record seq 16 (cuda.cuMemcpyHtoD): destination $(printf '0x%x' "$WIN_BASE") + 4194304 is read-only memory" "$T/fuzz.err" ||
	fail "seed 54003's copy into read-only memory not refused: $(grep -m1 "seq 16" "$T/fuzz.err")"
echo "ok: $want inputs through the CUDA replay fuzz target: $(grep -c '^exit [03]$' "$T/fuzz.out") replayed," \
	"$(grep -c '^exit 1$' "$T/fuzz.out") stopped with a message"
