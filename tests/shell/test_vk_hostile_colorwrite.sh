#!/bin/sh
# tsreplay judges VK_EXT_color_write_enable per colour attachment (issue 12;
# replayer/vulkan/rpvk_state.c keeps the attachments vkCmdSetColorWriteEnableEXT
# set, rpvk_shader.c's rpvk_shader_dyn_missing asks one for every colour
# attachment of the pipeline; docs/hostile-traces.md).
# `vk_dynstate --more --mrt` renders into two colour attachments and masks
# the second with vkCmdSetColorWriteEnableEXT(2, {VK_TRUE, VK_FALSE}); the
# program checks that attachment 1 kept its clear colour.  Its trace, its
# --secondary trace and its --write-count 8 trace (more enables than the
# pipeline's two attachments, as the specification allows up to
# maxColorAttachments) replay under the Khronos validation layer with the
# readback of both attachments equal to the capture's (no VUID- line).
# Changed with tests/fuzz/sbt_mutate:
#   - attachmentCount 1 (the array cut to one element), in the primary and
#     in the secondary command buffer: refused at the triangle's draw naming
#     colour attachment 1 of 2 (exact message, exit 1);
#   - the call left out: refused at the triangle's draw naming the state;
#   - the second enable made VK_TRUE: the replay runs and its readback
#     differs from the capture's in attachment 1's half (exit 3): the
#     replay applies each attachment's enable, not only the first.
# And `--write-count 9`, more enables than lavapipe's maxColorAttachments
# (8), which the validation layer names
# (VUID-vkCmdSetColorWriteEnableEXT-attachmentCount-06656), captured under
# our layer alone: refused at the vkCmdSetColorWriteEnableEXT (exact
# message, exit 1).
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
P=$VK_ENV_BUILD/tests/programs/vk_dynstate
[ -x "$M" ] || fail "$M is not built"
[ -x "$P" ] || fail "$P is not built"
unset DISPLAY

vk_env_layers_validation
vk_env_run "$T/plain.log" "$P" --more --mrt || fail "vk_dynstate --more --mrt under validation"
H=$(sed -n 's/^vk_dynstate: more mrt hash \(0x[0-9a-f]*\)$/\1/p' "$T/plain.log")
[ -n "$H" ] || fail "vk_dynstate --more --mrt: $(cat "$T/plain.log")"
vk_env_layers_ours
# capture NAME WANT ARGS...: $T/NAME.sbt, the program printing WANT
capture() {
	cn=$1 cw=$2
	shift 2
	TRACESMITH_OUTPUT=$T/$cn.sbt vk_env_run "$T/$cn.capture.log" "$P" "$@" ||
		fail "vk_dynstate $* under VK_LAYER_tracesmith and validation"
	grep -qx "vk_dynstate: $cw hash $H" "$T/$cn.capture.log" || fail "$cn: $(cat "$T/$cn.capture.log")"
}
capture mrt "more mrt" --more --mrt
capture sec "secondary more mrt" --more --mrt --secondary
capture wide "more mrt" --more --mrt --write-count 8
vk_env_layers_validation
rc=0
"$P" --more --mrt --write-count 9 >"$T/nine.plain.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && grep -q "VUID-vkCmdSetColorWriteEnableEXT-attachmentCount-06656" "$T/nine.plain.log" ||
	fail "vk_dynstate --write-count 9 under validation (exit $rc): $(tail -3 "$T/nine.plain.log")"
VK_INSTANCE_LAYERS=VK_LAYER_tracesmith TRACESMITH_OUTPUT=$T/nine.sbt "$P" --more --mrt --write-count 9 \
	>"$T/nine.capture.log" 2>&1 || fail "vk_dynstate --write-count 9 under VK_LAYER_tracesmith: $(cat "$T/nine.capture.log")"
vk_env_layers_none

. "$TOP/tests/support/vk_hostile.sh" # (its replays is this test's own, below)
# replays NAME: $T/NAME.sbt under --validate, exit 0, its checkpoint equal,
# no VUID- line
replays() {
	rc=0
	timeout 120 "$R" --validate "$T/$1.sbt" >"$T/$1.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: exit $rc: $(tail -5 "$T/$1.out")"
	grep -qx "tsreplay: checkpoints: 1 compared, 1 matched, 0 differ" "$T/$1.out" || fail "$1: $(tail -5 "$T/$1.out")"
	vk_env_clean "$T/$1.out" || fail "$1: the validation layer reported the replay"
}
# mutant NAME SRC OP...: $T/NAME.sbt made from $T/SRC.sbt
mutant() {
	name=$1 src=$2
	shift 2
	"$M" "$T/$src.sbt" "$T/$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
}
# hostile NAME WANT: $T/NAME.sbt stops with exit 1, its stderr a line WANT
hostile() {
	rc=0
	timeout 120 "$R" "$T/$1.sbt" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "$1: tsreplay hung"
	[ "$rc" -eq 1 ] || fail "$1: exit $rc (expected 1): $(cat "$T/$1.err")"
	grep -qxE -- "$2" "$T/$1.err" || fail "$1: '$2' not in: $(cat "$T/$1.err")"
}
# re TEXT: TEXT as an extended regular expression matching itself.
re() { printf '%s' "$1" | sed 's/[][().*+?^$|{}\\]/\\&/g'; }
TAIL=": a valid application never makes this call, and a driver may crash on it"
STATE="color write enable (vkCmdSetColorWriteEnableEXT)"
SINCE="in the command buffer since it began or since a pipeline with it static was bound$TAIL"
# refused DRAW WHERE: the message of the draw at seq DRAW for WHERE (the
# attachment part, or empty), as a regular expression
refused() {
	echo "tsreplay: backend vulkan: record seq $1 vkCmdDraw: command buffer 0x[0-9a-f]+ draws with a pipeline whose $(re "$STATE") is dynamic state, never set$(re "$2") $(re "$SINCE")"
}
n_hostile=0

for t in mrt sec wide; do
	replays "$t"
done

for t in mrt sec; do
	CWE=$(seq_of vkCmdSetColorWriteEnableEXT 1 "$t")
	DRAW=$(seq_of vkCmdDraw 1 "$t")
	[ -n "$CWE" ] && [ -n "$DRAW" ] || fail "the $t trace lacks vkCmdSetColorWriteEnableEXT or its draw"
	"$I" --dump "$T/$t.sbt" | grep -q "^seq=$CWE .* attachmentCount=2 pColorWriteEnables.count=2 pColorWriteEnables\[0\]=1 pColorWriteEnables\[1\]=0$" ||
		fail "$t: $("$I" --dump "$T/$t.sbt" | grep "^seq=$CWE ")"
	# The payload: the command buffer, attachmentCount (varint 1), the
	# array's presence and count (varint 3), then 4 bytes per enable: the
	# count and the array made 1, the second enable cut off.
	mutant "${t}_one" "$t" --varint "$CWE:1:1" --varint "$CWE:3:1" --cut "$CWE:14"
	"$I" --dump "$T/${t}_one.sbt" | grep -q "^seq=$CWE .* attachmentCount=1 pColorWriteEnables.count=1 pColorWriteEnables\[0\]=1$" ||
		fail "${t}_one: $("$I" --dump "$T/${t}_one.sbt" | grep "^seq=$CWE ")"
	hostile "${t}_one" "$(refused "$DRAW" " for its color attachment 1 (of 2)")"
	n_hostile=$((n_hostile + 1))
done

NCWE=$(seq_of vkCmdSetColorWriteEnableEXT 1 nine)
[ -n "$NCWE" ] || fail "the nine trace lacks vkCmdSetColorWriteEnableEXT"
hostile nine "tsreplay: backend vulkan: record seq $NCWE vkCmdSetColorWriteEnableEXT: command buffer 0x[0-9a-f]+ sets 9 color write enables, more than the 8 color attachments the device has \(maxColorAttachments\)$(re "$TAIL")"
n_hostile=$((n_hostile + 1))

CWE=$(seq_of vkCmdSetColorWriteEnableEXT 1 mrt)
DRAW=$(seq_of vkCmdDraw 1 mrt)
mutant mrt_none mrt --drop "$CWE"
hostile mrt_none "$(refused "$DRAW" "")"
n_hostile=$((n_hostile + 1))

# The second enable VK_TRUE: attachment 1 now gets the shader's colour, so
# the readback's second half (from byte 64 * 64 * 4 = 16384 of the checked
# range) differs from the capture's.
mutant mrt_both mrt --set "$CWE:-4:1"
"$I" --dump "$T/mrt_both.sbt" | grep -q "^seq=$CWE .* pColorWriteEnables\[0\]=1 pColorWriteEnables\[1\]=1$" ||
	fail "mrt_both: $("$I" --dump "$T/mrt_both.sbt" | grep "^seq=$CWE ")"
rc=0
timeout 120 "$R" "$T/mrt_both.sbt" >"$T/mrt_both.out" 2>&1 || rc=$?
[ "$rc" -eq 3 ] || fail "mrt_both: exit $rc (expected 3: the readback differs): $(tail -5 "$T/mrt_both.out")"
off=$(sed -n 's/^  offset: *\([0-9]*\) .*/\1/p' "$T/mrt_both.out")
[ -n "$off" ] && [ "$off" -ge 16384 ] ||
	fail "mrt_both: the first difference is not in attachment 1's half: $(cat "$T/mrt_both.out")"
echo "ok: 3 traces with two colour attachments replay clean under validation, one enable changed differs from the capture in the masked attachment; $n_hostile hostile traces stop with exit 1 naming the record"
