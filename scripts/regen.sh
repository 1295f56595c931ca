#!/bin/sh
# Regenerates every generated/ folder from its inputs.  With --check, fails
# if the committed generated code differs from what the generators produce.
# Generators: (none yet; the Vulkan codec generator joins here).
set -eu
cd "$(dirname "$0")/.."
GENERATORS=""
check=0
[ "${1:-}" = "--check" ] && check=1
for g in $GENERATORS; do
	python3 "$g"
done
if [ $check -eq 1 ] && [ -n "$GENERATORS" ]; then
	git diff --exit-code -- '*/generated/*' || { echo "regen: generated code is out of date; run make regen" >&2; exit 1; }
fi
echo "regen: ${GENERATORS:-no generators yet}"
