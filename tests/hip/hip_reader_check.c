/*
 * hip_reader_check - prints what the AMDGPU reader (serializer/amdgpu)
 * finds in each file named: its kind and size as sized from its own
 * header, a bundle's entries, and every kernel of its metadata with each
 * argument's offset, size and kind.  tests/shell/test_hip_reader.sh
 * compares that with what hipcc built and with objcopy's sections.
 * Exit status 1 when a file cannot be read or sized.
 */
#include <stdio.h>
#include <stdlib.h>

#include "serializer/amdgpu/sbt_amd.h"
#include "tests/support/tst.h"

static const char *const hiprc_kinds[] = {"unknown", "wrapper", "bundle", "compressed", "elf"};
static const char *const hiprc_args[] = {"by_value", "global_buffer", "hidden", "other"};

static int hiprc_one(const char *path)
{
	size_t len = 0, size = 0, count = 0;
	unsigned char *buf = tst_read_file(path, &len);
	sbt_amd_kind kind;
	sbt_amd_status st;
	sbt_amd_meta *m = NULL;
	char why[256];
	if (!buf) {
		fprintf(stderr, "%s: cannot read\n", path);
		return 1;
	}
	st = sbt_amd_image_size(buf, len, &size, &kind);
	if (st != SBT_AMD_OK) {
		printf("%s: %s\n", path, sbt_amd_strerror(st));
		free(buf);
		return 1;
	}
	printf("%s: %s size %zu of %zu\n", path, hiprc_kinds[kind], size, len);
	if (kind == SBT_AMD_IMAGE_BUNDLE && sbt_amd_bundle_count(buf, size, &count) == SBT_AMD_OK) {
		for (size_t i = 0; i < count; i++) {
			sbt_amd_entry e;
			if (sbt_amd_bundle_entry_at(buf, size, i, &e) == SBT_AMD_OK)
				printf("  entry %.*s offset %llu size %llu\n", (int)e.id_len, e.id,
				       (unsigned long long)e.offset, (unsigned long long)e.size);
		}
	}
	st = sbt_amd_meta_read_image(buf, size, &m, why, sizeof(why));
	if (st != SBT_AMD_OK) {
		printf("  metadata: %s\n", why);
	} else {
		for (size_t k = 0; k < sbt_amd_meta_count(m); k++) {
			const sbt_amd_kernel *kern = sbt_amd_meta_kernel(m, k);
			printf("  kernel %s kernarg %llu explicit %zu:", kern->name,
			       (unsigned long long)kern->kernarg_size, kern->explicit_count);
			for (size_t a = 0; a < kern->explicit_count; a++)
				printf(" %u+%u:%s", kern->args[a].offset, kern->args[a].size,
				       hiprc_args[kern->args[a].kind]);
			printf("\n");
		}
		sbt_amd_meta_free(m);
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: hip_reader_check FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		bad |= hiprc_one(argv[i]);
	return bad;
}
