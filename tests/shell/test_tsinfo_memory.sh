#!/bin/sh
# tsinfo --memory (docs/tsinfo.md "--memory"), each number checked
# against what the trace's own records say (tsinfo --dump), not against
# numbers written here:
# - the CUDA double running tests/cuda/cuda_leak_app under tscapture: every
#   kind it allocates (device, pitch, managed, vmm, async; host) with its
#   counts; GPU 0's peak is the sum of the six allocations live at the
#   4 MiB cuMemAlloc, at that record's seq; the VMM memory released while
#   mapped goes at its cuMemUnmap; the one leak is named with its size,
#   kind, device, call, seq and the host stack through cuda_leak_app_leak
#   and main (text and --json); cuda_driver_app's two module globals,
#   counted from cuModuleGetGlobal to its module's unload;
# - the HIP double running tests/hip/hip_race: its hipMalloc and
#   __device__ table counted as tsinfo counts cuMemAlloc and globals;
# - vk_compute under tscapture (lavapipe, validation layer on): its
#   vkAllocateMemory calls per memory type with the heap and flags
#   vkGetPhysicalDeviceMemoryProperties gave, the device's name, the bytes
#   and the peak the dump's allocations and frees give, nothing live;
#   trimmed to submits 2-3, the allocations its window's snapshot recreates
#   are named as made before the window;
# - a synthetic trace written through libtracesmith.so's writer: memory
#   older than the trace, unknown frees, failed calls, periodic snapshots,
#   context teardown, each changing exactly what it should; random
#   payloads under the same types, read with totals that agree;
# - a trace without allocations says so; option errors;
# - on each trace above that tsexport reads, its JSON memory counter (the
#   same accounting, serializer/sbt_mem.c) reaches the peak and ends at
#   what tsinfo --memory says, and so does its Perfetto counter where
#   protoc is installed (test_emu_memory.sh, test_emu_memory_sweep.sh: the
#   fixtures and every trace the doubles and lavapipe make).
. "$TOP/tests/support/shell.sh"
INFO="$TOP/$BUILD/tsinfo"
CAP="$TOP/$BUILD/tscapture"
[ -x "$INFO" ] || fail "no $INFO (make $BUILD/tsinfo)"

# py CODE FILE: runs python3 CODE with the parsed JSON of FILE as d.
py() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1" "$2" ||
		fail "the check '$1' failed on $2: $(head -c 3000 "$2")"
}

# counter NAME TRACE: tsexport -f json's "memory in use" counter against
# tsinfo --memory --json's $T/NAME.out of TRACE: the device series reaches
# the one GPU's (or Vulkan device's) peak and ends at its in_use_end, the
# host series the host's (with several devices, their sum's peak: the
# counter adds them up); where protoc is installed, the Perfetto counter
# tracks "device memory in use" and "host memory in use" the same.
X="$TOP/$BUILD/tsexport"
HAVE_PROTOC=
command -v protoc >/dev/null 2>&1 && HAVE_PROTOC=1
counter() {
	expect_rc 0 "$1.x" "$X" -f json -o "$T/$1.json" "$2"
	if [ -n "$HAVE_PROTOC" ]; then
		expect_rc 0 "$1.pf" "$X" -f perfetto -o "$T/$1.pt" "$2"
		protoc --proto_path="$TOP/emulator/proto" --decode perfetto.protos.Trace \
			"$TOP/emulator/proto/perfetto_trace.proto" <"$T/$1.pt" >"$T/$1.pt.txt" || fail "protoc cannot decode $1.pt"
	fi
	python3 -c "
import json, re, sys
d = json.load(open(sys.argv[1]))
C = [e['args'] for e in json.load(open(sys.argv[2]))['traceEvents'] if e['ph'] == 'C' and e['name'] == 'memory in use']
host = [i for i, x in enumerate(d['devices']) if x['api'] == 'host']
dev = [x for x in d['devices'] if x['api'] != 'host']
if len(dev) == 1:
    want_dev = (dev[0]['peak_bytes'], dev[0]['in_use_end'])
else:
    run = peak = 0
    for e in d['events']:
        if e['device'] not in host:
            run += e['delta']
            peak = max(peak, run)
    want_dev = (peak, sum(x['in_use_end'] for x in dev))
h = [d['devices'][i] for i in host] or [{'peak_bytes': 0, 'in_use_end': 0}]
want = want_dev + (h[0]['peak_bytes'], h[0]['in_use_end'])
got = (max(c['device'] for c in C), C[-1]['device'], max(c['host'] for c in C), C[-1]['host']) if C else (0, 0, 0, 0)
assert got == want, (got, want)
if len(sys.argv) > 3:
    P = open(sys.argv[3]).read().split('packet {')[1:]
    names = dict(m.groups() for m in (re.search(r'^    uuid: (\d+)\n    name: \"(.*?)\"', b, re.M) for b in P) if m)
    V = {}
    for b in P:
        if 'TYPE_COUNTER' in b:
            tr = re.search(r'track_uuid: (\d+)', b).group(1)
            V.setdefault(names[tr], []).append(int(re.search(r'counter_value: (-?\d+)', b).group(1)))
    dd, hh = V.get('device memory in use', [0]), V.get('host memory in use', [0])
    got = (max(dd), dd[-1], max(hh), hh[-1])
    assert got == want, ('perfetto', got, want)
" "$T/$1.out" "$T/$1.json" ${HAVE_PROTOC:+"$T/$1.pt.txt"} || fail "$1: the exports' memory counter is not tsinfo --memory's"
}

# ---- CUDA: the double -----------------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
if [ -e "$DBL/libcuda.so.1" ] && [ -x "$TOP/$BUILD/tests/cuda/cuda_leak_app" ]; then
	(
		unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
			TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
			TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
		cuda_window
		export TSCUDA_DOUBLE_QUIET=1
		export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		expect_rc 0 cap "$CAP" -o "$T/leak.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_leak_app"
		has cap out "cuda_leak_app: ok"
	) || exit 1
	"$INFO" --dump "$T/leak.sbt" >"$T/leak.dump" || fail "tsinfo --dump leak.sbt"
	# field CALL FIELD [FILTER]: FIELD of the first CALL record (whose line has FILTER)
	field() {
		grep " cuda\.$1 " "$T/leak.dump" | grep -e "${3:- }" | head -n 1 |
			sed -n "s/.* $2=\([0-9]*\).*/\1/p"
	}
	seqof() { grep " cuda\.$1 " "$T/leak.dump" | grep -e "${2:- }" | head -n 1 | sed 's/^seq=\([0-9]*\) .*/\1/'; }
	A=$(field cuMemAlloc size ' size=1048576 ')
	P=$(field cuMemAllocPitch size)
	M=$(field cuMemAllocManaged size)
	H=$(field cuMemAllocHost size)
	V=$(field cuMemCreate size)
	S=$(field cuMemAllocAsync size)
	B=$(field cuMemAlloc size ' size=4194304 ')
	BSEQ=$(seqof cuMemAlloc ' size=4194304 ')
	HSEQ=$(seqof cuMemAllocHost)
	LSEQ=$(seqof cuMemAlloc ' size=3000 ')
	USEQ=$(seqof cuMemUnmap)
	for x in "$A" "$P" "$M" "$H" "$V" "$S" "$B" "$BSEQ" "$HSEQ" "$LSEQ" "$USEQ"; do
		[ -n "$x" ] || fail "an allocation of cuda_leak_app is missing from the dump: $(cat "$T/leak.dump")"
	done
	PEAK=$((A + P + M + V + S + B))

	expect_rc 0 leak "$INFO" --memory "$T/leak.sbt"
	has leak out "allocations  8 made, 7 freed, 1 live at the end of the trace (3000 bytes, 2.9 KiB)"
	has leak out "peak         GPU 0: $PEAK bytes"
	grep -q "^peak         GPU 0: $PEAK bytes ([0-9.]* MiB) at seq $BSEQ, [0-9]*\.[0-9]\{9\} s\$" "$T/leak.out" ||
		fail "GPU 0's peak is not $PEAK bytes at seq $BSEQ: $(cat "$T/leak.out")"
	grep -q "^peak         host: $H bytes (64.0 KiB) at seq $HSEQ, " "$T/leak.out" ||
		fail "the host's peak is not $H bytes at seq $HSEQ: $(cat "$T/leak.out")"
	# kind, allocs, frees, live (the device row: A, B and the leak)
	for row in "device 3 2 1" "pitch 1 1 0" "async 1 1 0" "managed 1 1 0" "vmm 1 1 0" "host 1 1 0"; do
		awk '{ print $1, $2, $3, $4 }' "$T/leak.out" | grep -qx "$row" ||
			fail "no kind row '$row': $(cat "$T/leak.out")"
	done
	has leak out "live at the end of the trace (leaks): 1 allocation, 3000 bytes"
	has leak out "  3000 bytes (2.9 KiB) device on GPU 0, at 0x"
	has leak out "    by cuda.cuMemAlloc at seq $LSEQ, "
	# the stack from the program's helper out through main, the capture's
	# own frames left out
	grep -A 3 "by cuda.cuMemAlloc at seq $LSEQ" "$T/leak.out" | sed -n 2,3p | awk '{ print $3 }' |
		sed 's/+0x[0-9a-f]*$//' | tr '\n' ' ' | grep -qx 'cuda_leak_app!cuda_leak_app_leak cuda_leak_app!main ' ||
		fail "the leak's stack: $(cat "$T/leak.out")"
	grep -q 'libtracesmith' "$T/leak.out" && fail "the capture's own frames are shown: $(cat "$T/leak.out")"

	expect_rc 0 leak.j "$INFO" --memory --json "$T/leak.sbt"
	counter leak.j "$T/leak.sbt"
	py "g={x['device']:x for x in d['devices']}; assert list(g)==['GPU 0','host'], g; gpu=g['GPU 0']
assert (gpu['peak_bytes'],gpu['peak_seq'],gpu['in_use_end'])==($PEAK,$BSEQ,3000), gpu
k={x['kind']:x for x in gpu['kinds']}; assert sorted(k)==['async','device','managed','pitch','vmm'], k
assert (k['pitch']['bytes_allocated'],k['managed']['peak_bytes'],k['vmm']['peak_bytes'],k['async']['peak_bytes'])==($P,$M,$V,$S), k
assert k['device']['bytes_allocated']==$A+$B+3000 and k['device']['peak_bytes']==$A+$B, k['device']
assert (g['host']['peak_bytes'],g['host']['peak_seq'],g['host']['in_use_end'])==($H,$HSEQ,0), g['host']
assert sum(e['delta'] for e in d['events'])==3000 and len(d['events'])==15, d['events']
v=[e for e in d['events'] if e['kind']=='vmm']; assert [(e['delta']) for e in v]==[$V,-$V] and v[1]['seq']==$USEQ, v
assert max(e['in_use'] for e in d['events'] if e['device']==0)==$PEAK
L=d['leaks']; assert len(L)==1, L; l=L[0]
assert (l['size'],l['kind'],l['device_name'],l['call'],l['seq'],l['before'])==(3000,'device','GPU 0','cuda.cuMemAlloc',$LSEQ,None), l
s=[f['symbol'].split('+')[0] for f in l['stack'] if f['symbol']]; i=s.index('cuda_leak_app!cuda_leak_app_leak'); assert s[i+1]=='cuda_leak_app!main', s" "$T/leak.j.out"

	# module globals (the shared workload looks up two): counted from
	# cuModuleGetGlobal, ended by the module's unload; the primary context's
	# last release ends nothing more, everything was freed
	(
		export TSCUDA_DOUBLE_QUIET=1
		export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		expect_rc 0 capdrv "$CAP" -o "$T/drv.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_driver_app"
	) || exit 1
	"$INFO" --dump "$T/drv.sbt" >"$T/drv.dump" || fail "tsinfo --dump drv.sbt"
	GSUM=$(grep ' cuda\.cuModuleGetGlobal ' "$T/drv.dump" | sed -n 's/.* size=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	GN=$(grep -c ' cuda\.cuModuleGetGlobal ' "$T/drv.dump")
	USEQ=$(grep ' cuda\.cuModuleUnload ' "$T/drv.dump" | sed 's/^seq=\([0-9]*\) .*/\1/')
	[ "$GN" -ge 2 ] && [ -n "$USEQ" ] || fail "cuda_driver_app: $GN globals, unload at '$USEQ'"
	expect_rc 0 drv "$INFO" --memory --json "$T/drv.sbt"
	counter drv "$T/drv.sbt"
	py "[g]=[k for x in d['devices'] for k in x['kinds'] if k['kind']=='global']
assert (g['allocations'],g['frees'],g['bytes_allocated'],g['live'])==($GN,$GN,$GSUM,0), g
assert [e['seq'] for e in d['events'] if e['kind']=='global' and e['delta']<0]==[$USEQ]*$GN, d['events']
assert d['live']==0 and not d['leaks'], d['leaks']" "$T/drv.out"
else
	echo "no CUDA double built: the CUDA part is not run"
fi

# ---- HIP: the HIP double running tests/hip/hip_race -------------------------------
# two hipMalloc of 256 floats on device 0 (hipSetDevice(0)), both freed, and
# the 4-byte x 8 __device__ table: a global from its __hipRegisterVar to
# __hipUnregisterFatBinary; the peak is all three, at the second hipMalloc
HDBL="$TOP/$BUILD/tests/doubles/hip"
if [ -e "$HDBL/libamdhip64.so.5" ] && [ -x "$TOP/$BUILD/tests/hip/hip_race" ]; then
	SANRT=$(sanitizer_runtime "$HDBL/libamdhip64.so.5")
	expect_rc 0 hipcap env ${SANRT:+LD_PRELOAD=$SANRT} LD_LIBRARY_PATH="$HDBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		TSHIP_DOUBLE_SEED= "$CAP" -o "$T/hip.sbt" -- "$TOP/$BUILD/tests/hip/hip_race"
	"$INFO" --dump "$T/hip.sbt" >"$T/hip.dump" || fail "tsinfo --dump hip.sbt"
	mseq=$(grep 'hip.hipMalloc' "$T/hip.dump" | tail -1 | sed -n 's/^seq=\([0-9][0-9]*\) .*/\1/p')
	[ -n "$mseq" ] || fail "no hip.hipMalloc in the dump: $(head -c 2000 "$T/hip.dump")"
	expect_rc 0 hip "$INFO" --memory --json "$T/hip.sbt"
	py "[g]=d['devices']; assert (g['device'],g['peak_bytes'],g['peak_seq'],g['in_use_end'])==('GPU 0',2048+32,$mseq,0), g
k={x['kind']:(x['allocations'],x['frees'],x['bytes_allocated']) for x in g['kinds']}; assert k=={'device':(2,2,2048),'global':(1,1,32)}, k
assert (d['live'],d['leaks'])==(0,[]), d" "$T/hip.out"
	counter hip "$T/hip.sbt"
fi

# ---- Vulkan: vk_compute on lavapipe ------------------------------------------------
. "$TOP/tests/support/vk_env.sh"
vk_env_init
unset VK_ADD_LAYER_PATH XDG_DATA_DIRS
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
export VK_INSTANCE_LAYERS
expect_rc 0 vkcap "$CAP" -o "$T/vk.sbt" -- "$TOP/$BUILD/tests/programs/vk_compute"
vk_env_clean "$T/vkcap.out" || fail "validation messages under tscapture"
"$INFO" --dump "$T/vk.sbt" >"$T/vk.dump" || fail "tsinfo --dump vk.sbt"
# the dump's allocations and frees, replayed: count, bytes, peak, its seq
python3 - "$T/vk.dump" >"$T/vk.expect" <<'EOF' || fail "reading the Vulkan dump"
import re, sys
live, now, peak, peak_seq, n, total = {}, 0, 0, 0, 0, 0
for line in open(sys.argv[1]):
    seq = int(line.split()[0][4:])
    if " vulkan.vkAllocateMemory " in line and 'ret="VK_SUCCESS"' in line:
        size = int(re.search(r" pAllocateInfo\.allocationSize=(\d+)", line).group(1))
        mem = re.search(r" pMemory=(0x[0-9a-f]+)", line).group(1)
        live[mem] = size
        now += size
        n += 1
        total += size
        if now > peak:
            peak, peak_seq = now, seq
    elif " vulkan.vkFreeMemory " in line:
        now -= live.pop(re.search(r" memory=(0x[0-9a-f]+)", line).group(1))
print(n, total, peak, peak_seq, now)
EOF
read -r VN VTOTAL VPEAK VSEQ VEND <"$T/vk.expect"
[ "$VN" -ge 3 ] && [ "$VEND" = 0 ] || fail "vk_compute's trace: $VN allocations, $VEND bytes left: $(cat "$T/vk.expect")"
expect_rc 0 vk "$INFO" --memory "$T/vk.sbt"
has vk out "allocations  $VN made, $VN freed, 0 live at the end of the trace"
grep -q "^peak         VkDevice 0x[0-9a-f]* (llvmpipe[^)]*)): $VPEAK bytes .* at seq $VSEQ, " "$T/vk.out" ||
	fail "the Vulkan peak is not $VPEAK bytes at seq $VSEQ: $(cat "$T/vk.out")"
grep -q '^  memory type [0-9]* (heap [0-9]*: device-local' "$T/vk.out" || fail "no memory type row: $(cat "$T/vk.out")"
has vk out "live at the end of the trace: nothing (every allocation was freed)"
expect_rc 0 vk.j "$INFO" --memory --json "$T/vk.sbt"
counter vk.j "$T/vk.sbt"
py "assert (d['allocations'],d['frees'],d['live'])==($VN,$VN,0), d; [v]=d['devices']; assert v['api']=='vulkan' and 'llvmpipe' in v['device'], v
assert (v['peak_bytes'],v['peak_seq'],v['in_use_end'])==($VPEAK,$VSEQ,0), v
assert sum(k['bytes_allocated'] for k in v['kinds'])==$VTOTAL and all(k['kind']=='memory type' for k in v['kinds']), v['kinds']
assert not d['leaks']" "$T/vk.j.out"
# a trimmed trace (submits 2-3 of 5): the memory its snapshot recreates is
# named as allocated before the window, and stays live (vk_compute frees
# it after its last submit)
expect_rc 0 trimcap "$CAP" --submits 2-3 -o "$T/trim.sbt" -- "$TOP/$BUILD/tests/programs/vk_compute" --submits 5
vk_env_clean "$T/trimcap.out" || fail "validation messages under tscapture --submits"
W="$T/trim-submits-2-3.sbt"
expect_rc 0 trim.sum "$INFO" --json "$W"
expect_rc 0 trim.dump "$INFO" --dump "$W"
range=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['snapshot']; print(s['first_seq'], s['last_seq'])" "$T/trim.sum.out")
snapn=$(grep ' vulkan.vkAllocateMemory ' "$T/trim.dump.out" | sed 's/^seq=\([0-9]*\) .*/\1/' |
	awk -v a="${range% *}" -v b="${range#* }" '$1 >= a && $1 <= b { n++ } END { print n + 0 }')
[ "$snapn" -ge 3 ] || fail "the window's snapshot recreates $snapn allocations: $(cat "$T/trim.dump.out")"
expect_rc 0 trim "$INFO" --memory --json "$W"
counter trim "$W"
py "L=d['leaks']; assert d['allocations']==$snapn and len(L)==$snapn, d; assert all(l['before']=='window' and not l['stack'] for l in L), L" "$T/trim.out"
expect_rc 0 trim.text "$INFO" --memory "$W"
[ "$(grep -c "in the window's snapshot (allocated before the window)" "$T/trim.text.out")" = "$snapn" ] ||
	fail "the snapshot's allocations are not named so: $(cat "$T/trim.text.out")"

# ---- a synthetic trace, written through libtracesmith.so's writer ----------------------
# memory older than the trace (a keyframe's tsSnapshot records; two chunks
# of one allocation in a row are one allocation), a free of memory never
# allocated, a failed allocation, a periodic snapshot re-creating memory
# (skipped), and a context's destruction ending what was allocated in it
. "$TOP/tests/support/python.sh"
cat >"$T/gen.py" <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
class Rec(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("stack_id", ctypes.c_uint32), ("seq", ctypes.c_uint64),
                ("time_ns", ctypes.c_uint64), ("thread", ctypes.c_uint64),
                ("payload", ctypes.c_char_p), ("payload_len", ctypes.c_size_t)]
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)
# sbt_compute.h field tags (wire 0: unsigned varint)
TAG = {"result": 1, "ctx": 2, "handle": 5, "dst": 8, "size": 10, "count": 40, "sub": 36}
def cm(**f):
    return b"".join(varint(TAG[k] << 2) + varint(v) for k, v in f.items() if v)
w = ctypes.c_void_p()
assert lib.sbt_writer_open(sys.argv[2].encode(), None, ctypes.byref(w)) == 0
names = ["cuCtxCreate", "cuMemAlloc", "cuMemFree", "tsSnapshot", "cuCtxDestroy"]
T = {n: 100 + i for i, n in enumerate(names)}
for n, t in T.items():
    assert lib.sbt_writer_define_type(w, t, ("cuda." + n).encode()) == 0
KEYFRAME, SNAPSHOT_END = 3, 8
MiB = 1 << 20
recs = [
    (T["cuCtxCreate"], cm(ctx=0xc1)),                          # 1: device 0
    (KEYFRAME, cm(count=3)),                                   # 2
    (T["tsSnapshot"], cm(dst=0x10000000, size=32 * MiB, sub=1)),  # 3: older memory...
    (T["tsSnapshot"], cm(dst=0x12000000, size=16 * MiB, sub=1)),  # 4: ...its next chunk
    (T["tsSnapshot"], cm(dst=0x40000000, size=4096, sub=1)),       # 5: another
    (T["cuMemAlloc"], cm(dst=0x50000000, size=1000, sub=1)),       # 6: the peak
    (T["cuMemFree"], cm(dst=0x10000000)),                          # 7: older memory freed
    (T["cuMemFree"], cm(dst=0xdead0000)),                          # 8: never allocated
    (T["cuMemAlloc"], cm(result=2, size=999)),                     # 9: failed
    (KEYFRAME, b"snapshot" + varint(1)),                           # 10: periodic snapshot...
    (T["cuMemAlloc"], cm(dst=0x60000000, size=5555, sub=1)),       # 11: ...re-creating: skipped
    (SNAPSHOT_END, b""),                                           # 12
    (T["cuCtxDestroy"], cm(ctx=0xc1)),                             # 13: ends the 1000 bytes
]
for i, (t, p) in enumerate(recs, 1):
    r = Rec(t, 0, i, 1000 * i, 7, p, len(p))
    assert lib.sbt_writer_append(w, ctypes.byref(r)) == 0, i
assert lib.sbt_writer_close(w) == 0
EOF
ts_python "$T/gen.py" "$TS_SO" "$T/syn.sbt" || fail "writing the synthetic trace"
expect_rc 0 syn "$INFO" --memory --json "$T/syn.sbt"
counter syn "$T/syn.sbt"
py "assert (d['allocations'],d['frees'],d['unknown_frees'],d['live'],d['live_bytes'])==(3,2,1,1,4096), d
[g]=d['devices']; assert (g['device'],g['peak_bytes'],g['peak_seq'],g['in_use_end'])==('GPU 0',48*2**20+4096+1000,6,0+4096), g
assert [(e['seq'],e['delta']) for e in d['events']]==[(3,2**25),(4,2**24),(5,4096),(6,1000),(7,-48*2**20),(13,-1000)], d['events']
[l]=d['leaks']; assert (l['size'],l['address'],l['call'],l['before'],l['stack'])==(4096,'0x40000000','cuda.tsSnapshot','trace',[]), l" "$T/syn.out"
expect_rc 0 syn.text "$INFO" --memory "$T/syn.sbt"
has syn.text out "frees        1 more of memory the trace never allocated (made before it began, or freed twice)"
has syn.text out "by cuda.tsSnapshot at seq 5, 0.000005000 s, thread 7, first seen in a keyframe (allocated before the trace)"

# random payloads under the types the profile reads (plausible fields or
# noise): it reads them all, and its totals agree with each other
cat >"$T/rand.py" <<'EOF'
import ctypes, sys, random
lib = ctypes.CDLL(sys.argv[1])
class Rec(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("stack_id", ctypes.c_uint32), ("seq", ctypes.c_uint64),
                ("time_ns", ctypes.c_uint64), ("thread", ctypes.c_uint64),
                ("payload", ctypes.c_char_p), ("payload_len", ctypes.c_size_t)]
rnd = random.Random(int(sys.argv[3]))
w = ctypes.c_void_p()
assert lib.sbt_writer_open(sys.argv[2].encode(), None, ctypes.byref(w)) == 0
names = ["cuda.cuCtxCreate", "cuda.cuMemAlloc", "cuda.cuMemFree", "cuda.tsSnapshot", "cuda.cuCtxDestroy",
         "cuda.cuMemCreate", "cuda.cuMemMap", "cuda.cuMemUnmap", "cuda.cuMemRelease", "cuda.cuModuleGetGlobal",
         "cuda.cuModuleUnload", "cuda.cuDevicePrimaryCtxRetain", "cuda.cuDevicePrimaryCtxRelease", "cuda.cuCtxSetCurrent",
         "cuda.cuCtxPopCurrent", "cuda.cuMemAllocHost", "cuda.cuMemFreeHost",
         "vulkan.vkAllocateMemory", "vulkan.vkFreeMemory", "vulkan.vkCreateDevice",
         "vulkan.vkGetPhysicalDeviceMemoryProperties", "vulkan.vkGetPhysicalDeviceProperties2"]
for i, n in enumerate(names):
    lib.sbt_writer_define_type(w, 100 + i, n.encode())
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f; v >>= 7
        out.append(b | 0x80 if v else b)
        if not v: return bytes(out)
for seq in range(1, 3000):
    t = rnd.choice([3, 7, 8] + list(range(100, 100 + len(names))))
    if rnd.random() < 0.5:
        # plausible cm payload with small random values
        p = b"".join(varint(tag << 2) + varint(rnd.choice([0, 1, 2, 4096, 0x1000, 0x2000, 2**40, 2**64-1]))
                     for tag in sorted(rnd.sample([1, 2, 3, 5, 6, 8, 10, 36, 40], rnd.randint(0, 5))))
    else:
        p = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 64)))
    r = Rec(t, 0, seq, seq, rnd.choice([1, 2]), p, len(p))
    assert lib.sbt_writer_append(w, ctypes.byref(r)) == 0
assert lib.sbt_writer_close(w) == 0
EOF
for seed in 1 2 3; do
	ts_python "$T/rand.py" "$TS_SO" "$T/rand$seed.sbt" $seed || fail "writing random trace $seed"
	expect_rc 0 "rand$seed" "$INFO" --memory --json "$T/rand$seed.sbt"
	# tsexport refuses a trace with a payload that does not decode (tsinfo
	# --memory passes over it); where it reads one, the counter agrees
	rc=0
	"$X" -f json -o "$T/rand$seed.probe.json" "$T/rand$seed.sbt" 2>"$T/rand$seed.probe.err" || rc=$?
	if [ "$rc" = 0 ]; then
		counter "rand$seed" "$T/rand$seed.sbt"
	else
		[ "$rc" = 2 ] || fail "rand$seed: tsexport exit $rc: $(cat "$T/rand$seed.probe.err")"
		has "rand$seed.probe" err "a record of the trace is corrupt"
	fi
	py "M=2**64; assert d['allocations']-d['frees']==d['live']==len(d['leaks']), d['live']
assert sum(e['delta'] for e in d['events'])%M==d['live_bytes']%M==sum(l['size'] for l in d['leaks'])%M
assert sum(x['in_use_end'] for x in d['devices'])%M==d['live_bytes']%M" "$T/rand$seed.out"
	expect_rc 0 "rand$seed.text" "$INFO" --memory "$T/rand$seed.sbt"
done

# ---- no allocations; errors ------------------------------------------------------------
"$TOP/$BUILD/tests/programs/sbt_gen_basic" "$T/basic.sbt" >/dev/null || fail "sbt_gen_basic"
expect_rc 0 none "$INFO" --memory "$T/basic.sbt"
has none out "memory       no allocations in this trace (no CUDA or Vulkan call that allocates memory was recorded)"
expect_rc 0 none.j "$INFO" --json --memory "$T/basic.sbt"
py "assert (d['allocations'],d['devices'],d['events'],d['leaks'])==(0,[],[],[]), d" "$T/none.j.out"
expect_rc 2 opt.dump "$INFO" --memory --dump "$T/basic.sbt"
has opt.dump err "tsinfo: --memory goes with --json and --salvage only"
expect_rc 2 opt.verify "$INFO" --verify --memory "$T/basic.sbt"
has opt.verify err "tsinfo: --memory goes with --json and --salvage only"
expect_rc 1 missing "$INFO" --memory "$T/none.sbt"
has missing err "none.sbt"
expect_rc 0 help "$INFO" --help
has help out "--memory"
echo "tsinfo --memory: ok"
