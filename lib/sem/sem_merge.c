/*
 * lib/sem/sem_merge.c - checked start-event definitions into the
 * effective configuration (doc/sem.md §3.7 and §3.8).
 *
 * Scenarios that share a start event become one start event: its
 * scenarios listed, its end events and context providers united, the
 * parameters of anything named twice combined (level maximum, keyword
 * OR, enable property OR). The limits are applied as definitions arrive,
 * in the order the rules read them: a 65th distinct start event, a 17th
 * end event or a 125th context provider of one start event, or a
 * definition that would bring in a 1025th distinct provider is dropped,
 * diagnosed and recorded for the engine's status events 38-41. A new
 * start event whose every end event a limit dropped could never start:
 * it is dropped too (as a start event).
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/sem/sem_internal.h"

struct mstart {
	struct etl_sem_start_event se;      /* provider, id, params, timeout */
	struct etl_guid *scen;
	size_t n_scen;
	struct etl_sem_end_event *ends;     /* room for ETL_SEM_MAX_END_EVENTS */
	size_t n_ends;
	struct etl_sem_context_provider *ctx; /* room for the maximum too   */
	size_t n_ctx;
};

struct etl__sem_merge {
	struct mstart starts[ETL_SEM_MAX_START_EVENTS];
	size_t n;
	struct etl_guid provs[ETL_SEM_MAX_PROVIDERS];   /* distinct, in use  */
	size_t n_provs;
	struct etl_sem_dropped *dropped;
	size_t n_dropped, cap_dropped;
};

void etl_sem_params_combine(struct etl_sem_params *acc, const struct etl_sem_params *p)
{
	if (p->level > acc->level)
		acc->level = p->level;
	acc->keyword |= p->keyword;
	acc->enable_property |= p->enable_property;
}

struct etl__sem_merge *etl__sem_merge_new(void)
{
	return calloc(1, sizeof(struct etl__sem_merge));
}

static void mstart_free(struct mstart *s)
{
	free(s->scen);
	free(s->ends);
	free(s->ctx);
	memset(s, 0, sizeof *s);
}

void etl__sem_merge_free(struct etl__sem_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		mstart_free(&m->starts[i]);
	for (size_t i = 0; i < m->n_dropped; i++)
		free((char *)m->dropped[i].key);
	free(m->dropped);
	free(m);
}

static int known(const struct etl__sem_merge *m, const struct etl_guid *g)
{
	for (size_t i = 0; i < m->n_provs; i++)
		if (etl_guid_equal(&m->provs[i], g))
			return 1;
	return 0;
}

/* Counts g as a provider in use. @return : 1 when it is (or already
 * was), 0 when it would pass the provider limit. *added says it was new. */
static int use_provider(struct etl__sem_merge *m, const struct etl_guid *g, int *added)
{
	*added = 0;
	if (known(m, g))
		return 1;
	if (m->n_provs == ETL_SEM_MAX_PROVIDERS)
		return 0;
	m->provs[m->n_provs++] = *g;
	*added = 1;
	return 1;
}

static const char *KIND_NAMES[] = {
	[ETL_SEM_DROP_START_EVENT - 38] = "start event",
	[ETL_SEM_DROP_CONTEXT_PROVIDER - 38] = "context provider",
	[ETL_SEM_DROP_END_EVENT - 38] = "end event",
};

/* Records a dropped definition and its diagnostic. what_kind is the kind of
 * definition (start, context provider, end); kind what the engine reports
 * (the same, or ETL_SEM_DROP_PROVIDER). @return : -1 on out-of-memory. */
static int drop(struct etl__sem_merge *m, struct etl__sem_diags *d, int kind, int what_kind,
                const struct etl_guid *g, uint16_t id, const struct etl_guid *scen, const char *key,
                const char *rule, const char *why)
{
	if (m->n_dropped == m->cap_dropped) {
		size_t cap = m->cap_dropped ? m->cap_dropped * 2 : 8;
		struct etl_sem_dropped *v = realloc(m->dropped, cap * sizeof *v);
		if (!v)
			return -1;
		m->dropped = v;
		m->cap_dropped = cap;
	}
	char *k = strdup(key);
	if (!k)
		return -1;
	struct etl_sem_dropped *x = &m->dropped[m->n_dropped++];
	x->kind = kind;
	x->provider = *g;
	x->id = what_kind == ETL_SEM_DROP_CONTEXT_PROVIDER ? 0 : id;
	x->scenario = *scen;
	x->key = k;
	char gt[ETL_SEM_GUID_TEXT], st[ETL_SEM_GUID_TEXT];
	etl__sem_guid_text(g, gt);
	etl__sem_guid_text(scen, st);
	if (what_kind == ETL_SEM_DROP_CONTEXT_PROVIDER)
		etl__sem_diag_add(d, key, rule, "%s: %s %s of scenario %s dropped", why,
		                  KIND_NAMES[what_kind - 38], gt, st);
	else
		etl__sem_diag_add(d, key, rule, "%s: %s %s;%u of scenario %s dropped", why,
		                  KIND_NAMES[what_kind - 38], gt, (unsigned)id, st);
	return 0;
}

static int add_scenario(struct mstart *s, const struct etl_guid *g)
{
	for (size_t i = 0; i < s->n_scen; i++)
		if (etl_guid_equal(&s->scen[i], g))
			return 0;
	struct etl_guid *v = realloc(s->scen, (s->n_scen + 1) * sizeof *v);
	if (!v)
		return -1;
	s->scen = v;
	s->scen[s->n_scen++] = *g;
	return 0;
}

static int add_ends(struct etl__sem_merge *m, struct mstart *s, const struct etl__sem_def *def,
                    struct etl__sem_diags *d)
{
	for (size_t i = 0; i < def->n_ends; i++) {
		const struct etl_sem_end_event *e = &def->ends[i];
		size_t k = 0;
		while (k < s->n_ends && !(etl_guid_equal(&s->ends[k].provider, &e->provider) && s->ends[k].id == e->id))
			k++;
		if (k < s->n_ends) {
			etl_sem_params_combine(&s->ends[k].params, &e->params);
			continue;
		}
		int added, rc = 0;
		if (s->n_ends == ETL_SEM_MAX_END_EVENTS)
			rc = drop(m, d, ETL_SEM_DROP_END_EVENT, ETL_SEM_DROP_END_EVENT, &e->provider, e->id, &def->scenario,
			          def->end_keys[i], "limit_end_events", "the start event already has 16 end events");
		else if (!use_provider(m, &e->provider, &added))
			rc = drop(m, d, ETL_SEM_DROP_PROVIDER, ETL_SEM_DROP_END_EVENT, &e->provider, e->id, &def->scenario,
			          def->end_keys[i], "limit_providers", "1024 distinct providers are in use");
		else
			s->ends[s->n_ends++] = *e;
		if (rc)
			return -1;
	}
	return 0;
}

static int add_context(struct etl__sem_merge *m, struct mstart *s, const struct etl__sem_def *def,
                       struct etl__sem_diags *d)
{
	for (size_t i = 0; i < def->n_ctx; i++) {
		const struct etl_sem_context_provider *c = &def->ctx[i];
		size_t k = 0;
		while (k < s->n_ctx && !etl_guid_equal(&s->ctx[k].provider, &c->provider))
			k++;
		if (k < s->n_ctx) {
			etl_sem_params_combine(&s->ctx[k].params, &c->params);
			s->ctx[k].capture_state |= c->capture_state;
			continue;
		}
		int added, rc = 0;
		if (s->n_ctx == ETL_SEM_MAX_CONTEXT_PROVIDERS)
			rc = drop(m, d, ETL_SEM_DROP_CONTEXT_PROVIDER, ETL_SEM_DROP_CONTEXT_PROVIDER, &c->provider, 0,
			          &def->scenario, def->ctx_keys[i], "limit_context_providers",
			          "the start event already has 124 context providers");
		else if (!use_provider(m, &c->provider, &added))
			rc = drop(m, d, ETL_SEM_DROP_PROVIDER, ETL_SEM_DROP_CONTEXT_PROVIDER, &c->provider, 0, &def->scenario,
			          def->ctx_keys[i], "limit_providers", "1024 distinct providers are in use");
		else
			s->ctx[s->n_ctx++] = *c;
		if (rc)
			return -1;
	}
	return 0;
}

int etl__sem_merge_add(struct etl__sem_merge *m, const struct etl__sem_def *def, struct etl__sem_diags *d)
{
	const struct etl_sem_end_event *st = &def->start;
	size_t k = 0;
	while (k < m->n && !(etl_guid_equal(&m->starts[k].se.provider, &st->provider) && m->starts[k].se.id == st->id))
		k++;
	struct mstart *s = &m->starts[k];
	int fresh = k == m->n, added = 0;
	if (fresh) {
		if (m->n == ETL_SEM_MAX_START_EVENTS)
			return drop(m, d, ETL_SEM_DROP_START_EVENT, ETL_SEM_DROP_START_EVENT, &st->provider, st->id,
			            &def->scenario, def->key, "limit_start_events", "64 distinct start events are defined");
		if (!use_provider(m, &st->provider, &added))
			return drop(m, d, ETL_SEM_DROP_PROVIDER, ETL_SEM_DROP_START_EVENT, &st->provider, st->id,
			            &def->scenario, def->key, "limit_providers", "1024 distinct providers are in use");
		s->ends = malloc(ETL_SEM_MAX_END_EVENTS * sizeof *s->ends);
		s->ctx = malloc(ETL_SEM_MAX_CONTEXT_PROVIDERS * sizeof *s->ctx);
		if (!s->ends || !s->ctx) {
			mstart_free(s);
			return -1;
		}
		s->se.provider = st->provider;
		s->se.id = st->id;
		s->se.params = st->params;
		s->se.timeout_enabled = def->timeout_enabled;
		m->n++;
	} else {
		etl_sem_params_combine(&s->se.params, &st->params);
		s->se.timeout_enabled &= def->timeout_enabled;
	}
	if (add_scenario(s, &def->scenario) != 0 || add_ends(m, s, def, d) != 0)
		return -1;
	if (fresh && !s->n_ends) {
		/* Every end event fell to a limit: nothing could end it. Its own
		 * provider, counted above, was the last one counted. */
		if (added)
			m->n_provs--;
		mstart_free(s);
		m->n--;
		return drop(m, d, ETL_SEM_DROP_START_EVENT, ETL_SEM_DROP_START_EVENT, &st->provider, st->id, &def->scenario,
		            def->key, "limit_end_events", "every end event was dropped by a limit");
	}
	return add_context(m, s, def, d);
}

/* ---- the result, sorted ---------------------------------------------------- */

/* qsort() for arrays that may be empty (and then NULL). */
static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

static int cmp_guid(const void *a, const void *b)
{
	return etl__sem_guid_cmp(a, b);
}

static int cmp_end(const void *a, const void *b)
{
	const struct etl_sem_end_event *x = a, *y = b;
	int c = etl__sem_guid_cmp(&x->provider, &y->provider);
	return c ? c : (int)x->id - (int)y->id;
}

static int cmp_start(const void *a, const void *b)
{
	const struct etl_sem_start_event *x = a, *y = b;
	int c = etl__sem_guid_cmp(&x->provider, &y->provider);
	return c ? c : (int)x->id - (int)y->id;
}

/* Provider first in every struct below: one comparison serves them all. */
static int cmp_provider(const void *a, const void *b)
{
	return etl__sem_guid_cmp(a, b);
}

/* Combines (g, p) into the DiagLog list v of *n entries. */
static void diaglog_add(struct etl_sem_provider *v, size_t *n, const struct etl_guid *g,
                        const struct etl_sem_params *p)
{
	for (size_t i = 0; i < *n; i++) {
		if (etl_guid_equal(&v[i].provider, g)) {
			etl_sem_params_combine(&v[i].params, p);
			return;
		}
	}
	v[*n].provider = *g;
	v[*n].params = *p;
	(*n)++;
}

int etl__sem_merge_finish(struct etl__sem_merge *m, struct etl_sem_config *cfg)
{
	size_t total = 0;
	for (size_t i = 0; i < m->n; i++)
		total += 1 + m->starts[i].n_ends;
	cfg->starts = m->n ? calloc(m->n, sizeof *cfg->starts) : NULL;
	cfg->diaglog = total ? calloc(total, sizeof *cfg->diaglog) : NULL;
	if ((m->n && !cfg->starts) || (total && !cfg->diaglog)) {
		etl__sem_merge_free(m);
		return -1;
	}
	for (size_t i = 0; i < m->n; i++) {
		struct mstart *s = &m->starts[i];
		struct etl_sem_start_event *o = &cfg->starts[i];
		*o = s->se;
		sort(s->scen, s->n_scen, sizeof *s->scen, cmp_guid);
		sort(s->ends, s->n_ends, sizeof *s->ends, cmp_end);
		sort(s->ctx, s->n_ctx, sizeof *s->ctx, cmp_provider);
		o->scenarios = s->scen;
		o->n_scenarios = s->n_scen;
		o->end_events = s->ends;
		o->n_end_events = s->n_ends;
		o->context_providers = s->n_ctx ? s->ctx : NULL;
		o->n_context_providers = s->n_ctx;
		if (!s->n_ctx)
			free(s->ctx);
		diaglog_add(cfg->diaglog, &cfg->n_diaglog, &o->provider, &o->params);
		for (size_t k = 0; k < s->n_ends; k++)
			diaglog_add(cfg->diaglog, &cfg->n_diaglog, &s->ends[k].provider, &s->ends[k].params);
		memset(s, 0, sizeof *s);
	}
	cfg->n_starts = m->n;
	m->n = 0;
	sort(cfg->starts, cfg->n_starts, sizeof *cfg->starts, cmp_start);
	sort(cfg->diaglog, cfg->n_diaglog, sizeof *cfg->diaglog, cmp_provider);
	cfg->dropped = m->dropped;
	cfg->n_dropped = m->n_dropped;
	m->dropped = NULL;
	m->n_dropped = 0;
	etl__sem_merge_free(m);
	return 0;
}
