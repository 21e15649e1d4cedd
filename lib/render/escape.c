/*
 * lib/render/escape.c - making text safe for each output: XML 1.0 / CSV
 * cleaning, JSON string literals (with an SSE2 loop on x86-64 and the
 * portable one kept), name=value text, hex and GUIDs; and the public
 * etl_json_escape().
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/render/render.h"

/* ---- text helpers --------------------------------------------------- */

size_t etl__utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;             /* no UTF-16 surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

static const char hexdig_lc[] = "0123456789abcdef";
static const char hexdig_uc[] = "0123456789ABCDEF";

void etl__out_clean(struct etl_outbuf *b, const char *s, size_t n, int keep_tlc)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned char c = p[i];
		size_t len;
		if (c >= 0x20 && c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0x80) {
			len = etl__utf8_len(p + i, n - i);
			/* U+FFFE, U+FFFF: EF BF BE / EF BF BF */
			if (len == 3 && c == 0xEF && p[i + 1] == 0xBF && p[i + 2] >= 0xBE)
				len = 0;
			if (len) {
				i += len;
				continue;
			}
		} else if (keep_tlc && (c == '\t' || c == '\n' || c == '\r')) {
			i++;
			continue;
		}
		etl__ob_put(b, p + run, i - run);
		if (c < 0x20) {
			/* Control Pictures: U+2400 + c = E2 90 80+c */
			char cp[3] = { (char)0xE2, (char)0x90, (char)(0x80 + c) };
			etl__ob_put(b, cp, 3);
			i++;
		} else {
			etl__ob_put(b, "\xEF\xBF\xBD", 3);  /* U+FFFD */
			i += (c == 0xEF && n - i >= 3 && etl__utf8_len(p + i, n - i) == 3) ? 3 : 1;
		}
		run = i;
	}
	etl__ob_put(b, p + run, n - run);
}

/* From i, the index of the first byte of p (n bytes) that is not plain
 * text for a quoted string: plain are the printable ASCII bytes below top
 * (0x7F leaves DEL out, 0x80 keeps it) other than " and \, and whole
 * valid UTF-8 sequences. */
static size_t skip_plain(const unsigned char *p, size_t i, size_t n, unsigned char top)
{
	while (i < n) {
		unsigned char c = p[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < top) {
			i++;
			continue;
		}
		size_t len = c >= 0x80 ? etl__utf8_len(p + i, n - i) : 0;
		if (!len)
			break;
		i += len;
	}
	return i;
}

/* \u00XX for ASCII byte c at o (6 bytes). */
static size_t put_u00xx(char *o, unsigned char c)
{
	o[0] = '\\';
	o[1] = 'u';
	o[2] = '0';
	o[3] = '0';
	o[4] = hexdig_lc[c >> 4];
	o[5] = hexdig_lc[c & 15];
	return 6;
}

int etl_json_escape(const char *s, size_t n, unsigned flags, etl_output_write_fn write, void *ctx)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	unsigned char top = flags & ETL_JSON_ESCAPE_U00XX ? 0x7F : 0x80;
	if (write(ctx, "\"", 1) != 0)
		return -1;
	while ((i = skip_plain(p, i, n, top)) < n) {
		unsigned char c = p[i];
		if (i > run && write(ctx, p + run, i - run) != 0)
			return -1;
		char esc[6];
		size_t k;
		if (c >= 0x80) {
			memcpy(esc, "\\ufffd", 6);
			k = 6;
		} else if ((flags & ETL_JSON_ESCAPE_U00XX) && c != '"' && c != '\\') {
			k = put_u00xx(esc, c);    /* every control (and DEL), even \n */
		} else {
			k = etl__out_json_escape_ascii(esc, c);
		}
		if (write(ctx, esc, k) != 0)
			return -1;
		i++;
		run = i;
	}
	if (n > run && write(ctx, p + run, n - run) != 0)
		return -1;
	return write(ctx, "\"", 1);
}

/* 1 for the bytes a JSON string holds as they are: printable ASCII (and
 * DEL) other than " and \. Bytes from 0x80 are checked as UTF-8. */
const uint8_t etl__json_plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* The escape etl_json_escape() writes (flags 0) for byte c at p (n bytes
 * left), which is not plain: *used is how many input bytes it stands for
 * (a whole UTF-8 sequence is copied as it is). */
static void json_escape_one(struct etl_outbuf *b, const unsigned char *p, size_t n, size_t *used)
{
	unsigned char c = p[0];
	*used = 1;
	if (c >= 0x80) {
		size_t len = etl__utf8_len(p, n);
		if (len) {
			etl__ob_put(b, p, len);
			*used = len;
		} else {
			ETL_OB_LIT(b, "\\ufffd");
		}
		return;
	}
	switch (c) {
	case '"': ETL_OB_LIT(b, "\\\""); return;
	case '\\': ETL_OB_LIT(b, "\\\\"); return;
	case '\n': ETL_OB_LIT(b, "\\n"); return;
	case '\r': ETL_OB_LIT(b, "\\r"); return;
	case '\t': ETL_OB_LIT(b, "\\t"); return;
	case '\b': ETL_OB_LIT(b, "\\b"); return;
	case '\f': ETL_OB_LIT(b, "\\f"); return;
	default: {
		char esc[6] = { '\\', 'u', '0', '0', hexdig_lc[c >> 4], hexdig_lc[c & 15] };
		etl__ob_put(b, esc, 6);
	}
	}
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Non-zero when one of the 8 bytes in x is zero (exact for "any"). */
static uint64_t has_zero_byte(uint64_t x)
{
	return (x - ONES) & ~x & HIGHS;
}

/* The high bit of each byte of x that is not plain (a control, '"', '\\'
 * or from 0x80). Exact for the lowest such byte (borrows only run upwards),
 * which is all the callers use. */
static uint64_t json_bad_bytes(uint64_t x)
{
	return ((x - ONES * 0x20) & ~x & HIGHS)          /* a byte < 0x20 */
	       | has_zero_byte(x ^ (ONES * '"'))
	       | has_zero_byte(x ^ (ONES * '\\'))
	       | (x & HIGHS);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSON_SWAR_LE 1
#else
#define JSON_SWAR_LE 0
#endif

/* Length of the run of plain bytes at p (at most n), eight bytes at a
 * time. On little-endian hosts the first bad byte of a word is found from
 * its flag bit; elsewhere, and in the last partial word, bytes are looked
 * at one by one. */
static size_t json_plain_run(const unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, p + i, 8);
		uint64_t bad = json_bad_bytes(x);
		if (bad) {
			if (JSON_SWAR_LE)
				return i + (size_t)__builtin_ctzll(bad) / 8;
			break;
		}
	}
	while (i < n && etl__json_plain[p[i]])
		i++;
	return i;
}

/* Strings up to this many bytes are escaped into room reserved for the
 * worst case (6 output bytes per input byte), without a check per piece. */
#define JSON_DIRECT_MAX 8192u

/* The letter of the two-byte escape of an ASCII byte (\" \\ \n \r \t \b
 * \f), or 0: looked up, since a switch became an indirect jump that the
 * branch predictor missed on text full of quotes and line breaks. */
static const char json_short_escape[128] = {
	['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't', ['\b'] = 'b', ['\f'] = 'f',
};

size_t etl__out_json_escape_ascii(char *o, unsigned char c)
{
	char e = c < 128 ? json_short_escape[c] : 0;
	if (e) {
		o[0] = '\\';
		o[1] = e;
		return 2;
	}
	return put_u00xx(o, c);
}

/* The escape of the byte that is not plain at p[0] (n bytes left) written
 * at o: a valid UTF-8 sequence as it is, another byte from 0x80 as \ufffd,
 * an ASCII byte by etl__out_json_escape_ascii(). *used gets the input bytes
 * consumed; returns the output bytes written (at most 6). */
static inline size_t json_escape_at(char *o, const unsigned char *p, size_t n, size_t *used)
{
	unsigned char c = p[0];
	*used = 1;
	if (c < 0x80) {
		if (c == '\n') {               /* the common one: message lines */
			o[0] = '\\';
			o[1] = 'n';
			return 2;
		}
		return etl__out_json_escape_ascii(o, c);
	}
	size_t len = etl__utf8_len(p, n);
	if (len) {                              /* valid UTF-8: as it is */
		memcpy(o, p, len);
		*used = len;
		return len;
	}
	memcpy(o, "\\ufffd", 6);
	return 6;
}

#if defined(__SSE2__) && !defined(ETL_NO_SSE2)
#include "lib/render/sse_block.h"
#define JSON_SSE2 1

/* Bit i set for each byte i of x that is not plain: a signed compare with
 * 0x20 catches the controls and every byte from 0x80 (negative), then " and \. */
static inline unsigned json_bad16(__m128i x)
{
	__m128i bad = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
	                           _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
	                                        _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
	return (unsigned)_mm_movemask_epi8(bad);
}

/* SSE2 form of the loop of json_string_direct(): 16 bytes per step, each
 * block stored whole (16 bytes of slack are reserved) and kept as far as
 * its bytes are plain; the last partial block goes through a zeroed
 * 16-byte copy whose bytes past the end are masked off. After an escape,
 * the block's other escapes are found in its mask, not by testing the
 * bytes again: script text has a quote or a line break every few
 * characters, and testing a block after each escape made every escape wait
 * for the test of the one before. Returns the new output position. */
static char *json_escape_sse2(char *o, const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t left = n - i;
		unsigned valid;
		__m128i x = etl__sse_block(p + i, left, &valid);
		unsigned m = json_bad16(x) & valid;
		_mm_storeu_si128((__m128i *)(void *)o, x);
		if (!m) {
			size_t k = left < 16 ? left : 16;
			i += k;
			o += k;
			continue;
		}
		/* m: the block's bytes that are not plain, bit j for p[base + j];
		 * the bytes from i to the next one are at o already. */
		size_t base = i;
		for (;;) {
			size_t at = base + (size_t)__builtin_ctz(m);
			o += at - i;
			size_t used;
			o += json_escape_at(o, p + at, n - at, &used);
			i = at + used;
			size_t done = i - base;        /* 1..19: a UTF-8 sequence may run past */
			m = done < 16 ? m & ~((1u << done) - 1) : 0;
			if (!m)
				break;
			/* The plain bytes up to the next escape (fewer than 16;
			 * the block read stops at the string's end). */
			unsigned v;
			_mm_storeu_si128((__m128i *)(void *)o, etl__sse_block(p + i, n - i, &v));
		}
	}
	return o;
}
#else
#define JSON_SSE2 0
#endif

int etl__out_json_simd(void)
{
	return JSON_SSE2;
}

/* The portable loop of json_string_direct() (also the reference the SSE2
 * one is tested against): eight bytes at a time on little-endian hosts
 * (each word is stored whole and kept as far as its bytes are plain, so 8
 * bytes of slack are reserved too). Returns the new output position. */
static char *json_escape_scalar(char *o, const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (JSON_SWAR_LE && n - i >= 8) {
			uint64_t x;
			memcpy(&x, p + i, 8);
			memcpy(o, &x, 8);
			uint64_t bad = json_bad_bytes(x);
			if (!bad) {
				i += 8;
				o += 8;
				continue;
			}
			size_t k = (size_t)__builtin_ctzll(bad) / 8;   /* plain bytes before */
			i += k;
			o += k;
		} else if (etl__json_plain[p[i]]) {
			*o++ = (char)p[i++];
			continue;
		}
		size_t used;
		o += json_escape_at(o, p + i, n - i, &used);
		i += used;
	}
	return o;
}

/* etl__out_json_string() for n <= JSON_DIRECT_MAX: into room reserved for
 * the worst case (6 output bytes per input byte, plus 16 bytes of slack
 * for the block stores). simd 0 forces the portable loop (tests). */
static void json_string_direct(struct etl_outbuf *b, const unsigned char *p, size_t n, int simd)
{
	char *o = etl__ob_room(b, 6 * n + 2 + 16);
	if (!o)
		return;
	*o++ = '"';
#if JSON_SSE2
	if (simd)
		o = json_escape_sse2(o, p, n);
	else
		o = json_escape_scalar(o, p, n);
#else
	(void)simd;
	o = json_escape_scalar(o, p, n);
#endif
	*o++ = '"';
	b->len = (size_t)(o - b->p);
}

void etl__out_json_key(struct etl_outbuf *b, const char *s, size_t n, int comma)
{
	if (n > JSON_DIRECT_MAX) {
		if (comma)
			etl__ob_putc(b, ',');
		etl__out_json_string(b, s, n);
		etl__ob_putc(b, ':');
		return;
	}
	char *o = etl__ob_room(b, 6 * n + 4 + 16);
	if (!o)
		return;
	*o = ',';
	o += comma != 0;
	*o++ = '"';
#if JSON_SSE2
	o = json_escape_sse2(o, (const unsigned char *)s, n);
#else
	o = json_escape_scalar(o, (const unsigned char *)s, n);
#endif
	*o++ = '"';
	*o++ = ':';
	b->len = (size_t)(o - b->p);
}

void etl__out_json_string_ex(struct etl_outbuf *b, const char *s, size_t n, int simd)
{
	if (!s) {
		ETL_OB_LIT(b, "null");
		return;
	}
	if (n <= JSON_DIRECT_MAX) {
		json_string_direct(b, (const unsigned char *)s, n, simd);
		return;
	}
	etl__out_json_string(b, s, n);
}

/* The same text as etl_json_escape(s, n, 0, ...) into b, but runs of plain
 * bytes are found eight at a time and copied whole. */
void etl__out_json_string(struct etl_outbuf *b, const char *s, size_t n)
{
	if (!s) {
		ETL_OB_LIT(b, "null");
		return;
	}
	const unsigned char *p = (const unsigned char *)s;
	if (n <= JSON_DIRECT_MAX) {
		json_string_direct(b, p, n, 1);
		return;
	}
	size_t i = 0;
	etl__ob_putc(b, '"');
	for (;;) {
		size_t run = i;
		i += json_plain_run(p + i, n - i);
		etl__ob_put(b, p + run, i - run);
		if (i >= n)
			break;
		size_t used;
		json_escape_one(b, p + i, n - i, &used);
		i += used;
	}
	etl__ob_putc(b, '"');
}

static void put_xnn(struct etl_outbuf *b, unsigned char c)
{
	char esc[4] = { '\\', 'x', hexdig_lc[c >> 4], hexdig_lc[c & 15] };
	etl__ob_put(b, esc, 4);
}

void etl__out_text_value(struct etl_outbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	int quote = n == 0;
	for (size_t i = 0; i < n && !quote; i++) {
		unsigned char c = p[i];
		if (c <= 0x20 || c == 0x7F || c == '"' || c == '=' || c == ';') {
			quote = 1;
		} else if (c >= 0x80) {
			size_t len = etl__utf8_len(p + i, n - i);
			if (!len)
				quote = 1;
			else
				i += len - 1;
		}
	}
	if (!quote) {
		etl__ob_put(b, s, n);
		return;
	}
	etl__ob_putc(b, '"');
	size_t i = 0, run = 0;
	while ((i = skip_plain(p, i, n, 0x7F)) < n) {
		unsigned char c = p[i];
		etl__ob_put(b, p + run, i - run);
		switch (c) {
		case '"': etl__ob_puts(b, "\\\""); break;
		case '\\': etl__ob_puts(b, "\\\\"); break;
		case '\n': etl__ob_puts(b, "\\n"); break;
		case '\r': etl__ob_puts(b, "\\r"); break;
		case '\t': etl__ob_puts(b, "\\t"); break;
		default: put_xnn(b, c);
		}
		i++;
		run = i;
	}
	etl__ob_put(b, p + run, n - run);
	etl__ob_putc(b, '"');
}

void etl__out_text_name(struct etl_outbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c <= 0x20 || c == 0x7F || c == '"' || c == '\\' || c == '=' || c == ';') {
			put_xnn(b, c);
		} else if (c >= 0x80) {
			size_t len = etl__utf8_len(p + i, n - i);
			if (!len) {
				put_xnn(b, c);
			} else {
				etl__ob_put(b, p + i, len);
				i += len - 1;
			}
		} else {
			etl__ob_putc(b, (char)c);
		}
	}
}

void etl__out_hex(struct etl_outbuf *b, const uint8_t *p, size_t n)
{
	if (n == 0 || n > (ETL_OUTBUF_MAX / 2) || etl__ob_grow(b, 2 * n) != 0)
		return;
	char *o = b->p + b->len;
	size_t i = 0;
#if JSON_SSE2
	/* Eight bytes to sixteen digits per step: the nibbles interleaved,
	 * high first, then '0' + n, plus 7 from 'A' on. */
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		__m128i x = _mm_cvtsi64_si128((long long)w);
		const __m128i m0f = _mm_set1_epi8(0x0F);
		__m128i nib = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), m0f), _mm_and_si128(x, m0f));
		__m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)), _mm_set1_epi8(7));
		nib = _mm_add_epi8(_mm_add_epi8(nib, _mm_set1_epi8('0')), letters);
		_mm_storeu_si128((__m128i *)(void *)(o + 2 * i), nib);
	}
#endif
	for (; i < n; i++) {
		o[2 * i] = hexdig_uc[p[i] >> 4];
		o[2 * i + 1] = hexdig_uc[p[i] & 15];
	}
	b->len += 2 * n;
}

void etl__out_guid(struct etl_outbuf *b, const struct etl_guid *g)
{
	char *o = etl__ob_room(b, ETL_FMT_GUID_LEN + 2);
	if (!o)
		return;
	o[0] = '{';
	etl__fmt_guid(o + 1, g);
	o[ETL_FMT_GUID_LEN + 1] = '}';
	b->len += ETL_FMT_GUID_LEN + 2;
}

