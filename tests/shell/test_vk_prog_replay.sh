#!/bin/sh
# Capture -> replay of the Vulkan test programs (issue 3), everything over
# the Khronos validation layer (any VUID- line fails):
# - vk_compute, vk_offscreen, vk_multithread (both submit modes, and each
#   thread submitting with all inputs in one shared mapping, and
#   vk_compute on its 17th live instance after 20 made in turn): captured
#   with VK_LAYER_tracesmith, the program prints the same hash as without
#   the layer, the trace has checkpoints, and tsreplay replays it with every
#   checkpoint hash equal to the capture's (exit 0);
# - vk_compute's results (device-written, read through mapped memory) are
#   nowhere in its trace, while its inputs (host-written) are;
# - a copy of that trace with one byte of a captured input changed makes
#   tsreplay report a checkpoint mismatch (exit 3) at the first checkpoint
#   after the altered write, at the offset of the altered word's block;
# - the trace cut in half replays up to the damage and stops with a message
#   naming the truncation (exit 1).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
P="$BUILD/tests/programs"
TOOL=$P/vk_tracetool
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
[ -x "$BUILD/tsreplay" ] || fail "$BUILD/tsreplay is not built"
[ -x "$TOOL" ] || fail "$TOOL is not built"
unset DISPLAY # the programs never present; replay offscreen

# capture NAME PROGRAM ARGS...: plain run, then a capture into $T/NAME.sbt;
# both clean under validation and printing the same line.
capture() {
	name=$1
	shift
	vk_env_layers_validation
	vk_env_run "$T/$name.plain.log" "$@" || fail "$name: plain run"
	vk_env_layers_ours
	TRACESMITH_OUTPUT=$T/$name.sbt vk_env_run "$T/$name.capture.log" "$@" ||
		fail "$name: run under VK_LAYER_tracesmith"
	[ -s "$T/$name.sbt" ] || fail "$name: the layer wrote no trace"
	prog=$(basename "$1")
	want=$(grep "^$prog:" "$T/$name.plain.log" | sed 's/ loop_ms .*//')
	got=$(grep "^$prog:" "$T/$name.capture.log" | sed 's/ loop_ms .*//')
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		fail "$name: printed '$got' under the layer, '$want' without"
}

# replay NAME MIN_CHECKPOINTS: tsreplay over validation, every checkpoint
# equal to the capture's.
replay() {
	"$TOOL" checkpoints "$T/$1.sbt" >"$T/$1.cps" || fail "$1: vk_tracetool checkpoints"
	n=$(wc -l <"$T/$1.cps" | tr -d ' ')
	[ "$n" -ge "$2" ] || fail "$1: $n checkpoints in the trace, expected at least $2"
	vk_env_layers_validation
	vk_env_run "$T/$1.replay.log" "$VK_ENV_BUILD/tsreplay" "$T/$1.sbt" ||
		fail "$1: tsreplay (exit 3 means a checkpoint differs: see above)"
}

capture compute "$P/vk_compute" --size 4096 --submits 6 --labels \
	--results "$T/results.bin" --inputs "$T/inputs.bin"
replay compute 6
capture offscreen "$P/vk_offscreen" --frames 3
replay offscreen 3
capture multithread "$P/vk_multithread" --threads 4 --rounds 3
replay multithread 3
capture multithread_ts "$P/vk_multithread" --threads 4 --rounds 3 --thread-submit
# With each thread submitting, the layer checkpoints only once every
# submission so far is known complete: at least one per round.
replay multithread_ts 3
# The same with every thread's inputs suballocated from one mapping: a
# submission publishes its own thread's range only (under make tsan this
# is where publishing the whole mapping raced with the other threads).
capture multithread_shared "$P/vk_multithread" --threads 4 --rounds 3 --thread-submit \
	--shared-memory
replay multithread_shared 3
# Many live instances and devices (piglit's glx-multithread-clearbuffer on
# zink keeps 16 of each): the work runs on the 17th, after 20 instances and
# devices were created and destroyed one after the other.  tsreplay once
# stopped at a ninth live instance, and at the 17th instance made in turn
# ("too many physical devices": a destroyed instance's were never freed).
capture instances "$P/vk_compute" --size 1024 --submits 3 --churn 20 --instances 17
replay instances 3

# ---- results are not host writes; inputs are ---------------------------------
"$TOOL" find "$T/compute.sbt" "$T/results.bin" >"$T/find_results" || fail "find results"
grep -q ' hits 0$' "$T/find_results" ||
	fail "vk_compute's results are in its trace (device writes captured as host writes): $(head -3 "$T/find_results")"
"$TOOL" find "$T/compute.sbt" "$T/inputs.bin" >"$T/find_inputs" || fail "find inputs"
grep -q ' hits 0$' "$T/find_inputs" && fail "vk_compute's inputs are not in its trace"

# ---- an altered input is caught at the right checkpoint and offset ----------
# Word 1000 of round 0's inputs, its byte 1.
at=$((1000 * 4 + 1))
out=$("$TOOL" poke "$T/compute.sbt" "$T/poked.sbt" --pattern "$T/inputs.bin" --at $at --xor 0x40) ||
	fail "poke"
# poked blob B byte K seq S memory 0xM memory_offset O
set -- $out
[ "$1 $2" = "poked blob" ] && [ "$6" = seq ] || fail "poke printed '$out'"
wseq=$7 memory=$9 moff=${11}
vk_env_layers_validation
rc=0
"$VK_ENV_BUILD/tsreplay" "$T/poked.sbt" >"$T/poked.out" 2>"$T/poked.err" || rc=$?
vk_env_clean "$T/poked.out" || fail "validation messages in the altered replay"
[ "$rc" = 3 ] || fail "altered trace: tsreplay exit $rc, expected 3: $(cat "$T/poked.err")"
python3 - "$T/compute.cps" "$T/poked.err" "$wseq" "$memory" "$moff" <<'EOF' || fail "altered trace: wrong place"
import re, sys
cps_path, err_path, wseq, memory, moff = sys.argv[1:]
wseq, moff = int(wseq), int(moff)
cps = []
for line in open(cps_path):
    f = line.split()  # checkpoint seq S call C object 0xH offset O length N block K
    cps.append(dict(seq=int(f[2]), call=int(f[4]), obj=f[6], off=int(f[8]), len=int(f[10]),
                    block=int(f[12])))
after = [c for c in cps if c["seq"] > wseq]
assert after, "no checkpoint after the altered write (seq %d)" % wseq
first_call = after[0]["call"]
# The observation point right after the write: every checkpoint taken there.
allowed = {}
for c in after:
    if c["call"] != first_call:
        break
    if c["off"] <= moff < c["off"] + c["len"]:
        allowed[c["seq"]] = c["off"] + (moff - c["off"]) // c["block"] * c["block"]
assert allowed, "no checkpoint at call %d covers offset %d" % (first_call, moff)
err = open(err_path).read()
m = re.search(r"differs from the capture at checkpoint seq (\d+)", err)
assert m, "no mismatch report in: " + err
seq = int(m.group(1))
assert seq in allowed, "mismatch reported at checkpoint seq %d, expected one of %s" % (
    seq, sorted(allowed))
m = re.search(r"offset:\s+(\d+)", err)
assert m and int(m.group(1)) == allowed[seq], "reported offset %s, expected %d" % (
    m.group(1) if m else None, allowed[seq])
EOF

# ---- a truncated trace replays up to the damage -----------------------------
# Flushing every millisecond spreads the records over many chunks, as a long
# capture would; the file is cut in the middle of its last records chunk, so
# the chunks before it hold complete records to replay.  (Half the file, as
# before, held none when the writer's first flush came late: on a loaded
# machine its first chunk of records once started past the middle.)
export TRACESMITH_FLUSH_MS=1
capture big "$P/vk_compute" --size 65536 --submits 12
unset TRACESMITH_FLUSH_MS
"$VK_ENV_BUILD/tsinfo" --chunks "$T/big.sbt" >"$T/chunks.txt" || fail "tsinfo --chunks: exit $?"
nrec=$(awk '$3 == "records"' "$T/chunks.txt" | wc -l | tr -d ' ')
[ "$nrec" -ge 2 ] || fail "truncated trace: the capture has $nrec records chunks, want 2 or more: $(cat "$T/chunks.txt")"
# columns: chunk offset type codec raw stored entries first_seq
cut=$(awk '$3 == "records" { at = $2 + int($6 / 2) } END { print at }' "$T/chunks.txt")
head -c "$cut" "$T/big.sbt" >"$T/cut.sbt"
# Replay under validation only: with our layer still enabled from the
# capture above, tsreplay itself would be recorded into the working folder.
vk_env_layers_validation
rc=0
"$VK_ENV_BUILD/tsreplay" "$T/cut.sbt" >"$T/cut.out" 2>"$T/cut.err" || rc=$?
[ "$rc" = 1 ] || fail "truncated trace: exit $rc, expected 1: $(cat "$T/cut.err")"
grep -q "$T/cut.sbt: the trace is truncated at offset " "$T/cut.err" ||
	fail "truncated trace: $(cat "$T/cut.err")"
last=$(sed -n 's/.*replayed up to seq \([0-9]*\).*/\1/p' "$T/cut.err" | head -n 1)
[ -n "$last" ] && [ "$last" -gt 0 ] || fail "truncated trace: nothing replayed: $(cat "$T/cut.err")"
vk_env_clean "$T/cut.out" || fail "validation messages in the truncated replay"
echo ok
