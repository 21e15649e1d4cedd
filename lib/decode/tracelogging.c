/*
 * lib/decode/tracelogging.c - TraceLogging (self-describing) events: the
 * per-source decoder. The event's schema (provider traits and event
 * metadata, parsed by lib/decode/tracelogging_schema.c) is looked up in the
 * decoder's schema cache by (provider GUID, traits, metadata), parsed on a
 * miss; the payload is then decoded field by field (doc/decoding.md
 * §2.5-2.7) into the decoder's property array.
 *
 * Property tree layout: the children of a node are contiguous, so a node's
 * children are reserved as a block as soon as their number is known (struct
 * member count from the metadata, array element count from the metadata or
 * the payload) and filled depth-first in payload order. Top-level properties
 * occupy props[0 .. number of top-level fields).
 *
 * Choices where the format leaves room (documented for users in
 * etl_decode.h):
 *   - a NUL-terminated string that runs to the end of the payload without its
 *     NUL is taken whole (doc/decoding.md §2.7); one with no byte left is
 *     truncated;
 *   - ANSI strings are CP1252 unless the out-type is UTF8, XML or JSON, in
 *     which case invalid UTF-8 sequences become U+FFFD; unpaired UTF-16
 *     surrogates become U+FFFD;
 *   - SYSTEMTIME is converted to FILETIME (kind ETL_VAL_FILETIME); one that
 *     is not a valid date between 1601 and 30827 is kept as its 16 raw bytes
 *     (kind ETL_VAL_BINARY, in_type SYSTEMTIME);
 *   - integers with out-type BOOLEAN become ETL_VAL_BOOL, 64-bit integers
 *     with out-type FILETIME become ETL_VAL_FILETIME;
 *   - custom fields (count kind 0x60) are read as a u16 byte count and the
 *     bytes (doc/decoding.md §2.4), kind ETL_VAL_BINARY, in_type
 *     ETL_IN_BINARY;
 *   - a struct must have 1..127 members and structs nest at most 32 deep
 *     (lib/decode/tracelogging_schema.c); trailing payload bytes after the
 *     last field are ignored.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>

#include "lib/common/clock.h"
#include "lib/common/cursor.h"
#include "lib/common/ext_walk.h"
#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/tracelogging_schema.h"

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
	const char *str;
	size_t len;

	if (!etl__dec_ansi(x->d, p, n, utf8, &str, &len))
		return fail_nomem(x, f);
	struct etl_prop *pr = etl__dec_prop(x->d, slot);
	pr->v.str.s = str;
	pr->v.str.len = len;
	return ETL_OK;
}

static int decode_fields(struct tl_dec *x, uint32_t first, uint32_t count, uint32_t base,
                         uint32_t parent);
static void set_int(struct etl_prop *p, const struct tl_field *f, unsigned sz, uint64_t u);

/* One value of field fi (a scalar, an array element or a struct instance)
 * into props[slot]. */
/* A u16 byte count and that many bytes at c (left bytes remain): 0 with
 * *b and *n set and the cursor past them, else how many bytes it needs. */
static size_t take_counted(struct etl_cur *c, size_t left, const uint8_t **b, uint16_t *n)
{
	if (left < 2)
		return 2;
	*n = etl_le16(etl_cur_ptr(c));
	if (left - 2 < *n)
		return (size_t)*n + 2;
	etl_cur_skip(c, 2);
	*b = etl_cur_bytes(c, *n);
	return 0;
}

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
		uint16_t n;
		size_t need = take_counted(c, left, &b, &n);
		if (need)
			return fail_short(x, f, need);
		p->v.bin.p = b;
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
		uint16_t n;
		size_t need = take_counted(c, left, &b, &n);
		if (need)
			return fail_short(x, f, need);
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
	case ETL_IN_FLOAT: case ETL_IN_DOUBLE: case ETL_IN_GUID: case ETL_IN_FILETIME:
	case ETL_IN_SYSTEMTIME: {
		size_t need = f->in_type == ETL_IN_FLOAT ? 4 :
		              f->in_type == ETL_IN_GUID || f->in_type == ETL_IN_SYSTEMTIME ? 16 : 8;
		if (left < need)
			return fail_short(x, f, need);
		break;
	}
	default:
		break;
	}

	switch (f->in_type) {
	case ETL_IN_FLOAT:
		p->kind = ETL_VAL_FLOAT;
		p->v.f = etl_cur_f32(c);
		return ETL_OK;
	case ETL_IN_DOUBLE:
		p->kind = ETL_VAL_FLOAT;
		p->v.f = etl_cur_f64(c);
		return ETL_OK;
	case ETL_IN_GUID:
		p->kind = ETL_VAL_GUID;
		etl_cur_guid(c, &p->v.guid);
		return ETL_OK;
	case ETL_IN_FILETIME:
		p->kind = ETL_VAL_FILETIME;
		p->v.i = etl_cur_i64(c);
		return ETL_OK;
	case ETL_IN_SYSTEMTIME:
		b = etl_cur_bytes(c, 16);
		if (etl__systemtime_to_filetime(b, &p->v.i)) {
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
	sz = etl__tl_int_size(f->in_type);
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
	etl__dec_fill_ints(props, &tmpl, etl_cur_ptr(c), n, (uint32_t)c->pos, sz);
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
	/* Integers whose bytes are all there are decoded in one loop, or
	 * kept as their bytes and element 0 (ETL_DECODE_PACKED_ARRAYS). */
	unsigned sz = etl__tl_int_size(f->in_type);     /* 0: not an integer */
	int direct = sz && n && n <= etl_cur_left(&x->pay) / sz;
	int packed = direct && (etl__dec_flags(x->d) & ETL_DECODE_PACKED_ARRAYS);
	base = direct ? etl__dec_reserve_raw(x->d, packed ? 1 : n, &oom) : etl__dec_reserve(x->d, n, &oom);
	if (base == UINT32_MAX)
		return fail_limit(x, f, oom);
	p = etl__dec_prop(x->d, slot);
	p->first_child = base;
	p->n_children = n;
	if (packed) {
		p->kind = ETL_VAL_ARRAY_PACKED;
		p->v.bin.p = etl_cur_ptr(&x->pay);
		p->v.bin.len = (size_t)n * sz;
		decode_int_elems(x, f, sz, base, 1, slot);
		x->pay.pos += (size_t)(n - 1) * sz;     /* n * sz fits (direct) */
		return ETL_OK;
	}
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
	struct etl__ext_walk w = { 0, 0 };
	struct etl_ext_item item;

	memset(it, 0, sizeof *it);
	if (ev->kind != ETL_HDR_EVENT_HEADER32 && ev->kind != ETL_HDR_EVENT_HEADER64)
		return 0;
	if (!ev->ext_count || !ev->ext)
		return 0;
	while (etl__ext_walk_next(ev, &w, &item)) {
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

/* What the last etl__tl_match() found, for the etl__tl_decode() the
 * dispatcher (lib/decode/decoder.c) calls right after a match with the same
 * event, so that the item chain is walked once; used once. */
static _Thread_local struct {
	const struct etl_event *ev;
	struct tl_items it;
} last_match;

int etl__tl_match(const struct etl_event *ev)
{
	int found = find_items(ev, &last_match.it);
	last_match.ev = found ? ev : NULL;
	return found;
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
	if (last_match.ev == ev) {
		it = last_match.it;
		last_match.ev = NULL;
	} else if (!find_items(ev, &it)) {
		return etl__dec_fail(d, ETL_E_UNSUPPORTED, "no TraceLogging metadata in this event");
	}

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
		s = etl__tl_schema_parse(it.traits, it.traits_len, it.meta, it.meta_len, &cost);
		etl__dec_count_parse(d);
		if (!s || etl__dec_cache_add(d, h, key, key_len, s, etl__tl_schema_free, cost) != ETL_OK)
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
	int rc = decode_fields(&x, 0, s->n_top, base, ETL_PROP_NO_PARENT);
	if (rc == ETL_OK)
		etl__dec_set_names_stable(d);   /* every name is in the cached schema */
	return rc;
}
