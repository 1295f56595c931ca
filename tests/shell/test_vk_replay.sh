#!/bin/sh
# tsreplay's Vulkan backend on traces of the Vulkan test programs captured
# with VK_LAYER_tracesmith (validation below it; any VUID- line fails):
# - --help lists the Vulkan options; bad option values are refused with a
#   message naming them;
# - vk_offscreen: replayed under --validate (the replay's own instance) with
#   every checkpoint matched; --check-determinism --runs 2 exit 0;
# - vk_compute: --range from the middle fast-forwards (says so) and matches;
#   --json says "match"; --device with a bad index fails naming it.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
P="$BUILD/tests/programs"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
[ -x "$R" ] || fail "$R is not built"
unset DISPLAY

# ---- options -------------------------------------------------------------------
"$R" --help >"$T/help" || fail "--help"
for o in --offscreen --screenshot --screenshot-dir --validate; do
	grep -q -- "^  $o" "$T/help" || fail "--help does not list $o"
done
grep -q "vulkan (api vulkan)" "$T/help" || fail "--help does not list the vulkan backend"

# ---- captures --------------------------------------------------------------------
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/off.sbt vk_env_run "$T/off.capture.log" "$P/vk_offscreen" --frames 3 ||
	fail "vk_offscreen under VK_LAYER_tracesmith"
TRACESMITH_OUTPUT=$T/comp.sbt vk_env_run "$T/comp.capture.log" "$P/vk_compute" --size 4096 --submits 4 ||
	fail "vk_compute under VK_LAYER_tracesmith"
vk_env_layers_none

# ---- bad option values -----------------------------------------------------------------
rc=0
"$R" --screenshot 2,x "$T/off.sbt" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--screenshot: .* got '2,x'" "$T/err" || fail "--screenshot 2,x: exit $rc: $(cat "$T/err")"
rc=0
"$R" --screenshot-dir "$T/nowhere" "$T/off.sbt" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--screenshot-dir: expected a directory" "$T/err" || fail "--screenshot-dir: exit $rc: $(cat "$T/err")"
rc=0
"$R" --device 99 "$T/comp.sbt" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--device 99" "$T/err" || fail "--device 99: exit $rc: $(cat "$T/err")"

# ---- vk_offscreen: --validate, determinism -------------------------------------------
vk_env_run "$T/off.replay.log" "$R" --validate "$T/off.sbt" || fail "replay of vk_offscreen --validate"
grep -q "checkpoints: [1-9][0-9]* compared, [1-9][0-9]* matched, 0 differ" "$T/off.replay.log" ||
	fail "vk_offscreen: $(grep checkpoints "$T/off.replay.log")"
! grep -q "no checkpoints to compare" "$T/off.replay.log" ||
	fail "vk_offscreen compared checkpoints, yet 'no checkpoints to compare' is said"
vk_env_run "$T/off.det.log" "$R" --check-determinism --runs 2 "$T/off.sbt" ||
	fail "vk_offscreen --check-determinism"
grep -q "runs agree with each other" "$T/off.det.log" || fail "determinism: $(cat "$T/off.det.log")"

# ---- vk_compute: a range from the middle, JSON ---------------------------------------------
last=$("$BUILD/tsinfo" --json "$T/comp.sbt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["last_seq"])') ||
	fail "tsinfo --json"
mid=$((last / 2))
VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION vk_env_run "$T/comp.range.log" "$R" --range "$mid:" "$T/comp.sbt" ||
	fail "--range $mid:"
grep -q "fast-forwarded [0-9]* records before seq $mid" "$T/comp.range.log" ||
	fail "--range: no fast-forward note: $(cat "$T/comp.range.log")"
"$R" --json -q "$T/comp.sbt" >"$T/comp.json" 2>"$T/comp.err" || fail "--json: $(cat "$T/comp.err")"
python3 - "$T/comp.json" <<'EOF' || fail "--json: $(cat "$T/comp.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "match" and d["exit"] == 0, d
assert d["checkpoints"] >= 4 and d["matched"] == d["checkpoints"], d
assert d["backends"] == "vulkan", d
EOF
echo ok
