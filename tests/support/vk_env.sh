# vk_env.sh - shell helpers for the Vulkan tests and benchmarks.  Source it
# (`. "$TOP/tests/support/vk_env.sh"`) from a POSIX sh script that has set
# BUILD (build folder, relative to TOP or absolute) and TOP (repo root).
#
#   vk_env_init                 absolute paths, VK_ADD_LAYER_PATH=$BUILD/layers,
#                               no inherited VK_INSTANCE_LAYERS; call first
#   vk_env_layers_validation    VK_INSTANCE_LAYERS=validation only (plain runs)
#   vk_env_layers_ours          VK_INSTANCE_LAYERS=ours:validation (ours above)
#   vk_env_layers_none          no explicit layer (benchmarks' plain runs)
#   vk_env_xvfb_start           start a private Xvfb, export DISPLAY
#   vk_env_xvfb_stop            stop it (safe to call when none runs; put it
#                               in the script's EXIT trap)
#   vk_env_run LOG cmd...       run cmd with stdout+stderr to LOG; fails (and
#                               prints why) when cmd exits non-zero or LOG has
#                               a "VUID-" line (or, with VK_ENV_SYNC=1, a
#                               "SYNC-HAZARD" line)
#   vk_env_clean LOG            only the validation check of vk_env_run
#   vk_env_waitlog LOG TEXT     wait (60 s at most) until LOG says TEXT
#   vk_env_wait_checkpoint LOG K
#                               wait (300 s at most) until capture window K,
#                               open as LOG says, holds a checkpoint in what
#                               its file has so far
#   vk_env_fail MESSAGE         print "FAIL: MESSAGE" on stderr, exit 1
#   vk_env_tsan_skip PROGRAM    in a ThreadSanitizer build (make tsan) exit
#                               77 (skip): PROGRAM is not instrumented and
#                               cannot load our instrumented layer
#   vk_env_zink DIR             OpenGL through Mesa's zink on lavapipe
#                               (LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=zink),
#                               XDG_RUNTIME_DIR a new DIR; fails when zink
#                               is not installed; skips under TSan
#
# VK_ENV_SYNC=1 turns on the validation layer's synchronization validation
# (VK_LAYER_ENABLES) so that missing barriers fail as well; it is slow on
# big programs, so tests opt in.
#
# Nothing here survives the script: Xvfb is started with -displayfd (it
# picks a free display itself, no guessing of numbers), and killed by
# vk_env_xvfb_stop.

VK_ENV_XVFB_PID=
VK_ENV_XVFB_DIR=

vk_env_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

vk_env_init() {
	case $BUILD in
	/*) VK_ENV_BUILD=$BUILD ;;
	*) VK_ENV_BUILD=$TOP/$BUILD ;;
	esac
	VK_ADD_LAYER_PATH=$VK_ENV_BUILD/layers
	export VK_ADD_LAYER_PATH
	unset VK_INSTANCE_LAYERS VK_LAYER_PATH VK_LOADER_LAYERS_ENABLE VK_LOADER_LAYERS_DISABLE
	# The layer's own trace goes only where a test asks for it.
	unset TRACESMITH_OUTPUT
	# Sanitizer builds (make asan): lavapipe and the validation layer leak
	# at teardown from code the loader has already unloaded, which
	# LeakSanitizer cannot attribute and reports even without our layer.
	# Our layer's and replayer's own state is leak-checked by the unit
	# tests that run without a driver.  No effect on a normal build.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
	# The validation layer prints its messages on stdout only while the
	# program has no debug messenger of its own, unless its debug action
	# is set: a program that makes one (RenderDoc's replay, GStreamer)
	# would otherwise hide every message from the VUID- check.
	VK_KHRONOS_VALIDATION_DEBUG_ACTION=VK_DBG_LAYER_ACTION_LOG_MSG
	export VK_KHRONOS_VALIDATION_DEBUG_ACTION
	if [ "${VK_ENV_SYNC:-0}" = 1 ]; then
		VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
		export VK_LAYER_ENABLES
	fi
	VK_ENV_VALIDATION=VK_LAYER_KHRONOS_validation
	[ -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ] ||
		vk_env_fail "the Khronos validation layer is not installed (vulkan-validationlayers)"
}

# vk_env_setup [--replay] PROGRAM...: the common start of a test of the
# layer (after `set -eu`, BUILD, TOP and this file sourced): P, the test
# programs' folder; T, a temporary folder removed at exit; fail, as
# vk_env_fail; vk_env_init; and a failure naming tsreplay (--replay) or a
# PROGRAM that is not built.
vk_env_setup() {
	P="$BUILD/tests/programs"
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	fail() { vk_env_fail "$@"; }
	vk_env_init
	if [ "${1:-}" = --replay ]; then
		shift
		[ -x "$BUILD/tsreplay" ] || fail "$BUILD/tsreplay is not built"
	fi
	for vk_env_p in "$@"; do
		[ -x "$P/$vk_env_p" ] || fail "$P/$vk_env_p is not built"
	done
}

# An uninstrumented program (vkcube) cannot load a TSan-built layer: the
# TSan runtime it pulls in needs static TLS that a started process no longer
# has ("cannot allocate memory in static TLS block"), so the loader drops
# the layer and the program runs without it.  Call after vk_env_init.
vk_env_tsan_skip() { # PROGRAM
	if nm -D "$VK_ENV_BUILD/tsinfo" 2>/dev/null | grep -q ' __tsan_init$'; then
		echo "skipped under TSan: $1 is not instrumented and cannot load our TSan-built layer (static TLS)"
		exit 77
	fi
}

vk_env_zink() { # DIR
	[ -f /usr/lib/x86_64-linux-gnu/dri/zink_dri.so ] ||
		vk_env_fail "Mesa's zink is not installed (libgl1-mesa-dri, scripts/deps.sh)"
	vk_env_tsan_skip "Mesa's zink"
	LIBGL_ALWAYS_SOFTWARE=1
	GALLIUM_DRIVER=zink
	XDG_RUNTIME_DIR=$1
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	export LIBGL_ALWAYS_SOFTWARE GALLIUM_DRIVER XDG_RUNTIME_DIR
}

vk_env_layers_validation() {
	VK_INSTANCE_LAYERS=$VK_ENV_VALIDATION
	export VK_INSTANCE_LAYERS
}

vk_env_layers_ours() {
	[ -f "$VK_ENV_BUILD/layers/VkLayer_tracesmith.json" ] ||
		vk_env_fail "$VK_ENV_BUILD/layers/VkLayer_tracesmith.json is not built (make)"
	VK_INSTANCE_LAYERS=VK_LAYER_tracesmith:$VK_ENV_VALIDATION
	export VK_INSTANCE_LAYERS
}

vk_env_layers_none() {
	unset VK_INSTANCE_LAYERS
}

vk_env_xvfb_start() {
	command -v Xvfb >/dev/null 2>&1 || vk_env_fail "Xvfb is not installed (xvfb)"
	VK_ENV_XVFB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/vkenv_xvfb.XXXXXX")
	# -displayfd: Xvfb writes the display number it took once it listens.
	# -noreset: by default the server resets when its last client leaves,
	# and a program started in that moment cannot connect ("Cannot connect
	# to XCB"); tests that run one program after another hit it.
	Xvfb -displayfd 5 -screen 0 1024x768x24 -nolisten tcp -noreset \
		5>"$VK_ENV_XVFB_DIR/display" >"$VK_ENV_XVFB_DIR/log" 2>&1 &
	VK_ENV_XVFB_PID=$!
	vk_env_i=0
	while [ ! -s "$VK_ENV_XVFB_DIR/display" ]; do
		if ! kill -0 "$VK_ENV_XVFB_PID" 2>/dev/null; then
			cat "$VK_ENV_XVFB_DIR/log" >&2
			VK_ENV_XVFB_PID=
			vk_env_fail "Xvfb exited before taking a display"
		fi
		vk_env_i=$((vk_env_i + 1))
		[ "$vk_env_i" -le 200 ] || vk_env_fail "Xvfb took no display in 20 s"
		sleep 0.1
	done
	DISPLAY=:$(tr -d '\n ' <"$VK_ENV_XVFB_DIR/display")
	export DISPLAY
}

vk_env_xvfb_stop() {
	if [ -n "$VK_ENV_XVFB_PID" ]; then
		kill "$VK_ENV_XVFB_PID" 2>/dev/null
		wait "$VK_ENV_XVFB_PID" 2>/dev/null
		VK_ENV_XVFB_PID=
	fi
	if [ -n "$VK_ENV_XVFB_DIR" ]; then
		rm -rf "$VK_ENV_XVFB_DIR"
		VK_ENV_XVFB_DIR=
	fi
	return 0
}

# vk_env_waitlog LOG TEXT: waits (up to 60 s) until LOG says TEXT; fails
# otherwise, through the test's own `fail` where it has one.
vk_env_waitlog() {
	vk_env_wl=0
	until grep -q "$2" "$1" 2>/dev/null; do
		vk_env_wl=$((vk_env_wl + 1))
		if [ "$vk_env_wl" -gt 600 ]; then
			if command -v fail >/dev/null 2>&1; then
				fail "no '$2' in $1 after 60 s: $(tail -n 3 "$1")"
			fi
			vk_env_fail "no '$2' in $1 after 60 s: $(tail -n 3 "$1")"
		fi
		sleep 0.1
	done
}

# vk_env_wait_checkpoint LOG K: waits until capture window K (its path
# read from LOG's "capture window K (TRIGGER) opened: PATH" line, logged at
# TRACESMITH_LOG=info) holds a CHECKPOINT record in the part of its file
# written so far (the writer flushes at least every TRACESMITH_FLUSH_MS;
# tsinfo reads an unfinished file up to its torn tail).  Where a window
# falls is up to the program's timing, and a multi-threaded program's
# first checkpoint in it may come long after it opened (one is taken only
# when the device is idle; docs/vulkan-layer.md), seconds later under
# ThreadSanitizer: a test that closes the window itself waits for this
# instead of sleeping.  Fails after 300 s, or once the window closed
# (the program ended, say) with no checkpoint.
vk_env_wait_checkpoint() {
	vk_env_wc_file=$(sed -n "s/.*capture window $2 ([^)]*) opened: //p" "$1" | tail -n 1)
	[ -n "$vk_env_wc_file" ] || vk_env_test_fail "no 'capture window $2 (...) opened' line in $1"
	vk_env_wc_start=$(date +%s)
	vk_env_wc_closed=
	until "$VK_ENV_BUILD/tsinfo" --dump "$vk_env_wc_file" 2>/dev/null | grep -q ' checkpoint '; do
		[ -z "$vk_env_wc_closed" ] ||
			vk_env_test_fail "capture window $2 closed with no checkpoint: $(tail -n 3 "$1")"
		# a window that closed gets one more look: its file is then complete
		! grep -q "capture window $2 closed" "$1" || vk_env_wc_closed=1
		[ $(($(date +%s) - vk_env_wc_start)) -lt 300 ] ||
			vk_env_test_fail "capture window $2 ($vk_env_wc_file) holds no checkpoint after 300 s"
		[ -n "$vk_env_wc_closed" ] || sleep 0.2
	done
}

# vk_env_test_fail MESSAGE: the test's own `fail` where it has one (it may
# clean up first), else vk_env_fail.
vk_env_test_fail() {
	if command -v fail >/dev/null 2>&1; then
		fail "$@"
	fi
	vk_env_fail "$@"
}

# vk_env_replay_matched SBT LOG WHAT: tsreplay --validate SBT (no explicit
# layer: it loads the validation layer itself) matches every checkpoint
# SBT holds, and it holds some; m: how many.
vk_env_replay_matched() {
	"$VK_ENV_BUILD/tsinfo" --dump "$1" >"$1.dump" || vk_env_test_fail "tsinfo cannot read $3"
	m=$(grep -c ' checkpoint ' "$1.dump" || :)
	[ "$m" -gt 0 ] || vk_env_test_fail "$3 holds no checkpoint"
	vk_env_layers_none
	vk_env_run "$2" "$VK_ENV_BUILD/tsreplay" --validate "$1" || vk_env_test_fail "tsreplay --validate of $3"
	grep -q "checkpoints: $m compared, $m matched, 0 differ" "$2" ||
		vk_env_test_fail "$3, replayed: $(grep 'checkpoints:' "$2") ($m in the trace)"
}

vk_env_clean() { # LOG
	if grep -q 'VUID-' "$1"; then
		grep 'VUID-' "$1" | head -n 5 | cut -c1-400 >&2
		echo "validation: $(grep -c 'VUID-' "$1") VUID- line(s) in $1" >&2
		return 1
	fi
	if [ "${VK_ENV_SYNC:-0}" = 1 ] && grep -q 'SYNC-HAZARD' "$1"; then
		grep 'SYNC-HAZARD' "$1" | head -n 5 | cut -c1-400 >&2
		echo "validation: synchronization hazard(s) in $1" >&2
		return 1
	fi
	return 0
}

vk_env_run() { # LOG cmd...
	vk_env_log=$1
	shift
	vk_env_rc=0
	"$@" >"$vk_env_log" 2>&1 || vk_env_rc=$?
	if [ "$vk_env_rc" -ne 0 ]; then
		tail -n 20 "$vk_env_log" | cut -c1-400 >&2
		echo "command failed (exit $vk_env_rc): $*" >&2
		return 1
	fi
	vk_env_clean "$vk_env_log" || {
		echo "command: $*" >&2
		return 1
	}
}
