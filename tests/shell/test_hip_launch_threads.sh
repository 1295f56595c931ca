#!/bin/sh
# Launches from four threads while each stores its own function entries
# (hip_launch_threads, tests/hip/hip_launch_threads.hip, on the libamdhip64
# test double): the interposer's launch looks its function up without a
# lock (docs/hip.md "Limits of this phase").  Output unchanged under
# tscapture; every one of the 1,200 module launches and 1,200 <<<>>>
# launches is recorded with its kernel's name and argument layout, each
# module launch naming the function its own thread got; the trace replays
# with every checkpoint equal, plain and with --check-determinism.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_launch_threads" ] || { echo "no hipcc: hip_launch_threads is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES TSHIP_DOUBLE_RUNTIME_VERSION
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
hip_window
CO="$H/hip_module_kernels.hsaco"

expect_rc 0 run $PRE "$H/hip_launch_threads" "$CO"
printf 'thread %d: p[5] 1805.0\n' 0 1 2 3 >"$T/want"
cmp -s "$T/want" "$T/run.out" || fail "hip_launch_threads on the double: $(diff "$T/want" "$T/run.out")"
expect_rc 0 cap $PRE "$CAP" -o "$T/t.sbt" -- "$H/hip_launch_threads" "$CO"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
has cap err ", 2400 launches,"
expect_rc 0 dump "$INFO" --dump "$T/t.sbt"
sed -n 's/^seq=[0-9]* .* hip\.hipModuleGetFunction handle=\([0-9]*\) .*/\1/p' "$T/dump.out" | sort -u >"$T/fns"
[ "$(wc -l <"$T/fns")" -eq 4 ] || fail "not four functions got: $(cat "$T/fns")"
grep ' hip\.hipModuleLaunchKernel ' "$T/dump.out" >"$T/mod"
[ "$(wc -l <"$T/mod")" -eq 1200 ] || fail "not 1,200 module launches: $(wc -l <"$T/mod")"
[ "$(grep -c ' name="_Z10add_offsetPffi" .* params=[0-9a-f]* layout=000000000800000008000000040000000c00000004000000' "$T/mod")" -eq 1200 ] ||
	fail "a module launch without its name or layout: $(grep -v 'layout=' "$T/mod" | head -n 2)"
sed -n 's/.* hip\.hipModuleLaunchKernel handle=\([0-9]*\) .*/\1/p' "$T/mod" | sort | uniq -c | awk '{print $1, $2}' >"$T/per"
[ "$(awk '{print $1}' "$T/per" | sort -u)" = 300 ] && [ "$(awk '{print $2}' "$T/per")" = "$(cat "$T/fns")" ] ||
	fail "module launches not 300 for each function got: $(cat "$T/per")"
[ "$(grep -c ' hip\.hipLaunchKernel .* name="_Z5saxpyifPKfPf" .* layout=' "$T/dump.out")" -eq 1200 ] ||
	fail "not 1,200 <<<>>> launches with their name and layout"
for r in plain determinism; do
	case $r in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	esac
	expect_rc 0 "rp.$r" "$RP" --json "$@" "$T/t.sbt"
	n=$(json_field "$T/rp.$r.out" checkpoints)
	[ "$n" -ge 4 ] && [ "$(json_field "$T/rp.$r.out" matched)" = "$n" ] ||
		fail "replay $r: $(cat "$T/rp.$r.out")"
done
exit 0
