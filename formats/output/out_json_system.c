/*
 * formats/output/out_json_system.c - the System, RenderingInfo and
 * ExtendedTracingInfo parts of a JSON record (layout in out_json.c). The
 * parts repeat from event to event of one kind, so their text is kept in
 * memo tables (lib/render/memo.h) keyed by the values it was made from.
 */
#define ETL_BUILDING_LIB 1
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "formats/output/json_state.h"

/* The provider GUID as a JSON string, from the memo when it is the same
 * as the last event's. */
static void provider_guid(struct json_priv *j, struct etl_outbuf *b, const struct etl_guid *g)
{
	if (!j->have_prov || !etl__guid_same(&j->prov, g)) {
		j->prov_text[0] = '"';
		j->prov_text[1] = '{';
		etl__fmt_guid(j->prov_text + 2, g);
		j->prov_text[ETL_FMT_GUID_LEN + 2] = '}';
		j->prov_text[ETL_FMT_GUID_LEN + 3] = '"';
		j->prov = *g;
		j->have_prov = 1;
	}
	etl__ob_put(b, j->prov_text, sizeof j->prov_text);
}

/* The System text up to "TimeCreated": (the memo's head). */
static void system_head(void *ctx, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	struct json_priv *j = ctx;
	ETL_OB_LIT(b, "\"System\":{\"Provider\":{");
	if (r->provider_name) {
		KEY(b, "\"Name\":");
		str(b, r->provider_name);
		KEY(b, ",\"Guid\":");
	} else {
		KEY(b, "\"Guid\":");
	}
	provider_guid(j, b, &r->provider);
	KEY(b, "},\"EventID\":");
	etl__ob_u64(b, r->event_id);
	KEY(b, ",\"Version\":");
	etl__ob_u64(b, r->version);
	KEY(b, ",\"Level\":");
	etl__ob_u64(b, r->level);
	KEY(b, ",\"Task\":");
	etl__ob_u64(b, r->task);
	KEY(b, ",\"Opcode\":");
	etl__ob_u64(b, r->opcode);
	KEY(b, ",\"Keywords\":\"0x");
	etl__ob_hex64(b, r->keywords);
	KEY(b, "\",\"TimeCreated\":");
}

/* "TimeCreated"'s value (with its quotes). */
static void time_created(struct json_priv *j, struct etl_outbuf *b, int64_t ft)
{
	char *o = etl__ob_room(b, ETL_FMT_TIME_MAX + 2);
	if (!o)
		return;
	o[0] = '"';
	size_t n = etl__memo_time(&j->time, o + 1, ft);
	o[n + 1] = '"';
	b->len += n + 2;
}

/* Appends a string literal at q (room known). */
#define PUTL(q, lit) (memcpy((q), "" lit, sizeof(lit) - 1), (q) += sizeof(lit) - 1)
#define SYS_REST_MAX 400u

/* "{xxxxxxxx-...}" with its quotes at q; returns the end. */
static char *put_guid(char *q, const struct etl_guid *g)
{
	q[0] = '"';
	q[1] = '{';
	etl__fmt_guid(q + 2, g);
	q[ETL_FMT_GUID_LEN + 2] = '}';
	q[ETL_FMT_GUID_LEN + 3] = '"';
	return q + ETL_FMT_GUID_LEN + 4;
}

void etl__json_system_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	int f = 0;
	etl__memo_head(&j->head, b, r, system_head, j);
	if (r->has_time) {
		time_created(j, b, r->utc);
	} else {
		ETL_OB_LIT(b, "null");
		if (r->has_raw) {
			KEY(b, ",\"RawTime\":");
			int safe = r->raw > -9007199254740992LL && r->raw < 9007199254740992LL;
			if (!safe)
				etl__ob_putc(b, '"');
			etl__ob_i64(b, r->raw);
			if (!safe)
				etl__ob_putc(b, '"');
		}
	}
	/* The rest, but for the user SID, in room reserved once (SYS_REST_MAX
	 * bytes at most: literals, two GUIDs and seven numbers). */
	char *o = etl__ob_room(b, SYS_REST_MAX);
	if (!o)
		return;
	char *q = o;
	PUTL(q, ",\"Correlation\":{");
	if (r->has_activity) {
		PUTL(q, "\"ActivityID\":");
		q = put_guid(q, &r->activity);
	}
	if (r->has_related) {
		if (r->has_activity)
			*q++ = ',';
		PUTL(q, "\"RelatedActivityID\":");
		q = put_guid(q, &r->related);
	}
	*q++ = '}';
	if (r->has_exec) {
		PUTL(q, ",\"Execution\":{");
		if (r->has_pid) {
			PUTL(q, "\"ProcessID\":");
			q += etl__fmt_u64(q, r->pid);
			PUTL(q, ",\"ThreadID\":");
			q += etl__fmt_u64(q, r->tid);
			PUTL(q, ",\"ProcessorID\":");
		} else {
			PUTL(q, "\"ProcessorID\":");
		}
		q += etl__fmt_u64(q, r->cpu);
		if (r->has_cpu_times) {
			PUTL(q, ",\"KernelTime\":");
			q += etl__fmt_u64(q, r->kernel_time);
			PUTL(q, ",\"UserTime\":");
			q += etl__fmt_u64(q, r->user_time);
		}
		*q++ = '}';
	}
	PUTL(q, ",\"Channel\":");
	q += etl__fmt_u64(q, r->channel);
	PUTL(q, ",\"Computer\":\"\"");
	b->len += (size_t)(q - o);
	if (r->user_sid) {
		key(b, &f, "UserID");
		str(b, r->user_sid);
	}
	etl__ob_putc(b, '}');
}

/* The RenderingInfo text after the message (the memo's tail). */
static void rendering_tail(void *ctx, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	(void)ctx;
	if (r->r_level) {
		KEY(b, ",\"Level\":");
		str(b, r->r_level);
	}
	if (r->r_opcode) {
		KEY(b, ",\"Opcode\":");
		str(b, r->r_opcode);
	}
	if (r->r_task) {
		KEY(b, ",\"Task\":");
		str(b, r->r_task);
	}
	if (r->r_channel) {
		KEY(b, ",\"Channel\":");
		str(b, r->r_channel);
	}
	if (r->r_provider) {
		KEY(b, ",\"Provider\":");
		str(b, r->r_provider);
	}
	if (r->r_keywords && *r->r_keywords) {
		KEY(b, ",\"Keywords\":");
		etl__ob_putc(b, '[');
		const char *s = r->r_keywords;
		int first = 1;
		while (*s) {
			size_t n = strcspn(s, " ");
			if (n) {
				if (!first)
					etl__ob_putc(b, ',');
				first = 0;
				etl__out_json_string(b, s, n);
			}
			s += n;
			while (*s == ' ')
				s++;
		}
		etl__ob_putc(b, ']');
	}
	if (r->r_event_name) {
		KEY(b, ",\"EventName\":");
		str(b, r->r_event_name);
	}
	etl__ob_putc(b, '}');
}

void etl__json_rendering_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	/* Culture comes first, so every other key has its comma. */
	ETL_OB_LIT(b, ",\"RenderingInfo\":{\"Culture\":\"en-US\"");
	if (r->r_message) {
		KEY(b, ",\"Message\":");
		str(b, r->r_message);
	}
	etl__memo_tail(&j->tail, b, r, rendering_tail, NULL);
}

static void guid_str(struct etl_outbuf *b, const struct etl_guid *g)
{
	guid(b, g);
}

/* tracerpt's ExtendedTracingInfo (doc/decoding.md §6.3), as in the XML. The
 * event GUID is mostly the provider's, whose text is in the memo. */
void etl__json_ext_tracing_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	ETL_OB_LIT(b, ",\"ExtendedTracingInfo\":{\"EventGuid\":");
	provider_guid(j, b, &r->event_guid);
	if (r->has_instance) {
		KEY(b, ",\"InstanceID\":");
		etl__ob_u64(b, r->instance_id);
		KEY(b, ",\"ParentInstanceID\":");
		etl__ob_u64(b, r->parent_instance_id);
		KEY(b, ",\"ParentGuid\":");
		guid_str(b, &r->parent_guid);
	}
	etl__ob_putc(b, '}');
}

