/*
 * etl_fmt.c - fast text formatting of numbers and GUIDs (see etl_fmt.h).
 * etl__fmt_filetime() lives in etl_time.c beside the calendar code.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "etl_fmt.h"

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

size_t etl__fmt_hex64(char *out, uint64_t v)
{
	return hex64(out, v, hexdig);
}

size_t etl__fmt_hex64_uc(char *out, uint64_t v)
{
	return hex64(out, v, hexdig_uc);
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
