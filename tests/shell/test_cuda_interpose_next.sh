#!/bin/sh
# The interposer exports dlsym; dlsym(RTLD_NEXT, name) made by another
# library must still find the next definition after THAT library, not after
# the interposer.  A preloaded uname wrapper behind the interposer chains
# through RTLD_NEXT: uname must reach libc exactly once (one "+chain" mark),
# neither recursing into the wrapper nor failing.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
TCU="$BUILD/interpose/libtracesmith_cuda.so"
CHAIN="$BUILD/tests/libs/chain_uname.so"
[ -e "$TCU" ] || { echo "no CUDA toolkit headers: the interposer is not built"; exit 77; }
[ -e "$CHAIN" ] || fail "$CHAIN is not built"
want="$(uname -n)+chain"
got=$(TRACESMITH_DISABLE=1 LD_PRELOAD="$PWD/$TCU:$PWD/$CHAIN" uname -n) ||
	fail "uname under the interposer and the chaining wrapper failed"
[ "$got" = "$want" ] || fail "uname -n printed '$got', expected '$want'"
got=$(LD_PRELOAD="$PWD/$CHAIN" uname -n) || fail "uname under the wrapper alone failed"
[ "$got" = "$want" ] || fail "without the interposer: '$got', expected '$want'"
echo ok
