/*
 * sem_fixture.c - a SEM engine for the tests; see sem_fixture.h.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sem_fixture.h"

_Atomic int64_t sfx_now = SFX_T0;
etl_provider sfx_prov[SFX_NPROV];
struct etl_guid sfx_guid[SFX_NPROV];

static int64_t fixture_clock(void *ctx)
{
	(void)ctx;
	return atomic_load(&sfx_now);
}

etl_sem_config *sfx_config_text(const char *text)
{
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_reg_memory(text, strlen(text), "test", &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	return cfg;
}

void sfx_setup(etl_enable_fn cb)
{
	atomic_store(&sfx_now, SFX_T0);
	for (int k = 0; k < SFX_NPROV; k++) {
		uint8_t b = (uint8_t)(0xAA + 0x11 * k);
		struct etl_guid g = { 0x01010101u * b, (uint16_t)(0x0101u * b), (uint16_t)(0x0101u * b),
		                      { b, b, b, b, b, b, b, b } };
		sfx_guid[k] = g;
		memset(&sfx_prov[k], 0, sizeof sfx_prov[k]);
		ck_assert_int_eq(etl_provider_register(&sfx_prov[k], &g, cb, &sfx_prov[k]), ETL_OK);
	}
}

void sfx_teardown(void)
{
	for (int k = 0; k < SFX_NPROV; k++)
		etl_provider_unregister(&sfx_prov[k]);
}

void sfx_start(struct sfx *x, etl_sem_config *cfg, int blocking)
{
	struct etl_sem_options o;
	etl_sem_options_init(&o);
	o.blocking = blocking;
	sfx_start_with(x, cfg, &o);
}

void sfx_start_with(struct sfx *x, etl_sem_config *cfg, struct etl_sem_options *o)
{
	memset(x, 0, sizeof *x);
	snprintf(x->dir, sizeof x->dir, "/tmp/check_sem.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(x->dir));
	snprintf(x->diag_path, sizeof x->diag_path, "%s/%s", x->dir, ETL_SEM_DIAGLOG_FILE);
	snprintf(x->ctx_path, sizeof x->ctx_path, "%s/%s", x->dir, ETL_SEM_CONTEXTLOG_FILE);
	o->directory = x->dir;
	o->clock = fixture_clock;
	x->cfg = cfg;
	x->sem = etl_sem_new(cfg, o);
	ck_assert_ptr_nonnull(x->sem);
	ck_assert_msg(etl_sem_start(x->sem) == ETL_OK, "start: %s", etl_sem_errmsg(x->sem));
}

void sfx_stop(struct sfx *x)
{
	ck_assert_msg(etl_sem_stop(x->sem) == ETL_OK, "stop: %s", etl_sem_errmsg(x->sem));
	x->stopped = 1;
}

void sfx_finish(struct sfx *x, struct sf_file *diag, struct sf_file *ctx)
{
	if (x->sem && !x->stopped)
		ck_assert_msg(etl_sem_stop(x->sem) == ETL_OK, "stop: %s", etl_sem_errmsg(x->sem));
	if (diag) {
		sf_read(diag, x->diag_path);
		ck_assert_uint_eq(diag->errors, 0);
	}
	if (ctx) {
		sf_read(ctx, x->ctx_path);
		ck_assert_uint_eq(ctx->errors, 0);
	}
	etl_sem_free(x->sem);
	etl_sem_config_free(x->cfg);
	unlink(x->diag_path);
	unlink(x->ctx_path);
	rmdir(x->dir);
	x->sem = NULL;
	x->cfg = NULL;
}

void sfx_advance(struct sfx *x, int64_t delta)
{
	atomic_fetch_add(&sfx_now, delta);
	ck_assert_int_eq(etl_sem_clock_advanced(x->sem), ETL_OK);
}

int sfx_write(int k, uint16_t id, uint8_t level, uint64_t keyword, uint32_t tag)
{
	struct etl_event_descriptor d = { .id = id, .level = level, .keyword = keyword };
	struct etl_data data = ETL_DATA(&tag, sizeof tag);
	return etl_write(&sfx_prov[k], &d, 1, &data);
}

int sfx_start_scenario(struct sfx *x, int k, uint16_t id, struct etl_guid *activity, uint32_t tag)
{
	struct etl_event_descriptor d = { .id = id, .level = 4 };
	struct etl_data data = ETL_DATA(&tag, sizeof tag);
	return etl_sem_write_start_scenario(x->sem, &sfx_prov[k], &d, activity, 1, &data);
}

int sfx_end_scenario(struct sfx *x, int k, uint16_t id, const struct etl_guid *activity, uint32_t tag)
{
	struct etl_event_descriptor d = { .id = id, .level = 4 };
	struct etl_data data = ETL_DATA(&tag, sizeof tag);
	return etl_sem_write_end_scenario(x->sem, &sfx_prov[k], &d, activity, 1, &data);
}
