/*
 * lib/common/utf16.h - UTF-16LE text of events as UTF-8 (internal).
 *
 * Strings in ETW payloads, extended items and headers are UTF-16LE; the
 * library hands out UTF-8. Unpaired surrogates become U+FFFD. The
 * conversion loops take eight (SSE2) or four code units at a time while
 * they are ASCII, which most event strings are; tests/check_fastpaths.c
 * compares them with the portable loops.
 */
#ifndef ETL_UTF16_H
#define ETL_UTF16_H

#ifndef ETL_BUILDING_LIB
#error "lib/common/utf16.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>

/* Writes code point cp (at most U+10FFFF) as UTF-8 at out; returns the
 * bytes written (1..4). */
static inline size_t etl__utf8_put(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Bytes of UTF-8 needed for n bytes of UTF-16LE (odd last byte ignored). */
size_t etl__utf16_utf8_len(const uint8_t *p, size_t n);
/* Converts n bytes of UTF-16LE to UTF-8 at out (etl__utf16_utf8_len()
 * bytes); unpaired surrogates become U+FFFD. Returns bytes written. */
size_t etl__utf16_to_utf8_buf(const uint8_t *p, size_t n, char *out);
/* Offset of the first UTF-16 NUL (two zero bytes at an even offset) in the
 * n bytes at p, or n rounded down to even when there is none. */
size_t etl__utf16_nul(const uint8_t *p, size_t n);
/* The two above choosing the loop: simd 0 forces the portable one (for
 * tests; etl__utf16_simd() tells whether there is an SSE2 one). */
size_t etl__utf16_to_utf8_buf_ex(const uint8_t *p, size_t n, char *out, int simd);
size_t etl__utf16_nul_ex(const uint8_t *p, size_t n, int simd);
int etl__utf16_simd(void);

#endif /* ETL_UTF16_H */
