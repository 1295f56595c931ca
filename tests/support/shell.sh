# shell.sh - helpers for tests/shell/*.sh (source it: . "$TOP/tests/support/shell.sh").
# Sets BUILD and TOP defaults, makes $T a private temp dir removed on exit,
# and gives the fail-fast checks the replay and tool tests share.
BUILD=${BUILD:-build}
TOP=${TOP:-.}
T=$(mktemp -d "${TMPDIR:-/tmp}/tstest.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_rc WANT NAME CMD...: runs CMD with stdout in $T/NAME.out and stderr
# in $T/NAME.err; fails unless it exits WANT.
expect_rc() {
	want=$1 name=$2
	shift 2
	rc=0
	"$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -eq "$want" ] || {
		cat "$T/$name.err" >&2
		fail "$name: exit $rc, expected $want"
	}
}

# has NAME out|err TEXT: fails unless $T/NAME.out|err contains TEXT.
has() {
	grep -qF -- "$3" "$T/$1.$2" || fail "$1: '$3' not in its std$2: $(cat "$T/$1.$2")"
}

# json_field FILE KEY: the number after "KEY": in FILE.
json_field() {
	sed -n "s/.*\"$2\":\([0-9][0-9]*\).*/\1/p" "$1"
}

# tsan_build: true when $BUILD is a ThreadSanitizer build (make tsan), told
# by its tsinfo asking for the TSan runtime's entry point.  Some runs cannot
# happen under TSan at all (an uninstrumented program loading our
# instrumented library, addresses outside TSan's memory layout).
tsan_build() {
	case $BUILD in
	/*) tsan_bin=$BUILD/tsinfo ;;
	*) tsan_bin=$TOP/$BUILD/tsinfo ;;
	esac
	nm -D "$tsan_bin" 2>/dev/null | grep -q ' __tsan_init$'
}

# sanitizer_runtime LIB: the path of the ASan or TSan runtime LIB is linked
# against, nothing for a normal build.  A sanitizer build's library loaded
# into an uninstrumented program (a double, an interposer in a hipcc
# program) needs it preloaded, before the C library.
sanitizer_runtime() {
	ldd "$1" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}'
}

# hip_window [BASE]: under ThreadSanitizer, the address window HIP capture
# places allocations in, TRACESMITH_HIP_VA=BASE:64G (BASE 0x4000000000,
# TSan's low application range, unless given: a test that also captures
# CUDA puts it after cuda_window's); HIP's default window lies outside
# TSan's memory layout.  Nothing in other builds.
hip_window() {
	if tsan_build; then
		TRACESMITH_HIP_VA=${1:-0x4000000000}:64G
		export TRACESMITH_HIP_VA
	fi
}

# cuda_window: sets WIN_BASE and WIN_SIZE (decimal) to the address window
# CUDA capture places allocations in.  The default, 0x200000000000 +
# 512 GiB, lies outside ThreadSanitizer's memory layout, so under TSan the
# tests use 0x4000000000 + 64 GiB (TSan's low application range) and let
# the double honour it (its measured rules take far windows only).  Call it
# after unsetting the TRACESMITH_ and TSCUDA_ variables.
cuda_window() {
	if tsan_build; then
		TRACESMITH_CUDA_VA=0x4000000000:64G
		TSCUDA_DOUBLE_RESERVE=honour
		export TRACESMITH_CUDA_VA TSCUDA_DOUBLE_RESERVE
		WIN_BASE=274877906944
		WIN_SIZE=68719476736
	else
		WIN_BASE=35184372088832
		WIN_SIZE=549755813888
	fi
}
