#!/bin/sh
# The tools never harm what they are pointed at (issue 12):
# - tscapture -o refuses a FIFO, a device node and a folder (exit 2, the
#   program never runs) and leaves them in place: it deletes only a regular
#   file (the old trace) or a link, never what is not ours;
# - tsinfo, tsreplay and tsexport refuse a FIFO with no writer and a device
#   node as "not a regular file" without opening them (open() of such a
#   FIFO would block forever: every run here is bounded by timeout, and a
#   run the bound kills fails the test).
set -eu
. "${TOP:-.}/tests/support/shell.sh"
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
TSC="$BUILD/tscapture"
TSI="$BUILD/tsinfo"
TSR="$BUILD/tsreplay"
TSE="$BUILD/tsexport"
CAP="$BUILD/tests/programs/cap_tool"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT
NOTREG="not a regular file (a device, pipe or socket)"

mkfifo "$T/fifo.sbt"
# A device node of our own (the null device's numbers), where we may make one.
DEV=
if [ "$(id -u)" -eq 0 ] && mknod "$T/null.sbt" c 1 3 2>/dev/null; then
	DEV=$T/null.sbt
fi
ls -l /dev/null >"$T/devnull.before"

# still_there PATH TEST: PATH is still what `test TEST` says it was.
still_there() {
	[ "$2" "$1" ] || fail "$1 was removed or replaced"
}

# ---- tscapture -o: refuse, leave in place ----------------------------------------
cd "$T"
for target in fifo.sbt ${DEV:+null.sbt} /dev/null; do
	base=$(basename "$target") # (expect_rc sets $name)
	expect_rc 2 "cap.$base" timeout 20 "$TSC" -o "$target" -- touch ran
	has "cap.$base" err "tscapture: cannot write '$target': $NOTREG; -o names the trace file"
	[ ! -e ran ] || fail "tscapture ran the program with -o $target"
done
still_there fifo.sbt -p
[ -z "$DEV" ] || still_there null.sbt -c
still_there /dev/null -c
ls -l /dev/null >"$T/devnull.after"
cmp -s "$T/devnull.before" "$T/devnull.after" || fail "/dev/null changed: $(cat "$T/devnull.after")"
# A window file of an earlier run that is not a regular file is not ours either.
mkfifo "trace-window-1.sbt"
expect_rc 0 cap.window "$TSC" -o trace.sbt -- "$CAP" record 3
[ -s trace.sbt ] || fail "no trace: $(cat "$T/cap.window.err")"
still_there trace-window-1.sbt -p
# A symbolic link is not ours: refused before the program runs; the link and
# what it points at stay as they were.  A link left as a window file of an
# earlier run stays too.
echo old >old.txt
ln -s old.txt link.sbt
rm -f ran
expect_rc 2 cap.link "$TSC" -o link.sbt -- touch ran
has cap.link err "tscapture: cannot write 'link.sbt': it is a symbolic link; -o names the trace file (give the path it points to, or remove the link)"
[ ! -e ran ] || fail "tscapture ran the program with -o link.sbt"
[ -L link.sbt ] && [ "$(readlink link.sbt)" = old.txt ] || fail "link.sbt is no longer the link"
[ "$(cat old.txt)" = old ] || fail "tscapture wrote through the link into old.txt"
ln -s old.txt trace2-window-1.sbt
expect_rc 0 cap.winlink "$TSC" -o trace2.sbt -- "$CAP" record 3
[ -L trace2-window-1.sbt ] || fail "tscapture removed a link named like an old window file"
cd - >/dev/null

# ---- readers: refuse without opening ----------------------------------------------
for target in "$T/fifo.sbt" ${DEV:+"$DEV"}; do
	for tool in tsinfo tsreplay tsexport; do
		case $tool in
		tsinfo) bin=$TSI ;;
		tsreplay) bin=$TSR ;;
		tsexport) bin=$TSE ;;
		esac
		run=$tool.$(basename "$target")
		rc=0
		timeout 20 "$bin" "$target" >"$T/$run.out" 2>"$T/$run.err" || rc=$?
		[ "$rc" -ne 124 ] || fail "$tool blocked on $target"
		[ "$rc" -ne 0 ] || fail "$tool accepted $target"
		has "$run" err "$target: $NOTREG"
	done
	# the other tsinfo modes open the same way
	for mode in --verify --json --dump; do
		rc=0
		timeout 20 "$TSI" $mode "$target" >"$T/mode.out" 2>"$T/mode.err" || rc=$?
		[ "$rc" -ne 124 ] || fail "tsinfo $mode blocked on $target"
		[ "$rc" -ne 0 ] || fail "tsinfo $mode accepted $target"
	done
done
still_there "$T/fifo.sbt" -p
[ -z "$DEV" ] || still_there "$DEV" -c
echo "ok: tscapture -o and the readers leave FIFOs and devices alone${DEV:+ (a device node of our own too)}"
