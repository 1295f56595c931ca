#!/bin/sh
# Warm blocks (capture/cap_internal.h, docs/capture.md "Buffers"): the
# writer faults in free blocks ahead of the recording threads, so that a
# thread recording faster than the writer drains does not fault in fresh
# memory itself.  cap_tool records 400,000 records (about 22 MB of
# buffers) under each TRACESMITH_WARM_MB setting: every record is in the
# trace, in order, whatever the setting; the trace's metadata says how many
# blocks the writer faulted in (capture.warm_faulted) and how many a
# recording thread had to map itself (capture.warm_misses): none either
# way with TRACESMITH_WARM_MB=0, some faulted by the writer otherwise; a
# value that is not a size is named in a warning and the default kept; a
# memory bound of 4 MiB (a quarter of it kept warm) still records
# everything.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
TOOL=$BUILD/tests/programs/cap_tool
N=400000

# run NAME ENV...: record N under ENV, check the trace holds them all
run() {
	n=$1
	shift
	expect_rc 0 "$n.rec" env "$@" TRACESMITH_OUTPUT="$T/$n.sbt" "$TOOL" record "$N"
	expect_rc 0 "$n.check" "$TOOL" check "$T/$n.sbt"
	grep -qx "records $N" "$T/$n.check.out" && grep -qx "counter_ok 1" "$T/$n.check.out" ||
		fail "$n: the trace does not hold the $N records in order: $(head -n 4 "$T/$n.check.out")"
	"$BUILD/tsinfo" "$T/$n.sbt" >"$T/$n.info"
}
meta() { sed -n "s/^ *capture\\.$2 = //p" "$T/$1.info"; }

run default
[ "$(meta default warm_faulted)" -ge 1 ] || fail "default: the writer faulted in no warm block: $(grep warm "$T/default.info")"
[ -n "$(meta default warm_misses)" ] || fail "default: no capture.warm_misses in the metadata"

run fixed TRACESMITH_WARM_MB=8
[ "$(meta fixed warm_faulted)" -ge 1 ] || fail "fixed: the writer faulted in no warm block"

run off TRACESMITH_WARM_MB=0
[ "$(meta off warm_faulted)" = 0 ] && [ "$(meta off warm_misses)" = 0 ] ||
	fail "off: warm blocks with TRACESMITH_WARM_MB=0: $(grep warm "$T/off.info")"

run bad TRACESMITH_WARM_MB=lots
has bad.rec err "TRACESMITH_WARM_MB='lots' is not a number of MiB in 0..1048576; using 16"

run small TRACESMITH_MEMORY_MB=4
echo "ok: warm faulted default $(meta default warm_faulted) (misses $(meta default warm_misses)), 8 MiB $(meta fixed warm_faulted) (misses $(meta fixed warm_misses)), bound 4 MiB $(meta small warm_faulted) (misses $(meta small warm_misses))"
