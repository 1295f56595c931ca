#!/bin/sh
# tscapture and tsinfo with the capture runtime's windows, end to end: the
# runtime's stand-in front-end (tests/programs/cap_windows) run under
# tscapture with each trigger option writes its windows' files; tscapture
# lists exactly those (and no FILE), removes an earlier run's, says when a
# range never happened (exit 3); tsinfo shows each window, its snapshot and
# its frames with the run's numbers.
. "${TOP:-.}/tests/support/shell.sh"
TSC="$TOP/$BUILD/tscapture"
CW="$TOP/$BUILD/tests/programs/cap_windows"
INFO="$TOP/$BUILD/tsinfo"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES TRACESMITH_SNAPSHOT
D="$T/run"
mkdir "$D"

# files WANT...: the .sbt files in $D are exactly WANT (sorted).
files() {
	got=$(cd "$D" && ls *.sbt 2>/dev/null | sort | tr '\n' ' ')
	want=$([ $# -gt 0 ] && printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "files in $D: '$got', expected '$want'"
}
# listed NAME FILE...: tscapture's report (NAME.err) lists exactly FILEs, in order.
listed() {
	l_name=$1
	shift
	sed -n 's/^tscapture: wrote \([^ ]*\) (.*/\1/p' "$T/$l_name.err" | tr '\n' ' ' >"$T/$l_name.listed"
	want=$(for f in "$@"; do printf '%s ' "$D/$f"; done)
	[ "$(cat "$T/$l_name.listed")" = "$want" ] ||
		fail "$l_name: listed '$(cat "$T/$l_name.listed")', expected '$want'"
}

# ---- a frame range -------------------------------------------------------------------
expect_rc 0 frames "$TSC" -o "$D/t.sbt" --frames 4-6 -- "$CW" frames 10
files t-frames-4-6.sbt
listed frames t-frames-4-6.sbt
expect_rc 0 frames.info "$INFO" "$D/t-frames-4-6.sbt"
has frames.info out "window       1 of the run, trigger 'frames 4-6', first frame 4, first submit 1, first launch 1"
has frames.info out "snapshot     2 records (seq 2..3)"
has frames.info out "frames       3 (4-6)"

# ---- submits and launches --------------------------------------------------------------
expect_rc 0 submits "$TSC" -o "$D/t.sbt" --submits 3-4 -- "$CW" submits 6
files t-submits-3-4.sbt
expect_rc 0 submits.info "$INFO" "$D/t-submits-3-4.sbt"
has submits.info out "window       1 of the run, trigger 'submits 3-4', first frame 1, first submit 3, first launch 1"
expect_rc 0 launches "$TSC" -o "$D/t.sbt" --launches 2-5 -- "$CW" launches 6
files t-launches-2-5.sbt
listed launches t-launches-2-5.sbt

# ---- a range that never happens ----------------------------------------------------------
expect_rc 3 never "$TSC" -o "$D/t.sbt" --frames 20-30 -- "$CW" frames 10
files
has never err "tscapture: frames 20-30 never happened (no window was captured)"
has never err "tscapture: no trace written (no capture window opened)"

# ---- signal and the in-app API: window-K files and hotkey-style frame windows ---------------
expect_rc 0 signal "$TSC" -o "$D/t.sbt" --signal -- "$CW" signal 9
files t-window-1.sbt
expect_rc 0 signal.info "$INFO" "$D/t-window-1.sbt"
has signal.info out "window       1 of the run, trigger 'signal', first frame 5,"
has signal.info out "frames       3 (5-7)"
expect_rc 0 app "$TSC" -o "$D/t.sbt" --app -- "$CW" app 10
files t-frames-8-9.sbt t-window-1.sbt
listed app t-frames-8-9.sbt t-window-1.sbt
expect_rc 0 app.info "$INFO" --json "$D/t-frames-8-9.sbt"
has app.info out '"first_frame":8,"last_frame":9,"frames_cut":0,"window":{"index":2,"trigger":"app trigger 2","first_frame":8,'

# ---- an earlier run's windows are removed before the next run --------------------------------
expect_rc 0 again "$TSC" -o "$D/t.sbt" --frames 4-6 -- "$CW" frames 10
files t-frames-4-6.sbt
listed again t-frames-4-6.sbt

# ---- --snapshot-frames: a whole run with periodic snapshots, FILE written ---------------------
expect_rc 0 periodic "$TSC" -o "$D/t.sbt" --snapshot-frames 4 -- "$CW" frames 9
files t.sbt
listed periodic t.sbt
expect_rc 0 periodic.info "$INFO" "$D/t.sbt"
has periodic.info out "keyframes    2"
has periodic.info out "frames       9 (1-9)"
grep -q '^window' "$T/periodic.info.out" && fail "periodic: a window line in a whole run"
echo ok
