#!/bin/sh
# tscapture's trigger options (docs/capture.md "Running a program under
# capture"): each one's malformed values are refused with a message and
# exit 2 before anything runs; each one reaches the program as the
# TRACESMITH_TRIGGER (TRACESMITH_API, TRACESMITH_SNAPSHOT_FRAMES) the
# runtime reads; --api leaves out the set-up of a front-end it excludes;
# --frame refuses without an X11 display; window files are listed, old ones
# removed first, and a range whose window nobody wrote is said so (exit 3
# when the program exited 0).  The program here is sh, printing its
# environment or copying a trimmed trace where the runtime would write one.
. "${TOP:-.}/tests/support/shell.sh"
TSC="$TOP/$BUILD/tscapture"
# Under ThreadSanitizer the steps below whose program is sh (not built
# with TSan) preload its runtime, as the HIP interposer's TSan build asks
# (its error would be in the report they compare).
SANRT=$(sanitizer_runtime "$TSC")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
GEN="$TOP/$BUILD/tests/programs/sbt_gen_window"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES
export DISPLAY=:97 # only its presence matters: nothing here opens it

# refused NAME MESSAGE ARGS...: tscapture ARGS -- PROGRAM exits 2 with
# MESSAGE on stderr, and PROGRAM never ran.
refused() {
	r_name=$1 r_msg=$2
	shift 2
	rm -f "$T/ran"
	expect_rc 2 "$r_name" "$TSC" -o "$T/r.sbt" "$@" -- sh -c ": >'$T/ran'"
	has "$r_name" err "$r_msg"
	[ ! -e "$T/ran" ] || fail "$r_name: the program ran"
}

# ---- malformed values: exit 2, nothing run ----------------------------------------
for kind in frames submits launches; do
	for v in '' 5 0-3 5-3 a-b 1- -3 1-2-3 ' 1-2' 1-99999999999999999999; do
		refused "$kind.$v" "tscapture: --$kind '$v': expected A-B, whole numbers from 1 with A <= B" \
			"--$kind" "$v"
	done
done
refused tworanges "tscapture: --launches: one range at most (--submits was given)" \
	--submits 1-2 --launches 3-4
refused tworanges2 "tscapture: --frames: one range at most (--frames was given)" \
	--frames 1-2 --frames 3-4
refused key "tscapture: --frame: unknown key 'F99'; the keys are F1..F35, Print, Scroll_Lock" \
	--frame F99
refused key.word "unknown key 'sh'" --frame sh
for v in F12:0 F12:x F12: F12:-1 F12:100001; do
	refused "count$v" "tscapture: --frame '$v': COUNT must be a number of frames from 1 to 100000" \
		--frame "$v"
done
refused key.empty "tscapture: --frame '': expected KEY or KEY:COUNT" --frame=
refused key.twice "tscapture: --frame given twice" --frame F11 --frame F12
for v in bogus vulkan,opengl '' vulkan, -metal; do
	refused "api.$v" "tscapture: --api" --api "$v"
done
has api.bogus err "unknown front-end 'bogus' (vulkan, cuda, hip; -NAME leaves one out)"
has api.-metal err "unknown front-end '-metal'"
refused api.both "tscapture: --api: 'vulkan,-vulkan' both names and leaves out vulkan" \
	--api vulkan,-vulkan
refused nvtx.empty "tscapture: --nvtx '': expected a range name, not empty, without ','" --nvtx ''
refused nvtx.comma "tscapture: --nvtx 'a,b': expected a range name" --nvtx a,b
long=$(printf '%0128d' 0)
refused nvtx.long "tscapture: --nvtx '$long': expected a range name, not empty, without ',' and at most 127 bytes" \
	--nvtx "$long"
refused nvtx.twice "tscapture: --nvtx given twice" --nvtx a --nvtx b
for v in 0 x -2 ''; do
	refused "snap.$v" "tscapture: --snapshot-frames '$v': expected a number of frames from 1" \
		--snapshot-frames "$v"
done
refused snap.trigger "tscapture: --snapshot-frames is for a whole-run capture; it does not go with a trigger" \
	--snapshot-frames 10 --signal
refused flagvalue "tscapture: --signal takes no value" --signal=1
refused unknown "tscapture: unknown option '--frams'" --frams 1-2
refused ambiguous "tscapture: option '--fram' is ambiguous: give more of its name" --fram 1-2
expect_rc 2 missing "$TSC" -o "$T/r.sbt" --frames
has missing err "tscapture: --frames needs a value"
has missing err "try 'tscapture --help'"

# --frame reads the key on the program's X11 display: none, no capture.
rm -f "$T/ran"
expect_rc 2 nodisplay env -u DISPLAY "$TSC" -o "$T/r.sbt" --frame F12 -- sh -c ": >'$T/ran'"
has nodisplay err "tscapture: --frame reads the key on the program's X11 display, and DISPLAY is not set (no X11 display)"
[ ! -e "$T/ran" ] || fail "nodisplay: the program ran"
expect_rc 2 emptydisplay env DISPLAY= "$TSC" -o "$T/r.sbt" --frame F12 -- sh -c ": >'$T/ran'"
has emptydisplay err "DISPLAY is not set"

# ---- what the program sees ---------------------------------------------------------
# sees NAME WANT ARGS...: with ARGS, the program's TRACESMITH_TRIGGER,
# TRACESMITH_API and TRACESMITH_SNAPSHOT_FRAMES are WANT ("T=.. A=.. S=..");
# tscapture exits SEES_RC (default 0).
sees() {
	s_name=$1 s_want=$2
	shift 2
	expect_rc "${SEES_RC:-0}" "$s_name" "$TSC" -o "$T/s.sbt" "$@" -- \
		sh -c 'echo "T=${TRACESMITH_TRIGGER-unset} A=${TRACESMITH_API-unset} S=${TRACESMITH_SNAPSHOT_FRAMES-unset}"'
	[ "$(cat "$T/$s_name.out")" = "$s_want" ] ||
		fail "$s_name: the program saw '$(cat "$T/$s_name.out")', expected '$s_want'"
}
sees none "T=unset A=unset S=unset"
sees key "T=key:F12:3 A=unset S=unset" --frame F12:3
sees key.eq "T=key:Print A=unset S=unset" --frame=Print
sees key.default "T=key:F12 A=unset S=unset" --frame
sees key.lower "T=key:f9 A=unset S=unset" --frame f9
sees signal "T=signal A=unset S=unset" --signal
sees app "T=app A=unset S=unset" --app
sees profiler "T=profiler A=unset S=unset" --profiler
sees nvtx "T=nvtx:step 2 A=unset S=unset" --nvtx "step 2"
sees api "T=unset A=cuda,-hip S=unset" --api cuda,-hip
sees stacks "T=unset A=unset S=unset" --stacks none
sees snap "T=unset A=unset S=30" --snapshot-frames 30
# several triggers: one list, in a fixed order whatever the command line's
# (exit 3: the range never happens in sh)
SEES_RC=3 sees all "T=launches:2-9,key:Home:2,signal,app,profiler,nvtx:work A=vulkan S=unset" \
	--nvtx work --profiler --app --signal --frame Home:2 --launches 2-9 --api vulkan
# options end at the program: its own options stay its own
expect_rc 0 plus "$TSC" -o "$T/p.sbt" --signal sh -c 'echo "$0 $1 $TRACESMITH_TRIGGER"' -a --frames
[ "$(cat "$T/plus.out")" = "-a --frames signal" ] || fail "plus: $(cat "$T/plus.out")"
# the range options, with the report of a range that never happened: sh
# records nothing, so no window is written (exit 3 as sh exited 0)
for r in "frames 100-110" "submits 3-4" "launches 7-7"; do
	set -- $r
	expect_rc 3 "range.$1" "$TSC" -o "$T/s.sbt" "--$1" "$2" -- sh -c 'echo "T=$TRACESMITH_TRIGGER"'
	[ "$(cat "$T/range.$1.out")" = "T=$1:$2" ] || fail "range.$1: $(cat "$T/range.$1.out")"
	has "range.$1" err "tscapture: $1 $2 never happened (no window was captured)"
	has "range.$1" err "tscapture: no trace written (no capture window opened)"
done
# the program's own failure stays its exit status
expect_rc 5 range.fail "$TSC" -o "$T/s.sbt" --frames 1-2 -- sh -c 'exit 5'
has range.fail err "tscapture: frames 1-2 never happened (no window was captured)"

# ---- --api: front-ends left out are not set up -----------------------------------
# setup NAME ARGS...: what the program sees of the front-ends' variables.
setup() {
	u_name=$1
	shift
	expect_rc 0 "$u_name" env -u XDG_DATA_DIRS -u VK_INSTANCE_LAYERS -u VK_ADD_LAYER_PATH \
		-u TRACESMITH_VK_IMPLICIT -u LD_PRELOAD "$TSC" -o "$T/s.sbt" "$@" -- \
		sh -c 'echo "X=${XDG_DATA_DIRS-unset} L=${VK_INSTANCE_LAYERS-unset} P=${VK_ADD_LAYER_PATH-unset} I=${TRACESMITH_VK_IMPLICIT-unset} LD=${LD_PRELOAD-unset}"'
}
setup api.all
grep -Eq 'I=1|L=VK_LAYER_tracesmith' "$T/api.all.out" ||
	fail "api.all: the Vulkan layer is not set up: $(cat "$T/api.all.out")"
for a in -vulkan cuda cuda,hip; do
	setup "api$a" --api "$a"
	grep -q '^X=unset L=unset P=unset I=unset ' "$T/api$a.out" ||
		fail "--api $a: the Vulkan layer is set up: $(cat "$T/api$a.out")"
done
if [ -e "$TOP/$BUILD/interpose/libtracesmith_cuda.so" ]; then
	grep -q 'LD=.*libtracesmith_cuda\.so' "$T/api.all.out" ||
		fail "api.all: the CUDA interposer is not preloaded: $(cat "$T/api.all.out")"
	grep -q 'LD=.*libtracesmith_cuda\.so' "$T/api-vulkan.out" ||
		fail "--api -vulkan: the CUDA interposer is not preloaded: $(cat "$T/api-vulkan.out")"
	for a in vulkan -cuda; do
		setup "api$a" --api "$a"
		! grep -q 'LD=.*libtracesmith_cuda\.so' "$T/api$a.out" ||
			fail "--api $a: the CUDA interposer is preloaded: $(cat "$T/api$a.out")"
	done
fi
if [ -e "$TOP/$BUILD/interpose/libtracesmith_hip.so" ]; then
	grep -q 'LD=.*libtracesmith_hip\.so' "$T/api.all.out" ||
		fail "api.all: the HIP interposer is not preloaded: $(cat "$T/api.all.out")"
	for a in vulkan -hip cuda; do
		setup "api$a" --api "$a"
		! grep -q 'LD=.*libtracesmith_hip\.so' "$T/api$a.out" ||
			fail "--api $a: the HIP interposer is preloaded: $(cat "$T/api$a.out")"
	done
fi

# ---- window files: listed, old ones removed first ------------------------------------
"$GEN" "$T/win.sbt" >/dev/null || fail "sbt_gen_window"
size=$(stat -c %s "$T/win.sbt")
for old in w-frames-1-2 w-window-9 w-77-window-1 w-4-submits-1-1; do
	cp "$T/win.sbt" "$T/$old.sbt"
done
: >"$T/w-notes.sbt"
: >"$T/w-frames-x.sbt"
: >"$T/w.sbt"
expect_rc 0 list $PRE "$TSC" -o "$T/w.sbt" --frames 100-110 -- \
	sh -c 'cp "$0/win.sbt" "$0/w-frames-100-110.sbt"; cp "$0/win.sbt" "$0/w-123-window-1.sbt"' "$T"
for old in w w-frames-1-2 w-window-9 w-77-window-1 w-4-submits-1-1; do
	[ ! -e "$T/$old.sbt" ] || fail "list: old $old.sbt was not removed"
done
[ -e "$T/w-notes.sbt" ] && [ -e "$T/w-frames-x.sbt" ] || fail "list: a file not ours was removed"
cat >"$T/list.want" <<EOF
tscapture: wrote $T/w-123-window-1.sbt ($size bytes, 48 records)
tscapture: wrote $T/w-frames-100-110.sbt ($size bytes, 48 records)
EOF
cmp -s "$T/list.err" "$T/list.want" || fail "list: report: $(cat "$T/list.err")"
# several windows are listed in the run's order
expect_rc 0 list.order $PRE "$TSC" -o "$T/w.sbt" --frame F12 -- sh -c \
	'for f in 100-100 9-9 20-21; do cp "$0/win.sbt" "$0/w-frames-$f.sbt"; done' "$T"
cat >"$T/order.want" <<EOF
tscapture: wrote $T/w-frames-9-9.sbt ($size bytes, 48 records)
tscapture: wrote $T/w-frames-20-21.sbt ($size bytes, 48 records)
tscapture: wrote $T/w-frames-100-100.sbt ($size bytes, 48 records)
EOF
cmp -s "$T/list.order.err" "$T/order.want" || fail "list.order: report: $(cat "$T/list.order.err")"
# the window another process wrote counts for the range too
expect_rc 0 list.pid $PRE "$TSC" -o "$T/w.sbt" --launches 1-5 -- \
	sh -c 'cp "$0/win.sbt" "$0/w-555-launches-1-5.sbt"' "$T"
has list.pid err "tscapture: wrote $T/w-555-launches-1-5.sbt ($size bytes, 48 records)"
# the runtime names a range's window from the unit it opened at: a later one
# (here submit 4 of 3-9) is still the range's
expect_rc 0 list.later $PRE "$TSC" -o "$T/w.sbt" --submits 3-9 -- \
	sh -c 'cp "$0/win.sbt" "$0/w-submits-4-9.sbt"' "$T"
has list.later err "tscapture: wrote $T/w-submits-4-9.sbt ($size bytes, 48 records)"
# a window of another range is not the one asked for
expect_rc 3 list.other $PRE "$TSC" -o "$T/w.sbt" --frames 1-5 -- \
	sh -c 'cp "$0/win.sbt" "$0/w-frames-100-110.sbt"' "$T"
has list.other err "tscapture: wrote $T/w-frames-100-110.sbt"
has list.other err "tscapture: frames 1-5 never happened (no window was captured)"
grep -q "no trace written" "$T/list.other.err" && fail "list.other: 'no trace written' with a window written"

# ---- --help fits a screen and names every option --------------------------------------
expect_rc 0 help "$TSC" --help
[ "$(wc -l <"$T/help.out")" -le 24 ] || fail "--help does not fit a screen"
for o in --frame --frames --submits --launches --signal --app --profiler --nvtx --api \
	--snapshot-frames "3 the range never happened"; do
	has help out "$o"
done
echo ok
