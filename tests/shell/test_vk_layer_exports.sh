#!/bin/sh
# VK_LAYER_tracesmith exports only the loader's entry points: the dynamic
# symbol table of the built layer defines exactly
# vkNegotiateLoaderLayerInterfaceVersion, vkGetInstanceProcAddr and
# vkGetDeviceProcAddr, plus the pre-instance function the implicit manifest
# names for the loader (vkl_pre_vkEnumerateInstanceExtensionProperties) and
# the in-app capture API's entry (tracesmith_app_get_api,
# include/tracesmith/tracesmith_app.h); no other capture-runtime or
# serializer symbol leaks; and its manifests name the
# library beside them and that function.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
SO="$BUILD/layers/libVkLayer_tracesmith.so"
JSON="$BUILD/layers/VkLayer_tracesmith.json"
[ -f "$SO" ] || fail "$SO is not built"
nm -D --defined-only "$SO" | awk '{print $NF}' | sort >"$T/syms"
printf '%s\n' vkGetDeviceProcAddr vkGetInstanceProcAddr \
	vkNegotiateLoaderLayerInterfaceVersion vkl_pre_vkEnumerateInstanceExtensionProperties \
	tracesmith_app_get_api |
	sort >"$T/want"
IMPLICIT="$BUILD/share/vulkan/implicit_layer.d/VkLayer_tracesmith.json"
[ -f "$IMPLICIT" ] || fail "$IMPLICIT is not built"
grep -q '"vkEnumerateInstanceExtensionProperties": "vkl_pre_vkEnumerateInstanceExtensionProperties"' \
	"$IMPLICIT" || fail "the implicit manifest does not name the pre-instance function"
grep -q '"library_path": "../../../layers/libVkLayer_tracesmith.so"' "$IMPLICIT" ||
	fail "the implicit manifest does not point at build/layers/libVkLayer_tracesmith.so"
diff "$T/want" "$T/syms" >"$T/diff" || {
	cat "$T/diff" >&2
	fail "the layer exports more or less than the loader entry points and the in-app API"
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
