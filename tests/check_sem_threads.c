/*
 * check_sem_threads.c - the SEM engine under threads: several threads start
 * and end scenarios (two start events sharing context provider C, so its
 * parameters are re-aggregated all the time) while each writes context
 * events during its own scenario. Every context event so written was meant
 * for WdiContextLog: written + lost = attempted exactly, and in blocking
 * mode nothing is lost; DiagLog holds every start and end event and every
 * status event; no instance is left over.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl.h"
#include "etl_sem.h"
#include "sem_fixture.h"

#define THREADS 4
#define ROUNDS 100
#define PER_ROUND 20

enum { PA = SFX_PA, PB = SFX_PB, PC = SFX_PC, PD = SFX_PD, PE = SFX_PE };

static const char CFG[] = SFX_HEAD
	SFX_END(SFX_S1, SFX_A ";1", SFX_B ";2")
	SFX_CTX(SFX_S1, SFX_A ";1", SFX_C) SFX_LEVEL(4)
	SFX_CTX(SFX_S1, SFX_A ";1", SFX_D) SFX_LEVEL(4)
	SFX_END(SFX_S2, SFX_A ";3", SFX_B ";4")
	SFX_CTX(SFX_S2, SFX_A ";3", SFX_C) SFX_LEVEL(2) SFX_KEYWORD(01);

static struct sfx g_x;
static _Atomic int g_bad;

static void *worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	uint16_t start = t % 2 ? 3 : 1, end = t % 2 ? 4 : 2;
	for (uint32_t r = 0; r < ROUNDS; r++) {
		struct etl_guid act;
		memset(&act, 0, sizeof act);
		if (sfx_start_scenario(&g_x, PA, start, &act, t << 24 | r) != ETL_OK)
			g_bad++;
		/* Level 2, keyword 0x1: passes both scenarios' filters for C. */
		for (uint32_t i = 0; i < PER_ROUND; i++)
			sfx_write(PC, 10, 2, 0x1, t << 24 | r << 8 | i);
		sfx_write(PE, 10, 2, 0x1, 0);
		if (sfx_end_scenario(&g_x, PB, end, &act, t << 24 | r) != ETL_OK)
			g_bad++;
	}
	return NULL;
}

static void run(int blocking_context)
{
	sfx_setup(NULL);
	struct etl_sem_options o;
	etl_sem_options_init(&o);
	o.diaglog.blocking = 1;                         /* DiagLog exact in both runs */
	o.context.blocking = blocking_context;
	if (!blocking_context) {
		/* Small and few: the writers outrun the logger and lose events. */
		o.context.buffer_size = 4096;
		o.context.min_buffers = 2;
		o.context.max_buffers = 2;
	}
	g_bad = 0;
	sfx_start_with(&g_x, sfx_config_text(CFG), &o);
	pthread_t th[THREADS];
	for (uintptr_t t = 0; t < THREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, worker, (void *)t), 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	struct etl_sem_stats st;
	etl_sem_stats(g_x.sem, &st);
	ck_assert_uint_eq(st.started, THREADS * ROUNDS);
	ck_assert_uint_eq(st.ended, THREADS * ROUNDS);
	ck_assert_uint_eq(st.in_flight, 0);
	ck_assert_uint_eq(st.context_providers, 0);
	ck_assert_uint_eq(st.start_failed + st.end_failed + st.refused, 0);
	etl_sem *sem = g_x.sem;
	ck_assert_int_eq(etl_sem_stop(sem), ETL_OK);
	struct etl_session_stats cs, ds;
	etl_session_stats(etl_sem_context_log(sem), &cs);
	etl_session_stats(etl_sem_diaglog(sem), &ds);
	struct sf_file d, c;
	g_x.sem = NULL;                                 /* stopped already */
	sf_read(&d, g_x.diag_path);
	sf_read(&c, g_x.ctx_path);
	etl_sem_free(sem);
	sfx_finish(&g_x, NULL, NULL);
	sfx_teardown();

	const uint64_t attempted = (uint64_t)THREADS * ROUNDS * PER_ROUND;
	ck_assert_int_eq(g_bad, 0);
	ck_assert_uint_eq(c.errors, 0);
	ck_assert_uint_eq(d.errors, 0);
	/* Each context event at most once, and written + lost = attempted. */
	ck_assert_uint_eq(c.n, sf_count(&c, &sfx_guid[PC], 10));
	ck_assert_uint_eq(cs.events_written, c.n);
	ck_assert_uint_eq(cs.events_written + cs.events_lost, attempted);
	ck_assert_uint_eq(c.lf.events_lost, cs.events_lost);
	unsigned char *seen = calloc(THREADS * ROUNDS * 256, 1);
	ck_assert_ptr_nonnull(seen);
	for (size_t i = 0; i < c.n; i++) {
		uint32_t tag = c.ev[i].tag, t = tag >> 24, r = (tag >> 8) & 0xFFFF, k = tag & 0xFF;
		ck_assert(t < THREADS && r < ROUNDS && k < PER_ROUND);
		ck_assert_msg(!seen[(t * ROUNDS + r) * 256 + k], "context event %08x twice", tag);
		seen[(t * ROUNDS + r) * 256 + k] = 1;
	}
	free(seen);
	if (blocking_context)
		ck_assert_uint_eq(cs.events_lost, 0);
	else
		ck_assert_uint_gt(cs.events_lost, 0);
	/* DiagLog: every start and end event, a 32 and a 33 for each. */
	ck_assert_uint_eq(ds.events_lost, 0);
	ck_assert_uint_eq(sf_count(&d, &sfx_guid[PA], -1), THREADS * ROUNDS);
	ck_assert_uint_eq(sf_count(&d, &sfx_guid[PB], -1), THREADS * ROUNDS);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 32), THREADS * ROUNDS);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 33), THREADS * ROUNDS);
	ck_assert_uint_eq(d.n, 4 * THREADS * ROUNDS);
	ck_assert_uint_eq(sf_count(&c, &sfx_guid[PE], -1) + sf_count(&d, &sfx_guid[PE], -1), 0);
	sf_free(&d);
	sf_free(&c);
}

START_TEST(threads_blocking)
{
	run(1);
}
END_TEST

START_TEST(threads_losing)
{
	run(0);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("sem_threads");
	TCase *tc = tcase_create("threads");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, threads_blocking);
	tcase_add_test(tc, threads_losing);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
