/*
 * test_cm_hip.c - the HIP names of the compute record model
 * (SBT_CM_HIP_LIST): every HIP record type maps onto a kind of the model,
 * is numbered from SBT_CM_HIP_TYPE_BASE in list order clear of the CUDA
 * types, is found by sbt_cm_kind_by_name under its "hip." name only, and
 * is decoded by the dump codecs sbt_cm_dump_register installs.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_dump.h"
#include "tests/support/tst.h"

static void test_hip_names(void)
{
	size_t n = 0;
	const sbt_cm_type_desc *t = sbt_cm_hip_types(&n);
	sbt_cm_kind k;
	TST_CHECK_EQ_U64(n, SBT_CM_HIP_COUNT);
	TST_CHECK(SBT_CM_HIP_TYPE_BASE >= SBT_CM_TYPE(SBT_CM_KIND_COUNT));
	for (size_t i = 0; i < n; i++) {
		char name[128];
		TST_CHECK_EQ_U64(t[i].type, SBT_CM_HIP_TYPE_BASE + i);
		snprintf(name, sizeof(name), "hip.%s", sbt_cm_hip_name((sbt_cm_hip_call)i));
		TST_CHECK(strcmp(t[i].name, name) == 0);
		TST_CHECK(strcmp(sbt_cm_hip_type_name((sbt_cm_hip_call)i), name) == 0);
		TST_REQUIRE(sbt_cm_hip_kind((sbt_cm_hip_call)i, &k) == 0);
		TST_CHECK((unsigned)k < SBT_CM_KIND_COUNT);
		TST_CHECK(sbt_cm_kind_by_name(name, &k) == 0);
	}
	TST_CHECK(sbt_cm_kind_by_name("hip.hipMalloc", &k) == 0 && k == SBT_CM_K_cuMemAlloc);
	TST_CHECK(sbt_cm_kind_by_name("hip.hipModuleLaunchKernel", &k) == 0 && k == SBT_CM_K_cuLaunchKernel);
	TST_CHECK(sbt_cm_kind_by_name("hip.__hipRegisterFatBinary", &k) == 0 &&
	          k == SBT_CM_K_cuModuleLoadFatBinary);
	TST_CHECK(sbt_cm_kind_by_name("hip.cuMemAlloc", &k) == -1);
	TST_CHECK(sbt_cm_kind_by_name("cuda.hipMalloc", &k) == -1);
	TST_CHECK(sbt_cm_kind_by_name("hipMalloc", &k) == -1);
	TST_CHECK(sbt_cm_hip_name(SBT_CM_HIP_COUNT) == NULL);
	TST_CHECK(sbt_cm_hip_kind(SBT_CM_HIP_COUNT, &k) == -1);
}

/* A hip.hipModuleLaunchKernel record written to a trace and dumped back. */
static void test_hip_dump(void)
{
	sbt_dump *d = NULL;
	sbt_dump_buf out = {0};
	sbt_dump_options opt = { .format = SBT_DUMP_TEXT };
	sbt_writer *w = NULL;
	sbt_reader *r = NULL;
	sbt_record rec, got;
	sbt_cm_call c;
	uint8_t buf[256], extra[4] = {1, 2, 3, 4};
	size_t n = 0, ntypes = 0;
	const sbt_cm_type_desc *types;
	const char *path = tst_path("hip.sbt");
	sbt_cm_call_init(&c);
	c.result = 101;
	c.grid_x = 4;
	c.extra = extra;
	c.extra_len = sizeof(extra);
	c.name = (const uint8_t *)"scale";
	c.name_len = 5;
	TST_REQUIRE(sbt_cm_encode(&c, buf, sizeof(buf), &n) == SBT_OK);
	memset(&rec, 0, sizeof(rec));
	rec.type = SBT_CM_HIP_TYPE(SBT_CM_HIP_hipModuleLaunchKernel);
	rec.seq = 1;
	rec.payload = buf;
	rec.payload_len = n;
	TST_REQUIRE(sbt_dump_create(&d) == SBT_OK);
	TST_REQUIRE(sbt_cm_dump_register(d) == SBT_OK);
	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	types = sbt_cm_hip_types(&ntypes);
	for (size_t i = 0; i < ntypes; i++)
		TST_REQUIRE(sbt_writer_define_type(w, types[i].type, types[i].name) == SBT_OK);
	TST_REQUIRE(sbt_writer_append(w, &rec) == SBT_OK);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	TST_REQUIRE(sbt_reader_next(r, &got) == SBT_OK);
	TST_CHECK(strcmp(sbt_reader_type_name(r, got.type), "hip.hipModuleLaunchKernel") == 0);
	TST_REQUIRE(sbt_dump_record(d, r, &got, &opt, &out) == SBT_OK);
	TST_CHECK(strstr(out.data, "hip.hipModuleLaunchKernel") != NULL);
	TST_CHECK(strstr(out.data, "result=101") != NULL);
	TST_CHECK(strstr(out.data, "name=\"scale\"") != NULL);
	TST_CHECK(strstr(out.data, "extra=01020304") != NULL);
	if (tst_failures)
		fprintf(stderr, "dump: %s", out.data);
	sbt_reader_close(r);
	sbt_dump_buf_free(&out);
	sbt_dump_free(d);
}

int main(void)
{
	test_hip_names();
	test_hip_dump();
	return tst_done();
}
