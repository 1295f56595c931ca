#!/bin/sh
# Memory mapped for the first time after submissions (docs/vulkan-layer.md,
# "Mapped memory": the first map). tests/programs/vk_fresh allocates each
# part's memory from a poisoned heap, so lavapipe's memory holds bytes that
# neither the trace nor a replay's heap holds (--need-poison checks it):
# - part 1: a readback buffer whose first 16 bytes a fill wrote, in memory
#   allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT and no address
#   asked for (as Mesa's zink does): its map is checkpointed in those 16
#   bytes only, and the rest is recorded as the driver's initial contents
#   (before, the whole mapping was checkpointed, and the replay differed
#   in the poison; glmark2 on zink did the same with a 2 MiB buffer);
# - part 2: memory mapped after a submission that does not reach it, the
#   host writing the bytes it already holds: its initial contents are
#   recorded at the map (before, nothing was: a write of the same value is
#   no change, so the replay's copy of it read its own heap's bytes);
# and tsreplay --validate matches every checkpoint;
# - part 3 (--address): memory whose address the program asked for, written
#   by a shader through it: its map is checkpointed whole, nothing recorded
#   (the submission reaches it by address). Its replay stops, with exit
#   status 1 and a message, at the vkGetBufferDeviceAddress whose address
#   differs from the capture's (lavapipe's addresses are heap addresses):
#   before, the shader wrote through the capture's address and tsreplay
#   died of SIGSEGV.
set -eu
. "${TOP:-.}/tests/support/shell.sh"
. "$TOP/tests/support/vk_env.sh"
vk_env_init
P=$BUILD/tests/programs/vk_fresh
SIZE=262144
# The poison needs the heap glibc's malloc keeps: the sanitizers'
# allocators (make asan, make tsan) map a block this large fresh at each
# allocation, zeros, so there it is not asked for; what the trace holds at
# each first map is checked all the same.
POISON=--need-poison
if nm -D "$P" 2>/dev/null | grep -q ' __[at]san_init$'; then
	POISON=
	echo "note: under a sanitizer lavapipe's memory comes fresh from its allocator: no poison"
fi

vk_env_layers_validation
vk_env_run "$T/plain.log" "$P" $POISON || fail "vk_fresh alone: $(tail -3 "$T/plain.log")"
hash=$(grep '^vk_fresh: hash' "$T/plain.log")
[ -n "$hash" ] || fail "vk_fresh printed no hash: $(tail -3 "$T/plain.log")"

vk_env_layers_ours
TRACESMITH_OUTPUT=$T/f.sbt vk_env_run "$T/ours.log" "$P" $POISON ||
	fail "vk_fresh under our layer: $(tail -3 "$T/ours.log")"
[ "$(grep '^vk_fresh: hash' "$T/ours.log")" = "$hash" ] ||
	fail "vk_fresh under our layer printed '$(grep '^vk_fresh: hash' "$T/ours.log")', without it '$hash'"
# handle LOG NAME: the memory handle vk_fresh printed for part NAME, as
# tsinfo --dump writes it
handle() {
	h=$(sed -n "s/^vk_fresh: memory .*$2 \(0x[0-9a-f]*\).*/\1/p" "$1")
	[ -n "$h" ] || fail "vk_fresh printed no memory handle for $2: $(grep '^vk_fresh: memory' "$1")"
	printf '0x%016x' "$h"
}
R=$(handle "$T/ours.log" R)
S=$(handle "$T/ours.log" S)

"$BUILD/tsinfo" --dump "$T/f.sbt" >"$T/f.dump" || fail "tsinfo cannot read the trace"
# map_seq MEMORY: the seq of its (only) vkMapMemory
map_seq() {
	s=$(sed -n "s/^seq=\([0-9]*\) [^ ]* [^ ]* vulkan\.vkMapMemory .*memory=$1 .*/\1/p" "$T/f.dump")
	[ "$(echo "$s" | wc -w)" -eq 1 ] || fail "memory $1 has vkMapMemory at seq '$s', expected one"
	echo "$s"
}
# after_map SEQ MEMORY: the memory writes and checkpoints of MEMORY recorded
# between its map at SEQ and the next vkUnmapMemory, as "write O S" and
# "checkpoint O L" lines
after_map() {
	awk -v s="$1" -v m="$2" '
		{ q = substr($1, 5) + 0 }
		q <= s { next }
		$4 == "vulkan.vkUnmapMemory" { exit }
		$4 == "vulkan.tsMemoryWrite" && $5 == "memory=" m {
			sub("offset=", "", $6); sub("size=", "", $7); print "write", $6, $7 }
		$4 == "checkpoint" && $6 == "object=" m {
			sub("offset=", "", $7); sub("length=", "", $8); print "checkpoint", $7, $8 }
	' "$T/f.dump"
}

got=$(after_map "$(map_seq "$R")" "$R" | sort | tr '\n' ';')
want="checkpoint 0 16;write 16 $((SIZE - 16));"
[ "$got" = "$want" ] || fail "part 1 (readback): at its map the trace holds '$got', expected '$want'"
got=$(after_map "$(map_seq "$S")" "$S" | sort | tr '\n' ';')
want="write 0 $SIZE;"
[ "$got" = "$want" ] || fail "part 2 (same): at its map the trace holds '$got', expected '$want'"
echo "ok: first maps: part 1 checkpointed in the 16 bytes written, the rest recorded;" \
	"part 2 recorded whole"

n=$(grep -c ' checkpoint ' "$T/f.dump" || :)
vk_env_layers_none
vk_env_run "$T/replay.log" "$BUILD/tsreplay" --validate "$T/f.sbt" || fail "tsreplay --validate: $(grep -v '^ ' "$T/replay.log" | tail -5)"
grep -q "checkpoints: $n compared, $n matched, 0 differ" "$T/replay.log" ||
	fail "replay: $(grep 'checkpoints:' "$T/replay.log") (the trace holds $n)"
echo "ok: replay, $n checkpoints matched"

# part 3: reached by address
vk_env_layers_validation
vk_env_run "$T/aplain.log" "$P" $POISON --address || fail "vk_fresh --address alone: $(tail -3 "$T/aplain.log")"
ahash=$(grep '^vk_fresh: hash' "$T/aplain.log")
vk_env_layers_ours
TRACESMITH_OUTPUT=$T/a.sbt vk_env_run "$T/aours.log" "$P" $POISON --address ||
	fail "vk_fresh --address under our layer: $(tail -3 "$T/aours.log")"
[ "$(grep '^vk_fresh: hash' "$T/aours.log")" = "$ahash" ] ||
	fail "vk_fresh --address under our layer printed '$(grep '^vk_fresh: hash' "$T/aours.log")', without it '$ahash'"
A=$(handle "$T/aours.log" A)
"$BUILD/tsinfo" --dump "$T/a.sbt" >"$T/f.dump" || fail "tsinfo cannot read the --address trace"
got=$(after_map "$(map_seq "$A")" "$A" | sort | tr '\n' ';')
want="checkpoint 0 $SIZE;"
[ "$got" = "$want" ] || fail "part 3 (address): at its map the trace holds '$got', expected '$want'"
vk_env_layers_none
if "$BUILD/tsreplay" "$T/a.sbt" >"$T/areplay.log" 2>&1; then
	fail "tsreplay of the --address trace succeeded; lavapipe's addresses differ between runs, so it should stop"
else
	rc=$?
fi
[ "$rc" -eq 1 ] || fail "tsreplay of the --address trace exited $rc, expected 1: $(tail -3 "$T/areplay.log")"
grep -q 'vkGetBufferDeviceAddress: VkBuffer 0x[0-9a-f]* has device address 0x[0-9a-f]* here but had 0x[0-9a-f]* at capture.*tsreplay does not rewrite them' "$T/areplay.log" ||
	fail "tsreplay of the --address trace did not say why it stopped: $(tail -3 "$T/areplay.log")"
echo "ok: part 3 checkpointed whole at its map; its replay stops at the differing address"
