/*
 * sem_fuzz.h - the invariants of an effective SEM configuration, shared by
 * the SEM configuration harnesses (reg_fuzzer.c, hive_fuzzer.c).
 */
#ifndef ETL_SEM_FUZZ_H
#define ETL_SEM_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "etl_sem.h"
#include "fuzz.h"

/* An exact-size copy of the input (so ASan sees any read past its end),
 * or NULL when it is larger than max (not worth fuzzing). */
static inline uint8_t *sem_fuzz_copy(const uint8_t *data, size_t size, size_t max)
{
	if (size > max)
		return NULL;
	uint8_t *copy = malloc(size ? size : 1);
	FUZZ_ASSERT(copy != NULL);
	memcpy(copy, data, size);
	return copy;
}

static int sem_fuzz_count(void *ctx, const void *data, size_t n)
{
	(void)data;
	*(size_t *)ctx += n;
	return 0;
}

/* The limits hold (64 start events, 1..16 end events and at most 124
 * context providers each, levels never 0, every start event found by its
 * provider and id), a disabled SEM has a reason and no start events, every
 * diagnostic has a key, a rule and a message, the JSON is written and the
 * configuration equals itself. */
static inline void sem_fuzz_check(const etl_sem_config *cfg)
{
	size_t n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(cfg, &n);
	FUZZ_ASSERT(n <= ETL_SEM_MAX_START_EVENTS);
	if (!etl_sem_config_enabled(cfg))
		FUZZ_ASSERT(n == 0 && etl_sem_config_disabled_message(cfg) != NULL);
	for (size_t i = 0; i < n; i++) {
		FUZZ_ASSERT(se[i].n_end_events >= 1 && se[i].n_end_events <= ETL_SEM_MAX_END_EVENTS);
		FUZZ_ASSERT(se[i].n_context_providers <= ETL_SEM_MAX_CONTEXT_PROVIDERS);
		FUZZ_ASSERT(se[i].n_scenarios >= 1 && se[i].params.level != 0);
		FUZZ_ASSERT(etl_sem_config_find_start_event(cfg, &se[i].provider, se[i].id) == &se[i]);
		for (size_t k = 0; k < se[i].n_context_providers; k++)
			FUZZ_ASSERT(se[i].context_providers[k].params.level != 0);
	}
	const struct etl_sem_diag *d = etl_sem_config_diagnostics(cfg, &n);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(d[i].key && d[i].rule && d[i].rule[0] && d[i].message && d[i].message[0]);
	size_t bytes = 0;
	FUZZ_ASSERT(etl_sem_config_write_json(cfg, sem_fuzz_count, &bytes) == 0 && bytes > 0);
	FUZZ_ASSERT(etl_sem_config_equal(cfg, cfg));
}

#endif /* ETL_SEM_FUZZ_H */
