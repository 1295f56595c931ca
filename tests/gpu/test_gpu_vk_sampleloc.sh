#!/bin/sh
# GPU only: custom sample locations (VK_EXT_sample_locations) on the GPU's
# own driver (no lavapipe, which lacks the extension).  vk_sampleloc (a 4x
# multisampled triangle resolved, the sample locations dynamic and set
# with vkCmdSetSampleLocationsEXT) and `vk_sampleloc --dynamic-enable` (the
# enable dynamic too, through VK_EXT_extended_dynamic_state3) are captured
# by tscapture and replayed with every checkpoint equal, and
# --check-determinism --runs 3 agreeing; with GPU_VK_VALIDATION (a folder
# with the Khronos validation layer) the programs and the replays under
# VK_LAYER_KHRONOS_validation give no VUID- line.  The replay's dynamic-state
# check (docs/hostile-traces.md): the trace with vkCmdSetSampleLocationsEXT
# cut out (tests/fuzz/sbt_mutate --drop, as
# tests/shell/test_vk_hostile_sampleloc.sh does on lavapipe's edited
# traces) is refused at the draw naming the sample locations, and with
# --dynamic-enable the trace with vkCmdSetSampleLocationsEnableEXT cut out
# naming the enable.  A device without the extension (vk_sampleloc exits
# 3) or without extendedDynamicState3SampleLocationsEnable skips that
# part, saying so.  Uses the NVIDIA ICD; lavapipe's must not answer.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
# Only the NVIDIA ICD is offered to the loader, so lavapipe cannot answer.
gpu_vk_nvidia_only
P=$BUILD/tests/programs
M=$BUILD/tests/sbt_mutate
[ -x "$P/vk_sampleloc" ] || fail "$P/vk_sampleloc is not built"
[ -x "$M" ] || fail "$M is not built"
TAIL=": a valid application never makes this call, and a driver may crash on it"
NEVER="is dynamic state, never set in the command buffer since it began or since a pipeline with it static was bound$TAIL"

# seq_of NAME TRACE: the sequence number of the first record of call NAME.
seq_of() {
	"$BUILD/tsinfo" --dump "$2" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | head -n 1
}
# cut_refused N TRACE CALL STATE: TRACE without CALL is refused (exit 1) at
# its vkCmdDraw naming STATE.
cut_refused() {
	s=$(seq_of "$3" "$2")
	d=$(seq_of vkCmdDraw "$2")
	[ -n "$s" ] && [ -n "$d" ] || fail "$1: the trace lacks $3 or vkCmdDraw"
	"$M" "$2" "$T/$1.cut.sbt" --drop "$s" >/dev/null || fail "$1: sbt_mutate --drop $s"
	expect_rc 1 "$1.cut" "$BUILD/tsreplay" "$T/$1.cut.sbt"
	grep -qF "record seq $d vkCmdDraw: command buffer 0x" "$T/$1.cut.err" ||
		fail "$1: not refused at the draw: $(cat "$T/$1.cut.err")"
	grep -qF "draws with a pipeline whose $4 $NEVER" "$T/$1.cut.err" ||
		fail "$1: $(cat "$T/$1.cut.err")"
}

# sampleloc NAME ARGS...: vk_sampleloc ARGS captured, replayed, refused
# with its setters cut out.
sampleloc() {
	n=$1
	shift
	rc=0
	"$P/vk_sampleloc" "$@" >"$T/$n.plain.out" 2>"$T/$n.plain.err" || rc=$?
	if [ "$rc" -eq 3 ]; then
		echo "$n: skipped: $(cat "$T/$n.plain.err")"
		return 0
	fi
	[ "$rc" -eq 0 ] || fail "$n: vk_sampleloc $*: exit $rc: $(cat "$T/$n.plain.err")"
	h=$(sed -n 's/^vk_sampleloc: .*hash \(0x[0-9a-f]*\)$/\1/p' "$T/$n.plain.out")
	[ -n "$h" ] || fail "$n: no hash: $(cat "$T/$n.plain.out")"
	expect_rc 0 "$n.capture" env TRACESMITH_LOG=info "$BUILD/tscapture" -o "$T/$n.sbt" -- "$P/vk_sampleloc" "$@"
	grep -q "hash $h\$" "$T/$n.capture.out" || fail "$n: captured run drew otherwise: $(cat "$T/$n.capture.out")"
	[ -n "$(seq_of vkCmdSetSampleLocationsEXT "$T/$n.sbt")" ] || fail "$n: the trace lacks vkCmdSetSampleLocationsEXT"
	expect_rc 0 "$n.replay" "$BUILD/tsreplay" "$T/$n.sbt"
	grep -q ' 0 differ' "$T/$n.replay.out" "$T/$n.replay.err" ||
		fail "$n: replay: $(cat "$T/$n.replay.out" "$T/$n.replay.err" | tail -n 3)"
	expect_rc 0 "$n.det" "$BUILD/tsreplay" --check-determinism --runs 3 "$T/$n.sbt"
	if [ -n "${GPU_VK_VALIDATION:-}" ]; then
		VK_ADD_LAYER_PATH=$GPU_VK_VALIDATION VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
			expect_rc 0 "$n.valid" "$P/vk_sampleloc" "$@"
		! grep -q 'VUID-' "$T/$n.valid.out" "$T/$n.valid.err" ||
			fail "$n: the program under validation: $(grep -h 'VUID-' "$T/$n.valid.out" "$T/$n.valid.err" | head -n 3)"
		VK_ADD_LAYER_PATH=$GPU_VK_VALIDATION VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
			expect_rc 0 "$n.vreplay" "$BUILD/tsreplay" "$T/$n.sbt"
		grep -q ' 0 differ' "$T/$n.vreplay.out" "$T/$n.vreplay.err" ||
			fail "$n: replay under validation: $(cat "$T/$n.vreplay.out" "$T/$n.vreplay.err" | tail -n 3)"
		! grep -q 'VUID-\|Validation Error' "$T/$n.vreplay.out" "$T/$n.vreplay.err" ||
			fail "$n: the replay under validation: $(grep -h 'VUID-\|Validation Error' "$T/$n.vreplay.out" "$T/$n.vreplay.err" | head -n 3)"
	fi
	cut_refused "$n.locs" "$T/$n.sbt" vkCmdSetSampleLocationsEXT "sample locations (vkCmdSetSampleLocationsEXT)"
	case " $* " in
	*" --dynamic-enable "*)
		cut_refused "$n.enable" "$T/$n.sbt" vkCmdSetSampleLocationsEnableEXT \
			"sample locations enable (vkCmdSetSampleLocationsEnableEXT)"
		;;
	esac
	echo "$n: hash $h; $(grep -h 'checkpoints:' "$T/$n.replay.out" "$T/$n.replay.err" | tail -n 1);" \
		"the setters cut out refused${GPU_VK_VALIDATION:+; clean under validation}"
}
gpu_part sampleloc sampleloc sampleloc
gpu_part sampleloc_dynamic_enable sampleloc sampleloc_dynamic_enable --dynamic-enable
gpu_done
