#!/bin/sh
# GPU only: the Python workloads people capture most, each plain, under
# tscapture, replayed (every checkpoint equal) and replayed three times
# (agreeing): a PyTorch training loop (autograd, optimizer), a Triton kernel
# (its own cubin through the driver API), and a PyTorch CUDA graph (stream
# capture, instantiation, graph launches).  Fails (does not skip) when
# PyTorch with CUDA or Triton is missing, so a pass means it ran.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
python3 -c 'import torch, triton, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
	fail "PyTorch with CUDA, or Triton, is not installed here"
python_prog() {
	p=$1
	expect_rc 0 "$p.plain" python3 "$TOP/tests/gpu/$p.py"
	expect_rc 0 "$p.capture" "$BUILD/tscapture" -o "$T/$p.sbt" -- python3 "$TOP/tests/gpu/$p.py"
	cmp -s "$T/$p.plain.out" "$T/$p.capture.out" ||
		fail "$p: captured run printed '$(cat "$T/$p.capture.out")', plain '$(cat "$T/$p.plain.out")'"
	expect_rc 0 "$p.replay" "$BUILD/tsreplay" "$T/$p.sbt"
	has "$p.replay" out " 0 differ"
	if grep -q 'NOT COMPARED' "$T/$p.replay.out"; then
		fail "$p: checkpoints not compared: $(cat "$T/$p.replay.out")"
	fi
	expect_rc 0 "$p.det" "$BUILD/tsreplay" --check-determinism --runs 3 "$T/$p.sbt"
	echo "$p: $(cat "$T/$p.plain.out"); $(tail -n 1 "$T/$p.replay.out")"
}
for p in gpu_torch_train gpu_triton_add gpu_torch_graph; do
	gpu_part "$p" python_prog "$p"
done
[ ! -e "$T/gpu_torch_graph.sbt" ] || "$BUILD/tsinfo" "$T/gpu_torch_graph.sbt" | grep -q 'cuda.cuGraphLaunch' ||
	fail "gpu_torch_graph: no graph launch recorded"
gpu_done
