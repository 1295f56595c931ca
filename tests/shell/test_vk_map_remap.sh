#!/bin/sh
# An object mapped, written, unmapped, written by the device while unmapped,
# and mapped again at every submit (vk_mapwrite --remap --device-writes: the
# device fills the last 256 bytes of the page the next submit writes; each
# mapping checks it shows them before the host writes), captured under each
# tracker (uffd where the kernel has it, guard, shadow) with the layer
# keeping an unmapped object's memory for its next mapping (the default)
# and with TRACESMITH_VK_MAP_CACHE=0 (fresh memory at every map, as
# before), at 64 KiB (copied whole) and 1 MiB (the scan of the driver's
# populated pages, where the kernel has it), over the Khronos validation
# layer (any VUID- line fails):
# - the program's hashes and its count of device writes seen as without
#   the layer (it fails where a mapping shows stale bytes);
# - the exit report (TRACESMITH_LOG=info): with the cache, at least one
#   mapping a submit made with kept memory; without, none;
# - the host writes recorded (offset and size of each, in order) the same
#   with and without the cache: no write of an earlier mapping reported,
#   every write of the new one;
# - replayed (tsreplay, without our layer), every checkpoint equal (each
#   remapping after a submit is checkpointed whole: the device's bytes).
# test_vkl_memory_keep checks the kept memory's bytes, its cap and its
# reuse on a fake device.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup --replay vk_mapwrite vk_tracetool
unset DISPLAY TRACESMITH_VK_TRACKER TRACESMITH_VK_MAP_SCAN TRACESMITH_VK_MAP_CACHE
SUBMITS=6

# the kernel decides whether uffd is there: the layer says which it chose
TRACKERS="guard shadow"
vk_env_layers_ours
TRACESMITH_LOG=info TRACESMITH_OUTPUT=$T/probe.sbt vk_env_run "$T/probe.log" \
	"$P/vk_mapwrite" --kib 64 --remap --submits 1 || fail "vk_mapwrite under the layer"
if grep -q 'mapped memory tracker uffd$' "$T/probe.log"; then
	TRACKERS="uffd $TRACKERS"
else
	echo "note: userfaultfd write-protect with PAGEMAP_SCAN is not available on $(uname -r): uffd not run"
fi

for kib in 64 1024; do
	args="--kib $kib --remap --device-writes --submits $SUBMITS"
	vk_env_layers_validation
	# shellcheck disable=SC2086
	vk_env_run "$T/plain.$kib.log" "$P/vk_mapwrite" $args ||
		fail "vk_mapwrite $args without the layer"
	want=$(grep -E 'hash|device writes' "$T/plain.$kib.log" | sed 's/ loop_ms.*//')
	[ "$(echo "$want" | grep -c "device writes seen at $((SUBMITS - 1)) of")" = 1 ] ||
		fail "$kib KiB: no device writes seen in $T/plain.$kib.log"
	for tr in $TRACKERS; do
		for cache in kept fresh; do
			run=$kib.$tr.$cache
			log=$T/cap.$run.log
			keep=
			[ "$cache" = fresh ] && keep=0
			vk_env_layers_ours
			# shellcheck disable=SC2086
			TRACESMITH_VK_TRACKER=$tr TRACESMITH_VK_MAP_CACHE=$keep TRACESMITH_LOG=info \
				TRACESMITH_OUTPUT=$T/$run.sbt vk_env_run "$log" "$P/vk_mapwrite" $args ||
				fail "$run: vk_mapwrite $args under the layer: $(grep -m1 'device-writes' "$log")"
			got=$(grep -E 'hash|device writes' "$log" | sed 's/ loop_ms.*//')
			[ "$got" = "$want" ] ||
				fail "$run: printed '$got' under the layer, '$want' without"
			grep -q "mapped memory tracker $tr: " "$log" ||
				fail "$run: no exit report naming tracker $tr"
			kept=$(sed -n 's/.*layer: \([0-9]*\) of [0-9]* mappings made with memory kept .*/\1/p' "$log")
			[ -n "$kept" ] || fail "$run: no count of mappings made with kept memory in the exit report"
			if [ "$cache" = kept ]; then
				[ "$kept" -ge "$SUBMITS" ] ||
					fail "$run: $kept mappings made with kept memory, not $SUBMITS or more"
			else
				[ "$kept" = 0 ] || fail "$run: $kept mappings made with kept memory with the cache off"
			fi
			vk_env_layers_validation
			vk_env_run "$T/replay.$run.log" "$VK_ENV_BUILD/tsreplay" "$T/$run.sbt" ||
				fail "tsreplay of $run (exit 3: a checkpoint differs)"
			grep -q 'checkpoints: \([1-9][0-9]*\) compared, \1 matched, 0 differ' \
				"$T/replay.$run.log" || fail "$run: $(grep checkpoints "$T/replay.$run.log")"
			"$P/vk_tracetool" memwrites "$T/$run.sbt" >"$T/mw.$run" ||
				fail "vk_tracetool memwrites ($run)"
			awk '{ print $7, $9 }' "$T/mw.$run" >"$T/w.$run"
			[ "$(grep -c . "$T/w.$run")" -gt "$SUBMITS" ] ||
				fail "$run: $(grep -c . "$T/w.$run") host writes recorded, not more than $SUBMITS"
		done
		cmp -s "$T/w.$kib.$tr.fresh" "$T/w.$kib.$tr.kept" ||
			fail "$kib KiB, tracker $tr: the host writes recorded with and without kept memory differ: $(diff "$T/w.$kib.$tr.fresh" "$T/w.$kib.$tr.kept" | head -4)"
	done
	echo "$kib KiB: ok"
done
echo ok
