/*
 * check_sem_status.c - the Kernel-WDI status events of the SEM engine
 * (lib/sem/sem_status.c) field by field, decoded through
 * testdata/manifests/kernel-wdi.man: the configuration's own at start
 * (38-41 for what the limits dropped, 42 for rejected definitions), and
 * the parts of 32 and 33 the other tests leave at 0 (enable properties,
 * a provider that cannot be enabled, the context logger's lost events).
 * check_sem_engine.c covers 32-37 in the scenarios' own terms.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etl.h"
#include "etl_sem.h"
#include "sem_fixture.h"
#include "testutil.h"

enum { PA = SFX_PA, PB = SFX_PB, PC = SFX_PC, PD = SFX_PD };

static const struct etl_guid ZERO;

static void setup(void)
{
	sfx_setup(NULL);
}

static void teardown(void)
{
	sfx_teardown();
}

static etl_sem_config *from_text(struct tu_bytes *b)
{
	tu_put8(b, 0);
	etl_sem_config *cfg = sfx_config_text((const char *)b->p);
	tu_bytes_free(b);
	return cfg;
}

#define GEN_ROOT "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WDI\\Scenarios\\%s\\Instrumentation\\%s"
#define GEN_END GEN_ROOT "\\EndEvents\\%s]\r\n"
#define GEN_CTX GEN_ROOT "\\ContextProviders\\%s]\r\n"

/* The one status event with this id naming provider text and event id. */
static const struct sf_event *find(const struct sf_file *f, int id, const char *provider, uint32_t eid)
{
	struct etl_guid g;
	ck_assert_int_eq(etl_guid_parse(provider, &g), ETL_OK);
	const struct sf_event *hit = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const struct sf_event *e = &f->ev[i];
		if (!etl_guid_equal(&e->provider, &SF_KERNEL_WDI) || e->id != id)
			continue;
		if (etl_guid_equal(&e->st_provider, &g) && e->st_id == eid) {
			ck_assert_msg(hit == NULL, "event %d for %s;%u twice", id, provider, eid);
			hit = e;
		}
	}
	ck_assert_msg(hit != NULL, "no event %d for %s;%u", id, provider, eid);
	ck_assert(hit->decoded);
	ck_assert(etl_guid_equal(&hit->activity, &ZERO));
	ck_assert_uint_eq(hit->level, 2);
	ck_assert_uint_eq(hit->task, 10);
	ck_assert_uint_eq(hit->keyword, 0);
	return hit;
}

/* 65 start events (A;9, the last in registry order, dropped: 38), A;1
 * with 17 end events (B;9 dropped: 40) and 125 context providers (the
 * 125th dropped: 39); and three rejected definitions (42): a start event
 * id over 65535, a start event name over 64 characters, a context
 * provider that is Kernel-WDI itself. */
START_TEST(configuration_events)
{
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putf(&b, SFX_HEAD);
	for (unsigned i = 1; i <= 65; i++) {
		char se[64];
		snprintf(se, sizeof se, SFX_A ";%u", i);
		for (unsigned j = 1; j <= (i == 1 ? 17u : 1u); j++) {
			char ee[64];
			snprintf(ee, sizeof ee, SFX_B ";%u", j);
			tu_putf(&b, GEN_END, SFX_S1, se, ee);
		}
	}
	for (unsigned i = 1; i <= 125; i++) {
		char cp[64];
		snprintf(cp, sizeof cp, "{00000000-0000-0000-0000-%012X}", i);
		tu_putf(&b, GEN_CTX, SFX_S1, SFX_A ";1", cp);
	}
	tu_putf(&b, GEN_END, SFX_S2, SFX_C ";70000", SFX_B ";1");
	tu_putf(&b, GEN_END, SFX_S2, SFX_D ";1xxxxxxxxxxxxxxxxxxxxxxxxxxxx", SFX_B ";1");
	tu_putf(&b, GEN_END, SFX_S2, "{EEEEEEEE-EEEE-EEEE-EEEE-EEEEEEEEEEEE};4", SFX_B ";1");
	tu_putf(&b, GEN_CTX, SFX_S2, "{EEEEEEEE-EEEE-EEEE-EEEE-EEEEEEEEEEEE};4", "{2FF3E6B7-CB90-4700-9621-443F389734ED}");
	struct sfx x;
	sfx_start(&x, from_text(&b), 1);
	struct etl_sem_stats st;
	etl_sem_stats(x.sem, &st);
	ck_assert_uint_eq(st.status_events, 6);
	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, -1), 6);

	const struct sf_event *e = find(&d, 38, SFX_A, 9);
	ck_assert_uint_eq(e->opcode, 17);
	ck_assert_str_eq(e->event_name, "SEM_SCENARIO_LIMIT");
	ck_assert_str_eq(e->message, "The start event 9 of provider {aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa} was dropped: "
	                 "too many start events are configured.");
	e = find(&d, 40, SFX_B, 9);
	ck_assert_uint_eq(e->opcode, 19);
	e = find(&d, 39, "{00000000-0000-0000-0000-00000000007D}", 0);
	ck_assert_uint_eq(e->opcode, 18);
	e = find(&d, 42, SFX_C, 0);                    /* the id read as 0 */
	ck_assert_uint_eq(e->ntstatus, ETL_SEM_STATUS_INVALID_PARAMETER);
	ck_assert_uint_eq(e->opcode, 16);
	e = find(&d, 42, SFX_D, 1);
	ck_assert_uint_eq(e->ntstatus, ETL_SEM_STATUS_NAME_TOO_LONG);
	e = find(&d, 42, "{2FF3E6B7-CB90-4700-9621-443F389734ED}", 0);
	ck_assert_uint_eq(e->ntstatus, ETL_SEM_STATUS_INVALID_PARAMETER);
	/* The limits' events come first, in the order they were dropped. */
	ck_assert_uint_eq(d.ev[0].id == 38 || d.ev[0].id == 39 || d.ev[0].id == 40, 1);
	ck_assert_uint_eq(d.ev[3].id, 42);
	sf_free(&d);
}
END_TEST

/* The provider limit: 41 names the provider alone. S1 uses 1024 providers
 * (63 start events, 15 end events each, 16 context providers on the
 * first); S2 brings a 1025th in an end event, a context provider and a
 * start event of its own. */
START_TEST(provider_limit_event)
{
	struct tu_bytes b;
	tu_bytes_init(&b);
	tu_putf(&b, SFX_HEAD);
	for (unsigned i = 0; i < 63; i++) {
		char se[64];
		snprintf(se, sizeof se, "{10000000-0000-0000-0000-0000000000%02X};1", i);
		for (unsigned j = 0; j < 15; j++) {
			char ee[64];
			snprintf(ee, sizeof ee, "{20000000-0000-0000-0000-00000000%04X};1", i * 15 + j);
			tu_putf(&b, GEN_END, SFX_S1, se, ee);
		}
		for (unsigned j = 0; i == 0 && j < 16; j++) {
			char cp[64];
			snprintf(cp, sizeof cp, "{40000000-0000-0000-0000-0000000000%02X}", j);
			tu_putf(&b, GEN_CTX, SFX_S1, se, cp);
		}
	}
	const char *s0 = "{10000000-0000-0000-0000-000000000000};1";
	tu_putf(&b, GEN_END, SFX_S2, s0, "{30000000-0000-0000-0000-000000000002};5");
	tu_putf(&b, GEN_CTX, SFX_S2, s0, "{30000000-0000-0000-0000-000000000001}");
	tu_putf(&b, GEN_END, SFX_S2, "{30000000-0000-0000-0000-000000000003};1", "{10000000-0000-0000-0000-000000000000};1");
	struct sfx x;
	sfx_start(&x, from_text(&b), 1);
	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	ck_assert_uint_eq(sf_count(&d, &SF_KERNEL_WDI, -1), 3);
	static const char *const want[] = { "{30000000-0000-0000-0000-000000000002}",
	                                    "{30000000-0000-0000-0000-000000000001}",
	                                    "{30000000-0000-0000-0000-000000000003}" };
	for (size_t i = 0; i < 3; i++) {
		const struct sf_event *e = &d.ev[i];
		struct etl_guid g;
		etl_guid_parse(want[i], &g);
		ck_assert_uint_eq(e->id, 41);
		ck_assert(e->decoded);
		ck_assert(etl_guid_equal(&e->st_provider, &g));
		ck_assert_uint_eq(e->opcode, 20);
		ck_assert_uint_eq(e->level, 2);
	}
	ck_assert_str_eq(d.ev[0].message, "A definition using provider {30000000-0000-0000-0000-000000000002} "
	                 "was dropped: too many providers are configured.");
	sf_free(&d);
}
END_TEST

/* An enable property in the actions; a context provider that cannot be
 * enabled (8 sessions enable it already) with its NTSTATUS; the context
 * logger's lost events in DroppedEventCount. */
START_TEST(actions_in_full)
{
	static const char CFG[] = SFX_HEAD
		SFX_END(SFX_S1, SFX_A ";1", SFX_B ";2")
		SFX_CTX(SFX_S1, SFX_A ";1", SFX_C) SFX_LEVEL(4) SFX_KEYWORD(04) "\"EnableProperty\"=dword:00000001\r\n"
		SFX_CTX(SFX_S1, SFX_A ";1", SFX_D) SFX_LEVEL(3) SFX_KEYWORD(02);
	/* D on 8 other sessions. */
	etl_session *others[8];
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/check_sem_status.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char paths[8][128];
	for (int i = 0; i < 8; i++) {
		struct etl_session_props sp;
		etl_session_props_init(&sp);
		snprintf(paths[i], sizeof paths[i], "%s/other%d.etl", dir, i);
		sp.file_name = paths[i];
		sp.file_mode = ETL_FILE_BUFFERING;
		char name[32];
		snprintf(name, sizeof name, "Other%d", i);
		others[i] = etl_session_new();
		ck_assert_int_eq(etl_session_start(others[i], name, &sp), ETL_OK);
		struct etl_enable_params ep;
		etl_enable_params_init(&ep);
		ck_assert_int_eq(etl_session_enable(others[i], &sfx_guid[PD], &ep), ETL_OK);
	}
	struct etl_sem_options o;
	etl_sem_options_init(&o);
	o.context.buffer_size = 4096;                  /* an 8000-byte event cannot fit */
	struct sfx x;
	sfx_start_with(&x, sfx_config_text(CFG), &o);
	struct etl_guid a = ZERO;
	ck_assert_int_eq(sfx_start_scenario(&x, PA, 1, &a, 1), ETL_OK);
	uint8_t big[8000];
	memset(big, 0x5A, sizeof big);
	struct etl_event_descriptor dc = { .id = 10, .level = 4, .keyword = 0x4 };
	struct etl_data data = ETL_DATA(big, sizeof big);
	ck_assert_int_eq(etl_write(&sfx_prov[PC], &dc, 1, &data), ETL_FAILED);      /* lost */
	sfx_write(PC, 10, 4, 0x4, 7);
	ck_assert_int_eq(sfx_end_scenario(&x, PB, 2, &a, 2), ETL_OK);
	struct sf_file d, c;
	sfx_finish(&x, &d, &c);
	for (int i = 0; i < 8; i++) {
		etl_session_free(others[i]);
		unlink(paths[i]);
	}
	rmdir(dir);

	const struct sf_event *e = sf_nth(&d, &SF_KERNEL_WDI, 32, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->dropped, 0);
	ck_assert_uint_eq(e->n_actions, 2);
	ck_assert(etl_guid_equal(&e->actions[0].provider, &sfx_guid[PC]));
	ck_assert_uint_eq(e->actions[0].level, 4);
	ck_assert_uint_eq(e->actions[0].keyword, 0x4);
	ck_assert_uint_eq(e->actions[0].property, ETL_ENABLE_SID);
	ck_assert_uint_eq(e->actions[0].status, 0);
	ck_assert(etl_guid_equal(&e->actions[1].provider, &sfx_guid[PD]));
	ck_assert_uint_eq(e->actions[1].level, 0);      /* not enabled */
	ck_assert_uint_eq(e->actions[1].keyword, 0);
	ck_assert_uint_eq(e->actions[1].status, ETL_SEM_STATUS_INSUFFICIENT_RESOURCES);
	ck_assert_str_eq(e->message, "The Scenario Event Mapper started a scenario for provider "
	                 "{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa} (event ID 1) with 2 context providers. "
	                 "The context logger dropped event count was 0.");
	e = sf_nth(&d, &SF_KERNEL_WDI, 33, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->dropped, 1);
	ck_assert_uint_eq(e->actions[0].level, 0);
	ck_assert_uint_eq(e->actions[0].status, 0);
	/* D was never enabled here: disabling it is nothing to do. */
	ck_assert_uint_eq(e->actions[1].status, 0);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.ev[0].tag, 7);
	ck_assert_uint_eq(c.lf.events_lost, 1);
	sf_free(&d);
	sf_free(&c);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("sem_status");
	TCase *tc = tcase_create("status");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, configuration_events);
	tcase_add_test(tc, provider_limit_event);
	tcase_add_test(tc, actions_in_full);
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
