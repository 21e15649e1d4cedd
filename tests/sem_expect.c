/*
 * sem_expect.c - expectations on an effective SEM configuration (see
 * sem_expect.h). Failures name the field and both values.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "sem_expect.h"
#include "testutil.h"

etl_sem_config *sx_load(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "testdata/wdi/%s", name);
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_file(path, &err);
	ck_assert_msg(cfg != NULL, "%s: %s", path, err.message);
	return cfg;
}

struct etl_guid sx_guid(const char *text)
{
	struct etl_guid g;
	ck_assert_msg(etl_guid_parse(text, &g) == ETL_OK, "bad GUID in the test: %s", text);
	return g;
}

void sx_diags(const etl_sem_config *cfg, const struct sx_diag *want, size_t n)
{
	size_t got;
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &got);
	for (size_t i = 0; i < got && i < n; i++) {
		ck_assert_msg(strcmp(d[i].rule, want[i].rule) == 0, "diagnostic %zu: rule %s, expected %s (%s: %s)", i,
		              d[i].rule, want[i].rule, d[i].key, d[i].message);
		ck_assert_msg(strcmp(d[i].key, want[i].key) == 0, "diagnostic %zu (%s): key\n  %s\nexpected\n  %s", i,
		              d[i].rule, d[i].key, want[i].key);
		ck_assert_msg(d[i].message[0] != 0, "diagnostic %zu has no message", i);
	}
	ck_assert_msg(got == n, "%zu diagnostics, expected %zu (first extra: %s %s)", got, n,
	              got > n ? d[n].rule : "-", got > n ? d[n].message : "-");
}

static void params(const struct etl_sem_params *p, unsigned level, uint64_t keyword, uint32_t ep, const char *what)
{
	ck_assert_msg(p->level == level, "%s: level %u, expected %u", what, p->level, level);
	ck_assert_msg(p->keyword == keyword, "%s: keyword 0x%llx, expected 0x%llx", what, (unsigned long long)p->keyword,
	              (unsigned long long)keyword);
	ck_assert_msg(p->enable_property == ep, "%s: enable property %u, expected %u", what, p->enable_property, ep);
}

void sx_start(const struct etl_sem_start_event *se, const struct sx_start *w)
{
	char what[96];
	snprintf(what, sizeof what, "start event %s;%u", w->provider, w->id);
	struct etl_guid g = sx_guid(w->provider);
	ck_assert_msg(etl_guid_equal(&se->provider, &g) && se->id == w->id, "%s: found another (id %u)", what, se->id);
	params(&se->params, w->level, w->keyword, w->enable_property, what);
	ck_assert_msg(se->timeout_enabled == w->timeout_enabled, "%s: timeout_enabled %d", what, se->timeout_enabled);
	size_t n = 0;
	for (; w->scenarios[n]; n++) {
		ck_assert_msg(n < se->n_scenarios, "%s: %zu scenarios", what, se->n_scenarios);
		g = sx_guid(w->scenarios[n]);
		ck_assert_msg(etl_guid_equal(&se->scenarios[n], &g), "%s: scenario %zu is not %s", what, n, w->scenarios[n]);
	}
	ck_assert_msg(se->n_scenarios == n, "%s: %zu scenarios, expected %zu", what, se->n_scenarios, n);
	for (n = 0; w->ends[n].provider; n++) {
		ck_assert_msg(n < se->n_end_events, "%s: %zu end events", what, se->n_end_events);
		const struct etl_sem_end_event *e = &se->end_events[n];
		char ew[200];
		snprintf(ew, sizeof ew, "%s, end event %s;%u", what, w->ends[n].provider, w->ends[n].id);
		g = sx_guid(w->ends[n].provider);
		ck_assert_msg(etl_guid_equal(&e->provider, &g) && e->id == w->ends[n].id, "%s: not there (id %u)", ew, e->id);
		params(&e->params, w->ends[n].level, w->ends[n].keyword, w->ends[n].enable_property, ew);
	}
	ck_assert_msg(se->n_end_events == n, "%s: %zu end events, expected %zu", what, se->n_end_events, n);
	for (n = 0; w->ctx[n].provider; n++) {
		ck_assert_msg(n < se->n_context_providers, "%s: %zu context providers", what, se->n_context_providers);
		const struct etl_sem_context_provider *c = &se->context_providers[n];
		char cw[200];
		snprintf(cw, sizeof cw, "%s, context provider %s", what, w->ctx[n].provider);
		g = sx_guid(w->ctx[n].provider);
		ck_assert_msg(etl_guid_equal(&c->provider, &g), "%s: not there", cw);
		params(&c->params, w->ctx[n].level, w->ctx[n].keyword, w->ctx[n].enable_property, cw);
		ck_assert_msg(c->capture_state == w->ctx[n].capture_state, "%s: capture_state %d", cw, c->capture_state);
	}
	ck_assert_msg(se->n_context_providers == n, "%s: %zu context providers, expected %zu", what,
	              se->n_context_providers, n);
}

void sx_starts(const etl_sem_config *cfg, const struct sx_start *want, size_t n)
{
	size_t got;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &got);
	ck_assert_msg(got == n, "%zu start events, expected %zu", got, n);
	for (size_t i = 0; i < n; i++)
		sx_start(&se[i], &want[i]);
}

etl_sem_config *sx_check(const char *name, const struct sx_diag *d, size_t nd, const struct sx_start *s, size_t ns)
{
	etl_sem_config *cfg = sx_load(name);
	sx_diags(cfg, d, nd);
	sx_starts(cfg, s, ns);
	return cfg;
}

struct membuf {
	char *p;
	size_t n;
};

static int mem_write(void *ctx, const void *data, size_t n)
{
	struct membuf *m = ctx;
	char *p = realloc(m->p, m->n + n + 1);
	if (!p)
		return -1;
	memcpy(p + m->n, data, n);
	m->p = p;
	m->n += n;
	m->p[m->n] = 0;
	return 0;
}

char *sx_json(const etl_sem_config *cfg)
{
	struct membuf m = { NULL, 0 };
	ck_assert_int_eq(etl_sem_config_write_json(cfg, mem_write, &m), 0);
	return m.p;
}
