#!/bin/sh
# Regenerates every generated/ folder from its inputs.  With --check, fails
# if the committed generated code differs from what the generators produce.
# Generators: scripts/vkgen/gen.py drives every Vulkan module (codec, and the
# layer and replay modules registered in its MODULES list).
set -eu
cd "$(dirname "$0")/.."
GENERATORS="scripts/vkgen/gen.py"
GENERATORS="$GENERATORS scripts/cudagen/gen.py" # the CUDA interposer's wrappers
GENERATORS="$GENERATORS scripts/hipgen/gen.py" # the HIP interposer's trampolines
check=0
[ "${1:-}" = "--check" ] && check=1
for g in $GENERATORS; do
	python3 "$g"
done
# the emulator's subset of Perfetto's schema (protoc-c, from protobuf-c-compiler)
protoc-c --proto_path=emulator/proto --c_out=emulator/generated emulator/proto/perfetto_trace.proto
GENERATORS="$GENERATORS protoc-c:emulator/proto/perfetto_trace.proto"
if [ $check -eq 1 ] && [ -n "$GENERATORS" ]; then
	git diff --exit-code -- '*/generated/*' || { echo "regen: generated code is out of date; run make regen" >&2; exit 1; }
	untracked=$(git ls-files --others --exclude-standard -- '*/generated/*')
	if [ -n "$untracked" ]; then
		echo "regen: generated files not committed: $untracked" >&2
		exit 1
	fi
fi
echo "regen: ${GENERATORS:-no generators yet}"
