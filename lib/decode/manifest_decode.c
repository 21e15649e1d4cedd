/*
 * lib/decode/manifest_decode.c - the per-source decoder of instrumentation-
 * manifest events (doc/decoding.md §3): the event's definition is looked up
 * in the decoder's manifest set (lib/decode/manifest_set.c, filled by
 * lib/decode/manifest_load.c), its template walked over the payload into
 * properties, its names and message (lib/decode/manifest_message.c) set.
 *
 * Integer fields without a map take a fast path (dec_fast()) whose
 * decoding was worked out at load; everything else goes through
 * dec_value(). Properties of a struct or array are reserved as one block
 * as soon as their number is known.
 *
 * Choices (documented for users in etl_decode.h):
 *   - match(): every EVENT_HEADER event without an EVENT_SCHEMA_TL item goes
 *     to this decoder; one whose provider has no loaded manifest fails with
 *     the dispatcher's "no schema for this event" message (ETL_E_UNSUPPORTED);
 *   - an event whose (provider, id) is defined but not its version uses the
 *     highest defined version below it (newer versions append fields, as
 *     doc/decoding.md §4.2 notes for kernel classes: newer builds append
 *     fields, so readers accept longer payloads); the payload bytes
 *     that template does not read (the appended fields) become a last
 *     top-level binary property "ExtraData". With an exact version match
 *     trailing payload bytes are ignored;
 *   - the first definition of a (provider, id, version) loaded wins;
 *   - names: task/opcode/level/channel names are what RenderingInfo
 *     shows, "the rendered message string" of each (EventSchema
 *     RenderingInfoType): the element's message when the manifest gives
 *     one, winmeta's text for predefined values ("Information" for
 *     win:Informational, "Info" for win:Info, ...), else the name
 *     attribute; event_name is the event symbol, else "Task/Opcode" (or
 *     Task) by name; keywords_name lists the provider keywords whose mask
 *     bits are all set in the event's keyword (each by its message, or its
 *     name when it has none or the message holds a space), else the
 *     event's keywords attribute;
 *   - strings: UnicodeString UTF-16LE, AnsiString Latin-1 (UTF-8 when the
 *     out-type is win:Utf8/Xml/Json, invalid bytes as U+FFFD); with
 *     length= the string is that many characters, cut at the first NUL;
 *     without, NUL-terminated (one running to the payload's end is taken
 *     whole; one with no byte left is a truncation);
 *   - SYSTEMTIME is converted to FILETIME as TraceLogging's is; one that
 *     is no date in 1601..30827 is kept as its 16 raw bytes (ETL_VAL_BINARY).
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common/clock.h"
#include "lib/common/cursor.h"
#include "lib/common/ext_walk.h"
#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/manifest_internal.h"

#define MF_MAX_MAP_TEXT     4096u  /* the names of a bitmap value     */

/* ---- payload --------------------------------------------------------- */

struct mdec {
	etl_decoder *d;
	const struct etl_event *ev;
	struct etl_cur c;
	const uint64_t *top_vals;
	const char *fail_field;
};

static int str_out_utf8(uint16_t out)
{
	return out == ETL_OUT_UTF8 || out == ETL_OUT_XML || out == ETL_OUT_JSON;
}

/* 8-bit string to UTF-8: Latin-1, or UTF-8 with invalid bytes as U+FFFD. */
static char *ansi_to_utf8(etl_decoder *d, const uint8_t *p, size_t n, int utf8, size_t *out_len)
{
	if (n > SIZE_MAX / 3)
		return NULL;
	char *o = etl__dec_alloc(d, n * 3 + 1);
	size_t k = 0;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n;) {
		uint8_t b = p[i];
		if (b < 0x80) {
			o[k++] = (char)b;
			i++;
		} else if (!utf8) {
			o[k++] = (char)(0xC0 | (b >> 6));
			o[k++] = (char)(0x80 | (b & 0x3F));
			i++;
		} else {
			size_t need = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
			int ok = need && i + need <= n;
			for (size_t j = 1; ok && j < need; j++)
				ok = (p[i + j] & 0xC0) == 0x80;
			if (ok && need == 3 && ((b == 0xE0 && p[i + 1] < 0xA0) || (b == 0xED && p[i + 1] >= 0xA0)))
				ok = 0;
			if (ok && need == 4 && ((b == 0xF0 && p[i + 1] < 0x90) || (b == 0xF4 && p[i + 1] >= 0x90)))
				ok = 0;
			if (ok) {
				memcpy(o + k, p + i, need);
				k += need;
				i += need;
			} else {
				memcpy(o + k, "\xEF\xBF\xBD", 3);
				k += 3;
				i++;
			}
		}
	}
	o[k] = 0;
	*out_len = k;
	return o;
}

static int fail_trunc(struct mdec *x, const char *name, size_t off)
{
	return etl__dec_fail(x->d, ETL_E_TRUNCATED, "payload too short for field \"%s\" at offset %zu (payload %u bytes)",
	                     name, off, (unsigned)x->ev->payload_size);
}

/* Converted text s (ul bytes; NULL: out of memory) as pv's value, the
 * cursor past the nb payload bytes it came from. ETL_OK or the failure. */
static int put_text(struct mdec *x, struct etl_prop *pv, char *s, size_t ul, struct etl_cur *c,
                    size_t nb)
{
	if (!s)
		return etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory");
	etl_cur_skip(c, nb);
	pv->kind = ETL_VAL_STRING;
	pv->v.str.s = s;
	pv->v.str.len = ul;
	return ETL_OK;
}

/* A counted string's u16 byte count (big-endian for the reverse-counted
 * strings of MOF schemas) and where its bytes start: 0, or -1 when the
 * count or the bytes run past the payload. */
static int counted_bytes(struct etl_cur *c, const uint8_t **p, size_t *nb, int big_endian)
{
	if (!etl_cur_need(c, 2))
		return -1;
	*nb = etl_cur_u16(c);
	if (big_endian)
		*nb = (*nb >> 8 | *nb << 8) & 0xFFFFu;
	*p = etl_cur_ptr(c);
	return *nb > etl_cur_left(c) ? -1 : 0;
}

static int ref_value(const struct mf_ref *r, const uint64_t *vals, const uint64_t *top, uint64_t *out)
{
	switch (r->kind) {
	case 1: *out = r->v; return 1;
	case 2: *out = vals[r->v]; return 1;
	case 3: *out = top[r->v]; return 1;
	default: return 0;
	}
}

static int dec_fields(struct mdec *x, const struct mf_field *f, size_t n, uint32_t first, uint32_t parent,
                      uint64_t *vals);

/* Decodes one value of field f into props[idx]; *val gets its integer
 * value (for count/length references). */
static int dec_value(struct mdec *x, const struct mf_field *f, uint32_t idx, uint32_t parent,
                     int has_len, uint64_t len, uint64_t *val)
{
	struct etl_cur *c = &x->c;
	size_t off = c->pos;
	struct etl_prop pv;
	int oom = 0;

	memset(&pv, 0, sizeof pv);
	pv.name = f->name;
	pv.in_type = f->in_type;
	pv.out_type = f->out_type;
	pv.parent = parent;
	pv.payload_offset = (uint32_t)off;
	*val = 0;

	if (f->is_struct) {
		uint32_t fc = f->n_members ? etl__dec_reserve_raw(x->d, (uint32_t)f->n_members, &oom) : 0;
		if (fc == UINT32_MAX)
			return oom ? etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory decoding \"%s\"", f->name)
			           : etl__dec_fail(x->d, ETL_E_BAD_SIZE, "too many properties at \"%s\"", f->name);
		pv.kind = ETL_VAL_STRUCT;
		pv.first_child = fc;
		pv.n_children = (uint32_t)f->n_members;
		*etl__dec_prop(x->d, idx) = pv;
		uint64_t *mv = calloc(f->n_members ? f->n_members : 1, sizeof *mv);
		if (!mv)
			return etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory decoding \"%s\"", f->name);
		int rc = dec_fields(x, f->members, f->n_members, fc, idx, mv);
		free(mv);
		return rc;
	}

	/* The values of one fixed width: that many bytes or the payload is
	 * short. */
	size_t fixed = f->in_type == ETL_IN_FLOAT ? 4 : f->in_type == ETL_IN_DOUBLE ? 8 :
	               f->in_type == ETL_IN_GUID || f->in_type == ETL_IN_SYSTEMTIME ? 16 : 0;
	if (fixed && !etl_cur_need(c, fixed))
		return fail_trunc(x, f->name, off);
	switch (f->in_type) {
	case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_INT16: case ETL_IN_UINT16:
	case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_INT64: case ETL_IN_UINT64:
	case ETL_IN_HEXINT32: case ETL_IN_HEXINT64: case ETL_IN_POINTER: case ETL_IN_BOOLEAN:
	case ETL_IN_FILETIME: case MF_IN_SIZET: {
		unsigned sz;
		switch (f->in_type) {
		case ETL_IN_INT8: case ETL_IN_UINT8: sz = 1; break;
		case ETL_IN_INT16: case ETL_IN_UINT16: sz = 2; break;
		case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_BOOLEAN: sz = 4; break;
		case ETL_IN_POINTER: case MF_IN_SIZET: sz = x->ev->ptr_size == 4 ? 4 : 8; break;
		default: sz = 8; break;
		}
		if (f->in_type == MF_IN_SIZET)
			pv.in_type = sz == 4 ? ETL_IN_UINT32 : ETL_IN_UINT64;
		if (!etl_cur_need(c, sz))
			return fail_trunc(x, f->name, off);
		uint64_t u = sz == 1 ? etl_cur_u8(c) : sz == 2 ? etl_cur_u16(c) : sz == 4 ? etl_cur_u32(c) : etl_cur_u64(c);
		*val = u;
		int is_signed = f->in_type == ETL_IN_INT8 || f->in_type == ETL_IN_INT16 ||
		                f->in_type == ETL_IN_INT32 || f->in_type == ETL_IN_INT64;
		if (f->in_type == ETL_IN_BOOLEAN || f->out_type == ETL_OUT_BOOLEAN) {
			pv.kind = ETL_VAL_BOOL;
			pv.v.u = u != 0;
		} else if (f->in_type == ETL_IN_FILETIME ||
		           (sz == 8 && f->out_type == ETL_OUT_DATETIME)) {
			pv.kind = ETL_VAL_FILETIME;
			pv.v.i = (int64_t)u;
		} else if (is_signed) {
			int64_t i = sz == 1 ? (int8_t)u : sz == 2 ? (int16_t)u : sz == 4 ? (int32_t)u : (int64_t)u;
			pv.kind = ETL_VAL_INT;
			pv.v.i = i;
		} else {
			pv.kind = ETL_VAL_UINT;
			pv.v.u = u;
		}
		if (f->map) {
			const struct mf_map *m = f->map;
			if (!m->is_bitmap) {
				for (size_t k = 0; k < m->n; k++)
					if (m->e[k].value == u) {
						pv.map_name = m->e[k].message;
						break;
					}
			} else {
				char buf[MF_MAX_MAP_TEXT];
				size_t bl = 0;
				for (size_t k = 0; k < m->n; k++) {
					uint64_t mv = m->e[k].value;
					if (!mv || (u & mv) != mv || !m->e[k].message)
						continue;
					size_t ml = strlen(m->e[k].message);
					if (bl + ml + 2 >= sizeof buf)
						break;
					if (bl)
						buf[bl++] = '|';
					memcpy(buf + bl, m->e[k].message, ml);
					bl += ml;
				}
				if (bl) {
					char *s = etl__dec_alloc(x->d, bl + 1);
					if (!s)
						return etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory");
					memcpy(s, buf, bl);
					s[bl] = 0;
					pv.map_name = s;
				}
			}
		}
		break;
	}
	case ETL_IN_FLOAT:
		pv.kind = ETL_VAL_FLOAT;
		pv.v.f = etl_cur_f32(c);
		break;
	case ETL_IN_DOUBLE:
		pv.kind = ETL_VAL_FLOAT;
		pv.v.f = etl_cur_f64(c);
		break;
	case ETL_IN_GUID:
		etl_cur_guid(c, &pv.v.guid);
		pv.kind = ETL_VAL_GUID;
		break;
	case ETL_IN_SYSTEMTIME:
	{
		/* A date, as TraceLogging's; one that is no date its 16 bytes. */
		const uint8_t *st = etl_cur_bytes(c, 16);
		int64_t ft;
		if (etl__systemtime_to_filetime(st, &ft)) {
			pv.kind = ETL_VAL_FILETIME;
			pv.v.i = ft;
		} else {
			pv.kind = ETL_VAL_BINARY;
			pv.v.bin.p = st;
			pv.v.bin.len = 16;
		}
		break;
	}
	case ETL_IN_SID: {
		if (!etl_cur_need(c, 8))
			return fail_trunc(x, f->name, off);
		size_t n = 8 + 4u * etl_cur_ptr(c)[1];
		if (!etl_cur_need(c, n))
			return fail_trunc(x, f->name, off);
		pv.kind = ETL_VAL_SID;
		pv.v.bin.p = etl_cur_bytes(c, n);
		pv.v.bin.len = n;
		break;
	}
	case MF_IN_WBEMSID: {
		size_t skip, n;
		if (etl__mof_wbemsid(etl_cur_ptr(c), etl_cur_left(c), x->ev->ptr_size == 4 ? 4 : 8, &skip, &n))
			return fail_trunc(x, f->name, off);
		etl_cur_skip(c, skip);
		pv.in_type = ETL_IN_SID;
		pv.kind = n ? ETL_VAL_SID : ETL_VAL_NULL;
		if (n) {
			pv.v.bin.p = etl_cur_bytes(c, n);
			pv.v.bin.len = n;
		}
		break;
	}
	case ETL_IN_BINARY: case ETL_IN_COUNTEDBINARY: {
		uint64_t n;
		if (f->in_type == ETL_IN_COUNTEDBINARY) {
			if (!etl_cur_need(c, 2))
				return fail_trunc(x, f->name, off);
			n = etl_cur_u16(c);
		} else if (has_len) {
			n = len;
		} else if (f->out_type == ETL_OUT_IPV6) {
			n = 16;
		} else {
			return etl__dec_fail(x->d, ETL_E_BAD_VALUE, "binary field \"%s\" has no length", f->name);
		}
		if (n > etl_cur_left(c))
			return fail_trunc(x, f->name, off);
		pv.kind = ETL_VAL_BINARY;
		pv.v.bin.p = etl_cur_bytes(c, (size_t)n);
		pv.v.bin.len = (size_t)n;
		if (!pv.out_type)
			pv.out_type = ETL_OUT_HEXBINARY;
		break;
	}
	case ETL_IN_UNICODESTRING: case ETL_IN_COUNTEDSTRING: case MF_IN_RCOUNTED_STRING:
	case MF_IN_REST_STRING: {
		const uint8_t *p = etl_cur_ptr(c);
		size_t nb, take;
		int cut = 1;                    /* take may still hold a NUL */
		pv.in_type = ETL_IN_UNICODESTRING;
		if (f->in_type == ETL_IN_COUNTEDSTRING || f->in_type == MF_IN_RCOUNTED_STRING) {
			if (counted_bytes(c, &p, &nb, f->in_type == MF_IN_RCOUNTED_STRING) != 0)
				return fail_trunc(x, f->name, off);
			take = nb;
			pv.in_type = (uint16_t)(f->in_type == ETL_IN_COUNTEDSTRING ? ETL_IN_COUNTEDSTRING : pv.in_type);
		} else if (f->in_type == MF_IN_REST_STRING) {
			nb = take = etl_cur_left(c);
		} else if (has_len) {
			if (len > etl_cur_left(c) / 2)
				return fail_trunc(x, f->name, off);
			nb = (size_t)len * 2;
			take = nb;
		} else {
			cut = 0;                /* take ends at the first NUL */
			size_t left = etl_cur_left(c);
			if (left == 0)
				return fail_trunc(x, f->name, off);
			take = etl__utf16_nul(p, left);
			nb = take + 2 <= left ? take + 2 : take;    /* with its NUL */
			if (nb == 0 && left == 1)
				nb = 1;
		}
		for (size_t i = 0; cut && i + 1 < take; i += 2)      /* cut at a NUL */
			if (p[i] == 0 && p[i + 1] == 0) {
				take = i;
				break;
			}
		size_t ul;
		char *s = etl__dec_utf16(x->d, p, take, &ul);
		int rc = put_text(x, &pv, s, ul, c, nb);
		if (rc != ETL_OK)
			return rc;
		break;
	}
	case ETL_IN_ANSISTRING: case ETL_IN_COUNTEDANSISTRING: case MF_IN_RCOUNTED_ANSISTRING:
	case MF_IN_REST_ANSISTRING: {
		const uint8_t *p = etl_cur_ptr(c);
		size_t nb, take;
		pv.in_type = ETL_IN_ANSISTRING;
		if (f->in_type == ETL_IN_COUNTEDANSISTRING || f->in_type == MF_IN_RCOUNTED_ANSISTRING) {
			if (counted_bytes(c, &p, &nb, f->in_type == MF_IN_RCOUNTED_ANSISTRING) != 0)
				return fail_trunc(x, f->name, off);
			take = nb;
			pv.in_type = (uint16_t)(f->in_type == ETL_IN_COUNTEDANSISTRING ? ETL_IN_COUNTEDANSISTRING : pv.in_type);
		} else if (f->in_type == MF_IN_REST_ANSISTRING) {
			nb = take = etl_cur_left(c);
		} else if (has_len) {
			if (len > etl_cur_left(c))
				return fail_trunc(x, f->name, off);
			nb = take = (size_t)len;
		} else {
			size_t left = etl_cur_left(c);
			if (left == 0)
				return fail_trunc(x, f->name, off);
			const uint8_t *z = memchr(p, 0, left);
			take = z ? (size_t)(z - p) : left;
			nb = z ? take + 1 : left;
		}
		const uint8_t *z = memchr(p, 0, take);
		if (z)
			take = (size_t)(z - p);
		size_t ul;
		char *s = ansi_to_utf8(x->d, p, take, str_out_utf8(f->out_type), &ul);
		int rc = put_text(x, &pv, s, ul, c, nb);
		if (rc != ETL_OK)
			return rc;
		break;
	}
	default:
		return etl__dec_fail(x->d, ETL_E_UNSUPPORTED, "field \"%s\": in-type %u not supported",
		                     f->name, (unsigned)f->in_type);
	}
	*etl__dec_prop(x->d, idx) = pv;
	return ETL_OK;
}

/* Bytes of one value of the integer field fi (fi->fast): its type's, or
 * the event's pointer size for pointers (fast_size 0). */
static inline unsigned fast_size(const struct mdec *x, const struct mf_field *fi)
{
	return fi->fast_size ? fi->fast_size : x->ev->ptr_size == 4 ? 4 : 8;
}

/* An integer field without a map (fi->fast), exactly as dec_value()
 * decodes it, into props[idx]; *val gets the value. */
static inline int dec_fast(struct mdec *x, const struct mf_field *fi, uint32_t idx, uint32_t parent,
                           uint64_t *val)
{
	struct etl_cur *c = &x->c;
	size_t off = c->pos;
	unsigned sz = fast_size(x, fi);
	if (c->err || sz > c->len - c->pos)
		return fail_trunc(x, fi->name, off);
	const uint8_t *q = c->p + off;
	uint64_t u = etl_le_uint(q, sz);
	c->pos += sz;
	*val = u;
	if (fi->fast_kind == ETL_VAL_BOOL)
		u = u != 0;
	else if (fi->fast_kind == ETL_VAL_INT)        /* sign-extended */
		u = etl_sign_extend(u, sz);
	/* UINT, FILETIME (v.i, the same bits): as it is. */
	etl__dec_put_scalar(x->d, idx, fi->name, fi->fast_kind, fi->in_type, fi->out_type, u, parent,
	                    (uint32_t)off);
	return ETL_OK;
}

/* n elements of the integer field fi (fi->fast) into props[fc ..] at once,
 * as dec_fast() decodes each, when their bytes are all in the payload:
 * 1, or 0 (nothing done) when they are not. */
static int fill_fast(struct mdec *x, const struct mf_field *fi, uint32_t fc, uint32_t n, uint32_t parent)
{
	struct etl_cur *c = &x->c;
	unsigned sz = fast_size(x, fi);
	if (c->err || n > (c->len - c->pos) / sz)
		return 0;
	struct etl_prop tmpl;
	memset(&tmpl, 0, sizeof tmpl);
	tmpl.name = fi->name;
	tmpl.kind = fi->fast_kind;
	tmpl.in_type = fi->in_type;
	tmpl.out_type = fi->out_type;
	tmpl.parent = parent;
	etl__dec_fill_ints(etl__dec_prop(x->d, fc), &tmpl, c->p + c->pos, n, (uint32_t)c->pos, sz);
	c->pos += (size_t)n * sz;
	return 1;
}

static int dec_fields(struct mdec *x, const struct mf_field *f, size_t n, uint32_t first, uint32_t parent,
                      uint64_t *vals)
{
	for (size_t i = 0; i < n; i++) {
		const struct mf_field *fi = &f[i];
		uint32_t idx = first + (uint32_t)i;
		int rc;
		if (fi->fast && !fi->map && !fi->count.kind) {
			/* An integer (a length= is of no use to it). */
			rc = dec_fast(x, fi, idx, parent, &vals[i]);
			if (rc != ETL_OK)
				return rc;
			continue;
		}
		uint64_t len = 0, cnt = 0;
		int has_len = ref_value(&fi->length, vals, x->top_vals, &len);
		int has_cnt = ref_value(&fi->count, vals, x->top_vals, &cnt);
		/* A struct with length= is as many bytes; decode its members
		 * from a bounded sub-cursor. Not needed by known manifests:
		 * the length of a struct is ignored. */
		if (fi->is_struct)
			has_len = 0;
		if (!has_cnt && fi->fast && !fi->map) {
			rc = dec_fast(x, fi, idx, parent, &vals[i]);
			if (rc != ETL_OK)
				return rc;
			continue;
		}
		if (!has_cnt) {
			rc = dec_value(x, fi, idx, parent, has_len, len, &vals[i]);
			if (rc != ETL_OK)
				return rc;
			continue;
		}
		/* Array: cnt elements; every element takes at least one byte
		 * unless it is a struct, whose count is bounded by the prop cap. */
		if (!fi->is_struct && cnt > etl_cur_left(&x->c))
			return fail_trunc(x, fi->name, x->c.pos);
		if (cnt > ETL_DEC_MAX_PROPS)
			return etl__dec_fail(x->d, ETL_E_BAD_SIZE, "array \"%s\" has %llu elements at offset %zu",
			                     fi->name, (unsigned long long)cnt, x->c.pos);
		/* Integers whose bytes are all there: kept as their bytes and
		 * element 0 with ETL_DECODE_PACKED_ARRAYS (stacks and IL maps
		 * hold dozens to thousands per event). */
		const int fast = fi->fast && !fi->map && cnt;
		const unsigned esz = fast_size(x, fi);
		const int packed = fast && (etl__dec_flags(x->d) & ETL_DECODE_PACKED_ARRAYS) && !x->c.err &&
		                   cnt <= (x->c.len - x->c.pos) / esz;
		int oom = 0;
		uint32_t fc = cnt ? etl__dec_reserve_raw(x->d, packed ? 1u : (uint32_t)cnt, &oom) : 0;
		if (fc == UINT32_MAX)
			return oom ? etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory decoding \"%s\"", fi->name)
			           : etl__dec_fail(x->d, ETL_E_BAD_SIZE, "too many properties at \"%s\"", fi->name);
		struct etl_prop *ap = etl__dec_prop(x->d, idx);
		memset(ap, 0, sizeof *ap);
		ap->name = fi->name;
		ap->kind = ETL_VAL_ARRAY;
		ap->in_type = fi->in_type;
		ap->out_type = fi->out_type;
		ap->parent = parent;
		ap->first_child = fc;
		ap->n_children = (uint32_t)cnt;
		ap->payload_offset = (uint32_t)x->c.pos;
		vals[i] = 0;
		if (packed) {
			ap->kind = ETL_VAL_ARRAY_PACKED;
			ap->v.bin.p = x->c.p + x->c.pos;
			ap->v.bin.len = (size_t)cnt * esz;
			fill_fast(x, fi, fc, 1, idx);   /* element 0 */
			x->c.pos += (size_t)(cnt - 1) * esz;
			continue;
		}
		if (fast && fill_fast(x, fi, fc, (uint32_t)cnt, idx))
			continue;               /* integers, all there */
		for (uint64_t k = 0; k < cnt; k++) {
			uint64_t dummy;
			if (fi->fast && !fi->map)
				rc = dec_fast(x, fi, fc + (uint32_t)k, idx, &dummy);
			else
				rc = dec_value(x, fi, fc + (uint32_t)k, idx, has_len, len, &dummy);
			if (rc != ETL_OK)
				return rc;
		}
	}
	return ETL_OK;
}

/* ---- the per-source decoder ------------------------------------------ */

int etl__mf_match(const struct etl_event *ev)
{
	if (ev->kind != ETL_HDR_EVENT_HEADER32 && ev->kind != ETL_HDR_EVENT_HEADER64)
		return 0;
	return !etl__ext_has(ev, ETL_EXT_EVENT_SCHEMA_TL);
}

/* Version fallback (an older version's template decoded a newer event):
 * the payload bytes the template did not read are the fields the newer
 * version appended. They become one last top-level ETL_VAL_BINARY property
 * "ExtraData" (as in lib/decode/mof.c), not silently dropped. */
static int add_extra_data(etl_decoder *d, const struct etl_cur *c)
{
	size_t left = etl_cur_left(c);
	if (!left)
		return ETL_OK;
	int oom = 0;
	uint32_t idx = etl__dec_reserve(d, 1, &oom);
	if (idx == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, "cannot reserve the ExtraData property");
	etl__dec_put_extra(d, idx, c);
	return ETL_OK;
}

/* Appends len bytes of s to a text of n bytes at out unless the text would
 * exceed MF_MAX_MESSAGE (as etl__msg_add() drops such a piece), writing
 * them only as far as they fit in lim bytes. Returns the new length. */
static size_t put_piece(char *out, size_t lim, size_t n, const char *s, size_t len)
{
	if (len > MF_MAX_MESSAGE - n)
		return n;
	if (n + len <= lim)
		memcpy(out + n, s, len);
	return n + len;
}

/* The names of the provider keywords whose mask bits are all set in kw,
 * joined with spaces, written at out as far as they fit in lim bytes;
 * returns the whole length (so a caller whose buffer was too small can
 * call again with one large enough). */
static size_t keyword_names(const struct mf_provider *pv, uint64_t kw, char *out, size_t lim)
{
	size_t n = 0;
	for (size_t i = 0; i < pv->n_keywords; i++) {
		const struct mf_named *k = &pv->keywords[i];
		if (!k->value || !k->name || (kw & k->value) != k->value)
			continue;
		if (n)
			n = put_piece(out, lim, n, " ", 1);
		/* The list is space-separated (etl_decoded.keywords_name): a
		 * message holding a space would read as several keywords, so
		 * such a keyword is listed by its name. */
		const char *text = k->message && !strchr(k->message, ' ') ? k->message : k->name;
		n = put_piece(out, lim, n, text, strlen(text));
	}
	return n;
}

/* A last top-level field that is an array of a literal count of integers
 * or pointers, read with the event's exact version, takes the whole
 * elements the payload has left after it: CLRStackWalk's Stack is
 * declared count="2" but holds FrameCount frames (doc/decoding.md §10.6).
 * The elements join the array's block, which is the last one reserved. */
static int extend_last_array(struct mdec *x, const struct mf_template *t, uint32_t first)
{
	const struct mf_field *f = &t->fields[t->n_fields - 1];
	if (f->count.kind != 1 || f->is_struct || !f->fast || f->map)
		return ETL_OK;
	unsigned sz = fast_size(x, f);
	size_t left = etl_cur_left(&x->c);
	uint32_t idx = first + (uint32_t)t->n_fields - 1;
	struct etl_prop *ap = etl__dec_prop(x->d, idx);
	if (!left || left % sz || left / sz > ETL_DEC_MAX_PROPS)
		return ETL_OK;
	uint32_t more = (uint32_t)(left / sz);
	if (ap->kind == ETL_VAL_ARRAY_PACKED) {
		/* its bytes end where the payload's left ones begin */
		if ((uint64_t)ap->n_children + more > ETL_DEC_MAX_PROPS)
			return ETL_OK;
		ap->n_children += more;
		ap->v.bin.len += left;
		x->c.pos += left;
		return ETL_OK;
	}
	if (ap->kind != ETL_VAL_ARRAY)
		return ETL_OK;
	int oom = 0;
	uint32_t fc = etl__dec_reserve_raw(x->d, more, &oom);
	if (fc == UINT32_MAX)
		return oom ? etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory decoding \"%s\"", f->name)
		           : etl__dec_fail(x->d, ETL_E_BAD_SIZE, "too many properties at \"%s\"", f->name);
	ap = etl__dec_prop(x->d, idx);
	if (!ap->n_children)
		ap->first_child = fc;
	else if (fc != ap->first_child + ap->n_children)
		return etl__dec_fail(x->d, ETL_E_BAD_VALUE, "array \"%s\" cannot grow", f->name);
	ap->n_children += more;
	fill_fast(x, f, fc, more, idx);         /* left % sz == 0: all there */
	return ETL_OK;
}

int etl__mf_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct mf_set *s = etl__mf_set_get(d, 0);
	const struct mf_event *e = NULL;
	int prov_known = 0, source = ETL_DECODE_MANIFEST;

	struct mf_memo *memo = NULL;
	if (s)
		e = etl__mf_find_event(s, ev, &prov_known, &memo);
	if (!e || e->version != ev->version) {
		/* The trace's own schema (its EventMetadata records) for an
		 * event no manifest defines, or defines only in an older
		 * version. */
		struct mf_set *ms = etl__mf_meta_set_get(d, 0);
		struct mf_memo *mm = NULL;
		const struct mf_event *me = ms ? etl__mf_find_event(ms, ev, &prov_known, &mm) : NULL;
		if (me && (!e || me->version == ev->version)) {
			s = ms;
			e = me;
			memo = mm;
			source = ETL_DECODE_EVENT_METADATA;
		}
	}
	if (!e)
		return etl__dec_fail_noschema(d, ev);
	return etl__mf_decode_event(d, ev, s, e, memo, source);
}

int etl__mf_decode_event(etl_decoder *d, const struct etl_event *ev, struct mf_set *s,
                         const struct mf_event *e, struct mf_memo *memo, int source)
{
	struct etl_decoded *res = etl__dec_result(d);
	res->source = source;
	res->provider_name = e->prov->name;
	res->task_name = e->task_text;
	res->opcode_name = e->opcode_text;
	res->level_name = e->level_text;
	res->channel_name = e->channel_text;
	int arena_names = 0;            /* a name in per-event storage */
	if (e->symbol) {
		res->event_name = e->symbol;
	} else if (e->task && e->opcode) {
		if (memo->ev_name) {
			res->event_name = memo->ev_name;
		} else {
			size_t n = strlen(e->task) + strlen(e->opcode) + 2;
			int keep = s->memo_names < MF_MEMO_NAMES_MAX;
			char *t = keep ? etl__mf_pool_alloc(s, n) : etl__dec_alloc(d, n);
			if (!t)
				return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
			snprintf(t, n, "%s/%s", e->task, e->opcode);
			res->event_name = t;
			if (keep) {
				s->memo_names++;
				memo->ev_name = t;
			} else {
				arena_names = 1;
			}
		}
	} else {
		res->event_name = e->task;
	}
	/* Keyword names from the event's keyword mask (the memo's when the
	 * mask is the last one of this kind of event): in one pass into a
	 * local buffer, or measured first when they do not fit. */
	if (memo->kw_set && memo->kw == ev->keyword) {
		res->keywords_name = memo->kw_names ? memo->kw_names : e->keywords;
	} else {
		char kbuf[512];
		size_t kn = keyword_names(e->prov, ev->keyword, kbuf, sizeof kbuf);
		int keep = s->memo_names < MF_MEMO_NAMES_MAX;
		if (kn) {
			char *t = keep ? etl__mf_pool_alloc(s, kn + 1) : etl__dec_alloc(d, kn + 1);
			if (!t)
				return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
			if (kn <= sizeof kbuf)
				memcpy(t, kbuf, kn);
			else
				keyword_names(e->prov, ev->keyword, t, kn);
			t[kn] = 0;
			res->keywords_name = t;
			if (keep)
				s->memo_names++;
			else
				arena_names = 1;
			memo->kw_names = keep ? t : NULL;
		} else {
			res->keywords_name = e->keywords;
			memo->kw_names = NULL;
		}
		memo->kw_set = keep || !kn;
		memo->kw = ev->keyword;
	}

	struct mdec x;
	memset(&x, 0, sizeof x);
	x.d = d;
	x.ev = ev;
	/* An event without payload bytes may have no payload pointer: the
	 * cursor gets an empty one, so no offset is ever added to NULL. */
	static const uint8_t no_payload[1];
	etl_cur_init(&x.c, ev->payload ? ev->payload : no_payload, ev->payload ? ev->payload_size : 0);
	uint32_t n_top = 0;
	if (e->tmpl && e->tmpl->n_fields) {
		int oom = 0;
		n_top = (uint32_t)e->tmpl->n_fields;
		uint32_t first = etl__dec_reserve_raw(d, n_top, &oom);
		if (first == UINT32_MAX)
			return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, "cannot reserve %u properties", n_top);
		/* Field values for count= / length= references: on the stack
		 * for the usual templates, allocated for very long ones. */
		uint64_t stack_vals[64];
		uint64_t *vals = stack_vals;
		if (n_top <= sizeof stack_vals / sizeof stack_vals[0])
			memset(stack_vals, 0, n_top * sizeof *vals);
		else if (!(vals = calloc(n_top, sizeof *vals)))
			return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
		x.top_vals = vals;
		int rc = dec_fields(&x, e->tmpl->fields, n_top, first, ETL_PROP_NO_PARENT, vals);
		if (vals != stack_vals)
			free(vals);
		if (rc == ETL_OK && e->version == ev->version && etl_cur_left(&x.c))
			rc = extend_last_array(&x, e->tmpl, first);
		if (rc != ETL_OK)
			return rc;
	}
	if (e->version != ev->version) {
		int rc = add_extra_data(d, &x.c);
		if (rc != ETL_OK)
			return rc;
	}
	if (e->msg && !etl__mf_msg_render(d, s, e, &res->message))
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory rendering the message");
	/* Names from the set's pool (kept until the set is freed): the
	 * provider, task, opcode, level, channel, keyword and field names. */
	if (!arena_names)
		etl__dec_set_names_stable(d);
	return ETL_OK;
}
