/*
 * fuzz_tcd_image - libFuzzer target for the libcuda double's module image
 * reader (tests/doubles/cuda/tcd_image.c), which reads whatever bytes a
 * program hands cuModuleLoadData.  Each input is parsed with its length
 * known (as for cuModuleLoad) for the device's arch and for another, and
 * every kernel found is looked up again by name; the reader must never
 * crash, read outside the input or leak, whatever the bytes.  A fatbin
 * wrapper's pointer is never followed here: inputs that start with the
 * wrapper's magic are skipped (in the double that read is fault-guarded).
 * `make fuzz-tcd-image` runs it; the shell test test_tcd_image_corpus.sh
 * replays the committed images through it in `make test`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/doubles/cuda/tcd_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned archs[] = { 90, 80 };
	static const uint8_t wrapper[4] = { 0xb1, 0x43, 0x62, 0x46 };
	uint8_t *copy;

	if (size >= 4 && !memcmp(data, wrapper, 4))
		return 0;
	/* An exact-size copy, so an over-read is an error ASan sees. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		struct tcd_image *img = NULL;
		char why[256];

		if (tcd_image_parse(copy, size, archs[a], &img, why, sizeof(why)) != TCD_IMAGE_OK)
			continue;
		for (size_t k = 0; k < img->kernel_count; k++)
			if (!tcd_image_kernel_find(img, img->kernels[k].name))
				abort();
		tcd_image_free(img);
	}
	free(copy);
	return 0;
}
