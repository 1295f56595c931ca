#!/bin/sh
# vkMapMemory reads only the driver's populated pages (layers/vulkan/
# vkl_memory.c, vkl_mem_take_initial): a mapping whose driver pages are
# partly populated with bytes and partly never touched (vk_mapwrite
# --prefill, 4 MiB: every fourth page of the first half written, the buffer
# unmapped and mapped again, then 10 submits of 3 % of the pages), under
# each tracker (uffd where the kernel has it, guard, shadow), over the
# Khronos validation layer (any VUID- line fails), with the scan (the
# default) and with TRACESMITH_VK_MAP_SCAN=0 (the whole copy, as before):
# - the program's hashes as without the layer;
# - where the kernel tells populated pages (PROCMAP_QUERY, PAGEMAP_SCAN:
#   Linux 6.11), the debug log says the first mapping read 0 bytes of the
#   driver's (nothing populated yet) and the second exactly the 128
#   written pages; with TRACESMITH_VK_MAP_SCAN=0 both were copied whole;
# - the host writes recorded (offset and size of each) the same with and
#   without the scan;
# - replayed (tsreplay, without our layer), every checkpoint equal.
# The unit test test_vkl_memory_scan checks that the driver's untouched
# pages stay unpopulated and the bytes recorded, byte for byte.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup --replay vk_mapwrite vk_tracetool
unset DISPLAY TRACESMITH_VK_TRACKER TRACESMITH_VK_MAP_SCAN
# Under make asan, ASan's malloc fills the first 4 KiB of every block
# (max_malloc_fill_size), lavapipe's device memory included: a page of
# the driver's mapping is then populated before the program writes it,
# and the first mapping would read 4096 bytes, not 0.  No effect on a
# normal build.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_malloc_fill_size=0"
export ASAN_OPTIONS
ARGS="--mib 4 --permille 30 --submits 10 --prefill"
MIB4=$((4 * 1048576))
PAGE=$(getconf PAGESIZE)
[ "$PAGE" = 4096 ] || fail "the page size is $PAGE: this test counts 4096-byte pages"

vk_env_layers_validation
# shellcheck disable=SC2086
vk_env_run "$T/plain.log" "$P/vk_mapwrite" $ARGS || fail "vk_mapwrite $ARGS without the layer"
want=$(grep hash "$T/plain.log" | sed 's/ loop_ms.*//')
[ "$(echo "$want" | grep -c 'mapping hash')" = 1 ] || fail "no mapping hash in $T/plain.log"

TRACKERS="guard shadow"
vk_env_layers_ours
TRACESMITH_LOG=info TRACESMITH_OUTPUT=$T/probe.sbt vk_env_run "$T/probe.log" \
	"$P/vk_mapwrite" --mib 1 --submits 1 || fail "vk_mapwrite under the layer"
if grep -q 'mapped memory tracker uffd$' "$T/probe.log"; then
	TRACKERS="uffd $TRACKERS"
else
	echo "note: userfaultfd write-protect with PAGEMAP_SCAN is not available on $(uname -r): uffd not run"
fi

scanned=
for tr in $TRACKERS; do
	for scan in 1 0; do
		run=$tr.$scan
		log=$T/cap.$run.log
		vk_env_layers_ours
		# shellcheck disable=SC2086
		TRACESMITH_VK_TRACKER=$tr TRACESMITH_VK_MAP_SCAN=$scan TRACESMITH_LOG=debug \
			TRACESMITH_OUTPUT=$T/$run.sbt vk_env_run "$log" "$P/vk_mapwrite" $ARGS ||
			fail "tracker $tr, scan $scan: vk_mapwrite $ARGS under the layer"
		got=$(grep hash "$log" | sed 's/ loop_ms.*//')
		[ "$got" = "$want" ] || fail "tracker $tr, scan $scan: printed '$got' under the layer, '$want' without"
		# the 4 MiB buffer's two mappings, in order
		grep "mapped ($MIB4 bytes)" "$log" | sed 's/.*bytes): //' >"$T/maps.$run"
		[ "$(wc -l <"$T/maps.$run")" = 2 ] ||
			fail "tracker $tr, scan $scan: not two debug lines for the 4 MiB mappings: $(cat "$T/maps.$run")"
		if [ "$scan" = 0 ]; then
			[ "$(sort -u "$T/maps.$run")" = "copied whole" ] ||
				fail "tracker $tr, TRACESMITH_VK_MAP_SCAN=0: $(cat "$T/maps.$run")"
		elif grep -q 'populated pages read' "$T/maps.$run"; then
			printf '0 bytes of populated pages read\n%s bytes of populated pages read\n' \
				$((128 * PAGE)) >"$T/maps.want"
			cmp -s "$T/maps.$run" "$T/maps.want" ||
				fail "tracker $tr: the mappings read $(tr '\n' ';' <"$T/maps.$run"), expected $(tr '\n' ';' <"$T/maps.want")"
			scanned=1
		else
			echo "note: tracker $tr: the driver's mapping was copied whole ($(uname -r): no PROCMAP_QUERY, or not private anonymous memory)"
		fi
		vk_env_layers_validation
		vk_env_run "$T/replay.$run.log" "$VK_ENV_BUILD/tsreplay" "$T/$run.sbt" ||
			fail "tsreplay of the capture with tracker $tr, scan $scan (exit 3: a checkpoint differs)"
		grep -q 'checkpoints: \([1-9][0-9]*\) compared, \1 matched, 0 differ' "$T/replay.$run.log" ||
			fail "tracker $tr, scan $scan: $(grep checkpoints "$T/replay.$run.log")"
		"$P/vk_tracetool" memwrites "$T/$run.sbt" >"$T/mw.$run" ||
			fail "vk_tracetool memwrites (tracker $tr, scan $scan)"
		awk '{ print $7, $9 }' "$T/mw.$run" >"$T/w.$run"
		[ -s "$T/w.$run" ] || fail "tracker $tr, scan $scan: no host write recorded"
	done
	cmp -s "$T/w.$tr.0" "$T/w.$tr.1" ||
		fail "tracker $tr: the host writes recorded with and without the scan differ: $(diff "$T/w.$tr.0" "$T/w.$tr.1" | head -4)"
	echo "tracker $tr: ok"
done
[ -n "$scanned" ] || echo "note: the scan never ran here: only the whole copy was checked"
echo ok
