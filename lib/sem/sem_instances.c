/*
 * lib/sem/sem_instances.c - the scenario instances in flight: at most
 * ETL_SEM_MAX_INSTANCES, keyed by activity id, each naming its start event,
 * when it started and in what order (the oldest is the one a replayed end
 * event with a zero id ends), and its record in the report's history
 * (doc/sem.md §10, §13), with a count per start event that the
 * re-aggregation of context providers and status event 35 read.
 *
 * A flat array: 128 entries are searched faster than a hash table is
 * maintained, and only the instances in flight are visited.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/sem/engine_internal.h"

int etl__sem_inst_init(struct etl__sem_instances *t, size_t n_starts)
{
	t->n = 0;
	t->next_seq = 0;
	t->n_starts = n_starts;
	t->per_start = calloc(n_starts ? n_starts : 1, sizeof *t->per_start);
	return t->per_start ? 0 : -1;
}

void etl__sem_inst_free(struct etl__sem_instances *t)
{
	free(t->per_start);
	t->per_start = NULL;
	t->n = 0;
	t->n_starts = 0;
}

long etl__sem_inst_find(const struct etl__sem_instances *t, const struct etl_guid *activity)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (memcmp(&t->v[i].activity, activity, sizeof *activity) == 0)
			return (long)i;
	return -1;
}

void etl__sem_inst_add(struct etl__sem_instances *t, const struct etl_guid *activity, uint32_t start,
                       int64_t since)
{
	struct etl__sem_instance *x = &t->v[t->n++];
	x->activity = *activity;
	x->start = start;
	x->since = since;
	x->seq = t->next_seq++;
	x->rec = ETL__SEM_NO_RECORD;
	t->per_start[start]++;
}

void etl__sem_inst_remove(struct etl__sem_instances *t, uint32_t i)
{
	t->per_start[t->v[i].start]--;
	t->v[i] = t->v[--t->n];
}

size_t etl__sem_inst_census(const struct etl__sem_instances *t, const etl_sem_config *cfg,
                            struct etl__sem_census *out, size_t max)
{
	size_t n_starts, k = 0;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n_starts);
	for (size_t i = 0; i < n_starts && i < t->n_starts && k < max; i++) {
		if (!t->per_start[i])
			continue;
		out[k].provider = se[i].provider;
		out[k].id = se[i].id;
		out[k].count = t->per_start[i];
		k++;
	}
	return k;
}
