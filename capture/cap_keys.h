/*
 * cap_keys.h - capture hotkey names (X keysym names) and their keysyms,
 * shared by tscapture (to refuse an unknown name before running anything)
 * and the Vulkan layer (to find the key on the application's display).
 */
#ifndef TRACESMITH_CAP_KEYS_H
#define TRACESMITH_CAP_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* The X keysym of key `name` ("F12", "Print", "Scroll_Lock", "Pause",
 * "Home", "space", a letter or a digit; letters either case), or 0 when
 * the name is not one a capture key may have. */
uint32_t cap_key_lookup(const char *name);

/* The names accepted, comma-separated, for messages. */
const char *cap_key_names(void);

#endif /* TRACESMITH_CAP_KEYS_H */
