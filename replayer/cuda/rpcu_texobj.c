/*
 * rpcu_texobj.c - texture and surface objects.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Created again from the recorded descriptions, in the recorded order, over
 * the replay's memory (a relocated resource is translated).  Their handles
 * travel in kernel parameters, where they cannot be told from integers, so
 * parameters are never rewritten: a fresh context that creates the same
 * objects in the same order gets the same handles (the driver's are small
 * integers handed out in order), and where it does not, replay says so.
 */
rp_status rpcu_exec_texobj(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	int tex = k == SBT_CM_K_cuTexObjectCreate || k == SBT_CM_K_cuTexObjectDestroy;
	const char *fn = k == SBT_CM_K_cuTexObjectCreate    ? "cuTexObjectCreate"
	                 : k == SBT_CM_K_cuSurfObjectCreate ? "cuSurfObjectCreate"
	                 : tex                              ? "cuTexObjectDestroy"
	                                                    : "cuSurfObjectDestroy";
	CUDA_RESOURCE_DESC res;
	CUDA_TEXTURE_DESC td;
	CUDA_RESOURCE_VIEW_DESC view;
	unsigned long long h = 0;
	uint64_t live = 0;
	rpcu_obj *o;
	rp_status st;
	CUresult r;

	if (k == SBT_CM_K_cuTexObjectDestroy || k == SBT_CM_K_cuSurfObjectDestroy) {
		o = rpcu_objs_get(&s->objs, RPCU_O_TEXOBJ, c->handle);
		if (!o)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "%s object 0x%llx was never created in "
			                 "the trace", tex ? "texture" : "surface", (unsigned long long)c->handle);
		if ((st = tex ? RPCU_NEED(cuTexObjectDestroy) : RPCU_NEED(cuSurfObjectDestroy)) != RP_OK)
			return st;
		r = tex ? s->drv.p_cuTexObjectDestroy((CUtexObject)o->live)
		        : s->drv.p_cuSurfObjectDestroy((CUsurfObject)o->live);
		rpcu_objs_del(&s->objs, o);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, fn, r, NULL);
	}
	if (c->res_desc_len != sizeof(res) || (tex && c->tex_desc_len != sizeof(td)) ||
	    (c->view_desc_len && c->view_desc_len != sizeof(view)))
		return rpcu_fail(s, diag, RP_ERR_DECODE, "the recorded descriptions are %zu, %zu and %zu "
		                 "bytes; this build's CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC and "
		                 "CUDA_RESOURCE_VIEW_DESC are %zu, %zu and %zu", c->res_desc_len,
		                 c->tex_desc_len, c->view_desc_len, sizeof(res), sizeof(td), sizeof(view));
	memcpy(&res, c->res_desc, sizeof(res));
	if (tex)
		memcpy(&td, c->tex_desc, sizeof(td));
	if (c->view_desc_len)
		memcpy(&view, c->view_desc, sizeof(view));
	switch (res.resType) {
	case CU_RESOURCE_TYPE_LINEAR:
		if ((st = rpcu_translate(s, res.res.linear.devPtr, res.res.linear.sizeInBytes,
		                         "the linear texture resource", &live, diag)) != RP_OK)
			return st;
		res.res.linear.devPtr = (CUdeviceptr)live;
		break;
	case CU_RESOURCE_TYPE_PITCH2D:
		if ((st = rpcu_translate(s, res.res.pitch2D.devPtr,
		                         (uint64_t)res.res.pitch2D.pitchInBytes * res.res.pitch2D.height,
		                         "the pitch-2D texture resource", &live, diag)) != RP_OK)
			return st;
		res.res.pitch2D.devPtr = (CUdeviceptr)live;
		break;
	default:
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "%s over a CUDA array (resource type %d): "
		                 "arrays are not replayed yet", fn, (int)res.resType);
	}
	if ((st = tex ? RPCU_NEED(cuTexObjectCreate) : RPCU_NEED(cuSurfObjectCreate)) != RP_OK)
		return st;
	r = tex ? s->drv.p_cuTexObjectCreate(&h, &res, &td, c->view_desc_len ? &view : NULL)
	        : s->drv.p_cuSurfObjectCreate(&h, &res);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, fn, r, NULL);
	o = rpcu_objs_put(&s->objs, RPCU_O_TEXOBJ, c->handle);
	if (!o)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	o->live = h;
	o->ctx = s->cur_ctx;
	if (h != c->handle && !s->warned_texobj) {
		s->warned_texobj = 1;
		rpcu_warn(s, "seq %llu: the %s object was %llu at capture and is %llu in this replay; "
		          "kernel parameters holding it are not rewritten (they cannot be told from "
		          "integers), so kernels reading it may read another object",
		          (unsigned long long)s->seq, tex ? "texture" : "surface",
		          (unsigned long long)c->handle, h);
	}
	return RP_OK;
}
