/*
 * lib/decode/message.c - message rendering shared by the manifest
 * (lib/decode/manifest_message.c) and WPP (lib/decode/wpp_decode.c)
 * decoders: a growable string buffer with a size cap, the default text of
 * a property, and the printf-style formatting of one %N!fmt! insert. Each
 * source keeps its own parsing of the message string (insert syntax,
 * prefix fields, quirks).
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/decode/decode_internal.h"

void etl__msg_add(struct etl_msgbuf *b, const char *s, size_t n)
{
	if (b->oom || n > b->max - b->n)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void etl__msg_str(struct etl_msgbuf *b, const char *s)
{
	etl__msg_add(b, s, strlen(s));
}

int etl__msg_finish(etl_decoder *d, struct etl_msgbuf *b, const char **out)
{
	*out = NULL;
	if (b->oom) {
		free(b->p);
		b->p = NULL;
		return 0;
	}
	char *r = etl__dec_alloc(d, b->n + 1);
	if (r) {
		if (b->n)
			memcpy(r, b->p, b->n);
		r[b->n] = 0;
		*out = r;
	}
	free(b->p);
	b->p = NULL;
	return r != NULL;
}

void etl__msg_prop_text(struct etl_msgbuf *b, const struct etl_prop *p)
{
	char t[128];
	if (p->map_name) {
		etl__msg_str(b, p->map_name);
		return;
	}
	switch (p->kind) {
	case ETL_VAL_BOOL: etl__msg_str(b, p->v.u ? "true" : "false"); return;
	case ETL_VAL_INT: snprintf(t, sizeof t, "%lld", (long long)p->v.i); break;
	case ETL_VAL_UINT:
		if (p->out_type >= ETL_OUT_HEXINT8 && p->out_type <= ETL_OUT_HEXINT64)
			snprintf(t, sizeof t, "0x%llX", (unsigned long long)p->v.u);
		else if (p->in_type == ETL_IN_POINTER || p->in_type == ETL_IN_HEXINT32 || p->in_type == ETL_IN_HEXINT64)
			snprintf(t, sizeof t, "0x%llX", (unsigned long long)p->v.u);
		else
			snprintf(t, sizeof t, "%llu", (unsigned long long)p->v.u);
		break;
	case ETL_VAL_FLOAT: snprintf(t, sizeof t, "%g", p->v.f); break;
	case ETL_VAL_FILETIME: snprintf(t, sizeof t, "%lld", (long long)p->v.i); break;
	case ETL_VAL_STRING: etl__msg_add(b, p->v.str.s, p->v.str.len); return;
	case ETL_VAL_GUID: {
		char g[ETL_GUID_STRLEN];
		etl_guid_format(&p->v.guid, g);
		snprintf(t, sizeof t, "{%s}", g);
		break;
	}
	case ETL_VAL_BINARY: case ETL_VAL_SID:
		etl__msg_str(b, "0x");
		for (size_t i = 0; i < p->v.bin.len && i < 4096; i++) {
			snprintf(t, sizeof t, "%02X", p->v.bin.p[i]);
			etl__msg_str(b, t);
		}
		return;
	default: return;
	}
	etl__msg_str(b, t);
}

/* The digits of fmt from i (before fl) as *v, held at ETL_MSG_SPEC_MAX
 * (the digits past it are read and dropped, so "99999999999" is one
 * number, not a number followed by garbage; no digit at all is 0).
 * Returns the index after them. */
static size_t spec_number(const char *fmt, size_t i, size_t fl, int *v)
{
	*v = 0;
	for (; i < fl && fmt[i] >= '0' && fmt[i] <= '9'; i++) {
		*v = *v * 10 + (fmt[i] - '0');  /* <= 10 * 1024 + 9: no overflow */
		if (*v > ETL_MSG_SPEC_MAX)
			*v = ETL_MSG_SPEC_MAX;
	}
	return i;
}

void etl__msg_spec(struct etl_msg_spec *s, const char *fmt, size_t fl)
{
	size_t i = 0, nf = 0;
	s->conv = fl ? fmt[fl - 1] : 's';
	s->prec = -1;
	if (fl)
		fl--;                   /* the conversion is not part of the spec */
	for (; i < fl && fmt[i] && strchr("-+ #0", fmt[i]); i++)
		if (!memchr(s->flags, fmt[i], nf))
			s->flags[nf++] = fmt[i];        /* five kinds: fits flags[6] */
	s->flags[nf] = 0;
	i = spec_number(fmt, i, fl, &s->width);
	if (i < fl && fmt[i] == '.')
		spec_number(fmt, i + 1, fl, &s->prec);
}

/* "%" + the flags of s that C defines for conv + "*.*" (or "*" for c) +
 * len + conv into f (room for 16 bytes). */
static void spec_format(char *f, const struct etl_msg_spec *s, char conv, const char *len)
{
	size_t k = 0;
	f[k++] = '%';
	for (const char *c = s->flags; *c; c++) {
		if (*c == '#' && !strchr("oxXeEfgGaA", conv))
			continue;
		if (*c == '0' && (conv == 's' || conv == 'c'))
			continue;
		f[k++] = *c;
	}
	f[k++] = '*';
	if (conv != 'c') {
		f[k++] = '.';
		f[k++] = '*';
	}
	while (*len)
		f[k++] = *len++;
	f[k++] = conv;
	f[k] = 0;
}

void etl__msg_fmt_text(struct etl_msgbuf *b, const struct etl_msg_spec *s, struct etl_msgbuf *text, size_t lim)
{
	char t[512], f[16];
	if (lim > sizeof t)
		lim = sizeof t;
	if (text->oom) {
		b->oom = 1;
		return;
	}
	if (text->n < 200) {
		spec_format(f, s, 's', "");
		snprintf(t, lim, f, s->width, s->prec, text->p ? text->p : "");
		etl__msg_str(b, t);
	} else {
		etl__msg_add(b, text->p, text->n);
	}
	free(text->p);
	text->p = NULL;
}

void etl__msg_fmt_int(struct etl_msgbuf *b, const struct etl_msg_spec *s, long long iv, unsigned long long u,
                      size_t lim)
{
	char t[512], f[16];
	if (lim > sizeof t)
		lim = sizeof t;
	if (s->conv == 'c') {
		spec_format(f, s, 'c', "");
		snprintf(t, lim, f, s->width, (int)(unsigned char)u);
	} else if (s->conv == 'd' || s->conv == 'i') {
		spec_format(f, s, 'd', "ll");
		snprintf(t, lim, f, s->width, s->prec, iv);
	} else {
		spec_format(f, s, s->conv, "ll");
		snprintf(t, lim, f, s->width, s->prec, u);
	}
	etl__msg_str(b, t);
}

void etl__msg_fmt_float(struct etl_msgbuf *b, const struct etl_msg_spec *s, double v, size_t lim)
{
	char t[512], f[16];
	if (lim > sizeof t)
		lim = sizeof t;
	spec_format(f, s, s->conv, "");
	snprintf(t, lim, f, s->width, s->prec, v);
	etl__msg_str(b, t);
}
