#!/bin/sh
# Two module forms the other HIP tests do not reach, on the libamdhip64
# test double: a bare AMDGPU code object (the gfx90a ELF cut out of the
# hipcc --genco bundle) handed to hipModuleLoadData, hipModuleLoadDataEx
# and hipModuleLoad by hip_module: output unchanged under tscapture, each
# load's image stored sized from the ELF's own tables (sub 7) and written
# byte for byte by tsinfo --extract, replayed with the checkpoint equal;
# and hipExtModuleLaunchKernel under ROCm 6's C name, found with dlsym by
# hip_ext_cname (the double serves it beside the mangled name, under its
# tship_rocm6 version): recorded as hip.hipExtModuleLaunchKernel with the
# fields the mangled one's record has, replayed equal; under ROCm 5.2's
# real runtime the name is not there and the program says so.
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/hip"
H="$TOP/$BUILD/tests/hip"
[ -e "$DBL/libamdhip64.so.5" ] || { echo "no HIP headers or code-object reader: the HIP double is not built"; exit 77; }
[ -x "$H/hip_module" ] && [ -x "$H/hip_ext_cname" ] ||
	{ echo "no hipcc: the HIP test programs are not built (scripts/deps.sh installs it)"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
SANRT=$(sanitizer_runtime "$DBL/libamdhip64.so.5")
PRE=${SANRT:+env LD_PRELOAD=$SANRT}
KS="$H/hip_module_kernels.hsaco"

# ROCm 5.2's runtime: no C name (ROCm 6's would have one).  Under
# tscapture the program's lookups of the names the interposer exports and
# the runtime lacks fail as they do without it: the output is unchanged.
expect_rc 0 real "$H/hip_ext_cname" "$KS"
if ! grep -q "^no C-named hipExtModuleLaunchKernel$" "$T/real.out"; then
	grep -q "^hipExtModuleLaunchKernel [0-9]*$" "$T/real.out" || fail "real runtime: $(cat "$T/real.out")"
	echo "note: this machine's runtime exports hipExtModuleLaunchKernel's C name (ROCm 6?)"
else
	has real out "hipExtModuleLaunchKernel: default=absent(dlerror) next=absent(dlerror) self=absent(dlerror)"
	has real out "hipLaunchHostFunc: default=absent(dlerror) next=absent(dlerror) self=absent(dlerror)"
	has real out "hipMalloc: default=found next=found self=found"
fi
expect_rc 0 real.cap "$CAP" -o "$T/real.sbt" -- "$H/hip_ext_cname" "$KS"
cmp -s "$T/real.out" "$T/real.cap.out" ||
	fail "real runtime: output changed under tscapture: $(diff "$T/real.out" "$T/real.cap.out")"
rm -f "$T/real.sbt"
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The gfx90a entry of the bundle: offset and size from the bundle header.
python3 - "$KS" "$T/k.elf" <<'PY' || fail "no gfx90a entry in $KS"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:24] == b"__CLANG_OFFLOAD_BUNDLE__"
n, p = struct.unpack_from("<Q", b, 24)[0], 32
for _ in range(n):
    off, size, idl = struct.unpack_from("<QQQ", b, p)
    ident = b[p + 24:p + 24 + idl].decode()
    p += 24 + idl
    if ident.endswith("--gfx90a"):
        open(sys.argv[2], "wb").write(b[off:off + size])
        sys.exit(0)
sys.exit(1)
PY
[ "$(head -c 4 "$T/k.elf" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || fail "the cut entry is not an ELF"
size=$(wc -c <"$T/k.elf")
expect_rc 0 elf.run $PRE "$H/hip_module" "$T/k.elf"
has elf.run out "host[3] 13.0"
expect_rc 0 elf.cap $PRE "$CAP" -o "$T/e.sbt" -- "$H/hip_module" "$T/k.elf"
cmp -s "$T/elf.run.out" "$T/elf.cap.out" || fail "output changed under tscapture: $(diff "$T/elf.run.out" "$T/elf.cap.out")"
expect_rc 0 elf.dump "$INFO" --dump "$T/e.sbt"
for c in hipModuleLoadData hipModuleLoadDataEx hipModuleLoad; do
	grep -q " hip\.$c handle=[0-9]* .*size=$size blob=[0-9]* sub=7$" "$T/elf.dump.out" ||
		fail "$c: not stored as a $size-byte AMDGPU ELF: $(grep "hip\.$c " "$T/elf.dump.out")"
done
expect_rc 0 elf.extract "$INFO" --extract "$T/x" "$T/e.sbt"
n=0
for f in "$T"/x/module-*.hsaco; do
	cmp -s "$f" "$T/k.elf" || fail "$f differs from the ELF loaded"
	n=$((n + 1))
done
[ "$n" -eq 3 ] || fail "not 3 modules extracted: $(ls "$T/x")"
expect_rc 0 elf.replay "$RP" --json --check-determinism "$T/e.sbt"
[ "$(json_field "$T/elf.replay.out" checkpoints)" = 1 ] && [ "$(json_field "$T/elf.replay.out" matched)" = 1 ] ||
	fail "elf replay: $(cat "$T/elf.replay.out")"

# The C name, on the double.
expect_rc 0 cname.run $PRE "$H/hip_ext_cname" "$KS"
has cname.run out "hipExtModuleLaunchKernel: default=found next=found self=found"
has cname.run out "hipTexRefGetMipMappedArray: default=absent(dlerror) next=absent(dlerror) self=absent(dlerror)"
has cname.run out "hipExtModuleLaunchKernel 0"
has cname.run out "host[3] 6.0"
expect_rc 0 cname.cap $PRE "$CAP" -o "$T/c.sbt" -- "$H/hip_ext_cname" "$KS"
cmp -s "$T/cname.run.out" "$T/cname.cap.out" || fail "output changed under tscapture: $(diff "$T/cname.run.out" "$T/cname.cap.out")"
expect_rc 0 cname.dump "$INFO" --dump "$T/c.sbt"
[ "$(grep -c ' hip\.hipExtModuleLaunchKernel ' "$T/cname.dump.out")" -eq 1 ] ||
	fail "not one hipExtModuleLaunchKernel record: $(grep Launch "$T/cname.dump.out")"
has cname.dump out 'hip.hipExtModuleLaunchKernel handle='
has cname.dump out ' name="scale" grid_x=256 grid_y=1 grid_z=1 block_x=64 block_y=1 block_z=1 params='
expect_rc 0 cname.replay "$RP" --json "$T/c.sbt"
[ "$(json_field "$T/cname.replay.out" checkpoints)" = 1 ] && [ "$(json_field "$T/cname.replay.out" matched)" = 1 ] ||
	fail "C-name replay: $(cat "$T/cname.replay.out")"
echo "ok"
