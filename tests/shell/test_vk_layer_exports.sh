#!/bin/sh
# VK_LAYER_tracesmith exports only the loader's entry points: the dynamic
# symbol table of the built layer defines exactly
# vkNegotiateLoaderLayerInterfaceVersion, vkGetInstanceProcAddr and
# vkGetDeviceProcAddr (no capture-runtime or serializer symbol leaks), and
# its manifest names the library beside it.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
SO="$BUILD/layers/libVkLayer_tracesmith.so"
JSON="$BUILD/layers/VkLayer_tracesmith.json"
[ -f "$SO" ] || fail "$SO is not built"
nm -D --defined-only "$SO" | awk '{print $NF}' | sort >"$T/syms"
printf '%s\n' vkGetDeviceProcAddr vkGetInstanceProcAddr \
	vkNegotiateLoaderLayerInterfaceVersion >"$T/want"
diff "$T/want" "$T/syms" >"$T/diff" || {
	cat "$T/diff" >&2
	fail "the layer exports more or less than the loader entry points"
}
grep -q '"name": "VK_LAYER_tracesmith"' "$JSON" || fail "manifest does not name VK_LAYER_tracesmith"
grep -q '"library_path": "./libVkLayer_tracesmith.so"' "$JSON" ||
	fail "manifest does not point at the library beside it"
# Nothing undefined that the loader's process would have to provide
# (the layer must never call the loader's own vk* exports).
if nm -D --undefined-only "$SO" | grep -q ' U vk'; then
	nm -D --undefined-only "$SO" | grep ' U vk' >&2
	fail "the layer imports loader entry points"
fi
echo "ok"
