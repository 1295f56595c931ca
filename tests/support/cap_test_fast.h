/*
 * cap_test_fast.h - what the capture runtime's unit tests share about its
 * fast record paths (capture/cap_fast.h); include after it.
 */
#ifndef TRACESMITH_CAP_TEST_FAST_H
#define TRACESMITH_CAP_TEST_FAST_H

#include <string.h>

/* A deferred record's encoder whose payload is its raw bytes (cap.h: the
 * length it needs when out_cap is short). */
static inline size_t cap_test_encode_copy(const uint8_t *raw, size_t raw_len, uint8_t *out,
                                          size_t out_cap)
{
	if (raw_len <= out_cap)
		memcpy(out, raw, raw_len);
	return raw_len;
}

/* Whether t's fast words are its block's end for every class the session's
 * settings allow and 0 for the others (on), or all 0 (off). */
static inline int cap_test_words_are(cap_thread *t, int on)
{
	for (int i = 0; i < CAP_FAST_CLASSES; i++) {
		uintptr_t want = on && atomic_load(&cap_g.fast_state[i]) == CAP_ST_RUNNING
		                         ? (uintptr_t)t->tail->data + t->tail->cap
		                         : 0;
		if (atomic_load(&t->fast_end[i]) != want)
			return 0;
	}
	return 1;
}

#endif
