/*
 * lib/sem/sem_run.c - the SEM while it runs on a configuration (doc/sem.md
 * §10): coming up (the DiagLog providers enabled, the configuration's
 * status events written), instances started by a start event, ended by an
 * end event, by a timeout at a housekeeping tick, or by the SEM going down
 * (update, stop), and the status event that says each; each also goes
 * into the report's history (lib/sem/sem_report.c). For a replay
 * (doc/sem.md §13): the end event with a zero activity id that ends the
 * oldest instance it can, and the context events counted per instance.
 *
 * Every function here runs with the engine's lock held (sem_engine.c and
 * sem_scenario.c take it): one instance table, one set of context
 * providers, changed by one thread at a time.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/sem/engine_internal.h"
#include "lib/sem/sem_internal.h"

static int is_zero(const struct etl_guid *g)
{
	static const struct etl_guid zero;
	return memcmp(g, &zero, sizeof zero) == 0;
}

static int cmp_evkey(const void *a, const void *b)
{
	const struct etl__sem_evkey *x = a, *y = b;
	int c = etl__sem_guid_cmp(&x->provider, &y->provider);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void status_counted(struct etl_sem *sem)
{
	sem->st.status_events++;
}

/* ---- coming up, going down ------------------------------------------------ */

/* 42 for a definition the rules rejected: the GUID and id its key names
 * (zero where the name does not hold them) and why, as an NTSTATUS. Only
 * rejected start events, end events and context providers count: the
 * limits have their own events (38-41), and the other diagnostics reject
 * no definition. */
static void misconfig_from_diag(struct etl_sem *sem, const struct etl_sem_diag *d)
{
	const char *r = d->rule;
	if (strncmp(r, "start_", 6) != 0 && strncmp(r, "end_", 4) != 0 && strncmp(r, "context_", 8) != 0)
		return;
	uint32_t st;
	size_t n = strlen(r);
	if (n > 9 && strcmp(r + n - 9, "_too_long") == 0)
		st = ETL_SEM_STATUS_NAME_TOO_LONG;
	else if (strstr(r, "_name_") || strcmp(r, "start_placeholder") == 0)
		st = ETL_SEM_STATUS_OBJECT_NAME_INVALID;
	else
		st = ETL_SEM_STATUS_INVALID_PARAMETER;
	/* The name is the key's last component: "{guid};id" or "{guid}". */
	const char *name = strrchr(d->key, '\\');
	name = name ? name + 1 : d->key;
	struct etl_guid g;
	memset(&g, 0, sizeof g);
	uint16_t id = 0;
	char head[ETL_SEM_GUID_TEXT];
	const char *semi = strchr(name, ';');
	size_t hl = semi ? (size_t)(semi - name) : strlen(name);
	if (hl < sizeof head) {
		memcpy(head, name, hl);
		head[hl] = 0;
		if (!etl__sem_parse_braced_guid(head, &g))
			memset(&g, 0, sizeof g);
	}
	if (semi) {
		unsigned long v = strtoul(semi + 1, NULL, 10);
		id = v <= 0xFFFF ? (uint16_t)v : 0;
	}
	etl__sem_status_ntstatus(&sem->wdi, ETL_SEM_EV_MISCONFIG, NULL, &g, id, st);
	status_counted(sem);
}

/* The configuration's own status events: a SEM switched off by a fault
 * (42, zero GUID), the definitions the limits dropped (38-41, in the order
 * they were dropped), the rejected definitions (42, in diagnostic order). */
static void config_events(struct etl_sem *sem)
{
	const etl_sem_config *cfg = sem->cfg;
	static const struct etl_guid zero;
	switch (etl_sem_config_disabled_reason(cfg)) {
	case ETL_SEM_OFF_POLICY_NAME:
	case ETL_SEM_OFF_SCENARIO_NAME:
		etl__sem_status_ntstatus(&sem->wdi, ETL_SEM_EV_MISCONFIG, NULL, &zero, 0, ETL_SEM_STATUS_NAME_TOO_LONG);
		status_counted(sem);
		break;
	case ETL_SEM_OFF_TOO_MANY_DISABLED:
		etl__sem_status_ntstatus(&sem->wdi, ETL_SEM_EV_MISCONFIG, NULL, &zero, 0,
		                         ETL_SEM_STATUS_INSUFFICIENT_RESOURCES);
		status_counted(sem);
		break;
	default:
		break;
	}
	size_t n;
	const struct etl_sem_dropped *dr = etl_sem_config_dropped(cfg, &n);
	for (size_t i = 0; i < n; i++) {
		etl__sem_status_event(&sem->wdi, dr[i].kind, NULL, &dr[i].provider, dr[i].id);
		status_counted(sem);
	}
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
	for (size_t i = 0; i < n; i++)
		misconfig_from_diag(sem, &d[i]);
}

/* Every end event of the configuration, sorted, to tell an end event from
 * any other event at once. */
static int build_ends(struct etl_sem *sem)
{
	size_t n_starts, total = 0;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(sem->cfg, &n_starts);
	for (size_t i = 0; i < n_starts; i++)
		total += se[i].n_end_events;
	sem->ends = calloc(total ? total : 1, sizeof *sem->ends);
	if (!sem->ends)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < n_starts; i++)
		for (size_t j = 0; j < se[i].n_end_events; j++, k++) {
			sem->ends[k].provider = se[i].end_events[j].provider;
			sem->ends[k].id = se[i].end_events[j].id;
		}
	if (total > 1)
		qsort(sem->ends, total, sizeof *sem->ends, cmp_evkey);
	sem->n_ends = total;
	return 0;
}

static void free_tables(struct etl_sem *sem)
{
	etl__sem_inst_free(&sem->inst);
	etl__sem_ctx_free(&sem->cx);
	free(sem->ends);
	sem->ends = NULL;
	sem->n_ends = 0;
}

int etl__sem_up(struct etl_sem *sem)
{
	config_events(sem);
	if (!etl_sem_config_enabled(sem->cfg))
		return 0;
	size_t n_starts, n;
	etl_sem_config_start_events(sem->cfg, &n_starts);
	if (etl__sem_inst_init(&sem->inst, n_starts) != 0 ||
	    etl__sem_ctx_build(&sem->cx, sem->ctx, sem->cfg) != 0 || build_ends(sem) != 0) {
		free_tables(sem);
		return -1;
	}
	const struct etl_sem_provider *dp = etl_sem_config_diaglog_providers(sem->cfg, &n);
	for (size_t i = 0; i < n; i++) {
		struct etl_enable_params e;
		etl__sem_enable_params(&dp[i].params, &e);
		if (etl_session_enable(sem->diag, &dp[i].provider, &e) != ETL_OK) {
			etl__sem_status_ntstatus(&sem->wdi, ETL_SEM_EV_MISCONFIG, NULL, &dp[i].provider, 0,
			                         etl__sem_ntstatus_of(etl_session_errcode(sem->diag)));
			status_counted(sem);
		}
	}
	sem->period = (int64_t)etl_sem_config_housekeeping_seconds(sem->cfg) * 10000000;
	sem->next_tick = etl__sem_now(sem) + sem->period;
	sem->up = 1;
	return 0;
}

/* Instance i ends: out of the table, its context providers disabled or
 * re-aggregated; *actions gets what was done (n of them). */
static size_t finish(struct etl_sem *sem, uint32_t i, struct etl__sem_action *actions)
{
	uint32_t start = sem->inst.v[i].start;
	size_t n_starts;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(sem->cfg, &n_starts);
	etl__sem_inst_remove(&sem->inst, i);
	etl__sem_ctx_apply(&sem->cx, start, sem->inst.per_start, 0, actions);
	return se[start].n_context_providers;
}

/* The context logger's lost events, for 32 and 33. */
static uint32_t context_dropped(struct etl_sem *sem)
{
	struct etl_session_stats st;
	etl_session_stats(sem->ctx, &st);
	return st.events_lost > UINT32_MAX ? UINT32_MAX : (uint32_t)st.events_lost;
}

void etl__sem_down(struct etl_sem *sem)
{
	if (!sem->up)
		return;
	size_t n_starts, n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(sem->cfg, &n_starts);
	struct etl__sem_action actions[ETL_SEM_MAX_CONTEXT_PROVIDERS];
	/* Ended with their end status (33), naming their start event: no end
	 * event ended them. */
	while (sem->inst.n) {
		uint32_t i = sem->inst.n - 1;
		struct etl__sem_instance x = sem->inst.v[i];
		size_t na = finish(sem, i, actions);
		etl__sem_status_scenario(&sem->wdi, 1, &x.activity, &se[x.start].provider, se[x.start].id,
		                         context_dropped(sem), actions, na);
		status_counted(sem);
		sem->st.stopped++;
	}
	const struct etl_sem_provider *dp = etl_sem_config_diaglog_providers(sem->cfg, &n);
	for (size_t i = 0; i < n; i++)
		etl_session_disable(sem->diag, &dp[i].provider);
	free_tables(sem);
	sem->up = 0;
}

/* ---- instances -------------------------------------------------------------- */

uint32_t etl__sem_start_instance(struct etl_sem *sem, const struct etl_guid *provider, uint16_t id,
                                 struct etl_guid *activity)
{
	if (!sem->up)
		return ETL_SEM_STATUS_NOT_FOUND;
	size_t n_starts;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(sem->cfg, &n_starts);
	const struct etl_sem_start_event *s = etl_sem_config_find_start_event(sem->cfg, provider, id);
	if (!s)
		return ETL_SEM_STATUS_NOT_FOUND;
	if (is_zero(activity))
		*activity = etl_activity_new();
	if (etl__sem_inst_find(&sem->inst, activity) >= 0) {
		etl__sem_status_ntstatus(&sem->wdi, ETL_SEM_EV_START_FAILED, activity, provider, id,
		                         ETL_SEM_STATUS_OBJECT_NAME_COLLISION);
		status_counted(sem);
		sem->st.start_failed++;
		return ETL_SEM_STATUS_OBJECT_NAME_COLLISION;
	}
	if (sem->inst.n >= ETL_SEM_MAX_INSTANCES) {
		struct etl__sem_census c[ETL_SEM_MAX_START_EVENTS];
		size_t nc = etl__sem_inst_census(&sem->inst, sem->cfg, c, ETL_SEM_MAX_START_EVENTS);
		etl__sem_status_too_many(&sem->wdi, activity, provider, id, c, nc);
		status_counted(sem);
		sem->st.refused++;
		return ETL_SEM_STATUS_INSUFFICIENT_RESOURCES;
	}
	uint32_t start = (uint32_t)(s - se);
	struct etl__sem_action actions[ETL_SEM_MAX_CONTEXT_PROVIDERS];
	etl__sem_inst_add(&sem->inst, activity, start, etl__sem_now(sem));
	sem->inst.v[sem->inst.n - 1].rec = etl__sem_hist_start(&sem->hist, activity, s, etl__sem_utc(sem));
	etl__sem_ctx_apply(&sem->cx, start, sem->inst.per_start, 1, actions);
	etl__sem_status_scenario(&sem->wdi, 0, activity, provider, id, context_dropped(sem), actions,
	                         s->n_context_providers);
	status_counted(sem);
	sem->st.started++;
	return ETL_SEM_STATUS_SUCCESS;
}

static int is_end_event(const struct etl_sem *sem, const struct etl_guid *provider, uint16_t id)
{
	struct etl__sem_evkey k;
	k.provider = *provider;
	k.id = id;
	return sem->n_ends && bsearch(&k, sem->ends, sem->n_ends, sizeof k, cmp_evkey) != NULL;
}

static int ends_start(const struct etl_sem_start_event *s, const struct etl_guid *provider, uint16_t id)
{
	for (size_t j = 0; j < s->n_end_events; j++)
		if (s->end_events[j].id == id && etl_guid_equal(&s->end_events[j].provider, provider))
			return 1;
	return 0;
}

uint32_t etl__sem_end_instance(struct etl_sem *sem, const struct etl_guid *provider, uint16_t id,
                               const struct etl_guid *activity)
{
	if (!sem->up || !is_end_event(sem, provider, id))
		return ETL_SEM_STATUS_NOT_FOUND;
	size_t n_starts;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(sem->cfg, &n_starts);
	uint32_t st = ETL_SEM_STATUS_SUCCESS;
	long i = -1;
	if (is_zero(activity))
		st = ETL_SEM_STATUS_INVALID_PARAMETER;
	else if ((i = etl__sem_inst_find(&sem->inst, activity)) < 0 ||
	         !ends_start(&se[sem->inst.v[i].start], provider, id))
		st = ETL_SEM_STATUS_OBJECT_NAME_NOT_FOUND;
	if (st != ETL_SEM_STATUS_SUCCESS) {
		etl__sem_status_ntstatus(&sem->wdi, ETL_SEM_EV_END_FAILED, activity, provider, id, st);
		status_counted(sem);
		sem->st.end_failed++;
		return st;
	}
	struct etl__sem_action actions[ETL_SEM_MAX_CONTEXT_PROVIDERS];
	etl__sem_hist_end(&sem->hist, sem->inst.v[i].rec, ETL_SEM_INSTANCE_ENDED, provider, id, etl__sem_utc(sem));
	size_t na = finish(sem, (uint32_t)i, actions);
	etl__sem_status_scenario(&sem->wdi, 1, activity, provider, id, context_dropped(sem), actions, na);
	status_counted(sem);
	sem->st.ended++;
	return ETL_SEM_STATUS_SUCCESS;
}

uint32_t etl__sem_end_oldest(struct etl_sem *sem, const struct etl_guid *provider, uint16_t id,
                             struct etl_guid *ended)
{
	static const struct etl_guid zero;
	if (!sem->up || !is_end_event(sem, provider, id))
		return ETL_SEM_STATUS_NOT_FOUND;
	size_t n_starts;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(sem->cfg, &n_starts);
	long best = -1;
	for (uint32_t i = 0; i < sem->inst.n; i++)
		if (ends_start(&se[sem->inst.v[i].start], provider, id) &&
		    (best < 0 || sem->inst.v[i].seq < sem->inst.v[best].seq))
			best = (long)i;
	if (best < 0)
		return etl__sem_end_instance(sem, provider, id, &zero);
	*ended = sem->inst.v[best].activity;
	return etl__sem_end_instance(sem, provider, id, ended);
}

/* The exact filter of the tracing runtime (etl_enable_params in
 * etl_trace.h) as WdiContextLog applies it to provider p now. */
static int context_passes(const struct etl__sem_cprov *p, uint8_t level, uint64_t keyword)
{
	struct etl_enable_params e;
	etl__sem_enable_params(&p->cur, &e);
	if (level != 0 && e.level != 0 && level > e.level)
		return 0;
	if (keyword == 0)
		return !(e.properties & ETL_ENABLE_IGNORE_KEYWORD_0);
	return (keyword & (e.match_any ? e.match_any : ~(uint64_t)0)) != 0;
}

static int cmp_cprov(const void *key, const void *elem)
{
	return etl__sem_guid_cmp(key, &((const struct etl__sem_cprov *)elem)->guid);
}

void etl__sem_context_seen(struct etl_sem *sem, const struct etl_guid *provider, uint8_t level, uint64_t keyword)
{
	if (!sem->up || !sem->cx.n_enabled)
		return;
	const struct etl__sem_cprov *p = bsearch(provider, sem->cx.v, sem->cx.n, sizeof *sem->cx.v, cmp_cprov);
	if (!p || !p->enabled || !context_passes(p, level, keyword))
		return;
	/* Every instance in flight whose start event names the provider. */
	for (size_t k = p->first; k < p->first + p->n_refs; k++) {
		const struct etl__sem_ref *r = &sem->cx.refs[k];
		if (!sem->inst.per_start[r->start])
			continue;
		for (uint32_t i = 0; i < sem->inst.n; i++) {
			size_t rec = sem->inst.v[i].rec;
			if (sem->inst.v[i].start == r->start && rec != ETL__SEM_NO_RECORD)
				sem->hist.v[rec].ctx[r->ctx].events++;
		}
	}
}

void etl__sem_housekeeping(struct etl_sem *sem, int64_t now)
{
	uint32_t minutes = sem->up ? etl_sem_config_timeout_minutes(sem->cfg) : 0;
	if (!minutes)
		return;
	int64_t limit = (int64_t)minutes * 60 * 10000000;
	size_t n_starts;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(sem->cfg, &n_starts);
	struct etl__sem_action actions[ETL_SEM_MAX_CONTEXT_PROVIDERS];
	/* Downwards: the last instance moves into a removed one's place, and
	 * it has been looked at already. */
	for (uint32_t i = sem->inst.n; i-- > 0;) {
		struct etl__sem_instance x = sem->inst.v[i];
		if (!se[x.start].timeout_enabled || now - x.since < limit)
			continue;
		etl__sem_hist_end(&sem->hist, x.rec, ETL_SEM_INSTANCE_TIMED_OUT, NULL, 0, etl__sem_utc(sem));
		finish(sem, i, actions);
		etl__sem_status_event(&sem->wdi, ETL_SEM_EV_TIMED_OUT, &x.activity, &se[x.start].provider,
		                      se[x.start].id);
		status_counted(sem);
		sem->st.timed_out++;
	}
}
