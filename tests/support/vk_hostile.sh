# vk_hostile.sh - what the hostile-trace Vulkan tests share (source it after
# tests/support/vk_env.sh; the sourcing test sets T, R (tsreplay), I
# (tsinfo) and M (sbt_mutate)).

# replays NAME TRACE [--validate]: exit 0, every checkpoint equal (and, with
# --validate, no VUID- line).
replays() {
	rc=0
	timeout 120 "$R" ${3:-} "$2" >"$T/$1.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: exit $rc: $(tail -5 "$T/$1.out")"
	grep -q " 0 differ" "$T/$1.out" || fail "$1: $(tail -5 "$T/$1.out")"
	vk_env_clean "$T/$1.out" || fail "$1: the validation layer reported the replay"
}
# seq_of NAME N TRACE: the sequence number of the Nth (from 1) record of
# call NAME in $T/TRACE.sbt.
seq_of() {
	"$I" --dump "$T/$3.sbt" | sed -n "s/^seq=\([0-9]*\) .* vulkan\.$1 .*/\1/p" | sed -n "${2}p"
}
# hostile NAME SRC WANT OP...: the mutant of $T/SRC.sbt stops with exit 1,
# its stderr holding WANT.
hostile() {
	name=$1 src=$2 want=$3
	shift 3
	"$M" "$T/$src.sbt" "$T/$name.sbt" "$@" >/dev/null || fail "$name: sbt_mutate $*"
	rc=0
	timeout 120 "$R" "$T/$name.sbt" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" -ne 124 ] || fail "$name: tsreplay hung"
	[ "$rc" -eq 1 ] || fail "$name: exit $rc (expected 1): $(cat "$T/$name.err")"
	grep -qF -- "$want" "$T/$name.err" || fail "$name: '$want' not in: $(cat "$T/$name.err")"
}
