#!/bin/sh
# The Vulkan test programs on their own (no TraceSmith layer), under the
# Khronos validation layer with synchronization validation: each exits 0,
# prints no VUID- or SYNC-HAZARD line, and prints the hash of what it read,
# the same with and without a DISPLAY (a private Xvfb).  The compute,
# multi-threaded and call-bound programs compute integer functions, so their
# hashes are the same on any conformant driver; vk_offscreen's pixels are
# lavapipe's rasterization (mesa-vulkan-drivers, llvmpipe).  The programs
# check their results against the CPU themselves; these hashes pin that the
# work done does not change unnoticed.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
P="$BUILD/tests/programs"
T=$(mktemp -d)
trap 'vk_env_xvfb_stop; rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

VK_ENV_SYNC=1
vk_env_init
vk_env_layers_validation

# expect NAME 'EXPECTED OUTPUT LINE' PROGRAM ARGS...: runs it with and
# without DISPLAY; both must be clean and print exactly the expected line
# (vk_callbound's loop time is cut off first).
expect() {
	name=$1 want=$2
	shift 2
	(
		unset DISPLAY
		vk_env_run "$T/$name.nodisplay.log" "$@"
	) || fail "$name: run without DISPLAY"
	vk_env_run "$T/$name.display.log" "$@" || fail "$name: run with DISPLAY=$DISPLAY"
	for mode in nodisplay display; do
		got=$(grep "^$(basename "$1"):" "$T/$name.$mode.log" | sed 's/ loop_ms .*//')
		[ "$got" = "$want" ] || fail "$name ($mode): printed '$got', expected '$want'"
	done
}

vk_env_xvfb_start

expect compute 'vk_compute: size 4096 submits 4 hash 0xbd8e02db98e50c8a first 0xe189b61a last 0xedbdf16a' \
	"$P/vk_compute"
expect compute_labels 'vk_compute: size 4096 submits 4 hash 0xbd8e02db98e50c8a first 0xe189b61a last 0xedbdf16a' \
	"$P/vk_compute" --labels
expect compute_odd 'vk_compute: size 1000 submits 3 hash 0x0eaacb207b6fb0b9 first 0xe64e5f9d last 0xece5033d' \
	"$P/vk_compute" --size 1000 --submits 3
expect offscreen 'vk_offscreen: 256x192 frames 1 hash 0x3940cbd013a8d9f2 last 0x3940cbd013a8d9f2' \
	"$P/vk_offscreen"
expect offscreen5 'vk_offscreen: 256x192 frames 5 hash 0x5845b89d149f227e last 0x5c4b13904b5be903' \
	"$P/vk_offscreen" --frames 5
expect multithread 'vk_multithread: threads 4 rounds 3 size 2048 hash 0xc87d53501d1c02bb' \
	"$P/vk_multithread"
expect multithread_ts 'vk_multithread: threads 4 rounds 3 size 2048 hash 0xc87d53501d1c02bb' \
	"$P/vk_multithread" --thread-submit
expect multithread8 'vk_multithread: threads 8 rounds 5 size 2048 hash 0x41b7a500fbe74798' \
	"$P/vk_multithread" --threads 8 --rounds 5 --thread-submit
expect callbound 'vk_callbound: submits 20 cmds 300 every 7 calls 7762 hash 0x66dddf4f21aab718' \
	"$P/vk_callbound" --submits 20 --cmds 300 --every 7

# The benchmark's default size, without synchronization validation (slow on
# 400,000 commands): still no VUID-.
(
	VK_ENV_SYNC=0
	unset VK_LAYER_ENABLES
	vk_env_run "$T/callbound_default.log" "$P/vk_callbound"
) || fail "callbound at its default size"
grep -q '^vk_callbound: submits 200 cmds 2000 every 500 calls 402002 hash 0xf516168bee72308e ' \
	"$T/callbound_default.log" || fail "callbound default: $(cat "$T/callbound_default.log")"

# --results: every result word the program read, all rounds; each has 0xE
# in its top nibble, and --inputs (round 0's inputs) 0x1: the property the
# capture tests rely on to tell host writes from device results.
vk_env_run "$T/results.log" "$P/vk_compute" --size 256 --submits 3 --results "$T/results.bin" \
	--inputs "$T/inputs.bin" || fail "vk_compute --results --inputs"
python3 - "$T/results.bin" "$T/inputs.bin" <<'EOF' || fail "vk_compute --results/--inputs files"
import struct, sys
d = open(sys.argv[1], "rb").read()
assert len(d) == 256 * 3 * 4, "results file has %d bytes, expected %d" % (len(d), 256 * 3 * 4)
words = struct.unpack("<%dI" % (len(d) // 4), d)
bad = [i for i, w in enumerate(words) if w >> 28 != 0xE]
assert not bad, "result word %d is 0x%08x" % (bad[0], words[bad[0]])
assert len(set(words)) > 700, "results are not distinct enough"
d = open(sys.argv[2], "rb").read()
assert len(d) == 256 * 4, "inputs file has %d bytes, expected %d" % (len(d), 256 * 4)
ins = struct.unpack("<256I", d)
bad = [i for i, w in enumerate(ins) if w >> 28 != 0x1]
assert not bad, "input word %d is 0x%08x" % (bad[0], ins[bad[0]])
assert len(set(ins)) > 250, "inputs are not distinct enough"
EOF

# --out: a binary PPM of the right size whose pixels are not all the clear
# colour (the triangles were drawn).
vk_env_run "$T/ppm.log" "$P/vk_offscreen" --width 64 --height 48 --out "$T/o.ppm" ||
	fail "vk_offscreen --out"
python3 - "$T/o.ppm" <<'EOF' || fail "vk_offscreen --out file"
import sys
d = open(sys.argv[1], "rb").read()
head = b"P6\n64 48\n255\n"
assert d.startswith(head), "bad PPM header %r" % d[:16]
px = d[len(head):]
assert len(px) == 64 * 48 * 3, "PPM has %d pixel bytes" % len(px)
colours = {px[i:i + 3] for i in range(0, len(px), 3)}
assert len(colours) > 50, "only %d distinct colours: nothing drawn?" % len(colours)
EOF

# Usage errors name the flag and exit 2.
for prog in vk_compute vk_offscreen vk_multithread vk_callbound; do
	rc=0
	"$P/$prog" --bogus >"$T/u.out" 2>"$T/u.err" || rc=$?
	[ "$rc" -eq 2 ] || fail "$prog --bogus: exit $rc, expected 2"
	grep -q "unknown option '--bogus'" "$T/u.err" || fail "$prog --bogus: $(cat "$T/u.err")"
	"$P/$prog" --help >"$T/h.out" || fail "$prog --help"
	grep -q "^usage: $prog" "$T/h.out" || fail "$prog --help: $(cat "$T/h.out")"
done
rc=0
"$P/vk_compute" --size 12 >"$T/u.out" 2>"$T/u.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--size needs a number from 64 to 16777216, got '12'" "$T/u.err" ||
	fail "vk_compute --size 12: exit $rc, $(cat "$T/u.err")"
echo "ok"
