/*
 * check_sem_replay.c - a captured trace replayed through the SEM
 * (etl_sem_replay_event(), the report of etl_sem_report_new() and
 * etl_sem_report_write_json(), doc/sem.md §13).
 *
 * The trace is testdata/sample/windows-scenarios.etl, written by
 * testdata/programs/sem-trace.c (its comment has the play, second by
 * second); it is replayed on the engine's caller's clock set to each
 * event's time, with the configuration Windows installs loaded from
 * testdata/wdi/windows-default.reg and from the offline hives beside it.
 * Asserted exactly: each instance of the report (scenarios, activity id,
 * start and end event and time, status, duration, context events per
 * provider) through the API and through its JSON; every event of
 * DiagLog.etl (the start and end events, the status events decoded
 * through testdata/manifests/kernel-wdi.man) and of WdiContextLog.etl, in
 * order, with their times; the outcome of each scenario event; the JSON
 * text byte for byte against REPORT (what etlreplay --report must write
 * for this trace and configuration, tests/cli/etlreplay_sem.sh). The trace
 * holds the cases of the zero-activity-id rule: a zero-id end with
 * nothing to end, zero-id starts (replay ids), zero-id ends ending the
 * oldest instance they can, one of them an instance with an id of its own.
 * An event that is both an end and a start event (a fixture configuration)
 * ends one instance and starts the next.
 * A missing input skips the test that needs it.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etl.h"
#include "etl_sem.h"
#include "cpu_pin.h"
#include "json_mini.h"
#include "sem_expect.h"
#include "sem_fixture.h"
#include "testutil.h"

#define TRACE "testdata/sample/windows-scenarios.etl"
#define REPORT "testdata/sample/windows-scenarios.report.json"
#define REG "testdata/wdi/windows-default.reg"
#define SYSTEM_HIVE "testdata/wdi/windows-default.SYSTEM.hive"
#define SOFTWARE_HIVE "testdata/wdi/windows-default.SOFTWARE.hive"
#define KERNEL_WDI "{2FF3E6B7-CB90-4700-9621-443F389734ED}"

/* 2024-05-01T08:00:00Z, the trace's second 0. */
#define T0 133590240000000000LL
#define SEC 10000000LL

/* Providers (doc/sem.md §7). */
#define SERVICES "{0063715B-EEDA-4007-9429-AD526F62696E}"
#define WININIT "{206F6DEA-D3C5-4D10-BC72-989F03C8B84B}"
#define UMDF "{2E35AAEB-857F-4BEB-A418-2E6C0E54D988}"
#define SHELL "{30336ED4-E327-447C-9DE0-51B652C86108}"
#define POWER "{331C3B3A-2005-44C2-AC5E-77220C37D6B4}"
#define BOOT_USER "{41932CAB-7E12-40D6-A728-62D30E054593}"
#define PREFETCH "{5322D61A-9EFA-4BC3-A3F9-14BE95C144F8}"
#define HAL "{63D1E632-95CC-4443-9312-AF927761D52A}"
#define BOOT_SYSTEM "{7EFE4AB3-990D-4350-A878-CD8772888199}"
#define BOOTDIAG "{96AC7637-5950-4A30-B8F7-E07E8E5734C1}"
#define PNP "{9C205A39-1250-487D-ABD7-E831C6290539}"
#define SHUTDOWN "{AD5C7A10-4E08-45E1-81B5-CB5EB6EC8917}"
#define SECONDARY "{B27A2C15-40F4-4EA3-9637-628FC612A1D0}"
#define DIAGPERF "{CFC18EC0-96B1-4EBA-961B-622CAEE05B0A}"
#define WINLOGON "{DBE9B383-7CF3-4331-91CC-A3CB16A3B538}"
#define CSR "{E8316A2D-0D94-4F52-85DD-1E15B66C5891}"

/* Scenarios. */
#define S_SHUTDOWN "{2698178D-FDAD-40AE-9D3C-1371703ADC5B}"
#define S_POWER "{533A67EB-9FB5-473D-B884-958CF4B9C4A3}"
#define S_BOOT "{67144949-5132-4859-8036-A737B43825D8}"
#define S_LOGON "{86432A0B-3C7D-4DDF-A89C-172FAA90485D}"
#define S_EJECT "{924F25BC-020A-4CAD-A53E-4A49CFABB6B6}"
#define S_SECONDARY "{9F41811A-0429-42AA-81B7-CFD4D968411F}"
#define S_DEVSTART "{AA526ADC-508B-448A-B2D1-C59511CB59D4}"
#define S_STANDBY "{FFC42108-4920-4ACF-A4FC-8ABDCC68ADA4}"

/* Activity ids: the trace's A1..A7 (sem-trace's activity(n)), the replay
 * ids Z1..Z3 of its zero-id starts at 781-783 s (Data1 the count, Data4
 * the FILETIME), and zero. */
enum { Z3 = -3, Z2, Z1, ZERO, A1, A2, A3, A4, A5, A6, A7 };
static const char *const ACT[] = {
	"{00000003-0000-0000-01DA-9B9F635D1180}", "{00000002-0000-0000-01DA-9B9F62C47B00}",
	"{00000001-0000-0000-01DA-9B9F622BE480}", "{00000000-0000-0000-0000-000000000000}",
	"{5CE0A001-5EA5-4000-8000-000000000001}", "{5CE0A002-5EA5-4000-8000-000000000002}",
	"{5CE0A003-5EA5-4000-8000-000000000003}", "{5CE0A004-5EA5-4000-8000-000000000004}",
	"{5CE0A005-5EA5-4000-8000-000000000005}", "{5CE0A006-5EA5-4000-8000-000000000006}",
	"{5CE0A007-5EA5-4000-8000-000000000007}",
};
#define ACT_TEXT(a) ACT[(a) + 3]

/* ---- what the report must say ------------------------------------------- */

struct want_ctx {
	const char *provider;
	unsigned events;
};

struct want_instance {
	const char *scenarios[2];
	int act;
	const char *start_provider;
	unsigned start_id, start_s;
	int status;
	const char *end_provider;           /* NULL: no end event          */
	unsigned end_id, end_s;             /* end_s: also the timeout's   */
	struct want_ctx ctx[7];             /* provider NULL ends the list */
};

enum { OPEN = ETL_SEM_INSTANCE_OPEN, ENDED = ETL_SEM_INSTANCE_ENDED, TIMEOUT = ETL_SEM_INSTANCE_TIMED_OUT };

static const struct want_instance WANT[] = {
	{ { S_BOOT }, A1, BOOTDIAG, 501, 6, ENDED, WINLOGON, 5007, 24,
	  { { SERVICES, 3 }, { PREFETCH, 2 }, { BOOT_SYSTEM, 2 }, { PNP, 2 }, { WINLOGON, 3 } } },
	{ { S_LOGON }, A2, WINLOGON, 5001, 14, ENDED, WINLOGON, 5002, 34,
	  { { SERVICES, 4 }, { SHELL, 2 }, { BOOT_USER, 2 }, { WINLOGON, 4 } } },
	{ { S_POWER, S_STANDBY }, A3, POWER, 1, 44, ENDED, POWER, 2, 54, { { UMDF, 2 }, { POWER, 4 }, { HAL, 2 } } },
	{ { S_SHUTDOWN }, A4, WINLOGON, 6001, 66, ENDED, POWER, 48, 80,
	  { { SERVICES, 2 }, { WININIT, 2 }, { POWER, 2 }, { SHUTDOWN, 2 }, { WINLOGON, 2 }, { CSR, 2 } } },
	{ { S_SECONDARY }, A5, WINLOGON, 5003, 90, TIMEOUT, NULL, 0, 700,
	  { { SERVICES, 11 }, { SHELL, 1 }, { SECONDARY, 1 }, { WINLOGON, 1 } } },
	{ { S_DEVSTART }, Z1, PNP, 216, 781, ENDED, PNP, 218, 784, { { NULL, 0 } } },
	{ { S_EJECT }, Z2, PNP, 223, 782, ENDED, PNP, 224, 785, { { NULL, 0 } } },
	{ { S_EJECT }, Z3, PNP, 223, 783, OPEN, NULL, 0, 0, { { NULL, 0 } } },
	{ { S_DEVSTART }, A6, PNP, 216, 786, ENDED, PNP, 218, 787, { { NULL, 0 } } },
	{ { S_LOGON }, A7, WINLOGON, 5001, 788, OPEN, NULL, 0, 0,
	  { { SERVICES, 1 }, { SHELL, 0 }, { BOOT_USER, 0 }, { WINLOGON, 0 } } },
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* DiagLog, every event in order: the trace's start and end events and
 * the Kernel-WDI status events (the start or end event they name, the
 * NTSTATUS of 37, the number of actions of 32 and 33). */
struct want_diag {
	unsigned s;                         /* second                          */
	const char *provider;
	unsigned id;
	int act;
	const char *names;                  /* status events: GUID named       */
	unsigned names_id;
	uint32_t ntstatus;                  /* 37                              */
	unsigned actions;                   /* 32, 33                          */
};

#define NAME_NOT_FOUND ETL_SEM_STATUS_OBJECT_NAME_NOT_FOUND
#define INVALID ETL_SEM_STATUS_INVALID_PARAMETER
static const struct want_diag DIAG[] = {
	{ 6, BOOTDIAG, 501, A1, 0, 0, 0, 0 },         { 6, KERNEL_WDI, 32, A1, BOOTDIAG, 501, 0, 5 },
	{ 14, WINLOGON, 5001, A2, 0, 0, 0, 0 },       { 14, KERNEL_WDI, 32, A2, WINLOGON, 5001, 0, 4 },
	{ 24, KERNEL_WDI, 33, A1, WINLOGON, 5007, 0, 5 }, { 24, WINLOGON, 5007, A1, 0, 0, 0, 0 },
	{ 34, KERNEL_WDI, 33, A2, WINLOGON, 5002, 0, 4 }, { 34, WINLOGON, 5002, A2, 0, 0, 0, 0 },
	{ 44, POWER, 1, A3, 0, 0, 0, 0 },             { 44, KERNEL_WDI, 32, A3, POWER, 1, 0, 3 },
	{ 54, KERNEL_WDI, 33, A3, POWER, 2, 0, 3 },   { 54, POWER, 2, A3, 0, 0, 0, 0 },
	{ 66, WINLOGON, 6001, A4, 0, 0, 0, 0 },       { 66, KERNEL_WDI, 32, A4, WINLOGON, 6001, 0, 6 },
	{ 80, KERNEL_WDI, 33, A4, POWER, 48, 0, 6 },  { 80, POWER, 48, A4, 0, 0, 0, 0 },
	{ 90, WINLOGON, 5003, A5, 0, 0, 0, 0 },       { 90, KERNEL_WDI, 32, A5, WINLOGON, 5003, 0, 4 },
	{ 700, KERNEL_WDI, 34, A5, WINLOGON, 5003, 0, 0 },
	{ 770, KERNEL_WDI, 37, A5, DIAGPERF, 10001, NAME_NOT_FOUND, 0 }, { 770, DIAGPERF, 10001, A5, 0, 0, 0, 0 },
	{ 780, KERNEL_WDI, 37, ZERO, PNP, 224, INVALID, 0 }, { 780, PNP, 224, ZERO, 0, 0, 0, 0 },
	{ 781, PNP, 216, ZERO, 0, 0, 0, 0 },          { 781, KERNEL_WDI, 32, Z1, PNP, 216, 0, 0 },
	{ 782, PNP, 223, ZERO, 0, 0, 0, 0 },          { 782, KERNEL_WDI, 32, Z2, PNP, 223, 0, 0 },
	{ 783, PNP, 223, ZERO, 0, 0, 0, 0 },          { 783, KERNEL_WDI, 32, Z3, PNP, 223, 0, 0 },
	{ 784, KERNEL_WDI, 33, Z1, PNP, 218, 0, 0 },  { 784, PNP, 218, ZERO, 0, 0, 0, 0 },
	{ 785, KERNEL_WDI, 33, Z2, PNP, 224, 0, 0 },  { 785, PNP, 224, ZERO, 0, 0, 0, 0 },
	{ 786, PNP, 216, A6, 0, 0, 0, 0 },            { 786, KERNEL_WDI, 32, A6, PNP, 216, 0, 0 },
	{ 787, KERNEL_WDI, 33, A6, PNP, 218, 0, 0 },  { 787, PNP, 218, ZERO, 0, 0, 0, 0 },
	{ 788, WINLOGON, 5001, A7, 0, 0, 0, 0 },      { 788, KERNEL_WDI, 32, A7, WINLOGON, 5001, 0, 4 },
	/* etl_sem_stop() at the trace's last second: the two still open. */
	{ 790, KERNEL_WDI, 33, A7, WINLOGON, 5001, 0, 4 }, { 790, KERNEL_WDI, 33, Z3, PNP, 223, 0, 0 },
};

/* WdiContextLog, every event in order (second, provider, id). */
struct want_ctx_event {
	unsigned s;
	const char *provider;
	unsigned id;
};

static const struct want_ctx_event CTX[] = {
	/* boot, from 6 s; user logon from 14 s (Services, Winlogon shared) */
	{ 7, SERVICES, 7036 }, { 8, PREFETCH, 100 }, { 9, BOOT_SYSTEM, 1 }, { 10, PNP, 400 }, { 11, WINLOGON, 811 },
	{ 15, SERVICES, 7036 }, { 16, SHELL, 9705 }, { 17, BOOT_USER, 1 }, { 18, WINLOGON, 811 },
	{ 19, SERVICES, 7036 }, { 20, PREFETCH, 100 }, { 21, BOOT_SYSTEM, 1 }, { 22, PNP, 400 }, { 23, WINLOGON, 811 },
	/* the boot ended at 24 s: its own providers are off again */
	{ 25, SERVICES, 7036 }, { 26, SHELL, 9705 }, { 27, BOOT_USER, 1 }, { 28, WINLOGON, 811 },
	{ 29, SERVICES, 7036 }, { 33, WINLOGON, 811 },
	/* standby/resume 44-54 s */
	{ 45, UMDF, 10 }, { 46, POWER, 105 }, { 47, POWER, 106 }, { 48, HAL, 12 },
	{ 50, UMDF, 10 }, { 51, POWER, 105 }, { 52, POWER, 106 }, { 53, HAL, 12 },
	/* shutdown 66-80 s */
	{ 67, SERVICES, 7036 }, { 68, WININIT, 12 }, { 69, POWER, 109 }, { 70, SHUTDOWN, 1 }, { 71, WINLOGON, 811 },
	{ 72, CSR, 1 }, { 74, SERVICES, 7036 }, { 75, WININIT, 12 }, { 76, POWER, 109 }, { 77, SHUTDOWN, 1 },
	{ 78, WINLOGON, 811 }, { 79, CSR, 1 },
	/* secondary logon from 90 s until it timed out at 700 s */
	{ 91, SERVICES, 7036 }, { 92, SHELL, 9705 }, { 93, SECONDARY, 1 }, { 94, WINLOGON, 811 },
	{ 100, SERVICES, 7036 }, { 160, SERVICES, 7036 }, { 220, SERVICES, 7036 }, { 280, SERVICES, 7036 },
	{ 340, SERVICES, 7036 }, { 400, SERVICES, 7036 }, { 460, SERVICES, 7036 }, { 520, SERVICES, 7036 },
	{ 580, SERVICES, 7036 }, { 640, SERVICES, 7036 },
	/* user logon from 788 s, open */
	{ 789, SERVICES, 7036 },
};

/* The outcome of the replay of each scenario event, by second: the
 * write's result (every event reaches its sessions) and the scenario
 * action's status. */
struct want_outcome {
	unsigned s;
	int rc;
	uint32_t status;
};

static const struct want_outcome OUTCOMES[] = {
	{ 6, ETL_OK, 0 },    { 14, ETL_OK, 0 },   { 24, ETL_OK, 0 },  { 34, ETL_OK, 0 },
	{ 44, ETL_OK, 0 },   { 54, ETL_OK, 0 },   { 66, ETL_OK, 0 },  { 80, ETL_OK, 0 },
	{ 90, ETL_OK, 0 },   { 770, ETL_OK, NAME_NOT_FOUND },         { 780, ETL_OK, INVALID },
	{ 781, ETL_OK, 0 },  { 782, ETL_OK, 0 },  { 783, ETL_OK, 0 }, { 784, ETL_OK, 0 },
	{ 785, ETL_OK, 0 },  { 786, ETL_OK, 0 },  { 787, ETL_OK, 0 }, { 788, ETL_OK, 0 },
	/* no scenario event: nothing to do */
	{ 0, ETL_OK, ETL_SEM_STATUS_NOT_FOUND }, { 12, ETL_OK, ETL_SEM_STATUS_NOT_FOUND },
	{ 700, ETL_OK, ETL_SEM_STATUS_NOT_FOUND },
};

/* ---- the replay --------------------------------------------------------------- */

#define MAX_SECOND 800

struct replayed {
	struct etl_sem_report *report;
	char *json;
	struct sf_file diag, ctx;
	int rc[MAX_SECOND + 1];
	uint32_t status[MAX_SECOND + 1];
	size_t events;
};

static int to_bytes(void *ctx, const void *p, size_t n)
{
	tu_putbytes(ctx, p, n);
	return 0;
}

/* Replays TRACE through an engine on cfg (taken over), as etlreplay does:
 * the clock at the trace's start when the SEM starts, then at each event's
 * time, etl_sem_clock_advanced() before each event. */
static void replay(etl_sem_config *cfg, struct replayed *out)
{
	memset(out, 0, sizeof *out);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(etl_reader_open_file(r, TRACE), ETL_OK);
	atomic_store(&sfx_now, etl_reader_logfile(r)->start_time);
	ck_assert_int_eq(etl_reader_logfile(r)->start_time, T0);
	struct sfx x;
	struct etl_sem_options o;
	etl_sem_options_init(&o);
	o.blocking = 1;
	sfx_start_with(&x, cfg, &o);
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (ev->buffer_offset == 0)
			continue;                      /* the header buffer's records */
		atomic_store(&sfx_now, ev->utc);
		ck_assert_int_eq(etl_sem_clock_advanced(x.sem), ETL_OK);
		int rc = etl_sem_replay_event(x.sem, ev);
		int64_t s = (ev->utc - T0) / SEC;
		ck_assert(s >= 0 && s <= MAX_SECOND && ev->utc == T0 + s * SEC);
		out->rc[s] = rc;
		out->status[s] = etl_sem_last_status();
		out->events++;
	}
	etl_reader_free(r);
	sfx_stop(&x);
	out->report = etl_sem_report_new(x.sem);
	ck_assert_ptr_nonnull(out->report);
	struct tu_bytes b;
	tu_bytes_init(&b);
	ck_assert_int_eq(etl_sem_report_write_json(out->report, to_bytes, &b), 0);
	tu_put8(&b, 0);
	out->json = (char *)b.p;
	sfx_finish(&x, &out->diag, &out->ctx);
}

static void replayed_free(struct replayed *r)
{
	etl_sem_report_free(r->report);
	free(r->json);
	sf_free(&r->diag);
	sf_free(&r->ctx);
}

/* ---- checks --------------------------------------------------------------- */

static void guid_is(const struct etl_guid *g, const char *want, const char *what)
{
	char t[ETL_GUID_STRLEN];
	struct etl_guid w = sx_guid(want);
	ck_assert_msg(etl_guid_equal(g, &w), "%s: {%s}, expected %s", what, etl_guid_format(g, t), want);
}

static size_t n_ctx(const struct want_instance *w)
{
	size_t n = 0;
	while (n < N(w->ctx) && w->ctx[n].provider)
		n++;
	return n;
}

static size_t n_scen(const struct want_instance *w)
{
	return w->scenarios[1] ? 2 : 1;
}

/* The report through the API. */
static void check_report(const struct etl_sem_report *r)
{
	ck_assert_uint_eq(r->n_instances, N(WANT));
	ck_assert_uint_eq(r->unrecorded, 0);
	for (size_t i = 0; i < N(WANT); i++) {
		const struct want_instance *w = &WANT[i];
		const struct etl_sem_instance_report *x = &r->instances[i];
		ck_assert_uint_eq(x->n_scenarios, n_scen(w));
		for (size_t k = 0; k < x->n_scenarios; k++)
			guid_is(&x->scenarios[k], w->scenarios[k], "scenario");
		guid_is(&x->activity, ACT_TEXT(w->act), "activity");
		guid_is(&x->start.provider, w->start_provider, "start provider");
		ck_assert_uint_eq(x->start.id, w->start_id);
		ck_assert_int_eq(x->start.time, T0 + w->start_s * SEC);
		ck_assert_int_eq(x->status, w->status);
		if (w->status == ENDED) {
			guid_is(&x->end.provider, w->end_provider, "end provider");
			ck_assert_uint_eq(x->end.id, w->end_id);
		} else {
			guid_is(&x->end.provider, ACT_TEXT(ZERO), "no end provider");
			ck_assert_uint_eq(x->end.id, 0);
		}
		if (w->status == OPEN) {
			ck_assert_int_eq(x->end.time, 0);
			ck_assert_int_eq(x->duration, -1);
		} else {
			ck_assert_int_eq(x->end.time, T0 + w->end_s * SEC);
			ck_assert_int_eq(x->duration, (int64_t)(w->end_s - w->start_s) * SEC);
		}
		ck_assert_uint_eq(x->n_context, n_ctx(w));
		for (size_t k = 0; k < x->n_context; k++) {
			guid_is(&x->context[k].provider, w->ctx[k].provider, "context provider");
			ck_assert_msg(x->context[k].events == w->ctx[k].events, "instance %zu, %s: %llu events, expected %u",
			              i, w->ctx[k].provider, (unsigned long long)x->context[k].events, w->ctx[k].events);
		}
	}
	ck_assert_uint_eq(r->diaglog_events, N(DIAG));
	ck_assert_uint_eq(r->wdicontextlog_events, N(CTX));
	ck_assert_uint_eq(r->lost_events, 0);
}

static void time_is(const struct jm_val *o, unsigned s)
{
	char want[ETL_TIME_STRLEN];
	etl_filetime_format(T0 + s * SEC, want, sizeof want);
	ck_assert_str_eq(jm_str(o, "time"), want);
}

/* {"provider", "id", "time"} */
static void json_event(const struct jm_val *o, const char *provider, unsigned id, unsigned s)
{
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->type, JM_OBJ);
	ck_assert_uint_eq(o->len, 3);
	ck_assert_str_eq(jm_str(o, "provider"), provider);
	ck_assert_int_eq(jm_int(o, "id", -1), id);
	time_is(o, s);
}

/* The report as its JSON contract (doc/sem.md §13). */
static void check_report_json(const char *text)
{
	char err[256];
	struct jm_val *j = jm_parse(text, strlen(text), err, sizeof err);
	ck_assert_msg(j != NULL, "report JSON: %s", err);
	ck_assert_int_eq(j->type, JM_OBJ);
	ck_assert_uint_eq(j->len, 4);
	ck_assert_int_eq(jm_int(j, "diaglog_events", -1), N(DIAG));
	ck_assert_int_eq(jm_int(j, "wdicontextlog_events", -1), N(CTX));
	ck_assert_int_eq(jm_int(j, "lost_events", -1), 0);
	const struct jm_val *a = jm_get(j, "instances");
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->type, JM_ARR);
	ck_assert_uint_eq(a->len, N(WANT));
	static const char *const status[] = { "open", "ended", "timeout" };
	for (size_t i = 0; i < N(WANT); i++) {
		const struct want_instance *w = &WANT[i];
		const struct jm_val *x = &a->items[i];
		ck_assert_int_eq(x->type, JM_OBJ);
		ck_assert_uint_eq(x->len, 7);
		const struct jm_val *sc = jm_get(x, "scenarios");
		ck_assert_uint_eq(sc->len, n_scen(w));
		for (size_t k = 0; k < sc->len; k++)
			ck_assert_str_eq(sc->items[k].str, w->scenarios[k]);
		ck_assert_str_eq(jm_str(x, "activity_id"), ACT_TEXT(w->act));
		json_event(jm_get(x, "start"), w->start_provider, w->start_id, w->start_s);
		const struct jm_val *end = jm_get(x, "end");
		if (w->status == ENDED)
			json_event(end, w->end_provider, w->end_id, w->end_s);
		else
			ck_assert_int_eq(end->type, JM_NULL);
		ck_assert_str_eq(jm_str(x, "status"), status[w->status]);
		const struct jm_val *d = jm_get(x, "duration_ms");
		if (w->status == OPEN) {
			ck_assert_int_eq(d->type, JM_NULL);
		} else {
			ck_assert(d->type == JM_NUM && d->is_int);
			ck_assert_int_eq(d->i, (long long)(w->end_s - w->start_s) * 1000);
		}
		const struct jm_val *c = jm_get(x, "context_events");
		ck_assert_int_eq(c->type, JM_OBJ);
		ck_assert_uint_eq(c->len, n_ctx(w));
		for (size_t k = 0; k < c->len; k++) {
			ck_assert_str_eq(c->keys[k], w->ctx[k].provider);
			ck_assert(c->items[k].is_int);
			ck_assert_int_eq(c->items[k].i, w->ctx[k].events);
		}
	}
	jm_free(j);
}

/* One DiagLog event against its expectation. */
static int diag_matches(const struct sf_event *e, const struct want_diag *w)
{
	struct etl_guid p = sx_guid(w->provider), a = sx_guid(ACT_TEXT(w->act));
	return e->utc == T0 + w->s * SEC && etl_guid_equal(&e->provider, &p) && e->id == w->id &&
	       etl_guid_equal(&e->activity, &a);
}

static void check_diag_event(const struct sf_event *e, const struct want_diag *w)
{
	if (!w->names) {
		ck_assert_uint_eq(e->tag, w->s);  /* the trace's own payload */
		return;
	}
	ck_assert(e->decoded);
	guid_is(&e->st_provider, w->names, "status event's ProviderID");
	ck_assert_uint_eq(e->st_id, w->names_id);
	if (w->id == 37)
		ck_assert_uint_eq(e->ntstatus, w->ntstatus);
	if (w->id == 32 || w->id == 33) {
		ck_assert_uint_eq(e->n_actions, w->actions);
		ck_assert_uint_eq(e->dropped, 0);
	}
}

/* DiagLog holds DIAG in that order. A status event shares the time of the
 * replayed event it is about and goes into the same processor's buffers
 * (etl_thread_processor_set()), so it reads back where it was written: an
 * end's before the end event, a start's after the start event, whichever
 * processor the replay ran on. */
static void check_diaglog(const struct sf_file *f)
{
	ck_assert_str_eq(f->logger_name, ETL_SEM_DIAGLOG_NAME);
	ck_assert_uint_eq(f->n, N(DIAG));
	for (size_t i = 0; i < N(DIAG); i++) {
		const struct want_diag *w = &DIAG[i];
		ck_assert_msg(diag_matches(&f->ev[i], w), "DiagLog event %zu: %u at %lld s, expected %u of %s at %u s",
		              i, f->ev[i].id, (long long)((f->ev[i].utc - T0) / SEC), w->id, w->provider, w->s);
		check_diag_event(&f->ev[i], w);
	}
}

static void check_contextlog(const struct sf_file *f)
{
	ck_assert_str_eq(f->logger_name, ETL_SEM_CONTEXTLOG_NAME);
	ck_assert_uint_eq(f->n, N(CTX));
	for (size_t i = 0; i < N(CTX); i++) {
		const struct sf_event *e = &f->ev[i];
		ck_assert_msg(e->utc == T0 + CTX[i].s * SEC, "WdiContextLog event %zu: at %lld s, expected %u", i,
		              (long long)((e->utc - T0) / SEC), CTX[i].s);
		guid_is(&e->provider, CTX[i].provider, "WdiContextLog provider");
		ck_assert_uint_eq(e->id, CTX[i].id);
		ck_assert_uint_eq(e->tag, CTX[i].s);
	}
}

static void check_outcomes(const struct replayed *r)
{
	ck_assert_uint_eq(r->events, 129);
	for (size_t i = 0; i < N(OUTCOMES); i++) {
		unsigned s = OUTCOMES[i].s;
		ck_assert_msg(r->rc[s] == OUTCOMES[i].rc && r->status[s] == OUTCOMES[i].status,
		              "second %u: returned %d, status 0x%08X", s, r->rc[s], r->status[s]);
	}
}

static int have(const char *path)
{
	return access(path, R_OK) == 0;
}

#define NEED(path)                                                    \
	do {                                                          \
		if (!have(path)) {                                    \
			tu_skip(__func__, "no %s", path);             \
			return;                                       \
		}                                                     \
	} while (0)

static void check_all(etl_sem_config *cfg)
{
	struct replayed r;
	replay(cfg, &r);
	check_outcomes(&r);
	check_report(r.report);
	check_report_json(r.json);
	size_t n;
	char *want = (char *)tu_load_file(REPORT, &n);
	ck_assert_msg(strlen(r.json) == n && memcmp(r.json, want, n) == 0, "the report differs from %s:\n%s", REPORT,
	              r.json);
	free(want);
	check_diaglog(&r.diag);
	check_contextlog(&r.ctx);
	replayed_free(&r);
}

/* ---- tests ------------------------------------------------------------------ */

/* The replay on each of (at most) two processors the test may run on, the
 * thread kept there: the files must not depend on which one it was (the
 * trace's events were captured on processor 1). Where the system does not
 * let the test choose, one replay wherever it runs. */
START_TEST(test_replay_reg)
{
	NEED(TRACE);
	NEED(REPORT);
	NEED(REG);
	cpu_set_t was;
	ck_assert_int_eq(sched_getaffinity(0, sizeof was, &was), 0);
	int cpus[2], n = pin_cpus(cpus, 2), runs = 0;
	while (runs < n && pin_run_on(cpus[runs])) {
		check_all(sx_load("windows-default.reg"));
		runs++;
	}
	if (runs == 0)
		check_all(sx_load("windows-default.reg"));
	ck_assert_int_eq(sched_setaffinity(0, sizeof was, &was), 0);
}
END_TEST

START_TEST(test_replay_hives)
{
	NEED(TRACE);
	NEED(REPORT);
	NEED(SYSTEM_HIVE);
	NEED(SOFTWARE_HIVE);
	struct etl_sem_error err;
	etl_sem_config *cfg = etl_sem_config_from_hives(SYSTEM_HIVE, SOFTWARE_HIVE, &err);
	ck_assert_msg(cfg != NULL, "%s", err.message);
	check_all(cfg);
}
END_TEST

/* ---- an event that is both an end and a start event ------------------ */

/* S1: A;1 -> B;2; S2: B;2 -> C;3. */
static const char CHAIN[] = SFX_HEAD
	SFX_END(SFX_S1, SFX_A ";1", SFX_B ";2")
	SFX_END(SFX_S2, SFX_B ";2", SFX_C ";3");

/* A captured EVENT_HEADER event of fixture provider k, id, activity, at
 * second s of the fixture's clock (what etl_reader_next() would return;
 * etl_replay_write() reads no offsets). */
static void chain_event(struct sfx *x, int k, uint16_t id, const struct etl_guid *act, int s)
{
	uint32_t tag = (uint32_t)s;
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.present = ETL_EVF_PID | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER | ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY |
	             ETL_EVF_UTC;
	ev.provider = sfx_guid[k];
	ev.id = id;
	ev.level = 4;
	ev.activity_id = *act;
	ev.utc = ev.timestamp = SFX_T0 + s * SFX_SEC;
	ev.pid = 1;
	ev.tid = 2;
	ev.processor = 1;                          /* not the replaying thread's 0 */
	ev.payload = (const uint8_t *)&tag;
	ev.payload_size = sizeof tag;
	atomic_store(&sfx_now, ev.utc);
	ck_assert_int_eq(etl_sem_clock_advanced(x->sem), ETL_OK);
	ck_assert_int_eq(etl_sem_replay_event(x->sem, &ev), ETL_OK);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_SUCCESS);
}

START_TEST(test_replay_end_then_start)
{
	/* B;2 ends the instance of S1, is written, then starts one of S2 with
	 * the same id (free again): doc/sem.md §13. */
	sfx_setup(NULL);
	struct sfx x;
	struct etl_sem_options o;
	etl_sem_options_init(&o);
	o.blocking = 1;
	sfx_start_with(&x, sfx_config_text(CHAIN), &o);
	struct etl_guid act = sx_guid("{12345678-9ABC-4DEF-8123-456789ABCDEF}");
	chain_event(&x, SFX_PA, 1, &act, 1);
	chain_event(&x, SFX_PB, 2, &act, 2);
	chain_event(&x, SFX_PC, 3, &act, 3);
	sfx_stop(&x);
	struct etl_sem_report *r = etl_sem_report_new(x.sem);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->n_instances, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct etl_sem_instance_report *in = &r->instances[i];
		ck_assert_int_eq(in->status, ETL_SEM_INSTANCE_ENDED);
		ck_assert(etl_guid_equal(&in->activity, &act));
		ck_assert(etl_guid_equal(&in->start.provider, &sfx_guid[i ? SFX_PB : SFX_PA]));
		ck_assert(etl_guid_equal(&in->end.provider, &sfx_guid[i ? SFX_PC : SFX_PB]));
		ck_assert_int_eq(in->start.time, SFX_T0 + (int64_t)(i + 1) * SFX_SEC);
		ck_assert_int_eq(in->duration, SFX_SEC);
	}
	guid_is(&r->instances[0].scenarios[0], SFX_S1, "first scenario");
	guid_is(&r->instances[1].scenarios[0], SFX_S2, "second scenario");
	etl_sem_report_free(r);
	struct sf_file d;
	sfx_finish(&x, &d, NULL);
	/* A;1 and 32; 33 (S1 ended by B;2), B;2 and 32 (S2 started by it); 33
	 * and C;3 - in that order, each at its second, with the one activity
	 * id: the status events sit in the buffers of the events' processor
	 * (1), beside them. */
	static const struct { int s, k, id; } want[] = {
		{ 1, SFX_PA, 1 }, { 1, -1, 32 }, { 2, -1, 33 }, { 2, SFX_PB, 2 }, { 2, -1, 32 }, { 3, -1, 33 }, { 3, SFX_PC, 3 },
	};
	ck_assert_uint_eq(d.n, N(want));
	struct etl_guid wdi = sx_guid(KERNEL_WDI);
	for (size_t i = 0; i < N(want); i++) {
		const struct sf_event *e = &d.ev[i];
		ck_assert_msg(e->utc == SFX_T0 + want[i].s * SFX_SEC && e->id == want[i].id &&
		              etl_guid_equal(&e->provider, want[i].k < 0 ? &wdi : &sfx_guid[want[i].k]),
		              "DiagLog event %zu is %u at %lld, expected %d at second %d", i, e->id,
		              (long long)((e->utc - SFX_T0) / SFX_SEC), want[i].id, want[i].s);
		ck_assert(etl_guid_equal(&e->activity, &act));
	}
	sf_free(&d);
	sfx_teardown();
}
END_TEST

START_TEST(test_replay_invalid)
{
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ck_assert_int_eq(etl_sem_replay_event(NULL, &ev), ETL_FAILED);
	ck_assert_uint_eq(etl_sem_last_status(), ETL_SEM_STATUS_INVALID_PARAMETER);
	ck_assert_ptr_null(etl_sem_report_new(NULL));
	etl_sem_report_free(NULL);
	ck_assert_int_eq(etl_sem_report_write_json(NULL, to_bytes, NULL), -1);
}
END_TEST

START_TEST(test_scenario_names)
{
	static const struct { const char *g, *name; } names[] = {
		{ S_SHUTDOWN, "shutdown" }, { S_POWER, "power transition" }, { S_STANDBY, "standby/resume" },
		{ S_BOOT, "boot" }, { S_LOGON, "user logon" }, { S_SECONDARY, "secondary logon" },
		{ S_EJECT, "device eject" }, { S_DEVSTART, "device start" },
	};
	for (size_t i = 0; i < N(names); i++) {
		struct etl_guid g = sx_guid(names[i].g);
		ck_assert_str_eq(etl_sem_scenario_name(&g), names[i].name);
	}
	struct etl_guid other = sx_guid(KERNEL_WDI);
	ck_assert_ptr_null(etl_sem_scenario_name(&other));
	ck_assert_ptr_null(etl_sem_scenario_name(NULL));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sem_replay");
	TCase *tc = tcase_create("replay");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_replay_reg);
	tcase_add_test(tc, test_replay_hives);
	tcase_add_test(tc, test_replay_end_then_start);
	tcase_add_test(tc, test_replay_invalid);
	tcase_add_test(tc, test_scenario_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
