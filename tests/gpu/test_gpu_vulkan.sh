#!/bin/sh
# GPU only (make test-gpu): the Vulkan layer on the GPU's own driver (no
# lavapipe).  vk_compute, vk_offscreen --frames 3 and vk_multithread
# --thread-submit captured by tscapture and replayed with every checkpoint
# equal and --check-determinism --runs 3 agreeing; vk_trim_image trimmed to
# --submits 4-7 with device-local images (the snapshot's staging copies run
# for real, TRACESMITH_VK_SNAPSHOT_STAGING unset) replays with every
# checkpoint equal; each prints the memory tracker the layer chose
# (vulkan.memory_tracker); vk_compute's replay is profiled with timestamp
# queries (--profile).  The Khronos validation layer is not used: the
# GPU machines lack Debian's package (the same programs run under it in
# make test on lavapipe).  Uses the NVIDIA ICD; lavapipe's must not answer.
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/gpu/gpu_lib.sh"
# Only the NVIDIA ICD is offered to the loader, so lavapipe cannot answer.
VK_DRIVER_FILES=
for d in /usr/local/nvidia/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d; do
	[ -f "$d/nvidia_icd.json" ] && { VK_DRIVER_FILES=$d/nvidia_icd.json; break; }
done
[ -n "$VK_DRIVER_FILES" ] || fail "no NVIDIA Vulkan driver manifest (nvidia_icd.json) here"
export VK_DRIVER_FILES
unset VK_INSTANCE_LAYERS VK_ADD_LAYER_PATH TRACESMITH_VK_SNAPSHOT_STAGING
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
gpu_part vk_offscreen vk_prog vk_offscreen --frames 3
gpu_part vk_multithread vk_prog vk_multithread --thread-submit

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
gpu_done
