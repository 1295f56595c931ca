#!/bin/sh
# A CUDA program killed (SIGKILL) inside a capture window, through the real
# interposer on the libcuda test double (issue 9: "a program killed in the
# middle of a window leaves a readable trace to the last flush"; the
# stand-in front-end's case is test_capture_windows.sh case 10, the Vulkan
# layer's test_capture_kill_vulkan.sh).  tscapture --launches 5-... of
# cuda_window_app, TRACESMITH_FLUSH_MS=100, the program killed from
# outside; no exit handler runs, so the window's file has no index.
#
#  1. Stalled after round 10 (--stall 10) and killed half a second later
#     (five flushes): tscapture exits 137 saying the program was killed by
#     signal 9 and that the file was not closed cleanly; tsinfo reads it
#     (exit 0, index rebuilt by scanning, no torn tail) and shows the window
#     record and the snapshot with its keyframe; it holds exactly the
#     window's launches up to the stall (launches 5-20, rounds 3-10), and
#     tsreplay replays it with all 24 checkpoints matched, equal by
#     position to the whole run's after launch 5.
#  2. Killed while it runs (--iterations 100000, once the window's file
#     passed 300,000 bytes): the same, with the launches and checkpoints the
#     file happens to hold: tsinfo reads it (a torn tail, if the kill cut
#     a flush, dropped with a warning), tsreplay matches every checkpoint,
#     and they are the first ones of a whole run's after launch 5.
#  3. That file with its last 100 bytes cut off (a flush torn by the kill):
#     tsinfo drops the torn tail with a warning and exits 0; tsreplay
#     replays what comes before it, matches every checkpoint there, and
#     exits 1 saying the trace is truncated and the records after the cut
#     are lost (docs/replay.md: a truncated trace is an error).
. "$TOP/tests/support/shell.sh"
DBL="$TOP/$BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA TRACESMITH_TRIGGER \
	TRACESMITH_API TRACESMITH_SNAPSHOT_FRAMES NVTX_INJECTION64_PATH TRACESMITH_FLUSH_MS
cuda_window
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CAP="$TOP/$BUILD/tscapture"
RP="$TOP/$BUILD/tsreplay"
INFO="$TOP/$BUILD/tsinfo"
PROG="$TOP/$BUILD/tests/cuda/cuda_window_app"
for t in "$CAP" "$RP" "$INFO" "$PROG"; do
	[ -x "$t" ] || fail "$t is not built"
done
CAPPID=
trap '[ -z "$CAPPID" ] || kill -9 "$CAPPID" 2>/dev/null; rm -rf "$T"' EXIT INT TERM

# ckpts TRACE FIRST: "object offset length hash" of each checkpoint whose
# call comes after launch FIRST (0: every checkpoint), in trace order.
ckpts() {
	"$INFO" --dump "$1" >"$T/ck.dump" 2>"$T/ck.err" || fail "tsinfo --dump $1"
	awk -v first="$2" '
		function field(name,   m) {
			if (match($0, " " name "=[^ ]*")) return substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
			return ""
		}
		/ cuda\.cu(LaunchKernel|LaunchKernelEx|LaunchCooperativeKernel|GraphLaunch) / {
			if (++n == first) lo = substr($1, 5) + 0 # $1 is "seq=N"
		}
		/ checkpoint call_seq=/ {
			if (first == 0 || (lo && field("call_seq") + 0 > lo))
				print field("object"), field("offset"), field("length"), field("hash")
		}' "$T/ck.dump"
}
# launches TRACE: the number of launch records.
launches() {
	"$INFO" --dump "$1" | grep -cE ' cuda\.cu(LaunchKernel|LaunchKernelEx|LaunchCooperativeKernel|GraphLaunch) ' || true
}

# killed NAME FILE WAIT ARGS...: tscapture --launches 5-200000 of
# cuda_window_app ARGS, the program SIGKILLed once WAIT (a shell test)
# holds, then tscapture's exit and messages checked.
killed() {
	kname=$1 kfile=$2 kwait=$3
	shift 3
	TRACESMITH_FLUSH_MS=100 "$CAP" -o "$T/$kname.sbt" --launches 5-200000 -- "$PROG" "$@" \
		>"$T/$kname.log" 2>&1 &
	CAPPID=$!
	i=0
	until eval "$kwait"; do
		i=$((i + 1))
		[ "$i" -le 600 ] || fail "$kname: not there in 60 s: $(tail -3 "$T/$kname.log")"
		sleep 0.1
	done
	app=$(pgrep -P "$CAPPID" -x cuda_window_app || true)
	[ -n "$app" ] || fail "$kname: no cuda_window_app under tscapture (pid $CAPPID)"
	kill -9 "$app"
	rc=0
	wait "$CAPPID" || rc=$?
	CAPPID=
	[ "$rc" -eq 137 ] || fail "$kname: tscapture exit $rc, expected 137: $(cat "$T/$kname.log")"
	grep -q "^tscapture: '$PROG' was killed by signal 9 (Killed)\$" "$T/$kname.log" ||
		fail "$kname: $(cat "$T/$kname.log")"
	grep -q "^tscapture: wrote $kfile ([0-9]* bytes, [0-9]* records, no index: not closed cleanly)\$" \
		"$T/$kname.log" || fail "$kname: $(grep '^tscapture: wrote' "$T/$kname.log" || echo 'no wrote line')"
	[ "$(ls "$T"/"$kname"*.sbt)" = "$kfile" ] || fail "$kname: files $(ls "$T"/"$kname"*.sbt)"
}

# info NAME FILE: tsinfo reads FILE (exit 0) into $T/NAME.info, which
# shows the window and its snapshot with the keyframe.
info() {
	expect_rc 0 "$1.info" "$INFO" "$2"
	has "$1.info" out "index        rebuilt by scanning"
	grep -q "^window       1 of the run, trigger 'launches 5-200000', first frame 1, first submit 1, first launch 5\$" \
		"$T/$1.info.out" || fail "$1: $(grep '^window' "$T/$1.info.out" || echo 'no window line')"
	grep -Eq '^snapshot     [1-9][0-9]* records \(seq 2\.\.[0-9]+\)$' "$T/$1.info.out" ||
		fail "$1: $(grep '^snapshot' "$T/$1.info.out" || echo 'no snapshot line')"
	has "$1.info" out "keyframes    1"
}

# replays NAME FILE WANT [RC]: tsreplay matches all WANT checkpoints of
# FILE and exits RC (default 0).
replays() {
	expect_rc "${4:-0}" "$1.replay" "$RP" --json "$2"
	n=$(json_field "$T/$1.replay.out" checkpoints)
	m=$(json_field "$T/$1.replay.out" matched)
	[ "$n" = "$3" ] && [ "$m" = "$3" ] ||
		fail "$1: $n checkpoints, $m matched, expected $3 of $3: $(cat "$T/$1.replay.out")"
}

# ---- 1: stalled after round 10, then killed --------------------------------------
F=$T/stall-launches-5-200000.sbt
killed stall "$F" 'grep -q "^cuda_window_app: stalled after round 10$" "$T/stall.log" 2>/dev/null && sleep 0.5' \
	--iterations 500 --stall 10
info stall "$F"
has stall.info out "torn tail    none"
[ "$(launches "$F")" -eq 16 ] || fail "stall: $(launches "$F") launches in the window, expected 16 (5-20)"
replays stall "$F" 24
# the replay says where the window starts, in launches, and that the file was
# cut short by the kill (no index), not finished
has stall.replay err "tsreplay: $F is window 1 of a captured run (trigger 'launches 5-200000'); it starts at launch 5 of that run"
has stall.replay err "tsreplay: note: $F was not closed by its capture (no index: the program was killed or died while recording); it holds the calls up to its last flush, and the replay ends there"
expect_rc 0 whole10 "$CAP" -o "$T/whole10.sbt" -- "$PROG" --iterations 10
ckpts "$F" 0 >"$T/stall.ck"
ckpts "$T/whole10.sbt" 5 >"$T/whole10.ck"
[ "$(wc -l <"$T/stall.ck")" -eq 24 ] || fail "stall: $(wc -l <"$T/stall.ck") checkpoints, expected 24"
cmp -s "$T/stall.ck" "$T/whole10.ck" ||
	fail "stall: the window's checkpoints differ from the whole run's after launch 5: $(diff "$T/stall.ck" "$T/whole10.ck" | head -5)"

# ---- 2: killed while it runs ---------------------------------------------------------
F=$T/run-launches-5-200000.sbt
killed run "$F" '[ "$(stat -c %s "$F" 2>/dev/null || echo 0)" -gt 300000 ]' --iterations 100000
info run "$F"
grep -Eq '^torn tail    (none|dropped at offset [0-9]+ \([0-9]+ bytes\))$' "$T/run.info.out" ||
	fail "run: $(grep '^torn tail' "$T/run.info.out" || echo 'no torn tail line')"
nl=$(launches "$F")
[ "$nl" -ge 2 ] || fail "run: $nl launches in the window"
ckpts "$F" 0 >"$T/run.ck"
k=$(wc -l <"$T/run.ck")
[ "$k" -ge 1 ] || fail "run: no checkpoint in the window"
replays run "$F" "$k"
# the whole run to one round past the last the window reached
rounds=$((2 + (nl + 1) / 2 + 1))
expect_rc 0 whole "$CAP" -o "$T/whole.sbt" -- "$PROG" --iterations "$rounds"
ckpts "$T/whole.sbt" 5 | head -n "$k" >"$T/whole.ck"
cmp -s "$T/run.ck" "$T/whole.ck" ||
	fail "run: the window's $k checkpoints are not the whole run's first after launch 5: $(diff "$T/run.ck" "$T/whole.ck" | head -5)"

# ---- 3: the same file with a torn tail -------------------------------------------------
size=$(wc -c <"$F" | tr -d ' ')
head -c $((size - 100)) "$F" >"$T/torn.sbt"
expect_rc 0 torn.info "$INFO" "$T/torn.sbt"
grep -Eq '^torn tail    dropped at offset [0-9]+ \([0-9]+ bytes\)$' "$T/torn.info.out" ||
	fail "torn: $(grep '^torn tail' "$T/torn.info.out" || echo 'no torn tail line')"
has torn.info err "torn.sbt: torn tail at offset"
ckpts "$T/torn.sbt" 0 >"$T/torn.ck"
kt=$(wc -l <"$T/torn.ck")
[ "$kt" -lt "$k" ] || fail "torn: $kt checkpoints left of $k"
replays torn "$T/torn.sbt" "$kt" 1
has torn.replay err "torn.sbt: the trace is truncated at offset"
grep -q '"result":"error","exit":1,"error":"[^"]*torn.sbt: the trace is truncated at offset [0-9]*; replayed up to seq [0-9]*, the records after it are lost' \
	"$T/torn.replay.out" || fail "torn: $(cat "$T/torn.replay.out")"
head -n "$kt" "$T/run.ck" | cmp -s - "$T/torn.ck" || fail "torn: its checkpoints are not the first of the killed window's"
echo "test_capture_kill_cuda: ok"
