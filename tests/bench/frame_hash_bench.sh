#!/bin/sh
# What TRACESMITH_FRAME_HASH=1 costs (docs/benchmarks.md, "Frame hashes"):
# vkcube under VK_LAYER_tracesmith on a private Xvfb, run under
# valgrind --tool=callgrind for F1 and F2 frames with the hash off and on.
# The difference between the two frame counts removes start-up and
# teardown, so the per-frame instruction counts (Ir, every thread of the
# process) compare what a frame costs; trace sizes for F2 frames as well.
#   BUILD=build TOP=. sh tests/bench/frame_hash_bench.sh [F1 F2]   (default 20 60)
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
F1=${1:-20}
F2=${2:-60}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT
vk_env_init
command -v valgrind >/dev/null 2>&1 || vk_env_fail "valgrind is not installed"
command -v vkcube >/dev/null 2>&1 || vk_env_fail "vkcube is not installed (vulkan-tools)"
vk_env_xvfb_start
VK_INSTANCE_LAYERS=VK_LAYER_tracesmith
export VK_INSTANCE_LAYERS

ir() { # HASH FRAMES: the run's Ir
	TRACESMITH_FRAME_HASH=$1 TRACESMITH_OUTPUT=$T/h$1_$2.sbt \
		valgrind --tool=callgrind --callgrind-out-file="$T/cg$1_$2.out" vkcube --c "$2" \
		>"$T/cg$1_$2.log" 2>&1 || vk_env_fail "vkcube --c $2 (hash $1) under callgrind: $(tail -3 "$T/cg$1_$2.log")"
	sed -n 's/.*I *refs: *//p' "$T/cg$1_$2.log" | tr -d ','
}

off1=$(ir 0 "$F1")
on1=$(ir 1 "$F1")
off2=$(ir 0 "$F2")
on2=$(ir 1 "$F2")
python3 - "$F1" "$F2" "$off1" "$on1" "$off2" "$on2" \
	"$(wc -c <"$T/h0_$F2.sbt")" "$(wc -c <"$T/h1_$F2.sbt")" <<'EOF'
import sys
f1, f2, off1, on1, off2, on2, s0, s1 = map(int, sys.argv[1:])
off = (off2 - off1) / (f2 - f1)
on = (on2 - on1) / (f2 - f1)
print("Ir/frame  hash off %.2fM  on %.2fM  ratio %.3f  (+%.2fM a frame)" % (off / 1e6, on / 1e6, on / off, (on - off) / 1e6))
print("Ir whole run of %d frames  off %.1fM  on %.1fM  ratio %.3f" % (f2, off2 / 1e6, on2 / 1e6, on2 / off2))
print("trace of %d frames  off %d bytes  on %d bytes  (+%.1f KiB a frame)" % (f2, s0, s1, (s1 - s0) / f2 / 1024))
EOF
