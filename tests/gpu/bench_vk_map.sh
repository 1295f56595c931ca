#!/bin/sh
# GPU only, run by hand or by tests/gpu/lease.sh (not a test: it is not
# named test_*.sh).  The Vulkan issue's mapped-memory tracking (section 3)
# on the NVIDIA driver: vk_mapwrite over each point of GPU_VK_MAP_SWEEP
# (MIB:PERMILLE, default "64:10 16:1000": one 64 MiB mapping with 1 % of
# its pages written before each of 50 submits, one 16 MiB mapping written
# whole), alternating round by round (GPU_VK_MAP_ROUNDS, default 5):
#   plain      no layer
#   copy-once  no layer, each written page copied once more (--copy-once):
#              the least a capture has to do with the data
#   track      no layer, the pages written into a shadow that the layer's
#              own tracker watches (--track): the least a capture that
#              tracks written pages has to do
#   ours       the layer (TRACESMITH_STACKS default), the tracker it
#              chooses on this driver's mappings
# Prints each round's loop_ms (the program's timing of its submit loop),
# the medians and the medians of the per-round ratios to plain, against
# the issue's goal for the sparse point (at most 1.5x plain), and the
# tracker the layer names in its log with what it found.
# tests/bench/vk_map_bench.sh is the same on lavapipe, with GFXReconstruct.
#   BUILD=build sh tests/gpu/bench_vk_map.sh
set -eu
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
P=$BUILD/tests/programs/vk_mapwrite
[ -x "$P" ] || { echo "bench_vk_map: $P is not built; run make" >&2; exit 1; }
fail() {
	echo "bench_vk_map: $*" >&2
	exit 1
}
. "$TOP/tests/gpu/gpu_lib.sh"
gpu_vk_nvidia_only
SWEEP=${GPU_VK_MAP_SWEEP:-"64:10 16:1000"}
ROUNDS=${GPU_VK_MAP_ROUNDS:-5}
W=$(mktemp -d "${TMPDIR:-/tmp}/vkmap.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
WAYS="plain copy-once track ours"
echo "bench_vk_map: vk_mapwrite, 50 submits, on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"

# ms WAY ARGS...: one run's loop_ms
ms() {
	w=$1
	shift
	case $w in
	plain) "$P" "$@" >"$W/o" 2>&1 ;;
	copy-once) "$P" "$@" --copy-once >"$W/o" 2>&1 ;;
	track) "$P" "$@" --track >"$W/o" 2>&1 ;;
	ours) TRACESMITH_OUTPUT=$W/ours.sbt TRACESMITH_LOG=info VK_ADD_LAYER_PATH=$BUILD/layers \
		VK_INSTANCE_LAYERS=VK_LAYER_tracesmith "$P" "$@" >"$W/o" 2>"$W/ours.log" ;;
	esac || fail "$w $*: exit $?: $(tail -n 3 "$W/o" "$W/ours.log" 2>/dev/null)"
	v=$(sed -n 's/.* loop_ms \([0-9.]*\).*/\1/p' "$W/o")
	[ -n "$v" ] || fail "$w $*: no loop_ms in its output: $(tail -n 3 "$W/o")"
	echo "$v"
}
for pt in $SWEEP; do
	mib=${pt%%:*} pm=${pt#*:}
	set -- --mib "$mib" --permille "$pm" --submits 50
	for w in $WAYS; do : >"$W/$w"; done
	i=1
	while [ "$i" -le "$ROUNDS" ]; do
		for w in $WAYS; do
			v=$(ms $w "$@")
			echo "$v" >>"$W/$w"
			echo "$mib MiB $pm permille round $i $w loop_ms $v"
		done
		i=$((i + 1))
	done
	for w in copy-once track ours; do
		paste "$W/plain" "$W/$w" | awk -v w="$w" -v mib="$mib" -v pm="$pm" '
			{ p[NR] = $1; c[NR] = $2; r[NR] = $2 / $1 }
			function med(a, n,   i, j, t) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			END { n = NR; mp = med(p, n); mc = med(c, n); mr = med(r, n)
				printf "%s MiB %s permille %-9s median loop_ms plain %.1f, this way %.1f; median per-round ratio %.2f", mib, pm, w, mp, mc, mr
				if (w == "ours" && pm + 0 <= 10) printf "; goal <= 1.5x plain: %s", mr <= 1.5 ? "met" : "not met"
				printf "\n" }'
	done
	echo "$mib MiB $pm permille: trace $(wc -c <"$W/ours.sbt") B; $(grep -m 2 'mapped memory tracker' "$W/ours.log" | sed 's/^tracesmith: Vulkan layer: //' | tr '\n' ' ')"
done
