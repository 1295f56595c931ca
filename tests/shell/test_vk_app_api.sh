#!/bin/sh
# The in-app capture API (include/tracesmith/tracesmith_app.h) through the
# Vulkan layer, which the loader loads with RTLD_LOCAL (the header finds it
# by its soname with dlopen RTLD_NOLOAD): vk_compute --app-window 3-4 under
# `tscapture --app` writes STEM-window-1.sbt with the window record
# (trigger 'app'), submits 3 and 4 only, and checkpoints equal to the full
# capture's for those rounds; its replay matches them.  Without a trigger the
# calls answer "whole run" (-2) and the trace is the whole run; with no layer
# they answer "not capturing" (-1).  Under the validation layer: no VUID-.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }
vk_env_init
C="$BUILD/tests/programs/vk_compute"
for t in tscapture tsinfo tsreplay tests/programs/vk_compute; do
	[ -x "$BUILD/$t" ] || fail "$BUILD/$t is not built"
done
unset VK_ADD_LAYER_PATH
vk_env_layers_validation

# No TraceSmith in the process: "not capturing".
vk_env_run "$T/plain.log" "$C" --submits 5 --app-window 3-4 || fail "vk_compute alone"
grep -q '^app window: start -1 end -1$' "$T/plain.log" || fail "no layer: $(grep 'app window' "$T/plain.log")"

# Whole-run capture: "whole run", and the trace has every submit.
vk_env_run "$T/full.log" "$BUILD/tscapture" -o "$T/full.sbt" -- "$C" --submits 5 --app-window 3-4 ||
	fail "tscapture of vk_compute (whole run)"
grep -q '^app window: start -2 end -2$' "$T/full.log" || fail "whole run: $(grep 'app window' "$T/full.log")"
[ -s "$T/full.sbt" ] || fail "the whole run wrote no $T/full.sbt"

# tscapture --app: one window, submits 3-4.
vk_env_run "$T/app.log" "$BUILD/tscapture" --app -o "$T/app.sbt" -- "$C" --submits 5 --app-window 3-4 ||
	fail "tscapture --app of vk_compute"
grep -q '^app window: start 0 end 0$' "$T/app.log" || fail "--app: $(grep 'app window' "$T/app.log")"
W=$T/app-window-1.sbt
[ -s "$W" ] || fail "no $W (in $T: $(ls "$T"))"
"$BUILD/tsinfo" "$W" >"$T/app.info" || fail "tsinfo on the window"
grep -q "trigger 'app'" "$T/app.info" || fail "window info: $(grep -i window "$T/app.info")"
n=$("$BUILD/tsinfo" --dump "$W" | awk '/ snapshot_end( |$)/{s=1} s && / vulkan.vkQueueSubmit /{n++} END{print n+0}')
[ "$n" = 2 ] || fail "the window holds $n of the program's submits, expected 2"
cps() {
	"$BUILD/tsinfo" --dump "$1" | grep ' checkpoint ' |
		sed 's/.*\(object=[^ ]*\).*\(offset=[^ ]*\).*\(length=[^ ]*\).*\(hash=[^ ]*\).*/\1 \2 \3 \4/'
}
cps "$T/full.sbt" | sed -n '3,4p' >"$T/full34.cps"
cps "$W" >"$T/win.cps"
cmp -s "$T/full34.cps" "$T/win.cps" ||
	fail "window checkpoints are not the full run's rounds 3-4: $(diff "$T/full34.cps" "$T/win.cps" | head -4)"
vk_env_run "$T/replay.log" "$BUILD/tsreplay" "$W" || fail "tsreplay of the window"
grep -q 'checkpoints: 2 compared, 2 matched, 0 differ' "$T/replay.log" ||
	fail "window replay: $(grep 'checkpoints:' "$T/replay.log")"
for f in "$T"/*.log; do
	grep -q 'VUID-' "$f" && fail "validation error in $f: $(grep -m1 'VUID-' "$f")"
done
echo "test_vk_app_api: ok"
