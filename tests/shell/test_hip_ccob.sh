#!/bin/sh
# Compressed offload bundles (CCOB; serializer/amdgpu/sbt_amd_ccob.c,
# docs/hip.md "The image formats"), made here from the real hipcc-built
# --genco bundle of the committed corpus (tests/fuzz/corpus_amd):
# - Debian's LLVM 19 clang-offload-bundler unbundles it and bundles it
#   again, plain and with -compress (version 2, zstd: the header's hash is
#   the first 8 bytes of the plain bundle's MD5); the reader sizes the
#   compressed one from its header and reads its metadata equal to the
#   plain bundle's;
# - the layouts that tool does not write (versions 1 and 3, zlib) are
#   written by this test (python3's zlib, the zstd command) as LLVM's
#   OffloadBundler documents them: each is read equal too; a version 1
#   bundle, which has no total size, is sized from its stream, the bytes
#   after it left out;
# - truncated, lying and damaged compressed bundles are refused, each
#   naming what is wrong; the fuzz target replays them all;
# - tscapture of hip_module handed the compressed bundle (by
#   hipModuleLoadData, hipModuleLoadDataEx and hipModuleLoad) stores it,
#   and tsinfo --extract writes it back byte for byte (on the double, which
#   refuses it as ROCm 5.2's runtime does, and against the real runtime).
. "$TOP/tests/support/shell.sh"
CHK="$TOP/$BUILD/tests/hip/hip_reader_check"
FUZ="$TOP/$BUILD/tests/fuzz_amd_image_replay"
C="$TOP/tests/fuzz/corpus_amd"
[ -x "$CHK" ] && [ -x "$FUZ" ] ||
	{ echo "no libelf, msgpack-c, zlib or libzstd headers: the AMDGPU reader is not built (scripts/deps.sh)"; exit 77; }
OB=$(command -v clang-offload-bundler-19 || true)
[ -n "$OB" ] || OB=/usr/lib/llvm-19/bin/clang-offload-bundler
[ -x "$OB" ] || { echo "no clang-offload-bundler-19 (clang-tools-19): scripts/deps.sh installs it"; exit 77; }
command -v zstd >/dev/null || { echo "no zstd command: scripts/deps.sh installs it"; exit 77; }

IN="$C/hip_module_kernels.hsaco"
DEV=hipv4-amdgcn-amd-amdhsa--gfx1030,hipv4-amdgcn-amd-amdhsa--gfx90a
expect_rc 0 unbundle "$OB" -unbundle -type=o -input="$IN" -targets=$DEV \
	-output="$T/gfx1030.co" -output="$T/gfx90a.co"
: >"$T/host.o"
set -- -type=o -targets=host-x86_64-unknown-linux,$DEV -input="$T/host.o" -input="$T/gfx1030.co" \
	-input="$T/gfx90a.co" -bundle-align=4096
expect_rc 0 bundle "$OB" "$@" -output="$T/plain.hsaco"
expect_rc 0 compress "$OB" "$@" -compress -output="$T/c2.hsaco"

expect_rc 0 plain "$CHK" "$T/plain.hsaco"
expect_rc 0 real "$CHK" "$T/c2.hsaco"
has real out "c2.hsaco: compressed size $(wc -c <"$T/c2.hsaco") of $(wc -c <"$T/c2.hsaco")"
grep '^  kernel ' "$T/plain.out" >"$T/want"
[ "$(wc -l <"$T/want")" -eq 2 ] || fail "the plain bundle's metadata: $(cat "$T/plain.out")"
grep '^  kernel ' "$T/real.out" >"$T/got"
cmp -s "$T/want" "$T/got" || fail "the compressed bundle's metadata differs: $(diff "$T/want" "$T/got")"
# the original hipcc bundle's kernels are the same
expect_rc 0 orig "$CHK" "$IN"
grep '^  kernel ' "$T/orig.out" | cmp -s - "$T/want" || fail "the rebundled kernels differ from hipcc's"
# the header as the tool wrote it: CCOB, version 2, zstd, total = the file,
# raw = the plain bundle, hash = the plain bundle's MD5, first 8 bytes
python3 - "$T/c2.hsaco" "$T/plain.hsaco" <<'PY' || fail "the LLVM 19 header is not the documented layout"
import hashlib, struct, sys
c, p = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
magic, ver, meth, total, raw = struct.unpack("<4sHHII", c[:16])
assert (magic, ver, meth, total, raw) == (b"CCOB", 2, 1, len(c), len(p)), (magic, ver, meth, total, raw)
assert c[16:24] == hashlib.md5(p).digest()[:8]
PY

# The other layouts, written here; then the damaged ones.
zstd -q -c --no-check "$T/plain.hsaco" >"$T/plain.zst" || fail "zstd"
python3 - "$T" "$T/plain.hsaco" "$T/plain.zst" "$C/hip_struct_gfx90a.elf" <<'PY' || fail "cannot write the synthetic bundles"
import hashlib, struct, sys, zlib
d, plain, zst, elf = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read(), open(sys.argv[4], "rb").read()
h = struct.unpack("<Q", hashlib.md5(plain).digest()[:8])[0]
zl = zlib.compress(plain, 9)
def ccob(ver, meth, body, raw=len(plain), total=None):
    if ver == 1:
        head = struct.pack("<4sHHIQ", b"CCOB", 1, meth, raw, h)
    elif ver == 2:
        head = struct.pack("<4sHHIIQ", b"CCOB", 2, meth, total or 24 + len(body), raw, h)
    else:
        head = struct.pack("<4sHHQQQ", b"CCOB", 3, meth, total or 32 + len(body), raw, h)
    return head + body
def put(name, b):
    open(d + "/" + name, "wb").write(b)
put("v1zlib.ccob", ccob(1, 0, zl) + bytes(100))   # bytes past the stream: not its
put("v1zstd.ccob", ccob(1, 1, zst) + bytes(100))
put("v2zlib.ccob", ccob(2, 0, zl))
put("v3zlib.ccob", ccob(3, 0, zl))
put("v3zstd.ccob", ccob(3, 1, zst))
put("bad_cut.ccob", ccob(3, 1, zst)[:1000])                 # shorter than its total
put("bad_v1cut.ccob", ccob(1, 0, zl)[:1000])                # a v1 stream cut short
put("bad_more.ccob", ccob(2, 1, zst, raw=len(plain) + 1))   # states a byte more than it holds
put("bad_less.ccob", ccob(3, 0, zl, raw=len(plain) - 1))    # states a byte less
put("bad_flip.ccob", ccob(2, 0, zl[:-1] + bytes([zl[-1] ^ 0xff])))  # its adler32 wrong
put("bad_tail.ccob", ccob(2, 1, zst + bytes(8)))            # total counts 8 bytes past the frame
put("bad_method.ccob", ccob(2, 2, zst))
put("bad_huge.ccob", ccob(3, 1, zst, raw=1 << 31))
put("bad_elf.ccob", ccob(2, 0, zlib.compress(elf), raw=len(elf)))  # not a bundle inside
PY
for v in v1zlib v1zstd v2zlib v3zlib v3zstd; do
	expect_rc 0 "$v" "$CHK" "$T/$v.ccob"
	grep '^  kernel ' "$T/$v.out" | cmp -s - "$T/want" || fail "$v: metadata differs: $(cat "$T/$v.out")"
done
n=$(($(wc -c <"$T/v1zlib.ccob") - 100))
has v1zlib out "v1zlib.ccob: compressed size $n of $((n + 100))"
n=$(($(wc -c <"$T/v1zstd.ccob") - 100))
has v1zstd out "v1zstd.ccob: compressed size $n of $((n + 100))"
for b in cut v1cut method huge; do
	expect_rc 1 "bad_$b" "$CHK" "$T/bad_$b.ccob"
done
has bad_cut out "image is shorter than its header says"
has bad_v1cut out "image is shorter than its header says"
has bad_method out "image format cannot be read here"
has bad_huge out "image format cannot be read here"
for b in more less flip tail elf; do
	expect_rc 0 "bad_$b" "$CHK" "$T/bad_$b.ccob"
	grep -q '^  kernel ' "$T/bad_$b.out" && fail "bad_$b: read as if whole: $(cat "$T/bad_$b.out")"
done
P=$(wc -c <"$T/plain.hsaco")
has bad_more out "metadata: compressed bundle: it inflates to $P bytes where its header states $((P + 1))"
has bad_less out "metadata: compressed bundle: it inflates past the $((P - 1)) bytes its header states"
has bad_flip out "metadata: compressed bundle: its zlib stream is damaged near byte $(($(wc -c <"$T/bad_flip.ccob") - 24)) (incorrect data check)"
has bad_tail out "metadata: compressed bundle: its compressed stream ends after $(wc -c <"$T/plain.zst") of the $(($(wc -c <"$T/plain.zst") + 8)) bytes its header gives it"
has bad_elf out "metadata: compressed bundle: it inflates to no offload bundle"
expect_rc 0 fuzz "$FUZ" "$T"/*.ccob "$T/c2.hsaco" "$C"/*

# Stored and extracted byte for byte: hip_module hands the runtime the
# compressed bundle three ways (each load refused: neither ROCm 5.2 nor the
# double takes a compressed bundle).
H="$TOP/$BUILD/tests/hip"
[ -x "$H/hip_module" ] || { echo "no libamdhip64 to link against: hip_module is not built; only the reader was checked"; exit 0; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_TRIGGER TRACESMITH_SNAPSHOT TRACESMITH_API TRACESMITH_HIP_RUNTIME TSHIP_DOUBLE_SEED
DBL="$TOP/$BUILD/tests/doubles/hip"
hip_window
for rt in double real; do
	if [ $rt = double ]; then
		[ -e "$DBL/libamdhip64.so.5" ] || continue
		set -- env LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	else
		set --
	fi
	expect_rc 0 "cap.$rt" "$@" "$TOP/$BUILD/tscapture" -o "$T/$rt.sbt" -- "$H/hip_module" "$T/c2.hsaco"
	expect_rc 0 "x.$rt" "$TOP/$BUILD/tsinfo" --extract "$T/$rt.x" "$T/$rt.sbt"
	set -- "$T/$rt.x"/*.ccob
	[ $# -eq 3 ] || fail "$rt: not three compressed bundles extracted: $(ls "$T/$rt.x")"
	for f; do
		cmp -s "$f" "$T/c2.hsaco" || fail "$rt: $f differs from the compressed bundle handed in"
	done
done
exit 0
