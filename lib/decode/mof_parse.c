/*
 * lib/decode/mof_parse.c - MOF text to class declarations (see
 * mof_parse.h): a tokenizer and a parser of the declarations classic event
 * schemas are written in (doc/decoding.md §4.5).
 *
 * Grammar read (keywords case-insensitive, as in MOF):
 *   file      := { "#pragma ..." line | class | instance | qualdecl | ";" }
 *   class     := [quals] "class" NAME [":" NAME] ( ";" | "{" {member} "}" ";" )
 *   member    := [quals] TYPE ["ref"] NAME ( "(" ... ")" ";"       (method)
 *                | ["[" [NUMBER] "]"] ["=" value ...] ";" )         (property)
 *   quals     := "[" qual {"," qual} "]"
 *   qual      := NAME [ "(" value ")" | "{" [value {"," value}] "}" ] [":" FLAVOR {FLAVOR}]
 *   value     := ["-"|"+"] NUMBER | STRING {STRING} | 'c' | true | false | null | NAME | "$" NAME
 *   instance  := [quals] "instance" "of" NAME ... "{" ... "}" ";"    (skipped)
 *   qualdecl  := "qualifier" ... ";"                                  (skipped)
 * Strings take the escapes \b \t \n \f \r \" \' \\ and \x / \X with up to
 * four hex digits (as UTF-8); numbers are decimal, 0x hex, octal (leading
 * 0), binary (trailing b) or real.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_errors.h"
#include "lib/decode/mof_parse.h"

enum tok { T_EOF, T_IDENT, T_STR, T_CHAR, T_NUM, T_PUNCT };

/* A growable array kept in malloc'd memory while its element is parsed,
 * then copied into the caller's allocator (vec_commit()). */
struct vec {
	void *p;
	size_t n, cap, sz;
};

struct lex {
	const char *p;
	size_t n, pos;
	uint32_t line;
	const char *file;
	/* the current token */
	int tok;
	char punct;
	uint32_t tok_line;
	const char *ts;             /* IDENT / NUM: its text in p          */
	size_t tn;
	struct vec str;             /* STR / CHAR: the decoded bytes       */
	/* failure */
	int failed, oom;
	char *err;
	size_t errlen;
	mofp_alloc_fn alloc;
	void *ctx;
};

/* ---- helpers ------------------------------------------------------- */

static int fail(struct lex *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct lex *L, const char *fmt, ...)
{
	if (!L->failed) {
		int k = snprintf(L->err, L->errlen, "%u: ", L->tok_line ? L->tok_line : L->line);
		va_list ap;
		va_start(ap, fmt);
		if (k >= 0 && (size_t)k < L->errlen)
			vsnprintf(L->err + k, L->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	L->failed = 1;
	return -1;
}

static int nomem(struct lex *L)
{
	L->oom = 1;
	return fail(L, "out of memory");
}

static void *vec_push(struct lex *L, struct vec *v, size_t limit, const char *what)
{
	if (v->n >= limit) {
		fail(L, "more than %zu %s", limit, what);
		return NULL;
	}
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		void *p = realloc(v->p, cap * v->sz);
		if (!p) {
			nomem(L);
			return NULL;
		}
		v->p = p;
		v->cap = cap;
	}
	void *slot = (char *)v->p + v->n++ * v->sz;
	memset(slot, 0, v->sz);
	return slot;
}

/* v's elements in the caller's allocator (NULL, without failure, when it
 * has none); v is emptied. */
static void *vec_commit(struct lex *L, struct vec *v)
{
	void *out = NULL;
	if (v->n) {
		out = L->alloc(L->ctx, v->n * v->sz);
		if (!out)
			nomem(L);
		else
			memcpy(out, v->p, v->n * v->sz);
	}
	free(v->p);
	v->p = NULL;
	v->n = v->cap = 0;
	return out;
}

static const char *dup_text(struct lex *L, const char *s, size_t n)
{
	char *o = L->alloc(L->ctx, n + 1);
	if (!o) {
		nomem(L);
		return NULL;
	}
	memcpy(o, s, n);
	o[n] = 0;
	return o;
}

int etl__mofp_name_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
		if (ca >= 'A' && ca <= 'Z')
			ca += 32;
		if (cb >= 'A' && cb <= 'Z')
			cb += 32;
		if (ca != cb)
			return 0;
		if (!ca)
			return 1;
	}
}

const struct mofp_qual *etl__mofp_qual(const struct mofp_qual *q, uint32_t nq, const char *name)
{
	for (uint32_t i = 0; i < nq; i++)
		if (etl__mofp_name_eq(q[i].name, name))
			return &q[i];
	return NULL;
}

/* ---- tokens ---------------------------------------------------------- */

static int is_ident_start(unsigned c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
}

static int is_ident(unsigned c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int hexval(unsigned c)
{
	return c >= '0' && c <= '9' ? (int)(c - '0') : c >= 'a' && c <= 'f' ? (int)(c - 'a' + 10)
	       : c >= 'A' && c <= 'F' ? (int)(c - 'A' + 10) : -1;
}

static int str_byte(struct lex *L, unsigned char b)
{
	unsigned char *slot = vec_push(L, &L->str, L->n + 8, "string bytes");
	if (!slot)
		return -1;
	*slot = b;
	return 0;
}

/* A code point below 0x10000 as UTF-8 (lone surrogates as U+FFFD). */
static int str_cp(struct lex *L, unsigned cp)
{
	if (cp >= 0xD800 && cp < 0xE000)
		cp = 0xFFFD;
	if (cp < 0x80)
		return str_byte(L, (unsigned char)cp);
	if (cp < 0x800)
		return str_byte(L, (unsigned char)(0xC0 | cp >> 6)) | str_byte(L, (unsigned char)(0x80 | (cp & 0x3F)));
	return str_byte(L, (unsigned char)(0xE0 | cp >> 12)) | str_byte(L, (unsigned char)(0x80 | (cp >> 6 & 0x3F))) |
	       str_byte(L, (unsigned char)(0x80 | (cp & 0x3F)));
}

/* A quoted literal from L->pos (at the quote) into L->str (appended). */
static int lex_quoted(struct lex *L, char q)
{
	L->pos++;
	for (;;) {
		if (L->pos >= L->n)
			return fail(L, "%s literal not closed", q == '"' ? "string" : "character");
		unsigned char c = (unsigned char)L->p[L->pos++];
		if (c == (unsigned char)q)
			return 0;
		if (c == '\n')
			return fail(L, "line break inside a %s literal", q == '"' ? "string" : "character");
		if (c != '\\') {
			if (str_byte(L, c))
				return -1;
			continue;
		}
		if (L->pos >= L->n)
			return fail(L, "escape at the end of the text");
		c = (unsigned char)L->p[L->pos++];
		const char *from = "btnfr\"'\\", *to = "\b\t\n\f\r\"'\\";
		const char *k = c ? strchr(from, c) : NULL;
		if (k) {
			if (str_byte(L, (unsigned char)to[k - from]))
				return -1;
		} else if (c == 'x' || c == 'X') {
			unsigned cp = 0;
			int digits = 0;
			while (digits < 4 && L->pos < L->n && hexval((unsigned char)L->p[L->pos]) >= 0)
				cp = cp * 16 + (unsigned)hexval((unsigned char)L->p[L->pos++]), digits++;
			if (!digits)
				return fail(L, "\\x without hex digits");
			if (str_cp(L, cp))
				return -1;
		} else {
			return fail(L, "unknown escape \\%c", c >= 0x20 && c < 0x7F ? c : '?');
		}
	}
}

/* Skips white space, comments and #pragma lines. */
static int skip_space(struct lex *L)
{
	while (L->pos < L->n) {
		char c = L->p[L->pos];
		if (c == '\n') {
			L->line++;
			L->pos++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			L->pos++;
		} else if (c == '/' && L->pos + 1 < L->n && L->p[L->pos + 1] == '/') {
			while (L->pos < L->n && L->p[L->pos] != '\n')
				L->pos++;
		} else if (c == '/' && L->pos + 1 < L->n && L->p[L->pos + 1] == '*') {
			uint32_t start = L->line;
			L->pos += 2;
			for (;;) {
				if (L->pos + 1 >= L->n) {
					L->tok_line = start;
					return fail(L, "comment not closed");
				}
				if (L->p[L->pos] == '*' && L->p[L->pos + 1] == '/')
					break;
				if (L->p[L->pos] == '\n')
					L->line++;
				L->pos++;
			}
			L->pos += 2;
		} else if (c == '#') {
			/* A preprocessor line (#pragma namespace(...), classflags,
			 * autorecover, include): nothing a schema needs. */
			while (L->pos < L->n && L->p[L->pos] != '\n')
				L->pos++;
		} else {
			break;
		}
	}
	return 0;
}

/* Reads the next token into L. */
static int next(struct lex *L)
{
	if (L->failed || skip_space(L))
		return -1;
	L->tok_line = L->line;
	L->str.n = 0;
	if (L->pos >= L->n) {
		L->tok = T_EOF;
		return 0;
	}
	unsigned char c = (unsigned char)L->p[L->pos];
	size_t start = L->pos;
	if (is_ident_start(c)) {
		while (L->pos < L->n && is_ident((unsigned char)L->p[L->pos]))
			L->pos++;
		L->tok = T_IDENT;
	} else if (c >= '0' && c <= '9') {
		/* digits, letters, dots, and a sign after an exponent's e (the
		 * first digit taken, so there is always a byte before) */
		L->pos++;
		while (L->pos < L->n) {
			unsigned char d = (unsigned char)L->p[L->pos];
			unsigned char prev = (unsigned char)L->p[L->pos - 1];
			int in_hex = L->pos - start >= 2 && (L->p[start + 1] == 'x' || L->p[start + 1] == 'X');
			if (is_ident(d) || d == '.' ||
			    ((d == '+' || d == '-') && (prev == 'e' || prev == 'E') && !in_hex))
				L->pos++;
			else
				break;
		}
		L->tok = T_NUM;
	} else if (c == '"' || c == '\'') {
		if (lex_quoted(L, (char)c))
			return -1;
		L->tok = c == '"' ? T_STR : T_CHAR;
		if (c == '\'' && L->str.n == 0)
			return fail(L, "empty character literal");
	} else {
		L->pos++;
		L->tok = T_PUNCT;
		L->punct = (char)c;
	}
	L->ts = L->p + start;
	L->tn = L->pos - start;
	return 0;
}

static int is_punct(const struct lex *L, char c)
{
	return L->tok == T_PUNCT && L->punct == c;
}

static int is_word(const struct lex *L, const char *w)
{
	size_t k = strlen(w);
	if (L->tok != T_IDENT || L->tn != k)
		return 0;
	for (size_t i = 0; i < k; i++) {
		char a = L->ts[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a + 32);
		if (a != w[i])
			return 0;
	}
	return 1;
}

static int expect(struct lex *L, char c, const char *where)
{
	if (!is_punct(L, c))
		return fail(L, "expected '%c' %s", c, where);
	return next(L);
}

/* The current IDENT copied, or NULL (failed). */
static const char *take_ident(struct lex *L, const char *what)
{
	if (L->tok != T_IDENT) {
		fail(L, "expected %s", what);
		return NULL;
	}
	return dup_text(L, L->ts, L->tn);
}

/* The number token as an integer: decimal, 0x hex, leading-0 octal,
 * trailing-b binary. 0 when it is a real (*real set) or malformed. */
static int parse_int(struct lex *L, int64_t *out, int *real)
{
	const char *s = L->ts;
	size_t n = L->tn, i = 0;
	unsigned base = 10;
	uint64_t v = 0;
	*real = 0;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (n > 1 && (s[n - 1] == 'b' || s[n - 1] == 'B')) {
		base = 2;
		n--;
	} else if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n)) {
		*real = 1;
		return 0;
	} else if (n > 1 && s[0] == '0') {
		base = 8;
	}
	for (; i < n; i++) {
		int d = hexval((unsigned char)s[i]);
		if (d < 0 || (unsigned)d >= base)
			return fail(L, "malformed number \"%.*s\"", (int)(L->tn > 40 ? 40 : L->tn), L->ts);
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return fail(L, "number too large");
		v = v * base + (unsigned)d;
	}
	if (v > (uint64_t)INT64_MAX)
		return fail(L, "number too large");
	*out = (int64_t)v;
	return 0;
}

/* ---- values and qualifiers -------------------------------------------- */

/* One value at the current token into *v; the token after it is read. */
static int parse_value(struct lex *L, struct mofp_val *v)
{
	int neg = 0;
	if (is_punct(L, '-') || is_punct(L, '+')) {
		neg = L->punct == '-';
		if (next(L))
			return -1;
		if (L->tok != T_NUM)
			return fail(L, "expected a number after the sign");
	}
	if (L->tok == T_NUM) {
		int real = 0;
		int64_t i = 0;
		if (parse_int(L, &i, &real))
			return -1;
		v->type = real ? MOFV_REAL : MOFV_INT;
		v->i = neg ? -i : i;
		if (real && !(v->s = dup_text(L, L->ts, L->tn)))
			return -1;
		return next(L);
	}
	if (L->tok == T_STR) {
		/* Adjacent literals are one string. */
		struct vec all = { NULL, 0, 0, 1 };
		int rc = 0;
		while (!rc && L->tok == T_STR) {
			for (size_t k = 0; !rc && k < L->str.n; k++) {
				unsigned char *b = vec_push(L, &all, L->n + 1, "string bytes");
				if (!b)
					rc = -1;
				else
					*b = ((unsigned char *)L->str.p)[k];
			}
			if (!rc)
				rc = next(L);
		}
		unsigned char *z = rc ? NULL : vec_push(L, &all, L->n + 1, "string bytes");
		if (z) {
			*z = 0;
			v->type = MOFV_STR;
			v->s = vec_commit(L, &all);
		}
		free(all.p);
		return rc || !z || !v->s ? -1 : 0;
	}
	if (L->tok == T_CHAR) {
		v->type = MOFV_INT;
		v->i = ((unsigned char *)L->str.p)[0];
		return next(L);
	}
	if (is_punct(L, '$')) {             /* an alias: kept as its name */
		if (next(L))
			return -1;
	}
	if (L->tok == T_IDENT) {
		if (is_word(L, "true") || is_word(L, "false")) {
			v->type = MOFV_BOOL;
			v->i = is_word(L, "true");
		} else if (is_word(L, "null")) {
			v->type = MOFV_NULL;
		} else {
			v->type = MOFV_IDENT;
			if (!(v->s = dup_text(L, L->ts, L->tn)))
				return -1;
		}
		return next(L);
	}
	return fail(L, "expected a value");
}

/* "[" qual {"," qual} "]" at the current token into *q / *nq. */
static int parse_quals(struct lex *L, const struct mofp_qual **q, uint32_t *nq)
{
	struct vec qs = { NULL, 0, 0, sizeof(struct mofp_qual) };
	struct vec vals = { NULL, 0, 0, sizeof(struct mofp_val) };
	int rc = next(L);                   /* past '[' */
	while (!rc) {
		struct mofp_qual *x = vec_push(L, &qs, MOFP_MAX_QUALS, "qualifiers on one element");
		if (!x || !(x->name = take_ident(L, "a qualifier name")) || next(L)) {
			rc = -1;
			break;
		}
		if (is_punct(L, '(') || is_punct(L, '{')) {
			char close = L->punct == '(' ? ')' : '}';
			x->is_array = close == '}';
			rc = next(L);
			while (!rc && !is_punct(L, close)) {
				struct mofp_val *v = vec_push(L, &vals, MOFP_MAX_VALUES, "values of one qualifier");
				if (!v || parse_value(L, v)) {
					rc = -1;
					break;
				}
				if (is_punct(L, ','))
					rc = next(L);
				else if (!is_punct(L, close))
					rc = fail(L, "expected ',' or '%c' in the values of %s", close, x->name);
			}
			if (rc)
				break;
			x->n = (uint32_t)vals.n;
			x->v = vec_commit(L, &vals);
			if ((x->n && !x->v) || next(L)) {
				rc = -1;
				break;
			}
		}
		if (is_punct(L, ':')) {             /* flavors: Amended, ToInstance, ... */
			rc = next(L);
			if (!rc && L->tok != T_IDENT)
				rc = fail(L, "expected a flavor after ':'");
			while (!rc && L->tok == T_IDENT)
				rc = next(L);
			if (rc)
				break;
		}
		if (is_punct(L, ']'))
			break;
		if (!is_punct(L, ','))
			rc = fail(L, "expected ',' or ']' after qualifier %s", x->name);
		else
			rc = next(L);
	}
	free(vals.p);
	if (rc) {
		free(qs.p);
		return -1;
	}
	*nq = (uint32_t)qs.n;
	*q = vec_commit(L, &qs);
	if (*nq && !*q)
		return -1;
	return next(L);                     /* past ']' */
}

/* Skips tokens up to the ';' that ends the construct (brackets counted),
 * and past it. */
static int skip_to_semicolon(struct lex *L, const char *what)
{
	long depth = 0;
	while (L->tok != T_EOF) {
		if (L->tok == T_PUNCT) {
			char c = L->punct;
			if (c == '{' || c == '(' || c == '[')
				depth++;
			else if ((c == '}' || c == ')' || c == ']') && --depth < 0)
				return fail(L, "unbalanced '%c' in %s", c, what);
			else if (c == ';' && depth == 0)
				return next(L);
		}
		if (next(L))
			return -1;
	}
	return fail(L, "%s not ended by ';'", what);
}

/* ---- classes --------------------------------------------------------- */

/* One member of a class body; properties are added to props. */
static int parse_member(struct lex *L, struct vec *props)
{
	const struct mofp_qual *q = NULL;
	uint32_t nq = 0;
	uint32_t line = L->tok_line;
	if (is_punct(L, '[') && parse_quals(L, &q, &nq))
		return -1;
	const char *type = take_ident(L, "a property type");
	if (!type || next(L))
		return -1;
	int is_ref = 0;
	if (is_word(L, "ref")) {
		is_ref = 1;
		if (next(L))
			return -1;
	}
	const char *name = take_ident(L, "a property name");
	if (!name || next(L))
		return -1;
	if (is_punct(L, '('))                       /* a method: not data */
		return skip_to_semicolon(L, "a method");
	struct mofp_prop *p = vec_push(L, props, MOFP_MAX_PROPS, "properties in one class");
	if (!p)
		return -1;
	p->name = name;
	p->type = type;
	p->is_ref = (uint8_t)is_ref;
	p->line = line;
	p->q = q;
	p->nq = nq;
	p->array = MOFP_NOT_ARRAY;
	if (is_punct(L, '[')) {
		if (next(L))
			return -1;
		p->array = MOFP_ARRAY_OPEN;
		if (L->tok == T_NUM) {
			int real = 0;
			if (parse_int(L, &p->array, &real))
				return -1;
			if (real)
				return fail(L, "array size of %s is not a whole number", name);
			if (next(L))
				return -1;
		}
		if (expect(L, ']', "after the array size"))
			return -1;
	}
	if (is_punct(L, '='))                       /* a default value */
		return skip_to_semicolon(L, "a default value");
	return expect(L, ';', "after a property");
}

static int parse_class(struct lex *L, struct mofp_class *c)
{
	if (next(L))                                /* past "class" */
		return -1;
	if (!(c->name = take_ident(L, "a class name")) || next(L))
		return -1;
	if (is_word(L, "as")) {                     /* an alias */
		if (next(L) || (is_punct(L, '$') && next(L)) || next(L))
			return -1;
	}
	if (is_punct(L, ':')) {
		if (next(L) || !(c->parent = take_ident(L, "a parent class name")) || next(L))
			return -1;
	}
	if (is_punct(L, ';'))                       /* a forward declaration */
		return next(L);
	if (expect(L, '{', "to open the class body"))
		return -1;
	struct vec props = { NULL, 0, 0, sizeof(struct mofp_prop) };
	int rc = 0;
	while (!rc && !is_punct(L, '}')) {
		if (L->tok == T_EOF)
			rc = fail(L, "class %s not closed", c->name);
		else
			rc = parse_member(L, &props);
	}
	if (rc) {
		free(props.p);
		return -1;
	}
	c->np = (uint32_t)props.n;
	c->p = vec_commit(L, &props);
	if (c->np && !c->p)
		return -1;
	if (next(L))                                /* past '}' */
		return -1;
	return expect(L, ';', "after the class body");
}

int etl__mofp_parse(const char *text, size_t len, const char *file, mofp_alloc_fn alloc, void *ctx,
                    const struct mofp_class **classes, uint32_t *n, char *err, size_t errlen)
{
	struct lex L;
	memset(&L, 0, sizeof L);
	L.p = text ? text : "";
	L.n = text ? len : 0;
	L.line = 1;
	L.file = file;
	L.err = err;
	L.errlen = errlen;
	L.alloc = alloc;
	L.ctx = ctx;
	L.str.sz = 1;
	if (errlen)
		err[0] = 0;
	*classes = NULL;
	*n = 0;
	if (L.n >= 3 && memcmp(L.p, "\xEF\xBB\xBF", 3) == 0)
		L.pos = 3;
	else if (L.n >= 2 && ((L.p[0] == '\xFF' && L.p[1] == '\xFE') || (L.p[0] == '\xFE' && L.p[1] == '\xFF'))) {
		snprintf(err, errlen, "1: UTF-16 text; save the file as UTF-8");
		return ETL_FAILED;
	}
	struct vec cls = { NULL, 0, 0, sizeof(struct mofp_class) };
	int rc = next(&L);
	while (!rc && L.tok != T_EOF) {
		const struct mofp_qual *q = NULL;
		uint32_t nq = 0, line = L.tok_line;
		if (is_punct(&L, ';')) {
			rc = next(&L);
			continue;
		}
		if (is_punct(&L, '[') && parse_quals(&L, &q, &nq)) {
			rc = -1;
			break;
		}
		if (is_word(&L, "class")) {
			struct mofp_class *c = vec_push(&L, &cls, MOFP_MAX_CLASSES, "classes");
			if (!c) {
				rc = -1;
				break;
			}
			c->file = file;
			c->line = line;
			c->q = q;
			c->nq = nq;
			rc = parse_class(&L, c);
		} else if (is_word(&L, "instance")) {
			rc = skip_to_semicolon(&L, "an instance declaration");
		} else if (is_word(&L, "qualifier") && !nq) {
			rc = skip_to_semicolon(&L, "a qualifier declaration");
		} else {
			rc = fail(&L, L.tok == T_IDENT ? "unexpected \"%.*s\"" : "unexpected '%.*s'",
			          (int)(L.tn > 40 ? 40 : L.tn), L.ts);
		}
	}
	free(L.str.p);
	if (rc || L.failed) {
		free(cls.p);
		return L.oom ? ETL_FATAL : ETL_FAILED;
	}
	*n = (uint32_t)cls.n;
	*classes = vec_commit(&L, &cls);
	if (*n && !*classes)
		return ETL_FATAL;
	return ETL_OK;
}
