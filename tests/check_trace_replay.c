/*
 * check_trace_replay.c - the replay write path of the tracing runtime
 * (etl_replay_write(), etl_session_props.replay_of; etl_trace.h,
 * "Replaying captured events"):
 *
 *   routing      a replayed event reaches exactly the sessions whose
 *                level, keyword and keyword-0 filters it passes for its
 *                provider GUID; a GUID nobody enables costs nothing and
 *                writes nothing;
 *   processor    the record lands in the buffer of the captured event's
 *                processor in a session that replays the trace (one stream
 *                per processor of its header), folded into a live
 *                session's processor count, whatever the writing thread's
 *                own number (etl_thread_processor_set());
 *   clock        the replaying session's header keeps the trace's clock
 *                figures and anchor, and the event its raw timestamp; a
 *                live session on the caller's clock stamps it with its
 *                UTC time in its own clock (it reads back at that time);
 *   losses       an event whose record cannot be encoded (unknown header
 *                type, fields that disagree) is ETL_FAILED and counted
 *                lost; a pre-1.1 INSTANCE record goes only to a session
 *                whose file has the 1.0 layout;
 *   properties   replay_of without the caller's clock, without a logfile
 *                header, or with no processor: refused;
 *   corpus       a corpus file replayed twice into the same path gives the
 *                same bytes, StartTime and EndTime from the trace's time;
 *                replayed into a real-time session, the consumer receives
 *                every event sent, each processor's in order, field by
 *                field.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "etl.h"
#include "etl_trace.h"
#include "testutil.h"

static const struct etl_guid G1 = { 0x7a1c0001, 0x1111, 0x4c55, { 0x8e, 1, 2, 3, 4, 5, 6, 7 } };
static const struct etl_guid G2 = { 0x7a1c0002, 0x2222, 0x4c55, { 0x8e, 1, 2, 3, 4, 5, 6, 8 } };

/* 2024-01-02T03:04:05Z as a FILETIME. */
#define T0 133486154450000000LL
#define SEC 10000000LL
#define HZ 3000000LL                   /* the captured trace's QPC rate  */
#define H0 987654321LL                 /* its header record's timestamp  */

static _Atomic int64_t g_now;

static int64_t test_clock(void *ctx)
{
	(void)ctx;
	return g_now;
}

static char g_a[256], g_b[256];

static void setup(void)
{
	snprintf(g_a, sizeof g_a, "/tmp/check_trace_replay.%d.a.etl", (int)getpid());
	snprintf(g_b, sizeof g_b, "/tmp/check_trace_replay.%d.b.etl", (int)getpid());
	g_now = T0;
}

static void teardown(void)
{
	unlink(g_a);
	unlink(g_b);
}

/* The logfile header of a captured trace: 16 processors, a 3 MHz QPC,
 * 32-bit, build 7601, a time zone. */
static void captured_logfile(struct etl_logfile *lf)
{
	memset(lf, 0, sizeof *lf);
	lf->present = 1;
	lf->header_ptr_size = 4;
	lf->pointer_size = 4;
	lf->buffer_size = 8192;
	lf->version[0] = 6;
	lf->version[1] = 1;
	lf->version[2] = 1;
	lf->version[3] = 5;
	lf->provider_version = 7601;
	lf->number_of_processors = 16;
	lf->timer_resolution = 156001;
	lf->cpu_speed_mhz = 2394;
	lf->boot_time = T0 - 3600 * SEC;
	lf->perf_freq = HZ;
	lf->start_time = T0;
	lf->header_timestamp = H0;
	lf->reserved_flags = ETL_CLOCK_QPC;
	lf->time_zone.bias = -60;
	snprintf(lf->time_zone.standard_name, sizeof lf->time_zone.standard_name, "W. Europe Standard Time");
	lf->time_zone.standard_date.month = 10;
	lf->time_zone.standard_date.day = 5;
}

static etl_session *start(const char *path, const struct etl_logfile *lf, int use_clock)
{
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = path;
	sp.buffer_size = 8192;
	if (use_clock)
		sp.clock = test_clock;
	sp.replay_of = lf;
	etl_session *s = etl_session_new();
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(etl_session_start(s, lf ? "Replayed" : "Live", &sp) == ETL_OK, "start: %s",
	              etl_session_errmsg(s));
	return s;
}

static void enable(etl_session *s, const struct etl_guid *g, uint8_t level, uint64_t any, uint32_t props)
{
	struct etl_enable_params ep;
	etl_enable_params_init(&ep);
	ep.level = level;
	ep.match_any = any;
	ep.properties = props;
	ck_assert_int_eq(etl_session_enable(s, g, &ep), ETL_OK);
}

/* A captured EVENT_HEADER32 event of the trace above, at t seconds after
 * its start on processor cpu, its payload the serial. */
static void captured_event(struct etl_event *ev, uint32_t *serial, const struct etl_guid *g, uint16_t id,
                           uint8_t level, uint64_t keyword, uint16_t cpu, int64_t t)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = ETL_HDR_EVENT_HEADER32;
	ev->ptr_size = 4;
	ev->present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
	              ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY | ETL_EVF_UTC;
	ev->provider = *g;
	ev->pid = 4242;
	ev->tid = 77 + cpu;
	ev->processor = cpu;
	ev->id = id;
	ev->version = 2;
	ev->level = level;
	ev->keyword = keyword;
	ev->timestamp = H0 + t * HZ;
	ev->utc = T0 + t * SEC;
	ev->activity_id = G2;
	ev->payload = (const uint8_t *)serial;
	ev->payload_size = sizeof *serial;
}

/* What a file holds: events per provider (G1, G2) and, for the event
 * with payload serial `which`, the view. */
struct content {
	int g1, g2;
	struct etl_event seen;     /* payload and items copied below        */
	int found;
	struct etl_logfile lf;
	uint8_t bytes[256];
};

static void read_file(const char *path, uint32_t which, struct content *c)
{
	memset(c, 0, sizeof *c);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
	c->lf = *etl_reader_logfile(r);
	c->lf.logger_name = c->lf.log_file_name = NULL;
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (memcmp(&ev->provider, &G1, sizeof G1) == 0)
			c->g1++;
		if (memcmp(&ev->provider, &G2, sizeof G2) == 0)
			c->g2++;
		uint32_t v;
		if (ev->buffer_offset && ev->payload_size == 4 && (memcpy(&v, ev->payload, 4), v == which)) {
			c->seen = *ev;
			c->found = 1;
			ck_assert_uint_le(ev->ext_size, sizeof c->bytes - 4);
			memcpy(c->bytes, ev->payload, 4);
			if (ev->ext_size)
				memcpy(c->bytes + 4, ev->ext, ev->ext_size);
			c->seen.payload = c->bytes;
			c->seen.ext = c->bytes + 4;
			c->seen.record = NULL;
		}
	}
	etl_reader_free(r);
}

START_TEST(test_routing_filters)
{
	struct etl_logfile lf;
	captured_logfile(&lf);
	etl_session *a = start(g_a, &lf, 1);
	etl_session *b = start(g_b, NULL, 1);
	enable(a, &G1, 3, 0x2, 0);
	enable(b, &G1, 0, 0, ETL_ENABLE_IGNORE_KEYWORD_0);
	struct etl_event ev;
	uint32_t serial[6] = { 1, 2, 3, 4, 5, 6 };
	/* 1 everywhere; 2 (level 4) in b only; 3 (keyword 4) in b only;
	 * 4 (keyword 0) in a only; 5 of G2, enabled nowhere. */
	captured_event(&ev, &serial[0], &G1, 10, 2, 0x2, 0, 1);
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	captured_event(&ev, &serial[1], &G1, 11, 4, 0x2, 0, 1);
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	captured_event(&ev, &serial[2], &G1, 12, 2, 0x4, 0, 1);
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	captured_event(&ev, &serial[3], &G1, 13, 2, 0, 0, 1);
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	captured_event(&ev, &serial[4], &G2, 14, 2, 0x2, 0, 1);
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	ck_assert_int_eq(etl_session_stop(a), ETL_OK);
	ck_assert_int_eq(etl_session_stop(b), ETL_OK);
	struct etl_session_stats sa, sb;
	etl_session_stats(a, &sa);
	etl_session_stats(b, &sb);
	ck_assert_uint_eq(sa.events_written, 2);
	ck_assert_uint_eq(sb.events_written, 3);
	ck_assert_uint_eq(sa.events_lost + sb.events_lost, 0);
	struct content c;
	read_file(g_a, 4, &c);
	ck_assert_int_eq(c.g1, 2);
	ck_assert_int_eq(c.g2, 0);
	ck_assert(c.found);
	read_file(g_b, 3, &c);
	ck_assert_int_eq(c.g1, 3);
	ck_assert_int_eq(c.g2, 0);
	ck_assert(c.found);
	etl_session_free(a);
	etl_session_free(b);
}
END_TEST

START_TEST(test_processor_and_clock)
{
	struct etl_logfile lf;
	captured_logfile(&lf);
	etl_session *a = start(g_a, &lf, 1);
	etl_session *b = start(g_b, NULL, 1);
	enable(a, &G1, 0, 0, 0);
	enable(b, &G1, 0, 0, 0);
	struct etl_event ev;
	uint32_t serial = 7;
	captured_event(&ev, &serial, &G1, 21, 4, 1, 13, 2);
	g_now = ev.utc;
	/* The thread's own number is for its live writes only. */
	etl_thread_processor_set(14, NULL);
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	etl_thread_processor_set(0, NULL);
	g_now = T0 + 5 * SEC;
	ck_assert_int_eq(etl_session_stop(a), ETL_OK);
	ck_assert_int_eq(etl_session_stop(b), ETL_OK);

	struct content c;
	read_file(g_a, 7, &c);
	ck_assert(c.found);
	/* The trace's session: processor, raw timestamp, every field. */
	const char *d = tu_ev_diff(&ev, &c.seen, 0);
	ck_assert_msg(d == NULL, "replayed event differs in %s", d);
	ck_assert_int_eq(c.seen.kind, ETL_HDR_EVENT_HEADER32);
	ck_assert_int_eq(c.seen.processor, 13);
	ck_assert_int_eq(c.seen.timestamp, H0 + 2 * HZ);
	ck_assert_int_eq(c.seen.utc, T0 + 2 * SEC);
	ck_assert_uint_eq(c.lf.number_of_processors, 16);
	ck_assert_uint_eq(c.lf.header_ptr_size, 4);
	ck_assert_uint_eq(c.lf.reserved_flags, ETL_CLOCK_QPC);
	ck_assert_int_eq(c.lf.perf_freq, HZ);
	ck_assert_int_eq(c.lf.start_time, T0);
	ck_assert_int_eq(c.lf.header_timestamp, H0);
	ck_assert_uint_eq(c.lf.provider_version, 7601);
	ck_assert_uint_eq(c.lf.version[0], 6);
	ck_assert_uint_eq(c.lf.version[1], 1);
	ck_assert_uint_eq(c.lf.timer_resolution, 156001);
	ck_assert_uint_eq(c.lf.cpu_speed_mhz, 2394);
	ck_assert_int_eq(c.lf.boot_time, T0 - 3600 * SEC);
	ck_assert_int_eq(c.lf.time_zone.bias, -60);
	ck_assert_str_eq(c.lf.time_zone.standard_name, "W. Europe Standard Time");
	ck_assert_uint_eq(c.lf.time_zone.standard_date.month, 10);
	/* EndTime: the caller's clock at stop, in trace time. */
	ck_assert_int_eq(c.lf.end_time, T0 + 5 * SEC);

	/* A live session: its own clock, the event at its UTC time, its
	 * processor folded into the machine's count. */
	read_file(g_b, 7, &c);
	ck_assert(c.found);
	ck_assert_int_eq(c.seen.utc, T0 + 2 * SEC);
	ck_assert_int_eq(c.seen.timestamp, 2 * SEC);
	ck_assert_uint_eq(c.seen.processor, 13 % c.lf.number_of_processors);
	ck_assert_int_eq(c.seen.id, 21);
	ck_assert_int_eq(c.seen.pid, 4242);
	etl_session_free(a);
	etl_session_free(b);
}
END_TEST

START_TEST(test_unencodable)
{
	struct etl_logfile lf;
	captured_logfile(&lf);
	etl_session *a = start(g_a, &lf, 1);
	enable(a, &G1, 0, 0, 0);
	struct etl_event ev;
	uint32_t serial = 9;
	captured_event(&ev, &serial, &G1, 1, 4, 1, 0, 1);
	ev.kind = ETL_HDR_UNKNOWN;
	ck_assert_int_eq(etl_replay_write(&ev), ETL_FAILED);
	/* A classic event whose version and version word disagree. */
	captured_event(&ev, &serial, &G1, 0, 4, 0, 0, 1);
	ev.kind = ETL_HDR_FULL_HEADER32;
	ev.present &= ~ETL_EVF_DESCRIPTOR;
	ev.present |= ETL_EVF_CLASS;
	ev.version = 3;
	ev.version_word = 5;
	ck_assert_int_eq(etl_replay_write(&ev), ETL_FAILED);
	/* A pre-1.1 INSTANCE record: not in a 1.5-layout file. */
	captured_event(&ev, &serial, &G1, 0, 4, 0, 0, 1);
	ev.kind = ETL_HDR_INSTANCE32;
	ev.present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
	             ETL_EVF_OLD_INSTANCE | ETL_EVF_UTC;
	ev.reg_handle = 0x1234;
	ck_assert_int_eq(etl_replay_write(&ev), ETL_FAILED);
	ev.present ^= ETL_EVF_OLD_INSTANCE | ETL_EVF_INSTANCE;
	ev.reg_handle = 0;
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	ck_assert_int_eq(etl_session_stop(a), ETL_OK);
	struct etl_session_stats st;
	etl_session_stats(a, &st);
	ck_assert_uint_eq(st.events_lost, 3);
	ck_assert_uint_eq(st.events_written, 1);
	etl_session_free(a);
}
END_TEST

START_TEST(test_old_instance_layout)
{
	struct etl_logfile lf;
	captured_logfile(&lf);
	lf.version[2] = 1;
	lf.version[3] = 0;
	etl_session *a = start(g_a, &lf, 1);
	enable(a, &G1, 0, 0, 0);
	struct etl_event ev;
	uint32_t serial = 11;
	captured_event(&ev, &serial, &G1, 0, 4, 0, 3, 1);
	ev.kind = ETL_HDR_INSTANCE32;
	ev.present = ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP | ETL_EVF_PROVIDER |
	             ETL_EVF_OLD_INSTANCE | ETL_EVF_UTC;
	ev.reg_handle = 0x1234;
	ev.parent_reg_handle = 0x99;
	ev.instance_id = 5;
	ck_assert_int_eq(etl_replay_write(&ev), ETL_OK);
	ck_assert_int_eq(etl_session_stop(a), ETL_OK);
	struct content c;
	read_file(g_a, 11, &c);
	ck_assert(c.found);
	ck_assert(c.seen.present & ETL_EVF_OLD_INSTANCE);
	ck_assert_uint_eq(c.seen.reg_handle, 0x1234);
	ck_assert_uint_eq(c.seen.parent_reg_handle, 0x99);
	ck_assert_uint_eq(c.seen.instance_id, 5);
	ck_assert_uint_eq(c.seen.processor, 3);
	etl_session_free(a);
}
END_TEST

START_TEST(test_props_refused)
{
	struct etl_logfile lf;
	captured_logfile(&lf);
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = g_a;
	sp.replay_of = &lf;
	etl_session *s = etl_session_new();
	ck_assert_int_eq(etl_session_start(s, "NoClock", &sp), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_BAD_VALUE);
	sp.clock = test_clock;
	lf.number_of_processors = 0;
	ck_assert_int_eq(etl_session_start(s, "NoProcessors", &sp), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_BAD_VALUE);
	lf.number_of_processors = 2;
	lf.present = 0;
	ck_assert_int_eq(etl_session_start(s, "NoHeader", &sp), ETL_FAILED);
	ck_assert_int_eq(etl_session_errcode(s), ETL_E_BAD_VALUE);
	/* A caller built before replay_of: the member is not read. */
	sp.struct_size = (uint32_t)offsetof(struct etl_session_props, replay_of);
	ck_assert_int_eq(etl_session_start(s, "Old", &sp), ETL_OK);
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	etl_session_free(s);
	ck_assert_int_eq(etl_replay_write(NULL), ETL_FAILED);
}
END_TEST

/* ---- the corpus ------------------------------------------------------- */

struct replayed {
	struct etl_logfile lf;
	uint64_t sent;
	int64_t first_utc, last_utc;
};

/* A real-time consumer: copies of every event received. */
struct received {
	struct etl_event *v;
	uint8_t **mem;
	size_t n, cap;
};

static void on_event(void *ctx, const struct etl_event *ev)
{
	struct received *rc = ctx;
	if (rc->n == rc->cap) {
		rc->cap = rc->cap ? 2 * rc->cap : 256;
		rc->v = realloc(rc->v, rc->cap * sizeof *rc->v);
		rc->mem = realloc(rc->mem, rc->cap * sizeof *rc->mem);
		if (!rc->v || !rc->mem)
			abort();
	}
	uint8_t *m = malloc(ev->ext_size + ev->payload_size + 1);
	if (!m)
		abort();
	if (ev->ext_size)
		memcpy(m, ev->ext, ev->ext_size);
	if (ev->payload_size)
		memcpy(m + ev->ext_size, ev->payload, ev->payload_size);
	rc->v[rc->n] = *ev;
	rc->v[rc->n].ext = m;
	rc->v[rc->n].payload = m + ev->ext_size;
	rc->mem[rc->n++] = m;
}

/* A session replaying the trace lf: into the file path, or (path NULL)
 * in real time to got. */
static etl_session *start_replay(const struct etl_logfile *lf, const char *path, struct received *got)
{
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.file_name = path;
	if (!path) {
		sp.file_mode = ETL_FILE_REALTIME;
		sp.realtime_cb = on_event;
		sp.realtime_ctx = got;
	}
	sp.buffer_size = (lf->buffer_size + 4095) & ~4095u;
	sp.clock = test_clock;
	sp.replay_of = lf;
	sp.blocking = 1;
	etl_session *s = etl_session_new();
	ck_assert_int_eq(etl_session_start(s, "ReplayCorpus", &sp), ETL_OK);
	return s;
}

/* Replays every data event of the corpus file name into a session of
 * start_replay() (out_path or got; enabling each provider), the clock
 * following the events. */
static void replay_file(const char *name, const char *out_path, struct received *got, struct replayed *out)
{
	char *path = tu_corpus_path(name);
	etl_reader *r = etl_reader_new();
	ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
	out->lf = *etl_reader_logfile(r);
	out->sent = 0;
	g_now = out->lf.start_time;
	etl_session *s = start_replay(&out->lf, out_path, got);
	const struct etl_event *ev;
	int st;
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		ck_assert_int_eq(st, ETL_OK);
		if (ev->buffer_offset == 0)
			continue;
		etl_session_enable(s, &ev->provider, &(struct etl_enable_params){ sizeof(struct etl_enable_params),
		                                                                 255, ~0ULL, 0, 0 });
		if (ev->utc > g_now)
			g_now = ev->utc;
		if (!out->sent)
			out->first_utc = ev->utc;
		out->last_utc = ev->utc;
		TU_CHECK(etl_replay_write(ev) == ETL_OK, "%s: event at 0x%" PRIx64 " not replayed", name,
		         ev->file_offset);
		ck_assert_int_eq(etl_session_clock_advanced(s), ETL_OK);
		out->sent++;
	}
	ck_assert_int_eq(etl_session_stop(s), ETL_OK);
	struct etl_session_stats ss;
	etl_session_stats(s, &ss);
	ck_assert_uint_eq(ss.events_written, out->sent);
	ck_assert_uint_eq(ss.events_lost, 0);
	etl_session_free(s);
	etl_reader_free(r);
	free(path);
}

START_TEST(test_deterministic_file)
{
	TU_NEED_CORPUS();
	struct replayed rp;
	replay_file("win7-httpservice-manifest.etl", g_a, NULL, &rp);
	size_t n1, n2;
	uint8_t *one = tu_load_file(g_a, &n1);
	replay_file("win7-httpservice-manifest.etl", g_a, NULL, &rp);
	uint8_t *two = tu_load_file(g_a, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_msg(memcmp(one, two, n1) == 0, "two replays of the same trace differ");
	free(one);
	free(two);
	struct content c;
	read_file(g_a, UINT32_MAX, &c);
	ck_assert_int_eq(c.lf.start_time, rp.lf.start_time);
	ck_assert_int_eq(c.lf.end_time, rp.last_utc);
	ck_assert_uint_eq(c.lf.buffers_lost + c.lf.events_lost, 0);
}
END_TEST

START_TEST(test_realtime_corpus)
{
	TU_NEED_CORPUS();
	static const char *const files[] = { "powershell-manifest.etl", "onedrive-cldflt-wpp.etl",
	                                     "vista-classic-mixed-32.etl" };
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		struct received got = { 0 };
		struct replayed rp;
		replay_file(files[f], NULL, &got, &rp);
		ck_assert_msg(got.n == rp.sent, "%s: %zu events received, %" PRIu64 " sent", files[f], got.n, rp.sent);
		/* Each processor's events arrive in the order sent: read the
		 * file again and match them stream by stream. */
		char *path = tu_corpus_path(files[f]);
		etl_reader *r = etl_reader_new();
		ck_assert_int_eq(etl_reader_open_file(r, path), ETL_OK);
		size_t *next = calloc(ETL_MAX_PROCESSORS, sizeof *next);
		const struct etl_event *ev;
		int st;
		while ((st = etl_reader_next(r, &ev)) != ETL_END) {
			if (ev->buffer_offset == 0)
				continue;
			size_t i = next[ev->processor];
			while (i < got.n && got.v[i].processor != ev->processor)
				i++;
			ck_assert_msg(i < got.n, "%s: event at 0x%" PRIx64 " not received", files[f], ev->file_offset);
			const char *d = tu_ev_diff(ev, &got.v[i], 1);
			ck_assert_msg(d == NULL, "%s: event at 0x%" PRIx64 " received with another %s", files[f],
			              ev->file_offset, d);
			next[ev->processor] = i + 1;
		}
		free(next);
		etl_reader_free(r);
		free(path);
		for (size_t i = 0; i < got.n; i++)
			free(got.mem[i]);
		free(got.v);
		free(got.mem);
	}
}
END_TEST

static Suite *trace_replay_suite(void)
{
	Suite *s = suite_create("trace_replay");
	TCase *tc = tcase_create("replay");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_routing_filters);
	tcase_add_test(tc, test_processor_and_clock);
	tcase_add_test(tc, test_unencodable);
	tcase_add_test(tc, test_old_instance_layout);
	tcase_add_test(tc, test_props_refused);
	tcase_add_test(tc, test_deterministic_file);
	tcase_add_test(tc, test_realtime_corpus);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_replay_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
