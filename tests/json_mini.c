/*
 * json_mini.c - recursive-descent JSON parser (see json_mini.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_mini.h"

#define JM_MAX_DEPTH 64

struct jm_parser {
	const char *s;
	size_t n, pos;
	char *err;
	size_t errlen;
	int failed;
};

static void jm_fail(struct jm_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void jm_fail(struct jm_parser *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	if (!p->err || p->errlen == 0)
		return;
	size_t line = 1, col = 1;
	for (size_t i = 0; i < p->pos && i < p->n; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	int k = snprintf(p->err, p->errlen, "line %zu, column %zu: ", line, col);
	if (k < 0 || (size_t)k >= p->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
	va_end(ap);
}

static void skip_ws(struct jm_parser *p)
{
	while (p->pos < p->n) {
		char c = p->s[p->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static int peek(struct jm_parser *p)
{
	return p->pos < p->n ? (unsigned char)p->s[p->pos] : -1;
}

static void free_val(struct jm_val *v)
{
	if (v->type == JM_STR) {
		free(v->str);
	} else if (v->type == JM_ARR || v->type == JM_OBJ) {
		for (size_t i = 0; i < v->len; i++) {
			free_val(&v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
	memset(v, 0, sizeof *v);
}

/* A growable string. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static int sb_put(struct sbuf *b, char c)
{
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		char *n = realloc(b->p, cap);
		if (!n)
			return 0;
		b->p = n;
		b->cap = cap;
	}
	b->p[b->len++] = c;
	b->p[b->len] = 0;
	return 1;
}

static int sb_utf8(struct sbuf *b, unsigned long cp)
{
	if (cp < 0x80)
		return sb_put(b, (char)cp);
	if (cp < 0x800)
		return sb_put(b, (char)(0xC0 | (cp >> 6))) && sb_put(b, (char)(0x80 | (cp & 0x3F)));
	if (cp < 0x10000)
		return sb_put(b, (char)(0xE0 | (cp >> 12))) &&
		       sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
		       sb_put(b, (char)(0x80 | (cp & 0x3F)));
	return sb_put(b, (char)(0xF0 | (cp >> 18))) &&
	       sb_put(b, (char)(0x80 | ((cp >> 12) & 0x3F))) &&
	       sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
	       sb_put(b, (char)(0x80 | (cp & 0x3F)));
}

static int hex4(struct jm_parser *p, unsigned long *v)
{
	unsigned long x = 0;
	if (p->n - p->pos < 4) {
		jm_fail(p, "\\u escape needs 4 hex digits");
		return 0;
	}
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos + (size_t)i];
		int d;
		if (c >= '0' && c <= '9') d = c - '0';
		else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
		else {
			jm_fail(p, "bad hex digit '%c' in \\u escape", c);
			return 0;
		}
		x = x * 16 + (unsigned long)d;
	}
	p->pos += 4;
	*v = x;
	return 1;
}

/* Parses a string starting at the opening quote. */
static char *parse_string(struct jm_parser *p, size_t *len)
{
	struct sbuf b = { NULL, 0, 0 };
	p->pos++;                                  /* opening quote */
	if (!sb_put(&b, 0))
		goto oom;
	b.len = 0;
	for (;;) {
		if (p->pos >= p->n) {
			jm_fail(p, "unterminated string");
			goto fail;
		}
		unsigned char c = (unsigned char)p->s[p->pos++];
		if (c == '"')
			break;
		if (c < 0x20) {
			p->pos--;
			jm_fail(p, "control character 0x%02x in string", c);
			goto fail;
		}
		if (c != '\\') {
			if (!sb_put(&b, (char)c))
				goto oom;
			continue;
		}
		if (p->pos >= p->n) {
			jm_fail(p, "unterminated escape");
			goto fail;
		}
		char e = p->s[p->pos++];
		char out;
		switch (e) {
		case '"': out = '"'; break;
		case '\\': out = '\\'; break;
		case '/': out = '/'; break;
		case 'b': out = '\b'; break;
		case 'f': out = '\f'; break;
		case 'n': out = '\n'; break;
		case 'r': out = '\r'; break;
		case 't': out = '\t'; break;
		case 'u': {
			unsigned long cp;
			if (!hex4(p, &cp))
				goto fail;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				unsigned long lo;
				if (p->n - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
					jm_fail(p, "high surrogate without a low one");
					goto fail;
				}
				p->pos += 2;
				if (!hex4(p, &lo))
					goto fail;
				if (lo < 0xDC00 || lo > 0xDFFF) {
					jm_fail(p, "bad low surrogate 0x%04lx", lo);
					goto fail;
				}
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
				jm_fail(p, "lone low surrogate 0x%04lx", cp);
				goto fail;
			}
			if (!sb_utf8(&b, cp))
				goto oom;
			continue;
		}
		default:
			p->pos--;
			jm_fail(p, "bad escape '\\%c'", e);
			goto fail;
		}
		if (!sb_put(&b, out))
			goto oom;
	}
	*len = b.len;
	return b.p;
oom:
	jm_fail(p, "out of memory");
fail:
	free(b.p);
	return NULL;
}

static int parse_number(struct jm_parser *p, struct jm_val *v)
{
	size_t start = p->pos;
	int is_int = 1;
	if (peek(p) == '-')
		p->pos++;
	if (peek(p) == '0') {
		p->pos++;
	} else if (peek(p) >= '1' && peek(p) <= '9') {
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	} else {
		jm_fail(p, "bad number");
		return 0;
	}
	if (peek(p) == '.') {
		is_int = 0;
		p->pos++;
		if (!(peek(p) >= '0' && peek(p) <= '9')) {
			jm_fail(p, "digit expected after '.'");
			return 0;
		}
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	}
	if (peek(p) == 'e' || peek(p) == 'E') {
		is_int = 0;
		p->pos++;
		if (peek(p) == '+' || peek(p) == '-')
			p->pos++;
		if (!(peek(p) >= '0' && peek(p) <= '9')) {
			jm_fail(p, "digit expected in exponent");
			return 0;
		}
		while (peek(p) >= '0' && peek(p) <= '9')
			p->pos++;
	}
	char tmp[64];
	size_t k = p->pos - start;
	if (k >= sizeof tmp) {
		jm_fail(p, "number too long");
		return 0;
	}
	memcpy(tmp, p->s + start, k);
	tmp[k] = 0;
	v->type = JM_NUM;
	v->num = strtod(tmp, NULL);
	v->is_int = is_int;
	if (is_int)
		v->i = strtoll(tmp, NULL, 10);
	return 1;
}

static int match_word(struct jm_parser *p, const char *w)
{
	size_t k = strlen(w);
	if (p->n - p->pos < k || memcmp(p->s + p->pos, w, k) != 0) {
		jm_fail(p, "unexpected text");
		return 0;
	}
	p->pos += k;
	return 1;
}

static int parse_value(struct jm_parser *p, struct jm_val *v, int depth);

static int add_member(struct jm_parser *p, struct jm_val *v, size_t *cap, int is_obj)
{
	if (v->len == *cap) {
		size_t c = *cap ? *cap * 2 : 4;
		struct jm_val *ni = realloc(v->items, c * sizeof *ni);
		if (!ni) {
			jm_fail(p, "out of memory");
			return 0;
		}
		v->items = ni;
		if (is_obj) {
			char **nk = realloc(v->keys, c * sizeof *nk);
			if (!nk) {
				jm_fail(p, "out of memory");
				return 0;
			}
			v->keys = nk;
		}
		*cap = c;
	}
	memset(&v->items[v->len], 0, sizeof v->items[v->len]);
	if (is_obj)
		v->keys[v->len] = NULL;
	v->len++;
	return 1;
}

static int parse_container(struct jm_parser *p, struct jm_val *v, int depth, int is_obj)
{
	size_t cap = 0;
	char close = is_obj ? '}' : ']';
	v->type = is_obj ? JM_OBJ : JM_ARR;
	p->pos++;
	skip_ws(p);
	if (peek(p) == close) {
		p->pos++;
		return 1;
	}
	for (;;) {
		skip_ws(p);
		if (!add_member(p, v, &cap, is_obj))
			return 0;
		size_t i = v->len - 1;
		if (is_obj) {
			if (peek(p) != '"') {
				jm_fail(p, "object key expected");
				return 0;
			}
			size_t kl;
			v->keys[i] = parse_string(p, &kl);
			if (!v->keys[i])
				return 0;
			skip_ws(p);
			if (peek(p) != ':') {
				jm_fail(p, "':' expected");
				return 0;
			}
			p->pos++;
		}
		if (!parse_value(p, &v->items[i], depth + 1))
			return 0;
		skip_ws(p);
		int c = peek(p);
		if (c == ',') {
			p->pos++;
			continue;
		}
		if (c == close) {
			p->pos++;
			return 1;
		}
		jm_fail(p, "',' or '%c' expected", close);
		return 0;
	}
}

static int parse_value(struct jm_parser *p, struct jm_val *v, int depth)
{
	if (depth > JM_MAX_DEPTH) {
		jm_fail(p, "nested too deeply");
		return 0;
	}
	skip_ws(p);
	switch (peek(p)) {
	case '{':
		return parse_container(p, v, depth, 1);
	case '[':
		return parse_container(p, v, depth, 0);
	case '"':
		v->type = JM_STR;
		v->str = parse_string(p, &v->len);
		if (!v->str) {
			v->type = JM_NULL;
			return 0;
		}
		return 1;
	case 't':
		v->type = JM_BOOL;
		v->b = 1;
		return match_word(p, "true");
	case 'f':
		v->type = JM_BOOL;
		v->b = 0;
		return match_word(p, "false");
	case 'n':
		v->type = JM_NULL;
		return match_word(p, "null");
	case -1:
		jm_fail(p, "value expected, found end of text");
		return 0;
	default:
		if (peek(p) == '-' || (peek(p) >= '0' && peek(p) <= '9'))
			return parse_number(p, v);
		jm_fail(p, "unexpected character '%c'", p->s[p->pos]);
		return 0;
	}
}

struct jm_val *jm_parse(const char *text, size_t n, char *err, size_t errlen)
{
	struct jm_parser p = { text, n, 0, err, errlen, 0 };
	struct jm_val *root = calloc(1, sizeof *root);
	if (err && errlen)
		err[0] = 0;
	if (!root) {
		jm_fail(&p, "out of memory");
		return NULL;
	}
	if (parse_value(&p, root, 0)) {
		skip_ws(&p);
		if (p.pos != p.n)
			jm_fail(&p, "trailing text after the value");
	}
	if (p.failed) {
		jm_free(root);
		return NULL;
	}
	return root;
}

void jm_free(struct jm_val *v)
{
	if (!v)
		return;
	free_val(v);
	free(v);
}

const struct jm_val *jm_get(const struct jm_val *obj, const char *key)
{
	if (!obj || obj->type != JM_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->len; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}

const char *jm_str(const struct jm_val *obj, const char *key)
{
	const struct jm_val *v = jm_get(obj, key);
	return v && v->type == JM_STR ? v->str : NULL;
}

long long jm_int(const struct jm_val *obj, const char *key, long long def)
{
	const struct jm_val *v = jm_get(obj, key);
	if (!v || v->type != JM_NUM)
		return def;
	return v->is_int ? v->i : (long long)v->num;
}
