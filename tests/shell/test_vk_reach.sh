#!/bin/sh
# A submission publishes the host writes of the memory it reaches, and only
# those (layers/vulkan/vkl_reach.c), over the Khronos validation layer.
# tests/programs/vk_reach writes A, B, C (B and C suballocated from shared
# memory S, beside the params at offset 0) and image E all before phase 1;
# each phase's submission reaches some of them through a different path
# (copy source; secondary command buffer + vkUpdateDescriptorSets;
# descriptor update template; image copy).  The trace must record each
# write just before the first submission that reaches it: between
# submission k-1 and k exactly the ranges phase k reaches.  The program
# prints the same hash with and without the layer, and the replay matches
# every checkpoint.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
P="$BUILD/tests/programs"
TOOL=$P/vk_tracetool
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
[ -x "$BUILD/tsreplay" ] || fail "$BUILD/tsreplay is not built"
[ -x "$P/vk_reach" ] || fail "$P/vk_reach is not built"
unset DISPLAY

vk_env_layers_validation
vk_env_run "$T/plain.log" "$P/vk_reach" || fail "vk_reach without the layer"
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/reach.sbt vk_env_run "$T/capture.log" "$P/vk_reach" ||
	fail "vk_reach under VK_LAYER_tracesmith"
want=$(grep '^vk_reach: hash' "$T/plain.log")
got=$(grep '^vk_reach: hash' "$T/capture.log")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "printed '$got' under the layer, '$want' without"

vk_env_layers_validation
vk_env_run "$T/replay.log" "$VK_ENV_BUILD/tsreplay" "$T/reach.sbt" ||
	fail "tsreplay of the vk_reach trace (exit 3: a checkpoint differs)"
grep -q 'checkpoints: 5 compared, 5 matched, 0 differ' "$T/replay.log" ||
	fail "replay did not match 5 checkpoints: $(grep checkpoints "$T/replay.log")"

# handles: "vk_reach: memory A 0x.. S 0x.. E 0x.. offset B O C O"
set -- $(grep '^vk_reach: memory' "$T/capture.log")
A=$4 S=$6 E=$8 OB=${11} OC=${13}

"$TOOL" memwrites "$T/reach.sbt" >"$T/writes" || fail "vk_tracetool memwrites"
"$VK_ENV_BUILD/tsinfo" --dump "$T/reach.sbt" >"$T/dump" || fail "tsinfo --dump"
grep -o '^seq=[0-9]* [^ ]* [^ ]* vulkan.vkQueueSubmit ' "$T/dump" |
	sed 's/^seq=\([0-9]*\) .*/\1/' >"$T/submits"
[ "$(wc -l <"$T/submits" | tr -d ' ')" = 6 ] ||
	fail "expected 6 vkQueueSubmit records, found $(wc -l <"$T/submits")"

# window K: "memory:part" of every write between submission K-1 and K (K
# from 1; submission 0 is the empty one after mapping), part = offset / 64
# KiB (in S: 0 the params, 1 B, 2 C), sorted, unique, one line.  Which
# bytes of the params differ depends on the driver's initial contents
# (a sanitizer's allocator fills them), so offsets are not compared.
window() {
	lo=$(sed -n "$1p" "$T/submits")
	hi=$(sed -n "$(($1 + 1))p" "$T/submits")
	awk -v lo="$lo" -v hi="$hi" \
		'$3 > lo && $3 < hi { print $5 ":" int($7 / 65536) }' "$T/writes" | sort -u | tr '\n' ' '
}
expect_window() {
	got=$(window "$1")
	[ "$got" = "$2" ] ||
		fail "phase $1: host writes recorded before its submission: '$got', expected '$2'"
}

[ "$OB" = 65536 ] && [ "$OC" = 131072 ] || fail "vk_reach put B at $OB and C at $OC"
# Phase 1 reaches A only (B, C, E and the params are written already).
expect_window 1 "$A:0 "
# Phase 2: the params (the word count, the round) and B.
expect_window 2 "$S:0 $S:1 "
# Phase 3: the params' round word and C.
expect_window 3 "$S:0 $S:2 "
# Phase 4: image E.
expect_window 4 "$E:0 "
# Phase 5: A again; B, written again too, is not reached ...
expect_window 5 "$A:0 "
# ... and is recorded when it is unmapped, after the last submission.
last=$(tail -n 1 "$T/submits")
awk -v s="$last" -v m="$S" -v o="$OB" '$3 > s && $5 == m && $7 == o { f = 1 } END { exit !f }' \
	"$T/writes" || fail "B's second write is not recorded after the last submission"
echo ok
