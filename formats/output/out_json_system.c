/*
 * formats/output/out_json_system.c - the System, RenderingInfo and
 * ExtendedTracingInfo parts of a JSON record (layout in out_json.c). The
 * parts repeat from event to event of one kind, so their text is kept in
 * memo tables (struct json_priv) keyed by the values it was made from.
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
	if (!j->have_prov || !guid_eq(&j->prov, g)) {
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

static uint32_t sys_hash(const struct etl_out_rec *r)
{
	uint32_t h = r->provider.data1 ^ (uint32_t)r->event_id * 2654435761u ^
	             (uint32_t)r->opcode << 8 ^ (uint32_t)r->version << 16 ^ (uint32_t)r->task * 40503u ^
	             (uint32_t)r->level << 24 ^ (uint32_t)r->keywords ^ (uint32_t)(r->keywords >> 32);
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h % SYS_MEMO_N;
}

static int sys_match(const struct sys_memo *m, const struct etl_out_rec *r)
{
	return m->used && m->id == r->event_id && m->version == r->version && m->level == r->level &&
	       m->opcode == r->opcode && m->task == r->task && m->keywords == r->keywords &&
	       guid_eq(&m->prov, &r->provider) && m->has_name == (r->provider_name != NULL) &&
	       (!r->provider_name || strcmp(m->name, r->provider_name) == 0);
}

/* The System text up to "TimeCreated": (see struct sys_memo). */
static void system_head(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
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

static void system_head_memo(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	if (!j->sys && !(j->sys = calloc(SYS_MEMO_N, sizeof *j->sys))) {
		system_head(j, b, r);
		return;
	}
	struct sys_memo *m = &j->sys[sys_hash(r)];
	if (m->used && r->names_gen && m->gen == r->names_gen && m->name_ptr == r->provider_name &&
	    m->id == r->event_id && m->version == r->version && m->level == r->level &&
	    m->opcode == r->opcode && m->task == r->task && m->keywords == r->keywords &&
	    guid_eq(&m->prov, &r->provider)) {
		etl__ob_put(b, m->text, m->text_len);   /* the same name: no compare */
		return;
	}
	if (sys_match(m, r)) {
		m->gen = r->names_gen;
		m->name_ptr = r->provider_name;
		etl__ob_put(b, m->text, m->text_len);
		return;
	}
	size_t start = b->len;
	system_head(j, b, r);
	size_t nl = r->provider_name ? strlen(r->provider_name) : 0;
	if (b->oom || b->len - start > SYS_TEXT_MAX || nl > SYS_NAME_MAX) {
		m->used = 0;
		return;
	}
	m->used = 1;
	m->id = r->event_id;
	m->version = r->version;
	m->level = r->level;
	m->opcode = r->opcode;
	m->task = r->task;
	m->keywords = r->keywords;
	m->prov = r->provider;
	m->has_name = r->provider_name != NULL;
	memcpy(m->name, r->provider_name ? r->provider_name : "", nl + 1);
	m->gen = r->names_gen;
	m->name_ptr = r->provider_name;
	m->text_len = b->len - start;
	memcpy(m->text, b->p + start, m->text_len);
}

/* "TimeCreated"'s value (with its quotes), the text up to the seconds
 * from the memo when the second is the last event's. */
static void time_created(struct json_priv *j, struct etl_outbuf *b, int64_t ft)
{
	char *o = etl__ob_room(b, ETL_FMT_TIME_MAX + 2);
	if (!o)
		return;
	char *q = o;
	*q++ = '"';
	if (ft >= 0 && j->have_sec && ft / 10000000 == j->sec) {
		memcpy(q, j->sec_text, j->sec_len);
		q += j->sec_len;
		etl__fmt_frac7(q, (uint32_t)(ft % 10000000));
		q[7] = 'Z';
		q += 8;
	} else {
		size_t n = etl__fmt_filetime(q, ft);
		j->have_sec = 0;
		/* "...:SS.fffffffZ": the fraction is the last 8 bytes */
		if (ft >= 0 && n > 8 && n - 8 <= sizeof j->sec_text && q[n - 9] == '.') {
			j->have_sec = 1;
			j->sec = ft / 10000000;
			j->sec_len = n - 8;
			memcpy(j->sec_text, q, n - 8);
		}
		q += n;
	}
	*q++ = '"';
	b->len += (size_t)(q - o);
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
	system_head_memo(j, b, r);
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

static void rendering_tail(struct etl_outbuf *b, const struct etl_out_rec *r)
{
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

static void tail_keys(const struct etl_out_rec *r, const char *k[TAIL_KEYS])
{
	k[0] = r->r_level;
	k[1] = r->r_opcode;
	k[2] = r->r_task;
	k[3] = r->r_channel;
	k[4] = r->r_provider;
	k[5] = r->r_keywords && *r->r_keywords ? r->r_keywords : NULL;
	k[6] = r->r_event_name;
}

static void rendering_tail_memo(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	const char *k[TAIL_KEYS];
	tail_keys(r, k);
	if (!j->tail && !(j->tail = calloc(TAIL_MEMO_N, sizeof *j->tail))) {
		rendering_tail(b, r);
		return;
	}
	/* The slot by the event and opcode names, which tell most kinds
	 * apart (a collision only costs a miss). */
	uint64_t h = ((uint64_t)(uintptr_t)k[6] ^ (uint64_t)(uintptr_t)k[1] * 31u) * 0x9E3779B97F4A7C15ull;
	struct tail_memo *m = &j->tail[(h >> 40) % TAIL_MEMO_N];
	if (m->used) {
		int i = 0;
		if (r->names_gen && m->gen == r->names_gen) {    /* the same names */
			while (i < TAIL_KEYS && m->ptr[i] == k[i])
				i++;
			if (i == TAIL_KEYS) {
				etl__ob_put(b, m->text, m->text_len);
				return;
			}
			i = 0;
		}
		for (; i < TAIL_KEYS; i++) {
			if (m->off[i] == 0xFFFF ? k[i] != NULL : !k[i] || strcmp(m->raw + m->off[i], k[i]) != 0)
				break;
		}
		if (i == TAIL_KEYS) {
			m->gen = r->names_gen;
			memcpy(m->ptr, k, sizeof m->ptr);
			etl__ob_put(b, m->text, m->text_len);
			return;
		}
	}
	size_t start = b->len;
	rendering_tail(b, r);
	m->used = 0;
	if (b->oom || b->len - start > TAIL_TEXT_MAX)
		return;
	size_t at = 0;
	for (int i = 0; i < TAIL_KEYS; i++) {
		if (!k[i]) {
			m->off[i] = 0xFFFF;
			continue;
		}
		size_t n = strlen(k[i]);
		if (n >= TAIL_RAW_MAX - at)
			return;
		m->off[i] = (uint16_t)at;
		memcpy(m->raw + at, k[i], n + 1);
		at += n + 1;
	}
	m->text_len = b->len - start;
	memcpy(m->text, b->p + start, m->text_len);
	m->gen = r->names_gen;
	memcpy(m->ptr, k, sizeof m->ptr);
	m->used = 1;
}

void etl__json_rendering_part(struct json_priv *j, struct etl_outbuf *b, const struct etl_out_rec *r)
{
	/* Culture comes first, so every other key has its comma. */
	ETL_OB_LIT(b, ",\"RenderingInfo\":{\"Culture\":\"en-US\"");
	if (r->r_message) {
		KEY(b, ",\"Message\":");
		str(b, r->r_message);
	}
	rendering_tail_memo(j, b, r);
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

