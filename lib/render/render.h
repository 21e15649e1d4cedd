/*
 * lib/render/render.h - what every renderer (formats/output/out_*.c) works
 * with (internal): the record it lays out, the context it writes through,
 * the growable buffer, value formatting, escaping and the property tree.
 *
 * The output handle (lib/output/) turns every event into one struct
 * etl_out_rec: the System values resolved (provider name, times,
 * correlation ids, ...), the payload as a property tree (decoded
 * properties, or the logfile-header fields for the header event) or as an
 * error with the raw payload, and the RenderingInfo names. A renderer only
 * lays that record out: it formats into o->buf and calls
 * etl__render_flush() once per event, so memory stays constant whatever
 * the number of events.
 *
 * Renderer contract (struct etl_out_ops; every callback may be NULL
 * except event):
 *   open(o)    allocate o->priv;                       ETL_OK / ETL_FATAL
 *   begin(o)   write the document prologue;            ETL_OK / ETL_FATAL
 *   event(o,r) write one record (r->is_header for the header slot, which
 *              comes exactly once, before any other record);
 *                                                      ETL_OK / ETL_FATAL
 *   end(o)     write the epilogue;                     ETL_OK / ETL_FATAL
 *   close(o)   free o->priv; safe after a failed open or begin.
 * A renderer reports failures with etl__render_fail() (returns ETL_FATAL).
 *
 * Files: outbuf.c (the buffer and the context's sink), escape.c (XML
 * cleaning, JSON and name=value text), escape_xml.c (XML content and
 * attributes), value_format.c (property values, the tree walk, name=value
 * lists), memo.c (text already made, lib/render/memo.h).
 */
#ifndef ETL_RENDER_H
#define ETL_RENDER_H

#ifndef ETL_BUILDING_LIB
#error "lib/render/render.h is internal to libetl"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "etl_decode.h"
#include "etl_output.h"
#include "lib/common/fmt.h"
#include "lib/common/packed_array.h"

/* ---- growable byte buffer -------------------------------------------- */

/* Appends never fail visibly: on out-of-memory (or past ETL_OUTBUF_MAX)
 * the buffer sets oom and ignores further appends; etl__output_flush()
 * turns that into ETL_FATAL. */
#define ETL_OUTBUF_MAX ((size_t)256 << 20)

struct etl_outbuf {
	char  *p;
	size_t len;
	size_t cap;
	int    oom;
};

/* Slow path of the appends below: makes room for n more bytes (growing
 * the buffer). @return : 0, or -1 with oom set when it cannot (or oom was
 * already set). Kept in this header with the appends, so the buffer is
 * one self-contained piece; cold, so it stays out of the callers' way. */
static __attribute__((cold, noinline, unused)) int etl__ob_grow(struct etl_outbuf *b, size_t n)
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

/* Room for n (> 0) more bytes at the end of b, or NULL after out-of-memory.
 * The caller writes at most n bytes there and adds what it wrote to b->len.
 * Inline: the formats append a few bytes at a time, tens of times per
 * event, and the room is nearly always there already. */
static inline char *etl__ob_room(struct etl_outbuf *b, size_t n)
{
	/* oom is not tested here: etl__ob_grow() leaves no room (cap = len)
	 * when it sets it, so the next append comes back to it. Where oom is
	 * set directly, appends may go on into the room there is, harmlessly:
	 * etl__output_flush() drops the text. */
	if (__builtin_expect(n > b->cap - b->len, 0) && etl__ob_grow(b, n) != 0)
		return NULL;
	return b->p + b->len;
}

static inline void etl__ob_put(struct etl_outbuf *b, const void *s, size_t n)
{
	char *o;
	if (n == 0 || !(o = etl__ob_room(b, n)))
		return;
	memcpy(o, s, n);
	b->len += n;
}

static inline void etl__ob_puts(struct etl_outbuf *b, const char *s)
{
	etl__ob_put(b, s, strlen(s));
}

static inline void etl__ob_putc(struct etl_outbuf *b, char c)
{
	char *o = etl__ob_room(b, 1);
	if (o) {
		*o = c;
		b->len++;
	}
}

/* Appends a string literal without measuring it at run time. */
#define ETL_OB_LIT(b, lit) etl__ob_put((b), "" lit, sizeof(lit) - 1)

void etl__ob_printf(struct etl_outbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void etl__ob_free(struct etl_outbuf *b);

/* Numbers and times, as printf's %llu, %lld and %llx (no 0x) would write
 * them, and FILETIMEs as etl_filetime_format() does (lib/common/fmt.h). */
void etl__ob_u64(struct etl_outbuf *b, uint64_t v);
void etl__ob_i64(struct etl_outbuf *b, int64_t v);
void etl__ob_hex64(struct etl_outbuf *b, uint64_t v);
void etl__ob_filetime(struct etl_outbuf *b, int64_t ft);

/* ---- the record a module renders ------------------------------------- */

/* What a value is, for JSON: a number, true/false, null, or a string. */
enum etl_out_vt { ETL_OUTV_STRING = 0, ETL_OUTV_NUMBER, ETL_OUTV_BOOL, ETL_OUTV_NULL };

struct etl_out_rec {
	int is_header;             /* the header event (Header slot)             */
	int absent;                /* is_header with no logfile header: JSON
	                              writes null, the others nothing            */
	const struct etl_event *ev;/* the record, or NULL (header made from lf)  */

	/* System */
	const char *provider_name; /* NULL when unknown                          */
	struct etl_guid provider;
	uint16_t event_id;
	uint8_t  version, level, opcode, channel;
	uint16_t task;
	uint64_t keywords;
	int      has_time;         /* utc is set (else raw, if has_raw)          */
	int64_t  utc;              /* FILETIME                                   */
	int      has_raw;
	int64_t  raw;              /* timestamp in the file's clock              */
	int      has_activity;
	struct etl_guid activity;
	int      has_related;      /* RelatedActivityID (extended item 0x0001)   */
	struct etl_guid related;
	int      has_exec;         /* Execution element (processor known)        */
	int      has_pid;
	uint32_t pid, tid;
	uint16_t cpu;
	int      has_cpu_times;
	uint32_t kernel_time, user_time;
	const char *user_sid;      /* "S-1-5-18" from extended item 0x0002      */

	/* For text and CSV */
	const char *kind_name;     /* "SYSTEM64", "EVENT_HEADER64", ...          */
	const char *display;       /* provider as etldump shows it (name,
	                              "component:N" or GUID)                     */
	const char *event_name;    /* decoder's event name, or EventTrace
	                              record name; NULL                          */
	int      uses_id;          /* text shows id= (else op= [hook=])          */
	int      has_hook;
	uint16_t hook_id;
	uint32_t payload_size;

	/* Payload: exactly one of has_data / has_error */
	int      has_data;         /* EventData: props (n_props may be 0)        */
	const struct etl_prop *props;
	uint32_t n_props;
	int      has_error;        /* ProcessingErrorData                        */
	int      error_code;       /* enum etl_errcode                           */
	const char *error_reason;  /* sentence                                   */
	const uint8_t *payload;    /* raw payload (hex in the output)            */
	uint32_t payload_len;

	/* RenderingInfo: names from the decoder, each NULL when unknown */
	int has_rendering;
	const char *r_message, *r_level, *r_opcode, *r_task, *r_channel, *r_provider;
	const char *r_keywords;    /* names separated by spaces                  */
	const char *r_event_name;

	/* ExtendedTracingInfo (tracerpt, doc/decoding.md §6.3): classic and kernel
	 * records, whose provider field is an event class GUID */
	int has_ext_tracing;
	struct etl_guid event_guid;
	int has_instance;          /* INSTANCE headers: the three below          */
	uint32_t instance_id, parent_instance_id;
	struct etl_guid parent_guid;

	/* Non-zero when every name above and every property name is a
	 * decoder's stable text (etl__dec_names_trusted()): a module may then
	 * take a name pointer it remembered under this same value, with its
	 * text, as still having that text, without comparing it. */
	uint64_t names_gen;

	/* ETL_OUTPUT_EXPLAIN: the name of the decoder source that decoded
	 * the payload (etl_decode_source_name(), "none" when it was not
	 * decoded); NULL otherwise and for the header event. */
	const char *decoding_source;
};

/* ---- the renderer contract --------------------------------------------- */

/* The part of the output handle a renderer sees: its own state, the
 * buffer it formats into, and the caller's sink. */
struct etl_render {
	void *priv;                    /* the renderer's state                */
	struct etl_outbuf buf;         /* the renderer formats an event here  */
	const char *format;            /* "xml", ... for messages             */
	unsigned flags;                /* etl_output_set_flags()              */
	etl_output_write_fn write;
	void *ctx;
	int failed;                    /* a write or memory failure: only
	                                  freeing the handle is left           */
	int errcode;
	char errmsg[256];
};

struct etl_out_ops {
	const char *name;                                     /* "xml", ...  */
	int  (*open)(struct etl_render *o);
	int  (*begin)(struct etl_render *o);
	int  (*event)(struct etl_render *o, const struct etl_out_rec *r);
	int  (*end)(struct etl_render *o);
	void (*close)(struct etl_render *o);
};

/* Sends o->buf to the sink and empties it. @return : ETL_OK, or ETL_FATAL
 * (ETL_E_NOMEM when the buffer overflowed, ETL_E_IO when the sink failed). */
int etl__render_flush(struct etl_render *o);

/* Sends n bytes to the sink directly (for renderers with their own
 * buffering, like libxml2's). @return : ETL_OK or ETL_FATAL. */
int etl__render_write(struct etl_render *o, const void *p, size_t n);

/* Records a failure (o->failed set). @return : ETL_FATAL. */
int etl__render_fail(struct etl_render *o, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- values ---------------------------------------------------------------- */

/* Appends the text of scalar property p (decimal ints, 0x-hex for hex
 * types, true/false, {guid}, ISO times, S-1-... SIDs, uppercase hex for
 * binary, IPv4/IPv6/port/socket addresses; strings as they are, raw UTF-8
 * that may be invalid). @return : how JSON should write the text
 * (enum etl_out_vt); integers beyond +-2^53 are ETL_OUTV_STRING. */
int etl__out_value(struct etl_outbuf *b, const struct etl_prop *p);

/* Appends a SID (binary, n bytes) as S-1-...: 0, or -1 (nothing written)
 * when the bytes are not a well-formed SID. */
int etl__out_sid(struct etl_outbuf *b, const uint8_t *p, size_t n);

/* Uppercase hex pairs, no separator. */
void etl__out_hex(struct etl_outbuf *b, const uint8_t *p, size_t n);

/* "{xxxxxxxx-...}" */
void etl__out_guid(struct etl_outbuf *b, const struct etl_guid *g);

/* An IPv6 address (16 bytes, network order) as glibc's inet_ntop() writes
 * it ("fe80::1", "::ffff:1.2.3.4"). */
void etl__out_ipv6(struct etl_outbuf *b, const uint8_t a[16]);

/* The text etl__out_value() writes for an integer shown in hex ("0x" and
 * lower-case digits, at most ETL_OUT_HEX_INT_MAX bytes) at o; returns its
 * length, or 0 (nothing written) when p is not such an integer. */
#define ETL_OUT_HEX_INT_MAX 18

/* Bytes of an integer of in-type in_type (1, 2, 4, else 8). */
static inline unsigned etl__out_in_type_bytes(unsigned in_type)
{
	switch (in_type) {
	case ETL_IN_INT8: case ETL_IN_UINT8: return 1;
	case ETL_IN_INT16: case ETL_IN_UINT16: return 2;
	case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_BOOLEAN:
		return 4;
	default: return 8;
	}
}

/* Whether an integer property is shown in hex (see etl__out_value()). */
static inline int etl__out_is_hex_type(const struct etl_prop *p)
{
	switch (p->out_type) {
	case ETL_OUT_HEXINT8: case ETL_OUT_HEXINT16: case ETL_OUT_HEXINT32: case ETL_OUT_HEXINT64:
	case ETL_OUT_ERRORCODE: case ETL_OUT_WIN32ERROR: case ETL_OUT_NTSTATUS: case ETL_OUT_HRESULT:
	case ETL_OUT_CODE_POINTER:
		return 1;
	default:
		break;
	}
	return p->in_type == ETL_IN_HEXINT32 || p->in_type == ETL_IN_HEXINT64 ||
	       p->in_type == ETL_IN_POINTER;
}

/* The bits of an integer of p's in-type that its hex text shows: the
 * two's complement of the type's width (a negative INT8 is 0xff..). */
static inline uint64_t etl__out_hex_mask(const struct etl_prop *p)
{
	unsigned w = etl__out_in_type_bytes(p->in_type);
	return w < 8 ? ((uint64_t)1 << (8 * w)) - 1 : ~(uint64_t)0;
}

/* Inline: the hex integers are most of some events' values. */
static inline size_t etl__out_hex_int(char *o, const struct etl_prop *p)
{
	if ((p->kind != ETL_VAL_INT && p->kind != ETL_VAL_UINT) || !etl__out_is_hex_type(p))
		return 0;
	uint64_t u = p->v.u & etl__out_hex_mask(p);
	o[0] = '0';
	o[1] = 'x';
	return 2 + etl__fmt_hex64(o + 2, u);
}

/* The character of p when p is a character (an 8- or 16-bit integer with
 * a String out type; char arrays hold one per element) below U+0080, whose
 * text (etl__out_value()) is that one byte; -1 otherwise. */
static inline int etl__out_ascii_char(const struct etl_prop *p)
{
	if ((p->kind != ETL_VAL_INT && p->kind != ETL_VAL_UINT) || p->out_type != ETL_OUT_STRING)
		return -1;
	uint64_t c;
	if (p->in_type == ETL_IN_INT8 || p->in_type == ETL_IN_UINT8)
		c = p->v.u & 0xFF;
	else if (p->in_type == ETL_IN_INT16 || p->in_type == ETL_IN_UINT16)
		c = p->v.u & 0xFFFF;
	else
		return -1;
	return c < 0x80 ? (int)c : -1;
}

/* An integer shown in plain decimal: no out type, an in type that is not
 * one of the hex ones (etl__out_value() writes its %lld / %llu digits). */
static inline int etl__out_plain_decimal(const struct etl_prop *p)
{
	return (p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT) && p->out_type == ETL_OUT_NULL &&
	       p->in_type != ETL_IN_HEXINT32 && p->in_type != ETL_IN_HEXINT64 &&
	       p->in_type != ETL_IN_POINTER;
}

/* Whether etl__out_value() writes integer p in decimal (%lld / %llu): not
 * hex, not a character, boolean, IPv4 address or port. */
static inline int etl__out_int_decimal(const struct etl_prop *p)
{
	if ((p->kind != ETL_VAL_INT && p->kind != ETL_VAL_UINT) || etl__out_is_hex_type(p))
		return 0;
	switch (p->out_type) {
	case ETL_OUT_STRING:
		return etl__out_in_type_bytes(p->in_type) > 2;
	case ETL_OUT_BOOLEAN:
		return 0;
	case ETL_OUT_IPV4: case ETL_OUT_PORT:
		return p->kind == ETL_VAL_INT;
	default:
		return 1;
	}
}

/* kind, in_type and out_type of p as one 64-bit value, to compare element
 * types with one comparison. The three fields are adjacent in struct
 * etl_prop (checked below); read through the struct's bytes. */
_Static_assert(sizeof(int) == 4 &&
               offsetof(struct etl_prop, in_type) == offsetof(struct etl_prop, kind) + 4 &&
               offsetof(struct etl_prop, out_type) == offsetof(struct etl_prop, kind) + 6,
               "kind, in_type, out_type are 8 adjacent bytes");
static inline uint64_t etl__out_type_key(const struct etl_prop *p)
{
	uint64_t k;
	memcpy(&k, (const unsigned char *)p + offsetof(struct etl_prop, kind), sizeof k);
	return k;
}

/* Whether the text etl__out_value() writes for p may need escaping: only
 * strings and characters (8/16-bit integers with a String out type) can
 * hold quotes, backslashes, controls or bytes that are not UTF-8; every
 * other value is written as plain ASCII (digits, hex, GUIDs, times, SIDs,
 * addresses, NaN/Infinity). */
int etl__out_value_needs_escape(const struct etl_prop *p);

/* Appends s (n bytes) made safe for XML 1.0 / CSV: invalid UTF-8 bytes
 * become U+FFFD, C0 controls other than TAB, LF and CR (and those too
 * unless keep_tlc) become the matching Control Picture U+2400+c, and the
 * non-characters U+FFFE/U+FFFF become U+FFFD. */
void etl__out_clean(struct etl_outbuf *b, const char *s, size_t n, int keep_tlc);

/* Appends s (n bytes) cleaned as etl__out_clean(keep_tlc 1) cleans it and
 * escaped for XML element content (< > & " as entities, CR as &#13;). */
void etl__out_xml_text(struct etl_outbuf *b, const char *s, size_t n);

/* The same for an attribute value between double quotes: also LF, CR, TAB
 * as &#10; &#13; &#9;. */
void etl__out_xml_attr(struct etl_outbuf *b, const char *s, size_t n);

/* The text of ASCII character c (< 0x80) in element content as
 * etl__out_xml_text() writes it, at o (room for 6 bytes); returns its
 * length. */
size_t etl__out_xml_char(char *o, unsigned char c);

/* etl__out_xml_attr() (attr) or etl__out_xml_text() choosing the loop:
 * simd 0 forces the portable one, for tests (etl__out_xml_simd() is 1 when
 * there is an SSE2 one). Same output either way. */
void etl__out_xml_ex(struct etl_outbuf *b, const char *s, size_t n, int attr, int simd);
int etl__out_xml_simd(void);

/* Appends s (n bytes; s NULL -> null) as a JSON string literal: " \ and
 * controls escaped, invalid UTF-8 bytes as \ufffd. */
void etl__out_json_string(struct etl_outbuf *b, const char *s, size_t n);

/* An object key: "," when comma, then s (n bytes, not NULL) as
 * etl__out_json_string() writes it, then ":". */
void etl__out_json_key(struct etl_outbuf *b, const char *s, size_t n, int comma);

/* etl__out_json_string() choosing the loop: simd 0 forces the portable
 * one, so tests can compare it with the SSE2 one (x86-64; see
 * etl__out_json_simd()). Same output either way. */
void etl__out_json_string_ex(struct etl_outbuf *b, const char *s, size_t n, int simd);

/* 1 when etl__out_json_string() has a SIMD (SSE2) loop in this build. */
int etl__out_json_simd(void);

/* 1 for the bytes a JSON string holds as they are: printable ASCII (and
 * DEL) other than " and \; 0 for controls, " \ and bytes from 0x80 (which
 * the string writers check as UTF-8). */
extern const uint8_t etl__json_plain[256];

/* Writes at o (room for 6 bytes) the escape etl__out_json_string() uses
 * for ASCII byte c when c is a control, '"' or '\\' (\" \\ \n \r \t
 * \b \f, else \u00xx); returns its length. */
size_t etl__out_json_escape_ascii(char *o, unsigned char c);

/* Appends a value for a name=value list: bare (verbatim, backslashes
 * included) when it is not empty and holds no space, ", =, ;, control
 * character (C0 or DEL) or byte that is not UTF-8; otherwise in double
 * quotes with \" \\ \n \r \t, and \xNN for other controls and for bytes
 * that are not UTF-8. */
void etl__out_text_value(struct etl_outbuf *b, const char *s, size_t n);

/* Appends a name for a name=value list: space, =, ", \, controls and
 * non-UTF-8 bytes as \xNN. */
void etl__out_text_name(struct etl_outbuf *b, const char *s, size_t n);

/* Appends the properties as name=value pairs separated by sep (leaves
 * with flattened names, values quoted by etl__out_text_value()); for an
 * event that could not be decoded: ErrorCode=N, Reason="...",
 * EventPayload=HEX. @return : 0, or -1 when memory is short. */
int etl__out_props_list(struct etl_outbuf *b, const struct etl_out_rec *r, const char *sep);

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid. */
size_t etl__utf8_len(const unsigned char *p, size_t n);

/* ---- the property tree ------------------------------------------------------ */

/* The tree is validated by the core before a module sees it: every child
 * range lies inside props[], points forward and nesting is at most
 * ETL_OUT_MAX_DEPTH deep; offending subtrees are shown as empty. */
#define ETL_OUT_MAX_DEPTH 32

/* Calls fn for each leaf (scalar property) of the tree in order, with its
 * flattened name: struct members "struct.member", array elements
 * "array[i]" (so "a[0].x", "s.list[2]"); empty structs and arrays give no
 * leaf. @return : the first non-zero fn result, else 0. */
typedef int (*etl_out_leaf_fn)(void *arg, const char *name, size_t name_len,
                               const struct etl_prop *p);
int etl__out_leaves(const struct etl_out_rec *r, etl_out_leaf_fn fn, void *arg);

/* The top-level properties are not contiguous in general (a parent's
 * children may come before later top-level ones): the first at index i or
 * after it, or n. A parent's children are passed over at once from the
 * first of them (children are never top-level), so that a char array's
 * thousands of elements are not looked at one by one. Inline: the
 * writers' loop over the top level. */
static inline uint32_t etl__out_next_top(const struct etl_prop *props, uint32_t n, uint32_t i)
{
	while (i < n && props[i].parent != ETL_PROP_NO_PARENT) {
		uint32_t par = props[i].parent, slots = 0;
		if (par < n && props[par].first_child == i)   /* a packed array keeps one */
			slots = props[par].kind == ETL_VAL_ARRAY_PACKED ? 1 : props[par].n_children;
		if (slots >= 1 && slots <= n - i)
			i += slots;
		else
			i++;
	}
	return i;
}

/* Whether p has children to walk: a struct, an array or a packed array
 * (etl_decoder_set_flags()); every other kind is a value. */
static inline int etl__out_has_children(const struct etl_prop *p)
{
	return p->kind == ETL_VAL_STRUCT || p->kind == ETL_VAL_ARRAY || p->kind == ETL_VAL_ARRAY_PACKED;
}

/* Children of props[i] that are safe to visit: *first, *count (0 when the
 * range is invalid or depth is exceeded). For a packed array, *count is
 * its number of elements and props[*first] its one child, element 0: the
 * others come from etl__packed_elem(), never from props[*first + k]. */
static inline void etl__out_children(const struct etl_out_rec *r, uint32_t i, unsigned depth,
                                     uint32_t *first, uint32_t *count)
{
	const struct etl_prop *p = &r->props[i];
	*first = 0;
	*count = 0;
	if (depth >= ETL_OUT_MAX_DEPTH || p->n_children == 0)
		return;
	const int packed = p->kind == ETL_VAL_ARRAY_PACKED;
	const uint32_t slots = packed ? 1 : p->n_children;
	if (p->first_child <= i || p->first_child > r->n_props || slots > r->n_props - p->first_child)
		return;
	if (packed && !etl__packed_usable(p, &r->props[p->first_child]))
		return;
	*first = p->first_child;
	*count = p->n_children;
}

#endif /* ETL_RENDER_H */
