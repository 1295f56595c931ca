/*
 * vkl_hotkey.c - the capture key (TRACESMITH_TRIGGER=key:NAME[:COUNT],
 * `tscapture --frame F12`), read as RenderDoc reads its own: through the
 * application's X connection, at present time.
 *
 * The layer remembers the Display (vkCreateXlibSurfaceKHR) or xcb
 * connection (vkCreateXcbSurfaceKHR) each surface was created with, and the
 * connection of each swapchain's surface.  At every vkQueuePresentKHR it
 * asks the X server, on the presented swapchains' connections, which keys
 * are down (XQueryKeymap, xcb_query_keymap).  A key-down edge - the key
 * down now and up at the previous present - asks the capture runtime for a
 * window of COUNT frames (cap_window_request_frames): it opens at the end
 * of the frame being presented, so a press captures the frames after it.
 * A press held across many presents counts once.  The state is one per
 * process (one keyboard), whatever the connection it was read from.
 *
 * libX11 and libxcb are not linked: their functions are looked up with
 * dlsym in the copies the application has already loaded (dlopen
 * RTLD_NOLOAD), which it has whenever it created such a surface.  The
 * connections are the application's and borrowed: a surface must outlive
 * its swapchains and its connection its surfaces (the application's
 * promise to Vulkan and to Xlib), so a connection is used only while a
 * surface created with it lives.  The queries run on the presenting
 * thread; xcb is thread-safe, and so is Xlib since 1.8 (XInitThreads is
 * implied).
 *
 * Without an X surface (Wayland, VK_EXT_headless_surface, a device that
 * never presents) the key cannot be read: one warning, and the rest of the
 * capture is unaffected.
 *
 * Locking: vkl_hk.mu guards the tables, the key state and the looked-up
 * functions; it is only taken when the key trigger is set.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cap_keys.h"
#include "layers/vulkan/vkl.h"
#include "serializer/sbt_vk.h"

/* Keycodes one keysym may sit on (a keyboard mapping can repeat it). */
#define VKL_HK_KEYCODES 4
/* Connections one present may name; more are read at the next present. */
#define VKL_HK_PRESENT_CONNS 8

typedef enum {
	VKL_HK_XLIB = 1, /* conn is a Display * */
	VKL_HK_XCB = 2   /* conn is an xcb_connection_t * */
} vkl_hk_kind;

/* A surface or swapchain and the X connection behind it (borrowed). */
typedef struct vkl_hk_handle {
	uint64_t handle;
	void *conn;
} vkl_hk_handle;

typedef struct vkl_hk_handles {
	vkl_hk_handle *v;
	size_t n, cap;
} vkl_hk_handles;

/* An X connection some live surface was created with. */
typedef struct vkl_hk_conn {
	void *conn;
	vkl_hk_kind kind;
	uint32_t surfaces; /* live surfaces created with it */
	int mapped;        /* keycodes looked up */
	int nkeycodes;
	uint8_t keycodes[VKL_HK_KEYCODES];
} vkl_hk_conn;

/* The functions the layer calls in the application's libX11 / libxcb. */
typedef int (*vkl_hk_XQueryKeymap_fn)(Display *, char[32]);
typedef KeyCode (*vkl_hk_XKeysymToKeycode_fn)(Display *, KeySym);
typedef const xcb_setup_t *(*vkl_hk_xcb_get_setup_fn)(xcb_connection_t *);
typedef xcb_query_keymap_cookie_t (*vkl_hk_xcb_query_keymap_fn)(xcb_connection_t *);
typedef xcb_query_keymap_reply_t *(*vkl_hk_xcb_query_keymap_reply_fn)(
	xcb_connection_t *, xcb_query_keymap_cookie_t, xcb_generic_error_t **);
typedef xcb_get_keyboard_mapping_cookie_t (*vkl_hk_xcb_get_keyboard_mapping_fn)(
	xcb_connection_t *, xcb_keycode_t, uint8_t);
typedef xcb_get_keyboard_mapping_reply_t *(*vkl_hk_xcb_get_keyboard_mapping_reply_fn)(
	xcb_connection_t *, xcb_get_keyboard_mapping_cookie_t, xcb_generic_error_t **);
typedef xcb_keysym_t *(*vkl_hk_xcb_get_keyboard_mapping_keysyms_fn)(
	const xcb_get_keyboard_mapping_reply_t *);

static struct {
	pthread_once_t once;
	pthread_mutex_t mu;
	uint32_t keysym; /* 0: the key trigger is off */
	uint32_t frames; /* per press */
	vkl_hk_handles surfaces, swapchains;
	vkl_hk_conn *conns;
	size_t nconns, capconns;
	int down; /* the key was down at the last present that read it */
	_Atomic(int) warned_unreadable; /* read without the lock */
	int warned_unmapped, warned_memory;
	/* looked up on first use of each kind; NULL when not found */
	int xlib_looked_up, xcb_looked_up;
	vkl_hk_XQueryKeymap_fn XQueryKeymap;
	vkl_hk_XKeysymToKeycode_fn XKeysymToKeycode;
	vkl_hk_xcb_get_setup_fn xcb_get_setup;
	vkl_hk_xcb_query_keymap_fn xcb_query_keymap;
	vkl_hk_xcb_query_keymap_reply_fn xcb_query_keymap_reply;
	vkl_hk_xcb_get_keyboard_mapping_fn xcb_get_keyboard_mapping;
	vkl_hk_xcb_get_keyboard_mapping_reply_fn xcb_get_keyboard_mapping_reply;
	vkl_hk_xcb_get_keyboard_mapping_keysyms_fn xcb_get_keyboard_mapping_keysyms;
} vkl_hk = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

static void vkl_hk_init(void)
{
	const cap_config *cfg = cap_config_get();
	if (!(cfg->triggers & CAP_TRIG_KEY))
		return;
	vkl_hk.frames = cfg->key_frames ? cfg->key_frames : 1;
	vkl_hk.keysym = cap_key_lookup(cfg->key_name);
	if (!vkl_hk.keysym)
		CAP_WARN("capture key '%s' is not a key name (%s); no capture window opens on a key",
		         cfg->key_name, cap_key_names());
}

/* 1 when the key trigger is set and names a key. */
static int vkl_hk_on(void)
{
	pthread_once(&vkl_hk.once, vkl_hk_init);
	return vkl_hk.keysym != 0;
}

static void vkl_hk_unreadable(const char *why)
{
	if (atomic_exchange(&vkl_hk.warned_unreadable, 1))
		return;
	CAP_WARN("the capture key %s cannot be read: %s; no capture window opens on it",
	         cap_config_get()->key_name, why);
}

/* ---- surfaces, swapchains and their connections ---------------------------- */

/* Every function from here on but the vkl_hotkey_* entry points runs with
 * vkl_hk.mu held. */

static vkl_hk_handle *vkl_hk_handles_find(vkl_hk_handles *t, uint64_t handle)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		if (t->v[i].handle == handle)
			return &t->v[i];
	return NULL;
}

/* 0 when out of memory (the handle is then not known: its presents do not
 * read the key). */
static int vkl_hk_handles_put(vkl_hk_handles *t, uint64_t handle, void *conn)
{
	vkl_hk_handle *e = vkl_hk_handles_find(t, handle);
	if (!e) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 8;
			vkl_hk_handle *v = realloc(t->v, cap * sizeof(*v));
			if (!v)
				return 0;
			t->v = v;
			t->cap = cap;
		}
		e = &t->v[t->n++];
	}
	e->handle = handle;
	e->conn = conn;
	return 1;
}

/* The connection the removed entry had (NULL when the handle was unknown). */
static void *vkl_hk_handles_remove(vkl_hk_handles *t, uint64_t handle)
{
	vkl_hk_handle *e = vkl_hk_handles_find(t, handle);
	void *conn;
	if (!e)
		return NULL;
	conn = e->conn;
	*e = t->v[--t->n];
	return conn;
}

static vkl_hk_conn *vkl_hk_conn_find(const void *conn)
{
	size_t i;
	for (i = 0; i < vkl_hk.nconns; i++)
		if (vkl_hk.conns[i].conn == conn)
			return &vkl_hk.conns[i];
	return NULL;
}

static vkl_hk_conn *vkl_hk_conn_ref(void *conn, vkl_hk_kind kind)
{
	vkl_hk_conn *c = vkl_hk_conn_find(conn);
	if (!c) {
		if (vkl_hk.nconns == vkl_hk.capconns) {
			size_t cap = vkl_hk.capconns ? 2 * vkl_hk.capconns : 4;
			vkl_hk_conn *v = realloc(vkl_hk.conns, cap * sizeof(*v));
			if (!v)
				return NULL;
			vkl_hk.conns = v;
			vkl_hk.capconns = cap;
		}
		c = &vkl_hk.conns[vkl_hk.nconns++];
		memset(c, 0, sizeof(*c));
		c->conn = conn;
		c->kind = kind;
	}
	c->surfaces++;
	return c;
}

/* The last surface of a connection is gone: the application may close it. */
static void vkl_hk_conn_unref(const void *conn)
{
	vkl_hk_conn *c = vkl_hk_conn_find(conn);
	if (c && --c->surfaces == 0)
		*c = vkl_hk.conns[--vkl_hk.nconns];
}

static void vkl_hk_memory(void)
{
	if (!vkl_hk.warned_memory)
		CAP_WARN("capture key: out of memory; presents to new windows do not read it");
	vkl_hk.warned_memory = 1;
}

static void vkl_hk_surface_created(VkSurfaceKHR surface, void *conn, vkl_hk_kind kind)
{
	if (!conn)
		return;
	if (!vkl_hk_conn_ref(conn, kind)) {
		vkl_hk_memory();
		return;
	}
	if (!vkl_hk_handles_put(&vkl_hk.surfaces, (uint64_t)(uintptr_t)surface, conn)) {
		vkl_hk_conn_unref(conn);
		vkl_hk_memory();
	}
}

static void vkl_hk_swapchain_created(VkSwapchainKHR swapchain, VkSurfaceKHR surface)
{
	vkl_hk_handle *s = vkl_hk_handles_find(&vkl_hk.surfaces, (uint64_t)(uintptr_t)surface);
	if (s && !vkl_hk_handles_put(&vkl_hk.swapchains, (uint64_t)(uintptr_t)swapchain, s->conn))
		vkl_hk_memory();
}

void vkl_hotkey_call(uint32_t cmd, const void *args, int ok)
{
	void *conn;
	uint32_t i;
	if (!vkl_hk_on())
		return;
	pthread_mutex_lock(&vkl_hk.mu);
	switch (cmd) {
	case SBT_VK_CMD_vkCreateXlibSurfaceKHR: {
		const sbt_vk_args_vkCreateXlibSurfaceKHR *a = args;
		if (ok)
			vkl_hk_surface_created(*a->pSurface, a->pCreateInfo->dpy, VKL_HK_XLIB);
		break;
	}
	case SBT_VK_CMD_vkCreateXcbSurfaceKHR: {
		const sbt_vk_args_vkCreateXcbSurfaceKHR *a = args;
		if (ok)
			vkl_hk_surface_created(*a->pSurface, a->pCreateInfo->connection, VKL_HK_XCB);
		break;
	}
	case SBT_VK_CMD_vkDestroySurfaceKHR: {
		const sbt_vk_args_vkDestroySurfaceKHR *a = args;
		conn = vkl_hk_handles_remove(&vkl_hk.surfaces, (uint64_t)(uintptr_t)a->surface);
		if (conn)
			vkl_hk_conn_unref(conn);
		break;
	}
	case SBT_VK_CMD_vkCreateSwapchainKHR: {
		const sbt_vk_args_vkCreateSwapchainKHR *a = args;
		if (ok)
			vkl_hk_swapchain_created(*a->pSwapchain, a->pCreateInfo->surface);
		break;
	}
	case SBT_VK_CMD_vkCreateSharedSwapchainsKHR: {
		const sbt_vk_args_vkCreateSharedSwapchainsKHR *a = args;
		for (i = 0; ok && i < a->swapchainCount; i++)
			vkl_hk_swapchain_created(a->pSwapchains[i], a->pCreateInfos[i].surface);
		break;
	}
	case SBT_VK_CMD_vkDestroySwapchainKHR: {
		const sbt_vk_args_vkDestroySwapchainKHR *a = args;
		vkl_hk_handles_remove(&vkl_hk.swapchains, (uint64_t)(uintptr_t)a->swapchain);
		break;
	}
	default:
		break;
	}
	pthread_mutex_unlock(&vkl_hk.mu);
}

/* ---- reading the key ---------------------------------------------------------- */

/* A function of an already loaded library (NULL when it is not loaded). */
static void *vkl_hk_sym(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
	void *f = h ? dlsym(h, name) : NULL;
	/* RTLD_NOLOAD took a reference; the library stays while the
	 * application's surface does, and the layer never unloads. */
	return f;
}

static int vkl_hk_xlib_ready(void)
{
	if (!vkl_hk.xlib_looked_up) {
		vkl_hk.xlib_looked_up = 1;
		vkl_hk.XQueryKeymap =
			(vkl_hk_XQueryKeymap_fn)vkl_hk_sym("libX11.so.6", "XQueryKeymap");
		vkl_hk.XKeysymToKeycode =
			(vkl_hk_XKeysymToKeycode_fn)vkl_hk_sym("libX11.so.6", "XKeysymToKeycode");
	}
	return vkl_hk.XQueryKeymap && vkl_hk.XKeysymToKeycode;
}

static int vkl_hk_xcb_ready(void)
{
	if (!vkl_hk.xcb_looked_up) {
		const char *lib = "libxcb.so.1";
		vkl_hk.xcb_looked_up = 1;
		vkl_hk.xcb_get_setup = (vkl_hk_xcb_get_setup_fn)vkl_hk_sym(lib, "xcb_get_setup");
		vkl_hk.xcb_query_keymap =
			(vkl_hk_xcb_query_keymap_fn)vkl_hk_sym(lib, "xcb_query_keymap");
		vkl_hk.xcb_query_keymap_reply =
			(vkl_hk_xcb_query_keymap_reply_fn)vkl_hk_sym(lib, "xcb_query_keymap_reply");
		vkl_hk.xcb_get_keyboard_mapping =
			(vkl_hk_xcb_get_keyboard_mapping_fn)vkl_hk_sym(lib, "xcb_get_keyboard_mapping");
		vkl_hk.xcb_get_keyboard_mapping_reply =
			(vkl_hk_xcb_get_keyboard_mapping_reply_fn)vkl_hk_sym(
				lib, "xcb_get_keyboard_mapping_reply");
		vkl_hk.xcb_get_keyboard_mapping_keysyms =
			(vkl_hk_xcb_get_keyboard_mapping_keysyms_fn)vkl_hk_sym(
				lib, "xcb_get_keyboard_mapping_keysyms");
	}
	return vkl_hk.xcb_get_setup && vkl_hk.xcb_query_keymap && vkl_hk.xcb_query_keymap_reply &&
	       vkl_hk.xcb_get_keyboard_mapping && vkl_hk.xcb_get_keyboard_mapping_reply &&
	       vkl_hk.xcb_get_keyboard_mapping_keysyms;
}

static void vkl_hk_add_keycode(vkl_hk_conn *c, unsigned keycode)
{
	if (keycode && c->nkeycodes < VKL_HK_KEYCODES)
		c->keycodes[c->nkeycodes++] = (uint8_t)keycode;
}

/* Letters match in either case (cap_key_lookup gives the lower one). */
static int vkl_hk_is_key(uint32_t keysym)
{
	uint32_t k = vkl_hk.keysym;
	return keysym == k || (k >= 'a' && k <= 'z' && keysym == k - 'a' + 'A');
}

/* The keycodes the key sits on, from the server's keyboard mapping. */
static void vkl_hk_xcb_map(vkl_hk_conn *c)
{
	xcb_connection_t *x = c->conn;
	const xcb_setup_t *setup = vkl_hk.xcb_get_setup(x);
	xcb_get_keyboard_mapping_reply_t *r;
	const xcb_keysym_t *syms;
	unsigned first, count, per, k, j;
	if (!setup || setup->max_keycode < setup->min_keycode)
		return;
	first = setup->min_keycode;
	count = (unsigned)setup->max_keycode - first + 1;
	r = vkl_hk.xcb_get_keyboard_mapping_reply(
		x, vkl_hk.xcb_get_keyboard_mapping(x, (xcb_keycode_t)first, (uint8_t)count), NULL);
	if (!r)
		return;
	syms = vkl_hk.xcb_get_keyboard_mapping_keysyms(r);
	per = r->keysyms_per_keycode;
	for (k = 0; k < count && per; k++)
		for (j = 0; j < per; j++)
			if (vkl_hk_is_key(syms[k * per + j])) {
				vkl_hk_add_keycode(c, first + k);
				break;
			}
	free(r);
	c->mapped = 1;
}

/* Which keys are down, as a bit per keycode.  1: read; 0: the query
 * failed (the connection broke); -1: the functions are not loaded. */
static int vkl_hk_keymap(vkl_hk_conn *c, uint8_t keys[32])
{
	if (c->kind == VKL_HK_XLIB) {
		if (!vkl_hk_xlib_ready())
			return -1;
		if (!c->mapped) {
			vkl_hk_add_keycode(c, vkl_hk.XKeysymToKeycode(c->conn, vkl_hk.keysym));
			c->mapped = 1;
		}
		vkl_hk.XQueryKeymap(c->conn, (char *)keys);
		return 1;
	} else {
		xcb_connection_t *x = c->conn;
		xcb_query_keymap_reply_t *r;
		if (!vkl_hk_xcb_ready())
			return -1;
		if (!c->mapped)
			vkl_hk_xcb_map(c);
		r = vkl_hk.xcb_query_keymap_reply(x, vkl_hk.xcb_query_keymap(x), NULL);
		if (!r)
			return 0;
		memcpy(keys, r->keys, 32);
		free(r);
		return 1;
	}
}

/* *down: the key is down on connection c.  As vkl_hk_keymap. */
static int vkl_hk_read(vkl_hk_conn *c, int *down)
{
	uint8_t keys[32];
	int i, ret = vkl_hk_keymap(c, keys);
	if (ret != 1)
		return ret;
	if (c->nkeycodes == 0 && !vkl_hk.warned_unmapped) {
		vkl_hk.warned_unmapped = 1;
		CAP_WARN("the capture key %s is on no key of the X display's keyboard",
		         cap_config_get()->key_name);
	}
	*down = 0;
	for (i = 0; i < c->nkeycodes; i++)
		if (keys[c->keycodes[i] / 8] & (1u << (c->keycodes[i] % 8)))
			*down = 1;
	return 1;
}

void vkl_hotkey_present(const VkPresentInfoKHR *info)
{
	vkl_hk_conn *read[VKL_HK_PRESENT_CONNS];
	int nread = 0, down = 0, press = 0, x_window = 0, missing = 0;
	uint32_t i;
	int j;
	if (!vkl_hk_on())
		return;
	pthread_mutex_lock(&vkl_hk.mu);
	for (i = 0; i < info->swapchainCount && nread < VKL_HK_PRESENT_CONNS; i++) {
		vkl_hk_handle *s = vkl_hk_handles_find(&vkl_hk.swapchains,
		                                       (uint64_t)(uintptr_t)info->pSwapchains[i]);
		vkl_hk_conn *c = s ? vkl_hk_conn_find(s->conn) : NULL;
		int d = 0, got;
		if (!c)
			continue;
		x_window = 1;
		for (j = 0; c && j < nread; j++)
			if (read[j] == c)
				c = NULL; /* read already in this present */
		if (!c)
			continue;
		got = vkl_hk_read(c, &d);
		if (got < 0)
			missing = 1;
		if (got <= 0)
			continue;
		read[nread++] = c;
		down |= d;
	}
	if (nread > 0) {
		press = down && !vkl_hk.down;
		vkl_hk.down = down;
	} else if (!x_window) {
		vkl_hk_unreadable("the presented window is not an X11 or xcb one (Wayland? headless?)");
	} else if (missing) {
		vkl_hk_unreadable("libX11's or libxcb's keyboard query is not loaded in the process");
	}
	pthread_mutex_unlock(&vkl_hk.mu);
	if (press) {
		CAP_INFO("capture key %s pressed: capturing %u frame(s)", cap_config_get()->key_name,
		         vkl_hk.frames);
		cap_window_request_frames(vkl_hk.frames);
	}
}

void vkl_hotkey_no_present(void)
{
	if (vkl_hk_on())
		vkl_hk_unreadable("the device does not present, and the key is read at present time");
}
