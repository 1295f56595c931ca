/*
 * rpvk_spirv.c - shader modules checked with SPIRV-Tools' validator before
 * the driver compiles them (docs/hostile-traces.md): a driver's compiler
 * may crash on malformed SPIR-V, and a trace is untrusted input.
 *
 * The target environment is SPV_ENV_UNIVERSAL_1_6: the core rules of every
 * SPIR-V version up to 1.6, which every valid Vulkan shader follows, and
 * none of an API environment's own rules, so a shader the capturing
 * driver accepted is not refused for an environment difference.  The
 * validator's context is made once per process.
 *
 * Drivers accept some code the validator does not: Mesa 22.3's zink emits
 * OpDemoteToHelperInvocation without its capability, and lavapipe compiles
 * it (docs/vulkan-replay.md).  --no-spirv-check passes such code on, with a
 * warning each: the user's word that the trace is trusted.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <spirv-tools/libspirv.h>

#include "replayer/vulkan/rpvk.h"

static spv_context rpvk_spirv_ctx;
static pthread_once_t rpvk_spirv_once = PTHREAD_ONCE_INIT;

static void rpvk_spirv_init(void)
{
	rpvk_spirv_ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
}

rp_status rpvk_spirv_check(rpvk *r, const VkShaderModuleCreateInfo *ci)
{
	spv_diagnostic diag = NULL;
	spv_result_t res;
	rp_status st = RP_OK;
	if (!ci || !ci->pCode || ci->codeSize < 4)
		return RP_OK; /* the decoder's checks cover these */
	pthread_once(&rpvk_spirv_once, rpvk_spirv_init);
	if (!rpvk_spirv_ctx)
		return RP_OK; /* no validator: the driver decides, as before */
	res = spvValidateBinary(rpvk_spirv_ctx, ci->pCode, ci->codeSize / 4, &diag);
	if (res != SPV_SUCCESS) {
		/* the validator's first line: the instruction it shows follows */
		const char *why = diag && diag->error ? diag->error : "invalid";
		int n = (int)strcspn(why, "\n");
		while (n > 0 && why[n - 1] == ' ')
			n--;
		if (n > 200)
			n = 200;
		if (r->spirv_unchecked)
			rpvk_warn(r, "record seq %llu %s: the shader code is not valid SPIR-V (%zu bytes; "
			          "SPIRV-Tools: %.*s); passed to the driver (--no-spirv-check)",
			          (unsigned long long)r->seq, rpvk_cmd_label(r), (size_t)ci->codeSize, n,
			          why);
		else
			st = rpvk_fail(r, RP_ERR_TRACE, "the shader module is not valid SPIR-V (%zu bytes; "
			               "SPIRV-Tools: %.*s); tsreplay --no-spirv-check passes it to the "
			               "driver", (size_t)ci->codeSize, n, why);
	}
	spvDiagnosticDestroy(diag);
	return st;
}
