/*
 * check_sem_engine.c - the SEM engine (include/etl_sem.h, lib/sem/sem_engine.c
 * and its parts): context providers enabled, re-aggregated and disabled at
 * the scenarios' edges, merged start events, refused and failed starts and
 * ends, timeouts on the test's clock, the SEM switched off by each of its
 * switches, update, dispatch, the TraceLogging forms and the options.
 *
 * Every test runs an engine on the fixture's clock (tests/sem_fixture.h),
 * reads both files back with the reader and decodes the Kernel-WDI status
 * events through testdata/manifests/kernel-wdi.man (tests/sem_files.h), and
 * checks the exact events each file holds against what the test did.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etl.h"
#include "etl_sem.h"
#include "etl_tracelogging.h"
#include "sem_expect.h"
#include "sem_fixture.h"
#include "testutil.h"

enum { PA = SFX_PA, PB = SFX_PB, PC = SFX_PC, PD = SFX_PD, PE = SFX_PE };

/* S1: A;1 -> B;2, context provider C (4 / 0x4). */
static const char BASIC[] = SFX_HEAD
	SFX_END(SFX_S1, SFX_A ";1", SFX_B ";2")
	SFX_CTX(SFX_S1, SFX_A ";1", SFX_C) SFX_LEVEL(4) SFX_KEYWORD(04);

/* S1 as above; S2: A;3 -> B;4, context providers C (2 / 0x8) and D (4 / 0x1). */
static const char TWO[] = SFX_HEAD
	SFX_END(SFX_S1, SFX_A ";1", SFX_B ";2")
	SFX_CTX(SFX_S1, SFX_A ";1", SFX_C) SFX_LEVEL(4) SFX_KEYWORD(04)
	SFX_END(SFX_S2, SFX_A ";3", SFX_B ";4")
	SFX_CTX(SFX_S2, SFX_A ";3", SFX_C) SFX_LEVEL(2) SFX_KEYWORD(08)
	SFX_CTX(SFX_S2, SFX_A ";3", SFX_D) SFX_LEVEL(4) SFX_KEYWORD(01);

static const struct etl_guid ZERO;

static void setup(void)
{
	sfx_setup(NULL);
}

static void teardown(void)
{
	sfx_teardown();
}

static void same_guid(const struct etl_guid *a, const struct etl_guid *b)
{
	char x[ETL_GUID_STRLEN], y[ETL_GUID_STRLEN];
	ck_assert_msg(etl_guid_equal(a, b), "GUID %s, expected %s", etl_guid_format(a, x), etl_guid_format(b, y));
}

/* One action of a 32 / 33 event. */
static void action(const struct sf_action *a, int k, uint8_t level, uint64_t keyword, uint32_t status)
{
	same_guid(&a->provider, &sfx_guid[k]);
	ck_assert_uint_eq(a->level, level);
	ck_assert_uint_eq(a->keyword, keyword);
	ck_assert_uint_eq(a->property, 0);
	ck_assert_uint_eq(a->status, status);
}

/* The status event e: id, the provider and event id it names, activity. */
static void status_event(const struct sf_event *e, int id, int k, uint32_t eid, const struct etl_guid *act)
{
	ck_assert_ptr_nonnull(e);
	same_guid(&e->provider, &SF_KERNEL_WDI);
	ck_assert_uint_eq(e->id, id);
	ck_assert(e->decoded);
	same_guid(&e->st_provider, &sfx_guid[k]);
	ck_assert_uint_eq(e->st_id, eid);
	same_guid(&e->activity, act ? act : &ZERO);
}

static int enabled_at(int k, uint8_t level, uint64_t any)
{
	const etl_provider *p = &sfx_prov[k];
	return p->state == (0x100u | level) && p->any == any;
}

/* ---- the edges of a scenario -------------------------------------------- */

START_TEST(context_at_scenario_edges)
{
	struct sfx x;
	sfx_start(&x, sfx_config_text(BASIC), 1);
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	ck_assert_int_eq(sfx_write(PC, 10, 4, 0x4, 1), ETL_OK);                  /* before */

	struct etl_guid act = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &act, 100), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
	ck_assert(!etl_guid_is_null(&act));                                      /* a new id */
	ck_assert(enabled_at(PC, 4, 0x4));
	sfx_write(PC, 10, 4, 0x4, 2);                                            /* during */
	sfx_write(PC, 10, 4, 0x4, 3);
	sfx_write(PC, 10, 4, 0x8, 4);                                            /* keyword off */
	sfx_write(PC, 10, 5, 0x4, 5);                                            /* level off */
	sfx_write(PE, 10, 4, 0x4, 6);                                            /* not a context provider */
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.in_flight, 1);
	ck_assert_uint_eq(st.context_providers, 1);

	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &act, 200), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	sfx_write(PC, 10, 4, 0x4, 7);                                            /* after */
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.started, 1);
	ck_assert_uint_eq(st.ended, 1);
	ck_assert_uint_eq(st.in_flight, 0);
	ck_assert_uint_eq(st.context_providers, 0);
	ck_assert_uint_eq(st.status_events, 2);

	struct sf_file d, c;
	sfx_finish(&x, &d, &c);
	ck_assert_str_eq(d.logger_name, ETL_SEM_DIAGLOG_NAME);
	ck_assert_str_eq(c.logger_name, ETL_SEM_CONTEXTLOG_NAME);
	ck_assert_uint_eq(c.n, 2);
	ck_assert(sf_has_tag(&c, &sfx_guid[PC], 2) && sf_has_tag(&c, &sfx_guid[PC], 3));
	same_guid(&c.ev[0].activity, &ZERO);           /* context events keep their own */
	/* DiagLog: the start event, 32, 33, the end event, in that order. */
	ck_assert_uint_eq(d.n, 4);
	same_guid(&d.ev[0].provider, &sfx_guid[PA]);
	ck_assert_uint_eq(d.ev[0].id, 1);
	ck_assert_uint_eq(d.ev[0].tag, 100);
	same_guid(&d.ev[0].activity, &act);
	status_event(&d.ev[1], 32, PA, 1, &act);
	ck_assert_uint_eq(d.ev[1].level, 4);
	ck_assert_uint_eq(d.ev[1].opcode, 10);
	ck_assert_uint_eq(d.ev[1].task, 9);
	ck_assert_uint_eq(d.ev[1].keyword, 0x100000000ull);
	ck_assert_uint_eq(d.ev[1].dropped, 0);
	ck_assert_uint_eq(d.ev[1].n_actions, 1);
	action(&d.ev[1].actions[0], PC, 4, 0x4, 0);
	ck_assert_str_eq(d.ev[1].event_name, "SEM_SCENARIO_STARTED");
	ck_assert_str_eq(d.ev[1].message, "The Scenario Event Mapper started a scenario for provider "
	                 "{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa} (event ID 1) with 1 context providers. "
	                 "The context logger dropped event count was 0.");
	status_event(&d.ev[2], 33, PB, 2, &act);
	ck_assert_uint_eq(d.ev[2].opcode, 11);
	ck_assert_uint_eq(d.ev[2].n_actions, 1);
	action(&d.ev[2].actions[0], PC, 0, 0, 0);
	same_guid(&d.ev[3].provider, &sfx_guid[PB]);
	ck_assert_uint_eq(d.ev[3].tag, 200);
	same_guid(&d.ev[3].activity, &act);
	ck_assert_int_eq(d.ev[0].utc, SFX_T0);
	sf_free(&d);
	sf_free(&c);
}
END_TEST

/* A plain etl_write of a start or end event is an event like any other. */
START_TEST(plain_write_starts_nothing)
{
	struct sfx x;
	sfx_start(&x, sfx_config_text(BASIC), 1);
	sfx_write(PA, 1, 4, 0, 1);
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	sfx_write(PC, 10, 4, 0x4, 2);
	sfx_write(PB, 2, 4, 0, 3);
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.started, 0);
	ck_assert_uint_eq(st.status_events, 0);
	struct sf_file d, c;
	sfx_finish(&x, &d, &c);
	ck_assert_uint_eq(d.n, 2);
	ck_assert_uint_eq(sf_count(&d, &sfx_guid[PA], 1), 1);
	ck_assert_uint_eq(sf_count(&d, &sfx_guid[PB], 2), 1);
	ck_assert_uint_eq(c.n, 0);
	sf_free(&d);
	sf_free(&c);
}
END_TEST

/* Two start events share context provider C with other parameters: C is
 * enabled with their combination, re-enabled with the remaining one's
 * when the first ends, disabled with the second. */
START_TEST(reaggregation)
{
	struct sfx x;
	sfx_start(&x, sfx_config_text(TWO), 1);
	struct etl_guid a1 = ZERO, a2 = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a1, 1), ETL_OK);
	ck_assert(enabled_at(PC, 4, 0x4));
	ck_assert(!etl_provider_enabled(&sfx_prov[PD]));
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 3, &a2, 2), ETL_OK);
	ck_assert(enabled_at(PC, 4, 0xC));
	ck_assert(enabled_at(PD, 4, 0x1));
	sfx_write(PC, 10, 2, 0x8, 11);                 /* S2's: in */
	sfx_write(PC, 10, 4, 0x4, 12);                 /* S1's: in */
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &a1, 3), ETL_OK);
	ck_assert(enabled_at(PC, 2, 0x8));             /* S2's alone */
	ck_assert(enabled_at(PD, 4, 0x1));
	sfx_write(PC, 10, 4, 0x4, 13);                 /* S1's: out now */
	sfx_write(PC, 10, 2, 0x8, 14);                 /* in */
	sfx_write(PC, 10, 3, 0x8, 15);                 /* level 3 > 2: out */
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 4, &a2, 4), ETL_OK);
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	ck_assert(!etl_provider_enabled(&sfx_prov[PD]));

	struct sf_file d, c;
	sfx_finish(&x, &d, &c);
	ck_assert_uint_eq(c.n, 3);
	ck_assert(sf_has_tag(&c, &sfx_guid[PC], 11) && sf_has_tag(&c, &sfx_guid[PC], 12) &&
	          sf_has_tag(&c, &sfx_guid[PC], 14));
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, -1), 4);
	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 32, 0);
	status_event(e, 32, PA, 1, &a1);
	ck_assert_uint_eq(e->n_actions, 1);
	action(&e->actions[0], PC, 4, 0x4, 0);
	e = sf_nth(&d, &SF_KERNEL_WDI, 32, 1);
	status_event(e, 32, PA, 3, &a2);
	ck_assert_uint_eq(e->n_actions, 2);
	action(&e->actions[0], PC, 4, 0xC, 0);         /* combined */
	action(&e->actions[1], PD, 4, 0x1, 0);
	e = sf_nth(&d, &SF_KERNEL_WDI, 33, 0);
	status_event(e, 33, PB, 2, &a1);
	ck_assert_uint_eq(e->n_actions, 1);
	action(&e->actions[0], PC, 2, 0x8, 0);         /* re-aggregated */
	e = sf_nth(&d, &SF_KERNEL_WDI, 33, 1);
	status_event(e, 33, PB, 4, &a2);
	ck_assert_uint_eq(e->n_actions, 2);
	action(&e->actions[0], PC, 0, 0, 0);
	action(&e->actions[1], PD, 0, 0, 0);
	sf_free(&d);
	sf_free(&c);
}
END_TEST

/* ---- merged start events and capture state ------------------------------- */

static int g_calls[SFX_NPROV][3];

static void on_control(void *ctx, int code, uint8_t level, uint64_t any, uint64_t all)
{
	(void)level;
	(void)any;
	(void)all;
	int k = (int)((etl_provider *)ctx - sfx_prov);
	if (code >= 0 && code <= 2)
		g_calls[k][code]++;
}

/* merge.reg: S1 and S2 share the start event A;1. One start starts both:
 * one instance, their context providers united (C combined: 4 / 0xC), C
 * asked for its state (CaptureState in S2), either scenario's end event
 * ends it, and S2's ScenarioTimeoutEnabled 0 keeps it from timing out. */
START_TEST(merged_start)
{
	sfx_teardown();
	memset(g_calls, 0, sizeof g_calls);
	sfx_setup(on_control);
	struct sfx x;
	sfx_start(&x, sx_load("merge.reg"), 1);
	size_t n;
	const struct etl_sem_start_event *se = etl_sem_config_start_events(x.cfg, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(se[0].n_scenarios, 2);
	struct etl_guid act = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &act, 1), ETL_OK);
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.started, 1);
	ck_assert_uint_eq(st.in_flight, 1);
	ck_assert_uint_eq(st.context_providers, 2);
	ck_assert(enabled_at(PC, 4, 0xC));
	ck_assert(enabled_at(PD, 4, 0x80));
	ck_assert_int_eq(g_calls[PC][ETL_CONTROL_ENABLE], 1);
	ck_assert_int_eq(g_calls[PC][ETL_CONTROL_CAPTURE_STATE], 1);
	ck_assert_int_eq(g_calls[PD][ETL_CONTROL_CAPTURE_STATE], 0);
	sfx_advance(&x, 3600 * SFX_SEC);               /* an hour: no timeout */
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.in_flight, 1);
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 3, &act, 2), ETL_OK);     /* S2's end event */
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
	ck_assert_int_eq(g_calls[PC][ETL_CONTROL_DISABLE], 1);

	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 32, 0);
	status_event(e, 32, PA, 1, &act);
	ck_assert_uint_eq(e->n_actions, 2);
	action(&e->actions[0], PC, 4, 0xC, 0);
	action(&e->actions[1], PD, 4, 0x80, 0);
	status_event(sf_nth(&d, &SF_KERNEL_WDI, 33, 0), 33, PB, 3, &act);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, -1), 2);
	sf_free(&d);
}
END_TEST

/* ---- refused and failed ---------------------------------------------------- */

START_TEST(duplicate_activity)
{
	struct sfx x;
	sfx_start(&x, sfx_config_text(BASIC), 1);
	struct etl_guid act = { 0x12345678, 0x9abc, 0xdef0, { 1, 2, 3, 4, 5, 6, 7, 8 } }, keep = act;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &act, 1), ETL_OK);
	same_guid(&act, &keep);                        /* a caller's id is kept */
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &act, 2), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_OBJECT_NAME_COLLISION);
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.started, 1);
	ck_assert_uint_eq(st.start_failed, 1);
	ck_assert_uint_eq(st.in_flight, 1);
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &act, 3), ETL_OK);
	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	ck_assert_uint_eq(sf_count(&d, &sfx_guid[PA], 1), 2);       /* both starts written */
	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 36, 0);
	status_event(e, 36, PA, 1, &act);
	ck_assert_uint_eq(e->ntstatus, 0xC0000035u);
	ck_assert_uint_eq(e->level, 3);
	ck_assert_uint_eq(e->opcode, 13);
	ck_assert_str_eq(e->message, "No scenario could be started for event 1 of provider "
	                 "{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa}: status 0xC0000035.");
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 32), 1);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 33), 1);
	sf_free(&d);
}
END_TEST

/* 128 instances in flight (100 of A;1 and 28 of A;5); the 129th is refused
 * with event 35 counting them per start event. */
START_TEST(in_flight_limit)
{
	static const char CFG[] = SFX_HEAD
		SFX_END(SFX_S1, SFX_A ";1", SFX_B ";2")
		SFX_END(SFX_S2, SFX_A ";5", SFX_B ";6");
	struct sfx x;
	sfx_start(&x, sfx_config_text(CFG), 1);
	struct etl_guid first = ZERO;
	for (int i = 0; i < ETL_SEM_MAX_INSTANCES; i++) {
		struct etl_guid act = ZERO;
		ck_assert_int_eq(sfx_start_scenario(&x, PA, i < 100 ? 1 : 5, &act, (uint32_t)i), ETL_OK);
		if (i == 0)
			first = act;
	}
	struct etl_guid act = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &act, 999), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_INSUFFICIENT_RESOURCES);
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.in_flight, 128);
	ck_assert_uint_eq(st.refused, 1);
	/* One ends: there is room again. */
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &first, 1000), ETL_OK);
	struct etl_guid again = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 5, &again, 1001), ETL_OK);
	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 35, 0);
	status_event(e, 35, PA, 1, &act);
	ck_assert_uint_eq(e->opcode, 15);
	ck_assert_uint_eq(e->n_census, 2);
	same_guid(&e->census[0].provider, &sfx_guid[PA]);
	ck_assert_uint_eq(e->census[0].id, 1);
	ck_assert_uint_eq(e->census[0].count, 100);
	same_guid(&e->census[1].provider, &sfx_guid[PA]);
	ck_assert_uint_eq(e->census[1].id, 5);
	ck_assert_uint_eq(e->census[1].count, 28);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 35), 1);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 32), 129);
	/* One ended by its end event, 128 by the stop. */
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 33), 129);
	sf_free(&d);
}
END_TEST

START_TEST(end_failures)
{
	struct sfx x;
	sfx_start(&x, sfx_config_text(TWO), 1);
	struct etl_guid a1 = ZERO, other = { 7, 7, 7, { 7 } };
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a1, 1), ETL_OK);
	/* S2's end event does not end S1's instance. */
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 4, &a1, 2), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_OBJECT_NAME_NOT_FOUND);
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &other, 3), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_OBJECT_NAME_NOT_FOUND);
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &ZERO, 4), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_INVALID_PARAMETER);
	/* Not an end event at all: only written. */
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 77, &a1, 5), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_NOT_FOUND);
	ck_assert_int_eq(sfx_start_scenario(&x, PE, 1, &other, 6), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_NOT_FOUND);
	/* Nothing written for bad arguments. */
	struct etl_event_descriptor dd = { .id = 2, .level = 4 };
	ck_assert_int_eq(etl_sem_write_end_scenario(x.sem, &sfx_prov[PB], &dd, NULL, 0, NULL), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(etl_sem_write_start_scenario(x.sem, NULL, &dd, &other, 0, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_sem_write_start_scenario_tracelogging(x.sem, &sfx_prov[PA], &dd, NULL, 0, &other, 0,
	                                                           NULL), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_INVALID_PARAMETER);
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.end_failed, 3);
	ck_assert_uint_eq(st.in_flight, 1);
	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 37), 3);
	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 37, 0);
	status_event(e, 37, PB, 4, &a1);
	ck_assert_uint_eq(e->ntstatus, 0xC0000034u);
	ck_assert_uint_eq(e->opcode, 14);
	status_event(sf_nth(&d, &SF_KERNEL_WDI, 37, 1), 37, PB, 2, &other);
	ck_assert_uint_eq(sf_nth(&d, &SF_KERNEL_WDI, 37, 1)->ntstatus, 0xC0000034u);
	status_event(sf_nth(&d, &SF_KERNEL_WDI, 37, 2), 37, PB, 2, NULL);
	ck_assert_uint_eq(sf_nth(&d, &SF_KERNEL_WDI, 37, 2)->ntstatus, 0xC000000Du);
	/* Every end event was written, ended something or not. */
	ck_assert_uint_eq(sf_count(&d, &sfx_guid[PB], -1), 4);
	sf_free(&d);
}
END_TEST

/* ---- time -------------------------------------------------------------------- */

/* SEMTimeoutValue 1 minute: housekeeping every 6 s. S1's instance ends at
 * the first tick at which it is a minute old (34); S2's never times out. */
START_TEST(timeout)
{
	static const char CFG[] = SFX_HEAD
		SFX_CONFIG("\"SEMTimeoutValue\"=dword:00000001\r\n")
		SFX_END(SFX_S1, SFX_A ";1", SFX_B ";2")
		SFX_CTX(SFX_S1, SFX_A ";1", SFX_C) SFX_LEVEL(4) SFX_KEYWORD(04)
		SFX_END(SFX_S2, SFX_A ";3", SFX_B ";4")
		SFX_CTX(SFX_S2, SFX_A ";3", SFX_D) SFX_LEVEL(4) SFX_KEYWORD(01)
		"[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WDI\\Scenarios\\" SFX_S2 "\\Config]\r\n"
		"\"ScenarioTimeoutEnabled\"=dword:00000000\r\n";
	struct sfx x;
	sfx_start(&x, sfx_config_text(CFG), 1);
	ck_assert_uint_eq(etl_sem_config_housekeeping_seconds(x.cfg), 6);
	struct etl_guid a1 = ZERO, a2 = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a1, 1), ETL_OK);
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 3, &a2, 2), ETL_OK);
	struct etl_sem_stats st;
	sfx_advance(&x, 59 * SFX_SEC);
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.in_flight, 2);
	ck_assert(etl_provider_enabled(&sfx_prov[PC]));
	sfx_advance(&x, SFX_SEC);                      /* 60 s: the tick at 60 */
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.in_flight, 1);
	ck_assert_uint_eq(st.timed_out, 1);
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	ck_assert(etl_provider_enabled(&sfx_prov[PD]));
	sfx_write(PC, 10, 4, 0x4, 3);                  /* out */
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &a1, 4), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_OBJECT_NAME_NOT_FOUND);
	sfx_advance(&x, 24 * 3600 * SFX_SEC);
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.in_flight, 1);
	ck_assert_uint_eq(st.timed_out, 1);
	struct sf_file d, c;
	sfx_finish(&x, &d, &c);
	ck_assert_uint_eq(c.n, 0);
	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 34, 0);
	status_event(e, 34, PA, 1, &a1);
	ck_assert_int_eq(e->utc, SFX_T0 + 60 * SFX_SEC);
	ck_assert_uint_eq(e->level, 3);
	ck_assert_uint_eq(e->opcode, 12);
	ck_assert_uint_eq(e->keyword, 0x200000000ull);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 34), 1);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 37), 1);
	/* 33 only for S2's instance, ended by the stop. */
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, 33), 1);
	status_event(sf_nth(&d, &SF_KERNEL_WDI, 33, 0), 33, PA, 3, &a2);
	sf_free(&d);
	sf_free(&c);
}
END_TEST

/* SEMTimeoutValue 0: nothing ever times out. */
START_TEST(timeout_zero)
{
	struct sfx x;
	sfx_start(&x, sx_load("timeout-zero.reg"), 1);
	ck_assert_uint_eq(etl_sem_config_timeout_minutes(x.cfg), 0);
	struct etl_guid a = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a, 1), ETL_OK);
	for (int day = 0; day < 30; day++)
		sfx_advance(&x, 24 * 3600 * SFX_SEC);
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.in_flight, 1);
	ck_assert_uint_eq(st.timed_out, 0);
	ck_assert(etl_provider_enabled(&sfx_prov[PC]));
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &a, 2), ETL_OK);
	sfx_finish(&x, NULL, NULL);
}
END_TEST

/* ---- switched off ------------------------------------------------------------- */

/* Each switch that turns the SEM or the scenario off: the start event is
 * written (or not) like any event and starts nothing; a SEM switched off by
 * a fault says so with event 42. */
START_TEST(sem_off_switches)
{
	static const struct {
		const char *file;
		int sem_on;
		uint32_t misconfig;            /* 42's NTSTATUS, 0 for none */
	} cases[] = {
		{ "sem-disabled.reg", 0, 0 },
		{ "policy-off.reg", 0, 0 },
		{ "policy-name-too-long.reg", 0, ETL_SEM_STATUS_NAME_TOO_LONG },
		{ "scenario-name-too-long.reg", 0, ETL_SEM_STATUS_NAME_TOO_LONG },
		{ "policy-65-disabled.reg", 0, ETL_SEM_STATUS_INSUFFICIENT_RESOURCES },
		{ "policy-scenario-off.reg", 1, 0 },
		{ "scenario-config-off.reg", 1, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sfx x;
		sfx_start(&x, sx_load(cases[i].file), 1);
		ck_assert_int_eq(etl_sem_config_enabled(x.cfg), cases[i].sem_on);
		struct etl_guid a = ZERO;
		ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a, 1), ETL_OK);
		ck_assert_msg(etl_sem_last_status() == ETL_SEM_STATUS_NOT_FOUND, "%s", cases[i].file);
		ck_assert(!etl_guid_is_null(&a));
		ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
		sfx_write(PC, 10, 4, 0x4, 2);
		struct etl_sem_stats st;
		etl_sem_stats(x.sem, &st);
		ck_assert_uint_eq(st.started, 0);
		struct sf_file d, c;
		sfx_finish(&x, &d, &c);
		ck_assert_uint_eq(c.n, 0);
		/* No DiagLog provider either: only Kernel-WDI's events. */
		ck_assert_msg(d.n == (cases[i].misconfig ? 1u : 0u), "%s: %zu events", cases[i].file, d.n);
		if (cases[i].misconfig) {
			/* No definition to name: zero GUID, id 0. */
			const struct sf_event *e = &d.ev[0];
			same_guid(&e->provider, &SF_KERNEL_WDI);
			ck_assert_uint_eq(e->id, 42);
			same_guid(&e->st_provider, &ZERO);
			ck_assert_uint_eq(e->st_id, 0);
			ck_assert_uint_eq(e->ntstatus, cases[i].misconfig);
			ck_assert_uint_eq(e->level, 2);
			ck_assert_uint_eq(e->task, 10);
		}
		sf_free(&d);
		sf_free(&c);
	}
}
END_TEST

/* ---- update, dispatch --------------------------------------------------------- */

START_TEST(update)
{
	static const char CFG2[] = SFX_HEAD
		SFX_END(SFX_S2, SFX_A ";5", SFX_B ";6")
		SFX_CTX(SFX_S2, SFX_A ";5", SFX_D) SFX_LEVEL(4) SFX_KEYWORD(01);
	struct sfx x;
	sfx_start(&x, sfx_config_text(BASIC), 1);
	struct etl_guid a1 = ZERO, a2 = ZERO, a3 = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a1, 1), ETL_OK);
	ck_assert(etl_provider_enabled(&sfx_prov[PC]));
	etl_sem_config *old = x.cfg;
	x.cfg = sfx_config_text(CFG2);
	ck_assert_int_eq(etl_sem_update(x.sem, x.cfg), ETL_OK);
	etl_sem_config_free(old);                      /* no longer used */
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.stopped, 1);
	ck_assert_uint_eq(st.in_flight, 0);
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a2, 2), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_NOT_FOUND);
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 5, &a3, 3), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
	ck_assert(enabled_at(PD, 4, 0x1));
	ck_assert_int_eq(etl_sem_update(x.sem, NULL), ETL_FAILED);
	ck_assert_int_eq(etl_sem_errcode(x.sem), ETL_E_MISUSE);
	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	/* 32 (a1), 33 for a1 by the update, naming its start event; 32 (a3),
	 * 33 for a3 by the stop. */
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, -1), 4);
	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 33, 0);
	status_event(e, 33, PA, 1, &a1);
	ck_assert_uint_eq(e->n_actions, 1);
	action(&e->actions[0], PC, 0, 0, 0);
	status_event(sf_nth(&d, &SF_KERNEL_WDI, 32, 1), 32, PA, 5, &a3);
	status_event(sf_nth(&d, &SF_KERNEL_WDI, 33, 1), 33, PA, 5, &a3);
	sf_free(&d);
}
END_TEST

START_TEST(dispatch)
{
	struct sfx x;
	sfx_start(&x, sfx_config_text(BASIC), 1);
	struct etl_guid act = ZERO;
	struct etl_event_descriptor d1 = { .id = 1 }, d2 = { .id = 2 };
	ck_assert_int_eq(etl_sem_dispatch(x.sem, ETL_SEM_DISPATCH_START, &sfx_guid[PA], &d1, &act), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
	ck_assert(!etl_guid_is_null(&act));
	ck_assert(etl_provider_enabled(&sfx_prov[PC]));
	sfx_write(PC, 10, 4, 0x4, 1);
	ck_assert_int_eq(etl_sem_dispatch(x.sem, ETL_SEM_DISPATCH_END, &sfx_guid[PB], &d2, &act), ETL_OK);
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	ck_assert_int_eq(etl_sem_dispatch(x.sem, 12, &sfx_guid[PA], &d1, &act), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(etl_sem_dispatch(x.sem, ETL_SEM_DISPATCH_START, &sfx_guid[PE], &d1, &act), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_NOT_FOUND);
	ck_assert_int_eq(etl_sem_dispatch(x.sem, ETL_SEM_DISPATCH_END, &sfx_guid[PB], &d2, &act), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_OBJECT_NAME_NOT_FOUND);
	struct sf_file d, c;
	sfx_finish(&x, &d, &c);
	/* No event of PA or PB: dispatch writes none. */
	ck_assert_uint_eq(d.n, 3);
	status_event(&d.ev[0], 32, PA, 1, &act);
	status_event(&d.ev[1], 33, PB, 2, &act);
	status_event(&d.ev[2], 37, PB, 2, &act);
	ck_assert_uint_eq(c.n, 1);
	sf_free(&d);
	sf_free(&c);
}
END_TEST

/* ---- TraceLogging --------------------------------------------------------------- */

START_TEST(tracelogging)
{
	static const char CFG[] = SFX_HEAD
		SFX_END(SFX_S1, SFX_A ";0", SFX_B ";0")
		SFX_CTX(SFX_S1, SFX_A ";0", SFX_C) SFX_LEVEL(4) SFX_KEYWORD(04);
	struct sfx x;
	sfx_start(&x, sfx_config_text(CFG), 1);
	struct etl_guid act = ZERO, other = { 9, 9, 9, { 9 } };
	ETL_SEM_TL_START(x.sem, &act, &sfx_prov[PA], "BootStart", ETL_TL_LEVEL(4), ETL_TL_ACTIVITY(&other),
	                 ETL_TL_U32("Phase", 1), ETL_TL_STR8("Name", "demo"));
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
	ck_assert(!etl_guid_is_null(&act));
	ck_assert(etl_provider_enabled(&sfx_prov[PC]));
	sfx_write(PC, 10, 4, 0x4, 1);
	ETL_SEM_TL_END(x.sem, &act, &sfx_prov[PB], "BootEnd", ETL_TL_LEVEL(4), ETL_TL_U32("Phase", 2));
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
	ck_assert(!etl_provider_enabled(&sfx_prov[PC]));
	struct sf_file d, c;
	sfx_finish(&x, &d, &c);
	ck_assert_uint_eq(d.n, 4);
	same_guid(&d.ev[0].provider, &sfx_guid[PA]);
	same_guid(&d.ev[0].activity, &act);            /* not ETL_TL_ACTIVITY's */
	ck_assert_uint_eq(d.ev[0].tag, 1);
	status_event(&d.ev[1], 32, PA, 0, &act);
	status_event(&d.ev[2], 33, PB, 0, &act);
	same_guid(&d.ev[3].activity, &act);
	ck_assert_uint_eq(d.ev[3].tag, 2);
	ck_assert_uint_eq(c.n, 1);
	sf_free(&d);
	sf_free(&c);
}
END_TEST

/* ---- options, lifecycle ------------------------------------------------------------- */

START_TEST(options_and_lifecycle)
{
	struct etl_sem_options o;
	etl_sem_options_init(&o);
	ck_assert_uint_eq(o.diaglog.buffer_size, 16 * 1024);
	ck_assert_uint_eq(o.context.buffer_size, 64 * 1024);
	ck_assert_ptr_null(etl_sem_new(NULL, &o));
	etl_sem_config *cfg = sfx_config_text(BASIC);
	o.struct_size = 8;
	ck_assert_ptr_null(etl_sem_new(cfg, &o));

	/* Names and file names of the caller's. */
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/check_sem.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char dpath[128], cpath[128];
	snprintf(dpath, sizeof dpath, "%s/diag.etl", dir);
	snprintf(cpath, sizeof cpath, "%s/%s", dir, ETL_SEM_CONTEXTLOG_FILE);
	etl_sem_options_init(&o);
	o.directory = dir;
	o.diaglog.file_name = dpath;
	o.diaglog_name = "MyDiagLog";
	o.context.buffer_size = 32 * 1024;
	etl_sem *sem = etl_sem_new(cfg, &o);
	ck_assert_ptr_nonnull(sem);
	ck_assert_int_eq(etl_sem_stop(sem), ETL_FAILED);
	ck_assert_int_eq(etl_sem_start(sem), ETL_OK);
	ck_assert_int_eq(etl_sem_start(sem), ETL_FAILED);
	ck_assert_int_eq(etl_sem_errcode(sem), ETL_E_MISUSE);
	/* The system clock: nothing to advance. */
	ck_assert_int_eq(etl_sem_clock_advanced(sem), ETL_FAILED);
	struct etl_guid a = ZERO;
	struct etl_event_descriptor d1 = { .id = 1, .level = 4 };
	ck_assert_int_eq(etl_sem_write_start_scenario(sem, &sfx_prov[PA], &d1, &a, 0, NULL), ETL_OK);
	/* A second engine cannot take the same logger names. */
	etl_sem *two = etl_sem_new(cfg, &o);
	ck_assert_int_eq(etl_sem_start(two), ETL_FAILED);
	ck_assert_int_eq(etl_sem_errcode(two), ETL_E_LIMIT);
	etl_sem_free(two);
	ck_assert_int_eq(etl_sem_stop(sem), ETL_OK);
	struct etl_sem_stats st;
	etl_sem_stats(sem, &st);
	ck_assert_uint_eq(st.stopped, 1);
	struct etl_session_stats ss;
	etl_session_stats(etl_sem_diaglog(sem), &ss);
	ck_assert_uint_eq(ss.events_written, 3);      /* start event, 32, 33 */
	etl_sem_free(sem);
	etl_sem_config_free(cfg);

	struct sf_file d, c;
	sf_read(&d, dpath);
	sf_read(&c, cpath);
	ck_assert_str_eq(d.logger_name, "MyDiagLog");
	ck_assert_str_eq(c.logger_name, ETL_SEM_CONTEXTLOG_NAME);
	ck_assert_uint_eq(d.lf.buffer_size, 16 * 1024);
	ck_assert_uint_eq(c.lf.buffer_size, 32 * 1024);
	ck_assert_uint_eq(d.n, 3);
	sf_free(&d);
	sf_free(&c);
	unlink(dpath);
	unlink(cpath);
	rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("sem_engine");
	TCase *tc = tcase_create("engine");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, context_at_scenario_edges);
	tcase_add_test(tc, plain_write_starts_nothing);
	tcase_add_test(tc, reaggregation);
	tcase_add_test(tc, merged_start);
	tcase_add_test(tc, duplicate_activity);
	tcase_add_test(tc, in_flight_limit);
	tcase_add_test(tc, end_failures);
	tcase_add_test(tc, timeout);
	tcase_add_test(tc, timeout_zero);
	tcase_add_test(tc, sem_off_switches);
	tcase_add_test(tc, update);
	tcase_add_test(tc, dispatch);
	tcase_add_test(tc, tracelogging);
	tcase_add_test(tc, options_and_lifecycle);
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
