/*
 * dump_summary.c - etldump --summary and --summary --json: per file, the
 * records read, the matching events counted by header type, extended item
 * type, provider and event, their first and last times, the loss flags of
 * the buffers, and the errors and warnings met (the first 10000 of each
 * kept with their offsets). The warnings also say what the logfile header
 * tells against the file: fewer buffers in the file than it counts written
 * (not circular: the file was cut short; the reader reports that as
 * damage too), an EndTime before the last event, events or buffers the
 * session lost.
 *
 * Providers and events are counted in open-addressing hash tables keyed by
 * a fixed-size, fully initialised struct (compared with memcmp), printed in
 * decreasing count order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dump.h"

#define MAX_KEPT_MESSAGES 10000  /* errors/warnings kept for --summary */

/* Key of a provider or of a (provider, event) pair. Every byte is set, so
 * keys compare with memcmp. */
struct skey {
	struct etl_guid guid;
	uint32_t component;
	uint8_t prov;          /* 0 GUID, 1 WPP component id                 */
	uint8_t what;          /* 0 provider only, 1 id, 2 opcode, 3 opcode+hook */
	uint16_t value;        /* id or opcode                               */
	uint16_t hook;
	uint16_t zero;
};

struct sentry {
	struct skey key;
	const char *name;      /* static provider name, or NULL              */
	uint64_t count;
	int used;
};

struct stable {
	struct sentry *slots;
	size_t cap, n;
};

struct message {
	uint64_t off;
	char *text;
};

struct msglist {
	struct message *v;
	size_t n, cap;
	uint64_t total;
};

struct dump_summary {
	uint64_t records, matched;
	uint64_t kinds[ETL_HDR_KIND_COUNT_];
	uint64_t *ext;                 /* 65536 counters, by ExtType          */
	int any_ext;
	struct stable prov, evs;
	int have_time;
	int64_t first, last;
	int have_any;                  /* last_any: of every record read      */
	int64_t last_any;
	uint64_t flag_events_lost, flag_buffer_lost;
	struct msglist errors, warnings;
	int oom;
};

static uint64_t key_hash(const struct skey *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < sizeof *k; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static struct sentry *table_get(struct stable *t, const struct skey *k)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct sentry *s = calloc(cap, sizeof *s);
		if (!s)
			return NULL;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->slots[i].used)
				continue;
			size_t j = (size_t)key_hash(&t->slots[i].key) & (cap - 1);
			while (s[j].used)
				j = (j + 1) & (cap - 1);
			s[j] = t->slots[i];
		}
		free(t->slots);
		t->slots = s;
		t->cap = cap;
	}
	size_t j = (size_t)key_hash(k) & (t->cap - 1);
	while (t->slots[j].used) {
		if (memcmp(&t->slots[j].key, k, sizeof *k) == 0)
			return &t->slots[j];
		j = (j + 1) & (t->cap - 1);
	}
	t->slots[j].used = 1;
	t->slots[j].key = *k;
	t->n++;
	return &t->slots[j];
}

static void msg_add(struct msglist *l, uint64_t off, const char *text)
{
	l->total++;
	if (l->n >= MAX_KEPT_MESSAGES)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct message *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	char *t = strdup(text);
	if (!t)
		return;
	l->v[l->n].off = off;
	l->v[l->n].text = t;
	l->n++;
}

static void msg_free(struct msglist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
}

struct dump_summary *dump_summary_new(void)
{
	return calloc(1, sizeof(struct dump_summary));
}

void dump_summary_free(struct dump_summary *s)
{
	if (!s)
		return;
	free(s->ext);
	free(s->prov.slots);
	free(s->evs.slots);
	msg_free(&s->errors);
	msg_free(&s->warnings);
	free(s);
}

void dump_summary_record(struct dump_summary *s, const struct etl_event *ev,
                         const struct etl_buffer_info *bi)
{
	s->records++;
	if ((ev->present & ETL_EVF_UTC) && (!s->have_any || ev->utc > s->last_any)) {
		s->have_any = 1;
		s->last_any = ev->utc;
	}
	if (bi && (bi->flags & ETL_BUF_FLAG_EVENTS_LOST))
		s->flag_events_lost++;
	if (bi && (bi->flags & ETL_BUF_FLAG_BUFFER_LOST))
		s->flag_buffer_lost++;
}

void dump_summary_count(struct dump_summary *s)
{
	s->matched++;
}

uint64_t dump_summary_matched(const struct dump_summary *s)
{
	return s->matched;
}

void dump_summary_problem(struct dump_summary *s, int warning, uint64_t off, const char *msg)
{
	msg_add(warning ? &s->warnings : &s->errors, off, msg);
}

int dump_summary_oom(const struct dump_summary *s)
{
	return s->oom;
}

static void provider_key(const struct etl_event *ev, struct skey *k)
{
	memset(k, 0, sizeof *k);
	if (ev->kind == ETL_HDR_MESSAGE && (ev->present & ETL_EVF_COMPONENT_ID)) {
		k->prov = 1;
		k->component = ev->component_id;
	} else {
		k->guid = ev->provider;
	}
}

void dump_summary_add(struct dump_summary *s, const struct etl_event *ev)
{
	struct skey k;
	struct sentry *e;
	s->matched++;
	if (ev->kind >= 0 && ev->kind < ETL_HDR_KIND_COUNT_)
		s->kinds[ev->kind]++;
	if (ev->ext_count) {
		struct etl_ext_iter it;
		struct etl_ext_item item;
		if (!s->ext && !(s->ext = calloc(65536, sizeof *s->ext)))
			s->oom = 1;
		etl_ext_iter_init(&it, ev);
		while (s->ext && etl_ext_iter_next(&it, &item) == ETL_OK) {
			s->ext[item.ext_type]++;
			s->any_ext = 1;
		}
	}
	if (ev->present & ETL_EVF_UTC) {
		if (!s->have_time || ev->utc < s->first)
			s->first = ev->utc;
		if (!s->have_time || ev->utc > s->last)
			s->last = ev->utc;
		s->have_time = 1;
	}
	provider_key(ev, &k);
	if ((e = table_get(&s->prov, &k)) != NULL) {
		e->count++;
		e->name = ev->provider_name;
	} else
		s->oom = 1;
	if (cli_event_uses_id(ev)) {
		k.what = 1;
		k.value = ev->id;
	} else if (cli_event_is_system(ev)) {
		k.what = 3;
		k.value = ev->opcode;
		k.hook = ev->hook_id;
	} else {
		k.what = 2;
		k.value = ev->opcode;
	}
	if ((e = table_get(&s->evs, &k)) != NULL) {
		e->count++;
		e->name = ev->provider_name;
	} else
		s->oom = 1;
}

/* Entries of a table in decreasing count order (then by key). */
static int cmp_entry(const void *a, const void *b)
{
	const struct sentry *x = *(const struct sentry *const *)a, *y = *(const struct sentry *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return memcmp(&x->key, &y->key, sizeof x->key);
}

static const struct sentry **table_sorted(const struct stable *t)
{
	const struct sentry **v = malloc((t->n ? t->n : 1) * sizeof *v);
	size_t n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].used)
			v[n++] = &t->slots[i];
	qsort(v, n, sizeof *v, cmp_entry);
	return v;
}

static const char *entry_provider(const struct sentry *e, char buf[CLI_PROVIDER_STRLEN])
{
	if (e->name)
		return e->name;
	if (e->key.prov == 1) {
		snprintf(buf, CLI_PROVIDER_STRLEN, "component:%u", (unsigned)e->key.component);
		return buf;
	}
	return etl_guid_format(&e->key.guid, buf);
}

static void entry_event(const struct sentry *e, char *buf, size_t len)
{
	switch (e->key.what) {
	case 1: snprintf(buf, len, "id=%u", e->key.value); break;
	case 3: snprintf(buf, len, "op=%u hook=0x%04x", e->key.value, e->key.hook); break;
	default: snprintf(buf, len, "op=%u", e->key.value); break;
	}
}

/* ---- what the logfile header tells against the file ------------------- */

/* Offsets in the logfile-header record: its payload follows a 0x20-byte
 * SYSTEM_TRACE_HEADER; EndTime is at 0x10 of TRACE_LOGFILE_HEADER
 * (doc/format.md §2.2, §3.2). */
#define LF_PAYLOAD 0x20u
#define LF_END_TIME 0x10u

/* The warnings of the file itself, kept in w (freed by the caller). */
static void file_warnings(etl_reader *r, const struct dump_summary *s, struct msglist *w)
{
	const struct etl_logfile *lf = etl_reader_logfile(r);
	struct etl_reader_stats st;
	char msg[320], t1[ETL_TIME_STRLEN], t2[ETL_TIME_STRLEN];
	memset(w, 0, sizeof *w);
	if (!lf->present)
		return;
	etl_reader_stats(r, &st);
	if (!(lf->log_file_mode & ETL_MODE_CIRCULAR) && lf->buffers_written > st.buffers) {
		snprintf(msg, sizeof msg, "The file is shorter than its logfile header says: it holds %llu "
		         "buffers, the header counts %u written; the rest of the trace is missing",
		         (unsigned long long)st.buffers, lf->buffers_written);
		msg_add(w, st.input_size, msg);
	}
	if (lf->end_time && s->have_any && s->last_any > lf->end_time) {
		snprintf(msg, sizeof msg, "The logfile header's EndTime (%s) is earlier than the last event "
		         "(%s): the header was written before the trace ended",
		         etl_filetime_format(lf->end_time, t1, sizeof t1),
		         etl_filetime_format(s->last_any, t2, sizeof t2));
		msg_add(w, lf->file_offset + LF_PAYLOAD + LF_END_TIME, msg);
	}
	if (lf->events_lost) {
		snprintf(msg, sizeof msg, "The session lost %u events (EventsLost in the logfile header): "
		         "they are not in the file", lf->events_lost);
		msg_add(w, lf->file_offset, msg);
	}
	if (lf->buffers_lost) {
		snprintf(msg, sizeof msg, "The session lost %u buffers (BuffersLost in the logfile header): "
		         "their events are not in the file", lf->buffers_lost);
		msg_add(w, lf->file_offset, msg);
	}
}

/* ---- output ------------------------------------------------------------- */

void dump_summary_text(const char *name, etl_reader *r, const struct dump_summary *s,
                       const struct cli_filter *f)
{
	const struct etl_logfile *lf = etl_reader_logfile(r);
	struct etl_reader_stats st;
	char t[ETL_TIME_STRLEN], pbuf[CLI_PROVIDER_STRLEN], ebuf[64];
	etl_reader_stats(r, &st);
	printf("file              %s\n", name);
	printf("buffers           %llu (%llu compressed, %llu damaged)\n",
	       (unsigned long long)st.buffers, (unsigned long long)st.compressed_buffers,
	       (unsigned long long)st.bad_buffers);
	if (st.order_memory_peak)
		printf("time-order memory %llu bytes at most in inflated buffers (--order-memory)\n",
		       (unsigned long long)st.order_memory_peak);
	printf("records           %llu\n", (unsigned long long)s->records);
	if (f->active)
		printf("matching events   %llu\n", (unsigned long long)s->matched);
	printf("first event       %s\n", s->have_time ? etl_filetime_format(s->first, t, sizeof t) : "-");
	printf("last event        %s\n", s->have_time ? etl_filetime_format(s->last, t, sizeof t) : "-");
	if (lf->present) {
		printf("lost              %u events, %u buffers (logfile header)\n", lf->events_lost,
		       lf->buffers_lost);
	} else {
		printf("lost              unknown (no logfile header)\n");
	}
	printf("buffer flags      %llu EVENTS_LOST, %llu BUFFER_LOST\n",
	       (unsigned long long)s->flag_events_lost, (unsigned long long)s->flag_buffer_lost);

	printf("\nheader types\n");
	for (int k = 0; k < ETL_HDR_KIND_COUNT_; k++)
		if (s->kinds[k])
			printf("  %-16s %10llu\n", etl_hdr_kind_name(k), (unsigned long long)s->kinds[k]);
	if (s->any_ext) {
		printf("\nextended item types\n");
		for (unsigned x = 0; x < 65536; x++) {
			if (!s->ext[x])
				continue;
			const char *xn = etl_ext_type_name(x);
			printf("  %5u %-20s %10llu\n", x, xn ? xn : "?", (unsigned long long)s->ext[x]);
		}
	}
	const struct sentry **v = table_sorted(&s->prov);
	if (v) {
		printf("\nproviders\n");
		for (size_t i = 0; i < s->prov.n; i++) {
			const char *pn = entry_provider(v[i], pbuf);
			printf("  %10llu  %s", (unsigned long long)v[i]->count, pn);
			if (v[i]->name && v[i]->key.prov == 0) {
				char g[ETL_GUID_STRLEN];
				printf(" (%s)", etl_guid_format(&v[i]->key.guid, g));
			}
			printf("\n");
		}
		free(v);
	}
	v = table_sorted(&s->evs);
	if (v) {
		printf("\nevents\n");
		for (size_t i = 0; i < s->evs.n; i++) {
			entry_event(v[i], ebuf, sizeof ebuf);
			printf("  %10llu  %-36s %s\n", (unsigned long long)v[i]->count,
			       entry_provider(v[i], pbuf), ebuf);
		}
		free(v);
	}
	printf("\nerrors            %llu\n", (unsigned long long)s->errors.total);
	for (size_t i = 0; i < s->errors.n; i++) {
		printf("  offset 0x%llx: ", (unsigned long long)s->errors.v[i].off);
		cli_text_safe(stdout, s->errors.v[i].text);
		printf("\n");
	}
	if (s->errors.total > s->errors.n)
		printf("  (%llu more not shown)\n", (unsigned long long)(s->errors.total - s->errors.n));
	struct msglist fw;
	file_warnings(r, s, &fw);
	if (s->warnings.total + fw.total) {
		printf("warnings          %llu\n", (unsigned long long)(s->warnings.total + fw.total));
		for (int k = 0; k < 2; k++) {
			const struct msglist *l = k ? &s->warnings : &fw;
			for (size_t i = 0; i < l->n; i++) {
				printf("  offset 0x%llx: ", (unsigned long long)l->v[i].off);
				cli_text_safe(stdout, l->v[i].text);
				printf("\n");
			}
		}
	}
	msg_free(&fw);
}

static void json_time(int have, int64_t ft)
{
	char t[ETL_TIME_STRLEN];
	if (have)
		printf("\"%s\"", etl_filetime_format(ft, t, sizeof t));
	else
		printf("null");
}

/* "key": [...] with the messages of l, then those of more (may be NULL). */
static void json_messages(const char *key, const struct msglist *l, const struct msglist *more)
{
	size_t k = 0;
	printf("  \"%s\": [", key);
	for (int pass = 0; pass < 2; pass++) {
		const struct msglist *m = pass ? more : l;
		for (size_t i = 0; m && i < m->n; i++, k++) {
			printf("%s\n    {\"offset\": %llu, \"message\": ", k ? "," : "",
			       (unsigned long long)m->v[i].off);
			cli_json_string(stdout, m->v[i].text);
			printf("}");
		}
	}
	printf("%s]", k ? "\n  " : "");
}

/* The start of entry i of the providers or event_types array: its
 * provider's GUID (or WPP component) and name. */
static void json_entry_start(size_t i, const struct sentry *e)
{
	char g[ETL_GUID_STRLEN];
	printf("%s\n    {", i ? "," : "");
	if (e->key.prov == 1)
		printf("\"guid\": null, \"component\": %u", (unsigned)e->key.component);
	else
		printf("\"guid\": \"%s\"", etl_guid_format(&e->key.guid, g));
	printf(", \"name\": ");
	cli_json_string(stdout, e->name);
}

void dump_summary_json(const char *name, etl_reader *r, const struct dump_summary *s,
                       const struct cli_filter *f)
{
	const struct etl_logfile *lf = etl_reader_logfile(r);
	struct etl_reader_stats st;
	char modes[512], ebuf[64];
	int first;
	etl_reader_stats(r, &st);
	printf("{\n  \"file\": ");
	cli_json_string(stdout, name);
	printf(",\n  \"buffers\": %llu,\n  \"compressed_buffers\": %llu,\n  \"bad_buffers\": %llu,\n"
	       "  \"order_memory_peak\": %llu,\n"
	       "  \"records\": %llu,\n  \"matched_events\": %llu,\n  \"filtered\": %s,\n",
	       (unsigned long long)st.buffers, (unsigned long long)st.compressed_buffers,
	       (unsigned long long)st.bad_buffers, (unsigned long long)st.order_memory_peak,
	       (unsigned long long)s->records,
	       (unsigned long long)s->matched, f->active ? "true" : "false");

	printf("  \"header_types\": {");
	first = 1;
	for (int k = 0; k < ETL_HDR_KIND_COUNT_; k++) {
		if (!s->kinds[k])
			continue;
		printf("%s\"%s\": %llu", first ? "" : ", ", etl_hdr_kind_name(k),
		       (unsigned long long)s->kinds[k]);
		first = 0;
	}
	printf("},\n  \"ext_item_types\": {");
	first = 1;
	for (unsigned x = 0; s->any_ext && x < 65536; x++) {
		if (!s->ext[x])
			continue;
		printf("%s\"%u\": %llu", first ? "" : ", ", x, (unsigned long long)s->ext[x]);
		first = 0;
	}
	printf("},\n");

	const struct sentry **v = table_sorted(&s->prov);
	printf("  \"providers\": [");
	for (size_t i = 0; v && i < s->prov.n; i++) {
		json_entry_start(i, v[i]);
		printf(", \"count\": %llu}", (unsigned long long)v[i]->count);
	}
	printf("%s],\n", v && s->prov.n ? "\n  " : "");
	free(v);

	v = table_sorted(&s->evs);
	printf("  \"event_types\": [");
	for (size_t i = 0; v && i < s->evs.n; i++) {
		json_entry_start(i, v[i]);
		switch (v[i]->key.what) {
		case 1: printf(", \"id\": %u", v[i]->key.value); break;
		case 3: printf(", \"opcode\": %u, \"hook\": %u", v[i]->key.value, v[i]->key.hook); break;
		default: printf(", \"opcode\": %u", v[i]->key.value); break;
		}
		entry_event(v[i], ebuf, sizeof ebuf);
		printf(", \"event\": \"%s\", \"count\": %llu}", ebuf, (unsigned long long)v[i]->count);
	}
	printf("%s],\n", v && s->evs.n ? "\n  " : "");
	free(v);

	printf("  \"first_event_time\": ");
	json_time(s->have_time, s->first);
	printf(",\n  \"last_event_time\": ");
	json_time(s->have_time, s->last);
	printf(",\n  \"lost\": {\"events_lost\": ");
	if (lf->present)
		printf("%u, \"buffers_lost\": %u", lf->events_lost, lf->buffers_lost);
	else
		printf("null, \"buffers_lost\": null");
	printf(", \"buffers_flagged_events_lost\": %llu, \"buffers_flagged_buffer_lost\": %llu},\n",
	       (unsigned long long)s->flag_events_lost, (unsigned long long)s->flag_buffer_lost);

	printf("  \"logfile\": ");
	if (!lf->present) {
		printf("null,\n");
	} else {
		printf("{\n    \"logger_name\": ");
		cli_json_string(stdout, lf->logger_name ? lf->logger_name : "");
		printf(",\n    \"log_file_name\": ");
		cli_json_string(stdout, lf->log_file_name ? lf->log_file_name : "");
		printf(",\n    \"pointer_size\": %u,\n    \"header_pointer_size\": %u,\n"
		       "    \"build\": %u,\n    \"version\": \"%u.%u.%u.%u\",\n"
		       "    \"log_file_mode\": %u,\n    \"log_file_mode_names\": ",
		       lf->pointer_size, lf->header_ptr_size, lf->provider_version, lf->version[0],
		       lf->version[1], lf->version[2], lf->version[3], lf->log_file_mode);
		cli_json_string(stdout, cli_log_file_mode_names(lf->log_file_mode, modes, sizeof modes));
		printf(",\n    \"clock_type\": %u,\n    \"clock_type_name\": \"%s\",\n"
		       "    \"perf_freq\": %lld,\n    \"cpu_speed_mhz\": %u,\n"
		       "    \"number_of_processors\": %u,\n    \"buffer_size\": %u,\n"
		       "    \"buffers_written\": %u,\n    \"events_lost\": %u,\n    \"buffers_lost\": %u,\n"
		       "    \"timer_resolution\": %u,\n    \"maximum_file_size\": %u,\n",
		       lf->reserved_flags, cli_clock_type_name(lf->reserved_flags),
		       (long long)lf->perf_freq, lf->cpu_speed_mhz, lf->number_of_processors,
		       lf->buffer_size, lf->buffers_written, lf->events_lost, lf->buffers_lost,
		       lf->timer_resolution, lf->maximum_file_size);
		printf("    \"start_time\": ");
		json_time(1, lf->start_time);
		printf(",\n    \"end_time\": ");
		json_time(1, lf->end_time);
		printf(",\n    \"boot_time\": ");
		json_time(1, lf->boot_time);
		printf(",\n    \"time_zone\": {\"bias\": %d, \"standard_name\": ", lf->time_zone.bias);
		cli_json_string(stdout, lf->time_zone.standard_name);
		printf(", \"standard_bias\": %d, \"daylight_name\": ", lf->time_zone.standard_bias);
		cli_json_string(stdout, lf->time_zone.daylight_name);
		printf(", \"daylight_bias\": %d}\n  },\n", lf->time_zone.daylight_bias);
	}
	struct msglist fw;
	file_warnings(r, s, &fw);
	json_messages("errors", &s->errors, NULL);
	printf(",\n  \"errors_total\": %llu,\n", (unsigned long long)s->errors.total);
	json_messages("warnings", &fw, &s->warnings);
	printf(",\n  \"warnings_total\": %llu\n}\n",
	       (unsigned long long)(s->warnings.total + fw.total));
	msg_free(&fw);
}

