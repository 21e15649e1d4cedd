/*
 * lib/sem/sem_context.c - the context providers on WdiContextLog: each is
 * enabled while at least one instance that names it runs, with its
 * parameters combined over the instances running (level = maximum,
 * keyword = OR, enable property = OR: etl_sem_params_combine()), and
 * disabled when the last one ends (doc/sem.md §10).
 *
 * Instances of one start event name the same providers with the same
 * parameters, so the combination is taken over the start events with
 * instances in flight, read from the configuration through the
 * references each provider keeps (which start event, which entry); it is
 * recomputed rather than undone because a maximum and an OR cannot be
 * taken back.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/sem/engine_internal.h"
#include "lib/sem/sem_internal.h"

struct triple {
	struct etl_guid guid;
	struct etl__sem_ref ref;
};

static int cmp_triple(const void *a, const void *b)
{
	const struct triple *x = a, *y = b;
	int c = etl__sem_guid_cmp(&x->guid, &y->guid);
	if (c)
		return c;
	if (x->ref.start != y->ref.start)
		return x->ref.start < y->ref.start ? -1 : 1;
	return x->ref.ctx < y->ref.ctx ? -1 : x->ref.ctx > y->ref.ctx;
}

int etl__sem_ctx_build(struct etl__sem_context *c, etl_session *session, const etl_sem_config *cfg)
{
	memset(c, 0, sizeof *c);
	c->session = session;
	c->cfg = cfg;
	size_t n_starts, total = 0;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n_starts);
	for (size_t i = 0; i < n_starts; i++)
		total += se[i].n_context_providers;
	c->n_starts = n_starts;
	c->map = calloc(n_starts ? n_starts : 1, sizeof *c->map);
	struct triple *t = calloc(total ? total : 1, sizeof *t);
	c->refs = calloc(total ? total : 1, sizeof *c->refs);
	c->v = calloc(total ? total : 1, sizeof *c->v);
	if (!c->map || !t || !c->refs || !c->v) {
		free(t);
		etl__sem_ctx_free(c);
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < n_starts; i++) {
		c->map[i] = calloc(se[i].n_context_providers ? se[i].n_context_providers : 1, sizeof **c->map);
		if (!c->map[i]) {
			free(t);
			etl__sem_ctx_free(c);
			return -1;
		}
		for (size_t j = 0; j < se[i].n_context_providers; j++, k++) {
			t[k].guid = se[i].context_providers[j].provider;
			t[k].ref.start = (uint32_t)i;
			t[k].ref.ctx = (uint32_t)j;
		}
	}
	if (total > 1)
		qsort(t, total, sizeof *t, cmp_triple);
	for (size_t i = 0; i < total; i++) {
		if (i == 0 || !etl_guid_equal(&t[i].guid, &t[i - 1].guid)) {
			c->v[c->n].guid = t[i].guid;
			c->v[c->n].first = i;
			c->n++;
		}
		struct etl__sem_cprov *p = &c->v[c->n - 1];
		p->n_refs++;
		c->refs[i] = t[i].ref;
		c->map[t[i].ref.start][t[i].ref.ctx] = (uint32_t)(c->n - 1);
	}
	free(t);
	return 0;
}

void etl__sem_ctx_free(struct etl__sem_context *c)
{
	for (size_t i = 0; c->map && i < c->n_starts; i++)
		free(c->map[i]);
	free(c->map);
	free(c->refs);
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* The parameters of p combined over the start events in flight that name
 * it; 0 when none does. */
static int combined(const struct etl__sem_context *c, const struct etl__sem_cprov *p, const uint32_t *per_start,
                    struct etl_sem_params *out)
{
	size_t n_starts;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(c->cfg, &n_starts);
	int any = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = p->first; i < p->first + p->n_refs; i++) {
		const struct etl__sem_ref *r = &c->refs[i];
		if (!per_start[r->start])
			continue;
		const struct etl_sem_params *q = &se[r->start].context_providers[r->ctx].params;
		if (!any)
			*out = *q;
		else
			etl_sem_params_combine(out, q);
		any = 1;
	}
	return any;
}

static int same_params(const struct etl_sem_params *a, const struct etl_sem_params *b)
{
	return a->level == b->level && a->keyword == b->keyword && a->enable_property == b->enable_property;
}

/* Enables p on WdiContextLog with q. @return : the NTSTATUS. */
static uint32_t enable(struct etl__sem_context *c, struct etl__sem_cprov *p, const struct etl_sem_params *q)
{
	struct etl_enable_params e;
	etl__sem_enable_params(q, &e);
	if (etl_session_enable(c->session, &p->guid, &e) != ETL_OK)
		return etl__sem_ntstatus_of(etl_session_errcode(c->session));
	if (!p->enabled)
		c->n_enabled++;
	p->enabled = 1;
	p->cur = *q;
	return ETL_SEM_STATUS_SUCCESS;
}

static uint32_t disable(struct etl__sem_context *c, struct etl__sem_cprov *p)
{
	uint32_t st = ETL_SEM_STATUS_SUCCESS;
	if (p->enabled) {
		if (etl_session_disable(c->session, &p->guid) != ETL_OK)
			st = etl__sem_ntstatus_of(etl_session_errcode(c->session));
		c->n_enabled--;
	}
	p->enabled = 0;
	memset(&p->cur, 0, sizeof p->cur);
	return st;
}

void etl__sem_ctx_apply(struct etl__sem_context *c, uint32_t start, const uint32_t *per_start, int starting,
                        struct etl__sem_action *out)
{
	size_t n_starts;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(c->cfg, &n_starts);
	const struct etl_sem_start_event *s = &se[start];
	for (size_t j = 0; j < s->n_context_providers; j++) {
		struct etl__sem_cprov *p = &c->v[c->map[start][j]];
		struct etl_sem_params q;
		uint32_t st = ETL_SEM_STATUS_SUCCESS;
		if (!combined(c, p, per_start, &q))
			st = disable(c, p);
		else if (!p->enabled || !same_params(&p->cur, &q))
			st = enable(c, p, &q);
		if (starting && st == ETL_SEM_STATUS_SUCCESS && s->context_providers[j].capture_state &&
		    etl_session_capture_state(c->session, &p->guid) != ETL_OK)
			st = etl__sem_ntstatus_of(etl_session_errcode(c->session));
		out[j].provider = p->guid;
		out[j].params = p->cur;
		out[j].status = st;
	}
}
