#!/bin/sh
# tsinfo --dump of cuda_driver_app captured on the libcuda double: the
# dst/src/host addresses are "0x..." strings in --json, the same values the
# text shows in decimal (scripts read those).
. "$TOP/tests/support/shell.sh"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT
CAP="$TOP/$BUILD/tscapture"
INFO="$TOP/$BUILD/tsinfo"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
export TSCUDA_DOUBLE_QUIET=1
LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	expect_rc 0 cucap "$CAP" -o "$T/cu.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_driver_app"
expect_rc 0 cudump "$INFO" --dump "$T/cu.sbt"
expect_rc 0 cujson "$INFO" --dump --json "$T/cu.sbt"
python3 - "$T/cujson.out" "$T/cudump.out" <<'PY' || fail "--dump --json: CUDA addresses not in hex"
import json, re, sys
text = {}
for line in open(sys.argv[2]):
    m = re.match(r"seq=(\d+) ", line)
    text[int(m.group(1))] = line
seen = set()
for r in map(json.loads, open(sys.argv[1])):
    if not r["name"].startswith("cuda."):
        continue
    for k in ("dst", "src", "host"):
        v = (r.get("args") or {}).get(k)
        if v is None:
            continue
        assert isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]{16}", v), (r["name"], k, v)
        # the same address the text shows in decimal
        assert " %s=%d" % (k, int(v, 16)) in text[r["seq"]], (r["seq"], k, v)
        seen.add((r["name"], k))
names = {n for n, _ in seen}
assert ("cuda.cuMemAlloc", "dst") in seen, seen
assert any(n.startswith("cuda.cuMemcpyHtoD") for n in names), seen
PY

# Every record of that trace and of the H100 fixtures parses as JSON with no
# key repeated in an object; a launch's params and layout, cut at 32 bytes,
# are {"hex": ..., "more_bytes": N} each (triton_add's both are longer).
for f in "$T/cu.sbt" "$TOP"/tests/fixtures/h100/*/*.sbt; do
	"$INFO" --dump --json "$f" >"$T/fx.json" || fail "tsinfo --dump --json $f"
	python3 - "$T/fx.json" "$f" <<'PY' || fail "--dump --json of $f: not JSON, or a key repeated"
import json, sys
def pairs(kv):
    keys = [k for k, _ in kv]
    assert len(keys) == len(set(keys)), keys
    return dict(kv)
recs = [json.loads(l, object_pairs_hook=pairs) for l in open(sys.argv[1])]
assert recs, sys.argv[2]
if sys.argv[2].endswith("triton_add.sbt"):
    cut = [r["args"][k] for r in recs if r["name"] == "cuda.cuLaunchKernel"
           for k in ("params", "layout") if isinstance(r["args"].get(k), dict)]
    assert cut and all(len(c["hex"]) == 64 and c["more_bytes"] > 0 for c in cut), cut
PY
done
