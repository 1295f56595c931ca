/*
 * app_unlinked - the in-app API (tracesmith_app.h) in a program that links
 * nothing of TraceSmith: every call answers "not capturing" unless a
 * capture library was loaded into the process (LD_PRELOAD of the CUDA
 * interposer), and then the library's answers come back.
 *
 *   app_unlinked      prints each call's answer
 */
#include <stdio.h>

#include "tracesmith/tracesmith_app.h"

int main(void)
{
	int start = tracesmith_start_capture();
	int capturing = tracesmith_is_capturing();
	int end = tracesmith_end_capture();
	int trig = tracesmith_trigger_capture(1);
	tracesmith_mark_frame();
	printf("start %d capturing %d end %d trigger %d\n", start, capturing, end, trig);
	return 0;
}
