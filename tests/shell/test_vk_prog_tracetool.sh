#!/bin/sh
# vk_tracetool, the Vulkan tests' trace inspector, on a trace it writes
# itself (synth: 4 host memory writes, submits and checkpoints, all known):
# the listings say what was written, copy keeps every record, blob and name,
# poke changes exactly the one byte it reports, find finds a blob's bytes
# and not random ones, and bad input gets a message naming it.
set -eu
BUILD=${BUILD:-build}
TOOL=$BUILD/tests/programs/vk_tracetool
TSINFO=$BUILD/tsinfo
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

"$TOOL" synth "$T/s.sbt" || fail "synth"

"$TOOL" memwrites "$T/s.sbt" >"$T/mw" || fail "memwrites"
cat >"$T/mw.want" <<'EOF'
memwrite seq 1 memory 0xab00 offset 0 size 1024 blob 1
memwrite seq 4 memory 0xab01 offset 256 size 1024 blob 2
memwrite seq 7 memory 0xab00 offset 512 size 1024 blob 3
memwrite seq 10 memory 0xab01 offset 768 size 1024 blob 4
EOF
cmp -s "$T/mw" "$T/mw.want" || fail "memwrites printed: $(cat "$T/mw")"

"$TOOL" checkpoints "$T/s.sbt" >"$T/cp" || fail "checkpoints"
cat >"$T/cp.want" <<'EOF'
checkpoint seq 3 call 2 object 0xab00 offset 0 length 1024 block 64
checkpoint seq 6 call 5 object 0xab01 offset 256 length 1024 block 64
checkpoint seq 9 call 8 object 0xab00 offset 512 length 1024 block 64
checkpoint seq 12 call 11 object 0xab01 offset 768 length 1024 block 64
EOF
cmp -s "$T/cp" "$T/cp.want" || fail "checkpoints printed: $(cat "$T/cp")"

[ "$("$TOOL" blobs "$T/s.sbt")" = "blobs 4 of 4 bytes 4096 largest 1024" ] ||
	fail "blobs: $("$TOOL" blobs "$T/s.sbt")"

# copy: the same records, names and blobs (tsinfo's dump and summary agree
# except for the file name, trace id and start time).
"$TOOL" copy "$T/s.sbt" "$T/c.sbt" || fail "copy"
"$TSINFO" --dump "$T/s.sbt" >"$T/s.dump" && "$TSINFO" --dump "$T/c.sbt" >"$T/c.dump" ||
	fail "tsinfo --dump"
cmp -s "$T/s.dump" "$T/c.dump" || fail "the copy's records differ"
"$TSINFO" "$T/s.sbt" | grep -Ev '^(trace|trace id|started) ' >"$T/s.sum"
"$TSINFO" "$T/c.sbt" | grep -Ev '^(trace|trace id|started) ' >"$T/c.sum"
cmp -s "$T/s.sum" "$T/c.sum" || fail "the copy's summary differs: $(diff "$T/s.sum" "$T/c.sum")"
for b in 1 2 3 4; do
	"$TOOL" blob "$T/s.sbt" $b "$T/s$b.bin" && "$TOOL" blob "$T/c.sbt" $b "$T/c$b.bin" ||
		fail "blob $b"
	cmp -s "$T/s$b.bin" "$T/c$b.bin" || fail "blob $b differs in the copy"
done
[ "$(wc -c <"$T/s3.bin" | tr -d ' ')" = 1024 ] || fail "blob 3 is not 1024 bytes"

# poke by pattern: 200 bytes of blob 3 from its byte 256; --at 40 is blob
# byte 296, memory offset 512 + 296.
dd if="$T/s3.bin" of="$T/pat" bs=1 skip=256 count=200 2>/dev/null
out=$("$TOOL" poke "$T/s.sbt" "$T/p.sbt" --pattern "$T/pat" --at 40 --xor 0x21) || fail "poke"
[ "$out" = "poked blob 3 byte 296 seq 7 memory 0xab00 memory_offset 808" ] ||
	fail "poke printed '$out'"
"$TOOL" blob "$T/p.sbt" 3 "$T/p3.bin" || fail "blob of the poked trace"
cmp -l "$T/s3.bin" "$T/p3.bin" >"$T/diff" || true
[ "$(wc -l <"$T/diff" | tr -d ' ')" = 1 ] || fail "poke changed $(wc -l <"$T/diff") bytes"
set -- $(cat "$T/diff")
[ "$1" = 297 ] || fail "poke changed byte $(($1 - 1)), expected 296"
[ $((0$2 ^ 0$3)) = 33 ] || fail "poke did not XOR with 0x21 ($2 -> $3, octal)"
for b in 1 2 4; do
	"$TOOL" blob "$T/p.sbt" $b "$T/p$b.bin" && cmp -s "$T/s$b.bin" "$T/p$b.bin" ||
		fail "poke changed blob $b too"
done
"$TSINFO" --dump "$T/p.sbt" >"$T/p.dump" && cmp -s "$T/s.dump" "$T/p.dump" ||
	fail "poke changed records"

# poke by blob and byte.
out=$("$TOOL" poke "$T/s.sbt" "$T/q.sbt" --blob 2 --byte 0) || fail "poke --blob"
[ "$out" = "poked blob 2 byte 0 seq 4 memory 0xab01 memory_offset 256" ] ||
	fail "poke --blob printed '$out'"

# find: the pattern's six 32-byte windows, at blob 3 offsets 256..416.
"$TOOL" find "$T/s.sbt" "$T/pat" >"$T/find" || fail "find"
grep -qx 'windows 6 hits 6' "$T/find" || fail "find: $(cat "$T/find")"
grep -qx 'hit blob 3 offset 288 pattern_offset 32' "$T/find" || fail "find: $(cat "$T/find")"
# unaligned: the same bytes shifted by 5 are still found (window 16).
dd if="$T/s3.bin" of="$T/pat5" bs=1 skip=261 count=64 2>/dev/null
"$TOOL" find "$T/s.sbt" "$T/pat5" --window 16 | grep -qx 'hit blob 3 offset 261 pattern_offset 0' ||
	fail "find missed an unaligned run"
head -c 4096 /dev/urandom >"$T/rnd"
"$TOOL" find "$T/s.sbt" "$T/rnd" | grep -qx 'windows 128 hits 0' || fail "find hit random bytes"
# one repeated word is not a window worth looking for
head -c 256 /dev/zero >"$T/zero"
"$TOOL" find "$T/s.sbt" "$T/zero" | grep -qx 'windows 0 hits 0' || fail "find counted zero windows"

# errors
rc=0
"$TOOL" blobs "$T/none.sbt" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "$T/none.sbt" "$T/err" || fail "missing trace: exit $rc, $(cat "$T/err")"
rc=0
"$TOOL" poke "$T/s.sbt" "$T/x.sbt" --blob 9 --byte 0 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "no blob 9" "$T/err" || fail "poke of a missing blob: $(cat "$T/err")"
rc=0
"$TOOL" poke "$T/s.sbt" "$T/x.sbt" --blob 1 --byte 1024 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "blob 1 has 1024 bytes, no byte 1024" "$T/err" ||
	fail "poke past a blob: $(cat "$T/err")"
rc=0
"$TOOL" poke "$T/s.sbt" "$T/x.sbt" --pattern "$T/rnd" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "no tsMemoryWrite blob holds the 32 bytes" "$T/err" ||
	fail "poke of an absent pattern: $(cat "$T/err")"
rc=0
"$TOOL" frobnicate 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q "^usage: vk_tracetool" "$T/err" || fail "usage error: exit $rc"
head -c 300 "$T/s.sbt" >"$T/trunc.sbt"
rc=0
"$TOOL" memwrites "$T/trunc.sbt" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q "trunc.sbt" "$T/err" || fail "truncated trace: exit $rc, $(cat "$T/err")"
echo ok
