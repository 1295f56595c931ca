/*
 * rp_cm_note.c - the note printed for the first device-to-host copy whose
 * bytes differ from the capture: which allocation it read, where in it the
 * first difference lies, and the last kernel given a pointer into it (the
 * likeliest writer).  The backends print it once per run, and not under
 * --quiet.
 */
#include "replayer/rp_cm.h"

#include <stdio.h>

int rp_cm_note_mismatch(const char *api, const rp_cm_copy_note *n, const sbt_checkpoint *cp,
                        const uint8_t *bytes)
{
	rp_check_result res;
	rp_diag d = {""};

	if (rp_check_bytes(cp, bytes, cp->length, &res, &d) != RP_OK || res.match)
		return 0;
	fprintf(stderr, "tsreplay: %s: the device-to-host copy at seq %llu differs from the capture\n",
	        api, (unsigned long long)n->seq);
	if (!n->alloc_cap) {
		fprintf(stderr, "  source:   not inside an allocation the trace made\n");
		return 1;
	}
	fprintf(stderr, "  allocation: 0x%llx (%s at seq %llu, %llu bytes)\n",
	        (unsigned long long)n->alloc_cap, n->alloc_how, (unsigned long long)n->alloc_seq,
	        (unsigned long long)n->alloc_size);
	if (res.located)
		fprintf(stderr, "  offset:   %llu in the allocation (first differing block of %llu bytes)\n",
		        (unsigned long long)(cp->object + res.diff_offset - n->alloc_cap),
		        (unsigned long long)res.diff_len);
	if (n->kernel_seq)
		fprintf(stderr, "  kernel:   %s (launch seq %llu), the last kernel given a pointer into it\n",
		        n->kernel, (unsigned long long)n->kernel_seq);
	else
		fprintf(stderr, "  kernel:   none was given a pointer into it before the copy\n");
	return 1;
}
