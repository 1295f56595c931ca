#!/bin/sh
# GPU only (make test-gpu): the replay modes beyond a plain replay, on the
# real driver.  gpu_saxpy (two streams and an event) captured with a
# keyframe around every launch (TRACESMITH_SNAPSHOT=launch), then:
# --profile writes a sidecar with one entry per command timed on the
# device, which tsexport reads; --range from the fifth launch replays with
# the checkpoint compared; --schedule-seed replays a sampled legal order
# equal; --check-determinism with --schedule-seeds, with --streams
# single,multi and with --per-command agrees.  The float-atomics program
# (tests/gpu/gpu_atomics.cu) is reported nondeterministic by --per-command
# (exit 4) naming the command that differs first.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
G="$BUILD/gpu"
SRC="$TOP/tests/gpu"
mkdir -p "$G"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
ARCH=sm_${cc:-90}
gpu_prog "$G/gpu_saxpy_static" "$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_saxpy_static" "$SRC/gpu_saxpy.cu"
gpu_prog "$G/gpu_atomics" "$NVCC" -arch="$ARCH" -I"$SRC" -o "$G/gpu_atomics" "$SRC/gpu_atomics.cu"
S=$T/saxpy.sbt
TRACESMITH_SNAPSHOT=launch expect_rc 0 capture "$BUILD/tscapture" -o "$S" -- "$G/gpu_saxpy_static"

profile() {
	expect_rc 0 profile "$BUILD/tsreplay" --profile "$S"
	has profile out "commands timed on"
	[ "$(head -n 1 "$S.profile")" = "tsprofile 1" ] || fail "profile: first line $(head -n 1 "$S.profile")"
	n=$(grep -c '^entry ' "$S.profile")
	[ "$n" -ge 9 ] || fail "profile: $n entries, expected one per launch at least"
	tail -n 1 "$S.profile" | grep -q "^entries $n\$" || fail "profile: last line $(tail -n 1 "$S.profile")"
	expect_rc 0 export "$BUILD/tsexport" --summary "$S"
	echo "profile: $n entries; $(grep -m1 '^device ' "$S.profile"); export: $(head -n 1 "$T/export.out")"
}
gpu_part profile profile

range() {
	seq5=$("$BUILD/tsinfo" --dump "$S" | sed -n 's/^seq=\([0-9]*\) .*cuda\.cuLaunchKernel.*/\1/p' | sed -n 5p)
	[ -n "$seq5" ] || fail "range: no fifth launch in the trace"
	expect_rc 0 range "$BUILD/tsreplay" --json --range "$seq5": "$S"
	[ "$(json_field "$T/range.out" matched)" -ge 1 ] || fail "range: no checkpoint compared: $(cat "$T/range.out")"
	echo "range $seq5:: $(json_field "$T/range.out" matched) checkpoint(s) matched"
}
gpu_part range range

orders() {
	expect_rc 0 seed "$BUILD/tsreplay" --schedule-seed 7 "$S"
	has seed out " 0 differ"
	expect_rc 0 seeds "$BUILD/tsreplay" --check-determinism --schedule-seeds 1,2,3 "$S"
	expect_rc 0 streams "$BUILD/tsreplay" --check-determinism --runs 4 --streams single,multi "$S"
	expect_rc 0 percmd "$BUILD/tsreplay" --check-determinism --per-command --runs 2 "$S"
	echo "orders: seed 7, seeds 1,2,3, streams single,multi and --per-command agree"
}
gpu_part orders orders

atomics() {
	expect_rc 0 atomics.capture "$BUILD/tscapture" -o "$T/atomics.sbt" -- "$G/gpu_atomics"
	rc=0
	"$BUILD/tsreplay" --check-determinism --per-command --runs 3 "$T/atomics.sbt" \
		>"$T/atomics.out" 2>"$T/atomics.err" || rc=$?
	[ "$rc" -eq 4 ] || fail "atomics: --per-command exited $rc, expected 4: $(cat "$T/atomics.err")"
	grep -q 'part first after the command at seq [0-9]' "$T/atomics.err" ||
		fail "atomics: no command named: $(cat "$T/atomics.out" "$T/atomics.err")"
	echo "atomics: $(grep -h 'part first after the command' "$T/atomics.err" | head -n 1)"
}
gpu_part atomics atomics
gpu_done
