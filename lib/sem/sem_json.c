/*
 * lib/sem/sem_json.c - the effective SEM configuration as one JSON object,
 * the contract of doc/sem.md §6 (etlreplay --check-config --json
 * prints it; tests read it back), and the report of a SEM's instances,
 * the contract of doc/sem.md §13 (etlreplay --report writes it).
 *
 * The layout is fixed so that line-oriented tools can rely on it too:
 * two-space indentation, one start event member per line, and each end
 * event, context provider, DiagLog provider, disabled scenario and
 * diagnostic on a line of its own. GUIDs are upper-case and braced, as
 * the registry names them; keywords are "0x" and upper-case hex digits.
 * Strings go through etl_json_escape(), so the output is valid JSON
 * whatever bytes a key name holds.
 */
#define ETL_BUILDING_LIB 1
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "etl_output.h"
#include "etl_sem.h"
#include "lib/sem/sem_internal.h"

struct jw {
	etl_sem_write_fn write;
	void *ctx;
	int failed;
};

static void put(struct jw *w, const char *s, size_t n)
{
	if (!w->failed && n && w->write(w->ctx, s, n) != 0)
		w->failed = 1;
}

static void text(struct jw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void printed(struct jw *w, const char *fmt, ...) ETL_SEM_PRINTF(2, 3);
static void printed(struct jw *w, const char *fmt, ...)
{
	char buf[512];            /* every format below is far shorter */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		put(w, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void string(struct jw *w, const char *s)
{
	if (!s)
		text(w, "null");
	else if (!w->failed && etl_json_escape(s, strlen(s), 0, w->write, w->ctx) != 0)
		w->failed = 1;
}

static void guid(struct jw *w, const struct etl_guid *g)
{
	char t[ETL_SEM_GUID_TEXT];
	printed(w, "\"%s\"", etl__sem_guid_text(g, t));
}

/* "level": L, "keyword": "0x..", "enable_property": P */
static void params(struct jw *w, const struct etl_sem_params *p)
{
	printed(w, "\"level\": %u, \"keyword\": \"0x%" PRIX64 "\", \"enable_property\": %" PRIu32, (unsigned)p->level,
	        p->keyword, p->enable_property);
}

/* The items of a list: opens with "[", each on its own line at indent,
 * closes with "]" at indent - 2 (or "[]" for none). */
static void list_open(struct jw *w, size_t n)
{
	text(w, n ? "[\n" : "[]");
}

static void item_sep(struct jw *w, size_t i, size_t n, const char *indent)
{
	text(w, i + 1 < n ? ",\n" : "\n");
	if (i + 1 == n) {
		put(w, indent, strlen(indent) - 2);
		text(w, "]");
	}
}

static void start_event(struct jw *w, const struct etl_sem_start_event *s)
{
	text(w, "    {\n      \"provider\": ");
	guid(w, &s->provider);
	printed(w, ",\n      \"id\": %u,\n      \"scenarios\": [", (unsigned)s->id);
	for (size_t i = 0; i < s->n_scenarios; i++) {
		if (i)
			text(w, ", ");
		guid(w, &s->scenarios[i]);
	}
	printed(w, "],\n      \"level\": %u,\n      \"keyword\": \"0x%" PRIX64 "\",\n      \"enable_property\": %" PRIu32
	        ",\n      \"timeout_enabled\": %s,\n      \"end_events\": ", (unsigned)s->params.level, s->params.keyword,
	        s->params.enable_property, s->timeout_enabled ? "true" : "false");
	list_open(w, s->n_end_events);
	for (size_t i = 0; i < s->n_end_events; i++) {
		const struct etl_sem_end_event *e = &s->end_events[i];
		text(w, "        {\"provider\": ");
		guid(w, &e->provider);
		printed(w, ", \"id\": %u, ", (unsigned)e->id);
		params(w, &e->params);
		text(w, "}");
		item_sep(w, i, s->n_end_events, "        ");
	}
	text(w, ",\n      \"context_providers\": ");
	list_open(w, s->n_context_providers);
	for (size_t i = 0; i < s->n_context_providers; i++) {
		const struct etl_sem_context_provider *c = &s->context_providers[i];
		text(w, "        {\"provider\": ");
		guid(w, &c->provider);
		text(w, ", ");
		params(w, &c->params);
		printed(w, ", \"capture_state\": %s}", c->capture_state ? "true" : "false");
		item_sep(w, i, s->n_context_providers, "        ");
	}
	text(w, "\n    }");
}

int etl_sem_config_write_json(const etl_sem_config *cfg, etl_sem_write_fn write, void *ctx)
{
	if (!cfg || !write)
		return -1;
	struct jw w = { write, ctx, 0 };
	printed(&w, "{\n  \"enabled\": %s,\n  \"disabled_reason\": ", cfg->off_reason == ETL_SEM_ON ? "true" : "false");
	string(&w, cfg->off_reason == ETL_SEM_ON ? NULL : cfg->off_message);
	printed(&w, ",\n  \"timeout_minutes\": %" PRIu32 ",\n  \"housekeeping_seconds\": %" PRIu64
	        ",\n  \"start_events\": ", cfg->timeout_minutes, cfg->housekeeping_seconds);
	list_open(&w, cfg->n_starts);
	for (size_t i = 0; i < cfg->n_starts; i++) {
		start_event(&w, &cfg->starts[i]);
		item_sep(&w, i, cfg->n_starts, "    ");
	}
	text(&w, ",\n  \"diaglog_providers\": ");
	list_open(&w, cfg->n_diaglog);
	for (size_t i = 0; i < cfg->n_diaglog; i++) {
		text(&w, "    {\"provider\": ");
		guid(&w, &cfg->diaglog[i].provider);
		text(&w, ", ");
		params(&w, &cfg->diaglog[i].params);
		text(&w, "}");
		item_sep(&w, i, cfg->n_diaglog, "    ");
	}
	text(&w, ",\n  \"disabled_scenarios\": ");
	list_open(&w, cfg->n_disabled);
	for (size_t i = 0; i < cfg->n_disabled; i++) {
		text(&w, "    {\"scenario\": ");
		guid(&w, &cfg->disabled[i].scenario);
		printed(&w, ", \"by\": \"%s\"}", cfg->disabled[i].by == ETL_SEM_BY_POLICY ? "policy" : "config");
		item_sep(&w, i, cfg->n_disabled, "    ");
	}
	text(&w, ",\n  \"diagnostics\": ");
	list_open(&w, cfg->n_diags);
	for (size_t i = 0; i < cfg->n_diags; i++) {
		text(&w, "    {\"key\": ");
		string(&w, cfg->diags[i].key);
		text(&w, ", \"rule\": ");
		string(&w, cfg->diags[i].rule);
		text(&w, ", \"message\": ");
		string(&w, cfg->diags[i].message);
		text(&w, "}");
		item_sep(&w, i, cfg->n_diags, "    ");
	}
	text(&w, "\n}\n");
	return w.failed ? -1 : 0;
}

/* {"provider": "{GUID}", "id": N, "time": "ISO 8601 UTC"} */
static void report_event(struct jw *w, const struct etl_sem_report_event *e)
{
	char t[ETL_TIME_STRLEN];
	text(w, "{\"provider\": ");
	guid(w, &e->provider);
	printed(w, ", \"id\": %u, \"time\": \"%s\"}", (unsigned)e->id, etl_filetime_format(e->time, t, sizeof t));
}

static const char *const STATUS_NAMES[] = { "open", "ended", "timeout" };

static void report_instance(struct jw *w, const struct etl_sem_instance_report *x)
{
	text(w, "    {\"scenarios\": [");
	for (size_t i = 0; i < x->n_scenarios; i++) {
		if (i)
			text(w, ", ");
		guid(w, &x->scenarios[i]);
	}
	text(w, "], \"activity_id\": ");
	guid(w, &x->activity);
	text(w, ", \"start\": ");
	report_event(w, &x->start);
	text(w, ", \"end\": ");
	if (x->status == ETL_SEM_INSTANCE_ENDED)
		report_event(w, &x->end);
	else
		text(w, "null");
	int st = x->status >= 0 && x->status <= ETL_SEM_INSTANCE_TIMED_OUT ? x->status : 0;
	printed(w, ", \"status\": \"%s\", \"duration_ms\": ", STATUS_NAMES[st]);
	if (x->duration < 0)
		text(w, "null");
	else
		printed(w, "%" PRId64, x->duration / 10000);
	text(w, ", \"context_events\": {");
	for (size_t i = 0; i < x->n_context; i++) {
		if (i)
			text(w, ", ");
		guid(w, &x->context[i].provider);
		printed(w, ": %" PRIu64, x->context[i].events);
	}
	text(w, "}}");
}

int etl_sem_report_write_json(const struct etl_sem_report *r, etl_sem_write_fn write, void *ctx)
{
	if (!r || !write)
		return -1;
	struct jw w = { write, ctx, 0 };
	text(&w, "{\n  \"instances\": ");
	list_open(&w, r->n_instances);
	for (size_t i = 0; i < r->n_instances; i++) {
		report_instance(&w, &r->instances[i]);
		item_sep(&w, i, r->n_instances, "    ");
	}
	printed(&w, ",\n  \"diaglog_events\": %" PRIu64 ",\n  \"wdicontextlog_events\": %" PRIu64
	        ",\n  \"lost_events\": %" PRIu64 "\n}\n", r->diaglog_events, r->wdicontextlog_events, r->lost_events);
	return w.failed ? -1 : 0;
}

static int file_write(void *ctx, const void *data, size_t n)
{
	return fwrite(data, 1, n, (FILE *)ctx) == n ? 0 : -1;
}

int etl_sem_config_print_json(const etl_sem_config *cfg, FILE *out)
{
	if (!out)
		return -1;
	return etl_sem_config_write_json(cfg, file_write, out);
}
