/*
 * replay_live.c - etlreplay --realtime and --speed: the consumer of a
 * real-time session, and the pacing of a replay against the wall clock.
 *
 * The consumer. A real-time session hands its events to a callback on its
 * logger thread, a buffer at a time (etl_trace.h, ETL_FILE_REALTIME): one
 * processor's events in order, the processors interleaved as their
 * buffers fill. They are printed as etldump prints them - the text
 * renderer's record line - and in etldump's order, time order: each one
 * is copied (record and pointers) into the pending list, and released
 * when the replay knows that everything written so far has arrived (after
 * a flush of the session: replay_run.c), sorted by timestamp, ties by
 * processor then arrival (the reader's rule for equal times). Memory is
 * what arrives between two flushes: a flush-timer period of trace time.
 *
 * Pacing. Events are due at trace0 + (t - trace0) / F on the wall clock
 * (CLOCK_MONOTONIC): the replay sleeps until then, in steps of at most
 * 100 ms, telling the caller how far the trace's time got at each step,
 * so that the session's flush timer (on the caller's clock, following
 * trace time) runs while the replay waits.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "replay.h"

/* One event kept: the view, with its record's bytes in the arena. */
struct kept {
	struct etl_event ev;
	size_t at;                 /* the record's offset in the arena       */
	uint64_t seq;              /* arrival                                */
};

struct replay_live {
	pthread_mutex_t lock;
	struct kept *v;
	size_t n, cap;
	uint8_t *arena;
	size_t used, room;
	uint64_t received;
	int oom;
	etl_output *out;
};

static int to_stdout(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	return fwrite(p, 1, n, stdout) == n ? 0 : -1;
}

struct replay_live *replay_live_new(void)
{
	struct replay_live *lv = calloc(1, sizeof *lv);
	if (lv && (lv->out = etl_output_new("text", to_stdout, NULL)) != NULL &&
	    etl_output_set_flags(lv->out, ETL_OUTPUT_TEXT_RECORD) == ETL_OK &&
	    etl_output_begin(lv->out, NULL) == ETL_OK && pthread_mutex_init(&lv->lock, NULL) == 0)
		return lv;
	cli_message("out of memory");
	if (lv)
		etl_output_free(lv->out);
	free(lv);
	return NULL;
}

/* Room for n more arena bytes and one more event. Lock held. */
static int reserve(struct replay_live *lv, size_t n)
{
	if (lv->n == lv->cap) {
		size_t cap = lv->cap ? 2 * lv->cap : 1024;
		struct kept *v = realloc(lv->v, cap * sizeof *v);
		if (!v)
			return -1;
		lv->v = v;
		lv->cap = cap;
	}
	if (lv->used + n > lv->room) {
		size_t room = lv->room ? 2 * lv->room : 1u << 20;
		while (room < lv->used + n)
			room *= 2;
		uint8_t *a = realloc(lv->arena, room);
		if (!a)
			return -1;
		lv->arena = a;
		lv->room = room;
	}
	return 0;
}

/* A pointer into the record, as an offset from its start (borrowed
 * pointers of a reader's event all lie in its record). */
static size_t inside(const struct etl_event *ev, const uint8_t *p)
{
	return p ? (size_t)(p - ev->record) : 0;
}

void replay_live_event(void *ctx, const struct etl_event *ev)
{
	struct replay_live *lv = ctx;
	size_t n = ev->record ? ev->size : 0;
	pthread_mutex_lock(&lv->lock);
	lv->received++;
	if (reserve(lv, n) != 0) {
		lv->oom = 1;
	} else {
		struct kept *k = &lv->v[lv->n];
		k->ev = *ev;
		k->at = lv->used;
		k->seq = lv->received;
		/* Offsets for now: the arena may move before the release. */
		k->ev.payload = (const uint8_t *)(uintptr_t)inside(ev, ev->payload);
		k->ev.ext = (const uint8_t *)(uintptr_t)inside(ev, ev->ext);
		if (n)
			memcpy(lv->arena + lv->used, ev->record, n);
		lv->used += n;
		lv->n++;
	}
	pthread_mutex_unlock(&lv->lock);
}

static int by_time(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;
	if (x->ev.timestamp != y->ev.timestamp)
		return x->ev.timestamp < y->ev.timestamp ? -1 : 1;
	if (x->ev.processor != y->ev.processor)
		return x->ev.processor < y->ev.processor ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int replay_live_release(struct replay_live *lv)
{
	int rc = 0;
	pthread_mutex_lock(&lv->lock);
	qsort(lv->v, lv->n, sizeof *lv->v, by_time);
	for (size_t i = 0; i < lv->n && rc == 0; i++) {
		struct etl_event ev = lv->v[i].ev;
		const uint8_t *rec = lv->arena + lv->v[i].at;
		ev.record = ev.record ? rec : NULL;
		ev.payload = ev.payload_size ? rec + (size_t)(uintptr_t)ev.payload : NULL;
		ev.ext = ev.ext_size ? rec + (size_t)(uintptr_t)ev.ext : NULL;
		if (etl_output_event(lv->out, &ev, NULL) != ETL_OK) {
			cli_message("cannot write the events: %s", etl_output_errmsg(lv->out));
			rc = -1;
		}
	}
	lv->n = 0;
	lv->used = 0;
	if (lv->oom) {
		cli_message("out of memory: events received in real time were not printed");
		rc = -1;
	}
	pthread_mutex_unlock(&lv->lock);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
		cli_message("cannot write standard output: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}

uint64_t replay_live_received(const struct replay_live *lv)
{
	struct replay_live *m = (struct replay_live *)lv;
	pthread_mutex_lock(&m->lock);
	uint64_t n = m->received;
	pthread_mutex_unlock(&m->lock);
	return n;
}

void replay_live_free(struct replay_live *lv)
{
	if (!lv)
		return;
	etl_output_free(lv->out);
	pthread_mutex_destroy(&lv->lock);
	free(lv->v);
	free(lv->arena);
	free(lv);
}

/* ---- pacing --------------------------------------------------------------- */

static int64_t mono_100ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
}

#define TICK_100NS (100 * 10000)          /* 100 ms */

void replay_pace_wait(struct replay_pace *pc, int64_t utc, replay_tick_fn tick, void *ctx)
{
	if (pc->speed <= 0)
		return;
	if (!pc->started) {
		pc->started = 1;
		pc->trace0 = utc;
		pc->wall0 = mono_100ns();
		return;
	}
	if (utc <= pc->trace0)
		return;
	int64_t due = pc->wall0 + (int64_t)((double)(utc - pc->trace0) / pc->speed);
	for (;;) {
		int64_t now = mono_100ns();
		if (now >= due)
			return;
		int64_t step = due - now < TICK_100NS ? due - now : TICK_100NS;
		struct timespec d = { (time_t)(step / 10000000), (long)(step % 10000000) * 100 };
		while (nanosleep(&d, &d) != 0 && errno == EINTR)
			;
		int64_t t = pc->trace0 + (int64_t)((double)(mono_100ns() - pc->wall0) * pc->speed);
		if (tick)
			tick(ctx, t < utc ? t : utc);
	}
}
