/*
 * lib/decode/wpp.c - WPP (software trace preprocessor) messages (decoding.md §5):
 * loading TMF files into a message set, and the per-source decoder that walks
 * a message's argument list over a MESSAGE event's argument blob and renders
 * its format string.
 *
 * Storage: the message set of a decoder lives in the decoder's schema cache
 * under a reserved key (WPP_SET_KEY, 'W'...), like the manifest set. Every
 * string and array of the set comes from the set's pool and is freed with it.
 * A cache flush (over 64 MiB of TraceLogging schemas) drops loaded TMF files
 * too.
 *
 * TMF syntax accepted (one item per line, surrounding blanks ignored):
 *   // comment                          ignored (PDB lines and the like)
 *   <guid> <component> [// SRC=...]     message GUID for the lines below
 *   #typev <file_line> <number> "<format>" [// NAME=value ...]
 *   {                                   argument block of the last #typev
 *   <expr>, Item<Type>[(...)] -- <N>    one argument; payload order = order
 *   }                                   of the lines, %N in the format
 *   #<other> ... [{ ... }]              other directives (#enumv) skipped
 *
 * Choices (documented for users in etl_decode.h):
 *   - match(): every MESSAGE event goes to this decoder; one whose (message
 *     GUID, message number) no loaded TMF defines fails with the
 *     dispatcher's "no schema for this event" message (ETL_E_UNSUPPORTED);
 *   - the first definition of a (GUID, number) loaded wins;
 *   - the message is the format string only (no tracefmt prefix): %0 is
 *     removed, %% is %, %N[!fmt!] the argument with index N (else for N 1..9
 *     the standard prefix fields tracefmt defines, D-PFX: %1 the GUID line's
 *     component, %2 the file_line, %3 thread id, %4 the time as tracefmt
 *     prints it, MM/DD/YYYY-HH:MM:SS.mmm, in UTC (the raw timestamp when the
 *     event has no UTC time), %5 kernel time, %6 user time, %7 sequence
 *     number, %8 process id, %9 CPU), %!NAME! a NAME=value of the #typev
 *     comment (COMPNAME defaults to the GUID line's component, FILE to the
 *     GUID line's SRC= value, LINE to the digits ending the file_line);
 *   - the standard prefix is also exposed as properties after the
 *     arguments, named as TDH names them for WPP events
 *     (PROPERTY_DATA_DESCRIPTOR): SequenceNum (with a sequence number),
 *     FunctionName (FUNC=), ComponentName (%!COMPNAME!), SubComponentName
 *     (SUBCOMP=), GuidTypeName (file_line), FlagsName (FLAGS=), LevelName
 *     (LEVEL=), each only when known, then Prefix: tracefmt's default
 *     prefix "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]" rendered. TraceGuid
 *     and SystemTime are not repeated (the event's provider GUID and time).
 *     A prefix property whose name an argument already has is left out.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lib/common/cursor.h"
#include "lib/common/utf16.h"
#include "lib/decode/decode_internal.h"
#include "etl_reader.h"

#define WPP_MAX_FILE_BYTES  (64u * 1024u * 1024u)
#define WPP_MAX_ARGS        256u    /* per message                        */
#define WPP_MAX_LIST        256u    /* names of an ItemList               */
#define WPP_MAX_MESSAGE     65536u  /* rendered message bytes             */

static const char WPP_SET_KEY[] = "W\001wpp-set";

/* ---- schema model ---------------------------------------------------- */

enum wpp_item {
	WI_CHAR, WI_UCHAR, WI_SHORT, WI_USHORT, WI_LONG, WI_ULONG, WI_ULONGX,
	WI_LONGLONG, WI_LONGLONGX, WI_LONGLONGO, WI_ULONGLONG, WI_ULONGLONGX,
	WI_PTR, WI_STRING, WI_WSTRING, WI_PSTRING, WI_PWSTRING, WI_GUID,
	WI_NTSTATUS, WI_HRESULT, WI_WINERROR, WI_DOUBLE, WI_IPADDR, WI_PORT,
	WI_ENUM, WI_LISTBYTE, WI_LISTSHORT, WI_LISTLONG
};

struct wpp_item_def {
	const char *name;
	int item;
};

/* Longest names first where one is a prefix of another is not needed: names
 * are compared whole (up to '(' or the end). */
static const struct wpp_item_def wpp_items[] = {
	{ "ItemChar", WI_CHAR }, { "ItemUChar", WI_UCHAR },
	{ "ItemShort", WI_SHORT }, { "ItemUShort", WI_USHORT },
	{ "ItemLong", WI_LONG }, { "ItemULong", WI_ULONG }, { "ItemULongX", WI_ULONGX },
	{ "ItemLongLong", WI_LONGLONG }, { "ItemLongLongX", WI_LONGLONGX },
	{ "ItemLongLongXX", WI_LONGLONGX }, { "ItemLongLongO", WI_LONGLONGO },
	{ "ItemULongLong", WI_ULONGLONG }, { "ItemULongLongX", WI_ULONGLONGX },
	{ "ItemULongLongXX", WI_ULONGLONGX },
	{ "ItemPtr", WI_PTR }, { "ItemString", WI_STRING }, { "ItemWString", WI_WSTRING },
	{ "ItemPString", WI_PSTRING }, { "ItemPWString", WI_PWSTRING },
	{ "ItemGuid", WI_GUID }, { "ItemNTSTATUS", WI_NTSTATUS }, { "ItemHRESULT", WI_HRESULT },
	{ "ItemWINERROR", WI_WINERROR }, { "ItemDouble", WI_DOUBLE },
	{ "ItemIPAddr", WI_IPADDR }, { "ItemPort", WI_PORT },
	{ "ItemListByte", WI_LISTBYTE }, { "ItemListShort", WI_LISTSHORT },
	{ "ItemListLong", WI_LISTLONG },
};

struct wpp_list_entry {
	uint32_t value;
	const char *name;
};

struct wpp_arg {
	const char *name;           /* the TMF expression                     */
	const char *type;           /* the Item type as written               */
	int item;                   /* enum wpp_item                          */
	unsigned index;             /* -- N                                   */
	struct wpp_list_entry *list;
	uint32_t n_list;
};

struct wpp_msg {
	struct etl_guid guid;
	uint16_t number;
	size_t seq;                 /* load order: the first definition wins  */
	const char *component;      /* GUID line's component name, or NULL    */
	const char *src;            /* GUID line's SRC= value, or NULL        */
	const char *file_line;
	const char *format;
	const char *comment;        /* text after // on the #typev line       */
	const char *func, *level, *flags;
	const char *compname;       /* COMPNAME= of the comment, else component */
	const char *subcomp;        /* SUBCOMP= of the comment, or NULL       */
	struct wpp_arg *args;
	uint32_t n_args;
};

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char data[];
};

struct wpp_set {
	struct wpp_msg *msgs;
	size_t n_msgs, cap_msgs;
	size_t seq;
	struct pool_chunk *pool;
};

static void *pool_alloc(struct wpp_set *s, size_t n)
{
	n = (n + 15u) & ~(size_t)15u;
	if (!n)
		n = 16;
	struct pool_chunk *c = s->pool;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536u ? n : 65536u;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = s->pool;
		s->pool = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

static char *pool_strndup(struct wpp_set *s, const char *str, size_t n)
{
	char *p = pool_alloc(s, n + 1);
	if (p) {
		memcpy(p, str, n);
		p[n] = 0;
	}
	return p;
}

static void set_free(void *data)
{
	struct wpp_set *s = data;
	if (!s)
		return;
	while (s->pool) {
		struct pool_chunk *n = s->pool->next;
		free(s->pool);
		s->pool = n;
	}
	free(s->msgs);
	free(s);
}

static struct wpp_set *get_set(etl_decoder *d, int create)
{
	uint64_t h = etl__dec_hash(WPP_SET_KEY, sizeof WPP_SET_KEY, ETL_DEC_HASH_INIT);
	struct wpp_set *s = etl__dec_cache_find(d, h, WPP_SET_KEY, sizeof WPP_SET_KEY);
	if (s || !create)
		return s;
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	if (etl__dec_cache_add(d, h, WPP_SET_KEY, sizeof WPP_SET_KEY, s, set_free, 0) != ETL_OK)
		return NULL;
	return s;
}

static int cmp_msg(const void *a, const void *b)
{
	const struct wpp_msg *x = a, *y = b;
	int c;
	if (x->guid.data1 != y->guid.data1)
		return x->guid.data1 < y->guid.data1 ? -1 : 1;
	if (x->guid.data2 != y->guid.data2)
		return x->guid.data2 < y->guid.data2 ? -1 : 1;
	if (x->guid.data3 != y->guid.data3)
		return x->guid.data3 < y->guid.data3 ? -1 : 1;
	c = memcmp(x->guid.data4, y->guid.data4, 8);
	if (c)
		return c;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- errors ---------------------------------------------------------- */

/* etl_decoder_errmsg() returns the decoder's errmsg buffer; it is written
 * through this hook (the buffer itself is private to lib/decode/decode_result.c). */

/* ---- TMF parsing ----------------------------------------------------- */

struct tmf_parse {
	etl_decoder *d;
	struct wpp_set *s;
	const char *name;
	unsigned line;
	int err, oom;
	int have_guid;
	struct etl_guid guid;
	const char *component;
	const char *src;
	/* the message being built */
	struct wpp_msg cur;
	int have_cur;
	int in_block;               /* 1 in a #typev block, 2 in a skipped block */
	int expect_block;           /* last directive may be followed by '{' */
	struct wpp_arg *args;
	uint32_t n_args, cap_args;
};

static void tmf_error(struct tmf_parse *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tmf_error(struct tmf_parse *P, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	if (P->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	etl__dec_set_errmsg(P->d, "%s:%u: %s", P->name, P->line, msg);
	P->err = 1;
}

static void tmf_oom(struct tmf_parse *P)
{
	if (P->err)
		return;
	etl__dec_set_errmsg(P->d, "%s:%u: out of memory", P->name, P->line);
	P->err = 1;
	P->oom = 1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **b, const char **e)
{
	while (*b < *e && is_space(**b))
		(*b)++;
	while (*e > *b && is_space((*e)[-1]))
		(*e)--;
}

static int starts(const char *b, const char *e, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(e - b) >= n && memcmp(b, word, n) == 0;
}

/* Parses a decimal number [b, e) into *out (at most max). */
static int parse_uint(const char *b, const char *e, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	if (b >= e)
		return 0;
	int hex = e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X');
	if (hex)
		b += 2;
	for (; b < e; b++) {
		unsigned dgt;
		if (*b >= '0' && *b <= '9')
			dgt = (unsigned)(*b - '0');
		else if (hex && *b >= 'a' && *b <= 'f')
			dgt = (unsigned)(*b - 'a' + 10);
		else if (hex && *b >= 'A' && *b <= 'F')
			dgt = (unsigned)(*b - 'A' + 10);
		else
			return 0;
		v = v * (hex ? 16u : 10u) + dgt;
		if (v > max)
			return 0;
	}
	*out = v;
	return 1;
}

/* Finds NAME=value in a comment; value runs to the next blank. */
static const char *comment_value(struct wpp_set *s, const char *cb, const char *ce, const char *name, int *oom)
{
	size_t n = strlen(name);
	for (const char *p = cb; p + n < ce; p++) {
		if ((p == cb || is_space(p[-1])) && memcmp(p, name, n) == 0 && p[n] == '=') {
			const char *v = p + n + 1, *ve = v;
			while (ve < ce && !is_space(*ve))
				ve++;
			char *r = pool_strndup(s, v, (size_t)(ve - v));
			if (!r)
				*oom = 1;
			return r;
		}
	}
	return NULL;
}

static void finish_msg(struct tmf_parse *P)
{
	struct wpp_set *s = P->s;
	if (!P->have_cur)
		return;
	P->have_cur = 0;
	if (P->err)
		return;
	if (P->n_args) {
		P->cur.args = pool_alloc(s, P->n_args * sizeof *P->cur.args);
		if (!P->cur.args) {
			tmf_oom(P);
			return;
		}
		memcpy(P->cur.args, P->args, P->n_args * sizeof *P->args);
	}
	P->cur.n_args = P->n_args;
	if (s->n_msgs == s->cap_msgs) {
		size_t cap = s->cap_msgs ? s->cap_msgs * 2 : 64;
		struct wpp_msg *m = realloc(s->msgs, cap * sizeof *m);
		if (!m) {
			tmf_oom(P);
			return;
		}
		s->msgs = m;
		s->cap_msgs = cap;
	}
	P->cur.seq = s->seq++;
	s->msgs[s->n_msgs++] = P->cur;
}

static void parse_typev(struct tmf_parse *P, const char *b, const char *e)
{
	struct wpp_set *s = P->s;
	struct wpp_msg *m = &P->cur;
	if (!P->have_guid) {
		tmf_error(P, "#typev before the message GUID line");
		return;
	}
	memset(m, 0, sizeof *m);
	P->n_args = 0;
	m->guid = P->guid;
	m->component = P->component;
	m->compname = P->component;
	m->src = P->src;
	b += 6;                                     /* "#typev" */
	trim(&b, &e);
	const char *t = b;
	while (b < e && !is_space(*b))
		b++;
	if (b == t) {
		tmf_error(P, "#typev without a file_line and message number");
		return;
	}
	if (!(m->file_line = pool_strndup(s, t, (size_t)(b - t)))) {
		tmf_oom(P);
		return;
	}
	trim(&b, &e);
	t = b;
	while (b < e && !is_space(*b))
		b++;
	unsigned long num;
	if (!parse_uint(t, b, 0xFFFF, &num)) {
		tmf_error(P, "invalid message number '%.*s' (expected 0..65535)", (int)(b - t > 40 ? 40 : b - t), t);
		return;
	}
	m->number = (uint16_t)num;
	trim(&b, &e);
	if (b >= e || *b != '"') {
		tmf_error(P, "#typev without a quoted format string");
		return;
	}
	/* The format runs to the last quote of the line (a format may itself
	 * hold quotes); the comment, if any, follows it. */
	const char *q = e - 1;
	while (q > b && *q != '"')
		q--;
	if (q == b) {
		tmf_error(P, "unterminated format string");
		return;
	}
	if (!(m->format = pool_strndup(s, b + 1, (size_t)(q - b - 1)))) {
		tmf_oom(P);
		return;
	}
	const char *cb = q + 1, *ce = e;
	trim(&cb, &ce);
	if (cb < ce) {
		if (!starts(cb, ce, "//")) {
			tmf_error(P, "unexpected text after the format string");
			return;
		}
		cb += 2;
		trim(&cb, &ce);
		int oom = 0;
		m->comment = pool_strndup(s, cb, (size_t)(ce - cb));
		m->func = comment_value(s, cb, ce, "FUNC", &oom);
		m->level = comment_value(s, cb, ce, "LEVEL", &oom);
		m->flags = comment_value(s, cb, ce, "FLAGS", &oom);
		m->subcomp = comment_value(s, cb, ce, "SUBCOMP", &oom);
		const char *cn = comment_value(s, cb, ce, "COMPNAME", &oom);
		if (cn)
			m->compname = cn;
		if (oom || !m->comment) {
			tmf_oom(P);
			return;
		}
	}
	P->have_cur = 1;
}

/* ItemListX(a,b=5,c): value names. */
static void parse_list(struct tmf_parse *P, struct wpp_arg *a, const char *b, const char *e)
{
	struct wpp_list_entry tmp[WPP_MAX_LIST];
	uint32_t n = 0;
	unsigned long next = 0;
	while (b < e) {
		const char *t = b;
		while (b < e && *b != ',')
			b++;
		const char *ib = t, *ie = b;
		trim(&ib, &ie);
		if (b < e)
			b++;
		if (ib == ie)
			continue;
		if (n == WPP_MAX_LIST) {
			tmf_error(P, "more than %u names in %s", WPP_MAX_LIST, a->type);
			return;
		}
		const char *eq = memchr(ib, '=', (size_t)(ie - ib));
		const char *ne = eq ? eq : ie;
		if (eq) {
			const char *vb = eq + 1, *ve = ie;
			trim(&vb, &ve);
			while (ne > ib && is_space(ne[-1]))
				ne--;
			if (!parse_uint(vb, ve, 0xFFFFFFFFul, &next)) {
				tmf_error(P, "invalid value '%.*s' in %s", (int)(ve - vb > 40 ? 40 : ve - vb), vb, a->type);
				return;
			}
		}
		tmp[n].value = (uint32_t)next;
		if (!(tmp[n].name = pool_strndup(P->s, ib, (size_t)(ne - ib)))) {
			tmf_oom(P);
			return;
		}
		n++;
		next = (next + 1) & 0xFFFFFFFFul;
	}
	if (n) {
		a->list = pool_alloc(P->s, n * sizeof *a->list);
		if (!a->list) {
			tmf_oom(P);
			return;
		}
		memcpy(a->list, tmp, n * sizeof *tmp);
	}
	a->n_list = n;
}

static void parse_arg(struct tmf_parse *P, const char *b, const char *e)
{
	struct wpp_arg a;
	memset(&a, 0, sizeof a);
	/* " -- N" at the end */
	const char *dd = NULL;
	for (const char *p = b; p + 1 < e; p++)
		if (p[0] == '-' && p[1] == '-')
			dd = p;
	if (!dd) {
		tmf_error(P, "argument without '-- N'");
		return;
	}
	const char *nb = dd + 2, *ne = e;
	trim(&nb, &ne);
	unsigned long idx;
	if (!parse_uint(nb, ne, 0xFFFF, &idx)) {
		tmf_error(P, "invalid argument index '%.*s'", (int)(ne - nb > 40 ? 40 : ne - nb), nb);
		return;
	}
	a.index = (unsigned)idx;
	/* the last top-level comma followed by Item... */
	const char *comma = NULL;
	int depth = 0;
	for (const char *p = b; p < dd; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (*p == ',' && depth == 0) {
			const char *q = p + 1;
			while (q < dd && is_space(*q))
				q++;
			if (starts(q, dd, "Item"))
				comma = p;
		}
	}
	if (!comma) {
		tmf_error(P, "argument without ', Item<Type>'");
		return;
	}
	const char *xb = b, *xe = comma;
	trim(&xb, &xe);
	const char *tb = comma + 1, *te = dd;
	trim(&tb, &te);
	const char *par = memchr(tb, '(', (size_t)(te - tb));
	const char *tn = par ? par : te;
	while (tn > tb && is_space(tn[-1]))
		tn--;
	a.item = -1;
	for (size_t i = 0; i < sizeof wpp_items / sizeof wpp_items[0]; i++) {
		if (strlen(wpp_items[i].name) == (size_t)(tn - tb) && memcmp(wpp_items[i].name, tb, (size_t)(tn - tb)) == 0) {
			a.item = wpp_items[i].item;
			break;
		}
	}
	if (a.item < 0 && starts(tb, te, "ItemEnum"))
		a.item = WI_ENUM;
	if (a.item < 0) {
		tmf_error(P, "unsupported item type '%.*s'", (int)(tn - tb > 60 ? 60 : tn - tb), tb);
		return;
	}
	if (!(a.name = pool_strndup(P->s, xb, (size_t)(xe - xb))) ||
	    !(a.type = pool_strndup(P->s, tb, (size_t)(tn - tb)))) {
		tmf_oom(P);
		return;
	}
	if (a.item == WI_LISTBYTE || a.item == WI_LISTSHORT || a.item == WI_LISTLONG) {
		const char *le = te;
		if (!par || le[-1] != ')') {
			tmf_error(P, "%s without its (name, ...) list", a.type);
			return;
		}
		parse_list(P, &a, par + 1, le - 1);
		if (P->err)
			return;
	}
	if (P->n_args == WPP_MAX_ARGS) {
		tmf_error(P, "more than %u arguments", WPP_MAX_ARGS);
		return;
	}
	if (P->n_args == P->cap_args) {
		uint32_t cap = P->cap_args ? P->cap_args * 2 : 16;
		struct wpp_arg *na = realloc(P->args, cap * sizeof *na);
		if (!na) {
			tmf_oom(P);
			return;
		}
		P->args = na;
		P->cap_args = cap;
	}
	P->args[P->n_args++] = a;
}

static int is_guid_start(const char *b, const char *e)
{
	if (e - b < 36)
		return 0;
	for (int i = 0; i < 36; i++) {
		char c = b[i];
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return 0;
	}
	return e - b == 36 || is_space(b[36]);
}

static void parse_line(struct tmf_parse *P, const char *b, const char *e)
{
	trim(&b, &e);
	if (b == e)
		return;
	if (P->in_block) {
		if (*b == '}' && e - b == 1) {
			if (P->in_block == 1)
				finish_msg(P);
			P->in_block = 0;
			return;
		}
		if (P->in_block == 1)
			parse_arg(P, b, e);
		return;
	}
	if (*b == '{' && e - b == 1) {
		if (!P->expect_block) {
			tmf_error(P, "'{' without a #typev line before it");
			return;
		}
		P->in_block = P->have_cur ? 1 : 2;
		P->expect_block = 0;
		return;
	}
	/* anything else ends a #typev that had no argument block */
	finish_msg(P);
	P->expect_block = 0;
	if (P->err)
		return;
	if (starts(b, e, "//"))
		return;
	if (starts(b, e, "#typev") && (e - b == 6 || is_space(b[6]))) {
		parse_typev(P, b, e);
		P->expect_block = !P->err;
		return;
	}
	if (*b == '#') {                /* #enumv and other directives */
		P->expect_block = 1;
		return;
	}
	if (is_guid_start(b, e)) {
		char g[37];
		memcpy(g, b, 36);
		g[36] = 0;
		if (etl_guid_parse(g, &P->guid) != ETL_OK) {
			tmf_error(P, "invalid GUID");
			return;
		}
		P->have_guid = 1;
		P->component = NULL;
		P->src = NULL;
		const char *cb = b + 36, *ce = e;
		const char *sl = NULL;
		for (const char *p = cb; p + 1 < ce; p++)
			if (p[0] == '/' && p[1] == '/') {
				sl = p;
				break;
			}
		if (sl) {
			int oom = 0;
			P->src = comment_value(P->s, sl + 2, e, "SRC", &oom);
			if (oom) {
				tmf_oom(P);
				return;
			}
			ce = sl;
		}
		trim(&cb, &ce);
		if (cb < ce && !(P->component = pool_strndup(P->s, cb, (size_t)(ce - cb))))
			tmf_oom(P);
		return;
	}
	tmf_error(P, "unexpected line (expected a GUID line, #typev, '{', '}' or an argument)");
}

static int parse_text(etl_decoder *d, struct wpp_set *s, const char *name, const char *text, size_t len)
{
	struct tmf_parse P;
	memset(&P, 0, sizeof P);
	P.d = d;
	P.s = s;
	P.name = name;
	size_t before = s->n_msgs, seq_before = s->seq;
	const char *p = text, *end = text + len;
	/* UTF-8 byte order mark */
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end && !P.err) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		P.line++;
		if (memchr(p, 0, (size_t)(le - p))) {
			tmf_error(&P, "NUL byte in a TMF file");
			break;
		}
		parse_line(&P, p, le);
		p = nl ? nl + 1 : end;
	}
	if (!P.err) {
		if (P.in_block)
			tmf_error(&P, "'{' block not closed at the end of the file");
		else
			finish_msg(&P);
	}
	if (!P.err && s->n_msgs == before)
		tmf_error(&P, "no #typev message in this file");
	free(P.args);
	if (P.err) {
		s->n_msgs = before;     /* the pool keeps what was parsed */
		s->seq = seq_before;
		return P.oom ? ETL_FATAL : ETL_FAILED;
	}
	qsort(s->msgs, s->n_msgs, sizeof *s->msgs, cmp_msg);
	return ETL_OK;
}

int etl__wpp_parse_tmf(etl_decoder *d, const char *name, const char *text, size_t len)
{
	if (!d)
		return ETL_FAILED;
	struct wpp_set *s = get_set(d, 1);
	if (!s) {
		etl__dec_set_errmsg(d, "%s: out of memory", name ? name : "TMF");
		return ETL_FATAL;
	}
	return parse_text(d, s, name ? name : "TMF", text ? text : "", text ? len : 0);
}

static int load_file(etl_decoder *d, const char *path)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	if (!f) {
		etl__dec_set_errmsg(d, "%s: %s", path, strerror(errno));
		return ETL_FAILED;
	}
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		etl__dec_set_errmsg(d, "%s: not a regular file", path);
		fclose(f);
		return ETL_FAILED;
	}
	if ((uint64_t)st.st_size > WPP_MAX_FILE_BYTES) {
		etl__dec_set_errmsg(d, "%s: TMF file larger than %u bytes", path, WPP_MAX_FILE_BYTES);
		fclose(f);
		return ETL_FAILED;
	}
	size_t n = (size_t)st.st_size;
	char *buf = malloc(n ? n : 1);
	if (!buf) {
		fclose(f);
		etl__dec_set_errmsg(d, "%s: out of memory", path);
		return ETL_FATAL;
	}
	size_t got = n ? fread(buf, 1, n, f) : 0;
	int ioerr = ferror(f);
	fclose(f);
	if (ioerr || got != n) {
		etl__dec_set_errmsg(d, "%s: read error", path);
		free(buf);
		return ETL_FAILED;
	}
	int rc = etl__wpp_parse_tmf(d, path, buf, n);
	free(buf);
	return rc;
}

static int load_one(etl_decoder *d, void *unused, const char *file)
{
	(void)unused;
	return load_file(d, file);
}

int etl_decoder_add_tmf(etl_decoder *d, const char *path)
{
	if (!d)
		return ETL_FAILED;
	if (!path) {
		etl__dec_set_errmsg(d, "no TMF path given");
		return ETL_FAILED;
	}
	static const char *const suffixes[] = { ".tmf", NULL };
	return etl__dec_load_path(d, path, suffixes, "*.tmf", load_one, NULL);
}

/* ---- lookup ---------------------------------------------------------- */

static const struct wpp_msg *find_msg(const struct wpp_set *s, const struct etl_guid *g, uint16_t number)
{
	struct wpp_msg key;
	memset(&key, 0, sizeof key);
	key.guid = *g;
	key.number = number;
	size_t lo = 0, hi = s->n_msgs;
	while (lo < hi) {               /* first element >= key (seq 0) */
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_msg(&s->msgs[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n_msgs && etl_guid_equal(&s->msgs[lo].guid, g) && s->msgs[lo].number == number)
		return &s->msgs[lo];
	return NULL;
}

/* ---- decoding -------------------------------------------------------- */

/* What each argument decoded to, for rendering. */
struct wpp_val {
	const struct wpp_arg *arg;
	uint32_t prop;
	unsigned size;              /* bytes of an integer value             */
	int is_signed;
};

static const char *latin1(etl_decoder *d, const uint8_t *p, size_t n, size_t *out_len)
{
	size_t extra = 0;
	for (size_t i = 0; i < n; i++)
		extra += p[i] >= 0x80;
	if (!extra) {
		*out_len = n;
		return (const char *)p;
	}
	char *o = etl__dec_alloc(d, n + extra + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < 0x80) {
			o[k++] = (char)p[i];
		} else {
			o[k++] = (char)(0xC0 | (p[i] >> 6));
			o[k++] = (char)(0x80 | (p[i] & 0x3F));
		}
	}
	o[k] = 0;
	*out_len = k;
	return o;
}

static const char *utf16(etl_decoder *d, const uint8_t *p, size_t n, size_t *out_len)
{
	size_t m = etl__utf16_utf8_len(p, n);
	char *o = etl__dec_alloc(d, m + 1);
	if (!o)
		return NULL;
	*out_len = etl__utf16_to_utf8_buf(p, n, o);
	o[*out_len] = 0;
	return o;
}

static int fail_trunc(etl_decoder *d, const struct wpp_arg *a, size_t off, size_t need, size_t left)
{
	return etl__dec_fail(d, ETL_E_TRUNCATED,
	                     "argument \"%s\" (%s) truncated at offset %zu: needs %zu bytes, %zu left",
	                     a->name, a->type, off, need, left);
}

static int dec_arg(etl_decoder *d, const struct etl_event *ev, struct etl_cur *c, const struct wpp_arg *a,
                   struct wpp_val *v)
{
	int oom = 0;
	uint32_t idx = etl__dec_reserve(d, 1, &oom);
	if (idx == UINT32_MAX)
		return etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, oom ? "out of memory" : "too many properties");
	struct etl_prop *p = etl__dec_prop(d, idx);
	size_t off = c->pos, left = etl_cur_left(c);
	unsigned ptr = ev->ptr_size == 4 ? 4u : 8u;
	unsigned size = 0;
	int sgn = 0;
	v->arg = a;
	v->prop = idx;
	p->name = a->name;
	p->payload_offset = (uint32_t)off;
	switch (a->item) {
	case WI_CHAR: size = 1; sgn = 1; p->in_type = ETL_IN_INT8; break;
	case WI_UCHAR: case WI_LISTBYTE: size = 1; p->in_type = ETL_IN_UINT8; break;
	case WI_SHORT: size = 2; sgn = 1; p->in_type = ETL_IN_INT16; break;
	case WI_USHORT: case WI_LISTSHORT: size = 2; p->in_type = ETL_IN_UINT16; break;
	case WI_LONG: size = 4; sgn = 1; p->in_type = ETL_IN_INT32; break;
	case WI_ULONG: case WI_LISTLONG: case WI_ENUM: size = 4; p->in_type = ETL_IN_UINT32; break;
	case WI_ULONGX: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_HEXINT32; break;
	case WI_NTSTATUS: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_NTSTATUS; break;
	case WI_HRESULT: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_HRESULT; break;
	case WI_WINERROR: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_WIN32ERROR; break;
	case WI_IPADDR: size = 4; p->in_type = ETL_IN_UINT32; p->out_type = ETL_OUT_IPV4; break;
	case WI_PORT: size = 2; p->in_type = ETL_IN_UINT16; p->out_type = ETL_OUT_PORT; break;
	case WI_LONGLONG: size = 8; sgn = 1; p->in_type = ETL_IN_INT64; break;
	case WI_LONGLONGX: case WI_ULONGLONGX:
		size = 8; p->in_type = ETL_IN_UINT64; p->out_type = ETL_OUT_HEXINT64; break;
	case WI_LONGLONGO: case WI_ULONGLONG: size = 8; p->in_type = ETL_IN_UINT64; break;
	case WI_PTR: size = ptr; p->in_type = ETL_IN_POINTER; break;
	default: break;
	}
	v->size = size;
	v->is_signed = sgn;
	if (size) {
		if (left < size)
			return fail_trunc(d, a, off, size, left);
		const uint8_t *b = etl_cur_bytes(c, size);
		uint64_t u;
		if (a->item == WI_PORT)
			u = (uint64_t)b[0] << 8 | b[1];         /* network order */
		else if (size == 1)
			u = b[0];
		else if (size == 2)
			u = etl_le16(b);
		else if (size == 4)
			u = etl_le32(b);
		else
			u = etl_le64(b);
		if (sgn) {
			p->kind = ETL_VAL_INT;
			unsigned sh = 64u - size * 8u;
			p->v.i = sh ? (int64_t)(u << sh) >> sh : (int64_t)u;
		} else {
			p->kind = ETL_VAL_UINT;
			p->v.u = u;
		}
		if (a->n_list) {
			for (uint32_t i = 0; i < a->n_list; i++)
				if (a->list[i].value == u) {
					p->map_name = a->list[i].name;
					break;
				}
		}
		return ETL_OK;
	}
	switch (a->item) {
	case WI_DOUBLE: {
		if (left < 8)
			return fail_trunc(d, a, off, 8, left);
		uint64_t u = etl_cur_u64(c);
		double f;
		memcpy(&f, &u, sizeof f);
		p->kind = ETL_VAL_FLOAT;
		p->in_type = ETL_IN_DOUBLE;
		p->v.f = f;
		return ETL_OK;
	}
	case WI_GUID:
		if (left < 16)
			return fail_trunc(d, a, off, 16, left);
		etl_cur_guid(c, &p->v.guid);
		p->kind = ETL_VAL_GUID;
		p->in_type = ETL_IN_GUID;
		return ETL_OK;
	case WI_STRING: case WI_WSTRING: {
		int wide = a->item == WI_WSTRING;
		size_t unit = wide ? 2 : 1;
		if (left < unit)
			return fail_trunc(d, a, off, unit, left);
		const uint8_t *b = etl_cur_ptr(c);
		size_t n = 0;
		int nul = 0;
		while (n + unit <= left) {
			if (b[n] == 0 && (!wide || b[n + 1] == 0)) {
				nul = 1;
				break;
			}
			n += unit;
		}
		etl_cur_skip(c, nul ? n + unit : left);   /* no NUL: taken whole */
		p->kind = ETL_VAL_STRING;
		p->in_type = wide ? ETL_IN_UNICODESTRING : ETL_IN_ANSISTRING;
		p->v.str.s = wide ? utf16(d, b, n, &p->v.str.len) : latin1(d, b, n, &p->v.str.len);
		if (!p->v.str.s)
			return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
		return ETL_OK;
	}
	case WI_PSTRING: case WI_PWSTRING: {
		int wide = a->item == WI_PWSTRING;
		if (left < 2)
			return fail_trunc(d, a, off, 2, left);
		size_t n = etl_cur_u16(c);
		if (n > left - 2)
			return fail_trunc(d, a, off, n + 2, left);
		const uint8_t *b = etl_cur_bytes(c, n);
		p->kind = ETL_VAL_STRING;
		p->in_type = wide ? ETL_IN_COUNTEDSTRING : ETL_IN_COUNTEDANSISTRING;
		p->v.str.s = wide ? utf16(d, b, n, &p->v.str.len) : latin1(d, b, n, &p->v.str.len);
		if (!p->v.str.s)
			return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
		return ETL_OK;
	}
	default:
		return etl__dec_fail(d, ETL_E_UNSUPPORTED, "argument \"%s\": item type %s not supported", a->name, a->type);
	}
}

/* ---- message rendering ----------------------------------------------- */

/* Default text of a value (no printf conversion given). */
static void val_text(struct etl_msgbuf *b, const struct etl_prop *p, const struct wpp_val *v, unsigned ptr)
{
	char t[128];
	if (p->map_name || (p->kind != ETL_VAL_UINT && p->kind != ETL_VAL_GUID)) {
		/* map names, signed, floating-point and string values */
		if (p->map_name || p->kind == ETL_VAL_INT || p->kind == ETL_VAL_FLOAT || p->kind == ETL_VAL_STRING)
			etl__msg_prop_text(b, p);
		return;
	}
	if (p->kind == ETL_VAL_GUID) {
		etl_guid_format(&p->v.guid, t);
	} else {
		switch (v->arg->item) {
		case WI_PTR: snprintf(t, sizeof t, "0x%0*llX", (int)(ptr * 2), (unsigned long long)p->v.u); break;
		case WI_NTSTATUS: case WI_HRESULT: case WI_WINERROR:
			snprintf(t, sizeof t, "0x%08llX", (unsigned long long)p->v.u);
			break;
		case WI_IPADDR:
			snprintf(t, sizeof t, "%u.%u.%u.%u", (unsigned)(p->v.u & 0xFF), (unsigned)(p->v.u >> 8 & 0xFF),
			         (unsigned)(p->v.u >> 16 & 0xFF), (unsigned)(p->v.u >> 24 & 0xFF));
			break;
		case WI_LONGLONGO: snprintf(t, sizeof t, "0%llo", (unsigned long long)p->v.u); break;
		default:
			if (p->out_type == ETL_OUT_HEXINT32 || p->out_type == ETL_OUT_HEXINT64)
				snprintf(t, sizeof t, "0x%llX", (unsigned long long)p->v.u);
			else
				snprintf(t, sizeof t, "%llu", (unsigned long long)p->v.u);
			break;
		}
	}
	etl__msg_str(b, t);
}

/* %N!fmt!: the printf conversion fmt (flags, width, precision, length
 * modifiers h l ll I64 I32 w z dropped) applied to the value. */
static void val_fmt(struct etl_msgbuf *b, const struct etl_prop *p, const struct wpp_val *v, unsigned ptr,
                    const char *fmt, size_t fl)
{
	char spec[40], t[512];
	size_t k = 0;
	char conv = fl ? fmt[fl - 1] : 's';
	spec[k++] = '%';
	for (size_t i = 0; i + 1 < fl && k < 20; i++) {
		char ch = fmt[i];
		if (strchr("-+ #0123456789.", ch)) {
			/* "I64" / "I32": the digits belong to the modifier */
			if (i > 0 && fmt[i - 1] == 'I')
				continue;
			if (i > 1 && fmt[i - 2] == 'I' && (fmt[i - 1] == '6' || fmt[i - 1] == '3'))
				continue;
			spec[k++] = ch;
		}
	}
	int numeric = p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT;
	if (p->kind == ETL_VAL_FLOAT && strchr("eEfgGaA", conv)) {
		spec[k++] = conv;
		spec[k] = 0;
		snprintf(t, sizeof t, spec, p->v.f);
		etl__msg_str(b, t);
		return;
	}
	if (numeric && conv == 'p') {
		snprintf(t, sizeof t, "%0*llX", (int)(ptr * 2), (unsigned long long)p->v.u);
		etl__msg_str(b, t);
		return;
	}
	if (!numeric || p->map_name || !strchr("diuxXoc", conv)) {
		struct etl_msgbuf tmp = ETL_MSGBUF_INIT(WPP_MAX_MESSAGE);
		val_text(&tmp, p, v, ptr);
		etl__msg_fmt_text(b, spec, k, &tmp, sizeof t);
		return;
	}
	/* Integers: reinterpreted at the argument's size like C printf would. */
	uint64_t u = p->kind == ETL_VAL_INT ? (uint64_t)p->v.i : p->v.u;
	unsigned size = v->size ? v->size : 8;
	if (size < 8)
		u &= (UINT64_C(1) << (size * 8)) - 1;
	long long iv = 0;
	if (conv == 'd' || conv == 'i') {
		/* unsigned types narrower than int are promoted without sign */
		unsigned sh = v->is_signed || size >= 4 ? 64u - size * 8u : 0u;
		iv = sh ? (long long)((int64_t)(u << sh) >> sh) : (long long)u;
	}
	etl__msg_fmt_int(b, spec, k, conv, iv, (unsigned long long)u, sizeof t);
}

/* Comment value NAME=... of the #typev line (the comment is kept whole).
 * @return : 1 if the comment has NAME=. */
static int comment_lookup(struct etl_msgbuf *b, const struct wpp_msg *m, const char *name, size_t n)
{
	const char *c = m->comment;
	if (!c)
		return 0;
	size_t cl = strlen(c);
	for (size_t i = 0; i + n < cl; i++) {
		if ((i == 0 || is_space(c[i - 1])) && memcmp(c + i, name, n) == 0 && c[i + n] == '=') {
			size_t j = i + n + 1, e = j;
			while (e < cl && !is_space(c[e]))
				e++;
			etl__msg_add(b, c + j, e - j);
			return 1;
		}
	}
	return 0;
}

/* Length of the line number at the end of file_line ("queue_c42" -> 2). */
static size_t line_digits(const char *fl)
{
	size_t n = strlen(fl), k = 0;
	while (k < n && fl[n - 1 - k] >= '0' && fl[n - 1 - k] <= '9')
		k++;
	return k;
}

/* %!NAME! (decoding.md §5.2-5.3, D-WPPX): NAME=value of the #typev comment;
 * COMPNAME defaults to the GUID line's component, FILE to the GUID line's
 * SRC= value, LINE to the digits that end the file_line. */
static void comment_text(struct etl_msgbuf *b, const struct wpp_msg *m, const char *name, size_t n)
{
	if (n == 8 && memcmp(name, "COMPNAME", 8) == 0) {
		if (m->compname)
			etl__msg_str(b, m->compname);
		return;
	}
	if (comment_lookup(b, m, name, n))
		return;
	if (n == 4 && memcmp(name, "FILE", 4) == 0 && m->src) {
		etl__msg_str(b, m->src);
	} else if (n == 4 && memcmp(name, "LINE", 4) == 0) {
		size_t k = line_digits(m->file_line);
		etl__msg_add(b, m->file_line + strlen(m->file_line) - k, k);
	}
}

/* tracefmt's time stamp text (%4), "MM/DD/YYYY-HH:MM:SS.mmm", in UTC (the
 * decoder knows no local time zone); the raw timestamp as a number when
 * the event has no UTC time. @return : 1 if t holds the text. */
static int time_text(const struct etl_event *ev, char *t, size_t tn)
{
	char iso[40];
	if (!(ev->present & ETL_EVF_UTC) || !etl_filetime_format(ev->utc, iso, sizeof iso))
		return 0;
	/* "YYYY-MM-DDTHH:MM:SS.fffffffZ" */
	if (strlen(iso) != 28 || iso[4] != '-' || iso[10] != 'T' || iso[19] != '.')
		return 0;
	snprintf(t, tn, "%.2s/%.2s/%.4s-%.8s.%.3s", iso + 5, iso + 8, iso, iso + 11, iso + 20);
	return 1;
}

/* Standard prefix fields %1..%9 (decoding.md §5.3) when no argument has
 * that index; as numbers with the conversion applied. */
static void prefix_field(struct etl_msgbuf *b, const struct wpp_msg *m, const struct etl_event *ev, unsigned long k,
                         const char *fmt, size_t fl)
{
	struct etl_prop p;
	struct wpp_arg a;
	struct wpp_val v;
	char tt[40];
	memset(&p, 0, sizeof p);
	memset(&a, 0, sizeof a);
	memset(&v, 0, sizeof v);
	a.item = WI_ULONG;
	v.arg = &a;
	v.size = 4;
	p.kind = ETL_VAL_UINT;
	switch (k) {
	case 1:
		p.kind = ETL_VAL_STRING;
		p.v.str.s = m->component ? m->component : "";
		p.v.str.len = strlen(p.v.str.s);
		break;
	case 2:
		p.kind = ETL_VAL_STRING;
		p.v.str.s = m->file_line;
		p.v.str.len = strlen(m->file_line);
		break;
	case 3: p.v.u = ev->tid; break;
	case 4: case 5: case 6:
		if (k == 4 && time_text(ev, tt, sizeof tt)) {
			p.kind = ETL_VAL_STRING;
			p.v.str.s = tt;
			p.v.str.len = strlen(tt);
			break;
		}
		p.v.u = (uint64_t)(k == 4 ? ev->timestamp : k == 5 ? ev->kernel_time : ev->user_time);
		v.size = 8;
		break;
	case 7: p.v.u = ev->sequence; break;
	case 8: p.v.u = ev->pid; break;
	case 9: p.v.u = ev->processor; break;
	default: return;
	}
	if (fmt)
		val_fmt(b, &p, &v, 8, fmt, fl);
	else
		val_text(b, &p, &v, 8);
}

/* Renders format (the message's, or with vals NULL a prefix format that
 * only uses the prefix fields) into decoder storage at *out. */
static int render(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m, const char *format,
                  const struct wpp_val *vals, const char **out)
{
	struct etl_msgbuf b = ETL_MSGBUF_INIT(WPP_MAX_MESSAGE);
	unsigned ptr = ev->ptr_size == 4 ? 4u : 8u;
	*out = NULL;
	for (const char *s = format; *s && !b.oom;) {
		if (*s != '%') {
			const char *e = strchr(s, '%');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			etl__msg_add(&b, s, n);
			s += n;
			continue;
		}
		s++;
		if (*s >= '0' && *s <= '9') {
			unsigned long k = 0;
			while (*s >= '0' && *s <= '9') {
				if (k < 1000000)
					k = k * 10 + (unsigned long)(*s - '0');
				s++;
			}
			const char *fmt = NULL;
			size_t fl = 0;
			if (*s == '!') {
				const char *e = strchr(s + 1, '!');
				if (e && e - s - 1 < 24) {
					fmt = s + 1;
					fl = (size_t)(e - s - 1);
					s = e + 1;
				}
			}
			if (k == 0)
				continue;                       /* %0: prefix placeholder */
			const struct wpp_val *v = NULL;
			for (uint32_t i = 0; vals && i < m->n_args; i++)
				if (m->args[i].index == k) {
					v = &vals[i];
					break;
				}
			if (v) {
				const struct etl_prop *p = etl__dec_prop(d, v->prop);
				if (fmt)
					val_fmt(&b, p, v, ptr, fmt, fl);
				else
					val_text(&b, p, v, ptr);
			} else {
				prefix_field(&b, m, ev, k, fmt, fl);
			}
			continue;
		}
		if (*s == '!') {                               /* %!NAME! */
			const char *e = strchr(s + 1, '!');
			if (e && e - s - 1 < 64) {
				comment_text(&b, m, s + 1, (size_t)(e - s - 1));
				s = e + 1;
				continue;
			}
		}
		if (*s == 0) {
			etl__msg_str(&b, "%");
			break;
		}
		etl__msg_add(&b, s, 1);                              /* %% and others */
		s++;
	}
	return etl__msg_finish(d, &b, out);
}

/* ---- the standard prefix as properties ----------------------------------- */

/* tracefmt's default TRACE_FORMAT_PREFIX (D-PFX): [CPU]PID.TID::time [name]. */
static const char WPP_DEFAULT_PREFIX[] = "[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]";

static int arg_named(const struct wpp_msg *m, const char *name)
{
	for (uint32_t i = 0; i < m->n_args; i++)
		if (strcmp(m->args[i].name, name) == 0)
			return 1;
	return 0;
}

/* Appends one top-level property after the arguments (skipped when an
 * argument has that name). @return : the property, NULL when skipped or on
 * failure (*rc set). */
static struct etl_prop *prefix_prop(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m,
                                    const char *name, int kind, uint16_t in, int *rc)
{
	if (arg_named(m, name))
		return NULL;
	int oom = 0;
	uint32_t idx = etl__dec_reserve(d, 1, &oom);
	if (idx == UINT32_MAX) {
		*rc = etl__dec_fail(d, oom ? ETL_E_NOMEM : ETL_E_BAD_SIZE, oom ? "out of memory" : "too many properties");
		return NULL;
	}
	struct etl_prop *p = etl__dec_prop(d, idx);
	p->name = name;
	p->kind = kind;
	p->in_type = in;
	p->payload_offset = ev->payload ? ev->payload_size : 0;
	return p;
}

static int prefix_str(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m, const char *name,
                      const char *value)
{
	int rc = ETL_OK;
	if (!value)
		return ETL_OK;
	struct etl_prop *p = prefix_prop(d, ev, m, name, ETL_VAL_STRING, ETL_IN_UNICODESTRING, &rc);
	if (p) {
		p->v.str.s = value;
		p->v.str.len = strlen(value);
	}
	return rc;
}

/* The standard prefix fields (decoding.md §5.3) that the System part of an
 * event does not already carry, named as TDH names WPP properties
 * (PROPERTY_DATA_DESCRIPTOR): SequenceNum, FunctionName, ComponentName,
 * SubComponentName, GuidTypeName, FlagsName, LevelName; then Prefix, the
 * default tracefmt prefix rendered. */
static int add_prefix_props(etl_decoder *d, const struct etl_event *ev, const struct wpp_msg *m)
{
	int rc = ETL_OK;
	if (ev->present & ETL_EVF_SEQUENCE) {
		struct etl_prop *p = prefix_prop(d, ev, m, "SequenceNum", ETL_VAL_UINT, ETL_IN_UINT32, &rc);
		if (p)
			p->v.u = ev->sequence;
		if (rc != ETL_OK)
			return rc;
	}
	if ((rc = prefix_str(d, ev, m, "FunctionName", m->func)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "ComponentName", m->compname)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "SubComponentName", m->subcomp)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "GuidTypeName", m->file_line)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "FlagsName", m->flags)) != ETL_OK ||
	    (rc = prefix_str(d, ev, m, "LevelName", m->level)) != ETL_OK)
		return rc;
	if (arg_named(m, "Prefix"))
		return ETL_OK;
	const char *text;
	if (!render(d, ev, m, WPP_DEFAULT_PREFIX, NULL, &text))
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	return prefix_str(d, ev, m, "Prefix", text);
}

/* ---- the per-source decoder ------------------------------------------ */

int etl__wpp_match(const struct etl_event *ev)
{
	return ev->kind == ETL_HDR_MESSAGE;
}

int etl__wpp_decode(etl_decoder *d, const struct etl_event *ev)
{
	struct etl_decoded *res = etl__dec_result(d);
	struct wpp_set *s = get_set(d, 0);
	const struct wpp_msg *m = NULL;

	if (s && (ev->present & ETL_EVF_PROVIDER))
		m = find_msg(s, &ev->provider, ev->id);
	if (!m) {
		char g[ETL_GUID_STRLEN];
		etl_guid_format(&ev->provider, g);
		return etl__dec_fail(d, ETL_E_UNSUPPORTED,
		                     "no schema for this event: provider=%s%s%s%s, id=%u, version=%u",
		                     g, ev->provider_name ? " (" : "",
		                     ev->provider_name ? ev->provider_name : "",
		                     ev->provider_name ? ")" : "",
		                     (unsigned)ev->id, (unsigned)ev->version);
	}
	res->source = ETL_DECODE_WPP;
	res->provider_name = m->component;
	res->event_name = m->func ? m->func : m->file_line;
	res->level_name = m->level;
	res->keywords_name = m->flags;

	struct wpp_val *vals = NULL;
	if (m->n_args) {
		vals = (struct wpp_val *)(void *)etl__dec_alloc(d, m->n_args * sizeof *vals + _Alignof(max_align_t));
		if (!vals)
			return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
		uintptr_t a = (uintptr_t)vals;
		a = (a + _Alignof(max_align_t) - 1) & ~(uintptr_t)(_Alignof(max_align_t) - 1);
		vals = (struct wpp_val *)a;
	}
	struct etl_cur c;
	etl_cur_init(&c, ev->payload, ev->payload ? ev->payload_size : 0);
	for (uint32_t i = 0; i < m->n_args; i++) {
		int rc = dec_arg(d, ev, &c, &m->args[i], &vals[i]);
		if (rc != ETL_OK)
			return rc;
	}
	if (!render(d, ev, m, m->format, vals, &res->message))
		return etl__dec_fail(d, ETL_E_NOMEM, "out of memory");
	return add_prefix_props(d, ev, m);
}
