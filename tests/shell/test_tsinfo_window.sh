#!/bin/sh
# Trimmed traces (one capture window of a run) in tsinfo and tsreplay, on
# traces sbt_gen_window writes through the serializer as the capture
# runtime does: the summary shows the window, the records of its state
# snapshot and the frames with the run's numbers (text and --json); --dump
# decodes WINDOW and SNAPSHOT_END by name; tsreplay (with the testapi
# double's backend) says where the trace starts in the run, replays it with
# every checkpoint matching, and numbers its frames as the run did.  Also
# the frame rule (docs/tsinfo.md "Frames"): a present whose FRAME record
# was cut off counts as a frame.
. "${TOP:-.}/tests/support/shell.sh"
GEN="$BUILD/tests/programs/sbt_gen_window"
INFO="$BUILD/tsinfo"
RP="$BUILD/tests/programs/tsreplay_test"
W="$T/w.sbt"

"$GEN" --first-frame 100 --frames 11 --index 2 --trigger "frames 100-110" "$W" >"$T/manifest" ||
	fail "sbt_gen_window"
get() { awk -v k="$1" '$1 == k { print $2 }' "$T/manifest"; }

# ---- tsinfo summary ----------------------------------------------------------------
expect_rc 0 sum "$INFO" "$W"
has sum out "window       2 of the run, trigger 'frames 100-110', first frame 100, first submit 700, first launch 1"
has sum out "snapshot     $(get snapshot_records) records (seq $(get snapshot_first_seq)..$(get snapshot_last_seq))"
has sum out "frames       11 (100-110)"
grep -Eq '^    WINDOW +1$' "$T/sum.out" || fail "sum: WINDOW not counted: $(cat "$T/sum.out")"
grep -Eq '^    SNAPSHOT_END +1$' "$T/sum.out" || fail "sum: SNAPSHOT_END not counted"

expect_rc 0 json "$INFO" --json "$W"
python3 - "$T/json.out" "$T/manifest" <<'EOF' || fail "json: $(cat "$T/json.out")"
import json, sys
s = json.load(open(sys.argv[1]))
m = {l.split()[0]: int(l.split()[1]) for l in open(sys.argv[2])}
assert s["window"] == {"index": 2, "trigger": "frames 100-110", "first_frame": 100,
                       "first_submit": 700, "first_launch": 1}, s["window"]
assert s["snapshot"] == {"records": m["snapshot_records"], "complete": True,
                         "first_seq": m["snapshot_first_seq"],
                         "last_seq": m["snapshot_last_seq"]}, s["snapshot"]
assert (s["frames"], s["first_frame"], s["last_frame"], s["frames_cut"]) == (11, 100, 110, 0), s
EOF

# ---- tsinfo --dump -----------------------------------------------------------------
expect_rc 0 dump "$INFO" --dump "$W"
head -n 1 "$T/dump.out" | grep -q '^seq=1 t=[0-9.]* tid=4242 WINDOW index=2 first_frame=100 first_submit=700 first_launch=1 trigger="frames 100-110"$' ||
	fail "dump: WINDOW line: $(head -n 1 "$T/dump.out")"
grep -q "^seq=$(($(get snapshot_last_seq) + 1)) t=[0-9.]* tid=4242 SNAPSHOT_END\$" "$T/dump.out" ||
	fail "dump: SNAPSHOT_END line: $(grep SNAPSHOT_END "$T/dump.out")"
[ "$(grep -c ' FRAME frame=' "$T/dump.out")" -eq 11 ] || fail "dump: FRAME records"
grep -q ' FRAME frame=100$' "$T/dump.out" && grep -q ' FRAME frame=110$' "$T/dump.out" ||
	fail "dump: FRAME numbers"
expect_rc 0 dumpjson "$INFO" --dump --json "$W"
python3 - "$T/dumpjson.out" <<'EOF' || fail "dump --json: $(head -n 4 "$T/dumpjson.out")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
w = recs[0]
assert w["type"] == 7 and w["name"] == "WINDOW", w
assert w["args"] == {"index": 2, "first_frame": 100, "first_submit": 700, "first_launch": 1,
                     "trigger": "frames 100-110"}, w
e = [r for r in recs if r["name"] == "SNAPSHOT_END"]
assert len(e) == 1 and e[0]["type"] == 8 and e[0]["args"] == {} and e[0]["payload_len"] == 0, e
EOF

# ---- tsreplay -------------------------------------------------------------------------
expect_rc 0 replay "$RP" "$W"
has replay err "tsreplay: $W is window 2 of a captured run (trigger 'frames 100-110'); it starts at frame 100 of that run, and frames keep the run's numbers"
has replay out "tsreplay: checkpoints: $(get checkpoints) compared, $(get checkpoints) matched, 0 differ"
has replay out "tsreplay: frames 100-110 replayed (11, numbered as in the captured run)"
expect_rc 0 replay.q "$RP" -q "$W"
[ ! -s "$T/replay.q.err" ] && [ ! -s "$T/replay.q.out" ] || fail "replay -q printed something"
expect_rc 0 replay.json "$RP" --json "$W"
python3 - "$T/replay.json.out" <<'EOF' || fail "replay --json: $(cat "$T/replay.json.out")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["result"] == "match" and s["mismatched"] == 0 and s["matched"] == 11, s
assert s["window"] == {"index": 2, "trigger": "frames 100-110", "first_frame": 100,
                       "first_submit": 700, "first_launch": 1}, s["window"]
assert (s["frames"], s["first_frame"], s["last_frame"], s["frames_cut"]) == (11, 100, 110, 0), s
EOF

# a range (seq numbers) keeps the run's frame numbers: seq 13 starts frame 102
# (WINDOW, 2 snapshot records, SNAPSHOT_END, then 4 records a frame)
expect_rc 0 replay.range "$RP" --range 13: "$W"
has replay.range out "tsreplay: frames 102-110 replayed (9, numbered as in the captured run)"

# ---- a trace cut inside its snapshot ------------------------------------------------
"$GEN" --no-snapshot-end "$T/nosnap.sbt" >/dev/null || fail "sbt_gen_window --no-snapshot-end"
expect_rc 0 nosnap "$INFO" "$T/nosnap.sbt"
has nosnap out "snapshot     incomplete: 2 records and no SNAPSHOT_END (the trace ends inside its state snapshot)"
has nosnap out "frames       0"

# ---- a whole run: no window, frames from 1 ------------------------------------------
"$GEN" --no-window --frames 4 "$T/whole.sbt" >/dev/null || fail "sbt_gen_window --no-window"
expect_rc 0 whole "$INFO" "$T/whole.sbt"
grep -q '^window\|^snapshot' "$T/whole.out" && fail "whole: a window or snapshot line"
has whole out "frames       4 (1-4)"
expect_rc 0 whole.json "$INFO" --json "$T/whole.sbt"
has whole.json out '"frames":4,'
has whole.json out '"first_frame":1,"last_frame":4,"frames_cut":0,"window":null,"snapshot":null'
expect_rc 0 whole.replay "$RP" "$T/whole.sbt"
grep -q 'is window' "$T/whole.replay.err" && fail "whole.replay: called a window"
has whole.replay out "tsreplay: frames 1-4 replayed (4, numbered as in the captured run)"

# ---- the frame rule: a present cut before its FRAME record is a frame ------------------
"$GEN" --presents "$T/p.sbt" >/dev/null || fail "sbt_gen_window --presents"
expect_rc 0 presents "$INFO" "$T/p.sbt"
has presents out "frames       11 (100-110)"
"$GEN" --presents --cut "$T/cut.sbt" >"$T/cut.manifest" || fail "sbt_gen_window --presents --cut"
expect_rc 0 cut "$INFO" "$T/cut.sbt"
has cut out "frames       11 (100-110; the trace ends after the present of frame 110, before its FRAME record)"
grep -Eq '^    FRAME +10$' "$T/cut.out" || fail "cut: want 10 FRAME records: $(grep FRAME "$T/cut.out")"
expect_rc 0 cut.json "$INFO" --json "$T/cut.sbt"
has cut.json out '"frames":11,'
has cut.json out '"first_frame":100,"last_frame":110,"frames_cut":1,'
# cut without presents: nothing ended frame 110, so it is not counted
"$GEN" --cut "$T/cutnp.sbt" >/dev/null || fail "sbt_gen_window --cut"
expect_rc 0 cutnp "$INFO" "$T/cutnp.sbt"
has cutnp out "frames       10 (100-109)"
echo ok
