/*
 * cap_keys.c - capture hotkey names.  The keysym values are X11's
 * (X11/keysymdef.h); the table holds the keys a capture key is usually
 * put on, the ones applications seldom use.
 */
#include <string.h>
#include <strings.h>

#include "capture/cap_keys.h"

static const struct {
	const char *name;
	uint32_t keysym;
} cap_keys[] = {
	{"Print", 0xff61},  {"Scroll_Lock", 0xff14}, {"Pause", 0xff13},  {"Insert", 0xff63},
	{"Home", 0xff50},   {"End", 0xff57},         {"Prior", 0xff55},  {"Page_Up", 0xff55},
	{"Next", 0xff56},   {"Page_Down", 0xff56},   {"Escape", 0xff1b}, {"space", 0x20},
	{"Tab", 0xff09},    {"Return", 0xff0d},      {"BackSpace", 0xff08},
	{"Delete", 0xffff},
};

uint32_t cap_key_lookup(const char *name)
{
	size_t i, n;
	if (!name)
		return 0;
	n = strlen(name);
	/* F1 .. F35: XK_F1 is 0xffbe, the rest follow it. */
	if ((name[0] == 'F' || name[0] == 'f') && n >= 2 && n <= 3 && name[1] >= '1' &&
	    name[1] <= '9' && (n == 2 || (name[2] >= '0' && name[2] <= '9'))) {
		unsigned f = (unsigned)(name[1] - '0');
		if (n == 3)
			f = f * 10 + (unsigned)(name[2] - '0');
		return f >= 1 && f <= 35 ? 0xffbeu + f - 1 : 0;
	}
	if (n == 1 && name[0] >= 'a' && name[0] <= 'z')
		return (uint32_t)name[0];
	if (n == 1 && name[0] >= 'A' && name[0] <= 'Z')
		return (uint32_t)(name[0] - 'A' + 'a');
	if (n == 1 && name[0] >= '0' && name[0] <= '9')
		return (uint32_t)name[0];
	for (i = 0; i < sizeof(cap_keys) / sizeof(cap_keys[0]); i++)
		if (strcasecmp(name, cap_keys[i].name) == 0)
			return cap_keys[i].keysym;
	return 0;
}

const char *cap_key_names(void)
{
	return "F1..F35, Print, Scroll_Lock, Pause, Insert, Home, End, Page_Up, Page_Down, "
	       "Escape, space, Tab, Return, BackSpace, Delete, a..z, 0..9";
}
