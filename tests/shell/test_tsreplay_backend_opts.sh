#!/bin/sh
# tsreplay refuses a bad backend option value as a usage error (exit 2)
# with a message naming the flag and the value, and still replays with good
# values (exit 0):
# - every value that needs no device (--streams, --screenshot,
#   --screenshot-dir, a value given to a flag) is refused while parsing the
#   command line: before the trace is read (a missing trace does not matter)
#   and whatever API the trace has;
# - --device is checked by the trace's backend: a malformed one before it
#   opens, one the device refuses (an ordinal or index beyond the devices
#   present, a name no device has) at open or replay, and the message says
#   how many devices there are;
# - --json says "result":"usage","exit":2 for the latter.
# Traces: cuda_driver_app on the libcuda test double (no GPU), vk_compute
# under VK_LAYER_tracesmith on the Vulkan driver vk_env.sh sets up.
. "$TOP/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
DBL="$VK_ENV_BUILD/tests/doubles/cuda"
[ -e "$DBL/libcuda.so.1" ] || { echo "no CUDA toolkit headers: CUDA parts not built"; exit 77; }
unset TRACESMITH_OWNER_PID TRACESMITH_DISABLE TRACESMITH_STACKS TRACESMITH_LOG TRACESMITH_OUTPUT \
	TRACESMITH_SNAPSHOT TRACESMITH_CUDA_DRIVER TSCUDA_DOUBLE_STATS TSCUDA_DOUBLE_SEED \
	TSCUDA_DOUBLE_ADDR_SEED TSCUDA_DOUBLE_RESERVE TSCUDA_DOUBLE_DEVICES DISPLAY
export TSCUDA_DOUBLE_QUIET=1
export LD_LIBRARY_PATH="$DBL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RP="$VK_ENV_BUILD/tsreplay"
C="$T/cuda.sbt"
V="$T/vk.sbt"

# usage NAME ARGS...: tsreplay ARGS exits 2 (its stderr in $T/NAME.err).
usage() {
	u_name=$1
	shift
	expect_rc 2 "$u_name" "$RP" "$@"
}

# ---- traces ---------------------------------------------------------------------
expect_rc 0 cuda.cap "$VK_ENV_BUILD/tscapture" -o "$C" -- "$VK_ENV_BUILD/tests/cuda/cuda_driver_app" --size 1000
vk_env_layers_ours
TRACESMITH_OUTPUT=$V vk_env_run "$T/vk.capture.log" "$VK_ENV_BUILD/tests/programs/vk_compute" \
	--size 1024 --submits 2 || fail "vk_compute under VK_LAYER_tracesmith"
vk_env_layers_none

# ---- values refused while parsing: no trace needed, any API ------------------------
usage streams "$T/missing.sbt" --streams bogus
has streams err "tsreplay: --streams: expected single or multi, got 'bogus'"
has streams err "try 'tsreplay --help'"
usage streams.empty --streams= "$T/missing.sbt"
has streams.empty err "tsreplay: --streams: expected single or multi, got ''"
usage streams.vk --streams=Single "$V"
has streams.vk err "tsreplay: --streams: expected single or multi, got 'Single'"
for v in 2,x 0 1,,2 1, -3 18446744073709551616 3-1 1- 1-x 0-2 1-2-3; do
	usage "shot$v" --screenshot "$v" "$T/missing.sbt"
	has "shot$v" err "tsreplay: --screenshot: expected frame numbers from 1 or ranges A-B (A <= B), comma-separated, got '$v'"
done
usage shot.cuda --screenshot=x "$C"
has shot.cuda err "tsreplay: --screenshot: expected frame numbers from 1 or ranges A-B (A <= B), comma-separated, got 'x'"
usage shotfmt --screenshot-format jpg "$T/missing.sbt"
has shotfmt err "tsreplay: --screenshot-format: expected png or ppm, got 'jpg'"
usage shotall --screenshot-all=1 "$V"
has shotall err "tsreplay: --screenshot-all takes no value"
usage dir --screenshot-dir "$T/nowhere" "$V"
has dir err "tsreplay: --screenshot-dir: expected a directory, got '$T/nowhere' (No such file or directory)"
usage dir.file --screenshot-dir "$C" "$C"
has dir.file err "tsreplay: --screenshot-dir: expected a directory, got '$C' (not a directory)"
usage dir.empty --screenshot-dir= "$V"
has dir.empty err "tsreplay: --screenshot-dir: expected a directory, got '' (empty)"
for f in --offscreen --validate --cuda-no-reserve --cuda-relocate-memory; do
	usage "flag$f" "$f=1" "$V"
	has "flag$f" err "tsreplay: $f takes no value"
done

# ---- --device, CUDA: malformed (before open), beyond the devices (at open) -----------
for v in abc -1 1x '' 1025 99999999999999999999; do
	usage "cdev$v" --device "$v" "$C"
	has "cdev$v" err "tsreplay: backend cuda: --device: expected a CUDA device ordinal from 0 to 1024, got '$v'"
done
usage cdev.1 --device 1 "$C"
has cdev.1 err "tsreplay: backend cuda: cannot open: --device 1: the CUDA driver has 1 device (ordinals from 0)"
TSCUDA_DOUBLE_DEVICES=2 usage cdev.2 --json --device=2 "$C"
has cdev.2 err "--device 2: the CUDA driver has 2 devices (ordinals from 0)"
has cdev.2 out '"result":"usage","exit":2,"error":"backend cuda: cannot open: --device 2: the CUDA driver has 2 devices'
# a CUDA-style --device is the Vulkan backend's to judge on a Vulkan trace
# (a name there), and the other way round
usage vdev.name --device no-such-gpu "$V"
has vdev.name err "--device 'no-such-gpu': none of the "
has vdev.name err " physical devices has that in its name"
usage vdev.idx --json --device 99 "$V"
grep -q -- "--device 99: the replay's Vulkan has [1-9][0-9]* physical devices* (indexes 0\.\.[0-9]*)" \
	"$T/vdev.idx.err" || fail "vdev.idx: $(cat "$T/vdev.idx.err")"
has vdev.idx out '"result":"usage","exit":2,'
usage vdev.empty --device= "$V"
has vdev.empty err "tsreplay: backend vulkan: --device: expected a physical device index (0, 1, ...) or part of its name, got ''"

# ---- good values still replay -----------------------------------------------------------
mkdir "$T/shots"
expect_rc 0 cuda.good "$RP" --json --streams single --device 0 --cuda-no-reserve \
	--screenshot 1,2 --screenshot-dir "$T/shots" --offscreen "$C"
has cuda.good out '"result":"match","exit":0'
[ "$(json_field "$T/cuda.good.out" matched)" -ge 1 ] || fail "cuda.good: $(cat "$T/cuda.good.out")"
TSCUDA_DOUBLE_DEVICES=2 expect_rc 0 cuda.dev1 "$RP" --json --streams=multi --device=1 "$C"
has cuda.dev1 out '"result":"match","exit":0'
vk_env_run "$T/vk.good.log" "$RP" --json --device 0 --offscreen --streams multi \
	--screenshot 1 --screenshot-dir "$T/shots" "$V" || fail "vulkan replay with good values"
grep -qF '"result":"match","exit":0' "$T/vk.good.log" || fail "vk.good: $(cat "$T/vk.good.log")"
[ "$(json_field "$T/vk.good.log" matched)" -ge 1 ] || fail "vk.good: $(cat "$T/vk.good.log")"
vk_env_run "$T/vk.name.log" "$RP" --json --device llvmpipe "$V" || fail "vulkan replay --device llvmpipe"
grep -qF '"result":"match","exit":0' "$T/vk.name.log" || fail "vk.name: $(cat "$T/vk.name.log")"
exit 0
