/*
 * lib/decode/tracelogging_schema.c - the schema of a TraceLogging event:
 * the provider traits (extended item PROV_TRAITS, doc/decoding.md §2.2) and
 * the event metadata (EVENT_SCHEMA_TL, §2.3-2.4) parsed into a flat list
 * of fields (lib/decode/tracelogging_schema.h), once per distinct
 * (provider GUID, traits, metadata): lib/decode/tracelogging.c caches it.
 *
 * A malformed schema is kept too, with its verdict (bad_code, bad_msg), so
 * that every event of it fails the same way without being parsed again.
 * Names are copied into one string block sized up front, invalid UTF-8
 * bytes as U+FFFD. A struct must have 1..127 members and structs nest at
 * most TL_MAX_DEPTH deep.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common/cursor.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/tracelogging_schema.h"

#define TL_MAX_DEPTH 32

/* TlgOut values (doc/decoding.md §2.6). */
enum {
	TLO_NULL = 0, TLO_NOPRINT = 1, TLO_STRING = 2, TLO_BOOLEAN = 3, TLO_HEX = 4,
	TLO_PID = 5, TLO_TID = 6, TLO_PORT = 7, TLO_IPV4 = 8, TLO_IPV6 = 9,
	TLO_SOCKETADDRESS = 10, TLO_XML = 11, TLO_JSON = 12, TLO_WIN32ERROR = 13,
	TLO_NTSTATUS = 14, TLO_HRESULT = 15, TLO_FILETIME = 16, TLO_SIGNED = 17,
	TLO_UNSIGNED = 18, TLO_DATETIME_CULTURE_INSENSITIVE = 33, TLO_UTF8 = 35,
	TLO_PKCS7_WITH_TYPE_INFO = 36, TLO_CODE_POINTER = 37, TLO_DATETIME_UTC = 38
};

void etl__tl_schema_free(void *p)
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
	size_t k = etl__dec_utf8_sanitize(p, n, out);
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

/* Tags: 1..4 bytes, 7 bits each, most significant group first (doc/decoding.md §2.3). */
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

/* TlgOut -> TDH out-type (doc/decoding.md §2.6), for a field of in-type in. */
static uint16_t map_out(unsigned in, unsigned tlo)
{
	unsigned sz = etl__tl_int_size(in);
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
		/* Unknown: decode by in-type (doc/decoding.md §2.6). */
		return map_out(in, TLO_NULL);
	}
}

/* Provider traits (doc/decoding.md §2.2): u16 size, name, then {u16 size, u8 type, data}. */
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

/* Event metadata (doc/decoding.md §2.3, §2.4). */
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

struct tl_schema *etl__tl_schema_parse(const uint8_t *traits, size_t traits_len,
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
		etl__tl_schema_free(s);
		return NULL;
	}
	*cost = sizeof *s + s->strings_cap + (size_t)s->n_fields * sizeof(struct tl_field) +
	        (s->bad_msg ? strlen(s->bad_msg) : 0);
	return s;
}
