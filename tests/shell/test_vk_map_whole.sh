#!/bin/sh
# Whole pages (layers/vulkan/vkl_memory.c, vkl_mem_publish_locked): where
# the tracker's look is exact (uffd, guard) a mapping whose written pages
# were found mostly changed publishes them whole, without a compare, and
# compares them again every 16th publish.  Under each tracker (uffd where
# the kernel has it, guard, shadow), over the Khronos validation layer
# (any VUID- line fails), with the exit report's count of bytes published
# whole:
# - sparse (vk_mapwrite, 4 MiB, 31 whole pages written before each of 20
#   submits): the program's hashes as without the layer; under uffd and
#   guard exactly 18 publishes of 31 pages whole (the 1st and 17th
#   compare), under shadow none; the host writes recorded (offset and size
#   of each) those shadow records and, at most, whole pages more (a page the
#   host wrote with the bytes it held: the compare finds nothing there);
#   replayed, every checkpoint equal;
# - few bytes (--bytes 8: 8 bytes of each of those pages over a random
#   mapping): nothing published whole under any tracker (the compare finds
#   the pages mostly unchanged), the same writes under every tracker, each
#   write after the first submit's of at most 8 bytes;
# - edge (--edge: a mapping from byte 1280 to 1024 bytes before the end of
#   a 2 MiB buffer, every write flushed, the device filling 256 bytes of a
#   page the host writes 1 KiB of, only every second submit waiting): the
#   hashes as without the layer; every write recorded lies inside the
#   mapping; under uffd and guard pages are published whole, and that page
#   is recorded whole (its device bytes, taken at the last wait, included)
#   after a wait and as the host's 1 KiB alone while the device may still
#   be writing it; under shadow only the 1 KiB; replayed, every checkpoint
#   equal.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup --replay vk_mapwrite vk_tracetool
unset DISPLAY TRACESMITH_VK_TRACKER

set_args() {
	case $1 in
	sparse) echo "--mib 4 --permille 30 --submits 20" ;;
	bytes) echo "--mib 4 --permille 30 --submits 20 --bytes 8" ;;
	edge) echo "--mib 2 --permille 20 --submits 10 --edge" ;;
	esac
}
PROGS="sparse bytes edge"
PAGE=$(getconf PAGESIZE)
[ "$PAGE" = 4096 ] || fail "the page size is $PAGE: this test counts 4096-byte pages"

vk_env_layers_validation
for name in $PROGS; do
	# shellcheck disable=SC2046
	vk_env_run "$T/plain.$name.log" "$P/vk_mapwrite" $(set_args "$name") ||
		fail "$name without the layer"
done

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
	for name in $PROGS; do
		log=$T/cap.$name.$tr.log
		vk_env_layers_ours
		# shellcheck disable=SC2046
		TRACESMITH_LOG=info TRACESMITH_OUTPUT=$T/$name.$tr.sbt vk_env_run "$log" \
			"$P/vk_mapwrite" $(set_args "$name") || fail "$name under the layer with tracker $tr"
		want=$(grep hash "$T/plain.$name.log" | sed 's/ loop_ms.*//')
		got=$(grep hash "$log" | sed 's/ loop_ms.*//')
		[ "$(echo "$want" | grep -c 'mapping hash')" = 1 ] ||
			fail "$name: no mapping hash in $T/plain.$name.log"
		[ "$got" = "$want" ] || fail "$name, tracker $tr: printed '$got' under the layer, '$want' without"
		whole=$(sed -n "s/.*mapped memory tracker $tr: .*, \([0-9]*\) bytes published as whole pages\$/\1/p" "$log")
		[ -n "$whole" ] || fail "$name, tracker $tr: no exit report with the bytes published whole"
		echo "$whole" >"$T/whole.$name.$tr"
		vk_env_layers_validation
		vk_env_run "$T/replay.$name.$tr.log" "$VK_ENV_BUILD/tsreplay" "$T/$name.$tr.sbt" ||
			fail "tsreplay of $name captured with tracker $tr (exit 3: a checkpoint differs)"
		grep -q 'checkpoints: \([1-9][0-9]*\) compared, \1 matched, 0 differ' \
			"$T/replay.$name.$tr.log" ||
			fail "$name, tracker $tr: $(grep checkpoints "$T/replay.$name.$tr.log")"
		"$P/vk_tracetool" memwrites "$T/$name.$tr.sbt" >"$T/mw.$name.$tr" ||
			fail "vk_tracetool memwrites ($name, $tr)"
		# the mapped buffer's memory: the one whose initial contents are recorded whole
		# (vkp_buffer_create maps all of it first, --edge then maps its part)
		case $name in edge) init=$((2 * 1048576)) ;; *) init=$((4 * 1048576)) ;; esac
		mem=$(awk -v n="$init" '$9 == n { print $5; exit }' "$T/mw.$name.$tr")
		[ -n "$mem" ] || fail "$name, tracker $tr: no write of the mapping's $init initial bytes"
		awk -v m="$mem" '$5 == m { print $7, $9 }' "$T/mw.$name.$tr" >"$T/w.$name.$tr"
	done

	want=0
	[ "$tr" = shadow ] || want=$((18 * 31 * PAGE))
	[ "$(cat "$T/whole.sparse.$tr")" = "$want" ] ||
		fail "sparse, tracker $tr: $(cat "$T/whole.sparse.$tr") bytes published whole, expected $want"
	[ "$(cat "$T/whole.bytes.$tr")" = 0 ] ||
		fail "bytes, tracker $tr: $(cat "$T/whole.bytes.$tr") bytes published whole, expected none"
	# after the initial contents and the first submit's random fill, writes of at
	# most 8 bytes (fewer where a random byte already held the value written)
	big=$(tail -n +3 "$T/w.bytes.$tr" | awk '$2 > 8 { n++ } END { print n + 0 }')
	[ "$big" = 0 ] || fail "bytes, tracker $tr: $big writes of more than 8 bytes"
	[ "$(tail -n +3 "$T/w.bytes.$tr" | grep -c ' 8$')" -gt 0 ] ||
		fail "bytes, tracker $tr: no 8-byte writes after the first submit"

	tail -n +2 "$T/w.edge.$tr" |
		awk -v lo=1280 -v hi=$((2 * 1048576 - 1024)) '$1 < lo || $1 + $2 > hi { print }' >"$T/outside"
	[ ! -s "$T/outside" ] || fail "edge, tracker $tr: writes outside the mapping: $(head -3 "$T/outside")"
	grep -q "^$PAGE 1024\$" "$T/w.edge.$tr" ||
		fail "edge, tracker $tr: page 1's 1 KiB never recorded alone"
	if [ "$tr" = shadow ]; then
		[ "$(cat "$T/whole.edge.$tr")" = 0 ] || fail "edge, shadow: bytes published whole"
		! grep -q "^$PAGE $PAGE\$" "$T/w.edge.$tr" || fail "edge, shadow: page 1 recorded whole"
	else
		[ "$(cat "$T/whole.edge.$tr")" -gt 0 ] || fail "edge, tracker $tr: nothing published whole"
		grep -q "^$PAGE $PAGE\$" "$T/w.edge.$tr" ||
			fail "edge, tracker $tr: page 1 never recorded whole after a wait"
	fi
	echo "tracker $tr: ok"
done
unset TRACESMITH_VK_TRACKER
for tr in $TRACKERS; do
	cmp -s "$T/w.bytes.shadow" "$T/w.bytes.$tr" ||
		fail "bytes: the host writes recorded with tracker $tr differ from shadow's: $(diff "$T/w.bytes.shadow" "$T/w.bytes.$tr" | head -4)"
	# whole pages may add pages the host wrote with the bytes they held (the
	# compare finds nothing there), never drop or change a write
	diff "$T/w.sparse.shadow" "$T/w.sparse.$tr" >"$T/d.$tr" || true
	if grep -v '^> [0-9]* 4096$' "$T/d.$tr" | grep -q '^[<>]'; then
		fail "sparse: tracker $tr's host writes differ from shadow's other than by whole pages: $(head -4 "$T/d.$tr")"
	fi
done
echo ok
