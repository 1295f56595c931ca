#!/bin/sh
# lease.sh [DEST] - runs the GPU tests and the launch benchmark on a lent GPU
# machine from what scripts/gpu_pack.sh prepared in DEST (default .gpu), in
# as little device time as it can: the benchmark first and alone (its
# timings), then three chains of tests side by side (CUDA programs and
# windows and CUPTI; Python; Vulkan), each under a time limit so that the
# logs come back even when one hangs.  Logs, and the files of failed parts,
# go to $OUT/work (OUT: the device tool's folder; default /tmp/gpu-out):
# summary.txt, one log per test, keep/ with the failed parts' files.  The
# device tool brings back at most 8 files, so the caller packs the folder
# (`tar czf $OUT/gpu.tgz -C $OUT work`), also after a time limit killed
# this script.
P=${1:-.gpu}
OUT=${OUT:-/tmp/gpu-out}/work
mkdir -p "$OUT"
TOP=$(pwd)
BUILD=$P/build
LD_LIBRARY_PATH=$TOP/$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
GPU_PREBUILT=1
GPU_KEEP=$OUT/keep
# the validation layer scripts/gpu_pack.sh carried, if it did
[ -f "$P/vvl/VkLayer_khronos_validation.json" ] && GPU_VK_VALIDATION=$TOP/$P/vvl && export GPU_VK_VALIDATION
export TOP BUILD LD_LIBRARY_PATH GPU_PREBUILT GPU_KEEP
LIMIT=${GPU_LEASE_LIMIT:-300}
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
	uname -r
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
	"$BUILD/tsinfo" --version 2>&1 | head -n 1
	cat "$P/COMMIT" 2>/dev/null || echo "pack of unknown commit"
} >"$OUT/summary.txt"

run_chain() { # NAME TEST...
	c=$1
	shift
	for t in "$@"; do
		s=$(date +%s)
		if timeout "$LIMIT" sh "tests/gpu/$t.sh" >"$OUT/$t.log" 2>&1; then r=PASS; else r="FAIL($?)"; fi
		echo "$r $t $(($(date +%s) - s))s" >>"$OUT/summary.txt"
	done
}

# timed NAME LIMIT CMD...: one benchmark, alone, its log in $OUT/NAME.log.
timed() {
	n=$1 l=$2
	shift 2
	s=$(date +%s)
	timeout "$l" "$@" >"$OUT/$n.log" 2>&1
	echo "$n rc $? $(($(date +%s) - s))s" >>"$OUT/summary.txt"
}

# GPU_LEASE_PARTS: any of bench (launch cost), measure (preallocation,
# keyframes, allocation cost, Vulkan per-command cost and mapped-memory
# tracking, and trace), trace (a PyTorch trace's
# make-up), diag (the driver calls a recorded launch makes, counted by
# CUPTI), tests (GPU_LEASE_TESTS: only the tests named).
PARTS=${GPU_LEASE_PARTS:-bench,tests}
case ,$PARTS, in *,bench,*)
	CUDA_BENCH_ROUNDS=${CUDA_BENCH_ROUNDS:-7} timed bench_launch 120 sh tests/gpu/bench_launch.sh ;;
esac
case ,$PARTS, in *,measure,*)
	GPU_PREALLOC_POOL_AB=${GPU_PREALLOC_POOL_AB:-1} timed bench_prealloc 150 sh tests/gpu/bench_prealloc.sh
	CUDA_BENCH_ROUNDS=3 CUDA_MEM_BENCH_PAIRS=2000 timed bench_alloc 45 \
		sh tests/bench/cuda_mem_bench.sh --driver system --only alloc
	# the Vulkan issue's per-command cost on this driver (vk_callbound),
	# and its mapped-memory tracking (vk_mapwrite)
	timed bench_vk_callbound 90 sh tests/gpu/bench_vk_callbound.sh
	timed bench_vk_map 90 sh tests/gpu/bench_vk_map.sh
	;;
esac
case ,$PARTS, in *,measure,* | *,trace,*)
	timed torch_trace 45 sh -c '"$BUILD/tscapture" -o /tmp/torch_train.sbt -- python3 tests/gpu/gpu_torch_train.py &&
		"$BUILD/tsinfo" /tmp/torch_train.sbt | sed -n "2p;13,18p"' ;;
esac
case ,$PARTS, in *,diag,*)
	# Which driver calls a launch costs under capture: CUPTI's count of
	# every driver entry point (tests/gpu/cupti_count.c) for 10,000 empty
	# launches, plain and recorded with no stacks.
	CUPTI_COUNT_OUT=$OUT/cupti_plain.counts CUDA_INJECTION64_PATH=$TOP/$BUILD/gpu/libcupti_count.so \
		timed cupti_plain 60 "$BUILD/gpu/gpu_launch_loop" --launches 10000
	CUPTI_COUNT_OUT=$OUT/cupti_capture.counts CUDA_INJECTION64_PATH=$TOP/$BUILD/gpu/libcupti_count.so \
		TRACESMITH_STACKS=none timed cupti_capture 60 "$BUILD/tscapture" -o /tmp/ll.sbt -- \
		"$BUILD/gpu/gpu_launch_loop" --launches 10000 ;;
esac
case ,$PARTS, in *,tests,*)
	if [ -n "${GPU_LEASE_TESTS:-}" ]; then # only these, side by side
		for t in $GPU_LEASE_TESTS; do run_chain "$t" "$t" & done
		wait
	else
	run_chain cuda test_gpu_capture_replay test_gpu_replay_modes test_gpu_windows test_gpu_cupti_counts &
	run_chain graphs test_gpu_graph_nodes test_gpu_clock test_gpu_stream_memop &
	run_chain python test_gpu_python test_gpu_torch &
	run_chain vulkan test_gpu_vulkan test_gpu_vk_planar test_gpu_vk_sampleloc &
	wait
	fi ;;
esac
cat "$OUT/summary.txt"
