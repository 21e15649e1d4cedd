/*
 * out_json.c - JSON ("json": one document) and JSON lines ("jsonl": one
 * object per line), the XML model mirrored key by key in the openwec shape
 * (decoding.md §6.4):
 *
 *   {"System": {"Provider": {"Name": "...", "Guid": "{...}"},
 *               "EventID": 1, "Version": 0, "Level": 4, "Task": 0,
 *               "Opcode": 0, "Keywords": "0x8000000000000000",
 *               "TimeCreated": "2020-02-17T12:48:30.4203138Z",
 *               "Correlation": {"ActivityID": "{...}", "RelatedActivityID": "{...}"},
 *               "Execution": {"ProcessID": 4, "ThreadID": 8, "ProcessorID": 0,
 *                             "KernelTime": 0, "UserTime": 0},
 *               "Channel": 0, "Computer": "", "UserID": "S-1-5-18"},
 *    "EventData": {"name": value, "struct": {"member": value},
 *                  "array": [value, ...]},
 *    "RenderingInfo": {"Culture": "en-US", "Message": "...", "Level": "...",
 *                      "Opcode": "...", "Task": "...", "Channel": "...",
 *                      "Provider": "...", "Keywords": ["..."],
 *                      "EventName": "..."}}
 *
 * Keys whose value is unknown are left out (Provider.Name, Correlation's,
 * Execution's ProcessID/ThreadID/KernelTime/UserTime, UserID, each
 * RenderingInfo key, RenderingInfo itself); an unknown time is
 * "TimeCreated": null with "RawTime": the raw timestamp. An event that
 * could not be decoded has, instead of EventData,
 *   "ProcessingErrorData": {"ErrorCode": 11, "DataItemName": "",
 *                           "EventPayload": "HEX", "Reason": "..."}.
 * Values: integers are numbers, except beyond +-2^53 (JavaScript's exact
 * range), which are decimal strings; hex-formatted integers, GUIDs, times,
 * SIDs, binary and addresses are strings; booleans true/false; floats
 * numbers (NaN and the infinities as strings). Strings are escaped by one
 * routine (etl__out_json_string): " \ and controls escaped, bytes that are
 * not UTF-8 as \ufffd.
 *
 * json:  {"Header":<header event or null>,\n"Events":[\n<event>,\n<event>\n]}\n
 * jsonl: <header event or null>\n<event>\n...
 * Events are written as they come (constant memory).
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "out.h"

struct json_priv {
	int lines;                   /* jsonl                                 */
	uint64_t events;             /* events written after the header       */
	struct etl_outbuf val;
};

static int open_common(struct etl_output *o, int lines)
{
	struct json_priv *j = calloc(1, sizeof *j);
	if (!j)
		return ETL_FATAL;
	j->lines = lines;
	o->priv = j;
	return ETL_OK;
}

static int json_open(struct etl_output *o)
{
	return open_common(o, 0);
}

static int jsonl_open(struct etl_output *o)
{
	return open_common(o, 1);
}

static void json_close(struct etl_output *o)
{
	struct json_priv *j = o->priv;
	if (!j)
		return;
	etl__ob_free(&j->val);
	free(j);
	o->priv = NULL;
}

static void key(struct etl_outbuf *b, int *first, const char *k)
{
	if (!*first)
		etl__ob_putc(b, ',');
	*first = 0;
	etl__ob_putc(b, '"');
	etl__ob_puts(b, k);
	etl__ob_puts(b, "\":");
}

static void str(struct etl_outbuf *b, const char *s)
{
	etl__out_json_string(b, s, s ? strlen(s) : 0);
}

static void num(struct etl_outbuf *b, uint64_t v)
{
	etl__ob_printf(b, "%llu", (unsigned long long)v);
}

static void guid(struct etl_outbuf *b, const struct etl_guid *g)
{
	etl__ob_putc(b, '"');
	etl__out_guid(b, g);
	etl__ob_putc(b, '"');
}

static void scalar(struct json_priv *j, struct etl_outbuf *b, const struct etl_prop *p)
{
	j->val.len = 0;
	int vt = etl__out_value(&j->val, p);
	if (j->val.oom)
		b->oom = 1;
	switch (vt) {
	case ETL_OUTV_NUMBER:
	case ETL_OUTV_BOOL:
		etl__ob_put(b, j->val.p, j->val.len);
		break;
	case ETL_OUTV_NULL:
		etl__ob_puts(b, "null");
		break;
	default:
		etl__out_json_string(b, j->val.p ? j->val.p : "", j->val.len);
	}
}

static void prop(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r,
                 uint32_t i, unsigned depth)
{
	const struct etl_prop *p = &r->props[i];
	if (p->kind != ETL_VAL_STRUCT && p->kind != ETL_VAL_ARRAY) {
		scalar(j, b, p);
		return;
	}
	uint32_t first, count;
	etl__out_children(r, i, depth, &first, &count);
	etl__ob_putc(b, p->kind == ETL_VAL_ARRAY ? '[' : '{');
	for (uint32_t k = 0; k < count; k++) {
		if (k)
			etl__ob_putc(b, ',');
		if (p->kind == ETL_VAL_STRUCT) {
			const char *n = r->props[first + k].name;
			str(b, n ? n : "");
			etl__ob_putc(b, ':');
		}
		prop(j, b, r, first + k, depth + 1);
	}
	etl__ob_putc(b, p->kind == ETL_VAL_ARRAY ? ']' : '}');
}

static void system_part(struct etl_outbuf *b, const struct etl_out_rec *r)
{
	char t[ETL_TIME_STRLEN];
	int f = 1, g;
	etl__ob_puts(b, "\"System\":{");
	key(b, &f, "Provider");
	etl__ob_putc(b, '{');
	g = 1;
	if (r->provider_name) {
		key(b, &g, "Name");
		str(b, r->provider_name);
	}
	key(b, &g, "Guid");
	guid(b, &r->provider);
	etl__ob_putc(b, '}');
	key(b, &f, "EventID");
	num(b, r->event_id);
	key(b, &f, "Version");
	num(b, r->version);
	key(b, &f, "Level");
	num(b, r->level);
	key(b, &f, "Task");
	num(b, r->task);
	key(b, &f, "Opcode");
	num(b, r->opcode);
	key(b, &f, "Keywords");
	etl__ob_printf(b, "\"0x%llx\"", (unsigned long long)r->keywords);
	key(b, &f, "TimeCreated");
	if (r->has_time) {
		str(b, etl_filetime_format(r->utc, t, sizeof t));
	} else {
		etl__ob_puts(b, "null");
		if (r->has_raw) {
			key(b, &f, "RawTime");
			if (r->raw > -9007199254740992LL && r->raw < 9007199254740992LL)
				etl__ob_printf(b, "%lld", (long long)r->raw);
			else
				etl__ob_printf(b, "\"%lld\"", (long long)r->raw);
		}
	}
	key(b, &f, "Correlation");
	etl__ob_putc(b, '{');
	g = 1;
	if (r->has_activity) {
		key(b, &g, "ActivityID");
		guid(b, &r->activity);
	}
	if (r->has_related) {
		key(b, &g, "RelatedActivityID");
		guid(b, &r->related);
	}
	etl__ob_putc(b, '}');
	if (r->has_exec) {
		key(b, &f, "Execution");
		etl__ob_putc(b, '{');
		g = 1;
		if (r->has_pid) {
			key(b, &g, "ProcessID");
			num(b, r->pid);
			key(b, &g, "ThreadID");
			num(b, r->tid);
		}
		key(b, &g, "ProcessorID");
		num(b, r->cpu);
		if (r->has_cpu_times) {
			key(b, &g, "KernelTime");
			num(b, r->kernel_time);
			key(b, &g, "UserTime");
			num(b, r->user_time);
		}
		etl__ob_putc(b, '}');
	}
	key(b, &f, "Channel");
	num(b, r->channel);
	key(b, &f, "Computer");
	etl__ob_puts(b, "\"\"");
	if (r->user_sid) {
		key(b, &f, "UserID");
		str(b, r->user_sid);
	}
	etl__ob_putc(b, '}');
}

static void rendering_part(struct etl_outbuf *b, const struct etl_out_rec *r)
{
	int f = 1;
	etl__ob_puts(b, ",\"RenderingInfo\":{");
	key(b, &f, "Culture");
	str(b, "en-US");
	if (r->r_message) {
		key(b, &f, "Message");
		str(b, r->r_message);
	}
	if (r->r_level) {
		key(b, &f, "Level");
		str(b, r->r_level);
	}
	if (r->r_opcode) {
		key(b, &f, "Opcode");
		str(b, r->r_opcode);
	}
	if (r->r_task) {
		key(b, &f, "Task");
		str(b, r->r_task);
	}
	if (r->r_channel) {
		key(b, &f, "Channel");
		str(b, r->r_channel);
	}
	if (r->r_provider) {
		key(b, &f, "Provider");
		str(b, r->r_provider);
	}
	if (r->r_keywords && *r->r_keywords) {
		key(b, &f, "Keywords");
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
		key(b, &f, "EventName");
		str(b, r->r_event_name);
	}
	etl__ob_putc(b, '}');
}

static void record(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	if (r->absent) {
		etl__ob_puts(b, "null");
		return;
	}
	etl__ob_putc(b, '{');
	system_part(b, r);
	if (r->has_data) {
		int f = 1;
		etl__ob_puts(b, ",\"EventData\":{");
		for (uint32_t i = 0; i < r->n_props; i++) {
			if (!etl__out_is_top(r, i))
				continue;
			if (!f)
				etl__ob_putc(b, ',');
			f = 0;
			str(b, r->props[i].name ? r->props[i].name : "");
			etl__ob_putc(b, ':');
			prop(j, b, r, i, 0);
		}
		etl__ob_putc(b, '}');
	} else if (r->has_error) {
		etl__ob_printf(b, ",\"ProcessingErrorData\":{\"ErrorCode\":%u,\"DataItemName\":\"\","
		               "\"EventPayload\":\"", (unsigned)r->error_code);
		etl__out_hex(b, r->payload, r->payload_len);
		etl__ob_puts(b, "\",\"Reason\":");
		str(b, r->error_reason ? r->error_reason : "");
		etl__ob_putc(b, '}');
	}
	if (r->has_rendering)
		rendering_part(b, r);
	etl__ob_putc(b, '}');
}

static int json_event(struct etl_output *o, const struct etl_out_rec *r)
{
	struct json_priv *j = o->priv;
	struct etl_outbuf *b = &o->buf;
	if (j->lines) {
		record(j, b, r);
		etl__ob_putc(b, '\n');
	} else if (r->is_header) {
		etl__ob_puts(b, "{\"Header\":");
		record(j, b, r);
		etl__ob_puts(b, ",\n\"Events\":[");
	} else {
		etl__ob_puts(b, j->events ? ",\n" : "\n");
		record(j, b, r);
	}
	if (!r->is_header)
		j->events++;
	return etl__output_flush(o);
}

static int json_end(struct etl_output *o)
{
	struct json_priv *j = o->priv;
	if (j->lines)
		return ETL_OK;
	etl__ob_puts(&o->buf, "\n]}\n");
	return etl__output_flush(o);
}

const struct etl_out_ops etl__out_json = {
	"json", json_open, NULL, json_event, json_end, json_close
};

const struct etl_out_ops etl__out_jsonl = {
	"jsonl", jsonl_open, NULL, json_event, json_end, json_close
};
