/*
 * lib/trace/trace_logger.c - a session's logger thread, as the Windows
 * user-mode logger runs one per session: it waits for full buffers, the
 * flush timer, a flush request or stop; swaps partly filled buffers out
 * when it flushes; settles each buffer (every reservation committed, holes
 * squeezed out) and hands it to the session's output (lib/trace/trace_output.c),
 * which gives it back to the pool; grows the pool ahead of the writers;
 * and answers flush requests. It also moves itself between processors so
 * that it takes its time from the writers evenly (balance()).
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include "lib/trace/trace_core.h"

#define HDR ETL_RT_HDR

/* Writes every buffer handed over, up to ETL_RT_DRAIN_MAX at a time. */
static void drain(struct etl_session *s)
{
	uint32_t idx[ETL_RT_DRAIN_MAX], out[ETL_RT_DRAIN_MAX], empty[ETL_RT_DRAIN_MAX];
	for (;;) {
		uint32_t n = etl__rt_pool_next_full(s, idx, ETL_RT_DRAIN_MAX), no = 0, ne = 0;
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
			etl__rt_output_buffers(s, out, no);
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
 * clock the logger's sleep waits on). A session on the caller's clock
 * keeps its deadline in that clock instead (clk_next, a FILETIME): the
 * logger then never waits on time, only for work, and the caller's
 * etl_session_clock_advanced() asks for a round when the deadline has
 * passed. */
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

/* The caller's clock: the deadline period_ms after its time now. */
static void next_own_deadline(struct etl_session *s, uint32_t period_ms)
{
	int64_t now = s->p.clock(s->p.clock_ctx);
	atomic_store_explicit(&s->clk_next, now + (int64_t)period_ms * 10000, memory_order_release);
}

/* Whether the flush timer is due (lock held). */
static int timer_due(struct etl_session *s, const struct timespec *next)
{
	if (s->p.clock)
		return s->p.clock(s->p.clock_ctx) >= atomic_load_explicit(&s->clk_next, memory_order_relaxed);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > next->tv_sec || (now.tv_sec == next->tv_sec && now.tv_nsec >= next->tv_nsec);
}

/* etl_session_timing: one round more, busy since t0; the thread's CPU
 * time so far (one system call a round: rounds come every few buffers). */
static void count_round(struct etl_session *s, int64_t t0)
{
	struct timespec cpu;
	etl__rt_tm_add(&s->tm.rounds, 1);
	etl__rt_tm_add(&s->tm.busy_ns, (uint64_t)(etl__rt_mono_ns() - t0));
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
		atomic_store_explicit(&s->tm.cpu_ns, (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec,
		                      memory_order_relaxed);
}

static void *logger_main(void *arg)
{
	struct etl_session *s = arg;
	/* A replaying session's processors are the trace's, not this
	 * machine's, and a session on the caller's clock fills the buffers of
	 * its writers' own processor numbers (etl_thread_processor_set()), not
	 * of where they run: nothing to balance. */
	int own_clock = s->p.clock != NULL;
	int can_move = s->nproc > 1 && s->p.file_mode != ETL_FILE_BUFFERING && !s->replay && !own_clock;
	uint32_t period = s->p.flush_timer_ms;
	struct timespec next;
	if (!own_clock)
		next_deadline(&next, period);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		int timer = 0;
		/* Idle, then the kick read, then the look for work: a writer that
		 * hands a buffer over after the look kicks after the reading, and
		 * the sleep ends at once (lib/trace/trace_pool.c). */
		atomic_store(&s->logger_idle, 1);
		for (;;) {
			uint32_t seen = atomic_load(&s->kick);
			if (etl__rt_pool_has_full(s) || s->flush_req || s->flush_done != s->flush_seq ||
			    s->quit || s->clk_done != s->clk_seq)
				break;
			pthread_mutex_unlock(&s->lock);
			int rc = etl__rt_kick_wait(&s->kick, seen, !period || own_clock ? NULL : &next);
			pthread_mutex_lock(&s->lock);
			if (rc == ETIMEDOUT) {
				timer = 1;
				break;
			}
		}
		atomic_store(&s->logger_idle, 0);
		/* On the caller's clock only its requests fire the timer: a round
		 * woken by full buffers must not flush at a moment that depends
		 * on the threads' pace. */
		if (period && !timer && (!own_clock || s->clk_done != s->clk_seq))
			timer = timer_due(s, &next);
		int64_t t0 = etl__rt_mono_ns();
		uint64_t clk_target = s->clk_seq;
		uint64_t target = s->flush_seq;
		int quit = s->quit;
		/* BUFFERING: the timer would fill the ring with partly filled
		 * buffers; only flush, stop and blocked writers swap. */
		int swap = (timer && s->p.file_mode != ETL_FILE_BUFFERING) || s->flush_req ||
		           target != s->flush_done || quit;
		s->flush_req = 0;
		pthread_mutex_unlock(&s->lock);
		if (timer && own_clock)
			next_own_deadline(s, period);
		else if (timer)
			next_deadline(&next, period);
		if (swap)
			etl__rt_swap_all(s);
		drain(s);
		if (!quit)
			etl__rt_pool_grow(s);
		if (can_move && !quit)
			balance(s);
		int frc = ETL_OK;
		if (!quit && (timer || target != s->flush_done))
			frc = etl__rt_output_sync(s, target != s->flush_done);
		pthread_mutex_lock(&s->lock);
		if (target != s->flush_done) {
			s->flush_done = target;
			s->flush_rc = frc;
			pthread_cond_broadcast(&s->cv_done);
		}
		if (clk_target != s->clk_done) {
			s->clk_done = clk_target;
			s->clk_rc = frc;
			pthread_cond_broadcast(&s->cv_done);
		}
		count_round(s, t0);
		if (quit && !etl__rt_pool_has_full(s))
			break;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int etl__rt_logger_start(struct etl_session *s)
{
	/* The caller's clock: the first deadline a period after start, set
	 * before the thread runs (the caller may move the clock meanwhile). */
	atomic_store_explicit(&s->clk_next, s->start_ft + (int64_t)s->p.flush_timer_ms * 10000,
	                      memory_order_release);
	int rc = pthread_create(&s->thread, NULL, logger_main, s);
	if (rc == 0)
		s->thread_started = 1;
	return rc;
}

void etl__rt_logger_stop(struct etl_session *s)
{
	pthread_mutex_lock(&s->lock);
	s->quit = 1;
	pthread_cond_broadcast(&s->cv_free);
	pthread_mutex_unlock(&s->lock);
	etl__rt_kick(&s->kick);
	pthread_join(s->thread, NULL);
	s->thread_started = 0;
}
