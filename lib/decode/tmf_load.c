/*
 * lib/decode/tmf_load.c - TMF files (WPP message formats, doc/decoding.md §5)
 * loaded into the decoder's message set: etl_decoder_add_tmf() for files
 * and directories, etl__wpp_parse_tmf() for text in memory; and the lookup
 * of a message by (message GUID, message number) for lib/decode/wpp_decode.c.
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
 * A file that fails to load adds no message; the first definition of a
 * (GUID, number) loaded wins.
 */
#define ETL_BUILDING_LIB 1
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/common/pool.h"
#include "lib/decode/decode_internal.h"
#include "lib/decode/wpp_internal.h"

#define WPP_MAX_FILE_BYTES  (64u * 1024u * 1024u)
#define WPP_MAX_ARGS        256u    /* per message                        */
#define WPP_MAX_LIST        256u    /* names of an ItemList               */

static const char WPP_SET_KEY[] = "W\001wpp-set";

/* ---- item types ------------------------------------------------------ */

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

/* ---- the message set -------------------------------------------------- */

struct wpp_set {
	struct wpp_msg *msgs;
	size_t n_msgs, cap_msgs;
	size_t seq;
	struct etl_pool pool;       /* every string and array of the set     */
};

static void *pool_alloc(struct wpp_set *s, size_t n)
{
	return etl__pool_alloc(&s->pool, n);
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
	etl__pool_free(&s->pool);
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
	etl__dec_set_error(P->d, ETL_E_BAD_VALUE, "%s:%u: %s", P->name, P->line, msg);
	P->err = 1;
}

static void tmf_oom(struct tmf_parse *P)
{
	if (P->err)
		return;
	etl__dec_set_error(P->d, ETL_E_NOMEM, "%s:%u: out of memory", P->name, P->line);
	P->err = 1;
	P->oom = 1;
}

static void trim(const char **b, const char **e)
{
	while (*b < *e && etl__wpp_is_space(**b))
		(*b)++;
	while (*e > *b && etl__wpp_is_space((*e)[-1]))
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
		if ((p == cb || etl__wpp_is_space(p[-1])) && memcmp(p, name, n) == 0 && p[n] == '=') {
			const char *v = p + n + 1, *ve = v;
			while (ve < ce && !etl__wpp_is_space(*ve))
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
	while (b < e && !etl__wpp_is_space(*b))
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
	while (b < e && !etl__wpp_is_space(*b))
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
			while (ne > ib && etl__wpp_is_space(ne[-1]))
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
			while (q < dd && etl__wpp_is_space(*q))
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
	while (tn > tb && etl__wpp_is_space(tn[-1]))
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
	return e - b == 36 || etl__wpp_is_space(b[36]);
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
	if (starts(b, e, "#typev") && (e - b == 6 || etl__wpp_is_space(b[6]))) {
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
		etl__dec_set_error(d, ETL_E_NOMEM, "%s: out of memory", name ? name : "TMF");
		return ETL_FATAL;
	}
	return parse_text(d, s, name ? name : "TMF", text ? text : "", text ? len : 0);
}

static int parse_file(void *d, const char *name, const char *text, size_t len)
{
	return etl__wpp_parse_tmf(d, name, text, len);
}

static int load_one(etl_decoder *d, void *unused, const char *file)
{
	(void)unused;
	return etl__dec_load_file(d, file, WPP_MAX_FILE_BYTES, "TMF", parse_file, d);
}

int etl_decoder_add_tmf(etl_decoder *d, const char *path)
{
	if (!d)
		return ETL_FAILED;
	if (!path) {
		etl__dec_set_error(d, ETL_E_MISUSE, "no TMF path given");
		return ETL_FAILED;
	}
	static const char *const suffixes[] = { ".tmf", NULL };
	return etl__dec_load_path(d, path, suffixes, "*.tmf", load_one, NULL);
}

/* ---- lookup ---------------------------------------------------------- */

const struct wpp_msg *etl__wpp_find_msg(etl_decoder *d, const struct etl_guid *g, uint16_t number)
{
	const struct wpp_set *s = get_set(d, 0);
	if (!s)
		return NULL;
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

