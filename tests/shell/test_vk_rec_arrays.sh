#!/bin/sh
# The record-first wrappers' commands whose array pointer is their last
# argument (vkCmdSetViewport, vkCmdSetScissor, vkCmdSetBlendConstants,
# vkCmdPushConstants, the extended dynamic states' colour blend, write mask
# and sample mask, ...): their records leave the pointer out and the array
# takes its place (scripts/vkgen/layer.py, record_first; the writer's
# vkl_flat_encode_bare rebuilds it).  Each program is captured under
# VK_LAYER_tracesmith, validation below it, with the record times from the
# counter (TRACESMITH_CLOCK=auto: the record-first path, where the CPU's
# counter is invariant) and from CLOCK_MONOTONIC (the general path only,
# which records the whole struct): every vkCmd* record decodes the same
# both ways (tsinfo --dump, handles and other 64-bit values numbered by
# first appearance, times and threads left out), and on the record-first
# side some of those commands share their time with the record before
# (the bare path gives 15 in 16 no time of their own), so it was taken.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
vk_env_setup vk_dynstate vk_callbound
unset TRACESMITH_TRIGGER TRACESMITH_CLOCK TRACESMITH_DISABLE
DROPPED='vkCmdSetViewport|vkCmdSetScissor|vkCmdSetBlendConstants|vkCmdPushConstants|vkCmdSetColorBlendEnableEXT|vkCmdSetColorBlendEquationEXT|vkCmdSetColorWriteMaskEXT|vkCmdSetSampleMaskEXT|vkCmdSetColorWriteEnableEXT'

# canon TRACE: its vkCmd* records as tsinfo decodes them, seq, time and
# thread cut, every 0x + 16 hex digits numbered by first appearance
canon() {
	"$VK_ENV_BUILD/tsinfo" --dump --elements all "$1" |
		sed -n 's/^seq=[0-9]* t=[0-9.]* tid=[0-9]* \(vulkan\.vkCmd.*\)/\1/p' |
		python3 -c 'import re, sys
ids = {}
for line in sys.stdin:
    sys.stdout.write(re.sub(r"0x[0-9a-f]{16}", lambda m: ids.setdefault(m.group(0), "h%d" % (len(ids) + 1)), line))'
}

vk_env_layers_ours
seen=""
for prog in "vk_dynstate --eds3" "vk_dynstate --more" "vk_callbound --submits 2 --cmds 10 --every 5 --sizes"; do
	name=$(echo "$prog" | tr -c 'a-z0-9\n' '_')
	for clock in auto monotonic; do
		TRACESMITH_CLOCK=$clock TRACESMITH_STACKS=none TRACESMITH_OUTPUT=$T/$name.$clock.sbt \
			vk_env_run "$T/$name.$clock.log" $P/$prog || fail "$prog, clock $clock: capture failed"
		canon "$T/$name.$clock.sbt" >"$T/$name.$clock.txt"
	done
	grep -qE "^vulkan\.($DROPPED) " "$T/$name.auto.txt" || fail "$prog: no command that leaves its pointer out was recorded"
	if ! cmp -s "$T/$name.auto.txt" "$T/$name.monotonic.txt"; then
		diff "$T/$name.monotonic.txt" "$T/$name.auto.txt" | head -n 6 >&2
		fail "$prog: the record-first records (>) decode otherwise than the general path's (<)"
	fi
	# the bare path taken: such a command with the time of the record before it
	shared=$("$VK_ENV_BUILD/tsinfo" --dump "$T/$name.auto.sbt" | awk -v re="vulkan\\\\.($DROPPED) " '
		{ t = $2 } $0 ~ re && t == prev { n++ } { prev = t } END { print n + 0 }')
	[ "$shared" -gt 0 ] || fail "$prog: no such command shares its time with the record before: the record-first path was not taken"
	seen="$seen $(grep -oE "^vulkan\.($DROPPED) " "$T/$name.auto.txt" | sort -u | sed 's/vulkan\.//' | tr -d '\n')"
	echo "$prog: $(wc -l <"$T/$name.auto.txt") vkCmd* records the same both ways, $shared without a time of their own"
done
echo "ok: commands covered:$(echo "$seen" | tr ' ' '\n' | sort -u | tr '\n' ' ')"
