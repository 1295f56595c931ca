/*
 * vk_imgcmp - compares two images' RGB, ignoring alpha, for the replay
 * tests (our PPM and PNG screenshots against GFXReconstruct's BMP ones).
 *
 * usage: vk_imgcmp [--tolerance N] [--max-pixels N] A B
 *        vk_imgcmp --raw IMG OUT    (IMG's pixels as B,G,R,A bytes, A=255,
 *                                    rows top to bottom: what a swapchain
 *                                    image of B8G8R8A8 format holds)
 *
 * Reads PNG (libpng), binary PPM (P6, maxval 255) and uncompressed BMP (24 or 32 bits
 * per pixel, BI_RGB, or BI_BITFIELDS with byte-aligned masks; bottom-up or
 * top-down).  Two pixels match when no channel differs by more than
 * --tolerance (default 0); the images match when at most --max-pixels
 * (default 0) pixels do not.  Prints one line: "same WxH" or
 * "differ: N of M pixels, max channel difference D, first at (x, y): A
 * r,g,b B r,g,b".  Exit: 0 match, 1 differ (or sizes differ), 2 usage or an
 * unreadable image (the message names the file and what is wrong).
 */
#include <errno.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vki_image {
	uint32_t w, h;
	uint8_t *rgb; /* w * h * 3, rows top to bottom */
} vki_image;

static unsigned char *vki_read_file(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;

	if (!f) {
		fprintf(stderr, "vk_imgcmp: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)len + 1);
		if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) {
			*len_out = (size_t)len;
		} else {
			free(buf);
			buf = NULL;
			fprintf(stderr, "vk_imgcmp: %s: read failed\n", path);
		}
	} else {
		fprintf(stderr, "vk_imgcmp: %s: cannot size the file\n", path);
	}
	fclose(f);
	return buf;
}

static uint32_t vki_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t vki_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Reads a PPM header number, skipping whitespace and comments. */
static int vki_ppm_number(const unsigned char *d, size_t len, size_t *pos, uint32_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	for (;;) {
		while (*pos < len && (d[*pos] == ' ' || d[*pos] == '\t' || d[*pos] == '\n' ||
		                      d[*pos] == '\r'))
			(*pos)++;
		if (*pos < len && d[*pos] == '#') {
			while (*pos < len && d[*pos] != '\n')
				(*pos)++;
			continue;
		}
		break;
	}
	while (*pos < len && d[*pos] >= '0' && d[*pos] <= '9' && v < 1000000) {
		v = v * 10 + (uint64_t)(d[*pos] - '0');
		(*pos)++;
		digits++;
	}
	if (!digits || v >= 1000000)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int vki_load_ppm(const char *path, const unsigned char *d, size_t len, vki_image *img)
{
	size_t pos = 2, need;
	uint32_t maxval;

	if (vki_ppm_number(d, len, &pos, &img->w) || vki_ppm_number(d, len, &pos, &img->h) ||
	    vki_ppm_number(d, len, &pos, &maxval) || pos >= len) {
		fprintf(stderr, "vk_imgcmp: %s: malformed PPM header\n", path);
		return -1;
	}
	if (maxval != 255 || !img->w || !img->h) {
		fprintf(stderr, "vk_imgcmp: %s: PPM %ux%u maxval %u: only maxval 255 is supported\n",
		        path, img->w, img->h, maxval);
		return -1;
	}
	pos++; /* the single whitespace byte after maxval */
	need = (size_t)img->w * img->h * 3;
	if (len - pos < need) {
		fprintf(stderr, "vk_imgcmp: %s: PPM %ux%u needs %zu pixel bytes, has %zu\n", path,
		        img->w, img->h, need, len - pos);
		return -1;
	}
	img->rgb = malloc(need);
	if (!img->rgb)
		return -1;
	memcpy(img->rgb, d + pos, need);
	return 0;
}

/* Byte index (0..3) of an 8-bit, byte-aligned mask; -1 otherwise. */
static int vki_mask_byte(uint32_t mask)
{
	int i;

	for (i = 0; i < 4; i++)
		if (mask == 0xffu << (8 * i))
			return i;
	return -1;
}

static int vki_load_bmp(const char *path, const unsigned char *d, size_t len, vki_image *img)
{
	uint32_t data_off, dib, comp, bpp, x, y;
	int32_t w, h;
	int top_down, bi[3] = { 2, 1, 0 }; /* byte of R, G, B in a pixel */
	size_t stride;

	if (len < 54) {
		fprintf(stderr, "vk_imgcmp: %s: BMP shorter than its headers (%zu bytes)\n", path, len);
		return -1;
	}
	data_off = vki_le32(d + 10);
	dib = vki_le32(d + 14);
	w = (int32_t)vki_le32(d + 18);
	h = (int32_t)vki_le32(d + 22);
	bpp = vki_le16(d + 28);
	comp = vki_le32(d + 30);
	if (dib < 40 || w <= 0 || h == 0 || h == INT32_MIN || w > 65536 || h > 65536 || h < -65536) {
		fprintf(stderr, "vk_imgcmp: %s: BMP header: dib size %u, %dx%d not supported\n", path,
		        dib, w, h);
		return -1;
	}
	if (!((bpp == 24 && comp == 0) || (bpp == 32 && (comp == 0 || comp == 3 || comp == 6)))) {
		fprintf(stderr, "vk_imgcmp: %s: BMP with %u bits per pixel, compression %u: only "
		                "24/32-bit uncompressed is supported\n",
		        path, bpp, comp);
		return -1;
	}
	if (comp == 3 || comp == 6) {
		if (14 + 40 + 12 > len) {
			fprintf(stderr, "vk_imgcmp: %s: BMP bitfield masks missing\n", path);
			return -1;
		}
		bi[0] = vki_mask_byte(vki_le32(d + 54));
		bi[1] = vki_mask_byte(vki_le32(d + 58));
		bi[2] = vki_mask_byte(vki_le32(d + 62));
		if (bi[0] < 0 || bi[1] < 0 || bi[2] < 0) {
			fprintf(stderr, "vk_imgcmp: %s: BMP masks are not byte-aligned\n", path);
			return -1;
		}
	}
	top_down = h < 0;
	img->w = (uint32_t)w;
	img->h = (uint32_t)(h < 0 ? -h : h);
	stride = ((size_t)img->w * (bpp / 8) + 3) & ~(size_t)3;
	if (data_off > len || len - data_off < stride * img->h) {
		fprintf(stderr, "vk_imgcmp: %s: BMP %ux%u needs %zu pixel bytes from offset %u, file "
		                "has %zu bytes\n",
		        path, img->w, img->h, stride * img->h, data_off, len);
		return -1;
	}
	img->rgb = malloc((size_t)img->w * img->h * 3);
	if (!img->rgb)
		return -1;
	for (y = 0; y < img->h; y++) {
		const unsigned char *row = d + data_off + stride * (top_down ? y : img->h - 1 - y);
		uint8_t *o = img->rgb + (size_t)y * img->w * 3;
		for (x = 0; x < img->w; x++) {
			const unsigned char *px = row + (size_t)x * (bpp / 8);
			o[3 * x] = px[bi[0]];
			o[3 * x + 1] = px[bi[1]];
			o[3 * x + 2] = px[bi[2]];
		}
	}
	return 0;
}

static int vki_load_png(const char *path, const unsigned char *d, size_t len, vki_image *img)
{
	png_image p;
	memset(&p, 0, sizeof(p));
	p.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_memory(&p, d, len)) {
		fprintf(stderr, "vk_imgcmp: %s: not a readable PNG: %s\n", path, p.message);
		return -1;
	}
	p.format = PNG_FORMAT_RGB;
	img->w = p.width;
	img->h = p.height;
	img->rgb = malloc(PNG_IMAGE_SIZE(p));
	if (!img->rgb || !png_image_finish_read(&p, NULL, img->rgb, 0, NULL)) {
		fprintf(stderr, "vk_imgcmp: %s: %s\n", path, img->rgb ? p.message : "out of memory");
		png_image_free(&p);
		free(img->rgb);
		img->rgb = NULL;
		return -1;
	}
	return 0;
}

static int vki_load(const char *path, vki_image *img)
{
	size_t len = 0;
	unsigned char *d = vki_read_file(path, &len);
	int rc = -1;

	memset(img, 0, sizeof(*img));
	if (!d)
		return -1;
	if (len >= 2 && d[0] == 'P' && d[1] == '6')
		rc = vki_load_ppm(path, d, len, img);
	else if (len >= 2 && d[0] == 'B' && d[1] == 'M')
		rc = vki_load_bmp(path, d, len, img);
	else if (len >= 8 && png_sig_cmp(d, 0, 8) == 0)
		rc = vki_load_png(path, d, len, img);
	else
		fprintf(stderr, "vk_imgcmp: %s: neither a binary PPM (P6), a BMP nor a PNG\n", path);
	free(d);
	return rc;
}

static int vki_usage(void)
{
	fprintf(stderr, "usage: vk_imgcmp [--tolerance N] [--max-pixels N] A B\n"
	                "       vk_imgcmp --raw IMG OUT\n");
	return 2;
}

static int vki_number(const char *flag, const char *s, unsigned long *out)
{
	char *end = NULL;

	errno = 0;
	if (s && *s && *s != '-') {
		*out = strtoul(s, &end, 10);
		if (!*end && !errno)
			return 0;
	}
	fprintf(stderr, "vk_imgcmp: %s needs a number, got '%s'\n", flag, s ? s : "");
	return -1;
}

static int vki_raw(const char *in, const char *out)
{
	vki_image img;
	size_t n, i;
	uint8_t *bgra;
	FILE *f;
	int rc = 2;

	if (vki_load(in, &img) != 0)
		return 2;
	n = (size_t)img.w * img.h;
	bgra = malloc(n * 4);
	if (!bgra)
		goto out_free;
	for (i = 0; i < n; i++) {
		bgra[4 * i] = img.rgb[3 * i + 2];
		bgra[4 * i + 1] = img.rgb[3 * i + 1];
		bgra[4 * i + 2] = img.rgb[3 * i];
		bgra[4 * i + 3] = 255;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(bgra, 1, n * 4, f) != n * 4 || fclose(f) != 0) {
		fprintf(stderr, "vk_imgcmp: %s: %s\n", out, strerror(errno));
		goto out_free;
	}
	rc = 0;
out_free:
	free(bgra);
	free(img.rgb);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long tol = 0, max_pixels = 0;
	const char *pa = NULL, *pb = NULL;
	vki_image a, b;
	uint64_t ndiff = 0;
	unsigned maxd = 0;
	long first = -1;
	size_t n, i;
	int k, rc = 2;

	if (argc == 4 && !strcmp(argv[1], "--raw"))
		return vki_raw(argv[2], argv[3]);
	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--tolerance")) {
			if (vki_number(argv[k], k + 1 < argc ? argv[k + 1] : NULL, &tol))
				return 2;
			k++;
		} else if (!strcmp(argv[k], "--max-pixels")) {
			if (vki_number(argv[k], k + 1 < argc ? argv[k + 1] : NULL, &max_pixels))
				return 2;
			k++;
		} else if (argv[k][0] == '-' && argv[k][1]) {
			fprintf(stderr, "vk_imgcmp: unknown option '%s'\n", argv[k]);
			return vki_usage();
		} else if (!pa) {
			pa = argv[k];
		} else if (!pb) {
			pb = argv[k];
		} else {
			return vki_usage();
		}
	}
	if (!pb)
		return vki_usage();
	memset(&b, 0, sizeof(b));
	if (vki_load(pa, &a) != 0)
		return 2;
	if (vki_load(pb, &b) != 0)
		goto out_free;
	if (a.w != b.w || a.h != b.h) {
		printf("differ: sizes %ux%u and %ux%u\n", a.w, a.h, b.w, b.h);
		rc = 1;
		goto out_free;
	}
	n = (size_t)a.w * a.h;
	for (i = 0; i < n; i++) {
		unsigned d = 0;
		int c;
		for (c = 0; c < 3; c++) {
			int x = (int)a.rgb[3 * i + c] - (int)b.rgb[3 * i + c];
			unsigned ad = (unsigned)(x < 0 ? -x : x);
			if (ad > d)
				d = ad;
		}
		if (d > maxd)
			maxd = d;
		if (d > tol) {
			if (first < 0)
				first = (long)i;
			ndiff++;
		}
	}
	if (first < 0) {
		printf("same %ux%u\n", a.w, a.h);
	} else {
		const uint8_t *x = a.rgb + 3 * first, *y = b.rgb + 3 * first;
		printf("differ: %llu of %zu pixels, max channel difference %u, first at (%lu, %lu): "
		       "A %u,%u,%u B %u,%u,%u\n",
		       (unsigned long long)ndiff, n, maxd, (unsigned long)first % a.w,
		       (unsigned long)first / a.w, x[0], x[1], x[2], y[0], y[1], y[2]);
	}
	rc = ndiff <= max_pixels ? 0 : 1;
out_free:
	free(a.rgb);
	free(b.rgb);
	return rc;
}
