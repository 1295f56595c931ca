#!/bin/sh
# Repeated event waits (issue 10; docs/emulator.md "Dependency lists"): the
# wait_chain:N trace of tests/programs/emu_gen_trace runs N kernels on s1
# (0x100), each followed by an event 0xe1 recorded on s1 and waited on by
# s2 (0x200), which runs nothing meanwhile; then 0xe2 recorded on s2, s3
# (0x300) waits on 0xe2 and again on 0xe1, "tail" runs on s3 and "end" on
# s2.  tail and end each wait for every kernel of s1 exactly once (the
# second wait of s3 adds nothing): N + 2 commands, N - 1 + 2N = 3N - 1
# dependencies, 2N across streams.
# - N = 5 (lists read entry by entry) and N = 40 (past the 32 entries from
#   which a list is hashed): the summary's counts and the DOT graph's edges,
#   each expected once;
# - N = 200,000: the same counts (the build was quadratic in N before).
. "$TOP/tests/support/shell.sh"
X="$TOP/$BUILD/tsexport"
GEN="$TOP/$BUILD/tests/programs/emu_gen_trace"
[ -x "$X" ] || fail "no $X (make $BUILD/tsexport)"
[ -x "$GEN" ] || fail "no $GEN (make $BUILD/tests/programs/emu_gen_trace)"

# counts N: the summary's first line for wait_chain:N
counts() {
	"$GEN" "wait_chain:$1" "$T/wc$1.sbt" || fail "emu_gen_trace wait_chain:$1"
	expect_rc 0 "summary$1" "$X" --summary "$T/wc$1.sbt"
	has "summary$1" out "commands: $(($1 + 2)) on 3 streams, $((3 * $1 - 1)) dependencies ($((2 * $1)) across streams)"
}

# edges N: the DOT graph's edges are s1's chain n0 -> n1 -> ... -> n(N-1)
# (solid) and an event edge from each ni to tail (nN) and to end (nN+1),
# each once, and no other
edges() {
	expect_rc 0 "dot$1" "$X" -f dot "$T/wc$1.sbt"
	python3 -c "
import re, sys
n = $1
got = re.findall(r'^\s*n(\d+) -> n(\d+) \[(.*)\];$', open(sys.argv[1]).read(), re.M)
want = [(i, i + 1, 'style=solid') for i in range(n - 1)]
want += [(i, t, 'style=dashed,color=blue,label=\"event\"') for t in (n, n + 1) for i in range(n)]
got = [(int(a), int(b), s) for a, b, s in got]
assert sorted(got) == sorted(want), (len(got), len(want), sorted(set(got) ^ set(want))[:5])
" "$T/dot$1.out" || fail "wait_chain:$1: DOT edges"
}

counts 5
edges 5
counts 40
edges 40
has summary40 out "critical path: 410000 ns, 41 commands"
counts 200000
rm -f "$T"/wc*.sbt
echo "test_emu_wait_chain: ok"
