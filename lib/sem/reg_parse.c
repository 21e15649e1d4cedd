/*
 * lib/sem/reg_parse.c - .reg text (`reg export`, regedit) to the registry
 * tree (doc/sem.md §2.2).
 *
 * Lines after the header: "[KEY]" opens a key, "[-KEY]" deletes one with
 * its subtree, "\"Name\"=DATA" or "@=DATA" sets a value ("=-" deletes it),
 * ";" starts a comment line, blank lines are nothing. DATA is "text"
 * (REG_SZ, with \\ and \" escapes), dword:XXXXXXXX, hex:BYTES (REG_BINARY)
 * or hex(N):BYTES (type N: hex(b) REG_QWORD, hex(2) REG_EXPAND_SZ, hex(7)
 * REG_MULTI_SZ ...); a byte list continues on the next line after a "\"
 * at the end of a line.
 *
 * Only the keys the SEM reads are kept (the WDI key of a control set,
 * Select, the WDI policy key); the rest of a control set is skipped
 * without a word, anything else is reported as outside the known roots.
 * A line that cannot be read is a diagnostic naming its line and column;
 * the line (a key line: the key and its values) is skipped and reading
 * goes on. Only the encoding, the header and the caps are fatal.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "etl_errors.h"
#include "lib/sem/sem_internal.h"

#define MAX_KEY_NAME   255u      /* characters, the registry's limit      */
#define MAX_VALUE_NAME 16383u

/* What the lines after a key line apply to. */
enum cur_state {
	CUR_NONE,        /* no key line yet: values are diagnosed          */
	CUR_STORED,      /* a key the SEM reads: values are kept           */
	CUR_SKIP,        /* a key the SEM does not read: values skipped    */
	CUR_BAD,         /* a key line already diagnosed: values skipped   */
	CUR_DELETED      /* after "[-KEY]": values are diagnosed           */
};

struct parser {
	const char *text;
	size_t len, pos;         /* next line starts at pos                */
	uint32_t lineno;         /* line number of the current line        */
	const char *name;
	enum etl__reg_version ver;
	struct etl__regtree *t;
	struct etl__sem_diags *d;
	struct etl__regkey *cur;
	enum cur_state state;
	char *cur_path;          /* the key as its line spelt it           */
	uint8_t *buf;            /* value data being built                 */
	size_t blen, bcap;
	char *sbuf;              /* a quoted string being read             */
	size_t slen, scap;
	int oom;
};

/* The current line. */
struct line {
	const char *s;
	size_t n;
};

static int next_line(struct parser *p, struct line *l)
{
	if (p->pos >= p->len)
		return 0;
	const char *s = p->text + p->pos;
	const char *nl = memchr(s, '\n', p->len - p->pos);
	size_t n = nl ? (size_t)(nl - s) : p->len - p->pos;
	p->pos += n + (nl != NULL);
	if (n && s[n - 1] == '\r')
		n--;
	l->s = s;
	l->n = n;
	p->lineno++;
	return 1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* 1-based column of byte i of the line, in characters. */
static uint32_t column(const struct line *l, size_t i)
{
	uint32_t c = 1;
	for (size_t k = 0; k < i && k < l->n; k++)
		if (((unsigned char)l->s[k] & 0xC0) != 0x80)
			c++;
	return c;
}

static void syntax(struct parser *p, const struct line *l, size_t i, const char *what)
{
	etl__sem_diag_add(p->d, p->cur_path, "reg_syntax", "line %u, column %u: %s", p->lineno, column(l, i), what);
}

static int only_blanks(const struct line *l, size_t i)
{
	for (; i < l->n; i++)
		if (!is_blank(l->s[i]))
			return 0;
	return 1;
}

static int grow(struct parser *p, void **buf, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *b = realloc(*buf, nc * elem);
	if (!b) {
		p->oom = 1;
		return -1;
	}
	*buf = b;
	*cap = nc;
	return 0;
}

static int put_byte(struct parser *p, uint8_t b)
{
	if (grow(p, (void **)&p->buf, &p->bcap, p->blen + 1, 1) != 0)
		return -1;
	p->buf[p->blen++] = b;
	return 0;
}

static int put_u16(struct parser *p, uint32_t u)
{
	return put_byte(p, (uint8_t)u) || put_byte(p, (uint8_t)(u >> 8)) ? -1 : 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* ---- key lines --------------------------------------------------------------- */

enum key_class { KEY_STORE, KEY_SKIP, KEY_OUTSIDE };

struct comp {
	const char *s;
	size_t n;
};

static int comp_is(const struct comp *c, const char *name)
{
	return etl__reg_name_eq(c->s, c->n, name);
}

/* Which keys the SEM reads (doc/sem.md §2.1). Ancestors of those keys,
 * and the rest of a control set, are skipped quietly. */
static enum key_class classify(const struct comp *c, size_t n)
{
	static const char *const policy[] = { "Policies", "Microsoft", "Windows", "WDI" };
	if (!comp_is(&c[0], "HKEY_LOCAL_MACHINE"))
		return KEY_OUTSIDE;
	if (n == 1)
		return KEY_SKIP;
	if (comp_is(&c[1], "SYSTEM")) {
		if (n == 2)
			return KEY_SKIP;
		if (comp_is(&c[2], "Select"))
			return KEY_STORE;
		if (!comp_is(&c[2], "CurrentControlSet") && !etl__reg_control_set_number(c[2].s, c[2].n))
			return KEY_OUTSIDE;
		if (n >= 5 && comp_is(&c[3], "Control") && comp_is(&c[4], "WDI"))
			return KEY_STORE;
		return KEY_SKIP;
	}
	if (!comp_is(&c[1], "SOFTWARE"))
		return KEY_OUTSIDE;
	for (size_t i = 0; i < 4; i++) {
		if (n == 2 + i)
			return KEY_SKIP;
		if (!comp_is(&c[2 + i], policy[i]))
			return KEY_OUTSIDE;
	}
	return KEY_STORE;
}

static void set_cur_path(struct parser *p, const char *s, size_t n)
{
	free(p->cur_path);
	p->cur_path = malloc(n + 1);
	if (!p->cur_path) {
		p->oom = 1;
		return;
	}
	memcpy(p->cur_path, s, n);
	p->cur_path[n] = 0;
}

/* Splits the key path into names; diagnoses empty and over-long ones.
 * @return : the number of names, 0 after a diagnostic. */
static size_t split_path(struct parser *p, const struct line *l, size_t start, size_t end, struct comp **out)
{
	size_t n = 1;
	for (size_t i = start; i < end; i++)
		n += l->s[i] == '\\';
	struct comp *c = malloc(n * sizeof *c);
	if (!c) {
		p->oom = 1;
		return 0;
	}
	size_t k = 0, b = start;
	for (size_t i = start; i <= end; i++) {
		if (i < end && l->s[i] != '\\')
			continue;
		c[k].s = l->s + b;
		c[k].n = i - b;
		if (c[k].n == 0) {
			syntax(p, l, i, "empty key name in the path; the key and its values are skipped");
			free(c);
			return 0;
		}
		char tmp[4 * MAX_KEY_NAME + 8];
		if (c[k].n < sizeof tmp) {
			memcpy(tmp, c[k].s, c[k].n);
			tmp[c[k].n] = 0;
		}
		if (c[k].n >= sizeof tmp || etl__sem_utf16_units(tmp) > MAX_KEY_NAME) {
			syntax(p, l, b, "key name longer than 255 characters; the key and its values are skipped");
			free(c);
			return 0;
		}
		k++;
		b = i + 1;
	}
	*out = c;
	return n;
}

static void key_line(struct parser *p, const struct line *l, size_t i)
{
	size_t end = l->n;
	while (end > i && is_blank(l->s[end - 1]))
		end--;
	p->cur = NULL;
	p->state = CUR_BAD;
	size_t close = end;                  /* just after the last ']' */
	while (close > i + 1 && l->s[close - 1] != ']')
		close--;
	if (close <= i + 1) {
		set_cur_path(p, l->s + i + 1, end - (i + 1));
		syntax(p, l, end, "key line without a closing ']'; the key and its values are skipped");
		return;
	}
	size_t start = i + 1, stop = close - 1;
	set_cur_path(p, l->s + start, stop - start);
	if (close != end) {
		syntax(p, l, close, "text after the closing ']'; the key and its values are skipped");
		return;
	}
	int del = start < stop && l->s[start] == '-';
	if (del) {
		start++;
		set_cur_path(p, l->s + start, stop - start);
	}
	if (start == stop) {
		syntax(p, l, start, "empty key name");
		return;
	}
	struct comp *c = NULL;
	size_t n = split_path(p, l, start, stop, &c);
	if (!n)
		return;
	enum key_class cls = classify(c, n);
	if (cls == KEY_OUTSIDE) {
		etl__sem_diag_add(p->d, p->cur_path, "key_outside_roots",
		                  "line %u: %s outside the keys the SEM reads (the WDI key of a control set, "
		                  "SYSTEM\\Select, the WDI policy key); skipped with its values",
		                  p->lineno, del ? "key deletion" : "key");
		free(c);
		return;
	}
	struct etl__regkey *k = p->t->root;
	if (del) {
		for (size_t j = 0; j < n && k; j++)
			k = etl__regkey_child(p->t, k, c[j].s, c[j].n);
		if (k)
			etl__regkey_remove(p->t, k);
		p->state = CUR_DELETED;
	} else if (cls == KEY_SKIP) {
		p->state = CUR_SKIP;
	} else {
		for (size_t j = 0; j < n && k; j++)
			k = etl__regkey_add(p->t, k, c[j].s, c[j].n);
		p->cur = k;
		p->state = k ? CUR_STORED : CUR_BAD;
	}
	free(c);
}

/* ---- value lines --------------------------------------------------------------- */

/* Reads a quoted string starting at l->s[*i] == '"' into p->sbuf (UTF-8,
 * NUL-terminated, escapes \\ and \" resolved). @return : 0, or -1 after a
 * diagnostic. */
static int quoted(struct parser *p, const struct line *l, size_t *i)
{
	size_t k = *i + 1;
	p->slen = 0;
	for (;;) {
		if (k >= l->n) {
			syntax(p, l, *i, "string without its closing '\"'");
			return -1;
		}
		char c = l->s[k];
		if (c == '"')
			break;
		if (c == '\\') {
			if (k + 1 >= l->n || (l->s[k + 1] != '\\' && l->s[k + 1] != '"')) {
				syntax(p, l, k, "unknown escape in a string (only \\\\ and \\\" are escapes)");
				return -1;
			}
			c = l->s[++k];
		}
		if (grow(p, (void **)&p->sbuf, &p->scap, p->slen + 2, 1) != 0)
			return -1;
		p->sbuf[p->slen++] = c;
		k++;
	}
	if (grow(p, (void **)&p->sbuf, &p->scap, p->slen + 1, 1) != 0)
		return -1;
	p->sbuf[p->slen] = 0;
	*i = k + 1;
	return 0;
}

/* p->sbuf (valid UTF-8: the text decoder made sure) as UTF-16LE with a
 * terminating NUL, into p->buf. */
static int string_data(struct parser *p)
{
	p->blen = 0;
	const unsigned char *s = (const unsigned char *)p->sbuf;
	for (size_t i = 0; i < p->slen;) {
		uint32_t cp = s[i];
		size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
		if (n > 1)
			cp &= 0x3Fu >> (n - 1);
		for (size_t k = 1; k < n && i + k < p->slen; k++)
			cp = (cp << 6) | (s[i + k] & 0x3Fu);
		i += n;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			if (put_u16(p, 0xD800 + (cp >> 10)) || put_u16(p, 0xDC00 + (cp & 0x3FF)))
				return -1;
		} else if (put_u16(p, cp)) {
			return -1;
		}
	}
	return put_u16(p, 0);
}

/* After an error inside a byte list: the lines it continues onto belong
 * to it, not to the file's next entries. */
static void skip_continuations(struct parser *p, struct line *l)
{
	for (;;) {
		size_t e = l->n;
		while (e && is_blank(l->s[e - 1]))
			e--;
		if (!e || l->s[e - 1] != '\\' || !next_line(p, l))
			return;
	}
}

/* A comma-separated list of hex bytes from l->s[i], continuing on the
 * next line after a final '\'. @return : 0 with the bytes in p->buf, or
 * -1 after a diagnostic. */
static int hex_list(struct parser *p, struct line *l, size_t i)
{
	p->blen = 0;
	for (;;) {
		while (i < l->n && is_blank(l->s[i]))
			i++;
		if (i == l->n)
			return 0;
		if (l->s[i] == '\\' && only_blanks(l, i + 1)) {
			if (!next_line(p, l)) {
				syntax(p, l, i, "'\\' continues the value past the end of the file");
				return -1;
			}
			i = 0;
			continue;
		}
		int hi = hexval(l->s[i]);
		if (hi < 0) {
			syntax(p, l, i, "bad hex byte in a hex: list");
			skip_continuations(p, l);
			return -1;
		}
		int lo = i + 1 < l->n ? hexval(l->s[i + 1]) : -1;
		int v = lo < 0 ? hi : hi * 16 + lo;
		i += lo < 0 ? 1 : 2;
		if (i < l->n && hexval(l->s[i]) >= 0) {
			syntax(p, l, i, "hex byte of more than two digits in a hex: list");
			skip_continuations(p, l);
			return -1;
		}
		if (put_byte(p, (uint8_t)v) != 0)
			return -1;
		while (i < l->n && is_blank(l->s[i]))
			i++;
		if (i < l->n && l->s[i] == ',') {
			i++;
		} else if (i < l->n && l->s[i] != '\\') {
			syntax(p, l, i, "expected ',' between hex bytes");
			skip_continuations(p, l);
			return -1;
		}
	}
}

/* REGEDIT4 stores expand-sz and multi-sz bytes as 8-bit text: widen them
 * to UTF-16LE as a hive holds them (byte by byte, Latin-1). */
static int widen(struct parser *p)
{
	size_t n = p->blen;
	if (grow(p, (void **)&p->buf, &p->bcap, n * 2 + 1, 1) != 0)
		return -1;
	for (size_t k = n; k-- > 0;) {
		p->buf[2 * k + 1] = 0;
		p->buf[2 * k] = p->buf[k];
	}
	p->blen = n * 2;
	return 0;
}

static int prefix(const struct line *l, size_t i, const char *word)
{
	size_t n = strlen(word);
	return l->n - i >= n && etl__reg_name_eq(l->s + i, n, word);
}

/* DATA after '=': sets *type and p->buf, or *del. @return : 0, or -1
 * after a diagnostic. */
static int value_data(struct parser *p, struct line *l, size_t i, uint32_t *type, int *del)
{
	*del = 0;
	if (i < l->n && l->s[i] == '-') {
		if (!only_blanks(l, i + 1)) {
			syntax(p, l, i + 1, "text after '=-'");
			return -1;
		}
		*del = 1;
		return 0;
	}
	if (i < l->n && l->s[i] == '"') {
		if (quoted(p, l, &i) != 0)
			return -1;
		if (!only_blanks(l, i)) {
			syntax(p, l, i, "text after the closing '\"' of a string");
			return -1;
		}
		*type = ETL_REG_SZ;
		return string_data(p);
	}
	if (prefix(l, i, "dword:")) {
		size_t k = i + 6, d = 0;
		uint32_t v = 0;
		for (; k < l->n && hexval(l->s[k]) >= 0; k++, d++)
			v = (v << 4) | (uint32_t)hexval(l->s[k]);
		if (d == 0 || d > 8 || !only_blanks(l, k)) {
			syntax(p, l, d > 8 ? i + 6 : k, d > 8 ? "dword: value of more than 8 hex digits"
			                                       : "dword: needs 1 to 8 hex digits and nothing after them");
			return -1;
		}
		p->blen = 0;
		for (int b = 0; b < 4; b++)
			if (put_byte(p, (uint8_t)(v >> (8 * b))) != 0)
				return -1;
		*type = ETL_REG_DWORD;
		return 0;
	}
	if (prefix(l, i, "hex:")) {
		*type = ETL_REG_BINARY;
		return hex_list(p, l, i + 4);
	}
	if (prefix(l, i, "hex(")) {
		size_t k = i + 4, d = 0;
		uint32_t t = 0;
		for (; k < l->n && hexval(l->s[k]) >= 0; k++, d++)
			t = (t << 4) | (uint32_t)hexval(l->s[k]);
		if (d == 0 || d > 8 || k + 1 >= l->n || l->s[k] != ')' || l->s[k + 1] != ':') {
			syntax(p, l, i, "hex(N): needs a type of 1 to 8 hex digits, then \"):\"");
			skip_continuations(p, l);
			return -1;
		}
		*type = t;
		if (hex_list(p, l, k + 2) != 0)
			return -1;
		if (p->ver == ETL_REG_V4 && (t == ETL_REG_EXPAND_SZ || t == ETL_REG_MULTI_SZ))
			return widen(p);
		return 0;
	}
	syntax(p, l, i, "unknown value type (expected \"text\", dword:, hex: or hex(N):)");
	skip_continuations(p, l);
	return -1;
}

static void value_line(struct parser *p, struct line *l, size_t i)
{
	char *name = NULL;
	size_t namelen = 0;
	uint32_t line0 = p->lineno;
	if (l->s[i] == '@') {
		i++;
		name = strdup("");
	} else {
		if (quoted(p, l, &i) != 0)
			return;
		name = strdup(p->sbuf);
		namelen = p->slen;
		if (name && etl__sem_utf16_units(name) > MAX_VALUE_NAME) {
			syntax(p, l, 0, "value name longer than 16383 characters");
			free(name);
			return;
		}
	}
	if (!name) {
		p->oom = 1;
		return;
	}
	while (i < l->n && is_blank(l->s[i]))
		i++;
	if (i >= l->n || l->s[i] != '=') {
		syntax(p, l, i, "expected '=' after the value name");
		free(name);
		return;
	}
	i++;
	while (i < l->n && is_blank(l->s[i]))
		i++;
	uint32_t type = 0;
	int del = 0;
	if (value_data(p, l, i, &type, &del) != 0) {
		free(name);
		return;
	}
	if (p->state == CUR_NONE || p->state == CUR_DELETED) {
		etl__sem_diag_add(p->d, p->cur_path, "value_without_key", "line %u: value \"%s\" %s; skipped", line0,
		                  name, p->state == CUR_NONE ? "before the first key" : "after a key deletion");
	} else if (p->state == CUR_STORED) {
		if (del)
			etl__regkey_unset(p->t, p->cur, name, namelen);
		else
			etl__regkey_set(p->t, p->cur, name, namelen, type, p->buf, p->blen);
	}
	free(name);
}

static int fatal_tree(struct parser *p, struct etl_sem_error *err)
{
	int code = p->oom ? ETL_E_NOMEM : p->t->err;
	if (!code && !p->d->oom)
		return 0;
	if (code == ETL_E_LIMIT)
		etl__sem_err(err, code, p->lineno, 0, -1,
		             "%s: line %u: more than %u keys or %u values under the keys the SEM reads", p->name,
		             p->lineno, ETL_REG_MAX_KEYS, ETL_REG_MAX_VALUES);
	else
		etl__sem_err(err, ETL_E_NOMEM, p->lineno, 0, -1, "%s: out of memory at line %u", p->name, p->lineno);
	return -1;
}

int etl__reg_parse(const uint8_t *data, size_t size, const char *name, struct etl__regtree *t,
                   struct etl__sem_diags *d, struct etl_sem_error *err)
{
	struct parser p = { .name = name, .t = t, .d = d, .state = CUR_NONE };
	char *text;
	size_t len, body;
	if (etl__reg_text(data, size, name, &text, &len, &body, &p.ver, err) != 0)
		return -1;
	p.text = text;
	p.len = len;
	p.pos = body;
	p.lineno = 1;
	struct line l;
	int rc = 0;
	while (next_line(&p, &l)) {
		size_t i = 0;
		while (i < l.n && is_blank(l.s[i]))
			i++;
		if (i == l.n || l.s[i] == ';')
			;
		else if (l.s[i] == '[')
			key_line(&p, &l, i);
		else if (l.s[i] == '"' || l.s[i] == '@')
			value_line(&p, &l, i);
		else
			syntax(&p, &l, i, "not a key, a value or a comment");
		if ((rc = fatal_tree(&p, err)) != 0)
			break;
	}
	free(p.cur_path);
	free(p.buf);
	free(p.sbuf);
	free(text);
	return rc;
}
