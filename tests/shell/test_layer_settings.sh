#!/bin/sh
# Settings from vk_layer_settings.txt (tracesmith.NAME = VALUE, the Vulkan
# layers' convention; docs/capture.md "Settings"):
#   - in the current folder, or through VK_LAYER_SETTINGS_PATH (a folder or
#     the file): tracesmith.output and tracesmith.stacks take effect for a
#     program recording through the runtime and for the Vulkan layer;
#   - the TRACESMITH_ variable wins over the file;
#   - other layers' lines are skipped; an unknown tracesmith.NAME and a line
#     without '=' are warned about, naming the file and line;
#   - settings chained to vkCreateInstance with VK_EXT_layer_settings
#     (vk_layer_settings) are taken below the file and the variables.
. "$TOP/tests/support/shell.sh"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT VK_LAYER_SETTINGS_PATH
TOOL="$TOP/$BUILD/tests/programs/cap_tool"

mkdir "$T/cwd" "$T/elsewhere"
cat >"$T/cwd/vk_layer_settings.txt" <<'S'
# TraceSmith's settings, with another layer's beside them
khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG
tracesmith.output = from-file.sbt   # the trace
tracesmith.stacks = none
S
(cd "$T/cwd" && "$TOOL" stacks >"$T/a.out" 2>"$T/a.err") || fail "cwd: exit $?: $(cat "$T/a.err")"
[ -f "$T/cwd/from-file.sbt" ] || fail "cwd: tracesmith.output not used: $(ls "$T/cwd")"
"$TOOL" check "$T/cwd/from-file.sbt" >"$T/a.check"
grep -qx "type 64 count 3 stacks 0" "$T/a.check" || fail "cwd: tracesmith.stacks=none not used: $(cat "$T/a.check")"
[ ! -s "$T/a.err" ] || fail "cwd: unexpected messages: $(cat "$T/a.err")"

# The variable wins over the file.
(cd "$T/cwd" && TRACESMITH_OUTPUT=from-env.sbt "$TOOL" record 2 >/dev/null 2>&1) || fail "env: exit $?"
[ -f "$T/cwd/from-env.sbt" ] || fail "env: TRACESMITH_OUTPUT did not win: $(ls "$T/cwd")"

# VK_LAYER_SETTINGS_PATH: a folder, then the file itself.
for p in "$T/cwd" "$T/cwd/vk_layer_settings.txt"; do
	rm -f "$T/elsewhere/from-file.sbt"
	(cd "$T/elsewhere" && VK_LAYER_SETTINGS_PATH="$p" "$TOOL" record 2 >/dev/null 2>&1) || fail "path $p: exit $?"
	[ -f "$T/elsewhere/from-file.sbt" ] || fail "VK_LAYER_SETTINGS_PATH=$p not read: $(ls "$T/elsewhere")"
done

# Warnings name the file and line.
cat >"$T/elsewhere/vk_layer_settings.txt" <<'S'
tracesmith.outptu = typo.sbt
tracesmith.stacks
S
(cd "$T/elsewhere" && TRACESMITH_OUTPUT="$T/w.sbt" "$TOOL" record 1 >/dev/null 2>"$T/w.err") || fail "warn: exit $?"
has w err "tracesmith: warning: vk_layer_settings.txt:1: unknown setting tracesmith.outptu; ignored"
has w err "tracesmith: warning: vk_layer_settings.txt:2: 'tracesmith.stacks' is not tracesmith.NAME = VALUE; ignored"

# The Vulkan layer reads them too.
. "$TOP/tests/support/vk_env.sh"
vk_env_init
mkdir "$T/vk"
printf 'tracesmith.output = layer-file.sbt\n' >"$T/vk/vk_layer_settings.txt"
(cd "$T/vk" && VK_ADD_LAYER_PATH="$TOP/$BUILD/layers" VK_INSTANCE_LAYERS=VK_LAYER_tracesmith \
	"$TOP/$BUILD/tests/programs/vk_compute" >"$T/vk.out" 2>"$T/vk.err") || fail "layer: exit $?: $(cat "$T/vk.err")"
[ -f "$T/vk/layer-file.sbt" ] || fail "layer: tracesmith.output not used: $(ls "$T/vk")"
"$TOP/$BUILD/tsinfo" "$T/vk/layer-file.sbt" | grep -q 'vulkan.vkCreateInstance' ||
	fail "layer: the trace holds no vkCreateInstance"

# VK_EXT_layer_settings chained to vkCreateInstance (vk_layer_settings): the
# layer takes output and stacks from it, warns about the setting it does
# not know, hides the structure from the layers below (the validation layer
# of 1.3.239 does not know it) and from the trace, which replays.
mkdir "$T/vkapi"
(cd "$T/vkapi" && VK_ADD_LAYER_PATH="$TOP/$BUILD/layers" \
	VK_INSTANCE_LAYERS=VK_LAYER_tracesmith:VK_LAYER_KHRONOS_validation \
	"$TOP/$BUILD/tests/programs/vk_layer_settings" "$T/vkapi/api.sbt" >"$T/api.out" 2>"$T/api.err") ||
	fail "VK_EXT_layer_settings: exit $?: $(cat "$T/api.err")"
has api out "devices 1"
cat "$T/api.out" "$T/api.err" >"$T/api.all"
vk_env_clean "$T/api.all" || fail "VK_EXT_layer_settings: validation messages"
has api err "tracesmith: warning: Vulkan layer: VK_EXT_layer_settings: unknown setting bogus; ignored"
[ -f "$T/vkapi/api.sbt" ] || fail "VK_EXT_layer_settings: output not used: $(ls "$T/vkapi")"
"$TOP/$BUILD/tsinfo" "$T/vkapi/api.sbt" | grep -Eq '^stacks +0$' || fail "VK_EXT_layer_settings: stacks = none not used"
expect_rc 0 apirp "$TOP/$BUILD/tsreplay" "$T/vkapi/api.sbt"
# the variable still wins
(cd "$T/vkapi" && TRACESMITH_OUTPUT="$T/vkapi/env.sbt" VK_ADD_LAYER_PATH="$TOP/$BUILD/layers" \
	VK_INSTANCE_LAYERS=VK_LAYER_tracesmith "$TOP/$BUILD/tests/programs/vk_layer_settings" "$T/vkapi/api2.sbt" \
	>/dev/null 2>&1) || fail "VK_EXT_layer_settings under TRACESMITH_OUTPUT: exit $?"
[ -f "$T/vkapi/env.sbt" ] && [ ! -f "$T/vkapi/api2.sbt" ] || fail "TRACESMITH_OUTPUT did not win over the API: $(ls "$T/vkapi")"
echo "ok"
