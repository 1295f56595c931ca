/*
 * tcd_image.h - the libcuda test double's reader of module images: fatbin
 * wrappers, fatbins, ELF cubins, PTX text and the double's own x86-64
 * shared-object modules.  The byte formats are specified at the top of
 * tcd_image.c.
 *
 * Kept free of cuda.h and of the double's state so that unit tests link it
 * alone (tests/unit/test_tcd_image.c cuts and flips real images and parses
 * them).  Reentrant: every result is owned by the caller.
 */
#ifndef TCD_IMAGE_H
#define TCD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "tests/doubles/cuda/modules/tcd_module.h"

/* Internal to the double (and to the unit tests that link this file):
 * never exported from libcuda.so.1. */
#define TCD_IMAGE_API __attribute__((visibility("hidden")))

#define TCD_IMAGE_STATUS_LIST(X)                                                 \
	X(TCD_IMAGE_OK, "ok")                                                    \
	X(TCD_IMAGE_INVALID, "not a valid module image")                         \
	X(TCD_IMAGE_NO_BINARY, "no code for the device's architecture")          \
	X(TCD_IMAGE_NOMEM, "out of host memory")

typedef enum tcd_image_status {
#define TCD_IMAGE_X_ENUM(name, text) name,
	TCD_IMAGE_STATUS_LIST(TCD_IMAGE_X_ENUM)
#undef TCD_IMAGE_X_ENUM
} tcd_image_status;

TCD_IMAGE_API const char *tcd_image_strerror(tcd_image_status s);

/* What code the image yields for the device. */
enum tcd_image_code {
	TCD_IMAGE_CODE_HOST = 1, /* an x86-64 shared object: a module of the double */
	TCD_IMAGE_CODE_CUBIN,    /* a real cubin: kernels, run by host twins */
	TCD_IMAGE_CODE_PTX,      /* PTX text: kernels, run by host twins */
};

struct tcd_image_kernel {
	char *name;              /* owned */
	uint32_t param_count;
	uint32_t param_bytes;    /* size of the packed parameter buffer */
	struct tcd_param *params; /* owned, param_count entries, by ordinal */
};

struct tcd_image {
	enum tcd_image_code code;
	unsigned arch;             /* sm arch of the code chosen (major*10+minor); 0 when not stated */
	int wrapped;               /* reached through a fatbin wrapper */
	size_t prelinked;          /* a version 2 wrapper's prelinked fatbins */
	int in_fatbin;             /* chosen from a fatbin entry */
	const unsigned char *host; /* CODE_HOST: the shared object's bytes (borrowed from the
				      caller's image, or from `owned`) */
	size_t host_bytes;
	unsigned char *owned;      /* a decompressed payload `host` may point into */
	size_t kernel_count;
	struct tcd_image_kernel *kernels; /* owned; CODE_CUBIN and CODE_PTX only */
};

/* Images larger than this are refused (a guard against garbage sizes). */
#define TCD_IMAGE_MAX ((size_t)256 << 20)

/*
 * Parses the image at `image` (borrowed).  `max` is how many bytes may be
 * read (SIZE_MAX when unknown, as for cuModuleLoadData: the image's own
 * headers then say how long it is, as they do for the driver).
 * `device_arch` is the device's compute capability as major*10+minor.  On
 * failure `why` (why_len bytes, may be NULL) says what was wrong.  A fatbin
 * wrapper's pointer is followed: it is only meaningful in the process that
 * made it.  *out is set only on TCD_IMAGE_OK; free it with tcd_image_free.
 */
TCD_IMAGE_API tcd_image_status tcd_image_parse(const void *image, size_t max, unsigned device_arch,
					       struct tcd_image **out, char *why, size_t why_len);
TCD_IMAGE_API void tcd_image_free(struct tcd_image *img);

/* The kernel named `name`, or NULL. */
TCD_IMAGE_API const struct tcd_image_kernel *tcd_image_kernel_find(const struct tcd_image *img, const char *name);

#endif /* TCD_IMAGE_H */
