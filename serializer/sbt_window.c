/*
 * sbt_window.c - the payload of SBT_TYPE_WINDOW records (sbt.h).
 */
#include <string.h>

#include "tracesmith/sbt.h"

size_t sbt_window_encode(const sbt_window *w, uint8_t *buf)
{
	size_t n = 0, tl = strnlen(w->trigger, sizeof(w->trigger) - 1);
	n += sbt_varint_put(buf + n, w->index);
	n += sbt_varint_put(buf + n, w->first_frame);
	n += sbt_varint_put(buf + n, w->first_submit);
	n += sbt_varint_put(buf + n, w->first_launch);
	n += sbt_varint_put(buf + n, tl);
	memcpy(buf + n, w->trigger, tl);
	return n + tl;
}

sbt_status sbt_window_decode(const uint8_t *p, size_t len, sbt_window *w)
{
	const uint8_t *end = p + len;
	uint64_t tl;
	memset(w, 0, sizeof(*w));
	if (sbt_varint_get(&p, end, &w->index) || sbt_varint_get(&p, end, &w->first_frame) ||
	    sbt_varint_get(&p, end, &w->first_submit) ||
	    sbt_varint_get(&p, end, &w->first_launch) || sbt_varint_get(&p, end, &tl) ||
	    tl > (uint64_t)(end - p))
		return SBT_ERR_CORRUPT;
	if (tl > sizeof(w->trigger) - 1)
		tl = sizeof(w->trigger) - 1;
	memcpy(w->trigger, p, (size_t)tl);
	w->trigger[tl] = '\0';
	return SBT_OK;
}
