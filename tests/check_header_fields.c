/*
 * check_header_fields.c - the logfile header of the files libetl writes
 * carries every field Windows fills, with sane values, so that independent
 * readers open them (dissect.etl, for one, divides by CpuSpeedInMHz and by
 * PerfFreq whatever the clock type, and wants ReservedFlags to name a
 * clock).
 *
 * Each field and where its value comes from, for the writer with its
 * default options (etl_writer_options_init()) and for the tracing runtime
 * (a session's start fills the writer options, lib/trace/trace_session.c):
 *
 *   BufferSize          the option (default 64 KiB); runtime: the
 *                       session's buffer size
 *   Version             10.0, layout version set by the writer (1.5 for
 *                       64-bit headers)
 *   ProviderVersion     build 19041 (default)
 *   NumberOfProcessors  the option (default 1); runtime: the machine's
 *   EndTime             patched at close: the last event's time
 *   TimerResolution     156250 (15.625 ms, the usual Windows clock-
 *                       interrupt period)
 *   MaximumFileSize     the option (0 without a limit)
 *   LogFileMode         the option (SEQUENTIAL by default)
 *   BuffersWritten,
 *   StartBuffers,
 *   EventsLost,
 *   BuffersLost         patched at close from what was written
 *   PointerSize         8 (the option; the runtime writes 64-bit files)
 *   CpuSpeedInMHz       this machine's speed (/proc/cpuinfo "cpu MHz",
 *                       else cpufreq, else 1000); runtime with the
 *                       CPU-cycle clock: the measured cycle rate
 *   LoggerName,
 *   LogFileName         slots: 0 (the timer sources on 6.1+: "not
 *                       specified"); the names follow the header
 *   TimeZone            UTC (bias 0)
 *   BootTime            this machine's boot (/proc/stat btime, else
 *                       CLOCK_BOOTTIME); runtime: the start time less
 *                       the clock's reading at start
 *   PerfFreq            the QPC frequency: 10 MHz by default; runtime:
 *                       the TSC rate where QPC is the TSC, else 10 MHz
 *                       (also with the system-time and CPU-cycle clocks)
 *   StartTime           now (the header record's timestamp is its anchor)
 *   ReservedFlags       the clock type: 1 QPC, 2 system time, 3 CPU cycles
 *   session / file name the option's logger name ("libetl" by default) and
 *                       log-file name (the output path by default)
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "etl.h"
#include "etl_trace.h"
#include "etl_writer.h"
#include "testutil.h"

#define FT_UNIX_EPOCH 116444736000000000LL
#define SECOND 10000000LL
#define DAY (86400LL * SECOND)

static char g_dir[64];

static const char *tmp_path(const char *name)
{
	static char path[128];
	if (!g_dir[0]) {
		snprintf(g_dir, sizeof g_dir, "/tmp/check_header_fields.XXXXXX");
		if (!mkdtemp(g_dir))
			abort();
	}
	snprintf(path, sizeof path, "%s/%s", g_dir, name);
	return path;
}

static int64_t now_ft(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return FT_UNIX_EPOCH + (int64_t)ts.tv_sec * SECOND + ts.tv_nsec / 100;
}

/* Every field of lf, as read back by the project's reader, against the
 * rules a reader relies on. clock: the clock type written; names: the
 * logger and log-file names expected. */
static void check_sane(const struct etl_logfile *lf, uint32_t clock, const char *logger,
                       const char *file, int64_t before, int64_t after)
{
	ck_assert_int_eq(lf->present, 1);
	ck_assert_uint_ge(lf->buffer_size, 4096);
	ck_assert_uint_eq(lf->buffer_size % 8, 0);
	ck_assert_uint_eq(lf->version[0], 10);                  /* Windows 10.0 */
	ck_assert_uint_eq(lf->version[1], 0);
	ck_assert_uint_ge(lf->provider_version, 7600);          /* a real build  */
	ck_assert_uint_ge(lf->number_of_processors, 1);
	ck_assert_uint_le(lf->number_of_processors, 4096);
	/* TimerResolution: 0.5 ms to 20 ms in 100 ns units, as Windows' clock
	 * interrupt periods are. */
	ck_assert_uint_ge(lf->timer_resolution, 5000);
	ck_assert_uint_le(lf->timer_resolution, 200000);
	ck_assert_uint_eq(lf->maximum_file_size, 0);
	ck_assert_uint_eq(lf->log_file_mode & ETL_MODE_SEQUENTIAL, ETL_MODE_SEQUENTIAL);
	ck_assert_uint_ge(lf->buffers_written, 2);               /* header + data */
	ck_assert_uint_ge(lf->start_buffers, 1);
	ck_assert_uint_eq(lf->pointer_size, 8);
	ck_assert_uint_eq(lf->events_lost, 0);
	ck_assert_uint_eq(lf->buffers_lost, 0);
	/* CpuSpeedInMHz: never 0 (readers divide by it), and a speed a
	 * processor has (1 MHz to 100 GHz). */
	ck_assert_uint_ge(lf->cpu_speed_mhz, 1);
	ck_assert_uint_le(lf->cpu_speed_mhz, 100000);
	ck_assert_int_eq(lf->time_zone.bias, 0);
	/* StartTime: the time of the run; EndTime: at or after it; BootTime:
	 * before it, within the last few years. */
	ck_assert_int_ge(lf->start_time, before - SECOND);
	ck_assert_int_le(lf->start_time, after + SECOND);
	ck_assert_int_ge(lf->end_time, lf->start_time);
	ck_assert_int_le(lf->end_time, after + SECOND);
	ck_assert_int_le(lf->boot_time, lf->start_time);
	ck_assert_int_gt(lf->boot_time, lf->start_time - 3650 * DAY);
	/* PerfFreq: never 0, whatever the clock (readers work out every time
	 * scale); ReservedFlags names the clock. */
	ck_assert_int_ge(lf->perf_freq, 1000);
	ck_assert_uint_eq(lf->reserved_flags, clock);
	ck_assert_str_eq(lf->logger_name, logger);
	ck_assert_str_eq(lf->log_file_name, file);
}

START_TEST(test_writer_defaults)
{
	const char *path = tmp_path("writer.etl");
	char file[128];
	snprintf(file, sizeof file, "%s", path);
	struct etl_writer_options o;
	int64_t before = now_ft();
	etl_writer_options_init(&o);
	/* The defaults the header takes from the machine. */
	ck_assert_uint_ge(o.cpu_speed_mhz, 1);
	ck_assert_int_lt(o.boot_time, o.start_time);
	ck_assert_int_eq(o.perf_freq, 10000000);
	ck_assert_uint_eq(o.timer_resolution, 156250);

	etl_writer *w = etl_writer_new();
	ck_assert_ptr_nonnull(w);
	ck_assert_msg(etl_writer_open_file(w, file, &o) == ETL_OK, "%s", etl_writer_errmsg(w));
	static const uint8_t payload[4] = { 1, 2, 3, 4 };
	struct etl_event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = ETL_HDR_EVENT_HEADER64;
	ev.provider = tu_guid("0badf00d-0000-4000-8000-00000000c0de");
	ev.id = 1;
	ev.level = 4;
	ev.pid = 1;
	ev.tid = 2;
	ev.timestamp = o.start_timestamp + 1000;
	ev.payload = payload;
	ev.payload_size = sizeof payload;
	ck_assert_msg(etl_writer_write_event(w, &ev) == ETL_OK, "%s", etl_writer_errmsg(w));
	ck_assert_msg(etl_writer_close(w) == ETL_OK, "%s", etl_writer_errmsg(w));
	etl_writer_free(w);
	int64_t after = now_ft();

	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(r, file), ETL_OK);
	const struct etl_logfile *lf = etl_reader_logfile(r);
	check_sane(lf, ETL_CLOCK_QPC, "libetl", file, before, after);
	ck_assert_uint_eq(lf->cpu_speed_mhz, o.cpu_speed_mhz);
	ck_assert_int_eq(lf->boot_time, o.boot_time);
	ck_assert_int_eq(lf->perf_freq, 10000000);
	etl_reader_free(r);
	unlink(file);
}
END_TEST

/* The runtime, with each clock: a session writes a few events and its
 * file's header is read back. */
START_TEST(test_runtime_clocks)
{
	static const uint32_t clocks[3] = { ETL_CLOCK_QPC, ETL_CLOCK_SYSTEMTIME, ETL_CLOCK_CPUCYCLE };
	static etl_provider prov;
	struct etl_guid g = tu_guid("6c1f7e2a-41d3-4b8e-9a51-0d3e7712a4ca");
	ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
	for (int c = 0; c < 3; c++) {
		char file[128];
		snprintf(file, sizeof file, "%s", tmp_path("runtime.etl"));
		struct etl_session_props sp;
		etl_session_props_init(&sp);
		sp.file_name = file;
		sp.clock_type = clocks[c];
		int64_t before = now_ft();
		etl_session *s = etl_session_new();
		ck_assert_ptr_nonnull(s);
		ck_assert_msg(etl_session_start(s, "HeaderFields", &sp) == ETL_OK, "%s", etl_session_errmsg(s));
		struct etl_enable_params ep;
		etl_enable_params_init(&ep);
		ck_assert_int_eq(etl_session_enable(s, &g, &ep), ETL_OK);
		static const struct etl_event_descriptor desc = { .id = 1, .level = 4 };
		uint32_t v = 7;
		struct etl_data d = ETL_DATA(&v, sizeof v);
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(etl_write(&prov, &desc, 1, &d), ETL_OK);
		ck_assert_int_eq(etl_session_stop(s), ETL_OK);
		etl_session_free(s);
		int64_t after = now_ft();

		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_open_file(r, file), ETL_OK);
		check_sane(etl_reader_logfile(r), clocks[c], "HeaderFields", file, before, after);
		etl_reader_free(r);
		unlink(file);
	}
	etl_provider_unregister(&prov);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("header_fields");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_writer_defaults);
	tcase_add_test(tc, test_runtime_clocks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	tmp_path("");                   /* the directory, made before the forks */
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rmdir(g_dir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
