#!/bin/sh
# tsreplay --profile (docs/replay.md "Profiling") and the emulator's use of
# its sidecar (docs/emulator.md "Measured durations"):
# - CUDA, on the libcuda test double: cuda_driver_app captured with
#   tscapture, replayed with --profile: every checkpoint still matches, the
#   trace is byte-identical before and after, TRACE.profile holds the trace
#   id of the trace's header, one entry per launch, copy and memset the
#   trace holds (the same seqs), each with end >= start, and the count the
#   summary and --json report; --profile=FILE writes there instead;
# - tsexport --summary --json with the sidecar says its durations are
#   measured for every command, each critical-path command's cost is its
#   entry's end - start, and the makespan lies between the longest command
#   and the sum of all of them; its JSON export marks every slice's
#   duration "measured"; --no-profile goes back to the cost model;
# - the sidecar of another trace (a second capture: another trace id) is
#   refused by tsexport --profile and when found beside the trace, with a
#   message naming both trace ids (exit 2); a sidecar cut short too;
# - cuda_graph_app (graph launches, a stream capture, its primary context
#   released at its end): one entry per launch, copy and memset outside the
#   capture, graph launches included; the emulator's durations are "mixed"
#   (a graph's nodes keep the model's);
# - --profile with --check-determinism is a usage error (exit 2);
# - Vulkan on lavapipe, under the Khronos validation layer (no VUID-):
#   vk_compute replayed with --profile gives one entry per dispatch and
#   copy of its submits, on its queue, end >= start, and tsexport uses all
#   of them.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/shell.sh"
fail() { vk_env_fail "$@"; }
RP="$TOP/$BUILD/tsreplay"
X="$TOP/$BUILD/tsexport"
INFO="$TOP/$BUILD/tsinfo"

# check_entries NAME SIDECAR TRACE: header and entries well-formed, the
# trace id the trace's; the entry seqs into $T/NAME.seqs (sorted).
check_entries() {
	ce_id=$("$INFO" --json "$3" | sed 's/.*"trace_id":"\([0-9a-f]*\)".*/\1/')
	[ "$(sed -n 1p "$2")" = "tsprofile 1" ] || fail "$1: first line '$(sed -n 1p "$2")'"
	[ "$(sed -n 2p "$2")" = "trace $ce_id" ] ||
		fail "$1: '$(sed -n 2p "$2")' is not the trace's id $ce_id"
	awk '$1 == "entry" && ($6 + 0 < $5 + 0 || NF != 6) { bad = 1 } END { exit bad }' "$2" ||
		fail "$1: an entry ends before it starts: $(cat "$2")"
	ce_n=$(grep -c '^entry ' "$2" || true)
	[ "$(tail -n 1 "$2")" = "entries $ce_n" ] || fail "$1: last line '$(tail -n 1 "$2")', $ce_n entries"
	grep '^entry ' "$2" | cut -d' ' -f2 | sort -n >"$T/$1.seqs"
}

# check_measured NAME SIDECAR JSON: every command measured; critical-path
# costs are the entries' durations; longest <= makespan <= sum.
check_measured() {
	python3 - "$2" "$3" "$1" <<'EOF' || fail "$1: the summary does not agree with the sidecar"
import json, sys
prof, summ, name = sys.argv[1], sys.argv[2], sys.argv[3]
dur = {}
for line in open(prof):
    f = line.split()
    if f and f[0] == "entry":
        dur[int(f[1])] = int(f[5]) - int(f[4])
s = json.load(open(summ))["summary"]
d = s["durations"]
assert d["source"] == "measured" and d["measured"] == s["commands"] and d["modeled"] == 0, d
assert d["profile"] == prof, d
for c in s["critical_path"]:
    assert c["cost_ns"] == dur[c["seq"]], (c, dur.get(c["seq"]))
assert sum(c["cost_ns"] for c in s["critical_path"]) == s["critical_ns"], s
assert max(dur.values()) <= s["makespan_ns"] <= sum(dur.values()), (s["makespan_ns"], dur)
print(name, "commands", s["commands"], "makespan", s["makespan_ns"], "critical", s["critical_ns"])
EOF
}

# ---- CUDA on the test double --------------------------------------------------------
DBL="$TOP/$BUILD/tests/doubles/cuda"
if [ -e "$DBL/libcuda.so.1" ]; then
	(
	unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
		TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
		TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TRACESMITH_CUDA_VA
	cuda_window
	export TSCUDA_DOUBLE_QUIET=1
	export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	CAP="$TOP/$BUILD/tscapture"
	APP="$TOP/$BUILD/tests/cuda/cuda_driver_app"
	expect_rc 0 cap "$CAP" -o "$T/app.sbt" -- "$APP" --size 3000
	expect_rc 0 cap2 "$CAP" -o "$T/other.sbt" -- "$APP" --size 1000
	sum_before=$(sha256sum <"$T/app.sbt")

	expect_rc 0 prof "$RP" --profile "$T/app.sbt"
	[ "$(sha256sum <"$T/app.sbt")" = "$sum_before" ] || fail "--profile changed the trace"
	[ -s "$T/app.sbt.profile" ] || fail "--profile wrote no $T/app.sbt.profile"
	[ ! -e "$T/app.sbt.profile.tmp" ] || fail "--profile left its temporary file"
	check_entries cuda "$T/app.sbt.profile" "$T/app.sbt"
	# the trace's launches, copies and memsets, as the dump names them
	"$INFO" --dump "$T/app.sbt" |
		grep -E '^seq=[0-9]+ .*cuda\.(cuLaunchKernel|cuLaunchKernelEx|cuLaunchCooperativeKernel|cuGraphLaunch|cuMemcpy[A-Za-z0-9]*|cuMemset[A-Za-z0-9]*)[ :]' |
		sed 's/^seq=\([0-9]*\) .*/\1/' | sort -n >"$T/cuda.want"
	[ -s "$T/cuda.want" ] || fail "no launch, copy or memset found in the dump of app.sbt"
	cmp -s "$T/cuda.want" "$T/cuda.seqs" ||
		fail "the sidecar's seqs ($(tr '\n' ' ' <"$T/cuda.seqs")) are not the trace's launches, copies and memsets ($(tr '\n' ' ' <"$T/cuda.want"))"
	n=$(wc -l <"$T/cuda.seqs" | tr -d ' ')
	has prof out "tsreplay: profile: $n commands timed on "
	has prof out "written to $T/app.sbt.profile"
	grep -q '^device TraceSmith' "$T/app.sbt.profile" ||
		fail "device line: $(grep '^device' "$T/app.sbt.profile")"
	# the replay still matches the capture, and --json reports the profile
	expect_rc 0 profjson "$RP" --json --profile="$T/elsewhere.profile" "$T/app.sbt"
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["result"] == "match" and j["mismatched"] == 0 and j["checkpoints"] > 0, j
p = j["profile"]
assert p["file"] == sys.argv[2] and p["commands"] == int(sys.argv[3]), p
' "$T/profjson.out" "$T/elsewhere.profile" "$n" || fail "--json --profile=FILE: $(cat "$T/profjson.out")"
	check_entries cuda2 "$T/elsewhere.profile" "$T/app.sbt"
	cmp -s "$T/cuda.seqs" "$T/cuda2.seqs" || fail "--profile=FILE timed other commands"

	# the emulator with the sidecar found beside the trace
	expect_rc 0 emu "$X" --summary --json "$T/app.sbt"
	check_measured cuda "$T/app.sbt.profile" "$T/emu.out"
	expect_rc 0 emutext "$X" --summary "$T/app.sbt"
	has emutext out "durations: measured for $n of $n commands (replay profile $T/app.sbt.profile, device TraceSmith"
	# the exports say which durations they show
	expect_rc 0 emujson "$X" -f json -o "$T/app.json" "$T/app.sbt"
	expect_rc 0 emujsonnone "$X" -f json -o "$T/none.json" --no-profile "$T/app.sbt"
	python3 -c '
import json, sys
for path, want in ((sys.argv[1], "measured"), (sys.argv[2], "model")):
    xs = [e for e in json.load(open(path))["traceEvents"] if e.get("ph") == "X"]
    assert xs and all(e["args"]["duration"] == want for e in xs), (path, want)
' "$T/app.json" "$T/none.json" || fail "the JSON export does not say its durations are measured"
	expect_rc 0 emunone "$X" --summary --no-profile "$T/app.sbt"
	has emunone out "durations: cost model (no replay profile)"

	# another trace's sidecar is refused, named with both ids
	other_id=$("$INFO" --json "$T/other.sbt" | sed 's/.*"trace_id":"\([0-9a-f]*\)".*/\1/')
	app_id=$("$INFO" --json "$T/app.sbt" | sed 's/.*"trace_id":"\([0-9a-f]*\)".*/\1/')
	[ "$other_id" != "$app_id" ] || fail "two captures have one trace id $app_id"
	expect_rc 2 wrong "$X" --summary --profile "$T/app.sbt.profile" "$T/other.sbt"
	has wrong err "$T/app.sbt.profile is the profile of another trace (trace id $app_id), not of $T/other.sbt (trace id $other_id)"
	cp "$T/app.sbt.profile" "$T/other.sbt.profile"
	expect_rc 2 wrongauto "$X" --summary "$T/other.sbt"
	has wrongauto err "is the profile of another trace (trace id $app_id)"
	expect_rc 2 wrongemu "$RP" --emulate "$T/other.sbt"
	has wrongemu err "is the profile of another trace"
	head -n 4 "$T/app.sbt.profile" >"$T/cut.profile"
	expect_rc 2 cut "$X" --summary --profile "$T/cut.profile" "$T/app.sbt"
	has cut err "$T/cut.profile: cut short"

	# a program with graph launches, whose primary context is released at
	# its end (measured before it goes): each launch is one entry; a graph
	# of several nodes keeps the model's durations for its nodes
	expect_rc 0 gcap "$CAP" -o "$T/graph.sbt" -- "$TOP/$BUILD/tests/cuda/cuda_graph_app"
	expect_rc 0 gprof "$RP" --profile "$T/graph.sbt"
	check_entries graph "$T/graph.sbt.profile" "$T/graph.sbt"
	# the launches, copies and memsets outside stream capture (those inside
	# ran at the graph's launches)
	"$INFO" --dump "$T/graph.sbt" | awk '
		/ cuda\.cuStreamBeginCapture / { cap = 1 }
		/ cuda\.cuStreamEndCapture / { cap = 0 }
		!cap && / cuda\.(cuLaunchKernel|cuLaunchKernelEx|cuLaunchCooperativeKernel|cuGraphLaunch|cuMemcpy[A-Za-z0-9]*|cuMemset[A-Za-z0-9]*) / {
			sub(/^seq=/, ""); print $1 }' | sort -n >"$T/graph.want"
	grep -c . "$T/graph.want" >/dev/null || fail "no work outside stream capture in cuda_graph_app's trace"
	"$INFO" --dump "$T/graph.sbt" | grep -q ' cuda\.cuGraphLaunch ' || fail "cuda_graph_app's trace has no cuGraphLaunch"
	cmp -s "$T/graph.want" "$T/graph.seqs" ||
		fail "cuda_graph_app: the sidecar's seqs ($(tr '\n' ' ' <"$T/graph.seqs")) are not its work outside capture ($(tr '\n' ' ' <"$T/graph.want"))"
	expect_rc 0 gemu "$X" --summary --json "$T/graph.sbt"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["summary"]["durations"]
assert d["source"] == "mixed" and d["measured"] > 0 and d["modeled"] > 0, d
' "$T/gemu.out" || fail "cuda_graph_app: durations $(cat "$T/gemu.out")"

	expect_rc 2 determinism "$RP" --profile --check-determinism "$T/app.sbt"
	has determinism err "--profile times one run; it does not go with --check-determinism"
	) || exit 1
else
	echo "no CUDA toolkit headers: the CUDA part is not built"
fi

# ---- Vulkan on lavapipe, under validation ------------------------------------------
vk_env_init
P=$VK_ENV_BUILD/tests/programs
unset DISPLAY
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/vk.sbt vk_env_run "$T/vk.capture.log" "$P/vk_compute" --size 4096 --submits 3 ||
	fail "vk_compute under VK_LAYER_tracesmith"
sum_before=$(sha256sum <"$T/vk.sbt")
vk_env_layers_validation
vk_env_run "$T/vk.replay.log" "$VK_ENV_BUILD/tsreplay" --profile "$T/vk.sbt" ||
	fail "tsreplay --profile on vk_compute (validation above)"
[ "$(sha256sum <"$T/vk.sbt")" = "$sum_before" ] || fail "--profile changed the Vulkan trace"
check_entries vk "$T/vk.sbt.profile" "$T/vk.sbt"
# the dispatches and copies recorded into the command buffers it submitted
"$INFO" --dump "$T/vk.sbt" |
	grep -E '^seq=[0-9]+ .*vulkan\.vkCmd(Dispatch|CopyBuffer|Fill|Update|CopyImage|Blit|Clear|Draw)[A-Za-z0-9]*[ :]' |
	sed 's/^seq=\([0-9]*\) .*/\1/' | sort -n >"$T/vk.want"
[ -s "$T/vk.want" ] || fail "no dispatch or copy found in the dump of vk.sbt"
cmp -s "$T/vk.want" "$T/vk.seqs" ||
	fail "the Vulkan sidecar's seqs ($(tr '\n' ' ' <"$T/vk.seqs")) are not vk_compute's commands ($(tr '\n' ' ' <"$T/vk.want"))"
grep -q '^device llvmpipe' "$T/vk.sbt.profile" || fail "device line: $(grep '^device' "$T/vk.sbt.profile")"
n=$(wc -l <"$T/vk.seqs" | tr -d ' ')
grep -q "tsreplay: profile: $n commands timed on llvmpipe" "$T/vk.replay.log" ||
	fail "summary: $(grep 'profile' "$T/vk.replay.log")"
expect_rc 0 vkemu "$X" --summary --json "$T/vk.sbt"
check_measured vk "$T/vk.sbt.profile" "$T/vkemu.out"
echo "ok: tsreplay --profile (CUDA double, lavapipe) and its sidecar in the emulator"
