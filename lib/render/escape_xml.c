/*
 * lib/render/escape_xml.c - text made safe for XML element content and
 * attribute values in one pass: what XML 1.0 cannot carry replaced as
 * etl__out_clean() replaces it, then the characters markup would read
 * escaped, byte for byte as libxml2's xmlTextWriter (which the XML renderer
 * wrote through before) escapes them:
 *
 *   content    < > & " as &lt; &gt; &amp; &quot;, CR as &#13;;
 *              TAB, LF and every other character as they are;
 *   attribute  the same entities, and LF CR TAB as &#10; &#13; &#9;.
 *
 * (libxml2 2.9.14, which wrote the golden files; tests/check_xml_escape.c
 * compares the two on every class of byte.)
 *
 * Runs of bytes that need nothing are found 16 at a time with SSE2 where
 * there is SSE2 (the byte loop is the reference and the fallback), and
 * copied whole into room reserved for the worst case.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "lib/render/render.h"

/* Bytes of input escaped per reservation; a UTF-8 sequence that starts
 * before the end of a block may end up to 3 bytes past it. */
#define XML_BLOCK 4096u
/* Output bytes per input byte at most: "&quot;". */
#define XML_GROWTH 6u
#define XML_SLACK 16u

/* 1 for the ASCII bytes copied as they are: printable ASCII (and DEL)
 * but < > & ", in content also TAB and LF. */
static int plain_byte(unsigned char c, int attr)
{
	if (c >= 0x80 || c == '<' || c == '>' || c == '&' || c == '"')
		return 0;
	return c >= 0x20 || (!attr && (c == '\t' || c == '\n'));
}

#define PUT(o, lit) (memcpy((o), "" lit, sizeof(lit) - 1), sizeof(lit) - 1)

/* The escape of the byte that is not plain at p[0] (n bytes left) at o;
 * *used gets the input bytes it stands for. Returns the bytes written. */
static size_t escape_at(char *o, const unsigned char *p, size_t n, int attr, size_t *used)
{
	unsigned char c = p[0];
	*used = 1;
	if (c < 0x80) {
		switch (c) {
		case '<': return PUT(o, "&lt;");
		case '>': return PUT(o, "&gt;");
		case '&': return PUT(o, "&amp;");
		case '"': return PUT(o, "&quot;");
		case '\r': return PUT(o, "&#13;");
		case '\n': return attr ? PUT(o, "&#10;") : (o[0] = '\n', 1);
		case '\t': return attr ? PUT(o, "&#9;") : (o[0] = '\t', 1);
		default:                /* C0: its Control Picture U+2400 + c */
			o[0] = (char)0xE2;
			o[1] = (char)0x90;
			o[2] = (char)(0x80 + c);
			return 3;
		}
	}
	size_t len = etl__utf8_len(p, n);
	if (len == 3 && c == 0xEF && p[1] == 0xBF && p[2] >= 0xBE)
		len = 0;                /* U+FFFE, U+FFFF */
	if (!len) {
		/* U+FFFD for the byte, or for the three of U+FFFE/U+FFFF */
		*used = (c == 0xEF && n >= 3 && etl__utf8_len(p, n) == 3) ? 3 : 1;
		return PUT(o, "\xEF\xBF\xBD");
	}
	*used = len;                    /* valid UTF-8: as it is */
	memcpy(o, p, len);
	return len;
}

size_t etl__out_xml_char(char *o, unsigned char c)
{
	size_t used;
	if (plain_byte(c, 0)) {
		o[0] = (char)c;
		return 1;
	}
	if (c >= 0x80)                  /* a lone byte is no UTF-8 sequence */
		return PUT(o, "\xEF\xBF\xBD");
	return escape_at(o, &c, 1, 0, &used);
}

/* The byte loop: input p[*i .. lim) (a sequence may run on to n), output
 * at o. Returns the new output position. */
static char *escape_bytes(char *o, const unsigned char *p, size_t *i, size_t lim, size_t n, int attr)
{
	size_t k = *i;
	while (k < lim) {
		if (plain_byte(p[k], attr)) {
			*o++ = (char)p[k++];
			continue;
		}
		size_t used;
		o += escape_at(o, p + k, n - k, attr, &used);
		k += used;
	}
	*i = k;
	return o;
}

#if defined(__SSE2__) && !defined(ETL_NO_SSE2)
#include "lib/render/sse_block.h"
#define XML_SSE2 1

/* Bit i set for each byte i of x that is not plain (see plain_byte()):
 * a signed compare with 0x20 catches the controls and every byte from
 * 0x80, then TAB and LF are let through in content, and < > & " added. */
static inline unsigned bad16(__m128i x, int attr)
{
	__m128i low = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
	if (!attr)
		low = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')),
		                                    _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))), low);
	__m128i mark = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('<')),
	                                         _mm_cmpeq_epi8(x, _mm_set1_epi8('>'))),
	                            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('&')),
	                                         _mm_cmpeq_epi8(x, _mm_set1_epi8('"'))));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(low, mark));
}

/* escape_bytes() 16 bytes per step: each block is stored whole (XML_SLACK
 * bytes of room to spare) and kept as far as its bytes are plain. A
 * sequence may run past lim (up to n), which ends the run. */
static char *escape_run(char *o, const unsigned char *p, size_t *i, size_t lim, size_t n, int attr)
{
	size_t k = *i;
	while (k < lim) {
		size_t left = lim - k;
		unsigned valid;
		__m128i x = etl__sse_block(p + k, left, &valid);
		unsigned m = bad16(x, attr) & valid;
		_mm_storeu_si128((__m128i *)(void *)o, x);
		if (!m) {
			size_t step = left < 16 ? left : 16;
			k += step;
			o += step;
			continue;
		}
		size_t plain = (size_t)__builtin_ctz(m);
		k += plain;
		o += plain;
		size_t used;
		o += escape_at(o, p + k, n - k, attr, &used);
		k += used;
	}
	*i = k;
	return o;
}
#else
#define XML_SSE2 0
#define escape_run escape_bytes
#endif

/* The loop of one of the two kinds (escape_run, or escape_bytes for the
 * tests' comparison) over s, block by block. */
typedef char *(*escape_fn)(char *o, const unsigned char *p, size_t *i, size_t lim, size_t n, int attr);

static inline void xml_escape(struct etl_outbuf *b, const char *s, size_t n, int attr, escape_fn run)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t lim = n - i > XML_BLOCK ? i + XML_BLOCK : n;
		char *o = etl__ob_room(b, XML_GROWTH * (lim - i + 3) + XML_SLACK);
		if (!o)
			return;
		char *end = run(o, p, &i, lim, n, attr);
		b->len += (size_t)(end - o);
	}
}

void etl__out_xml_text(struct etl_outbuf *b, const char *s, size_t n)
{
	xml_escape(b, s, n, 0, escape_run);
}

void etl__out_xml_attr(struct etl_outbuf *b, const char *s, size_t n)
{
	xml_escape(b, s, n, 1, escape_run);
}

void etl__out_xml_ex(struct etl_outbuf *b, const char *s, size_t n, int attr, int simd)
{
	xml_escape(b, s, n, attr, simd ? escape_run : escape_bytes);
}

int etl__out_xml_simd(void)
{
	return XML_SSE2;
}
