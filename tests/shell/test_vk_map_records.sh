#!/bin/sh
# One vulkan.tsMemoryWrites record per publish (layers/vulkan/vkl_memory.c):
# vk_mapwrite (a 4 MiB mapping, 3 % of its pages written, spread, before
# each of 5 submits) captured over validation with the tracker the layer
# chooses, then:
# - the mapping's memory has its initial contents as one tsMemoryWrite of
#   the whole mapping and exactly one tsMemoryWrites per submit, no other;
# - the runs those records hold (tsinfo --dump's runs=) are the host writes
#   vk_tracetool memwrites lists for them, each one whole 4096-byte page
#   (the pages are not adjacent), and their bytes add up to bytes=;
# - tsinfo --extract writes one file per run, each 4096 bytes;
# - tsreplay replays the trace over validation with every checkpoint equal;
# - a record naming memory no record allocated, a blob the trace lacks, or a
#   run past its memory's end stops the replay with a message naming the
#   record (exit 1).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup vk_mapwrite vk_tracetool
unset DISPLAY TRACESMITH_VK_TRACKER
SUBMITS=5

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/m.sbt vk_env_run "$T/cap.log" "$P/vk_mapwrite" --mib 4 --permille 30 \
	--submits $SUBMITS || fail "vk_mapwrite under the layer"
vk_env_clean "$T/cap.log" || fail "validation messages under the layer"
"$VK_ENV_BUILD/tsinfo" --dump "$T/m.sbt" >"$T/dump" || fail "tsinfo --dump"

# the mapping's memory: the one whose initial contents are 4 MiB
mem=$(grep ' vulkan.tsMemoryWrite memory=.* size=4194304 ' "$T/dump" | head -1 |
	sed 's/.* memory=\(0x[0-9a-f]*\) .*/\1/')
[ -n "$mem" ] || fail "no tsMemoryWrite of the 4 MiB mapping's initial contents"
n_old=$(grep -c " vulkan.tsMemoryWrite memory=$mem " "$T/dump" || true)
[ "$n_old" = 1 ] || fail "$n_old tsMemoryWrite records of $mem, expected the initial contents only"
grep " vulkan.tsMemoryWrites memory=$mem " "$T/dump" >"$T/recs" || true
n_new=$(wc -l <"$T/recs" | tr -d ' ')
[ "$n_new" = $SUBMITS ] || fail "$n_new tsMemoryWrites records of $mem, expected one per submit ($SUBMITS)"

# runs= and bytes= of each record against the runs vk_tracetool lists
runs=$(sed 's/.* runs=\([0-9]*\) .*/\1/' "$T/recs" | awk '{ n += $1 } END { print n + 0 }')
bytes=$(sed 's/.* bytes=\([0-9]*\) .*/\1/' "$T/recs" | awk '{ n += $1 } END { print n + 0 }')
"$P/vk_tracetool" memwrites "$T/m.sbt" >"$T/mw" || fail "vk_tracetool memwrites"
awk -v m="$mem" '$5 == m && $9 != 4194304 { print $9 }' "$T/mw" >"$T/sizes"
[ "$(wc -l <"$T/sizes" | tr -d ' ')" = "$runs" ] ||
	fail "the records say $runs runs, vk_tracetool lists $(wc -l <"$T/sizes") writes"
[ "$runs" -ge $((SUBMITS * 25)) ] || fail "$runs runs in $SUBMITS submits of 31 pages each"
[ "$(sort -u "$T/sizes")" = 4096 ] || fail "runs that are not one page: $(sort -u "$T/sizes" | tr '\n' ' ')"
[ "$bytes" = $((runs * 4096)) ] || fail "bytes= add up to $bytes for $runs one-page runs"

"$VK_ENV_BUILD/tsinfo" --extract "$T/x" "$T/m.sbt" >"$T/ex.log" 2>&1 || fail "tsinfo --extract"
nfiles=0
for f in "$T"/x/memwrite-*-*.bin; do
	[ -e "$f" ] || continue
	[ "$(stat -c %s "$f")" = 4096 ] || fail "$f is not 4096 bytes"
	nfiles=$((nfiles + 1))
done
[ "$nfiles" = "$runs" ] || fail "$nfiles run files extracted, $runs runs"

vk_env_layers_validation
vk_env_run "$T/replay.log" "$VK_ENV_BUILD/tsreplay" "$T/m.sbt" || fail "tsreplay"
grep -q "checkpoints: \([1-9][0-9]*\) compared, \1 matched, 0 differ" "$T/replay.log" ||
	fail "replay: $(grep checkpoints "$T/replay.log")"

# hostile copies of the first tsMemoryWrites: its memory, its blob, its
# first run's gap (the varints: memory, blob, count, then gap and size a run)
seq=$(head -1 "$T/recs" | sed 's/^seq=\([0-9]*\) .*/\1/')
case $seq in '' | *[!0-9]*) fail "no seq in: $(head -1 "$T/recs")" ;; esac
for c in "mem:0:12345:unknown VkDeviceMemory 0x3039 (not allocated in this replay)" \
	"blob:1:99999:blob 99999 of " "gap:3:1073741824:range [1073741824, "; do
	name=${c%%:*} rest=${c#*:}
	i=${rest%%:*} rest=${rest#*:}
	v=${rest%%:*} want=${rest#*:}
	vk_env_run "$T/$name.mut.log" "$BUILD/tests/sbt_mutate" "$T/m.sbt" "$T/$name.sbt" \
		--varint "$seq:$i:$v" || fail "sbt_mutate --varint $seq:$i:$v"
	rc=0
	"$VK_ENV_BUILD/tsreplay" "$T/$name.sbt" >"$T/$name.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "$name: exit $rc, expected 1: $(tail -n 2 "$T/$name.log")"
	grep -qF "record seq $seq vulkan.tsMemoryWrites: $want" "$T/$name.log" ||
		fail "$name: $(tail -n 2 "$T/$name.log")"
done
echo ok
