#!/bin/sh
# The AMDGPU reader (serializer/amdgpu) on real hipcc output: the committed
# corpus (tests/fuzz/corpus_amd: a --genco bundle and two compressed bundles
# of it (tests/shell/test_hip_ccob.sh), a .hip_fatbin section,
# one gfx90a code object cut from it, a .hipFatBinSegment wrapper; Debian
# ROCm 5.2.3 hipcc, docs/hip.md) is replayed through the fuzz target and
# read with the expected kinds, sizes, kernels and argument layouts; what
# the build's hipcc made now (tests/hip) is sized against objcopy's
# sections; compressed-bundle headers and damaged bundles are refused or
# sized as their header says.
. "$TOP/tests/support/shell.sh"
CHK="$TOP/$BUILD/tests/hip/hip_reader_check"
FUZ="$TOP/$BUILD/tests/fuzz_amd_image_replay"
C="$TOP/tests/fuzz/corpus_amd"
[ -x "$CHK" ] && [ -x "$FUZ" ] ||
	{ echo "no libelf or msgpack-c headers: the AMDGPU reader is not built (scripts/deps.sh)"; exit 77; }

expect_rc 0 corpus "$FUZ" "$C"/*
expect_rc 0 real "$CHK" "$C/hip_module_kernels.hsaco" "$C/hip_struct.hip_fatbin" \
	"$C/hip_struct_gfx90a.elf" "$C/hip_struct.hipFatBinSegment"
has real out "hip_module_kernels.hsaco: bundle size 17976 of 17976"
has real out "entry hipv4-amdgcn-amd-amdhsa--gfx1030 offset 4096 size 4856"
has real out "entry hipv4-amdgcn-amd-amdhsa--gfx90a offset 12288 size 5688"
has real out "kernel scale kernarg 12 explicit 2: 0+8:global_buffer 8+4:by_value"
has real out "kernel _Z10add_offsetPffi kernarg 16 explicit 3: 0+8:global_buffer 8+4:by_value 12+4:by_value"
has real out "hip_struct.hip_fatbin: bundle size 17936 of 17936"
# the by-value struct holding two device pointers and a double is one
# 32-byte by_value argument: metadata does not say which bytes are pointers
has real out "kernel _Z11axpy_struct9axpy_argsi kernarg 36 explicit 2: 0+32:by_value 32+4:by_value"
has real out "kernel _Z4fillPddi kernarg 20 explicit 3: 0+8:global_buffer 8+8:by_value 16+4:by_value"
has real out "hip_struct_gfx90a.elf: elf size 5648 of 5648"
has real out "hip_struct.hipFatBinSegment: wrapper size 24 of 24"

# Damaged and synthetic inputs: each is refused with its reason or sized
# from its header alone (CCOB v2: u32 total size at 8; v3: u64 at 8).
python3 - "$T" "$C/hip_struct.hip_fatbin" <<'PY' || fail "cannot write the synthetic inputs"
import struct, sys
d, real = sys.argv[1], open(sys.argv[2], "rb").read()
open(d + "/trunc.bin", "wb").write(real[:12000])             # last entry's bytes cut off
open(d + "/count.bin", "wb").write(real[:24] + struct.pack("<Q", 1 << 40) + real[32:])
open(d + "/over.bin", "wb").write(real[:32] + struct.pack("<QQ", 1 << 63, 1 << 63) + real[48:])
open(d + "/ccob2.bin", "wb").write(b"CCOB" + struct.pack("<HHIIQ", 2, 1, 64, 4096, 7) + bytes(40))
open(d + "/ccob3.bin", "wb").write(b"CCOB" + struct.pack("<HHQQQ", 3, 1, 48, 4096, 7) + bytes(24))
open(d + "/ccob1.bin", "wb").write(b"CCOB" + struct.pack("<HHIQ", 1, 1, 4096, 7) + bytes(40))
open(d + "/ccob3big.bin", "wb").write(b"CCOB" + struct.pack("<HHQQQ", 3, 1, 1 << 20, 4096, 7))
elf = open(sys.argv[2].replace(".hip_fatbin", "_gfx90a.elf"), "rb").read()
open(d + "/elfcut.bin", "wb").write(elf[:3000])
# the metadata's "amdhsa.kernels" key turned into an array32 header
# claiming 2^31 elements: refused before msgpack-c would allocate them
k = elf.index(b"\xaeamdhsa.kernels")
open(d + "/bigarray.elf", "wb").write(elf[:k] + b"\xdd\x7f\xff\xff\xff" + elf[k + 5:])
PY
for f in trunc count over ccob1 ccob3big elfcut; do
	expect_rc 1 "bad_$f" "$CHK" "$T/$f.bin"
done
has bad_trunc out "image is shorter than its header says"
has bad_count out "image is shorter than its header says"
has bad_over out "image header is inconsistent"
has bad_ccob1 out "image header is inconsistent" # version 1: sized from its stream, and 40 zero bytes are no zstd frame
has bad_ccob3big out "image is shorter than its header says"
has bad_elfcut out "image is shorter than its header says"
expect_rc 0 ccob "$CHK" "$T/ccob2.bin" "$T/ccob3.bin"
has ccob out "ccob2.bin: compressed size 64 of 64"
has ccob out "ccob3.bin: compressed size 48 of 56" # its header, not the file, says where it ends
expect_rc 0 bigarray "$CHK" "$T/bigarray.elf"
has bigarray out "metadata: metadata note is not one MessagePack object"
expect_rc 0 synthetic "$FUZ" "$T"/*.bin "$T/bigarray.elf"

# What this build's hipcc made: the --genco file is one bundle, exactly; a
# program's .hip_fatbin section holds its bundle (padded past its end) and
# its .hipFatBinSegment the 24-byte wrapper.
H="$TOP/$BUILD/tests/hip"
[ -e "$H/hip_module_kernels.hsaco" ] || { echo "no hipcc: only the committed corpus was read"; exit 0; }
expect_rc 0 built "$CHK" "$H/hip_module_kernels.hsaco"
has built out "bundle size $(wc -c <"$H/hip_module_kernels.hsaco") of"
for p in hip_saxpy hip_struct; do
	objcopy -O binary --only-section=.hip_fatbin "$H/$p" "$T/$p.fb" || fail "objcopy $p"
	objcopy -O binary --only-section=.hipFatBinSegment "$H/$p" "$T/$p.seg" || fail "objcopy $p"
	expect_rc 0 "sec_$p" "$CHK" "$T/$p.fb" "$T/$p.seg"
	has "sec_$p" out "$p.seg: wrapper size 24 of 24"
	n=$(sed -n "s/.*$p.fb: bundle size \([0-9]*\) of.*/\1/p" "$T/sec_$p.out")
	[ -n "$n" ] && [ "$n" -le "$(wc -c <"$T/$p.fb")" ] || fail "$p: .hip_fatbin not sized: $(cat "$T/sec_$p.out")"
	grep -q "kernel " "$T/sec_$p.out" || fail "$p: no kernel in its metadata"
done
has sec_hip_saxpy out "kernel _Z5saxpyifPKfPf kernarg"
