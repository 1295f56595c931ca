#!/bin/sh
# tsinfo --extract DIR TRACE: the bytes a trace carries as files.
#   - vk_compute on lavapipe: one valid SPIR-V file (spirv-val) per
#     vkCreateShaderModule, the mapped-memory writes (one file per
#     tsMemoryWrite and per run of a tsMemoryWrites), index.json listing
#     every file with its size and an xxh64 equal to the file's;
#   - cuda_driver_app on the libcuda double: the module image byte for byte
#     what the program loaded, one upload per host->device copy;
#   - --extract onto a file, or with --dump: exit 2 and a message.
. "$TOP/tests/support/shell.sh"
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT
CAP="$TOP/$BUILD/tscapture"
INFO="$TOP/$BUILD/tsinfo"

# check_index DIR: every file listed exists with the size and xxh64 given,
# and every file but index.json is listed.
check_index() {
	python3 - "$1" <<'PY' || fail "$1/index.json does not describe the files"
import json, os, subprocess, sys
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "index.json")))
listed = set()
for e in idx["files"]:
    p = os.path.join(d, e["file"])
    assert os.path.getsize(p) == e["size"], e
    h = subprocess.run(["xxhsum", "-H64", p], capture_output=True, text=True).stdout.split()[0]
    assert h.endswith(e["xxh64"]) or e["xxh64"].endswith(h), (e, h)
    listed.add(e["file"])
assert listed == set(os.listdir(d)) - {"index.json"}, (listed, os.listdir(d))
PY
}

# ---- Vulkan ------------------------------------------------------------------------------
. "$TOP/tests/support/vk_env.sh"
vk_env_init
unset VK_ADD_LAYER_PATH XDG_DATA_DIRS
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_INSTANCE_LAYERS
expect_rc 0 vkcap "$CAP" -o "$T/vk.sbt" -- "$TOP/$BUILD/tests/programs/vk_compute"
vk_env_clean "$T/vkcap.out" || fail "validation messages under tscapture"
expect_rc 0 vkex "$INFO" --extract "$T/vkx" "$T/vk.sbt"
"$INFO" --dump "$T/vk.sbt" >"$T/vk.dump"
nsm=$(grep -c ' vulkan.vkCreateShaderModule ' "$T/vk.dump")
nmw=$(grep -c ' vulkan.tsMemoryWrite ' "$T/vk.dump")
[ "$nsm" -ge 1 ] || fail "vk_compute created no shader module?"
[ "$(ls "$T/vkx" | grep -c '^shader-[0-9]*\.spv$')" -eq "$nsm" ] ||
	fail "$nsm shader modules, files: $(ls "$T/vkx")"
[ "$(ls "$T/vkx" | grep -c '^memwrite-[0-9]*\.bin$')" -eq "$nmw" ] ||
	fail "$nmw memory writes, files: $(ls "$T/vkx")"
# a tsMemoryWrites gives one file per run
nrun=$(grep ' vulkan.tsMemoryWrites ' "$T/vk.dump" | sed 's/.* runs=\([0-9]*\) .*/\1/' |
	awk '{ n += $1 } END { print n + 0 }')
[ "$nrun" -ge 1 ] || fail "vk_compute's trace holds no vulkan.tsMemoryWrites run"
[ "$(ls "$T/vkx" | grep -c '^memwrite-[0-9]*-[0-9]*\.bin$')" -eq "$nrun" ] ||
	fail "$nrun runs of memory writes, files: $(ls "$T/vkx")"
for f in "$T"/vkx/shader-*.spv; do
	spirv-val "$f" >"$T/val.out" 2>&1 || fail "$f is not valid SPIR-V: $(cat "$T/val.out")"
done
check_index "$T/vkx"
nub=$(grep -c ' vulkan.vkCmdUpdateBuffer ' "$T/vk.dump")
has vkex out "tsinfo: extracted $((nsm + nmw + nrun + nub)) files"

# ---- CUDA on the double --------------------------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
if [ -e "$DBL/libcuda.so.1" ]; then
	export TSCUDA_DOUBLE_QUIET=1
	LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		expect_rc 0 cucap "$CAP" -o "$T/cu.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_driver_app"
	expect_rc 0 cuex "$INFO" --extract "$T/cux" "$T/cu.sbt"
	"$INFO" --dump "$T/cu.sbt" >"$T/cu.dump"
	set -- "$T"/cux/module-*
	[ $# -eq 1 ] || fail "one module load, files: $(ls "$T/cux")"
	cmp -s "$1" "$DBL/modules/kernels.so" || fail "$1 is not the image the program loaded"
	nup=$(grep -E ' cuda\.cuMemcpyHtoD[A-Za-z0-9_]* .*blob=' "$T/cu.dump" | grep -c .)
	[ "$nup" -ge 1 ] || fail "no host->device copy with bytes in cuda_driver_app's trace"
	[ "$(ls "$T/cux" | grep -c '^upload-[0-9]*-cuMemcpyHtoD')" -eq "$nup" ] ||
		fail "$nup uploads, files: $(ls "$T/cux")"
	check_index "$T/cux"
fi

# ---- usage -----------------------------------------------------------------------------------
: >"$T/plainfile"
expect_rc 2 onfile "$INFO" --extract "$T/plainfile" "$T/vk.sbt"
has onfile err "tsinfo: --extract: '$T/plainfile' exists and is not a folder"
expect_rc 2 withdump "$INFO" --extract "$T/x2" --dump "$T/vk.sbt"
has withdump err "--extract goes with --salvage only"
echo "ok"
