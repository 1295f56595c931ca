#!/bin/sh
# replay_mutants.sh - mutants of real traces through tsreplay (issue 12).
#
#   BUILD=build sh tests/fuzz/replay_mutants.sh N [TRACE...]
#
# Captures vk_compute and vk_offscreen under VK_LAYER_tracesmith (when no
# TRACE is given), then replays N mutants (tests/fuzz/sbt_mutate --seed S,
# S = 1..N, the traces taken in turn) with tsreplay on lavapipe, each bounded
# by MUTANT_TIMEOUT seconds (default 60).  Every run is one of:
#   clean    exit 0 (the mutation changed nothing that matters), exit 3 (the
#            replay ran and differs from the capture: tsreplay says where), or
#            exit 1 with "record seq N CALL: REASON" (or a reader's message)
#   crash    killed by a signal, or a sanitizer report on stderr
#   hang     killed by the bound
#   other    any other exit, or exit 1 without a message naming a record
# Prints one line per run that is not clean (with the sbt_mutate ops that
# reproduce it) and a summary; exits 1 if any run crashed or hung.  With an
# ASan build (BUILD=build/asan, make asan) the sanitizer reports count.
# TSREPLAY=PATH replays the same mutants with another tsreplay (a baseline);
# MUTANT_FIRST=S starts at seed S (default 1).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
N=${1:?usage: replay_mutants.sh N [TRACE...]}
shift
. "$TOP/tests/support/vk_env.sh"
vk_env_init
R=${TSREPLAY:-$VK_ENV_BUILD/tsreplay} # another tsreplay (a baseline) replays the same mutants
M=$VK_ENV_BUILD/tests/sbt_mutate
W=$(mktemp -d "${TMPDIR:-/tmp}/mutants.XXXXXX")
trap 'rm -rf "$W"' EXIT
unset DISPLAY
LIMIT=${MUTANT_TIMEOUT:-60}
ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS

if [ $# -eq 0 ]; then
	vk_env_layers_ours
	TRACESMITH_OUTPUT=$W/comp.sbt vk_env_run "$W/comp.log" "$VK_ENV_BUILD/tests/programs/vk_compute" \
		--size 4096 --submits 4 || vk_env_fail "vk_compute under VK_LAYER_tracesmith"
	TRACESMITH_OUTPUT=$W/off.sbt vk_env_run "$W/off.log" "$VK_ENV_BUILD/tests/programs/vk_offscreen" \
		--frames 3 || vk_env_fail "vk_offscreen under VK_LAYER_tracesmith"
	vk_env_layers_none
	set -- "$W/comp.sbt" "$W/off.sbt"
fi
ntraces=$#
clean=0 crash=0 hang=0 other=0 unchanged=0
s=${MUTANT_FIRST:-1} # the first seed
last=$((s + N - 1))
start=$(date +%s)
while [ "$s" -le "$last" ]; do
	i=$(((s - 1) % ntraces + 1))
	eval "trace=\${$i}"
	"$M" "$trace" "$W/m.sbt" --seed "$s" >"$W/ops" 2>"$W/mut.err" || {
		other=$((other + 1))
		echo "other: seed $s ($trace): sbt_mutate: $(cat "$W/mut.err")"
		s=$((s + 1))
		continue
	}
	rc=0
	timeout -s KILL "$LIMIT" "$R" "$W/m.sbt" >"$W/out" 2>"$W/err" || rc=$?
	ops="--seed $s: $(tr '\n' ' ' <"$W/ops")"
	if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$W/err"; then
		crash=$((crash + 1))
		echo "crash (sanitizer): $trace $ops: $(grep -m1 "ERROR\|runtime error" "$W/err" | cut -c1-200)"
	elif [ "$rc" -eq 137 ]; then
		hang=$((hang + 1))
		echo "hang: $trace $ops"
	elif [ "$rc" -gt 128 ]; then
		crash=$((crash + 1))
		echo "crash (signal $((rc - 128))): $trace $ops"
	elif [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; then
		clean=$((clean + 1))
		unchanged=$((unchanged + 1))
	elif [ "$rc" -eq 1 ] && grep -q "record seq [0-9]* \|tsreplay: .*: " "$W/err"; then
		clean=$((clean + 1))
	else
		other=$((other + 1))
		echo "other (exit $rc): $trace $ops: $(tail -n 1 "$W/err" | cut -c1-200)"
	fi
	s=$((s + 1))
done
echo "mutants: $N over $ntraces trace(s) in $(($(date +%s) - start)) s: $clean clean ($unchanged replayed" \
	"to the end, $((clean - unchanged)) stopped with a message), $crash crashed, $hang hung, $other other"
[ "$crash" -eq 0 ] && [ "$hang" -eq 0 ]
