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
export TOP BUILD LD_LIBRARY_PATH GPU_PREBUILT GPU_KEEP
LIMIT=${GPU_LEASE_LIMIT:-300}
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
	uname -r
	python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
	"$BUILD/tsinfo" --version 2>&1 | head -n 1
	git log -1 --format='commit %h %s' 2>/dev/null
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

if [ "${GPU_LEASE_BENCH:-1}" = 1 ]; then
	s=$(date +%s)
	CUDA_BENCH_ROUNDS=${CUDA_BENCH_ROUNDS:-7} timeout 120 sh tests/gpu/bench_launch.sh >"$OUT/bench_launch.log" 2>&1
	echo "bench_launch rc $? $(($(date +%s) - s))s" >>"$OUT/summary.txt"
fi
run_chain cuda test_gpu_capture_replay test_gpu_windows test_gpu_cupti_counts &
run_chain python test_gpu_python test_gpu_torch &
run_chain vulkan test_gpu_vulkan &
wait
cat "$OUT/summary.txt"
