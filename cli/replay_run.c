/*
 * replay_run.c - etlreplay's replay: every event of the inputs played
 * back through libetl's tracing runtime (etl_replay_write(), etl_trace.h
 * "Replaying captured events"), into one session that writes OUT.etl or
 * hands its events to a real-time consumer.
 *
 * Per run:
 *   1. the inputs are opened in time order and merged by UTC time, the
 *      filters applied, the header buffers' records left out (the session
 *      writes its own), as etlconvert -f etl does (convert_input.c);
 *   2. the session replays the trace of the merged inputs
 *      (etl_session_props.replay_of): the first input's logfile header,
 *      with the clock and its anchor of the input that started first and
 *      a buffer stream for every processor an event names, and buffers as
 *      large as the largest input's (convert_figures()); its file mode is
 *      what -o, --compress, --circular and --new-file ask, in a private
 *      directory until the end (replay_out.c); it is blocking, so no
 *      event is lost for want of a buffer;
 *   3. time is the trace's: the session runs on the caller's clock, set
 *      before each event to that event's UTC time (never backwards), and
 *      etl_session_clock_advanced() follows each write, so the flush
 *      timer, the buffers' timestamps and EndTime follow the trace
 *      whatever the pace; events of an input whose clock is not the
 *      session's get their timestamp re-expressed in it
 *      (etl_merge_timestamp);
 *   4. the session enables each provider GUID at its first event, with
 *      every level and keyword, before the event is written;
 *   5. --speed F sleeps until each event is due (replay_live.c); a
 *      real-time consumer prints what arrived after each timer flush and
 *      at the end.
 * Damage in an input is reported with its offset as it is met and the
 * rest is replayed (exit 2); when nothing at all could be read, no output
 * is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"
#include "replay_sem.h"

/* The GUIDs the session enables so far: an open-addressed set. */
struct guid_set {
	struct etl_guid *v;
	unsigned char *used;
	size_t n, cap;
};

static size_t guid_slot(const struct etl_guid *g, size_t cap)
{
	uint64_t a, b;
	memcpy(&a, g, 8);
	memcpy(&b, (const char *)g + 8, 8);
	return (size_t)(((a * 31) ^ b) * 0x9E3779B97F4A7C15ULL >> 20) & (cap - 1);
}

/* 1 when g was added now, 0 when it was there, -1 out of memory. */
static int guid_set_add(struct guid_set *s, const struct etl_guid *g)
{
	if (2 * (s->n + 1) > s->cap) {
		struct guid_set t = { NULL, NULL, 0, s->cap ? 2 * s->cap : 256 };
		t.v = malloc(t.cap * sizeof *t.v);
		t.used = calloc(t.cap, 1);
		if (!t.v || !t.used) {
			free(t.v);
			free(t.used);
			return -1;
		}
		for (size_t i = 0; i < s->cap; i++)
			if (s->used[i])
				guid_set_add(&t, &s->v[i]);
		free(s->v);
		free(s->used);
		*s = t;
	}
	size_t i = guid_slot(g, s->cap);
	while (s->used[i]) {
		if (memcmp(&s->v[i], g, sizeof *g) == 0)
			return 0;
		i = (i + 1) & (s->cap - 1);
	}
	s->used[i] = 1;
	s->v[i] = *g;
	s->n++;
	return 1;
}

struct replay {
	const struct replay_options *o;
	struct convert_inputs ins;
	struct etl_logfile lf;         /* the trace replayed (replay_of)      */
	etl_session *s;
	struct replay_out out;
	int staged;                    /* out holds a private directory       */
	struct replay_live *live;
	struct replay_sem *sem;        /* --config / --system-hive            */
	struct replay_pace pace;
	struct guid_set enabled;
	_Atomic int64_t now;           /* the caller's clock: trace time      */
	int64_t next_release;          /* --realtime: the next timer flush    */
	uint64_t written, lost;
	int rc;
};

static int64_t trace_clock(void *ctx)
{
	struct replay *rp = ctx;
	return rp->now;
}

/* ---- the trace replayed --------------------------------------------------- */

/* A buffer size the session accepts: a multiple of 4 KiB up to 1 MiB
 * (records are at most 64 KiB: a larger buffer gains nothing). */
static uint32_t session_buffer_size(uint32_t bs)
{
	if (bs < 4096)
		return bs ? 4096 : 64 * 1024;
	if (bs > 1024 * 1024)
		return 1024 * 1024;
	return (bs + 4095) & ~4095u;
}

/* The logfile header the session keeps (step 2). Without any, one of a
 * 10 MHz QPC clock starting with the first event keeps the raw
 * timestamps as they are. */
static void replay_logfile(struct replay *rp)
{
	struct convert_inputs *ins = &rp->ins;
	struct buffer_scan *scan = calloc((size_t)ins->n, sizeof *scan);
	struct convert_figures fg;
	for (int i = 0; scan && i < ins->n; i++)
		convert_scan_buffers(&ins->v[i], &scan[i]);
	if (scan) {
		convert_figures(ins, scan, &fg);
	} else {
		memset(&fg, 0, sizeof fg);
		fg.processors = ins->v[0].lf->present ? ins->v[0].lf->number_of_processors : 1;
		fg.buffer_size = ins->v[0].lf->buffer_size;
	}
	free(scan);
	rp->lf = *ins->v[0].lf;
	if (!rp->lf.present) {
		memset(&rp->lf, 0, sizeof rp->lf);
		rp->lf.present = 1;
		rp->lf.header_ptr_size = 8;
		rp->lf.pointer_size = 8;
		rp->lf.version[0] = 10;
		rp->lf.version[2] = 1;
		rp->lf.version[3] = 5;
		rp->lf.reserved_flags = ETL_CLOCK_QPC;
		rp->lf.perf_freq = 10000000;
		rp->lf.timer_resolution = 156250;
	}
	if (fg.clock) {
		rp->lf.reserved_flags = fg.clock->reserved_flags;
		rp->lf.perf_freq = fg.clock->perf_freq;
		rp->lf.cpu_speed_mhz = fg.clock->cpu_speed_mhz;
		rp->lf.start_time = fg.clock->start_time;
		rp->lf.header_timestamp = fg.clock->header_timestamp;
		rp->lf.boot_time = fg.clock->boot_time;
	}
	rp->lf.number_of_processors = fg.processors ? fg.processors : 1;
	rp->lf.buffer_size = session_buffer_size(fg.buffer_size);
}

/* ---- the session ------------------------------------------------------------ */

/* Buffers in flight: a current one per processor in use (up to 32), as
 * many again and 64 more to fill while the logger writes (so the reading
 * thread seldom waits for it), within 64 MiB; allocated as needed. */
static void pool_size(struct etl_session_props *sp, uint32_t nproc)
{
	uint32_t cap = (64u << 20) / sp->buffer_size;
	uint32_t want = 2 * (nproc < 32 ? nproc : 32) + 64;
	sp->min_buffers = 4;
	sp->max_buffers = want < cap ? want : cap;
	if (sp->max_buffers < 8)
		sp->max_buffers = 8;
}

static int start_session(struct replay *rp)
{
	const struct replay_options *o = rp->o;
	struct etl_session_props sp;
	etl_session_props_init(&sp);
	sp.buffer_size = rp->lf.buffer_size;
	pool_size(&sp, rp->lf.number_of_processors);
	sp.blocking = 1;
	sp.clock = trace_clock;
	sp.clock_ctx = rp;
	sp.replay_of = &rp->lf;
	if (o->realtime) {
		sp.file_mode = ETL_FILE_REALTIME;
		sp.realtime_cb = replay_live_event;
		sp.realtime_ctx = rp->live;
	} else {
		sp.file_name = rp->out.staged;
		sp.log_file_name = o->output;
		sp.compressed = o->compress;
		sp.file_mode = o->circular_mb ? ETL_FILE_CIRCULAR : o->newfile_mb ? ETL_FILE_NEWFILE
		                                                                  : ETL_FILE_SEQUENTIAL;
		sp.max_file_size_mb = o->circular_mb ? o->circular_mb : o->newfile_mb;
		/* Buffers go to the file when full: the file is moved into
		 * place only at the end, a timer flush would only split them. */
		sp.flush_timer_ms = 0;
	}
	rp->now = rp->lf.start_time;
	rp->next_release = rp->lf.start_time + (int64_t)sp.flush_timer_ms * 10000;
	rp->s = etl_session_new();
	if (!rp->s) {
		cli_message("out of memory");
		return CLI_EXIT_IO;
	}
	/* The captured session's name, unless a session of the process (the
	 * SEM's) has it already. */
	const char *name = rp->lf.logger_name && *rp->lf.logger_name ? rp->lf.logger_name : "etlreplay";
	int st = etl_session_start(rp->s, name, &sp);
	if (st == ETL_FAILED && etl_session_errcode(rp->s) == ETL_E_LIMIT)
		st = etl_session_start(rp->s, "etlreplay", &sp);
	if (st != ETL_OK) {
		cli_error(o->output ? cli_display_name(o->output) : "real-time session", etl_session_errmsg(rp->s));
		return CLI_EXIT_IO;
	}
	return CLI_EXIT_CLEAN;
}

/* ---- the replay --------------------------------------------------------- */

/* A timer flush fell due at trace time now (etl_session_clock_advanced()
 * ran it): the real-time consumer has everything written so far. */
static int after_advance(struct replay *rp, int64_t now)
{
	if (etl_session_clock_advanced(rp->s) == ETL_FATAL) {
		cli_error(cli_display_name(rp->o->output), etl_session_errmsg(rp->s));
		return -1;
	}
	if (rp->live && now >= rp->next_release) {
		rp->next_release = now + 1000 * 10000;
		if (replay_live_release(rp->live) != 0)
			return -1;
	}
	return 0;
}

static void set_now(struct replay *rp, int64_t t)
{
	if (t > rp->now)
		rp->now = t;
}

static void pace_tick(void *ctx, int64_t t)
{
	struct replay *rp = ctx;
	set_now(rp, t);
	if (after_advance(rp, rp->now) != 0)
		rp->rc = CLI_EXIT_IO;
}

/* Writes one event (steps 3 and 4). @return : 0, or -1 when the run
 * cannot go on (reported). */
static int replay_event(struct replay *rp, const struct etl_event *ev, struct convert_input *in)
{
	struct etl_event conv;
	int64_t raw;
	if (etl_merge_timestamp(rp->ins.m, (int)(in - rp->ins.v), ev, &raw) == ETL_OK &&
	    raw != ev->timestamp) {
		conv = *ev;
		conv.timestamp = raw;
		ev = &conv;
	}
	int added = guid_set_add(&rp->enabled, &ev->provider);
	if (added < 0) {
		cli_message("out of memory");
		return -1;
	}
	if (added) {
		struct etl_enable_params ep;
		etl_enable_params_init(&ep);
		if (etl_session_enable(rp->s, &ev->provider, &ep) != ETL_OK) {
			cli_progress_clear(&rp->ins.pg);
			cli_error_at(in->name, ev->file_offset, "provider not replayed: ", etl_session_errmsg(rp->s));
			in->rc = cli_worse(in->rc, CLI_EXIT_DAMAGE);
		}
	}
	if (ev->present & ETL_EVF_UTC) {
		replay_pace_wait(&rp->pace, ev->utc, pace_tick, rp);
		set_now(rp, ev->utc);
	}
	/* The SEM's part of the replay (cli/replay_sem.h) takes the event
	 * here when --config or --system-hive is given, and writes it itself
	 * (etl_sem_replay_event()). */
	int st = rp->sem ? replay_sem_event(rp->sem, ev) : etl_replay_write(ev);
	if (st == ETL_FATAL) {
		cli_message("out of memory");
		return -1;
	}
	if (st != ETL_OK) {
		rp->lost++;
		cli_progress_clear(&rp->ins.pg);
		cli_error_at(in->name, ev->file_offset, "event not replayed: ",
		             "its record cannot be encoded, or it does not fit the session's buffers");
		in->rc = cli_worse(in->rc, CLI_EXIT_DAMAGE);
	} else {
		rp->written++;
	}
	return after_advance(rp, rp->now);
}

/* Stops the session and reports what it could not write. */
static int stop_session(struct replay *rp)
{
	int st = etl_session_stop(rp->s);
	struct etl_session_stats ss;
	etl_session_stats(rp->s, &ss);
	if (st != ETL_OK) {
		cli_error(rp->o->output ? cli_display_name(rp->o->output) : "real-time session",
		          etl_session_errmsg(rp->s));
		return CLI_EXIT_IO;
	}
	if (ss.events_lost > rp->lost) {
		cli_message("%s: %llu events lost by the session", rp->o->output ? rp->o->output : "real time",
		            (unsigned long long)(ss.events_lost - rp->lost));
		return CLI_EXIT_IO;
	}
	return CLI_EXIT_CLEAN;
}

static void replay_free(struct replay *rp)
{
	etl_session_free(rp->s);
	if (rp->staged)
		replay_out_abandon(&rp->out);
	replay_live_free(rp->live);
	replay_sem_free(rp->sem);
	free(rp->enabled.v);
	free(rp->enabled.used);
	convert_free_inputs(&rp->ins);
}

int replay_run(const struct replay_options *o, char **paths, int n)
{
	struct replay rp;
	struct convert_options co;
	memset(&rp, 0, sizeof rp);
	memset(&co, 0, sizeof co);
	rp.o = o;
	rp.pace.speed = o->speed;
	co.filter = o->filter;
	co.progress_ok = o->progress_ok;
	int rc = convert_open_inputs(&rp.ins, paths, n, &co, 1, 0);
	if (rc != CLI_EXIT_CLEAN)
		return rc;
	if (!o->realtime) {
		rc = replay_out_begin(&rp.out, o->output, o->newfile_mb != 0);
		rp.staged = rc == CLI_EXIT_CLEAN;
	} else if (!(rp.live = replay_live_new())) {
		rc = CLI_EXIT_IO;
	}
	if (rc == CLI_EXIT_CLEAN) {
		replay_logfile(&rp);
		rp.now = rp.lf.start_time;
		if (replay_sem_wanted(&o->sem))
			rc = replay_sem_open(&o->sem, o->realtime ? NULL : o->output, trace_clock, &rp, &rp.sem);
	}
	if (rc == CLI_EXIT_CLEAN)
		rc = start_session(&rp);
	if (rc != CLI_EXIT_CLEAN) {
		replay_free(&rp);
		return rc;
	}
	const struct etl_event *ev;
	struct convert_input *in;
	int more;
	while (rp.rc == CLI_EXIT_CLEAN && (more = convert_next(&rp.ins, &ev, &in)) > 0)
		if (replay_event(&rp, ev, in) != 0)
			rp.rc = CLI_EXIT_IO;
	cli_progress_clear(&rp.ins.pg);
	rc = cli_worse(rp.rc, stop_session(&rp));
	if (rp.live && replay_live_release(rp.live) != 0)
		rc = CLI_EXIT_IO;
	rc = cli_worse(rc, convert_status(&rp.ins));
	int commit = rc != CLI_EXIT_IO;
	if (rc != CLI_EXIT_IO && !o->realtime) {
		if (convert_nothing_read(&rp.ins, o->output)) {
			rc = cli_worse(rc, CLI_EXIT_DAMAGE);
			commit = 0;
		} else {
			struct etl_session_stats ss;
			etl_session_stats(rp.s, &ss);
			rc = cli_worse(rc, replay_out_commit(&rp.out, ss.files_written ? ss.files_written : 1,
			                                     paths, n));
			rp.staged = 0;
		}
	}
	if (rp.sem)
		rc = cli_worse(rc, replay_sem_finish(rp.sem, paths, n, commit && rc != CLI_EXIT_IO));
	replay_free(&rp);
	return rc;
}
