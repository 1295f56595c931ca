/*
 * fuzz_amd_image - libFuzzer target for the AMDGPU reader
 * (serializer/amdgpu): the image sizer, the bundle's entry table and the
 * code object metadata reader, which replay meets in a trace's blobs.
 * Each input is sized with its length known; a bundle's entries are
 * walked and each must lie inside the sized image; the metadata is read
 * from the image and from each entry, and every kernel found by index
 * must be found again by name with its explicit arguments inside its
 * argument list.  A compressed bundle's header must give the size it was
 * sized to, and what it inflates to must be exactly the size its header
 * states (its metadata is read through sbt_amd_meta_read_image, which
 * inflates it again).  The wrapper's pointer is never followed.
 * `make fuzz` runs it; `make test` replays tests/fuzz/corpus_amd (real
 * hipcc outputs) through it (tests/shell/test_hip_reader.sh).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/amdgpu/sbt_amd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_amd_meta(const uint8_t *p, size_t len)
{
	sbt_amd_meta *m = NULL;
	char why[128];
	if (sbt_amd_meta_read_image(p, len, &m, why, sizeof(why)) != SBT_AMD_OK)
		return;
	for (size_t k = 0; k < sbt_amd_meta_count(m); k++) {
		const sbt_amd_kernel *kern = sbt_amd_meta_kernel(m, k);
		if (!kern || !sbt_amd_meta_find(m, kern->name) || kern->explicit_count > kern->arg_count)
			abort();
	}
	sbt_amd_meta_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1); /* exact size: ASan sees an over-read */
	size_t n = 0, count = 0;
	sbt_amd_kind kind;
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (sbt_amd_image_size(copy, size, &n, &kind) == SBT_AMD_OK) {
		if (n > size)
			abort();
		if (kind == SBT_AMD_IMAGE_BUNDLE && sbt_amd_bundle_count(copy, n, &count) == SBT_AMD_OK) {
			for (size_t i = 0; i < count; i++) {
				sbt_amd_entry e;
				if (sbt_amd_bundle_entry_at(copy, n, i, &e) != SBT_AMD_OK)
					abort();
				if (e.offset + e.size > n)
					abort();
				if (e.size)
					fuzz_amd_meta(copy + e.offset, (size_t)e.size);
			}
		}
		if (kind == SBT_AMD_IMAGE_COMPRESSED) {
			sbt_amd_ccob h;
			uint8_t *raw = NULL;
			size_t raw_len = 0;
			char why[128];
			if (sbt_amd_ccob_header(copy, n, &h, why, sizeof(why)) != SBT_AMD_OK || h.total != n)
				abort();
			if (sbt_amd_ccob_inflate(copy, n, &raw, &raw_len, why, sizeof(why)) == SBT_AMD_OK &&
			    raw_len != h.raw)
				abort();
			free(raw);
		}
		fuzz_amd_meta(copy, n);
	}
	free(copy);
	return 0;
}
