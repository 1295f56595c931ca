#!/bin/sh
# tsreplay judges the sample locations (VK_EXT_sample_locations) and their
# enable (VK_EXT_extended_dynamic_state3) as it judges the other dynamic
# states (replayer/vulkan/rpvk_shader.c's rpvk_sh_dyn table,
# docs/hostile-traces.md).  lavapipe 22.3.6 offers neither, so no program
# here can make such a pipeline: the traces are `vk_dynstate --eds3`'s,
# edited with `vk_tracetool sampleloc` (through the Vulkan codec): in both
# pipelines the dynamic depth clamp enable becomes the dynamic sample
# locations enable and the dynamic alpha to one enable the dynamic sample
# locations, and their setters (vkCmdSetDepthClampEnableEXT,
# vkCmdSetAlphaToOneEnableEXT) become vkCmdSetSampleLocationsEnableEXT and
# vkCmdSetSampleLocationsEXT on the same command buffer.
#   - with both set (the enable on), the trace replays to its end on the
#     null device (tests/fuzz/vk_null.c: it records the two setters; lavapipe
#     lacks them, so a replay there would stop at the first one);
#   - vkCmdSetSampleLocationsEnableEXT left out: refused at the triangle's
#     draw naming the enable (tsreplay on lavapipe, exit 1, and the null
#     device), before the locations that depend on it;
#   - vkCmdSetSampleLocationsEXT left out: refused at the draw naming the
#     sample locations;
#   - the enable set off and vkCmdSetSampleLocationsEXT left out: replays
#     (no draw reads the locations);
#   - rasterization discarded (vkCmdSetRasterizerDiscardEnable set on) and
#     both setters left out: replays (no draw reads either);
#   - only the locations dynamic, the enable static: on
#     (VkPipelineSampleLocationsStateCreateInfoEXT chained to the
#     multisample state) and vkCmdSetSampleLocationsEXT left out: refused
#     naming the locations; with it set: replays; with no such structure
#     (custom sample locations off) and the setter left out: replays.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
M=$VK_ENV_BUILD/tests/sbt_mutate
I=$VK_ENV_BUILD/tsinfo
N=$VK_ENV_BUILD/tests/vk_null_main
X=$VK_ENV_BUILD/tests/programs/vk_tracetool
P=$VK_ENV_BUILD/tests/programs/vk_dynstate
for b in "$M" "$N" "$X" "$P"; do
	[ -x "$b" ] || fail "$b is not built"
done
unset DISPLAY

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/e3.sbt vk_env_run "$T/e3.capture.log" "$P" --eds3 ||
	fail "vk_dynstate --eds3 under VK_LAYER_tracesmith and validation"
vk_env_layers_none

. "$TOP/tests/support/vk_hostile.sh"
TAIL=": a valid application never makes this call, and a driver may crash on it"
NEVER="is dynamic state, never set in the command buffer since it began or since a pipeline with it static was bound$TAIL"
ENABLE="sample locations enable (vkCmdSetSampleLocationsEnableEXT)"
LOCS="sample locations (vkCmdSetSampleLocationsEXT)"
# VkDynamicState values (vk.xml 1.3.239)
DEPTH_CLAMP_ENABLE=1000455003
ALPHA_TO_ONE_ENABLE=1000455008
SL_ENABLE=1000455017
SL=1000143000
n_refused=0
n_lavapipe=0
n_replayed=0

PIPE1=$(seq_of vkCreateGraphicsPipelines 1 e3)
PIPE2=$(seq_of vkCreateGraphicsPipelines 2 e3)
CLAMP=$(seq_of vkCmdSetDepthClampEnableEXT 1 e3)
A2ONE=$(seq_of vkCmdSetAlphaToOneEnableEXT 1 e3)
DISCARD=$(seq_of vkCmdSetRasterizerDiscardEnable 1 e3)
DRAW1=$(seq_of vkCmdDraw 1 e3)
for v in PIPE1 PIPE2 CLAMP A2ONE DISCARD DRAW1; do
	eval "[ -n \"\$$v\" ]" || fail "vk_dynstate --eds3's trace lacks a record ($v)"
done

# edit SRC DST ARGS...: $T/DST.sbt is $T/SRC.sbt through vk_tracetool sampleloc ARGS.
edit() {
	src=$1 dst=$2
	shift 2
	"$X" sampleloc "$T/$src.sbt" "$T/$dst.sbt" "$@" >"$T/$dst.tool" 2>&1 ||
		fail "vk_tracetool sampleloc $*: $(cat "$T/$dst.tool")"
}
# pipelines SRC DST ARGS...: both pipelines of SRC edited with ARGS.
pipelines() {
	p_src=$1 p_dst=$2
	shift 2
	edit "$p_src" "$p_dst.p1" --record "$PIPE1" "$@"
	edit "$p_dst.p1" "$p_dst" --record "$PIPE2" "$@"
}
# null_replays NAME: $T/NAME.sbt replays to its end on the null device.
null_replays() {
	"$N" --timeout 20 "$T/$1.sbt" >"$T/$1.null" 2>&1 || fail "null device $1: $(tail -3 "$T/$1.null")"
	grep -qx "replayed $T/$1.sbt" "$T/$1.null" || fail "null device $1: $(tail -3 "$T/$1.null")"
	n_replayed=$((n_replayed + 1))
}
# refused NAME STATE [lavapipe]: $T/NAME.sbt is refused at the triangle's
# draw naming STATE on the null device and, with "lavapipe" (a trace with
# neither setter left: lavapipe lacks them), by tsreplay (exit 1).
refused() {
	want="record seq $DRAW1 vkCmdDraw: command buffer 0x"
	if [ "${3:-}" = lavapipe ]; then
		rc=0
		timeout 120 "$R" "$T/$1.sbt" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
		[ "$rc" -eq 1 ] || fail "$1: exit $rc (expected 1): $(cat "$T/$1.err")"
		grep -qF -- "tsreplay: backend vulkan: $want" "$T/$1.err" ||
			fail "$1: '$want' not in: $(cat "$T/$1.err")"
		grep -qF "draws with a pipeline whose $2 $NEVER" "$T/$1.err" || fail "$1: $(cat "$T/$1.err")"
		n_lavapipe=$((n_lavapipe + 1))
	fi
	"$N" --timeout 20 "$T/$1.sbt" >"$T/$1.null" 2>&1 || fail "null device $1: $(tail -3 "$T/$1.null")"
	grep -qF "stopped $T/$1.sbt: backend vulkan: $want" "$T/$1.null" ||
		fail "null device $1: $(tail -3 "$T/$1.null")"
	grep -qF "draws with a pipeline whose $2 $NEVER" "$T/$1.null" ||
		fail "null device $1: $(tail -3 "$T/$1.null")"
	n_refused=$((n_refused + 1))
}
# drop SRC DST SEQ...: DST is SRC without records SEQ...
drop() {
	src=$1 dst=$2
	shift 2
	ops=
	for s in "$@"; do
		ops="$ops --drop $s"
	done
	# shellcheck disable=SC2086
	"$M" "$T/$src.sbt" "$T/$dst.sbt" $ops >/dev/null || fail "sbt_mutate $dst"
}

null_replays e3

# ---- both dynamic ---------------------------------------------------------------------
pipelines e3 dyn1 --dynamic "$DEPTH_CLAMP_ENABLE:$SL_ENABLE"
pipelines dyn1 dyn --dynamic "$ALPHA_TO_ONE_ENABLE:$SL"
edit dyn on1 --record "$CLAMP" --enable 1
edit on1 full --record "$A2ONE" --locations 1
"$I" --dump --elements all "$T/full.sbt" >"$T/full.dump"
grep -q "^seq=$CLAMP .* vulkan\.vkCmdSetSampleLocationsEnableEXT .*sampleLocationsEnable=1" "$T/full.dump" ||
	fail "full: $(grep "^seq=$CLAMP " "$T/full.dump")"
grep -q "^seq=$A2ONE .* vulkan\.vkCmdSetSampleLocationsEXT .*sampleLocationsCount=1" "$T/full.dump" ||
	fail "full: $(grep "^seq=$A2ONE " "$T/full.dump")"
grep "^seq=$PIPE1 " "$T/full.dump" | grep -qF "VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_ENABLE_EXT" ||
	fail "full: pipeline $PIPE1 lacks the dynamic sample locations enable"
null_replays full

drop full no_enable "$CLAMP"
refused no_enable "$ENABLE"
drop full no_either "$CLAMP" "$A2ONE"
refused no_either "$ENABLE" lavapipe
drop full no_locs "$A2ONE"
refused no_locs "$LOCS"

edit dyn off1 --record "$CLAMP" --enable 0
edit off1 off --record "$A2ONE" --locations 1
drop off off_no_locs "$A2ONE"
null_replays off_no_locs

# vkCmdSetRasterizerDiscardEnable's varint 1 is its rasterizerDiscardEnable.
"$M" "$T/dyn.sbt" "$T/discard.sbt" --varint "$DISCARD:1:1" --drop "$CLAMP" --drop "$A2ONE" >/dev/null ||
	fail "sbt_mutate discard"
"$I" --dump "$T/discard.sbt" | grep -q "^seq=$DISCARD .*rasterizerDiscardEnable=1" ||
	fail "discard: $("$I" --dump "$T/discard.sbt" | grep "^seq=$DISCARD ")"
null_replays discard

# ---- the enable static ----------------------------------------------------------------
pipelines e3 st --dynamic "$ALPHA_TO_ONE_ENABLE:$SL" --static-enable
"$I" --dump --elements all "$T/st.sbt" | grep "^seq=$PIPE1 " | grep -q "sampleLocationsEnable=1" ||
	fail "st: pipeline $PIPE1 lacks the static sample locations enable"
edit st st_full --record "$A2ONE" --locations 1
null_replays st_full
drop st_full st_no_locs "$A2ONE"
refused st_no_locs "$LOCS" lavapipe
pipelines e3 st_off --dynamic "$ALPHA_TO_ONE_ENABLE:$SL"
drop st_off st_off_no_locs "$A2ONE"
null_replays st_off_no_locs

echo "ok: $n_replayed traces replay to their end on the null device; $n_refused edited traces are refused there naming the record and the state, $n_lavapipe of them by tsreplay on lavapipe too"
