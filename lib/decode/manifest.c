/*
 * lib/decode/manifest.c - instrumentation manifests (decoding.md §3): loading the
 * XML with libxml2 into a schema set, and the per-source decoder that walks
 * an event's template over its payload.
 *
 * Storage: the schema set of a decoder lives in the decoder's schema cache
 * under a reserved key (MF_SET_KEY, 'M'...; TraceLogging keys start with 'T').
 * Every string and array of the set is allocated from the set's pool and freed
 * with it (on etl_decoder_free()). The cache is only flushed when its
 * schemas exceed ETL_DEC_CACHE_MAX_BYTES (64 MiB of TraceLogging metadata);
 * such a flush drops the loaded manifests too (they must then be added again).
 *
 * Choices (documented for users in etl_decode.h):
 *   - match(): every EVENT_HEADER event without an EVENT_SCHEMA_TL item goes
 *     to this decoder; one whose provider has no loaded manifest fails with
 *     the dispatcher's "no schema for this event" message (ETL_E_UNSUPPORTED);
 *   - an event whose (provider, id) is defined but not its version uses the
 *     highest defined version below it (newer versions append fields, as
 *     decoding.md §4.2 notes for kernel classes: newer builds append
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
 *   - SYSTEMTIME is kept as its 16 raw bytes (ETL_VAL_BINARY).
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "lib/common/cursor.h"
#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"
#include "lib/common/fmt.h"

#define MF_MAX_FILE_BYTES   (64u * 1024u * 1024u)
#define MF_MAX_FIELDS       1024u   /* per template / struct level        */
#define MF_MAX_DEPTH        8u      /* struct nesting                     */
#define MF_MAX_MESSAGE      65536u  /* rendered message bytes             */
#define MF_MAX_MAP_TEXT     4096u

/* etl_guid_equal() inline (a GUID is 16 bytes, no padding). */
static inline int guid_eq(const struct etl_guid *a, const struct etl_guid *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}
_Static_assert(sizeof(struct etl_guid) == 16, "struct etl_guid is 16 bytes");

static const char MF_SET_KEY[] = "M\001manifest-set";

/* ---- schema model ---------------------------------------------------- */

struct mf_map_entry {
	uint64_t value;
	const char *message;
};

struct mf_map {
	const char *name;
	int is_bitmap;
	struct mf_map_entry *e;
	size_t n;
};

/* A reference to an earlier field holding a count or length. */
struct mf_ref {
	int kind;                   /* 0 none, 1 literal, 2 same level, 3 top */
	uint32_t v;                 /* literal, or field index                */
};

struct mf_field {
	const char *name;
	uint16_t in_type, out_type;
	int is_struct;
	const char *map_attr;
	const struct mf_map *map;
	struct mf_ref count, length;
	struct mf_field *members;
	size_t n_members;
	/* Integer fields read by the fast path of dec_fields() (set at load):
	 * fast 1, the size (0: pointer-sized), the kind and signedness. */
	uint8_t fast, fast_size, fast_kind, fast_signed;
};

struct mf_template {
	const char *tid;
	struct mf_field *fields;
	size_t n_fields;
};

struct mf_named {
	const char *name;
	uint64_t value;             /* value, or keyword mask                 */
	const char *message;
	const char *task;           /* opcodes inside a task: its name        */
};

struct mf_provider {
	const char *name;
	struct etl_guid guid;
	struct mf_named *keywords;
	size_t n_keywords;
	struct mf_named *channels;
	size_t n_channels;
	struct mf_named *tasks, *opcodes, *levels;
	size_t n_tasks, n_opcodes, n_levels;
};

/* A message parsed once (at load) for render_message(): pieces of literal
 * text (%n %t %r %% ... already replaced) each followed by an insert. */
struct mf_seg {
	const char *lit;            /* literal text before the insert          */
	uint32_t lit_len;
	uint32_t insert;            /* property index + 1, or 0: none          */
	const char *fmt;            /* !fmt! text (in the message), or NULL    */
	uint32_t fl;                /* its length                              */
};

struct mf_msg {
	struct mf_seg *seg;
	size_t n_seg;
};

struct mf_event {
	struct etl_guid guid;
	uint16_t id;
	uint8_t version;
	uint32_t seq;
	const struct mf_provider *prov;
	const char *symbol, *task, *opcode, *level, *channel, *keywords, *message;
	/* RenderingInfo strings: the element's message when the manifest gives
	 * one, winmeta's for predefined win: values, else the name */
	const char *task_text, *opcode_text, *level_text, *channel_text;
	const struct mf_template *tmpl;
	const struct mf_msg *msg;   /* message parsed, or NULL (render as text) */
};

/* A remembered find_event() result (see find_event_memo()). */
#define MF_MEMO_SIZE 256u
struct mf_memo {
	struct etl_guid guid;
	uint16_t id;
	uint8_t version;
	uint8_t used;
	int prov_known;
	const struct mf_event *e;
	/* Names derived per event, kept in the pool: the keyword names for
	 * the keyword mask kw (kw_set), the "Task/Opcode" event name. */
	int kw_set;
	uint64_t kw;
	const char *kw_names;
	const char *ev_name;
};

/* Pool strings the memo may make for names (bounded: beyond, the names are
 * made per event in decoder storage). */
#define MF_MEMO_NAMES_MAX 4096u

struct mf_set {
	void **pool;
	size_t n_pool, cap_pool;
	struct mf_event **events;
	size_t n_events, cap_events;
	uint32_t seq;
	/* Per-decoder state for decoding (a decoder is used by one thread at
	 * a time): lookups by (provider, id, version), cleared whenever
	 * events are added; the message buffer, kept from event to event. */
	struct mf_memo memo[MF_MEMO_SIZE];
	size_t memo_names;          /* pool strings made for the memo        */
	char *msg;
	size_t msg_cap;
};

/* Loading state of one file. */
struct mf_load {
	struct mf_set *set;
	etl_decoder *d;
	const char *path;
	xmlNodePtr strings;         /* the chosen stringTable, or NULL      */
	int err;                    /* 1 after mf_error()                   */
	int oom;
};

/* ---- pool ------------------------------------------------------------ */

static void *pool_alloc(struct mf_set *s, size_t n)
{
	if (s->n_pool == s->cap_pool) {
		size_t cap = s->cap_pool ? s->cap_pool * 2 : 256;
		void **p = realloc(s->pool, cap * sizeof *p);
		if (!p)
			return NULL;
		s->pool = p;
		s->cap_pool = cap;
	}
	void *m = calloc(1, n ? n : 1);
	if (!m)
		return NULL;
	s->pool[s->n_pool++] = m;
	return m;
}

static char *pool_strdup(struct mf_set *s, const char *str)
{
	size_t n = strlen(str);
	char *p = pool_alloc(s, n + 1);
	if (p)
		memcpy(p, str, n + 1);
	return p;
}

static void set_free(void *data)
{
	struct mf_set *s = data;
	if (!s)
		return;
	for (size_t i = 0; i < s->n_pool; i++)
		free(s->pool[i]);
	free(s->pool);
	free(s->events);
	free(s->msg);
	free(s);
}

/* ---- errors ----------------------------------------------------------- */


static void mf_error(struct mf_load *L, xmlNodePtr node, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void mf_error(struct mf_load *L, xmlNodePtr node, const char *fmt, ...)
{
	char buf[200];
	va_list ap;
	if (L->err)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	etl__dec_set_errmsg(L->d, "%s:%ld: %s", L->path, node ? xmlGetLineNo(node) : 0L, buf);
	L->err = 1;
}

static void mf_oom(struct mf_load *L)
{
	if (!L->err)
		etl__dec_set_errmsg(L->d, "%s: out of memory", L->path);
	L->err = 1;
	L->oom = 1;
}

/* ---- XML helpers ----------------------------------------------------- */

static int is_elem(xmlNodePtr n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Attribute value copied into the pool (NULL when absent or on OOM). */
static const char *attr(struct mf_load *L, xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	const char *r = pool_strdup(L->set, (const char *)v);
	xmlFree(v);
	if (!r)
		mf_oom(L);
	return r;
}

/* Resolves "$(string.ID)" through the string table; other text as is. */
static const char *resolve(struct mf_load *L, const char *s)
{
	if (!s || strncmp(s, "$(string.", 9) != 0)
		return s;
	size_t n = strlen(s);
	if (n < 11 || s[n - 1] != ')')
		return s;
	if (!L->strings)
		return s;
	for (xmlNodePtr c = L->strings->children; c; c = c->next) {
		if (!is_elem(c, "string"))
			continue;
		xmlChar *id = xmlGetProp(c, (const xmlChar *)"id");
		int eq = id && strlen((const char *)id) == n - 10 &&
		         memcmp(id, s + 9, n - 10) == 0;
		xmlFree(id);
		if (eq) {
			const char *v = attr(L, c, "value");
			return v ? v : s;
		}
	}
	return s;
}

static const char *attr_msg(struct mf_load *L, xmlNodePtr n, const char *name)
{
	return resolve(L, attr(L, n, name));
}

/* Decimal or 0x-hex number. */
static int parse_num(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return 0;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return 0;
	*out = v;
	return 1;
}

/* ---- type names ------------------------------------------------------ */

static const struct { const char *name; uint16_t v; } in_types[] = {
	{ "win:UnicodeString", ETL_IN_UNICODESTRING }, { "win:AnsiString", ETL_IN_ANSISTRING },
	{ "win:Int8", ETL_IN_INT8 }, { "win:UInt8", ETL_IN_UINT8 }, { "win:Int16", ETL_IN_INT16 },
	{ "win:UInt16", ETL_IN_UINT16 }, { "win:Int32", ETL_IN_INT32 }, { "win:UInt32", ETL_IN_UINT32 },
	{ "win:Int64", ETL_IN_INT64 }, { "win:UInt64", ETL_IN_UINT64 }, { "win:Float", ETL_IN_FLOAT },
	{ "win:Double", ETL_IN_DOUBLE }, { "win:Boolean", ETL_IN_BOOLEAN }, { "win:Binary", ETL_IN_BINARY },
	{ "win:GUID", ETL_IN_GUID }, { "win:Pointer", ETL_IN_POINTER }, { "win:FILETIME", ETL_IN_FILETIME },
	{ "win:SYSTEMTIME", ETL_IN_SYSTEMTIME }, { "win:SID", ETL_IN_SID }, { "win:HexInt32", ETL_IN_HEXINT32 },
	{ "win:HexInt64", ETL_IN_HEXINT64 }, { "win:CountedUnicodeString", ETL_IN_COUNTEDSTRING },
	{ "win:CountedString", ETL_IN_COUNTEDSTRING }, { "win:CountedAnsiString", ETL_IN_COUNTEDANSISTRING },
	{ "win:CountedBinary", ETL_IN_COUNTEDBINARY },
};

static const struct { const char *name; uint16_t v; } out_types[] = {
	{ "xs:string", 1 }, { "xs:dateTime", 2 }, { "xs:byte", 3 }, { "xs:unsignedByte", 4 },
	{ "xs:short", 5 }, { "xs:unsignedShort", 6 }, { "xs:int", 7 }, { "xs:unsignedInt", 8 },
	{ "xs:long", 9 }, { "xs:unsignedLong", 10 }, { "xs:float", 11 }, { "xs:double", 12 },
	{ "xs:boolean", 13 }, { "xs:GUID", 14 }, { "xs:hexBinary", 15 }, { "win:HexInt8", 16 },
	{ "win:HexInt16", 17 }, { "win:HexInt32", 18 }, { "xs:HexInt32", 18 }, { "win:HexInt64", 19 },
	{ "xs:HexInt64", 19 }, { "win:PID", 20 }, { "win:TID", 21 }, { "win:Port", 22 }, { "win:IPv4", 23 },
	{ "win:IPv6", 24 }, { "win:SocketAddress", 25 }, { "win:CIMDateTime", 26 }, { "win:ETWTIME", 27 },
	{ "win:Xml", 28 }, { "win:ErrorCode", 29 }, { "win:Win32Error", 30 }, { "win:NTSTATUS", 31 },
	{ "win:HResult", 32 }, { "win:DateTimeCultureInsensitive", 33 }, { "win:Json", 34 },
	{ "win:Utf8", 35 }, { "win:Pkcs7WithTypeInfo", 36 }, { "win:CodePointer", 37 },
	{ "win:DateTimeUtc", 38 }, { "win:NoPrint", 301 },
};

/* ---- templates ------------------------------------------------------- */

/* Resolves a count= / length= attribute against the earlier fields of the
 * same level, then the earlier top-level fields. */
static int parse_ref(struct mf_load *L, xmlNodePtr n, const char *what, const char *v,
                     const struct mf_field *sib, size_t n_sib,
                     const struct mf_field *top, size_t n_top, struct mf_ref *r)
{
	uint64_t num;
	r->kind = 0;
	if (!v)
		return 1;
	if (parse_num(v, &num)) {
		if (num > UINT32_MAX) {
			mf_error(L, n, "%s=\"%s\" is too large", what, v);
			return 0;
		}
		r->kind = 1;
		r->v = (uint32_t)num;
		return 1;
	}
	for (size_t i = n_sib; i-- > 0;) {
		if (sib[i].name && strcmp(sib[i].name, v) == 0) {
			r->kind = 2;
			r->v = (uint32_t)i;
			return 1;
		}
	}
	if (top != sib) {
		for (size_t i = n_top; i-- > 0;) {
			if (top[i].name && strcmp(top[i].name, v) == 0) {
				r->kind = 3;
				r->v = (uint32_t)i;
				return 1;
			}
		}
	}
	mf_error(L, n, "%s=\"%s\" names no earlier field", what, v);
	return 0;
}

/* The fast-path description of an integer field, as dec_value() would
 * decode it (pointers shown as dates are left to dec_value()). */
static void set_fast(struct mf_field *x)
{
	unsigned sz;
	switch (x->in_type) {
	case ETL_IN_INT8: case ETL_IN_UINT8: sz = 1; break;
	case ETL_IN_INT16: case ETL_IN_UINT16: sz = 2; break;
	case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_BOOLEAN: sz = 4; break;
	case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_HEXINT64: case ETL_IN_FILETIME: sz = 8; break;
	case ETL_IN_POINTER:
		if (x->out_type == ETL_OUT_DATETIME)
			return;
		sz = 0;
		break;
	default:
		return;
	}
	x->fast = 1;
	x->fast_size = (uint8_t)sz;
	x->fast_signed = x->in_type == ETL_IN_INT8 || x->in_type == ETL_IN_INT16 ||
	                 x->in_type == ETL_IN_INT32 || x->in_type == ETL_IN_INT64;
	if (x->in_type == ETL_IN_BOOLEAN || x->out_type == ETL_OUT_BOOLEAN)
		x->fast_kind = ETL_VAL_BOOL;
	else if (x->in_type == ETL_IN_FILETIME || (sz == 8 && x->out_type == ETL_OUT_DATETIME))
		x->fast_kind = ETL_VAL_FILETIME;
	else if (x->fast_signed)
		x->fast_kind = ETL_VAL_INT;
	else
		x->fast_kind = ETL_VAL_UINT;
}

static int parse_fields(struct mf_load *L, xmlNodePtr parent, unsigned depth,
                        const struct mf_field *top, size_t n_top,
                        struct mf_field **out, size_t *n_out)
{
	size_t n = 0;
	for (xmlNodePtr c = parent->children; c; c = c->next)
		if (is_elem(c, "data") || is_elem(c, "struct"))
			n++;
	*out = NULL;
	*n_out = 0;
	if (n > MF_MAX_FIELDS) {
		mf_error(L, parent, "more than %u fields", MF_MAX_FIELDS);
		return 0;
	}
	if (depth > MF_MAX_DEPTH) {
		mf_error(L, parent, "structs nested more than %u deep", MF_MAX_DEPTH);
		return 0;
	}
	struct mf_field *f = pool_alloc(L->set, n * sizeof *f);
	if (!f) {
		mf_oom(L);
		return 0;
	}
	if (depth == 0) {
		top = f;
		n_top = 0;
	}
	size_t i = 0;
	for (xmlNodePtr c = parent->children; c; c = c->next) {
		if (!is_elem(c, "data") && !is_elem(c, "struct"))
			continue;
		struct mf_field *x = &f[i];
		x->name = attr(L, c, "name");
		if (L->err)
			return 0;
		if (!x->name) {
			mf_error(L, c, "<%s> without a name", (const char *)c->name);
			return 0;
		}
		if (!parse_ref(L, c, "count", attr(L, c, "count"), f, i, top, depth ? n_top : i, &x->count) ||
		    !parse_ref(L, c, "length", attr(L, c, "length"), f, i, top, depth ? n_top : i, &x->length))
			return 0;
		if (is_elem(c, "struct")) {
			x->is_struct = 1;
			x->in_type = ETL_IN_STRUCT;
			if (!parse_fields(L, c, depth + 1, top, depth ? n_top : i, &x->members, &x->n_members))
				return 0;
		} else {
			const char *it = attr(L, c, "inType");
			const char *ot = attr(L, c, "outType");
			if (L->err)
				return 0;
			if (!it) {
				mf_error(L, c, "field \"%s\" has no inType", x->name);
				return 0;
			}
			for (size_t k = 0; k < sizeof in_types / sizeof in_types[0]; k++)
				if (strcmp(it, in_types[k].name) == 0)
					x->in_type = in_types[k].v;
			if (!x->in_type) {
				mf_error(L, c, "field \"%s\": unknown inType \"%s\"", x->name, it);
				return 0;
			}
			if (ot) {
				for (size_t k = 0; k < sizeof out_types / sizeof out_types[0]; k++)
					if (strcmp(ot, out_types[k].name) == 0)
						x->out_type = out_types[k].v;
			}
			x->map_attr = attr(L, c, "map");
			set_fast(x);
		}
		i++;
	}
	*out = f;
	*n_out = n;
	return 1;
}

/* ---- providers ------------------------------------------------------- */


static size_t count_children(xmlNodePtr p, const char *name)
{
	size_t n = 0;
	for (xmlNodePtr c = p ? p->children : NULL; c; c = c->next)
		if (is_elem(c, name))
			n++;
	return n;
}

static xmlNodePtr child(xmlNodePtr p, const char *name)
{
	for (xmlNodePtr c = p ? p->children : NULL; c; c = c->next)
		if (is_elem(c, name))
			return c;
	return NULL;
}

/* Fills a name table from <sect><elem name= value|mask= message=/>. */
static int parse_named(struct mf_load *L, xmlNodePtr sect, const char *elem, const char *valattr,
                       struct mf_named **out, size_t *n_out)
{
	size_t n = count_children(sect, elem);
	*out = NULL;
	*n_out = 0;
	if (!n)
		return 1;
	struct mf_named *t = pool_alloc(L->set, n * sizeof *t);
	if (!t) {
		mf_oom(L);
		return 0;
	}
	size_t i = 0;
	for (xmlNodePtr c = sect->children; c; c = c->next) {
		if (!is_elem(c, elem))
			continue;
		t[i].name = attr(L, c, "name");
		const char *v = attr(L, c, valattr);
		t[i].message = attr_msg(L, c, "message");
		if (L->err)
			return 0;
		if (v && !parse_num(v, &t[i].value)) {
			mf_error(L, c, "<%s> %s=\"%s\" is not a number", elem, valattr, v);
			return 0;
		}
		i++;
	}
	*out = t;
	*n_out = n;
	return 1;
}

static int add_event(struct mf_set *s, struct mf_event *e)
{
	if (s->n_events == s->cap_events) {
		size_t cap = s->cap_events ? s->cap_events * 2 : 256;
		struct mf_event **p = realloc(s->events, cap * sizeof *p);
		if (!p)
			return 0;
		s->events = p;
		s->cap_events = cap;
	}
	e->seq = s->seq++;
	s->events[s->n_events++] = e;
	return 1;
}

/* Message strings of winmeta.xml's predefined values, which EvtRender
 * shows in RenderingInfo (decoding.md §3.1; RenderingInfo holds "the
 * rendered message string" of the level, opcode, task and channel). */
static const char *const winmeta_text[][2] = {
	{ "win:LogAlways", "Log Always" }, { "win:Critical", "Critical" },
	{ "win:Error", "Error" }, { "win:Warning", "Warning" },
	{ "win:Informational", "Information" }, { "win:Verbose", "Verbose" },
	{ "win:Info", "Info" }, { "win:Start", "Start" }, { "win:Stop", "Stop" },
	{ "win:DC_Start", "DCStart" }, { "win:DC_Stop", "DCStop" },
	{ "win:Extension", "Extension" }, { "win:Reply", "Reply" },
	{ "win:Resume", "Resume" }, { "win:Suspend", "Suspend" },
	{ "win:Send", "Send" }, { "win:Receive", "Receive" },
	{ "win:None", "None" },
	{ "win:System", "System" }, { "win:Application", "Application" },
	{ "win:Security", "Security" },
};

/* The text RenderingInfo shows for a task, opcode, level or channel
 * reference ref: the message of the element of that name in table t
 * (else name), winmeta's text for a predefined value, else ref itself. */
static const char *named_text(const struct mf_named *t, size_t n, const char *ref)
{
	if (!ref)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (t[i].name && strcmp(t[i].name, ref) == 0)
			return t[i].message ? t[i].message : ref;
	for (size_t i = 0; i < sizeof winmeta_text / sizeof winmeta_text[0]; i++)
		if (strcmp(winmeta_text[i][0], ref) == 0)
			return winmeta_text[i][1];
	return ref;
}

/* Opcodes may also be declared inside their task (<task><opcodes>): the
 * event's task element is searched when the provider's list has no match. */
static const char *opcode_text(struct mf_load *L, xmlNodePtr pn, const struct mf_provider *p,
                               const struct mf_event *e)
{
	if (!e->opcode)
		return NULL;
	for (size_t i = 0; i < p->n_opcodes; i++)
		if (p->opcodes[i].name && strcmp(p->opcodes[i].name, e->opcode) == 0)
			return p->opcodes[i].message ? p->opcodes[i].message : e->opcode;
	xmlNodePtr tasks = child(pn, "tasks");
	for (xmlNodePtr t = tasks ? tasks->children : NULL; e->task && t; t = t->next) {
		if (!is_elem(t, "task"))
			continue;
		xmlChar *nm = xmlGetProp(t, (const xmlChar *)"name");
		int eq = nm && strcmp((const char *)nm, e->task) == 0;
		xmlFree(nm);
		if (!eq)
			continue;
		xmlNodePtr ops = child(t, "opcodes");
		for (xmlNodePtr o = ops ? ops->children : NULL; o; o = o->next) {
			if (!is_elem(o, "opcode"))
				continue;
			xmlChar *on = xmlGetProp(o, (const xmlChar *)"name");
			int oeq = on && strcmp((const char *)on, e->opcode) == 0;
			xmlFree(on);
			if (oeq) {
				const char *m = attr_msg(L, o, "message");
				return m ? m : e->opcode;
			}
		}
		break;
	}
	return named_text(NULL, 0, e->opcode);
}

/* Fills e's RenderingInfo texts. 0 on a load error (L->err set). */
static int rendering_texts(struct mf_load *L, xmlNodePtr pn, const struct mf_provider *p,
                           struct mf_event *e)
{
	e->task_text = named_text(p->tasks, p->n_tasks, e->task);
	e->opcode_text = opcode_text(L, pn, p, e);
	e->level_text = named_text(p->levels, p->n_levels, e->level);
	e->channel_text = named_text(p->channels, p->n_channels, e->channel);
	return !L->err;
}

static int parse_provider(struct mf_load *L, xmlNodePtr pn)
{
	struct mf_provider *p = pool_alloc(L->set, sizeof *p);
	if (!p) {
		mf_oom(L);
		return 0;
	}
	const char *g = attr(L, pn, "guid");
	p->name = attr(L, pn, "name");
	if (L->err)
		return 0;
	if (!g || etl_guid_parse(g, &p->guid) != ETL_OK) {
		mf_error(L, pn, "provider \"%s\" has no valid guid", p->name ? p->name : "");
		return 0;
	}
	if (!parse_named(L, child(pn, "keywords"), "keyword", "mask", &p->keywords, &p->n_keywords) ||
	    !parse_named(L, child(pn, "channels"), "channel", "value", &p->channels, &p->n_channels) ||
	    !parse_named(L, child(pn, "tasks"), "task", "value", &p->tasks, &p->n_tasks) ||
	    !parse_named(L, child(pn, "opcodes"), "opcode", "value", &p->opcodes, &p->n_opcodes) ||
	    !parse_named(L, child(pn, "levels"), "level", "value", &p->levels, &p->n_levels))
		return 0;

	/* maps */
	xmlNodePtr maps = child(pn, "maps");
	size_t n_maps = count_children(maps, "valueMap") + count_children(maps, "bitMap");
	struct mf_map *mp = n_maps ? pool_alloc(L->set, n_maps * sizeof *mp) : NULL;
	if (n_maps && !mp) {
		mf_oom(L);
		return 0;
	}
	size_t mi = 0;
	for (xmlNodePtr c = maps ? maps->children : NULL; c; c = c->next) {
		if (!is_elem(c, "valueMap") && !is_elem(c, "bitMap"))
			continue;
		struct mf_map *m = &mp[mi++];
		m->name = attr(L, c, "name");
		m->is_bitmap = is_elem(c, "bitMap");
		m->n = count_children(c, "map");
		m->e = m->n ? pool_alloc(L->set, m->n * sizeof *m->e) : NULL;
		if (L->err || (m->n && !m->e)) {
			mf_oom(L);
			return 0;
		}
		size_t k = 0;
		for (xmlNodePtr e = c->children; e; e = e->next) {
			if (!is_elem(e, "map"))
				continue;
			const char *v = attr(L, e, "value");
			m->e[k].message = attr_msg(L, e, "message");
			if (L->err)
				return 0;
			if (!parse_num(v, &m->e[k].value)) {
				mf_error(L, e, "map value \"%s\" is not a number", v ? v : "");
				return 0;
			}
			k++;
		}
	}

	/* templates */
	xmlNodePtr tmpls = child(pn, "templates");
	size_t n_t = count_children(tmpls, "template");
	struct mf_template *tp = n_t ? pool_alloc(L->set, n_t * sizeof *tp) : NULL;
	if (n_t && !tp) {
		mf_oom(L);
		return 0;
	}
	size_t ti = 0;
	for (xmlNodePtr c = tmpls ? tmpls->children : NULL; c; c = c->next) {
		if (!is_elem(c, "template"))
			continue;
		struct mf_template *t = &tp[ti++];
		t->tid = attr(L, c, "tid");
		if (L->err)
			return 0;
		if (!t->tid) {
			mf_error(L, c, "<template> without a tid");
			return 0;
		}
		if (!parse_fields(L, c, 0, NULL, 0, &t->fields, &t->n_fields))
			return 0;
	}
	/* resolve maps of every field (recursively through struct members) */
	struct { struct mf_field *f; size_t n; } stack[MF_MAX_DEPTH + 2];
	for (size_t t = 0; t < n_t; t++) {
		size_t sp = 0;
		stack[sp].f = tp[t].fields;
		stack[sp].n = tp[t].n_fields;
		sp++;
		while (sp) {
			sp--;
			struct mf_field *f = stack[sp].f;
			size_t n = stack[sp].n;
			for (size_t i = 0; i < n; i++) {
				if (f[i].is_struct && sp < MF_MAX_DEPTH + 1) {
					stack[sp].f = f[i].members;
					stack[sp].n = f[i].n_members;
					sp++;
				}
				if (!f[i].map_attr)
					continue;
				for (size_t k = 0; k < n_maps; k++)
					if (mp[k].name && strcmp(mp[k].name, f[i].map_attr) == 0)
						f[i].map = &mp[k];
				if (!f[i].map) {
					mf_error(L, tmpls, "field \"%s\" of template \"%s\" uses unknown map \"%s\"",
					         f[i].name, tp[t].tid, f[i].map_attr);
					return 0;
				}
			}
		}
	}

	/* events */
	xmlNodePtr evs = child(pn, "events");
	for (xmlNodePtr c = evs ? evs->children : NULL; c; c = c->next) {
		if (!is_elem(c, "event"))
			continue;
		struct mf_event *e = pool_alloc(L->set, sizeof *e);
		if (!e) {
			mf_oom(L);
			return 0;
		}
		const char *v = attr(L, c, "value");
		const char *ver = attr(L, c, "version");
		const char *tid = attr(L, c, "template");
		e->symbol = attr(L, c, "symbol");
		e->task = attr(L, c, "task");
		e->opcode = attr(L, c, "opcode");
		e->level = attr(L, c, "level");
		e->channel = attr(L, c, "channel");
		e->keywords = attr(L, c, "keywords");
		e->message = attr_msg(L, c, "message");
		if (L->err)
			return 0;
		uint64_t id = 0, vv = 0;
		if (!parse_num(v, &id) || id > 0xFFFF) {
			mf_error(L, c, "<event> value=\"%s\" is not an event id", v ? v : "");
			return 0;
		}
		if (ver && (!parse_num(ver, &vv) || vv > 0xFF)) {
			mf_error(L, c, "<event> version=\"%s\" is not a version", ver);
			return 0;
		}
		e->guid = p->guid;
		e->id = (uint16_t)id;
		e->version = (uint8_t)vv;
		e->prov = p;
		if (tid) {
			for (size_t t = 0; t < n_t; t++)
				if (strcmp(tp[t].tid, tid) == 0)
					e->tmpl = &tp[t];
			if (!e->tmpl) {
				mf_error(L, c, "event %u uses unknown template \"%s\"", (unsigned)id, tid);
				return 0;
			}
		}
		/* channel attribute names a chid; show the channel's name */
		if (e->channel) {
			for (xmlNodePtr ch = child(pn, "channels") ? child(pn, "channels")->children : NULL; ch; ch = ch->next) {
				if (!is_elem(ch, "channel"))
					continue;
				xmlChar *chid = xmlGetProp(ch, (const xmlChar *)"chid");
				int eq = chid && strcmp((const char *)chid, e->channel) == 0;
				xmlFree(chid);
				if (eq) {
					const char *nm = attr(L, ch, "name");
					if (nm)
						e->channel = nm;
					break;
				}
			}
		}
		if (!rendering_texts(L, pn, p, e))
			return 0;
		if (!add_event(L->set, e)) {
			mf_oom(L);
			return 0;
		}
	}
	return !L->err;
}

static void walk(struct mf_load *L, xmlNodePtr n, unsigned depth)
{
	if (depth > 10)
		return;
	for (xmlNodePtr c = n; c && !L->err; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (is_elem(c, "provider") && c->parent && is_elem(c->parent, "events")) {
			parse_provider(L, c);
			continue;
		}
		walk(L, c->children, depth + 1);
	}
}

static xmlNodePtr find_elem(xmlNodePtr n, const char *name, unsigned depth)
{
	for (xmlNodePtr c = n; c; c = c->next) {
		if (is_elem(c, name))
			return c;
		if (c->type == XML_ELEMENT_NODE && depth < 10) {
			xmlNodePtr r = find_elem(c->children, name, depth + 1);
			if (r)
				return r;
		}
	}
	return NULL;
}

/* The stringTable of en-US resources, else of the first resources. */
static xmlNodePtr find_strings(xmlNodePtr root)
{
	xmlNodePtr loc = find_elem(root, "localization", 0), first = NULL;
	for (xmlNodePtr r = loc ? loc->children : NULL; r; r = r->next) {
		if (!is_elem(r, "resources"))
			continue;
		xmlChar *cu = xmlGetProp(r, (const xmlChar *)"culture");
		int en = cu && strcasecmp((const char *)cu, "en-US") == 0;
		xmlFree(cu);
		if (en)
			return child(r, "stringTable");
		if (!first)
			first = child(r, "stringTable");
	}
	return first;
}

static int cmp_event(const void *a, const void *b)
{
	const struct mf_event *x = *(const struct mf_event *const *)a;
	const struct mf_event *y = *(const struct mf_event *const *)b;
	int c = memcmp(&x->guid, &y->guid, sizeof x->guid);
	if (c)
		return c;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->version != y->version)
		return x->version < y->version ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parses message msg of an event with n_top top-level fields into pieces
 * once, at load: literal runs, %n %t %r as the control, %0 the end, a % at
 * the end itself, % + another character that character; %N[!fmt!] an
 * insert when 1 <= N <= n_top (else nothing). NULL when memory is short. */
static const struct mf_msg *compile_message(struct mf_set *s, const char *msg, uint32_t n_top)
{
	size_t ml = strlen(msg), max_seg = 1;
	for (const char *p = msg; *p; p++)
		if (*p == '%')
			max_seg++;
	struct mf_msg *m = pool_alloc(s, sizeof *m);
	struct mf_seg *seg = m ? pool_alloc(s, max_seg * sizeof *seg) : NULL;
	char *text = seg ? pool_alloc(s, ml + 1) : NULL;    /* never longer */
	if (!text)
		return NULL;
	size_t ns = 0, tl = 0, lit = 0;
	for (const char *p = msg; *p;) {
		if (*p != '%') {
			const char *e = strchr(p, '%');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			memcpy(text + tl, p, n);
			tl += n;
			p += n;
			continue;
		}
		p++;
		if (*p >= '1' && *p <= '9') {
			unsigned long k = 0;
			while (*p >= '0' && *p <= '9' && k < 100000)
				k = k * 10 + (unsigned long)(*p++ - '0');
			const char *fmt = NULL;
			size_t fl = 0;
			if (*p == '!') {
				const char *e = strchr(p + 1, '!');
				if (e && e - p - 1 < 24) {
					fmt = p + 1;
					fl = (size_t)(e - p - 1);
					p = e + 1;
				}
			}
			if (k >= 1 && k <= n_top) {
				seg[ns].lit = text + lit;
				seg[ns].lit_len = (uint32_t)(tl - lit);
				seg[ns].insert = (uint32_t)k;
				seg[ns].fmt = fmt;
				seg[ns].fl = (uint32_t)fl;
				ns++;
				lit = tl;
			}
			continue;
		}
		int end = 0;
		switch (*p) {
		case 'n': text[tl++] = '\n'; p++; break;
		case 't': text[tl++] = '\t'; p++; break;
		case 'r': text[tl++] = '\r'; p++; break;
		case '0': end = 1; break;
		case 0: text[tl++] = '%'; break;
		default: text[tl++] = *p; p++; break;   /* %% %! %. and others */
		}
		if (end)
			break;
	}
	if (tl > lit || ns == 0) {
		seg[ns].lit = text + lit;
		seg[ns].lit_len = (uint32_t)(tl - lit);
		seg[ns].insert = 0;
		seg[ns].fmt = NULL;
		seg[ns].fl = 0;
		ns++;
	}
	m->seg = seg;
	m->n_seg = ns;
	return m;
}

static struct mf_set *get_set(etl_decoder *d, int create)
{
	struct mf_set *s = etl__dec_mf_set(d);
	if (s)
		return s;
	uint64_t h = etl__dec_hash(MF_SET_KEY, sizeof MF_SET_KEY, ETL_DEC_HASH_INIT);
	s = etl__dec_cache_find(d, h, MF_SET_KEY, sizeof MF_SET_KEY);
	if (s) {
		etl__dec_set_mf_set(d, s);
		return s;
	}
	if (!create)
		return NULL;
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	if (etl__dec_cache_add(d, h, MF_SET_KEY, sizeof MF_SET_KEY, s, set_free, 0) != ETL_OK)
		return NULL;
	etl__dec_set_mf_set(d, s);
	return s;
}

static int load_doc(etl_decoder *d, struct mf_set *s, const char *path, xmlParserCtxtPtr ctx, xmlDocPtr doc);

static int load_file(etl_decoder *d, struct mf_set *s, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		etl__dec_set_errmsg(d, "%s: %s", path, strerror(errno));
		return ETL_FAILED;
	}
	if ((uint64_t)st.st_size > MF_MAX_FILE_BYTES) {
		etl__dec_set_errmsg(d, "%s: manifest larger than %u bytes", path, MF_MAX_FILE_BYTES);
		return ETL_FAILED;
	}
	xmlParserCtxtPtr ctx = xmlNewParserCtxt();
	if (!ctx) {
		etl__dec_set_errmsg(d, "%s: out of memory", path);
		return ETL_FATAL;
	}
	xmlDocPtr doc = xmlCtxtReadFile(ctx, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	return load_doc(d, s, path, ctx, doc);
}

/* Loads a parsed document (NULL: the parse failed) into s; frees doc and
 * ctx. path names the source in messages. */
static int load_doc(etl_decoder *d, struct mf_set *s, const char *path, xmlParserCtxtPtr ctx, xmlDocPtr doc)
{
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctx);
		char msg[160] = "not well-formed XML";
		if (e && e->message) {
			snprintf(msg, sizeof msg, "%s", e->message);
			size_t n = strlen(msg);
			while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
				msg[--n] = 0;
		}
		etl__dec_set_errmsg(d, "%s:%d: %s", path, e ? e->line : 0, msg);
		xmlFreeParserCtxt(ctx);
		return ETL_FAILED;
	}
	xmlNodePtr root = xmlDocGetRootElement(doc);
	struct mf_load L = { .set = s, .d = d, .path = path };
	size_t before = s->n_events;
	/* The manifest may be the root (instrumentationManifest) or sit inside
	 * another element (an <assembly> of Windows' component manifests):
	 * providers are found anywhere under <events>. */
	xmlNodePtr im = root;
	if (!im) {
		mf_error(&L, root, "empty XML document");
	} else {
		L.strings = find_strings(im);
		walk(&L, im, 0);
		if (!L.err && s->n_events == before)
			mf_error(&L, im, "no provider events in this manifest");
	}
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctx);
	if (L.err) {
		s->n_events = before;   /* the pool keeps what was parsed */
		return L.oom ? ETL_FATAL : ETL_FAILED;
	}
	for (size_t i = before; i < s->n_events; i++) {
		struct mf_event *e = s->events[i];
		if (!e->message)
			continue;
		e->msg = compile_message(s, e->message, e->tmpl ? (uint32_t)e->tmpl->n_fields : 0);
		if (!e->msg) {
			s->n_events = before;   /* the pool keeps what was parsed */
			etl__dec_set_errmsg(d, "%s: out of memory", path);
			return ETL_FATAL;
		}
	}
	qsort(s->events, s->n_events, sizeof *s->events, cmp_event);
	memset(s->memo, 0, sizeof s->memo);     /* lookups may now differ */
	return ETL_OK;
}

/* In-band manifests (lib/decode/inband.c): manifest XML held in memory. */
int etl__mf_load_memory(etl_decoder *d, const char *name, const void *xml, size_t len)
{
	if (!d || !name || (!xml && len))
		return ETL_FAILED;
	if (len > MF_MAX_FILE_BYTES) {
		etl__dec_set_errmsg(d, "%s: manifest larger than %u bytes", name, MF_MAX_FILE_BYTES);
		return ETL_FAILED;
	}
	struct mf_set *s = get_set(d, 1);
	xmlParserCtxtPtr ctx = s ? xmlNewParserCtxt() : NULL;
	if (!ctx) {
		etl__dec_set_errmsg(d, "%s: out of memory", name);
		return ETL_FATAL;
	}
	xmlDocPtr doc = xmlCtxtReadMemory(ctx, len ? xml : "", (int)len, NULL, NULL,
	                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	return load_doc(d, s, name, ctx, doc);
}

static int load_one(etl_decoder *d, void *set, const char *file)
{
	return load_file(d, set, file);
}

int etl_decoder_add_manifest(etl_decoder *d, const char *path)
{
	if (!d)
		return ETL_FAILED;
	if (!path) {
		etl__dec_set_errmsg(d, "no manifest path given");
		return ETL_FAILED;
	}
	struct mf_set *s = get_set(d, 1);
	if (!s) {
		etl__dec_set_errmsg(d, "%s: out of memory", path);
		return ETL_FATAL;
	}
	static const char *const suffixes[] = { ".man", ".xml", NULL };
	return etl__dec_load_path(d, path, suffixes, "*.man or *.xml", load_one, s);
}

/* ---- lookup ---------------------------------------------------------- */

static const struct mf_event *find_event(const struct mf_set *s, const struct etl_event *ev, int *prov_known)
{
	size_t lo = 0, hi = s->n_events;
	struct mf_event key;
	const struct mf_event *kp = &key;
	*prov_known = 0;
	memset(&key, 0, sizeof key);
	key.guid = ev->provider;
	key.id = ev->id;
	key.version = ev->version;
	while (lo < hi) {               /* first element >= key (seq 0) */
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_event(&s->events[mid], &kp) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n_events && etl_guid_equal(&s->events[lo]->guid, &ev->provider))
		*prov_known = 1;
	if (lo < s->n_events) {
		const struct mf_event *e = s->events[lo];
		if (etl_guid_equal(&e->guid, &ev->provider) && e->id == ev->id && e->version == ev->version)
			return e;
	}
	if (lo > 0) {
		const struct mf_event *e = s->events[lo - 1];
		if (etl_guid_equal(&e->guid, &ev->provider)) {
			*prov_known = 1;
			if (e->id == ev->id && e->version < ev->version) {
				/* highest lower version: first of that version */
				size_t i = lo - 1;
				while (i > 0 && s->events[i - 1]->id == e->id && s->events[i - 1]->version == e->version &&
				       etl_guid_equal(&s->events[i - 1]->guid, &e->guid))
					i--;
				return s->events[i];
			}
		}
	}
	return NULL;
}

/* find_event() through the set's memo: the events of a trace are of few
 * kinds, and the binary search compares GUIDs at every step. */
static const struct mf_event *find_event_memo(struct mf_set *s, const struct etl_event *ev, int *prov_known,
                                              struct mf_memo **memo)
{
	const struct etl_guid *g = &ev->provider;
	uint32_t h = g->data1 ^ (uint32_t)g->data2 << 7 ^ (uint32_t)ev->id * 2654435761u ^ ev->version;
	struct mf_memo *m = &s->memo[(h ^ h >> 16) % MF_MEMO_SIZE];
	if (!(m->used && m->id == ev->id && m->version == ev->version && guid_eq(&m->guid, g))) {
		m->e = find_event(s, ev, &m->prov_known);
		m->guid = *g;
		m->id = ev->id;
		m->version = ev->version;
		m->used = 1;
		m->kw_set = 0;
		m->kw_names = NULL;
		m->ev_name = NULL;
	}
	*prov_known = m->prov_known;
	*memo = m;
	return m->e;
}

/* ---- decoding -------------------------------------------------------- */

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

	switch (f->in_type) {
	case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_INT16: case ETL_IN_UINT16:
	case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_INT64: case ETL_IN_UINT64:
	case ETL_IN_HEXINT32: case ETL_IN_HEXINT64: case ETL_IN_POINTER: case ETL_IN_BOOLEAN:
	case ETL_IN_FILETIME: {
		unsigned sz;
		switch (f->in_type) {
		case ETL_IN_INT8: case ETL_IN_UINT8: sz = 1; break;
		case ETL_IN_INT16: case ETL_IN_UINT16: sz = 2; break;
		case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_HEXINT32: case ETL_IN_BOOLEAN: sz = 4; break;
		case ETL_IN_POINTER: sz = x->ev->ptr_size == 4 ? 4 : 8; break;
		default: sz = 8; break;
		}
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
	case ETL_IN_FLOAT: {
		if (!etl_cur_need(c, 4))
			return fail_trunc(x, f->name, off);
		uint32_t u = etl_cur_u32(c);
		float fl;
		memcpy(&fl, &u, 4);
		pv.kind = ETL_VAL_FLOAT;
		pv.v.f = fl;
		break;
	}
	case ETL_IN_DOUBLE: {
		if (!etl_cur_need(c, 8))
			return fail_trunc(x, f->name, off);
		uint64_t u = etl_cur_u64(c);
		memcpy(&pv.v.f, &u, 8);
		pv.kind = ETL_VAL_FLOAT;
		break;
	}
	case ETL_IN_GUID:
		if (!etl_cur_need(c, 16))
			return fail_trunc(x, f->name, off);
		etl_cur_guid(c, &pv.v.guid);
		pv.kind = ETL_VAL_GUID;
		break;
	case ETL_IN_SYSTEMTIME:
		if (!etl_cur_need(c, 16))
			return fail_trunc(x, f->name, off);
		pv.kind = ETL_VAL_BINARY;
		pv.v.bin.p = etl_cur_bytes(c, 16);
		pv.v.bin.len = 16;
		break;
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
	case ETL_IN_UNICODESTRING: case ETL_IN_COUNTEDSTRING: {
		const uint8_t *p = etl_cur_ptr(c);
		size_t nb, take;
		int cut = 1;                    /* take may still hold a NUL */
		if (f->in_type == ETL_IN_COUNTEDSTRING) {
			if (!etl_cur_need(c, 2))
				return fail_trunc(x, f->name, off);
			nb = etl_cur_u16(c);
			p = etl_cur_ptr(c);
			if (nb > etl_cur_left(c))
				return fail_trunc(x, f->name, off);
			take = nb;
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
		if (!s)
			return etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory");
		etl_cur_skip(c, nb);
		pv.kind = ETL_VAL_STRING;
		pv.v.str.s = s;
		pv.v.str.len = ul;
		break;
	}
	case ETL_IN_ANSISTRING: case ETL_IN_COUNTEDANSISTRING: {
		const uint8_t *p = etl_cur_ptr(c);
		size_t nb, take;
		if (f->in_type == ETL_IN_COUNTEDANSISTRING) {
			if (!etl_cur_need(c, 2))
				return fail_trunc(x, f->name, off);
			nb = etl_cur_u16(c);
			p = etl_cur_ptr(c);
			if (nb > etl_cur_left(c))
				return fail_trunc(x, f->name, off);
			take = nb;
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
		if (!s)
			return etl__dec_fail(x->d, ETL_E_NOMEM, "out of memory");
		etl_cur_skip(c, nb);
		pv.kind = ETL_VAL_STRING;
		pv.v.str.s = s;
		pv.v.str.len = ul;
		break;
	}
	default:
		return etl__dec_fail(x->d, ETL_E_UNSUPPORTED, "field \"%s\": in-type %u not supported",
		                     f->name, (unsigned)f->in_type);
	}
	*etl__dec_prop(x->d, idx) = pv;
	return ETL_OK;
}

/* An integer field without a map (fi->fast), exactly as dec_value()
 * decodes it, into props[idx]; *val gets the value. */
static inline int dec_fast(struct mdec *x, const struct mf_field *fi, uint32_t idx, uint32_t parent,
                           uint64_t *val)
{
	struct etl_cur *c = &x->c;
	size_t off = c->pos;
	unsigned sz = fi->fast_size ? fi->fast_size : x->ev->ptr_size == 4 ? 4 : 8;
	if (c->err || sz > c->len - c->pos)
		return fail_trunc(x, fi->name, off);
	const uint8_t *q = c->p + off;
	uint64_t u = sz == 1 ? q[0] : sz == 2 ? etl_le16(q) : sz == 4 ? etl_le32(q) : etl_le64(q);
	c->pos += sz;
	*val = u;
	if (fi->fast_kind == ETL_VAL_BOOL)
		u = u != 0;
	else if (fi->fast_kind == ETL_VAL_INT)        /* sign-extended */
		u = (uint64_t)(sz == 1 ? (int8_t)u : sz == 2 ? (int16_t)u : sz == 4 ? (int32_t)u : (int64_t)u);
	/* UINT, FILETIME (v.i, the same bits): as it is. Every member is
	 * stored, the rest of the value union zeroed. */
	struct etl_prop *o = etl__dec_prop(x->d, idx);
	o->name = fi->name;
	o->kind = fi->fast_kind;
	o->in_type = fi->in_type;
	o->out_type = fi->out_type;
	memset(&o->v, 0, sizeof o->v);
	o->v.u = u;
	o->map_name = NULL;
	o->parent = parent;
	o->first_child = 0;
	o->n_children = 0;
	o->payload_offset = (uint32_t)off;
	return ETL_OK;
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
		int oom = 0;
		uint32_t fc = cnt ? etl__dec_reserve_raw(x->d, (uint32_t)cnt, &oom) : 0;
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

/* ---- message rendering ----------------------------------------------- */

/* etl__msg_add() with its common case inline: the text fits in the buffer
 * as it is (the same checks; the function grows the buffer otherwise). A
 * message is rendered in many small pieces. */
static inline void mb_add(struct etl_msgbuf *b, const char *s, size_t n)
{
	if (!b->oom && n <= b->max - b->n && b->n + n + 1 <= b->cap) {
		if (n)
			memcpy(b->p + b->n, s, n);
		b->n += n;
		b->p[b->n] = 0;
		return;
	}
	etl__msg_add(b, s, n);
}

/* The default text of an insert, exactly as etl__msg_prop_text() writes
 * it. Most inserts are mapped names, strings or decimal integers: those
 * are formatted here without snprintf (a message has several inserts and
 * nearly every manifest event has a message); the other kinds are left to
 * etl__msg_prop_text(). */
static void insert_text(struct etl_msgbuf *b, const struct etl_prop *p)
{
	char t[ETL_FMT_I64_MAX + 2];
	size_t n;
	/* Numbers straight into the buffer when there is room for the
	 * longest (mb_add()'s checks, for the most bytes it could add). */
	if (!p->map_name && (p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT || p->kind == ETL_VAL_FILETIME) &&
	    !b->oom && sizeof t <= b->max - b->n && b->n + sizeof t + 1 <= b->cap) {
		char *o = b->p + b->n;
		if (p->kind != ETL_VAL_UINT) {
			n = etl__fmt_i64(o, p->v.i);            /* "%lld" */
		} else if ((p->out_type >= ETL_OUT_HEXINT8 && p->out_type <= ETL_OUT_HEXINT64) ||
		           p->in_type == ETL_IN_POINTER || p->in_type == ETL_IN_HEXINT32 ||
		           p->in_type == ETL_IN_HEXINT64) {
			o[0] = '0';                             /* "0x%llX" */
			o[1] = 'x';
			n = 2 + etl__fmt_hex64_uc(o + 2, p->v.u);
		} else {
			n = etl__fmt_u64(o, p->v.u);            /* "%llu" */
		}
		b->n += n;
		b->p[b->n] = 0;
		return;
	}
	if (p->map_name) {
		mb_add(b, p->map_name, strlen(p->map_name));
		return;
	}
	switch (p->kind) {
	case ETL_VAL_STRING:
		mb_add(b, p->v.str.s, p->v.str.len);
		return;
	case ETL_VAL_INT:
	case ETL_VAL_FILETIME:
		n = etl__fmt_i64(t, p->v.i);            /* "%lld" */
		break;
	case ETL_VAL_UINT:
		if ((p->out_type >= ETL_OUT_HEXINT8 && p->out_type <= ETL_OUT_HEXINT64) ||
		    p->in_type == ETL_IN_POINTER || p->in_type == ETL_IN_HEXINT32 ||
		    p->in_type == ETL_IN_HEXINT64) {
			t[0] = '0';                         /* "0x%llX" */
			t[1] = 'x';
			n = 2 + etl__fmt_hex64_uc(t + 2, p->v.u);
		} else {
			n = etl__fmt_u64(t, p->v.u);        /* "%llu" */
		}
		break;
	default:
		etl__msg_prop_text(b, p);
		return;
	}
	mb_add(b, t, n);
}

/* %N!fmt!: a printf conversion applied to the value. */
static void prop_fmt(struct etl_msgbuf *b, const struct etl_prop *p, const char *fmt, size_t fl)
{
	char spec[32];
	size_t k = 0;
	char conv = fl ? fmt[fl - 1] : 's';
	spec[k++] = '%';
	for (size_t i = 0; i + 1 < fl && k < 16; i++) {
		char ch = fmt[i];
		if (strchr("-+ #0123456789.", ch))
			spec[k++] = ch;     /* flags, width, precision; drop h l I64 */
	}
	if (p->map_name || p->kind == ETL_VAL_STRING || !strchr("diuxXoc", conv)) {
		struct etl_msgbuf tmp = ETL_MSGBUF_INIT(MF_MAX_MESSAGE);
		etl__msg_prop_text(&tmp, p);
		etl__msg_fmt_text(b, spec, k, &tmp, 256);
		return;
	}
	long long iv = p->kind == ETL_VAL_INT || p->kind == ETL_VAL_FILETIME ? p->v.i : (long long)p->v.u;
	if (p->kind == ETL_VAL_FLOAT) {
		/* Out of range (or NaN) the conversion is undefined: saturate. */
		double f = p->v.f;
		iv = f != f ? 0 : f >= 0x1p63 ? LLONG_MAX : f < -0x1p63 ? LLONG_MIN : (long long)f;
	}
	etl__msg_fmt_int(b, spec, k, conv, iv, (unsigned long long)iv, 256);
}

/* Renders the message of e from the pieces parsed at load. The text is
 * capped at MF_MAX_MESSAGE bytes: a piece (a literal run or an insert)
 * that would pass the cap is left out, later ones that fit are kept. The
 * buffer stays with the set for the next event. */
static int render_message(etl_decoder *d, struct mf_set *set, const struct mf_event *e,
                          const char **out)
{
	const struct mf_msg *m = e->msg;
	struct etl_msgbuf b = { set->msg, 0, set->msg_cap, MF_MAX_MESSAGE, 0 };
	*out = NULL;
	for (size_t i = 0; i < m->n_seg && !b.oom; i++) {
		const struct mf_seg *g = &m->seg[i];
		if (g->lit_len)
			mb_add(&b, g->lit, g->lit_len);
		if (g->insert) {
			const struct etl_prop *p = etl__dec_prop(d, g->insert - 1);
			if (g->fmt)
				prop_fmt(&b, p, g->fmt, g->fl);
			else
				insert_text(&b, p);
		}
	}
	set->msg = b.p;
	set->msg_cap = b.cap;
	if (b.oom)
		return 0;
	char *r = etl__dec_alloc(d, b.n + 1);
	if (!r)
		return 0;
	if (b.n)
		memcpy(r, b.p, b.n);
	r[b.n] = 0;
	*out = r;
	return 1;
}

/* ---- the per-source decoder ------------------------------------------ */

int etl__mf_match(const struct etl_event *ev)
{
	if (ev->kind != ETL_HDR_EVENT_HEADER32 && ev->kind != ETL_HDR_EVENT_HEADER64)
		return 0;
	struct etl_ext_iter it;
	struct etl_ext_item item;
	etl_ext_iter_init(&it, ev);
	while (ev->ext_count && etl_ext_iter_next(&it, &item) == ETL_OK)
		if (item.ext_type == ETL_EXT_EVENT_SCHEMA_TL)
			return 0;
	return 1;
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
	struct etl_prop *p = etl__dec_prop(d, idx);
	p->name = "ExtraData";
	p->kind = ETL_VAL_BINARY;
	p->in_type = ETL_IN_BINARY;
	p->out_type = ETL_OUT_HEXBINARY;
	p->payload_offset = (uint32_t)c->pos;
	p->v.bin.p = c->p + c->pos;
	p->v.bin.len = left;
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

int etl__mf_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct etl_decoded *res = etl__dec_result(d);
	struct mf_set *s = get_set(d, 0);
	const struct mf_event *e = NULL;
	int prov_known = 0;

	struct mf_memo *memo = NULL;
	if (s)
		e = find_event_memo(s, ev, &prov_known, &memo);
	if (!e)
		return etl__dec_fail_noschema(d, ev);
	res->source = ETL_DECODE_MANIFEST;
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
			char *t = keep ? pool_alloc(s, n) : etl__dec_alloc(d, n);
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
			char *t = keep ? pool_alloc(s, kn + 1) : etl__dec_alloc(d, kn + 1);
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
	etl_cur_init(&x.c, ev->payload, ev->payload ? ev->payload_size : 0);
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
		if (rc != ETL_OK)
			return rc;
	}
	if (e->version != ev->version) {
		int rc = add_extra_data(d, &x.c);
		if (rc != ETL_OK)
			return rc;
	}
	if (e->msg && !render_message(d, s, e, &res->message))
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory rendering the message");
	/* Names from the set's pool (kept until the set is freed): the
	 * provider, task, opcode, level, channel, keyword and field names. */
	if (!arena_names)
		etl__dec_set_names_stable(d);
	return ETL_OK;
}
