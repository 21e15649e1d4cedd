/*
 * reg_fuzzer.c - libFuzzer harness for the SEM configuration from .reg
 * text (lib/sem/reg_text.c, reg_parse.c, regtree.c, and the rules of
 * sem_config.c and sem_merge.c behind them): the input is a .reg file
 * given to etl_sem_config_from_reg_memory().
 *
 * Invariants (FUZZ_ASSERT): a failed load leaves an error code and a
 * message naming the input; a loaded configuration passes
 * sem_fuzz_check() (sem_fuzz.h) and equals a second load of the same
 * bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etl_sem.h"
#include "sem_fuzz.h"

#define REG_FUZZ_MAX_INPUT (1024u * 1024u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = sem_fuzz_copy(data, size, REG_FUZZ_MAX_INPUT);
	if (!copy)
		return 0;
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_memory(copy, size, "fuzz.reg", &err);
	if (!cfg) {
		FUZZ_ASSERT(err.code != ETL_E_NONE && strncmp(err.message, "fuzz.reg", 8) == 0);
	} else {
		sem_fuzz_check(cfg);
		etl_sem_config *again = etl_sem_config_from_reg_memory(copy, size, "fuzz.reg", NULL);
		FUZZ_ASSERT(again != NULL && etl_sem_config_equal(cfg, again));
		etl_sem_config_free(again);
	}
	etl_sem_config_free(cfg);
	free(copy);
	return 0;
}
