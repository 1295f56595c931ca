#!/bin/sh
# GPU only (make test-gpu): the Vulkan layer on the GPU's own driver (no
# lavapipe).  vk_compute, vk_offscreen --frames 3 and vk_multithread
# --thread-submit captured by tscapture and replayed with every checkpoint
# equal and --check-determinism --runs 3 agreeing; vk_trim_image trimmed to
# --submits 4-7 with device-local images (the snapshot's staging copies run
# for real, TRACESMITH_VK_SNAPSHOT_STAGING unset) replays with every
# checkpoint equal; each prints the memory tracker the layer chose
# (vulkan.memory_tracker); vk_trim_churn --frame-secondaries and --template
# trimmed to --submits 7-10 each leave out one command buffer or call and
# replay with every checkpoint equal; vk_compute's replay is profiled with timestamp
# queries (--profile).  vk_compute --timeline (timeline semaphores its only
# wait) captured and replayed with its six checkpoints.  vk_fresh (memory
# first mapped after submissions) replayed with every checkpoint equal, and
# its --address run's replay equal or stopped at a differing buffer device
# address.  vk_fft (VkFFT's plans, single and double precision) captured and
# replayed with every checkpoint equal.  vk_race on two real queues: the emulator's race
# across them, sampled orders.  The Khronos validation layer runs only
# where GPU_VK_VALIDATION names a folder with it (the GPU machines lack
# Debian's package; scripts/gpu_pack.sh carries it).  Uses the NVIDIA ICD; lavapipe's must not answer.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
# Only the NVIDIA ICD is offered to the loader, so lavapipe cannot answer.
gpu_vk_nvidia_only
P=$BUILD/tests/programs
# Which driver the loader found, for the log (and why not, when it found none).
VK_LOADER_DEBUG=error,driver "$P/vk_compute" 2>&1 | grep -i 'driver\|error\|fail' | head -n 20 || true

# vk_prog NAME ARGS...: capture, plain/captured output equal, replay with
# every checkpoint equal, three replays agree.
vk_prog() {
	n=$1
	shift
	expect_rc 0 "$n.plain" "$P/$n" "$@"
	expect_rc 0 "$n.capture" env TRACESMITH_LOG=info "$BUILD/tscapture" -o "$T/$n.sbt" -- "$P/$n" "$@"
	expect_rc 0 "$n.replay" "$BUILD/tsreplay" "$T/$n.sbt"
	grep -q ' 0 differ' "$T/$n.replay.out" "$T/$n.replay.err" ||
		fail "$n: replay: $(cat "$T/$n.replay.out" "$T/$n.replay.err" | tail -n 3)"
	expect_rc 0 "$n.det" "$BUILD/tsreplay" --check-determinism --runs 3 "$T/$n.sbt"
	echo "$n: tracker $("$BUILD/tsinfo" "$T/$n.sbt" | sed -n 's/.*vulkan.memory_tracker[ =:]*//p' | head -n 1);" \
		"$(grep -h 'checkpoints:' "$T/$n.replay.out" "$T/$n.replay.err" | tail -n 1)"
}
gpu_part vk_compute vk_prog vk_compute
# Timeline semaphores as the only wait (vk_compute --timeline: vkWaitSemaphores
# and counter polling alternate, results read without an invalidate where
# the memory is coherent): the program's own result checks pass under the
# layer, and each round's results are checkpointed at the call that showed
# them done (docs/vulkan-layer.md, "Timeline semaphores").
vk_timeline() {
	expect_rc 0 tl.plain "$P/vk_compute" --submits 6 --timeline
	expect_rc 0 tl.capture "$BUILD/tscapture" -o "$T/tl.sbt" -- "$P/vk_compute" --submits 6 --timeline
	[ "$(grep '^vk_compute:' "$T/tl.capture.out")" = "$(grep '^vk_compute:' "$T/tl.plain.out")" ] ||
		fail "vk_timeline: the captured run printed another result"
	expect_rc 0 tl.replay "$BUILD/tsreplay" "$T/tl.sbt"
	grep -q 'checkpoints: 6 compared, 6 matched, 0 differ' "$T/tl.replay.out" "$T/tl.replay.err" ||
		fail "vk_timeline: replay: $(cat "$T/tl.replay.out" "$T/tl.replay.err" | grep 'checkpoints:')"
	echo "vk_timeline: $(grep -h 'checkpoints:' "$T/tl.replay.out" "$T/tl.replay.err" | tail -n 1)"
}
gpu_part vk_timeline vk_timeline
# Memory first mapped after submissions (vk_fresh; test_vk_fresh.sh on
# lavapipe, where it poisons the heap): the program's checks pass under the
# layer and its replay matches every checkpoint.  With --address a shader
# writes through a buffer device address: the replay either matches every
# checkpoint (the driver gave the captured addresses again) or stops at the
# vkGetBufferDeviceAddress whose address differs, exit 1 with the message
# (docs/vulkan-replay.md, "Memory"), never a crash.  It prints which.
vk_fresh() {
	vk_prog vk_fresh
	expect_rc 0 fa.plain "$P/vk_fresh" --address
	expect_rc 0 fa.capture "$BUILD/tscapture" -o "$T/fa.sbt" -- "$P/vk_fresh" --address
	[ "$(grep '^vk_fresh: hash' "$T/fa.capture.out")" = "$(grep '^vk_fresh: hash' "$T/fa.plain.out")" ] ||
		fail "vk_fresh --address: the captured run printed another hash"
	fa_rc=0
	"$BUILD/tsreplay" "$T/fa.sbt" >"$T/fa.replay.out" 2>"$T/fa.replay.err" || fa_rc=$?
	case $fa_rc in
	0)
		grep -q ' 0 differ' "$T/fa.replay.out" "$T/fa.replay.err" ||
			fail "vk_fresh --address: replay: $(cat "$T/fa.replay.out" "$T/fa.replay.err" | tail -n 3)"
		echo "vk_fresh --address: the driver gave the captured addresses;" \
			"$(grep -h 'checkpoints:' "$T/fa.replay.out" "$T/fa.replay.err" | tail -n 1)"
		;;
	1)
		grep -q 'has device address 0x[0-9a-f]* here but had 0x[0-9a-f]* at capture' "$T/fa.replay.err" ||
			fail "vk_fresh --address: replay exited 1 without the address message: $(tail -n 3 "$T/fa.replay.err")"
		echo "vk_fresh --address: replay stopped: $(grep -h 'has device address' "$T/fa.replay.err" | head -n 1)"
		;;
	*)
		fail "vk_fresh --address: tsreplay exited $fa_rc: $(tail -n 3 "$T/fa.replay.err")"
		;;
	esac
}
gpu_part vk_fresh vk_fresh
gpu_part vk_offscreen vk_prog vk_offscreen --frames 3
gpu_part vk_multithread vk_prog vk_multithread --thread-submit
# VK_EXT_external_memory_host: host allocations imported as device memory
gpu_part vk_hostmem vk_prog vk_hostmem
# VkFFT's plans (vk_fft; test_vk_fft.sh on lavapipe): shaders the library
# writes for this device (its subgroup size and shared memory) and compiles
# at run time; the program's own checks against its DFT pass under the
# layer, and the replays match every checkpoint and agree.  The double-
# precision plan uploads a table with VkFFT's own submit first.
gpu_part vk_fft vk_prog vk_fft --dims 2 --size 64 --batch 3 --rounds 3
gpu_part vk_fft_double vk_prog vk_fft --double --r2c --size 120

# Timestamp queries on the GPU: --profile times every command of vk_compute.
vk_profile() {
	[ -s "$T/vk_compute.sbt" ] || fail "vk_profile: no vk_compute trace"
	expect_rc 0 vk_profile "$BUILD/tsreplay" --profile "$T/vk_compute.sbt"
	has vk_profile out "commands timed on"
	n=$(grep -c '^entry ' "$T/vk_compute.sbt.profile")
	[ "$n" -ge 1 ] || fail "vk_profile: no entry in the profile"
	echo "vk_profile: $n entries; $(grep -m1 '^device ' "$T/vk_compute.sbt.profile")"
}
gpu_part vk_profile vk_profile

trim() {
	expect_rc 0 trim.capture env TRACESMITH_LOG=info "$BUILD/tscapture" --submits 4-7 -o "$T/trim.sbt" -- \
		"$P/vk_trim_image" --rounds 8
	S=$T/trim-submits-4-7.sbt
	[ -s "$S" ] || fail "trim: no window trace: $(ls "$T")"
	expect_rc 0 trim.replay "$BUILD/tsreplay" "$S"
	grep -q ' 0 differ' "$T/trim.replay.out" "$T/trim.replay.err" ||
		fail "trim: replay: $(cat "$T/trim.replay.out" "$T/trim.replay.err" | tail -n 3)"
	echo "trim: $(grep -h 'checkpoints:' "$T/trim.replay.out" "$T/trim.replay.err" | tail -n 1);" \
		"snapshot: $(grep -h -i 'snapshot' "$T/trim.capture.err" | head -n 2 | tr '\n' ' ')"
}
gpu_part trim trim

# Trimmed capture of images whose subresources are in different layouts
# (vk_trim_layouts), device-local on this driver: the window's replay
# matches every checkpoint, and its checkpoints are the full capture's for
# the same submits; under the validation layer (GPU_VK_VALIDATION) the
# window replays with no validation error.
trim_layouts() {
	expect_rc 0 tl.full "$BUILD/tscapture" -o "$T/tlfull.sbt" -- "$P/vk_trim_layouts"
	expect_rc 0 tl.capture "$BUILD/tscapture" --submits 4-7 -o "$T/tl.sbt" -- "$P/vk_trim_layouts"
	S=$T/tl-submits-4-7.sbt
	[ -s "$S" ] || fail "trim_layouts: no window trace: $(ls "$T")"
	expect_rc 0 tl.replay "$BUILD/tsreplay" "$S"
	grep -q ' 0 differ' "$T/tl.replay.out" "$T/tl.replay.err" ||
		fail "trim_layouts: replay: $(cat "$T/tl.replay.out" "$T/tl.replay.err" | tail -n 3)"
	"$BUILD/tsinfo" --dump "$T/tlfull.sbt" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p' >"$T/tl.full.ck"
	for h in $("$BUILD/tsinfo" --dump "$S" | sed -n 's/.* checkpoint .*hash=\(0x[0-9a-f]*\).*/\1/p'); do
		grep -qx "$h" "$T/tl.full.ck" || fail "trim_layouts: the window's checkpoint $h is none of the full capture's"
	done
	if [ -n "${GPU_VK_VALIDATION:-}" ]; then
		VK_ADD_LAYER_PATH=$GPU_VK_VALIDATION VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
			expect_rc 0 tl.vreplay "$BUILD/tsreplay" "$S"
		! grep -q 'VUID-\|Validation Error' "$T/tl.vreplay.out" "$T/tl.vreplay.err" ||
			fail "trim_layouts: validation: $(grep -h 'VUID-\|Validation Error' "$T/tl.vreplay.out" "$T/tl.vreplay.err" | head -n 3)"
	fi
	echo "trim_layouts: $(grep -h 'checkpoints:' "$T/tl.replay.out" "$T/tl.replay.err" | tail -n 1)${GPU_VK_VALIDATION:+, clean under validation}"
}
gpu_part trim_layouts trim_layouts

# Trimmed windows whose snapshots decide what to leave out by handle
# (vk_trim_churn --frame-secondaries, --template; test_vk_trim.sh on
# lavapipe): on this driver handles are addresses a destroy frees for the
# next creation, where lavapipe numbers them and never reuses one.  Each
# window leaves out exactly one command buffer or call and replays with
# every checkpoint equal.
trim_churn() {
	for opt in frame-secondaries template; do
		expect_rc 0 "tc$opt.capture" env TRACESMITH_LOG=info "$BUILD/tscapture" --submits 7-10 \
			-o "$T/tc$opt.sbt" -- "$P/vk_trim_churn" --rounds 12 "--$opt"
		S=$T/tc$opt-submits-7-10.sbt
		[ -s "$S" ] || fail "trim_churn --$opt: no window trace: $(ls "$T")"
		n=$(grep -h -c 'is left out' "$T/tc$opt.capture.err" || :)
		[ "$n" = 1 ] ||
			fail "trim_churn --$opt: $n calls or command buffers left out, expected 1: $(grep -h 'left out' "$T/tc$opt.capture.err" | head -n 3)"
		expect_rc 0 "tc$opt.replay" "$BUILD/tsreplay" "$S"
		grep -q ' 0 differ' "$T/tc$opt.replay.out" "$T/tc$opt.replay.err" ||
			fail "trim_churn --$opt: replay: $(cat "$T/tc$opt.replay.out" "$T/tc$opt.replay.err" | tail -n 3)"
		echo "trim_churn --$opt: $(grep -h 'checkpoints:' "$T/tc$opt.replay.out" "$T/tc$opt.replay.err" | tail -n 1)"
	done
}
gpu_part trim_churn trim_churn

# Two real queues (the NVIDIA driver's first family has several; lavapipe
# one, where test_vk_sched.sh rewrites traces with vk_requeue instead):
# vk_race's dispatch writes a buffer in a submit on queue 0, its copy reads
# it in a submit on queue 1, with no semaphore (nowait: a race across the
# queues) or with one waited at the transfer stage (wait).  The emulator
# finds the race in the first and none in the second; sampled orders of
# the first differ (seed 2 runs the captured order, seed 1 the copy's
# submit first: --check-determinism exits 4), and every seed of the second
# agrees and matches the capture.
qrace() {
	expect_rc 0 qnowait.capture "$BUILD/tscapture" -o "$T/qnowait.sbt" -- \
		"$P/vk_race" --split --barrier --second-queue --queue-index1
	expect_rc 0 qwait.capture "$BUILD/tscapture" -o "$T/qwait.sbt" -- \
		"$P/vk_race" --split --barrier --second-queue --queue-index1 --semaphore transfer
	expect_rc 1 qnowait.races "$BUILD/tsexport" --races "$T/qnowait.sbt"
	has qnowait.races out "races: 0 confirmed, 1 possible"
	grep -q "transfer vkCmdCopyBuffer (submitted at seq [0-9]*) on queue 0x[0-9a-f]* (family [0-9]*, index 1) reads buffer" \
		"$T/qnowait.races.out" || fail "qrace: the copy is not on queue index 1: $(cat "$T/qnowait.races.out")"
	expect_rc 0 qwait.races "$BUILD/tsexport" --races "$T/qwait.sbt"
	has qwait.races out "races: 0 confirmed, 0 possible"
	expect_rc 4 qnowait.det "$BUILD/tsreplay" --check-determinism --schedule-seeds 2,1 "$T/qnowait.sbt"
	has qnowait.det err "tsreplay: likely race: run 1 (seed 2) and run 2 (seed 1) part"
	expect_rc 0 qwait.det "$BUILD/tsreplay" --check-determinism --schedule-seeds 1,2,3,4,5 "$T/qwait.sbt"
	expect_rc 0 qwait.replay "$BUILD/tsreplay" "$T/qwait.sbt"
	grep -q ' 0 differ' "$T/qwait.replay.out" "$T/qwait.replay.err" ||
		fail "qrace: the waiting trace's replay: $(cat "$T/qwait.replay.out" "$T/qwait.replay.err" | tail -n 3)"
	if grep -qi "share that one" "$T/qwait.replay.err"; then
		fail "qrace: the replay put the two queues on one: $(cat "$T/qwait.replay.err")"
	fi
	echo "qrace: nowait: $(grep -h '^races:' "$T/qnowait.races.out"), seeds 2,1: $(grep -h 'runs differ' "$T/qnowait.det.err" | head -n 1);" \
		"wait: 5 seeds agree, $(grep -h 'checkpoints:' "$T/qwait.replay.out" "$T/qwait.replay.err" | tail -n 1)"
}
gpu_part qrace qrace

# A descriptor set written after the command buffers that bind it were
# recorded, as update-after-bind allows (lavapipe lacks the feature for
# buffers; test_vk_percmd_uab.sh edits traces instead): vk_race's consumer
# dispatch reads the first queue's buffer through such a set, on the second
# queue.  --check-determinism --per-command over the two orders names that
# dispatch, not the copy after it; the program alone is clean under the
# validation layer (GPU_VK_VALIDATION).
uab() {
	expect_rc 0 uab.capture "$BUILD/tscapture" -o "$T/uab.sbt" -- "$P/vk_race" --split --barrier \
		--second-queue --queue-index1 --neighbours --consumer --update-after-bind
	expect_rc 4 uab.det "$BUILD/tsreplay" --check-determinism --schedule-seeds 2,1 "$T/uab.sbt"
	grep -q "part first after the command at seq [0-9]* (vkCmdDispatch, " "$T/uab.det.err" ||
		fail "uab: not the consumer's dispatch: $(grep -h 'runs differ' "$T/uab.det.err")"
	if [ -n "${GPU_VK_VALIDATION:-}" ]; then
		VK_ADD_LAYER_PATH=$GPU_VK_VALIDATION VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
			expect_rc 0 uab.valid "$P/vk_race" --split --barrier --second-queue --queue-index1 --neighbours \
			--consumer --update-after-bind
		! grep -q 'VUID-' "$T/uab.valid.out" "$T/uab.valid.err" ||
			fail "uab: $(grep -h 'VUID-' "$T/uab.valid.out" "$T/uab.valid.err" | head -n 3)"
	fi
	echo "uab: $(grep -h 'runs differ' "$T/uab.det.err" | head -n 1)${GPU_VK_VALIDATION:+; the program clean under validation}"
}
gpu_part uab uab

# The Khronos validation layer, where GPU_VK_VALIDATION names a folder
# holding its manifest and library (scripts/gpu_pack.sh carries Debian's
# 1.3.239 build; the GPU machines lack the package): vk_compute captured
# under it with our layer gives no VUID- message on this driver; and
# synchronization validation with QueueSubmit validation on vk_race's two
# real queues must agree with the emulator (qrace): a hazard without the
# semaphore, none with it (docs/emulator.md: which cross-queue hazards
# 1.3.239 reports).
validated() {
	VK_ADD_LAYER_PATH=$GPU_VK_VALIDATION
	export VK_ADD_LAYER_PATH
	VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation expect_rc 0 v.compute \
		"$BUILD/tscapture" -o "$T/vcompute.sbt" -- "$P/vk_compute"
	! grep -q 'VUID-' "$T/v.compute.out" "$T/v.compute.err" ||
		fail "validated: a VUID- message: $(grep -h 'VUID-' "$T/v.compute.out" "$T/v.compute.err" | head -n 3)"
	VK_LOADER_DEBUG=layer VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation expect_rc 0 v.loader "$P/vk_compute"
	grep -q 'Insert instance layer "VK_LAYER_KHRONOS_validation"' "$T/v.loader.out" "$T/v.loader.err" ||
		fail "validated: the loader did not load the validation layer: $(grep -h 'LAYER' "$T/v.loader.err" | head -n 5)"
	for q in nowait:"" wait:"--semaphore transfer"; do
		qn=${q%%:*}
		# shellcheck disable=SC2086 # the variant's options are words
		VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
		VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT:VALIDATION_CHECK_ENABLE_SYNCHRONIZATION_VALIDATION_QUEUE_SUBMIT \
			expect_rc 0 "v.$qn" "$P/vk_race" --split --barrier --second-queue --queue-index1 ${q#*:}
		! grep -q 'VUID-' "$T/v.$qn.out" "$T/v.$qn.err" ||
			fail "validated: vk_race $qn: a VUID- message: $(grep -h 'VUID-' "$T/v.$qn.out" "$T/v.$qn.err" | head -n 3)"
		echo "syncval $qn: $(grep -ho 'SYNC-HAZARD-[A-Z-]*' "$T/v.$qn.out" "$T/v.$qn.err" | sort | uniq -c | tr '\n' ' ')(none if empty)"
	done
	# as the emulator (qrace): a hazard across the queues without the
	# semaphore, none with it (seen on the H100, ninth session)
	grep -q 'SYNC-HAZARD-READ-RACING-WRITE' "$T/v.nowait.out" "$T/v.nowait.err" ||
		fail "validated: synchronization validation saw no hazard across the queues without the semaphore"
	! grep -q 'SYNC-HAZARD' "$T/v.wait.out" "$T/v.wait.err" ||
		fail "validated: synchronization validation saw a hazard with the semaphore: $(grep -h 'SYNC-HAZARD' "$T/v.wait.out" "$T/v.wait.err" | head -n 2)"
	unset VK_ADD_LAYER_PATH
}
if [ -n "${GPU_VK_VALIDATION:-}" ]; then
	gpu_part validated validated
else
	echo "validated: GPU_VK_VALIDATION not set: the validation layer parts did not run"
fi
gpu_done
