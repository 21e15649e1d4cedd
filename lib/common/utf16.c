/*
 * lib/common/utf16.c - UTF-16LE to UTF-8 conversion and the search for a
 * UTF-16 NUL, for every string of an event (payload fields, extended items,
 * header names).
 *
 * Both run on every string of every event decoded, so each has a fast loop
 * for the common case, ASCII text: eight code units per step with SSE2,
 * else four as one 64-bit word; anything else goes one code point at a
 * time. The _ex forms let tests force the portable loop.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>

#include "lib/common/cursor.h"
#include "lib/common/utf16.h"

/* Next code point of UTF-16LE at p[*i..n) (n even); advances *i. */
static uint32_t utf16_next(const uint8_t *p, size_t n, size_t *i)
{
	uint32_t u = etl_le16(p + *i);
	*i += 2;
	if (u >= 0xD800 && u <= 0xDBFF) {
		if (*i + 2 <= n) {
			uint32_t l = etl_le16(p + *i);
			if (l >= 0xDC00 && l <= 0xDFFF) {
				*i += 2;
				return 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00);
			}
		}
		return 0xFFFD;
	}
	if (u >= 0xDC00 && u <= 0xDFFF)
		return 0xFFFD;
	return u;
}

/* Whether the four UTF-16LE code units at p are all ASCII (U+0000-U+007F):
 * most strings in events are, and such a block converts byte by byte. */
static int ascii4(const uint8_t *p)
{
	return (p[1] | p[3] | p[5] | p[7]) == 0 && ((p[0] | p[2] | p[4] | p[6]) & 0x80) == 0;
}

size_t etl__utf16_utf8_len(const uint8_t *p, size_t n)
{
	size_t len = 0, i = 0;
	n &= ~(size_t)1;
	while (i < n) {
		if (n - i >= 8 && ascii4(p + i)) {
			len += 4;
			i += 8;
			continue;
		}
		uint32_t cp = utf16_next(p, n, &i);
		len += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	}
	return len;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define UTF16_LE 1
#else
#define UTF16_LE 0
#endif

#if defined(__SSE2__) && !defined(ETL_NO_SSE2)
#include <emmintrin.h>
#define UTF16_SSE2 1
#else
#define UTF16_SSE2 0
#endif

int etl__utf16_simd(void)
{
	return UTF16_SSE2;
}

size_t etl__utf16_to_utf8_buf(const uint8_t *p, size_t n, char *out)
{
	return etl__utf16_to_utf8_buf_ex(p, n, out, 1);
}

size_t etl__utf16_to_utf8_buf_ex(const uint8_t *p, size_t n, char *out, int simd)
{
	size_t o = 0, i = 0;
	n &= ~(size_t)1;
	(void)simd;
	while (i < n) {
#if UTF16_SSE2
		/* Sixteen code units at a time while all are ASCII, then eight:
		 * their low bytes packed into as many output bytes. */
		if (simd && n - i >= 32) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16));
			__m128i hi = _mm_and_si128(_mm_or_si128(x, y), _mm_set1_epi16((short)0xFF80));
			if (_mm_movemask_epi8(_mm_cmpeq_epi16(hi, _mm_setzero_si128())) == 0xFFFF) {
				_mm_storeu_si128((__m128i *)(void *)(out + o), _mm_packus_epi16(x, y));
				o += 16;
				i += 32;
				continue;
			}
		}
		if (simd && n - i >= 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			__m128i hi = _mm_and_si128(x, _mm_set1_epi16((short)0xFF80));
			if (_mm_movemask_epi8(_mm_cmpeq_epi16(hi, _mm_setzero_si128())) == 0xFFFF) {
				_mm_storel_epi64((__m128i *)(void *)(out + o), _mm_packus_epi16(x, x));
				o += 8;
				i += 16;
				continue;
			}
		}
#endif
		if (UTF16_LE && n - i >= 8) {
			/* Four code units as one little-endian word: all ASCII when
			 * no bit above the low 7 is set in any 16-bit lane; their low
			 * bytes are then packed into four output bytes. */
			uint64_t x;
			memcpy(&x, p + i, 8);
			if (!(x & 0xFF80FF80FF80FF80ull)) {
				uint32_t w = (uint32_t)((x & 0xFF) | (x >> 8 & 0xFF00) | (x >> 16 & 0xFF0000) |
				                        (x >> 24 & 0xFF000000));
				memcpy(out + o, &w, 4);
				o += 4;
				i += 8;
				continue;
			}
		} else if (n - i >= 8 && ascii4(p + i)) {
			out[o] = (char)p[i];
			out[o + 1] = (char)p[i + 2];
			out[o + 2] = (char)p[i + 4];
			out[o + 3] = (char)p[i + 6];
			o += 4;
			i += 8;
			continue;
		}
		o += etl__utf8_put(out + o, utf16_next(p, n, &i));
	}
	return o;
}

size_t etl__utf16_nul(const uint8_t *p, size_t n)
{
	return etl__utf16_nul_ex(p, n, 1);
}

size_t etl__utf16_nul_ex(const uint8_t *p, size_t n, int simd)
{
	size_t i = 0;
	(void)simd;
#if UTF16_SSE2
	/* Sixteen code units per step while none is zero (one test for two
	 * blocks: strings run to thousands of characters), then eight. */
	for (; simd && i + 32 <= n; i += 32) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16));
		__m128i z = _mm_setzero_si128();
		if (_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi16(x, z), _mm_cmpeq_epi16(y, z))))
			break;
	}
	for (; simd && i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(x, _mm_setzero_si128()));
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	/* Four code units per step while none is zero. A 16-bit lane is zero
	 * exactly when both its bytes are, whatever the host's byte order. */
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, p + i, 8);
		if ((x - 0x0001000100010001ull) & ~x & 0x8000800080008000ull)
			break;
	}
	while (i + 2 <= n && (p[i] | p[i + 1]))
		i += 2;
	return i;
}
