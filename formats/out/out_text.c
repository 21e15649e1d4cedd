/*
 * formats/out/out_text.c - one human-readable line per event: etldump's columns
 *
 *   TIME  cpu=N pid=N tid=N KIND PROVIDER[/EVENT] id=N|op=N [hook=0xNNNN]
 *   lvl=N kw=0xN size=N
 *
 * (padded as etldump pads them; PROVIDER is the decoder's provider name,
 * else etldump's name, "component:N" or GUID; EVENT the decoder's event
 * name or the EventTrace record name), then " name=value" per property
 * leaf (etl__out_props_list(), lib/render/value_format.c). Lines end with LF.
 *
 * With ETL_OUTPUT_TEXT_RECORD (etl_output_set_flags()) the line is
 * etldump's listing of the record as read: the columns only, the provider
 * as the record itself names it (never the decoder's or a table's name),
 * at most 160 bytes of it with control characters as '?'.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/out/out.h"

/* The provider as the record names it: the reader's name, a WPP message's
 * component, else the GUID; control characters as '?', 160 bytes at most. */
static void record_provider(struct etl_outbuf *b, const struct etl_event *ev)
{
	char t[ETL_GUID_STRLEN];
	const char *p = ev->provider_name;
	if (!p && ev->kind == ETL_HDR_MESSAGE && (ev->present & ETL_EVF_COMPONENT_ID)) {
		snprintf(t, sizeof t, "component:%u", (unsigned)ev->component_id);
		p = t;
	} else if (!p) {
		p = etl_guid_format(&ev->provider, t);
	}
	for (size_t i = 0; p[i] && i < 160; i++)
		etl__ob_putc(b, ((unsigned char)p[i] < 0x20 || p[i] == 0x7F) ? '?' : p[i]);
}

/* Pads with spaces so that the field started at start is width wide, then
 * adds one separating space (as etldump does). */
static void pad(struct etl_outbuf *b, size_t start, size_t width)
{
	while (b->len - start < width && !b->oom)
		etl__ob_putc(b, ' ');
	etl__ob_putc(b, ' ');
}

static int text_event(struct etl_render *o, const struct etl_out_rec *r)
{
	struct etl_outbuf *b = &o->buf;
	char t[ETL_TIME_STRLEN];
	size_t s;
	int record = (o->flags & ETL_OUTPUT_TEXT_RECORD) != 0;
	if (r->absent || (record && !r->ev))
		return ETL_OK;
	s = b->len;
	if (r->has_time)
		etl__ob_puts(b, etl_filetime_format(r->utc, t, sizeof t));
	else if (r->has_raw)
		etl__ob_printf(b, "ts=%lld", (long long)r->raw);
	else
		etl__ob_putc(b, '-');
	pad(b, s, 28);
	etl__ob_putc(b, ' ');
	s = b->len;
	if (r->has_exec)
		etl__ob_printf(b, "cpu=%u", (unsigned)r->cpu);
	else
		etl__ob_puts(b, "cpu=-");
	pad(b, s, 7);
	s = b->len;
	if (r->has_pid)
		etl__ob_printf(b, "pid=%lu", (unsigned long)r->pid);
	else
		etl__ob_puts(b, "pid=-");
	pad(b, s, 10);
	s = b->len;
	if (r->has_pid)
		etl__ob_printf(b, "tid=%lu", (unsigned long)r->tid);
	else
		etl__ob_puts(b, "tid=-");
	pad(b, s, 10);
	s = b->len;
	etl__ob_puts(b, r->kind_name ? r->kind_name : "-");
	pad(b, s, 14);
	s = b->len;
	if (record) {
		record_provider(b, r->ev);
	} else {
		const char *prov = r->display ? r->display : "-";
		size_t pl = strlen(prov);
		etl__out_text_name(b, prov, pl > 160 ? 160 : pl);
	}
	if (r->event_name) {
		etl__ob_putc(b, '/');
		etl__out_text_name(b, r->event_name, strlen(r->event_name));
	}
	pad(b, s, 36);
	s = b->len;
	if (r->uses_id) {
		etl__ob_printf(b, "id=%u", (unsigned)r->event_id);
	} else {
		etl__ob_printf(b, "op=%u", (unsigned)r->opcode);
		if (r->has_hook)
			etl__ob_printf(b, " hook=0x%04x", (unsigned)r->hook_id);
	}
	pad(b, s, 18);
	s = b->len;
	etl__ob_printf(b, "lvl=%u", (unsigned)r->level);
	pad(b, s, 7);
	s = b->len;
	etl__ob_printf(b, "kw=0x%llx", (unsigned long long)r->keywords);
	pad(b, s, 21);
	if (r->ev)
		etl__ob_printf(b, "size=%lu", (unsigned long)r->payload_size);
	else
		etl__ob_puts(b, "size=-");
	size_t mark = b->len;
	etl__ob_puts(b, "  ");
	size_t after = b->len;
	if (!record && etl__out_props_list(b, r, " ") != 0)
		b->oom = 1;
	if (b->len == after && !b->oom)
		b->len = mark;               /* no property: no trailing spaces */
	etl__ob_putc(b, '\n');
	return etl__render_flush(o);
}

const struct etl_out_ops etl__out_text = {
	"text", NULL, NULL, text_event, NULL, NULL
};
