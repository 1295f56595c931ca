#!/bin/sh
# The tools' messages and exit codes as a user meets them (issue 13):
# - tscapture -o into a missing or unwritable folder (or onto a folder)
#   exits 2 naming the folder and why, without running the program;
# - tsinfo and tsreplay say what a file is when it cannot be a trace: a
#   directory, not a regular file, an empty file (said once), a
#   GFXReconstruct capture (named, with the tool that replays it);
# - --version on tscapture, tsinfo, tsreplay and tsexport prints the
#   version the capture runtime writes into a trace's tracesmith.version;
# - a usage error is one line and "try 'TOOL --help'", not the whole help.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac # the tscapture cases run in $T
TSC="$BUILD/tscapture"
TSI="$BUILD/tsinfo"
TSR="$BUILD/tsreplay"
TSE="$BUILD/tsexport"
CAP="$BUILD/tests/programs/cap_tool"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT

# ---- tscapture: the output folder is checked before the program runs ----------
cd "$T"
expect_rc 2 missing "$TSC" -o missing/dir/x.sbt -- touch ran
[ "$(cat "$T/missing.err")" = "tscapture: cannot write 'missing/dir/x.sbt': folder 'missing/dir': No such file or directory" ] ||
	fail "missing folder message: $(cat "$T/missing.err")"
[ ! -e ran ] || fail "tscapture ran the program although the folder is missing"
: >afile
expect_rc 2 notdir "$TSC" -o afile/x.sbt -- touch ran
has notdir err "tscapture: cannot write 'afile/x.sbt': 'afile' is not a folder"
mkdir adir
expect_rc 2 isdir "$TSC" -o adir -- touch ran
has isdir err "tscapture: cannot write 'adir': it is a folder; -o names the trace file"
[ ! -e ran ] || fail "tscapture ran the program with -o naming a folder"
if [ "$(id -u)" -ne 0 ]; then # root may write anywhere
	mkdir ro && chmod 555 ro
	expect_rc 2 readonly "$TSC" -o ro/x.sbt -- touch ran
	has readonly err "tscapture: cannot write 'ro/x.sbt': folder 'ro' is not writable: Permission denied"
	[ ! -e ran ] || fail "tscapture ran the program although the folder is read-only"
fi
# A good folder still works, relative or not.
mkdir out
expect_rc 0 good "$TSC" -o out/a.sbt -- "$CAP" record 3
[ -s out/a.sbt ] || fail "no trace in out/: $(cat "$T/good.err")"
cd - >/dev/null

# ---- what a file is when it cannot be a trace -----------------------------------
: >"$T/empty.sbt"
# GFXReconstruct's file header: the fourcc "GFXR", format version 0.1, no options.
printf 'GFXR\000\000\000\000\001\000\000\000\000\000\000\000' >"$T/cap.gfxr"
for tool in tsinfo tsreplay; do
	bin=$TSI
	[ "$tool" = tsreplay ] && bin=$TSR
	expect_rc 1 "$tool.dir" "$bin" "$T"
	[ "$(cat "$T/$tool.dir.err")" = "$tool: $T: is a directory, not a trace file" ] ||
		fail "$tool on a directory: $(cat "$T/$tool.dir.err")"
	expect_rc 1 "$tool.null" "$bin" /dev/null
	[ "$(cat "$T/$tool.null.err")" = "$tool: /dev/null: not a regular file (a device, pipe or socket), not a trace file" ] ||
		fail "$tool on /dev/null: $(cat "$T/$tool.null.err")"
	expect_rc 1 "$tool.empty" "$bin" "$T/empty.sbt"
	[ "$(cat "$T/$tool.empty.err")" = "$tool: $T/empty.sbt: empty file (0 bytes), not an SBT trace" ] ||
		fail "$tool on an empty file: $(cat "$T/$tool.empty.err")"
	expect_rc 1 "$tool.gfxr" "$bin" "$T/cap.gfxr"
	[ "$(cat "$T/$tool.gfxr.err")" = "$tool: $T/cap.gfxr: a GFXReconstruct capture, not an SBT trace: replay it with gfxrecon-replay" ] ||
		fail "$tool on a GFXReconstruct file: $(cat "$T/$tool.gfxr.err")"
done
# tsexport says the same (its unreadable-trace status is 2, docs/emulator.md)
for what in dir:"$T":"is a directory, not a trace file" \
	empty:"$T/empty.sbt":"empty file (0 bytes), not an SBT trace" \
	gfxr:"$T/cap.gfxr":"a GFXReconstruct capture, not an SBT trace: replay it with gfxrecon-replay"; do
	x_case=${what%%:*}
	x_rest=${what#*:}
	x_file=${x_rest%%:*}
	x_want=${x_rest#*:}
	expect_rc 2 "tsexport.$x_case" "$TSE" --summary "$x_file"
	[ "$(cat "$T/tsexport.$x_case.err")" = "tsexport: $x_file: $x_want" ] ||
		fail "tsexport on $x_case: $(cat "$T/tsexport.$x_case.err")"
done
expect_rc 1 verify.empty "$TSI" --verify "$T/empty.sbt"
[ "$(grep -c "empty file" "$T/verify.empty.err")" -eq 1 ] || fail "--verify empty: $(cat "$T/verify.empty.err")"

# ---- --version: the version a trace records -------------------------------------
traced=$("$TSI" "$T/out/a.sbt" | sed -n 's/^ *tracesmith.version = //p')
[ -n "$traced" ] || fail "no tracesmith.version in the trace's metadata"
for tool in tscapture tsinfo tsreplay tsexport; do
	expect_rc 0 "$tool.version" "$BUILD/$tool" --version
	[ "$(cat "$T/$tool.version.out")" = "$tool (TraceSmith) $traced" ] ||
		fail "$tool --version: $(cat "$T/$tool.version.out"), the trace says $traced"
	[ ! -s "$T/$tool.version.err" ] || fail "$tool --version wrote to stderr"
done

# ---- usage errors: one line and where to look -----------------------------------
# usage_error TOOL NAME MESSAGE ARGS...: exit 2, stderr exactly MESSAGE and
# "try 'TOOL --help'", nothing on stdout.
usage_error() {
	u_tool=$1 u_name=$2 u_msg=$3
	shift 3
	expect_rc 2 "$u_name" "$BUILD/$u_tool" "$@"
	[ "$(cat "$T/$u_name.err")" = "$u_tool: $u_msg
try '$u_tool --help'" ] || fail "$u_name: stderr: $(cat "$T/$u_name.err")"
	[ ! -s "$T/$u_name.out" ] || fail "$u_name: wrote to stdout"
}
usage_error tscapture tsc.bogus "unknown option '--bogus'" --bogus -- true
usage_error tscapture tsc.noprog "no program to run"
usage_error tscapture tsc.range "--frames '3': expected A-B, whole numbers from 1 with A <= B" \
	--frames 3 -- true
usage_error tsinfo tsi.bogus "unknown option '--bogus'" --bogus x.sbt
usage_error tsinfo tsi.none "no trace file given"
usage_error tsinfo tsi.range "bad --range 'x': want A:B, A: or :B with A <= B (sequence numbers, B excluded)" \
	--range x x.sbt
usage_error tsreplay tsr.bogus "unknown option '--bogus'" --bogus x.sbt
usage_error tsreplay tsr.none "no trace given"
usage_error tsexport tse.bogus "unknown option '--bogus'" --bogus x.sbt
usage_error tsexport tse.none "no trace given"
usage_error tsexport tse.format "unknown format 'svg' (json, perfetto, dot or ascii)" -f svg x.sbt
echo ok
