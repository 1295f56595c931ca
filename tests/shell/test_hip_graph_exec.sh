#!/bin/sh
# The exec setters (docs/hip.md "Graphs built node by node"), with
# hip_graph_exec (tests/hip/hip_graph_exec.c, no kernel), on the
# libamdhip64 test double:
# - the double serves hipGraphExecMemsetNodeSetParams and
#   hipGraphExecMemcpyNodeSetParams1D as clr 5.2 does: the exec's clone of
#   the node takes the new parameters, the graph's node keeps its own (a
#   second exec of the graph runs the old ones), no parameters is
#   hipErrorInvalidValue (hipGraphExecMemcpyNodeSetParams too);
# - tscapture records each as itself (parent = the exec, node, the fields
#   of the matching add; the failed one with its error), output unchanged,
#   nothing counted as not modeled;
# - tsreplay applies them to the replayed exec: the three read-backs'
#   checkpoints are equal, plain, with --check-determinism and with
#   --profile (the exec is built again before its launch is timed), and the
#   second differs from the first and third in the trace, so the replay
#   ran the new parameters at the second launch and the old ones at the
#   other exec's; the failed setter is not re-issued (it is expected to
#   fail the same way); without the memset setter's record the second
#   read-back differs (exit 3), and moved before the instantiation it is
#   refused by name; a --range from the second launch fast-forwards
#   them and its read-back is equal;
# - tsinfo reads the trace, and the emulator (tsexport) runs the new
#   parameters at the second launch, the old ones at the other exec's,
#   naming the set nodes by HIP's calls;
# - with hip_graph_edit exec (tests/hip/hip_graph_edit.hip, saxpy): the
#   same for hipGraphExecKernelNodeSetParams (a = 5 at the second launch:
#   y[5] 25.0), its failed form (a null function) recorded with its error;
# - with hip_graph_exec update: hipGraphExecUpdate as clr 5.2 serves it on
#   the double (the graph's nodes paired with the exec's in level order,
#   not the order they were added in; a changed topology and a changed
#   kind fail with hipErrorGraphExecUpdateFailure and their result, the
#   second after setting the pairs before it, its error node the graph's;
#   a graph whose edge was removed keeps the level clr gives it, so that
#   its level order misses a node and the update finds the topology
#   changed);
#   tscapture records each update as itself with the pairs (deps = the
#   graph's level order, deps_to = the exec's), output unchanged; tsreplay
#   applies them (the four read-backs equal, plain, with
#   --check-determinism and with --range from the last launch) and
#   reproduces the failures; without the update that worked the next
#   read-back differs (exit 3), and an update whose pair names a node the
#   graph does not hold yet is refused by name, as it worked and as it
#   failed; tsinfo and the emulator read the trace;
# - with hip_graph_exec order and destroy on the double answering ROCm
#   6.0's version (TSHIP_DOUBLE_RUNTIME_VERSION): clr 6's topological
#   pairing, where the level order pairs otherwise (the 5.2 double fails
#   the same update), and clr 6's failures (another count with no error
#   node, a changed kind, another count of dependencies, another copy
#   kind), recorded with sub=1 and the topological orders, replayed equal
#   under either version (plain, --check-determinism, --range), the
#   failures reproduced, damaged accounts refused by name (a node not held
#   yet, a count of dependencies, the level order's account, an unknown
#   order); clr 6's hipGraphDestroyNode leaving the middle of three
#   children counted, so that the graph's order misses it;
# - under a runtime answering ROCm 7's version every update is recorded as
#   not modeled and replay refuses the launch after it.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_graph_exec" ] || { echo "no libamdhip64 to link against: hip_graph_exec is not built (scripts/deps.sh installs it)"; exit 77; }
[ -x "$H/hip_graph_edit" ] || { echo "no hipcc: hip_graph_edit is not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TSHIP_DOUBLE_DEVICES
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
EXPORT="$TOP/$BUILD/tsexport"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
hip_window

expect_rc 0 run $PRE "$H/hip_graph_exec"
has run out "first: 11 11 11 hash 17925223560791569925"
has run out "second: 33 00 33 hash 11327309180903462629"
has run out "third: 11 11 11 hash 17925223560791569925"
[ "$(wc -l <"$T/run.out")" -eq 3 ] || fail "a call failed on the double: $(cat "$T/run.out")"

expect_rc 0 cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_graph_exec"
cmp -s "$T/run.out" "$T/cap.out" || fail "output changed under tscapture: $(diff "$T/run.out" "$T/cap.out")"
has cap err ", 0 to 0 entry points not modeled"
! grep -q "not modeled, 0 to" "$T/cap.err" || fail "a graph or exec counted as changed by calls not modeled: $(cat "$T/cap.err")"
expect_rc 0 dump "$INFO" --dump "$T/c.sbt"
E=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphInstantiate handle=\([0-9]*\).*/\1/p' "$T/dump.out" | head -1)
SET=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddMemsetNode parent=.* node=\([0-9]*\).*/\1/p' "$T/dump.out")
CP=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddMemcpyNode1D .*node=\([0-9]*\).*/\1/p' "$T/dump.out")
[ -n "$E" ] && [ -n "$SET" ] && [ -n "$CP" ] || fail "no exec or nodes in the trace: $(cat "$T/dump.out")"
! grep -q ' hip\.tsGraphNotModeled ' "$T/dump.out" ||
	fail "hip.tsGraphNotModeled records: $(grep tsGraphNotModeled "$T/dump.out")"
D=$(sed -n 's/^seq=[0-9]* .* hip\.hipMalloc dst=\([0-9]*\) .*/\1/p' "$T/dump.out")
[ -n "$D" ] || fail "no allocation in the trace"
grep -q " hip\.hipGraphExecMemsetNodeSetParams parent=$E dst=$D width=128 height=1 elem_size=1 value=51 node=$SET\$" "$T/dump.out" ||
	fail "the memset setter is not recorded as itself: $(grep 'hipGraphExec' "$T/dump.out")"
grep -q " hip\.hipGraphExecMemcpyNodeSetParams1D parent=$E dst=$((D + 192)) src=$D size=32 width=32 height=1 sub=3 dst_type=2 src_type=2 dst_pitch=32 src_pitch=32 node=$CP\$" "$T/dump.out" ||
	fail "the memcpy setter is not recorded as itself: $(grep 'hipGraphExec' "$T/dump.out")"
grep -q " hip\.hipGraphExecMemsetNodeSetParams result=1 parent=$E node=$SET\$" "$T/dump.out" ||
	fail "the failed setter is not recorded with its error: $(grep 'hipGraphExec' "$T/dump.out")"
grep -q " hip\.hipGraphExecMemcpyNodeSetParams result=1 parent=$E node=$CP\$" "$T/dump.out" ||
	fail "the failed memcpy setter is not recorded with its error: $(grep 'hipGraphExec' "$T/dump.out")"

# the read-backs' checkpoints: the second (after the setters) differs
sed -n 's/^seq=[0-9]* .* checkpoint call_seq=.* hash=\(0x[0-9a-f]*\) .*/\1/p' "$T/dump.out" >"$T/hashes"
[ "$(wc -l <"$T/hashes")" -eq 3 ] || fail "not 3 checkpoints: $(cat "$T/hashes")"
H1=$(sed -n 1p "$T/hashes") H2=$(sed -n 2p "$T/hashes") H3=$(sed -n 3p "$T/hashes")
[ "$H1" = "$H3" ] && [ "$H1" != "$H2" ] || fail "the setters did not change the second read-back: $(cat "$T/hashes")"

for r in plain determinism profile; do
	case $r in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	profile) set -- --profile="$T/c.profile" ;;
	esac
	expect_rc 0 "rp.$r" "$RP" --json "$@" "$T/c.sbt"
	[ "$(json_field "$T/rp.$r.out" checkpoints)" = 3 ] && [ "$(json_field "$T/rp.$r.out" matched)" = 3 ] &&
		[ "$(json_field "$T/rp.$r.out" mismatched)" = 0 ] || fail "replay $r: $(cat "$T/rp.$r.out")"
done

# the emulator reads them as CUDA's exec setters: the second launch moves
# 128 and 32 bytes, the other exec's launch the nodes' own 256 and 64
expect_rc 0 summary "$EXPORT" --summary "$T/c.sbt"
L2=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphLaunch handle=$E .*/\1/p" "$T/dump.out" | sed -n 2p)
L3=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipGraphLaunch .*/\1/p' "$T/dump.out" | sed -n 3p)
[ -n "$L2" ] && [ -n "$L3" ] || fail "not three launches in the trace"
# without the memset setter's record the second read-back differs (the
# setters change the result); moved before the instantiation, it names an
# exec the trace has not made yet
MUT="$TOP/$BUILD/tests/sbt_mutate"
SS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphExecMemsetNodeSetParams parent=$E dst=.*/\1/p" "$T/dump.out")
I1=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipGraphInstantiate .*/\1/p' "$T/dump.out" | head -1)
R2=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipMemcpy src=.*/\1/p' "$T/dump.out" | sed -n 2p)
expect_rc 0 mut.drop "$MUT" "$T/c.sbt" "$T/noset.sbt" --drop "$SS"
expect_rc 3 noset "$RP" "$T/noset.sbt"
has noset err "the device-to-host copy at seq $R2 differs from the capture"
expect_rc 0 mut.move "$MUT" "$T/c.sbt" "$T/early.sbt" --move "$SS:$I1"
expect_rc 1 early "$RP" "$T/early.sbt"
has early err "record seq $I1 (hip.hipGraphExecMemsetNodeSetParams): graph exec $(printf '0x%x' "$E") was never created in the trace"

# a --range from the second launch: the setters before it are
# fast-forwarded as the exec's state, and its read-back is equal
expect_rc 0 range "$RP" --json --range "$L2:" "$T/c.sbt"
[ "$(json_field "$T/range.out" checkpoints)" = 2 ] && [ "$(json_field "$T/range.out" matched)" = 2 ] ||
	fail "--range $L2: $(cat "$T/range.out")"
expect_rc 0 export "$EXPORT" -f json "$T/c.sbt"
tr '{' '\n' <"$T/export.out" | grep '"engine"' | sed -n 's/^"seq":\([0-9]*\),"engine":[0-9]*,"bytes":\([0-9]*\).*/\1 \2/p' >"$T/moved"
grep -qx "$L2 128" "$T/moved" && grep -qx "$L2 32" "$T/moved" && grep -qx "$L3 256" "$T/moved" &&
	grep -qx "$L3 64" "$T/moved" || fail "the emulator did not run the setters' parameters: $(cat "$T/moved")"
# the set nodes keep HIP's names (the calls that add such nodes)
grep -q '"name":"cuGraph' "$T/export.out" && fail "a node named by a CUDA call: $(tr '{' '\n' <"$T/export.out" | grep '"name":"cuGraph' | head -n 2)"
grep -q '"name":"hipGraphAddMemcpyNode1D"' "$T/export.out" && grep -q '"name":"hipGraphAddMemsetNode"' "$T/export.out" ||
	fail "the set nodes are not named by HIP's calls: $(tr '{' '\n' <"$T/export.out" | grep -o '"name":"[^"]*"' | sort -u | tr '\n' ' ')"

# the kernel setter
expect_rc 0 krun $PRE "$H/hip_graph_edit" exec
has krun out "exec y[5] 25.0 y[255] 1275.0"
has krun out "hipGraphExecKernelNodeSetParams null 1"
expect_rc 0 kcap $PRE "$CAP" -o "$T/k.sbt" -- "$H/hip_graph_edit" exec
cmp -s "$T/krun.out" "$T/kcap.out" || fail "output changed under tscapture: $(diff "$T/krun.out" "$T/kcap.out")"
expect_rc 0 kdump "$INFO" --dump "$T/k.sbt"
KE=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphInstantiate handle=\([0-9]*\).*/\1/p' "$T/kdump.out")
KN=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddKernelNode .* node=\([0-9]*\) .*/\1/p' "$T/kdump.out")
[ -n "$KE" ] && [ -n "$KN" ] || fail "no exec or kernel node in the trace: $(cat "$T/kdump.out")"
# a = 5.0f is 0x40a00000, little-endian at offset 4 of the arguments
grep -q " hip\.hipGraphExecKernelNodeSetParams handle=[0-9]* parent=$KE name=\"_Z5saxpyifPKfPf\" grid_x=4 .* params=000100000000a040.* node=$KN\$" "$T/kdump.out" ||
	fail "the kernel setter is not recorded as itself: $(grep 'hipGraphExec' "$T/kdump.out")"
grep -q " hip\.hipGraphExecKernelNodeSetParams result=1 parent=$KE .* node=$KN\$" "$T/kdump.out" ||
	fail "the failed kernel setter is not recorded with its error: $(grep 'hipGraphExec' "$T/kdump.out")"
! grep -q ' hip\.tsGraphNotModeled ' "$T/kdump.out" || fail "hip.tsGraphNotModeled records in the kernel trace"
# y's read-backs: after the first launch (a = 3) and the second (a = 5)
sed -n 's/^seq=[0-9]* .* checkpoint call_seq=.* length=1024 hash=\(0x[0-9a-f]*\) .*/\1/p' "$T/kdump.out" >"$T/khashes"
[ "$(wc -l <"$T/khashes")" -eq 2 ] && [ "$(sed -n 1p "$T/khashes")" != "$(sed -n 2p "$T/khashes")" ] ||
	fail "the kernel setter did not change y's second read-back: $(cat "$T/khashes")"
for r in plain determinism single; do
	case $r in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	single) set -- --streams single ;;
	esac
	expect_rc 0 "krp.$r" "$RP" --json "$@" "$T/k.sbt"
	[ "$(json_field "$T/krp.$r.out" checkpoints)" = 3 ] && [ "$(json_field "$T/krp.$r.out" matched)" = 3 ] ||
		fail "kernel replay $r: $(cat "$T/krp.$r.out")"
done
expect_rc 0 ksummary "$EXPORT" --summary "$T/k.sbt"

# hipGraphExecUpdate
expect_rc 0 urun $PRE "$H/hip_graph_exec" update
printf '%s\n' "first: 11 22 11 00" "update b 0 0" "updated: 44 55 00 44" "update c 910 2" \
	"topology: 44 55 00 44" "update d 910 3 error node empty" "kind: 66 77 00 66" \
	"update e 910 2" "update null 1" >"$T/uwant"
cmp -s "$T/uwant" "$T/urun.out" || fail "hip_graph_exec update on the double: $(diff "$T/uwant" "$T/urun.out")"
expect_rc 0 ucap $PRE "$CAP" -o "$T/u.sbt" -- "$H/hip_graph_exec" update
cmp -s "$T/urun.out" "$T/ucap.out" || fail "output changed under tscapture: $(diff "$T/urun.out" "$T/ucap.out")"
! grep -q "not modeled, 0 to" "$T/ucap.err" || fail "an exec counted as changed by calls not modeled: $(cat "$T/ucap.err")"
expect_rc 0 udump "$INFO" --dump "$T/u.sbt"
! grep -q ' hip\.tsGraphNotModeled ' "$T/udump.out" || fail "hip.tsGraphNotModeled records in the update trace"
# node handles as --dump shows deps: 16 hex digits, little-endian
le() { printf '%016x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)/\8\7\6\5\4\3\2\1/'; }
nodes() { sed -n "s/^seq=[0-9]* .* hip\.hipGraphAdd[A-Za-z0-9]*Node[A-Za-z0-9]* parent=$1 .*node=\([0-9]*\).*/\1/p" "$T/udump.out"; }
GRAPHS=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphCreate handle=\([0-9]*\).*/\1/p' "$T/udump.out")
set -- $GRAPHS
[ $# -eq 5 ] || fail "not five graphs in the update trace: $GRAPHS"
GA=$1 GB=$2 GC=$3 GD=$4 GE=$5
set -- $(nodes "$GA"); A1=$1 ACP=$2 A2=$3
set -- $(nodes "$GB"); B1=$1 B2=$2 BCP=$3
set -- $(nodes "$GD"); D1=$1 D2=$2 DE=$3
set -- $(nodes "$GE"); E1=$1 E2=$2
CN=$(nodes "$GC" | while read -r n; do le "$n"; done | tr -d '\n')
UX=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphInstantiate handle=\([0-9]*\).*/\1/p' "$T/udump.out")
[ -n "$UX" ] && [ -n "$A2" ] && [ -n "$BCP" ] && [ -n "$DE" ] || fail "no exec or nodes in the update trace"
# the exec's level order: both memsets (level 0, in the order added), then the copy
XO=$(le "$A1")$(le "$A2")$(le "$ACP")
grep -q " hip\.hipGraphExecUpdate handle=$UX parent=$GB deps=$(le "$B1")$(le "$B2")$(le "$BCP") deps_to=$XO\$" "$T/udump.out" ||
	fail "the update that worked is not recorded with its pairs: $(grep ExecUpdate "$T/udump.out")"
grep -q " hip\.hipGraphExecUpdate result=910 handle=$UX parent=$GC value=2 deps=$CN deps_to=$XO\$" "$T/udump.out" ||
	fail "the topology change is not recorded with its result: $(grep ExecUpdate "$T/udump.out")"
grep -q " hip\.hipGraphExecUpdate result=910 handle=$UX parent=$GD value=3 node=$DE deps=$(le "$D1")$(le "$D2")$(le "$DE") deps_to=$XO\$" "$T/udump.out" ||
	fail "the kind change is not recorded with its result and error node: $(grep ExecUpdate "$T/udump.out")"
# e: three nodes of the exec's kinds, but the copy (level 2, its only
# parent at level 0 once b -> copy is gone) is never reached: two in order
grep -q " hip\.hipGraphExecUpdate result=910 handle=$UX parent=$GE value=2 deps=$(le "$E1")$(le "$E2") deps_to=$XO\$" "$T/udump.out" ||
	fail "graph e's level order is not clr 5.2's: $(grep ExecUpdate "$T/udump.out")"
grep -q " hip\.hipGraphExecUpdate result=1 handle=$UX parent=$GB deps=" "$T/udump.out" ||
	fail "the update with no result pointer is not recorded with its error: $(grep ExecUpdate "$T/udump.out")"
sed -n 's/^seq=[0-9]* .* checkpoint call_seq=.* hash=\(0x[0-9a-f]*\) .*/\1/p' "$T/udump.out" >"$T/uhashes"
[ "$(wc -l <"$T/uhashes")" -eq 4 ] || fail "not 4 checkpoints: $(cat "$T/uhashes")"
U1=$(sed -n 1p "$T/uhashes") U2=$(sed -n 2p "$T/uhashes") U3=$(sed -n 3p "$T/uhashes") U4=$(sed -n 4p "$T/uhashes")
[ "$U1" != "$U2" ] && [ "$U2" = "$U3" ] && [ "$U3" != "$U4" ] ||
	fail "the updates did not change the read-backs as the program saw: $(cat "$T/uhashes")"
UL4=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphLaunch handle=$UX .*/\1/p" "$T/udump.out" | sed -n 4p)
[ -n "$UL4" ] || fail "not four launches in the update trace"
for r in plain determinism range; do
	nck=4
	case $r in
	plain) set -- ;;
	determinism) set -- --check-determinism ;;
	range) set -- --range "$UL4:"; nck=1 ;;
	esac
	expect_rc 0 "urp.$r" "$RP" --json "$@" "$T/u.sbt"
	[ "$(json_field "$T/urp.$r.out" checkpoints)" = $nck ] && [ "$(json_field "$T/urp.$r.out" matched)" = $nck ] ||
		fail "update replay $r: $(cat "$T/urp.$r.out")"
done
# without the update that worked, the next read-back differs
US=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphExecUpdate handle=$UX parent=$GB .*/\1/p" "$T/udump.out")
UR2=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipMemcpy src=.*/\1/p' "$T/udump.out" | sed -n 2p)
expect_rc 0 umut.drop "$MUT" "$T/u.sbt" "$T/unoup.sbt" --drop "$US"
expect_rc 3 unoup "$RP" "$T/unoup.sbt"
has unoup err "the device-to-host copy at seq $UR2 differs from the capture"
# moved before the add of b's copy node, or d's update before d's empty
# node: a pair names a node the graph does not hold yet
BCPS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphAddMemcpyNode1D parent=$GB .*/\1/p" "$T/udump.out")
expect_rc 0 umut.move "$MUT" "$T/u.sbt" "$T/uearly.sbt" --move "$US:$BCPS"
expect_rc 1 uearly "$RP" "$T/uearly.sbt"
has uearly err "record seq $BCPS (hip.hipGraphExecUpdate): graph exec $(printf '0x%x' "$UX")'s update from graph $(printf '0x%x' "$GB") cannot be replayed as it worked at capture: pair 2 names graph node $(printf '0x%x' "$BCP"), which it does not hold"
DS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphExecUpdate result=910 handle=$UX parent=$GD .*/\1/p" "$T/udump.out")
DES=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphAddEmptyNode parent=$GD .*/\1/p" "$T/udump.out")
expect_rc 0 umut.dmove "$MUT" "$T/u.sbt" "$T/udearly.sbt" --move "$DS:$DES"
expect_rc 1 udearly "$RP" "$T/udearly.sbt"
has udearly err "cannot be replayed as it failed at capture: pair 2 names graph node $(printf '0x%x' "$DE"), which it does not hold"
expect_rc 0 usummary "$EXPORT" --summary "$T/u.sbt"
expect_rc 0 uinfo "$INFO" "$T/u.sbt"

# hip_graph_exec order: graphs whose level order (clr 5.2's pairing) and
# topological order (clr 6.0-6.2's) differ.  The ROCm 5.2 double pairs
# graph b's memset y with the exec's copy x and fails (node kind), setting
# p and q; answering ROCm 6.0's version it pairs b node for node, as clr 6
# does, and the failures are clr 6's: another count (no error node), a
# changed kind, another count of dependencies (topology, naming the copy),
# another copy kind (parameters, naming the copy)
V6=60032830
expect_rc 0 o5run $PRE "$H/hip_graph_exec" order
has o5run out "update b 910 3 error node other"
has o5run out "updated: 55 66 55 44"
expect_rc 0 orun env TSHIP_DOUBLE_RUNTIME_VERSION=$V6 $PRE "$H/hip_graph_exec" order
printf '%s\n' "first: 11 22 11 44" "update b 0 0 error node other" "updated: 55 66 66 77" \
	"update c 910 2 error node null" "update d 910 3 error node empty" "kind: 99 aa aa bb" \
	"update f 910 2 error node copy" "dependencies: c1 c2 c2 c3" "update g 910 5 error node copy" \
	"copy kind: d1 d2 d2 d3" "update null 1" >"$T/owant"
cmp -s "$T/owant" "$T/orun.out" || fail "hip_graph_exec order on the double as ROCm 6: $(diff "$T/owant" "$T/orun.out")"
expect_rc 0 ocap env TSHIP_DOUBLE_RUNTIME_VERSION=$V6 $PRE "$CAP" -o "$T/o.sbt" -- "$H/hip_graph_exec" order
cmp -s "$T/orun.out" "$T/ocap.out" || fail "output changed under tscapture (ROCm 6): $(diff "$T/orun.out" "$T/ocap.out")"
! grep -q "not modeled, 0 to" "$T/ocap.err" || fail "an exec counted as changed by calls not modeled (ROCm 6): $(cat "$T/ocap.err")"
expect_rc 0 odump "$INFO" --dump "$T/o.sbt"
! grep -q ' hip\.tsGraphNotModeled ' "$T/odump.out" || fail "hip.tsGraphNotModeled records in the ROCm 6 update trace"
onodes() { sed -n "s/^seq=[0-9]* .* hip\.hipGraphAdd[A-Za-z0-9]*Node[A-Za-z0-9]* parent=$1 .*node=\([0-9]*\).*/\1/p" "$T/odump.out"; }
set -- $(sed -n 's/^seq=[0-9]* .* hip\.hipGraphCreate handle=\([0-9]*\).*/\1/p' "$T/odump.out")
[ $# -eq 6 ] || fail "not six graphs in the ROCm 6 update trace"
OA=$1 OB=$2 OC=$3 OD=$4 OF=$5 OG=$6
set -- $(onodes "$OA"); AP=$1 AQ=$2 AX=$3 AY=$4
set -- $(onodes "$OB"); BP=$1 BQ=$2 BY=$3 BX=$4
set -- $(onodes "$OD"); DP=$1 DQ=$2 DY=$3 DEM=$4
set -- $(onodes "$OF"); FP=$1 FQ=$2 FY=$3 FX=$4
set -- $(onodes "$OG"); GP=$1 GQ=$2 GY=$3 GX=$4
# five nodes: --dump shows the first 32 bytes and how many more
OCN=$(onodes "$OC" | head -n 4 | while read -r n; do le "$n"; done | tr -d '\n')'\.\.(+8)'
OX=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphInstantiate handle=\([0-9]*\).*/\1/p' "$T/odump.out")
[ -n "$OX" ] && [ -n "$AY" ] && [ -n "$BX" ] && [ -n "$DEM" ] && [ -n "$FX" ] && [ -n "$GX" ] ||
	fail "no exec or nodes in the ROCm 6 update trace"
# the exec's topological order: p, q, then y (after p only) before x (after p and q)
OXO=$(le "$AP")$(le "$AQ")$(le "$AY")$(le "$AX")
grep -q " hip\.hipGraphExecUpdate handle=$OX parent=$OB sub=1 deps=$(le "$BP")$(le "$BQ")$(le "$BY")$(le "$BX") deps_to=$OXO\$" "$T/odump.out" ||
	fail "the update that worked is not recorded with clr 6's pairs: $(grep ExecUpdate "$T/odump.out")"
grep -q " hip\.hipGraphExecUpdate result=910 handle=$OX parent=$OC value=2 sub=1 deps=$OCN deps_to=$OXO\$" "$T/odump.out" ||
	fail "the changed count is not recorded (no error node): $(grep ExecUpdate "$T/odump.out")"
grep -q " hip\.hipGraphExecUpdate result=910 handle=$OX parent=$OD value=3 sub=1 node=$DEM deps=$(le "$DP")$(le "$DQ")$(le "$DY")$(le "$DEM") deps_to=$OXO\$" "$T/odump.out" ||
	fail "the changed kind is not recorded: $(grep ExecUpdate "$T/odump.out")"
grep -q " hip\.hipGraphExecUpdate result=910 handle=$OX parent=$OF value=2 sub=1 node=$FX deps=$(le "$FP")$(le "$FQ")$(le "$FY")$(le "$FX") deps_to=$OXO\$" "$T/odump.out" ||
	fail "the changed count of dependencies is not recorded: $(grep ExecUpdate "$T/odump.out")"
grep -q " hip\.hipGraphExecUpdate result=910 handle=$OX parent=$OG value=5 sub=1 node=$GX deps=$(le "$GP")$(le "$GQ")$(le "$GY")$(le "$GX") deps_to=$OXO\$" "$T/odump.out" ||
	fail "the changed copy kind is not recorded: $(grep ExecUpdate "$T/odump.out")"
grep -q " hip\.hipGraphExecUpdate result=1 handle=$OX parent=$OB sub=1 deps=" "$T/odump.out" ||
	fail "the update with no result pointer is not recorded with its error: $(grep ExecUpdate "$T/odump.out")"
sed -n 's/^seq=[0-9]* .* checkpoint call_seq=.* hash=\(0x[0-9a-f]*\) .*/\1/p' "$T/odump.out" >"$T/ohashes"
[ "$(wc -l <"$T/ohashes")" -eq 5 ] || fail "not 5 checkpoints: $(cat "$T/ohashes")"
OL5=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphLaunch handle=$OX .*/\1/p" "$T/odump.out" | sed -n 5p)
[ -n "$OL5" ] || fail "not five launches in the ROCm 6 update trace"
# replayed on the 5.2 double and on the double as ROCm 6: replay applies the
# capture's pairs, whatever its own runtime would pair
for v in 5 6; do
	for r in plain determinism range; do
		nck=5
		case $r in
		plain) set -- ;;
		determinism) set -- --check-determinism ;;
		range) set -- --range "$OL5:"; nck=1 ;;
		esac
		[ $v = 6 ] && set -- env TSHIP_DOUBLE_RUNTIME_VERSION=$V6 "$RP" --json "$@" "$T/o.sbt" ||
			set -- "$RP" --json "$@" "$T/o.sbt"
		expect_rc 0 "orp.$v.$r" "$@"
		[ "$(json_field "$T/orp.$v.$r.out" checkpoints)" = $nck ] &&
			[ "$(json_field "$T/orp.$v.$r.out" matched)" = $nck ] ||
			fail "ROCm 6 update replay $r (replay runtime $v): $(cat "$T/orp.$v.$r.out")"
	done
done
# without the update that worked, the next read-back differs; moved before
# b's copy, or f's before f's copy, a pair names a node not there yet
OS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphExecUpdate handle=$OX parent=$OB .*/\1/p" "$T/odump.out")
OR2=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipMemcpy src=.*/\1/p' "$T/odump.out" | sed -n 2p)
expect_rc 0 omut.drop "$MUT" "$T/o.sbt" "$T/onoup.sbt" --drop "$OS"
expect_rc 3 onoup "$RP" "$T/onoup.sbt"
has onoup err "the device-to-host copy at seq $OR2 differs from the capture"
BXS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphAddMemcpyNode1D parent=$OB .*/\1/p" "$T/odump.out")
expect_rc 0 omut.move "$MUT" "$T/o.sbt" "$T/oearly.sbt" --move "$OS:$BXS"
expect_rc 1 oearly "$RP" "$T/oearly.sbt"
has oearly err "record seq $BXS (hip.hipGraphExecUpdate): graph exec $(printf '0x%x' "$OX")'s update from graph $(printf '0x%x' "$OB") cannot be replayed as it worked at capture: pair 3 names graph node $(printf '0x%x' "$BX"), which it does not hold"
FS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphExecUpdate result=910 handle=$OX parent=$OF .*/\1/p" "$T/odump.out")
FXS=$(sed -n "s/^seq=\([0-9]*\) .* hip\.hipGraphAddMemcpyNode1D parent=$OF .*/\1/p" "$T/odump.out")
expect_rc 0 omut.fmove "$MUT" "$T/o.sbt" "$T/ofearly.sbt" --move "$FS:$FXS"
expect_rc 1 ofearly "$RP" "$T/ofearly.sbt"
has ofearly err "cannot be replayed as it failed at capture: pair 3 names graph node $(printf '0x%x' "$FX"), which it does not hold"
# varint_of SEQ FIELD VALUE: the sbt_mutate --varint op (SEQ:I:VALUE) that
# makes record SEQ's dump show FIELD=VALUE
varint_of() {
	i=0
	while [ "$i" -lt 24 ]; do
		if "$MUT" "$T/o.sbt" "$T/probe.sbt" --varint "$1:$i:$3" >/dev/null 2>&1 &&
			"$INFO" --dump "$T/probe.sbt" | grep -q "^seq=$1 .* $2=$3\( \|\$\)"; then
			echo "$1:$i:$3"
			return
		fi
		i=$((i + 1))
	done
	fail "no varint of record $1 is its $2"
}
# f's failure told as a changed kind: its copy's pair has another count of
# dependencies, which clr 6 checks, so replay names it
expect_rc 0 omut.fkind "$MUT" "$T/o.sbt" "$T/ofkind.sbt" --varint "$(varint_of "$FS" value 3)"
expect_rc 1 ofkind "$RP" "$T/ofkind.sbt"
has ofkind err "cannot be replayed as it failed at capture: pair 3 is a node of 1 dependencies ($(printf '0x%x' "$FX")) with one of 2 ($(printf '0x%x' "$AX"))"
# the same update told as clr 5.2's (no sub): the level order's checks do
# not count dependencies, so f's account is refused (every pair one kind)
FL=
i=0
while [ "$i" -lt 24 ] && [ -z "$FL" ]; do
	if "$MUT" "$T/o.sbt" "$T/probe.sbt" --varint "$FS:$i:0" >/dev/null 2>&1 &&
		"$INFO" --dump "$T/probe.sbt" | grep "^seq=$FS " | grep -q " value=2 node=$FX deps="; then
		FL="$FS:$i:0"
	fi
	i=$((i + 1))
done
[ -n "$FL" ] || fail "no varint of record $FS is its sub"
expect_rc 0 omut.flevel "$MUT" "$T/o.sbt" "$T/oflevel.sbt" --varint "$FL"
expect_rc 1 oflevel "$RP" "$T/oflevel.sbt"
has oflevel err "cannot be replayed as it failed at capture: every pair has one kind, where the capture's runtime answered update result 2"
# an order replay does not know is refused by name
expect_rc 0 omut.sub "$MUT" "$T/o.sbt" "$T/osub.sbt" --varint "$(varint_of "$OS" sub 7)"
expect_rc 1 osub "$RP" "$T/osub.sbt"
has osub err "record seq $OS (hip.hipGraphExecUpdate): graph exec $(printf '0x%x' "$OX")'s update from graph $(printf '0x%x' "$OB") pairs its nodes in order 7, which this replay does not know"
expect_rc 0 osummary "$EXPORT" --summary "$T/o.sbt"
expect_rc 0 oinfo "$INFO" "$T/o.sbt"

# clr 6's hipGraphDestroyNode walks the node's edges while removing them:
# of a node with three children, the middle one keeps its in-degree, so
# clr 6's topological order never reaches it and the update finds another
# count (hip_graph_exec destroy)
expect_rc 0 xrun env TSHIP_DOUBLE_RUNTIME_VERSION=$V6 $PRE "$H/hip_graph_exec" destroy
printf '%s\n' "instantiate 1" "update 910 2 error node null" "after: 11 22 33 44" >"$T/xwant"
cmp -s "$T/xwant" "$T/xrun.out" || fail "hip_graph_exec destroy on the double as ROCm 6: $(diff "$T/xwant" "$T/xrun.out")"
expect_rc 0 x5run $PRE "$H/hip_graph_exec" destroy
printf '%s\n' "instantiate 0" "update 910 2 error node other" "after: 11 22 33 44" >"$T/x5want"
cmp -s "$T/x5want" "$T/x5run.out" || fail "hip_graph_exec destroy on the 5.2 double: $(diff "$T/x5want" "$T/x5run.out")"
expect_rc 0 xcap env TSHIP_DOUBLE_RUNTIME_VERSION=$V6 $PRE "$CAP" -o "$T/x.sbt" -- "$H/hip_graph_exec" destroy
cmp -s "$T/xrun.out" "$T/xcap.out" || fail "output changed under tscapture (destroy): $(diff "$T/xrun.out" "$T/xcap.out")"
expect_rc 0 xdump "$INFO" --dump "$T/x.sbt"
set -- $(sed -n 's/^seq=[0-9]* .* hip\.hipGraphAddMemsetNode parent=[0-9]* .*node=\([0-9]*\).*/\1/p' "$T/xdump.out")
[ $# -eq 4 ] || fail "not four memset nodes in the destroy trace"
# the graph's order misses the middle child; the exec's holds all four
grep -q " hip\.hipGraphExecUpdate result=910 handle=[0-9]* parent=[0-9]* value=2 sub=1 deps=$(le "$2")$(le "$4") deps_to=$(le "$1")$(le "$2")$(le "$3")$(le "$4")\$" "$T/xdump.out" ||
	fail "the update after the destroy is not recorded with clr 6's orders: $(grep ExecUpdate "$T/xdump.out")"
expect_rc 0 xrp "$RP" "$T/x.sbt"

# under a runtime whose clr was not read for this (ROCm 7's version) the
# updates are not modeled, and the launch after the one that worked is
# refused naming it
V7=70000000
expect_rc 0 u7run env TSHIP_DOUBLE_RUNTIME_VERSION=$V7 $PRE "$H/hip_graph_exec" order
expect_rc 0 u6cap env TSHIP_DOUBLE_RUNTIME_VERSION=$V7 $PRE "$CAP" -o "$T/u6.sbt" -- "$H/hip_graph_exec" order
cmp -s "$T/u7run.out" "$T/u6cap.out" || fail "output changed under tscapture (ROCm 7's version): $(diff "$T/u7run.out" "$T/u6cap.out")"
expect_rc 0 u6dump "$INFO" --dump "$T/u6.sbt"
! grep -q ' hip\.hipGraphExecUpdate ' "$T/u6dump.out" || fail "an update recorded as itself under ROCm 7's version"
[ "$(grep -c ' hip\.tsGraphNotModeled .*name="hipGraphExecUpdate"' "$T/u6dump.out")" -eq 6 ] ||
	fail "not six updates recorded as not modeled: $(grep NotModeled "$T/u6dump.out")"
UX6=$(sed -n 's/^seq=[0-9]* .* hip\.hipGraphInstantiate handle=\([0-9]*\).*/\1/p' "$T/u6dump.out")
U6=$(sed -n 's/^seq=\([0-9]*\) .* hip\.tsGraphNotModeled handle=[0-9]* name="hipGraphExecUpdate".*/\1/p' "$T/u6dump.out" | head -1)
U6L=$(sed -n 's/^seq=\([0-9]*\) .* hip\.hipGraphLaunch .*/\1/p' "$T/u6dump.out" | sed -n 2p)
expect_rc 1 u6rp "$RP" "$T/u6.sbt"
has u6rp err "record seq $U6L (hip.hipGraphLaunch): graph exec $(printf '0x%x' "$UX6") cannot be replayed: it or its graph was changed by hipGraphExecUpdate at seq $U6, which replay does not model"
exit 0
