/*
 * lib/common/namehash.c - the provider GUID that EventSource and TraceLogging derive
 * from a provider name (doc/decoding.md §7):
 *
 *   GUID = first 16 bytes of SHA-1(namespace || UTF-16BE(upper(name))),
 *          byte 7 = (byte 7 & 0x0F) | 0x50, read as a Windows GUID
 *          (Data1/2/3 little-endian).
 *
 * Uppercasing is simple, per UTF-16 code unit (as Windows' invariant
 * LCMapStringEx and .NET's ToUpperInvariant do), never changing the length:
 *   - ASCII a-z;
 *   - Latin-1: U+00E0-U+00FE except U+00F7 (minus 0x20), U+00FF -> U+0178,
 *     U+00B5 (micro sign) -> U+039C; U+00DF (sharp s) stays;
 *   - Latin Extended-A case pairs U+0100-U+017E (U+0131 dotless i and
 *     U+0138 kra and U+0149 stay; U+017F long s -> 'S');
 *   - Greek U+03B1-U+03C9 (minus 0x20, final sigma U+03C2 -> U+03A3) and the
 *     accented U+03AC-U+03AF, U+03CC-U+03CE;
 *   - Cyrillic U+0430-U+044F (minus 0x20) and U+0450-U+045F (minus 0x50).
 * Other code units, and both halves of surrogate pairs, are left as they are.
 * Names are almost always ASCII; the table covers the letters seen in
 * European provider names.
 *
 * SHA-1 follows FIPS 180-4; it is used here as a name hash, not for
 * security.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>

#include "lib/common/cursor.h"
#include "etl_decode.h"

/* ---- SHA-1 ------------------------------------------------------------ */

struct sha1 {
	uint32_t h[5];
	uint64_t len;                   /* bytes hashed so far */
	uint8_t block[64];
	size_t fill;
};

static uint32_t rol32(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_init(struct sha1 *s)
{
	s->h[0] = 0x67452301u;
	s->h[1] = 0xEFCDAB89u;
	s->h[2] = 0x98BADCFEu;
	s->h[3] = 0x10325476u;
	s->h[4] = 0xC3D2E1F0u;
	s->len = 0;
	s->fill = 0;
}

static void sha1_block(struct sha1 *s, const uint8_t *b)
{
	uint32_t w[80];
	for (int i = 0; i < 16; i++)
		w[i] = ((uint32_t)b[4 * i] << 24) | ((uint32_t)b[4 * i + 1] << 16) |
		       ((uint32_t)b[4 * i + 2] << 8) | (uint32_t)b[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	uint32_t a = s->h[0], bb = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) {
			f = (bb & c) | (~bb & d);
			k = 0x5A827999u;
		} else if (i < 40) {
			f = bb ^ c ^ d;
			k = 0x6ED9EBA1u;
		} else if (i < 60) {
			f = (bb & c) | (bb & d) | (c & d);
			k = 0x8F1BBCDCu;
		} else {
			f = bb ^ c ^ d;
			k = 0xCA62C1D6u;
		}
		uint32_t t = rol32(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol32(bb, 30);
		bb = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += bb;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

static void sha1_update(struct sha1 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->len += n;
	while (n > 0) {
		size_t k = 64 - s->fill;
		if (k > n)
			k = n;
		memcpy(s->block + s->fill, p, k);
		s->fill += k;
		p += k;
		n -= k;
		if (s->fill == 64) {
			sha1_block(s, s->block);
			s->fill = 0;
		}
	}
}

static void sha1_final(struct sha1 *s, uint8_t out[20])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80;
	sha1_update(s, &pad, 1);
	pad = 0;
	while (s->fill != 56)
		sha1_update(s, &pad, 1);
	uint8_t lenb[8];
	for (int i = 0; i < 8; i++)
		lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_update(s, lenb, 8);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

/* ---- name ------------------------------------------------------------- */

static uint16_t upper_unit(uint16_t u)
{
	if (u < 0x80)
		return u >= 'a' && u <= 'z' ? (uint16_t)(u - 0x20) : u;
	if (u < 0x100) {
		if (u >= 0xE0 && u <= 0xFE && u != 0xF7)
			return (uint16_t)(u - 0x20);
		if (u == 0xFF)
			return 0x0178;
		if (u == 0xB5)
			return 0x039C;
		return u;
	}
	if (u <= 0x017F) {
		if (u == 0x017F)
			return 'S';
		if (u == 0x0131 || u == 0x0138 || u == 0x0149)
			return u;
		/* Pairs (upper, lower): even/odd in 0100-0137 and 014A-0177,
		 * odd/even in 0139-0148 and 0179-017E. */
		if ((u <= 0x0137) || (u >= 0x014A && u <= 0x0177))
			return (u & 1) ? (uint16_t)(u - 1) : u;
		if ((u >= 0x0139 && u <= 0x0148) || (u >= 0x0179 && u <= 0x017E))
			return (u & 1) ? u : (uint16_t)(u - 1);
		return u;
	}
	if (u >= 0x03AC && u <= 0x03CE) {
		if (u == 0x03AC)
			return 0x0386;
		if (u >= 0x03AD && u <= 0x03AF)
			return (uint16_t)(u - 0x25);
		if (u == 0x03C2)
			return 0x03A3;
		if (u >= 0x03B1 && u <= 0x03CB)
			return (uint16_t)(u - 0x20);
		if (u == 0x03CC)
			return 0x038C;
		if (u == 0x03CD || u == 0x03CE)
			return (uint16_t)(u - 0x3F);
		return u;
	}
	if (u >= 0x0430 && u <= 0x044F)
		return (uint16_t)(u - 0x20);
	if (u >= 0x0450 && u <= 0x045F)
		return (uint16_t)(u - 0x50);
	return u;
}

/* Next code point of NUL-terminated UTF-8 at *s; -1 if invalid. */
static long utf8_next(const uint8_t **s)
{
	const uint8_t *p = *s;
	uint32_t cp;
	int n;

	if (p[0] < 0x80) {
		*s = p + 1;
		return p[0];
	}
	if (p[0] >= 0xC2 && p[0] <= 0xDF) {
		cp = p[0] & 0x1F;
		n = 1;
	} else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		cp = p[0] & 0x0F;
		n = 2;
	} else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		cp = p[0] & 0x07;
		n = 3;
	} else {
		return -1;
	}
	for (int i = 1; i <= n; i++) {
		if ((p[i] & 0xC0) != 0x80)  /* also stops at the NUL */
			return -1;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	*s = p + n + 1;
	return (long)cp;
}

static void put_be16(struct sha1 *s, uint16_t u)
{
	uint8_t b[2] = { (uint8_t)(u >> 8), (uint8_t)u };
	sha1_update(s, b, 2);
}

int etl_provider_guid_from_name(const char *name, struct etl_guid *out)
{
	static const uint8_t ns[16] = {
		0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8,
		0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB
	};
	const uint8_t *p = (const uint8_t *)name;
	struct sha1 s;
	uint8_t h[20];

	if (!name || !out)
		return ETL_FAILED;
	sha1_init(&s);
	sha1_update(&s, ns, sizeof ns);
	while (*p) {
		long cp = utf8_next(&p);
		if (cp < 0)
			return ETL_FAILED;
		if (cp < 0x10000) {
			put_be16(&s, upper_unit((uint16_t)cp));
		} else {
			uint32_t v = (uint32_t)cp - 0x10000;
			put_be16(&s, (uint16_t)(0xD800 + (v >> 10)));
			put_be16(&s, (uint16_t)(0xDC00 + (v & 0x3FF)));
		}
	}
	sha1_final(&s, h);
	h[7] = (uint8_t)((h[7] & 0x0F) | 0x50);
	etl_guid_dec(h, out);
	return ETL_OK;
}
