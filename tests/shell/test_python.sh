#!/bin/sh
# libtracesmith.so.1 and the Python package on it (docs/python.md):
# - the library's soname, and its exports: exactly the functions that
#   include/tracesmith/sbt.h and sbt_json.h declare; the C example of
#   docs/python.md built against them prints what tsinfo --dump --json does;
# - `import tracesmith` (python/) on a trace sbt_gen_basic writes and on
#   vk_compute captured by tscapture: record count, sequence range, records
#   per type name and per thread, metadata and keyframes equal to what
#   `tsinfo --json` reports; every record's decoded fields and a record's
#   stack equal to `tsinfo --dump --json --stacks`; records from a
#   sequence number on; a second iteration ends the first;
# - to_dataframe(): one row per record, in order, the same counts per name,
#   integer columns (python3-pandas, from scripts/deps.sh; a sanitizer
#   build's library is loaded with its runtime preloaded: tests/support/python.sh);
# - errors: a missing file and a file that is not a trace raise TraceError
#   with the status and the path; a library that cannot be found says how
#   to build it.
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/support/python.sh"
INFO="$TOP/$BUILD/tsinfo"
SO=$TS_SO
[ -f "$SO" ] || fail "no $SO (make $BUILD/lib/libtracesmith.so.1)"
[ -L "${SO%.1}" ] || fail "no link ${SO%.1}"

# ---- the library ------------------------------------------------------------------
readelf -d "$SO" | grep -q 'Library soname: \[libtracesmith.so.1\]' || fail "soname: $(readelf -d "$SO" | grep SONAME)"
grep -ohE '\bsbt_[a-z0-9_]+\(' "$TOP/include/tracesmith/sbt.h" "$TOP/include/tracesmith/sbt_json.h" |
	tr -d '(' | sort -u >"$T/declared"
nm -D --defined-only "$SO" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$T/exported"
diff "$T/declared" "$T/exported" >"$T/exports.diff" ||
	fail "libtracesmith.so.1 exports differ from the public headers (< declared only, > exported only): $(cat "$T/exports.diff")"
[ "$(wc -l <"$T/declared")" -ge 40 ] || fail "only $(wc -l <"$T/declared") functions found in the headers"

# ---- a Python with pandas -------------------------------------------------------------
ts_pandas || fail "$TS_PY cannot import pandas: install python3-pandas (scripts/deps.sh)"

# ---- traces -------------------------------------------------------------------------------
"$TOP/$BUILD/tests/programs/sbt_gen_basic" --records 3000 --threads 3 --frames 5 "$T/basic.sbt" >/dev/null ||
	fail "sbt_gen_basic"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
unset VK_ADD_LAYER_PATH XDG_DATA_DIRS VK_INSTANCE_LAYERS
expect_rc 0 vkcap "$TOP/$BUILD/tscapture" -o "$T/vk.sbt" -- "$TOP/$BUILD/tests/programs/vk_compute" --size 1024 --submits 2

# the C example of docs/python.md, built against the headers and the
# library, prints what tsinfo --dump --json prints
awk '/^```c$/ { f = 1; next } /^```$/ { f = 0 } f' "$TOP/docs/python.md" >"$T/app.c"
[ -s "$T/app.c" ] || fail "no C example in docs/python.md"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$TOP/include" "$T/app.c" -L"${SO%/*}" -ltracesmith \
	-Wl,-rpath,"${SO%/*}" -o "$T/app" || fail "the C example of docs/python.md does not build"
expect_rc 0 app.vk ts_run "$T/app" "$T/vk.sbt"
expect_rc 0 vk.jsonl "$INFO" --dump --json "$T/vk.sbt"
cmp -s "$T/app.vk.out" "$T/vk.jsonl.out" || fail "the C example's output differs from tsinfo --dump --json"
expect_rc 1 app.missing ts_run "$T/app" "$T/missing.sbt"

cat >"$T/check.py" <<'EOF'
import collections, json, sys
import tracesmith

path, summary, dump = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.load(open(summary))
lines = [json.loads(l) for l in open(dump)]
with tracesmith.open(path) as t:
    recs = list(t)
    assert len(recs) == s["records"] == t.info["record_count"], (len(recs), s["records"])
    assert (recs[0].seq, recs[-1].seq) == (s["first_seq"], s["last_seq"])
    assert [r.seq for r in recs] == sorted(r.seq for r in recs)
    by_name = collections.Counter(r.name for r in recs)
    want = {x["name"] or "type#%d" % x["type"]: x["records"] for x in s["types"]}
    got = {n or "type#%d" % next(r.type for r in recs if r.name == n): c for n, c in by_name.items()}
    assert got == want, (got, want)
    apis = collections.Counter(r.api for r in recs)
    want_api = collections.Counter()
    for x in s["types"]:
        want_api[x["api"]] += x["records"]
    assert apis == want_api, (apis, want_api)
    threads = collections.Counter(r.thread for r in recs)
    assert threads == {x["thread"]: x["records"] for x in s["threads"]}, threads
    assert t.meta == s["meta"], (t.meta, s["meta"])
    assert len(t.keyframes()) == s["keyframes"] == t.info["keyframe_count"]
    assert t.info["trace_id"] == s["trace_id"] and t.info["version"] == s["version"]
    # decoded fields and stacks, record by record, as tsinfo --dump --json shows them
    assert len(lines) == len(recs)
    stacked = 0
    for r, l in zip(recs, lines):
        assert (r.seq, r.time_ns, r.thread, r.type) == (l["seq"], l["time_ns"], l["thread"], l["type"]), (r, l)
        assert len(r.payload) == l["payload_len"], (r, l)
        assert r.fields == l.get("args"), (r.seq, r.fields, l.get("args"))
        want_frames = [(int(f["ip"], 16), f.get("symbol")) for f in l.get("frames", [])]
        assert r.stack == want_frames, (r.seq, r.stack, want_frames)
        stacked += bool(r.stack)
    assert stacked, "no record has a stack"
    df = t.to_dataframe(fields=True)
    assert len(df) == len(recs) and list(df["seq"]) == [r.seq for r in recs]
    assert df.groupby("name").size().to_dict() == dict(by_name)
    assert str(df["seq"].dtype) == "uint64" and str(df["type"].dtype) == "uint32", df.dtypes
    assert list(df["fields"]) == [r.fields for r in recs]
    # from a sequence number on; one read position per trace
    mid = recs[len(recs) // 2].seq
    assert [r.seq for r in t.records(start_seq=mid)] == [r.seq for r in recs if r.seq >= mid]
    first, second = t.records(), t.records()
    next(first)
    next(second)
    try:
        next(first)
    except RuntimeError as e:
        assert "another iteration" in str(e), e
    else:
        raise AssertionError("two iterations went on at once")
    print("%s: %d records, %d types, %d threads, %d with stacks" % (
        path, len(recs), len(by_name), len(threads), stacked))
EOF
for tr in basic vk; do
	expect_rc 0 "$tr.sum" "$INFO" --json "$T/$tr.sbt"
	expect_rc 0 "$tr.dump" "$INFO" --dump --json --stacks "$T/$tr.sbt"
	expect_rc 0 "$tr.py" ts_python "$T/check.py" "$T/$tr.sbt" "$T/$tr.sum.out" "$T/$tr.dump.out"
	has "$tr.py" out "$T/$tr.sbt: "
done
# Vulkan calls decode to their parameters
expect_rc 0 vk.fields ts_python -c "
import tracesmith, sys
with tracesmith.open(sys.argv[1]) as t:
    a = [r.fields for r in t if r.name == 'vulkan.vkAllocateMemory']
    assert a and all(f['pAllocateInfo']['allocationSize'] > 0 and f['ret'] == 'VK_SUCCESS' for f in a), a
    print(len(a), t.meta['api'])" "$T/vk.sbt"
grep -q ' vulkan$' "$T/vk.fields.out" || fail "vk.fields: $(cat "$T/vk.fields.out")"

# ---- errors ---------------------------------------------------------------------------
cat >"$T/errors.py" <<'EOF'
import sys, tracesmith
for path, status in ((sys.argv[1], "SBT_ERR_IO"), (sys.argv[2], "SBT_ERR_NOT_SBT")):
    try:
        tracesmith.open(path)
    except tracesmith.TraceError as e:
        assert e.status == status and path in str(e), (e.status, str(e))
        print(e)
    else:
        raise AssertionError("opened " + path)
EOF
echo "not a trace" >"$T/text.sbt"
expect_rc 0 errors ts_python "$T/errors.py" "$T/missing.sbt" "$T/text.sbt"
has errors out "missing.sbt: no such file"
expect_rc 1 nolib env PYTHONPATH="$TOP/python" PYTHONDONTWRITEBYTECODE=1 \
	TRACESMITH_LIB="$T/nowhere/libtracesmith.so.1" "$TS_PY" -c "import tracesmith; tracesmith.open('$T/basic.sbt')"
has nolib err "tracesmith: cannot load $T/nowhere/libtracesmith.so.1"
has nolib err "build it with make, or set TRACESMITH_LIB"
echo "python: ok"
