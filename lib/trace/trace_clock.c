/*
 * lib/trace/trace_clock.c - the clocks of the tracing runtime: the raw value
 * an event is stamped with in each clock type (QPC, system time, CPU
 * cycles), and the figures a file's header gives to read it (QPC rate,
 * boot time, CPU speed).
 *
 * Stamping is on every event's path: etl__rt_now() is a few instructions
 * and, on x86-64 with a usable TSC, no system call. The measurements (TSC
 * rate, CPU speed) run once per process, at the first session that needs
 * them; the QPC rate is re-measured at every flush and at stop.
 *
 * A session may run on the caller's clock instead (etl_session_props.clock,
 * a FILETIME source): its raw values are then derived from that source
 * alone (etl__rt_session_now()) and nothing is measured, so that a
 * program driving time itself gets the same file whatever the machine's
 * clocks say.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#include "lib/trace/trace_core.h"

#define FT_UNIX_EPOCH 116444736000000000LL

int64_t etl__rt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t mono_100ns(void)
{
	return etl__rt_mono_ns() / 100;
}

int64_t etl__rt_filetime_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return FT_UNIX_EPOCH + (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
}

/* QPC from the TSC. On x86-64 with an invariant TSC (constant_tsc and
 * nonstop_tsc in /proc/cpuinfo) that the kernel itself keeps time with
 * (clocksource "tsc": synchronised across processors), ETL_CLOCK_QPC
 * timestamps are RDTSC readings, about 10 ns instead of 25 for
 * clock_gettime on the development VM, and the header's perf_freq is the
 * TSC's rate against CLOCK_MONOTONIC: measured over 10 ms at the first
 * session of the process, then re-measured against that first reading at
 * every flush (timer or explicit) and at stop, so that the longer the
 * process traced, the more exact the rate a file ends with (the reading
 * pairs are good to some 30 ns: 3 ppm after 10 ms, 0.01 ppm after an
 * hour). Elsewhere QPC is CLOCK_MONOTONIC in 100 ns units at 10 MHz,
 * as it is when the environment has ETL_QPC_NO_TSC at the first session
 * (the tests use it to cover that path). */
static _Atomic int g_qpc_tsc;
static pthread_once_t g_tsc_once = PTHREAD_ONCE_INIT;
static uint64_t g_tsc0;                 /* the first reading pair       */
static int64_t g_tsc_ns0;
static _Atomic int64_t g_tsc_hz;        /* the latest rate              */

#if defined(__x86_64__)
/* A TSC reading and CLOCK_MONOTONIC at the same moment: the tightest of
 * a few brackets. Returns 0, both set to 0, when the counter went back in
 * every bracket (no pair to trust). */
static int tsc_pair(uint64_t *tsc, int64_t *ns)
{
	uint64_t best = UINT64_MAX;
	*tsc = 0;
	*ns = 0;
	for (int i = 0; i < 8; i++) {
		uint64_t a = __rdtsc();
		int64_t t = etl__rt_mono_ns();
		uint64_t b = __rdtsc();
		if (b >= a && b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = t;
		}
	}
	return best != UINT64_MAX;      /* 0: the counter went back every time */
}

static int file_has(const char *path, const char *prefix, const char *const *words, int n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[8192];
	int ok = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, prefix, strlen(prefix)) != 0)
			continue;
		ok = 1;
		for (int i = 0; i < n && ok; i++) {
			size_t k = strlen(words[i]);
			const char *p = line;
			ok = 0;
			while ((p = strstr(p, words[i])) != NULL) {
				if ((p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':') &&
				    (p[k] == ' ' || p[k] == '\n' || p[k] == 0)) {
					ok = 1;
					break;
				}
				p += k;
			}
		}
		break;
	}
	fclose(f);
	return ok;
}
#endif

static void tsc_init(void)
{
#if defined(__x86_64__)
	static const char *const flags[] = { "constant_tsc", "nonstop_tsc" };
	static const char *const cs[] = { "tsc" };
	if (getenv("ETL_QPC_NO_TSC") ||
	    !file_has("/proc/cpuinfo", "flags", flags, 2) ||
	    !file_has("/sys/devices/system/clocksource/clocksource0/current_clocksource", "", cs, 1))
		return;
	uint64_t t1;
	int64_t n1;
	if (!tsc_pair(&g_tsc0, &g_tsc_ns0))
		return;
	struct timespec d = { 0, 10 * 1000 * 1000 };
	while (nanosleep(&d, &d) != 0)
		;
	if (!tsc_pair(&t1, &n1) || t1 <= g_tsc0 || n1 <= g_tsc_ns0)
		return;
	int64_t hz = (int64_t)((__int128)(t1 - g_tsc0) * 1000000000 / (n1 - g_tsc_ns0));
	if (hz < 1000000)
		return;
	atomic_store(&g_tsc_hz, hz);
	atomic_store(&g_qpc_tsc, 1);
#endif
}

/* The TSC rate measured from the first reading to now (tsc mode only). */
static int64_t tsc_refresh(void)
{
#if defined(__x86_64__)
	uint64_t t;
	int64_t n;
	/* The interval only grows: each measure is at least as good. */
	if (tsc_pair(&t, &n) && t > g_tsc0 && n > g_tsc_ns0) {
		int64_t hz = (int64_t)((__int128)(t - g_tsc0) * 1000000000 / (n - g_tsc_ns0));
		if (hz >= 1000000)
			atomic_store(&g_tsc_hz, hz);
	}
#endif
	return atomic_load(&g_tsc_hz);
}

int64_t etl__rt_qpc_freq(void)
{
	return atomic_load(&g_qpc_tsc) ? atomic_load(&g_tsc_hz) : 10000000;
}

int64_t etl__rt_now(uint32_t clock_type)
{
	switch (clock_type) {
	case ETL_CLOCK_SYSTEMTIME:
		return etl__rt_filetime_now();
	case ETL_CLOCK_CPUCYCLE: {
#if defined(__x86_64__)
		return (int64_t)__rdtsc();
#else
		/* No cycle counter: nanoseconds, declared as a 1000 MHz CPU. */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
	}
	default:
#if defined(__x86_64__)
		if (atomic_load_explicit(&g_qpc_tsc, memory_order_relaxed))
			return (int64_t)__rdtsc();
#endif
		return mono_100ns();
	}
}

static uint32_t g_cpu_mhz;
static pthread_once_t g_mhz_once = PTHREAD_ONCE_INIT;

/* The cycle counter's rate, measured against CLOCK_MONOTONIC over 20 ms. */
static void measure_mhz(void)
{
#if defined(__x86_64__)
	struct timespec a, b, d = { 0, 20 * 1000 * 1000 };
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t c0 = __rdtsc();
	nanosleep(&d, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	uint64_t c1 = __rdtsc();
	int64_t ns = (int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
	g_cpu_mhz = ns > 0 ? (uint32_t)(((c1 - c0) * 1000 + (uint64_t)ns / 2) / (uint64_t)ns) : 1000;
	if (g_cpu_mhz == 0)
		g_cpu_mhz = 1;
#else
	g_cpu_mhz = 1000;
#endif
}

uint32_t etl__rt_clock_prepare(uint32_t clock_type)
{
	if (clock_type == ETL_CLOCK_QPC)
		pthread_once(&g_tsc_once, tsc_init);
	if (clock_type != ETL_CLOCK_CPUCYCLE)
		return 0;
	pthread_once(&g_mhz_once, measure_mhz);
	return g_cpu_mhz;
}

/* The boot time a QPC reading start_ts at FILETIME start_ft implies at
 * rate hz. */
static int64_t boot_time_at(int64_t start_ft, int64_t start_ts, int64_t hz)
{
	return start_ft - (int64_t)((__int128)start_ts * 10000000 / hz);
}

void etl__rt_clock_figures(uint32_t clock_type, int64_t start_ts, int64_t start_ft,
                           int64_t *perf_freq, int64_t *boot_time)
{
	*perf_freq = 10000000;
	*boot_time = start_ft - mono_100ns();
	if (clock_type == ETL_CLOCK_QPC && atomic_load(&g_qpc_tsc)) {
		*perf_freq = atomic_load(&g_tsc_hz);
		*boot_time = boot_time_at(start_ft, start_ts, *perf_freq);
	}
}

int etl__rt_clock_refine(uint32_t clock_type, int64_t start_ts, int64_t start_ft,
                         int64_t *perf_freq, int64_t *boot_time)
{
	if (clock_type != ETL_CLOCK_QPC || !atomic_load(&g_qpc_tsc))
		return 0;
	int64_t hz = tsc_refresh();
	*perf_freq = hz;
	*boot_time = boot_time_at(start_ft, start_ts, hz);
	return 1;
}

/* ---- a session's clock --------------------------------------------------- */

/* The caller's FILETIME ft in a session on the caller's clock: the
 * trace's clock when it replays one, else its own clock from 0. */
static int64_t own_raw(const struct etl_session *s, int64_t ft)
{
	if (s->replay) {
		int64_t raw;
		return etl__clock_from_utc(&s->fclk, ft, &raw) == ETL_OK ? raw : s->start_ts;
	}
	switch (s->p.clock_type) {
	case ETL_CLOCK_SYSTEMTIME:
		return ft;
	case ETL_CLOCK_CPUCYCLE:
		return (ft - s->start_ft) * (ETL_RT_OWN_CPU_MHZ / 10);
	default:
		return ft - s->start_ft;
	}
}

int64_t etl__rt_session_now(const struct etl_session *s)
{
	if (s->stamp_ct)
		return etl__rt_now(s->stamp_ct);
	return own_raw(s, s->p.clock(s->p.clock_ctx));
}

int64_t etl__rt_session_raw_at(const struct etl_session *s, int64_t ft)
{
	int64_t raw;
	if (!s->stamp_ct)
		return own_raw(s, ft);
	return etl__clock_from_utc(&s->fclk, ft, &raw) == ETL_OK ? raw : etl__rt_session_now(s);
}

/* The reader's rule (lib/common/time.c) applied to the header's figures,
 * so that a raw value written here reads back as the FILETIME it came
 * from. */
void etl__rt_session_clock_init(struct etl_session *s)
{
	struct etl_logfile lf;
	memset(&lf, 0, sizeof lf);
	lf.present = 1;
	lf.header_timestamp = s->wo.start_timestamp;
	lf.start_time = s->wo.start_time;
	lf.reserved_flags = s->wo.clock_type;
	lf.perf_freq = s->wo.perf_freq;
	lf.cpu_speed_mhz = s->wo.cpu_speed_mhz;
	etl__clock_init(&s->fclk, &lf);
}
