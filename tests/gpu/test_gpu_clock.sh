#!/bin/sh
# GPU only (make test-gpu): record times on the GPU machine's CPU.  The
# capture runtime stamps records with the CPU's timestamp counter where it
# is invariant (capture/cap_clock.c); test_cap_clock (the unit test, carried
# by scripts/gpu_pack.sh) checks the counter's conversion against
# CLOCK_MONOTONIC across threads and sleeps and the times of a trace the
# runtime writes, both ways.  Prints which clock the CPU gave and the flags
# the kernel reports for its counter.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
[ -x "$BUILD/tests/test_cap_clock" ] || fail "no $BUILD/tests/test_cap_clock (make builds it)"
expect_rc 0 clock "$BUILD/tests/test_cap_clock"
grep -q "^the timestamp counter is\( not\)\? used here$" "$T/clock.out" || fail "clock: $(cat "$T/clock.out" "$T/clock.err")"
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -x 'constant_tsc\|nonstop_tsc\|tsc_reliable\|rdtscp' | tr '\n' ' ')
echo "clock: $(grep -h 'timestamp counter' "$T/clock.out" "$T/clock.err" | head -n 1); cpu flags: $flags"
echo ok
