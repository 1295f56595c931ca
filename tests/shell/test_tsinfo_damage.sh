#!/bin/sh
# tsinfo on damaged traces: --verify on a clean file (exit 0), a flipped
# byte in a chunk's payload (exit 1, the chunk's offset named), a truncated
# file (summary: exit 0 with a torn-tail warning and the readable records;
# --verify: exit 1), and a file left without index and trailer (rebuilt by
# scanning, everything readable).
set -eu
BUILD=${BUILD:-build}
TSINFO=$BUILD/tsinfo
GEN=$BUILD/tests/programs/sbt_gen_basic
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_tsinfo_damage.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# run CMD...: sets rc, leaves stdout in $tmp/out and stderr in $tmp/err
run() {
	set +e
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
}

T=$tmp/t.sbt
"$GEN" --records 3000 --threads 2 --frames 5 --chunk-bytes 2048 "$T" >"$tmp/manifest"
NREC=$(awk '$1 == "records" { print $2 }' "$tmp/manifest")
SIZE=$(wc -c <"$T")

# ---- clean ------------------------------------------------------------------
run "$TSINFO" --verify "$T"
[ $rc -eq 0 ] || fail "--verify on a clean trace: exit $rc: $(cat "$tmp/err")"
grep -Eq "^$T: ok: [0-9]+ chunks, $NREC records, checksums good\$" "$tmp/out" ||
	fail "--verify clean output: $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] || fail "--verify clean wrote to stderr"

# The chunk list: pick a records chunk in the middle of the file.
"$TSINFO" --chunks "$T" >"$tmp/chunks" || fail "--chunks exited $?"
NCHUNK=$(($(wc -l <"$tmp/chunks") - 1))
[ "$NCHUNK" -ge 10 ] || fail "only $NCHUNK chunks; the test wants many"
awk 'NR > 1 && $3 == "records" { print $2 }' "$tmp/chunks" >"$tmp/rec_offsets"
NRC=$(wc -l <"$tmp/rec_offsets")
MID=$(sed -n "$((NRC / 2))p" "$tmp/rec_offsets")
NEXT=$(awk -v m="$MID" 'NR > 1 && $2 > m { print $2; exit }' "$tmp/chunks")
[ -n "$MID" ] && [ -n "$NEXT" ] || fail "no middle records chunk in: $(cat "$tmp/chunks")"
# and the first blobs chunk (page data), which only --verify reads
BLOB=$(awk 'NR > 1 && $3 == "blobs" { print $2; exit }' "$tmp/chunks")
BLOB_NEXT=$(awk -v m="$BLOB" 'NR > 1 && $2 > m { print $2; exit }' "$tmp/chunks")
[ -n "$BLOB" ] && [ -n "$BLOB_NEXT" ] || fail "no blobs chunk in: $(cat "$tmp/chunks")"

flip() { # FILE POS...: xor the bytes at POS... with 0x5a
	python3 -c '
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for pos in sys.argv[2:]:
    b[int(pos)] ^= 0x5a
open(p, "wb").write(bytes(b))
' "$@"
}

# ---- a flipped byte in that chunk's payload (its last byte) -----------------
cp "$T" "$tmp/flip.sbt"
flip "$tmp/flip.sbt" $((NEXT - 1))
run "$TSINFO" --verify "$tmp/flip.sbt"
[ $rc -eq 1 ] || fail "--verify on a flipped byte: exit $rc, want 1"
grep -q "offset $MID" "$tmp/err" || fail "--verify does not name offset $MID: $(cat "$tmp/err")"
grep -q "problem(s) found" "$tmp/err" || fail "--verify has no verdict line"
# Every other chunk is fine: only the damaged chunk's offset is named.
for off in $(awk 'NR > 1 { print $2 }' "$tmp/chunks"); do
	[ "$off" = "$MID" ] && continue
	! grep -Eq "offset $off([^0-9]|\$)" "$tmp/err" || fail "--verify names undamaged chunk $off"
done
# Two damaged chunks: each offset is named, and nothing else.
cp "$T" "$tmp/flip2.sbt"
flip "$tmp/flip2.sbt" $((NEXT - 1)) $((BLOB_NEXT - 100))
run "$TSINFO" --verify "$tmp/flip2.sbt"
[ $rc -eq 1 ] || fail "--verify on two flipped bytes: exit $rc, want 1"
grep -q "offset $MID" "$tmp/err" || fail "--verify (2) does not name offset $MID: $(cat "$tmp/err")"
grep -q "offset $BLOB" "$tmp/err" || fail "--verify (2) does not name offset $BLOB: $(cat "$tmp/err")"
grep -q "^tsinfo: $tmp/flip2.sbt: 2 problem(s) found; damaged at offsets " "$tmp/err" || fail "--verify (2) count: $(cat "$tmp/err")"
# The summary and the dump say so too, with a non-zero exit, after what was readable.
run "$TSINFO" "$tmp/flip.sbt"
[ $rc -eq 1 ] || fail "summary of a corrupt trace: exit $rc, want 1"
grep -q "offset $MID" "$tmp/err" || fail "summary does not name offset $MID: $(cat "$tmp/err")"
run "$TSINFO" --dump "$tmp/flip.sbt"
[ $rc -eq 1 ] || fail "--dump of a corrupt trace: exit $rc, want 1"
grep -q "offset $MID" "$tmp/err" || fail "--dump does not name offset $MID: $(cat "$tmp/err")"
FIRST_BAD=$(awk -v m="$MID" 'NR > 1 && $2 == m { print $8 }' "$tmp/chunks")
[ "$(wc -l <"$tmp/out")" -eq $((FIRST_BAD - 1)) ] ||
	fail "--dump before the damage: $(wc -l <"$tmp/out") lines, want $((FIRST_BAD - 1))"
"$TSINFO" --dump --range ":$FIRST_BAD" "$T" | cmp -s - "$tmp/out" ||
	fail "records before the damage differ from the clean trace's"
# --salvage skips the damaged chunk and goes on.
run "$TSINFO" --salvage --dump "$tmp/flip.sbt"
[ "$(wc -l <"$tmp/out")" -gt $((FIRST_BAD - 1)) ] || fail "--salvage did not read past the damage"
tail -n 1 "$tmp/out" | grep -q "^seq=$NREC " || fail "--salvage did not reach the last record"

# ---- truncated in the middle of that chunk ----------------------------------
head -c $((MID + 10)) "$T" >"$tmp/cut.sbt"
run "$TSINFO" "$tmp/cut.sbt"
[ $rc -eq 0 ] || fail "summary of a truncated trace: exit $rc, want 0: $(cat "$tmp/err")"
grep -q "warning: .*torn tail.*$MID" "$tmp/err" || fail "no torn-tail warning naming $MID: $(cat "$tmp/err")"
[ "$(grep -o "torn tail" "$tmp/err" | wc -l)" -eq 1 ] || fail "torn tail said more than once: $(cat "$tmp/err")"
grep -Eq "^torn tail +dropped at offset $MID \([0-9]+ bytes\)$" "$tmp/out" || fail "summary torn tail line: $(grep "^torn tail" "$tmp/out")"
grep -Eq "^index +rebuilt by scanning\$" "$tmp/out" || fail "truncated: index should be rebuilt"
grep -Eq "^records +$((FIRST_BAD - 1)) \\(seq 1\\.\\.$((FIRST_BAD - 1))\\)\$" "$tmp/out" ||
	fail "truncated: records line: $(grep '^records' "$tmp/out")"
run "$TSINFO" --dump "$tmp/cut.sbt"
[ $rc -eq 0 ] || fail "--dump of a truncated trace: exit $rc"
"$TSINFO" --dump --range ":$FIRST_BAD" "$T" | cmp -s - "$tmp/out" || fail "truncated dump differs"
run "$TSINFO" --verify "$tmp/cut.sbt"
[ $rc -eq 1 ] || fail "--verify of a truncated trace: exit $rc, want 1"
grep -q "torn tail at offset $MID" "$tmp/err" || fail "--verify torn tail message: $(cat "$tmp/err")"
# Cut inside the file header: not a trace at all.
head -c 20 "$T" >"$tmp/stub.sbt"
run "$TSINFO" "$tmp/stub.sbt"
[ $rc -eq 1 ] || fail "20-byte file: exit $rc, want 1"
grep -q "$tmp/stub.sbt: " "$tmp/err" || fail "20-byte file: no message naming the file"

# ---- a capture that never closed: no index, no trailer ----------------------
"$GEN" --records 3000 --threads 2 --frames 5 --chunk-bytes 2048 --no-close "$tmp/open.sbt" >/dev/null
[ "$(wc -c <"$tmp/open.sbt")" -lt "$SIZE" ] || fail "--no-close file is not shorter"
run "$TSINFO" "$tmp/open.sbt"
[ $rc -eq 0 ] || fail "unclosed trace: exit $rc: $(cat "$tmp/err")"
grep -Eq "^index +rebuilt by scanning\$" "$tmp/out" || fail "unclosed: index line"
grep -Eq "^records +$NREC " "$tmp/out" || fail "unclosed: records line: $(grep '^records' "$tmp/out")"
run "$TSINFO" --verify "$tmp/open.sbt"
[ $rc -eq 0 ] || fail "--verify of an unclosed (but whole) trace: exit $rc: $(cat "$tmp/err")"
echo "ok"
