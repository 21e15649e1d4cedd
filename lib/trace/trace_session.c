/*
 * lib/trace/trace_session.c - sessions of the tracing runtime: properties,
 * start and stop, the logger thread, flushing, file modes, statistics and
 * the clock (seed 001, ETW_UM_LOGGER_CONTEXT: a logger thread per session
 * writes full buffers, flushes on a timer and hands buffers back).
 *
 * Output. Every file mode goes through the .etl writer (lib/write/writer.c) with
 * buffers filled here (etl__writer_put_buffer): stamping, circular slots,
 * NEWFILE rotation and compression are the writer's. Files are written in
 * place; after every timer flush and etl_session_flush() the header buffer
 * is rewritten with the figures so far (etl__writer_sync), so a process
 * that dies leaves a file readable up to its last flush.
 *   SEQUENTIAL  one file; with max_file_size_mb, buffers that would pass the
 *               limit are lost (counted) and writers stop taking buffers.
 *   CIRCULAR    the writer's circular slots.
 *   NEWFILE     file_name % 1, % 2, ... rotated by the writer.
 *   BUFFERING   processed buffers stay in a ring (the pool itself: when no
 *               buffer is free, the oldest of the ring is reused); flush and
 *               stop write the ring, oldest first, to file_name.
 *   REALTIME    the writer writes to a sink that decodes each buffer with
 *               the reader (header buffer + that buffer in memory) and calls
 *               realtime_cb for each event, on the logger thread.
 *
 * Accounting (exact once stopped): an event meant for the session is
 * either committed to a buffer or counted lost on the writer's processor;
 * a buffer that cannot be written moves its events from written to lost.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#include "lib/read/read_internal.h"
#include "lib/trace/trace_core.h"
#include "lib/write/write_internal.h"

#define HDR ETL_RT_HDR
#define FT_UNIX_EPOCH 116444736000000000LL

/* LogFileMode bits as Windows numbers them (evntrace.h, Logging Mode
 * Constants). */
#define MODE_REAL_TIME   0x00000100u
#define MODE_BUFFERING   0x00000400u
#define MODE_INDEPENDENT 0x08000000u

/* Sessions by index, running or starting (control lock). */
static struct etl_session *g_owner[ETL_RT_MAX_SESSIONS];

void etl__rt_serr(struct etl_session *s, int code, const char *fmt, ...)
{
	va_list ap;
	s->errcode = code;
	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
	va_end(ap);
}

/* ---- clock ------------------------------------------------------------ */

static int64_t mono_100ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
}

static int64_t filetime_now(void)
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
static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A TSC reading and CLOCK_MONOTONIC at the same moment: the tightest of
 * a few brackets. */
static void tsc_pair(uint64_t *tsc, int64_t *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t a = __rdtsc();
		int64_t t = mono_ns();
		uint64_t b = __rdtsc();
		if (b >= a && b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = t;
		}
	}
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
	tsc_pair(&g_tsc0, &g_tsc_ns0);
	struct timespec d = { 0, 10 * 1000 * 1000 };
	while (nanosleep(&d, &d) != 0)
		;
	tsc_pair(&t1, &n1);
	if (t1 <= g_tsc0 || n1 <= g_tsc_ns0)
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
	tsc_pair(&t, &n);
	/* The interval only grows: each measure is at least as good. */
	if (t > g_tsc0 && n > g_tsc_ns0) {
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
		return filetime_now();
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

/* QPC in tsc mode: the header's rate (and the boot time it implies) made
 * current before the header is written. */
static void refresh_clock(struct etl_session *s, etl_writer *w)
{
	if (s->p.clock_type != ETL_CLOCK_QPC || !atomic_load(&g_qpc_tsc))
		return;
	int64_t hz = tsc_refresh();
	s->wo.perf_freq = hz;
	s->wo.boot_time = s->start_ft - (int64_t)((__int128)s->start_ts * 10000000 / hz);
	if (w)
		etl__writer_set_clock(w, s->wo.perf_freq, s->wo.boot_time);
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

/* ---- properties ------------------------------------------------------- */

void etl_session_props_init(struct etl_session_props *p)
{
	memset(p, 0, sizeof *p);
	p->struct_size = sizeof *p;
	p->buffer_size = 64 * 1024;
	p->min_buffers = 2 * etl__rt_nproc();
	p->max_buffers = p->min_buffers + 20;
	p->flush_timer_ms = 1000;
	p->clock_type = ETL_CLOCK_QPC;
	p->file_mode = ETL_FILE_SEQUENTIAL;
}

static int check_props(struct etl_session *s, const char *name, const struct etl_session_props *p)
{
	if (!p || p->struct_size < sizeof *p) {
		etl__rt_serr(s, ETL_E_MISUSE, "Session properties are missing or from another version: struct_size=%u",
		             p ? p->struct_size : 0);
		return ETL_FAILED;
	}
	if (!name || !*name) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "A session needs a name");
		return ETL_FAILED;
	}
	if (p->buffer_size < 4096 || p->buffer_size > 1024 * 1024 || p->buffer_size % 4096) {
		etl__rt_serr(s, ETL_E_BAD_VALUE,
		             "Buffer size must be a multiple of 4096 from 4 KiB to 1 MiB: buffer-size=%u",
		             p->buffer_size);
		return ETL_FAILED;
	}
	uint32_t minb = p->min_buffers ? p->min_buffers : 2 * etl__rt_nproc();
	uint32_t maxb = p->max_buffers ? p->max_buffers : minb + 20;
	if (maxb < minb || maxb > 0xFFFF) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Maximum buffers must be from minimum buffers to 65535: min=%u, max=%u",
		             minb, maxb);
		return ETL_FAILED;
	}
	if (p->clock_type < ETL_CLOCK_QPC || p->clock_type > ETL_CLOCK_CPUCYCLE) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Unknown clock type: clock=%u", p->clock_type);
		return ETL_FAILED;
	}
	uint32_t m = p->file_mode;
	if (m < ETL_FILE_SEQUENTIAL || m > ETL_FILE_REALTIME) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Unknown file mode: mode=%u", m);
		return ETL_FAILED;
	}
	if (m != ETL_FILE_REALTIME && (!p->file_name || !*p->file_name)) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "This file mode needs a file name: mode=%u", m);
		return ETL_FAILED;
	}
	if (m == ETL_FILE_REALTIME && !p->realtime_cb) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Real-time mode needs a callback");
		return ETL_FAILED;
	}
	if ((m == ETL_FILE_CIRCULAR || m == ETL_FILE_NEWFILE) && p->max_file_size_mb == 0) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "Circular and new-file modes need a maximum file size: mode=%u", m);
		return ETL_FAILED;
	}
	if (m == ETL_FILE_NEWFILE && !strstr(p->file_name, "%d")) {
		etl__rt_serr(s, ETL_E_BAD_VALUE, "New-file mode needs a file name pattern with %%d: name=\"%s\"",
		             p->file_name);
		return ETL_FAILED;
	}
	if (p->compressed && (m == ETL_FILE_CIRCULAR || m == ETL_FILE_NEWFILE || m == ETL_FILE_REALTIME)) {
		etl__rt_serr(s, ETL_E_BAD_VALUE,
		             "Compressed mode goes with sequential and buffering files only: mode=%u", m);
		return ETL_FAILED;
	}
	return ETL_OK;
}

/* ---- sessions --------------------------------------------------------- */

etl_session *etl_session_new(void)
{
	etl_session *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->index = -1;
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		return NULL;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_cond_init(&s->cv_free, NULL);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv_logger, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&s->cv_done, NULL);
	s->sync_init = 1;
	return s;
}

int etl_session_errcode(const etl_session *s)
{
	return s->errcode;
}

const char *etl_session_errmsg(const etl_session *s)
{
	return s->errmsg;
}

/* ---- output ----------------------------------------------------------- */

/* REALTIME sink: keeps the header buffer, decodes every data buffer. */
static int rt_sink(void *ctx, uint64_t off, const void *data, size_t n)
{
	struct etl_session *s = ctx;
	if (off == 0) {
		if (n > s->rt_hdr_size) {
			uint8_t *h = realloc(s->rt_hdr, n);
			if (!h)
				return -1;
			s->rt_hdr = h;
		}
		memcpy(s->rt_hdr, data, n);
		s->rt_hdr_size = n;
		return 0;
	}
	if (n != s->bs || !s->rt_hdr_size)
		return 0;                   /* flush-marker patch */
	if (!s->rt_img) {
		s->rt_img = malloc(s->rt_hdr_size + s->bs);
		if (!s->rt_img)
			return -1;
	}
	memcpy(s->rt_img, s->rt_hdr, s->rt_hdr_size);
	memcpy(s->rt_img + s->rt_hdr_size, data, n);
	etl_reader *r = etl_reader_new();
	if (!r)
		return -1;
	if (etl_reader_open_memory(r, s->rt_img, s->rt_hdr_size + n) == ETL_OK) {
		const struct etl_event *ev;
		int st;
		while ((st = etl_reader_next(r, &ev)) != ETL_END && st != ETL_FATAL) {
			/* The header buffer's records are the session's, not events. */
			if ((st == ETL_OK || st == ETL_WARN) && ev->buffer_offset != 0)
				s->p.realtime_cb(s->p.realtime_ctx, ev);
		}
	}
	etl_reader_free(r);
	return 0;
}

static uint64_t total_lost(const struct etl_session *s)
{
	uint64_t n = s->lost_final + atomic_load(&s->events_dropped);
	for (uint32_t i = 0; s->cpus && i < s->nproc; i++)
		n += atomic_load_explicit(&s->cpus[i].lost, memory_order_relaxed);
	return n;
}

static void put_lost(struct etl_session *s, etl_writer *w)
{
	uint64_t ev = total_lost(s), bl = atomic_load(&s->buffers_lost);
	w->events_lost = ev > UINT32_MAX ? UINT32_MAX : (uint32_t)ev;
	w->buffers_lost = bl > UINT32_MAX ? UINT32_MAX : (uint32_t)bl;
}

/* BUFFERING: writes the ring, oldest first, to file_name (replacing what
 * an earlier flush wrote). The pool lock is held, so that writers cannot
 * take a ring buffer meanwhile. */
static int write_ring(struct etl_session *s)
{
	etl_writer *w = etl_writer_new();
	if (!w)
		return ETL_FATAL;
	int rc = etl__writer_open_inplace(w, s->file_name, &s->wo, 0);
	uint64_t n = 0;
	if (rc == ETL_OK) {
		pthread_mutex_lock(&s->lock);
		for (uint32_t k = 0; k < s->r_count && rc != ETL_FATAL; k++) {
			struct etl__rt_buf *b = &s->bufs[s->ring[(s->r_head + k) % s->max_bufs]];
			int prc = etl__writer_put_buffer(w, b->mem, b->end, b->cpu, etl__rt_now(s->p.clock_type));
			if (prc == ETL_OK)
				n++;
			else
				rc = prc;
		}
		pthread_mutex_unlock(&s->lock);
		put_lost(s, w);
		int crc = etl_writer_close(w);
		if (crc != ETL_OK && rc == ETL_OK)
			rc = crc;
	}
	if (rc != ETL_OK)
		etl__rt_serr(s, ETL_E_IO, "Cannot write the buffering session's file: %s", etl_writer_errmsg(w));
	etl_writer_free(w);
	atomic_store(&s->buffers_written, n);
	atomic_store(&s->files_written, 1);
	return rc;
}

/* Sends n settled buffers on, in order; they go back to the pool (or to
 * the ring). The file modes get them in one call to the writer: a
 * sequential file, in one system call. */
#define DRAIN_MAX 16

static void output_buffers(struct etl_session *s, const uint32_t *idx, uint32_t n)
{
	if (s->p.file_mode == ETL_FILE_BUFFERING) {
		uint64_t ev = 0;
		pthread_mutex_lock(&s->lock);
		for (uint32_t k = 0; k < n; k++) {
			s->ring[(s->r_head + s->r_count) % s->max_bufs] = idx[k];
			s->r_count++;
			ev += s->bufs[idx[k]].events;
		}
		pthread_mutex_unlock(&s->lock);
		atomic_fetch_add(&s->events_written, ev);
		return;
	}
	struct etl_wbuf v[DRAIN_MAX];
	int rcs[DRAIN_MAX];
	uint32_t m = 0;
	int64_t now = etl__rt_now(s->p.clock_type);
	uint64_t bytes = s->max_bytes ? etl__writer_bytes(s->w) : 0;
	for (uint32_t k = 0; k < n; k++) {
		struct etl__rt_buf *b = &s->bufs[idx[k]];
		if (s->max_bytes && bytes + (uint64_t)(m + 1) * s->bs > s->max_bytes) {
			/* The limit: this buffer and every later one are lost. */
			atomic_store(&s->full, 1);
			for (uint32_t j = k; j < n; j++) {
				atomic_fetch_add(&s->buffers_lost, 1);
				atomic_fetch_add(&s->events_dropped, s->bufs[idx[j]].events);
			}
			break;
		}
		v[m].buf = b->mem;
		v[m].pos = b->end;
		v[m].cpu = b->cpu;
		v[m].last_ts = now;
		m++;
	}
	if (m)
		etl__writer_put_buffers(s->w, v, m, rcs);
	uint64_t bw = 0, ew = 0, bl = 0, el = 0;
	for (uint32_t k = 0; k < m; k++) {
		struct etl__rt_buf *b = &s->bufs[idx[k]];
		if (rcs[k] == ETL_OK) {
			bw++;
			ew += b->events;
		} else {
			bl++;
			el += b->events;
			if (rcs[k] == ETL_FATAL && s->out_rc == ETL_OK) {
				s->out_rc = ETL_FATAL;
				etl__rt_serr(s, ETL_E_IO, "Cannot write the session's output: %s",
				             etl_writer_errmsg(s->w));
			}
		}
	}
	if (bw) {
		atomic_fetch_add(&s->buffers_written, bw);
		atomic_fetch_add(&s->events_written, ew);
	}
	if (bl) {
		atomic_fetch_add(&s->buffers_lost, bl);
		atomic_fetch_add(&s->events_dropped, el);
	}
	struct etl_writer_stats ws;
	etl_writer_stats(s->w, &ws);
	atomic_store(&s->files_written, ws.files_written);
	etl__rt_release_n(s, idx, n);
}

/* Writes every buffer in the queue, up to DRAIN_MAX at a time. */
static void drain(struct etl_session *s)
{
	uint32_t idx[DRAIN_MAX], out[DRAIN_MAX], empty[DRAIN_MAX];
	for (;;) {
		uint32_t n = 0, no = 0, ne = 0;
		pthread_mutex_lock(&s->lock);
		while (s->q_count && n < DRAIN_MAX) {
			idx[n++] = s->queue[s->q_head];
			s->q_head = (s->q_head + 1) % s->max_bufs;
			s->q_count--;
		}
		pthread_mutex_unlock(&s->lock);
		if (!n)
			return;
		for (uint32_t k = 0; k < n; k++) {
			struct etl__rt_buf *b = &s->bufs[idx[k]];
			etl__rt_settle(s, b);
			if (b->end <= HDR) {
				empty[ne++] = idx[k];
			} else {
				out[no++] = idx[k];
				if (b->cpu < s->nproc)
					s->filled[b->cpu]++;
			}
		}
		if (ne)
			etl__rt_release_n(s, empty, ne);
		if (no)
			output_buffers(s, out, no);
	}
}

/* After a flush: the file as it stands is made readable. */
static int sync_output(struct etl_session *s, int explicit_flush)
{
	switch (s->p.file_mode) {
	case ETL_FILE_BUFFERING:
		if (!explicit_flush)
			return ETL_OK;
		refresh_clock(s, NULL);
		return write_ring(s);
	case ETL_FILE_REALTIME:
		return ETL_OK;
	default:
		if (s->out_rc != ETL_OK)
			return s->out_rc;
		refresh_clock(s, s->w);
		put_lost(s, s->w);
		return etl__writer_sync(s->w);
	}
}

/* Where the logger runs. When every processor runs a writer, the logger
 * takes its processor time from one of them, and the scheduler keeps
 * waking it on the processor it ran on last: that one writer falls behind
 * the others for as long as the load lasts (the kernel sees no imbalance:
 * equal weights, fair shares on each processor; measured with 2 writers
 * on 2 processors: the logger ran 80 % of its rounds on one of them, and
 * its writer finished 15-30 % of the run after the other). The buffers
 * say where the writers run and how fast: when a writer shares the
 * logger's processor (buffers filled there) and fills clearly fewer (by
 * 1/8) than the writer of another processor the logger may run on, the
 * logger moves there: pinned to it for the move, its affinity mask
 * (read again just before: someone may have changed it) restored at once,
 * so that the scheduler stays free to place it. Alternating so, it takes
 * its time from the writers evenly. A logger on a processor that fills no
 * buffer (an idle one) never moves. It looks every 32 buffers or 8 MiB
 * written, whichever is more; a move costs two system calls. */
static void balance(struct etl_session *s)
{
	uint32_t total = 0, every = (8u << 20) / s->bs;
	for (uint32_t c = 0; c < s->nproc; c++)
		total += s->filled[c];
	if (total < (every > 32 ? every : 32))
		return;
	int me = sched_getcpu();
	uint32_t mine = me >= 0 && (uint32_t)me < s->nproc ? s->filled[me] : 0;
	uint32_t best = 0, bestn = 0;
	for (uint32_t c = 0; c < s->nproc; c++) {
		if ((int)c != me && s->filled[c] > bestn) {
			best = c;
			bestn = s->filled[c];
		}
	}
	memset(s->filled, 0, sizeof *s->filled * s->nproc);
	if (mine == 0 || (uint64_t)mine * 8 >= (uint64_t)bestn * 7 || best >= CPU_SETSIZE)
		return;
	cpu_set_t mask, one;
	if (pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) != 0 || !CPU_ISSET(best, &mask))
		return;
	CPU_ZERO(&one);
	CPU_SET(best, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0)
		pthread_setaffinity_np(pthread_self(), sizeof mask, &mask);
}

/* The next flush-timer deadline: period_ms from now (CLOCK_MONOTONIC, the
 * clock the logger's condition variable waits on). */
static void next_deadline(struct timespec *t, uint32_t period_ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += period_ms / 1000;
	t->tv_nsec += (long)(period_ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

static void *logger_main(void *arg)
{
	struct etl_session *s = arg;
	int can_move = s->nproc > 1 && s->p.file_mode != ETL_FILE_BUFFERING;
	uint32_t period = s->p.flush_timer_ms;
	struct timespec next;
	next_deadline(&next, period);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		int timer = 0;
		while (!s->q_count && !s->flush_req && s->flush_done == s->flush_seq && !s->quit) {
			if (!period) {
				pthread_cond_wait(&s->cv_logger, &s->lock);
			} else if (pthread_cond_timedwait(&s->cv_logger, &s->lock, &next) == ETIMEDOUT) {
				timer = 1;
				break;
			}
		}
		if (period && !timer) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			timer = now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec);
		}
		uint64_t target = s->flush_seq;
		int quit = s->quit;
		/* BUFFERING: the timer would fill the ring with partly filled
		 * buffers; only flush, stop and blocked writers swap. */
		int swap = (timer && s->p.file_mode != ETL_FILE_BUFFERING) || s->flush_req ||
		           target != s->flush_done || quit;
		s->flush_req = 0;
		pthread_mutex_unlock(&s->lock);
		if (timer)
			next_deadline(&next, period);
		if (swap)
			etl__rt_swap_all(s);
		drain(s);
		if (can_move && !quit)
			balance(s);
		int frc = ETL_OK;
		if (!quit && (timer || target != s->flush_done))
			frc = sync_output(s, target != s->flush_done);
		pthread_mutex_lock(&s->lock);
		if (target != s->flush_done) {
			s->flush_done = target;
			s->flush_rc = frc;
			pthread_cond_broadcast(&s->cv_done);
		}
		if (quit && !s->q_count)
			break;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* ---- start / stop ----------------------------------------------------- */

static void fill_writer_options(struct etl_session *s, uint32_t tid)
{
	struct etl_writer_options *o = &s->wo;
	etl_writer_options_init(o);
	o->buffer_size = s->bs;
	o->pointer_size = 8;
	o->number_of_processors = s->nproc;
	o->clock_type = s->p.clock_type;
	o->perf_freq = 10000000;
	o->cpu_speed_mhz = s->cpu_mhz;
	o->start_time = s->start_ft;
	o->start_timestamp = s->start_ts;
	o->boot_time = s->start_ft - mono_100ns();
	if (s->p.clock_type == ETL_CLOCK_QPC && atomic_load(&g_qpc_tsc)) {
		o->perf_freq = atomic_load(&g_tsc_hz);
		o->boot_time = s->start_ft - (int64_t)((__int128)s->start_ts * 10000000 / o->perf_freq);
	}
	o->logger_name = s->name;
	o->log_file_name = s->p.file_mode == ETL_FILE_NEWFILE ? s->first_name
	                 : s->file_name ? s->file_name : "";
	o->log_file_mode = s->mode_bits;
	o->maximum_file_size_mb = s->p.max_file_size_mb;
	o->newfile_pattern = s->p.file_mode == ETL_FILE_NEWFILE ? s->file_name : NULL;
	o->header_pid = etl__rt_pid();
	o->header_tid = tid;
	o->logger_id = s->logger_id;
}

static uint32_t mode_bits(const struct etl_session_props *p)
{
	uint32_t m = 0;
	switch (p->file_mode) {
	case ETL_FILE_SEQUENTIAL: m = ETL_MODE_SEQUENTIAL; break;
	case ETL_FILE_CIRCULAR:   m = ETL_MODE_CIRCULAR; break;
	case ETL_FILE_NEWFILE:    m = ETL_MODE_NEWFILE; break;
	case ETL_FILE_BUFFERING:  m = MODE_BUFFERING; break;
	case ETL_FILE_REALTIME:   m = MODE_REAL_TIME; break;
	}
	if (p->compressed)
		m |= ETL_MODE_COMPRESSED;
	if (p->independent)
		m |= MODE_INDEPENDENT;
	return m;
}

/* Undoes a start that failed half way (control lock held). */
static void start_failed(struct etl_session *s)
{
	if (s->w) {
		etl_writer_free(s->w);
		s->w = NULL;
	}
	etl__rt_pool_free(s);
	if (s->index >= 0)
		g_owner[s->index] = NULL;
	s->index = -1;
	s->state = ETL_RT_IDLE;
}

static int open_output(struct etl_session *s)
{
	int rc = ETL_OK;
	switch (s->p.file_mode) {
	case ETL_FILE_BUFFERING:
		return ETL_OK;
	case ETL_FILE_REALTIME:
		s->w = etl_writer_new();
		if (!s->w)
			return ETL_FATAL;
		rc = etl_writer_open_sink(s->w, rt_sink, s, &s->wo);
		break;
	default:
		s->w = etl_writer_new();
		if (!s->w)
			return ETL_FATAL;
		rc = etl__writer_open_inplace(s->w, s->p.file_mode == ETL_FILE_NEWFILE ? s->first_name
		                                                                       : s->file_name,
		                              &s->wo, s->p.file_mode == ETL_FILE_NEWFILE ? 1 : 0);
		break;
	}
	if (rc != ETL_OK)
		etl__rt_serr(s, etl_writer_errcode(s->w) ? etl_writer_errcode(s->w) : ETL_E_IO,
		             "Cannot open the session's output: %s", etl_writer_errmsg(s->w));
	return rc;
}

int etl_session_start(etl_session *s, const char *name, const struct etl_session_props *p)
{
	uint32_t nproc = etl__rt_nproc();
	int rc = check_props(s, name, p);
	if (rc != ETL_OK)
		return rc;
	etl__rt_ctl_lock();
	if (s->state == ETL_RT_RUNNING || s->state == ETL_RT_ORPHAN) {
		etl__rt_serr(s, ETL_E_MISUSE, s->state == ETL_RT_RUNNING
		             ? "The session is already running: name=\"%s\""
		             : "The session was inherited through fork; free it: name=\"%s\"", s->name);
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	int idx = -1;
	for (int i = 0; i < ETL_RT_MAX_SESSIONS; i++) {
		if (!g_owner[i]) {
			if (idx < 0)
				idx = i;
		} else if (strcmp(g_owner[i]->name, name) == 0) {
			etl__rt_serr(s, ETL_E_LIMIT, "A running session already has this name: name=\"%s\"", name);
			etl__rt_ctl_unlock();
			return ETL_FAILED;
		}
	}
	if (idx < 0) {
		etl__rt_serr(s, ETL_E_LIMIT, "64 sessions are running already");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	/* Fresh state (a stopped session may start again). */
	free(s->name);
	free(s->file_name);
	free(s->first_name);
	free(s->rt_hdr);
	free(s->rt_img);
	s->rt_hdr = s->rt_img = NULL;
	s->rt_hdr_size = 0;
	s->first_name = NULL;
	s->p = *p;
	s->name = strdup(name);
	s->file_name = p->file_name ? strdup(p->file_name) : NULL;
	s->p.file_name = s->file_name;
	if (!s->p.min_buffers)
		s->p.min_buffers = 2 * nproc;
	if (!s->p.max_buffers)
		s->p.max_buffers = s->p.min_buffers + 20;
	s->nproc = nproc;
	s->bs = p->buffer_size;
	s->max_bufs = s->p.max_buffers;
	s->index = idx;
	s->logger_id = (uint16_t)(idx + 1);
	s->rclass = p->independent ? 2 : p->blocking ? 1 : 0;
	s->mode_bits = mode_bits(p);
	s->max_bytes = p->file_mode == ETL_FILE_SEQUENTIAL ? (uint64_t)p->max_file_size_mb << 20 : 0;
	s->errcode = 0;
	s->errmsg[0] = 0;
	s->out_rc = ETL_OK;
	s->quit = 0;
	s->flush_req = 0;
	s->flush_seq = s->flush_done = 0;
	s->lost_final = 0;
	atomic_store(&s->full, 0);
	atomic_store(&s->epoch, 0);
	atomic_store(&s->events_written, 0);
	atomic_store(&s->events_dropped, 0);
	atomic_store(&s->buffers_written, 0);
	atomic_store(&s->buffers_lost, 0);
	atomic_store(&s->files_written, 0);
	g_owner[idx] = s;
	if (!s->name || (p->file_name && !s->file_name)) {
		etl__rt_serr(s, ETL_E_NOMEM, "Out of memory for the session");
		start_failed(s);
		etl__rt_ctl_unlock();
		return ETL_FATAL;
	}
	if (p->file_mode == ETL_FILE_NEWFILE) {
		size_t n = strlen(p->file_name) + 32;
		s->first_name = malloc(n);
		if (s->first_name)
			snprintf(s->first_name, n, s->file_name, 1);
		if (!s->first_name) {
			etl__rt_serr(s, ETL_E_NOMEM, "Out of memory for the session");
			start_failed(s);
			etl__rt_ctl_unlock();
			return ETL_FATAL;
		}
	}
	if (p->clock_type == ETL_CLOCK_QPC)
		pthread_once(&g_tsc_once, tsc_init);
	if (p->clock_type == ETL_CLOCK_CPUCYCLE) {
		pthread_once(&g_mhz_once, measure_mhz);
		s->cpu_mhz = g_cpu_mhz;
	} else {
		s->cpu_mhz = 0;
	}
	s->start_ts = etl__rt_now(p->clock_type);
	s->start_ft = p->clock_type == ETL_CLOCK_SYSTEMTIME ? s->start_ts : filetime_now();
	fill_writer_options(s, etl__rt_tid());
	if (etl__rt_pool_init(s) != ETL_OK) {
		etl__rt_serr(s, ETL_E_NOMEM, "Out of memory for the buffers: buffers=%u, size=%u",
		             s->p.min_buffers, s->bs);
		start_failed(s);
		etl__rt_ctl_unlock();
		return ETL_FATAL;
	}
	rc = open_output(s);
	if (rc != ETL_OK) {
		start_failed(s);
		etl__rt_ctl_unlock();
		return rc == ETL_FAILED ? ETL_FAILED : ETL_FATAL;
	}
	atomic_store(&s->accepting, 1);
	if (pthread_create(&s->thread, NULL, logger_main, s) != 0) {
		etl__rt_serr(s, ETL_E_NOMEM, "Cannot start the logger thread: error=\"%s\"", strerror(errno));
		if (s->w)
			etl__out_abandon(&s->w->out);
		start_failed(s);
		etl__rt_ctl_unlock();
		return ETL_FATAL;
	}
	s->thread_started = 1;
	s->state = ETL_RT_RUNNING;
	atomic_store_explicit(&etl__rt_sessions[idx], s, memory_order_seq_cst);
	etl__rt_ctl_unlock();
	return ETL_OK;
}

int etl_session_flush(etl_session *s)
{
	etl__rt_ctl_lock();
	int running = s->state == ETL_RT_RUNNING;
	if (!running) {
		etl__rt_serr(s, ETL_E_MISUSE, "The session is not running");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	/* Asked while the logger runs; a stop that follows still answers it
	 * (the logger's last round marks every request done). */
	pthread_mutex_lock(&s->lock);
	uint64_t target = ++s->flush_seq;
	pthread_cond_signal(&s->cv_logger);
	etl__rt_ctl_unlock();
	while (s->flush_done < target)
		pthread_cond_wait(&s->cv_done, &s->lock);
	int rc = s->flush_rc;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int etl_session_stop(etl_session *s)
{
	etl__rt_ctl_lock();
	if (s->state != ETL_RT_RUNNING) {
		etl__rt_serr(s, ETL_E_MISUSE, "The session is not running");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	/* Unreachable for new writes, then wait for the writes in flight
	 * (blocked writers still get buffers: the logger runs on). */
	etl__rt_disable_all(s);
	atomic_store_explicit(&etl__rt_sessions[s->index], NULL, memory_order_seq_cst);
	etl__rt_synchronize();
	atomic_store(&s->accepting, 0);
	pthread_mutex_lock(&s->lock);
	s->quit = 1;
	pthread_cond_broadcast(&s->cv_free);
	pthread_cond_signal(&s->cv_logger);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->thread_started = 0;

	int rc = s->out_rc;
	if (s->p.file_mode == ETL_FILE_BUFFERING) {
		refresh_clock(s, NULL);
		int brc = write_ring(s);
		if (brc != ETL_OK)
			rc = brc;
	} else if (s->w) {
		if (s->p.file_mode != ETL_FILE_REALTIME)
			refresh_clock(s, s->w);
		put_lost(s, s->w);
		int crc = etl_writer_close(s->w);
		struct etl_writer_stats ws;
		etl_writer_stats(s->w, &ws);
		if (s->p.file_mode != ETL_FILE_REALTIME)
			atomic_store(&s->files_written, ws.files_written);
		if (crc != ETL_OK && rc == ETL_OK) {
			etl__rt_serr(s, ETL_E_IO, "Cannot finish the session's output: %s", etl_writer_errmsg(s->w));
			rc = crc;
		}
		etl_writer_free(s->w);
		s->w = NULL;
	}
	s->lost_final = total_lost(s) - atomic_load(&s->events_dropped);
	etl__rt_pool_free(s);
	g_owner[s->index] = NULL;
	s->index = -1;
	s->state = ETL_RT_STOPPED;
	etl__rt_ctl_unlock();
	return rc == ETL_OK ? ETL_OK : ETL_FATAL;
}

void etl__rt_orphan_all(void)
{
	for (int i = 0; i < ETL_RT_MAX_SESSIONS; i++) {
		struct etl_session *s = g_owner[i];
		if (!s)
			continue;
		etl__rt_forget_session(s);
		atomic_store(&etl__rt_sessions[i], NULL);
		atomic_store(&s->accepting, 0);
		g_owner[i] = NULL;
		s->index = -1;
		s->thread_started = 0;
		s->state = ETL_RT_ORPHAN;
	}
}

void etl_session_free(etl_session *s)
{
	if (!s)
		return;
	if (s->state == ETL_RT_RUNNING)
		etl_session_stop(s);
	if (s->state == ETL_RT_ORPHAN) {
		/* Inherited through fork: its locks may be held by a thread that
		 * does not exist here; only the memory is released. */
		etl_writer_free(s->w);
		etl__rt_pool_free(s);
		s->sync_init = 0;
	}
	if (s->sync_init) {
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cv_free);
		pthread_cond_destroy(&s->cv_logger);
		pthread_cond_destroy(&s->cv_done);
	}
	free(s->name);
	free(s->file_name);
	free(s->first_name);
	free(s->rt_hdr);
	free(s->rt_img);
	free(s);
}

int etl_session_stats(const etl_session *s, struct etl_session_stats *st)
{
	etl__rt_ctl_lock();
	memset(st, 0, sizeof *st);
	st->events_written = atomic_load(&s->events_written);
	st->events_lost = total_lost(s);
	st->buffers_written = atomic_load(&s->buffers_written);
	st->buffers_lost = atomic_load(&s->buffers_lost);
	st->files_written = atomic_load(&s->files_written);
	if (s->state == ETL_RT_RUNNING) {
		struct etl_session *m = (struct etl_session *)s;
		pthread_mutex_lock(&m->lock);
		st->buffers_allocated = atomic_load(&m->n_alloc);
		st->buffers_free = m->n_free;
		pthread_mutex_unlock(&m->lock);
	}
	etl__rt_ctl_unlock();
	return ETL_OK;
}
