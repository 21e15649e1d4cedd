/*
 * check_trace_core.c - the delivery core of the tracing runtime: sessions,
 * per-processor buffers, reserve/commit, routing across sessions, file
 * modes, limits and accounting (lib/trace/trace_session.c, _buffers.c,
 * _provider.c, _sync.c).
 *
 * The events are written through the core's own seam (etl__rt_deliver)
 * with a hand-made EVENT_HEADER64 record (doc/format.md §3.6) whose payload is
 * a u64 sequence number and a u32 writer index, so each test knows exactly
 * which events were attempted and can find each one in the output.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "etl.h"
#include "etl_trace.h"
#include "lib/read/read_internal.h"
#include "lib/trace/trace_seam.h"
#include "lib/trace/trace_core.h"
#include "cpu_pin.h"
#include "testutil.h"

/* ---- the test event ----------------------------------------------------- */

struct tev {
	uint64_t seq;
	uint32_t thr;
	uint32_t extra;             /* payload bytes beyond the 12            */
	uint16_t id;
	const struct etl_guid *guid;
};

static uint32_t tev_size(const struct etl__rt_event *ev, uint32_t props)
{
	(void)props;
	const struct tev *t = ev->ctx;
	return 0x50 + 12 + t->extra;
}

static void tev_encode(const struct etl__rt_event *ev, const struct etl__rt_stamp *st,
                       uint8_t *d, uint32_t size)
{
	const struct tev *t = ev->ctx;
	memset(d, 0, size);
	etl_put16(d + 0x00, (uint16_t)size);
	etl_put16(d + 0x02, 0xC013);
	etl_put32(d + 0x08, st->tid);
	etl_put32(d + 0x0C, st->pid);
	etl_put64(d + 0x10, (uint64_t)st->timestamp);
	etl_put_guid(d + 0x18, t->guid);
	etl_put16(d + 0x28, t->id);
	d[0x2C] = ev->level;
	etl_put64(d + 0x30, ev->keyword);
	etl_put64(d + 0x50, t->seq);
	etl_put32(d + 0x58, t->thr);
	for (uint32_t i = 0; i < t->extra; i++)
		d[0x5C + i] = (uint8_t)(t->seq + i);
}

static int emit(etl_provider *p, const struct etl_guid *g, uint64_t seq, uint32_t thr,
                uint8_t level, uint64_t kw, uint32_t extra)
{
	struct tev t = { seq, thr, extra, 7, g };
	struct etl__rt_event ev;
	memset(&ev, 0, sizeof ev);
	ev.prov = p;
	ev.level = level;
	ev.keyword = kw;
	ev.size = tev_size;
	ev.encode = tev_encode;
	ev.ctx = &t;
	return etl__rt_deliver(&ev);
}

/* ---- reading back ------------------------------------------------------- */

struct got {
	uint64_t *key;              /* thr << 40 | seq                         */
	size_t n, cap;
	size_t failures;            /* reader ETL_FAILED / WARN results       */
	struct etl_logfile lf;
	uint32_t hdr_mode, hdr_nproc, hdr_bs, hdr_ptr;
};

#define KEY(thr, seq) (((uint64_t)(thr) << 40) | (uint64_t)(seq))

static void got_add(struct got *g, uint64_t k)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->key = realloc(g->key, g->cap * sizeof *g->key);
		ck_assert_ptr_nonnull(g->key);
	}
	g->key[g->n++] = k;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Checks one event's record fully (size, header type, guid, pattern). */
static void check_event(const struct etl_event *ev, const struct etl_guid *g, struct got *out)
{
	TU_CHECK(ev->kind == ETL_HDR_EVENT_HEADER64, "kind %d", ev->kind);
	TU_CHECK(etl_guid_equal(&ev->provider, g), "provider");
	TU_CHECK(ev->payload_size >= 12, "payload %u", ev->payload_size);
	uint64_t seq = etl_le64(ev->payload);
	uint32_t thr = etl_le32(ev->payload + 8);
	for (uint32_t i = 12; i < ev->payload_size; i++)
		TU_CHECK(ev->payload[i] == (uint8_t)(seq + i - 12), "torn payload");
	got_add(out, KEY(thr, seq));
}

static void read_file(const char *path, const struct etl_guid *g, struct got *out)
{
	etl_reader *r = etl_reader_new();
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(etl_reader_open_file(r, path) == ETL_OK, "open %s: %s", path, etl_reader_errmsg(r));
	const struct etl_logfile *lf = etl_reader_logfile(r);
	out->lf = *lf;
	out->lf.logger_name = out->lf.log_file_name = NULL;
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_msg(st != ETL_FATAL, "fatal: %s", etl_reader_errmsg(r));
		if (st != ETL_OK) {
			out->failures++;
			continue;
		}
		if (ev->buffer_offset == 0) {
			/* The header buffer: logfile header, PartitionInfoExtension. */
			TU_CHECK(ev->kind == ETL_HDR_SYSTEM64, "kind %d in the header buffer", ev->kind);
			continue;
		}
		check_event(ev, g, out);
	}
	etl_reader_free(r);
}

/* Sorts the keys; fails on a duplicate. */
static void got_sort_unique(struct got *g)
{
	if (g->n == 0)              /* key may be NULL: qsort wants an array */
		return;
	qsort(g->key, g->n, sizeof *g->key, cmp_u64);
	for (size_t i = 1; i < g->n; i++)
		TU_CHECK(g->key[i] != g->key[i - 1], "event %llx twice", (unsigned long long)g->key[i]);
}

static int got_has(const struct got *g, uint64_t k)
{
	if (g->n == 0)
		return 0;
	return bsearch(&k, g->key, g->n, sizeof k, cmp_u64) != NULL;
}

static void got_free(struct got *g)
{
	free(g->key);
	memset(g, 0, sizeof *g);
}

/* ---- fixtures ------------------------------------------------------------ */

static char g_dir[256];

static void mkdir_tmp(void)
{
	snprintf(g_dir, sizeof g_dir, "/tmp/check_trace_core.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static void rm_tmp(void)
{
	DIR *d = opendir(g_dir);
	if (!d)
		return;
	struct dirent *e;
	char p[512];
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(g_dir);
}

static char *path_in(const char *name)
{
	static char p[8][512];
	static int k;
	char *s = p[k++ & 7];
	snprintf(s, 512, "%s/%s", g_dir, name);
	return s;
}

static struct etl_guid guid_n(uint32_t n)
{
	struct etl_guid g = tu_guid("5d8d7c2e-0000-4a3b-9c1d-112233445566");
	g.data1 = 0x5d8d0000u + n;
	return g;
}

/* The start of most tests: a fresh temporary directory, provider prov
 * registered under guid_n(n) (in *g), and *sp set to the defaults with
 * file in that directory. */
static void setup_case(etl_provider *prov, struct etl_guid *g, uint32_t n,
                       struct etl_session_props *sp, const char *file)
{
	mkdir_tmp();
	*g = guid_n(n);
	ck_assert_int_eq(etl_provider_register(prov, g, NULL, NULL), ETL_OK);
	etl_session_props_init(sp);
	sp->file_name = path_in(file);
}

/* ... and its end. */
static void teardown_case(etl_session *s, etl_provider *prov)
{
	etl_session_free(s);
	etl_provider_unregister(prov);
	rm_tmp();
}

/* A session writing file with 4 KiB buffers, one allocated at start and
 * at most max_buffers, no flush timer: the pool runs dry quickly. */
static void tiny_pool_props(struct etl_session_props *sp, const char *file, uint32_t max_buffers)
{
	etl_session_props_init(sp);
	sp->file_name = file;
	sp->buffer_size = 4096;
	sp->min_buffers = 1;
	sp->max_buffers = max_buffers;
	sp->flush_timer_ms = 0;
}

static etl_session *start(const char *name, struct etl_session_props *sp)
{
	etl_session *s = etl_session_new();
	ck_assert_ptr_nonnull(s);
	int rc = etl_session_start(s, name, sp);
	ck_assert_msg(rc == ETL_OK, "start %s: %s", name, etl_session_errmsg(s));
	return s;
}

static void enable_all(etl_session *s, const struct etl_guid *g)
{
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ck_assert_int_eq(etl_session_enable(s, g, &ep), ETL_OK);
}

/* ---- threads --------------------------------------------------------- */

struct wargs {
	etl_provider *p;
	const struct etl_guid *g;
	uint32_t thr;
	uint64_t n;                 /* events to write; 0: until stop        */
	uint32_t extra;
	_Atomic int *stop;
	uint64_t attempted, failed;
	uint64_t *lost;             /* seqs whose write returned ETL_FAILED   */
	size_t nlost, caplost;
};

static void *writer_main(void *arg)
{
	struct wargs *a = arg;
	for (uint64_t i = 0; a->n ? i < a->n : !atomic_load(a->stop); i++) {
		a->attempted++;
		if (emit(a->p, a->g, i, a->thr, 4, 1, a->extra) != ETL_OK) {
			a->failed++;
			if (a->nlost == a->caplost) {
				a->caplost = a->caplost ? 2 * a->caplost : 1024;
				a->lost = realloc(a->lost, a->caplost * sizeof *a->lost);
				if (!a->lost)
					abort();
			}
			a->lost[a->nlost++] = i;
		}
	}
	return NULL;
}

static void run_writers(etl_provider *p, const struct etl_guid *g, unsigned nthr, uint64_t n,
                        uint32_t extra, struct wargs *a)
{
	pthread_t th[16];
	for (unsigned i = 0; i < nthr; i++) {
		a[i] = (struct wargs){ p, g, i, n, extra, NULL, 0, 0, NULL, 0, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, writer_main, &a[i]), 0);
	}
	for (unsigned i = 0; i < nthr; i++) {
		pthread_join(th[i], NULL);
		free(a[i].lost);             /* counts are enough here */
		a[i].lost = NULL;
	}
}

/* ---- tests ---------------------------------------------------------- */

START_TEST(test_hole_marker_is_no_header)
{
	ck_assert_ptr_null(etl__hdr_for_marker(ETL_RT_HOLE_MAGIC));
}
END_TEST

/* A reservation given up after a later one in the same buffer becomes a
 * hole, squeezed out before the buffer is written; one given up while it
 * is still the last is returned (the next reservation reuses the space). */
START_TEST(test_abandon_hole_and_give_back)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 19, &sp, "hole.etl");
	sp.flush_timer_ms = 0;
	etl_session *s = start("Holes", &sp);
	struct tev t = { 0, 5, 0, 7, &g };
	struct etl__rt_event ev;
	memset(&ev, 0, sizeof ev);
	ev.prov = &prov;
	ev.level = 4;
	ev.size = tev_size;
	ev.encode = tev_encode;
	ev.ctx = &t;
	struct etl__rt_stamp st = { 1, 1, 1, 0, 0, 1 };
	struct etl__rt_res r1, r2, r3;
	uint32_t n = (uint32_t)ETL_ALIGN8(tev_size(&ev, 0));
	ck_assert_int_eq(etl__rt_reserve(s, 0, n, &r1), ETL_OK);
	ck_assert_int_eq(etl__rt_reserve(s, 0, n, &r2), ETL_OK);
	ck_assert_ptr_eq(r2.dst, r1.dst + n);
	t.seq = 1;
	tev_encode(&ev, &st, r1.dst, n - 4);
	t.seq = 2;
	tev_encode(&ev, &st, r2.dst, n - 4);
	etl__rt_abandon(&r1);                         /* a hole */
	etl__rt_commit(&r2);
	ck_assert_int_eq(etl__rt_reserve(s, 0, n, &r3), ETL_OK);
	etl__rt_abandon(&r3);                         /* given back */
	ck_assert_int_eq(etl__rt_reserve(s, 0, n, &r3), ETL_OK);
	ck_assert_ptr_eq(r3.dst, r2.dst + n);
	t.seq = 3;
	tev_encode(&ev, &st, r3.dst, n - 4);
	etl__rt_commit(&r3);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats ss;
	etl_session_stats(s, &ss);
	ck_assert_uint_eq(ss.events_written, 2);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, 2);
	got_sort_unique(&got);
	ck_assert(got_has(&got, KEY(5, 2)));
	ck_assert(got_has(&got, KEY(5, 3)));
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_round_trip_threads)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 1, &sp, "rt.etl");
	sp.blocking = 1;
	etl_session *s = start("RoundTrip", &sp);
	enable_all(s, &g);
	enum { T = 4, M = 20000 };
	struct wargs a[T];
	run_writers(&prov, &g, T, M, 0, a);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_written, (uint64_t)T * M);
	ck_assert_uint_eq(st.events_lost, 0);
	ck_assert_uint_eq(st.buffers_lost, 0);
	ck_assert_uint_gt(st.buffers_written, 0);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, (size_t)T * M);
	got_sort_unique(&got);
	for (unsigned t = 0; t < T; t++)
		for (uint64_t i = 0; i < M; i++)
			TU_CHECK(got_has(&got, KEY(t, i)), "missing %u/%llu", t, (unsigned long long)i);
	/* The logfile header. */
	ck_assert_uint_eq(got.lf.number_of_processors, etl__rt_nproc());
	ck_assert_uint_eq(got.lf.buffer_size, 64 * 1024);
	ck_assert_uint_eq(got.lf.log_file_mode, ETL_MODE_SEQUENTIAL);
	ck_assert_uint_eq(got.lf.events_lost, 0);
	ck_assert_uint_eq(got.lf.buffers_written, st.buffers_written + 1);
	ck_assert_uint_eq(got.lf.reserved_flags, ETL_CLOCK_QPC);
	/* 10 MHz (CLOCK_MONOTONIC), or the TSC's rate as measured at stop. */
	ck_assert_int_eq(got.lf.perf_freq, etl__rt_qpc_freq());
	ck_assert_int_ge(got.lf.perf_freq, 10000000);
	ck_assert_uint_eq(got.lf.header_ptr_size, 8);
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_logfile_names)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 2, &sp, "names.etl");
	sp.independent = 1;
	sp.clock_type = ETL_CLOCK_SYSTEMTIME;
	etl_session *s = start("NamesSession", &sp);
	enable_all(s, &g);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(emit(&prov, &g, (uint64_t)i, 0, 4, 1, 0), ETL_OK);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(r, sp.file_name), ETL_OK);
	const struct etl_logfile *lf = etl_reader_logfile(r);
	ck_assert_str_eq(lf->logger_name, "NamesSession");
	ck_assert_str_eq(lf->log_file_name, sp.file_name);
	ck_assert_uint_eq(lf->log_file_mode, ETL_MODE_SEQUENTIAL | 0x08000000u);
	ck_assert_uint_eq(lf->reserved_flags, ETL_CLOCK_SYSTEMTIME);
	const struct etl_event *ev;
	int n = 0;
	int64_t now = 116444736000000000LL + (int64_t)time(NULL) * 10000000;
	while (etl_reader_next(r, &ev) == ETL_OK) {
		if (ev->buffer_offset == 0)
			continue;
		/* System time: the timestamps are FILETIMEs of now. */
		ck_assert(ev->timestamp > now - 600LL * 10000000 && ev->timestamp < now + 600LL * 10000000);
		ck_assert(ev->utc == ev->timestamp);
		ck_assert_uint_lt(ev->processor, etl__rt_nproc());
		ck_assert_uint_eq(ev->pid, (uint32_t)getpid());
		n++;
	}
	ck_assert_int_eq(n, 10);
	etl_reader_free(r);
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_clocks)
{
	/* Every clock: the reader turns the timestamps into today's UTC, in
	 * the order they were taken. */
	static const uint32_t clocks[3] = { ETL_CLOCK_QPC, ETL_CLOCK_SYSTEMTIME, ETL_CLOCK_CPUCYCLE };
	mkdir_tmp();
	struct etl_guid g = guid_n(18);
	static etl_provider prov;
	ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
	for (int c = 0; c < 3; c++) {
		struct etl_session_props sp;
		etl_session_props_init(&sp);
		sp.file_name = path_in("clock.etl");
		sp.clock_type = clocks[c];
		etl_session *s = start("Clock", &sp);
		enable_all(s, &g);
		for (int i = 0; i < 5; i++) {
			ck_assert_int_eq(emit(&prov, &g, (uint64_t)i, 0, 4, 1, 0), ETL_OK);
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
		}
		ck_assert_int_eq(etl_session_stop(s), ETL_OK);
		etl_session_free(s);
		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_open_file(r, sp.file_name), ETL_OK);
		ck_assert_uint_eq(etl_reader_logfile(r)->reserved_flags, clocks[c]);
		if (clocks[c] == ETL_CLOCK_CPUCYCLE)
			ck_assert_uint_gt(etl_reader_logfile(r)->cpu_speed_mhz, 0);
		const struct etl_event *ev;
		int n = 0;
		int64_t now = 116444736000000000LL + (int64_t)time(NULL) * 10000000, prev = 0;
		while (etl_reader_next(r, &ev) == ETL_OK) {
			if (ev->buffer_offset == 0)
				continue;
			ck_assert(ev->present & ETL_EVF_UTC);
			ck_assert_msg(ev->utc > now - 600LL * 10000000 && ev->utc < now + 600LL * 10000000,
			              "clock %u: utc %lld, now %lld", clocks[c], (long long)ev->utc, (long long)now);
			ck_assert(ev->utc >= prev + 15000);       /* >= 1.5 ms apart */
			prev = ev->utc;
			n++;
		}
		ck_assert_int_eq(n, 5);
		etl_reader_free(r);
	}
	etl_provider_unregister(&prov);
	rm_tmp();
}
END_TEST

/* ---- the QPC clock ------------------------------------------------ */

static int64_t ft_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return 116444736000000000LL + (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
}

enum { QPC_T = 2, QPC_M = 3000 };

struct qpc_args {
	etl_provider *p;
	const struct etl_guid *g;
	uint32_t thr;
	int64_t lo[QPC_M], hi[QPC_M];      /* CLOCK_REALTIME around each write */
};

static void *qpc_writer(void *arg)
{
	struct qpc_args *a = arg;
	for (uint32_t i = 0; i < QPC_M; i++) {
		a->lo[i] = ft_now();
		if (emit(a->p, a->g, i, a->thr, 4, 1, 0) != ETL_OK)
			abort();
		a->hi[i] = ft_now();
		if (i % 300 == 299) {
			struct timespec ts = { 0, 3 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/* Writes from QPC_T threads to a QPC session (flushed half way, so that
 * the rate in the header is measured again), reads the file back: every
 * event's UTC lies within 5 ms of CLOCK_REALTIME around its write, and
 * each thread's timestamps never go back. */
static void qpc_case(void)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 19, &sp, "qpc.etl");
	sp.blocking = 1;
	ck_assert_uint_eq(sp.clock_type, ETL_CLOCK_QPC);
	etl_session *s = start("Qpc", &sp);
	enable_all(s, &g);
	static struct qpc_args a[QPC_T];
	pthread_t th[QPC_T];
	for (uint32_t t = 0; t < QPC_T; t++) {
		a[t].p = &prov;
		a[t].g = &g;
		a[t].thr = t;
		ck_assert_int_eq(pthread_create(&th[t], NULL, qpc_writer, &a[t]), 0);
	}
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	ck_assert_int_eq(etl_session_flush(s), ETL_OK);
	for (uint32_t t = 0; t < QPC_T; t++)
		pthread_join(th[t], NULL);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(r, sp.file_name), ETL_OK);
	const struct etl_logfile *lf = etl_reader_logfile(r);
	ck_assert_uint_eq(lf->reserved_flags, ETL_CLOCK_QPC);
	ck_assert_int_eq(lf->perf_freq, etl__rt_qpc_freq());
	static int64_t raw[QPC_T][QPC_M];
	static unsigned char seen[QPC_T][QPC_M];
	memset(seen, 0, sizeof seen);
	const struct etl_event *ev;
	int st;
	size_t n = 0;
	const int64_t tol = 5 * 10000;                  /* 5 ms in 100 ns */
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (ev->buffer_offset == 0)
			continue;
		uint64_t seq = etl_le64(ev->payload);
		uint32_t thr = etl_le32(ev->payload + 8);
		ck_assert(thr < QPC_T && seq < QPC_M && !seen[thr][seq]);
		seen[thr][seq] = 1;
		raw[thr][seq] = ev->timestamp;
		ck_assert(ev->present & ETL_EVF_UTC);
		ck_assert_msg(ev->utc >= a[thr].lo[seq] - tol && ev->utc <= a[thr].hi[seq] + tol,
		              "event %u/%llu: utc %lld, written between %lld and %lld", thr,
		              (unsigned long long)seq, (long long)ev->utc, (long long)a[thr].lo[seq],
		              (long long)a[thr].hi[seq]);
		n++;
	}
	ck_assert_uint_eq(n, (size_t)QPC_T * QPC_M);
	for (uint32_t t = 0; t < QPC_T; t++)
		for (uint32_t i = 1; i < QPC_M; i++)
			ck_assert_msg(raw[t][i] >= raw[t][i - 1], "thread %u: event %u at %lld after %lld",
			              t, i, (long long)raw[t][i], (long long)raw[t][i - 1]);
	etl_reader_free(r);
	teardown_case(s, &prov);
}

START_TEST(test_qpc_utc)
{
	/* The TSC where the machine allows it (x86-64, invariant TSC that
	 * the kernel keeps time with), else CLOCK_MONOTONIC. */
	qpc_case();
	ck_assert_int_ge(etl__rt_qpc_freq(), 10000000);
}
END_TEST

START_TEST(test_qpc_monotonic_fallback)
{
	/* Each test runs in a fresh process (check's fork mode): the clock
	 * is chosen at this process's first QPC session. */
	setenv("ETL_QPC_NO_TSC", "1", 1);
	qpc_case();
	ck_assert_int_eq(etl__rt_qpc_freq(), 10000000);
}
END_TEST

START_TEST(test_blocking_tiny_pool)
{
	mkdir_tmp();
	struct etl_guid g = guid_n(3);
	static etl_provider prov;
	ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
	struct etl_session_props sp;
	tiny_pool_props(&sp, path_in("blk.etl"), 2);
	sp.blocking = 1;
	etl_session *s = start("Blocking", &sp);
	enable_all(s, &g);
	enum { T = 3, M = 10000 };
	struct wargs a[T];
	run_writers(&prov, &g, T, M, 0, a);
	for (unsigned i = 0; i < T; i++)
		ck_assert_uint_eq(a[i].failed, 0);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_le(st.buffers_allocated, 2);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_lost, 0);
	ck_assert_uint_eq(st.events_written, (uint64_t)T * M);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, (size_t)T * M);
	got_sort_unique(&got);
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_nonblocking_accounting)
{
	mkdir_tmp();
	struct etl_guid g = guid_n(4);
	static etl_provider prov;
	ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
	struct etl_session_props sp;
	tiny_pool_props(&sp, path_in("nb.etl"), 2);
	etl_session *s = start("NonBlocking", &sp);
	enable_all(s, &g);
	enum { T = 3, M = 20000 };
	struct wargs a[T];
	run_writers(&prov, &g, T, M, 0, a);
	/* One too large for a buffer: lost and counted. */
	ck_assert_int_eq(emit(&prov, &g, 999999, 9, 4, 1, 5000), ETL_FAILED);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	uint64_t failed = 1;
	for (unsigned i = 0; i < T; i++)
		failed += a[i].failed;
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_written + st.events_lost, (uint64_t)T * M + 1);
	ck_assert_uint_eq(st.events_lost, failed);
	ck_assert_uint_le(st.buffers_allocated, 2);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, st.events_written);
	ck_assert_uint_eq(got.lf.events_lost, st.events_lost);
	got_sort_unique(&got);
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

static void routing_case(int independent)
{
	mkdir_tmp();
	struct etl_guid g = guid_n(5);
	static etl_provider prov;
	ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
	struct etl_session_props big, tiny;
	etl_session_props_init(&big);
	big.file_name = path_in("big.etl");
	big.max_buffers = 200;
	big.blocking = 1;
	etl_session_props_init(&tiny);
	tiny.file_name = path_in("tiny.etl");
	tiny.buffer_size = 4096;
	tiny.min_buffers = 1;
	tiny.max_buffers = 1;
	tiny.flush_timer_ms = 0;
	tiny.independent = independent;
	etl_session *a = start("RouteBig", &big);
	etl_session *b = start("RouteTiny", &tiny);
	enable_all(a, &g);
	enable_all(b, &g);
	enum { T = 2, M = 20000 };
	struct wargs w[T];
	run_writers(&prov, &g, T, M, 0, w);
	ck_assert_int_eq(etl_session_stop(b), ETL_OK);
	ck_assert_int_eq(etl_session_stop(a), ETL_OK);
	struct etl_session_stats sa, sb;
	etl_session_stats(a, &sa);
	etl_session_stats(b, &sb);
	ck_assert_uint_eq(sa.events_written + sa.events_lost, (uint64_t)T * M);
	ck_assert_uint_eq(sb.events_written + sb.events_lost, (uint64_t)T * M);
	ck_assert_uint_gt(sb.events_lost, 0);
	struct got ga = { 0 }, gb = { 0 };
	read_file(big.file_name, &g, &ga);
	read_file(tiny.file_name, &g, &gb);
	ck_assert_uint_eq(ga.failures + gb.failures, 0);
	ck_assert_uint_eq(ga.n, sa.events_written);
	ck_assert_uint_eq(gb.n, sb.events_written);
	got_sort_unique(&ga);
	got_sort_unique(&gb);
	if (independent) {
		/* The big session lost nothing; the tiny one lost on its own. */
		ck_assert_uint_eq(sa.events_lost, 0);
		ck_assert_uint_eq(ga.n, (size_t)T * M);
	} else {
		/* All or nothing: the same events in both. */
		ck_assert_uint_eq(sa.events_lost, sb.events_lost);
		ck_assert_uint_eq(ga.n, gb.n);
		for (size_t i = 0; i < ga.n; i++)
			TU_CHECK(ga.key[i] == gb.key[i], "sessions differ at %zu", i);
	}
	got_free(&ga);
	got_free(&gb);
	etl_session_free(a);
	etl_session_free(b);
	etl_provider_unregister(&prov);
	rm_tmp();
}

START_TEST(test_routing_all_or_nothing)
{
	routing_case(0);
}
END_TEST

START_TEST(test_routing_independent)
{
	routing_case(1);
}
END_TEST

struct cbrec {
	int calls, enabled;
	uint8_t level;
	uint64_t any, all;
};

static void on_enable(void *ctx, int is_enabled, uint8_t level, uint64_t any, uint64_t all)
{
	struct cbrec *c = ctx;
	c->calls++;
	c->enabled = is_enabled;
	c->level = level;
	c->any = any;
	c->all = all;
}

START_TEST(test_filtering)
{
	mkdir_tmp();
	struct etl_guid g = guid_n(6);
	static etl_provider prov;
	struct cbrec cb = { 0 };
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = path_in("f1.etl");
	etl_session *s1 = start("Filter1", &sp);
	sp.file_name = path_in("f2.etl");
	etl_session *s2 = start("Filter2", &sp);
	/* Enabled before the provider registers: picked up at register. */
	struct etl_enable_params e1, e2;
	etl_enable_params_init(&e1);
	e1.level = 3;
	e1.match_any = 0x0F;
	e1.match_all = 0x01;
	ck_assert_int_eq(etl_session_enable(s1, &g, &e1), ETL_OK);
	ck_assert_int_eq(etl_provider_register(&prov, &g, on_enable, &cb), ETL_OK);
	ck_assert_int_eq(cb.calls, 1);
	ck_assert_int_eq(cb.enabled, 1);
	ck_assert_uint_eq(cb.level, 3);
	ck_assert_uint_eq(prov.state, 0x103);
	ck_assert(etl_event_enabled(&prov, 3, 0x3));
	ck_assert(!etl_event_enabled(&prov, 4, 0x3));
	ck_assert(!etl_event_enabled(&prov, 3, 0x10));
	ck_assert(!etl_event_enabled(&prov, 3, 0x2));     /* match_all 0x1 */
	ck_assert(etl_event_enabled(&prov, 0, 0));
	etl_enable_params_init(&e2);
	e2.level = 5;
	e2.match_any = 0x30;
	e2.properties = ETL_ENABLE_IGNORE_KEYWORD_0;
	ck_assert_int_eq(etl_session_enable(s2, &g, &e2), ETL_OK);
	ck_assert_int_eq(cb.calls, 2);
	ck_assert_uint_eq(cb.level, 5);
	ck_assert_uint_eq(cb.any, 0x3F);
	ck_assert_uint_eq(cb.all, 0);
	ck_assert(etl_event_enabled(&prov, 5, 0x20));
	/* seq: level, keyword; expected in s1, s2 */
	static const struct { uint8_t level; uint64_t kw; int in1, in2; } cases[] = {
		{ 3, 0x01, 1, 0 },   /* any ok, all ok              */
		{ 3, 0x03, 1, 0 },
		{ 3, 0x02, 0, 0 },   /* s1: all fails                */
		{ 4, 0x01, 0, 0 },   /* s1: level                    */
		{ 0, 0x01, 1, 0 },   /* level 0 passes               */
		{ 1, 0x00, 1, 0 },   /* keyword 0: s1 yes, s2 ignores */
		{ 5, 0x20, 0, 1 },
		{ 5, 0x31, 0, 1 },   /* s1 level no; s2 any          */
		{ 2, 0x11, 1, 1 },
		{ 6, 0x20, 0, 0 },   /* s2 level                     */
		{ 5, 0x40, 0, 0 },
	};
	size_t nc = sizeof cases / sizeof cases[0];
	for (size_t i = 0; i < nc; i++)
		ck_assert_int_eq(emit(&prov, &g, i, 0, cases[i].level, cases[i].kw, 0), ETL_OK);
	/* Update on the fly: s1 now takes everything. */
	etl_enable_params_init(&e1);
	ck_assert_int_eq(etl_session_enable(s1, &g, &e1), ETL_OK);
	ck_assert_int_eq(emit(&prov, &g, 100, 0, 6, 0x40, 0), ETL_OK);
	ck_assert_int_eq(etl_session_disable(s1, &g), ETL_OK);
	ck_assert_int_eq(etl_session_disable(s1, &g), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s1), ETL_E_NOT_FOUND);
	ck_assert_int_eq(emit(&prov, &g, 101, 0, 5, 0x20, 0), ETL_OK);   /* s2 only */
	ck_assert_int_eq(etl_session_disable(s2, &g), ETL_OK);
	ck_assert_int_eq(cb.enabled, 0);
	ck_assert_uint_eq(prov.state, 0);
	ck_assert(!etl_event_enabled(&prov, 1, 0));
	ck_assert_int_eq(emit(&prov, &g, 102, 0, 1, 0x1, 0), ETL_OK);    /* nowhere */
	ck_assert_int_eq(etl_session_stop(s1), ETL_OK);
	ck_assert_int_eq(etl_session_stop(s2), ETL_OK);
	struct got g1 = { 0 }, g2 = { 0 };
	read_file(path_in("f1.etl"), &g, &g1);
	read_file(path_in("f2.etl"), &g, &g2);
	got_sort_unique(&g1);
	got_sort_unique(&g2);
	size_t n1 = 0, n2 = 0;
	for (size_t i = 0; i < nc; i++) {
		ck_assert_msg(got_has(&g1, KEY(0, i)) == cases[i].in1, "case %zu in s1", i);
		ck_assert_msg(got_has(&g2, KEY(0, i)) == cases[i].in2, "case %zu in s2", i);
		n1 += (size_t)cases[i].in1;
		n2 += (size_t)cases[i].in2;
	}
	ck_assert(got_has(&g1, KEY(0, 100)));
	ck_assert(!got_has(&g2, KEY(0, 100)));
	ck_assert(got_has(&g2, KEY(0, 101)));
	ck_assert_uint_eq(g1.n, n1 + 1);
	ck_assert_uint_eq(g2.n, n2 + 1);
	got_free(&g1);
	got_free(&g2);
	etl_session_free(s1);
	etl_session_free(s2);
	etl_provider_unregister(&prov);
	rm_tmp();
}
END_TEST

START_TEST(test_toggle_while_writing)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 7, &sp, "tog1.etl");
	sp.buffer_size = 8192;
	sp.max_buffers = 64;
	sp.flush_timer_ms = 5;
	etl_session *s1 = start("Toggle1", &sp);
	sp.file_name = path_in("tog2.etl");
	sp.min_buffers = 1;
	sp.max_buffers = 2;
	etl_session *s2 = start("Toggle2", &sp);
	_Atomic int stop = 0;
	struct wargs a[2];
	pthread_t th[2];
	for (unsigned i = 0; i < 2; i++) {
		a[i] = (struct wargs){ &prov, &g, i, 0, 40, &stop, 0, 0, NULL, 0, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, writer_main, &a[i]), 0);
	}
	struct etl_enable_params ep;
	for (int k = 0; k < 300; k++) {
		etl_enable_params_init(&ep);
		ep.level = (uint8_t)(k % 3 ? 5 : 3);
		ck_assert_int_eq(etl_session_enable(s1, &g, &ep), ETL_OK);
		if (k % 2)
			ck_assert_int_eq(etl_session_enable(s2, &g, &ep), ETL_OK);
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
		if (k % 4 == 1)
			ck_assert_int_eq(etl_session_disable(s2, &g), ETL_OK);
		if (k % 5 == 0)
			ck_assert_int_eq(etl_session_disable(s1, &g), ETL_OK);
	}
	/* Stopping while the writers still run. */
	ck_assert_int_eq(etl_session_stop(s2), ETL_OK);
	enable_all(s1, &g);
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
	ck_assert_int_eq(etl_session_stop(s1), ETL_OK);
	atomic_store(&stop, 1);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	etl_provider_unregister(&prov);
	const char *files[2] = { path_in("tog1.etl"), path_in("tog2.etl") };
	etl_session *ss[2] = { s1, s2 };
	for (int f = 0; f < 2; f++) {
		struct got got = { 0 };
		read_file(files[f], &g, &got);
		ck_assert_uint_eq(got.failures, 0);
		got_sort_unique(&got);
		for (size_t i = 0; i < got.n; i++) {
			uint32_t thr = (uint32_t)(got.key[i] >> 40);
			uint64_t seq = got.key[i] & ((1ull << 40) - 1);
			TU_CHECK(thr < 2 && seq < a[thr].attempted, "event from nowhere");
		}
		/* A write that reported a loss reached no session (both are
		 * non-independent). */
		for (unsigned t = 0; t < 2; t++)
			for (size_t i = 0; i < a[t].nlost; i++)
				TU_CHECK(!got_has(&got, KEY(t, a[t].lost[i])), "lost event %u/%llu in the file", t,
				         (unsigned long long)a[t].lost[i]);
		struct etl_session_stats st;
		etl_session_stats(ss[f], &st);
		ck_assert_uint_eq(got.n, st.events_written);
		got_free(&got);
	}
	uint64_t nlost = a[0].nlost + a[1].nlost;
	free(a[0].lost);
	free(a[1].lost);
	etl_session_free(s1);
	etl_session_free(s2);
	(void)nlost;                                 /* usually > 0: s2 has 2 buffers */
	rm_tmp();
}
END_TEST

START_TEST(test_unregister_while_writing)
{
	mkdir_tmp();
	struct etl_guid g = guid_n(8);
	static etl_provider prov;
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = path_in("unreg.etl");
	etl_session *s = start("Unreg", &sp);
	enable_all(s, &g);
	for (int k = 0; k < 20; k++) {
		ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
		ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_FAILED);
		_Atomic int stop = 0;
		struct wargs a = { &prov, &g, (uint32_t)k, 0, 0, &stop, 0, 0, NULL, 0, 0 };
		pthread_t th;
		ck_assert_int_eq(pthread_create(&th, NULL, writer_main, &a), 0);
		struct timespec ts = { 0, 300000 };
		nanosleep(&ts, NULL);
		etl_provider_unregister(&prov);
		atomic_store(&stop, 1);
		pthread_join(th, NULL);
		free(a.lost);
	}
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	got_sort_unique(&got);
	got_free(&got);
	etl_session_free(s);
	rm_tmp();
}
END_TEST

/* Writes n events of extra payload from one thread; returns failures. */
static uint64_t write_n(etl_provider *p, const struct etl_guid *g, uint64_t from, uint64_t n,
                        uint32_t extra)
{
	uint64_t failed = 0;
	for (uint64_t i = from; i < from + n; i++)
		if (emit(p, g, i, 0, 4, 1, extra) != ETL_OK)
			failed++;
	return failed;
}

START_TEST(test_circular_wrap)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 9, &sp, "circ.etl");
	sp.file_mode = ETL_FILE_CIRCULAR;
	sp.max_file_size_mb = 1;
	sp.blocking = 1;
	etl_session *s = start("Circular", &sp);
	enable_all(s, &g);
	enum { N = 40000 };          /* ~40000 x 0x160 = 14 MB through a 1 MB file */
	ck_assert_uint_eq(write_n(&prov, &g, 0, N, 250), 0);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct stat stt;
	ck_assert_int_eq(stat(sp.file_name, &stt), 0);
	ck_assert_int_le(stt.st_size, 1024 * 1024);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.lf.log_file_mode, ETL_MODE_CIRCULAR);
	got_sort_unique(&got);
	ck_assert_uint_gt(got.n, 1000);
	ck_assert_uint_lt(got.n, N);
	/* Newest kept: the last event written is there, the first is not. */
	ck_assert(got_has(&got, KEY(0, N - 1)));
	ck_assert(!got_has(&got, KEY(0, 0)));
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_newfile_rotation)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 10, &sp, "nf_%d.etl");
	sp.file_mode = ETL_FILE_NEWFILE;
	sp.max_file_size_mb = 1;
	sp.blocking = 1;
	etl_session *s = start("NewFile", &sp);
	enable_all(s, &g);
	enum { N = 12000 };          /* ~4 MB */
	ck_assert_uint_eq(write_n(&prov, &g, 0, N, 250), 0);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_ge(st.files_written, 4);
	struct got got = { 0 };
	for (uint64_t f = 1; f <= st.files_written; f++) {
		char name[64];
		snprintf(name, sizeof name, "nf_%d.etl", (int)f);
		struct stat stt;
		ck_assert_int_eq(stat(path_in(name), &stt), 0);
		ck_assert_int_le(stt.st_size, 1024 * 1024);
		size_t before = got.n;
		read_file(path_in(name), &g, &got);
		ck_assert_uint_gt(got.n, before);
	}
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, N);
	ck_assert_uint_eq(st.events_written, N);
	got_sort_unique(&got);
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_sequential_limit)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 11, &sp, "seqlim.etl");
	sp.max_file_size_mb = 1;
	sp.blocking = 1;
	etl_session *s = start("SeqLimit", &sp);
	enable_all(s, &g);
	enum { N = 12000 };
	uint64_t failed = write_n(&prov, &g, 0, N, 250);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_written + st.events_lost, N);
	ck_assert_uint_gt(st.events_lost, 0);
	ck_assert_uint_ge(st.events_lost, failed);
	struct stat stt;
	ck_assert_int_eq(stat(sp.file_name, &stt), 0);
	ck_assert_int_le(stt.st_size, 1024 * 1024);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, st.events_written);
	ck_assert_uint_eq(got.lf.events_lost, st.events_lost);
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

static void buffering_case(int compressed)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 12, &sp, "ring.etl");
	sp.file_mode = ETL_FILE_BUFFERING;
	sp.buffer_size = 4096;
	sp.min_buffers = 2;
	sp.max_buffers = 6;
	sp.flush_timer_ms = 0;
	sp.blocking = 1;           /* the ring is reused, never waited out */
	sp.compressed = compressed;
	etl_session *s = start("Buffering", &sp);
	enable_all(s, &g);
	enum { N = 3000 };
	ck_assert_uint_eq(write_n(&prov, &g, 0, N, 0), 0);
	struct stat stt;
	ck_assert_int_ne(stat(sp.file_name, &stt), 0);     /* no file yet */
	ck_assert_int_eq(etl_session_flush(s), ETL_OK);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.lf.log_file_mode, compressed ? 0x400 | ETL_MODE_COMPRESSED : 0x400);
	got_sort_unique(&got);
	ck_assert_uint_gt(got.n, 0);
	ck_assert_uint_lt(got.n, N);                   /* 6 x 4 KiB hold ~240 */
	ck_assert(got_has(&got, KEY(0, N - 1)));       /* the newest is kept  */
	ck_assert(!got_has(&got, KEY(0, 0)));
	got_free(&got);
	write_n(&prov, &g, N, 10, 0);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	got_sort_unique(&got);
	ck_assert(got_has(&got, KEY(0, N + 9)));
	got_free(&got);
	teardown_case(s, &prov);
}

START_TEST(test_buffering_flush)
{
	buffering_case(0);
}
END_TEST

START_TEST(test_buffering_compressed)
{
	buffering_case(1);
}
END_TEST

struct rtctx {
	struct got got;
	const struct etl_guid *g;
	pthread_t logger;
	int other_thread;
};

/* etl_session_timing(): the figures that do not depend on timing. A
 * sequential file's output bytes are its full buffers; the logger worked;
 * a wait is counted with its time; a caller's shorter struct gets only
 * what it knows; a BUFFERING session's output is its ring, at flush. */
START_TEST(test_timing_counters)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 30, &sp, "timing.etl");
	tiny_pool_props(&sp, sp.file_name, 2);
	sp.blocking = 1;
	etl_session *s = start("Timing", &sp);
	enable_all(s, &g);
	struct wargs a[2];
	run_writers(&prov, &g, 2, 5000, 0, a);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_lost, 0);
	struct etl_session_timing t;
	memset(&t, 0xEE, sizeof t);
	t.struct_size = sizeof t;
	ck_assert_int_eq(etl_session_timing(s, &t), ETL_OK);
	ck_assert_uint_eq(t.struct_size, sizeof t);
	ck_assert_uint_eq(t.reserved, 0);
	ck_assert_uint_gt(t.logger_rounds, 0);
	ck_assert_uint_gt(t.logger_busy_ns, 0);
	ck_assert_uint_gt(t.output_calls, 0);
	ck_assert_uint_eq(t.output_bytes, st.buffers_written * 4096);
	ck_assert(t.buffer_waits > 0 || t.buffer_wait_ns == 0);
	ck_assert(t.lock_waits > 0 || t.lock_wait_ns == 0);
	ck_assert_uint_le(t.logger_cpu_ns, 1000000000000ull);

	struct etl_session_timing old;
	memset(&old, 0xEE, sizeof old);
	old.struct_size = 16;              /* a caller that knows buffer_waits */
	ck_assert_int_eq(etl_session_timing(s, &old), ETL_OK);
	ck_assert_uint_eq(old.buffer_waits, t.buffer_waits);
	ck_assert_uint_eq(old.buffer_wait_ns, 0xEEEEEEEEEEEEEEEEull);
	old.struct_size = 4;
	ck_assert_int_eq(etl_session_timing(s, &old), ETL_FAILED);
	etl_session_free(s);

	etl_session_props_init(&sp);
	sp.file_name = path_in("timing-ring.etl");
	sp.file_mode = ETL_FILE_BUFFERING;
	sp.buffer_size = 4096;
	sp.max_buffers = 6;
	s = start("TimingRing", &sp);
	enable_all(s, &g);
	write_n(&prov, &g, 0, 100, 0);
	memset(&t, 0, sizeof t);
	t.struct_size = sizeof t;
	etl_session_timing(s, &t);
	ck_assert_uint_eq(t.output_calls, 0);          /* nothing written yet */
	ck_assert_int_eq(etl_session_flush(s), ETL_OK);
	etl_session_timing(s, &t);
	ck_assert_uint_eq(t.output_calls, 1);
	ck_assert_uint_ge(t.output_bytes, 4096);
	teardown_case(s, &prov);
}
END_TEST

/* The pool without its lock (lib/trace/trace_pool.c) under pressure: 3
 * writers on a blocking BUFFERING session of 64 small buffers take ring
 * buffers while the main thread flushes again and again until they are
 * done (the flush freezes the ring; a writer that took a buffer being
 * written would race with the write, which ThreadSanitizer sees): no
 * event is lost, and every flushed file reads back whole, each event in
 * it once. */
static _Atomic int g_ring_done;

static void *ring_writer(void *arg)
{
	writer_main(arg);
	atomic_fetch_add(&g_ring_done, 1);
	return NULL;
}

START_TEST(test_buffering_threads_flush)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 31, &sp, "ring-threads.etl");
	sp.file_mode = ETL_FILE_BUFFERING;
	sp.buffer_size = 4096;
	sp.min_buffers = 1;
	sp.max_buffers = 64;
	sp.flush_timer_ms = 0;
	sp.blocking = 1;
	etl_session *s = start("RingThreads", &sp);
	enable_all(s, &g);
	enum { T = 3, M = 20000 };
	struct wargs a[T];
	pthread_t th[T];
	for (unsigned i = 0; i < T; i++) {
		a[i] = (struct wargs){ &prov, &g, i, M, 0, NULL, 0, 0, NULL, 0, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, ring_writer, &a[i]), 0);
	}
	for (int k = 0; k < 20 || atomic_load(&g_ring_done) < T; k++) {
		ck_assert_int_eq(etl_session_flush(s), ETL_OK);
		struct got got = { 0 };
		read_file(sp.file_name, &g, &got);
		ck_assert_uint_eq(got.failures, 0);
		got_sort_unique(&got);
		got_free(&got);
	}
	for (unsigned i = 0; i < T; i++) {
		pthread_join(th[i], NULL);
		ck_assert_uint_eq(a[i].failed, 0);
		free(a[i].lost);
	}
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_lost, 0);
	ck_assert_uint_eq(st.events_written, (uint64_t)T * M);
	ck_assert_uint_le(st.buffers_allocated, 64);
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	got_sort_unique(&got);                          /* each once       */
	ck_assert_uint_gt(got.n, 0);
	got_free(&got);
	teardown_case(s, &prov);
}
END_TEST

static void on_realtime(void *ctx, const struct etl_event *ev)
{
	struct rtctx *c = ctx;
	if (!c->got.n)
		c->logger = pthread_self();
	check_event(ev, c->g, &c->got);
}

START_TEST(test_realtime_callback)
{
	struct etl_guid g = guid_n(13);
	static etl_provider prov;
	ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
	struct rtctx c;
	memset(&c, 0, sizeof c);
	c.g = &g;
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_mode = ETL_FILE_REALTIME;
	sp.realtime_cb = on_realtime;
	sp.realtime_ctx = &c;
	sp.blocking = 1;
	etl_session *s = start("RealTime", &sp);
	enable_all(s, &g);
	enum { T = 2, M = 5000 };
	struct wargs a[T];
	run_writers(&prov, &g, T, M, 0, a);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	ck_assert(!pthread_equal(c.logger, pthread_self()));
	ck_assert_uint_eq(c.got.n, (size_t)T * M);
	got_sort_unique(&c.got);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_written, (uint64_t)T * M);
	got_free(&c.got);
	etl_session_free(s);
	etl_provider_unregister(&prov);
}
END_TEST

START_TEST(test_compressed)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 14, &sp, "comp.etl");
	sp.compressed = 1;
	sp.blocking = 1;
	etl_session *s = start("Compressed", &sp);
	enable_all(s, &g);
	enum { T = 2, M = 15000 };
	struct wargs a[T];
	run_writers(&prov, &g, T, M, 20, a);
	ck_assert_int_eq(etl_session_flush(s), ETL_OK);
	/* Readable after a flush, before stop. */
	struct got got = { 0 };
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, (size_t)T * M);
	got_free(&got);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	read_file(sp.file_name, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, (size_t)T * M);
	ck_assert_uint_eq(got.lf.log_file_mode, ETL_MODE_SEQUENTIAL | ETL_MODE_COMPRESSED);
	got_sort_unique(&got);
	got_free(&got);
	struct stat stt;
	ck_assert_int_eq(stat(sp.file_name, &stt), 0);
	ck_assert_int_lt(stt.st_size, (off_t)T * M * 0x70 / 2);    /* it did compress */
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_flush_timer)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 15, &sp, "timer.etl");
	sp.flush_timer_ms = 50;
	etl_session *s = start("Timer", &sp);
	enable_all(s, &g);
	write_n(&prov, &g, 0, 10, 0);
	struct got got = { 0 };
	for (int tries = 0; tries < 100 && got.n < 10; tries++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		got_free(&got);
		read_file(sp.file_name, &g, &got);
	}
	ck_assert_uint_eq(got.n, 10);
	ck_assert_uint_eq(got.failures, 0);
	got_free(&got);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_written, 10);
	ck_assert_uint_ge(st.buffers_written, 1);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	teardown_case(s, &prov);
}
END_TEST

/* A writer pinned to one processor fills that processor's buffers one
 * after the other; the logger writes them several per system call (a
 * pool of 64 wakes it every 4 buffers): the file holds every buffer, with
 * consecutive sequence numbers, and the events in the order written. */
static void batched_case(uint32_t max_buffers)
{
	mkdir_tmp();
	int cpu = sched_getcpu();
	ck_assert(pin_run_on(cpu < 0 ? 0 : cpu));
	struct etl_guid g = guid_n(20);
	static etl_provider prov;
	ck_assert_int_eq(etl_provider_register(&prov, &g, NULL, NULL), ETL_OK);
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = path_in("batch.etl");
	sp.buffer_size = 4096;
	sp.min_buffers = 2;
	sp.max_buffers = max_buffers;
	sp.flush_timer_ms = 0;
	sp.blocking = 1;
	etl_session *s = start("Batched", &sp);
	enable_all(s, &g);
	enum { M = 20000 };
	ck_assert_uint_eq(write_n(&prov, &g, 0, M, 20), 0);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats st;
	etl_session_stats(s, &st);
	ck_assert_uint_eq(st.events_written, M);
	ck_assert_uint_eq(st.events_lost, 0);
	ck_assert_uint_eq(st.buffers_lost, 0);
	/* 112-byte records, at most 36 to a buffer (fewer when a writer
	 * waiting for a buffer has the logger swap a partly filled one). */
	ck_assert_uint_ge(st.buffers_written, (M + 35) / 36);
	size_t size = 0;
	uint8_t *f = tu_load_file(sp.file_name, &size);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(size, (size_t)4096 * (1 + st.buffers_written));
	for (uint64_t k = 1; k <= st.buffers_written; k++) {
		const uint8_t *b = f + k * 4096;
		ck_assert_uint_eq(etl_le32(b + 0x00), 4096);
		ck_assert_uint_eq(etl_le64(b + 0x18), k);          /* SequenceNumber */
		ck_assert_uint_eq(etl_le16(b + 0x28), (uint16_t)(cpu < 0 ? 0 : cpu));
	}
	free(f);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(r, sp.file_name), ETL_OK);
	const struct etl_event *ev;
	int rc;
	uint64_t next = 0, last_off = 0;
	while ((rc = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(rc, ETL_OK);
		if (ev->buffer_offset == 0)
			continue;
		ck_assert_uint_ge(ev->buffer_offset, last_off);
		last_off = ev->buffer_offset;
		ck_assert_uint_eq(etl_le64(ev->payload), next);
		next++;
	}
	ck_assert_uint_eq(next, M);
	etl_reader_free(r);
	teardown_case(s, &prov);
}

START_TEST(test_batched_buffers_in_order)
{
	batched_case(64);
}
END_TEST

START_TEST(test_small_pool_buffers_in_order)
{
	batched_case(4);
}
END_TEST

/* Disk space is allocated ahead of a session's file without growing it:
 * while the session runs, the file is a whole number of buffers and
 * reads back without error after each flush; once stopped, no space is
 * left allocated past its end. */
START_TEST(test_prealloc_invisible)
{
	static etl_provider prov;
	struct etl_guid g;
	struct etl_session_props sp;
	setup_case(&prov, &g, 21, &sp, "prealloc.etl");
	sp.buffer_size = 4096;
	sp.flush_timer_ms = 0;
	sp.blocking = 1;
	etl_session *s = start("Prealloc", &sp);
	enable_all(s, &g);
	uint64_t done = 0;
	for (int round = 0; round < 3; round++) {
		ck_assert_uint_eq(write_n(&prov, &g, done, 1000, 0), 0);
		done += 1000;
		ck_assert_int_eq(etl_session_flush(s), ETL_OK);
		struct stat sb;
		ck_assert_int_eq(stat(sp.file_name, &sb), 0);
		ck_assert_uint_eq((uint64_t)sb.st_size % 4096, 0);
		struct got got = { 0 };
		read_file(sp.file_name, &g, &got);
		ck_assert_uint_eq(got.failures, 0);
		ck_assert_uint_eq(got.n, done);
		got_free(&got);
	}
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct stat sb;
	ck_assert_int_eq(stat(sp.file_name, &sb), 0);
	/* Blocks of 512 bytes; a step would be 4 MiB. */
	ck_assert_uint_le((uint64_t)sb.st_blocks * 512, (uint64_t)sb.st_size + 65536);
	teardown_case(s, &prov);
}
END_TEST

START_TEST(test_fork_child_crash)
{
	mkdir_tmp();
	const char *path = path_in("child.etl");
	/* The parent's own session, enabled for the same provider: the child
	 * inherits it orphaned (no logger thread there) and routes nothing to
	 * it. */
	struct etl_guid g = guid_n(16);
	struct etl_session_props pp;
	etl_session_props_init(&pp);
	pp.file_name = path_in("parent.etl");
	etl_session *ps = start("Parent", &pp);
	enable_all(ps, &g);
	/* A flush returns after a round of the parent's logger: its thread has
	 * started and sleeps. Forking while it still starts leaves the child an
	 * allocator lock that thread held when the allocator does not take its
	 * locks around fork() (AddressSanitizer's: the child's first calloc()
	 * then waits for ever; glibc's malloc takes them). */
	ck_assert_int_eq(etl_session_flush(ps), ETL_OK);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static etl_provider prov;
		struct etl_session_props sp;
		etl_session_props_init(&sp);
		sp.file_name = path;
		sp.flush_timer_ms = 0;
		etl_session_free(ps);                     /* orphan: memory only */
		etl_session *s = etl_session_new();
		if (etl_provider_register(&prov, &g, NULL, NULL) != ETL_OK || prov.state != 0 ||
		    etl_session_start(s, "Parent", &sp) != ETL_OK)
			_exit(2);
		struct etl_enable_params ep;
		etl_enable_params_init(&ep);
		etl_session_enable(s, &g, &ep);
		if (write_n(&prov, &g, 0, 100, 0) != 0 || etl_session_flush(s) != ETL_OK)
			_exit(3);
		write_n(&prov, &g, 100, 50, 0);           /* never flushed */
		_exit(0);
	}
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	/* What the last flush left: whole buffers (64 KiB), no tail. */
	struct stat sb;
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_gt((uint64_t)sb.st_size, 0);
	ck_assert_uint_eq((uint64_t)sb.st_size % (64 * 1024), 0);
	struct got got = { 0 };
	read_file(path, &g, &got);
	ck_assert_uint_eq(got.failures, 0);
	ck_assert_uint_eq(got.n, 100);
	got_sort_unique(&got);
	for (uint64_t i = 0; i < 100; i++)
		ck_assert(got_has(&got, KEY(0, i)));
	got_free(&got);
	ck_assert_int_eq(etl_session_stop(ps), ETL_OK);
	read_file(pp.file_name, &g, &got);
	ck_assert_uint_eq(got.n, 0);
	got_free(&got);
	etl_session_free(ps);
	rm_tmp();
}
END_TEST

START_TEST(test_limits)
{
	mkdir_tmp();
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_mode = ETL_FILE_BUFFERING;
	sp.buffer_size = 4096;
	sp.min_buffers = 1;
	sp.max_buffers = 1;
	sp.file_name = path_in("lim.etl");
	etl_session *s[65];
	char name[32];
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof name, "Limit%d", i);
		s[i] = start(name, &sp);
	}
	s[64] = etl_session_new();
	ck_assert_int_eq(etl_session_start(s[64], "Limit64", &sp), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s[64]), ETL_E_LIMIT);
	ck_assert_int_eq(etl_session_start(s[0], "Limit0", &sp), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s[0]), ETL_E_MISUSE);
	/* 8 sessions per provider. */
	struct etl_guid g = guid_n(17);
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(etl_session_enable(s[i], &g, &ep), ETL_OK);
	ck_assert_int_eq(etl_session_enable(s[3], &g, &ep), ETL_OK);   /* update */
	ck_assert_int_eq(etl_session_enable(s[8], &g, &ep), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s[8]), ETL_E_LIMIT);
	ck_assert_int_eq(etl_session_stop(s[63]), ETL_OK);
	ck_assert_int_eq(etl_session_stop(s[63]), ETL_FAILED);
	/* A free index and a free name again; duplicate names refused. */
	ck_assert_int_eq(etl_session_start(s[64], "Limit1", &sp), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s[64]), ETL_E_LIMIT);
	ck_assert_int_eq(etl_session_start(s[64], "Limit63", &sp), ETL_OK);
	/* Bad properties. */
	etl_session *b = etl_session_new();
	struct etl_session_props bad;
	etl_session_props_init(&bad);
	bad.buffer_size = 5000;
	bad.file_name = "x.etl";
	ck_assert_int_eq(etl_session_start(b, "Bad", &bad), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(b), ETL_E_BAD_VALUE);
	etl_session_props_init(&bad);
	bad.file_mode = ETL_FILE_NEWFILE;
	bad.file_name = "x.etl";
	bad.max_file_size_mb = 1;
	ck_assert_int_eq(etl_session_start(b, "Bad", &bad), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(b), ETL_E_BAD_VALUE);
	ck_assert_int_eq(etl_session_flush(b), ETL_FAILED);
	ck_assert_int_eq(etl_session_enable(b, &g, &ep), ETL_FAILED);
	etl_session_free(b);
	for (int i = 0; i < 65; i++)
		etl_session_free(s[i]);
	rm_tmp();
}
END_TEST

START_TEST(test_register_by_name)
{
	static etl_provider prov;
	ck_assert_int_eq(etl_provider_register_name(&prov, "MyCompany.MyComponent", NULL, NULL), ETL_OK);
	struct etl_guid want, got = etl_provider_guid(&prov);
	ck_assert_int_eq(etl_provider_guid_from_name("MyCompany.MyComponent", &want), ETL_OK);
	ck_assert(etl_guid_equal(&want, &got));
	ck_assert_str_eq(etl__rt_provider_name(&prov), "MyCompany.MyComponent");
	etl_provider_unregister(&prov);
	got = etl_provider_guid(&prov);
	ck_assert(etl_guid_is_null(&got));
	ck_assert_ptr_null(etl__rt_provider_name(&prov));
	/* A disabled provider: nothing happens. */
	ck_assert_int_eq(emit(&prov, &want, 1, 0, 1, 0, 0), ETL_OK);
}
END_TEST

static Suite *trace_core_suite(void)
{
	Suite *s = suite_create("trace_core");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_hole_marker_is_no_header);
	tcase_add_test(tc, test_abandon_hole_and_give_back);
	tcase_add_test(tc, test_round_trip_threads);
	tcase_add_test(tc, test_logfile_names);
	tcase_add_test(tc, test_clocks);
	tcase_add_test(tc, test_qpc_utc);
	tcase_add_test(tc, test_qpc_monotonic_fallback);
	tcase_add_test(tc, test_blocking_tiny_pool);
	tcase_add_test(tc, test_nonblocking_accounting);
	tcase_add_test(tc, test_routing_all_or_nothing);
	tcase_add_test(tc, test_routing_independent);
	tcase_add_test(tc, test_filtering);
	tcase_add_test(tc, test_toggle_while_writing);
	tcase_add_test(tc, test_unregister_while_writing);
	tcase_add_test(tc, test_register_by_name);
	suite_add_tcase(s, tc);
	TCase *tm = tcase_create("modes");
	tcase_set_timeout(tm, 300);
	tcase_add_test(tm, test_circular_wrap);
	tcase_add_test(tm, test_newfile_rotation);
	tcase_add_test(tm, test_sequential_limit);
	tcase_add_test(tm, test_timing_counters);
	tcase_add_test(tm, test_buffering_threads_flush);
	tcase_add_test(tm, test_buffering_flush);
	tcase_add_test(tm, test_buffering_compressed);
	tcase_add_test(tm, test_realtime_callback);
	tcase_add_test(tm, test_compressed);
	tcase_add_test(tm, test_flush_timer);
	tcase_add_test(tm, test_batched_buffers_in_order);
	tcase_add_test(tm, test_small_pool_buffers_in_order);
	tcase_add_test(tm, test_prealloc_invisible);
	tcase_add_test(tm, test_fork_child_crash);
	tcase_add_test(tm, test_limits);
	suite_add_tcase(s, tm);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_core_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
