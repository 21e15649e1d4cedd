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
 *                      "EventName": "..."},
 *    "ExtendedTracingInfo": {"EventGuid": "{...}", "InstanceID": 1,
 *                            "ParentInstanceID": 0, "ParentGuid": "{...}"}}
 * (ExtendedTracingInfo for classic and kernel records; the instance keys
 * for instance headers only.)
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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "out.h"
#include "../lib/etl_fmt.h"

struct json_priv {
	int lines;                   /* jsonl                                 */
	uint64_t events;             /* events written after the header       */
	struct etl_outbuf val;
	/* The provider GUID of the last event and its text ("{...}" with the
	 * quotes): consecutive events mostly share their provider. */
	int have_prov;
	struct etl_guid prov;
	char prov_text[ETL_FMT_GUID_LEN + 4];
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
	ETL_OB_LIT(b, "\":");
}

static void str(struct etl_outbuf *b, const char *s)
{
	etl__out_json_string(b, s, s ? strlen(s) : 0);
}

/* Appends a key known to need no escaping, with its separator: the
 * literal holds the comma, quotes and colon ("\"EventID\":" or
 * ",\"EventID\":"), so nothing is measured or escaped at run time. */
#define KEY(b, lit) ETL_OB_LIT(b, lit)

static void guid(struct etl_outbuf *b, const struct etl_guid *g)
{
	etl__ob_putc(b, '"');
	etl__out_guid(b, g);
	etl__ob_putc(b, '"');
}

/* The character of p when p is a character (an 8- or 16-bit integer with
 * a String out type; char arrays hold one per element) below U+0080, whose
 * text is that one byte; -1 otherwise. */
static inline int ascii_char(const struct etl_prop *p)
{
	if ((p->kind != ETL_VAL_INT && p->kind != ETL_VAL_UINT) || p->out_type != ETL_OUT_STRING)
		return -1;
	uint64_t c;
	if (p->in_type == ETL_IN_INT8 || p->in_type == ETL_IN_UINT8)
		c = p->v.u & 0xFF;
	else if (p->in_type == ETL_IN_INT16 || p->in_type == ETL_IN_UINT16)
		c = p->v.u & 0xFFFF;
	else
		return -1;
	return c < 0x80 ? (int)c : -1;
}

/* An ASCII character as a JSON string: "c", or escaped. */
static void put_ascii_char(struct etl_outbuf *b, int ch)
{
	char *o = etl__ob_room(b, 8);
	if (!o)
		return;
	o[0] = '"';
	size_t n = 1;
	if (ch >= 0x20 && ch != '"' && ch != '\\')
		o[n++] = (char)ch;
	else
		n += etl__out_json_escape_ascii(o + 1, (unsigned char)ch);
	o[n++] = '"';
	b->len += n;
}

/* An integer shown in plain decimal: no out type, an in type that is not
 * one of the hex ones (etl__out_value() would write the same digits). */
static int plain_decimal(const struct etl_prop *p)
{
	return (p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT) && p->out_type == ETL_OUT_NULL &&
	       p->in_type != ETL_IN_HEXINT32 && p->in_type != ETL_IN_HEXINT64 &&
	       p->in_type != ETL_IN_POINTER;
}

#define JSON_SAFE_INT 9007199254740992LL   /* 2^53: beyond, numbers are strings */

/* A scalar value. Plain decimal integers and ASCII characters are written
 * directly; text that cannot hold anything to escape (hex, GUIDs, times,
 * ...) is formatted straight into b and quoted afterwards when it is a
 * string; strings and other characters go through the escaping. */
static void scalar(struct json_priv *j, struct etl_outbuf *b, const struct etl_prop *p)
{
	if (plain_decimal(p)) {                 /* the most common value */
		int safe = p->kind == ETL_VAL_INT ? p->v.i > -JSON_SAFE_INT && p->v.i < JSON_SAFE_INT
		                                  : p->v.u < (uint64_t)JSON_SAFE_INT;
		char *o = etl__ob_room(b, ETL_FMT_I64_MAX + 2);
		if (!o)
			return;
		char *q = o;
		if (!safe)
			*q++ = '"';
		q += p->kind == ETL_VAL_INT ? etl__fmt_i64(q, p->v.i) : etl__fmt_u64(q, p->v.u);
		if (!safe)
			*q++ = '"';
		b->len += (size_t)(q - o);
		return;
	}
	if (p->kind == ETL_VAL_INT || p->kind == ETL_VAL_UINT) {        /* hex: "0x..." */
		char *o = etl__ob_room(b, ETL_OUT_HEX_INT_MAX + 2);
		if (!o)
			return;
		size_t n = etl__out_hex_int(o + 1, p);
		if (n) {
			o[0] = '"';
			o[n + 1] = '"';
			b->len += n + 2;
			return;
		}
	}
	int ch = ascii_char(p);
	if (ch >= 0) {
		put_ascii_char(b, ch);
		return;
	}
	if (p->kind == ETL_VAL_STRING) {
		etl__out_json_string(b, p->v.str.s ? p->v.str.s : "", p->v.str.s ? p->v.str.len : 0);
		return;
	}
	if (etl__out_value_needs_escape(p)) {
		j->val.len = 0;
		int vt = etl__out_value(&j->val, p);
		if (j->val.oom)
			b->oom = 1;
		if (vt == ETL_OUTV_NUMBER || vt == ETL_OUTV_BOOL)
			etl__ob_put(b, j->val.p, j->val.len);
		else if (vt == ETL_OUTV_NULL)
			ETL_OB_LIT(b, "null");
		else
			etl__out_json_string(b, j->val.p ? j->val.p : "", j->val.len);
		return;
	}
	size_t start = b->len;
	int vt = etl__out_value(b, p);
	if (b->oom)
		return;
	if (vt == ETL_OUTV_NULL) {
		b->len = start;
		ETL_OB_LIT(b, "null");
	} else if (vt == ETL_OUTV_STRING) {
		/* Plain ASCII: quote it in place. */
		size_t n = b->len - start;
		char *o = etl__ob_room(b, 2);
		if (!o)
			return;
		memmove(b->p + start + 1, b->p + start, n);
		b->p[start] = '"';
		b->p[start + n + 1] = '"';
		b->len += 2;
	}
}

static void array(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r,
                  uint32_t first, uint32_t count, unsigned depth);

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
	if (p->kind == ETL_VAL_ARRAY) {
		array(j, b, r, first, count, depth);
		return;
	}
	etl__ob_putc(b, '{');                   /* a struct: its members */
	for (uint32_t k = 0; k < count; k++) {
		if (k)
			etl__ob_putc(b, ',');
		const char *n = r->props[first + k].name;
		str(b, n ? n : "");
		etl__ob_putc(b, ':');
		prop(j, b, r, first + k, depth + 1);
	}
	etl__ob_putc(b, '}');
}

/* The elements props[first .. first + count) of an array. Character
 * arrays hold one element per character, thousands per event: those that
 * need no escaping are written here, the rest through prop(). */
/* 1 for the ASCII characters a JSON string holds as they are: printable
 * (and DEL) other than " and \. */
static const unsigned char plain_ascii[128] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* kind, in_type and out_type of p as one 64-bit value, to compare element
 * types with one comparison. The three fields are adjacent in struct
 * etl_prop (checked below); read through the struct's bytes. */
_Static_assert(sizeof(int) == 4 &&
               offsetof(struct etl_prop, in_type) == offsetof(struct etl_prop, kind) + 4 &&
               offsetof(struct etl_prop, out_type) == offsetof(struct etl_prop, kind) + 6,
               "kind, in_type, out_type are 8 adjacent bytes");
static inline uint64_t type_key(const struct etl_prop *p)
{
	uint64_t k;
	memcpy(&k, (const unsigned char *)p + offsetof(struct etl_prop, kind), sizeof k);
	return k;
}

/* Writes the run of elements e[0 .. n) that are ASCII characters of the
 * type of e[0], each as ,"c" or ,"\escape" (no comma before the array's
 * first element, at_start); returns how many. Char arrays hold one element
 * per character, thousands per event, hence this loop with the type taken
 * from the first element and room reserved per block. */
static uint32_t ascii_chars(struct etl_outbuf *b, const struct etl_prop *e, uint32_t n, int at_start)
{
	if (n == 0 || ascii_char(e) < 0)
		return 0;
	const uint64_t key = type_key(e);       /* e is a character: String out type */
	const uint64_t mask = e->in_type == ETL_IN_INT8 || e->in_type == ETL_IN_UINT8 ? 0xFF : 0xFFFF;
	size_t comma = !at_start;
	uint32_t k = 0;
	while (k < n) {
		uint32_t block = n - k < 1024 ? n - k : 1024;
		char *o = etl__ob_room(b, 9 * (size_t)block);
		if (!o)
			return k;
		char *start = o;
		uint32_t end = k + block;
		for (; k < end; k++) {
			const struct etl_prop *p = &e[k];
			uint64_t c = p->v.u & mask;
			if (type_key(p) != key || c >= 0x80)
				break;
			o[0] = ',';
			o += comma;                 /* none before the first element */
			comma = 1;
			*o++ = '"';
			if (plain_ascii[c])
				*o++ = (char)c;
			else
				o += etl__out_json_escape_ascii(o, (unsigned char)c);
			*o++ = '"';
		}
		b->len += (size_t)(o - start);
		if (k < end)
			break;
	}
	return k;
}

static void array(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r,
                  uint32_t first, uint32_t count, unsigned depth)
{
	etl__ob_putc(b, '[');
	for (uint32_t k = 0; k < count; k++) {
		k += ascii_chars(b, &r->props[first + k], count - k, k == 0);
		if (k >= count || b->oom)
			break;
		if (k)
			etl__ob_putc(b, ',');
		int ch = ascii_char(&r->props[first + k]);
		if (ch >= 0)
			put_ascii_char(b, ch);
		else
			prop(j, b, r, first + k, depth + 1);
	}
	etl__ob_putc(b, ']');
}

/* The provider GUID as a JSON string, from the memo when it is the same
 * as the last event's. */
static void provider_guid(struct json_priv *j, struct etl_outbuf *b, const struct etl_guid *g)
{
	if (!j->have_prov || !etl_guid_equal(&j->prov, g)) {
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

static void system_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	int f = 0, g;
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
	if (r->has_time) {
		etl__ob_putc(b, '"');
		etl__ob_filetime(b, r->utc);
		etl__ob_putc(b, '"');
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
	KEY(b, ",\"Correlation\":{");
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
		KEY(b, ",\"Execution\":{");
		if (r->has_pid) {
			KEY(b, "\"ProcessID\":");
			etl__ob_u64(b, r->pid);
			KEY(b, ",\"ThreadID\":");
			etl__ob_u64(b, r->tid);
			KEY(b, ",\"ProcessorID\":");
		} else {
			KEY(b, "\"ProcessorID\":");
		}
		etl__ob_u64(b, r->cpu);
		if (r->has_cpu_times) {
			KEY(b, ",\"KernelTime\":");
			etl__ob_u64(b, r->kernel_time);
			KEY(b, ",\"UserTime\":");
			etl__ob_u64(b, r->user_time);
		}
		etl__ob_putc(b, '}');
	}
	KEY(b, ",\"Channel\":");
	etl__ob_u64(b, r->channel);
	KEY(b, ",\"Computer\":\"\"");
	if (r->user_sid) {
		key(b, &f, "UserID");
		str(b, r->user_sid);
	}
	etl__ob_putc(b, '}');
}

static void rendering_part(struct etl_outbuf *b, const struct etl_out_rec *r)
{
	/* Culture comes first, so every other key has its comma. */
	ETL_OB_LIT(b, ",\"RenderingInfo\":{\"Culture\":\"en-US\"");
	if (r->r_message) {
		KEY(b, ",\"Message\":");
		str(b, r->r_message);
	}
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

static void guid_str(struct etl_outbuf *b, const struct etl_guid *g)
{
	char t[ETL_GUID_STRLEN];
	etl_guid_format(g, t);
	etl__ob_puts(b, "\"{");
	etl__ob_puts(b, t);
	etl__ob_puts(b, "}\"");
}

/* tracerpt's ExtendedTracingInfo (decoding.md §6.3), as in the XML. */
static void ext_tracing_part(struct etl_outbuf *b, const struct etl_out_rec *r)
{
	ETL_OB_LIT(b, ",\"ExtendedTracingInfo\":{\"EventGuid\":");
	guid_str(b, &r->event_guid);
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

static void record(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	if (r->absent) {
		etl__ob_puts(b, "null");
		return;
	}
	etl__ob_putc(b, '{');
	system_part(j, b, r);
	if (r->has_data) {
		int f = 1;
		/* Locals: the compiler cannot know that writing b leaves r alone. */
		const struct etl_prop *props = r->props;
		const uint32_t n = r->n_props;
		ETL_OB_LIT(b, ",\"EventData\":{");
		for (uint32_t i = 0; i < n; i++) {
			if (props[i].parent != ETL_PROP_NO_PARENT)      /* not top-level */
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
		ETL_OB_LIT(b, ",\"ProcessingErrorData\":{\"ErrorCode\":");
		etl__ob_u64(b, (unsigned)r->error_code);
		ETL_OB_LIT(b, ",\"DataItemName\":\"\",\"EventPayload\":\"");
		etl__out_hex(b, r->payload, r->payload_len);
		etl__ob_puts(b, "\",\"Reason\":");
		str(b, r->error_reason ? r->error_reason : "");
		etl__ob_putc(b, '}');
	}
	if (r->has_rendering)
		rendering_part(b, r);
	if (r->has_ext_tracing)
		ext_tracing_part(b, r);
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
