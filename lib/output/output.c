/*
 * lib/output/output.c - the output core: the etl_output handle, the header event,
 * the record handed to the format modules (formats/out/out_*.c), and what the
 * modules share: value formatting (decoding.md §6.2), escaping for XML,
 * JSON and name=value text, and the walk over the property tree.
 *
 * Value formatting (decoding.md §6.2, one canonical form):
 *   integers         decimal;
 *   hex types        "0x" + lowercase hex, no padding: HexInt8..64 out
 *                    types, HexInt32/HexInt64/Pointer in types, and the
 *                    error-code out types (Win32Error, NTSTATUS, HRESULT,
 *                    ErrorCode), CodePointer; negative values as the two's
 *                    complement of the in-type's width;
 *   boolean          true / false (also integers with a Boolean out type);
 *   characters       8- and 16-bit integers with a String out type: the
 *                    character (Windows-1252 / UCS-2) as UTF-8;
 *   float, double    the shortest decimal that reads back to the same
 *                    value (%.*g); NaN, Infinity, -Infinity;
 *   GUID             {lowercase 8-4-4-4-12};
 *   FILETIME         2020-02-17T12:48:30.4203138Z (7 digits, UTC);
 *   SID              S-1-5-21-...; not a well-formed SID: as binary;
 *   binary           uppercase hex pairs, no 0x;
 *   IPv4 out type    dotted quad of the bytes in network order;
 *   IPv6 out type    RFC 5952 text (inet_ntop);
 *   Port out type    decimal after swapping the two bytes;
 *   SocketAddress    "1.2.3.4:80" / "[::1]:80" (AF_INET 2 / AF_INET6 23),
 *                    other families as binary;
 *   strings          as decoded (UTF-8); each format escapes them.
 */
#define ETL_BUILDING_LIB 1
#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/read/read_internal.h"
#include "lib/decode/decode_internal.h"
#include "etl_output.h"
#include "lib/common/fmt.h"
#include "formats/out/out.h"


/* {68fdd900-4a3e-11d1-84f4-0000f80464e3} */
/* The kernel logger's provider as tracerpt names it in RenderingInfo. */
#define ETL_KERNEL_MOF_PROVIDER "MSNT_SystemTrace"

static const struct etl_guid eventtrace_guid = {
	0x68fdd900, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 }
};

/* ---- growable buffer ------------------------------------------------- */

int etl__ob_grow(struct etl_outbuf *b, size_t n)
{
	if (b->oom) {
		b->cap = b->len;        /* no room: appends keep coming here */
		return -1;
	}
	if (n <= b->cap - b->len)
		return 0;
	if (n > ETL_OUTBUF_MAX - b->len) {
		b->oom = 1;
		b->cap = b->len;
		return -1;
	}
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		b->cap = b->len;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void etl__ob_u64(struct etl_outbuf *b, uint64_t v)
{
	char *o = etl__ob_room(b, ETL_FMT_U64_MAX);
	if (o)
		b->len += etl__fmt_u64(o, v);
}

void etl__ob_i64(struct etl_outbuf *b, int64_t v)
{
	char *o = etl__ob_room(b, ETL_FMT_I64_MAX);
	if (o)
		b->len += etl__fmt_i64(o, v);
}

void etl__ob_hex64(struct etl_outbuf *b, uint64_t v)
{
	char *o = etl__ob_room(b, ETL_FMT_HEX64_MAX);
	if (o)
		b->len += etl__fmt_hex64(o, v);
}

void etl__ob_filetime(struct etl_outbuf *b, int64_t ft)
{
	char *o = etl__ob_room(b, ETL_FMT_TIME_MAX);
	if (o)
		b->len += etl__fmt_filetime(o, ft);
}

void etl__ob_printf(struct etl_outbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		etl__ob_put(b, tmp, (size_t)n);
		return;
	}
	if (etl__ob_grow(b, (size_t)n + 1) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void etl__ob_free(struct etl_outbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

/* ---- errors and the sink ------------------------------------------- */

int etl__output_fail(struct etl_output *o, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->errmsg, sizeof o->errmsg, fmt, ap);
	va_end(ap);
	o->errcode = code;
	o->state = ETL_OST_FATAL;
	return ETL_FATAL;
}

int etl__output_write(struct etl_output *o, const void *p, size_t n)
{
	if (o->state == ETL_OST_FATAL)
		return ETL_FATAL;
	if (n && o->write(o->ctx, p, n) != 0)
		return etl__output_fail(o, ETL_E_IO, "Cannot write the %s output: bytes=%zu", o->ops->name, n);
	return ETL_OK;
}

int etl__output_flush(struct etl_output *o)
{
	if (o->buf.oom) {
		o->buf.len = 0;
		return etl__output_fail(o, ETL_E_NOMEM, "Out of memory formatting a %s event", o->ops->name);
	}
	int st = etl__output_write(o, o->buf.p, o->buf.len);
	o->buf.len = 0;
	/* Do not keep a huge buffer after one huge event. */
	if (o->buf.cap > ((size_t)1 << 20)) {
		free(o->buf.p);
		o->buf.p = NULL;
		o->buf.cap = 0;
	}
	return st;
}

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

int etl_json_escape(const char *s, size_t n, unsigned flags, etl_output_write_fn write, void *ctx)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	unsigned char top = flags & ETL_JSON_ESCAPE_U00XX ? 0x7F : 0x80;
	if (write(ctx, "\"", 1) != 0)
		return -1;
	while (i < n) {
		unsigned char c = p[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < top) {
			i++;
			continue;
		}
		size_t len = c >= 0x80 ? etl__utf8_len(p + i, n - i) : 0;
		if (len) {
			i += len;
			continue;
		}
		if (i > run && write(ctx, p + run, i - run) != 0)
			return -1;
		const char *short_esc = NULL;
		switch (c) {
		case '"': short_esc = "\\\""; break;
		case '\\': short_esc = "\\\\"; break;
		case '\n': short_esc = "\\n"; break;
		case '\r': short_esc = "\\r"; break;
		case '\t': short_esc = "\\t"; break;
		case '\b': short_esc = "\\b"; break;
		case '\f': short_esc = "\\f"; break;
		default: break;
		}
		if (short_esc && (c == '"' || c == '\\' || !(flags & ETL_JSON_ESCAPE_U00XX))) {
			if (write(ctx, short_esc, 2) != 0)
				return -1;
		} else if (c < 0x80) {
			char esc[6] = { '\\', 'u', '0', '0', hexdig_lc[c >> 4], hexdig_lc[c & 15] };
			if (write(ctx, esc, 6) != 0)
				return -1;
		} else if (write(ctx, "\\ufffd", 6) != 0) {
			return -1;
		}
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

size_t etl__out_json_escape_ascii(char *o, unsigned char c)
{
	char e = 0;
	switch (c) {
	case '"': e = '"'; break;
	case '\\': e = '\\'; break;
	case '\n': e = 'n'; break;
	case '\r': e = 'r'; break;
	case '\t': e = 't'; break;
	case '\b': e = 'b'; break;
	case '\f': e = 'f'; break;
	default: break;
	}
	o[0] = '\\';
	if (e) {
		o[1] = e;
		return 2;
	}
	o[1] = 'u';
	o[2] = '0';
	o[3] = '0';
	o[4] = hexdig_lc[c >> 4];
	o[5] = hexdig_lc[c & 15];
	return 6;
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
#include <emmintrin.h>
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
 * 16-byte copy whose bytes past the end are masked off. Returns the new
 * output position. */
static char *json_escape_sse2(char *o, const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t left = n - i;
		__m128i x;
		unsigned m;
		if (left >= 16) {
			x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			m = json_bad16(x);
		} else {
			unsigned char t[16] = { 0 };
			memcpy(t, p + i, left);
			x = _mm_loadu_si128((const __m128i *)(const void *)t);
			m = json_bad16(x) & ((1u << left) - 1);
		}
		_mm_storeu_si128((__m128i *)(void *)o, x);
		if (!m) {
			size_t k = left < 16 ? left : 16;
			i += k;
			o += k;
			continue;
		}
		size_t k = (size_t)__builtin_ctz(m);    /* plain bytes before */
		i += k;
		o += k;
		size_t used;
		o += json_escape_at(o, p + i, n - i, &used);
		i += used;
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
	while (i < n) {
		unsigned char c = p[i];
		if (c >= 0x20 && c != 0x7F && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		size_t len = c >= 0x80 ? etl__utf8_len(p + i, n - i) : 0;
		if (len) {
			i += len;
			continue;
		}
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

/* ---- values --------------------------------------------------------- */

#define in_type_bytes etl__out_in_type_bytes
#define is_hex_type etl__out_is_hex_type

static void put_float(struct etl_outbuf *b, double v, int single)
{
	char s[40];
	if (isnan(v)) {
		etl__ob_puts(b, "NaN");
		return;
	}
	if (isinf(v)) {
		etl__ob_puts(b, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, v);
		double back = strtod(s, NULL);
		if (single ? (float)back == (float)v : back == v)
			break;
	}
	etl__ob_puts(b, s);
}

static void put_ipv4(struct etl_outbuf *b, const uint8_t a[4])
{
	for (int i = 0; i < 4; i++) {
		if (i)
			etl__ob_putc(b, '.');
		etl__ob_u64(b, a[i]);
	}
}

static void put_ipv6(struct etl_outbuf *b, const uint8_t a[16])
{
	char s[INET6_ADDRSTRLEN];
	if (inet_ntop(AF_INET6, a, s, sizeof s))
		etl__ob_puts(b, s);
	else
		etl__out_hex(b, a, 16);
}

/* SOCKADDR_IN (family 2) / SOCKADDR_IN6 (family 23, Windows' AF_INET6). */
static int put_sockaddr(struct etl_outbuf *b, const uint8_t *p, size_t n)
{
	if (n < 2)
		return -1;
	unsigned family = p[0] | (unsigned)p[1] << 8;
	if (family == 2 && n >= 8) {
		put_ipv4(b, p + 4);
		etl__ob_putc(b, ':');
		etl__ob_u64(b, (unsigned)(p[2] << 8 | p[3]));
		return 0;
	}
	if (family == 23 && n >= 24) {
		etl__ob_putc(b, '[');
		put_ipv6(b, p + 8);
		ETL_OB_LIT(b, "]:");
		etl__ob_u64(b, (unsigned)(p[2] << 8 | p[3]));
		return 0;
	}
	return -1;
}

/* S-Revision-Authority-Sub... ; -1 when p is not a whole SID. */
static int put_sid(struct etl_outbuf *b, const uint8_t *p, size_t n)
{
	if (n < 8 || p[1] > 15 || n < 8 + 4 * (size_t)p[1])
		return -1;
	uint64_t auth = 0;
	for (int i = 2; i < 8; i++)
		auth = auth << 8 | p[i];
	ETL_OB_LIT(b, "S-");
	etl__ob_u64(b, p[0]);
	if (auth >> 32) {
		etl__ob_printf(b, "-0x%012llx", (unsigned long long)auth);
	} else {
		etl__ob_putc(b, '-');
		etl__ob_u64(b, auth);
	}
	for (unsigned i = 0; i < p[1]; i++) {
		const uint8_t *s = p + 8 + 4 * i;
		etl__ob_putc(b, '-');
		etl__ob_u64(b, (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
		               (uint32_t)s[3] << 24);
	}
	return 0;
}

/* Windows-1252 0x80-0x9F (the rest of the code page is Latin-1). */
static const uint16_t cp1252_80[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178
};

/* A character value: 8-bit in Windows-1252, 16-bit as UCS-2 (a lone
 * surrogate becomes U+FFFD), as UTF-8. */
static void put_char(struct etl_outbuf *b, uint64_t v, unsigned width)
{
	uint32_t cp = width == 1 ? (uint32_t)(v & 0xFF) : (uint32_t)(v & 0xFFFF);
	if (width == 1 && cp >= 0x80 && cp < 0xA0)
		cp = cp1252_80[cp - 0x80];
	if (cp >= 0xD800 && cp < 0xE000)
		cp = 0xFFFD;
	char u[3];
	if (cp < 0x80) {
		etl__ob_putc(b, (char)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3F));
		etl__ob_put(b, u, 2);
	} else {
		u[0] = (char)(0xE0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		etl__ob_put(b, u, 3);
	}
}

#define JSON_SAFE_INT 9007199254740992ULL   /* 2^53 */

int etl__out_value(struct etl_outbuf *b, const struct etl_prop *p)
{
	switch (p->kind) {
	case ETL_VAL_NULL:
		return ETL_OUTV_NULL;
	case ETL_VAL_BOOL:
		etl__ob_puts(b, p->v.u ? "true" : "false");
		return ETL_OUTV_BOOL;
	case ETL_VAL_INT:
	case ETL_VAL_UINT: {
		uint64_t u = p->v.u;
		if (is_hex_type(p)) {
			char *o = etl__ob_room(b, ETL_OUT_HEX_INT_MAX);
			if (o)
				b->len += etl__out_hex_int(o, p);
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_STRING &&
		    (in_type_bytes(p->in_type) == 1 || in_type_bytes(p->in_type) == 2)) {
			put_char(b, u, in_type_bytes(p->in_type));
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_BOOLEAN) {
			etl__ob_puts(b, u ? "true" : "false");
			return ETL_OUTV_BOOL;
		}
		if (p->kind == ETL_VAL_UINT && p->out_type == ETL_OUT_IPV4) {
			uint8_t a[4] = { (uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24) };
			put_ipv4(b, a);
			return ETL_OUTV_STRING;
		}
		if (p->kind == ETL_VAL_UINT && p->out_type == ETL_OUT_PORT) {
			etl__ob_u64(b, (unsigned)((u & 0xFF) << 8 | (u >> 8 & 0xFF)));
			return ETL_OUTV_NUMBER;
		}
		if (p->kind == ETL_VAL_INT) {
			etl__ob_i64(b, p->v.i);
			return (p->v.i > -(int64_t)JSON_SAFE_INT && p->v.i < (int64_t)JSON_SAFE_INT)
			       ? ETL_OUTV_NUMBER : ETL_OUTV_STRING;
		}
		etl__ob_u64(b, u);
		return u < JSON_SAFE_INT ? ETL_OUTV_NUMBER : ETL_OUTV_STRING;
	}
	case ETL_VAL_FLOAT:
		put_float(b, p->v.f, p->in_type == ETL_IN_FLOAT);
		return isfinite(p->v.f) ? ETL_OUTV_NUMBER : ETL_OUTV_STRING;
	case ETL_VAL_STRING:
		if (p->v.str.s)
			etl__ob_put(b, p->v.str.s, p->v.str.len);
		return ETL_OUTV_STRING;
	case ETL_VAL_GUID:
		etl__out_guid(b, &p->v.guid);
		return ETL_OUTV_STRING;
	case ETL_VAL_FILETIME:
		etl__ob_filetime(b, p->v.i);
		return ETL_OUTV_STRING;
	case ETL_VAL_SID:
		if (p->v.bin.p && put_sid(b, p->v.bin.p, p->v.bin.len) == 0)
			return ETL_OUTV_STRING;
		break;
	case ETL_VAL_BINARY:
		if (!p->v.bin.p)
			return ETL_OUTV_STRING;
		if (p->out_type == ETL_OUT_IPV6 && p->v.bin.len == 16) {
			put_ipv6(b, p->v.bin.p);
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_IPV4 && p->v.bin.len == 4) {
			put_ipv4(b, p->v.bin.p);
			return ETL_OUTV_STRING;
		}
		if (p->out_type == ETL_OUT_SOCKETADDRESS && put_sockaddr(b, p->v.bin.p, p->v.bin.len) == 0)
			return ETL_OUTV_STRING;
		break;
	default:                   /* STRUCT / ARRAY: not a scalar */
		return ETL_OUTV_NULL;
	}
	if (p->v.bin.p)
		etl__out_hex(b, p->v.bin.p, p->v.bin.len);
	return ETL_OUTV_STRING;
}

int etl__out_value_needs_escape(const struct etl_prop *p)
{
	return p->kind == ETL_VAL_STRING ||
	       ((p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT) && p->out_type == ETL_OUT_STRING);
}

/* ---- the property tree ----------------------------------------------- */

struct leaf_walk {
	const struct etl_out_rec *r;
	etl_out_leaf_fn fn;
	void *arg;
	struct etl_outbuf name;
};

static int leaf_visit(struct leaf_walk *w, uint32_t i, unsigned depth)
{
	const struct etl_prop *p = &w->r->props[i];
	if (p->kind != ETL_VAL_STRUCT && p->kind != ETL_VAL_ARRAY)
		return w->fn(w->arg, w->name.p ? w->name.p : "", w->name.len, p);
	uint32_t first, count;
	etl__out_children(w->r, i, depth, &first, &count);
	size_t base = w->name.len;
	for (uint32_t k = 0; k < count; k++) {
		const struct etl_prop *c = &w->r->props[first + k];
		w->name.len = base;
		if (p->kind == ETL_VAL_ARRAY) {
			etl__ob_putc(&w->name, '[');
			etl__ob_u64(&w->name, k);
			etl__ob_putc(&w->name, ']');
		} else {
			etl__ob_putc(&w->name, '.');
			etl__ob_puts(&w->name, c->name ? c->name : "");
		}
		int rc = leaf_visit(w, first + k, depth + 1);
		if (rc)
			return rc;
	}
	w->name.len = base;
	return 0;
}

int etl__out_leaves(const struct etl_out_rec *r, etl_out_leaf_fn fn, void *arg)
{
	struct leaf_walk w;
	int rc = 0;
	memset(&w, 0, sizeof w);
	w.r = r;
	w.fn = fn;
	w.arg = arg;
	for (uint32_t i = 0; i < r->n_props && !rc; i++) {
		if (!etl__out_is_top(r, i))
			continue;
		w.name.len = 0;
		etl__ob_puts(&w.name, r->props[i].name ? r->props[i].name : "");
		rc = leaf_visit(&w, i, 0);
	}
	if (w.name.oom && !rc)
		rc = -1;
	etl__ob_free(&w.name);
	return rc;
}

/* ---- the header event ------------------------------------------------ */

static void lf_prop(struct etl_prop *v, uint32_t *n, const char *name, int kind,
                    unsigned in_type, unsigned out_type, uint64_t u)
{
	struct etl_prop *p = &v[(*n)++];
	memset(p, 0, sizeof *p);
	p->name = name;
	p->kind = kind;
	p->in_type = (uint16_t)in_type;
	p->out_type = (uint16_t)out_type;
	p->v.u = u;
	p->parent = ETL_PROP_NO_PARENT;
}

static void lf_str(struct etl_prop *v, uint32_t *n, const char *name, const char *s)
{
	struct etl_prop *p = &v[(*n)++];
	memset(p, 0, sizeof *p);
	p->name = name;
	p->kind = ETL_VAL_STRING;
	p->in_type = ETL_IN_UNICODESTRING;
	p->v.str.s = s ? s : "";
	p->v.str.len = s ? strlen(s) : 0;
	p->parent = ETL_PROP_NO_PARENT;
}

/* The TRACE_LOGFILE_HEADER fields by their MOF names (TimeZoneInformation
 * is NoPrint and left out). v holds 24 entries. */
static uint32_t logfile_props(const struct etl_logfile *lf, struct etl_prop *v)
{
	uint32_t n = 0;
	uint32_t version = (uint32_t)lf->version[0] | (uint32_t)lf->version[1] << 8 |
	                   (uint32_t)lf->version[2] << 16 | (uint32_t)lf->version[3] << 24;
	lf_prop(v, &n, "BufferSize", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->buffer_size);
	lf_prop(v, &n, "Version", ETL_VAL_UINT, ETL_IN_UINT32, 0, version);
	lf_prop(v, &n, "ProviderVersion", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->provider_version);
	lf_prop(v, &n, "NumberOfProcessors", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->number_of_processors);
	lf_prop(v, &n, "EndTime", ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, (uint64_t)lf->end_time);
	lf_prop(v, &n, "TimerResolution", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->timer_resolution);
	lf_prop(v, &n, "MaxFileSize", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->maximum_file_size);
	lf_prop(v, &n, "LogFileMode", ETL_VAL_UINT, ETL_IN_HEXINT32, ETL_OUT_HEXINT32, lf->log_file_mode);
	lf_prop(v, &n, "BuffersWritten", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->buffers_written);
	lf_prop(v, &n, "StartBuffers", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->start_buffers);
	lf_prop(v, &n, "PointerSize", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->pointer_size);
	lf_prop(v, &n, "EventsLost", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->events_lost);
	lf_prop(v, &n, "CPUSpeed", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->cpu_speed_mhz);
	lf_prop(v, &n, "LoggerName", ETL_VAL_UINT, ETL_IN_POINTER, 0, lf->logger_name_field);
	lf_prop(v, &n, "LogFileName", ETL_VAL_UINT, ETL_IN_POINTER, 0, lf->log_file_name_field);
	lf_prop(v, &n, "BootTime", ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, (uint64_t)lf->boot_time);
	lf_prop(v, &n, "PerfFreq", ETL_VAL_INT, ETL_IN_INT64, 0, (uint64_t)lf->perf_freq);
	lf_prop(v, &n, "StartTime", ETL_VAL_FILETIME, ETL_IN_FILETIME, 0, (uint64_t)lf->start_time);
	lf_prop(v, &n, "ReservedFlags", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->reserved_flags);
	lf_prop(v, &n, "BuffersLost", ETL_VAL_UINT, ETL_IN_UINT32, 0, lf->buffers_lost);
	lf_str(v, &n, "SessionNameString", lf->logger_name);
	lf_str(v, &n, "LogFileNameString", lf->log_file_name);
	return n;
}

/* A system-style EventTrace Header record (HookId 0x0000). */
static int is_logfile_record(const struct etl_event *ev)
{
	return (ev->present & ETL_EVF_HOOKID) && ev->hook_id == 0;
}

static int matches_lf(const struct etl_output *o, const struct etl_event *ev)
{
	return o->have_lf && is_logfile_record(ev) && ev->file_offset == o->lf.file_offset &&
	       ev->timestamp == o->lf.header_timestamp;
}

/* ---- building a record ---------------------------------------------- */

/* memset(r, 0, sizeof *r) for every event: unrolled 16-byte stores rather
 * than the "rep stosq" GCC makes of a fixed memset this large (as
 * zero_event() in lib/read/buffer.c). */
static inline void zero_rec(struct etl_out_rec *r)
{
	static const uint64_t zero[2];
	unsigned char *p = (unsigned char *)r;
	_Static_assert(sizeof *r >= 16, "struct etl_out_rec is at least 16 bytes");
#pragma GCC unroll 64
	for (size_t i = 0; i + 16 <= sizeof *r; i += 16)
		memcpy(p + i, zero, 16);
	memcpy(p + sizeof *r - 16, zero, 16);
}

static void system_from_event(struct etl_output *o, struct etl_out_rec *r,
                              const struct etl_event *ev, const struct etl_decoded *dec)
{
	r->ev = ev;
	r->provider = ev->provider;
	r->provider_name = dec && dec->provider_name ? dec->provider_name
	                 : ev->provider_name ? ev->provider_name : etl_known_provider_name(&ev->provider);
	r->event_id = ev->id;
	r->version = ev->version;
	r->level = ev->level;
	r->opcode = ev->opcode;
	r->channel = ev->channel;
	r->task = ev->task;
	r->keywords = ev->keyword;
	if (ev->present & ETL_EVF_UTC) {
		r->has_time = 1;
		r->utc = ev->utc;
	} else if (ev->present & ETL_EVF_TIMESTAMP) {
		r->has_raw = 1;
		r->raw = ev->timestamp;
	}
	if ((ev->present & ETL_EVF_ACTIVITY) && !etl_guid_is_null(&ev->activity_id)) {
		r->has_activity = 1;
		r->activity = ev->activity_id;
	}
	r->has_exec = 1;
	r->cpu = ev->processor;
	if (ev->present & ETL_EVF_PID) {
		r->has_pid = 1;
		r->pid = ev->pid;
		r->tid = ev->tid;
	}
	if (ev->present & ETL_EVF_CPU_TIMES) {
		r->has_cpu_times = 1;
		r->kernel_time = ev->kernel_time;
		r->user_time = ev->user_time;
	}
	/* Classic and kernel records name an event class, which tracerpt
	 * repeats as ExtendedTracingInfo/EventGuid (decoding.md §6.3). */
	switch (ev->kind) {
	case ETL_HDR_SYSTEM32: case ETL_HDR_SYSTEM64:
	case ETL_HDR_COMPACT32: case ETL_HDR_COMPACT64:
	case ETL_HDR_PERFINFO32: case ETL_HDR_PERFINFO64:
	case ETL_HDR_FULL_HEADER32: case ETL_HDR_FULL_HEADER64:
	case ETL_HDR_INSTANCE32: case ETL_HDR_INSTANCE64:
		r->has_ext_tracing = 1;
		r->event_guid = ev->provider;
		if (ev->present & ETL_EVF_INSTANCE) {
			r->has_instance = 1;
			r->instance_id = ev->instance_id;
			r->parent_instance_id = ev->parent_instance_id;
			r->parent_guid = ev->parent_guid;
		}
		break;
	default:
		break;
	}
	/* Extended items: RelatedActivityID and the user SID. */
	struct etl_ext_iter it;
	struct etl_ext_item item;
	etl_ext_iter_init(&it, ev);
	while (ev->ext_count && etl_ext_iter_next(&it, &item) == ETL_OK) {
		struct etl_ext_typed t;
		if (etl_ext_item_decode(&item, &t) != ETL_OK)
			continue;
		if (item.ext_type == ETL_EXT_RELATED_ACTIVITYID && !r->has_related) {
			r->has_related = 1;
			r->related = t.u.guid;
		} else if (item.ext_type == ETL_EXT_SID && !r->user_sid) {
			struct etl_outbuf sb;
			memset(&sb, 0, sizeof sb);
			if (put_sid(&sb, item.data, item.data_size) == 0 && !sb.oom && sb.len < sizeof o->sid) {
				memcpy(o->sid, sb.p, sb.len);
				o->sid[sb.len] = 0;
				r->user_sid = o->sid;
			}
			etl__ob_free(&sb);
		}
	}
	r->kind_name = etl_hdr_kind_name(ev->kind);
	r->uses_id = ev->kind == ETL_HDR_EVENT_HEADER32 || ev->kind == ETL_HDR_EVENT_HEADER64 ||
	             ev->kind == ETL_HDR_ERROR || ev->kind == ETL_HDR_MESSAGE;
	r->has_hook = (ev->present & ETL_EVF_HOOKID) != 0;
	r->hook_id = ev->hook_id;
	r->payload_size = ev->payload_size;
	if (r->provider_name)
		r->display = r->provider_name;
	else if (ev->kind == ETL_HDR_MESSAGE && (ev->present & ETL_EVF_COMPONENT_ID)) {
		snprintf(o->display, sizeof o->display, "component:%u", (unsigned)ev->component_id);
		r->display = o->display;
	} else {
		etl_guid_format(&ev->provider, o->display);  /* 64 bytes: room enough */
		r->display = o->display;
	}
	if (dec && dec->event_name)
		r->event_name = dec->event_name;
	else if (r->has_hook && (ev->hook_id >> 8) == 0)
		r->event_name = etl_eventtrace_name(ev->opcode);
}

static void rendering_from(struct etl_out_rec *r, const struct etl_decoded *dec)
{
	if (!dec)
		return;
	r->r_message = dec->message;
	r->r_level = dec->level_name;
	r->r_opcode = dec->opcode_name;
	r->r_task = dec->task_name;
	r->r_channel = dec->channel_name;
	r->r_provider = dec->provider_name;
	r->r_keywords = dec->keywords_name;
	r->r_event_name = dec->event_name;
	if (dec->source == ETL_DECODE_MOF) {
		/* tracerpt names a kernel event by its class ("Process"), the
		 * opcode ("Start") being the Opcode, and the provider as the
		 * kernel logger's MOF name (decoding.md §6.3). */
		r->r_event_name = dec->provider_name;
		r->r_provider = ETL_KERNEL_MOF_PROVIDER;
	}
	r->has_rendering = r->r_message || r->r_level || r->r_opcode || r->r_task || r->r_channel ||
	                   r->r_provider || (r->r_keywords && *r->r_keywords) || r->r_event_name;
}

/* The logfile-header event as tracerpt renders it: class EventTrace,
 * opcode Header, the kernel logger's provider name, its class GUID. */
static void header_rendering(struct etl_out_rec *r)
{
	r->provider = eventtrace_guid;
	r->provider_name = "EventTrace";
	r->display = "EventTrace";
	r->has_rendering = 1;
	r->r_event_name = "EventTrace";
	r->r_opcode = "Header";
	r->r_provider = ETL_KERNEL_MOF_PROVIDER;
	r->has_ext_tracing = 1;
	r->event_guid = eventtrace_guid;
}

/* The header event: from the record when there is one, else from lf. */
static int write_header(struct etl_output *o, const struct etl_event *ev)
{
	struct etl_out_rec r;
	memset(&r, 0, sizeof r);
	r.is_header = 1;
	o->header_done = 1;
	if (!o->have_lf) {
		r.absent = 1;
		return o->ops->event(o, &r);
	}
	if (ev) {
		system_from_event(o, &r, ev, NULL);
	} else {
		r.has_time = 1;
		r.utc = o->lf.start_time;
		r.kind_name = o->lf.header_ptr_size == 4 ? "SYSTEM32" : "SYSTEM64";
		r.has_hook = 1;
		r.event_name = etl_eventtrace_name(0);
	}
	header_rendering(&r);
	r.has_data = 1;
	r.props = o->lf_props;
	r.n_props = o->n_lf_props;
	return o->ops->event(o, &r);
}

/* ---- public API ----------------------------------------------------- */

static const struct etl_out_ops *const modules[] = {
	&etl__out_xml, &etl__out_json, &etl__out_jsonl, &etl__out_csv, &etl__out_text, NULL
};

static const struct etl_out_ops *find_module(const char *format)
{
	if (!format)
		return NULL;
	for (size_t i = 0; modules[i]; i++)
		if (strcmp(modules[i]->name, format) == 0)
			return modules[i];
	return NULL;
}

int etl_output_format_known(const char *format)
{
	return find_module(format) != NULL;
}

etl_output *etl_output_new(const char *format, etl_output_write_fn write, void *ctx)
{
	const struct etl_out_ops *ops = find_module(format);
	if (!ops || !write)
		return NULL;
	etl_output *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->ops = ops;
	o->write = write;
	o->ctx = ctx;
	if (ops->open && ops->open(o) != ETL_OK) {
		etl_output_free(o);
		return NULL;
	}
	return o;
}

static int misuse(etl_output *o, const char *what)
{
	snprintf(o->errmsg, sizeof o->errmsg, "%s", what);
	o->errcode = ETL_E_MISUSE;
	return ETL_FAILED;
}

int etl_output_begin(etl_output *o, const struct etl_logfile *lf)
{
	if (!o)
		return ETL_FAILED;
	if (o->state != ETL_OST_NEW)
		return misuse(o, "etl_output_begin() called twice or after a failure");
	o->state = ETL_OST_OPEN;
	if (lf && lf->present) {
		o->lf = *lf;
		o->lf.logger_name = strdup(lf->logger_name ? lf->logger_name : "");
		o->lf.log_file_name = strdup(lf->log_file_name ? lf->log_file_name : "");
		o->have_lf = 1;
		if (!o->lf.logger_name || !o->lf.log_file_name)
			return etl__output_fail(o, ETL_E_NOMEM, "Out of memory copying the logfile header");
		o->n_lf_props = logfile_props(&o->lf, o->lf_props);
	}
	if (o->ops->begin)
		return o->ops->begin(o);
	return ETL_OK;
}

/* An EventTrace Header record of another input: its own fields. */
static int write_other_logfile(etl_output *o, const struct etl_event *ev)
{
	struct etl_logfile lf;
	struct etl_err err;
	struct etl_prop props[24];
	struct etl_out_rec r;
	memset(&lf, 0, sizeof lf);
	memset(&err, 0, sizeof err);
	memset(&r, 0, sizeof r);
	system_from_event(o, &r, ev, NULL);
	header_rendering(&r);
	int st = etl__logfile_decode(ev->payload, ev->payload_size, ev->ptr_size == 4 ? 4 : 8, &lf, &err);
	if (st == ETL_OK) {
		r.has_data = 1;
		r.props = props;
		r.n_props = logfile_props(&lf, props);
	} else {
		r.has_error = 1;
		r.error_code = err.code ? err.code : ETL_E_BAD_VALUE;
		r.error_reason = err.msg[0] ? err.msg : "The logfile header cannot be decoded";
		r.payload = ev->payload;
		r.payload_len = ev->payload_size;
	}
	st = o->ops->event(o, &r);
	etl__logfile_free(&lf);
	return st;
}

int etl_output_event(etl_output *o, const struct etl_event *ev, const struct etl_decoded *dec)
{
	if (!o)
		return ETL_FAILED;
	if (o->state == ETL_OST_FATAL)
		return ETL_FATAL;
	if (o->state != ETL_OST_OPEN)
		return misuse(o, "etl_output_event() called before etl_output_begin() or after etl_output_end()");
	if (!ev)
		return misuse(o, "etl_output_event() called without an event");
	if (!o->header_done) {
		if (matches_lf(o, ev)) {
			o->header_skipped = 1;
			return write_header(o, ev);
		}
		int st = write_header(o, NULL);
		if (st != ETL_OK)
			return st;
	}
	if (!o->header_skipped && matches_lf(o, ev)) {
		o->header_skipped = 1;
		return ETL_OK;
	}
	if (is_logfile_record(ev))
		return write_other_logfile(o, ev);

	struct etl_out_rec r;
	zero_rec(&r);
	system_from_event(o, &r, ev, dec);
	rendering_from(&r, dec);
	if (dec && dec->status == ETL_OK) {
		r.has_data = 1;
		r.props = dec->props;
		r.n_props = dec->props ? dec->n_props : 0;
		/* The names: the decoder's (the provider's too, not the
		 * event's own), and ETL_KERNEL_MOF_PROVIDER. */
		if (r.provider_name == dec->provider_name)
			r.names_gen = etl__dec_names_trusted(dec);
	} else {
		r.has_error = 1;
		r.error_code = dec ? dec->errcode : ETL_E_UNSUPPORTED;
		r.error_reason = dec ? (dec->error ? dec->error : "The payload could not be decoded")
		                     : "The event was not decoded";
		r.payload = ev->payload;
		r.payload_len = ev->payload ? ev->payload_size : 0;
	}
	return o->ops->event(o, &r);
}

int etl_output_end(etl_output *o)
{
	if (!o)
		return ETL_FAILED;
	if (o->state == ETL_OST_FATAL)
		return ETL_FATAL;
	if (o->state != ETL_OST_OPEN)
		return misuse(o, "etl_output_end() called before etl_output_begin() or twice");
	if (!o->header_done) {
		int st = write_header(o, NULL);
		if (st != ETL_OK)
			return st;
	}
	int st = o->ops->end ? o->ops->end(o) : ETL_OK;
	if (st == ETL_OK && o->buf.len)
		st = etl__output_flush(o);
	if (st == ETL_OK)
		o->state = ETL_OST_ENDED;
	return st;
}

void etl_output_free(etl_output *o)
{
	if (!o)
		return;
	if (o->ops && o->ops->close)
		o->ops->close(o);
	free(o->lf.logger_name);
	free(o->lf.log_file_name);
	etl__ob_free(&o->buf);
	free(o);
}

int etl_output_errcode(const etl_output *o)
{
	return o ? o->errcode : ETL_E_NONE;
}

const char *etl_output_errmsg(const etl_output *o)
{
	return o ? o->errmsg : "";
}
