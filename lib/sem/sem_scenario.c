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
 *
 * And the replay of a captured event (doc/sem.md §13), where the same
 * order holds: an end event ends its instance, the event is written again
 * through the runtime's replay write, context events are counted for the
 * report, then a start event starts its instance. A zero activity id
 * follows the replay's rule: an end ends the oldest instance it can, a
 * start gets a replay id.
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

/* ---- replay -------------------------------------------------------------------- */

/* The replay id of the nth zero-id start, at the event's FILETIME. */
static struct etl_guid replay_id(uint32_t nth, int64_t utc)
{
	struct etl_guid g;
	memset(&g, 0, sizeof g);
	g.data1 = nth;
	for (int i = 0; i < 8; i++)
		g.data4[i] = (uint8_t)((uint64_t)utc >> (56 - 8 * i));
	return g;
}

/* The first failure of two scenario actions, else the later one's outcome
 * (NOT_FOUND counts as no action). */
static uint32_t combine_status(uint32_t first, uint32_t second)
{
	if (first != ETL_SEM_STATUS_SUCCESS && first != ETL_SEM_STATUS_NOT_FOUND)
		return first;
	return second == ETL_SEM_STATUS_NOT_FOUND ? first : second;
}

int etl_sem_replay_event(etl_sem *sem, const struct etl_event *ev)
{
	static const struct etl_guid zero;
	if (!sem || !ev)
		return invalid();
	/* Only an EVENT_HEADER event has an event id to match. */
	int scen = (ev->present & ETL_EVF_DESCRIPTOR) != 0;
	int zero_id = memcmp(&ev->activity_id, &zero, sizeof zero) == 0;
	struct etl_guid act = ev->activity_id;
	uint32_t st = ETL_SEM_STATUS_NOT_FOUND;
	/* The status events of this event go into its processor's buffers,
	 * next to it: they share its time, and there only the order written
	 * (an end's before it, a start's after it) decides how they read. */
	uint32_t cpu;
	etl_thread_processor_set(ev->processor, &cpu);
	if (scen) {
		pthread_mutex_lock(&sem->lock);
		st = zero_id ? etl__sem_end_oldest(sem, &ev->provider, ev->id, &act)
		             : etl__sem_end_instance(sem, &ev->provider, ev->id, &act);
		pthread_mutex_unlock(&sem->lock);
	}
	int wrc = etl_replay_write(ev);
	pthread_mutex_lock(&sem->lock);
	etl__sem_context_seen(sem, &ev->provider, ev->level, ev->keyword);
	if (scen && sem->up && etl_sem_config_find_start_event(sem->cfg, &ev->provider, ev->id)) {
		act = zero_id ? replay_id(++sem->replay_zero, ev->utc) : ev->activity_id;
		st = combine_status(st, etl__sem_start_instance(sem, &ev->provider, ev->id, &act));
	}
	pthread_mutex_unlock(&sem->lock);
	etl_thread_processor_set(cpu, NULL);
	t_status = st;
	return wrc;
}
