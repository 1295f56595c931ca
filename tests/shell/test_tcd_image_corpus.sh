#!/bin/sh
# Replays the libcuda double's image-reader fuzz target over every module
# image in tests/fixtures (the H100 cubin and fatbin, nvcc 13's compressed
# fatbins), as `make test` does for the SBT reader's corpus; `make
# fuzz-tcd-image` fuzzes from the same images.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
R="$BUILD/tests/fuzz_tcd_image_replay"
[ -x "$R" ] || { echo "the image reader's fuzz replay is not built"; exit 77; }
expect_rc 0 corpus "$R" "$TOP"/tests/fixtures/h100/*.cubin "$TOP"/tests/fixtures/h100/*.fatbin \
	"$TOP"/tests/fixtures/nvcc13/*.fatbin
n=$(grep -c ' bytes ok$' "$T/corpus.out")
[ "$n" -eq 4 ] || fail "expected 4 images replayed, got $n: $(cat "$T/corpus.out")"
echo "ok"
