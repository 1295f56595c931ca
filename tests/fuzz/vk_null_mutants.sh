#!/bin/sh
# vk_null_mutants.sh N TRACE... - replays N checksum-valid mutants of each
# TRACE in-process against the null Vulkan device ($BUILD/tests/vk_null_main,
# tests/fuzz/vk_null.c) and counts how each ended (issue 12):
#   replayed  the replay ran to its end;
#   stopped   it stopped with a message naming the record (or the file);
#   unnamed   it stopped with a message that names neither (a failure);
#   crash     the process died: a sanitizer error, or the null device
#             aborted (the replay handed it what a driver would trip on);
#   hang      one replay ran past HANG_S seconds (default 20);
#   leak      LeakSanitizer found memory left unreachable after one
#             replay (vk_null_main checks after each file and stops there:
#             "leak FILE", exit 87), counted besides how it ended;
#   reports   UndefinedBehaviorSanitizer "runtime error" lines.
# Leak detection is on unless ASAN_OPTIONS says otherwise (detect_leaks=0).
# Mutants are made by tests/fuzz/sbt_mutate --batch (seeds FIRST..FIRST+N-1
# per trace, FIRST=1 unless set:
# 1 to 4 random mutations each; every checksum, index and trailer valid),
# BATCH at a time in a temporary folder.  The first lines of each crash,
# hang, leak or unnamed stop go to $OUT (default build/vk_null_mutants),
# with the mutant kept there (crash-<trace>-m<N>.sbt, hang-..., leak-...)
# for a regression input.  Prints the counts, one line per trace and a
# total; exit 0 when there was no crash, hang, leak, unnamed stop or
# report.
# Build with sanitizers first: make BUILD=build/asan CFLAGS="-O1 -g
# -fno-omit-frame-pointer" SAN="-fsanitize=address,undefined"
# build/asan/tests/vk_null_main build/asan/tests/sbt_mutate
set -eu
BUILD=${BUILD:-build/asan}
BATCH=${BATCH:-500}
HANG_S=${HANG_S:-20}
OUT=${OUT:-build/vk_null_mutants}
[ $# -ge 2 ] || { echo "usage: vk_null_mutants.sh N TRACE..." >&2; exit 2; }
N=$1
shift
R=$BUILD/tests/vk_null_main
M=$BUILD/tests/sbt_mutate
[ -x "$R" ] && [ -x "$M" ] || { echo "vk_null_mutants.sh: build $R and $M first" >&2; exit 2; }
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# ASan's own exit code tells a sanitizer error from a stop (exit 1)
ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1:abort_on_error=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS
unset DISPLAY

# vnm_count PATTERN FILE: lines matching (0 when none, or no file)
vnm_count() {
	c=$(grep -ac -- "$1" "$2" 2>/dev/null) || true
	echo "${c:-0}"
}

tot_rep=0 tot_stop=0 tot_unnamed=0 tot_crash=0 tot_hang=0 tot_leak=0 tot_reports=0
for trace in "$@"; do
	name=$(basename "$trace" .sbt)
	rep=0 stop=0 unnamed=0 crash=0 hang=0 leak=0 reports=0
	first=${FIRST:-1}
	end=$((first + N - 1))
	while [ "$first" -le "$end" ]; do
		count=$BATCH
		[ $((first + count - 1)) -le "$end" ] || count=$((end - first + 1))
		rm -rf "$T/m"
		mkdir "$T/m"
		"$M" --batch "$trace" "$T/m" "$first" "$count" >"$T/ops" ||
			{ echo "vk_null_mutants.sh: sbt_mutate --batch $trace failed" >&2; exit 1; }
		ls "$T/m" | sort -t m -k 2 -n | sed "s|^|$T/m/|" >"$T/todo"
		while [ -s "$T/todo" ]; do
			rc=0
			# shellcheck disable=SC2046
			timeout $((HANG_S * 2 + 60)) "$R" --timeout "$HANG_S" $(cat "$T/todo") >"$T/out" 2>"$T/err" || rc=$?
			rep=$((rep + $(vnm_count '^replayed ' "$T/out")))
			stop=$((stop + $(vnm_count '^stopped ' "$T/out")))
			reports=$((reports + $(vnm_count 'runtime error:' "$T/err")))
			grep -a 'runtime error:' "$T/err" | head -3 >>"$OUT/reports.txt" || true
			# stops whose message names no record
			grep -a '^stopped ' "$T/out" | grep -av 'record seq \|checkpoint seq \|/proc/self/fd/' >>"$OUT/unnamed.txt" || true
			unnamed=$((unnamed + $(grep -a '^stopped ' "$T/out" | grep -av 'record seq \|checkpoint seq \|/proc/self/fd/' | vnm_count . -)))
			last=$(grep -a '^run ' "$T/out" | sed 's/^run //' | tail -n 1)
			if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then
				break
			fi
			# the last file that started did not finish
			[ -n "$last" ] || { echo "vk_null_mutants.sh: $R failed before its first input (exit $rc): $(head -5 "$T/err")" >&2; exit 1; }
			m=$(basename "$last" .sbt)
			if grep -aq "^hang " "$T/out" || [ "$rc" -eq 124 ]; then
				hang=$((hang + 1))
				kind=hang
			elif grep -aq "^leak " "$T/out"; then
				leak=$((leak + 1))
				kind=leak
			else
				crash=$((crash + 1))
				kind=crash
			fi
			cp "$last" "$OUT/$kind-$name-$m.sbt"
			{
				echo "== $kind $name $m (exit $rc): $(grep "^$m.sbt:" "$T/ops")"
				grep -aE 'ERROR: (AddressSanitizer|LeakSanitizer)|SUMMARY|vk_null: |runtime error|leak of|#[0-9] ' "$T/err" | head -12
			} >>"$OUT/findings.txt"
			# go on after it
			sed -n "\|^$last\$|,\$p" "$T/todo" | sed 1d >"$T/todo.next"
			mv "$T/todo.next" "$T/todo"
		done
		first=$((first + count))
	done
	echo "$name: $N mutants: $rep replayed, $stop stopped naming the record, $unnamed stopped naming none, $crash crashes, $hang hangs, $leak leaks, $reports sanitizer reports"
	tot_rep=$((tot_rep + rep)) tot_stop=$((tot_stop + stop)) tot_unnamed=$((tot_unnamed + unnamed))
	tot_crash=$((tot_crash + crash)) tot_hang=$((tot_hang + hang)) tot_leak=$((tot_leak + leak))
	tot_reports=$((tot_reports + reports))
done
echo "total: $tot_rep replayed, $tot_stop stopped naming the record, $tot_unnamed stopped naming none, $tot_crash crashes, $tot_hang hangs, $tot_leak leaks, $tot_reports sanitizer reports"
[ $((tot_unnamed + tot_crash + tot_hang + tot_leak + tot_reports)) -eq 0 ]
