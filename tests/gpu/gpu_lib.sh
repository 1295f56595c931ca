# gpu_lib.sh - what the GPU tests share (source it after tests/support/shell.sh).
#
# gpu_prog OUT CMD...: builds OUT with CMD, unless GPU_PREBUILT=1 and OUT
# exists: scripts/gpu_pack.sh builds every GPU program here (nvcc for
# sm_90) so a lent GPU's minutes are spent running, not compiling.
gpu_prog() {
	gp_out=$1
	shift
	if [ "${GPU_PREBUILT:-0}" = 1 ] && [ -e "$gp_out" ]; then
		return 0
	fi
	"$@" || fail "building $(basename "$gp_out"): $*"
}

# gpu_part NAME CMD...: runs CMD (a function that fails through `fail`) in a
# subshell with its output in $T/part.NAME.log, so one program's failure
# does not hide the next one's: a failing part prints its log's tail, adds
# NAME to $gpu_failed and, with GPU_KEEP set to a folder, leaves its files
# there (logs, and traces under GPU_KEEP_MAX bytes, default 4 MiB).
gpu_failed=""
gpu_part() {
	gp_name=$1
	shift
	if ("$@") >"$T/part.$gp_name.log" 2>&1; then
		cat "$T/part.$gp_name.log"
		return 0
	fi
	gpu_failed="$gpu_failed $gp_name"
	echo "FAIL part $gp_name:"
	tail -n 40 "$T/part.$gp_name.log" | sed 's/^/  /'
	if [ -n "${GPU_KEEP:-}" ]; then
		mkdir -p "$GPU_KEEP/$gp_name"
		for f in "$T"/*; do
			case $(basename "$f") in
			*"$gp_name"*) ;;
			*) continue ;;
			esac
			[ -f "$f" ] || continue
			case $f in
			*.sbt) [ "$(wc -c <"$f")" -le "${GPU_KEEP_MAX:-4194304}" ] || continue ;;
			esac
			cp "$f" "$GPU_KEEP/$gp_name/" 2>/dev/null || true
		done
	fi
	return 0
}

# gpu_done: fails naming every part that failed.
gpu_done() {
	[ -z "$gpu_failed" ] || fail "failed:$gpu_failed"
	echo ok
}

# gpu_vk_nvidia_only: offers the loader only the NVIDIA Vulkan driver
# (VK_DRIVER_FILES), so lavapipe cannot answer, with no layer enabled from
# the environment; fails when this machine has no NVIDIA manifest.
gpu_vk_nvidia_only() {
	VK_DRIVER_FILES=
	for gv_d in /usr/local/nvidia/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d; do
		[ -f "$gv_d/nvidia_icd.json" ] && { VK_DRIVER_FILES=$gv_d/nvidia_icd.json; break; }
	done
	[ -n "$VK_DRIVER_FILES" ] || fail "no NVIDIA Vulkan driver manifest (nvidia_icd.json) here"
	export VK_DRIVER_FILES
	unset VK_INSTANCE_LAYERS VK_ADD_LAYER_PATH TRACESMITH_VK_SNAPSHOT_STAGING
}
