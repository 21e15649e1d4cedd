/*
 * lib/sem/sem_names.c - small pieces every stage of the SEM configuration
 * uses: the diagnostics list, fatal-error text, the registry's measure of
 * a name, and the reading of the "{guid};id" and "{guid}" subkey names
 * (doc/sem.md §3.5).
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_errors.h"
#include "etl_event.h"
#include "lib/sem/sem_internal.h"

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

static void diag_push(struct etl__sem_diags *d, const char *key, const char *rule, char *msg)
{
	char *k = strdup(key ? key : "");
	if (!msg || !k) {
		free(msg);
		free(k);
		d->oom = 1;
		return;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct etl_sem_diag *v = realloc(d->v, cap * sizeof *v);
		if (!v) {
			free(msg);
			free(k);
			d->oom = 1;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n].key = k;
	d->v[d->n].rule = rule;
	d->v[d->n].message = msg;
	d->n++;
}

void etl__sem_diag_add(struct etl__sem_diags *d, const char *key, const char *rule, const char *fmt, ...)
{
	if (d->n >= ETL_SEM_MAX_DIAGNOSTICS) {
		d->unlisted++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	diag_push(d, key, rule, msg);
}

void etl__sem_diags_finish(struct etl__sem_diags *d)
{
	if (!d->unlisted)
		return;
	char buf[96];
	snprintf(buf, sizeof buf, "%zu more diagnostics are not listed", d->unlisted);
	diag_push(d, "", "diagnostics_truncated", strdup(buf));
	d->unlisted = 0;
}

void etl__sem_diags_free(struct etl__sem_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free((char *)d->v[i].key);
		free((char *)d->v[i].message);
	}
	free(d->v);
	memset(d, 0, sizeof *d);
}

void etl__sem_err(struct etl_sem_error *err, int code, uint32_t line, uint32_t column, int64_t offset,
                  const char *fmt, ...)
{
	if (!err)
		return;
	err->code = code;
	err->line = line;
	err->column = column;
	err->offset = offset;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
}

size_t etl__sem_utf16_units(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xC0) == 0x80)
			continue;                /* a continuation byte         */
		n += *p >= 0xF0 ? 2 : 1;     /* outside the BMP: a surrogate pair */
	}
	return n;
}

int etl__sem_guid_cmp(const struct etl_guid *a, const struct etl_guid *b)
{
	if (a->data1 != b->data1)
		return a->data1 < b->data1 ? -1 : 1;
	if (a->data2 != b->data2)
		return a->data2 < b->data2 ? -1 : 1;
	if (a->data3 != b->data3)
		return a->data3 < b->data3 ? -1 : 1;
	return memcmp(a->data4, b->data4, 8);
}

/* "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}": n bytes at s, braces required. */
static int braced_guid_n(const char *s, size_t n, struct etl_guid *guid)
{
	if (n != 38 || s[0] != '{' || s[37] != '}')
		return 0;
	char buf[39];
	memcpy(buf, s, 38);
	buf[38] = 0;
	return etl_guid_parse(buf, guid) == ETL_OK;
}

int etl__sem_parse_braced_guid(const char *name, struct etl_guid *guid)
{
	return braced_guid_n(name, strlen(name), guid);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

int etl__sem_parse_event_name(const char *name, struct etl_guid *guid, uint16_t *id)
{
	if (strcmp(name, "*") == 0)
		return ETL_SEM_NAME_PLACEHOLDER;
	if (etl__sem_utf16_units(name) > ETL_SEM_MAX_NAME)
		return ETL_SEM_NAME_TOO_LONG;
	const char *semi = strchr(name, ';');
	if (!semi)
		return ETL_SEM_NAME_NO_SEMICOLON;
	if (!braced_guid_n(name, (size_t)(semi - name), guid))
		return ETL_SEM_NAME_BAD_GUID;
	const char *p = semi + 1;
	if (!*p)
		return ETL_SEM_NAME_NO_ID;
	while (is_space(*p))
		p++;
	uint32_t v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint32_t)(*p - '0');
		if (v > 65535)
			return ETL_SEM_NAME_ID_RANGE;   /* also stops before overflow */
	}
	*id = (uint16_t)v;                      /* no digits: 0; the rest ignored */
	return ETL_SEM_NAME_OK;
}

char *etl__sem_guid_text(const struct etl_guid *g, char out[ETL_SEM_GUID_TEXT])
{
	char t[ETL_GUID_STRLEN];
	etl_guid_format(g, t);
	out[0] = '{';
	for (size_t i = 0; i < ETL_GUID_STRLEN - 1; i++)
		out[i + 1] = (t[i] >= 'a' && t[i] <= 'f') ? (char)(t[i] - 32) : t[i];
	out[ETL_SEM_GUID_TEXT - 2] = '}';
	out[ETL_SEM_GUID_TEXT - 1] = 0;
	return out;
}
