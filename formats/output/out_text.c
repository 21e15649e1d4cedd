/*
 * formats/output/out_text.c - one human-readable line per event: etldump's columns
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
#include "formats/output/out.h"

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
	size_t used = b->len - start;
	size_t n = (used < width ? width - used : 0) + 1;
	char *o = etl__ob_room(b, n);
	if (o) {
		memset(o, ' ', n);
		b->len += n;
	}
}

/* "hook=0x" and four lower-case hex digits. */
static void hook(struct etl_outbuf *b, uint16_t v)
{
	static const char hex[] = "0123456789abcdef";
	char h[4] = { hex[v >> 12], hex[(v >> 8) & 15], hex[(v >> 4) & 15], hex[v & 15] };
	ETL_OB_LIT(b, " hook=0x");
	etl__ob_put(b, h, 4);
}

/* The columns are appended without printf: the text output is etldump's
 * listing, hundreds of thousands of lines. */
static int text_event(struct etl_render *o, const struct etl_out_rec *r)
{
	struct etl_outbuf *b = &o->buf;
	size_t s;
	int record = (o->flags & ETL_OUTPUT_TEXT_RECORD) != 0;
	if (r->absent || (record && !r->ev))
		return ETL_OK;
	s = b->len;
	if (r->has_time) {
		etl__ob_filetime(b, r->utc);
	} else if (r->has_raw) {
		ETL_OB_LIT(b, "ts=");
		etl__ob_i64(b, r->raw);
	} else {
		etl__ob_putc(b, '-');
	}
	pad(b, s, 28);
	etl__ob_putc(b, ' ');
	s = b->len;
	ETL_OB_LIT(b, "cpu=");
	if (r->has_exec)
		etl__ob_u64(b, r->cpu);
	else
		etl__ob_putc(b, '-');
	pad(b, s, 7);
	s = b->len;
	ETL_OB_LIT(b, "pid=");
	if (r->has_pid)
		etl__ob_u64(b, r->pid);
	else
		etl__ob_putc(b, '-');
	pad(b, s, 10);
	s = b->len;
	ETL_OB_LIT(b, "tid=");
	if (r->has_pid)
		etl__ob_u64(b, r->tid);
	else
		etl__ob_putc(b, '-');
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
		ETL_OB_LIT(b, "id=");
		etl__ob_u64(b, r->event_id);
	} else {
		ETL_OB_LIT(b, "op=");
		etl__ob_u64(b, r->opcode);
		if (r->has_hook)
			hook(b, r->hook_id);
	}
	pad(b, s, 18);
	s = b->len;
	ETL_OB_LIT(b, "lvl=");
	etl__ob_u64(b, r->level);
	pad(b, s, 7);
	s = b->len;
	ETL_OB_LIT(b, "kw=0x");
	etl__ob_hex64(b, r->keywords);
	pad(b, s, 21);
	ETL_OB_LIT(b, "size=");
	if (r->ev)
		etl__ob_u64(b, r->payload_size);
	else
		etl__ob_putc(b, '-');
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
