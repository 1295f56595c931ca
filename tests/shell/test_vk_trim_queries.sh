#!/bin/sh
# Trimmed Vulkan capture (issue 9): results of queries other than
# timestamps, written before the window and read inside it.
#
# vk_trim_churn --occlusion resets three occlusion queries in round 0 and
# begins and ends the first two, which it never resets again; every later
# round's submit resets, begins and ends the third, then copies all three
# results into a host-visible buffer (vkCmdCopyQueryPoolResults, 64-bit
# and 32-bit, with availability; the command buffer is recorded once,
# before the rounds), and the host reads them (vkGetQueryPoolResults, not
# waiting).  A `--submits 6-9` window: the snapshot reads the three
# results when the window opens and writes them as one
# vulkan.tsQueryResults record right after the pool's creation, and does
# not reset those queries; the replay hands the recorded results of the
# first two out in place of the driver's (in the copies, vkCmdUpdateBuffer
# writes) and leaves the third, which the command buffer resets before
# its copies, to the driver (a copy split in two, a host read in two), so
# the trimmed trace replays under the Khronos validation layer with its
# checkpoints equal to the same submits of a full capture, and no query
# read returns other than the capture's.  The same trace without that
# record (dropped with sbt_mutate): the copies find the first two queries
# unavailable and the checkpoints differ, and the host reads return
# VK_NOT_READY.
#
# vk_trim_churn --statistics does the same with a pipeline statistics
# query counting compute shader invocations (1024, a value every run
# shares), written in round 0, read from the host and copied (32-bit with
# availability) in every later round: the record holds it, the trimmed
# replay matches, and without the record it does not.
#
# The paths that end a substitution, each its own case (the record and
# the checks above hold for each; a fault in the path they take shows as
# a host read whose recorded results differ from what the capture read,
# VK_NOT_READY and unavailable):
#   secondary: --occlusion --query-secondary: the third query's reset,
#     begin and copies are recorded in a secondary command buffer the
#     copying one executes, and in round 7 (in the window) a primary executes a
#     secondary that resets the second query, which the host then reads:
#     the replay must end its substitution through vkCmdExecuteCommands;
#   submit2: the same through vkQueueSubmit2 (--submit2);
#   hostreset: --occlusion --host-reset: in round 7 the host resets the
#     first query (vkResetQueryPool) and reads it before the submit that
#     measures it again.
# And vk_trim_churn --primitives (VK_EXT_primitives_generated_query) does
# what --statistics does with a primitives generated query counting one
# drawn triangle, and vk_trim_churn --xfb (VK_EXT_transform_feedback) with
# a transform feedback stream query, begun with vkCmdBeginQueryIndexedEXT
# on stream 0: two values a query (primitives written, primitives needed),
# so the record's stride is 24 and the host reads and copies carry three
# words; the feedback buffer the draw wrote before the window is hashed by
# the program in every round too.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_trim_churn tests/sbt_mutate; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
CHURN=$BUILD/tests/programs/vk_trim_churn

# checkpoints: object, offset, length, hash
cps() {
	"$BUILD/tsinfo" --dump "$1" | grep ' checkpoint ' |
		sed 's/.*\(object=[^ ]*\).*\(offset=[^ ]*\).*\(length=[^ ]*\).*\(hash=[^ ]*\).*/\1 \2 \3 \4/'
}
snapshot() { # TRACE: the records before the snapshot end
	"$BUILD/tsinfo" --dump "$1" | awk '/ snapshot_end( |$)/{exit} {print}'
}

# NAME (the case) EXPECTED (the record's fields) [OPTIONS of vk_trim_churn,
# words without blanks: --NAME when none]
check() {
	opts=--$1
	[ $# -le 2 ] || opts=$(shift 2 && echo "$*")
	# shellcheck disable=SC2086 # opts: words without blanks
	vk_env_run "$T/$1.full.log" "$BUILD/tscapture" -o "$T/$1.sbt" -- "$CHURN" --rounds 12 $opts ||
		fail "$1: tscapture of vk_trim_churn $opts (full)"
	grep -q '^vk_trim_churn: rounds 12 size 1024 hash 0x' "$T/$1.full.log" ||
		fail "$1: vk_trim_churn $opts: $(tail -n 2 "$T/$1.full.log")"
	# shellcheck disable=SC2086
	TRACESMITH_LOG=info vk_env_run "$T/$1.trim.log" "$BUILD/tscapture" --submits 6-9 \
		-o "$T/$1-trim.sbt" -- "$CHURN" --rounds 12 $opts ||
		fail "$1: tscapture --submits 6-9 of vk_trim_churn $opts"
	Q=$T/$1-trim-submits-6-9.sbt
	[ -s "$Q" ] || fail "$1: no $Q (in $T: $(ls "$T"))"
	grep -q 'left out of the snapshot' "$T/$1.trim.log" &&
		fail "$1: the snapshot left query results out: $(grep 'left out of the snapshot' "$T/$1.trim.log")"
	grep -q " 1 query pools' results recorded" "$T/$1.trim.log" ||
		fail "$1: the snapshot did not record the pool's results: $(grep 'Vulkan snapshot:' "$T/$1.trim.log" | tail -1)"

	# the record: the three queries, 64-bit values with availability, after the
	# pool's creation and before the copying command buffer is recorded again
	snapshot "$Q" >"$T/$1.snap.dump"
	n=$(grep -c 'vulkan.tsQueryResults ' "$T/$1.snap.dump" || true)
	[ "$n" = 1 ] || fail "$1: the snapshot has $n vulkan.tsQueryResults records, expected 1"
	rec=$(grep 'vulkan.tsQueryResults ' "$T/$1.snap.dump")
	case $rec in
	*"$2"*) ;;
	*) fail "$1: the record: $rec" ;;
	esac
	line_of() { grep -n "$2" "$T/$1.snap.dump" | head -n 1 | cut -d: -f1; }
	created=$(line_of "$1" 'vulkan.vkCreateQueryPool ')
	recorded=$(line_of "$1" 'vulkan.tsQueryResults ')
	copied=$(line_of "$1" 'vulkan.vkCmdCopyQueryPoolResults ')
	[ -n "$created" ] && [ -n "$copied" ] || fail "$1: the snapshot lacks the pool or the copy"
	[ "$created" -lt "$recorded" ] && [ "$recorded" -lt "$copied" ] ||
		fail "$1: order: pool line $created, record line $recorded, copy line $copied"
	grep -q 'vulkan.vkCmdResetQueryPool commandBuffer=0xfff5' "$T/$1.snap.dump" &&
		fail "$1: the snapshot resets the queries whose results it recorded"

	# checkpoints: the trimmed trace's are the full trace's submits 6-9
	cps "$T/$1.sbt" >"$T/full.cps"
	cps "$Q" >"$T/trim.cps"
	n=$(wc -l <"$T/trim.cps" | tr -d ' ')
	[ "$n" -ge 3 ] || fail "$1: the trimmed trace has $n checkpoints"
	end=$(grep -nxF "$(tail -n 1 "$T/trim.cps")" "$T/full.cps" | cut -d: -f1)
	[ "$(echo "$end" | wc -w)" = 1 ] ||
		fail "$1: the trimmed trace's last checkpoint is not once in the full trace (lines: ${end:-none})"
	sed -n "$((end - n + 1)),${end}p" "$T/full.cps" >"$T/full_window.cps"
	cmp -s "$T/trim.cps" "$T/full_window.cps" ||
		fail "$1: checkpoints differ: $(diff "$T/full_window.cps" "$T/trim.cps" | head -4)"

	# replayed under validation: every checkpoint matches, every query read
	# returns what the capture's did
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/$1.replay.log" \
		"$VK_ENV_BUILD/tsreplay" "$Q" || fail "$1: tsreplay of the trimmed trace"
	grep -q "checkpoints: $n compared, $n matched, 0 differ" "$T/$1.replay.log" ||
		fail "$1: trimmed replay: $(grep 'checkpoints:' "$T/$1.replay.log")"
	grep -q 'vkGetQueryPoolResults returned' "$T/$1.replay.log" &&
		fail "$1: the window's query reads: $(grep 'vkGetQueryPoolResults returned' "$T/$1.replay.log" | head -2)"
	grep -q 'differ from what the capture read' "$T/$1.replay.log" &&
		fail "$1: recorded results: $(grep 'differ from what' "$T/$1.replay.log" | head -1)"

	# the same trace without the record: unavailable results on replay
	seq=$(grep "vulkan.tsQueryResults " "$T/$1.snap.dump" | sed "s/^seq=\([0-9]*\) .*/\1/")
	case $seq in '' | *[!0-9]*) fail "$1: no seq in the record's line: $rec" ;; esac
	vk_env_run "$T/$1.drop.log" "$BUILD/tests/sbt_mutate" "$Q" "$T/$1.norec.sbt" --drop "$seq" ||
		fail "$1: sbt_mutate --drop $seq"
	"$BUILD/tsinfo" --dump "$T/$1.norec.sbt" | grep -q 'vulkan.tsQueryResults ' &&
		fail "$1: the record is still in the copy"
	rc=0
	"$VK_ENV_BUILD/tsreplay" "$T/$1.norec.sbt" >"$T/$1.norec.log" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || fail "$1: the replay without the record exits 0: $(grep 'checkpoints:' "$T/$1.norec.log")"
	grep -q "checkpoints: $n compared, .* [1-9][0-9]* differ" "$T/$1.norec.log" ||
		fail "$1: without the record: $(grep 'checkpoints:' "$T/$1.norec.log")"
	grep -q 'vkGetQueryPoolResults returned VK_NOT_READY' "$T/$1.norec.log" ||
		fail "$1: without the record the host reads do not return VK_NOT_READY: $(grep -i 'warning' "$T/$1.norec.log" | head -2)"
}

check occlusion "firstQuery=0 queryCount=3 flags=0x0000000000000005 stride=16 bytes=48"
check statistics "firstQuery=0 queryCount=1 flags=0x0000000000000005 stride=16 bytes=16"
stat_seq=$seq
check submit2 "firstQuery=0 queryCount=3 flags=0x0000000000000005 stride=16 bytes=48" \
	--occlusion --query-secondary --submit2
check secondary "firstQuery=0 queryCount=3 flags=0x0000000000000005 stride=16 bytes=48" \
	--occlusion --query-secondary
check hostreset "firstQuery=0 queryCount=3 flags=0x0000000000000005 stride=16 bytes=48" \
	--occlusion --host-reset
check primitives "firstQuery=0 queryCount=1 flags=0x0000000000000005 stride=16 bytes=16"
check xfb "firstQuery=0 queryCount=1 flags=0x0000000000000005 stride=24 bytes=24"

# a record naming a pool no record created, or absurd query indexes: the
# replay stops with an error naming the record (the statistics one)
seq=$stat_seq
Q=$T/statistics-trim-submits-6-9.sbt
vk_env_run "$T/bad.log" "$BUILD/tests/sbt_mutate" "$Q" "$T/badpool.sbt" --varint "$seq:0:12345" ||
	fail "sbt_mutate --varint $seq:0:12345"
vk_env_run "$T/bad.log" "$BUILD/tests/sbt_mutate" "$Q" "$T/badfirst.sbt" \
	--varint "$seq:1:4000000000" || fail "sbt_mutate --varint $seq:1:4000000000"
for bad in badpool badfirst; do
	rc=0
	"$VK_ENV_BUILD/tsreplay" "$T/$bad.sbt" >"$T/$bad.log" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || fail "$bad: the replay exits 0"
	case $bad in
	badpool) want="record seq $seq vulkan.tsQueryResults: unknown VkQueryPool 0x3039" ;;
	*) want="record seq $seq vulkan.tsQueryResults: queries 4000000000 to 4000000000 with 1 values each" ;;
	esac
	grep -qF "$want" "$T/$bad.log" || fail "$bad: $(tail -n 3 "$T/$bad.log")"
done
echo ok
