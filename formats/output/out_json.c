/*
 * formats/output/out_json.c - JSON ("json": one document) and JSON lines ("jsonl": one
 * object per line), the XML model mirrored key by key in the openwec shape
 * (doc/decoding.md §6.4):
 *
 *   {"System": {"Provider": {"Name": "...", "Guid": "{...}"},
 *               "EventID": 1, "Version": 0, "Level": 4, "Task": 0,
 *               "Opcode": 0, "Keywords": "0x8000000000000000",
 *               "TimeCreated": "2020-02-17T12:48:30.4203138Z",
 *               "Correlation": {"ActivityID": "{...}", "RelatedActivityID": "{...}"},
 *               "Execution": {"ProcessID": 4, "ThreadID": 8, "ProcessorID": 0,
 *                             "KernelTime": 0, "UserTime": 0},
 *               "Channel": 0, "Computer": "", "UserID": "S-1-5-18"},
 *    "EventData": {"name": value, "struct": {"member": value},
 *                  "array": [value, ...]},
 *    "RenderingInfo": {"Culture": "en-US", "Message": "...", "Level": "...",
 *                      "Opcode": "...", "Task": "...", "Channel": "...",
 *                      "Provider": "...", "Keywords": ["..."],
 *                      "EventName": "..."},
 *    "ExtendedTracingInfo": {"EventGuid": "{...}", "InstanceID": 1,
 *                            "ParentInstanceID": 0, "ParentGuid": "{...}"}}
 * (ExtendedTracingInfo for classic and kernel records; the instance keys
 * for instance headers only. With ETL_OUTPUT_EXPLAIN, "DecodingSource":
 * "manifest" follows EventData or ProcessingErrorData.)
 *
 * Keys whose value is unknown are left out (Provider.Name, Correlation's,
 * Execution's ProcessID/ThreadID/KernelTime/UserTime, UserID, each
 * RenderingInfo key, RenderingInfo itself); an unknown time is
 * "TimeCreated": null with "RawTime": the raw timestamp. An event that
 * could not be decoded has, instead of EventData,
 *   "ProcessingErrorData": {"ErrorCode": 11, "DataItemName": "",
 *                           "EventPayload": "HEX", "Reason": "..."}.
 * Values: integers are numbers, except beyond +-2^53 (JavaScript's exact
 * range), which are decimal strings; hex-formatted integers, GUIDs, times,
 * SIDs, binary and addresses are strings; booleans true/false; floats
 * numbers (NaN and the infinities as strings). Strings are escaped by one
 * routine (etl__out_json_string): " \ and controls escaped, bytes that are
 * not UTF-8 as \ufffd.
 *
 * json:  {"Header":<header event or null>,\n"Events":[\n<event>,\n<event>\n]}\n
 * jsonl: <header event or null>\n<event>\n...
 * Events are written as they come (constant memory).
 */
#define ETL_BUILDING_LIB 1
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "formats/output/json_state.h"
#if defined(__SSE2__) && !defined(ETL_NO_SSE2)
#include <emmintrin.h>
#endif

static int open_common(struct etl_render *o, int lines)
{
	struct json_priv *j = calloc(1, sizeof *j);
	if (!j)
		return ETL_FATAL;
	j->lines = lines;
	o->priv = j;
	return ETL_OK;
}

static int json_open(struct etl_render *o)
{
	return open_common(o, 0);
}

static int jsonl_open(struct etl_render *o)
{
	return open_common(o, 1);
}

static void json_close(struct etl_render *o)
{
	struct json_priv *j = o->priv;
	if (!j)
		return;
	etl__ob_free(&j->val);
	etl__memo_head_free(j->head);
	etl__memo_tail_free(j->tail);
	free(j->keys);
	free(j);
	o->priv = NULL;
}

/* A property name as an object key, after a comma unless first; from the
 * memo when this name was seen (lib/render/memo.h). */
static __attribute__((noinline)) void prop_key_miss(struct json_priv *j, struct etl_outbuf *b,
                                                    const char *nm, int comma, uint64_t gen)
{
	size_t n = strlen(nm);
	size_t start = b->len + (comma != 0);
	etl__out_json_key(b, nm, n, comma);
	if (!b->oom)
		etl__memo_name_keep(&j->keys, nm, n, gen, b->p + start, b->len - start);
}

/* Inline: the memo hit, once per property. */
static inline void prop_key(struct json_priv *j, struct etl_outbuf *b, const char *name, int comma,
                            uint64_t gen)
{
	const char *nm = name ? name : "";
	const struct etl_name_entry *m = etl__memo_name_find(j->keys, nm, gen);
	if (m) {
		char *o = etl__ob_room(b, ETL_NAME_TEXT_MAX + 1);
		if (!o)
			return;
		*o = ',';
		o += comma != 0;
		memcpy(o, m->text, ETL_NAME_TEXT_MAX);
		b->len += (size_t)(comma != 0) + m->text_len;
		return;
	}
	prop_key_miss(j, b, nm, comma, gen);
}

#define ascii_char etl__out_ascii_char

/* An ASCII character as a JSON string: "c", or escaped. */
static void put_ascii_char(struct etl_outbuf *b, int ch)
{
	char *o = etl__ob_room(b, 8);
	if (!o)
		return;
	o[0] = '"';
	size_t n = 1;
	if (ch >= 0x20 && ch != '"' && ch != '\\')
		o[n++] = (char)ch;
	else
		n += etl__out_json_escape_ascii(o + 1, (unsigned char)ch);
	o[n++] = '"';
	b->len += n;
}

#define plain_decimal etl__out_plain_decimal

#define JSON_SAFE_INT 9007199254740992LL   /* 2^53: beyond, numbers are strings */

/* A scalar value. Plain decimal integers and ASCII characters are written
 * directly; text that cannot hold anything to escape (hex, GUIDs, times,
 * ...) is formatted straight into b and quoted afterwards when it is a
 * string; strings and other characters go through the escaping. */
static __attribute__((noinline)) void scalar_any(struct json_priv *j, struct etl_outbuf *b,
                                                  const struct etl_prop *p)
{
	if (plain_decimal(p)) {                 /* the most common value */
		int safe = p->kind == ETL_VAL_INT ? p->v.i > -JSON_SAFE_INT && p->v.i < JSON_SAFE_INT
		                                  : p->v.u < (uint64_t)JSON_SAFE_INT;
		char *o = etl__ob_room(b, ETL_FMT_I64_MAX + 2);
		if (!o)
			return;
		char *q = o;
		if (!safe)
			*q++ = '"';
		q += p->kind == ETL_VAL_INT ? etl__fmt_i64(q, p->v.i) : etl__fmt_u64(q, p->v.u);
		if (!safe)
			*q++ = '"';
		b->len += (size_t)(q - o);
		return;
	}
	if (p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT) {        /* hex: "0x..." */
		char *o = etl__ob_room(b, ETL_OUT_HEX_INT_MAX + 2);
		if (!o)
			return;
		size_t n = etl__out_hex_int(o + 1, p);
		if (n) {
			o[0] = '"';
			o[n + 1] = '"';
			b->len += n + 2;
			return;
		}
	}
	int ch = ascii_char(p);
	if (ch >= 0) {
		put_ascii_char(b, ch);
		return;
	}
	if (p->kind == ETL_VAL_STRING) {
		etl__out_json_string(b, p->v.str.s ? p->v.str.s : "", p->v.str.s ? p->v.str.len : 0);
		return;
	}
	if (etl__out_value_needs_escape(p)) {
		j->val.len = 0;
		int vt = etl__out_value(&j->val, p);
		if (j->val.oom)
			b->oom = 1;
		if (vt == ETL_OUTV_NUMBER || vt == ETL_OUTV_BOOL)
			etl__ob_put(b, j->val.p, j->val.len);
		else if (vt == ETL_OUTV_NULL)
			ETL_OB_LIT(b, "null");
		else
			etl__out_json_string(b, j->val.p ? j->val.p : "", j->val.len);
		return;
	}
	size_t start = b->len;
	int vt = etl__out_value(b, p);
	if (b->oom)
		return;
	if (vt == ETL_OUTV_NULL) {
		b->len = start;
		ETL_OB_LIT(b, "null");
	} else if (vt == ETL_OUTV_STRING) {
		/* Plain ASCII: quote it in place. */
		size_t n = b->len - start;
		char *o = etl__ob_room(b, 2);
		if (!o)
			return;
		memmove(b->p + start + 1, b->p + start, n);
		b->p[start] = '"';
		b->p[start + n + 1] = '"';
		b->len += 2;
	}
}

/* scalar_any() with its two most common cases inline: plain decimal
 * integers and hex ones ("0x..."), the bulk of the values. */
static inline void scalar(struct json_priv *j, struct etl_outbuf *b, const struct etl_prop *p)
{
	if (p->kind == ETL_VAL_UINT && p->out_type == ETL_OUT_NULL && p->in_type != ETL_IN_HEXINT32 &&
	    p->in_type != ETL_IN_HEXINT64 && p->in_type != ETL_IN_POINTER && p->v.u < (uint64_t)JSON_SAFE_INT) {
		char *o = etl__ob_room(b, ETL_FMT_U64_MAX);
		if (o)
			b->len += etl__fmt_u64(o, p->v.u);
		return;
	}
	if (p->kind == ETL_VAL_UINT && (p->out_type == ETL_OUT_HEXINT64 || p->out_type == ETL_OUT_HEXINT32 ||
	                                (p->out_type == ETL_OUT_NULL && p->in_type == ETL_IN_POINTER))) {
		char *o = etl__ob_room(b, ETL_OUT_HEX_INT_MAX + 2);
		if (o) {
			size_t n = etl__out_hex_int(o + 1, p);   /* hex: n > 0 */
			o[0] = '"';
			o[n + 1] = '"';
			b->len += n + 2;
		}
		return;
	}
	scalar_any(j, b, p);
}

static void array(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r,
                  uint32_t first, uint32_t count, unsigned depth);
static void packed_array(struct json_priv *j, struct etl_outbuf *b, const struct etl_prop *a,
                         const struct etl_prop *e0, uint32_t n);

static void prop(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r,
                 uint32_t i, unsigned depth)
{
	const struct etl_prop *p = &r->props[i];
	if (!etl__out_has_children(p)) {
		scalar(j, b, p);
		return;
	}
	uint32_t first, count;
	etl__out_children(r, i, depth, &first, &count);
	if (p->kind == ETL_VAL_ARRAY) {
		array(j, b, r, first, count, depth);
		return;
	}
	if (p->kind == ETL_VAL_ARRAY_PACKED) {
		packed_array(j, b, p, count ? &r->props[first] : NULL, count);
		return;
	}
	etl__ob_putc(b, '{');                   /* a struct: its members */
	for (uint32_t k = 0; k < count; k++) {
		prop_key(j, b, r->props[first + k].name, k != 0, r->names_gen);
		prop(j, b, r, first + k, depth + 1);
	}
	etl__ob_putc(b, '}');
}

#define type_key etl__out_type_key

/* Begins a block of character elements k .. *end (at most 1024 of the n)
 * with room for 9 bytes each, from *start (one byte before it when the
 * block opens the array: see elems_done()); NULL when memory ran out. */
static inline char *elems_begin(struct etl_outbuf *b, uint32_t k, uint32_t n, int at_start, char **start,
                                uint32_t *end)
{
	uint32_t block = n - k < 1024 ? n - k : 1024;
	char *o = etl__ob_room(b, 9 * (size_t)block);
	if (!o)
		return NULL;
	*start = o;
	*end = k + block;
	return o - (at_start != 0);
}

/* Ends a block of array elements written from start to o, each after its
 * comma. A block that opens the array (at_start) was begun one byte
 * before start, over the array's '[', so that its first comma took the
 * bracket's place (instead of moving the block back by one byte): the
 * bracket is put back. The bytes are added to b. */
static inline void elems_done(struct etl_outbuf *b, char *start, char *o, int at_start)
{
	if (at_start) {
		if (o < start)          /* nothing written: the bracket stays */
			return;
		start[-1] = '[';
	}
	b->len += (size_t)(o - start);
}

/* Writes the run of elements e[0 .. n) that are ASCII characters of the
 * type of e[0], each as ,"c" or ,"\escape" (no comma before the array's
 * first element, at_start); returns how many. Char arrays hold one element
 * per character, thousands per event, hence this loop with the type taken
 * from the first element and room reserved per block. */
static uint32_t ascii_chars(struct etl_outbuf *b, const struct etl_prop *e, uint32_t n, int at_start)
{
	if (n == 0 || ascii_char(e) < 0)
		return 0;
	const uint64_t key = type_key(e);       /* e is a character: String out type */
	const uint64_t mask = e->in_type == ETL_IN_INT8 || e->in_type == ETL_IN_UINT8 ? 0xFF : 0xFFFF;
	uint32_t k = 0;
	while (k < n) {
		char *start;
		uint32_t end;
		char *o = elems_begin(b, k, n, at_start, &start, &end);
		if (!o)
			return k;
		for (; k < end; k++) {
			const struct etl_prop *p = &e[k];
			uint64_t c = p->v.u & mask;
			if (type_key(p) != key || c >= 0x80)
				break;
			o[0] = ',';             /* each with its comma (elems_done()) */
			o[1] = '"';
			if (etl__json_plain[c]) {
				o[2] = (char)c;
				o[3] = '"';
				o += 4;
			} else {
				o += 2 + etl__out_json_escape_ascii(o + 2, (unsigned char)c);
				*o++ = '"';
			}
		}
		elems_done(b, start, o, at_start);
		at_start = 0;
		if (k < end)
			break;
	}
	return k;
}

#if defined(__SSE2__) && !defined(ETL_NO_SSE2)
/* The 16 characters of sz bytes (1 or 2) at raw written as ,"c" each (64
 * bytes at o, room the caller has); returns how many of them, from the
 * first, need no escaping (etl__json_plain: 0x20 .. 0x7F but " and \\):
 * the bytes written for those are right, the rest is written over. */
static unsigned plain16(char *o, const uint8_t *raw, unsigned sz)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)raw);
	if (sz == 2)    /* 16-bit characters: 0x100 and up saturate to 0xFF */
		v = _mm_packus_epi16(v, _mm_loadu_si128((const __m128i *)(const void *)(raw + 16)));
	const __m128i q = _mm_set1_epi8('"');
	const __m128i cq = _mm_set1_epi16((short)(',' | '"' << 8));    /* ," */
	__m128i lo = _mm_unpacklo_epi8(v, q), hi = _mm_unpackhi_epi8(v, q);     /* c" */
	_mm_storeu_si128((__m128i *)(void *)o, _mm_unpacklo_epi16(cq, lo));
	_mm_storeu_si128((__m128i *)(void *)(o + 16), _mm_unpackhi_epi16(cq, lo));
	_mm_storeu_si128((__m128i *)(void *)(o + 32), _mm_unpacklo_epi16(cq, hi));
	_mm_storeu_si128((__m128i *)(void *)(o + 48), _mm_unpackhi_epi16(cq, hi));
	/* signed: bytes from 0x80 are below 0x20 */
	__m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
	                           _mm_cmpgt_epi8(_mm_set1_epi8(0x20), v));
	unsigned m = (unsigned)_mm_movemask_epi8(bad) | 0x10000u;
	return (unsigned)__builtin_ctz(m);
}

/* Whether each of the 16 characters of sz bytes at raw is ASCII and has a
 * piece in json_char_piece (all but the controls written as \u00XX):
 * then the block is written piece by piece with no test per character. */
static int pieces16(const uint8_t *raw, unsigned sz)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)raw);
	if (sz == 2)
		v = _mm_packus_epi16(v, _mm_loadu_si128((const __m128i *)(const void *)(raw + 16)));
	/* signed: bytes from 0x80 are below 0x20; \b \t \n \f \r (8..13
	 * but 11) have pieces */
	__m128i ctrl = _mm_cmpgt_epi8(_mm_set1_epi8(0x20), v);
	__m128i piece = _mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(11)),
	                                 _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(7)),
	                                               _mm_cmpgt_epi8(_mm_set1_epi8(14), v)));
	return _mm_movemask_epi8(_mm_andnot_si128(piece, ctrl)) == 0;
}
#endif

/* Each ASCII character as an element of a JSON array: the bytes of ,"c" or
 * ,"\e" (the first in the lowest byte, as etl_put64() stores them) and
 * their number; 0 for the controls written as \u00XX. One load and one
 * store per character, no branch on what it is (a quote or a line break
 * every few characters in script text). */
static const uint64_t json_char_piece[128] = {
	0x0000000000ull, 0x0000000000ull, 0x0000000000ull, 0x0000000000ull,
	0x0000000000ull, 0x0000000000ull, 0x0000000000ull, 0x0000000000ull,
	0x22625c222cull, 0x22745c222cull, 0x226e5c222cull, 0x0000000000ull,
	0x22665c222cull, 0x22725c222cull, 0x0000000000ull, 0x0000000000ull,
	0x0000000000ull, 0x0000000000ull, 0x0000000000ull, 0x0000000000ull,
	0x0000000000ull, 0x0000000000ull, 0x0000000000ull, 0x0000000000ull,
	0x0000000000ull, 0x0000000000ull, 0x0000000000ull, 0x0000000000ull,
	0x0000000000ull, 0x0000000000ull, 0x0000000000ull, 0x0000000000ull,
	0x002220222cull, 0x002221222cull, 0x22225c222cull, 0x002223222cull,
	0x002224222cull, 0x002225222cull, 0x002226222cull, 0x002227222cull,
	0x002228222cull, 0x002229222cull, 0x00222a222cull, 0x00222b222cull,
	0x00222c222cull, 0x00222d222cull, 0x00222e222cull, 0x00222f222cull,
	0x002230222cull, 0x002231222cull, 0x002232222cull, 0x002233222cull,
	0x002234222cull, 0x002235222cull, 0x002236222cull, 0x002237222cull,
	0x002238222cull, 0x002239222cull, 0x00223a222cull, 0x00223b222cull,
	0x00223c222cull, 0x00223d222cull, 0x00223e222cull, 0x00223f222cull,
	0x002240222cull, 0x002241222cull, 0x002242222cull, 0x002243222cull,
	0x002244222cull, 0x002245222cull, 0x002246222cull, 0x002247222cull,
	0x002248222cull, 0x002249222cull, 0x00224a222cull, 0x00224b222cull,
	0x00224c222cull, 0x00224d222cull, 0x00224e222cull, 0x00224f222cull,
	0x002250222cull, 0x002251222cull, 0x002252222cull, 0x002253222cull,
	0x002254222cull, 0x002255222cull, 0x002256222cull, 0x002257222cull,
	0x002258222cull, 0x002259222cull, 0x00225a222cull, 0x00225b222cull,
	0x225c5c222cull, 0x00225d222cull, 0x00225e222cull, 0x00225f222cull,
	0x002260222cull, 0x002261222cull, 0x002262222cull, 0x002263222cull,
	0x002264222cull, 0x002265222cull, 0x002266222cull, 0x002267222cull,
	0x002268222cull, 0x002269222cull, 0x00226a222cull, 0x00226b222cull,
	0x00226c222cull, 0x00226d222cull, 0x00226e222cull, 0x00226f222cull,
	0x002270222cull, 0x002271222cull, 0x002272222cull, 0x002273222cull,
	0x002274222cull, 0x002275222cull, 0x002276222cull, 0x002277222cull,
	0x002278222cull, 0x002279222cull, 0x00227a222cull, 0x00227b222cull,
	0x00227c222cull, 0x00227d222cull, 0x00227e222cull, 0x00227f222cull,
};
static const uint8_t json_char_len[128] = {
	0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 0, 5, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

/* The run of ASCII characters among the n characters of sz bytes (1 or 2)
 * at raw, a packed char array's (etl_decoder_set_flags()), written as
 * ascii_chars() writes them unpacked; returns how many. 16 at a time when
 * none of them needs escaping; else, when all 16 have a piece in
 * json_char_piece, those 16 pieces with no test per character (AMSI's
 * script text, a quote or a line break every few characters: 11 % fewer
 * instructions and 7-8 % less time for its JSONL); else those 16 one by
 * one. (Taking the plain ones before each escape 16 at a time was slower:
 * a branch on their number.) */
static uint32_t raw_chars(struct etl_outbuf *b, const uint8_t *raw, unsigned sz, uint32_t n, int at_start)
{
	uint32_t k = 0;
	while (k < n) {
		char *start;
		uint32_t end;
		char *o = elems_begin(b, k, n, at_start, &start, &end);
		if (!o)
			return k;
		while (k < end) {
			uint32_t stop = end;
#if defined(__SSE2__) && !defined(ETL_NO_SSE2)
			if (end - k >= 16) {    /* 16 left: room for 64 bytes */
				if (plain16(o, raw + (size_t)k * sz, sz) == 16) {
					o += 64;
					k += 16;
					continue;
				}
				if (pieces16(raw + (size_t)k * sz, sz)) {
					/* A quote or a line break among them:
					 * 16 pieces, no test per character. */
					for (unsigned q = 0; q < 16; q++, k++) {
						uint32_t c = sz == 1 ? raw[k] : etl_le16(raw + 2 * (size_t)k);
						etl_put64((uint8_t *)o, json_char_piece[c]);
						o += json_char_len[c];
					}
					continue;
				}
				stop = k + 16;  /* these 16 one by one */
			}
#endif
			for (; k < stop; k++) {
				uint32_t c = sz == 1 ? raw[k] : etl_le16(raw + 2 * (size_t)k);
				if (c >= 0x80)
					break;
				if (json_char_len[c]) { /* 8 bytes stored: 9 of room each */
					etl_put64((uint8_t *)o, json_char_piece[c]);
					o += json_char_len[c];
				} else {
					o[0] = ',';
					o[1] = '"';
					o += 2 + etl__out_json_escape_ascii(o + 2, (unsigned char)c);
					*o++ = '"';
				}
			}
			if (k < stop)
				break;
		}
		elems_done(b, start, o, at_start);
		at_start = 0;
		if (k < end)
			break;
	}
	return k;
}

/* How a run of unsigned integers of e's type is written: 1 in hex, 0 in
 * plain decimal (below 2^53), -1 not as a run (int_run(),
 * packed_int_run()). */
static inline int int_run_kind(const struct etl_prop *e)
{
	if (e->kind != ETL_VAL_UINT)
		return -1;
	if (etl__out_is_hex_type(e))
		return 1;
	return plain_decimal(e) ? 0 : -1;
}

/* Writes the run of elements e[0 .. n) that are unsigned integers of the
 * type of e[0] shown in hex (pointers, stacks: thousands per event in some
 * traces), each as ,"0x...", or in plain decimal below 2^53 (offsets,
 * sizes), each as ,N (no comma before the array's first element,
 * at_start), in room reserved per block; returns how many. */
static uint32_t int_run(struct etl_outbuf *b, const struct etl_prop *e, uint32_t n, int at_start)
{
	const int hex = n ? int_run_kind(e) : -1;
	if (hex < 0)
		return 0;
	const uint64_t key = type_key(e);
	size_t comma = !at_start;
	uint32_t k = 0;
	while (k < n) {
		uint32_t block = n - k < 256 ? n - k : 256;
		char *o = etl__ob_room(b, (ETL_OUT_HEX_INT_MAX + 3) * (size_t)block);
		if (!o)
			return k;
		char *q = o;
		uint32_t end = k + block;
		for (; k < end; k++) {
			const struct etl_prop *p = &e[k];
			if (type_key(p) != key || (!hex && p->v.u >= (uint64_t)JSON_SAFE_INT))
				break;
			q[0] = ',';
			q += comma;                 /* none before the first element */
			comma = 1;
			if (hex) {
				*q++ = '"';
				q += etl__out_hex_int(q, p);
				*q++ = '"';
			} else {
				q += etl__fmt_u64(q, p->v.u);
			}
		}
		b->len += (size_t)(q - o);
		if (k < end)
			break;
	}
	return k;
}

/* Elements k .. end of a packed run of sz-byte unsigned integers at raw,
 * each after its comma (none before element 0), into room at q reserved
 * for them: hex (masked to mask) or plain decimal; sz and hex are
 * constants in each copy (packed_int_run()). Stops before a decimal
 * element at 2^53 or beyond; returns where the text ends, *kp the next
 * element. */
static inline __attribute__((always_inline)) char *packed_ints_k(char *q, const uint8_t *raw, uint32_t *kp,
                                                                 uint32_t end, unsigned sz, int hex,
                                                                 uint64_t mask)
{
	uint32_t k = *kp;
	for (; k < end; k++) {
		uint64_t u = etl_le_uint(raw + (size_t)k * sz, sz);
		if (!hex && sz == 8 && u >= (uint64_t)JSON_SAFE_INT)
			break;
		q[0] = ',';
		q += k != 0;
		if (hex) {
			memcpy(q, "\"0x", 3);
			q += 3 + etl__fmt_hex64(q + 3, u & mask);
			*q++ = '"';
		} else {
			q += etl__fmt_u64(q, u);
		}
	}
	*kp = k;
	return q;
}

/* The n elements of the packed array a (element 0: e0) when they are
 * unsigned integers in hex or plain decimal, written from their bytes as
 * int_run() writes them unpacked (stacks and IL offset maps, dozens to
 * thousands per event); returns how many (0: not such an array, or a
 * decimal element at 2^53 or beyond, from which on each is written as a
 * scalar). */
static uint32_t packed_int_run(struct etl_outbuf *b, const struct etl_prop *a, const struct etl_prop *e0,
                               uint32_t n)
{
	const int hex = int_run_kind(e0);
	if (hex < 0)
		return 0;
	const unsigned sz = etl__packed_size(a);
	const uint8_t *raw = a->v.bin.p;
	const uint64_t mask = etl__out_hex_mask(e0);
	uint32_t k = 0;
	while (k < n) {
		uint32_t block = n - k < 256 ? n - k : 256;
		char *o = etl__ob_room(b, (ETL_OUT_HEX_INT_MAX + 3) * (size_t)block);
		if (!o)
			return k;
		char *q;
		uint32_t end = k + block;
		if (hex)
			q = sz == 8 ? packed_ints_k(o, raw, &k, end, 8, 1, mask)
			            : packed_ints_k(o, raw, &k, end, sz, 1, mask);
		else if (sz == 4)
			q = packed_ints_k(o, raw, &k, end, 4, 0, mask);
		else
			q = packed_ints_k(o, raw, &k, end, sz, 0, mask);
		b->len += (size_t)(q - o);
		if (k < end)
			break;
	}
	return k;
}

/* The elements props[first .. first + count) of an array. Character
 * arrays hold one element per character, thousands per event: those that
 * need no escaping are written here, the rest through prop(). */
static void array(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r,
                  uint32_t first, uint32_t count, unsigned depth)
{
	etl__ob_putc(b, '[');
	uint32_t start = count ? int_run(b, &r->props[first], count, 1) : 0;
	if (start) {
		/* the elements after the run, if any, go on below */
		if (start >= count || b->oom) {
			etl__ob_putc(b, ']');
			return;
		}
	}
	for (uint32_t k = start; k < count; k++) {
		const struct etl_prop *e = &r->props[first + k];
		int ch = ascii_char(e);
		if (ch >= 0) {
			k += ascii_chars(b, e, count - k, k == 0);
			if (k >= count || b->oom)
				break;
			e = &r->props[first + k];
			ch = ascii_char(e);
		}
		if (k)
			etl__ob_putc(b, ',');
		if (ch >= 0)
			put_ascii_char(b, ch);
		else if (!etl__out_has_children(e))
			scalar(j, b, e);
		else
			prop(j, b, r, first + k, depth + 1);
	}
	etl__ob_putc(b, ']');
}

/* The n elements of the packed array a (etl_decoder_set_flags()) whose
 * element 0 is e0, written as array() writes them unpacked: runs of ASCII
 * characters straight from their bytes, every other element made whole
 * (etl__packed_elem()) and written as a scalar, after a run of hex or
 * decimal integers (packed_int_run()). n is 0 when a's child is out of
 * range: [] then. */
static void packed_array(struct json_priv *j, struct etl_outbuf *b, const struct etl_prop *a,
                         const struct etl_prop *e0, uint32_t n)
{
	etl__ob_putc(b, '[');
	const uint8_t *raw = n ? a->v.bin.p : NULL;
	const unsigned sz = n ? etl__packed_size(a) : 0;
	uint32_t start = n ? packed_int_run(b, a, e0, n) : 0;
	for (uint32_t k = start; k < n && !b->oom; k++) {
		struct etl_prop e;
		etl__packed_elem(a, e0, k, &e);
		if (ascii_char(&e) >= 0) {
			k += raw_chars(b, raw + (size_t)k * sz, sz, n - k, k == 0);
			if (k >= n || b->oom)
				break;
			etl__packed_elem(a, e0, k, &e);
		}
		if (k)
			etl__ob_putc(b, ',');
		int ch = ascii_char(&e);
		if (ch >= 0)
			put_ascii_char(b, ch);
		else
			scalar(j, b, &e);
	}
	etl__ob_putc(b, ']');
}

static void record(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	if (r->absent) {
		etl__ob_puts(b, "null");
		return;
	}
	etl__ob_putc(b, '{');
	etl__json_system_part(j, b, r);
	if (r->has_data) {
		int f = 1;
		/* Locals: the compiler cannot know that writing b leaves r alone. */
		const struct etl_prop *props = r->props;
		const uint32_t n = r->n_props;
		ETL_OB_LIT(b, ",\"EventData\":{");
		for (uint32_t i = etl__out_next_top(props, n, 0); i < n; i = etl__out_next_top(props, n, i + 1)) {
			prop_key(j, b, props[i].name, !f, r->names_gen);
			f = 0;
			if (!etl__out_has_children(&props[i]))
				scalar(j, b, &props[i]);
			else
				prop(j, b, r, i, 0);
		}
		etl__ob_putc(b, '}');
	} else if (r->has_error) {
		ETL_OB_LIT(b, ",\"ProcessingErrorData\":{\"ErrorCode\":");
		etl__ob_u64(b, (unsigned)r->error_code);
		ETL_OB_LIT(b, ",\"DataItemName\":\"\",\"EventPayload\":\"");
		etl__out_hex(b, r->payload, r->payload_len);
		etl__ob_puts(b, "\",\"Reason\":");
		str(b, r->error_reason ? r->error_reason : "");
		etl__ob_putc(b, '}');
	}
	if (r->decoding_source) {               /* ETL_OUTPUT_EXPLAIN */
		ETL_OB_LIT(b, ",\"DecodingSource\":");
		str(b, r->decoding_source);
	}
	if (r->has_rendering)
		etl__json_rendering_part(j, b, r);
	if (r->has_ext_tracing)
		etl__json_ext_tracing_part(j, b, r);
	etl__ob_putc(b, '}');
}

static int json_event(struct etl_render *o, const struct etl_out_rec *r)
{
	struct json_priv *j = o->priv;
	struct etl_outbuf *b = &o->buf;
	if (j->lines) {
		record(j, b, r);
		etl__ob_putc(b, '\n');
	} else if (r->is_header) {
		etl__ob_puts(b, "{\"Header\":");
		record(j, b, r);
		etl__ob_puts(b, ",\n\"Events\":[");
	} else {
		/* ETL_OUTPUT_EVENTS_ONLY: as after a first event (etl_output.h). */
		int later = j->events || (o->flags & ETL_OUTPUT_EVENTS_ONLY);
		etl__ob_puts(b, later ? ",\n" : "\n");
		record(j, b, r);
	}
	if (!r->is_header)
		j->events++;
	return etl__render_flush(o);
}

static int json_end(struct etl_render *o)
{
	struct json_priv *j = o->priv;
	if (j->lines)
		return ETL_OK;
	etl__ob_puts(&o->buf, "\n]}\n");
	return etl__render_flush(o);
}

const struct etl_out_ops etl__out_json = {
	"json", json_open, NULL, json_event, json_end, json_close
};

const struct etl_out_ops etl__out_jsonl = {
	"jsonl", jsonl_open, NULL, json_event, json_end, json_close
};
