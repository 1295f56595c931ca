/*
 * gl_zink - an OpenGL program for running Mesa's zink (OpenGL on Vulkan)
 * under the layer: zink is then the Vulkan application, with the command
 * stream a real GL driver makes (dynamic rendering, extended dynamic
 * state, push descriptors through templates, timeline semaphores, its own
 * upload and readback buffers).  Run it with LIBGL_ALWAYS_SOFTWARE=1
 * GALLIUM_DRIVER=zink (Mesa 22.3 picks zink over lavapipe only so).
 *
 * A GLX window of --size S pixels (default 96); each of --frames N frames
 * (default 30):
 * - clears to a colour of the frame number, with depth;
 * - rewrites a vertex buffer object with glBufferSubData (odd frames) or
 *   through glMapBufferRange (even frames): a fan of triangles turned by
 *   the frame number, drawn from it with per-vertex colours;
 * - every fifth frame replaces part of a 64x64 texture (glTexSubImage2D),
 *   then draws a textured quad with glBegin/glEnd (zink's own vertex
 *   uploads);
 * - reads the frame back (glReadPixels) and prints "frame F HASH", the
 *   FNV-1a hash of its bytes, then swaps buffers.
 * The hashes depend only on what was drawn: a run under the layer must
 * print those of the run without it.
 *
 * usage: gl_zink [--frames N] [--size S]
 * Prints "renderer NAME" first (GL_RENDERER), and "frames N" at exit.
 */
#define GL_GLEXT_PROTOTYPES 1

#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAN 24 /* triangles in the fan */

static void die(const char *what)
{
	fprintf(stderr, "gl_zink: %s\n", what);
	exit(1);
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The fan of frame f: FAN triangles around the centre, each vertex x, y,
 * z then r, g, b (floats). */
static void fan(float *v, int f)
{
	for (int i = 0; i < FAN; i++) {
		float a0 = (float)(i + f * 0.37) * 6.2831853f / FAN;
		float a1 = (float)(i + 1 + f * 0.37) * 6.2831853f / FAN;
		float r = 0.5f + 0.4f * (float)((i + f) % 3) / 2.0f;
		float *t = v + i * 18;
		float pts[3][3] = { { 0, 0, 0.2f },
		                    { r * cosf(a0), r * sinf(a0), -0.3f },
		                    { r * cosf(a1), r * sinf(a1), -0.3f } };
		for (int k = 0; k < 3; k++) {
			memcpy(t + k * 6, pts[k], sizeof(pts[k]));
			t[k * 6 + 3] = (float)((i * 7 + k + f) % 11) / 10.0f;
			t[k * 6 + 4] = (float)((i * 3 + k * 5) % 13) / 12.0f;
			t[k * 6 + 5] = (float)((i + k * 2 + f * 3) % 7) / 6.0f;
		}
	}
}

/* Texels of the texture's sub-image at frame f. */
static void texels(uint8_t *t, int w, int h, int f)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint8_t *p = t + (y * w + x) * 4;
			p[0] = (uint8_t)(x * 4 + f * 9);
			p[1] = (uint8_t)(y * 4 + f * 5);
			p[2] = (uint8_t)(((x ^ y) & 8) ? 255 : f * 17);
			p[3] = 255;
		}
}

int main(int argc, char **argv)
{
	int frames = 30, size = 96;
	static int attrs[] = { GLX_RGBA, GLX_DOUBLEBUFFER, GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8,
		               GLX_BLUE_SIZE, 8, GLX_DEPTH_SIZE, 16, None };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: gl_zink [--frames N] [--size S]\n");
			return 2;
		}
	}
	if (frames < 1 || size < 8 || size > 4096)
		die("--frames must be at least 1 and --size 8 to 4096");

	Display *dpy = XOpenDisplay(NULL);
	if (!dpy)
		die("cannot open the X display (DISPLAY)");
	XVisualInfo *vi = glXChooseVisual(dpy, DefaultScreen(dpy), attrs);
	if (!vi)
		die("no RGBA double-buffered visual with depth");
	Window root = RootWindow(dpy, vi->screen);
	XSetWindowAttributes swa;
	memset(&swa, 0, sizeof(swa));
	swa.colormap = XCreateColormap(dpy, root, vi->visual, AllocNone);
	Window win = XCreateWindow(dpy, root, 0, 0, (unsigned)size, (unsigned)size, 0, vi->depth,
	                           InputOutput, vi->visual, CWColormap, &swa);
	XMapWindow(dpy, win);
	GLXContext ctx = glXCreateContext(dpy, vi, NULL, True);
	if (!ctx || !glXMakeCurrent(dpy, win, ctx))
		die("cannot make a GLX context current");
	printf("renderer %s\n", (const char *)glGetString(GL_RENDERER));
	fflush(stdout);

	size_t vbytes = FAN * 18 * sizeof(float), pbytes = (size_t)size * (size_t)size * 4;
	float *v = malloc(vbytes);
	uint8_t *pix = malloc(pbytes), *tex = malloc(64 * 64 * 4);
	if (!v || !pix || !tex)
		die("out of memory");
	GLuint vbo, texture;
	glGenBuffers(1, &vbo);
	glBindBuffer(GL_ARRAY_BUFFER, vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)vbytes, NULL, GL_DYNAMIC_DRAW);
	glGenTextures(1, &texture);
	glBindTexture(GL_TEXTURE_2D, texture);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	texels(tex, 64, 64, 0);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, tex);
	glViewport(0, 0, size, size);
	glEnable(GL_DEPTH_TEST);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);

	for (int f = 0; f < frames; f++) {
		glClearColor((float)(f % 8) / 8.0f, (float)(f % 5) / 5.0f, 0.25f, 1.0f);
		glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

		fan(v, f);
		if (f & 1) {
			glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)vbytes, v);
		} else {
			void *p = glMapBufferRange(GL_ARRAY_BUFFER, 0, (GLsizeiptr)vbytes,
			                           GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
			if (!p)
				die("glMapBufferRange failed");
			memcpy(p, v, vbytes);
			if (!glUnmapBuffer(GL_ARRAY_BUFFER))
				die("glUnmapBuffer failed");
		}
		glDisable(GL_TEXTURE_2D);
		glEnableClientState(GL_VERTEX_ARRAY);
		glEnableClientState(GL_COLOR_ARRAY);
		glVertexPointer(3, GL_FLOAT, 6 * sizeof(float), (const void *)0);
		glColorPointer(3, GL_FLOAT, 6 * sizeof(float), (const void *)(3 * sizeof(float)));
		glDrawArrays(GL_TRIANGLES, 0, FAN * 3);
		glDisableClientState(GL_VERTEX_ARRAY);
		glDisableClientState(GL_COLOR_ARRAY);

		if (f % 5 == 0) {
			texels(tex, 16, 16, f);
			glTexSubImage2D(GL_TEXTURE_2D, 0, (f * 8) % 48, (f * 4) % 48, 16, 16, GL_RGBA,
			                GL_UNSIGNED_BYTE, tex);
		}
		glEnable(GL_TEXTURE_2D);
		glColor3f(1, 1, 1);
		glBegin(GL_QUADS);
		glTexCoord2f(0, 0);
		glVertex3f(-0.9f, -0.9f, 0.5f);
		glTexCoord2f(1, 0);
		glVertex3f(-0.2f, -0.9f, 0.5f);
		glTexCoord2f(1, 1);
		glVertex3f(-0.2f, -0.2f, 0.5f);
		glTexCoord2f(0, 1);
		glVertex3f(-0.9f, -0.2f, 0.5f);
		glEnd();

		glReadPixels(0, 0, size, size, GL_RGBA, GL_UNSIGNED_BYTE, pix);
		if (glGetError() != GL_NO_ERROR)
			die("a GL call failed");
		printf("frame %d %016llx\n", f, (unsigned long long)fnv1a(pix, pbytes));
		glXSwapBuffers(dpy, win);
	}
	printf("frames %d\n", frames);
	glDeleteTextures(1, &texture);
	glDeleteBuffers(1, &vbo);
	glXMakeCurrent(dpy, None, NULL);
	glXDestroyContext(dpy, ctx);
	XDestroyWindow(dpy, win);
	XFreeColormap(dpy, swa.colormap);
	XFree(vi);
	XCloseDisplay(dpy);
	free(v);
	free(pix);
	free(tex);
	return 0;
}
