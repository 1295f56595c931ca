#!/bin/sh
# The mapped-memory trackers (layers/vulkan/vkl_track.c), each forced with
# TRACESMITH_VK_TRACKER in turn (uffd where the kernel has it, guard,
# shadow), everything over the Khronos validation layer (any VUID- line
# fails):
# - the unit tests of mapped memory (test_vkl_memory, test_vkl_memory_runs,
#   test_vkl_memory_scan, test_vkl_reach) pass under it;
# - vk_compute, vk_reach, vk_callbound and vk_mapwrite (sparse and dense
#   page writes) captured: the program prints the same hash as without the
#   layer, the trace's metadata says vulkan.memory_tracker = that tracker,
#   the exit report at TRACESMITH_LOG=info names it, and tsreplay replays
#   the trace with every checkpoint equal (there is at least one: the
#   device results read through mapped memory after the fence waits);
# - test_vk_reach.sh (exactly the writes each submission reaches, in the
#   window before it) passes under it;
# - the trace of vk_mapwrite under each tracker holds the same host writes
#   (vk_tracetool memwrites: offset and size of each, in order), so a tracker
#   changes how fast the writes are found, never which;
# - vk_mapwrite --track (the benchmark's baseline: the program writes a
#   shadow the tracker watches and copies only the runs it reports into the
#   mapping, no layer) prints the same result and mapping hashes as the
#   plain run, sparse and dense, and says which tracker it ran: a page the
#   tracker missed would be missing from the mapping.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup --replay vk_compute vk_reach vk_callbound vk_mapwrite vk_tracetool
unset DISPLAY

# name, then the program and its options
set_prog() {
	case $1 in
	compute) echo "$P/vk_compute --size 4096 --submits 4" ;;
	reach) echo "$P/vk_reach" ;;
	callbound) echo "$P/vk_callbound --submits 12 --cmds 200 --every 50" ;;
	sparse) echo "$P/vk_mapwrite --mib 4 --permille 10 --submits 6" ;;
	dense) echo "$P/vk_mapwrite --mib 2 --permille 1000 --submits 12" ;;
	esac
}
PROGS="compute reach callbound sparse dense"

vk_env_layers_validation
for name in $PROGS; do
	# shellcheck disable=SC2046
	vk_env_run "$T/plain.$name.log" $(set_prog "$name") || fail "$name without the layer"
done

# the kernel decides whether uffd is there: the layer says which it chose
TRACKERS="guard shadow"
vk_env_layers_ours
TRACESMITH_LOG=info TRACESMITH_OUTPUT=$T/probe.sbt vk_env_run "$T/probe.log" \
	"$P/vk_mapwrite" --mib 1 --submits 1 || fail "vk_mapwrite under the layer"
if grep -q 'mapped memory tracker uffd$' "$T/probe.log"; then
	TRACKERS="uffd $TRACKERS"
else
	echo "note: userfaultfd write-protect with PAGEMAP_SCAN is not available on $(uname -r): uffd not run"
fi

for tr in $TRACKERS; do
	export TRACESMITH_VK_TRACKER=$tr
	for u in test_vkl_memory test_vkl_memory_runs test_vkl_memory_scan test_vkl_reach; do
		"$BUILD/tests/$u" >"$T/$u.$tr.log" 2>&1 ||
			fail "$u under TRACESMITH_VK_TRACKER=$tr: $(tail -3 "$T/$u.$tr.log")"
	done
	for name in $PROGS; do
		log=$T/cap.$name.$tr.log
		vk_env_layers_ours
		# shellcheck disable=SC2046
		TRACESMITH_LOG=info TRACESMITH_OUTPUT=$T/$name.$tr.sbt vk_env_run "$log" \
			$(set_prog "$name") || fail "$name under the layer with tracker $tr"
		want=$(grep -E '(hash|checksum)' "$T/plain.$name.log" | sed 's/ loop_ms.*//' | head -1)
		got=$(grep -E '(hash|checksum)' "$log" | sed 's/ loop_ms.*//' | head -1)
		[ -n "$want" ] && [ "$got" = "$want" ] ||
			fail "$name, tracker $tr: printed '$got' under the layer, '$want' without"
		grep -q "mapped memory tracker $tr: [0-9]* looks" "$log" ||
			fail "$name, tracker $tr: no exit report naming the tracker in $(grep -c . "$log")-line log"
		"$VK_ENV_BUILD/tsinfo" "$T/$name.$tr.sbt" >"$T/info" || fail "tsinfo of $name ($tr)"
		grep -q "vulkan.memory_tracker = $tr\$" "$T/info" ||
			fail "$name, tracker $tr: the metadata says $(grep memory_tracker "$T/info")"
		vk_env_layers_validation
		vk_env_run "$T/replay.$name.$tr.log" "$VK_ENV_BUILD/tsreplay" "$T/$name.$tr.sbt" ||
			fail "tsreplay of $name captured with tracker $tr (exit 3: a checkpoint differs)"
		grep -q 'checkpoints: [1-9][0-9]* compared, \([0-9]*\) matched, 0 differ' \
			"$T/replay.$name.$tr.log" ||
			fail "$name, tracker $tr: $(grep checkpoints "$T/replay.$name.$tr.log")"
	done
	vk_env_layers_validation
	for name in sparse dense; do
		# shellcheck disable=SC2046
		vk_env_run "$T/track.$name.$tr.log" $(set_prog "$name") --track ||
			fail "$name --track with tracker $tr"
		grep -q "^vk_mapwrite: --track with the $tr tracker\$" "$T/track.$name.$tr.log" ||
			fail "$name --track: $(head -1 "$T/track.$name.$tr.log"), not tracker $tr"
		want=$(grep hash "$T/plain.$name.log" | sed 's/ loop_ms.*//')
		got=$(grep hash "$T/track.$name.$tr.log" | sed 's/ loop_ms.*//')
		[ "$(echo "$want" | grep -c 'mapping hash')" = 1 ] ||
			fail "$name: no mapping hash in $T/plain.$name.log"
		[ -n "$want" ] && [ "$got" = "$want" ] ||
			fail "$name --track, tracker $tr: printed '$got', '$want' without it"
	done
	BUILD=$BUILD TOP=$TOP sh "$TOP/tests/shell/test_vk_reach.sh" >"$T/reach.$tr.log" 2>&1 ||
		fail "test_vk_reach.sh with tracker $tr: $(tail -3 "$T/reach.$tr.log")"
	for name in sparse dense; do
		"$P/vk_tracetool" memwrites "$T/$name.$tr.sbt" | awk '{ print $7, $9 }' \
			>"$T/w.$name.$tr" || fail "vk_tracetool memwrites ($name, $tr)"
		[ -s "$T/w.$name.$tr" ] || fail "$name, tracker $tr: no host writes in the trace"
	done
	echo "tracker $tr: ok"
done
unset TRACESMITH_VK_TRACKER
for tr in $TRACKERS; do
	for name in sparse dense; do
		cmp -s "$T/w.$name.shadow" "$T/w.$name.$tr" ||
			fail "$name: the host writes recorded with tracker $tr differ from shadow's: $(diff "$T/w.$name.shadow" "$T/w.$name.$tr" | head -4)"
	done
done
echo ok
