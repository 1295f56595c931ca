#!/bin/sh
# `make bench`: runs tests/bench/bench.py over the built benchmark programs.
# Not part of `make test`: it takes minutes and its numbers depend on the
# machine.  Results and the exact command are kept in docs/benchmarks.md.
#   BUILD=build sh tests/bench/run.sh [--only blob,dedup,record,stacks,vk,cmd,cuda,trim,emu,map]
# Environment: BENCH_MIB, BENCH_RUNS, BENCH_RECORDS, BENCH_STACK_RECORDS;
# BENCH_TMP: where the input and output files go (default $TMPDIR or /tmp;
# /dev/shm takes the disk's write-back out of the blob timings).
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
if [ ! -x "$BUILD/tests/bench/bench_blob" ]; then
	echo "bench: $BUILD/tests/bench/bench_blob is not built; run make first" >&2
	exit 1
fi
tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/tsbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 tests/bench/bench.py --build "$BUILD" --tmp "$tmp" "$@"
# CUDA interposer cost per launch, per allocation and per keyframe byte on
# the libcuda double (tests/bench/cuda_bench.sh, cuda_mem_bench.sh):
# runs unless --only names other benchmarks and not "cuda".
case " $* " in
*" --only "*cuda* | *" --only="*cuda*) BUILD=$BUILD sh tests/bench/cuda_bench.sh && BUILD=$BUILD sh tests/bench/cuda_mem_bench.sh ;;
*" --only"*) ;;
*) BUILD=$BUILD sh tests/bench/cuda_bench.sh && BUILD=$BUILD sh tests/bench/cuda_mem_bench.sh ;;
esac
# Vulkan capture/replay against GFXReconstruct (tests/bench/vk_bench.sh):
# runs unless --only names other benchmarks and not "vk".
case " $* " in
*" --only "*vk* | *" --only="*vk*) BUILD=$BUILD sh tests/bench/vk_bench.sh ;;
*" --only"*) ;;
*) BUILD=$BUILD sh tests/bench/vk_bench.sh ;;
esac
# Mapped-memory tracking against plain, copy-once, the shadow compare and
# GFXReconstruct (tests/bench/vk_map_bench.sh): runs unless --only names
# other benchmarks and not "map".
case " $* " in
*" --only "*map* | *" --only="*map*) BUILD=$BUILD sh tests/bench/vk_map_bench.sh ;;
*" --only"*) ;;
*) BUILD=$BUILD sh tests/bench/vk_map_bench.sh ;;
esac
# Trimmed capture: window trace size against GFXReconstruct's, tracking cost
# (tests/bench/trim_bench.sh): runs unless --only names other benchmarks.
case " $* " in
*" --only "*trim* | *" --only="*trim*) BUILD=$BUILD sh tests/bench/trim_bench.sh ;;
*" --only"*) ;;
*) BUILD=$BUILD sh tests/bench/trim_bench.sh ;;
esac
# Vulkan per-command cost on the application's thread against plain and
# the dispatch-only build (tests/bench/vk_cmd_bench.sh): runs unless --only
# names other benchmarks and not "cmd".
case " $* " in
*" --only "*cmd* | *" --only="*cmd*) BUILD=$BUILD sh tests/bench/vk_cmd_bench.sh ;;
*" --only"*) ;;
*) BUILD=$BUILD sh tests/bench/vk_cmd_bench.sh ;;
esac
# Emulator throughput and export sizes (tests/bench/emu_bench.sh), and the
# race pass on large graph launches against the summary in the same rounds
# (tests/bench/emu_graph_bench.sh), and repeated event waits
# (tests/bench/emu_wait_bench.sh): run unless --only names other
# benchmarks and not "emu".
case " $* " in
*" --only "*emu* | *" --only="*emu*) BUILD=$BUILD sh tests/bench/emu_bench.sh &&
	BUILD=$BUILD sh tests/bench/emu_graph_bench.sh && BUILD=$BUILD sh tests/bench/emu_wait_bench.sh ;;
*" --only"*) ;;
*) BUILD=$BUILD sh tests/bench/emu_bench.sh && BUILD=$BUILD sh tests/bench/emu_graph_bench.sh &&
	BUILD=$BUILD sh tests/bench/emu_wait_bench.sh ;;
esac
