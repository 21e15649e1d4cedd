/*
 * check_trace_clock.c - sessions on the caller's clock
 * (etl_session_props.clock, etl_session_clock_advanced()) and capture-state
 * requests (etl_session_capture_state()) of the tracing runtime.
 *
 * The clock is a FILETIME the test sets by hand: every time the session
 * takes must come from it (event timestamps in each clock type, StartTime,
 * EndTime, BootTime and the QPC rate), and the flush timer must fire only
 * when the test advances it, never on the wall clock.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "etl.h"
#include "etl_trace.h"
#include "cpu_pin.h"
#include "testutil.h"

static const struct etl_guid G_PROV =
	{ 0x51a0c7e3, 0x7d21, 0x4c55, { 0x8e, 0x01, 0x3a, 0x6b, 0x90, 0x12, 0x34, 0x77 } };

/* 2024-01-02T03:04:05Z as a FILETIME. */
#define T0 133486154450000000LL
#define SEC 10000000LL

static _Atomic int64_t g_now;

static int64_t test_clock(void *ctx)
{
	(void)ctx;
	return g_now;
}

static char g_path[256];
static cpu_set_t g_affinity;              /* the thread's at setup */

static void setup(void)
{
	snprintf(g_path, sizeof g_path, "/tmp/check_trace_clock.%d.etl", (int)getpid());
	g_now = T0;
	ck_assert_int_eq(sched_getaffinity(0, sizeof g_affinity, &g_affinity), 0);
}

/* The file goes, and the thread may run where it could before (a test
 * that moved it may have stopped half way). */
static void teardown(void)
{
	unlink(g_path);
	sched_setaffinity(0, sizeof g_affinity, &g_affinity);
	etl_thread_processor_set(0, NULL);
}

static etl_session *start_session(uint32_t clock_type, uint32_t flush_ms)
{
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = g_path;
	sp.clock_type = clock_type;
	sp.flush_timer_ms = flush_ms;
	sp.clock = test_clock;
	etl_session *s = etl_session_new();
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(etl_session_start(s, "ClockTest", &sp) == ETL_OK, "start: %s", etl_session_errmsg(s));
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ck_assert_int_eq(etl_session_enable(s, &G_PROV, &ep), ETL_OK);
	return s;
}

static void write_n(etl_provider *p, uint32_t first, uint32_t n)
{
	static const struct etl_event_descriptor d = { .id = 9, .level = 4 };
	for (uint32_t i = first; i < first + n; i++) {
		struct etl_data data = ETL_DATA(&i, sizeof i);
		ck_assert_int_eq(etl_write(p, &d, 1, &data), ETL_OK);
	}
}

/* The provider's events in the file as it stands: their count, and the
 * UTC time of each (at most 16). */
struct seen {
	size_t n;
	int64_t utc[16];
	uint32_t index[16];
	uint16_t processor[16];
	struct etl_logfile lf;
	size_t failures;
};

static void read_back(struct seen *out)
{
	memset(out, 0, sizeof *out);
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(etl_reader_open_file(r, g_path) == ETL_OK, "open: %s", etl_reader_errmsg(r));
	out->lf = *etl_reader_logfile(r);
	out->lf.logger_name = out->lf.log_file_name = NULL;
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_ne(st, ETL_FATAL);
		if (st != ETL_OK) {
			out->failures++;
			continue;
		}
		if (!etl_guid_equal(&ev->provider, &G_PROV))
			continue;
		if (out->n < 16) {
			out->utc[out->n] = ev->utc;
			out->index[out->n] = ev->payload_size >= 4 ? tu_le32(ev->payload) : 0xFFFFFFFFu;
			out->processor[out->n] = ev->processor;
		}
		out->n++;
	}
	etl_reader_free(r);
}

/* Events stamped at 1 s, 2.5 s and 7 s after start in each clock type:
 * the file says exactly those times, and StartTime / EndTime are the
 * clock at start and at stop. */
static void stamps_follow(uint32_t clock_type)
{
	etl_provider p = { 0 };
	ck_assert_int_eq(etl_provider_register(&p, &G_PROV, NULL, NULL), ETL_OK);
	etl_session *s = start_session(clock_type, 1000);
	static const int64_t at[3] = { 1 * SEC, 25 * SEC / 10, 7 * SEC };
	for (int i = 0; i < 3; i++) {
		g_now = T0 + at[i];
		write_n(&p, (uint32_t)i, 1);
	}
	g_now = T0 + 9 * SEC;
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	etl_session_free(s);
	etl_provider_unregister(&p);

	struct seen got;
	read_back(&got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(got.utc[i], T0 + at[i]);
		ck_assert_uint_eq(got.index[i], (uint32_t)i);
	}
	ck_assert_uint_eq(got.lf.reserved_flags, clock_type);
	ck_assert_int_eq(got.lf.start_time, T0);
	ck_assert_int_eq(got.lf.end_time, T0 + 9 * SEC);
	if (clock_type == ETL_CLOCK_QPC) {
		ck_assert_int_eq(got.lf.perf_freq, 10000000);
		ck_assert_int_eq(got.lf.boot_time, T0);
		ck_assert_int_eq(got.lf.header_timestamp, 0);
	} else if (clock_type == ETL_CLOCK_CPUCYCLE) {
		ck_assert_uint_eq(got.lf.cpu_speed_mhz, 1000);
		ck_assert_int_eq(got.lf.header_timestamp, 0);
	} else {
		ck_assert_int_eq(got.lf.header_timestamp, T0);
	}
}

START_TEST(stamps_qpc)
{
	stamps_follow(ETL_CLOCK_QPC);
}
END_TEST

START_TEST(stamps_systemtime)
{
	stamps_follow(ETL_CLOCK_SYSTEMTIME);
}
END_TEST

START_TEST(stamps_cpucycle)
{
	stamps_follow(ETL_CLOCK_CPUCYCLE);
}
END_TEST

/* The flush timer runs on the caller's clock: a partly filled buffer
 * reaches the file when the test advances the clock past a period, never
 * because wall time passed, and before etl_session_clock_advanced()
 * returns. */
START_TEST(flush_timer_follows_clock)
{
	etl_provider p = { 0 };
	ck_assert_int_eq(etl_provider_register(&p, &G_PROV, NULL, NULL), ETL_OK);
	etl_session *s = start_session(ETL_CLOCK_QPC, 1000);
	struct seen got;

	write_n(&p, 0, 3);
	g_now = T0 + SEC / 2;
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_OK);
	read_back(&got);
	ck_assert_uint_eq(got.n, 0);

	g_now = T0 + SEC;                          /* the first period is over */
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_OK);
	read_back(&got);
	ck_assert_uint_eq(got.n, 3);
	ck_assert_uint_eq(got.failures, 0);

	/* 1.3 s of wall time: the system clock's timer would have fired. */
	write_n(&p, 3, 2);
	struct timespec d = { 1, 300 * 1000 * 1000 };
	nanosleep(&d, NULL);
	read_back(&got);
	ck_assert_uint_eq(got.n, 3);

	/* The next deadline is a period after the last flush: 2 s. */
	g_now = T0 + 19 * SEC / 10;
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_OK);
	read_back(&got);
	ck_assert_uint_eq(got.n, 3);
	g_now = T0 + 60 * SEC;                     /* many periods: one flush */
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_OK);
	read_back(&got);
	ck_assert_uint_eq(got.n, 5);
	ck_assert_int_eq(got.utc[3], T0 + SEC);
	ck_assert_int_eq(got.utc[4], T0 + SEC);

	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_MISUSE);
	etl_session_free(s);
	etl_provider_unregister(&p);
}
END_TEST

/* Without a clock of the caller's, etl_session_clock_advanced() is a
 * misuse; with flush_timer_ms 0 there is never anything to flush. */
START_TEST(clock_advanced_misuse)
{
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	ck_assert_ptr_null((void *)(uintptr_t)sp.clock);
	sp.file_name = g_path;
	etl_session *s = etl_session_new();
	ck_assert_int_eq(etl_session_start(s, "ClockTest", &sp), ETL_OK);
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_MISUSE);
	etl_session_free(s);

	etl_provider p = { 0 };
	ck_assert_int_eq(etl_provider_register(&p, &G_PROV, NULL, NULL), ETL_OK);
	s = start_session(ETL_CLOCK_QPC, 0);
	write_n(&p, 0, 2);
	g_now = T0 + 3600 * SEC;
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_OK);
	struct seen got;
	read_back(&got);
	ck_assert_uint_eq(got.n, 0);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	read_back(&got);
	ck_assert_uint_eq(got.n, 2);
	etl_session_free(s);
	etl_provider_unregister(&p);
}
END_TEST

/* A caller built before the clock existed passes the smaller struct_size:
 * whatever lies past it is not read, and the system clock stamps. */
START_TEST(older_props_size)
{
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.struct_size = (uint32_t)offsetof(struct etl_session_props, clock);
	sp.clock = test_clock;                     /* beyond struct_size */
	sp.clock_type = ETL_CLOCK_SYSTEMTIME;
	sp.file_name = g_path;
	etl_session *s = etl_session_new();
	ck_assert_msg(etl_session_start(s, "ClockTest", &sp) == ETL_OK, "%s", etl_session_errmsg(s));
	ck_assert_int_eq(etl_session_clock_advanced(s), ETL_FAILED);
	etl_session_stop(s);
	etl_session_free(s);
	struct seen got;
	read_back(&got);
	/* Today, not 2024-01-02. */
	ck_assert_int_gt(got.lf.start_time, T0 + 365 * 24 * 3600 * SEC);

	sp.struct_size = (uint32_t)offsetof(struct etl_session_props, clock) - 1;
	s = etl_session_new();
	ck_assert_int_eq(etl_session_start(s, "ClockTest", &sp), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_MISUSE);
	etl_session_free(s);
}
END_TEST

/* ---- the processor of live writes ---------------------------------------- */

/* On the caller's clock events share a time and the reader puts those of
 * different processors in processor order: a thread that the scheduler
 * moves between two processors while it writes still reads back in the
 * order it wrote, from its own processor number (0, or what
 * etl_thread_processor_set() gave, folded into the session's count). On
 * the system clock the record names the processor the thread ran on. */
START_TEST(processor_of_live_writes)
{
	int cpus[2];
	if (pin_cpus(cpus, 2) < 2) {
		tu_skip(__func__, "the test runs on one processor: nothing moves it");
		return;
	}
	if (!pin_run_on(cpus[0]) || !pin_run_on(cpus[1])) {
		tu_skip(__func__, "the system does not let the test choose its processor");
		return;
	}
	etl_provider p = { 0 };
	ck_assert_int_eq(etl_provider_register(&p, &G_PROV, NULL, NULL), ETL_OK);
	etl_session *s = start_session(ETL_CLOCK_QPC, 0);
	g_now = T0 + SEC;
	for (uint32_t i = 0; i < 8; i++) {
		ck_assert(pin_run_on(cpus[i & 1]));
		write_n(&p, i, 1);
	}
	uint32_t prev = 99;
	etl_thread_processor_set(3, &prev);
	ck_assert_uint_eq(prev, 0);
	ck_assert_uint_eq(etl_thread_processor_get(), 3);
	write_n(&p, 8, 2);
	etl_thread_processor_set(prev, NULL);
	ck_assert_uint_eq(etl_thread_processor_get(), 0);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	etl_session_free(s);

	struct seen got;
	read_back(&got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, 10);
	uint32_t np = got.lf.number_of_processors;
	ck_assert_uint_ge(np, 2);
	for (uint32_t i = 0; i < 10; i++) {
		ck_assert_int_eq(got.utc[i], T0 + SEC);
		ck_assert_uint_eq(got.index[i], i);
		ck_assert_uint_eq(got.processor[i], i < 8 ? 0 : 3 % np);
	}

	/* The system clock: the processor the thread runs on, whatever the
	 * thread's number says. */
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = g_path;
	s = etl_session_new();
	ck_assert_int_eq(etl_session_start(s, "ClockTest", &sp), ETL_OK);
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ck_assert_int_eq(etl_session_enable(s, &G_PROV, &ep), ETL_OK);
	ck_assert(pin_run_on(cpus[1]));
	etl_thread_processor_set((uint32_t)cpus[0], NULL);
	write_n(&p, 20, 1);
	etl_thread_processor_set(0, NULL);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	etl_session_free(s);
	etl_provider_unregister(&p);
	read_back(&got);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_eq(got.index[0], 20);
	ck_assert_uint_eq(got.processor[0], (uint32_t)cpus[1] % got.lf.number_of_processors);
}
END_TEST

/* ---- capture state ------------------------------------------------------ */

struct calls {
	int n;
	int code[8];
	uint8_t level[8];
	uint64_t any[8];
	etl_provider *p;
};

static void on_control(void *ctx, int code, uint8_t level, uint64_t any, uint64_t all)
{
	(void)all;
	struct calls *c = ctx;
	if (c->n < 8) {
		c->code[c->n] = code;
		c->level[c->n] = level;
		c->any[c->n] = any;
	}
	c->n++;
	/* A rundown: the provider's state, written from the callback. */
	if (code == ETL_CONTROL_CAPTURE_STATE)
		write_n(c->p, 100, 2);
}

START_TEST(capture_state)
{
	etl_provider p = { 0 };
	struct calls c;
	memset(&c, 0, sizeof c);
	c.p = &p;
	ck_assert_int_eq(etl_provider_register(&p, &G_PROV, on_control, &c), ETL_OK);
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = g_path;
	etl_session *s = etl_session_new();
	ck_assert_int_eq(etl_session_start(s, "CaptureTest", &sp), ETL_OK);

	ck_assert_int_eq(etl_session_capture_state(s, &G_PROV), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_NOT_FOUND);
	ck_assert_int_eq(c.n, 0);

	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ep.level = 4;
	ep.match_any = 0x30;
	ck_assert_int_eq(etl_session_enable(s, &G_PROV, &ep), ETL_OK);
	ck_assert_int_eq(c.n, 1);
	ck_assert_int_eq(c.code[0], ETL_CONTROL_ENABLE);
	ck_assert_int_eq(etl_session_capture_state(s, &G_PROV), ETL_OK);
	ck_assert_int_eq(c.n, 2);
	ck_assert_int_eq(c.code[1], ETL_CONTROL_CAPTURE_STATE);
	ck_assert_uint_eq(c.level[1], 4);
	ck_assert_uint_eq(c.any[1], 0x30);
	/* The enable state is what it was. */
	ck_assert_uint_eq(p.state, 0x104);
	ck_assert_int_eq(etl_session_disable(s, &G_PROV), ETL_OK);
	ck_assert_int_eq(c.code[2], ETL_CONTROL_DISABLE);
	ck_assert_int_eq(etl_session_capture_state(s, &G_PROV), ETL_FAILED);
	ck_assert_int_eq(c.n, 3);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	ck_assert_int_eq(etl_session_capture_state(s, &G_PROV), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_MISUSE);
	etl_session_free(s);
	etl_provider_unregister(&p);

	struct seen got;
	read_back(&got);
	ck_assert_uint_eq(got.n, 2);               /* the rundown */
	ck_assert_uint_eq(got.index[0], 100);
	ck_assert_uint_eq(got.index[1], 101);
}
END_TEST

static Suite *suite(void)
{
	Suite *su = suite_create("trace_clock");
	TCase *tc = tcase_create("clock");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, stamps_qpc);
	tcase_add_test(tc, stamps_systemtime);
	tcase_add_test(tc, stamps_cpucycle);
	tcase_add_test(tc, flush_timer_follows_clock);
	tcase_add_test(tc, clock_advanced_misuse);
	tcase_add_test(tc, older_props_size);
	tcase_add_test(tc, processor_of_live_writes);
	suite_add_tcase(su, tc);
	tc = tcase_create("capture_state");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, capture_state);
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
