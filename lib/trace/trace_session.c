/*
 * lib/trace/trace_session.c - sessions of the tracing runtime, as their
 * controller sees them: start (the buffer pool, the output, the logger
 * thread), enabling and disabling providers, flush, stop, statistics,
 * timing counters and free; and what becomes of them in a forked child.
 *
 * Where the rest is: properties and the error record in
 * lib/trace/trace_session_props.c, the buffer pool in lib/trace/trace_buffers.c,
 * the logger thread in lib/trace/trace_logger.c, the file modes in
 * lib/trace/trace_output.c, the clock in lib/trace/trace_clock.c, the
 * provider registry and routing in lib/trace/trace_provider.c, and the
 * control lock, the table of running sessions and the wait for writers in
 * flight in lib/trace/trace_sync.c.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/trace/trace_core.h"

/* Sessions by index, running or starting (control lock). */
static struct etl_session *g_owner[ETL_RT_MAX_SESSIONS];

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
	pthread_cond_init(&s->cv_free, NULL);
	pthread_cond_init(&s->cv_done, NULL);
	s->sync_init = 1;
	return s;
}

/* ---- start ------------------------------------------------------------ */

/* A replaying session's header keeps the captured trace's figures
 * (etl_trace.h, "Replaying captured events"); the session's own are its
 * name, file, mode, buffers, ids and EndTime. */
static void replay_writer_options(struct etl_session *s)
{
	struct etl_writer_options *o = &s->wo;
	uint32_t mhz = o->cpu_speed_mhz;
	etl_writer_options_from_logfile(o, s->p.replay_of);
	if (!o->cpu_speed_mhz)
		o->cpu_speed_mhz = mhz;
	o->end_time = 0;
	s->layout_1_0 = o->version[2] == 1 && o->version[3] == 0;
}

static void fill_writer_options(struct etl_session *s, uint32_t tid)
{
	struct etl_writer_options *o = &s->wo;
	etl_writer_options_init(o);
	if (s->replay) {
		replay_writer_options(s);
	} else {
		o->pointer_size = 8;
		o->clock_type = s->p.clock_type;
		/* The measured cycle rate with the CPU-cycle clock, else the
		 * machine's speed the writer's defaults read: never 0, which
		 * readers divide by. */
		if (s->cpu_mhz)
			o->cpu_speed_mhz = s->cpu_mhz;
		o->start_time = s->start_ft;
		o->start_timestamp = s->start_ts;
		etl__rt_clock_figures(s->p.clock_type, s->start_ts, s->start_ft, &o->perf_freq, &o->boot_time);
	}
	o->buffer_size = s->bs;
	o->number_of_processors = s->nproc;
	o->logger_name = s->name;
	o->log_file_name = s->log_name ? s->log_name
	                 : s->p.file_mode == ETL_FILE_NEWFILE ? s->first_name
	                 : s->file_name ? s->file_name : "";
	o->log_file_mode = s->mode_bits;
	o->maximum_file_size_mb = s->p.max_file_size_mb;
	o->newfile_pattern = s->p.file_mode == ETL_FILE_NEWFILE ? s->file_name : NULL;
	o->header_pid = etl__rt_pid();
	o->header_tid = tid;
	o->logger_id = s->logger_id;
}

/* The clock at start: the caller's (etl_session_props.clock: stamp_ct 0,
 * QPC and CPUCYCLE counting from 0) or the system's, measured as the clock
 * type needs (lib/trace/trace_clock.c). */
static void clock_start(struct etl_session *s)
{
	uint32_t ct = s->p.clock_type;
	if (s->replay) {
		/* The trace's anchor: its raw values read as they did there. */
		s->stamp_ct = 0;
		s->cpu_mhz = s->p.replay_of->cpu_speed_mhz;
		s->start_ft = s->p.replay_of->start_time;
		s->start_ts = s->p.replay_of->header_timestamp;
		return;
	}
	if (s->p.clock) {
		s->stamp_ct = 0;
		s->cpu_mhz = ct == ETL_CLOCK_CPUCYCLE ? ETL_RT_OWN_CPU_MHZ : 0;
		s->start_ft = s->p.clock(s->p.clock_ctx);
		s->start_ts = ct == ETL_CLOCK_SYSTEMTIME ? s->start_ft : 0;
		return;
	}
	s->stamp_ct = ct;
	s->cpu_mhz = etl__rt_clock_prepare(ct);
	s->start_ts = etl__rt_now(ct);
	s->start_ft = ct == ETL_CLOCK_SYSTEMTIME ? s->start_ts : etl__rt_filetime_now();
}

/* The LogFileName of the header: log_file_name, whose first "%d" is the
 * first file's number in NEWFILE mode (copied, never used as a format). */
static char *log_name_of(const struct etl_session_props *p)
{
	const char *d = p->file_mode == ETL_FILE_NEWFILE ? strstr(p->log_file_name, "%d") : NULL;
	size_t n = strlen(p->log_file_name);
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	if (!d) {
		memcpy(out, p->log_file_name, n + 1);
	} else {
		size_t at = (size_t)(d - p->log_file_name);
		memcpy(out, p->log_file_name, at);
		out[at] = '1';
		memcpy(out + at + 1, d + 2, n - at - 1);
	}
	return out;
}

/* Undoes a start that failed half way (control lock held). */
static void start_failed(struct etl_session *s)
{
	etl__rt_output_free(s);
	etl__rt_pool_free(s);
	if (s->index >= 0)
		g_owner[s->index] = NULL;
	s->index = -1;
	s->state = ETL_RT_IDLE;
}

/* In a forked child (control lock held): the sessions inherited from the
 * parent have no logger thread; they are taken out of routing and the
 * table, and only etl_session_free() works on them (it releases their
 * memory; their files stay as the parent leaves them). */
static void orphan_all(void)
{
	for (int i = 0; i < ETL_RT_MAX_SESSIONS; i++) {
		struct etl_session *s = g_owner[i];
		if (!s)
			continue;
		etl__rt_disable_all(s->logger_id, 0);
		atomic_store(&etl__rt_sessions[i], NULL);
		atomic_store(&s->accepting, 0);
		g_owner[i] = NULL;
		s->index = -1;
		s->thread_started = 0;
		s->state = ETL_RT_ORPHAN;
	}
}

int etl_session_start(etl_session *s, const char *name, const struct etl_session_props *props)
{
	uint32_t nproc = etl__rt_nproc();
	struct etl_session_props pv;                /* props as this version reads them */
	const struct etl_session_props *p = &pv;
	int rc = etl__rt_check_props(s, name, props, &pv);
	if (rc != ETL_OK)
		return rc;
	/* Replaying: a buffer stream per processor of the captured trace. */
	if (p->replay_of)
		nproc = p->replay_of->number_of_processors;
	etl__rt_ctl_lock();
	/* Before any session exists: what a forked child does with them. */
	etl__rt_set_fork_child(orphan_all);
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
	free(s->log_name);
	free(s->rt_hdr);
	free(s->rt_img);
	s->rt_hdr = s->rt_img = NULL;
	s->rt_hdr_size = 0;
	s->first_name = NULL;
	s->log_name = NULL;
	s->p = *p;
	s->name = strdup(name);
	s->file_name = p->file_name ? strdup(p->file_name) : NULL;
	s->p.file_name = s->file_name;
	if (!s->p.min_buffers)
		s->p.min_buffers = 2 * nproc;
	if (!s->p.max_buffers)
		s->p.max_buffers = s->p.min_buffers + 20;
	s->nproc = nproc;
	s->replay = p->replay_of != NULL;
	s->layout_1_0 = 0;
	s->bs = p->buffer_size;
	s->max_bufs = s->p.max_buffers;
	s->index = idx;
	s->logger_id = (uint16_t)(idx + 1);
	s->rclass = p->independent ? 2 : p->blocking ? 1 : 0;
	s->mode_bits = etl__rt_mode_bits(p);
	s->max_bytes = p->file_mode == ETL_FILE_SEQUENTIAL ? (uint64_t)p->max_file_size_mb << 20 : 0;
	s->err.code = 0;
	s->err.msg[0] = 0;
	s->out_rc = ETL_OK;
	s->quit = 0;
	s->flush_req = 0;
	s->flush_seq = s->flush_done = 0;
	s->clk_seq = s->clk_done = 0;
	s->lost_final = 0;
	atomic_store(&s->full, 0);
	atomic_store(&s->epoch, 0);
	atomic_store(&s->events_written, 0);
	atomic_store(&s->events_dropped, 0);
	atomic_store(&s->buffers_written, 0);
	atomic_store(&s->buffers_lost, 0);
	atomic_store(&s->files_written, 0);
	memset(&s->tm, 0, sizeof s->tm);         /* no thread reads it now */
	g_owner[idx] = s;
	if (!s->name || (p->file_name && !s->file_name)) {
		etl__rt_serr(s, ETL_E_NOMEM, "Out of memory for the session");
		start_failed(s);
		etl__rt_ctl_unlock();
		return ETL_FATAL;
	}
	if (p->log_file_name && !(s->log_name = log_name_of(p))) {
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
	clock_start(s);
	fill_writer_options(s, etl__rt_tid());
	if (s->p.clock && !s->replay) {
		/* The caller's clock: nothing measured, a 10 MHz QPC from 0. */
		s->wo.perf_freq = ETL_RT_OWN_QPC_HZ;
		s->wo.boot_time = s->start_ft;
	}
	etl__rt_session_clock_init(s);
	/* replay_of is the caller's: it is not kept past the start. */
	s->p.replay_of = NULL;
	if (etl__rt_pool_init(s) != ETL_OK) {
		etl__rt_serr(s, ETL_E_NOMEM, "Out of memory for the buffers: buffers=%u, size=%u",
		             s->p.min_buffers, s->bs);
		start_failed(s);
		etl__rt_ctl_unlock();
		return ETL_FATAL;
	}
	rc = etl__rt_output_open(s);
	if (rc != ETL_OK) {
		start_failed(s);
		etl__rt_ctl_unlock();
		return rc == ETL_FAILED ? ETL_FAILED : ETL_FATAL;
	}
	atomic_store(&s->accepting, 1);
	if (etl__rt_logger_start(s) != 0) {
		etl__rt_serr(s, ETL_E_NOMEM, "Cannot start the logger thread: error=\"%s\"", strerror(errno));
		start_failed(s);
		etl__rt_ctl_unlock();
		return ETL_FATAL;
	}
	s->state = ETL_RT_RUNNING;
	atomic_store_explicit(&etl__rt_sessions[idx], s, memory_order_seq_cst);
	etl__rt_ctl_unlock();
	return ETL_OK;
}

/* ---- enabling --------------------------------------------------------- */

void etl_enable_params_init(struct etl_enable_params *e)
{
	memset(e, 0, sizeof *e);
	e->struct_size = sizeof *e;
	e->level = 255;
	e->match_any = ~(uint64_t)0;
	e->match_all = 0;
	e->properties = 0;
}

int etl_session_enable(etl_session *s, const struct etl_guid *provider,
                       const struct etl_enable_params *e)
{
	if (!provider || !e || e->struct_size < sizeof *e) {
		etl__rt_serr(s, ETL_E_MISUSE, "Enable parameters are missing or from another version: struct_size=%u",
		             e ? e->struct_size : 0);
		return ETL_FAILED;
	}
	etl__rt_ctl_lock();
	if (s->state != ETL_RT_RUNNING) {
		etl__rt_serr(s, ETL_E_MISUSE, "The session is not running");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	int rc = etl__rt_enable(s->logger_id, provider, e);
	if (rc == ETL_FATAL) {
		etl__rt_serr(s, ETL_E_NOMEM, "Out of memory for a provider entry");
	} else if (rc != ETL_OK) {
		char gs[ETL_GUID_STRLEN];
		etl__rt_serr(s, ETL_E_LIMIT, "The provider is enabled on 8 sessions already: provider=%s",
		             etl_guid_format(provider, gs));
	}
	etl__rt_ctl_unlock();
	return rc;
}

int etl_session_disable(etl_session *s, const struct etl_guid *provider)
{
	etl__rt_ctl_lock();
	if (s->state != ETL_RT_RUNNING || !provider || etl__rt_disable(s->logger_id, provider) != ETL_OK) {
		etl__rt_serr(s, ETL_E_NOT_FOUND, "The provider is not enabled on this session");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	etl__rt_ctl_unlock();
	return ETL_OK;
}

int etl_session_capture_state(etl_session *s, const struct etl_guid *provider)
{
	etl__rt_ctl_lock();
	if (s->state != ETL_RT_RUNNING) {
		etl__rt_serr(s, ETL_E_MISUSE, "The session is not running");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	if (!provider || etl__rt_capture_state(s->logger_id, provider) != ETL_OK) {
		etl__rt_serr(s, ETL_E_NOT_FOUND, "The provider is not enabled on this session");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	etl__rt_ctl_unlock();
	return ETL_OK;
}

/* ---- flush / stop ----------------------------------------------------- */

/* Asks the logger for a round - a flush (flush_seq) or a look at the
 * caller's clock (clk_seq) - and waits until it answered: *done reaches
 * the request; *rc is the round's result. The request is made while the
 * logger runs; a stop that follows still answers it (the logger's last
 * round marks every request done). */
static int logger_round(struct etl_session *s, uint64_t *seq, const uint64_t *done, const int *rc)
{
	etl__rt_ctl_lock();
	if (s->state != ETL_RT_RUNNING) {
		etl__rt_serr(s, ETL_E_MISUSE, "The session is not running");
		etl__rt_ctl_unlock();
		return ETL_FAILED;
	}
	pthread_mutex_lock(&s->lock);
	uint64_t target = ++*seq;
	etl__rt_kick(&s->kick);
	etl__rt_ctl_unlock();
	while (*done < target)
		pthread_cond_wait(&s->cv_done, &s->lock);
	int r = *rc;
	pthread_mutex_unlock(&s->lock);
	return r;
}

int etl_session_flush(etl_session *s)
{
	return logger_round(s, &s->flush_seq, &s->flush_done, &s->flush_rc);
}

/* The caller's clock moved: when the flush timer is due, the logger runs
 * one timer round (lib/trace/trace_logger.c) and we wait for it, so that
 * the flush holds exactly the events written before this call. */
int etl_session_clock_advanced(etl_session *s)
{
	if (!s->p.clock || s->p.flush_timer_ms == 0) {
		if (!s->p.clock)
			etl__rt_serr(s, ETL_E_MISUSE, "The session does not run on the caller's clock");
		return s->p.clock ? ETL_OK : ETL_FAILED;
	}
	if (atomic_load(&s->accepting) &&
	    s->p.clock(s->p.clock_ctx) < atomic_load_explicit(&s->clk_next, memory_order_acquire))
		return ETL_OK;
	return logger_round(s, &s->clk_seq, &s->clk_done, &s->clk_rc);
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
	etl__rt_disable_all(s->logger_id, 1);
	atomic_store_explicit(&etl__rt_sessions[s->index], NULL, memory_order_seq_cst);
	etl__rt_synchronize();
	atomic_store(&s->accepting, 0);
	etl__rt_logger_stop(s);

	int rc = etl__rt_output_close(s);
	s->lost_final = etl__rt_events_lost(s) - atomic_load(&s->events_dropped);
	etl__rt_pool_free(s);
	g_owner[s->index] = NULL;
	s->index = -1;
	s->state = ETL_RT_STOPPED;
	etl__rt_ctl_unlock();
	return rc == ETL_OK ? ETL_OK : ETL_FATAL;
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
		etl__rt_output_free(s);
		etl__rt_pool_free(s);
		s->sync_init = 0;
	}
	if (s->sync_init) {
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cv_free);
		pthread_cond_destroy(&s->cv_done);
	}
	free(s->name);
	free(s->file_name);
	free(s->first_name);
	free(s->log_name);
	free(s->rt_hdr);
	free(s->rt_img);
	free(s);
}

int etl_session_stats(const etl_session *s, struct etl_session_stats *st)
{
	etl__rt_ctl_lock();
	memset(st, 0, sizeof *st);
	st->events_written = atomic_load(&s->events_written);
	st->events_lost = etl__rt_events_lost(s);
	st->buffers_written = atomic_load(&s->buffers_written);
	st->buffers_lost = atomic_load(&s->buffers_lost);
	st->files_written = atomic_load(&s->files_written);
	if (s->state == ETL_RT_RUNNING) {
		struct etl_session *m = (struct etl_session *)s;
		pthread_mutex_lock(&m->lock);
		st->buffers_allocated = atomic_load(&m->n_alloc);
		st->buffers_free = etl__rt_pool_free_count(m);
		pthread_mutex_unlock(&m->lock);
	}
	etl__rt_ctl_unlock();
	return ETL_OK;
}

int etl_session_timing(const etl_session *s, struct etl_session_timing *t)
{
	if (t->struct_size < 8)
		return ETL_FAILED;
	struct etl_session_timing v;
	memset(&v, 0, sizeof v);
	v.struct_size = t->struct_size;
	struct etl_session *m = (struct etl_session *)s;
	/* The writers' figures are written under the pool lock while the
	 * session runs (an orphan's lock may be held by a thread that does not
	 * exist in this process: it is not taken). */
	etl__rt_ctl_lock();
	int running = s->state == ETL_RT_RUNNING;
	if (running)
		pthread_mutex_lock(&m->lock);
	v.buffer_waits = m->tm.buffer_waits;
	v.buffer_wait_ns = m->tm.buffer_wait_ns;
	v.lock_waits = m->tm.lock_waits;
	v.lock_wait_ns = m->tm.lock_wait_ns;
	if (running)
		pthread_mutex_unlock(&m->lock);
	etl__rt_ctl_unlock();
	v.logger_rounds = atomic_load_explicit(&s->tm.rounds, memory_order_relaxed);
	v.logger_busy_ns = atomic_load_explicit(&s->tm.busy_ns, memory_order_relaxed);
	v.logger_cpu_ns = atomic_load_explicit(&s->tm.cpu_ns, memory_order_relaxed);
	v.commit_waits = atomic_load_explicit(&s->tm.commit_waits, memory_order_relaxed);
	v.output_calls = atomic_load_explicit(&s->tm.out_calls, memory_order_relaxed);
	v.output_ns = atomic_load_explicit(&s->tm.out_ns, memory_order_relaxed);
	v.output_bytes = atomic_load_explicit(&s->tm.out_bytes, memory_order_relaxed);
	memcpy(t, &v, t->struct_size < sizeof v ? t->struct_size : sizeof v);
	return ETL_OK;
}
