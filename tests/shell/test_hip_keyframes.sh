#!/bin/sh
# HIP keyframes and managed / pool memory on the libamdhip64 test double
# (docs/hip.md "Keyframes", "Same-address capture"):
# - TRACESMITH_SNAPSHOT=launch: a full keyframe before and after every
#   launch (hip.tsSnapshot records of every live allocation, the same
#   record kinds as CUDA's); hip_saxpy, hip_struct (two streams, a
#   __device__ variable), hip_module (module launches) and hip_managed
#   replay with every keyframe equal, the count of keyframes compared
#   being the number after which a command since the keyframe before wrote
#   device memory (counted from the dump), plain, moved (--hip-no-reserve),
#   under --check-determinism (with --per-command), --streams single and
#   the double's seeded orders; under a sampled order (--schedule-seed)
#   none is compared and every checkpoint is still equal;
# - one launch's scalar changed (saxpy's a): the first difference named is
#   that launch, at the keyframe right after it, before the checkpoint that
#   reads its result (exit 3), also from a --range that restores the
#   keyframe before it;
# - --range starting mid-trace (hip_module's second launch) restores the
#   keyframe before it: the records before run without their work (the
#   upload is not replayed), the keyframe's bytes fill memory, and the
#   checkpoint is equal;
# - TRACESMITH_SNAPSHOT=2: a keyframe after every second launch;
# - managed memory the CPU writes (hip_managed): the default policy's
#   partial start keyframe holds it (and only it), replay applies it and
#   every checkpoint is equal; without that keyframe the replay differs;
#   hipMallocFromPoolAsync (a pool of its own and the default pool) is
#   placed in the address window, hipMallocManaged is not (the runtime's
#   address, replayed as device memory, said once), and with
#   TRACESMITH_HIP_VA=off the pool allocations are the runtime's, equal;
# - seeded mutants of a trace with keyframes, replayed whole and from a
#   keyframe: a result or one named error, never a crash or a hang;
# - a stream capture takes no keyframes (hip_graph).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_managed" ] || { echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED \
	TRACESMITH_HIP_VA TSHIP_DOUBLE_RESERVE
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
MUT="$TOP/$BUILD/tests/sbt_mutate"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
BASE=70368744177664 # 0x400000000000, the default window
SIZE=549755813888   # 512 GiB
# Under ThreadSanitizer the default window lies outside TSan's memory
# layout (the double takes no hint there): as test_hip_va.sh, the window
# goes in TSan's low application range.
if tsan_build; then
	TRACESMITH_HIP_VA=0x4000000000:64G BASE=274877906944 SIZE=68719476736
	export TRACESMITH_HIP_VA
fi

# seq_of TRACE CALL [N]: the seq of the Nth (default 1st) record of CALL.
seq_of() {
	"$INFO" --dump "$1" | grep " hip\.$2 " | sed -n "${3:-1}s/^seq=\([0-9]*\) .*/\1/p"
}

# kf_equal NAME WANT ARGS...: tsreplay --json ARGS exits 0 with WANT
# keyframes compared, none differing, every checkpoint matched.
kf_equal() {
	ke_name=$1 ke_want=$2
	shift 2
	expect_rc 0 "$ke_name" "$RP" --json "$@"
	c=$(json_field "$T/$ke_name.out" keyframes_compared)
	d=$(json_field "$T/$ke_name.out" keyframes_differ)
	n=$(json_field "$T/$ke_name.out" checkpoints)
	m=$(json_field "$T/$ke_name.out" matched)
	[ "$c" = "$ke_want" ] && [ "$d" = 0 ] && [ "$n" -ge 1 ] && [ "$n" = "$m" ] ||
		fail "$ke_name: $c keyframes compared, $d differ, $m of $n checkpoints matched, expected $ke_want and 0: $(cat "$T/$ke_name.out")"
}

# follow DUMP: the keyframes with something to compare: a launch, an
# upload or device-to-device copy (sub 1, 3), a memset or a symbol upload
# since the keyframe before.
follow() {
	awk '/ hip\.(hipLaunchKernel|hipModuleLaunchKernel|hipExtModuleLaunchKernel|hipMemset|hipMemcpyToSymbol|hipGraphLaunch)/ { w = 1 }
		/ hip\.hipMemcpy(Async|HtoD|DtoD)? / && / sub=[13]( |$)/ { w = 1 }
		/ keyframe / { if (w) n++; w = 0 } END { print n + 0 }' "$1"
}

# ---- full keyframes: every one equal ------------------------------------------------
for pa in saxpy:hip_saxpy struct:hip_struct module:hip_module managed:hip_managed; do
	p=${pa%%:*} prog=$H/${pa#*:}
	args=
	[ "$p" = module ] && args=$H/hip_module_kernels.hsaco
	expect_rc 0 "$p.run" $PRE "$prog" $args
	TRACESMITH_SNAPSHOT=launch expect_rc 0 "$p.cap" $PRE "$CAP" -o "$T/$p.sbt" -- "$prog" $args
	cmp -s "$T/$p.run.out" "$T/$p.cap.out" || fail "$p: output changed under tscapture"
	"$INFO" --dump "$T/$p.sbt" >"$T/$p.dump"
	nl=$(grep -c ' hip\.\(hipLaunchKernel\|hipModuleLaunchKernel\|hipExtModuleLaunchKernel\) ' "$T/$p.dump")
	nkf=$(grep -c ' keyframe ' "$T/$p.dump")
	# one before and one after each launch (the first launch's before is
	# the start keyframe)
	[ "$nkf" -eq $((2 * nl)) ] || fail "$p: $nkf keyframes for $nl launches"
	has "$p.cap" err ", $nkf keyframes, "
	grep -q ' hip\.tsSnapshot dst=' "$T/$p.dump" || fail "$p: no hip.tsSnapshot record"
	nf=$(follow "$T/$p.dump")
	[ "$nf" -ge "$nl" ] && [ "$nf" -le "$nkf" ] || fail "$p: $nf of $nkf keyframes follow a command"
	kf_equal "$p.plain" "$nf" "$T/$p.sbt"
	kf_equal "$p.moved" "$nf" --hip-no-reserve "$T/$p.sbt"
	kf_equal "$p.det" "$nf" --check-determinism --per-command "$T/$p.sbt"
	kf_equal "$p.single" "$nf" --streams single "$T/$p.sbt"
	for seed in 2 3; do
		TSHIP_DOUBLE_SEED=$seed kf_equal "$p.seed$seed" "$nf" "$T/$p.sbt"
	done
	# a sampled order may run a command after the keyframe that follows
	# it: nothing compared (managed memory still applied)
	kf_equal "$p.sampled" 0 --schedule-seed 3 "$T/$p.sbt"
done
# hip_struct's keyframes hold its __device__ variable (launches_seen), by
# its host shadow as the address
grep -q ' hip\.tsSnapshot dst=[0-9]* size=4 .*sub=12' "$T/struct.dump" ||
	fail "struct: no snapshot of the __device__ variable: $(grep tsSnapshot "$T/struct.dump")"
expect_rc 0 text "$RP" "$T/saxpy.sbt"
has text out "tsreplay: keyframes: 2 compared with the replay's memory ("
has text out "), 0 differ"

# ---- one launch's scalar changed: that launch is named -------------------------------
l=$(seq_of "$T/saxpy.sbt" hipLaunchKernel)
kf=$(awk -v s="$l" '/ keyframe / { q = substr($1, 5) + 0; if (q > s) { print q; exit } }' "$T/saxpy.dump")
before=$(awk -v s="$l" '/ keyframe / { q = substr($1, 5) + 0; if (q < s) k = q } END { print k }' "$T/saxpy.dump")
rb=$(seq_of "$T/saxpy.sbt" hipMemcpy 3)
y=$(sed -n "s/^seq=$rb .* src=\([0-9]*\) .*/\1/p" "$T/saxpy.dump")
[ -n "$l" ] && [ -n "$kf" ] && [ -n "$before" ] && [ -n "$rb" ] && [ -n "$y" ] && [ "$kf" -lt "$rb" ] ||
	fail "saxpy layout: launch $l, keyframe $kf after it, $before before it, readback $rb of $y"
# a = 2.0f becomes 8.0f (params bytes 4-7; the params field ends 34 bytes
# before the payload's end: the layout field, key, length, 32 bytes)
expect_rc 0 mut "$MUT" "$T/saxpy.sbt" "$T/bad.sbt" --set "$l:-51:65"
"$INFO" --dump "$T/bad.sbt" | grep -q "hip.hipLaunchKernel .*params=0004000000000041" ||
	fail "saxpy: the mutation did not change a to 8.0f"
y_hex=$(printf '0x%x' "$y")
expect_rc 3 bad "$RP" "$T/bad.sbt"
has bad err "tsreplay: the replay differs from the capture after the command at seq $l (keyframe seq $kf)"
has bad err "  call:     seq $l hip.hipLaunchKernel"
has bad err "  memory:   $y_hex, 4096 bytes compared with the keyframe"
has bad err "  offset:   0 (first differing block: 64 bytes)"
has bad err "tsreplay: hip: the memory after the command at seq $l differs from the keyframe at seq $kf"
has bad err "  allocation: $y_hex (made at seq "
has bad err "  kernel:   _Z5saxpyifPKfPf (launch seq $l), the last kernel given a pointer into it"
has bad err "tsreplay: hip: the device-to-host copy at seq $rb differs from the capture"
if grep -q "differs from the capture at checkpoint seq" "$T/bad.err"; then
	fail "bad: a checkpoint is named first: $(cat "$T/bad.err")"
fi
expect_rc 3 bad.json "$RP" --json "$T/bad.sbt"
has bad.json out "\"first_mismatch\":{\"checkpoint_seq\":$kf,\"call_seq\":$l,\"call\":\"hip.hipLaunchKernel\",\"object\":$y,"
has bad.json out "\"at_keyframe\":$kf}"
expect_rc 3 bad.det "$RP" --check-determinism "$T/bad.sbt"
has bad.det err "after the command at seq $l (keyframe seq $kf)"
has bad.det out "tsreplay: runs agree with each other"
expect_rc 3 bad.range "$RP" --range "$before:" "$T/bad.sbt"
has bad.range err "tsreplay: restored keyframe at seq $before"
has bad.range err "tsreplay: the replay differs from the capture after the command at seq $l (keyframe seq $kf)"

# ---- --range from the middle: the keyframe before it is restored -----------------------
l2=$(seq_of "$T/module.sbt" hipModuleLaunchKernel 2)
k2=$(awk -v s="$l2" '/ keyframe / { q = substr($1, 5) + 0; if (q < s) k = q } END { print k }' "$T/module.dump")
up=$(seq_of "$T/module.sbt" hipMemcpyHtoD)
[ -n "$l2" ] && [ -n "$k2" ] && [ -n "$up" ] && [ "$up" -lt "$k2" ] || fail "module layout: launch $l2, keyframe $k2, upload $up"
expect_rc 0 module.range "$RP" --json --range "$l2:" "$T/module.sbt"
has module.range err "tsreplay: restored keyframe at seq $k2, fast-forwarded "
has module.range out "\"keyframe_seq\":$k2,"
[ "$(json_field "$T/module.range.out" matched)" = 1 ] || fail "module.range: $(cat "$T/module.range.out")"
# the restore ran no upload and no earlier launch: the buffer holds the
# keyframe's bytes.  Its snapshot pointed at the bytes of the upload
# instead (its blob id, 4 bytes before the payload's end, set to the
# upload's): the checkpoint differs.
ks=$(grep " hip\.tsSnapshot dst=[0-9]* size=1024 " "$T/module.dump" |
	awk -v k="$k2" '{ q = substr($1, 5) + 0; if (q > k) { print q; exit } }')
ub=$(sed -n "s/^seq=$up .* blob=\([0-9]*\) .*/\1/p" "$T/module.dump")
expect_rc 0 mut.blob "$MUT" "$T/module.sbt" "$T/module_up.sbt" --set "$ks:-4:$ub"
"$INFO" --dump "$T/module_up.sbt" | grep -q "^seq=$ks .* hip\.tsSnapshot dst=[0-9]* size=1024 blob=$ub sub=1" ||
	fail "module: the mutation did not point the snapshot at the upload's blob $ub"
expect_rc 3 module.up "$RP" --range "$l2:" "$T/module_up.sbt"
has module.up err "tsreplay: restored keyframe at seq $k2"
expect_rc 0 module.range.det "$RP" --range "$l2:" --check-determinism "$T/module.sbt"

# ---- a keyframe every second launch ----------------------------------------------------
TRACESMITH_SNAPSHOT=2 expect_rc 0 every.cap $PRE "$CAP" -o "$T/every.sbt" -- "$H/hip_module" "$H/hip_module_kernels.hsaco"
"$INFO" --dump "$T/every.sbt" >"$T/every.dump"
# the start keyframe (full under this policy) and one after launch 2
[ "$(grep -c ' keyframe ' "$T/every.dump")" -eq 2 ] || fail "every: $(grep -c ' keyframe ' "$T/every.dump") keyframes"
kf_equal every "$(follow "$T/every.dump")" "$T/every.sbt"

# ---- managed memory and pools ------------------------------------------------------------
expect_rc 0 managed.run2 $PRE "$H/hip_managed"
has managed.run2 out "y[3] 7.0 z[3] 21.5 x[3] 3.0"
expect_rc 0 mdef.cap $PRE "$CAP" -o "$T/mdef.sbt" -- "$H/hip_managed"
"$INFO" --dump "$T/mdef.sbt" >"$T/mdef.dump"
# the default policy: one partial start keyframe, holding the managed x only
[ "$(grep -c ' keyframe ' "$T/mdef.dump")" -eq 1 ] || fail "mdef: $(grep ' keyframe ' "$T/mdef.dump")"
x=$(sed -n 's/.* hip\.hipMallocManaged .*dst=\([0-9]*\) size=4096 .*/\1/p' "$T/mdef.dump")
[ -n "$x" ] || fail "mdef: no hipMallocManaged record: $(grep Managed "$T/mdef.dump")"
[ "$(grep -c ' hip\.tsSnapshot ' "$T/mdef.dump")" -eq 1 ] &&
	grep -q " hip\.tsSnapshot dst=$x size=4096 blob=[0-9]* sub=5" "$T/mdef.dump" ||
	fail "mdef: the start keyframe does not hold x alone: $(grep tsSnapshot "$T/mdef.dump")"
# the pool allocations in the window, the managed one not
for a in $(sed -n 's/.* hip\.hipMallocFromPoolAsync .*dst=\([0-9]*\) size=4096 .*/\1/p' "$T/mdef.dump"); do
	[ "$a" -ge "$BASE" ] && [ "$a" -lt $((BASE + SIZE)) ] || fail "mdef: pool allocation $a not in the window"
	npool=$((${npool:-0} + 1))
done
[ "${npool:-0}" -eq 2 ] || fail "mdef: $npool pool allocations placed"
[ "$x" -lt "$BASE" ] || [ "$x" -ge $((BASE + SIZE)) ] || fail "mdef: managed x placed in the window"
expect_rc 0 mdef.replay "$RP" --json "$T/mdef.sbt"
[ "$(json_field "$T/mdef.replay.out" checkpoints)" = 3 ] && [ "$(json_field "$T/mdef.replay.out" matched)" = 3 ] ||
	fail "mdef: $(cat "$T/mdef.replay.out")"
has mdef.replay err "tsreplay: hip: hipMallocManaged replayed as a device allocation"
expect_rc 0 mdef.det "$RP" --check-determinism --hip-no-reserve "$T/mdef.sbt"
# without the start keyframe the replay's x is not the CPU's: y and z differ
kseq=$(sed -n 's/^seq=\([0-9]*\) .* keyframe .*/\1/p' "$T/mdef.dump")
sseq=$(sed -n 's/^seq=\([0-9]*\) .* hip\.tsSnapshot .*/\1/p' "$T/mdef.dump")
expect_rc 0 mut.nokf "$MUT" "$T/mdef.sbt" "$T/mnokf.sbt" --drop "$kseq" --drop "$sseq"
expect_rc 3 mnokf "$RP" "$T/mnokf.sbt"
# pools left to the runtime (no window): still equal
TRACESMITH_HIP_VA=off expect_rc 0 moff.cap $PRE "$CAP" -o "$T/moff.sbt" -- "$H/hip_managed"
if "$INFO" --dump "$T/moff.sbt" | grep -q tsVaWindow; then fail "moff: a window with TRACESMITH_HIP_VA=off"; fi
expect_rc 0 moff.replay "$RP" "$T/moff.sbt"
has moff.replay out "checkpoints: 3 compared, 3 matched, 0 differ"

# ---- damaged keyframes: a result or one named error, never a crash ---------------------
mkdir -p "$T/mut"
expect_rc 0 mut.batch "$MUT" --batch "$T/module.sbt" "$T/mut" 7 40
for f in "$T/mut"/*.sbt; do
	rc=0
	timeout 60 "$RP" -q --check-determinism --runs 2 "$f" >/dev/null 2>"$T/mut.err" || rc=$?
	rc2=0
	timeout 60 "$RP" -q --range "$l2:" "$f" >/dev/null 2>"$T/mut2.err" || rc2=$?
	for r in "$rc:$T/mut.err" "$rc2:$T/mut2.err"; do
		case ${r%%:*} in
		0 | 3) ;;
		1) grep -q '^tsreplay: ' "${r#*:}" || fail "$f: exit 1 without a message: $(cat "${r#*:}")" ;;
		*) fail "$f: exit ${r%%:*}: $(cat "${r#*:}")" ;;
		esac
	done
done

# ---- a stream capture takes none ---------------------------------------------------------
TRACESMITH_SNAPSHOT=launch expect_rc 0 graph.cap $PRE "$CAP" -o "$T/graph.sbt" -- "$H/hip_graph"
if "$INFO" --dump "$T/graph.sbt" | grep -q ' keyframe '; then fail "graph: a keyframe during a stream capture"; fi
expect_rc 0 graph.replay "$RP" "$T/graph.sbt"
echo ok
