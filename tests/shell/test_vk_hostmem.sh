#!/bin/sh
# VK_EXT_external_memory_host (issue 11): vk_hostmem imports two host
# allocations of its own as VkDeviceMemory and writes the source's bytes at
# its own address (and, in odd rounds, through a vkMapMemory of the
# imported memory); each submit copies the source over the destination and
# fills part of it.  Under the layer (tscapture, validation below ours)
# the extension is offered, the program runs as it does alone (same hash),
# and under each written-page tracker (uffd, guard, shadow):
# - the source's contents at the import are recorded as host writes (page 3,
#   all zero, left out), then each round's page and word before its submit;
# - the replay under validation (the import allocated as ordinary
#   host-visible memory) matches every checkpoint of the destination, and
#   the checkpoints are the same under every tracker.
# A trimmed capture (`--submits 4-7`, with and without
# TRACESMITH_VK_SNAPSHOT_STAGING=1: imported memory is always read at its
# address) has the full capture's checkpoints for submits 4-6 and its
# replay matches them.  With --upload (the source an upload buffer whose
# last page the host writes while each copy runs) those writes are
# recorded as the host's, not checkpointed, and the replay matches.  No
# validation message of any kind anywhere.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_hostmem; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
PROG="$BUILD/tests/programs/vk_hostmem"

# run LOG cmd...: vk_env_run, and no validation error of any kind
run() {
	run_log=$1
	vk_env_run "$@" || return 1
	if grep -q 'Validation Error' "$run_log"; then
		grep 'Validation Error' "$run_log" | head -n 3 | cut -c1-400 >&2
		return 1
	fi
}
# checkpoints (object, offset, length, hash) after submit A up to submit B
# (all: 1 to a million)
cps() {
	"$BUILD/tsinfo" --dump "$1" | awk -v a="${2:-1}" -v b="${3:-1000000}" '
		/ vulkan.vkQueueSubmit / { n++ }
		/ checkpoint / && n >= a && n <= b { print }' |
		sed 's/.*\(object=[^ ]*\).*\(offset=[^ ]*\).*\(length=[^ ]*\).*\(hash=[^ ]*\).*/\1 \2 \3 \4/'
}

run "$T/plain.log" "$PROG" || fail "vk_hostmem under validation alone"
want=$(grep '^vk_hostmem: rounds 8 ' "$T/plain.log") || fail "vk_hostmem: $(tail -1 "$T/plain.log")"

for k in uffd guard shadow; do
	TRACESMITH_VK_TRACKER=$k TRACESMITH_LOG=info run "$T/$k.log" "$BUILD/tscapture" \
		-o "$T/$k.sbt" -- "$PROG" || fail "$k: tscapture of vk_hostmem"
	grep -qx "$want" "$T/$k.log" || fail "$k: under the layer the program printed $(grep '^vk_hostmem' "$T/$k.log"), alone $want"
	! grep -q 'hides extension VK_EXT_external_memory_host' "$T/$k.log" || fail "$k: the layer hides the extension"
	grep -q "mapped memory tracker $k:" "$T/$k.log" ||
		fail "$k: another tracker ran: $(grep 'mapped memory tracker' "$T/$k.log")"
	"$BUILD/tsinfo" --dump "$T/$k.sbt" >"$T/$k.dump"
	src=$(grep -m1 'vulkan.vkAllocateMemory .*VkImportMemoryHostPointerInfoEXT' "$T/$k.dump" |
		tr ' ' '\n' | sed -n 's/^pMemory=//p')
	[ -n "$src" ] || fail "$k: no vkAllocateMemory importing host memory in the trace"
	# offset+size of each write: a tsMemoryWrite, or each run of a
	# tsMemoryWrites (offset[K]=O size[K]=S)
	grep -E "vulkan\.tsMemoryWrites? memory=$src " "$T/$k.dump" | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^offset(\[[0-9]+\])?=/) { sub(/^[^=]*=/, "", $i); o = $i }
			if ($i ~ /^size(\[[0-9]+\])?=/) { sub(/^[^=]*=/, "", $i); print o "+" $i }
		}
	}' >"$T/$k.writes"
	# the contents at the import (page 3 is zero), then per round its page
	# and word (round 7's word lies in its page: one write)
	printf '0+12288\n16384+49152\n' >"$T/initial"
	head -n 2 "$T/$k.writes" | cmp -s - "$T/initial" ||
		fail "$k: the imported memory's initial contents are not recorded as 0+12288, 16384+49152: $(head -n 3 "$T/$k.writes" | tr '\n' ' ')"
	n=$(wc -l <"$T/$k.writes" | tr -d ' ')
	[ "$n" -ge 16 ] || fail "$k: $n writes of the imported memory recorded, expected the initial 2 and at least 14 of the rounds"
	cps "$T/$k.sbt" >"$T/$k.cps"
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION run "$T/${k}_replay.log" "$VK_ENV_BUILD/tsreplay" "$T/$k.sbt" ||
		fail "$k: tsreplay under validation"
	m=$(wc -l <"$T/$k.cps" | tr -d ' ')
	[ "$m" -ge 8 ] || fail "$k: $m checkpoints, expected at least one per round"
	grep -q "checkpoints: $m compared, $m matched, 0 differ" "$T/${k}_replay.log" ||
		fail "$k: replay: $(grep 'checkpoints:' "$T/${k}_replay.log")"
done
cmp -s "$T/uffd.cps" "$T/guard.cps" && cmp -s "$T/uffd.cps" "$T/shadow.cps" ||
	fail "the trackers' checkpoints differ"

# --upload: the source as an upload buffer (usage TRANSFER_SRC |
# TRANSFER_DST, as mpv's through libplacebo) whose last page, which no
# copy reads, the host writes between each submit and its fence wait.  The
# copy only reads the source, so those bytes are host writes: recorded
# before a later submit, never checkpointed as the device's (before
# overrides.REFS_READS_ONLY each round left a checkpoint of them, which the
# replay could not match: 36 compared, 8 differ).
run "$T/up_plain.log" "$PROG" --upload || fail "vk_hostmem --upload under validation alone"
want_up=$(grep '^vk_hostmem: rounds 8 ' "$T/up_plain.log") || fail "vk_hostmem --upload: $(tail -1 "$T/up_plain.log")"
for k in uffd guard shadow; do
	TRACESMITH_VK_TRACKER=$k run "$T/up_$k.log" "$BUILD/tscapture" -o "$T/up_$k.sbt" -- \
		"$PROG" --upload || fail "$k: tscapture of vk_hostmem --upload"
	grep -qx "$want_up" "$T/up_$k.log" || fail "$k: --upload under the layer printed $(grep '^vk_hostmem' "$T/up_$k.log"), alone $want_up"
	"$BUILD/tsinfo" --dump "$T/up_$k.sbt" >"$T/up_$k.dump"
	src=$(grep -m1 'vulkan.vkAllocateMemory .*VkImportMemoryHostPointerInfoEXT' "$T/up_$k.dump" |
		tr ' ' '\n' | sed -n 's/^pMemory=//p')
	! grep -q " checkpoint .*object=$src " "$T/up_$k.dump" ||
		fail "$k: --upload: the source's memory, which the device only reads, is checkpointed"
	grep -E "vulkan\.tsMemoryWrites? memory=$src " "$T/up_$k.dump" | grep -q '=61440 ' ||
		fail "$k: --upload: the host's writes of the source's last page are not recorded"
	m=$(cps "$T/up_$k.sbt" | wc -l | tr -d ' ')
	[ "$m" -ge 8 ] || fail "$k: --upload: $m checkpoints, expected at least one per round"
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION run "$T/up_${k}_replay.log" "$VK_ENV_BUILD/tsreplay" "$T/up_$k.sbt" ||
		fail "$k: tsreplay of --upload under validation"
	grep -q "checkpoints: $m compared, $m matched, 0 differ" "$T/up_${k}_replay.log" ||
		fail "$k: --upload replay: $(grep 'checkpoints:' "$T/up_${k}_replay.log")"
done

cps "$T/uffd.sbt" 4 6 >"$T/full_window.cps"
[ -s "$T/full_window.cps" ] || fail "no checkpoint in submits 4-6 of the full capture"
for staging in 0 1; do
	TRACESMITH_VK_SNAPSHOT_STAGING=$staging TRACESMITH_LOG=info run "$T/trim$staging.log" \
		"$BUILD/tscapture" --submits 4-7 -o "$T/trim$staging.sbt" -- "$PROG" ||
		fail "staging=$staging: tscapture --submits 4-7 of vk_hostmem"
	W=$T/trim$staging-submits-4-7.sbt
	[ -s "$W" ] || fail "staging=$staging: no $W"
	! grep 'left out' "$T/trim$staging.log" >"$T/trim.out" ||
		fail "staging=$staging: the snapshot left something out: $(cat "$T/trim.out")"
	cps "$W" >"$T/trim$staging.cps"
	cmp -s "$T/trim$staging.cps" "$T/full_window.cps" ||
		fail "staging=$staging: checkpoints of submits 4-6 differ from the full capture's: $(diff "$T/full_window.cps" "$T/trim$staging.cps" | head -4)"
	m=$(wc -l <"$T/trim$staging.cps" | tr -d ' ')
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION run "$T/trim${staging}_replay.log" "$VK_ENV_BUILD/tsreplay" "$W" ||
		fail "staging=$staging: tsreplay of the trimmed trace under validation"
	grep -q "checkpoints: $m compared, $m matched, 0 differ" "$T/trim${staging}_replay.log" ||
		fail "staging=$staging: trimmed replay: $(grep 'checkpoints:' "$T/trim${staging}_replay.log")"
done
echo ok
