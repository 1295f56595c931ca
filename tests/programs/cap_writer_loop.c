/*
 * cap_writer_loop - records forever (type 64, payload: an 8-byte counter
 * from 0) until killed.  The kill test SIGKILLs it and checks that the
 * trace is readable up to the writer's last periodic flush.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "capture/cap.h"

int main(void)
{
	static const cap_type_desc types[] = {{64, "test.a"}};
	struct timespec pause = {0, 1000000};
	cap_register_api("test", types, 1);
	for (uint64_t i = 0;; i++) {
		if (!cap_record(64, 0, &i, sizeof(i))) {
			fprintf(stderr, "cap_writer_loop: record %llu not taken\n",
			        (unsigned long long)i);
			return 1;
		}
		/* About 100k records a second: the file grows steadily without
		 * taking a whole core from the other tests. */
		if (i % 100 == 99)
			nanosleep(&pause, NULL);
	}
}
