#!/bin/sh
# Replays tests/fuzz/corpus_vk_null in-process against the null Vulkan
# device (build/tests/vk_null_main: tsreplay's Vulkan backend with
# tests/fuzz/vk_null.c in place of a driver; docs/hostile-traces.md):
#   - vk_compute and vk_offscreen, small traces of the test programs,
#     replay to their end, and so does vk_partial (vk_partial --size 64
#     --submits 1: a binding no shader uses and one never read left
#     unwritten, as the specification allows; the null device aborted on it
#     while it judged every bound set by whether any write reached it), and
#     so does vk_trim_occlusion (vk_trim_churn --rounds 12 --occlusion
#     captured with tscapture --submits 6-9: a vulkan.tsQueryResults record,
#     query copies and reads of substituted queries, and a descriptor set
#     written again each round before the buffer it held is destroyed; the
#     null device aborted on that while a set kept every object any write
#     had put in it); so do vk_dynstate_eds3 and vk_dynstate_execute
#     (vk_dynstate --eds3 and --execute: the extended dynamic state 3
#     setters, which the null device only records, and a primary that sets
#     its state again after vkCmdExecuteCommands);
#   - each crash_* input, a mutant of one of them for a class of call the
#     null device aborted on before the replay checked it (it stands for a
#     driver crash), stops with a message naming the record:
#     crash_map_twice (a second vkMapMemory), crash_map_range (a range past
#     the allocation), crash_flush_unmapped, crash_bind_twice,
#     crash_bind_offset (a buffer past the end of its memory),
#     crash_alloc_zero, crash_alloc_type (a memory type the device lacks),
#     crash_cb_after_pool (a command buffer used after its pool was
#     destroyed), crash_reset_pending (a command buffer begun again before
#     its submit was waited for), crash_fb_destroyed and
#     crash_destroy_recording (a submit after a framebuffer or a buffer its
#     commands use was destroyed), crash_vertex_offset (an offset past its
#     vertex buffer), crash_write_no_set (a descriptor write naming no
#     set), crash_buffer_empty (a buffer of 0 bytes), crash_update_pending
#     (the descriptor update moved after the submit of the command buffer
#     that binds the set: the set was never written when it was submitted;
#     lavapipe died with SIGSEGV on it), crash_query_range (vk_trim_occlusion
#     with a vkCmdBeginQuery of query 7 of a pool of 3), crash_query_copy
#     (its vkCmdCopyQueryPoolResults with stride 4096: the substituted
#     queries' vkCmdUpdateBuffer writes landed past the 72-byte buffer),
#     crash_alloc_repeated (vk_compute's vkAllocateMemory record repeated:
#     the replay lost the first allocation, which LeakSanitizer reported),
#     crash_wait_unsignaled (seed 7558 of vk_dynstate_secondary: its submit
#     moved after a vkWaitForFences with no timeout whose result was
#     damaged; the wait went to the device unbounded, on a fence nothing
#     signals, and now waits at most --wait-timeout; the replay stops later,
#     at a record it cannot decode), crash_secondary_destroyed (seed 1446 of
#     vk_dynstate_execute: the buffer its secondary command buffer fills
#     destroyed before the submit of the primary that executes it; the
#     replay judged the primary's own commands only).
# pc_crash_mem_freed (seed 2637 of vk_trim_occlusion: a submit moved ahead
# of its command buffer's new recording, after the memory its set held was
# freed) replayed without --per-command, and with it (VK_NULL_PER_COMMAND=1:
# two runs) the replay's own per-command copies read that memory through a
# buffer of ours destroyed with it (the null device aborted), and the
# submit was refused for it.  The set was updated after the command buffer
# bound it (the update of the next round), which makes the command buffer
# invalid: the submit is now refused for that first, in both modes.
# Then 40 mutants of each trace (tests/fuzz/sbt_mutate --batch, seeds 1-40:
# checksums valid, so the damage reaches the decoder and the replayer) all
# end, replayed or stopped naming the record or checkpoint.
# No Vulkan driver is needed.  Every replay is bounded (--timeout).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/shell.sh"
R="$BUILD/tests/vk_null_main"
[ -x "$R" ] || { echo "the null-device replay is not built"; exit 77; }
C="$TOP/tests/fuzz/corpus_vk_null"
expect_rc 0 corpus "$R" --timeout 20 "$C"/*
for t in vk_compute vk_offscreen vk_partial vk_trim_occlusion vk_dynstate_eds3 vk_dynstate_execute; do
	grep -qx "replayed $C/$t" "$T/corpus.out" || fail "$t did not replay: $(grep " $C/$t" "$T/corpus.out")"
done
n=0
for f in "$C"/crash_*; do
	grep -q "^stopped $f: backend vulkan: record seq [0-9]* vk[A-Za-z]*: " "$T/corpus.out" ||
		fail "$(basename "$f") did not stop naming the record: $(grep " $f" "$T/corpus.out")"
	n=$((n + 1))
done
[ "$n" -ge 21 ] || fail "expected 21 crash inputs, found $n"
PC_UPDATED="^stopped $C/pc_crash_mem_freed: backend vulkan: record seq 141 vkQueueSubmit: command buffer 0x[0-9a-f]* is submitted, and binding 0 of a descriptor set it binds was updated at record seq 114, after the bind, without UPDATE_AFTER_BIND or UPDATE_UNUSED_WHILE_PENDING in its layout: that update made the command buffer invalid"
grep -q "$PC_UPDATED" "$T/corpus.out" ||
	fail "pc_crash_mem_freed: $(grep " $C/pc_crash_mem_freed" "$T/corpus.out")"
expect_rc 0 percmd env VK_NULL_PER_COMMAND=1 "$R" --timeout 20 "$C/pc_crash_mem_freed" "$C/vk_trim_occlusion"
grep -q "$PC_UPDATED" "$T/percmd.out" ||
	fail "pc_crash_mem_freed with --per-command: $(grep " $C/pc_crash_mem_freed" "$T/percmd.out")"
grep -qx "replayed $C/vk_trim_occlusion" "$T/percmd.out" ||
	fail "vk_trim_occlusion with --per-command: $(grep " $C/vk_trim_occlusion" "$T/percmd.out")"
M="$BUILD/tests/sbt_mutate"
[ -x "$M" ] || fail "$M is not built"
for t in vk_compute vk_offscreen; do
	mkdir "$T/$t"
	expect_rc 0 "mutate-$t" "$M" --batch "$C/$t" "$T/$t" 1 40
	expect_rc 0 "mutants-$t" "$R" --timeout 20 "$T/$t"/m*.sbt
	m=$(grep -c '^\(replayed\|stopped\) ' "$T/mutants-$t.out")
	[ "$m" -eq 40 ] || fail "$t: $m of 40 mutants ended: $(tail -3 "$T/mutants-$t.out")"
done
echo "ok: 6 traces replayed, $n crash inputs stopped naming the record, 80 mutants ended, against the null device"
