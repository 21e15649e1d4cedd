/*
 * reg_fuzzer.c - libFuzzer harness for the SEM configuration from .reg
 * text (lib/sem/reg_text.c, reg_parse.c, regtree.c, and the rules of
 * sem_config.c and sem_merge.c behind them): the input is a .reg file
 * given to etl_sem_config_from_reg_memory().
 *
 * Invariants (FUZZ_ASSERT):
 *   - a failed load leaves an error code and a message naming the input;
 *   - a loaded configuration keeps the limits (64 start events, 1..16 end
 *     events and at most 124 context providers each, levels never 0), every
 *     diagnostic has a key, a rule and a message, a disabled SEM has a
 *     reason and no start events;
 *   - it equals itself and a second load of the same bytes, and its JSON
 *     is written without failure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etl_sem.h"
#include "fuzz.h"

#define REG_FUZZ_MAX_INPUT (1024u * 1024u)

static int count_write(void *ctx, const void *data, size_t n)
{
	(void)data;
	*(size_t *)ctx += n;
	return 0;
}

static void check(const etl_sem_config *cfg)
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
	FUZZ_ASSERT(etl_sem_config_write_json(cfg, count_write, &bytes) == 0 && bytes > 0);
	FUZZ_ASSERT(etl_sem_config_equal(cfg, cfg));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > REG_FUZZ_MAX_INPUT)
		return 0;
	/* An exact-size copy, so ASan sees any read past the end. */
	uint8_t *copy = malloc(size ? size : 1);
	FUZZ_ASSERT(copy != NULL);
	memcpy(copy, data, size);
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_memory(copy, size, "fuzz.reg", &err);
	if (!cfg) {
		FUZZ_ASSERT(err.code != ETL_E_NONE && strncmp(err.message, "fuzz.reg", 8) == 0);
	} else {
		check(cfg);
		etl_sem_config *again = etl_sem_config_from_reg_memory(copy, size, "fuzz.reg", NULL);
		FUZZ_ASSERT(again != NULL && etl_sem_config_equal(cfg, again));
		etl_sem_config_free(again);
	}
	etl_sem_config_free(cfg);
	free(copy);
	return 0;
}
