#!/bin/sh
# GPU only: a small PyTorch script, plain and under tscapture, then replayed;
# the checksum must match and the replay exit 0.  Fails (does not skip) when
# PyTorch with CUDA is missing, so a pass always means it ran.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
	fail "PyTorch with CUDA is not installed here"
expect_rc 0 plain python3 "$TOP/tests/gpu/gpu_torch.py"
expect_rc 0 capture "$BUILD/tscapture" -o "$T/torch.sbt" -- python3 "$TOP/tests/gpu/gpu_torch.py"
cmp -s "$T/plain.out" "$T/capture.out" || fail "captured run printed '$(cat "$T/capture.out")', plain '$(cat "$T/plain.out")'"
for f in "$T"/torch*.sbt; do
	expect_rc 0 replay "$BUILD/tsreplay" "$f"
done
echo ok
