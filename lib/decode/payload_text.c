/*
 * lib/decode/payload_text.c - strings of event payloads as UTF-8 in decoder
 * storage, for every source decoder: UTF-16LE strings, and 8-bit (ANSI)
 * strings read as Windows-1252 or, for the out-types that say so, as UTF-8.
 *
 * Unpaired UTF-16 surrogates and invalid UTF-8 bytes become U+FFFD. An
 * 8-bit string that is all ASCII (or valid UTF-8, when read as UTF-8) is
 * not copied: its text points into the payload.
 */
#define ETL_BUILDING_LIB 1
#include <stdint.h>
#include <string.h>

#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"

char *etl__dec_utf16(etl_decoder *d, const uint8_t *p, size_t n, size_t *len)
{
	n &= ~(size_t)1;
	if (n / 2 > (SIZE_MAX - 1) / 3)
		return NULL;
	/* One pass: room for the worst case (a code unit is at most 3 bytes
	 * of UTF-8; a surrogate pair, two units, 4), the tail given back. */
	size_t cap = n / 2 * 3 + 1;
	char *out = etl__dec_alloc(d, cap);
	if (!out)
		return NULL;
	size_t o = etl__utf16_to_utf8_buf(p, n, out);
	out[o] = 0;
	etl__dec_shrink(d, out, cap, o + 1);
	*len = o;
	return out;
}

/* Length of the valid UTF-8 sequence at p[0..n), or 0 if invalid. */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
	uint8_t b = p[0];
	if (b < 0x80)
		return 1;
	if (b >= 0xC2 && b <= 0xDF)
		return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
	if (b >= 0xE0 && b <= 0xEF) {
		if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
			return 0;
		if (b == 0xE0 && p[1] < 0xA0)
			return 0;               /* overlong */
		if (b == 0xED && p[1] >= 0xA0)
			return 0;               /* surrogate */
		return 3;
	}
	if (b >= 0xF0 && b <= 0xF4) {
		if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
			return 0;
		if (b == 0xF0 && p[1] < 0x90)
			return 0;               /* overlong */
		if (b == 0xF4 && p[1] >= 0x90)
			return 0;               /* above U+10FFFF */
		return 4;
	}
	return 0;
}

static int utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t k = utf8_seq(p + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

/* Copies UTF-8 with each invalid byte replaced by U+FFFD (out: 3n bytes). */
size_t etl__dec_utf8_sanitize(const uint8_t *p, size_t n, char *out)
{
	size_t i = 0, o = 0;
	while (i < n) {
		size_t k = utf8_seq(p + i, n - i);
		if (!k) {
			o += etl__utf8_put(out + o, 0xFFFD);
			i++;
		} else {
			memcpy(out + o, p + i, k);
			o += k;
			i += k;
		}
	}
	return o;
}

/* Windows-1252 0x80-0x9F; the five undefined bytes map to the C1 controls
 * as MultiByteToWideChar does. */
static const uint16_t cp1252_80[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178
};

static uint32_t cp1252(uint8_t b)
{
	if (b >= 0x80 && b <= 0x9F)
		return cp1252_80[b - 0x80];
	return b;
}

int etl__dec_ansi(etl_decoder *d, const uint8_t *p, size_t n, int utf8, const char **s, size_t *len)
{
	size_t i = 0, k = 0;
	char *out;

	while (i < n && p[i] < 0x80)
		i++;
	if (i == n || (utf8 && utf8_valid(p, n))) {
		*s = (const char *)p;
		*len = n;
		return 1;
	}
	out = etl__dec_alloc(d, 3 * n + 1);
	if (!out)
		return 0;
	if (utf8) {
		k = etl__dec_utf8_sanitize(p, n, out);
	} else {
		for (i = 0; i < n; i++)
			k += etl__utf8_put(out + k, cp1252(p[i]));
	}
	out[k] = 0;
	*s = out;
	*len = k;
	return 1;
}
