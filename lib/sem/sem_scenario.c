/*
 * lib/sem/sem_scenario.c - the calls programs make while the SEM runs: the
 * scenario writes (a start or end event written and its scenario started
 * or ended, manifest-style and TraceLogging) and dispatch (the same
 * without an event), as doc/sem.md §10 orders them:
 *   start: the event first (with the scenario's activity id, a new one
 *          when the caller's is zero), then the instance starts;
 *   end:   the instance ends first, then the event.
 * The event goes through the tracing runtime's ordinary writes, so it
 * reaches DiagLog (and any other session) by the ordinary routing.
 */
#define ETL_BUILDING_LIB 1
#include <string.h>
#include "lib/sem/engine_internal.h"

/* The calling thread's last outcome (etl_sem_last_status()). */
static _Thread_local uint32_t t_status;

uint32_t etl_sem_last_status(void)
{
	return t_status;
}

/* One scenario event as the caller hands it over: manifest-style (meta
 * NULL) or TraceLogging. */
struct scen_event {
	etl_provider *p;
	const struct etl_event_descriptor *d;
	const void *meta;
	uint16_t meta_size;
	uint32_t n;
	const struct etl_data *data;
};

static int write_event(const struct scen_event *e, const struct etl_guid *activity)
{
	if (e->meta)
		return etl_write_tracelogging_counted(e->p, e->d, e->meta, e->meta_size, activity, NULL, e->n,
		                                      e->data);
	return etl_write_transfer(e->p, e->d, activity, NULL, e->n, e->data);
}

/* ETL_OK when the write and the scenario action both went well (no action
 * to do counts as well). */
static int outcome(int wrc, uint32_t status)
{
	t_status = status;
	return wrc == ETL_OK && (status == ETL_SEM_STATUS_SUCCESS || status == ETL_SEM_STATUS_NOT_FOUND)
	       ? ETL_OK : ETL_FAILED;
}

static int invalid(void)
{
	t_status = ETL_SEM_STATUS_INVALID_PARAMETER;
	return ETL_FAILED;
}

static uint32_t start(etl_sem *sem, const struct etl_guid *provider, uint16_t id, struct etl_guid *activity)
{
	pthread_mutex_lock(&sem->lock);
	uint32_t st = etl__sem_start_instance(sem, provider, id, activity);
	pthread_mutex_unlock(&sem->lock);
	return st;
}

static uint32_t end(etl_sem *sem, const struct etl_guid *provider, uint16_t id, const struct etl_guid *activity)
{
	pthread_mutex_lock(&sem->lock);
	uint32_t st = etl__sem_end_instance(sem, provider, id, activity);
	pthread_mutex_unlock(&sem->lock);
	return st;
}

static int scenario_start(etl_sem *sem, const struct scen_event *e, struct etl_guid *activity)
{
	static const struct etl_guid zero;
	if (!sem || !e->p || !e->d || !activity)
		return invalid();
	if (memcmp(activity, &zero, sizeof zero) == 0)
		*activity = etl_activity_new();
	int wrc = write_event(e, activity);
	struct etl_guid g = etl_provider_guid(e->p);
	return outcome(wrc, start(sem, &g, e->d->id, activity));
}

static int scenario_end(etl_sem *sem, const struct scen_event *e, const struct etl_guid *activity)
{
	if (!sem || !e->p || !e->d || !activity)
		return invalid();
	struct etl_guid g = etl_provider_guid(e->p);
	uint32_t st = end(sem, &g, e->d->id, activity);
	return outcome(write_event(e, activity), st);
}

int etl_sem_write_start_scenario(etl_sem *sem, etl_provider *p, const struct etl_event_descriptor *d,
                                 struct etl_guid *activity, uint32_t n, const struct etl_data *data)
{
	struct scen_event e = { p, d, NULL, 0, n, data };
	return scenario_start(sem, &e, activity);
}

int etl_sem_write_end_scenario(etl_sem *sem, etl_provider *p, const struct etl_event_descriptor *d,
                               const struct etl_guid *activity, uint32_t n, const struct etl_data *data)
{
	struct scen_event e = { p, d, NULL, 0, n, data };
	return scenario_end(sem, &e, activity);
}

int etl_sem_write_start_scenario_tracelogging(etl_sem *sem, etl_provider *p, const struct etl_event_descriptor *d,
                                              const void *meta, uint16_t meta_size, struct etl_guid *activity,
                                              uint32_t n, const struct etl_data *data)
{
	struct scen_event e = { p, d, meta, meta_size, n, data };
	if (!meta)
		return invalid();
	return scenario_start(sem, &e, activity);
}

int etl_sem_write_end_scenario_tracelogging(etl_sem *sem, etl_provider *p, const struct etl_event_descriptor *d,
                                            const void *meta, uint16_t meta_size, const struct etl_guid *activity,
                                            uint32_t n, const struct etl_data *data)
{
	struct scen_event e = { p, d, meta, meta_size, n, data };
	if (!meta)
		return invalid();
	return scenario_end(sem, &e, activity);
}

int etl_sem_dispatch(etl_sem *sem, uint32_t code, const struct etl_guid *provider,
                     const struct etl_event_descriptor *d, struct etl_guid *activity)
{
	static const struct etl_guid zero;
	if (!sem || !provider || !d || !activity)
		return invalid();
	switch (code) {
	case ETL_SEM_DISPATCH_START:
		if (memcmp(activity, &zero, sizeof zero) == 0)
			*activity = etl_activity_new();
		return outcome(ETL_OK, start(sem, provider, d->id, activity));
	case ETL_SEM_DISPATCH_END:
		return outcome(ETL_OK, end(sem, provider, d->id, activity));
	default:
		return invalid();
	}
}
