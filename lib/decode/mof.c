/*
 * lib/decode/mof.c - the per-source decoder for classic / MOF kernel events
 * (doc/decoding.md §1 items 2-3, §4): SYSTEM, COMPACT, PERFINFO, FULL and
 * INSTANCE records whose (class GUID, opcode, version) is in the built-in
 * tables of lib/decode/mof_kernel_classes.c.
 *
 * Decisions (documented here and in the report):
 *   - Version fallback: an event whose version has no layout is decoded
 *     with the closest LOWER version of the same class and opcode (newer
 *     versions append fields, so the known prefix still reads right; the
 *     appended bytes show as ExtraData). Nothing else marks the fallback:
 *     etl_decoded has no field for it. No lower version -> not matched
 *     (ETL_E_UNSUPPORTED from the dispatcher).
 *   - Process type 10 (HookId 0x030A, image load) is decoded as Image Load
 *     (doc/decoding.md §4.1): provider_name "Image", event "Load".
 *   - Trailing payload bytes beyond the known fields become one last
 *     top-level ETL_VAL_BINARY property named "ExtraData" (in_type BINARY,
 *     out_type HEXBINARY). The rest-of-payload pointer array of StackWalk
 *     leaves a partial pointer (payload not a multiple of P) as ExtraData.
 *   - A payload shorter than the layout fails the event with
 *     ETL_E_TRUNCATED naming the field and its offset; a NUL-terminated
 *     string that runs to the end of the payload without its NUL is taken
 *     whole, one with no byte left at all is a truncation.
 *   - Pointer size: ev->ptr_size. For FULL/INSTANCE records (written by a
 *     user-mode logger, whose header type need not tell how the payload was
 *     laid out; not for the classes marked record_ptr, the merge's) the
 *     layout is first tried with ev->ptr_size and, if that is
 *     implausible (fails, leaves trailing bytes or yields UTF-16 text with
 *     control characters) but the other size fits exactly, the other size
 *     is used. Seen in the corpus: win7-classic-image-32.etl carries 64-bit
 *     Image v0 payloads in FULL_HEADER32 records.
 *   - WBEMSID: a first u32 of 0 is a 4-byte NULL SID (ETL_VAL_NULL) unless a
 *     well-formed SID (revision 1, <= 15 sub-authorities, fits) follows the
 *     2*P-byte TOKEN_USER, in which case the TOKEN_USER had a NULL pointer
 *     and the SID is read (win7-classic-process-32.etl). Otherwise the SID
 *     follows the 2*P TOKEN_USER bytes.
 *   - Strings: UTF-16 converted to UTF-8; 8-bit strings as CP1252 (UTF-8
 *     for MOF_UTF8: PDB paths); char16[n] arrays are cut at the first NUL.
 *   - Counted string arrays (MOF_USTR_ARRAY, PnP v4's filter drivers) take
 *     their count from an earlier field and become an ETL_VAL_ARRAY of
 *     strings; a class with one is decoded in two passes.
 *   - MOF_LZNT1_TEXT (WinSat's XML): decompressed with the project's LZNT1
 *     codec to the size an earlier field gives and shown as text (out-type
 *     XML); data that does not decompress to exactly that size fails the
 *     event (ETL_E_DECOMPRESS), over MOF_LZNT1_MAX bytes ETL_E_BAD_SIZE.
 */
#define ETL_BUILDING_LIB 1
#include <stddef.h>
#include <string.h>

#include "lib/common/guid.h"
#include "etl_compress.h"
#include "lib/decode/decode_internal.h"
#include "lib/common/cursor.h"
#include "lib/decode/mof_classes.h"

_Static_assert(sizeof(struct etl_guid) == 16, "struct etl_guid is 16 bytes");

int etl__mof_kind_ok(int kind)
{
	switch (kind) {
	case ETL_HDR_SYSTEM32: case ETL_HDR_SYSTEM64:
	case ETL_HDR_COMPACT32: case ETL_HDR_COMPACT64:
	case ETL_HDR_PERFINFO32: case ETL_HDR_PERFINFO64:
	case ETL_HDR_FULL_HEADER32: case ETL_HDR_FULL_HEADER64:
	case ETL_HDR_INSTANCE32: case ETL_HDR_INSTANCE64:
		return 1;
	default:
		return 0;
	}
}

/* The table scan behind mof_find(): the kernel classes, then those a
 * trace merge adds. */
static const struct mof_class *mof_scan(const struct etl_event *ev, const char **opname)
{
	const struct etl_guid *g = &ev->provider;
	const struct mof_class *best = NULL;
	const char *best_name = NULL;

	if (ev->opcode == 10 && etl_guid_equal(g, &etl__mof_guid_process))
		g = &etl__mof_guid_image;
	for (size_t i = 0; i < etl__mof_n_classes + etl__mof_n_merged_classes; i++) {
		const struct mof_class *c = i < etl__mof_n_classes ? &etl__mof_classes[i]
		                            : &etl__mof_merged_classes[i - etl__mof_n_classes];
		const char *name = NULL;
		/* data1 first: it tells most classes apart for the price of
		 * one comparison. */
		if (c->guid->data1 != g->data1 || !etl_guid_equal(c->guid, g))
			continue;
		if (c->version > ev->version || (best && c->version <= best->version))
			continue;
		for (unsigned k = 0; k < c->n_ops; k++) {
			if (c->ops[k].opcode == ev->opcode) {
				name = c->ops[k].name;
				break;
			}
		}
		if (!name)
			continue;
		best = c;
		best_name = name;
		if (c->version == ev->version)
			break;
	}
	*opname = best_name;
	return best;
}

/* A small per-thread memo of mof_scan() results by (provider, opcode,
 * version): each event is looked up twice (match, then decode) and a trace
 * holds few distinct kinds. The tables are constant, so entries never go
 * stale; per thread, so decoders in different threads do not race. */
#define MOF_MEMO_SIZE 64u
struct mof_memo {
	struct etl_guid guid;
	uint8_t opcode, version, used;
	uint8_t onepass;                /* onepass_ok(c)                      */
	const struct mof_class *c;
	const char *opname;
};
static _Thread_local struct mof_memo mof_memo[MOF_MEMO_SIZE];

/* Whether the class has no array but a rest-of-payload one as its last
 * field (what decode_onepass() needs). */
static int onepass_ok(const struct mof_class *c)
{
	for (uint16_t i = 0; i < c->n_fields; i++)
		if ((c->fields[i].kind == MOF_PTR_REST && i + 1 < c->n_fields) ||
		    c->fields[i].kind == MOF_USTR_ARRAY)
			return 0;
	return 1;
}

static const struct mof_class *mof_find(const struct etl_event *ev, const char **opname, int *onepass)
{
	const struct etl_guid *g = &ev->provider;
	uint32_t h = (g->data1 ^ g->data2 ^ (uint32_t)ev->opcode * 31u ^ (uint32_t)ev->version * 131u);
	struct mof_memo *m = &mof_memo[(h ^ h >> 7) % MOF_MEMO_SIZE];
	const char *name;
	if (!(m->used && m->opcode == ev->opcode && m->version == ev->version && etl__guid_same(&m->guid, g))) {
		m->c = mof_scan(ev, &name);
		m->opname = name;
		m->onepass = m->c && onepass_ok(m->c);
		m->guid = *g;
		m->opcode = ev->opcode;
		m->version = ev->version;
		m->used = 1;
	}
	if (opname)
		*opname = m->opname;
	if (onepass)
		*onepass = m->onepass;
	return m->c;
}

int etl__mof_match(const struct etl_event *ev)
{
	return etl__mof_kind_ok(ev->kind) && mof_find(ev, NULL, NULL) != NULL;
}

/* ---- the walk -------------------------------------------------------- */

struct mof_walk {
	etl_decoder *d;                 /* NULL for the dry (measuring) pass */
	int store;                      /* write properties (wet pass)        */
	const struct mof_class *c;
	unsigned ptr;                   /* 4 or 8                             */
	struct etl_cur cur;
	uint32_t base;                  /* first top-level property           */
	uint32_t next_child;            /* next free property for array items */
	uint32_t n_items;               /* dry: array elements counted        */
	int implausible;                /* dry: control characters in text    */
	/* One pass (wet, without a dry pass first): the array of the rest
	 * of the payload reserves its elements (after the ExtraData slot,
	 * which it reserves too when a partial pointer is left). */
	int onepass;
	const char *opname;
	uint32_t extra_slot;            /* 1 when ExtraData was reserved      */
	/* Dry pass: the integer value of each field read so far (for the
	 * fields that count by an earlier one; the wet pass reads them from
	 * the properties). Last: walk_init() leaves it alone, as every value
	 * is stored before it is read. */
	uint64_t vals[MOF_MAX_FIELDS];
};

/* Zeroes w except its vals. */
static void walk_init(struct mof_walk *w)
{
	memset(w, 0, offsetof(struct mof_walk, vals));
}

/* The value of the earlier field f->count refers to (0 when it does not
 * refer to an earlier field: the tables never do that): the property the
 * wet pass stored, or the value the dry one kept. */
static uint64_t ref_val(const struct mof_walk *w, const struct mof_field *f)
{
	size_t i = (size_t)(f - w->c->fields);
	if (f->count >= i || f->count >= MOF_MAX_FIELDS)
		return 0;
	return w->store ? etl__dec_prop(w->d, w->base + f->count)->v.u : w->vals[f->count];
}

/* Dry pass: keeps the integer value of field f for later references. */
static inline void keep_val(struct mof_walk *w, const struct mof_field *f, uint64_t u)
{
	size_t i = (size_t)(f - w->c->fields);
	if (!w->store && i < MOF_MAX_FIELDS)
		w->vals[i] = u;
}

static int fail_short(struct mof_walk *w, const struct mof_field *f, size_t need)
{
	if (!w->d)
		return ETL_FAILED;
	return etl__dec_fail(w->d, ETL_E_TRUNCATED,
	                     "%s field \"%s\" at payload offset %zu: needs %zu bytes, %zu left",
	                     w->c->name, f->name, w->cur.pos, need, etl_cur_left(&w->cur));
}

static int nomem(struct mof_walk *w, const struct mof_field *f)
{
	return etl__dec_fail(w->d, ETL_E_NOMEM, "out of memory decoding field \"%s\"", f->name);
}

static int set_utf16(struct mof_walk *w, const struct mof_field *f, struct etl_prop *pr,
                     const uint8_t *p, size_t n)
{
	size_t len;
	char *out = etl__dec_utf16(w->d, p, n, &len);
	if (!out)
		return nomem(w, f);
	pr->v.str.s = out;
	pr->v.str.len = len;
	return ETL_OK;
}

static int set_ansi(struct mof_walk *w, const struct mof_field *f, struct etl_prop *pr,
                    const uint8_t *p, size_t n, int utf8)
{
	if (!etl__dec_ansi(w->d, p, n, utf8, &pr->v.str.s, &pr->v.str.len))
		return nomem(w, f);
	return ETL_OK;
}

/* Length in bytes of a UTF-16 string of at most n bytes up to its NUL unit
 * (excluded); *term tells whether the NUL was there. */
static size_t u16_strlen(const uint8_t *p, size_t n, int *term)
{
	size_t i;
	for (i = 0; i + 1 < n; i += 2) {
		if (p[i] == 0 && p[i + 1] == 0) {
			*term = 1;
			return i;
		}
	}
	*term = 0;
	return n;
}

static void check_text(struct mof_walk *w, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2) {
		unsigned u = etl_le16(p + i);
		if (u < 0x20 || (u >= 0xE000 && u < 0xF900)) {
			w->implausible = 1;
			return;
		}
	}
}

size_t etl__mof_wbemsid(const uint8_t *p, size_t left, unsigned ptr, size_t *skip, size_t *sid_len)
{
	size_t tu = 2u * ptr;
	*skip = 0;
	*sid_len = 0;
	if (left < 4)
		return 4;
	if (etl_le32(p) == 0) {
		int follows = left >= tu + 8 && p[tu] == 1 && p[tu + 1] <= 15 &&
		              p[tu + 2] == 0 && p[tu + 3] == 0 &&
		              left - tu - 8 >= 4u * p[tu + 1];
		if (!follows) {
			*skip = 4;
			return 0;
		}
	}
	if (left < tu + 8)
		return tu + 8;
	size_t n = 8u + 4u * p[tu + 1];
	if (left - tu < n)
		return tu + n;
	*skip = tu;
	*sid_len = n;
	return 0;
}

/* Reads a WBEMSID; sid and sid_len = the SID or NULL. */
static int read_sid(struct mof_walk *w, const struct mof_field *f, const uint8_t **sid,
                    size_t *sid_len)
{
	struct etl_cur *c = &w->cur;
	size_t skip;
	size_t need = etl__mof_wbemsid(etl_cur_ptr(c), etl_cur_left(c), w->ptr, &skip, sid_len);

	*sid = NULL;
	if (need)
		return fail_short(w, f, need);
	etl_cur_skip(c, skip);
	if (*sid_len)
		*sid = etl_cur_bytes(c, *sid_len);
	return ETL_OK;
}

/* The fixed-size integer kinds as walk_field() decodes them: size (0:
 * pointer-sized), value kind, in-type, out-type (PTR: by pointer size). */
struct mof_int_kind {
	uint8_t size, kind, is_signed;
	uint16_t in_type, out_type;
};
static const struct mof_int_kind mof_ints[] = {
	[MOF_U8] = { 1, ETL_VAL_UINT, 0, ETL_IN_UINT8, 0 },
	[MOF_I8] = { 1, ETL_VAL_INT, 1, ETL_IN_INT8, 0 },
	[MOF_U16] = { 2, ETL_VAL_UINT, 0, ETL_IN_UINT16, 0 },
	[MOF_I16] = { 2, ETL_VAL_INT, 1, ETL_IN_INT16, 0 },
	[MOF_U32] = { 4, ETL_VAL_UINT, 0, ETL_IN_UINT32, 0 },
	[MOF_I32] = { 4, ETL_VAL_INT, 1, ETL_IN_INT32, 0 },
	[MOF_U64] = { 8, ETL_VAL_UINT, 0, ETL_IN_UINT64, 0 },
	[MOF_I64] = { 8, ETL_VAL_INT, 1, ETL_IN_INT64, 0 },
	[MOF_HEX8] = { 1, ETL_VAL_UINT, 0, ETL_IN_UINT8, ETL_OUT_HEXINT8 },
	[MOF_HEX16] = { 2, ETL_VAL_UINT, 0, ETL_IN_UINT16, ETL_OUT_HEXINT16 },
	[MOF_HEX32] = { 4, ETL_VAL_UINT, 0, ETL_IN_HEXINT32, ETL_OUT_HEXINT32 },
	[MOF_HEX64] = { 8, ETL_VAL_UINT, 0, ETL_IN_HEXINT64, ETL_OUT_HEXINT64 },
	[MOF_PTR] = { 0, ETL_VAL_UINT, 0, ETL_IN_POINTER, 0 },
	[MOF_SIZET] = { 0, ETL_VAL_UINT, 0, 0, 0 },
	[MOF_FILETIME] = { 8, ETL_VAL_FILETIME, 1, ETL_IN_FILETIME, 0 },
};

/* walk_field() for the fixed-size integer kinds when storing: the same
 * property (every member stored, the rest of the value zeroed), the same
 * failure. */
static inline int walk_int(struct mof_walk *w, const struct mof_field *f, uint32_t idx)
{
	const struct mof_int_kind *k = &mof_ints[f->kind];
	struct etl_cur *c = &w->cur;
	unsigned P = w->ptr;
	size_t need = k->size ? k->size : P;
	if (need > etl_cur_left(c) || c->err)
		return fail_short(w, f, need);
	const uint8_t *q = etl_cur_ptr(c);
	uint64_t u = etl_le_uint(q, need);
	if (k->is_signed)
		u = etl_sign_extend(u, need);
	uint16_t in = k->in_type, out = k->out_type;
	if (f->kind == MOF_PTR)
		out = P == 4 ? ETL_OUT_HEXINT32 : ETL_OUT_HEXINT64;
	else if (f->kind == MOF_SIZET)
		in = P == 4 ? ETL_IN_UINT32 : ETL_IN_UINT64;
	if (f->out)
		out = f->out;
	etl__dec_put_scalar(w->d, idx, f->name, k->kind, in, out, u, ETL_PROP_NO_PARENT,
	                    (uint32_t)c->pos);
	c->pos += need;
	return ETL_OK;
}

/* The strings of a MOF_USTR_ARRAY field (as many as the earlier field
 * says): counted in the dry pass, stored as the children of pv (at
 * w->next_child) in the wet one. */
static int walk_ustr_array(struct mof_walk *w, const struct mof_field *f, struct etl_prop *pv,
                           uint32_t idx)
{
	struct etl_cur *c = &w->cur;
	uint64_t n = ref_val(w, f);
	/* every string takes at least one byte */
	if (n > etl_cur_left(c))
		return fail_short(w, f, n > SIZE_MAX ? SIZE_MAX : (size_t)n);
	pv->kind = ETL_VAL_ARRAY;
	pv->in_type = ETL_IN_UNICODESTRING;
	if (w->store) {
		pv->first_child = w->next_child;
		pv->n_children = (uint32_t)n;
	} else {
		w->n_items += (uint32_t)n;
	}
	for (uint64_t k = 0; k < n; k++) {
		int term = 0;
		const uint8_t *p = etl_cur_ptr(c);
		size_t len = u16_strlen(p, etl_cur_left(c), &term);
		size_t off = c->pos;
		if (etl_cur_left(c) == 0)
			return fail_short(w, f, 1);
		etl_cur_skip(c, term ? len + 2 : len);
		if (!w->store) {
			check_text(w, p, len);
			continue;
		}
		struct etl_prop *e = etl__dec_prop(w->d, w->next_child++);
		memset(e, 0, sizeof *e);
		e->name = f->name;
		e->in_type = ETL_IN_UNICODESTRING;
		e->kind = ETL_VAL_STRING;
		e->parent = idx;
		e->payload_offset = (uint32_t)off;
		int rc = set_utf16(w, f, e, p, len);
		if (rc != ETL_OK)
			return rc;
	}
	return ETL_OK;
}

/* A MOF_LZNT1_TEXT field: the rest of the payload, decompressed (wet pass
 * only) to the size the earlier field gives, as UTF-16 text up to its
 * first NUL. Data that does not decompress to that size fails the event. */
static int walk_lznt1_text(struct mof_walk *w, const struct mof_field *f, struct etl_prop *pv)
{
	struct etl_cur *c = &w->cur;
	size_t n = etl_cur_left(c);
	const uint8_t *src = etl_cur_ptr(c);
	uint64_t want = ref_val(w, f);
	etl_cur_skip(c, n);
	pv->kind = ETL_VAL_STRING;
	pv->in_type = ETL_IN_UNICODESTRING;
	pv->out_type = ETL_OUT_XML;
	if (!w->store)
		return ETL_OK;
	if (want > MOF_LZNT1_MAX)
		return etl__dec_fail(w->d, ETL_E_BAD_SIZE, "%s field \"%s\": decompressed size %llu is over %u bytes",
		                     w->c->name, f->name, (unsigned long long)want, MOF_LZNT1_MAX);
	uint8_t *buf = (uint8_t *)etl__dec_alloc(w->d, want ? (size_t)want : 1);
	if (!buf)
		return nomem(w, f);
	size_t got = 0, err_pos = 0;
	int err = 0;
	if (etl_lznt1_decompress(src, n, buf, (size_t)want, &got, &err, &err_pos) != ETL_OK || got != want)
		return etl__dec_fail(w->d, ETL_E_DECOMPRESS,
		                     "%s field \"%s\" at payload offset %u: LZNT1 data %s (%zu of %llu bytes)",
		                     w->c->name, f->name, pv->payload_offset,
		                     got != want && !err ? "too short" : "damaged", got, (unsigned long long)want);
	int term = 0;
	return set_utf16(w, f, pv, buf, u16_strlen(buf, got, &term));
}

static int walk_field(struct mof_walk *w, const struct mof_field *f, uint32_t idx)
{
	struct etl_cur *c = &w->cur;
	struct etl_prop pv;
	size_t start = c->pos, need = 0;
	unsigned P = w->ptr;
	int rc = ETL_OK;

	memset(&pv, 0, sizeof pv);
	pv.name = f->name;
	pv.parent = ETL_PROP_NO_PARENT;
	pv.payload_offset = (uint32_t)start;
	pv.kind = ETL_VAL_UINT;

	switch (f->kind) {
	case MOF_U8: case MOF_I8: case MOF_HEX8: need = 1; break;
	case MOF_U16: case MOF_I16: case MOF_HEX16: case MOF_PORT: need = 2; break;
	case MOF_U32: case MOF_I32: case MOF_HEX32: case MOF_IPV4: need = 4; break;
	case MOF_U64: case MOF_I64: case MOF_HEX64: case MOF_FILETIME: need = 8; break;
	case MOF_PTR: case MOF_SIZET: need = P; break;
	case MOF_GUID: case MOF_IPV6: need = 16; break;
	case MOF_WCHARS: need = 2u * f->count; break;
	case MOF_BIN: need = f->count; break;
	case MOF_USTR: case MOF_ASTR: case MOF_UTF8: need = 1; break;
	default: need = 0; break;
	}
	if (need > etl_cur_left(c))
		return fail_short(w, f, need);

	switch (f->kind) {
	case MOF_U8: pv.in_type = ETL_IN_UINT8; pv.v.u = etl_cur_u8(c); break;
	case MOF_HEX8: pv.in_type = ETL_IN_UINT8; pv.out_type = ETL_OUT_HEXINT8; pv.v.u = etl_cur_u8(c); break;
	case MOF_I8: pv.kind = ETL_VAL_INT; pv.in_type = ETL_IN_INT8; pv.v.i = (int8_t)etl_cur_u8(c); break;
	case MOF_U16: pv.in_type = ETL_IN_UINT16; pv.v.u = etl_cur_u16(c); break;
	case MOF_HEX16: pv.in_type = ETL_IN_UINT16; pv.out_type = ETL_OUT_HEXINT16; pv.v.u = etl_cur_u16(c); break;
	case MOF_PORT: pv.in_type = ETL_IN_UINT16; pv.out_type = ETL_OUT_PORT; pv.v.u = etl_cur_u16(c); break;
	case MOF_I16: pv.kind = ETL_VAL_INT; pv.in_type = ETL_IN_INT16; pv.v.i = (int16_t)etl_cur_u16(c); break;
	case MOF_U32: pv.in_type = ETL_IN_UINT32; pv.v.u = etl_cur_u32(c); break;
	case MOF_IPV4: pv.in_type = ETL_IN_UINT32; pv.out_type = ETL_OUT_IPV4; pv.v.u = etl_cur_u32(c); break;
	case MOF_HEX32: pv.in_type = ETL_IN_HEXINT32; pv.out_type = ETL_OUT_HEXINT32; pv.v.u = etl_cur_u32(c); break;
	case MOF_I32: pv.kind = ETL_VAL_INT; pv.in_type = ETL_IN_INT32; pv.v.i = (int32_t)etl_cur_u32(c); break;
	case MOF_U64: pv.in_type = ETL_IN_UINT64; pv.v.u = etl_cur_u64(c); break;
	case MOF_HEX64: pv.in_type = ETL_IN_HEXINT64; pv.out_type = ETL_OUT_HEXINT64; pv.v.u = etl_cur_u64(c); break;
	case MOF_I64: pv.kind = ETL_VAL_INT; pv.in_type = ETL_IN_INT64; pv.v.i = etl_cur_i64(c); break;
	case MOF_FILETIME: pv.kind = ETL_VAL_FILETIME; pv.in_type = ETL_IN_FILETIME; pv.v.i = etl_cur_i64(c); break;
	case MOF_PTR:
		pv.in_type = ETL_IN_POINTER;
		pv.out_type = P == 4 ? ETL_OUT_HEXINT32 : ETL_OUT_HEXINT64;
		pv.v.u = etl_cur_ptrval(c, P);
		break;
	case MOF_SIZET:
		pv.in_type = P == 4 ? ETL_IN_UINT32 : ETL_IN_UINT64;
		pv.v.u = etl_cur_ptrval(c, P);
		break;
	case MOF_GUID: pv.kind = ETL_VAL_GUID; pv.in_type = ETL_IN_GUID; etl_cur_guid(c, &pv.v.guid); break;
	case MOF_IPV6: case MOF_BIN:
		pv.kind = ETL_VAL_BINARY;
		pv.in_type = ETL_IN_BINARY;
		pv.out_type = f->kind == MOF_IPV6 ? ETL_OUT_IPV6 : ETL_OUT_HEXBINARY;
		pv.v.bin.len = need;
		pv.v.bin.p = etl_cur_bytes(c, need);
		break;
	case MOF_SID: {
		const uint8_t *sid;
		size_t n;
		if ((rc = read_sid(w, f, &sid, &n)) != ETL_OK)
			return rc;
		pv.in_type = ETL_IN_SID;
		pv.kind = sid ? ETL_VAL_SID : ETL_VAL_NULL;
		pv.v.bin.p = sid;
		pv.v.bin.len = n;
		break;
	}
	case MOF_USTR: case MOF_WCHARS: {
		int term = 0;
		size_t avail = f->kind == MOF_WCHARS ? need : etl_cur_left(c);
		const uint8_t *p = etl_cur_ptr(c);
		size_t n = u16_strlen(p, avail, &term);
		pv.kind = ETL_VAL_STRING;
		pv.in_type = ETL_IN_UNICODESTRING;
		if (f->kind == MOF_WCHARS)
			etl_cur_skip(c, need);
		else
			etl_cur_skip(c, term ? n + 2 : n);
		if (!w->store)
			check_text(w, p, n);
		else if ((rc = set_utf16(w, f, &pv, p, n)) != ETL_OK)
			return rc;
		break;
	}
	case MOF_ASTR: case MOF_UTF8: {
		const uint8_t *p = etl_cur_ptr(c);
		size_t avail = etl_cur_left(c);
		const uint8_t *z = memchr(p, 0, avail);
		size_t n = z ? (size_t)(z - p) : avail;
		int utf8 = f->kind == MOF_UTF8;
		pv.kind = ETL_VAL_STRING;
		pv.in_type = ETL_IN_ANSISTRING;
		pv.out_type = utf8 ? ETL_OUT_UTF8 : 0;
		etl_cur_skip(c, z ? n + 1 : n);
		if (w->store && (rc = set_ansi(w, f, &pv, p, n, utf8)) != ETL_OK)
			return rc;
		break;
	}
	case MOF_BIN_REST:
		pv.kind = ETL_VAL_BINARY;
		pv.in_type = ETL_IN_BINARY;
		pv.out_type = ETL_OUT_HEXBINARY;
		pv.v.bin.len = etl_cur_left(c);
		pv.v.bin.p = etl_cur_bytes(c, pv.v.bin.len);
		break;
	case MOF_USTR_ARRAY:
		if ((rc = walk_ustr_array(w, f, &pv, idx)) != ETL_OK)
			return rc;
		break;
	case MOF_LZNT1_TEXT:
		if ((rc = walk_lznt1_text(w, f, &pv)) != ETL_OK)
			return rc;
		break;
	case MOF_PTR_REST: {
		size_t n = etl_cur_left(c) / P;
		pv.kind = ETL_VAL_ARRAY;
		pv.in_type = ETL_IN_POINTER;
		pv.out_type = P == 4 ? ETL_OUT_HEXINT32 : ETL_OUT_HEXINT64;
		if (!w->store) {
			w->n_items += (uint32_t)n;
			etl_cur_skip(c, n * P);
			break;
		}
		if (w->onepass) {
			uint32_t slot = etl_cur_left(c) - n * P ? 1u : 0u;
			int oom = 0;
			if ((uint64_t)w->c->n_fields + slot + n > ETL_DEC_MAX_PROPS)
				return etl__dec_fail(w->d, ETL_E_BAD_SIZE, "%s/%s: more than %u properties",
				                     w->c->name, w->opname, ETL_DEC_MAX_PROPS);
			uint32_t first = slot ? etl__dec_reserve(w->d, slot + (uint32_t)n, &oom)
			                      : etl__dec_reserve_raw(w->d, (uint32_t)n, &oom);
			if (first == UINT32_MAX)
				return etl__dec_fail(w->d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE,
				                     "%s/%s: too many properties", w->c->name, w->opname);
			w->extra_slot = slot;
			w->next_child = first + slot;
		}
		pv.first_child = w->next_child;
		pv.n_children = (uint32_t)n;
		for (size_t k = 0; k < n; k++) {
			/* every member stored: the elements need no zeroing */
			struct etl_prop *e = etl__dec_prop(w->d, w->next_child++);
			e->name = f->name;
			e->kind = ETL_VAL_UINT;
			e->in_type = pv.in_type;
			e->out_type = pv.out_type;
			memset(&e->v, 0, sizeof e->v);
			e->map_name = NULL;
			e->parent = idx;
			e->first_child = 0;
			e->n_children = 0;
			e->payload_offset = (uint32_t)c->pos;
			e->v.u = etl_cur_ptrval(c, P);
		}
		break;
	}
	default:
		return w->d ? etl__dec_fail(w->d, ETL_E_BAD_VALUE, "bad MOF field kind") : ETL_FAILED;
	}
	if (f->out)
		pv.out_type = f->out;
	if (c->err)
		return fail_short(w, f, need);
	keep_val(w, f, pv.v.u);
	if (w->store)
		*etl__dec_prop(w->d, idx) = pv;
	return ETL_OK;
}

static int walk(struct mof_walk *w, const struct etl_event *ev)
{
	etl_cur_init(&w->cur, ev->payload, ev->payload ? ev->payload_size : 0);
	for (uint16_t i = 0; i < w->c->n_fields; i++) {
		const struct mof_field *f = &w->c->fields[i];
		int rc;
		if (w->store && f->kind < sizeof mof_ints / sizeof mof_ints[0] && mof_ints[f->kind].kind)
			rc = walk_int(w, f, w->base + i);
		else
			rc = walk_field(w, f, w->base + i);
		if (rc != ETL_OK)
			return rc;
	}
	return ETL_OK;
}

/* Dry pass: ETL_OK and the trailing byte count, or ETL_FAILED. */
static int measure(const struct mof_class *c, const struct etl_event *ev, unsigned ptr,
                   size_t *extra, uint32_t *items, int *implausible)
{
	struct mof_walk w;
	walk_init(&w);
	w.c = c;
	w.ptr = ptr;
	if (walk(&w, ev) != ETL_OK)
		return ETL_FAILED;
	*extra = etl_cur_left(&w.cur);
	*items = w.n_items;
	*implausible = w.implausible;
	return ETL_OK;
}

/* The same properties as the dry-then-wet passes of etl__mof_decode(), in
 * one pass: the top-level fields, ExtraData for the bytes left, then the
 * elements of the rest-of-payload array; the same failures. */
static int decode_onepass(etl_decoder *d, const struct etl_event *ev, const struct mof_class *c,
                          const char *opname, unsigned ptr)
{
	int oom = 0;
	/* Not zeroed: the wet walk stores every top-level property whole. */
	uint32_t base = etl__dec_reserve_raw(d, c->n_fields, &oom);
	if (base == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE,
		                     "%s/%s: too many properties", c->name, opname);
	struct mof_walk w;
	walk_init(&w);
	w.d = d;
	w.c = c;
	w.ptr = ptr;
	w.store = 1;
	w.onepass = 1;
	w.opname = opname;
	w.base = base;
	int rc = walk(&w, ev);
	if (rc != ETL_OK)
		return rc;
	if (w.extra_slot) {                     /* reserved by the array */
		etl__dec_put_extra(d, base + c->n_fields, &w.cur);
	} else if (etl_cur_left(&w.cur)) {
		if ((uint64_t)c->n_fields + 1 > ETL_DEC_MAX_PROPS)
			return etl__dec_fail(d, ETL_E_BAD_SIZE, "%s/%s: more than %u properties",
			                     c->name, opname, ETL_DEC_MAX_PROPS);
		uint32_t idx = etl__dec_reserve(d, 1, &oom);
		if (idx == UINT32_MAX)
			return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE,
			                     "%s/%s: too many properties", c->name, opname);
		etl__dec_put_extra(d, idx, &w.cur);
	}
	etl__dec_set_names_stable(d);           /* names from the static tables */
	return ETL_OK;
}

int etl__mof_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct etl_decoded *res = etl__dec_result(d);
	const char *opname = NULL;
	int onepass = 0;
	const struct mof_class *c = mof_find(ev, &opname, &onepass);
	unsigned ptr = ev->ptr_size == 4 ? 4 : 8;
	size_t extra = 0;
	uint32_t items = 0;
	int impl = 0;

	res->source = ETL_DECODE_MOF;
	if (!c)
		return etl__dec_fail(d, ETL_E_UNSUPPORTED, "no built-in MOF class for this event");
	res->provider_name = c->name;
	res->event_name = opname;
	res->opcode_name = opname;

	/* Records of the kernel logger, and classes whose pointers are the
	 * record's: one pass, no dry one (the pointer size is the record's). */
	if ((c->record_ptr || !(ev->kind == ETL_HDR_FULL_HEADER32 || ev->kind == ETL_HDR_FULL_HEADER64 ||
	                        ev->kind == ETL_HDR_INSTANCE32 || ev->kind == ETL_HDR_INSTANCE64)) &&
	    onepass)
		return decode_onepass(d, ev, c, opname, ptr);

	int ok = measure(c, ev, ptr, &extra, &items, &impl) == ETL_OK;
	if ((ev->kind == ETL_HDR_FULL_HEADER32 || ev->kind == ETL_HDR_FULL_HEADER64 ||
	     ev->kind == ETL_HDR_INSTANCE32 || ev->kind == ETL_HDR_INSTANCE64) &&
	    (!ok || extra || impl)) {
		size_t e2;
		uint32_t i2;
		int m2;
		unsigned other = ptr == 4 ? 8 : 4;
		if (measure(c, ev, other, &e2, &i2, &m2) == ETL_OK && !e2 && !m2) {
			ptr = other;
			ok = 1;
			extra = e2;
			items = i2;
		}
	}

	struct mof_walk w;
	walk_init(&w);
	w.d = d;
	w.c = c;
	w.ptr = ptr;
	if (!ok)                        /* rerun for the error message */
		return walk(&w, ev) == ETL_OK ? etl__dec_fail(d, ETL_E_BAD_VALUE, "payload could not be decoded")
		                              : res->status;

	uint32_t ntop = c->n_fields + (extra ? 1u : 0u);
	int oom = 0;
	if ((uint64_t)ntop + items > ETL_DEC_MAX_PROPS)
		return etl__dec_fail(d, ETL_E_BAD_SIZE, "%s/%s: more than %u properties",
		                     c->name, opname, ETL_DEC_MAX_PROPS);
	uint32_t base = etl__dec_reserve(d, ntop + items, &oom);
	if (base == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE,
		                     "%s/%s: too many properties", c->name, opname);
	w.store = 1;
	w.base = base;
	w.next_child = base + ntop;
	int rc = walk(&w, ev);
	if (rc != ETL_OK)
		return rc;
	if (extra) {
		struct etl_prop *pr = etl__dec_prop(d, base + c->n_fields);
		pr->name = "ExtraData";
		pr->kind = ETL_VAL_BINARY;
		pr->in_type = ETL_IN_BINARY;
		pr->out_type = ETL_OUT_HEXBINARY;
		pr->payload_offset = (uint32_t)w.cur.pos;
		pr->v.bin.p = etl_cur_ptr(&w.cur);
		pr->v.bin.len = extra;
	}
	etl__dec_set_names_stable(d);           /* names from the static tables */
	return ETL_OK;
}
