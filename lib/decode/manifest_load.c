/*
 * lib/decode/manifest_load.c - instrumentation manifests (doc/decoding.md
 * §3) loaded with libxml2 into the decoder's manifest set
 * (lib/decode/manifest_set.c): etl_decoder_add_manifest() for files and
 * directories, etl__mf_load_memory() for in-band manifests.
 *
 * Everything an event needs at decode time is resolved here, once: its
 * provider, template (fields with their count= / length= references and
 * maps), the RenderingInfo texts of its task, opcode, level and channel,
 * and its message, parsed into pieces (lib/decode/manifest_message.c). A
 * manifest that fails to load adds no event.
 *
 * libxml2 is loaded on the first manifest, and its functions are called
 * through the table lib/decode/xml_lib.c fills (L->x).
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lib/decode/decode_internal.h"
#include "lib/decode/manifest_internal.h"
#include "lib/decode/xml_lib.h"

#define MF_MAX_FILE_BYTES   (64u * 1024u * 1024u)
#define MF_MAX_FIELDS       1024u   /* per template / struct level        */

/* libxml2's parse options: never the network, no messages on stderr (the
 * error is taken from the context). The loader reads elements and their
 * attributes only, never text, and never changes the tree, so the blank
 * text between elements is left out and short texts are kept inside their
 * nodes (NOBLANKS, COMPACT): fewer allocations, 12 % fewer instructions
 * to load the CLR and SystemEvents manifests. */
#define MF_PARSE_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | \
                          XML_PARSE_NOBLANKS | XML_PARSE_COMPACT)

/* Loading state of one file. */
struct mf_load {
	struct mf_set *set;
	etl_decoder *d;
	const struct etl__xml_fns *x;   /* libxml2 */
	const char *path;
	xmlNodePtr strings;         /* the chosen stringTable, or NULL      */
	struct str_entry *str_index; /* its strings sorted by id (index_strings) */
	size_t n_str;
	int has_dtd;                /* attributes may have DTD defaults      */
	int err;                    /* 1 after mf_error()                   */
	int oom;
};

/* One string of the stringTable, found by its id. Its value is copied into
 * the pool on the first reference and shared by the later ones. */
struct str_entry {
	const char *id;
	size_t len;
	size_t order;               /* place in the table                    */
	xmlChar *id_copy;           /* id when libxml2 copied it, else NULL  */
	xmlNodePtr node;            /* the <string> element                  */
	const char *value;          /* pool copy, once resolved              */
	int resolved;
};

/* ---- strings --------------------------------------------------------- */

static char *pool_strdup(struct mf_set *s, const char *str)
{
	size_t n = strlen(str);
	char *p = etl__mf_pool_alloc(s, n + 1);
	if (p)
		memcpy(p, str, n + 1);
	return p;
}

/* ---- errors ---------------------------------------------------------- */

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
	etl__dec_set_error(L->d, ETL_E_BAD_VALUE, "%s:%ld: %s", L->path, node ? L->x->GetLineNo(node) : 0L, buf);
	L->err = 1;
}

static void mf_oom(struct mf_load *L)
{
	if (!L->err)
		etl__dec_set_error(L->d, ETL_E_NOMEM, "%s: out of memory", L->path);
	L->err = 1;
	L->oom = 1;
}

/* ---- XML helpers ----------------------------------------------------- */

static int is_elem(xmlNodePtr n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

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

/* The value of n's attribute name, read in place: libxml2 keeps a plain
 * value as the attribute's one text node. A value libxml2 keeps in pieces
 * (entity references), or any attribute of a document with a DTD, which
 * may give attributes default values that only xmlGetProp() applies, is
 * taken from xmlGetProp() instead: then *copy holds the copy, which the
 * caller frees with L->x->Free (else *copy is NULL). NULL when n has no
 * such attribute. Loading a manifest makes thousands of these lookups:
 * copying every value cost more than parsing the XML. */
static const char *prop(struct mf_load *L, xmlNodePtr n, const char *name, xmlChar **copy)
{
	*copy = NULL;
	if (!L->has_dtd) {
		xmlAttrPtr a = n->properties;
		while (a && strcmp((const char *)a->name, name) != 0)
			a = a->next;
		if (!a)
			return NULL;
		xmlNodePtr t = a->children;
		if (!t)
			return "";
		if (!t->next && (t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) && t->content)
			return (const char *)t->content;
	}
	*copy = L->x->GetProp(n, (const xmlChar *)name);
	return (const char *)*copy;
}

/* 1 when n has attribute name and its value is s. */
static int prop_is(struct mf_load *L, xmlNodePtr n, const char *name, const char *s)
{
	xmlChar *copy;
	const char *v = prop(L, n, name, &copy);
	int eq = v && strcmp(v, s) == 0;
	if (copy)
		(*L->x->Free)(copy);
	return eq;
}

/* Attribute value copied into the pool (NULL when absent or on OOM). */
static const char *attr(struct mf_load *L, xmlNodePtr n, const char *name)
{
	xmlChar *copy;
	const char *v = prop(L, n, name, &copy);
	if (!v)
		return NULL;
	const char *r = pool_strdup(L->set, v);
	if (copy)
		(*L->x->Free)(copy);
	if (!r)
		mf_oom(L);
	return r;
}

/* Orders ids as bytes, shorter first on a common prefix; equal ids in
 * table order. */
static int str_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

static int str_entry_cmp(const void *pa, const void *pb)
{
	const struct str_entry *a = pa, *b = pb;
	int c = str_cmp(a->id, a->len, b->id, b->len);
	return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* Indexes the <string> elements of L->strings by id, sorted, so that a
 * lookup costs a binary search whatever the ids are (a hash table could be
 * made slow by ids chosen to collide, and in-band manifests come from the
 * trace). Of a repeated id, the first <string> counts. The ids point into
 * the document, which outlives the index, or are libxml2's copies, freed
 * with it (free_strings). */
static void index_strings(struct mf_load *L)
{
	size_t n = count_children(L->strings, "string");
	if (!n)
		return;
	L->str_index = calloc(n, sizeof *L->str_index);
	if (!L->str_index) {
		mf_oom(L);
		return;
	}
	for (xmlNodePtr c = L->strings->children; c; c = c->next) {
		if (!is_elem(c, "string"))
			continue;
		xmlChar *copy;
		const char *id = prop(L, c, "id", &copy);
		if (!id)
			continue;
		struct str_entry *e = &L->str_index[L->n_str];
		e->id = id;
		e->len = strlen(id);
		e->order = L->n_str++;
		e->id_copy = copy;
		e->node = c;
	}
	qsort(L->str_index, L->n_str, sizeof *L->str_index, str_entry_cmp);
}

static void free_strings(struct mf_load *L)
{
	for (size_t i = 0; i < L->n_str; i++)
		if (L->str_index[i].id_copy)
			(*L->x->Free)(L->str_index[i].id_copy);
	free(L->str_index);
	L->str_index = NULL;
	L->n_str = 0;
}

/* The first string whose id is the len bytes at id, or NULL. */
static struct str_entry *find_string(struct mf_load *L, const char *id, size_t len)
{
	size_t lo = 0, hi = L->n_str;
	while (lo < hi) {               /* the first entry not below id */
		size_t mid = lo + (hi - lo) / 2;
		if (str_cmp(L->str_index[mid].id, L->str_index[mid].len, id, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < L->n_str && str_cmp(L->str_index[lo].id, L->str_index[lo].len, id, len) == 0)
		return &L->str_index[lo];
	return NULL;
}

/* Resolves "$(string.ID)" through the string table; other text as is. */
static const char *resolve(struct mf_load *L, const char *s)
{
	if (!s || strncmp(s, "$(string.", 9) != 0)
		return s;
	size_t n = strlen(s);
	if (n < 11 || s[n - 1] != ')')
		return s;
	struct str_entry *e = find_string(L, s + 9, n - 10);
	if (!e)
		return s;
	if (!e->resolved) {
		e->value = attr(L, e->node, "value");
		e->resolved = !L->err;
	}
	return e->value ? e->value : s;
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
void etl__mf_field_set_fast(struct mf_field *x)
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
	struct mf_field *f = etl__mf_pool_alloc(L->set, n * sizeof *f);
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
			etl__mf_field_set_fast(x);
		}
		i++;
	}
	*out = f;
	*n_out = n;
	return 1;
}

/* ---- providers ------------------------------------------------------- */

/* Fills a name table from <sect><elem name= value|mask= message=/>. */
static int parse_named(struct mf_load *L, xmlNodePtr sect, const char *elem, const char *valattr,
                       struct mf_named **out, size_t *n_out)
{
	size_t n = count_children(sect, elem);
	*out = NULL;
	*n_out = 0;
	if (!n)
		return 1;
	struct mf_named *t = etl__mf_pool_alloc(L->set, n * sizeof *t);
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

/* Message strings of winmeta.xml's predefined values, which EvtRender
 * shows in RenderingInfo (doc/decoding.md §3.1; RenderingInfo holds "the
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

const char *etl__mf_winmeta_text(const char *ref)
{
	if (!ref)
		return NULL;
	for (size_t i = 0; i < sizeof winmeta_text / sizeof winmeta_text[0]; i++)
		if (strcmp(winmeta_text[i][0], ref) == 0)
			return winmeta_text[i][1];
	return ref;
}

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
	return etl__mf_winmeta_text(ref);
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
		if (!prop_is(L, t, "name", e->task))
			continue;
		xmlNodePtr ops = child(t, "opcodes");
		for (xmlNodePtr o = ops ? ops->children : NULL; o; o = o->next) {
			if (!is_elem(o, "opcode"))
				continue;
			if (prop_is(L, o, "name", e->opcode)) {
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
	struct mf_provider *p = etl__mf_pool_alloc(L->set, sizeof *p);
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
	struct mf_map *mp = n_maps ? etl__mf_pool_alloc(L->set, n_maps * sizeof *mp) : NULL;
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
		m->e = m->n ? etl__mf_pool_alloc(L->set, m->n * sizeof *m->e) : NULL;
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
	struct mf_template *tp = n_t ? etl__mf_pool_alloc(L->set, n_t * sizeof *tp) : NULL;
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
		struct mf_event *e = etl__mf_pool_alloc(L->set, sizeof *e);
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
				if (prop_is(L, ch, "chid", e->channel)) {
					const char *nm = attr(L, ch, "name");
					if (nm)
						e->channel = nm;
					break;
				}
			}
		}
		if (!rendering_texts(L, pn, p, e))
			return 0;
		if (!etl__mf_set_add_event(L->set, e)) {
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
static xmlNodePtr find_strings(struct mf_load *L, xmlNodePtr root)
{
	xmlNodePtr loc = find_elem(root, "localization", 0), first = NULL;
	for (xmlNodePtr r = loc ? loc->children : NULL; r; r = r->next) {
		if (!is_elem(r, "resources"))
			continue;
		xmlChar *copy;
		const char *cu = prop(L, r, "culture", &copy);
		int en = cu && strcasecmp(cu, "en-US") == 0;
		if (copy)
			(*L->x->Free)(copy);
		if (en)
			return child(r, "stringTable");
		if (!first)
			first = child(r, "stringTable");
	}
	return first;
}

static int load_doc(etl_decoder *d, struct mf_set *s, const char *path, const struct etl__xml_fns *x,
                    xmlParserCtxtPtr ctx, xmlDocPtr doc);

static int load_file(etl_decoder *d, struct mf_set *s, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		etl__dec_set_error(d, ETL_E_IO, "%s: %s", path, strerror(errno));
		return ETL_FAILED;
	}
	if ((uint64_t)st.st_size > MF_MAX_FILE_BYTES) {
		etl__dec_set_error(d, ETL_E_LIMIT, "%s: manifest larger than %u bytes", path, MF_MAX_FILE_BYTES);
		return ETL_FAILED;
	}
	const struct etl__xml_fns *x = etl__xml_lib(d, path);
	if (!x)
		return ETL_FAILED;
	xmlParserCtxtPtr ctx = x->NewParserCtxt();
	if (!ctx) {
		etl__dec_set_error(d, ETL_E_NOMEM, "%s: out of memory", path);
		return ETL_FATAL;
	}
	xmlDocPtr doc = x->CtxtReadFile(ctx, path, NULL, MF_PARSE_OPTIONS);
	return load_doc(d, s, path, x, ctx, doc);
}

/* Loads a parsed document (NULL: the parse failed) into s; frees doc and
 * ctx. path names the source in messages. */
static int load_doc(etl_decoder *d, struct mf_set *s, const char *path, const struct etl__xml_fns *x,
                    xmlParserCtxtPtr ctx, xmlDocPtr doc)
{
	if (!doc) {
		const xmlError *e = x->CtxtGetLastError(ctx);
		char msg[160] = "not well-formed XML";
		if (e && e->message) {
			snprintf(msg, sizeof msg, "%s", e->message);
			size_t n = strlen(msg);
			while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
				msg[--n] = 0;
		}
		etl__dec_set_error(d, ETL_E_BAD_VALUE, "%s:%d: %s", path, e ? e->line : 0, msg);
		x->FreeParserCtxt(ctx);
		return ETL_FAILED;
	}
	xmlNodePtr root = x->DocGetRootElement(doc);
	struct mf_load L = { .set = s, .d = d, .x = x, .path = path };
	size_t before = s->n_events;
	/* The manifest may be the root (instrumentationManifest) or sit inside
	 * another element (an <assembly> of Windows' component manifests):
	 * providers are found anywhere under <events>. */
	xmlNodePtr im = root;
	if (!im) {
		mf_error(&L, root, "empty XML document");
	} else {
		L.has_dtd = doc->intSubset || doc->extSubset;
		L.strings = find_strings(&L, im);
		if (L.strings)
			index_strings(&L);
		walk(&L, im, 0);
		if (!L.err && s->n_events == before)
			mf_error(&L, im, "no provider events in this manifest");
	}
	free_strings(&L);
	x->FreeDoc(doc);
	x->FreeParserCtxt(ctx);
	if (L.err) {
		s->n_events = before;   /* the pool keeps what was parsed */
		return L.oom ? ETL_FATAL : ETL_FAILED;
	}
	for (size_t i = before; i < s->n_events; i++) {
		struct mf_event *e = s->events[i];
		if (!e->message)
			continue;
		e->msg = etl__mf_msg_compile(s, e->message, e->tmpl ? (uint32_t)e->tmpl->n_fields : 0);
		if (!e->msg) {
			s->n_events = before;   /* the pool keeps what was parsed */
			etl__dec_set_error(d, ETL_E_NOMEM, "%s: out of memory", path);
			return ETL_FATAL;
		}
	}
	etl__mf_set_index(s);
	return ETL_OK;
}

/* In-band manifests (lib/decode/inband.c): manifest XML held in memory. */
int etl__mf_load_memory(etl_decoder *d, const char *name, const void *xml, size_t len)
{
	if (!d || !name || (!xml && len))
		return ETL_FAILED;
	if (len > MF_MAX_FILE_BYTES) {
		etl__dec_set_error(d, ETL_E_LIMIT, "%s: manifest larger than %u bytes", name, MF_MAX_FILE_BYTES);
		return ETL_FAILED;
	}
	const struct etl__xml_fns *x = etl__xml_lib(d, name);
	if (!x)
		return ETL_FAILED;
	struct mf_set *s = etl__mf_set_get(d, 1);
	xmlParserCtxtPtr ctx = s ? x->NewParserCtxt() : NULL;
	if (!ctx) {
		etl__dec_set_error(d, ETL_E_NOMEM, "%s: out of memory", name);
		return ETL_FATAL;
	}
	xmlDocPtr doc = x->CtxtReadMemory(ctx, len ? xml : "", (int)len, NULL, NULL,
	                                  MF_PARSE_OPTIONS);
	return load_doc(d, s, name, x, ctx, doc);
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
		etl__dec_set_error(d, ETL_E_MISUSE, "no manifest path given");
		return ETL_FAILED;
	}
	struct mf_set *s = etl__mf_set_get(d, 1);
	if (!s) {
		etl__dec_set_error(d, ETL_E_NOMEM, "%s: out of memory", path);
		return ETL_FATAL;
	}
	static const char *const suffixes[] = { ".man", ".xml", NULL };
	return etl__dec_load_path(d, path, suffixes, "*.man or *.xml", load_one, s);
}
