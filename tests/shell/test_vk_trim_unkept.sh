#!/bin/sh
# Trimmed Vulkan capture's recordings that are not kept (docs/vulkan-layer.md,
# "Recordings that are not kept"), under the validation layer:
#
#  1. `--submits 56-60` of `vk_callbound --submits 60` (two one-time-submit
#     command buffers re-recorded for each submit) with a lead-in of 4
#     submits (TRACESMITH_VK_LEAD_IN=4): the layer says from which submit it
#     keeps every recording again; the trimmed trace is, record for record
#     (tsinfo --dump, times and thread ids dropped, handle values numbered
#     by first appearance, both runs under `setarch -R`; the snapshot as a
#     set of records, its command buffers' order being free; the window's
#     checkpoints, whose ranges depend on timing, left to the replay), the
#     one written with every recording kept (TRACESMITH_VK_LEAD_IN=all).
#     The same by frames (`--frames 56-60`: the program never presents, so
#     a frame ends at each submit).  Both replay under validation with
#     every checkpoint matched.
#  2. `--late 54` adds a third command buffer (one-time-submit),
#     re-recorded after each of the first three submits and submitted right
#     after, and recorded a fourth time long before its submit after loop
#     submit 54 (unit 58, with the 3 earlier late submits), inside the
#     window: with the lead-in of 4 the capture reports, naming that command
#     buffer, that its calls were not kept, and the replay stops at its
#     submit naming it; with every recording kept
#     (TRACESMITH_VK_LEAD_IN=all) there is no report, and the trimmed trace
#     replays under validation with its checkpoints matched.  With
#     `--late-reusable` (the same command buffer without one-time-submit:
#     every recording kept) there is no report either, and the replay
#     matches.
#     `--early 57` adds a fourth, one-time-submit command buffer recorded
#     once before the loop and submitted only after loop submit 57, in the
#     window: its first recording is kept, nothing is reported, and the
#     trimmed trace replays under validation with its checkpoints matched.
#  3. A trigger with no notice (SIGUSR1, `signal`) counts no lead-in: the
#     lead-in line is not printed (its own scheme is test_vk_trim_held.sh).
#  4. `vk_multithread --threads 4 --rounds 30 --thread-submit` (each thread
#     records and submits its own one-time-submit command buffer every
#     round) with `--submits 101-110` and a lead-in of 4: no report, and
#     its replay under validation matches the window's checkpoints (how
#     many there are depends on timing, as in test_vk_trim.sh).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for t in tscapture tsinfo tsreplay tests/programs/vk_callbound; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
unset VK_ADD_LAYER_PATH
vk_env_layers_validation
PROG="$BUILD/tests/programs/vk_callbound --submits 60 --cmds 64 --every 16"

# The records of a trace, comparable across runs: seqs, times and thread
# ids dropped, checkpoints dropped (which ranges of the table the device
# had written when the layer looked depends on timing, and so does how
# many distinct hashes they add: numbered with the rest, they shifted
# every later number; the replays check them), every 0x value of 6 digits
# or more numbered by first appearance.
norm() {
	"$BUILD/tsinfo" --dump "$1" | sed 's/^seq=[0-9]* t=[^ ]* tid=[0-9]* //' |
		grep -v '^checkpoint ' |
		awk '{ out = ""; line = $0
		       while (match(line, /0x[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/)) {
		           v = substr(line, RSTART, RLENGTH)
		           if (!(v in seen)) seen[v] = "H" (++n)
		           out = out substr(line, 1, RSTART - 1) seen[v]
		           line = substr(line, RSTART + RLENGTH) }
		       print out line }'
}

UNIT=submits
capture() { # NAME LEAD-IN [program options]
	name=$1
	lead=$2
	shift 2
	TRACESMITH_LOG=info TRACESMITH_VK_LEAD_IN=$lead vk_env_run "$T/$name.log" \
		setarch "$(uname -m)" -R "$BUILD/tscapture" --$UNIT 56-60 -o "$T/$name.sbt" -- \
		$PROG "$@" ||
		fail "tscapture --$UNIT 56-60 ($name)"
	[ -s "$T/$name-$UNIT-56-60.sbt" ] || fail "no $T/$name-$UNIT-56-60.sbt"
}

# ---- 1: the same trimmed trace with and without unkept recordings -------------
same() { # LEAD ALL: the two captures' traces record for record
	norm "$T/$1-$UNIT-56-60.sbt" >"$T/$1.dump"
	norm "$T/$2-$UNIT-56-60.sbt" >"$T/$2.dump"
	n=$(wc -l <"$T/$2.dump" | tr -d ' ')
	[ "$n" -gt 100 ] || fail "the trimmed trace $2 has $n records"
	# the snapshot's command buffers, recorded with no kept call between
	# them, may come in either order: the snapshot compared as a set of
	# records, the window in order but for its checkpoints (which ranges of
	# the table the device had written when the layer looked depends on
	# timing: two runs of one layer differ there; the replay checks them)
	for f in "$1" "$2"; do
		awk '/^snapshot_end/{exit} {print}' "$T/$f.dump" | sort >"$T/$f.snap"
		awk 'w{print} /^snapshot_end/{w=1}' "$T/$f.dump" | grep -v '^checkpoint ' >"$T/$f.window"
	done
	grep -q 'vulkan.vkBeginCommandBuffer' "$T/$2.snap" ||
		fail "the snapshot of $2 records no command buffer"
	cmp -s "$T/$1.snap" "$T/$2.snap" ||
		fail "the snapshots of $1 and $2 differ: $(diff "$T/$2.snap" "$T/$1.snap" | head -6)"
	cmp -s "$T/$1.window" "$T/$2.window" ||
		fail "the windows of $1 and $2 differ: $(diff "$T/$2.window" "$T/$1.window" | head -6)"
}
capture lead 4
capture all all
grep -q 'keeps no calls until 51 submits are counted (a lead-in of 4 before the window)' \
	"$T/lead.log" || fail "no lead-in line: $(grep -i 'lead-in' "$T/lead.log" | head -2)"
grep -q 'keeps no calls until' "$T/all.log" && fail "TRACESMITH_VK_LEAD_IN=all printed a lead-in"
grep -q 'is submitted in the window' "$T/lead.log" && fail "an unkept recording was submitted"
same lead all
# the same by frames (a frame per submit: the program never presents)
UNIT=frames
capture flead 4
capture fall all
grep -q 'keeps no calls until 51 frames are counted (a lead-in of 4 before the window)' \
	"$T/flead.log" || fail "no lead-in line: $(grep -i 'lead-in' "$T/flead.log" | head -2)"
same flead fall
UNIT=submits
for f in lead-submits flead-frames; do
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/$f.replay" \
		"$VK_ENV_BUILD/tsreplay" "$T/$f-56-60.sbt" || fail "tsreplay of $f-56-60.sbt"
	grep -Eq 'checkpoints: ([0-9]+) compared, \1 matched, 0 differ' "$T/$f.replay" ||
		fail "replay of $f-56-60.sbt: $(grep 'checkpoints:' "$T/$f.replay")"
done

# ---- 2: a recording not kept, submitted in the window: said by name ------------
TRACESMITH_VK_LEAD_IN=4 "$BUILD/tscapture" --submits 56-60 -o "$T/late.sbt" -- \
	$PROG --late 54 >"$T/late.log" 2>&1 || fail "tscapture of vk_callbound --late 54"
cb=$(sed -n 's/.*VkCommandBuffer \(0x[0-9a-f]*\) is submitted in the window, but it was recorded before the window.s lead-in and its calls were not kept.*/\1/p' "$T/late.log")
grep -q 'VUID-' "$T/late.log" && fail "validation: $(grep -m1 'VUID-' "$T/late.log" | cut -c1-300)"
[ -n "$cb" ] || fail "no error naming the late command buffer: $(grep -i tracesmith "$T/late.log" | head -3)"
[ "$(echo "$cb" | wc -l)" -eq 1 ] || fail "more than one error: $cb"
# the third command buffer allocated is the one named; the replay stops at
# its submit, naming it
cb16=$(printf '0x%016x' "$cb")
"$BUILD/tsinfo" --dump "$T/late-submits-56-60.sbt" >"$T/late.dump"
grep 'vkAllocateCommandBuffers' "$T/late.dump" | grep -q "pCommandBuffers\[2\]=$cb16" ||
	fail "$cb is not the third command buffer the snapshot allocates"
"$VK_ENV_BUILD/tsreplay" "$T/late-submits-56-60.sbt" >"$T/late.replay" 2>&1 &&
	fail "the replay of a trace lacking a submitted recording succeeded"
grep -q "vkQueueSubmit: command buffer $cb is submitted with nothing recorded in it" \
	"$T/late.replay" || fail "late replay: $(tail -n 2 "$T/late.replay")"
# exact NAME LEAD [program options]: captured (submits 56-60) with nothing
# reported as not kept, and the trimmed trace replays under validation
# with every checkpoint matched
exact() {
	name=$1
	lead=$2
	shift 2
	capture "$name" "$lead" "$@"
	grep -q 'is submitted in the window' "$T/$name.log" &&
		fail "$name ($*): a recording was reported as not kept: $(grep -m1 'is submitted in the window' "$T/$name.log")"
	"$BUILD/tsinfo" --dump "$T/$name-submits-56-60.sbt" >"$T/$name.dump"
	ncp=$(grep -c ' checkpoint ' "$T/$name.dump" || true)
	[ "$ncp" -ge 1 ] || fail "the $name trimmed trace has no checkpoint"
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/$name.replay" \
		"$VK_ENV_BUILD/tsreplay" "$T/$name-submits-56-60.sbt" || fail "tsreplay of the $name trace"
	grep -q "checkpoints: $ncp compared, $ncp matched, 0 differ" "$T/$name.replay" ||
		fail "$name trimmed replay: $(grep 'checkpoints:' "$T/$name.replay")"
}
exact lateall all --late 54
# the same command buffer without one-time-submit (--late-reusable) is
# kept at every recording (it might be submitted again, in the window)
exact reuse 4 --late 54 --late-reusable

# ---- 2b: a first recording made long before its submit is kept ----------------
# --early 57: a one-time-submit command buffer recorded once before the
# loop (long before the lead-in) and submitted only in the window, as a
# program records work at load time: a command buffer's first recording is
# always kept, so nothing is reported and the trimmed trace replays under
# validation with its checkpoints matched (main's layer left it unkept:
# reported, and the replay stopped at its submit)
exact early 4 --early 57
awk '/ snapshot_end$/{exit} {print}' "$T/early.dump" | grep -q 'vulkan.vkCmdPushConstants .*pValues=0000eeee' ||
	fail "--early: the snapshot lacks the early command buffer's push"

# ---- 4: command buffers recorded on four threads --------------------------------
# vk_multithread --thread-submit: each thread resets its pool, records a
# one-time-submit command buffer and submits it, 4 submits a round; the
# window's replay matches its checkpoints
TRACESMITH_LOG=info TRACESMITH_VK_LEAD_IN=4 vk_env_run "$T/mt.log" "$BUILD/tscapture" \
	--submits 101-110 -o "$T/mt.sbt" -- "$BUILD/tests/programs/vk_multithread" --threads 4 \
	--rounds 30 --thread-submit || fail "tscapture --submits 101-110 of vk_multithread"
grep -q 'keeps no calls until 96 submits are counted' "$T/mt.log" || fail "no lead-in line (mt)"
grep -q 'is submitted in the window' "$T/mt.log" && fail "an unkept recording was submitted (mt)"
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/mt.replay" "$VK_ENV_BUILD/tsreplay" \
	"$T/mt-submits-101-110.sbt" || fail "tsreplay of the trimmed multi-threaded trace"
grep -Eq 'checkpoints: ([0-9]+) compared, \1 matched, 0 differ' "$T/mt.replay" ||
	fail "trimmed multi-threaded replay: $(grep 'checkpoints:' "$T/mt.replay")"

# ---- 3: no notice, no lead-in ---------------------------------------------------
TRACESMITH_LOG=info vk_env_run "$T/sig.log" "$BUILD/tscapture" --signal -o "$T/sig.sbt" -- $PROG ||
	fail "tscapture --signal of vk_callbound"
grep -q 'Vulkan snapshot\|tracesmith' "$T/sig.log" || true
grep -q 'keeps no calls until' "$T/sig.log" && fail "a trigger with no notice printed a lead-in"
echo "test_vk_trim_unkept: ok"
