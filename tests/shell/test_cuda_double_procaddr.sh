#!/bin/sh
# The double's cuGetProcAddress table (TCD_PROCS in tests/doubles/cuda/tcd_api.h)
# agrees with the toolkit's cudaTypedefs.h (and cudaProfilerTypedefs.h, for
# cuProfilerStart/Stop): for every exported name, the
# version it appeared in and whether it is a per-thread variant are those of
# the PFN_<base>_v<version>[_ptds|_ptsz] typedef it corresponds to, and every
# exported name has a row.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
[ -e "$BUILD/tests/doubles/cuda/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
python3 - "$TOP/tests/doubles/cuda/tcd_api.h" "$CUDA_INC/cudaTypedefs.h" "$CUDA_INC/cudaProfilerTypedefs.h" <<'PY'
import re, sys, collections
api = open(sys.argv[1]).read()
exports = re.findall(r'^\tX\((cu\w+)\) \\$', api, re.M)
rows = [(b, int(v), int(p), s) for b, v, p, s in
        re.findall(r'^\tX\((cu\w+), (\d+), ([01]), (cu\w+)\) \\$', api, re.M)]
assert exports and rows, "could not parse tcd_api.h"
td = open(sys.argv[2]).read() + open(sys.argv[3]).read()
pfn = collections.defaultdict(set)
for base, ver, pt in re.findall(r'\*PFN_(cu\w+?)_v(\d+)(_pt(?:ds|sz))?\)', td):
    pfn[base].add((int(ver), pt))
want = {}
for base, vs in pfn.items():
    plain = sorted(v for v, p in vs if not p)
    for v, p in sorted(vs):
        older = [x for x in plain if x <= v]
        idx = plain.index(max(older)) if older else 0
        want[base + ('' if idx == 0 else '_v%d' % (idx + 1)) + p] = (base, v, 1 if p else 0)
bad = []
for b, v, p, s in rows:
    if s not in exports:
        bad.append('%s has a row but is not exported' % s)
    if want.get(s) != (b, v, p):
        bad.append('%s: table says (%s, %d, %d), cudaTypedefs.h says %s' % (s, b, v, p, want.get(s)))
have = {s for _, _, _, s in rows}
for s in exports:
    if s not in have and s in want:
        bad.append('%s is exported but has no cuGetProcAddress row' % s)
if bad:
    print('\n'.join(bad))
    sys.exit(1)
print('%d rows agree with cudaTypedefs.h' % len(rows))
PY
