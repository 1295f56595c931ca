#!/bin/sh
# vk_imgcmp, the frame comparer of the replay tests: the same pixels as a
# PPM, a bottom-up 24-bit BMP, a top-down 32-bit BMP and a BI_BITFIELDS
# BMP with another alpha compare as the same; one changed pixel is found
# at its place with its values; tolerance and --max-pixels work; --raw
# writes B,G,R,255; bad files are named with what is wrong.
set -eu
BUILD=${BUILD:-build}
CMP=$BUILD/tests/programs/vk_imgcmp
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

python3 - "$T" <<'EOF'
import os, struct, sys
t = sys.argv[1]
W, H = 37, 23   # odd width: 24-bit BMP rows need padding
px = [[((x * 7 + y * 3) & 255, (x * y) & 255, (255 - x * 5) & 255) for x in range(W)]
      for y in range(H)]

def ppm(path, pixels):
    with open(path, "wb") as f:
        f.write(b"P6\n# a comment\n%d %d\n255\n" % (W, H))
        for row in pixels:
            for r, g, b in row:
                f.write(bytes((r, g, b)))

def bmp(path, bpp, top_down, bitfields=False, alpha=0):
    stride = (W * bpp // 8 + 3) & ~3
    rows = px if top_down else px[::-1]
    body = b""
    for row in rows:
        line = b""
        for r, g, b in row:
            if bitfields:   # masks R=0x000000ff G=0x0000ff00 B=0x00ff0000
                line += bytes((r, g, b, alpha))
            elif bpp == 32:
                line += bytes((b, g, r, alpha))
            else:
                line += bytes((b, g, r))
        body += line + b"\0" * (stride - len(line))
    extra = struct.pack("<III", 0xff, 0xff00, 0xff0000) if bitfields else b""
    off = 14 + 40 + len(extra)
    head = struct.pack("<2sIHHI", b"BM", off + len(body), 0, 0, off)
    dib = struct.pack("<IiiHHIIiiII", 40, W, -H if top_down else H, 1, bpp,
                      3 if bitfields else 0, len(body), 2835, 2835, 0, 0)
    with open(path, "wb") as f:
        f.write(head + dib + extra + body)

ppm(os.path.join(t, "a.ppm"), px)
bmp(os.path.join(t, "b24.bmp"), 24, False)
bmp(os.path.join(t, "b32.bmp"), 32, True, alpha=255)
bmp(os.path.join(t, "bf.bmp"), 32, False, bitfields=True, alpha=7)
px2 = [row[:] for row in px]
r, g, b = px2[11][5]
px2[11][5] = (r, (g + 3) & 255, b)   # one pixel, green off by 3
ppm(os.path.join(t, "c.ppm"), px2)
EOF

for f in b24.bmp b32.bmp bf.bmp; do
	out=$("$CMP" "$T/a.ppm" "$T/$f") || fail "a.ppm vs $f: $out"
	[ "$out" = "same 37x23" ] || fail "a.ppm vs $f printed '$out'"
done
"$CMP" "$T/b24.bmp" "$T/bf.bmp" >/dev/null || fail "two BMPs of the same pixels differ"

rc=0
out=$("$CMP" "$T/a.ppm" "$T/c.ppm") || rc=$?
[ "$rc" = 1 ] || fail "one changed pixel: exit $rc"
g=$(( (5 * 11) & 255 ))
want="differ: 1 of 851 pixels, max channel difference 3, first at (5, 11): A 68,$g,230 B 68,$((g + 3)),230"
[ "$out" = "$want" ] || fail "one changed pixel printed '$out', expected '$want'"
"$CMP" --tolerance 3 "$T/a.ppm" "$T/c.ppm" >/dev/null || fail "--tolerance 3 should accept"
"$CMP" --tolerance 2 "$T/a.ppm" "$T/c.ppm" >/dev/null && fail "--tolerance 2 should refuse"
"$CMP" --max-pixels 1 "$T/a.ppm" "$T/c.ppm" >/dev/null || fail "--max-pixels 1 should accept"

"$CMP" --raw "$T/b24.bmp" "$T/raw" || fail "--raw"
python3 - "$T/raw" <<'EOF' || fail "--raw bytes"
import sys
d = open(sys.argv[1], "rb").read()
assert len(d) == 37 * 23 * 4, len(d)
x, y = 5, 11
p = d[(y * 37 + x) * 4:(y * 37 + x) * 4 + 4]
assert p == bytes(((255 - x * 5) & 255, (x * y) & 255, (x * 7 + y * 3) & 255, 255)), p
EOF

# sizes differ
printf 'P6\n2 2\n255\n%s' "012345678901" >"$T/small.ppm"
rc=0
out=$("$CMP" "$T/a.ppm" "$T/small.ppm") || rc=$?
[ "$rc" = 1 ] && [ "$out" = "differ: sizes 37x23 and 2x2" ] || fail "sizes: exit $rc '$out'"

# bad input: exit 2, the file named with the problem
check_bad() { # FILE TEXT
	rc=0
	"$CMP" "$T/a.ppm" "$1" >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" = 2 ] || fail "$1: exit $rc, expected 2"
	grep -qF "$1: $2" "$T/err" || fail "$1: message '$(cat "$T/err")' lacks '$2'"
}
printf 'hello' >"$T/text.img"
check_bad "$T/text.img" "neither a binary PPM (P6), a BMP nor a PNG"
head -c 100 "$T/b24.bmp" >"$T/short.bmp"
check_bad "$T/short.bmp" "BMP 37x23 needs"
printf 'P6\n4 4\n255\n0123' >"$T/short.ppm"
check_bad "$T/short.ppm" "PPM 4x4 needs 48 pixel bytes, has 4"
printf 'P6\n4 4\n65535\n' >"$T/deep.ppm"
check_bad "$T/deep.ppm" "PPM 4x4 maxval 65535: only maxval 255 is supported"
check_bad "$T/missing.ppm" "No such file or directory"
rc=0
"$CMP" --frobnicate a b 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q "unknown option '--frobnicate'" "$T/err" || fail "unknown option"
echo ok
