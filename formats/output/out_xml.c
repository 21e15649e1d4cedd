/*
 * formats/output/out_xml.c - Windows event XML (the EvtRender / tracerpt
 * schema, doc/decoding.md §6.1 and §6.3):
 *
 *   <?xml version="1.0" encoding="UTF-8"?>
 *   <Events>
 *   <Event xmlns="http://schemas.microsoft.com/win/2004/08/events/event">
 *     <System>
 *       <Provider Name="..." Guid="{...}"/>     Name only when known
 *       <EventID>, <Version>, <Level>, <Task>, <Opcode>   decimal
 *       <Keywords>0x8000000000000000</Keywords>
 *       <TimeCreated SystemTime="2020-02-17T12:48:30.4203138Z"/>
 *                     (RawTime="N" instead when the time is unknown)
 *       <Correlation ActivityID="{...}" RelatedActivityID="{...}"/>
 *       <Execution ProcessID ThreadID ProcessorID KernelTime UserTime/>
 *       <Channel>, <Computer/>, [<Security UserID="S-..."/>]
 *     </System>
 *     <EventData><Data Name="...">value</Data>...</EventData>
 *       or <ProcessingErrorData><ErrorCode/><DataItemName/>
 *          <EventPayload>HEX</EventPayload><!-- reason --></ProcessingErrorData>
 *     [<RenderingInfo Culture="en-US"><Message/><Level/><Opcode/><Task/>
 *        <Channel/><Provider/><Keywords><Keyword/>...</Keywords>
 *        <EventName xmlns="http://schemas.microsoft.com/win/2004/08/events/trace"/>
 *      </RenderingInfo>]
 *     [<ExtendedTracingInfo xmlns="http://schemas.microsoft.com/win/2004/08/events/trace">
 *        <EventGuid>{...}</EventGuid>      classic and kernel records
 *        [<InstanceID/><ParentInstanceID/><ParentGuid/>]  instance headers
 *      </ExtendedTracingInfo>]
 *   </Event>
 *   ...
 *   </Events>
 *
 * One <Event> per line, no indentation inside; an element without content
 * is written <Name/>. Nested properties are flattened as etl__out_leaves()
 * names them: struct members as <Data Name="s.member">, array elements as
 * <Data Name="a[0]">.
 *
 * Text that XML 1.0 cannot carry is replaced (etl__out_clean): C0 controls
 * other than TAB, LF, CR become the Unicode Control Picture U+2400+c
 * (U+0001 -> U+2401 "␁"), bytes that are not UTF-8 and U+FFFE/U+FFFF
 * become U+FFFD; content and attributes are then escaped as libxml2's
 * xmlTextWriter escapes them (lib/render/escape_xml.c), which this
 * renderer wrote through before it wrote the text itself. The comment
 * holding the reason of a ProcessingErrorData has "--" written as "- -".
 *
 * The document is written straight into the output buffer: the parts of
 * a record that depend only on its kind come from memos
 * (lib/render/memo.h), and property names known to the memo are not
 * escaped again.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "formats/output/out.h"
#include "lib/render/memo.h"

#define NS_EVENT "http://schemas.microsoft.com/win/2004/08/events/event"
#define NS_TRACE "http://schemas.microsoft.com/win/2004/08/events/trace"

struct xml_priv {
	struct etl_outbuf val;       /* a formatted value to escape           */
	struct etl_outbuf name;      /* <Data Name=" and a nested leaf's
	                                name, escaped                         */
	struct etl_head_memo *head;
	struct etl_tail_memo *tail;
	struct etl_name_memo *names; /* property names, attribute-escaped     */
	struct etl_time_memo time;
	struct etl_guid_memo event_guid;   /* ExtendedTracingInfo's           */
};

static int xml_open(struct etl_render *o)
{
	struct xml_priv *x = calloc(1, sizeof *x);
	if (!x)
		return ETL_FATAL;
	o->priv = x;
	return ETL_OK;
}

static void xml_close(struct etl_render *o)
{
	struct xml_priv *x = o->priv;
	if (!x)
		return;
	etl__ob_free(&x->val);
	etl__ob_free(&x->name);
	etl__memo_head_free(x->head);
	etl__memo_tail_free(x->tail);
	free(x->names);
	free(x);
	o->priv = NULL;
}

/* Appends a string literal at q (room known); PUTL advances q. */
#define PUTL(q, lit) (memcpy((q), "" lit, sizeof(lit) - 1), (q) += sizeof(lit) - 1)

/* Room for the fixed parts written at once: literals, GUIDs, numbers. */
#define XML_PART_MAX 512u
/* Longest <Data Name="name of an array whose elements are written by
 * copying it whole (longer ones take the general way). */
#define XML_PREFIX_MAX 112u

/* "{xxxxxxxx-...}" at q; returns the end. */
static char *put_guid(char *q, const struct etl_guid *g)
{
	q[0] = '{';
	etl__fmt_guid(q + 1, g);
	q[ETL_FMT_GUID_LEN + 1] = '}';
	return q + ETL_FMT_GUID_LEN + 2;
}

/* <name>text</name>, or <name/> when text is NULL or empty; open is
 * "<name", close "</name>". */
static void elem_text(struct etl_outbuf *b, const char *open, const char *close, const char *s)
{
	etl__ob_puts(b, open);
	if (!s || !*s) {
		ETL_OB_LIT(b, "/>");
		return;
	}
	etl__ob_putc(b, '>');
	etl__out_xml_text(b, s, strlen(s));
	etl__ob_puts(b, close);
}

/* The text up to TimeCreated's attribute, the same for every event of a
 * kind (the memo's head). */
static void system_head(void *ctx, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	(void)ctx;
	ETL_OB_LIT(b, "<Event xmlns=\"" NS_EVENT "\"><System><Provider");
	if (r->provider_name) {
		ETL_OB_LIT(b, " Name=\"");
		etl__out_xml_attr(b, r->provider_name, strlen(r->provider_name));
		etl__ob_putc(b, '"');
	}
	char *o = etl__ob_room(b, XML_PART_MAX);
	if (!o)
		return;
	char *q = o;
	PUTL(q, " Guid=\"");
	q = put_guid(q, &r->provider);
	PUTL(q, "\"/><EventID>");
	q += etl__fmt_u64(q, r->event_id);
	PUTL(q, "</EventID><Version>");
	q += etl__fmt_u64(q, r->version);
	PUTL(q, "</Version><Level>");
	q += etl__fmt_u64(q, r->level);
	PUTL(q, "</Level><Task>");
	q += etl__fmt_u64(q, r->task);
	PUTL(q, "</Task><Opcode>");
	q += etl__fmt_u64(q, r->opcode);
	PUTL(q, "</Opcode><Keywords>0x");
	q += etl__fmt_hex64(q, r->keywords);
	PUTL(q, "</Keywords><TimeCreated");
	b->len += (size_t)(q - o);
}

/* Name="value" with a decimal value at q; returns the end. */
#define PUT_ATTR_U64(q, lit, v) (PUTL(q, lit "=\""), (q) += etl__fmt_u64((q), (v)), *(q)++ = '"')

/* TimeCreated's attribute and the rest of System. */
static void system_rest(struct xml_priv *x, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	char *o = etl__ob_room(b, XML_PART_MAX);
	if (!o)
		return;
	char *q = o;
	if (r->has_time) {
		PUTL(q, " SystemTime=\"");
		q += etl__memo_time(&x->time, q, r->utc);
		*q++ = '"';
	} else if (r->has_raw) {
		PUTL(q, " RawTime=\"");
		q += etl__fmt_i64(q, r->raw);
		*q++ = '"';
	}
	PUTL(q, "/><Correlation");
	if (r->has_activity) {
		PUTL(q, " ActivityID=\"");
		q = put_guid(q, &r->activity);
		*q++ = '"';
	}
	if (r->has_related) {
		PUTL(q, " RelatedActivityID=\"");
		q = put_guid(q, &r->related);
		*q++ = '"';
	}
	PUTL(q, "/>");
	if (r->has_exec) {
		PUTL(q, "<Execution");
		if (r->has_pid) {
			PUT_ATTR_U64(q, " ProcessID", r->pid);
			PUT_ATTR_U64(q, " ThreadID", r->tid);
		}
		PUT_ATTR_U64(q, " ProcessorID", r->cpu);
		if (r->has_cpu_times) {
			PUT_ATTR_U64(q, " KernelTime", r->kernel_time);
			PUT_ATTR_U64(q, " UserTime", r->user_time);
		}
		PUTL(q, "/>");
	}
	PUTL(q, "<Channel>");
	q += etl__fmt_u64(q, r->channel);
	PUTL(q, "</Channel><Computer/>");
	b->len += (size_t)(q - o);
	if (r->user_sid) {
		ETL_OB_LIT(b, "<Security UserID=\"");
		etl__out_xml_attr(b, r->user_sid, strlen(r->user_sid));
		ETL_OB_LIT(b, "\"/>");
	}
	ETL_OB_LIT(b, "</System>");
}

/* ---- EventData --------------------------------------------------------- */

/* The text of value p that is not plain ASCII, or may be empty: formatted
 * apart, then cleaned and escaped. */
static void data_text(struct xml_priv *x, struct etl_outbuf *b, const struct etl_prop *p)
{
	x->val.len = 0;
	etl__out_value(&x->val, p);
	if (x->val.oom)
		b->oom = 1;
	etl__out_xml_text(b, x->val.p, x->val.len);
}

/* The value of leaf p after <Data Name="..." (the name's closing quote
 * written): >value</Data>, or /> when its text is empty. Values that cannot
 * hold anything to escape (numbers, GUIDs, times, ...) are formatted in
 * place. */
/* data_value() of the commonest integers: hex, plain decimal, and ASCII
 * characters that need no escaping, written at once. Returns 0 (nothing
 * written) for any other value. Inline: once per value, thousands per
 * event in stacks and char arrays. */
static inline __attribute__((always_inline)) int data_int(struct etl_outbuf *b, const struct etl_prop *p)
{
	if (p->kind != ETL_VAL_INT && p->kind != ETL_VAL_UINT)
		return 0;
	char *o = etl__ob_room(b, ETL_OUT_HEX_INT_MAX + 12);
	if (!o)
		return 1;
	size_t n;
	int ch;
	o[0] = '>';
	if (etl__out_is_hex_type(p))
		n = etl__out_hex_int(o + 1, p);         /* "0x..." */
	else if (p->out_type == ETL_OUT_NULL)
		n = p->kind == ETL_VAL_INT ? etl__fmt_i64(o + 1, p->v.i) : etl__fmt_u64(o + 1, p->v.u);
	else if ((ch = etl__out_ascii_char(p)) >= 0x20 && ch != '<' && ch != '>' && ch != '&' && ch != '"')
		o[1] = (char)ch, n = 1;
	else if (ch < 0 && etl__out_int_decimal(p))     /* PIDs, TIDs, ... */
		n = p->kind == ETL_VAL_INT ? etl__fmt_i64(o + 1, p->v.i) : etl__fmt_u64(o + 1, p->v.u);
	else
		return 0;
	memcpy(o + 1 + n, "</Data>", 7);
	b->len += 1 + n + 7;
	return 1;
}

/* data_value() for the values data_int() leaves. */
static __attribute__((noinline)) void data_other(struct xml_priv *x, struct etl_outbuf *b,
                                                 const struct etl_prop *p)
{
	etl__ob_putc(b, '>');
	size_t start = b->len;
	if (!etl__out_value_needs_escape(p))
		etl__out_value(b, p);           /* plain ASCII, nothing to escape */
	else
		data_text(x, b, p);
	if (b->len == start) {
		b->len--;
		ETL_OB_LIT(b, "/>");
	} else {
		ETL_OB_LIT(b, "</Data>");
	}
}

static inline void data_value(struct xml_priv *x, struct etl_outbuf *b, const struct etl_prop *p)
{
	if (!data_int(b, p))
		data_other(x, b, p);
}

/* 1 for the characters below U+0080 that element content holds as they
 * are (etl__out_xml_text() leaves them): printable ASCII and DEL but < > &
 * ", and TAB and LF. */
static const uint8_t xml_plain_char[128] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* The decimal digits of an array index below 10^8, as ASCII bytes packed
 * into v first digit lowest (n of them), made one more; v then goes out
 * with one 8-byte store. Why not the digits in a byte array: written byte
 * by byte and read back whole for each element, they stalled every
 * element on store forwarding (most of the time of char and stack
 * arrays). At 99999999 the result is wrong and not used. */
static inline void index_next_packed(uint64_t *v, size_t *n)
{
	for (size_t i = *n; i > 0; i--) {
		unsigned sh = 8u * (unsigned)(i - 1);
		if (((*v >> sh) & 0xFF) != '9') {
			*v += (uint64_t)1 << sh;
			return;
		}
		*v = (*v & ~((uint64_t)0xFF << sh)) | ((uint64_t)'0' << sh);
	}
	if (*n < 8) {                   /* 9..9 -> 10..0 */
		*v = (*v << 8) | '1';
		++*n;
	}
}

/* The 8 bytes of v at o, lowest first: one store. */
static inline void put_packed(char *o, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(o, &v, 8);
#else
	for (unsigned i = 0; i < 8; i++)
		o[i] = (char)(v >> (8 * i));
#endif
}

/* Most bytes one element of an array takes in data_walk(): the name's
 * copy in 16-byte blocks, its index and bracket, and the value's start. */
#define XML_ELEM_ROOM (XML_PREFIX_MAX + 16 + 8 + 2 + 14)

/* <Data Name="name[k]" of an array element at o, from pre (the name of
 * base bytes, '[' and zeros) and k's digits (d, l of them), with room for
 * XML_ELEM_ROOM; returns the position after it. A fixed 48 bytes for the
 * usual short name: a loop of 16-byte copies became a "rep movsq", whose
 * start-up cost most of the element's time. */
static inline char *elem_name(char *o, const char *pre, size_t base, uint64_t d, size_t l)
{
	if (base < 48)
		memcpy(o, pre, 48);
	else
		for (size_t at = 0; at <= base; at += 16)
			memcpy(o + at, pre + at, 16);
	put_packed(o + base + 1, d);
	o += base + l + 3;
	o[-2] = ']';
	o[-1] = '"';
	return o;
}

/* >c</Data> for the ASCII character ch at o; returns the position after. */
static inline char *char_value(char *o, uint64_t ch)
{
	o[0] = '>';
	size_t m = 1;
	if (xml_plain_char[ch])
		o[1] = (char)ch;
	else
		m = etl__out_xml_char(o + 1, (unsigned char)ch);
	memcpy(o + 1 + m, "</Data>", 7);
	return o + m + 8;
}

/* Elements k.. of a packed char array (etl_decoder_set_flags()) whose
 * characters of sz bytes at raw are ASCII, up to n, each written as
 * data_walk() writes such an element (pre: the name of base bytes, '[' and
 * zeros; *digits and *il: k's digits, advanced); room is reserved for 64
 * at a time. Returns where it stopped: n, a character from 0x80, or out of
 * memory (b->oom). Inline with sz constant: one loop per width. */
static inline __attribute__((always_inline)) uint32_t packed_chars(struct etl_outbuf *b, const char *pre,
                                                                   size_t base, const uint8_t *raw,
                                                                   unsigned sz, uint32_t k, uint32_t n,
                                                                   uint64_t *digits, size_t *il)
{
	uint64_t d = *digits;
	size_t l = *il;
	while (k < n) {
		uint32_t end = n - k < 64 ? n : k + 64;
		char *o = etl__ob_room(b, XML_ELEM_ROOM * (size_t)(end - k));
		if (!o)
			break;
		char *start = o;
		for (; k < end; k++) {
			uint32_t ch = sz == 1 ? raw[k] : etl_le16(raw + 2 * (size_t)k);
			if (ch >= 0x80)
				break;
			o = elem_name(o, pre, base, d, l);
			index_next_packed(&d, &l);
			o = char_value(o, ch);
		}
		b->len += (size_t)(o - start);
		if (k < end)
			break;
	}
	*digits = d;
	*il = l;
	return k;
}

/* Elements k .. n of a packed array of sz-byte integers at raw (stacks,
 * IL offset maps), each written as data_walk() writes an unpacked one,
 * data_int()'s text from the bytes: hex (0x..., the value masked to
 * mask) or decimal (signed: sign-extended); room for 64 at a time.
 * Returns n, or where memory ran out (b->oom). Inline with sz, hex and
 * sign constant. */
static inline __attribute__((always_inline)) uint32_t packed_ints(struct etl_outbuf *b, const char *pre,
                                                                  size_t base, const uint8_t *raw,
                                                                  unsigned sz, int hex, int sign,
                                                                  uint64_t mask, uint32_t k, uint32_t n,
                                                                  uint64_t *digits, size_t *il)
{
	uint64_t d = *digits;
	size_t l = *il;
	while (k < n) {
		uint32_t end = n - k < 64 ? n : k + 64;
		char *o = etl__ob_room(b, (XML_ELEM_ROOM + ETL_OUT_HEX_INT_MAX + 8) * (size_t)(end - k));
		if (!o)
			break;
		char *start = o;
		for (; k < end; k++) {
			uint64_t u = etl_le_uint(raw + (size_t)k * sz, sz);
			if (sign)
				u = etl_sign_extend(u, sz);
			o = elem_name(o, pre, base, d, l);
			index_next_packed(&d, &l);
			o[0] = '>';
			if (hex) {
				o[1] = '0';
				o[2] = 'x';
				o += 3 + etl__fmt_hex64(o + 3, u & mask);
			} else if (sign) {
				o += 1 + etl__fmt_i64(o + 1, (int64_t)u);
			} else {
				o += 1 + etl__fmt_u64(o + 1, u);
			}
			memcpy(o, "</Data>", 7);
			o += 7;
		}
		b->len += (size_t)(o - start);
	}
	*digits = d;
	*il = l;
	return k;
}

/* packed_ints() for the packed array p whose element 0 is e (element k
 * on), when its elements are integers data_int() writes as hex or plain
 * decimal; k (nothing written) otherwise. */
static uint32_t packed_int_elems(struct etl_outbuf *b, const char *pre, size_t base, const struct etl_prop *p,
                                 const struct etl_prop *e, uint32_t k, uint32_t n, uint64_t *digits, size_t *il)
{
	if (e->kind != ETL_VAL_INT && e->kind != ETL_VAL_UINT)
		return k;
	const int hex = etl__out_is_hex_type(e);
	if (!hex && e->out_type != ETL_OUT_NULL)
		return k;
	const unsigned sz = etl__packed_size(p);
	const uint8_t *raw = p->v.bin.p;
	if (hex) {
		const uint64_t mask = etl__out_hex_mask(e);     /* as etl__out_hex_int() */
		if (e->kind == ETL_VAL_INT)     /* sign-extended, then masked */
			return sz == 4 ? packed_ints(b, pre, base, raw, 4, 1, 1, mask, k, n, digits, il)
			               : packed_ints(b, pre, base, raw, sz, 1, 1, mask, k, n, digits, il);
		return sz == 8 ? packed_ints(b, pre, base, raw, 8, 1, 0, mask, k, n, digits, il)
		               : packed_ints(b, pre, base, raw, sz, 1, 0, mask, k, n, digits, il);
	}
	if (e->kind == ETL_VAL_INT)
		return packed_ints(b, pre, base, raw, sz, 0, 1, 0, k, n, digits, il);
	return sz == 4 ? packed_ints(b, pre, base, raw, 4, 0, 0, 0, k, n, digits, il)
	               : packed_ints(b, pre, base, raw, sz, 0, 0, 0, k, n, digits, il);
}

/* The leaves under props[i]; x->name holds <Data Name=" and the escaped
 * name of props[i]. A run of scalar elements of an array is written from
 * the name and the index kept in digits (stacks and char arrays have
 * thousands); other elements' indexes are formatted each time. */
static void data_walk(struct xml_priv *x, struct etl_outbuf *b, const struct etl_out_rec *r, uint32_t i,
                      unsigned depth)
{
	const struct etl_prop *p = &r->props[i];
	if (!etl__out_has_children(p)) {
		etl__ob_put(b, x->name.p, x->name.len);
		etl__ob_putc(b, '"');
		data_value(x, b, p);
		return;
	}
	uint32_t first, count;
	etl__out_children(r, i, depth, &first, &count);
	size_t base = x->name.len;
	uint32_t k = 0;
	/* A packed array's elements come from their bytes and element 0 (the
	 * character from the bytes alone), each into tmp when it is needed
	 * whole. */
	const int packed = p->kind == ETL_VAL_ARRAY_PACKED;
	const uint8_t *raw = packed && count ? p->v.bin.p : NULL;
	const unsigned sz = packed && count ? etl__packed_size(p) : 0;
	struct etl_prop tmp;
	if ((p->kind == ETL_VAL_ARRAY || packed) && count && base <= XML_PREFIX_MAX) {
		/* Scalar elements: the name, then the index and its bracket
		 * copied in blocks of 16 bytes (the room is there), the
		 * value; ASCII characters of the first element's type (char
		 * arrays: one per character) at once. */
		char pre[XML_PREFIX_MAX + 16];
		if (base < 48)                  /* constant sizes: no "rep stos" */
			memset(pre, 0, 64);
		else
			memset(pre, 0, sizeof pre);
		if (base)
			memcpy(pre, x->name.p, base);
		pre[base] = '[';
		const struct etl_prop *e = &r->props[first];
		const uint64_t key = etl__out_type_key(e);
		const uint64_t mask = etl__out_ascii_char(e) < 0 ? 0 : etl__out_in_type_bytes(e->in_type) == 1 ? 0xFF
		                                                                                      : 0xFFFF;
		uint64_t digits = '0';         /* k's, il of them */
		size_t il = 1;
		for (; k < count && k < 100000000u; k++) {
			if (packed && mask && count <= 100000000u) {
				k = sz == 1 ? packed_chars(b, pre, base, raw, 1, k, count, &digits, &il)
				            : packed_chars(b, pre, base, raw, 2, k, count, &digits, &il);
				if (k >= count || b->oom)
					break;
			} else if (packed && count <= 100000000u) {
				k = packed_int_elems(b, pre, base, p, e, k, count, &digits, &il);
				if (k >= count || b->oom)
					break;
			}
			const struct etl_prop *c = NULL;
			uint64_t ch = 0;
			int one_char = 0;       /* an ASCII character of e's type */
			if (!packed) {          /* packed: packed_chars() took those */
				c = &e[k];
				if (etl__out_has_children(c))
					break;
				ch = c->v.u & mask;
				one_char = mask && etl__out_type_key(c) == key && ch < 0x80;
			}
			char *o = etl__ob_room(b, XML_ELEM_ROOM);
			if (!o)
				return;
			char *start = o;
			o = elem_name(o, pre, base, digits, il);
			index_next_packed(&digits, &il);
			if (one_char) {
				b->len += (size_t)(char_value(o, ch) - start);
				continue;
			}
			b->len += (size_t)(o - start);
			if (packed) {
				etl__packed_elem(p, e, k, &tmp);
				c = &tmp;
			}
			data_value(x, b, c);
		}
	}
	for (; k < count; k++) {
		const struct etl_prop *c = &r->props[first + (packed ? 0 : k)];
		if (packed) {
			etl__packed_elem(p, c, k, &tmp);
			c = &tmp;
		}
		x->name.len = base;
		if (p->kind == ETL_VAL_ARRAY || packed) {
			/* "[k]" needs no escaping: the name's text so far stays */
			char *o = etl__ob_room(&x->name, ETL_FMT_U64_MAX + 3);
			if (!o)
				break;
			o[0] = '[';
			size_t il = etl__fmt_u64(o + 1, k);
			o[il + 1] = ']';
			x->name.len += il + 2;
			if (!etl__out_has_children(c)) {
				etl__ob_put(b, x->name.p, x->name.len);
				etl__ob_putc(b, '"');
				data_value(x, b, c);
				continue;
			}
		} else {
			etl__ob_putc(&x->name, '.');
			if (c->name)
				etl__out_xml_attr(&x->name, c->name, strlen(c->name));
		}
		data_walk(x, b, r, first + k, depth + 1);
	}
	x->name.len = base;
}

/* <Data Name=" and a top-level property's escaped name, from the memo when
 * this name was seen, and its closing quote. */
static void data_name(struct xml_priv *x, struct etl_outbuf *b, const char *name, uint64_t gen)
{
	const struct etl_name_entry *m = etl__memo_name_find(x->names, name, gen);
	char *o = etl__ob_room(b, 12 + ETL_NAME_TEXT_MAX + 1);
	if (!o)
		return;
	memcpy(o, "<Data Name=\"", 12);
	if (m) {
		/* the text's room holds the quote after the longest text */
		memcpy(o + 12, m->text, ETL_NAME_TEXT_MAX);
		o[12 + m->text_len] = '"';
		b->len += 12 + m->text_len + 1;
		return;
	}
	b->len += 12;
	size_t n = strlen(name), start = b->len;
	etl__out_xml_attr(b, name, n);
	if (!b->oom)
		etl__memo_name_keep(&x->names, name, n, gen, b->p + start, b->len - start);
	etl__ob_putc(b, '"');
}

static void event_data(struct xml_priv *x, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	ETL_OB_LIT(b, "<EventData>");
	size_t empty = b->len;
	const struct etl_prop *props = r->props;
	const uint32_t n = r->n_props;
	for (uint32_t i = etl__out_next_top(props, n, 0); i < n; i = etl__out_next_top(props, n, i + 1)) {
		const char *name = props[i].name ? props[i].name : "";
		if (!etl__out_has_children(&props[i])) {
			data_name(x, b, name, r->names_gen);
			data_value(x, b, &props[i]);
			continue;
		}
		x->name.len = 0;
		ETL_OB_LIT(&x->name, "<Data Name=\"");
		etl__out_xml_attr(&x->name, name, strlen(name));
		if (x->name.oom)
			b->oom = 1;
		data_walk(x, b, r, i, 0);
	}
	if (b->len == empty) {
		b->len--;
		ETL_OB_LIT(b, "/>");
	} else {
		ETL_OB_LIT(b, "</EventData>");
	}
}

/* ---- ProcessingErrorData, RenderingInfo, ExtendedTracingInfo ----------- */

/* The reason as a comment: cleaned, no "--" inside, no "-" at the end. */
static void reason_comment(struct xml_priv *x, struct etl_outbuf *b, const char *reason)
{
	x->val.len = 0;
	etl__out_clean(&x->val, reason, strlen(reason), 1);
	if (x->val.oom)
		b->oom = 1;
	ETL_OB_LIT(b, "<!-- ");
	for (size_t i = 0; i < x->val.len; i++) {
		etl__ob_putc(b, x->val.p[i]);
		if (x->val.p[i] == '-' && i + 1 < x->val.len && x->val.p[i + 1] == '-')
			etl__ob_putc(b, ' ');
	}
	ETL_OB_LIT(b, " -->");
}

static void error_data(struct xml_priv *x, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	ETL_OB_LIT(b, "<ProcessingErrorData><ErrorCode>");
	etl__ob_u64(b, (unsigned)r->error_code);
	ETL_OB_LIT(b, "</ErrorCode><DataItemName/><EventPayload");
	if (r->payload_len) {
		etl__ob_putc(b, '>');
		etl__out_hex(b, r->payload, r->payload_len);
		ETL_OB_LIT(b, "</EventPayload>");
	} else {
		ETL_OB_LIT(b, "/>");
	}
	if (r->error_reason)
		reason_comment(x, b, r->error_reason);
	ETL_OB_LIT(b, "</ProcessingErrorData>");
}

/* The RenderingInfo text after the message (the memo's tail). */
static void rendering_tail(void *ctx, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	(void)ctx;
	if (r->r_level)
		elem_text(b, "<Level", "</Level>", r->r_level);
	if (r->r_opcode)
		elem_text(b, "<Opcode", "</Opcode>", r->r_opcode);
	if (r->r_task)
		elem_text(b, "<Task", "</Task>", r->r_task);
	if (r->r_channel)
		elem_text(b, "<Channel", "</Channel>", r->r_channel);
	if (r->r_provider)
		elem_text(b, "<Provider", "</Provider>", r->r_provider);
	if (r->r_keywords && *r->r_keywords) {
		ETL_OB_LIT(b, "<Keywords");
		const char *s = r->r_keywords;
		int any = 0;
		while (*s) {
			size_t n = strcspn(s, " ");
			if (n) {
				if (!any)
					etl__ob_putc(b, '>');
				any = 1;
				ETL_OB_LIT(b, "<Keyword>");
				etl__out_xml_text(b, s, n);
				ETL_OB_LIT(b, "</Keyword>");
			}
			s += n;
			while (*s == ' ')
				s++;
		}
		if (any)
			ETL_OB_LIT(b, "</Keywords>");
		else
			ETL_OB_LIT(b, "/>");
	}
	if (r->r_event_name)
		elem_text(b, "<EventName xmlns=\"" NS_TRACE "\"", "</EventName>", r->r_event_name);
	ETL_OB_LIT(b, "</RenderingInfo>");
}

static void rendering_part(struct xml_priv *x, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	ETL_OB_LIT(b, "<RenderingInfo Culture=\"en-US\">");
	if (r->r_message)
		elem_text(b, "<Message", "</Message>", r->r_message);
	etl__memo_tail(&x->tail, b, r, rendering_tail, NULL);
}

/* tracerpt's ExtendedTracingInfo (doc/decoding.md §6.3): the event class GUID
 * of a classic or kernel record, and an instance header's ids. */
static void ext_tracing_part(struct xml_priv *x, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	char *o = etl__ob_room(b, XML_PART_MAX);
	if (!o)
		return;
	char *q = o;
	PUTL(q, "<ExtendedTracingInfo xmlns=\"" NS_TRACE "\"><EventGuid>");
	etl__memo_guid(&x->event_guid, q, &r->event_guid);
	q += ETL_FMT_GUID_LEN + 2;
	PUTL(q, "</EventGuid>");
	if (r->has_instance) {
		PUTL(q, "<InstanceID>");
		q += etl__fmt_u64(q, r->instance_id);
		PUTL(q, "</InstanceID><ParentInstanceID>");
		q += etl__fmt_u64(q, r->parent_instance_id);
		PUTL(q, "</ParentInstanceID><ParentGuid>");
		q = put_guid(q, &r->parent_guid);
		PUTL(q, "</ParentGuid>");
	}
	PUTL(q, "</ExtendedTracingInfo>");
	b->len += (size_t)(q - o);
}

/* ---- the document ------------------------------------------------------ */

static int xml_begin(struct etl_render *o)
{
	ETL_OB_LIT(&o->buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Events>\n");
	return etl__render_flush(o);
}

static int xml_event(struct etl_render *o, const struct etl_out_rec *r)
{
	struct xml_priv *x = o->priv;
	struct etl_outbuf *b = &o->buf;
	if (r->absent)
		return ETL_OK;
	etl__memo_head(&x->head, b, r, system_head, NULL);
	system_rest(x, b, r);
	if (r->has_data)
		event_data(x, b, r);
	else if (r->has_error)
		error_data(x, b, r);
	if (r->has_rendering)
		rendering_part(x, b, r);
	if (r->has_ext_tracing)
		ext_tracing_part(x, b, r);
	ETL_OB_LIT(b, "</Event>\n");
	return etl__render_flush(o);
}

static int xml_end(struct etl_render *o)
{
	ETL_OB_LIT(&o->buf, "</Events>\n");
	return etl__render_flush(o);
}

const struct etl_out_ops etl__out_xml = {
	"xml", xml_open, xml_begin, xml_event, xml_end, xml_close
};
