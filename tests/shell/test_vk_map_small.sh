#!/bin/sh
# A small memory object mapped, written and unmapped at every submit
# (vk_mapwrite --remap: the buffer filled once, then each submit maps it,
# writes 1 KiB of one page, unmaps it), over the Khronos validation layer
# (any VUID- line fails), with the scan of the driver's populated pages
# allowed (the default) and with TRACESMITH_VK_MAP_SCAN=0, at 64 KiB (below
# the layer's VKL_MEM_SCAN_MIN, 1 MiB: always the whole copy) and at 1 MiB
# (the scan, where the kernel has it):
# - the program's hashes as without the layer;
# - the debug log: every mapping of the 64 KiB buffer copied whole, with
#   the scan allowed too; the 1 MiB buffer's remappings (populated by the
#   fill) read all 1,048,576 bytes as populated pages where the kernel
#   tells them (PROCMAP_QUERY, PAGEMAP_SCAN: Linux 6.11), copied whole
#   with TRACESMITH_VK_MAP_SCAN=0;
# - the host writes recorded (offset and size of each) the same with and
#   without the scan, at each size;
# - replayed (tsreplay, without our layer), every checkpoint equal (each
#   remapping after a submit is checkpointed).
# test_vkl_memory_scan checks the bytes of a small mapping under the
# threshold, page by page.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup --replay vk_mapwrite vk_tracetool
unset DISPLAY TRACESMITH_VK_TRACKER TRACESMITH_VK_MAP_SCAN
SUBMITS=6

scanned=
for kib in 64 1024; do
	args="--kib $kib --remap --submits $SUBMITS"
	bytes=$((kib * 1024))
	vk_env_layers_validation
	# shellcheck disable=SC2086
	vk_env_run "$T/plain.$kib.log" "$P/vk_mapwrite" $args ||
		fail "vk_mapwrite $args without the layer"
	want=$(grep hash "$T/plain.$kib.log" | sed 's/ loop_ms.*//')
	[ "$(echo "$want" | grep -c 'mapping hash')" = 1 ] ||
		fail "no mapping hash in $T/plain.$kib.log"
	for scan in 1 0; do
		run=$kib.$scan
		log=$T/cap.$run.log
		vk_env_layers_ours
		# shellcheck disable=SC2086
		TRACESMITH_VK_MAP_SCAN=$scan TRACESMITH_LOG=debug TRACESMITH_OUTPUT=$T/$run.sbt \
			vk_env_run "$log" "$P/vk_mapwrite" $args ||
			fail "$kib KiB, scan $scan: vk_mapwrite $args under the layer"
		got=$(grep hash "$log" | sed 's/ loop_ms.*//')
		[ "$got" = "$want" ] ||
			fail "$kib KiB, scan $scan: printed '$got' under the layer, '$want' without"
		# the buffer's mappings in order: at its creation, one a submit, the
		# one the hash is taken from
		grep "mapped ($bytes bytes)" "$log" | sed 's/.*bytes): //' >"$T/maps.$run"
		[ "$(wc -l <"$T/maps.$run")" = $((SUBMITS + 2)) ] ||
			fail "$kib KiB, scan $scan: not $((SUBMITS + 2)) debug lines for its mappings: $(cat "$T/maps.$run")"
		sed 1d "$T/maps.$run" | sort -u >"$T/remaps.$run"
		if [ "$scan" = 0 ] || [ "$kib" = 64 ]; then
			[ "$(sort -u "$T/maps.$run")" = "copied whole" ] ||
				fail "$kib KiB, scan $scan: $(sort -u "$T/maps.$run" | tr '\n' ';'), not all copied whole"
		elif grep -q 'populated pages read' "$T/maps.$run"; then
			[ "$(cat "$T/remaps.$run")" = "$bytes bytes of populated pages read" ] ||
				fail "$kib KiB: the remappings read $(tr '\n' ';' <"$T/remaps.$run"), expected $bytes bytes of populated pages each"
			scanned=1
		else
			echo "note: $kib KiB: the driver's mapping was copied whole ($(uname -r): no PROCMAP_QUERY, or not private anonymous memory)"
		fi
		vk_env_layers_validation
		vk_env_run "$T/replay.$run.log" "$VK_ENV_BUILD/tsreplay" "$T/$run.sbt" ||
			fail "tsreplay of the $kib KiB capture, scan $scan (exit 3: a checkpoint differs)"
		grep -q 'checkpoints: \([1-9][0-9]*\) compared, \1 matched, 0 differ' "$T/replay.$run.log" ||
			fail "$kib KiB, scan $scan: $(grep checkpoints "$T/replay.$run.log")"
		"$P/vk_tracetool" memwrites "$T/$run.sbt" >"$T/mw.$run" ||
			fail "vk_tracetool memwrites ($kib KiB, scan $scan)"
		awk '{ print $7, $9 }' "$T/mw.$run" >"$T/w.$run"
		[ "$(grep -c . "$T/w.$run")" -gt "$SUBMITS" ] ||
			fail "$kib KiB, scan $scan: $(grep -c . "$T/w.$run") host writes recorded, not more than $SUBMITS"
	done
	cmp -s "$T/w.$kib.0" "$T/w.$kib.1" ||
		fail "$kib KiB: the host writes recorded with and without the scan differ: $(diff "$T/w.$kib.0" "$T/w.$kib.1" | head -4)"
	echo "$kib KiB: ok"
done
[ -n "$scanned" ] || echo "note: the scan never ran here: only the whole copy was checked"
echo ok
