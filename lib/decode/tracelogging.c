/*
 * lib/decode/tracelogging.c - TraceLogging (self-describing) events: the provider traits
 * (extended item PROV_TRAITS, decoding.md §2.2) and the event metadata
 * (EVENT_SCHEMA_TL, §2.3-2.4) are parsed into a schema once per distinct
 * (provider GUID, traits, metadata) and cached; the payload is then decoded
 * field by field (§2.5-2.7) into the decoder's property array.
 *
 * Property tree layout: the children of a node are contiguous, so a node's
 * children are reserved as a block as soon as their number is known (struct
 * member count from the metadata, array element count from the metadata or
 * the payload) and filled depth-first in payload order. Top-level properties
 * occupy props[0 .. number of top-level fields).
 *
 * Choices where the specification leaves room (documented for users in
 * etl_decode.h):
 *   - a NUL-terminated string that runs to the end of the payload without its
 *     NUL is taken whole (§2.7 step 6); one with no byte left is truncated;
 *   - ANSI strings are CP1252 unless the out-type is UTF8, XML or JSON, in
 *     which case invalid UTF-8 sequences become U+FFFD; unpaired UTF-16
 *     surrogates become U+FFFD;
 *   - SYSTEMTIME is converted to FILETIME (kind ETL_VAL_FILETIME); one that
 *     is not a valid date between 1601 and 30827 is kept as its 16 raw bytes
 *     (kind ETL_VAL_BINARY, in_type SYSTEMTIME);
 *   - integers with out-type BOOLEAN become ETL_VAL_BOOL, 64-bit integers
 *     with out-type FILETIME become ETL_VAL_FILETIME;
 *   - custom fields (count kind 0x60) are read as a u16 byte count and the
 *     bytes (§2.4 ⚠), kind ETL_VAL_BINARY, in_type ETL_IN_BINARY;
 *   - a struct must have 1..127 members and structs nest at most
 *     TL_MAX_DEPTH deep; trailing payload bytes after the last field are
 *     ignored.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common/cursor.h"
#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"

#define TL_MAX_DEPTH 32

/* Count kinds (bits 5-6 of the in-type byte). */
#define TL_SCALAR 0x00
#define TL_CCOUNT 0x20
#define TL_VCOUNT 0x40
#define TL_CUSTOM 0x60

/* TlgOut values (§2.6). */
enum {
	TLO_NULL = 0, TLO_NOPRINT = 1, TLO_STRING = 2, TLO_BOOLEAN = 3, TLO_HEX = 4,
	TLO_PID = 5, TLO_TID = 6, TLO_PORT = 7, TLO_IPV4 = 8, TLO_IPV6 = 9,
	TLO_SOCKETADDRESS = 10, TLO_XML = 11, TLO_JSON = 12, TLO_WIN32ERROR = 13,
	TLO_NTSTATUS = 14, TLO_HRESULT = 15, TLO_FILETIME = 16, TLO_SIGNED = 17,
	TLO_UNSIGNED = 18, TLO_DATETIME_CULTURE_INSENSITIVE = 33, TLO_UTF8 = 35,
	TLO_PKCS7_WITH_TYPE_INFO = 36, TLO_CODE_POINTER = 37, TLO_DATETIME_UTC = 38
};

struct tl_field {
	const char *name;           /* UTF-8, in the schema's string block     */
	uint32_t meta_off;          /* offset of the field in the metadata     */
	uint32_t tags;              /* field tags (28 bits)                    */
	uint32_t end;               /* index one past this field's subtree     */
	uint16_t ccount;            /* TL_CCOUNT: element count                */
	uint16_t out_type;          /* TDH numbering (etl_out_type)            */
	uint8_t in_type;            /* low 5 bits of the in-type byte          */
	uint8_t count_kind;         /* TL_SCALAR / TL_CCOUNT / TL_VCOUNT / TL_CUSTOM */
	uint8_t tl_out;             /* raw TlgOut; STRUCT: member count        */
};

struct tl_schema {
	const char *provider_name;  /* from the traits, or NULL                */
	const char *event_name;     /* NULL only if the metadata is malformed  */
	uint32_t tags;
	struct tl_field *fields;
	uint32_t n_fields;
	uint32_t n_top;             /* top-level fields                        */
	int has_group, has_decode_guid;
	struct etl_guid group_guid; /* trait type 1                           */
	struct etl_guid decode_guid;/* trait type 2                           */
	int bad_code;               /* != 0: the metadata is malformed          */
	char *bad_msg;
	char *strings;              /* names (sanitised UTF-8)                 */
	size_t strings_len, strings_cap;
};

/* ---- text ------------------------------------------------------------ */

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
static size_t utf8_sanitize(const uint8_t *p, size_t n, char *out)
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

/* ---- schema ---------------------------------------------------------- */

static void schema_free(void *p)
{
	struct tl_schema *s = p;
	if (!s)
		return;
	free(s->fields);
	free(s->bad_msg);
	free(s->strings);
	free(s);
}

/* Copies a name into the schema's string block (sanitised). The block was
 * sized for every name up front, so it never moves. */
static const char *schema_str(struct tl_schema *s, const uint8_t *p, size_t n)
{
	char *out = s->strings + s->strings_len;
	size_t k = utf8_sanitize(p, n, out);
	out[k] = 0;
	s->strings_len += k + 1;
	return out;
}

static int schema_bad(struct tl_schema *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int schema_bad(struct tl_schema *s, int code, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->bad_code = code;
	s->bad_msg = strdup(buf);
	return s->bad_msg ? ETL_FAILED : ETL_FATAL;
}

/* Tags: 1..4 bytes, 7 bits each, most significant group first (§2.3). */
static int read_tags(struct etl_cur *c, uint32_t *tags)
{
	uint32_t v = 0;
	int shift = 21;
	for (int i = 0; i < 4; i++) {
		if (!etl_cur_need(c, 1))
			return 0;
		uint8_t b = etl_cur_u8(c);
		v |= (uint32_t)(b & 0x7F) << shift;
		shift -= 7;
		if (!(b & 0x80)) {
			*tags = v;
			return 1;
		}
	}
	return -1;                      /* more than 4 bytes */
}

/* A NUL-terminated name at the cursor: returns its length (without NUL) and
 * moves past the NUL, or -1 if there is no NUL before the end. */
static long read_name(struct etl_cur *c, const uint8_t **p)
{
	const uint8_t *start = etl_cur_ptr(c);
	size_t left = etl_cur_left(c);
	const uint8_t *nul = left ? memchr(start, 0, left) : NULL;
	if (!nul)
		return -1;
	*p = start;
	etl_cur_skip(c, (size_t)(nul - start) + 1);
	return (long)(nul - start);
}

static int tl_in_valid(unsigned t)
{
	return t >= ETL_IN_UNICODESTRING && t <= ETL_IN_COUNTEDBINARY && t != ETL_IN_POINTER;
}

/* Size class of an integer in-type: 1, 2, 4, 8 bytes, or 0. */
static unsigned int_size(unsigned in)
{
	switch (in) {
	case ETL_IN_INT8: case ETL_IN_UINT8:
		return 1;
	case ETL_IN_INT16: case ETL_IN_UINT16:
		return 2;
	case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_BOOLEAN:
		return 4;
	case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64:
		return 8;
	default:
		return 0;
	}
}

/* TlgOut -> TDH out-type (§2.6), for a field of in-type in. */
static uint16_t map_out(unsigned in, unsigned tlo)
{
	unsigned sz = int_size(in);
	switch (tlo) {
	case TLO_NULL:
		if (in == ETL_IN_HEXINT32)
			return ETL_OUT_HEXINT32;
		if (in == ETL_IN_HEXINT64)
			return ETL_OUT_HEXINT64;
		return ETL_OUT_NULL;
	case TLO_NOPRINT: return ETL_OUT_NOPRINT;
	case TLO_STRING: return ETL_OUT_STRING;
	case TLO_BOOLEAN: return ETL_OUT_BOOLEAN;
	case TLO_HEX:
		if (in == ETL_IN_BINARY || in == ETL_IN_COUNTEDBINARY)
			return ETL_OUT_HEXBINARY;
		return sz == 1 ? ETL_OUT_HEXINT8 : sz == 2 ? ETL_OUT_HEXINT16 :
		       sz == 4 ? ETL_OUT_HEXINT32 : sz == 8 ? ETL_OUT_HEXINT64 : ETL_OUT_NULL;
	case TLO_PID: return ETL_OUT_PID;
	case TLO_TID: return ETL_OUT_TID;
	case TLO_PORT: return ETL_OUT_PORT;
	case TLO_IPV4: return ETL_OUT_IPV4;
	case TLO_IPV6: return ETL_OUT_IPV6;
	case TLO_SOCKETADDRESS: return ETL_OUT_SOCKETADDRESS;
	case TLO_XML: return ETL_OUT_XML;
	case TLO_JSON: return ETL_OUT_JSON;
	case TLO_WIN32ERROR: return ETL_OUT_WIN32ERROR;
	case TLO_NTSTATUS: return ETL_OUT_NTSTATUS;
	case TLO_HRESULT: return ETL_OUT_HRESULT;
	case TLO_FILETIME: return ETL_OUT_DATETIME;
	case TLO_SIGNED:
		return sz == 1 ? ETL_OUT_BYTE : sz == 2 ? ETL_OUT_SHORT :
		       sz == 4 ? ETL_OUT_INT : sz == 8 ? ETL_OUT_LONG : ETL_OUT_NULL;
	case TLO_UNSIGNED:
		return sz == 1 ? ETL_OUT_UNSIGNEDBYTE : sz == 2 ? ETL_OUT_UNSIGNEDSHORT :
		       sz == 4 ? ETL_OUT_UNSIGNEDINT : sz == 8 ? ETL_OUT_UNSIGNEDLONG : ETL_OUT_NULL;
	case TLO_DATETIME_CULTURE_INSENSITIVE: return ETL_OUT_CULTURE_INSENSITIVE_DATETIME;
	case TLO_UTF8: return ETL_OUT_UTF8;
	case TLO_PKCS7_WITH_TYPE_INFO: return ETL_OUT_PKCS7_WITH_TYPE_INFO;
	case TLO_CODE_POINTER: return ETL_OUT_CODE_POINTER;
	case TLO_DATETIME_UTC: return ETL_OUT_DATETIME_UTC;
	default:
		/* Unknown: decode by in-type (§2.6). */
		return map_out(in, TLO_NULL);
	}
}

/* Provider traits (§2.2): u16 size, name, then {u16 size, u8 type, data}. */
static int parse_traits(struct tl_schema *s, const uint8_t *p, size_t n)
{
	struct etl_cur c;
	const uint8_t *name;
	long len;

	etl_cur_init(&c, p, n);
	uint16_t size = etl_cur_u16(&c);
	if (c.err || size < 3 || size > n)
		return schema_bad(s, ETL_E_BAD_SIZE,
		                  "TraceLogging provider traits: size %u does not fit the %zu-byte item",
		                  (unsigned)size, n);
	c.len = size;
	len = read_name(&c, &name);
	if (len < 0)
		return schema_bad(s, ETL_E_BAD_VALUE,
		                  "TraceLogging provider traits: provider name without NUL");
	s->provider_name = schema_str(s, name, (size_t)len);
	while (etl_cur_left(&c) > 0) {
		size_t off = c.pos;
		uint16_t tsize = etl_cur_u16(&c);
		uint8_t type = etl_cur_u8(&c);
		if (c.err || tsize < 3 || (size_t)tsize - 3 > etl_cur_left(&c))
			return schema_bad(s, ETL_E_BAD_SIZE,
			                  "TraceLogging provider traits: trait at offset %zu: size %u does not fit",
			                  off, (unsigned)tsize);
		const uint8_t *data = etl_cur_bytes(&c, (size_t)tsize - 3);
		if (tsize - 3 >= 16 && (type == 1 || type == 2)) {
			if (type == 1) {
				etl_guid_dec(data, &s->group_guid);
				s->has_group = 1;
			} else {
				etl_guid_dec(data, &s->decode_guid);
				s->has_decode_guid = 1;
			}
		}
	}
	return ETL_OK;
}

/* Event metadata (§2.3, §2.4). */
static int parse_meta(struct tl_schema *s, const uint8_t *p, size_t n)
{
	struct etl_cur c;
	const uint8_t *name;
	long len;
	int r;
	uint32_t cap = 0;

	etl_cur_init(&c, p, n);
	uint16_t size = etl_cur_u16(&c);
	if (c.err || size < 2 || size > n)
		return schema_bad(s, ETL_E_BAD_SIZE,
		                  "TraceLogging metadata: size %u does not fit the %zu-byte item",
		                  (unsigned)size, n);
	c.len = size;
	r = read_tags(&c, &s->tags);
	if (r <= 0)
		return schema_bad(s, ETL_E_BAD_VALUE, "TraceLogging metadata: event tags %s",
		                  r < 0 ? "longer than 4 bytes" : "missing");
	len = read_name(&c, &name);
	if (len < 0)
		return schema_bad(s, ETL_E_BAD_VALUE, "TraceLogging metadata: event name without NUL");
	s->event_name = schema_str(s, name, (size_t)len);

	while (etl_cur_left(&c) > 0) {
		struct tl_field f;
		size_t off = c.pos;
		memset(&f, 0, sizeof f);
		f.meta_off = (uint32_t)off;
		len = read_name(&c, &name);
		if (len < 0)
			return schema_bad(s, ETL_E_BAD_VALUE,
			                  "TraceLogging metadata: field name at offset %zu without NUL", off);
		f.name = schema_str(s, name, (size_t)len);
		if (!etl_cur_need(&c, 1))
			return schema_bad(s, ETL_E_TRUNCATED,
			                  "TraceLogging metadata: field \"%s\" at offset %zu: in-type missing",
			                  f.name, off);
		uint8_t in = etl_cur_u8(&c);
		f.in_type = in & 0x1F;
		f.count_kind = in & 0x60;
		if (in & 0x80) {
			uint8_t out = etl_cur_u8(&c);
			if (c.err)
				return schema_bad(s, ETL_E_TRUNCATED,
				                  "TraceLogging metadata: field \"%s\" at offset %zu: out-type missing",
				                  f.name, off);
			f.tl_out = out & 0x7F;
			if (out & 0x80) {
				r = read_tags(&c, &f.tags);
				if (r <= 0)
					return schema_bad(s, ETL_E_BAD_VALUE,
					                  "TraceLogging metadata: field \"%s\" at offset %zu: field tags %s",
					                  f.name, off, r < 0 ? "longer than 4 bytes" : "missing");
			}
		}
		if (f.count_kind == TL_CCOUNT) {
			f.ccount = etl_cur_u16(&c);
			if (c.err)
				return schema_bad(s, ETL_E_TRUNCATED,
				                  "TraceLogging metadata: field \"%s\" at offset %zu: element count missing",
				                  f.name, off);
		} else if (f.count_kind == TL_CUSTOM) {
			uint16_t cb = etl_cur_u16(&c);
			if (c.err || !etl_cur_skip(&c, cb))
				return schema_bad(s, ETL_E_TRUNCATED,
				                  "TraceLogging metadata: field \"%s\" at offset %zu: custom schema runs past the metadata",
				                  f.name, off);
		}
		if (f.count_kind != TL_CUSTOM) {
			if (!tl_in_valid(f.in_type))
				return schema_bad(s, ETL_E_BAD_VALUE,
				                  "TraceLogging metadata: field \"%s\" at offset %zu: in-type %u is not valid",
				                  f.name, off, (unsigned)f.in_type);
			if (f.in_type == ETL_IN_STRUCT && f.tl_out == 0)
				return schema_bad(s, ETL_E_BAD_VALUE,
				                  "TraceLogging metadata: struct \"%s\" at offset %zu has no members",
				                  f.name, off);
			f.out_type = f.in_type == ETL_IN_STRUCT ? ETL_OUT_NULL : map_out(f.in_type, f.tl_out);
		} else {
			f.out_type = ETL_OUT_HEXBINARY;
		}
		if (s->n_fields == cap) {
			uint32_t ncap = cap ? cap * 2 : 16;
			struct tl_field *nf = realloc(s->fields, ncap * sizeof *nf);
			if (!nf)
				return ETL_FATAL;
			s->fields = nf;
			cap = ncap;
		}
		s->fields[s->n_fields++] = f;
	}

	/* Subtree ends, back to front: a struct spans its members' subtrees. */
	for (uint32_t i = s->n_fields; i-- > 0;) {
		struct tl_field *f = &s->fields[i];
		if (f->count_kind == TL_CUSTOM || f->in_type != ETL_IN_STRUCT) {
			f->end = i + 1;
			continue;
		}
		uint32_t k = i + 1;
		for (unsigned m = 0; m < f->tl_out; m++) {
			if (k >= s->n_fields)
				return schema_bad(s, ETL_E_BAD_VALUE,
				                  "TraceLogging metadata: struct \"%s\" at offset %u has %u members but only %u fields follow",
				                  f->name, (unsigned)f->meta_off, (unsigned)f->tl_out,
				                  (unsigned)(s->n_fields - i - 1));
			k = s->fields[k].end;
		}
		f->end = k;
	}
	/* Nesting depth, front to back. */
	uint32_t stack[TL_MAX_DEPTH + 1];
	unsigned depth = 0;
	for (uint32_t i = 0; i < s->n_fields; i++) {
		while (depth && stack[depth - 1] <= i)
			depth--;
		const struct tl_field *f = &s->fields[i];
		if (f->count_kind != TL_CUSTOM && f->in_type == ETL_IN_STRUCT) {
			if (depth == TL_MAX_DEPTH)
				return schema_bad(s, ETL_E_UNSUPPORTED,
				                  "TraceLogging metadata: struct \"%s\" at offset %u is nested more than %d deep",
				                  f->name, (unsigned)f->meta_off, TL_MAX_DEPTH);
			stack[depth++] = f->end;
		}
	}
	for (uint32_t k = 0; k < s->n_fields; k = s->fields[k].end)
		s->n_top++;
	return ETL_OK;
}

/* Parses a schema; a malformed one is returned too (bad_code set) so that
 * the verdict is cached. NULL on out-of-memory. */
static struct tl_schema *schema_parse(const uint8_t *traits, size_t traits_len,
                                      const uint8_t *meta, size_t meta_len, size_t *cost)
{
	struct tl_schema *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	/* Every name is a sanitised copy of at most all the input bytes, each
	 * invalid byte growing to 3, plus a NUL per name. */
	s->strings_cap = 4 * (traits_len + meta_len) + 2;
	s->strings = malloc(s->strings_cap);
	if (!s->strings) {
		free(s);
		return NULL;
	}
	int rc = ETL_OK;
	if (traits)
		rc = parse_traits(s, traits, traits_len);
	if (rc == ETL_OK)
		rc = parse_meta(s, meta, meta_len);
	if (rc == ETL_FATAL) {
		schema_free(s);
		return NULL;
	}
	*cost = sizeof *s + s->strings_cap + (size_t)s->n_fields * sizeof(struct tl_field) +
	        (s->bad_msg ? strlen(s->bad_msg) : 0);
	return s;
}

/* ---- payload --------------------------------------------------------- */

struct tl_dec {
	etl_decoder *d;
	const struct tl_schema *s;
	struct etl_cur pay;
};

static int fail_short(struct tl_dec *x, const struct tl_field *f, size_t need)
{
	return etl__dec_fail(x->d, ETL_E_TRUNCATED,
	                     "TraceLogging field \"%s\" at payload offset %zu: needs %zu bytes, %zu left",
	                     f->name, x->pay.pos, need, etl_cur_left(&x->pay));
}

static int fail_limit(struct tl_dec *x, const struct tl_field *f, int oom)
{
	if (oom)
		return etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory decoding field \"%s\"", f->name);
	return etl__dec_fail(x->d, ETL_E_BAD_SIZE,
	                     "TraceLogging field \"%s\" at payload offset %zu: more than %u properties",
	                     f->name, x->pay.pos, ETL_DEC_MAX_PROPS);
}

static int fail_nomem(struct tl_dec *x, const struct tl_field *f)
{
	return fail_limit(x, f, 1);
}

/* UTF-16LE bytes -> property string in the arena. */
static int set_utf16(struct tl_dec *x, const struct tl_field *f, uint32_t slot,
                     const uint8_t *p, size_t n)
{
	size_t len;
	char *out = etl__dec_utf16(x->d, p, n, &len);
	if (!out)
		return fail_nomem(x, f);
	struct etl_prop *pr = etl__dec_prop(x->d, slot);
	pr->v.str.s = out;
	pr->v.str.len = len;
	return ETL_OK;
}

/* 8-bit string -> property string: UTF-8 for out-types UTF8/XML/JSON, else
 * CP1252. Pure ASCII or valid UTF-8 points into the payload. */
static int set_ansi(struct tl_dec *x, const struct tl_field *f, uint32_t slot,
                    const uint8_t *p, size_t n)
{
	int utf8 = f->out_type == ETL_OUT_UTF8 || f->out_type == ETL_OUT_XML ||
	           f->out_type == ETL_OUT_JSON;
	size_t i = 0, len = 0;
	char *out;

	while (i < n && p[i] < 0x80)
		i++;
	if (i == n || (utf8 && utf8_valid(p, n))) {
		struct etl_prop *pr = etl__dec_prop(x->d, slot);
		pr->v.str.s = (const char *)p;
		pr->v.str.len = n;
		return ETL_OK;
	}
	out = etl__dec_alloc(x->d, 3 * n + 1);
	if (!out)
		return fail_nomem(x, f);
	if (utf8) {
		len = utf8_sanitize(p, n, out);
	} else {
		for (i = 0; i < n; i++)
			len += etl__utf8_put(out + len, cp1252(p[i]));
	}
	out[len] = 0;
	struct etl_prop *pr = etl__dec_prop(x->d, slot);
	pr->v.str.s = out;
	pr->v.str.len = len;
	return ETL_OK;
}

static int is_leap(unsigned y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* SYSTEMTIME (8 x u16) -> FILETIME; 0 if not a valid date. */
static int systemtime_to_filetime(const uint8_t *b, int64_t *ft)
{
	static const uint8_t mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y = etl_le16(b), mo = etl_le16(b + 2), d = etl_le16(b + 6);
	unsigned h = etl_le16(b + 8), mi = etl_le16(b + 10), s = etl_le16(b + 12);
	unsigned ms = etl_le16(b + 14);
	if (y < 1601 || y > 30827 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 ||
	    s > 59 || ms > 999)
		return 0;
	unsigned dim = mdays[mo - 1] + (mo == 2 && is_leap(y));
	if (d > dim)
		return 0;
	/* Days since 1601-01-01. */
	int64_t yy = (int64_t)y - 1601;
	int64_t days = yy * 365 + yy / 4 - yy / 100 + yy / 400;
	for (unsigned m = 1; m < mo; m++)
		days += mdays[m - 1] + (m == 2 && is_leap(y));
	days += d - 1;
	int64_t secs = days * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + s;
	*ft = (secs * 1000 + ms) * 10000;
	return 1;
}

static int decode_fields(struct tl_dec *x, uint32_t first, uint32_t count, uint32_t base,
                         uint32_t parent);
static void set_int(struct etl_prop *p, const struct tl_field *f, unsigned sz, uint64_t u);

/* One value of field fi (a scalar, an array element or a struct instance)
 * into props[slot]. */
static int decode_value(struct tl_dec *x, uint32_t fi, uint32_t slot, uint32_t parent)
{
	const struct tl_field *f = &x->s->fields[fi];
	struct etl_cur *c = &x->pay;
	struct etl_prop *p = etl__dec_prop(x->d, slot);
	size_t left = etl_cur_left(c);
	const uint8_t *b;
	unsigned sz;

	p->name = f->name;
	p->in_type = f->in_type;
	p->out_type = f->out_type;
	p->parent = parent;
	p->payload_offset = (uint32_t)c->pos;

	if (f->count_kind == TL_CUSTOM) {
		p->in_type = ETL_IN_BINARY;
		p->kind = ETL_VAL_BINARY;
		if (left < 2)
			return fail_short(x, f, 2);
		uint16_t n = etl_le16(etl_cur_ptr(c));
		if (left - 2 < n)
			return fail_short(x, f, (size_t)n + 2);
		etl_cur_skip(c, 2);
		p->v.bin.p = etl_cur_bytes(c, n);
		p->v.bin.len = n;
		return ETL_OK;
	}

	switch (f->in_type) {
	case ETL_IN_STRUCT: {
		int oom = 0;
		uint32_t n = f->tl_out;
		p->kind = ETL_VAL_STRUCT;
		uint32_t base = etl__dec_reserve(x->d, n, &oom);
		if (base == UINT32_MAX)
			return fail_limit(x, f, oom);
		p = etl__dec_prop(x->d, slot);
		p->first_child = base;
		p->n_children = n;
		return decode_fields(x, fi + 1, n, base, slot);
	}
	case ETL_IN_UNICODESTRING: {
		const uint8_t *s = etl_cur_ptr(c);
		size_t i = etl__utf16_nul(s, left), n, used;
		if (i + 2 <= left) {
			n = i;
			used = i + 2;
		} else {
			if (left == 0)
				return fail_short(x, f, 2);
			n = left & ~(size_t)1;  /* missing NUL at the end: take the rest */
			used = left;
		}
		p->kind = ETL_VAL_STRING;
		etl_cur_skip(c, used);
		return set_utf16(x, f, slot, s, n);
	}
	case ETL_IN_ANSISTRING: {
		const uint8_t *s = etl_cur_ptr(c);
		const uint8_t *nul = left ? memchr(s, 0, left) : NULL;
		size_t n, used;
		if (nul) {
			n = (size_t)(nul - s);
			used = n + 1;
		} else {
			if (left == 0)
				return fail_short(x, f, 1);
			n = used = left;
		}
		p->kind = ETL_VAL_STRING;
		etl_cur_skip(c, used);
		return set_ansi(x, f, slot, s, n);
	}
	case ETL_IN_COUNTEDSTRING:
	case ETL_IN_COUNTEDANSISTRING:
	case ETL_IN_BINARY:
	case ETL_IN_COUNTEDBINARY: {
		if (left < 2)
			return fail_short(x, f, 2);
		uint16_t n = etl_le16(etl_cur_ptr(c));
		if (left - 2 < n)
			return fail_short(x, f, (size_t)n + 2);
		etl_cur_skip(c, 2);
		b = etl_cur_bytes(c, n);
		if (f->in_type == ETL_IN_COUNTEDSTRING) {
			p->kind = ETL_VAL_STRING;
			return set_utf16(x, f, slot, b, n);
		}
		if (f->in_type == ETL_IN_COUNTEDANSISTRING) {
			p->kind = ETL_VAL_STRING;
			return set_ansi(x, f, slot, b, n);
		}
		p->kind = ETL_VAL_BINARY;
		p->v.bin.p = b;
		p->v.bin.len = n;
		return ETL_OK;
	}
	case ETL_IN_FLOAT: {
		if (left < 4)
			return fail_short(x, f, 4);
		uint32_t u = etl_cur_u32(c);
		float fl;
		memcpy(&fl, &u, sizeof fl);
		p->kind = ETL_VAL_FLOAT;
		p->v.f = fl;
		return ETL_OK;
	}
	case ETL_IN_DOUBLE: {
		if (left < 8)
			return fail_short(x, f, 8);
		uint64_t u = etl_cur_u64(c);
		double db;
		memcpy(&db, &u, sizeof db);
		p->kind = ETL_VAL_FLOAT;
		p->v.f = db;
		return ETL_OK;
	}
	case ETL_IN_GUID:
		if (left < 16)
			return fail_short(x, f, 16);
		p->kind = ETL_VAL_GUID;
		etl_cur_guid(c, &p->v.guid);
		return ETL_OK;
	case ETL_IN_FILETIME:
		if (left < 8)
			return fail_short(x, f, 8);
		p->kind = ETL_VAL_FILETIME;
		p->v.i = etl_cur_i64(c);
		return ETL_OK;
	case ETL_IN_SYSTEMTIME:
		if (left < 16)
			return fail_short(x, f, 16);
		b = etl_cur_bytes(c, 16);
		if (systemtime_to_filetime(b, &p->v.i)) {
			p->kind = ETL_VAL_FILETIME;
		} else {
			p->kind = ETL_VAL_BINARY;
			p->v.bin.p = b;
			p->v.bin.len = 16;
		}
		return ETL_OK;
	case ETL_IN_SID: {
		if (left < 8)
			return fail_short(x, f, 8);
		size_t n = 8 + 4 * (size_t)etl_cur_ptr(c)[1];
		if (left < n)
			return fail_short(x, f, n);
		p->kind = ETL_VAL_SID;
		p->v.bin.p = etl_cur_bytes(c, n);
		p->v.bin.len = n;
		return ETL_OK;
	}
	default:
		break;
	}

	/* Integers, BOOL32, HEXINT32/64. */
	sz = int_size(f->in_type);
	if (!sz)                         /* excluded by parse_meta() */
		return etl__dec_fail(x->d, ETL_E_BAD_VALUE, "TraceLogging field \"%s\": in-type %u",
		                     f->name, (unsigned)f->in_type);
	if (left < sz)
		return fail_short(x, f, sz);
	uint64_t u = sz == 1 ? etl_cur_u8(c) : sz == 2 ? etl_cur_u16(c) :
	             sz == 4 ? etl_cur_u32(c) : etl_cur_u64(c);
	set_int(p, f, sz, u);
	return ETL_OK;
}

/* Elements of an array of integers whose n * sz bytes are all in the
 * payload: the properties decode_value() gives, without its dispatch per
 * element (a character array holds one property per character). */
/* n elements of sz bytes at b, copies of tmpl with their value and
 * offset. Inline with a constant sz at each call, so that every element
 * size gets its own loop without a branch per element. */
static inline void fill_int_elems(struct etl_prop *props, const struct etl_prop *tmpl,
                                  const uint8_t *b, uint32_t n, uint32_t pos, unsigned sz)
{
	for (uint32_t i = 0; i < n; i++, b += sz) {
		uint64_t u = sz == 1 ? b[0] : sz == 2 ? etl_le16(b) : sz == 4 ? etl_le32(b) : etl_le64(b);
		if (tmpl->kind == ETL_VAL_INT)      /* as set_int() sign-extends */
			u = (uint64_t)(sz == 1 ? (int8_t)u : sz == 2 ? (int16_t)u : sz == 4 ? (int32_t)u : (int64_t)u);
		else if (tmpl->kind == ETL_VAL_BOOL)
			u = u != 0;
		/* Assigned whole: the slots came from etl__dec_reserve_raw(). */
		props[i] = *tmpl;
		props[i].v.u = u;
		props[i].payload_offset = pos + i * sz;
	}
}

static void decode_int_elems(struct tl_dec *x, const struct tl_field *f, unsigned sz,
                             uint32_t base, uint32_t n, uint32_t parent)
{
	struct etl_cur *c = &x->pay;
	struct etl_prop *props = etl__dec_prop(x->d, base);  /* no reserve below */
	/* Every element has the same kind (it does not depend on the value):
	 * worked out once, on a template. */
	struct etl_prop tmpl = {
		.name = f->name, .in_type = f->in_type, .out_type = f->out_type, .parent = parent,
	};
	set_int(&tmpl, f, sz, 0);
	const uint8_t *b = etl_cur_ptr(c);
	uint32_t pos = (uint32_t)c->pos;
	switch (sz) {
	case 1: fill_int_elems(props, &tmpl, b, n, pos, 1); break;
	case 2: fill_int_elems(props, &tmpl, b, n, pos, 2); break;
	case 4: fill_int_elems(props, &tmpl, b, n, pos, 4); break;
	default: fill_int_elems(props, &tmpl, b, n, pos, 8); break;
	}
	c->pos += (size_t)n * sz;               /* the caller checked n * sz fits */
}

/* The value of an integer field (sz bytes read as u): kind and v. */
static void set_int(struct etl_prop *p, const struct tl_field *f, unsigned sz, uint64_t u)
{
	switch (f->in_type) {
	case ETL_IN_INT8: p->v.i = (int8_t)u; p->kind = ETL_VAL_INT; break;
	case ETL_IN_INT16: p->v.i = (int16_t)u; p->kind = ETL_VAL_INT; break;
	case ETL_IN_INT32: p->v.i = (int32_t)u; p->kind = ETL_VAL_INT; break;
	case ETL_IN_INT64: p->v.i = (int64_t)u; p->kind = ETL_VAL_INT; break;
	case ETL_IN_BOOLEAN: p->v.u = u != 0; p->kind = ETL_VAL_BOOL; break;
	default: p->v.u = u; p->kind = ETL_VAL_UINT; break;
	}
	if (f->out_type == ETL_OUT_BOOLEAN) {
		p->v.u = u != 0;
		p->kind = ETL_VAL_BOOL;
	} else if (sz == 8 && f->out_type == ETL_OUT_DATETIME) {
		p->kind = ETL_VAL_FILETIME;
	}
}

/* Field fi (scalar or array) into props[slot]. */
static int decode_field(struct tl_dec *x, uint32_t fi, uint32_t slot, uint32_t parent)
{
	const struct tl_field *f = &x->s->fields[fi];
	struct etl_prop *p;
	uint32_t n, base;
	int oom = 0;

	if (f->count_kind != TL_CCOUNT && f->count_kind != TL_VCOUNT)
		return decode_value(x, fi, slot, parent);

	p = etl__dec_prop(x->d, slot);
	p->name = f->name;
	p->in_type = f->in_type;
	p->out_type = f->out_type;
	p->parent = parent;
	p->payload_offset = (uint32_t)x->pay.pos;
	p->kind = ETL_VAL_ARRAY;
	if (f->count_kind == TL_CCOUNT) {
		n = f->ccount;
	} else {
		if (etl_cur_left(&x->pay) < 2)
			return etl__dec_fail(x->d, ETL_E_TRUNCATED,
			                     "TraceLogging field \"%s\" at payload offset %zu: element count needs 2 bytes, %zu left",
			                     f->name, x->pay.pos, etl_cur_left(&x->pay));
		n = etl_cur_u16(&x->pay);
	}
	/* Integers whose bytes are all there are decoded in one loop. */
	unsigned sz = int_size(f->in_type);     /* 0: not an integer */
	int direct = sz && n && n <= etl_cur_left(&x->pay) / sz;
	base = direct ? etl__dec_reserve_raw(x->d, n, &oom) : etl__dec_reserve(x->d, n, &oom);
	if (base == UINT32_MAX)
		return fail_limit(x, f, oom);
	p = etl__dec_prop(x->d, slot);
	p->first_child = base;
	p->n_children = n;
	if (direct) {
		decode_int_elems(x, f, sz, base, n, slot);
		return ETL_OK;
	}
	for (uint32_t i = 0; i < n; i++) {
		int rc = decode_value(x, fi, base + i, slot);
		if (rc != ETL_OK)
			return rc;
	}
	return ETL_OK;
}

/* count sibling fields starting at field first into props[base ..]. */
static int decode_fields(struct tl_dec *x, uint32_t first, uint32_t count, uint32_t base,
                         uint32_t parent)
{
	uint32_t fi = first;
	for (uint32_t k = 0; k < count; k++) {
		int rc = decode_field(x, fi, base + k, parent);
		if (rc != ETL_OK)
			return rc;
		fi = x->s->fields[fi].end;
	}
	return ETL_OK;
}

/* ---- entry points ---------------------------------------------------- */

struct tl_items {
	const uint8_t *meta, *traits;
	size_t meta_len, traits_len;
};

static int find_items(const struct etl_event *ev, struct tl_items *it)
{
	struct etl_ext_iter i;
	struct etl_ext_item item;

	memset(it, 0, sizeof *it);
	if (ev->kind != ETL_HDR_EVENT_HEADER32 && ev->kind != ETL_HDR_EVENT_HEADER64)
		return 0;
	if (!ev->ext_count || !ev->ext)
		return 0;
	etl_ext_iter_init(&i, ev);
	while (etl_ext_iter_next(&i, &item) == ETL_OK) {
		if (item.ext_type == ETL_EXT_EVENT_SCHEMA_TL && !it->meta) {
			it->meta = item.data;
			it->meta_len = item.data_size;
		} else if (item.ext_type == ETL_EXT_PROV_TRAITS && !it->traits) {
			it->traits = item.data;
			it->traits_len = item.data_size;
		}
	}
	return it->meta != NULL;
}

int etl__tl_match(const struct etl_event *ev)
{
	struct tl_items it;
	return find_items(ev, &it);
}

int etl__tl_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct etl_decoded *res = etl__dec_result(d);
	struct tl_items it;
	struct tl_schema *s;
	struct tl_dec x;
	size_t key_len;
	uint8_t *key;
	uint64_t h;

	res->source = ETL_DECODE_TRACELOGGING;
	if (!find_items(ev, &it))
		return etl__dec_fail(d, ETL_E_UNSUPPORTED, "no TraceLogging metadata in this event");

	/* Key: 'T', provider GUID, traits length (u16) and bytes, metadata. */
	key_len = 1 + 16 + 2 + it.traits_len + it.meta_len;
	key = etl__dec_scratch(d, key_len);
	if (!key)
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory for a TraceLogging schema key");
	key[0] = 'T';
	etl_put_guid(key + 1, &ev->provider);
	etl_put16(key + 17, (uint16_t)it.traits_len);
	if (it.traits_len)
		memcpy(key + 19, it.traits, it.traits_len);
	memcpy(key + 19 + it.traits_len, it.meta, it.meta_len);
	h = etl__dec_hash(key, key_len, ETL_DEC_HASH_INIT);

	s = etl__dec_cache_find(d, h, key, key_len);
	if (!s) {
		size_t cost = 0;
		s = schema_parse(it.traits, it.traits_len, it.meta, it.meta_len, &cost);
		etl__dec_count_parse(d);
		if (!s || etl__dec_cache_add(d, h, key, key_len, s, schema_free, cost) != ETL_OK)
			return etl__dec_fail(d, ETL_E_NOMEM, "out of memory for a TraceLogging schema");
	}

	res->provider_name = s->provider_name;
	res->event_name = s->event_name;
	res->tags = s->tags;
	if (s->bad_code)
		return etl__dec_fail(d, s->bad_code, "%s", s->bad_msg);

	x.d = d;
	x.s = s;
	etl_cur_init(&x.pay, ev->payload, ev->payload ? ev->payload_size : 0);
	int oom = 0;
	uint32_t base = etl__dec_reserve(d, s->n_top, &oom);
	if (base == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE,
		                     "TraceLogging event \"%s\": too many fields", s->event_name);
	return decode_fields(&x, 0, s->n_top, base, ETL_PROP_NO_PARENT);
}
