#!/bin/sh
# Members the specification says are ignored (issue 11, section 1): one case
# of tests/programs/vk_ignored per rule of the generated rule table
# (serializer/generated/sbt_vk_ignored.h, from scripts/vkgen/overrides.py
# IGNORED_MEMBERS; `vk_ignored --list` fails when a rule has no case).  Each
# case puts a pointer to a PROT_NONE page or a garbage handle in the ignored
# member.  Every case the plain run (no layer) survives must
#  - run under tscapture (the layer neither reads nor records the member),
#  - leave a trace that tsreplay replays,
# - run under tscapture with a capture window (submits:1-1), whose file,
#   where the case submits, tsreplay replays,
# all with no VUID- message, under the Khronos validation layer unless that
# layer itself dies on the case (then without it, and said).  The trace of the first rule's case records
# pImmutableSamplers as NULL, the push descriptor case its dstSet as 0, the
# viewport, depth/stencil and color blend (both rules), imageless
# framebuffer and swapchain cases their member as NULL,
# the image info cases theirs as 0.
# The swapchain case (and its replay) gets a private Xvfb's DISPLAY; the
# others run without one.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
PROG=$BUILD/tests/programs/vk_ignored
T=$(mktemp -d)
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
for f in "$PROG" "$BUILD/tscapture" "$BUILD/tsreplay" "$BUILD/tsinfo"; do
	[ -x "$f" ] || fail "$f is not built"
done
unset DISPLAY VK_ADD_LAYER_PATH XDG_DATA_DIRS
# the swapchain case needs a window: a private X server, for that case only
vk_env_xvfb_start
XDISPLAY=$DISPLAY
unset DISPLAY
PROG=$(cd "$(dirname "$PROG")" && pwd)/vk_ignored

"$PROG" --list >"$T/cases" 2>"$T/list.err" || {
	cat "$T/list.err" >&2
	fail "vk_ignored --list: a rule of sbt_vk_ignored.h has no case"
}
rules=$(grep -c '^#define SBT_VK_IGNORED_RULES' "$TOP/serializer/generated/sbt_vk_ignored.h")
[ "$rules" = 1 ] || fail "sbt_vk_ignored.h has no SBT_VK_IGNORED_RULES"
want=$(sed -n 's/^#define SBT_VK_IGNORED_RULES \([0-9]*\)$/\1/p' \
	"$TOP/serializer/generated/sbt_vk_ignored.h")
got=$(wc -l <"$T/cases" | tr -d ' ')
[ "$got" = "$want" ] || fail "vk_ignored lists $got cases for $want rules"
# a member with two rules has one case that exercises both: run it once
awk '!seen[$0]++' "$T/cases" >"$T/cases.run"

n=0
survived=0
windows=0
novalid=0
while IFS= read -r case; do
	n=$((n + 1))
	vk_env_layers_none
	case $case in
	VkSwapchainCreateInfoKHR.*) DISPLAY=$XDISPLAY && export DISPLAY ;;
	*) unset DISPLAY ;;
	esac
	rc=0
	"$PROG" "$case" >"$T/$n.plain.log" 2>&1 || rc=$?
	if [ "$rc" -gt 128 ]; then
		# the driver itself read the member: nothing to ask of the layer
		echo "test_vk_ignored: $case: the plain run died (signal $((rc - 128))); not captured"
		continue
	fi
	[ "$rc" = 0 ] || { cat "$T/$n.plain.log" >&2; fail "$case: plain run exit $rc"; }
	survived=$((survived + 1))
	vk_env_layers_validation
	rc=0
	"$PROG" "$case" >"$T/$n.valid.log" 2>&1 || rc=$?
	# (a sanitizer build turns the signal into its report and exit 1)
	if [ "$rc" -gt 128 ] || { [ "$rc" != 0 ] &&
		grep -q '^ *#0 .*libVkLayer_khronos_validation' "$T/$n.valid.log"; }; then
		# the validation layer reads the member itself: check our layer
		# and the replayer without it
		echo "test_vk_ignored: $case: the validation layer dies on it (exit $rc); captured and replayed without validation"
		vk_env_layers_none
		novalid=$((novalid + 1))
	else
		[ "$rc" = 0 ] || { cat "$T/$n.valid.log" >&2; fail "$case: exit $rc under validation"; }
		vk_env_clean "$T/$n.valid.log" || fail "$case: validation messages without our layer"
	fi
	vk_env_run "$T/$n.capture.log" "$BUILD/tscapture" -o "$T/$n.sbt" -- "$PROG" "$case" ||
		fail "$case: under tscapture"
	grep -qxF "vk_ignored: $case ok" "$T/$n.capture.log" ||
		fail "$case: no 'ok' line under tscapture"
	vk_env_run "$T/$n.replay.log" "$BUILD/tsreplay" "$T/$n.sbt" ||
		fail "$case: tsreplay of its trace"
	"$BUILD/tsinfo" --dump "$T/$n.sbt" >"$T/$n.dump" 2>&1 || fail "$case: tsinfo --dump"
	case $case in
	VkDescriptorSetLayoutBinding.pImmutableSamplers)
		grep 'vulkan.vkCreateDescriptorSetLayout ' "$T/$n.dump" |
			grep -q 'pBindings\[0\].pImmutableSamplers="NULL"' ||
			fail "$case: the trace does not record pImmutableSamplers as NULL" ;;
	VkWriteDescriptorSet.dstSet)
		grep 'vulkan.vkCmdPushDescriptorSetKHR ' "$T/$n.dump" |
			grep -q 'pDescriptorWrites\[0\].dstSet=0x0000000000000000' ||
			fail "$case: the trace does not record dstSet as 0" ;;
	VkPipelineViewportStateCreateInfo.*)
		# the static array is kept, the dynamic one recorded as NULL
		m=${case#*.}
		if [ "$m" = pViewports ]; then o=pScissors; else o=pViewports; fi
		grep 'vulkan.vkCreateGraphicsPipelines ' "$T/$n.dump" |
			grep -q "pViewportState.$m=\"NULL\"" ||
			fail "$case: the trace does not record $m as NULL"
		grep 'vulkan.vkCreateGraphicsPipelines ' "$T/$n.dump" |
			grep -q "pViewportState.$o.count=1" ||
			fail "$case: the trace lost the static $o" ;;
	VkGraphicsPipelineCreateInfo.pDepthStencilState | VkGraphicsPipelineCreateInfo.pColorBlendState)
		# both rules: rasterization discarded, and dynamic rendering
		m=${case#*.}
		grep 'vulkan.vkCreateGraphicsPipelines ' "$T/$n.dump" |
			grep 'rasterizerDiscardEnable=1' | grep -q "pCreateInfos\[0\].$m=\"NULL\"" ||
			fail "$case: the trace does not record $m as NULL with rasterization discarded"
		grep 'vulkan.vkCreateGraphicsPipelines ' "$T/$n.dump" |
			grep 'renderPass=0x0000000000000000' | grep -q "pCreateInfos\[0\].$m=\"NULL\"" ||
			fail "$case: the trace does not record $m as NULL for dynamic rendering" ;;
	VkDescriptorImageInfo.*)
		m=${case#*.}
		grep 'vulkan.vkUpdateDescriptorSets ' "$T/$n.dump" |
			grep -q "pImageInfo\[0\].$m=0x0000000000000000" ||
			fail "$case: the trace does not record $m as 0" ;;
	VkFramebufferCreateInfo.pAttachments)
		grep 'vulkan.vkCreateFramebuffer ' "$T/$n.dump" |
			grep -q 'pCreateInfo.pAttachments="NULL"' ||
			fail "$case: the trace does not record pAttachments as NULL" ;;
	VkSwapchainCreateInfoKHR.pQueueFamilyIndices)
		grep 'vulkan.vkCreateSwapchainKHR ' "$T/$n.dump" |
			grep -q 'pCreateInfo.pQueueFamilyIndices="NULL"' ||
			fail "$case: the trace does not record pQueueFamilyIndices as NULL" ;;
	esac
	# again with a capture window: the trimming layer tracks every object
	# (vkl_trim.c) while no window is open
	rm -f "$T/$n.w"*.sbt
	TRACESMITH_TRIGGER=submits:1-1 vk_env_run "$T/$n.window.log" \
		"$BUILD/tscapture" -o "$T/$n.w.sbt" -- "$PROG" "$case" ||
		fail "$case: under tscapture with a capture window"
	if [ -f "$T/$n.w-submits-1-1.sbt" ]; then
		vk_env_run "$T/$n.wreplay.log" "$BUILD/tsreplay" "$T/$n.w-submits-1-1.sbt" ||
			fail "$case: tsreplay of its window"
		windows=$((windows + 1))
	fi
	echo "test_vk_ignored: $case: plain, captured and replayed"
done <"$T/cases.run"
[ "$survived" -gt 0 ] || fail "no case survived its plain run"
[ "$windows" -gt 0 ] || fail "no case wrote a capture window"
echo "test_vk_ignored: $survived of $n cases captured and replayed ($novalid without validation, $windows with a submit replayed as a window too)"
echo ok
