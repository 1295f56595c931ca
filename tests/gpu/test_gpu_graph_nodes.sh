#!/bin/sh
# GPU only (make test-gpu): CUDA graphs built node by node on the real
# driver.  tests/cuda/cuda_graph_nodes (the libcuda test double's program:
# child graphs, clones, enabled nodes, host nodes, node and exec setters,
# cuGraphExecUpdate, host sources changing between launches, graph memory
# allocation and free nodes, memory allocated by stream capture) runs with
# the kernels of tests/gpu/gpu_double_kernels.cu, which compute what the
# double's kernels compute, for every option set of
# tests/gpu/graph_nodes.sets: plain, captured (printing the same), replayed
# with every checkpoint equal, three replays agreeing; "window" sets are
# also captured with --profiler and the window replays with every
# checkpoint equal and each of its checkpoints one of the whole run's.
# The real driver's plain run must print what the double's prints (the
# double follows the driver there): the double's output for a set is
# GPU_DOUBLE_EXPECT/NAME.out (default $BUILD/gpu/expect), which
# scripts/gpu_pack.sh leaves, or the test makes where the double is built.
# GPU_GRAPH_SETS: only the sets named (space-separated), for a short lease.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
G="$BUILD/gpu"
mkdir -p "$G"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
ARCH=sm_${cc:-90}
gpu_prog "$G/kernels.cubin" "$NVCC" -arch="$ARCH" -cubin -o "$G/kernels.cubin" "$TOP/tests/gpu/gpu_double_kernels.cu"
PROG="$BUILD/tests/cuda/cuda_graph_nodes"
[ -x "$PROG" ] || fail "no $PROG (make builds it; scripts/gpu_pack.sh carries it)"
CUP_IMAGE_DIR=$(cd "$G" && pwd)
export CUP_IMAGE_DIR
EXPECT=${GPU_DOUBLE_EXPECT:-$BUILD/gpu/expect}
unset TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_CUDA_VA

# ckpts TRACE: the hash of every checkpoint, in order.
ckpts() {
	"$BUILD/tsinfo" --dump "$1" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p'
}

# all_match NAME TRACE ARGS...: a replay comparing every checkpoint, all equal.
all_match() {
	am_name=$1
	shift
	expect_rc 0 "$am_name" "$BUILD/tsreplay" --json "$@"
	n=$(json_field "$T/$am_name.out" checkpoints)
	m=$(json_field "$T/$am_name.out" matched)
	[ "$n" -gt 0 ] && [ "$n" = "$m" ] || fail "$am_name: $n checkpoints, $m matched: $(cat "$T/$am_name.out")"
}

# set_run NAME KIND ARGS...
set_run() {
	sr_name=$1 sr_kind=$2
	shift 2
	expect_rc 0 "$sr_name.plain" "$PROG" "$@"
	if [ ! -f "$EXPECT/$sr_name.out" ] && [ -e "$BUILD/tests/doubles/cuda/libcuda.so.1" ]; then
		mkdir -p "$EXPECT"
		env -u CUP_IMAGE_DIR LD_LIBRARY_PATH="$BUILD/tests/doubles/cuda" TSCUDA_DOUBLE_QUIET=1 \
			"$PROG" "$@" >"$EXPECT/$sr_name.out" 2>/dev/null || rm -f "$EXPECT/$sr_name.out"
	fi
	if [ -f "$EXPECT/$sr_name.out" ]; then
		cmp -s "$EXPECT/$sr_name.out" "$T/$sr_name.plain.out" ||
			fail "$sr_name: the real driver printed '$(cat "$T/$sr_name.plain.out")', the double '$(cat "$EXPECT/$sr_name.out")'"
		sr_double="equal to the double's"
	else
		sr_double="no double's output to compare"
	fi
	expect_rc 0 "$sr_name.cap" "$BUILD/tscapture" -o "$T/$sr_name.sbt" -- "$PROG" "$@"
	cmp -s "$T/$sr_name.plain.out" "$T/$sr_name.cap.out" ||
		fail "$sr_name: the captured run printed '$(cat "$T/$sr_name.cap.out")', the plain one '$(cat "$T/$sr_name.plain.out")'"
	all_match "$sr_name.replay" "$T/$sr_name.sbt"
	all_match "$sr_name.det" --check-determinism --runs 3 "$T/$sr_name.sbt"
	sr_win=""
	if [ "$sr_kind" = window ]; then
		(cd "$T" && expect_rc 0 "$sr_name.wcap" "$TOP/$BUILD/tscapture" --profiler -o "$T/$sr_name.w.sbt" -- \
			"$TOP/$PROG" "$@")
		W="$T/$sr_name.w-window-1.sbt"
		[ -s "$W" ] || fail "$sr_name: no window trace: $(ls "$T")"
		all_match "$sr_name.wreplay" "$W"
		ckpts "$T/$sr_name.sbt" >"$T/$sr_name.whole.ck"
		for h in $(ckpts "$W"); do
			grep -qx "$h" "$T/$sr_name.whole.ck" || fail "$sr_name: the window's checkpoint $h is none of the whole run's"
		done
		sr_win=", window $(json_field "$T/$sr_name.wreplay.out" matched) checkpoints equal"
	fi
	echo "$sr_name: $(head -n 1 "$T/$sr_name.plain.out") ($sr_double); replay $(json_field "$T/$sr_name.replay.out" matched) checkpoints equal, 3 runs agree$sr_win"
}

grep -v '^#' "$TOP/tests/gpu/graph_nodes.sets" | while read -r name kind args; do
	case " ${GPU_GRAPH_SETS:-$name} " in *" $name "*) ;; *) continue ;; esac
	# shellcheck disable=SC2086 # the set's arguments are words
	gpu_part "$name" set_run "$name" "$kind" $args
	[ -z "$gpu_failed" ] || echo "$gpu_failed" >"$T/failed"
done
[ ! -s "$T/failed" ] || fail "failed:$(tr '\n' ' ' <"$T/failed")"
echo ok
