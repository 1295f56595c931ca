#!/bin/sh
# tsinfo on a trace whose contents are known: sbt_gen_basic writes it and
# prints a manifest of what it wrote; the summary, --json, --dump (text and
# JSON lines), --range and --stacks must agree with the manifest.  Also the
# command-line contract: --help, unknown flag, missing file, non-SBT file.
set -eu
BUILD=${BUILD:-build}
TSINFO=$BUILD/tsinfo
GEN=$BUILD/tests/programs/sbt_gen_basic
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_tsinfo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

T=$tmp/t.sbt
"$GEN" --records 5000 --threads 3 --frames 7 --chunk-bytes 4096 "$T" >"$tmp/manifest"
get() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/manifest"; }
NREC=$(get records)
LAST=$(get last_seq)
[ "$NREC" -gt 5000 ] || fail "generator wrote $NREC records"

# ---- summary ----------------------------------------------------------------
"$TSINFO" "$T" >"$tmp/sum" 2>"$tmp/err" || fail "summary exited $?"
[ ! -s "$tmp/err" ] || fail "summary of a clean trace wrote to stderr: $(cat "$tmp/err")"
grep -Eq "^records +$NREC \\(seq 1\\.\\.$LAST\\)\$" "$tmp/sum" || fail "records line wrong"
grep -Eq "^frames +$(get frames) \\(1-$(get frames)\\)\$" "$tmp/sum" || fail "frames line wrong"
grep -Eq "^keyframes +$(get keyframes)\$" "$tmp/sum" || fail "keyframes line wrong"
grep -Eq "^stacks +$(get stacks)\$" "$tmp/sum" || fail "stacks line wrong"
grep -Eq "^index +found \\(trailer\\)\$" "$tmp/sum" || fail "index line wrong"
grep -Eq "^torn tail +none\$" "$tmp/sum" || fail "torn tail line wrong"
grep -Eq "^version +1\\.0 " "$tmp/sum" || fail "version line wrong"
grep -Eq "^trace id +[0-9a-f]{32}\$" "$tmp/sum" || fail "trace id line wrong"
grep -Eq "^started +20[0-9]{2}-[0-9]{2}-[0-9]{2} " "$tmp/sum" || fail "start time line wrong"
grep -Eq "^  capture\\.stalls = 0\$" "$tmp/sum" || fail "metadata capture.stalls missing"
# blobs: two puts of the same 200000 bytes -> 400000 logical
grep -Eq "^blobs +2: 390\\.6 KiB before dedup, 195\\.3 KiB after" "$tmp/sum" ||
	fail "blob line wrong: $(grep '^blobs' "$tmp/sum")"
# per type, per API group, per thread: exactly the generator's counts
alpha=0
beta=0
core=0
while read -r kind a b c; do
	case $kind in
	type)
		grep -Eq "^    $a +$b\$" "$tmp/sum" || fail "type $a: want $b records: $(grep " $a " "$tmp/sum")"
		case $a in
		fake.*) alpha=$((alpha + b)) ;;
		other.*) beta=$((beta + b)) ;;
		*) core=$((core + b)) ;;
		esac
		;;
	thread)
		grep -Eq "^  $a +$c records  $b\$" "$tmp/sum" || fail "thread $a ($b): want $c records"
		;;
	esac
done <"$tmp/manifest"
grep -Eq "^  fake +$alpha\$" "$tmp/sum" || fail "API fake total: want $alpha"
grep -Eq "^  other +$beta\$" "$tmp/sum" || fail "API other total: want $beta"
grep -Eq "^  core +$core\$" "$tmp/sum" || fail "core total: want $core"

# ---- summary as JSON --------------------------------------------------------
"$TSINFO" --json "$T" >"$tmp/sum.json" || fail "--json exited $?"
python3 -m json.tool "$tmp/sum.json" >/dev/null || fail "--json summary is not JSON"
python3 - "$tmp/sum.json" "$tmp/manifest" <<'EOF' || fail "--json summary disagrees with the manifest"
import json, sys
s = json.load(open(sys.argv[1]))
want_types, want_threads, m = {}, {}, {}
for line in open(sys.argv[2]):
    w = line.split()
    if w[0] == "type":
        want_types[w[1]] = int(w[2])
    elif w[0] == "thread":
        want_threads[int(w[1])] = (w[2], int(w[3]))
    elif w[0] != "meta":
        m[w[0]] = int(w[1])
got_types = {t["name"]: t["records"] for t in s["types"]}
assert got_types == want_types, (got_types, want_types)
got_threads = {t["thread"]: (t["name"], t["records"]) for t in s["threads"]}
assert got_threads == want_threads, (got_threads, want_threads)
assert s["records"] == m["records"] and s["last_seq"] == m["last_seq"]
assert s["frames"] == m["frames"] and s["keyframes"] == m["keyframes"]
assert s["has_index"] is True and s["torn_tail"] is None and s["damage"] is None
assert s["meta"]["capture.stalls"] == "0" and s["meta"]["generator"] == "sbt_gen_basic"
assert s["blobs"]["bytes_logical"] == 400000, s["blobs"]
EOF

# ---- --dump -----------------------------------------------------------------
"$TSINFO" --dump "$T" >"$tmp/dump" || fail "--dump exited $?"
[ "$(wc -l <"$tmp/dump")" -eq "$NREC" ] || fail "--dump: $(wc -l <"$tmp/dump") lines, want $NREC"
head -n 1 "$tmp/dump" | grep -Eq '^seq=1 t=0\.000001007 tid=1000 ' || fail "first dump line: $(head -n 1 "$tmp/dump")"
tail -n 1 "$tmp/dump" | grep -Eq "^seq=$LAST " || fail "last dump line: $(tail -n 1 "$tmp/dump")"
grep -q ' THREAD name="worker-2"$' "$tmp/dump" || fail "THREAD record not decoded"
grep -q ' NOTE text="generated \\"trace\\"\\twith\\nescapes"$' "$tmp/dump" || fail "NOTE not decoded/escaped"
grep -q ' UNMODELED call="fakeUnmodeledCall"$' "$tmp/dump" || fail "UNMODELED not decoded"
grep -q ' KEYFRAME len=2 hex=6b66$' "$tmp/dump" || fail "KEYFRAME not shown"
[ "$(grep -c ' FRAME frame=' "$tmp/dump")" -eq "$(get frames)" ] || fail "FRAME count"
grep -q " FRAME frame=$(get frames)\$" "$tmp/dump" || fail "last FRAME number"
[ "$(grep -c ' CHECKPOINT call_seq=[0-9]* object=0x' "$tmp/dump")" -eq "$(get frames)" ] ||
	fail "CHECKPOINT records not decoded"
# API types have no codec here: length and leading bytes; record 0 of the
# loop has an empty payload and a stack, record 2 has bytes 02 03
grep -Eq ' fake\.alpha len=0 stack=1$' "$tmp/dump" || fail "empty payload with stack"
grep -Eq ' other\.gamma len=2 hex=0203$' "$tmp/dump" || fail "raw payload hex"
grep -Eq ' len=39 hex=([0-9a-f]{2}){16}\.\.\(\+23\)' "$tmp/dump" || fail "long payload cut"

# ---- --range (half-open, as tsreplay) ----------------------------------------
"$TSINFO" --range 100:200 "$T" >"$tmp/r1" || fail "--range exited $?"
[ "$(wc -l <"$tmp/r1")" -eq 100 ] || fail "--range 100:200 gave $(wc -l <"$tmp/r1") lines"
head -n 1 "$tmp/r1" | grep -q '^seq=100 ' || fail "--range first line"
tail -n 1 "$tmp/r1" | grep -q '^seq=199 ' || fail "--range last line"
[ "$("$TSINFO" --dump --range :5 "$T" | wc -l)" -eq 4 ] || fail "--range :5"
[ "$("$TSINFO" --dump --range "$((LAST - 9)):" "$T" | wc -l)" -eq 10 ] || fail "--range A:"
[ "$("$TSINFO" --dump --range 7:7 "$T" | wc -l)" -eq 0 ] || fail "--range 7:7 not empty"
for bad in 5:3 abc 1:2:3 : -1:4 1x:; do
	set +e
	"$TSINFO" --range "$bad" "$T" >/dev/null 2>"$tmp/err"
	rc=$?
	set -e
	[ $rc -eq 2 ] || fail "--range $bad: exit $rc, want 2"
	grep -q "bad --range '$bad'" "$tmp/err" || fail "--range $bad: message: $(cat "$tmp/err")"
done

# ---- --dump --json ----------------------------------------------------------
"$TSINFO" --dump --json "$T" >"$tmp/dump.jsonl" || fail "--dump --json exited $?"
python3 -m json.tool --json-lines "$tmp/dump.jsonl" >/dev/null || fail "--dump --json is not JSON lines"
python3 - "$tmp/dump.jsonl" "$tmp/manifest" <<'EOF' || fail "--dump --json fields wrong"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
m = {}
types = {}
for line in open(sys.argv[2]):
    w = line.split()
    if w[0] == "type":
        types[w[1]] = int(w[2])
    elif w[0] not in ("thread", "meta"):
        m[w[0]] = int(w[1])
assert len(recs) == m["records"]
assert [r["seq"] for r in recs] == list(range(1, m["last_seq"] + 1))
for r in recs:
    for k in ("seq", "time_ns", "thread", "type", "name", "stack", "payload_len"):
        assert k in r, (k, r)
    assert r["time_ns"] == 1000 * r["seq"] + 7
    assert 1000 <= r["thread"] < 1003
counts = {}
for r in recs:
    counts[r["name"]] = counts.get(r["name"], 0) + 1
assert counts == types, (counts, types)
frames = [r["args"]["frame"] for r in recs if r["name"] == "FRAME"]
assert frames == list(range(1, m["frames"] + 1)), frames
names = sorted(r["args"]["name"] for r in recs if r["name"] == "THREAD")
assert names == ["worker-0", "worker-1", "worker-2"], names
note = [r for r in recs if r["name"] == "NOTE"][0]
assert note["args"]["text"] == 'generated "trace"\twith\nescapes'
raw = [r for r in recs if r["name"] == "other.gamma" and r["payload_len"] == 2][0]
assert raw["payload_hex"] == "0203" and "args" not in raw
cps = [r for r in recs if r["name"] == "CHECKPOINT"]
assert all(r["args"]["call_seq"] == r["seq"] - 1 for r in cps)
EOF

# ---- --stacks ---------------------------------------------------------------
"$TSINFO" --stacks --range 1:200 "$T" >"$tmp/st" || fail "--stacks exited $?"
grep -A3 ' stack=1$' "$tmp/st" | grep -Eq '^    #0  0x00007f0000001000 libfake\.so!fake_submit\+0x1c$' ||
	fail "stack 1 frame 0 not symbolized: $(grep -A3 ' stack=1$' "$tmp/st" | head -n 4)"
grep -A3 ' stack=1$' "$tmp/st" | grep -Eq '^    #2  0x0000000000400000 \?$' || fail "unsymbolized frame"
grep -A2 ' stack=2$' "$tmp/st" | grep -Eq '^    #0  0x0000000000400040 app!main\+0x40$' || fail "stack 2"
"$TSINFO" --dump --json --stacks --range 1:50 "$T" | python3 -c '
import json, sys
rs = [json.loads(l) for l in sys.stdin]
s = [r for r in rs if r["stack"] == 1][0]
assert s["frames"][0] == {"ip": "0x7f0000001000", "symbol": "libfake.so!fake_submit+0x1c"}, s
assert s["frames"][2] == {"ip": "0x400000"}, s
' || fail "--json --stacks frames"

# ---- command line -----------------------------------------------------------
"$TSINFO" --help >"$tmp/help" || fail "--help exited $?"
[ "$(wc -l <"$tmp/help")" -le 24 ] || fail "--help is longer than a screen"
grep -q -- '--verify' "$tmp/help" || fail "--help does not mention --verify"
set +e
"$TSINFO" --bogus "$T" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown flag: exit $rc, want 2"
# One line and where to look, not the whole help.
[ "$(cat "$tmp/err")" = "tsinfo: unknown option '--bogus'
try 'tsinfo --help'" ] || fail "unknown flag message: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "unknown flag wrote to stdout"
set +e
"$TSINFO" --s "$T" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "ambiguous flag: exit $rc, want 2"
grep -q "tsinfo: option '--s' is ambiguous: give more of its name" "$tmp/err" ||
	fail "ambiguous flag message: $(cat "$tmp/err")"
# getopt_long: an unambiguous start stands for the option; the trace may come first
"$TSINFO" "$T" --ra=1:3 >"$tmp/out" || fail "--ra=1:3 exited $?"
[ "$(wc -l <"$tmp/out")" -eq 2 ] || fail "--ra=1:3 gave $(wc -l <"$tmp/out") lines"
set +e
"$TSINFO" --json=1 "$T" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "tsinfo: --json takes no value" "$tmp/err" ||
	fail "--json=1: exit $rc: $(cat "$tmp/err")"
set +e
"$TSINFO" "$tmp/nonexistent.sbt" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "missing file: exit $rc, want 1"
grep -q "cannot open '$tmp/nonexistent.sbt': No such file or directory" "$tmp/err" ||
	fail "missing file message: $(cat "$tmp/err")"
printf 'just some text, not a trace\n' >"$tmp/text.sbt"
set +e
"$TSINFO" "$tmp/text.sbt" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ] || fail "non-SBT file: exit $rc, want 1"
grep -q "$tmp/text.sbt: not an SBT trace" "$tmp/err" || fail "non-SBT message: $(cat "$tmp/err")"
set +e
"$TSINFO" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "no file: exit $rc, want 2"
echo "ok"
