#!/bin/sh
# tsreplay's HIP backend on the libamdhip64 test double, end to end: the
# hipcc-built programs of tests/hip run on the double with the results
# their kernels compute; captured with tscapture and replayed with every
# device-to-host checkpoint equal: <<<>>> launches (hip_saxpy), a by-value
# struct of device pointers on two streams ordered by an event, with a
# __device__ global written by hipMemcpyToSymbol (hip_struct), module
# launches with kernelParams, with extra and through the mangled
# hipExtModuleLaunchKernel (hip_module), a graph built by stream capture
# and launched twice (hip_graph); at the captured addresses and, with
# --hip-no-reserve, moved with their pointer arguments rewritten (the
# struct's too); --range after the launch and before the checkpoint,
# on hip_module from its extra and its hipExtModuleLaunchKernel launches, on
# hip_struct from its event record, its wait and its second launch;
# --check-determinism, with --per-command too; --streams single and
# single,multi (graphs refused in single); the event wait between hip_struct's streams dropped from
# its trace: caught under the double's seeded order, not with --streams
# single, a race with single,multi, placed at the launch with
# --per-command; a planted divergence (the launch's scalar changed: exit 3,
# the copy, allocation and kernel named); a wild pointer planted in a
# launch (hipErrorIllegalAddress from the double, one line, exit 1, no
# crash); a kernel with no host twin
# (NOT RUN on the double, its checkpoint not compared); damaged traces
# (seeded mutants: a result or one named error, no crash); the double's
# exports; a runtime that cannot be loaded, named.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_saxpy" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
# In a sanitizer build the double needs its runtime loaded first in the
# uninstrumented hipcc programs (tests/run.sh sets verify_asan_link_order=0):
# PRE runs a program (or tscapture, which keeps it after its interposer) so.
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
# HIP's default window lies outside ThreadSanitizer's memory layout
# (hip_window).
hip_window

# all_match NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# checkpoints compared, all matched.
all_match() {
	am_name=$1 am_want=$2
	shift 2
	expect_rc 0 "$am_name" "$RP" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" = "$am_want" ] && [ "$m" = "$am_want" ] ||
		fail "$am_name: $n checkpoints, $m matched, expected $am_want of $am_want: $(cat "$T/$am_name.out")"
}

# seq_of TRACE CALL [N]: the seq of the Nth (default 1st) record of CALL.
seq_of() {
	"$INFO" --dump "$1" | grep " hip\.$2 " | sed -n "${3:-1}s/^seq=\([0-9]*\) .*/\1/p"
}

# The programs on the double compute what their kernels compute.
expect_rc 0 saxpy.run $PRE "$H/hip_saxpy"
has saxpy.run out "y[3] 7.0"
expect_rc 0 struct.run $PRE "$H/hip_struct"
has struct.run out "y[5] 11.5"
expect_rc 0 module.run $PRE "$H/hip_module" "$H/hip_module_kernels.hsaco"
has module.run out "host[3] 13.0"
expect_rc 0 graph.run $PRE "$H/hip_graph"
has graph.run out "h[3] 7.0 h[5] 9.0 h[8] 3.0"
# A wild access by a twin: the runtime's error, the program runs on.
expect_rc 0 wild.run $PRE "$H/hip_graph" wild
has wild.run out "wild launch 700"
has wild.run err "libamdhip64 test double: kernel _Z4pokePfxf: illegal address"

# The double exports the HIP names of its version script and one of its own
# (the version nodes, ROCm's and the double's tship_rocm6, are left out).
nm -D --defined-only "$DBL/libamdhip64.so.5" | awk '{print $3}' | sed 's/@.*//' |
	grep -v '^hip_[0-9.]*$' | grep -v '^tship_rocm6$' | sort >"$T/exports"
sed -n 's/^\t\t\([A-Za-z_0-9]*\);$/\1/p' "$TOP/tests/doubles/hip/thd.map" | sort >"$T/map"
cmp -s "$T/exports" "$T/map" || fail "the double's exports differ from thd.map: $(diff "$T/map" "$T/exports")"
readelf -d "$DBL/libamdhip64.so.5" | grep -q 'SONAME.*\[libamdhip64.so.5\]' || fail "the double's soname"

# capture NAME PROG ARGS...
capture() {
	c_name=$1
	shift
	expect_rc 0 "$c_name.cap" $PRE "$CAP" -o "$T/$c_name.sbt" -- "$@"
	cmp -s "$T/$c_name.run.out" "$T/$c_name.cap.out" ||
		fail "$c_name: output changed under tscapture: $(diff "$T/$c_name.run.out" "$T/$c_name.cap.out")"
}
capture saxpy "$H/hip_saxpy"
capture struct "$H/hip_struct"
capture module "$H/hip_module" "$H/hip_module_kernels.hsaco"
capture graph "$H/hip_graph"
expect_rc 0 graph.dump "$INFO" --dump "$T/graph.sbt"
[ "$(grep -c 'hip.hipLaunchKernel .*capture_status=1' "$T/graph.dump.out")" -eq 2 ] ||
	fail "graph: the two launches are not recorded as captured: $(grep hipLaunch "$T/graph.dump.out")"
has graph.dump out "hip.hipGraphInstantiate"
expect_rc 0 module.dump "$INFO" --dump "$T/module.sbt"
# A launch moved after its module's unload is refused, never run with the
# unloaded module's kernel description (freed with the module).
"$MUT" "$T/module.sbt" "$T/unloaded.sbt" --move "$(seq_of "$T/module.sbt" hipModuleUnload)":"$(seq_of \
	"$T/module.sbt" hipModuleLaunchKernel)" >/dev/null || fail "sbt_mutate --move of the unload"
expect_rc 1 unloaded "$RP" "$T/unloaded.sbt"
has unloaded err "its module was unloaded (hipModuleUnload) before this launch"
has module.dump out "hip.hipExtModuleLaunchKernel"
[ "$(grep -c 'hip.hipModuleLaunchKernel .*extra=' "$T/module.dump.out")" -eq 1 ] ||
	fail "module: no launch with extra: $(grep Launch "$T/module.dump.out")"

for p in saxpy struct module graph; do
	# at the captured addresses (the reservation at each one worked: no note)
	all_match "$p.replay" 1 "$T/$p.sbt"
	if grep -q "not its captured" "$T/$p.replay.err"; then
		fail "$p: an allocation was moved without --hip-no-reserve: $(cat "$T/$p.replay.err")"
	fi
	# moved: pointer arguments rewritten (hip_struct's struct holds two)
	all_match "$p.moved" 1 --hip-no-reserve "$T/$p.sbt"
	all_match "$p.determinism" 1 --check-determinism "$T/$p.sbt"
	has "$p.determinism" out '"runs":3'
done
all_match struct.moved.determinism 1 --check-determinism --runs 2 --hip-no-reserve "$T/struct.sbt"
# --per-command: every run's copies of each command's footprint agree;
# results per run, one per (command, allocation): saxpy 4 (two uploads,
# the launch's x and y), struct 5 (the symbol copy's global, the memset,
# the fill's y, the axpy's x and y), module 4 (the upload, three launches
# of the one buffer), graph 3 (the memset, the allocation after each of
# the two graph launches; the work captured into the graph is not run).
for pn in saxpy:4 struct:5 module:4 graph:3; do
	p=${pn%:*} pc_want=${pn#*:}
	all_match "$p.percmd" 1 --check-determinism --per-command "$T/$p.sbt"
	r=$(json_field "$T/$p.percmd.out" command_results)
	[ "$r" = "$pc_want" ] || fail "$p: --per-command compared '$r' results, not $pc_want: $(cat "$T/$p.percmd.out")"
done
all_match struct.percmd.moved 1 --check-determinism --per-command --hip-no-reserve "$T/struct.sbt"
# --streams single: every stream's work on the null stream, in capture
# order; a list alternates the runs.  Stream capture needs a stream.
for p in saxpy struct module; do
	all_match "$p.single" 1 --streams single "$T/$p.sbt"
	all_match "$p.alternate" 1 --check-determinism --streams single,multi "$T/$p.sbt"
done
expect_rc 1 graph.single "$RP" --streams single "$T/graph.sbt"
has graph.single err "(hip.hipStreamBeginCapture): stream capture cannot be replayed with --streams single"
expect_rc 2 streams.bogus "$RP" --streams bogus "$T/saxpy.sbt"
has streams.bogus err "tsreplay: --streams: expected single or multi, got 'bogus'"
expect_rc 2 device.one "$RP" --device 1 "$T/saxpy.sbt"
has device.one err "tsreplay: backend hip: cannot open: --device 1: the HIP runtime libamdhip64.so.5 has 1 device (ordinals from 0)"
expect_rc 2 device.bad "$RP" --device x "$T/saxpy.sbt"
has device.bad err "--device: expected a HIP device ordinal from 0 to 1024, got 'x'"
TSHIP_DOUBLE_DEVICES=2 all_match device.two 1 --device 1 "$T/saxpy.sbt"

# The double runs queued work in a seeded order that keeps only what the
# program orders: hip_struct's two streams are ordered by its event alone.
# Without the hipStreamWaitEvent the replay differs for some seeds (the
# default 1 among them), never with it; --streams single serialises them
# again, and single,multi reports runs that part as a race (exit 4).
w=$(seq_of "$T/struct.sbt" hipStreamWaitEvent)
[ -n "$w" ] || fail "struct: no hipStreamWaitEvent record"
expect_rc 0 mut "$MUT" "$T/struct.sbt" "$T/struct_nowait.sbt" --drop "$w"
differ=0
for seed in 1 2 3 4 5 6 7 8; do
	export TSHIP_DOUBLE_SEED=$seed
	all_match "struct.seed$seed" 1 "$T/struct.sbt"
	rc=0
	"$RP" -q "$T/struct_nowait.sbt" >/dev/null 2>&1 || rc=$?
	case $rc in
	0) ;;
	3) differ=$((differ + 1)) ;;
	*) fail "struct without its event wait, seed $seed: exit $rc" ;;
	esac
done
unset TSHIP_DOUBLE_SEED
[ "$differ" -ge 1 ] || fail "struct: dropping the event wait changed nothing under 8 seeds"
expect_rc 3 struct.nowait "$RP" "$T/struct_nowait.sbt"
all_match struct.nowait.single 1 --streams single "$T/struct_nowait.sbt"
expect_rc 4 struct.nowait.alternate "$RP" --check-determinism --streams single,multi "$T/struct_nowait.sbt"
has struct.nowait.alternate err "run 1 (serialised) and run 2 (concurrent) part at checkpoint"
# --per-command (the core's footprint, as for CUDA): the runs are also
# compared after every command, and the race is placed at the launch that
# read the memset's bytes too early.
l=$(seq_of "$T/struct_nowait.sbt" hipLaunchKernel 2)
[ -n "$l" ] || fail "struct: no second hipLaunchKernel record"
expect_rc 4 struct.nowait.percmd "$RP" --check-determinism --streams single,multi --per-command "$T/struct_nowait.sbt"
has struct.nowait.percmd err "tsreplay: runs differ: run 1 and run 2 part first after the command at seq $l (--per-command)"
has struct.nowait.percmd err "likely race: run 1 (serialised) and run 2 (concurrent) part after the command at seq $l (hip.hipLaunchKernel"
# Sampled legal orders (--schedule-seed, the emulator's order source): with
# its event wait every seed replays equal and the seeds agree; without it
# some seeds run the launch before the memset it reads, and the runs of
# --schedule-seeds part at that launch (exit 4).
all_match struct.sched 1 --schedule-seed 3 "$T/struct.sbt"
expect_rc 0 struct.scheds "$RP" --check-determinism --schedule-seeds 1,2,3,4,5,6,7,8 "$T/struct.sbt"
expect_rc 4 struct.nowait.scheds "$RP" --check-determinism --schedule-seeds 1,2,3,4,5,6,7,8 "$T/struct_nowait.sbt"
has struct.nowait.scheds err "part first after the command at seq $l (--per-command)"
has struct.nowait.scheds err "(hip.hipLaunchKernel (kernel _Z11axpy_struct9axpy_argsi)"
expect_rc 2 graph.sched "$RP" --schedule-seed 3 "$T/graph.sbt"
has graph.sched err "launches a graph: a sampled order runs every command on one stream"
expect_rc 2 struct.sched.streams "$RP" --schedule-seed 3 --streams multi "$T/struct.sbt"
has struct.sched.streams err "--streams does not go with --schedule-seed"
for seed in 2 3; do
	expect_rc 0 "struct.run$seed" env TSHIP_DOUBLE_SEED=$seed ${SANRT:+LD_PRELOAD=$SANRT} "$H/hip_struct"
	has "struct.run$seed" out "y[5] 11.5"
done

# --range: starting after the launch (it is fast-forwarded) and ending
# before the checkpoint.
l=$(seq_of "$T/saxpy.sbt" hipLaunchKernel)
[ -n "$l" ] || fail "saxpy: no hipLaunchKernel record"
all_match saxpy.range 1 --range "$((l + 1)):" "$T/saxpy.sbt"
has saxpy.range err "fast-forwarded $l records before seq $((l + 1))"
expect_rc 0 saxpy.range_none "$RP" --json --range ":$l" "$T/saxpy.sbt"
[ "$(json_field "$T/saxpy.range_none.out" checkpoints)" = 0 ] || fail "saxpy: checkpoints before the launch"
g=$(seq_of "$T/graph.sbt" hipGraphLaunch 2)
all_match graph.range 1 --range "$g:" --check-determinism "$T/graph.sbt"
# hip_module: from the launch with extra (the kernelParams launch
# fast-forwarded) and from the mangled hipExtModuleLaunchKernel, at the
# captured addresses and moved; ending before the copy back: none compared.
e=$(seq_of "$T/module.sbt" hipModuleLaunchKernel 2)
x=$(seq_of "$T/module.sbt" hipExtModuleLaunchKernel)
[ -n "$e" ] && [ -n "$x" ] || fail "module: no second hipModuleLaunchKernel or no hipExtModuleLaunchKernel record"
all_match module.range_extra 1 --range "$e:" --check-determinism "$T/module.sbt"
has module.range_extra err "fast-forwarded $((e - 1)) records before seq $e"
all_match module.range_ext 1 --range "$x:" --check-determinism "$T/module.sbt"
all_match module.range_ext_moved 1 --range "$x:" --hip-no-reserve "$T/module.sbt"
expect_rc 0 module.range_none "$RP" --json --range "$e:$((x + 1))" "$T/module.sbt"
[ "$(json_field "$T/module.range_none.out" checkpoints)" = 0 ] || fail "module: checkpoints inside the launches"
[ "$(json_field "$T/module.range_none.out" records_executed)" = 2 ] ||
	fail "module: the range of two launches ran $(json_field "$T/module.range_none.out" records_executed) records"
# hip_struct: from the event record (the fill fast-forwarded), from the
# wait (the record fast-forwarded: the wait still orders the second
# stream) and from the axpy launch, on two streams and moved.
for c in hipEventRecord hipStreamWaitEvent "hipLaunchKernel 2"; do
	s=$(seq_of "$T/struct.sbt" $c)
	[ -n "$s" ] || fail "struct: no $c record"
	all_match "struct.range$s" 1 --range "$s:" --check-determinism "$T/struct.sbt"
	all_match "struct.range$s.moved" 1 --range "$s:" --hip-no-reserve "$T/struct.sbt"
done

# A planted divergence: the launch's scalar a (params bytes 4-7, 2.0f)
# becomes 8.0f.  The params field (24 bytes) ends 34 bytes before the
# payload's end (the layout field: key, length, 32 bytes).
expect_rc 0 mut "$MUT" "$T/saxpy.sbt" "$T/saxpy_a.sbt" --set "$l:-51:65"
expect_rc 0 saxpy_a.dump "$INFO" --dump "$T/saxpy_a.sbt"
grep -q "hip.hipLaunchKernel .*params=0004000000000041" "$T/saxpy_a.dump.out" ||
	fail "saxpy: the mutation did not change a to 8.0f: $(grep hipLaunchKernel "$T/saxpy_a.dump.out")"
expect_rc 3 saxpy.diverge "$RP" "$T/saxpy_a.sbt"
has saxpy.diverge out "1 differ"
has saxpy.diverge err "tsreplay: hip: the device-to-host copy at seq"
has saxpy.diverge err "kernel:   _Z5saxpyifPKfPf (launch seq $l), the last kernel given a pointer into it"
# A wild pointer: y's top byte set, so it lies in no allocation.
expect_rc 0 mut "$MUT" "$T/saxpy.sbt" "$T/saxpy_wild.sbt" --set "$l:-35:127"
expect_rc 0 saxpy_wild.dump "$INFO" --dump "$T/saxpy_wild.sbt"
grep -q "hip.hipLaunchKernel .*params=[0-9a-f]*7f layout=" "$T/saxpy_wild.dump.out" ||
	fail "saxpy: the mutation did not set y's top byte: $(grep hipLaunchKernel "$T/saxpy_wild.dump.out")"
expect_rc 1 saxpy.wild "$RP" "$T/saxpy_wild.sbt"
has saxpy.wild err "tsreplay: backend hip: record seq $l (hip.hipLaunchKernel): hipModuleLaunchKernel failed with hipErrorIllegalAddress (700)"
has saxpy.wild err "libamdhip64 test double: kernel _Z5saxpyifPKfPf: illegal address"

# A kernel with no host twin: NOT RUN on the double, at capture and at
# replay, and the checkpoint after it is not compared.
expect_rc 0 notwin.run $PRE "$H/hip_graph" notwin
has notwin.run err "libamdhip64 test double: kernel _Z7no_twinPf has no host twin: NOT RUN"
capture notwin "$H/hip_graph" notwin
expect_rc 0 notwin.replay "$RP" "$T/notwin.sbt"
has notwin.replay out "1 compared, 1 matched, 0 differ, 1 NOT COMPARED"
has notwin.replay out "which ran nothing on the test double"

# Damaged traces (40 seeded mutants of each: bytes, cuts, moves, drops,
# handles) end with a result or one named error, never a crash or a hang.
for p in struct module graph; do
	mkdir -p "$T/mut_$p"
	expect_rc 0 "mut_$p" "$MUT" --batch "$T/$p.sbt" "$T/mut_$p" 1 40
	for f in "$T/mut_$p"/*.sbt; do
		rc=0
		timeout 60 "$RP" -q --check-determinism --runs 2 "$f" >/dev/null 2>"$T/mut.err" || rc=$?
		case $rc in
		0 | 3) ;;
		1) grep -q '^tsreplay: ' "$T/mut.err" ||
			fail "$f ($(grep "$(basename "$f"):" "$T/mut_$p.out")): exit 1 without a message: $(cat "$T/mut.err")" ;;
		*) fail "$f ($(grep "$(basename "$f"):" "$T/mut_$p.out")): exit $rc: $(cat "$T/mut.err")" ;;
		esac
	done
done

# No runtime to load: named, exit 1.
expect_rc 1 noruntime env TRACESMITH_HIP_RUNTIME="$T/none/libamdhip64.so.5" "$RP" "$T/saxpy.sbt"
has noruntime err "cannot load the HIP runtime $T/none/libamdhip64.so.5"
[ "$(wc -l <"$T/noruntime.err")" -eq 1 ] || fail "noruntime: more than one line: $(cat "$T/noruntime.err")"
echo "ok"
