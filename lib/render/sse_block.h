/*
 * lib/render/sse_block.h - the 16-byte block the SSE2 escapers (JSON in
 * lib/render/escape.c, XML in lib/render/escape_xml.c) test at each step.
 *
 * A whole block is loaded in place; the last, partial one from a zeroed
 * copy, so that nothing past the text is read, with a mask of the bytes
 * that are the text's: the caller ands its "needs escaping" bits with it.
 * Include only where __SSE2__ is defined.
 */
#ifndef ETL_RENDER_SSE_BLOCK_H
#define ETL_RENDER_SSE_BLOCK_H

#include <emmintrin.h>
#include <stddef.h>
#include <string.h>

static inline __m128i etl__sse_block(const unsigned char *p, size_t left, unsigned *valid)
{
	if (left >= 16) {
		*valid = 0xFFFFu;
		return _mm_loadu_si128((const __m128i *)(const void *)p);
	}
	unsigned char t[16] = { 0 };
	memcpy(t, p, left);
	*valid = (1u << left) - 1;
	return _mm_loadu_si128((const __m128i *)(const void *)t);
}

#endif
