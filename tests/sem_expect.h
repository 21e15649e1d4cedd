/*
 * sem_expect.h - expectations on an effective SEM configuration, shared by
 * the SEM configuration tests: loading a fixture of testdata/wdi/, the
 * exact list of diagnostics (rule and key path), a start event against a
 * table row.
 */
#ifndef SEM_EXPECT_H
#define SEM_EXPECT_H

#include <stddef.h>
#include <stdint.h>
#include "etl_sem.h"

/* Key paths of the fixtures. */
#define SX_C   "HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WDI"
#define SX_POL "HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Microsoft\\Windows\\WDI"
#define SX_S1  "{11111111-1111-1111-1111-111111111111}"
#define SX_S2  "{22222222-2222-2222-2222-222222222222}"
#define SX_PA  "{AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA}"
#define SX_PB  "{BBBBBBBB-BBBB-BBBB-BBBB-BBBBBBBBBBBB}"
#define SX_PC  "{CCCCCCCC-CCCC-CCCC-CCCC-CCCCCCCCCCCC}"
#define SX_PD  "{DDDDDDDD-DDDD-DDDD-DDDD-DDDDDDDDDDDD}"
#define SX_ALL UINT64_C(0xFFFFFFFFFFFFFFFF)
/* The start event key of scenario S under root R. */
#define SX_START(S, E) SX_C "\\Scenarios\\" S "\\Instrumentation\\" E

/* Expected end event / context provider / start event. */
struct sx_end {
	const char *provider;
	unsigned id, level;
	uint64_t keyword;
	uint32_t enable_property;
};
struct sx_ctx {
	const char *provider;
	unsigned level;
	uint64_t keyword;
	uint32_t enable_property;
	int capture_state;
};
struct sx_start {
	const char *provider;
	unsigned id, level;
	uint64_t keyword;
	uint32_t enable_property;
	int timeout_enabled;
	const char *scenarios[4];          /* NULL-terminated               */
	struct sx_end ends[4];             /* provider NULL ends the list   */
	struct sx_ctx ctx[8];
};

/* A diagnostic: rule and full key path. */
struct sx_diag {
	const char *rule;
	const char *key;
};

/*! sx_load() : testdata/wdi/NAME as a configuration (must load). */
etl_sem_config *sx_load(const char *name);

/*! sx_guid() : text (braced or not) as a GUID (must parse). */
struct etl_guid sx_guid(const char *text);

/*! sx_diags() : the diagnostics of cfg are exactly want[0..n) in order. */
void sx_diags(const etl_sem_config *cfg, const struct sx_diag *want, size_t n);

/*! sx_start() : se matches want in every field. */
void sx_start(const struct etl_sem_start_event *se, const struct sx_start *want);

/*! sx_starts() : cfg has exactly want[0..n) as start events, in order. */
void sx_starts(const etl_sem_config *cfg, const struct sx_start *want, size_t n);

/*! sx_check() : loads testdata/wdi/NAME; its diagnostics must be exactly
 *  d[0..nd) and its start events s[0..ns). @return : the configuration,
 *  for more checks (free it). */
etl_sem_config *sx_check(const char *name, const struct sx_diag *d, size_t nd, const struct sx_start *s, size_t ns);

/*! sx_json() : cfg as its JSON text (malloc'd). */
char *sx_json(const etl_sem_config *cfg);

#endif /* SEM_EXPECT_H */
