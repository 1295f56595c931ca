/*
 * rp_status.c - the replayer's status messages and diagnostics buffer.
 */
#include "replayer/rp.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const rp_status_messages[] = {
#define RP_X_MSG(name, msg) msg,
	RP_STATUS_LIST(RP_X_MSG)
#undef RP_X_MSG
};

_Static_assert(sizeof(rp_status_messages) / sizeof(rp_status_messages[0]) == RP_STATUS_COUNT,
               "one message per status");

const char *rp_strerror(rp_status st)
{
	if ((unsigned)st >= RP_STATUS_COUNT)
		return "unknown replayer status";
	return rp_status_messages[st];
}

void rp_diag_set(rp_diag *d, const char *fmt, ...)
{
	va_list ap;
	if (!d)
		return;
	va_start(ap, fmt);
	vsnprintf(d->text, sizeof(d->text), fmt, ap);
	va_end(ap);
}
