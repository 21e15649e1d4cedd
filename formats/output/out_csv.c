/*
 * out_csv.c - comma-separated values (RFC 4180: CRLF line ends, a field
 * holding a comma, a double quote, CR or LF is put in double quotes with
 * its double quotes doubled). A header row, then one row per event, the
 * header event first:
 *
 *   TimeCreated,ProviderName,ProviderGuid,EventID,Version,Level,Task,
 *   Opcode,Keywords,ProcessID,ThreadID,ProcessorID,HeaderType,PayloadSize,
 *   Properties
 *
 * TimeCreated is ISO 8601 UTC (empty when unknown); ProviderName empty when
 * unknown; ProviderGuid "{...}"; Keywords "0x..."; ProcessID, ThreadID,
 * ProcessorID and PayloadSize empty when unknown; HeaderType as etldump
 * names it ("EVENT_HEADER64"). Properties holds name=value pairs joined
 * with "; " (etl__out_props_list: flattened names, values in double
 * quotes with backslash escapes when they hold a space, ;, =, ", \ or a
 * control character). Text is made valid UTF-8 without C0 controls other
 * than TAB/CR/LF (etl__out_clean).
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "formats/output/out.h"

struct csv_priv {
	struct etl_outbuf field;
	struct etl_outbuf clean;
};

static int csv_open(struct etl_render *o)
{
	o->priv = calloc(1, sizeof(struct csv_priv));
	return o->priv ? ETL_OK : ETL_FATAL;
}

static void csv_close(struct etl_render *o)
{
	struct csv_priv *c = o->priv;
	if (!c)
		return;
	etl__ob_free(&c->field);
	etl__ob_free(&c->clean);
	free(c);
	o->priv = NULL;
}

/* Appends one field (n bytes of s), quoted when needed, then sep. */
static void field(struct csv_priv *c, struct etl_outbuf *b, const char *s, size_t n, const char *sep)
{
	c->clean.len = 0;
	etl__out_clean(&c->clean, s, n, 1);
	if (c->clean.oom)
		b->oom = 1;
	const char *p = c->clean.p ? c->clean.p : "";
	size_t len = c->clean.len;
	int quote = 0;
	for (size_t i = 0; i < len && !quote; i++)
		quote = p[i] == ',' || p[i] == '"' || p[i] == '\r' || p[i] == '\n';
	if (!quote) {
		etl__ob_put(b, p, len);
	} else {
		etl__ob_putc(b, '"');
		for (size_t i = 0; i < len; i++) {
			if (p[i] == '"')
				etl__ob_putc(b, '"');
			etl__ob_putc(b, p[i]);
		}
		etl__ob_putc(b, '"');
	}
	etl__ob_puts(b, sep);
}

static void field_s(struct csv_priv *c, struct etl_outbuf *b, const char *s)
{
	field(c, b, s ? s : "", s ? strlen(s) : 0, ",");
}

static void field_u(struct etl_outbuf *b, int known, unsigned long long v)
{
	if (known)
		etl__ob_printf(b, "%llu", v);
	etl__ob_putc(b, ',');
}

static int csv_begin(struct etl_render *o)
{
	etl__ob_puts(&o->buf, "TimeCreated,ProviderName,ProviderGuid,EventID,Version,Level,Task,"
	             "Opcode,Keywords,ProcessID,ThreadID,ProcessorID,HeaderType,PayloadSize,"
	             "Properties\r\n");
	return etl__render_flush(o);
}

static int csv_event(struct etl_render *o, const struct etl_out_rec *r)
{
	struct csv_priv *c = o->priv;
	struct etl_outbuf *b = &o->buf;
	char t[ETL_TIME_STRLEN];
	if (r->absent)
		return ETL_OK;
	field_s(c, b, r->has_time ? etl_filetime_format(r->utc, t, sizeof t) : "");
	field_s(c, b, r->provider_name);
	etl__out_guid(b, &r->provider);
	etl__ob_putc(b, ',');
	field_u(b, 1, r->event_id);
	field_u(b, 1, r->version);
	field_u(b, 1, r->level);
	field_u(b, 1, r->task);
	field_u(b, 1, r->opcode);
	etl__ob_printf(b, "0x%llx,", (unsigned long long)r->keywords);
	field_u(b, r->has_pid, r->pid);
	field_u(b, r->has_pid, r->tid);
	field_u(b, r->has_exec, r->cpu);
	field_s(c, b, r->kind_name);
	field_u(b, r->ev != NULL, r->payload_size);
	c->field.len = 0;
	if (etl__out_props_list(&c->field, r, "; ") != 0)
		b->oom = 1;
	field(c, b, c->field.p ? c->field.p : "", c->field.len, "\r\n");
	return etl__render_flush(o);
}

const struct etl_out_ops etl__out_csv = {
	"csv", csv_open, csv_begin, csv_event, NULL, csv_close
};
