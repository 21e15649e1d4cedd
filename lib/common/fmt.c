/*
 * lib/common/fmt.c - fast text formatting of numbers and GUIDs (see lib/common/fmt.h).
 * etl__fmt_filetime() lives in lib/common/time.c beside the calendar code.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "lib/common/fmt.h"

/* "00" "01" ... "99": two digits per division by 100 halves the divisions. */
static const char digits2[200] = {
	'0','0','0','1','0','2','0','3','0','4','0','5','0','6','0','7','0','8','0','9',
	'1','0','1','1','1','2','1','3','1','4','1','5','1','6','1','7','1','8','1','9',
	'2','0','2','1','2','2','2','3','2','4','2','5','2','6','2','7','2','8','2','9',
	'3','0','3','1','3','2','3','3','3','4','3','5','3','6','3','7','3','8','3','9',
	'4','0','4','1','4','2','4','3','4','4','4','5','4','6','4','7','4','8','4','9',
	'5','0','5','1','5','2','5','3','5','4','5','5','5','6','5','7','5','8','5','9',
	'6','0','6','1','6','2','6','3','6','4','6','5','6','6','6','7','6','8','6','9',
	'7','0','7','1','7','2','7','3','7','4','7','5','7','6','7','7','7','8','7','9',
	'8','0','8','1','8','2','8','3','8','4','8','5','8','6','8','7','8','8','8','9',
	'9','0','9','1','9','2','9','3','9','4','9','5','9','6','9','7','9','8','9','9',
};

static const char hexdig[16] = {
	'0','1','2','3','4','5','6','7','8','9','a','b','c','d','e','f'
};
static const char hexdig_uc[16] = {
	'0','1','2','3','4','5','6','7','8','9','A','B','C','D','E','F'
};

/* Byte b as two lower-case hex digits at out. */
static void hex2(char *out, unsigned b)
{
	out[0] = hexdig[b >> 4];
	out[1] = hexdig[b & 15];
}

/* Number of decimal digits of v (1 for 0). */
static unsigned dec_len(uint64_t v)
{
	unsigned n = 1;
	for (;;) {
		if (v < 10) return n;
		if (v < 100) return n + 1;
		if (v < 1000) return n + 2;
		if (v < 10000) return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* Exactly four digits of v (< 10000) at p; returns the end. */
static inline char *put4(char *p, uint32_t v)
{
	memcpy(p, digits2 + 2 * (v / 100), 2);
	memcpy(p + 2, digits2 + 2 * (v % 100), 2);
	return p + 4;
}

/* v (< 10000) without leading zeros at p; returns the end. */
static inline char *put_lead(char *p, uint32_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		memcpy(p, digits2 + 2 * v, 2);
		return p + 2;
	}
	if (v < 1000) {
		*p = (char)('0' + v / 100);
		memcpy(p + 1, digits2 + 2 * (v % 100), 2);
		return p + 3;
	}
	return put4(p, v);
}

/* v (< 2^32) in decimal, in groups of four digits: no loop, no length
 * to find first. */
static size_t fmt_u32(char *out, uint32_t v)
{
	char *p = out;
	if (v < 10000) {
		p = put_lead(p, v);
	} else if (v < 100000000) {
		p = put_lead(p, v / 10000);
		p = put4(p, v % 10000);
	} else {
		uint32_t lo = v % 100000000;
		p = put_lead(p, v / 100000000);
		p = put4(p, lo / 10000);
		p = put4(p, lo % 10000);
	}
	return (size_t)(p - out);
}

size_t etl__fmt_u64(char *out, uint64_t v)
{
	/* Most numbers in events (ids, levels, opcodes, CPUs) are small. */
	if (v < 10) {
		out[0] = (char)('0' + v);
		return 1;
	}
	if (v < 100) {
		memcpy(out, digits2 + 2 * v, 2);
		return 2;
	}
	if (v <= UINT32_MAX)
		return fmt_u32(out, (uint32_t)v);
	unsigned len = dec_len(v);
	char *p = out + len;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return len;
}

size_t etl__fmt_i64(char *out, int64_t v)
{
	if (v >= 0)
		return etl__fmt_u64(out, (uint64_t)v);
	/* Negate in unsigned arithmetic: -INT64_MIN does not fit an int64_t. */
	out[0] = '-';
	return 1 + etl__fmt_u64(out + 1, 0 - (uint64_t)v);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__GNUC__) || defined(__clang__))
#define FMT_SWAR_HEX 1
#if defined(__SSE2__) && !defined(ETL_NO_SSE2)
#include <emmintrin.h>
#define FMT_SSE2_HEX 1
/* The 16 hex digits of v, first digit first, as 16 bytes at out; alpha
 * is 'a' - '0' - 10 or 'A' - '0' - 10. */
static inline void hex16_sse2(char *out, uint64_t v, char alpha)
{
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));  /* first byte first */
	const __m128i m0f = _mm_set1_epi8(0x0F);
	__m128i nib = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), m0f), _mm_and_si128(x, m0f));
	__m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)), _mm_set1_epi8(alpha));
	nib = _mm_add_epi8(_mm_add_epi8(nib, _mm_set1_epi8('0')), letters);
	_mm_storeu_si128((__m128i *)(void *)out, nib);
}
#else
#define FMT_SSE2_HEX 0
#endif

#if !FMT_SSE2_HEX
/* The 8 hex digits of x, most significant first, as the bytes of a word
 * in memory order; alpha is 'a' - '0' - 10 or 'A' - '0' - 10. */
static inline uint64_t hex8(uint32_t x, uint64_t alpha)
{
	uint64_t y = x;
	y = (y | y << 16) & 0x0000FFFF0000FFFFull;
	y = (y | y << 8) & 0x00FF00FF00FF00FFull;
	y = (y | y << 4) & 0x0F0F0F0F0F0F0F0Full;       /* a nibble per byte */
	uint64_t letters = (y + 0x0606060606060606ull) >> 4 & 0x0101010101010101ull;
	y += 0x3030303030303030ull + letters * alpha;
	return __builtin_bswap64(y);                     /* first digit first */
}
#endif

/* v in hex, no padding, digits 10-15 from '0' + 10 + alpha; writes up to
 * ETL_FMT_HEX64_MAX bytes (those after the digits are scratch). */
static size_t hex64_swar(char *out, uint64_t v, uint64_t alpha)
{
	unsigned len = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1;
#if FMT_SSE2_HEX
	/* The significant digits moved to the top: the first len of the 16
	 * are the text, the rest zeros written as scratch. */
	hex16_sse2(out, v << (4 * (16 - len)), (char)alpha);
#else
	uint64_t lo = hex8((uint32_t)v, alpha);
	if (len <= 8) {
		lo >>= 8 * (8 - len);           /* drop the leading zero digits */
		memcpy(out, &lo, 8);
		return len;
	}
	uint64_t hi = hex8((uint32_t)(v >> 32), alpha) >> 8 * (16 - len);
	memcpy(out, &hi, 8);
	memcpy(out + len - 8, &lo, 8);
#endif
	return len;
}
#else
#define FMT_SWAR_HEX 0
#endif

/* v in hex with the digits of table dig, no padding. */
static size_t hex64(char *out, uint64_t v, const char dig[16])
{
	/* Significant bits, rounded up to whole digits (at least one). */
	unsigned len = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1;
	char *p = out + len;
	for (; p - out >= 2; v >>= 8) {         /* a byte per step */
		p -= 2;
		p[0] = dig[v >> 4 & 15];
		p[1] = dig[v & 15];
	}
	if (p > out)
		*--p = dig[v & 15];
	return len;
}

/* Lower- or upper-case hex by the fastest loop this build has. */
static inline size_t hex64_case(char *out, uint64_t v, int upper)
{
#if FMT_SWAR_HEX
	return hex64_swar(out, v, (upper ? 'A' : 'a') - '0' - 10);
#else
	return hex64(out, v, upper ? hexdig_uc : hexdig);
#endif
}

size_t etl__fmt_hex64(char *out, uint64_t v)
{
	return hex64_case(out, v, 0);
}

size_t etl__fmt_hex64_uc(char *out, uint64_t v)
{
	return hex64_case(out, v, 1);
}

size_t etl__fmt_hex64_portable(char *out, uint64_t v, int upper)
{
	return hex64(out, v, upper ? hexdig_uc : hexdig);
}

void etl__fmt_frac7(char *out, uint32_t f)
{
	out[6] = (char)('0' + f % 10);
	f /= 10;
	memcpy(out + 4, digits2 + 2 * (f % 100), 2);
	f /= 100;
	memcpy(out + 2, digits2 + 2 * (f % 100), 2);
	f /= 100;
	memcpy(out, digits2 + 2 * (f % 100), 2);
}

void etl__fmt_guid(char *out, const struct etl_guid *g)
{
	hex2(out, g->data1 >> 24);
	hex2(out + 2, g->data1 >> 16 & 0xFF);
	hex2(out + 4, g->data1 >> 8 & 0xFF);
	hex2(out + 6, g->data1 & 0xFF);
	out[8] = '-';
	hex2(out + 9, (unsigned)g->data2 >> 8);
	hex2(out + 11, g->data2 & 0xFF);
	out[13] = '-';
	hex2(out + 14, (unsigned)g->data3 >> 8);
	hex2(out + 16, g->data3 & 0xFF);
	out[18] = '-';
	hex2(out + 19, g->data4[0]);
	hex2(out + 21, g->data4[1]);
	out[23] = '-';
	for (unsigned i = 0; i < 6; i++)
		hex2(out + 24 + 2 * i, g->data4[2 + i]);
}
