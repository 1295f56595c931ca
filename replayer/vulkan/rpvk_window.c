/*
 * rpvk_window.c - the replayed swapchain shown in a real X window (xcb).
 *
 * Window mode is on when DISPLAY is set and --offscreen is not given.  It
 * changes nothing in how the application's calls replay: its swapchain
 * images stay the plain images of rpvk_swapchain.c (same captured handles,
 * same captured acquire indices, same rewritten layouts, same screenshots).
 * On top of that:
 *
 *   - an instance that enables VK_KHR_surface also gets VK_KHR_xcb_surface
 *     (and keeps VK_KHR_surface); its devices get VK_KHR_swapchain;
 *   - every captured surface (xcb, xlib, headless: whatever the capture
 *     used) still binds to a placeholder handle, and its queries still keep
 *     the captured answers; the first swapchain on it makes an xcb window of
 *     ours, sized from that swapchain's extent, and a live VkSurfaceKHR;
 *   - every captured swapchain gets a live swapchain on that surface, its
 *     image count, format, extent, present mode and composite alpha
 *     adjusted to what the live surface supports (queried live; a note says
 *     what changed), usage TRANSFER_DST;
 *   - every present, after its waits, acquires a live image, copies (or
 *     blits, when format or extent differ) the presented plain image into
 *     it on the presenting queue, and presents it live.
 *
 * Why copy rather than render into live images: the application's command
 * buffers, framebuffers and descriptors name its swapchain images by handle,
 * and the captured acquire order is what they were recorded against, while
 * the live presentation engine picks its own order.  Re-acquiring until the
 * indices agree works only for some present modes and can block forever;
 * remapping handles at submit time would mean rewriting recorded command
 * buffers.  One copy per frame keeps the replay identical with and without a
 * window, and the window shows every frame.
 *
 * Synchronisation: the copy runs on the presenting queue after the empty
 * submit that waited the present's semaphores (a semaphore wait orders all
 * later work on that queue); it signals a semaphore per live image that the
 * live present waits.  The live acquire is waited on the host (a fence), so
 * the copy needs no acquire semaphore.  The next acquire of the application
 * waits (host) for the last copy, since it may render into the image that
 * copy reads; re-acquiring live image k means its last present finished, so
 * k's semaphore is free again.
 *
 * Nothing here fails the replay: without X or the extensions the replay
 * falls back to offscreen with a note; a live failure later is a warning
 * and that swapchain stops being shown.
 */
#include "replayer/vulkan/rpvk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPVK_WIN_MAX_IMAGES 16u
#define RPVK_WIN_MAX_FORMATS 64u
#define RPVK_WIN_MAX_MODES 16u
#define RPVK_WIN_MAX_FAMILIES 32u

/* A captured surface shown in a window of ours. */
typedef struct rpvk_wsurf {
	uint64_t fake;             /* the captured surface's value in this replay */
	int inst;
	xcb_window_t window;       /* 0 until the first swapchain on it */
	uint32_t width, height;    /* the window's size */
	VkSurfaceKHR live;
} rpvk_wsurf;

/* The live swapchain that shows a plain-image swapchain. */
struct rpvk_wsc {
	rpvk_wsurf *surf;          /* borrowed from rpvk_win.surfaces */
	int dev;
	VkSwapchainKHR live;
	VkExtent2D extent;         /* of the live images */
	int blit;                  /* format or extent differ from the plain images */
	uint32_t count;
	VkImage images[RPVK_WIN_MAX_IMAGES];     /* the live swapchain's, not ours */
	VkSemaphore ready[RPVK_WIN_MAX_IMAGES];  /* copy into image k done */
	VkFence acquired;
	VkFence copied;
	int copying;               /* copied is pending */
	VkCommandPool pool;
	uint32_t pool_family;
	VkCommandBuffer cb;
	uint32_t family_checked, family_ok; /* bit f: present support asked / given */
	int stale;                 /* out of date or suboptimal: rebuild first */
	int broken;                /* a live failure: not shown any more */
};

struct rpvk_win {
	xcb_connection_t *conn;    /* NULL until a windowed instance needs it */
	xcb_screen_t *screen;      /* borrowed from conn's setup */
	int off;                   /* fell back to offscreen (noted) */
	char display[128];
	char title[160];
	/* per instance and device: win_on, win_queues (rpvk.h's slots) */
	rpvk_map surfaces;         /* (SURFACE, fake) -> rpvk_wsurf* */
};

/* ---- messages ---------------------------------------------------------------- */

static void rpvk_win_note(const rpvk *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A note is expected behaviour (not counted as a warning): first run only. */
static void rpvk_win_note(const rpvk *r, const char *fmt, ...)
{
	va_list ap;
	if (r->quiet || r->run > 1)
		return;
	fputs("tsreplay: note: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Fall back to offscreen for the whole replay, saying why once. */
static int rpvk_win_fall_back(rpvk *r, const char *why)
{
	if (!r->win->off)
		rpvk_win_note(r, "%s; replaying the swapchain offscreen (as with --offscreen)", why);
	r->win->off = 1;
	return 0;
}

static const char *rpvk_win_mode_name(VkPresentModeKHR m)
{
	switch (m) {
	case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
	case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
	case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
	case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
	case VK_PRESENT_MODE_SHARED_DEMAND_REFRESH_KHR: return "SHARED_DEMAND_REFRESH";
	case VK_PRESENT_MODE_SHARED_CONTINUOUS_REFRESH_KHR: return "SHARED_CONTINUOUS_REFRESH";
	default: return "?";
	}
}

/* Format names for the notes: the common presentable ones, else the number. */
static const char *rpvk_win_format_name(VkFormat f, char *buf, size_t len)
{
	switch (f) {
	case VK_FORMAT_B8G8R8A8_UNORM: return "B8G8R8A8_UNORM";
	case VK_FORMAT_B8G8R8A8_SRGB: return "B8G8R8A8_SRGB";
	case VK_FORMAT_R8G8B8A8_UNORM: return "R8G8B8A8_UNORM";
	case VK_FORMAT_R8G8B8A8_SRGB: return "R8G8B8A8_SRGB";
	case VK_FORMAT_A2B10G10R10_UNORM_PACK32: return "A2B10G10R10_UNORM_PACK32";
	case VK_FORMAT_A2R10G10B10_UNORM_PACK32: return "A2R10G10B10_UNORM_PACK32";
	case VK_FORMAT_R16G16B16A16_SFLOAT: return "R16G16B16A16_SFLOAT";
	case VK_FORMAT_R5G6B5_UNORM_PACK16: return "R5G6B5_UNORM_PACK16";
	default:
		snprintf(buf, len, "VkFormat %d", (int)f);
		return buf;
	}
}

/* ---- open, close, X ------------------------------------------------------------ */

rp_status rpvk_window_open(rpvk *r, int offscreen_opt, const char *trace_path, rp_diag *diag)
{
	const char *display = getenv("DISPLAY");
	const char *base;
	if (offscreen_opt || !display || !*display)
		return RP_OK;
	r->win = calloc(1, sizeof(*r->win));
	if (!r->win) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	snprintf(r->win->display, sizeof(r->win->display), "%s", display);
	base = trace_path ? strrchr(trace_path, '/') : NULL;
	base = base ? base + 1 : trace_path;
	snprintf(r->win->title, sizeof(r->win->title), "tsreplay%s%s", base ? ": " : "",
	         base ? base : "");
	return RP_OK;
}

void rpvk_window_close(rpvk *r)
{
	if (!r->win)
		return;
	/* The instances (and so the surfaces and windows) are gone already. */
	rpvk_map_free(&r->win->surfaces);
	if (r->win->conn)
		xcb_disconnect(r->win->conn);
	free(r->win);
	r->win = NULL;
}

/* Connect to the X server once; 0 (and offscreen from now on) when not. */
static int rpvk_win_connect(rpvk *r)
{
	struct rpvk_win *w = r->win;
	xcb_screen_iterator_t it;
	char why[256];
	int screen = 0, err;
	if (w->conn)
		return 1;
	w->conn = xcb_connect(w->display, &screen);
	err = xcb_connection_has_error(w->conn);
	if (err) {
		xcb_disconnect(w->conn);
		w->conn = NULL;
		snprintf(why, sizeof(why), "cannot connect to the X display '%s' (xcb error %d)",
		         w->display, err);
		return rpvk_win_fall_back(r, why);
	}
	it = xcb_setup_roots_iterator(xcb_get_setup(w->conn));
	for (; it.rem && screen > 0; screen--)
		xcb_screen_next(&it);
	if (!it.rem) {
		xcb_disconnect(w->conn);
		w->conn = NULL;
		snprintf(why, sizeof(why), "the X display '%s' has no such screen", w->display);
		return rpvk_win_fall_back(r, why);
	}
	w->screen = it.data;
	return 1;
}

/* Discard what the server sent (errors of ours, nothing else is selected). */
static void rpvk_win_drain(struct rpvk_win *w)
{
	xcb_generic_event_t *ev;
	while (w->conn && (ev = xcb_poll_for_event(w->conn)) != NULL)
		free(ev);
}

/* A round trip: everything sent before it has been processed. */
static void rpvk_win_sync(struct rpvk_win *w)
{
	xcb_get_input_focus_reply_t *reply =
		xcb_get_input_focus_reply(w->conn, xcb_get_input_focus(w->conn), NULL);
	free(reply);
}

static int rpvk_win_make_window(rpvk *r, rpvk_wsurf *s, uint32_t width, uint32_t height)
{
	struct rpvk_win *w = r->win;
	uint32_t values[2];
	xcb_void_cookie_t ck;
	xcb_generic_error_t *err;
	s->window = xcb_generate_id(w->conn);
	values[0] = w->screen->black_pixel;
	values[1] = 0; /* no events: the window only shows frames */
	ck = xcb_create_window_checked(w->conn, XCB_COPY_FROM_PARENT, s->window, w->screen->root, 0, 0,
	                               (uint16_t)width, (uint16_t)height, 0,
	                               XCB_WINDOW_CLASS_INPUT_OUTPUT, w->screen->root_visual,
	                               XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	err = xcb_request_check(w->conn, ck);
	if (err) {
		rpvk_warn(r, "seq %llu %s: cannot create an X window %ux%u (X error %d); this "
		          "swapchain is replayed offscreen", (unsigned long long)r->seq,
		          rpvk_cmd_label(r), width, height, (int)err->error_code);
		free(err);
		s->window = 0;
		return 0;
	}
	xcb_change_property(w->conn, XCB_PROP_MODE_REPLACE, s->window, XCB_ATOM_WM_NAME,
	                    XCB_ATOM_STRING, 8, (uint32_t)strlen(w->title), w->title);
	xcb_map_window(w->conn, s->window);
	rpvk_win_sync(w);
	s->width = width;
	s->height = height;
	return 1;
}

/* ---- instances and devices ------------------------------------------------------ */

static int rpvk_win_has(const char *const *names, uint32_t n, const char *name)
{
	uint32_t i;
	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

static int rpvk_win_instance_ext(const char *name)
{
	uint32_t n = 0, i;
	VkExtensionProperties *props;
	int found = 0;
	if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS)
		return 0;
	props = calloc(n ? n : 1, sizeof(*props));
	if (!props)
		return 0;
	if (vkEnumerateInstanceExtensionProperties(NULL, &n, props) >= 0)
		for (i = 0; i < n && !found; i++)
			found = strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

int rpvk_window_instance_exts(rpvk *r, const char **exts, uint32_t *n)
{
	static const char *const rpvk_win_inst_exts[] = {
		VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME,
	};
	size_t k;
	char why[200];
	if (!r->win || r->win->off)
		return 0;
	/* An instance without surfaces has nothing to show. */
	if (!rpvk_win_has(exts, *n, VK_KHR_SURFACE_EXTENSION_NAME))
		return 0;
	for (k = 0; k < sizeof(rpvk_win_inst_exts) / sizeof(rpvk_win_inst_exts[0]); k++)
		if (!rpvk_win_instance_ext(rpvk_win_inst_exts[k])) {
			snprintf(why, sizeof(why), "the replay's Vulkan has no %s", rpvk_win_inst_exts[k]);
			return rpvk_win_fall_back(r, why);
		}
	if (!rpvk_win_connect(r))
		return 0;
	for (k = 0; k < sizeof(rpvk_win_inst_exts) / sizeof(rpvk_win_inst_exts[0]); k++)
		if (!rpvk_win_has(exts, *n, rpvk_win_inst_exts[k]))
			exts[(*n)++] = rpvk_win_inst_exts[k];
	return 1;
}

void rpvk_window_instance_bind(rpvk *r, int inst, int on)
{
	if (r->win)
		r->inst[inst].win_on = on;
}

static void rpvk_win_surface_free(rpvk *r, rpvk_wsurf *s)
{
	struct rpvk_win *w = r->win;
	if (s->live && r->inst[s->inst].live && r->inst[s->inst].t.DestroySurfaceKHR)
		r->inst[s->inst].t.DestroySurfaceKHR(r->inst[s->inst].live, s->live, NULL);
	if (s->window && w->conn) {
		xcb_destroy_window(w->conn, s->window);
		xcb_flush(w->conn);
	}
	free(s);
}

void rpvk_window_instance_drop(rpvk *r, int inst)
{
	struct rpvk_win *w = r->win;
	size_t i;
	if (!w)
		return;
	for (i = 0; i < w->surfaces.cap; i++) {
		rpvk_map_slot *s = &w->surfaces.slots[i];
		rpvk_wsurf *ws;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		ws = (rpvk_wsurf *)(uintptr_t)s->val;
		if (ws->inst != inst)
			continue;
		rpvk_win_surface_free(r, ws);
		s->type = RPVK_MAP_TOMB;
		w->surfaces.live--;
	}
	r->inst[inst].win_on = 0;
}

int rpvk_window_device_exts(rpvk *r, int inst, VkPhysicalDevice phys, const char **exts, uint32_t *n)
{
	const rpvk_itable *t;
	VkExtensionProperties *props;
	uint32_t np = 0, i;
	int found = 0;
	if (!r->win || r->win->off || inst < 0 || !r->inst[inst].win_on)
		return 0;
	if (rpvk_win_has(exts, *n, VK_KHR_SWAPCHAIN_EXTENSION_NAME))
		return 1;
	t = &r->inst[inst].t;
	if (t->EnumerateDeviceExtensionProperties(phys, NULL, &np, NULL) != VK_SUCCESS)
		return 0;
	props = calloc(np ? np : 1, sizeof(*props));
	if (!props)
		return 0;
	if (t->EnumerateDeviceExtensionProperties(phys, NULL, &np, props) >= 0)
		for (i = 0; i < np && !found; i++)
			found = strcmp(props[i].extensionName, VK_KHR_SWAPCHAIN_EXTENSION_NAME) == 0;
	free(props);
	if (!found) {
		rpvk_win_note(r, "seq %llu vkCreateDevice: the device has no %s; its swapchains are "
		              "replayed offscreen", (unsigned long long)r->seq,
		              VK_KHR_SWAPCHAIN_EXTENSION_NAME);
		return 0;
	}
	exts[(*n)++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	return 1;
}

void rpvk_window_device_bind(rpvk *r, int dev, int on, const VkDeviceCreateInfo *ci)
{
	struct rpvk_win *w = r->win;
	rpvk_device *dv = &r->dev[dev];
	uint32_t i, k;
	if (!w)
		return;
	dv->win_on = on;
	dv->win_nqueues = 0;
	if (!on || !ci->pQueueCreateInfos)
		return;
	/* The queues it created, with their families: a present names only
	 * the queue, and both the copy's command pool and the live present
	 * support depend on the family. */
	for (i = 0; i < ci->queueCreateInfoCount; i++) {
		const VkDeviceQueueCreateInfo *q = &ci->pQueueCreateInfos[i];
		if (q->flags != 0)
			continue; /* protected queues come from vkGetDeviceQueue2 */
		for (k = 0; k < q->queueCount && dv->win_nqueues < RPVK_MAX_QUEUES; k++) {
			rpvk_win_queue *wq = &dv->win_queues[dv->win_nqueues++];
			dv->t.GetDeviceQueue(dv->live, q->queueFamilyIndex, k, &wq->q);
			wq->family = q->queueFamilyIndex;
		}
	}
}

void rpvk_window_device_drop(rpvk *r, int dev)
{
	if (!r->win)
		return;
	r->dev[dev].win_on = 0;
	r->dev[dev].win_nqueues = 0;
}

/* ---- surfaces ----------------------------------------------------------------- */

rp_status rpvk_window_surface_create(rpvk *r, uint64_t fake)
{
	struct rpvk_win *w = r->win;
	rpvk_wsurf *s;
	if (!w || w->off || r->cur_inst < 0 || !r->inst[r->cur_inst].win_on)
		return RP_OK;
	s = calloc(1, sizeof(*s));
	if (!s)
		return rpvk_nomem(r);
	s->fake = fake;
	s->inst = r->cur_inst;
	if (rpvk_map_put(&w->surfaces, VK_OBJECT_TYPE_SURFACE_KHR, fake, (uint64_t)(uintptr_t)s, 0) != 0) {
		free(s);
		return rpvk_nomem(r);
	}
	return RP_OK;
}

static rpvk_wsurf *rpvk_win_surface_find(rpvk *r, uint64_t fake)
{
	const rpvk_map_slot *s;
	if (!r->win)
		return NULL;
	s = rpvk_map_get(&r->win->surfaces, VK_OBJECT_TYPE_SURFACE_KHR, fake);
	return s ? (rpvk_wsurf *)(uintptr_t)s->val : NULL;
}

void rpvk_window_surface_destroy(rpvk *r, uint64_t fake)
{
	rpvk_wsurf *s = rpvk_win_surface_find(r, fake);
	if (!s)
		return;
	rpvk_win_surface_free(r, s);
	rpvk_map_del(&r->win->surfaces, VK_OBJECT_TYPE_SURFACE_KHR, fake);
}

/* The window (made or resized to width x height) and the live surface. */
static int rpvk_win_surface_ready(rpvk *r, rpvk_wsurf *s, uint32_t width, uint32_t height)
{
	struct rpvk_win *w = r->win;
	VkXcbSurfaceCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
	const rpvk_itable *t = &r->inst[s->inst].t;
	VkResult res;
	if (!s->window) {
		if (!rpvk_win_make_window(r, s, width, height))
			return 0;
	} else if (s->width != width || s->height != height) {
		uint32_t size[2] = {width, height};
		xcb_configure_window(w->conn, s->window, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT,
		                     size);
		rpvk_win_sync(w);
		s->width = width;
		s->height = height;
	}
	if (s->live)
		return 1;
	if (!t->CreateXcbSurfaceKHR) {
		rpvk_warn(r, "seq %llu %s: vkCreateXcbSurfaceKHR is missing; this swapchain is replayed "
		          "offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r));
		return 0;
	}
	ci.connection = w->conn;
	ci.window = s->window;
	res = t->CreateXcbSurfaceKHR(r->inst[s->inst].live, &ci, NULL, &s->live);
	if (res != VK_SUCCESS) {
		s->live = VK_NULL_HANDLE;
		rpvk_warn(r, "seq %llu %s: vkCreateXcbSurfaceKHR failed: %s; this swapchain is replayed "
		          "offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r), rpvk_result_name(res));
		return 0;
	}
	return 1;
}

/* ---- swapchains ----------------------------------------------------------------- */

/* What the live swapchain will be: the captured create info, adjusted to
 * the live surface.  The adjustments are appended to `changes`. */
typedef struct rpvk_win_params {
	uint32_t min_count;
	VkSurfaceFormatKHR format;
	VkExtent2D extent;
	VkPresentModeKHR mode;
	VkCompositeAlphaFlagBitsKHR alpha;
	VkSurfaceTransformFlagBitsKHR transform;
	char changes[400];
} rpvk_win_params;

static void rpvk_win_change(rpvk_win_params *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void rpvk_win_change(rpvk_win_params *p, const char *fmt, ...)
{
	size_t len = strlen(p->changes);
	va_list ap;
	if (len + 3 >= sizeof(p->changes))
		return;
	if (len)
		len += (size_t)snprintf(p->changes + len, sizeof(p->changes) - len, ", ");
	va_start(ap, fmt);
	vsnprintf(p->changes + len, sizeof(p->changes) - len, fmt, ap);
	va_end(ap);
}

static uint32_t rpvk_win_clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* 0 when the live surface cannot take a swapchain we can copy into (why in
 * a warning). */
static int rpvk_win_params_get(rpvk *r, const rpvk_swapchain *sc, const rpvk_wsurf *s,
                               rpvk_win_params *p)
{
	const rpvk_device *dv = &r->dev[sc->dev];
	const rpvk_itable *t = &r->inst[dv->inst].t;
	VkPhysicalDevice phys = r->phys[dv->phys].live;
	const VkSwapchainCreateInfoKHR *ci = &sc->info;
	VkSurfaceCapabilitiesKHR caps;
	VkSurfaceFormatKHR formats[RPVK_WIN_MAX_FORMATS];
	VkPresentModeKHR modes[RPVK_WIN_MAX_MODES];
	uint32_t nf = RPVK_WIN_MAX_FORMATS, nm = RPVK_WIN_MAX_MODES, i, hi;
	char b1[32], b2[32];
	int same_format = -1;
	VkResult res;

	memset(p, 0, sizeof(*p));
	res = t->GetPhysicalDeviceSurfaceCapabilitiesKHR(phys, s->live, &caps);
	if (res == VK_SUCCESS)
		res = t->GetPhysicalDeviceSurfaceFormatsKHR(phys, s->live, &nf, formats);
	if (res >= 0)
		res = t->GetPhysicalDeviceSurfacePresentModesKHR(phys, s->live, &nm, modes);
	if (res < 0 || nf == 0) {
		rpvk_warn(r, "seq %llu %s: cannot query the window's surface (%s); this swapchain is "
		          "replayed offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r),
		          nf ? rpvk_result_name(res) : "no formats");
		return 0;
	}
	if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
		rpvk_warn(r, "seq %llu %s: the window's surface does not take TRANSFER_DST images; this "
		          "swapchain is replayed offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r));
		return 0;
	}

	hi = caps.maxImageCount ? caps.maxImageCount : UINT32_MAX;
	if (hi > RPVK_WIN_MAX_IMAGES)
		hi = RPVK_WIN_MAX_IMAGES;
	p->min_count = rpvk_win_clamp(ci->minImageCount, caps.minImageCount, hi);
	if (p->min_count != ci->minImageCount)
		rpvk_win_change(p, "minImageCount %u -> %u", ci->minImageCount, p->min_count);

	p->format = formats[0];
	for (i = 0; i < nf; i++) {
		if (formats[i].format == ci->imageFormat && formats[i].colorSpace == ci->imageColorSpace)
			break;
		if (formats[i].format == ci->imageFormat && same_format < 0)
			same_format = (int)i;
	}
	if (i < nf)
		p->format = formats[i];
	else if (same_format >= 0)
		p->format = formats[same_format];
	if (p->format.format != ci->imageFormat)
		rpvk_win_change(p, "format %s -> %s", rpvk_win_format_name(ci->imageFormat, b1, sizeof(b1)),
		                rpvk_win_format_name(p->format.format, b2, sizeof(b2)));
	if (p->format.colorSpace != ci->imageColorSpace)
		rpvk_win_change(p, "colorSpace %d -> %d", (int)ci->imageColorSpace, (int)p->format.colorSpace);

	if (caps.currentExtent.width != UINT32_MAX) {
		p->extent = caps.currentExtent;
	} else {
		p->extent.width = rpvk_win_clamp(ci->imageExtent.width, caps.minImageExtent.width,
		                                 caps.maxImageExtent.width);
		p->extent.height = rpvk_win_clamp(ci->imageExtent.height, caps.minImageExtent.height,
		                                  caps.maxImageExtent.height);
	}
	if (p->extent.width != ci->imageExtent.width || p->extent.height != ci->imageExtent.height)
		rpvk_win_change(p, "extent %ux%u -> %ux%u (scaled)", ci->imageExtent.width,
		                ci->imageExtent.height, p->extent.width, p->extent.height);

	p->mode = VK_PRESENT_MODE_FIFO_KHR; /* every surface has it */
	for (i = 0; i < nm; i++)
		if (modes[i] == ci->presentMode)
			p->mode = ci->presentMode;
	if (p->mode != ci->presentMode)
		rpvk_win_change(p, "presentMode %s -> %s", rpvk_win_mode_name(ci->presentMode),
		                rpvk_win_mode_name(p->mode));

	if (caps.supportedCompositeAlpha & ci->compositeAlpha)
		p->alpha = ci->compositeAlpha;
	else if (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
		p->alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	else
		p->alpha = (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
		                                          (~caps.supportedCompositeAlpha + 1));
	if (p->alpha != ci->compositeAlpha)
		rpvk_win_change(p, "compositeAlpha 0x%x -> 0x%x", (unsigned)ci->compositeAlpha,
		                (unsigned)p->alpha);

	/* The copy is not rotated: identity wherever the surface allows it. */
	p->transform = (caps.supportedTransforms & VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR)
	                   ? VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR : caps.currentTransform;
	if (p->transform != ci->preTransform)
		rpvk_win_change(p, "preTransform 0x%x -> 0x%x", (unsigned)ci->preTransform,
		                (unsigned)p->transform);
	return 1;
}

/* Can plain images of sc be blitted into live images of format f? */
static int rpvk_win_blit_ok(rpvk *r, const rpvk_swapchain *sc, VkFormat f)
{
	const rpvk_device *dv = &r->dev[sc->dev];
	const rpvk_itable *t = &r->inst[dv->inst].t;
	VkFormatProperties src, dst;
	t->GetPhysicalDeviceFormatProperties(r->phys[dv->phys].live, sc->info.imageFormat, &src);
	t->GetPhysicalDeviceFormatProperties(r->phys[dv->phys].live, f, &dst);
	return (src.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_SRC_BIT) &&
	       (dst.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT);
}

static void rpvk_win_sc_release(rpvk *r, struct rpvk_wsc *x, int keep_swapchain)
{
	rpvk_device *dv = &r->dev[x->dev];
	uint32_t i;
	if (!dv->live)
		return;
	for (i = 0; i < RPVK_WIN_MAX_IMAGES; i++)
		if (x->ready[i]) {
			dv->t.DestroySemaphore(dv->live, x->ready[i], NULL);
			x->ready[i] = VK_NULL_HANDLE;
		}
	if (!keep_swapchain && x->live) {
		dv->t.DestroySwapchainKHR(dv->live, x->live, NULL);
		x->live = VK_NULL_HANDLE;
	}
	x->count = 0;
}

/* Make (or remake, retiring the current one) the live swapchain. */
static int rpvk_win_sc_build(rpvk *r, rpvk_swapchain *sc, struct rpvk_wsc *x, VkSwapchainKHR old,
                             int first)
{
	rpvk_device *dv = &r->dev[sc->dev];
	VkSwapchainCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
	VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkSwapchainKHR retired = x->live;
	rpvk_win_params p;
	char fb[32];
	VkResult res;
	uint32_t n = RPVK_WIN_MAX_IMAGES, i;

	if (!rpvk_win_surface_ready(r, x->surf, sc->info.imageExtent.width, sc->info.imageExtent.height) ||
	    !rpvk_win_params_get(r, sc, x->surf, &p))
		return 0;
	x->blit = p.format.format != sc->info.imageFormat || p.extent.width != sc->info.imageExtent.width ||
	          p.extent.height != sc->info.imageExtent.height;
	if (x->blit && !rpvk_win_blit_ok(r, sc, p.format.format)) {
		rpvk_warn(r, "seq %llu %s: the window needs %s %ux%u, which the device cannot blit %s "
		          "into; this swapchain is replayed offscreen", (unsigned long long)r->seq,
		          rpvk_cmd_label(r), rpvk_win_format_name(p.format.format, fb, sizeof(fb)),
		          p.extent.width, p.extent.height, "the plain images");
		return 0;
	}
	ci.surface = x->surf->live;
	ci.minImageCount = p.min_count;
	ci.imageFormat = p.format.format;
	ci.imageColorSpace = p.format.colorSpace;
	ci.imageExtent = p.extent;
	ci.imageArrayLayers = 1;
	ci.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ci.preTransform = p.transform;
	ci.compositeAlpha = p.alpha;
	ci.presentMode = p.mode;
	ci.clipped = VK_TRUE;
	ci.oldSwapchain = retired ? retired : old;
	x->live = VK_NULL_HANDLE;
	res = dv->t.CreateSwapchainKHR(dv->live, &ci, NULL, &x->live);
	if (retired) {
		/* The retired one's presents must be done before it goes. */
		dv->t.DeviceWaitIdle(dv->live);
		dv->t.DestroySwapchainKHR(dv->live, retired, NULL);
		rpvk_win_sc_release(r, x, 1);
	}
	if (res != VK_SUCCESS) {
		x->live = VK_NULL_HANDLE;
		rpvk_warn(r, "seq %llu %s: the window's vkCreateSwapchainKHR failed: %s; this swapchain "
		          "is replayed offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r),
		          rpvk_result_name(res));
		return 0;
	}
	res = dv->t.GetSwapchainImagesKHR(dv->live, x->live, &n, x->images);
	if (res < 0 || n == 0) {
		rpvk_warn(r, "seq %llu %s: the window's swapchain has no images (%s); this swapchain is "
		          "replayed offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r),
		          rpvk_result_name(res));
		return 0;
	}
	x->count = n;
	for (i = 0; i < n; i++)
		if (dv->t.CreateSemaphore(dv->live, &si, NULL, &x->ready[i]) != VK_SUCCESS) {
			rpvk_warn(r, "seq %llu %s: cannot create a semaphore for the window; this swapchain "
			          "is replayed offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r));
			return 0;
		}
	x->extent = p.extent;
	x->stale = 0;
	if (!first)
		rpvk_win_note(r, "seq %llu %s: the window is out of date (resized?): its swapchain is "
		              "remade, %ux%u", (unsigned long long)r->seq, rpvk_cmd_label(r),
		              p.extent.width, p.extent.height);
	else
		rpvk_win_note(r, "seq %llu %s: presenting to an X window on %s, %ux%u %s %s, %u images%s%s",
		              (unsigned long long)r->seq, rpvk_cmd_label(r), r->win->display, p.extent.width,
		              p.extent.height, rpvk_win_format_name(p.format.format, fb, sizeof(fb)),
		              rpvk_win_mode_name(p.mode), n,
		              p.changes[0] ? "; adjusted to the live surface: " : "", p.changes);
	return 1;
}

static void rpvk_win_sc_free(rpvk *r, struct rpvk_wsc *x)
{
	rpvk_device *dv = &r->dev[x->dev];
	if (dv->live) {
		if (x->copying) /* bounded: teardown goes on either way */
			dv->t.WaitForFences(dv->live, 1, &x->copied, VK_TRUE, r->wait_ns);
		/* Presents wait on the semaphores: let them finish too. */
		dv->t.DeviceWaitIdle(dv->live);
		rpvk_win_sc_release(r, x, 0);
		if (x->pool)
			dv->t.DestroyCommandPool(dv->live, x->pool, NULL);
		if (x->acquired)
			dv->t.DestroyFence(dv->live, x->acquired, NULL);
		if (x->copied)
			dv->t.DestroyFence(dv->live, x->copied, NULL);
	}
	free(x);
}

void rpvk_window_swapchain_create(rpvk *r, rpvk_swapchain *sc, uint64_t fake_surface,
                                  rpvk_swapchain *old)
{
	struct rpvk_win *w = r->win;
	rpvk_device *dv = &r->dev[sc->dev];
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	rpvk_wsurf *s = rpvk_win_surface_find(r, fake_surface);
	struct rpvk_wsc *x;
	VkSwapchainKHR old_live = VK_NULL_HANDLE;
	if (!w || w->off || !s || !r->dev[sc->dev].win_on || s->inst != dv->inst)
		return;
	x = calloc(1, sizeof(*x));
	if (!x) {
		rpvk_warn(r, "seq %llu %s: out of memory for the window; this swapchain is replayed "
		          "offscreen", (unsigned long long)r->seq, rpvk_cmd_label(r));
		return;
	}
	x->surf = s;
	x->dev = sc->dev;
	if (old && old->win && old->win->surf == s && !old->win->broken) {
		/* The application retires old: so does the window's swapchain. */
		old_live = old->win->live;
		old->win->broken = 1;
	}
	if (dv->t.CreateFence(dv->live, &fi, NULL, &x->acquired) != VK_SUCCESS ||
	    dv->t.CreateFence(dv->live, &fi, NULL, &x->copied) != VK_SUCCESS ||
	    !rpvk_win_sc_build(r, sc, x, old_live, 1)) {
		rpvk_win_sc_free(r, x);
		return;
	}
	sc->win = x;
}

void rpvk_window_swapchain_destroy(rpvk *r, rpvk_swapchain *sc)
{
	if (!sc->win)
		return;
	rpvk_win_sc_free(r, sc->win);
	sc->win = NULL;
}

void rpvk_window_acquire_wait(rpvk *r, rpvk_swapchain *sc)
{
	struct rpvk_wsc *x = sc->win;
	rpvk_device *dv = &r->dev[sc->dev];
	if (!x || !x->copying)
		return;
	if (dv->t.WaitForFences(dv->live, 1, &x->copied, VK_TRUE, r->wait_ns) != VK_SUCCESS) {
		/* the fence stays as it is: the window is not used again */
		x->broken = 1;
		rpvk_warn(r, "seq %llu %s: the window: the copy into its image did not complete within "
		          "--wait-timeout; later frames of this swapchain are not shown",
		          (unsigned long long)r->seq, rpvk_cmd_label(r));
		x->copying = 0;
		return;
	}
	dv->t.ResetFences(dv->live, 1, &x->copied);
	x->copying = 0;
}

/* ---- present -------------------------------------------------------------------- */

/* The family of a queue of device d, or -1. */
static int rpvk_win_queue_family(const rpvk *r, int d, VkQueue q)
{
	uint32_t i;
	for (i = 0; i < r->dev[d].win_nqueues; i++)
		if (r->dev[d].win_queues[i].q == q)
			return (int)r->dev[d].win_queues[i].family;
	return -1;
}

static void rpvk_win_break(rpvk *r, struct rpvk_wsc *x, const char *what, VkResult res)
{
	x->broken = 1;
	rpvk_warn(r, "seq %llu %s: the window: %s%s%s; later frames of this swapchain are not shown",
	          (unsigned long long)r->seq, rpvk_cmd_label(r), what, res != VK_SUCCESS ? ": " : "",
	          res != VK_SUCCESS ? rpvk_result_name(res) : "");
}

/* Present support of the queue's family for the window, asked live once. */
static int rpvk_win_family_ok(rpvk *r, struct rpvk_wsc *x, uint32_t family)
{
	rpvk_device *dv = &r->dev[x->dev];
	VkBool32 ok = VK_FALSE;
	uint32_t bit;
	if (family >= RPVK_WIN_MAX_FAMILIES)
		return 0;
	bit = 1u << family;
	if (!(x->family_checked & bit)) {
		r->inst[dv->inst].t.GetPhysicalDeviceSurfaceSupportKHR(r->phys[dv->phys].live, family,
		                                                       x->surf->live, &ok);
		x->family_checked |= bit;
		if (ok)
			x->family_ok |= bit;
	}
	return (x->family_ok & bit) != 0;
}

/* The command pool of the presenting queue's family, and its buffer. */
static int rpvk_win_pool(rpvk *r, struct rpvk_wsc *x, uint32_t family)
{
	rpvk_device *dv = &r->dev[x->dev];
	VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
	if (x->pool && x->pool_family == family)
		return 1;
	if (x->pool) {
		dv->t.DestroyCommandPool(dv->live, x->pool, NULL); /* its last copy was waited for */
		x->pool = VK_NULL_HANDLE;
		x->cb = VK_NULL_HANDLE;
	}
	pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
	pi.queueFamilyIndex = family;
	if (dv->t.CreateCommandPool(dv->live, &pi, NULL, &x->pool) != VK_SUCCESS) {
		x->pool = VK_NULL_HANDLE;
		return 0;
	}
	x->pool_family = family;
	ai.commandPool = x->pool;
	ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	ai.commandBufferCount = 1;
	return dv->t.AllocateCommandBuffers(dv->live, &ai, &x->cb) == VK_SUCCESS;
}

/* Record: plain image idx (GENERAL, its work waited for on this queue) ->
 * live image k (UNDEFINED -> TRANSFER_DST -> PRESENT_SRC). */
static void rpvk_win_record(rpvk *r, rpvk_swapchain *sc, struct rpvk_wsc *x, uint32_t idx, uint32_t k)
{
	const rpvk_dtable *t = &r->dev[x->dev].t;
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkImageMemoryBarrier b[2];
	VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	VkImageSubresourceLayers layers = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};

	memset(b, 0, sizeof(b));
	begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	t->BeginCommandBuffer(x->cb, &begin);
	b[0].sType = b[1].sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
	b[0].srcQueueFamilyIndex = b[0].dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b[1].srcQueueFamilyIndex = b[1].dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b[0].subresourceRange = b[1].subresourceRange = range;
	/* The application's writes to the plain image, then our read. */
	b[0].srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
	b[0].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	b[0].oldLayout = b[0].newLayout = VK_IMAGE_LAYOUT_GENERAL;
	b[0].image = sc->images[idx];
	/* The live image: acquired (fence waited), its old contents unwanted. */
	b[1].srcAccessMask = 0;
	b[1].dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	b[1].oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	b[1].newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	b[1].image = x->images[k];
	t->CmdPipelineBarrier(x->cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
	                      0, NULL, 0, NULL, 2, b);
	if (x->blit) {
		VkImageBlit blit;
		memset(&blit, 0, sizeof(blit));
		blit.srcSubresource = blit.dstSubresource = layers;
		blit.srcOffsets[1].x = (int32_t)sc->info.imageExtent.width;
		blit.srcOffsets[1].y = (int32_t)sc->info.imageExtent.height;
		blit.srcOffsets[1].z = 1;
		blit.dstOffsets[1].x = (int32_t)x->extent.width;
		blit.dstOffsets[1].y = (int32_t)x->extent.height;
		blit.dstOffsets[1].z = 1;
		t->CmdBlitImage(x->cb, sc->images[idx], VK_IMAGE_LAYOUT_GENERAL, x->images[k],
		                VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_NEAREST);
	} else {
		VkImageCopy copy;
		memset(&copy, 0, sizeof(copy));
		copy.srcSubresource = copy.dstSubresource = layers;
		copy.extent.width = x->extent.width;
		copy.extent.height = x->extent.height;
		copy.extent.depth = 1;
		t->CmdCopyImage(x->cb, sc->images[idx], VK_IMAGE_LAYOUT_GENERAL, x->images[k],
		                VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
	}
	/* Our read done before the application writes the plain image again
	 * (same queue; other queues wait on the host, rpvk_window_acquire_wait),
	 * and the live image handed to the presentation engine. */
	b[0].srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	b[0].dstAccessMask = 0;
	b[1].srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	b[1].dstAccessMask = 0;
	b[1].oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	b[1].newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
	t->CmdPipelineBarrier(x->cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
	                      0, NULL, 0, NULL, 2, b);
	t->EndCommandBuffer(x->cb);
}

/* Acquire a live image (host-waited); rebuilds once when out of date.
 * -1 when nothing can be shown. */
static int64_t rpvk_win_acquire(rpvk *r, rpvk_swapchain *sc, struct rpvk_wsc *x)
{
	rpvk_device *dv = &r->dev[x->dev];
	uint32_t k = 0;
	int attempt;
	VkResult res = VK_SUCCESS;
	for (attempt = 0; attempt < 2; attempt++) {
		if (x->stale && !rpvk_win_sc_build(r, sc, x, VK_NULL_HANDLE, 0)) {
			x->broken = 1;
			return -1;
		}
		res = dv->t.AcquireNextImageKHR(dv->live, x->live, r->wait_ns, VK_NULL_HANDLE, x->acquired, &k);
		if (res == VK_ERROR_OUT_OF_DATE_KHR) {
			x->stale = 1;
			continue;
		}
		break;
	}
	if (res != VK_SUCCESS && res != VK_SUBOPTIMAL_KHR) {
		rpvk_win_break(r, x, "vkAcquireNextImageKHR failed", res);
		return -1;
	}
	if (res == VK_SUBOPTIMAL_KHR)
		x->stale = 1; /* use this image, rebuild for the next frame */
	res = dv->t.WaitForFences(dv->live, 1, &x->acquired, VK_TRUE, r->wait_ns);
	if (res != VK_SUCCESS) {
		rpvk_win_break(r, x, "the acquired image was not ready within --wait-timeout", res);
		return -1;
	}
	dv->t.ResetFences(dv->live, 1, &x->acquired);
	if (k >= x->count) {
		rpvk_win_break(r, x, "the live swapchain returned an image index out of range", VK_SUCCESS);
		return -1;
	}
	return k;
}

void rpvk_window_present(rpvk *r, VkQueue queue, rpvk_swapchain *sc, uint32_t idx)
{
	struct rpvk_wsc *x = sc->win;
	rpvk_device *dv = &r->dev[sc->dev];
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
	int family;
	int64_t k;
	uint32_t ki;
	VkResult res;

	if (!x || x->broken || !sc->images || idx >= sc->count)
		return;
	family = rpvk_win_queue_family(r, sc->dev, queue);
	if (family < 0) {
		rpvk_win_break(r, x, "the presenting queue is not one vkCreateDevice made", VK_SUCCESS);
		return;
	}
	if (!rpvk_win_family_ok(r, x, (uint32_t)family)) {
		char what[120];
		snprintf(what, sizeof(what), "queue family %d cannot present to the window", family);
		rpvk_win_break(r, x, what, VK_SUCCESS);
		return;
	}
	rpvk_window_acquire_wait(r, sc);
	if (!rpvk_win_pool(r, x, (uint32_t)family)) {
		rpvk_win_break(r, x, "cannot make a command buffer for the copy", VK_SUCCESS);
		return;
	}
	k = rpvk_win_acquire(r, sc, x);
	if (k < 0)
		return;
	ki = (uint32_t)k;
	dv->t.ResetCommandBuffer(x->cb, 0);
	rpvk_win_record(r, sc, x, idx, ki);
	si.commandBufferCount = 1;
	si.pCommandBuffers = &x->cb;
	si.signalSemaphoreCount = 1;
	si.pSignalSemaphores = &x->ready[ki];
	res = dv->t.QueueSubmit(queue, 1, &si, x->copied);
	if (res != VK_SUCCESS) {
		rpvk_win_break(r, x, "the copy's vkQueueSubmit failed", res);
		return;
	}
	x->copying = 1;
	pi.waitSemaphoreCount = 1;
	pi.pWaitSemaphores = &x->ready[ki];
	pi.swapchainCount = 1;
	pi.pSwapchains = &x->live;
	pi.pImageIndices = &ki;
	res = dv->t.QueuePresentKHR(queue, &pi);
	if (res == VK_SUBOPTIMAL_KHR || res == VK_ERROR_OUT_OF_DATE_KHR)
		x->stale = 1;
	if (res != VK_SUCCESS && res != VK_SUBOPTIMAL_KHR && res != VK_ERROR_OUT_OF_DATE_KHR) {
		rpvk_win_break(r, x, "vkQueuePresentKHR failed", res);
		return;
	}
	if (res != VK_ERROR_OUT_OF_DATE_KHR)
		r->window_frames++;
	rpvk_win_drain(r->win);
}
