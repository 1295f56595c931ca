#!/bin/sh
# GPU only, run by hand or by tests/gpu/lease.sh (not a test: it is not
# named test_*.sh).  The Vulkan issue's per-command cost on a fast driver:
# vk_callbound (default --submits 200 --cmds 4000 --every 1000, 802,002
# calls) on the NVIDIA driver, plain against the layer in several ways,
# alternating round by round (GPU_VK_ROUNDS, default 5):
#   default   tscapture, default settings
#   nostack   tscapture with TRACESMITH_STACKS=none
#   disabled  the layer enabled by name with TRACESMITH_DISABLE=1
#   tracking  the layer with a window that never opens
#             (TRACESMITH_TRIGGER=frames:1000000-1000001, stacks none)
#   dispatch  the dispatch-only build ($BUILD/layers_dispatch), where built
#   layer     the layer enabled by name, recording, TRACESMITH_STACKS=none
#   base      the same with the layer in GPU_VK_BASE_LAYERS (a folder holding
#             another build's VkLayer_tracesmith.json and its library, e.g.
#             a copy of a branch's build/layers), to compare two layers in
#             one run; with it the ways default to "layer base", and the
#             median of the per-round ratios layer/base is printed too
# (GPU_VK_WAYS picks some).  Prints each round's loop_ms (the program's own
# timing of its recording and submit loop), the medians, the ratio to
# plain and the ns added per call, against the issue's goal (at most 2x
# plain); the traces' sizes and how their buffers were had.
#   BUILD=build sh tests/gpu/bench_vk_callbound.sh
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
P=$BUILD/tests/programs
[ -x "$P/vk_callbound" ] || { echo "bench_vk_callbound: $P/vk_callbound is not built; run make" >&2; exit 1; }
fail() {
	echo "bench_vk_callbound: $*" >&2
	exit 1
}
. "$TOP/tests/gpu/gpu_lib.sh"
gpu_vk_nvidia_only
ARGS=${GPU_VK_CALLBOUND:-"--submits 200 --cmds 4000 --every 1000"}
ROUNDS=${GPU_VK_ROUNDS:-5}
W=$(mktemp -d "${TMPDIR:-/tmp}/vkcb.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM

# by_name WAY DIR: the layer in DIR enabled by name, recording with
# TRACESMITH_STACKS=none, its trace in $W/WAY.sbt
by_name() {
	TRACESMITH_STACKS=none TRACESMITH_OUTPUT=$W/$1.sbt VK_ADD_LAYER_PATH=$2 \
		VK_INSTANCE_LAYERS=VK_LAYER_tracesmith "$P/vk_callbound" $ARGS >"$W/o" 2>"$W/e"
}

# ms WAY: one run's loop_ms (its trace stays in $W/WAY.sbt)
ms() {
	case $1 in
	plain) "$P/vk_callbound" $ARGS >"$W/o" 2>"$W/e" ;;
	default) "$BUILD/tscapture" -o "$W/default.sbt" -- "$P/vk_callbound" $ARGS >"$W/o" 2>"$W/e" ;;
	nostack) TRACESMITH_STACKS=none "$BUILD/tscapture" -o "$W/nostack.sbt" -- "$P/vk_callbound" $ARGS >"$W/o" 2>"$W/e" ;;
	disabled) TRACESMITH_DISABLE=1 VK_ADD_LAYER_PATH=$BUILD/layers VK_INSTANCE_LAYERS=VK_LAYER_tracesmith \
		"$P/vk_callbound" $ARGS >"$W/o" 2>"$W/e" ;;
	tracking) TRACESMITH_TRIGGER=frames:1000000-1000001 TRACESMITH_STACKS=none TRACESMITH_OUTPUT=$W/tracking.sbt \
		VK_ADD_LAYER_PATH=$BUILD/layers VK_INSTANCE_LAYERS=VK_LAYER_tracesmith "$P/vk_callbound" $ARGS >"$W/o" 2>"$W/e" ;;
	dispatch) by_name dispatch "$BUILD/layers_dispatch" ;;
	layer) by_name layer "$BUILD/layers" ;;
	base) by_name base "$GPU_VK_BASE_LAYERS" ;;
	*) fail "unknown way '$1' (GPU_VK_WAYS: default nostack disabled tracking dispatch layer base)" ;;
	esac || { echo "bench_vk_callbound: $1 run failed: $(tail -n 3 "$W/e")" >&2; exit 1; }
	sed -n 's/.* loop_ms \([0-9.]*\).*/\1/p' "$W/o"
}
if [ -n "${GPU_VK_BASE_LAYERS:-}" ]; then
	[ -f "$GPU_VK_BASE_LAYERS/VkLayer_tracesmith.json" ] ||
		fail "GPU_VK_BASE_LAYERS=$GPU_VK_BASE_LAYERS holds no VkLayer_tracesmith.json"
	WAYS=${GPU_VK_WAYS:-"layer base"}
else
	WAYS=${GPU_VK_WAYS:-"default nostack disabled tracking dispatch"}
	case " $WAYS " in *" base "*) fail "the way base needs GPU_VK_BASE_LAYERS (another build's layer folder)" ;; esac
fi
[ -f "$BUILD/layers_dispatch/libVkLayer_tracesmith.so" ] || WAYS=$(echo "$WAYS" | sed 's/dispatch//')
calls=$("$P/vk_callbound" $ARGS | sed -n 's/.* calls \([0-9]*\) .*/\1/p')
echo "bench_vk_callbound: vk_callbound $ARGS ($calls calls) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
: >"$W/plain"
for m in $WAYS; do : >"$W/$m"; done
i=1
while [ "$i" -le "$ROUNDS" ]; do
	for m in plain $WAYS; do
		v=$(ms $m)
		echo "$v" >>"$W/$m"
		echo "round $i $m loop_ms $v"
	done
	i=$((i + 1))
done
med() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
p=$(med "$W/plain")
for m in $WAYS; do
	c=$(med "$W/$m")
	awk -v p="$p" -v c="$c" -v n="$calls" -v m="$m" 'BEGIN {
		r = c / p
		printf "%-9s median loop_ms plain %.1f, this way %.1f: ratio %.2f, %+.0f ns per call; goal <= 2x plain: %s\n",
			m, p, c, r, (c - p) * 1e6 / n, r <= 2 ? "met" : "not met" }'
done
# two layers compared round by round: the median of layer/base
case " $WAYS " in *" layer "*)
	case " $WAYS " in *" base "*)
		paste "$W/layer" "$W/base" | awk '{print $1 / $2}' >"$W/ratio"
		echo "layer/base median of the per-round ratios $(med "$W/ratio" | awk '{printf "%.2f", $1}')" ;;
	esac ;;
esac
# the last round's trace: its size, and how its buffers were had (blocks
# the writer faulted in ahead, blocks the recording thread mapped itself,
# stalls at the memory bound: docs/capture.md, "Warm blocks")
for m in default nostack layer base; do
	case " $WAYS " in *" $m "*)
		echo "trace $m: $(wc -c <"$W/$m.sbt") B;" \
			$("$BUILD/tsinfo" "$W/$m.sbt" | sed -n 's/^ *capture\.\(warm_faulted\|warm_misses\|stalls\) = \([0-9]*\)$/\1 \2/p' | tr '\n' ' ')
		;;
	esac
done
