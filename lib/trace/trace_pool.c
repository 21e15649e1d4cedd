/*
 * lib/trace/trace_pool.c - a session's buffer pool: the free buffers, the
 * full ones on their way to the logger thread, and (BUFFERING) the ring of
 * processed ones kept for the next flush. Writers take and hand over
 * buffers here when a processor's buffer is full (lib/trace/trace_buffers.c);
 * the logger (lib/trace/trace_logger.c) takes the full ones, and gives them
 * back through the output (lib/trace/trace_output.c).
 *
 * Why without the lock. A writer swaps buffers every few thousand events,
 * which costs nothing even under a lock - until the thread holding it is
 * preempted: on a busy machine every other writer then waits a time slice
 * or more (measured: 30-86 ms of lock waits in a 0.3 s run with 2 writers
 * at load 15, each wait milliseconds long). So what writers do on every
 * swap is lock-free, and a preempted thread delays nobody:
 *   free buffers   a stack (Treiber), index + 1 and a tag in one word, so
 *                  that a pop cannot succeed on a stale top (ABA);
 *   full buffers   a stack writers push on and the logger empties at once
 *                  (exchange), reversed into its own FIFO: the order in
 *                  which writers handed them over;
 *   the ring       (BUFFERING) the head (< max_buffers) and count in one
 *                  word, which the
 *                  logger's appends and the writers' takes (oldest first,
 *                  once the pool is fully grown) change with one CAS;
 *                  a flush freezes it (a bit in that word) while it writes.
 * Growing takes no lock either: a buffer is allocated, then its index
 * claimed with a compare-and-swap (the logger grows the pool ahead of
 * need, pages touched, etl__rt_pool_grow; a writer that finds nothing
 * free allocates one itself). The pool lock stays for a writer blocking
 * for a buffer and for the flush that writes the ring (writers that need
 * the ring then wait for it, as before).
 *
 * Wake-ups without lost ones and without the lock: a sleeping logger sets
 * logger_idle, reads the kick counter, then tests for work; a writer
 * pushes, then reads logger_idle (all sequentially consistent) and, when
 * set and a batch is due, kicks (lib/trace/trace_sync.c): either the
 * logger sees the buffer, or the kick comes after its reading and its
 * sleep ends at once. Blocked writers and the logger's releases pair the
 * same way through waiters, under the lock.
 *
 * Memory: min_buffers allocated at start, more as the free ones run low, up
 * to max_buffers, never more; everything is freed at stop, after the
 * writers have left (etl__rt_synchronize). A buffer's pages are touched
 * before a writer gets it, so that writers take no page faults: at start,
 * and when the logger grows the pool.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/trace/trace_core.h"

#define HDR ETL_RT_HDR
#define RING_FROZEN ((uint64_t)1 << 63)
#define RING_ONE ((uint64_t)1 << 32)                 /* one more in the count */
#define RING_COUNT(w) ((uint32_t)(((w) >> 32) & 0x7FFFFFFFu))

/* A new buffer, its pages touched (faulted in), or NULL. */
static uint8_t *buffer_new(uint32_t bs)
{
	uint8_t *m = malloc(bs);
	for (uint32_t k = 0; m && k < bs; k += 4096)
		((volatile uint8_t *)m)[k] = 0;
	return m;
}

/* ---- the free stack ---------------------------------------------------- */

/* Pushes the chain first .. last (linked through next, n buffers). */
static void free_push_chain(struct etl_session *s, uint32_t first, uint32_t last, uint32_t n)
{
	uint64_t top = atomic_load(&s->free_top);
	do {
		atomic_store_explicit(&s->bufs[last].next, (uint32_t)top, memory_order_relaxed);
	} while (!atomic_compare_exchange_weak(&s->free_top, &top,
	                                       (((top >> 32) + 1) << 32) | (first + 1)));
	atomic_fetch_add(&s->n_free, n);
}

static long free_pop(struct etl_session *s)
{
	uint64_t top = atomic_load(&s->free_top);
	for (;;) {
		uint32_t i1 = (uint32_t)top;
		if (!i1)
			return -1;
		uint32_t next = atomic_load_explicit(&s->bufs[i1 - 1].next, memory_order_relaxed);
		if (atomic_compare_exchange_weak(&s->free_top, &top, (((top >> 32) + 1) << 32) | next)) {
			atomic_fetch_sub(&s->n_free, 1);
			return i1 - 1;
		}
	}
}

/* ---- growing ------------------------------------------------------------ */

/* A new buffer (its pages touched when touch) with the next index, which
 * a compare-and-swap on n_alloc claims, so that nobody waits while it is
 * allocated; -1 when the pool is full or memory is short. The index's
 * buffer is the caller's until it hands it on. */
static long pool_add(struct etl_session *s, int touch)
{
	uint32_t n = atomic_load(&s->n_alloc);
	if (n >= s->max_bufs)
		return -1;
	uint8_t *m = touch ? buffer_new(s->bs) : malloc(s->bs);
	if (!m)
		return -1;
	while (n < s->max_bufs) {
		if (atomic_compare_exchange_weak(&s->n_alloc, &n, n + 1)) {
			s->bufs[n].mem = m;
			return n;
		}
	}
	free(m);
	return -1;
}

/* ---- the ring (BUFFERING) ------------------------------------------------ */

/* The oldest buffer of the ring, or -1 (empty, or frozen by a flush). */
static long ring_take(struct etl_session *s)
{
	uint64_t w = atomic_load(&s->ring_hc);
	for (;;) {
		if ((w & RING_FROZEN) || !RING_COUNT(w))
			return -1;
		uint32_t h = (uint32_t)w;
		uint32_t i = atomic_load_explicit(&s->ring[h], memory_order_relaxed);
		uint32_t next = h + 1 == s->max_bufs ? 0 : h + 1;
		if (atomic_compare_exchange_weak(&s->ring_hc, &w, ((w & ~(uint64_t)0xFFFFFFFFu) - RING_ONE) | next))
			return i;
	}
}

/* ---- locks and wake-ups ------------------------------------------------ */

/* The pool lock, taken by a writer: a wait for it is counted
 * (etl_session_timing), which costs nothing when the lock is free. */
static void pool_lock(struct etl_session *s)
{
	if (pthread_mutex_trylock(&s->lock) == 0)
		return;
	int64_t t0 = etl__rt_mono_ns();
	pthread_mutex_lock(&s->lock);
	s->tm.lock_waits++;
	s->tm.lock_wait_ns += (uint64_t)(etl__rt_mono_ns() - t0);
}

/* Blocked writers are told that buffers came back. */
static void wake_waiters(struct etl_session *s)
{
	if (!atomic_load(&s->waiters))
		return;
	pthread_mutex_lock(&s->lock);
	pthread_cond_broadcast(&s->cv_free);
	pthread_mutex_unlock(&s->lock);
}

/* Buffers a writer can take without allocating: free ones, and
 * (BUFFERING) the ring's, which are reused oldest first. */
static uint32_t ready(struct etl_session *s)
{
	uint32_t n = atomic_load(&s->n_free);
	if (s->p.file_mode == ETL_FILE_BUFFERING)
		n += RING_COUNT(atomic_load(&s->ring_hc));
	return n;
}

/* ---- start and stop ---------------------------------------------------- */

int etl__rt_pool_init(struct etl_session *s)
{
	s->cpus = aligned_alloc(64, sizeof *s->cpus * s->nproc);
	s->bufs = aligned_alloc(64, sizeof *s->bufs * s->max_bufs);
	if (s->bufs)
		memset(s->bufs, 0, sizeof *s->bufs * s->max_bufs);
	s->queue = calloc(s->max_bufs, sizeof *s->queue);
	s->ring = calloc(s->max_bufs, sizeof *s->ring);
	s->filled = calloc(s->nproc, sizeof *s->filled);
	if (!s->cpus || !s->bufs || !s->queue || !s->ring || !s->filled)
		return ETL_FATAL;
	for (uint32_t i = 0; i < s->nproc; i++) {
		atomic_init(&s->cpus[i].slot, 0);
		atomic_init(&s->cpus[i].lost, 0);
	}
	atomic_store(&s->free_top, 0);
	atomic_store(&s->n_free, 0);
	atomic_store(&s->n_alloc, 0);
	atomic_store(&s->full_top, 0);
	atomic_store(&s->pending, 0);
	atomic_store(&s->in_hand, 0);
	atomic_store(&s->waiters, 0);
	atomic_store(&s->logger_idle, 0);
	atomic_store(&s->ring_hc, 0);
	s->q_head = s->q_count = 0;
	s->wake_batch = s->max_bufs / 16;
	if (s->wake_batch < 1)
		s->wake_batch = 1;
	if (s->wake_batch > 8)
		s->wake_batch = 8;
	for (uint32_t i = 0; i < s->p.min_buffers; i++) {
		s->bufs[i].mem = buffer_new(s->bs);
		if (!s->bufs[i].mem)
			return ETL_FATAL;
		atomic_store(&s->n_alloc, i + 1);
	}
	/* Lowest index on top. */
	for (uint32_t i = s->p.min_buffers; i-- > 0;)
		free_push_chain(s, i, i, 1);
	return ETL_OK;
}

void etl__rt_pool_free(struct etl_session *s)
{
	for (uint32_t i = 0; s->bufs && i < s->max_bufs; i++)
		free(s->bufs[i].mem);
	free(s->bufs);
	free(s->cpus);
	free(s->queue);
	free(s->ring);
	free(s->filled);
	s->filled = NULL;
	s->bufs = NULL;
	s->cpus = NULL;
	s->queue = NULL;
	s->ring = NULL;
}

/* ---- writers ----------------------------------------------------------- */

long etl__rt_pool_take(struct etl_session *s)
{
	long i = free_pop(s);
	if (i < 0 && s->p.file_mode == ETL_FILE_BUFFERING &&
	    atomic_load_explicit(&s->n_alloc, memory_order_relaxed) == s->max_bufs)
		i = ring_take(s);
	return i;
}

long etl__rt_pool_take_slow(struct etl_session *s)
{
	long i = pool_add(s, 0);
	if (i >= 0 || s->p.file_mode != ETL_FILE_BUFFERING)
		return i >= 0 ? i : free_pop(s);
	/* BUFFERING: the oldest buffer of the ring is overwritten; a flush
	 * writing the ring holds the lock: we wait for it there. */
	pool_lock(s);
	i = free_pop(s);
	if (i < 0)
		i = ring_take(s);
	pthread_mutex_unlock(&s->lock);
	return i;
}

void etl__rt_pool_put(struct etl_session *s, uint32_t i)
{
	free_push_chain(s, i, i, 1);
	wake_waiters(s);
}

/* The logger is woken once wake_batch buffers wait (it then writes them
 * with one system call), or sooner when the pool runs low: the buffers
 * ready would not cover a batch more per processor (it then also grows
 * the pool). Small pools have a batch of 1: every buffer wakes it. */
void etl__rt_pool_hand_over(struct etl_session *s, uint32_t i, uint32_t end)
{
	s->bufs[i].end = end;
	uint32_t p = atomic_fetch_add(&s->pending, 1) + 1;
	uint32_t top = atomic_load(&s->full_top);
	do {
		atomic_store_explicit(&s->bufs[i].next, top, memory_order_relaxed);
	} while (!atomic_compare_exchange_weak(&s->full_top, &top, i + 1));
	if ((p >= s->wake_batch || ready(s) < s->wake_batch + s->nproc) && atomic_load(&s->logger_idle))
		etl__rt_kick(&s->kick);
}

/* The logger is asked to swap the partly filled buffers out only when no
 * buffer is on its way to it or in its hands: those come back without it,
 * and a swap would send partly filled buffers to the file for nothing.
 * Bounded waits: the request is renewed in case the buffers were swapped
 * out before ours was needed. (A pool below max_buffers gets here when an
 * allocation failed: waiting and retrying is all there is to do then
 * too.) */
int etl__rt_pool_wait(struct etl_session *s)
{
	int64_t t0 = etl__rt_mono_ns();
	pool_lock(s);
	s->tm.buffer_waits++;
	atomic_fetch_add(&s->waiters, 1);
	while (!(uint32_t)atomic_load(&s->free_top) &&
	       !(s->p.file_mode == ETL_FILE_BUFFERING && RING_COUNT(atomic_load(&s->ring_hc))) &&
	       atomic_load(&s->accepting)) {
		if (!atomic_load(&s->pending) && !atomic_load(&s->in_hand))
			s->flush_req = 1;
		etl__rt_kick(&s->kick);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->cv_free, &s->lock, &ts);
	}
	atomic_fetch_sub(&s->waiters, 1);
	s->tm.buffer_wait_ns += (uint64_t)(etl__rt_mono_ns() - t0);
	int ok = atomic_load(&s->accepting);
	pthread_mutex_unlock(&s->lock);
	return ok;
}

/* ---- the logger -------------------------------------------------------- */

int etl__rt_pool_has_full(struct etl_session *s)
{
	return atomic_load(&s->pending) != 0 || s->q_count != 0;
}

uint32_t etl__rt_pool_next_full(struct etl_session *s, uint32_t *idx, uint32_t max)
{
	if (!s->q_count) {
		/* The stack, newest on top, into the FIFO oldest first. */
		uint32_t top = atomic_exchange(&s->full_top, 0), k = 0;
		for (uint32_t t = top; t; t = atomic_load_explicit(&s->bufs[t - 1].next, memory_order_relaxed))
			k++;
		uint32_t at = k;
		for (uint32_t t = top; t; t = atomic_load_explicit(&s->bufs[t - 1].next, memory_order_relaxed))
			s->queue[--at] = t - 1;
		s->q_head = 0;
		s->q_count = k;
		/* In hand before no longer pending: a blocked writer never sees
		 * both at 0 while these are on their way. */
		atomic_fetch_add(&s->in_hand, k);
		atomic_fetch_sub(&s->pending, k);
	}
	uint32_t n = s->q_count < max ? s->q_count : max;
	memcpy(idx, s->queue + s->q_head, n * sizeof *idx);
	s->q_head += n;
	s->q_count -= n;
	return n;
}

void etl__rt_release_n(struct etl_session *s, const uint32_t *idx, uint32_t n)
{
	if (!n)
		return;
	for (uint32_t k = 0; k + 1 < n; k++)
		atomic_store_explicit(&s->bufs[idx[k]].next, idx[k + 1] + 1, memory_order_relaxed);
	free_push_chain(s, idx[0], idx[n - 1], n);
	atomic_fetch_sub(&s->in_hand, n);
	wake_waiters(s);
}

void etl__rt_ring_append(struct etl_session *s, const uint32_t *idx, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		uint64_t w = atomic_load(&s->ring_hc);
		do {
			/* A writer's take moves the head and the count together:
			 * the tail stays where it is, and the store is redone. */
			uint32_t at = ((uint32_t)w + RING_COUNT(w)) % s->max_bufs;
			atomic_store_explicit(&s->ring[at], idx[k], memory_order_relaxed);
		} while (!atomic_compare_exchange_weak(&s->ring_hc, &w, w + RING_ONE));
	}
	atomic_fetch_sub(&s->in_hand, n);
	wake_waiters(s);
}

uint32_t etl__rt_ring_freeze(struct etl_session *s, uint32_t *head)
{
	uint64_t w = atomic_load(&s->ring_hc);
	while (!atomic_compare_exchange_weak(&s->ring_hc, &w, w | RING_FROZEN))
		;
	*head = (uint32_t)w;
	return RING_COUNT(w);
}

uint32_t etl__rt_ring_at(struct etl_session *s, uint32_t head, uint32_t k)
{
	return atomic_load_explicit(&s->ring[(head + k) % s->max_bufs], memory_order_relaxed);
}

void etl__rt_ring_thaw(struct etl_session *s)
{
	atomic_fetch_and(&s->ring_hc, ~RING_FROZEN);
}

uint32_t etl__rt_pool_free_count(struct etl_session *s)
{
	return atomic_load(&s->n_free);
}

void etl__rt_pool_grow(struct etl_session *s)
{
	/* A batch at most, then back to the buffers handed over. */
	for (uint32_t k = 0; k < s->wake_batch && atomic_load(&s->n_free) < s->wake_batch + s->nproc; k++) {
		long i = pool_add(s, 1);
		if (i < 0)
			return;
		etl__rt_pool_put(s, (uint32_t)i);
	}
}
