#!/bin/sh
# tsinfo --dump of a real capture: what the decoded fields look like.
#   - vk_compute on lavapipe: vkCreateShaderModule shows pCode as a blob
#     reference whose size is the shader's and whose xxh64 is xxhsum's of
#     the bytes tsinfo --extract writes; the same in --json as an object;
#   - --json: absent pointers are JSON null, not the string "NULL"; the
#     application's API version as "1.1.0"; handles as {"id":"VkBuffer#N",
#     "raw":"0x..."}, one id per object in every record that names it,
#     while text keeps the raw hex; flags as {"bits":[names],"raw":"0x..."};
#     vk_offscreen's image format by name;
#   - --json nests: structures are objects and arrays are arrays
#     (vkCreateGraphicsPipelines: pCreateInfos[].pStages[]), no dotted key.
# (CUDA records: test_tsinfo_dump_cuda.sh.)
. "$TOP/tests/support/shell.sh"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT
CAP="$TOP/$BUILD/tscapture"
INFO="$TOP/$BUILD/tsinfo"

. "$TOP/tests/support/vk_env.sh"
vk_env_init
unset VK_ADD_LAYER_PATH XDG_DATA_DIRS
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_INSTANCE_LAYERS
expect_rc 0 vkcap "$CAP" -o "$T/vk.sbt" -- "$TOP/$BUILD/tests/programs/vk_compute"
vk_env_clean "$T/vkcap.out" || fail "validation messages under tscapture"
expect_rc 0 vkex "$INFO" --extract "$T/vkx" "$T/vk.sbt"
expect_rc 0 dump "$INFO" --dump "$T/vk.sbt"
expect_rc 0 json "$INFO" --dump --json "$T/vk.sbt"

# ---- text: pCode=<blob ID: LEN bytes xxh64 HASH> ------------------------------------------
grep ' vulkan.vkCreateShaderModule ' "$T/dump.out" >"$T/sm" || fail "no vkCreateShaderModule in the dump"
grep -q 'pCode=NULL' "$T/sm" && fail "a shader's code still shows as NULL: $(grep pCode=NULL "$T/sm" | head -n 1)"
n=0
while read -r line; do
	seq=${line%% *}
	seq=${seq#seq=}
	f="$T/vkx/shader-$seq.spv"
	[ -f "$f" ] || fail "tsinfo --extract wrote no $f"
	size=$(wc -c <"$f")
	hash=$(xxhsum -H64 "$f" | cut -d' ' -f1)
	hash=${hash#XXH64_}
	case "$line" in
	*" pCreateInfo.pCode=<blob "[0-9]*": $size bytes xxh64 $hash>"*) ;;
	*) fail "seq $seq: want pCode=<blob N: $size bytes xxh64 $hash>, line: $line" ;;
	esac
	n=$((n + 1))
done <"$T/sm"
[ "$n" -ge 1 ] || fail "no shader module checked"

# ---- JSON: {"blob":ID,"size":LEN,"xxh64":HASH}; null for absent pointers --------------------
python3 - "$T/json.out" "$T/vkx" <<'PY' || fail "--dump --json: blob references or nulls wrong"
import json, os, subprocess, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
checked = 0
for r in recs:
    if r["name"] != "vulkan.vkCreateShaderModule":
        continue
    ref = r["args"]["pCreateInfo"]["pCode"]
    f = os.path.join(sys.argv[2], "shader-%d.spv" % r["seq"])
    h = subprocess.run(["xxhsum", "-H64", f], capture_output=True, text=True,
                       check=True).stdout.split()[0]
    assert ref["size"] == os.path.getsize(f), (ref, f)
    assert h.endswith(ref["xxh64"]) and len(ref["xxh64"]) == 16, (ref, h)
    assert isinstance(ref["blob"], int) and ref["blob"] > 0, ref
    checked += 1
assert checked >= 1, "no vkCreateShaderModule"
def leaves(v):
    if isinstance(v, dict):
        for x in v.values():
            yield from leaves(x)
    elif isinstance(v, list):
        for x in v:
            yield from leaves(x)
    else:
        yield v
values = [v for r in recs for v in leaves(r.get("args") or {})]
assert None in values, "no absent pointer shown as null"
assert "NULL" not in values, "an absent pointer shown as the string NULL"

# the API version vk_compute asks for (VK_API_VERSION_1_1)
inst = [r for r in recs if r["name"] == "vulkan.vkCreateInstance"]
assert inst and inst[0]["args"]["pCreateInfo"]["pApplicationInfo"]["apiVersion"] == "1.1.0", inst[:1]

# handles: the buffer vkCreateBuffer made is the one vkBindBufferMemory binds
created = {}
for r in recs:
    if r["name"] == "vulkan.vkCreateBuffer":
        h = r["args"]["pBuffer"]
        assert h["id"].startswith("VkBuffer#") and h["raw"].startswith("0x"), h
        assert h["raw"] not in created, ("two ids for one value", h)
        created[h["raw"]] = h["id"]
assert len(created) >= 2, created
assert len(set(created.values())) == len(created), created
bound = 0
for r in recs:
    if r["name"] == "vulkan.vkBindBufferMemory":
        h = r["args"]["buffer"]
        assert created.get(h["raw"]) == h["id"], (h, created)
        assert r["args"]["device"]["id"] == "VkDevice#1", r["args"]["device"]
        bound += 1
assert bound == len(created), (bound, created)

# flags: the names of the bits set, and the raw value
for r in recs:
    if r["name"] == "vulkan.vkCreateBuffer":
        u = r["args"]["pCreateInfo"]["usage"]
        raw = int(u["raw"], 16)
        assert u["bits"] and all(b.startswith("VK_BUFFER_USAGE_") for b in u["bits"]), u
        if raw == 0x21:
            assert u["bits"] == ["VK_BUFFER_USAGE_TRANSFER_SRC_BIT",
                                 "VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"], u
PY
# text keeps handles in hex
grep -m1 ' vulkan.vkBindBufferMemory ' "$T/dump.out" | grep -Eq ' buffer=0x[0-9a-f]{16} ' ||
	fail "text dump: buffer not in hex: $(grep -m1 ' vulkan.vkBindBufferMemory ' "$T/dump.out")"

# ---- enum values by their vk.xml names --------------------------------------------------------
expect_rc 0 offcap "$CAP" -o "$T/off.sbt" -- "$TOP/$BUILD/tests/programs/vk_offscreen" --frames 1
vk_env_clean "$T/offcap.out" || fail "validation messages under tscapture (vk_offscreen)"
expect_rc 0 offjson "$INFO" --dump --json "$T/off.sbt"
python3 - "$T/offjson.out" <<'PY' || fail "--dump --json: vk_offscreen's image format not by name"
import json, sys
fmts = [r["args"]["pCreateInfo"]["format"] for r in map(json.loads, open(sys.argv[1]))
        if r["name"] == "vulkan.vkCreateImage"]
assert "VK_FORMAT_R8G8B8A8_UNORM" in fmts, fmts
PY

# ---- nesting: structures are objects, arrays are arrays ------------------------------------
# vk_offscreen's vkCreateGraphicsPipelines: pCreateInfos an array of objects,
# each with its pStages an array of objects naming their stage and module,
# and its nested state structures objects of their own.
python3 - "$T/offjson.out" <<'PY' || fail "--dump --json: vkCreateGraphicsPipelines not nested"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
gp = [r for r in recs if r["name"] == "vulkan.vkCreateGraphicsPipelines"]
assert gp, "no vkCreateGraphicsPipelines in vk_offscreen's trace"
a = gp[0]["args"]
assert not any("." in k or "[" in k for k in a), sorted(a)
cis = a["pCreateInfos"]
assert isinstance(cis, list) and len(cis) == a["createInfoCount"] >= 1, cis
ci = cis[0]
assert isinstance(ci, dict) and isinstance(ci["pRasterizationState"], dict), ci
stages = ci["pStages"]
assert isinstance(stages, list) and len(stages) == ci["stageCount"] >= 2, stages
assert [s["stage"]["bits"] for s in stages] == [["VK_SHADER_STAGE_VERTEX_BIT"],
                                               ["VK_SHADER_STAGE_FRAGMENT_BIT"]], stages
assert all(s["module"]["id"].startswith("VkShaderModule#") and s["pName"] == "main"
           for s in stages), stages
assert isinstance(ci["pViewportState"], dict), ci["pViewportState"]
assert isinstance(a["pPipelines"], list) and a["pPipelines"][0]["id"].startswith("VkPipeline#"), a
# no key anywhere keeps a path
def keys(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from keys(x)
    elif isinstance(v, list):
        for x in v:
            yield from keys(x)
bad = [(r["seq"], k) for r in recs for k in keys(r.get("args") or {}) if "." in k or "[" in k]
assert not bad, bad[:5]
PY
# no object anywhere repeats a key, in either trace
for f in json offjson; do
	python3 - "$T/$f.out" <<'PY' || fail "--dump --json ($f): a key repeated in an object"
import json, sys
def pairs(kv):
    keys = [k for k, _ in kv]
    assert len(keys) == len(set(keys)), keys
    return dict(kv)
for line in open(sys.argv[1]):
    json.loads(line, object_pairs_hook=pairs)
PY
done


# ---- --elements: how many elements of each array the dump shows -------------
# (viewportBoundsRange, 2 elements, in vkGetPhysicalDeviceProperties' limits)
grep -q 'viewportBoundsRange\[1\]=' "$T/dump.out" || fail "text dump: the 2 elements of viewportBoundsRange are not both shown"
grep -q '"viewportBoundsRange":\[[^],]*,[^]]*\]' "$T/json.out" ||
	fail "--json: viewportBoundsRange does not hold both its elements"
expect_rc 0 el1 "$INFO" --dump --elements 1 "$T/vk.sbt"
grep -q 'viewportBoundsRange\.count=2 [^ ]*viewportBoundsRange\[0\]=' "$T/el1.out" ||
	fail "--elements 1: $(grep -o 'viewportBoundsRange[^ ]*' "$T/el1.out" | head -n 3)"
grep -q 'viewportBoundsRange\[1\]=' "$T/el1.out" && fail "--elements 1 shows a second element"
expect_rc 0 el1j "$INFO" --dump --json --elements 1 "$T/vk.sbt"
grep -q '"viewportBoundsRange":\[[^],]*\],"viewportBoundsRange_more_elements":1' "$T/el1j.out" ||
	fail "--json --elements 1: $(grep -o '"viewportBoundsRange[^]]*][^,]*,[^,]*' "$T/el1j.out" | head -n 1)"
expect_rc 0 elall "$INFO" --dump --elements all "$T/vk.sbt"
# memoryHeaps is a fixed array of VK_MAX_MEMORY_HEAPS (16): text shows 8 by
# default, all 16 with --elements all (as --json does by default)
grep -q 'memoryHeaps\[7\]\.size=' "$T/dump.out" && ! grep -q 'memoryHeaps\[8\]' "$T/dump.out" ||
	fail "text dump: memoryHeaps not cut at 8 elements"
grep -q 'memoryHeaps\[15\]\.size=' "$T/elall.out" || fail "--elements all: memoryHeaps cut"
python3 - "$T/json.out" <<'PY' || fail "--json: memoryHeaps does not hold its 16 elements"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["name"] == "vulkan.vkGetPhysicalDeviceMemoryProperties":
        assert len(r["args"]["pMemoryProperties"]["memoryHeaps"]) == 16, r["args"]
        break
else:
    raise SystemExit("no vkGetPhysicalDeviceMemoryProperties")
PY
expect_rc 2 el0 "$INFO" --dump --elements 0 "$T/vk.sbt"
grep -q "bad --elements '0'" "$T/el0.err" || fail "--elements 0: $(cat "$T/el0.err")"
expect_rc 2 elnodump "$INFO" --elements 3 "$T/vk.sbt"
grep -q -- "--elements goes with --dump" "$T/elnodump.err" || fail "--elements alone: $(cat "$T/elnodump.err")"
