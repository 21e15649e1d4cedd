/*
 * convert_parallel.c - etlconvert -j N (N > 1) for the rendered formats:
 * the events decoded and rendered by N threads, the output the same
 * bytes in the same order as with -j 1, and everything said on stderr
 * said in the same order (the man page, etlconvert(1), says what the
 * user sees).
 *
 * Threads. N workers (the caller's thread is worker 0) take turns at
 * three jobs. Reading: one worker at a time takes the merge's events
 * (convert_next()) and copies them into a batch (convert_batch.c: up to
 * PAR_BATCH_EVENTS events or PAR_BATCH_BYTES of records); what
 * convert_next() would say on the way (progress, damage) becomes notes in
 * the batch at their place. Rendering: the worker that filled a batch
 * decodes each of its events with its own decoder (the same --manifest,
 * --tmf and --mof loads) and renders it with its own output handle (flag
 * ETL_OUTPUT_EVENTS_ONLY: each event's bytes as the one handle of -j 1
 * writes them, etl_output.h) into the batch, while another worker reads
 * the next. Writing: the worker that finishes the batch next in order
 * writes its bytes between its notes (at once to a plain output, call by
 * call as -j 1's handle made them to a compressed one: an LZ4 frame
 * depends on the cuts), then any later batch already rendered.
 * Why not a reader thread, N renderers and a writer thread: each batch
 * then crosses three threads, each hand-over a wake-up and a sleep, and
 * the batches must be large to make that worth it, larger than the
 * processors' caches; here a batch stays with one thread, which reads,
 * renders and most often writes it while its bytes are still in its
 * cache, and threads only wait when there is nothing to do.
 * A fixed number of batches (PAR_BATCHES) go round: the reading turn
 * waits for a free one (rendering what was sent meanwhile), and a batch is
 * sent to the others early when notes fill it, so memory is bounded by
 * batches in flight.
 *
 * The document's position-dependent parts stay with the caller's handle
 * (the handle of -j 1): before the workers start it writes the
 * beginning, the header event and the first two events (read, decoded
 * and rendered at once, as -j 1 does), and at the end the epilogue.
 * After two events every later event renders the same whatever came
 * before, except the logfile-header record when it did not come among
 * them: the one handle skips it once, so the reader leaves it out
 * (etl_output_is_header_record()).
 *
 * Schemas. Decoding depends on earlier events in one way: records that
 * carry schemas (etl_decoder_schema_event(): a merged trace's
 * EventMetadata, an EventSource's in-band manifest) teach the decoder
 * the events after them, whether the filters keep them or not. The
 * reader copies each into a log with its place (before the event
 * numbered pos); every worker's decoder learns the log in order, each
 * entry before it decodes the events after it; the worker that renders
 * such a record learns it by decoding it. Each worker takes batches in
 * increasing order (from the FIFO of batches sent, in order, or the one
 * it just filled when no earlier one waits), so it goes forward through
 * the log; an idle worker learns what lies before the batch being
 * filled. An entry is freed once every worker learnt it; past
 * PAR_LOG_BYTES of entries the reader waits for the workers to catch up,
 * rendering and learning itself meanwhile (a filter that leaves out
 * nearly everything of a trace full of schemas). Everything else the
 * decoder keeps is a cache (TraceLogging schemas, MOF lookups) that
 * changes no result; the one exception is the cache's bound (64 MiB of
 * distinct TraceLogging schemas), past which a decoder starts afresh:
 * each worker's decoder meets only its share.
 *
 * Threads that start late. Each worker loads every --manifest, --tmf and
 * --mof itself, which costs as much as rendering a great many events (a
 * 1 MiB manifest: about 50 ms, some 100,000 events). When the inputs are
 * large (PAR_LAZY_BYTES or more) or their size is not known, workers 1..
 * start at once and load while the caller loads. Below that size a trace
 * may be over before another thread's loads are: there workers 1.. start
 * only once the reader's estimate of what is left to convert on its own
 * (the time spent so far, times the bytes of input left over the bytes
 * read) reaches twice the caller's own loading time: a worker started
 * with less left would be ready about when the caller were done without
 * it (and a worker costs its loading time in processor time).
 * Until they start, the log keeps its entries for them, and a log that
 * fills starts them at once (they then learn it and let it shrink).
 *
 * Failures stop the run where -j 1 stops: an input that cannot be read
 * on (a STOP note), out of memory decoding an event, the output that
 * cannot be written; the worker writing that place then tells the others
 * to stop, and what lies after it is neither written nor said.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "convert.h"
#include "convert_parallel.h"

/* Batches that go round: per worker one being rendered and one rendered
 * that waits for an earlier one, and one being filled. */
#define PAR_BATCHES(workers) (2 * (workers) + 1)

enum { WAIT_FREE = 1, WAIT_ROOM };

/* Inputs of at least this many bytes (all of known size) start every
 * worker at once; smaller ones start workers 1.. when they are worth it
 * (see "Threads that start late"; the environment variable
 * ETLCONVERT_LAZY_BYTES sets another size, 0: always at once). */
#define PAR_LAZY_BYTES ((uint64_t)4 << 20)

/* The copies of records that carry schemas not yet learnt by every worker
 * take at most about this much: past it, the reader waits (less when the
 * environment says so: ETLCONVERT_LOG_BYTES, for tests, makes it wait at
 * every such record). */
#define PAR_LOG_BYTES ((size_t)8 << 20)

struct par;

struct par_worker {
	struct par *p;
	int id;
	pthread_t th;
	int started;
	etl_decoder *dec;          /* worker 0: the caller's                  */
	etl_output *out;           /* ETL_OUTPUT_EVENTS_ONLY                  */
	struct par_batch *b;       /* the batch being rendered (out's sink)   */
	uint64_t next_log;         /* the log entry it learns next (under
	                              the lock)                               */
	int active;                /* counts for the log (under the lock)     */
	struct par_schema **pend;  /* log entries taken to learn              */
	size_t n_pend, cap_pend;
	int failed;                /* a batch failed: it takes no more       */
};

struct par {
	pthread_mutex_t mu;
	/* Each wakes its threads only when they can go on (a thread switch
	 * costs as much as rendering a few events). */
	pthread_cond_t cv_turn;    /* the reader: a free batch, log room, stop */
	pthread_cond_t cv_work;    /* idle workers: a batch sent, the reading
	                              turn or a batch free, the end, stop    */
	pthread_cond_t cv_end;     /* the caller: all written, or stop        */
	int reader_waits;          /* WAIT_FREE, WAIT_ROOM or 0               */
	int idle;                  /* workers waiting on cv_work              */
	int go;                    /* the prologue is done: reading may start */
	int reading;               /* a worker has the reading turn           */
	struct par_worker *reader_w; /* which                                 */
	int writing;               /* a worker writes                         */
	uint64_t write_seq;        /* the batch to write next                 */
	struct par_batch *batches;
	int nb;
	struct par_batch **free_list;
	int n_free;
	struct par_batch **fifo;   /* sent, not yet taken: ring of nb        */
	int fifo_head, fifo_n;
	struct par_batch **order;  /* sent, not yet written, by seq % nb     */
	uint64_t sent;             /* batches sent                            */
	uint64_t fill_start;       /* first event number of the batch filling */
	int eof;                   /* the reader sent its last batch          */
	int stop;                  /* the run stops: everyone ends            */
	int failed;                /* ... because it failed                   */
	int learn_oom;             /* ... because a worker could not learn    */
	/* the log of records that carry schemas */
	struct par_schema **log;
	size_t log_n, log_cap;
	uint64_t log_base;         /* the number of log[0]                    */
	size_t log_bytes;          /* what the entries take                   */
	size_t log_limit;          /* PAR_LOG_BYTES, or less (tests)          */
	/* the workers */
	struct par_worker *w;
	int nw;
	/* the reader's (no lock: the reading turn's holder only) */
	struct convert_inputs *ins;
	const struct etl_logfile *lf;   /* the one handle's logfile header  */
	int lf_met;                /* its record came                         */
	uint64_t next_event;       /* the number the next event gets          */
	struct par_batch *cur;     /* the batch being filled                  */
	int reader_oom;
	const struct convert_options *o;
	/* workers 1.. that start late (set before any thread runs, then the
	 * caller's thread's only: no other runs while lazy is set) */
	int lazy;                  /* they have yet to start                  */
	double t_new, t_go;        /* when this run was made, and set going   */
	double load_time;          /* t_go - t_new: the caller's loads        */
	uint64_t lazy_events;      /* ETLCONVERT_LAZY_EVENTS: they start at
	                              this event instead (tests); 0: by time  */
	/* the writer's (no lock: the writing worker only) */
	etl_outfile *f;
	char *why;                 /* the output handle's failure            */
	size_t why_len;
	int keep_cuts;             /* the output is compressed: the writer
	                              makes the sink calls of -j 1 one by one
	                              (an LZ4 frame depends on them)          */
};

/* ---- the log ----------------------------------------------------------- */

/* Frees the entries every worker learnt (all of them when no worker
 * runs). Under the lock. */
static void log_trim(struct par *p)
{
	uint64_t low = p->log_base + p->log_n;
	for (int i = 0; i < p->nw; i++)
		if (p->w[i].active && p->w[i].next_log < low)
			low = p->w[i].next_log;
	size_t k = (size_t)(low - p->log_base);
	if (k == 0)
		return;
	for (size_t i = 0; i < k; i++) {
		p->log_bytes -= p->log[i]->mem;
		free(p->log[i]);
	}
	memmove(p->log, p->log + k, (p->log_n - k) * sizeof *p->log);
	p->log_n -= k;
	p->log_base += k;
	if (p->reader_waits == WAIT_ROOM && p->log_bytes <= p->log_limit)
		pthread_cond_signal(&p->cv_turn);
}

/* Adds a copy of ev, to be learnt before event pos. @return : 0; 1 when
 * the log is over PAR_LOG_BYTES (log_room() waits); -1 when memory is
 * short. */
static int log_add(struct par *p, const struct etl_event *ev, uint64_t pos, int self)
{
	struct par_schema *s = par_schema_copy(ev, pos, self);
	if (!s)
		return -1;
	pthread_mutex_lock(&p->mu);
	if (p->log_n == p->log_cap) {
		size_t cap = p->log_cap ? 2 * p->log_cap : 64;
		struct par_schema **l = realloc(p->log, cap * sizeof *l);
		if (!l) {
			pthread_mutex_unlock(&p->mu);
			free(s);
			return -1;
		}
		p->log = l;
		p->log_cap = cap;
	}
	p->log[p->log_n++] = s;
	p->log_bytes += s->mem;
	int over = p->log_bytes > p->log_limit;
	pthread_mutex_unlock(&p->mu);
	return over;
}

/* Takes the log entries w has not learnt into w->pend. Under the lock.
 * @return : 0, or -1 when memory is short. */
static int log_take(struct par_worker *w)
{
	struct par *p = w->p;
	size_t from = (size_t)(w->next_log - p->log_base), n = p->log_n - from;
	w->n_pend = 0;
	if (n > w->cap_pend) {
		struct par_schema **q = realloc(w->pend, n * sizeof *q);
		if (!q)
			return -1;
		w->pend = q;
		w->cap_pend = n;
	}
	if (n)
		memcpy(w->pend, p->log + from, n * sizeof *w->pend);
	w->n_pend = n;
	return 0;
}

/* w's decoder learns the taken entries from *q on that come before event
 * pos (the entry of event pos itself is passed over: rendering it, w
 * decodes it). */
static void learn_upto(struct par_worker *w, size_t *q, uint64_t pos)
{
	const struct etl_decoded *d;
	for (; *q < w->n_pend; ++*q) {
		const struct par_schema *s = w->pend[*q];
		if (par_schema_before(s, pos))
			etl_decoder_decode(w->dec, &s->ev, &d);
		else if (s->pos == pos && s->self)
			continue;
		else
			break;
	}
}

/* The run fails where it is: every thread stops. Under the lock. */
static void fail_run(struct par *p)
{
	p->failed = 1;
	p->stop = 1;
	pthread_cond_broadcast(&p->cv_turn);
	pthread_cond_broadcast(&p->cv_work);
	pthread_cond_broadcast(&p->cv_end);
}

/* ---- the reader -------------------------------------------------------- */

static void work_on(struct par_worker *w, struct par_batch *b);
static int learn_idle(struct par_worker *w);
static void start_lazy(struct par *p, int now);

/* The first batch sent and not yet taken. Under the lock. */
static struct par_batch *fifo_pop(struct par *p)
{
	struct par_batch *b = p->fifo[p->fifo_head];
	p->fifo_head = (p->fifo_head + 1) % p->nb;
	p->fifo_n--;
	return b;
}

/* The reader's wait, under the lock, for a free batch (WAIT_FREE) or log
 * room (WAIT_ROOM), or the end of the run: meanwhile it renders the
 * batches sent and learns as an idle worker would, so that nothing waits
 * for its own decoder. The prologue has no reading worker: it only
 * waits. */
static void reader_wait(struct par *p, int why)
{
	struct par_worker *w = p->reader_w;
	while (!p->stop && (why == WAIT_FREE ? p->n_free == 0 : p->log_bytes > p->log_limit)) {
		if (w && !w->failed && p->fifo_n) {
			work_on(w, fifo_pop(p));
			continue;
		}
		if (w && !w->failed && learn_idle(w))
			continue;
		p->reader_waits = why;
		pthread_cond_wait(&p->cv_turn, &p->mu);
		p->reader_waits = 0;
	}
}

/* A free batch for the reader, reset as the next one; NULL when the run
 * stops. */
static struct par_batch *take_free(struct par *p)
{
	pthread_mutex_lock(&p->mu);
	reader_wait(p, WAIT_FREE);
	struct par_batch *b = p->stop ? NULL : p->free_list[--p->n_free];
	pthread_mutex_unlock(&p->mu);
	if (b)
		par_batch_reset(b, p->sent, p->next_event);
	return b;
}

/* Sends the batch being filled; last: it ends the run's events. own: the
 * reader renders it itself, unless earlier batches wait (a worker takes
 * batches in order): @return : the batch it is to render, or NULL. */
static struct par_batch *send(struct par *p, int last, int own)
{
	struct par_batch *b = p->cur;
	p->cur = NULL;
	pthread_mutex_lock(&p->mu);
	if (own && p->fifo_n)
		own = 0;
	if (!own)
		p->fifo[(p->fifo_head + p->fifo_n++) % p->nb] = b;
	p->order[b->seq % (uint64_t)p->nb] = b;
	p->sent++;
	p->fill_start = p->next_event;
	p->eof = last;
	if (last)
		pthread_cond_broadcast(&p->cv_work);
	else if (!own && p->idle)
		pthread_cond_signal(&p->cv_work);     /* one batch, one worker */
	pthread_mutex_unlock(&p->mu);
	return own ? b : NULL;
}

/* Sends the batch being filled to the others and takes the next.
 * @return : 0, or -1 when the run stops. */
static int next_batch(struct par *p)
{
	send(p, 0, 0);
	start_lazy(p, 0);
	p->cur = take_free(p);
	return p->cur ? 0 : -1;
}

/* Out of memory in the reader: the run fails at this place (as it would
 * not with -j 1, which holds no copies). */
static void reader_oom(struct par *p)
{
	p->reader_oom = 1;
	if (p->cur && !p->cur->fail) {
		p->cur->fail = PAR_FAIL_MEMORY;
		p->cur->fail_at = p->cur->n;
	}
}

/* Puts note into the batch being filled (sent when the notes fill it: a
 * long run of problems between two events takes no more memory). */
static void say(struct par *p, const struct par_note *note, const char *msg)
{
	if (!p->cur || p->reader_oom)
		return;
	if (par_batch_note(p->cur, note, msg) != 0)
		reader_oom(p);
	else if (par_batch_full(p->cur))
		next_batch(p);
}

static void say_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct par_note n = { .kind = PAR_NOTE_PROGRESS, .a = done, .b = total };
	say(ctx, &n, NULL);
}

static void say_problem(void *ctx, const struct convert_input *in, uint64_t off, const char *kind,
                        const char *msg, int repeat)
{
	struct par_note n = { .kind = PAR_NOTE_PROBLEM, .repeat = (uint8_t)repeat, .kind_text = kind,
	                      .in = in, .a = off };
	say(ctx, &n, msg);
}

static const struct convert_say par_say = { say_progress, say_problem };

/* Waits while the log is over PAR_LOG_BYTES, the batch being filled (if
 * it has events) sent first: the workers can then learn every entry.
 * Called by the reader where the batch is whole, and in the prologue (no
 * batch; the workers learn what lies before event 2). Nothing is left
 * being filled when the run stops. */
static void log_room(struct par *p)
{
	if (p->cur && p->cur->n && next_batch(p) != 0)
		return;
	start_lazy(p, 1);                     /* they hold the log up */
	pthread_mutex_lock(&p->mu);
	log_trim(p);                          /* when no worker runs */
	pthread_cond_broadcast(&p->cv_work);  /* idle workers learn */
	reader_wait(p, WAIT_ROOM);
	if (p->stop)
		p->cur = NULL;
	pthread_mutex_unlock(&p->mu);
}

/* The merge's learn hook: a record the filters leave out. */
static void learn_later(void *ctx, const struct etl_event *ev)
{
	struct par *p = ctx;
	if (p->go && !p->cur)
		return;              /* the run stopped while the turn was read */
	int st = p->reader_oom ? 0 : log_add(p, ev, p->next_event, 0);
	if (st < 0)
		reader_oom(p);
	else if (st > 0)
		log_room(p);
}

/* One reading turn: events into batches until one is full (or the last),
 * which the reader then renders itself (see send()). @return : that
 * batch, or NULL (sent to the others, or the run stopped). */
static struct par_batch *read_turn(struct par *p)
{
	const struct etl_event *ev;
	struct convert_input *in;
	int more = 0;
	if (!p->cur)
		p->cur = take_free(p);
	while (p->cur && !p->reader_oom && (more = convert_next(p->ins, &ev, &in)) > 0) {
		if (!p->cur)                 /* the run stopped on the way */
			return NULL;
		if (!p->lf_met && etl_output_is_header_record(p->lf, ev)) {
			p->lf_met = 1;               /* the one handle skips it */
			continue;
		}
		int st = par_batch_add(p->cur, ev);
		if (st == 0 && next_batch(p) == 0)
			st = par_batch_add(p->cur, ev);
		if (!p->cur)
			return NULL;
		int logged = st < 0 || !etl_decoder_schema_event(ev) ? 0 : log_add(p, ev, p->next_event, 1);
		if (st < 0 || logged < 0) {
			reader_oom(p);
			break;
		}
		p->next_event++;
		if (logged > 0) {
			log_room(p);
		} else if (par_batch_full(p->cur)) {
			struct par_batch *own = send(p, 0, 1);
			start_lazy(p, 0);
			return own;
		}
	}
	if (!p->cur)
		return NULL;
	if (more < 0) {
		struct par_note n = { .kind = PAR_NOTE_STOP };
		if (par_batch_note(p->cur, &n, NULL) != 0)
			reader_oom(p);
	}
	return send(p, 1, 1);
}

/* ---- the workers --------------------------------------------------------- */

/* Decodes and renders b's events; stops at the first that fails.
 * @return : the log entries taken that are done with (learnt, or events
 * of b); those after b stay for the next batch. */
static size_t render_batch(struct par_worker *w, struct par_batch *b)
{
	size_t q = 0;
	uint32_t end = b->fail ? b->fail_at : b->n;     /* the reader's failure */
	w->b = b;
	for (uint32_t k = 0; k < end; k++) {
		const struct etl_decoded *d = NULL;
		learn_upto(w, &q, b->first + k);
		b->ev_cut[k] = (uint32_t)b->n_cut;
		if (etl_decoder_decode(w->dec, &b->ev[k], &d) == ETL_FATAL) {
			b->fail = PAR_FAIL_DECODE;
			b->fail_at = k;
			w->failed = 1;
			return q;
		}
		if (etl_output_event(w->out, &b->ev[k], d) != ETL_OK) {
			b->fail = PAR_FAIL_RENDER;
			b->fail_at = k;
			snprintf(b->why, sizeof b->why, "%s", etl_output_errmsg(w->out));
			w->failed = 1;
			return q;
		}
	}
	b->ev_cut[end] = (uint32_t)b->n_cut;
	return q;
}

/* Learns the log entries before the batch being filled: a worker with no
 * batch only ever gets batches from there on. Under the lock, which it
 * lets go while it learns. @return : 1 when it learnt some. */
static int learn_idle(struct par_worker *w)
{
	struct par *p = w->p;
	if (log_take(w) != 0) {
		/* It cannot learn, and nothing waiting for it would ever end:
		 * the run fails here (said by the caller's thread). */
		p->learn_oom = 1;
		fail_run(p);
		return 0;
	}
	if (w->n_pend == 0 || !par_schema_before(w->pend[0], p->fill_start))
		return 0;
	uint64_t limit = p->fill_start;
	pthread_mutex_unlock(&p->mu);
	size_t q = 0;
	const struct etl_decoded *d;
	for (; q < w->n_pend && par_schema_before(w->pend[q], limit); q++)
		etl_decoder_decode(w->dec, &w->pend[q]->ev, &d);
	pthread_mutex_lock(&p->mu);
	w->next_log += q;
	log_trim(p);
	return 1;
}

/* ---- the writer ------------------------------------------------------------ */

/* Writes b's sink calls up to (not with) call number upto: one by one to
 * a compressed output, else at once (a plain output's bytes do not depend
 * on how they are cut, and a large piece is written without a copy). */
static int put_cuts(const struct par *p, etl_outfile *f, const struct par_batch *b, size_t *c,
                    size_t *off, size_t upto)
{
	size_t from = *off;
	for (; *c < upto; ++*c) {
		if (p->keep_cuts && etl_outfile_write(f, b->out + *off, b->cut[*c]) != ETL_OK)
			return -1;
		*off += b->cut[*c];
	}
	if (!p->keep_cuts && *off > from && etl_outfile_write(f, b->out + from, *off - from) != ETL_OK)
		return -1;
	return 0;
}

/* Writes b's output call by call and says its notes at their places, as
 * -j 1 would have written and said them. @return : 0; -1 when the run
 * fails here (said, or the message in why, or the output's). */
static int write_batch(struct par *p, etl_outfile *f, const struct par_batch *b, char *why,
                       size_t why_len)
{
	struct cli_progress *pg = &p->ins->pg;
	size_t c = 0, off = 0;
	uint32_t end = b->fail ? b->fail_at : b->n;
	for (size_t i = 0; i < b->n_notes && b->notes[i].at <= end; i++) {
		const struct par_note *n = &b->notes[i];
		if (put_cuts(p, f, b, &c, &off, b->ev_cut[n->at]) != 0)
			return -1;
		switch (n->kind) {
		case PAR_NOTE_PROGRESS:
			cli_progress_show(pg, n->a, n->b);
			break;
		case PAR_NOTE_PROBLEM:
			cli_progress_clear(pg);
			if (!n->repeat)
				cli_error_at(n->in->name, n->a, n->kind_text, b->text + n->msg);
			break;
		default:                                   /* PAR_NOTE_STOP */
			cli_progress_clear(pg);
			return -1;
		}
	}
	if (put_cuts(p, f, b, &c, &off, b->n_cut) != 0)
		return -1;
	switch (b->fail) {
	case PAR_OK:
		return 0;
	case PAR_FAIL_DECODE:
		cli_progress_clear(pg);
		cli_message("out of memory decoding an event");
		return -1;
	case PAR_FAIL_RENDER:
		snprintf(why, why_len, "%s", b->why);
		return -1;
	default:
		cli_progress_clear(pg);
		cli_message("out of memory");
		return -1;
	}
}

/* Writes the batches rendered, in order: the worker that finished the one
 * the output waits for writes it and those after it already rendered.
 * Under the lock, which it lets go while it writes (one writer at a
 * time). */
static void write_ready(struct par *p)
{
	while (!p->writing && !p->stop) {
		struct par_batch *b = p->order[p->write_seq % (uint64_t)p->nb];
		if (!b || b->seq != p->write_seq || !b->done)
			return;
		p->writing = 1;
		pthread_mutex_unlock(&p->mu);
		int st = write_batch(p, p->f, b, p->why, p->why_len);
		pthread_mutex_lock(&p->mu);
		p->writing = 0;
		p->order[p->write_seq % (uint64_t)p->nb] = NULL;
		p->free_list[p->n_free++] = b;
		p->write_seq++;
		if (st != 0) {
			fail_run(p);
			return;
		}
		if (p->reader_waits == WAIT_FREE)
			pthread_cond_signal(&p->cv_turn);
		else if (p->idle && !p->reading && !p->eof)
			pthread_cond_signal(&p->cv_work);      /* a batch to read into */
		if (p->eof && p->write_seq == p->sent)
			pthread_cond_broadcast(&p->cv_end);
	}
}

/* ---- the workers' loop ------------------------------------------------------ */

/* Renders b (taken from the FIFO, or just filled) and writes what is
 * ready. Under the lock, which it lets go while it renders. */
static void work_on(struct par_worker *w, struct par_batch *b)
{
	struct par *p = w->p;
	int taken = log_take(w);
	size_t learnt = 0;
	pthread_mutex_unlock(&p->mu);
	if (taken != 0) {
		b->fail = PAR_FAIL_MEMORY;
		b->fail_at = 0;
		b->ev_cut[0] = 0;
		w->failed = 1;
	} else {
		learnt = render_batch(w, b);
	}
	pthread_mutex_lock(&p->mu);
	b->done = 1;
	w->next_log += learnt;
	log_trim(p);
	write_ready(p);
}

/* A worker: renders the batches sent, takes the reading turn when it is
 * free, learns when idle; until the last batch is taken, the run stops or
 * one of its batches failed (the writing stops there). */
static void work(struct par_worker *w)
{
	struct par *p = w->p;
	pthread_mutex_lock(&p->mu);
	while (!p->stop && !w->failed) {
		if (p->fifo_n) {
			work_on(w, fifo_pop(p));
			continue;
		}
		if (p->go && !p->eof && !p->reading && p->n_free) {
			p->reading = 1;
			p->reader_w = w;
			pthread_mutex_unlock(&p->mu);
			struct par_batch *b = read_turn(p);
			pthread_mutex_lock(&p->mu);
			p->reading = 0;
			p->reader_w = NULL;
			if (p->idle && !p->eof)
				pthread_cond_signal(&p->cv_work);   /* the turn is free */
			if (b)
				work_on(w, b);
			continue;
		}
		if (p->eof)
			break;                          /* what is left is others' */
		if (!learn_idle(w)) {
			p->idle++;
			pthread_cond_wait(&p->cv_work, &p->mu);
			p->idle--;
		}
	}
	pthread_mutex_unlock(&p->mu);
}

static void *worker_main(void *arg)
{
	struct par_worker *w = arg;
	struct par *p = w->p;
	/* Its own decoder, loaded here. One that cannot load what the
	 * caller's decoder loaded (a file changed or removed since, memory
	 * short) takes no part: the others do its share, and the output is
	 * still -j 1's. */
	const char *what = "";
	w->dec = etl_decoder_new();
	int stop = !w->dec || convert_load_decoding(w->dec, p->o, &what) != CLI_EXIT_CLEAN;
	pthread_mutex_lock(&p->mu);
	stop |= p->stop;
	if (stop) {
		w->active = 0;                  /* it learns nothing */
		log_trim(p);
	}
	pthread_mutex_unlock(&p->mu);
	if (!stop)
		work(w);
	return NULL;
}

/* ---- the run ------------------------------------------------------------------ */

/* Tells every thread to stop and waits for them. */
static void stop_all(struct par *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv_turn);
	pthread_cond_broadcast(&p->cv_work);
	pthread_cond_broadcast(&p->cv_end);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nw; i++) {
		if (p->w[i].started)
			pthread_join(p->w[i].th, NULL);
		p->w[i].started = 0;
	}
}


/* Starts w's thread; it takes part in the log from next_log on. */
static int start_worker(struct par_worker *w)
{
	struct par *p = w->p;
	pthread_mutex_lock(&p->mu);
	w->active = 1;
	pthread_mutex_unlock(&p->mu);
	w->started = pthread_create(&w->th, NULL, worker_main, w) == 0;
	if (!w->started) {
		pthread_mutex_lock(&p->mu);
		w->active = 0;
		pthread_mutex_unlock(&p->mu);
	}
	return w->started;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts workers 1.. when they have yet to, and now is set or they are
 * worth it: ETLCONVERT_LAZY_EVENTS events read, else what the reader
 * estimates is left to render on its own (time so far, times input
 * bytes left over bytes read) at least twice the caller's loading time.
 * Called by the reading worker (or the prologue), not under the lock. */
static void start_lazy(struct par *p, int now)
{
	if (!p->lazy)
		return;
	pthread_mutex_lock(&p->mu);
	int stopped = p->stop;
	pthread_mutex_unlock(&p->mu);
	if (stopped)
		return;                    /* the run failed: no use loading */
	if (!now && p->lazy_events) {
		if (p->next_event < p->lazy_events)
			return;
	} else if (!now) {
		uint64_t done, total;
		etl_merge_progress(p->ins->m, &done, &total);
		if (done == 0 || done >= total)
			return;
		double left = (now_s() - p->t_go) * (double)(total - done) / (double)done;
		if (left < 2 * p->load_time)
			return;
	}
	p->lazy = 0;
	for (int i = 1; i < p->nw; i++)
		start_worker(&p->w[i]);
}

/* 1 when workers 1.. are to start only when worth it: the inputs are all
 * of known size and together smaller than PAR_LAZY_BYTES (or than
 * ETLCONVERT_LAZY_BYTES). */
static int start_late(const struct convert_inputs *ins)
{
	const char *s = getenv("ETLCONVERT_LAZY_BYTES");
	uint64_t limit = s && *s ? strtoull(s, NULL, 10) : PAR_LAZY_BYTES;
	uint64_t total = 0;
	for (int i = 0; i < etl_merge_count(ins->m); i++) {
		struct etl_reader_stats st;
		etl_reader_stats(etl_merge_reader(ins->m, i), &st);
		if (st.input_size == 0)
			return 0;                  /* not known: maybe large */
		total += st.input_size;
	}
	return total < limit;
}

/* ETLCONVERT_LAZY_EVENTS: the event at which late workers start (tests
 * make them start within a small trace); 0: by the estimate. */
static uint64_t lazy_events(void)
{
	const char *s = getenv("ETLCONVERT_LAZY_EVENTS");
	return s && *s ? strtoull(s, NULL, 10) : 0;
}

/* Events a batch holds: PAR_BATCH_EVENTS, or fewer when the environment
 * says so (ETLCONVERT_BATCH_EVENTS: tests make every batch a few events
 * long, so that workers take turns within a small trace). */
static uint32_t batch_events(void)
{
	const char *s = getenv("ETLCONVERT_BATCH_EVENTS");
	unsigned long n = s && *s ? strtoul(s, NULL, 10) : 0;
	return n >= 1 && n < PAR_BATCH_EVENTS ? (uint32_t)n : PAR_BATCH_EVENTS;
}

/* PAR_LOG_BYTES, or less when the environment says so
 * (ETLCONVERT_LOG_BYTES). */
static size_t log_limit(void)
{
	const char *s = getenv("ETLCONVERT_LOG_BYTES");
	unsigned long long n = s && *s ? strtoull(s, NULL, 10) : PAR_LOG_BYTES;
	return n < PAR_LOG_BYTES ? (size_t)n : PAR_LOG_BYTES;
}

/* 1 when path is a regular file or a directory (each worker can read it
 * for itself, as the first thread does). */
static int readable_again(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

int convert_parallel_jobs(const struct convert_options *o)
{
	const char *const *lists[] = { o->manifests, o->tmfs, o->mofs };
	const int counts[] = { o->n_manifests, o->n_tmfs, o->n_mofs };
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < counts[k]; i++)
			if (!readable_again(lists[k][i]))
				return 1;
	return o->jobs;
}

void convert_parallel_free(struct par *p)
{
	if (!p)
		return;
	stop_all(p);
	for (int i = 0; i < p->nw; i++) {
		struct par_worker *w = &p->w[i];
		etl_output_free(w->out);
		if (i > 0)                                 /* worker 0's is the caller's */
			etl_decoder_free(w->dec);
		free(w->pend);
	}
	for (int i = 0; p->batches && i < p->nb; i++)
		par_batch_free(&p->batches[i]);
	for (size_t i = 0; i < p->log_n; i++)
		free(p->log[i]);
	free(p->log);
	free(p->batches);
	free(p->free_list);
	free(p->fifo);
	free(p->order);
	free(p->w);
	pthread_cond_destroy(&p->cv_turn);
	pthread_cond_destroy(&p->cv_work);
	pthread_cond_destroy(&p->cv_end);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

struct par *convert_parallel_new(struct convert_inputs *ins, const struct convert_options *o)
{
	struct par *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv_turn, NULL);
	pthread_cond_init(&p->cv_work, NULL);
	pthread_cond_init(&p->cv_end, NULL);
	p->ins = ins;
	p->o = o;
	p->fill_start = 2;         /* the prologue's two events come first */
	p->log_limit = log_limit();
	p->lf = ins->v[0].lf;
	p->keep_cuts = o->output && etl_outfile_codec_suffix(o->output) != 0;
	p->nw = o->jobs;
	p->nb = PAR_BATCHES(p->nw);
	p->w = calloc((size_t)p->nw, sizeof *p->w);
	p->batches = calloc((size_t)p->nb, sizeof *p->batches);
	p->free_list = calloc((size_t)p->nb, sizeof *p->free_list);
	p->fifo = calloc((size_t)p->nb, sizeof *p->fifo);
	p->order = calloc((size_t)p->nb, sizeof *p->order);
	if (!p->w || !p->batches || !p->free_list || !p->fifo || !p->order) {
		p->nb = p->batches ? p->nb : 0;
		convert_parallel_free(p);
		return NULL;
	}
	for (int i = 0; i < p->nb; i++) {
		if (par_batch_init(&p->batches[i], batch_events()) != 0) {
			convert_parallel_free(p);
			return NULL;
		}
		p->free_list[p->n_free++] = &p->batches[i];
	}
	unsigned flags = ETL_OUTPUT_EVENTS_ONLY | (o->explain ? ETL_OUTPUT_EXPLAIN : 0);
	for (int i = 0; i < p->nw; i++) {
		struct par_worker *w = &p->w[i];
		w->p = p;
		w->id = i;
		w->out = etl_output_new(o->format, par_batch_sink, &w->b);
		if (!w->out || etl_output_set_flags(w->out, flags) != ETL_OK ||
		    etl_output_begin(w->out, p->lf) != ETL_OK) {
			convert_parallel_free(p);
			return NULL;
		}
	}
	/* Workers 1.. load their decoders now, while the caller loads its
	 * own (worker 0's), or later, when worth it (small inputs); one that
	 * cannot be started is done without. Late ones count for the log
	 * from the start: it keeps what they will have to learn. */
	p->lazy = p->nw > 1 && start_late(ins);
	p->lazy_events = lazy_events();
	p->t_new = now_s();
	for (int i = 1; i < p->nw; i++) {
		if (p->lazy)
			p->w[i].active = 1;
		else
			start_worker(&p->w[i]);
	}
	return p;
}

/* The prologue's look at each event it renders: the logfile-header
 * record met, and the records that carry schemas logged for workers 1..
 * (worker 0's decoder is the one decoding them). */
static void prologue_seen(void *ctx, const struct etl_event *ev)
{
	struct par *p = ctx;
	p->lf_met |= etl_output_is_header_record(p->lf, ev);
	int st = etl_decoder_schema_event(ev) ? log_add(p, ev, p->next_event, 1) : 0;
	if (st < 0)
		p->reader_oom = 1;
	p->next_event++;
	if (st > 0)
		log_room(p);          /* the idle workers learn it (before event 2) */
}

/* Worker 0's decoder learns a record the filters leave out (in the
 * prologue). */
static void learn_now(void *ctx, const struct etl_event *ev)
{
	struct par *p = ctx;
	const struct etl_decoded *d;
	etl_decoder_decode(p->w[0].dec, ev, &d);
}

/* The prologue's learn hook: worker 0's decoder learns the record now,
 * the others from the log. */
static void learn_now_and_later(void *ctx, const struct etl_event *ev)
{
	learn_now(ctx, ev);
	learn_later(ctx, ev);
}

int convert_parallel_run(struct par *p, etl_decoder *dec, etl_output *out, etl_outfile *f, char *why,
                         size_t why_len)
{
	struct convert_inputs *ins = p->ins;
	p->w[0].dec = dec;
	if (etl_output_begin(out, p->lf) != ETL_OK)
		return -1;
	/* The first two events, here and now, as -j 1 renders them. */
	ins->learn = learn_now_and_later;
	ins->learn_ctx = p;
	int st = convert_render_some(ins, dec, out, 2, prologue_seen, p);
	if (st > 0 && p->reader_oom) {
		cli_message("out of memory");
		st = -1;
	}
	if (st < 0)
		return -1;
	if (st > 0) {
		ins->say = &par_say;
		ins->say_ctx = p;
		ins->learn = learn_later;
		/* The caller's thread is worker 0 (its decoder has learnt
		 * everything so far, out is where the prologue left it); a
		 * worker thread that could not be started is done without. */
		p->t_go = now_s();
		p->load_time = p->t_go - p->t_new;
		pthread_mutex_lock(&p->mu);
		p->w[0].next_log = p->log_base + p->log_n;
		p->w[0].active = 1;
		p->fill_start = p->next_event;
		p->f = f;
		p->why = why;
		p->why_len = why_len;
		p->go = 1;
		pthread_cond_broadcast(&p->cv_work);
		pthread_mutex_unlock(&p->mu);
		work(&p->w[0]);
		pthread_mutex_lock(&p->mu);
		while (!p->stop && !(p->eof && p->write_seq == p->sent))
			pthread_cond_wait(&p->cv_end, &p->mu);
		st = p->failed || !p->eof ? -1 : 0;
		pthread_mutex_unlock(&p->mu);
		if (st == 0)
			cli_progress_clear(&ins->pg);
		stop_all(p);
		if (p->learn_oom) {
			cli_progress_clear(&ins->pg);
			cli_message("out of memory");
		}
		if (st < 0)
			return -1;
	}
	return etl_output_end(out) == ETL_OK ? 0 : -1;
}