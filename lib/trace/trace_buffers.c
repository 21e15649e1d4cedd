/*
 * lib/trace/trace_buffers.c - a session's buffer pool and the per-processor
 * reserve -> write -> commit path: per-processor buffers and a free list,
 * as the Windows user-mode logger keeps them, emptied by the session's
 * logger thread (lib/trace/trace_logger.c).
 *
 * Each processor has one word (struct etl__rt_cpu.slot) naming its current
 * buffer, the offset of the next record and an epoch. A writer reserves
 * with one compare-and-swap that advances the offset; the epoch changes
 * whenever the slot gets another buffer, so a stale CAS always fails.
 * After writing the record, the writer adds the record's size (and one
 * event) to the buffer's commit word (release).
 *
 * A buffer leaves its slot when it is full (the writer that needs room
 * swaps in a fresh buffer, or an empty slot when none is free), when the
 * flush timer or a flush swaps partly filled buffers out, or at stop. The
 * offset in the word at that moment is the buffer's reserved end; the
 * logger waits until the committed bytes reach it (every reservation is
 * committed or turned into a hole) before it writes the buffer.
 *
 * Giving a reservation back (routing failed in another session): if the
 * slot word is still the one our CAS produced, a CAS back to the previous
 * word returns the space; otherwise later records follow ours, and the
 * space becomes a hole (ETL_RT_HOLE_MAGIC, size), committed as bytes
 * without an event, which the logger squeezes out. Nothing else can reach
 * the file.
 *
 * Memory: min_buffers allocated at start, more as the free ones run low, up
 * to max_buffers, never more; everything is freed at stop, after the
 * writers have left (etl__rt_synchronize). A buffer's pages are touched
 * before a writer gets it, so that writers take no page faults: at start,
 * and when the logger thread grows the pool ahead of need
 * (etl__rt_pool_grow, outside the lock). A writer that finds no buffer
 * free still allocates one itself, under the lock, as a last resort.
 */
#define ETL_BUILDING_LIB 1
#define _GNU_SOURCE 1
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/read/read_internal.h"
#include "lib/trace/trace_core.h"

#define HDR ETL_RT_HDR

/* A new buffer, its pages touched (faulted in), or NULL. */
static uint8_t *buffer_new(uint32_t bs)
{
	uint8_t *m = malloc(bs);
	for (uint32_t k = 0; m && k < bs; k += 4096)
		((volatile uint8_t *)m)[k] = 0;
	return m;
}

int etl__rt_pool_init(struct etl_session *s)
{
	s->cpus = aligned_alloc(64, sizeof *s->cpus * s->nproc);
	s->bufs = aligned_alloc(64, sizeof *s->bufs * s->max_bufs);
	if (s->bufs)
		memset(s->bufs, 0, sizeof *s->bufs * s->max_bufs);
	s->free_list = calloc(s->max_bufs, sizeof *s->free_list);
	s->queue = calloc(s->max_bufs, sizeof *s->queue);
	s->ring = calloc(s->max_bufs, sizeof *s->ring);
	s->filled = calloc(s->nproc, sizeof *s->filled);
	if (!s->cpus || !s->bufs || !s->free_list || !s->queue || !s->ring || !s->filled)
		return ETL_FATAL;
	for (uint32_t i = 0; i < s->nproc; i++) {
		atomic_init(&s->cpus[i].slot, 0);
		atomic_init(&s->cpus[i].lost, 0);
	}
	s->n_free = 0;
	atomic_store(&s->n_alloc, 0);
	s->q_head = s->q_count = s->r_head = s->r_count = s->in_hand = 0;
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
		/* Free list as a stack: lowest index on top. */
		s->free_list[s->p.min_buffers - 1 - i] = i;
	}
	s->n_free = s->p.min_buffers;
	return ETL_OK;
}

void etl__rt_pool_free(struct etl_session *s)
{
	for (uint32_t i = 0; s->bufs && i < s->max_bufs; i++)
		free(s->bufs[i].mem);
	free(s->bufs);
	free(s->cpus);
	free(s->free_list);
	free(s->queue);
	free(s->ring);
	free(s->filled);
	s->filled = NULL;
	s->bufs = NULL;
	s->cpus = NULL;
	s->free_list = s->queue = s->ring = NULL;
}

/* The pool lock, taken by a writer (or the logger swapping buffers out):
 * a wait for it is counted (etl_session_timing), which costs nothing
 * when the lock is free. */
static void pool_lock(struct etl_session *s)
{
	if (pthread_mutex_trylock(&s->lock) == 0)
		return;
	int64_t t0 = etl__rt_mono_ns();
	pthread_mutex_lock(&s->lock);
	s->tm.lock_waits++;
	s->tm.lock_wait_ns += (uint64_t)(etl__rt_mono_ns() - t0);
}

/* A swap to retry: the slot changed meanwhile. */
#define SWAP_AGAIN 1

/* A free buffer, or -1. Lock held. */
static long pool_take_locked(struct etl_session *s)
{
	if (s->n_free > 0)
		return s->free_list[--s->n_free];
	uint32_t n = atomic_load_explicit(&s->n_alloc, memory_order_relaxed);
	if (n < s->max_bufs) {
		s->bufs[n].mem = malloc(s->bs);
		if (s->bufs[n].mem) {
			atomic_store_explicit(&s->n_alloc, n + 1, memory_order_relaxed);
			return n;
		}
	}
	/* BUFFERING: the oldest buffer of the ring is overwritten. */
	if (s->p.file_mode == ETL_FILE_BUFFERING && s->r_count > 0) {
		uint32_t i = s->ring[s->r_head];
		s->r_head = (s->r_head + 1) % s->max_bufs;
		s->r_count--;
		return i;
	}
	return -1;
}

void etl__rt_release_n(struct etl_session *s, const uint32_t *idx, uint32_t n)
{
	pthread_mutex_lock(&s->lock);
	for (uint32_t k = 0; k < n; k++)
		s->free_list[s->n_free++] = idx[k];
	s->in_hand -= n;
	pthread_mutex_unlock(&s->lock);
	pthread_cond_broadcast(&s->cv_free);
}

/* Buffers a writer can take without allocating (lock held): free ones,
 * and (BUFFERING) the ring's, which are reused oldest first. */
static uint32_t ready_locked(const struct etl_session *s)
{
	return s->n_free + (s->p.file_mode == ETL_FILE_BUFFERING ? s->r_count : 0);
}

/* Whether the logger is to be woken (lock held): once wake_batch buffers
 * wait (it then writes them with one system call), or sooner when the
 * pool runs low: the buffers ready would not cover a batch more per
 * processor (it then also grows the pool, see etl__rt_pool_grow()).
 * Small pools have a batch of 1: every buffer wakes it. */
static int logger_due_locked(const struct etl_session *s)
{
	return s->q_count >= s->wake_batch || ready_locked(s) < s->wake_batch + s->nproc;
}

/*! etl__rt_pool_grow() : the logger keeps the pool ahead of the writers:
 *  while fewer than a batch more per processor are free and the pool is
 *  below max_buffers, it allocates a buffer and touches its pages outside
 *  the lock, then puts it on the free list. (BUFFERING too: writers take a
 *  new buffer before they reuse the ring.) */
void etl__rt_pool_grow(struct etl_session *s)
{
	for (;;) {
		pthread_mutex_lock(&s->lock);
		int need = s->n_free < s->wake_batch + s->nproc &&
		           atomic_load_explicit(&s->n_alloc, memory_order_relaxed) < s->max_bufs;
		pthread_mutex_unlock(&s->lock);
		if (!need)
			return;
		uint8_t *m = buffer_new(s->bs);
		if (!m)
			return;
		pthread_mutex_lock(&s->lock);
		uint32_t n = atomic_load_explicit(&s->n_alloc, memory_order_relaxed);
		if (n < s->max_bufs) {
			s->bufs[n].mem = m;
			atomic_store_explicit(&s->n_alloc, n + 1, memory_order_relaxed);
			s->free_list[s->n_free++] = n;
			m = NULL;
		}
		pthread_mutex_unlock(&s->lock);
		if (m) {
			free(m);            /* a writer grew it to the end meanwhile */
			return;
		}
		pthread_cond_broadcast(&s->cv_free);
	}
}

/* Buffer i left its processor's slot reserved up to end (lock held): to
 * the logger's queue, or straight back to the free list when it holds
 * nothing. @return : 1 when the logger is to be woken. */
static int put_back_locked(struct etl_session *s, uint32_t i, uint32_t end)
{
	if (end <= HDR) {
		s->free_list[s->n_free++] = i;
		return 0;
	}
	s->bufs[i].end = end;
	s->queue[(s->q_head + s->q_count) % s->max_bufs] = i;
	s->q_count++;
	return logger_due_locked(s);
}

/* Blocking mode, lock held: waits until a buffer may be free. The logger
 * is woken; it is also asked to swap the partly filled buffers out, but
 * only when no buffer is queued or in its hands: those come back without
 * it, and a swap would send partly filled buffers to the file for
 * nothing. Bounded waits: the request is renewed in case the buffers were
 * swapped out before ours was needed. @return : 0 when the session
 * stopped accepting. */
static int wait_for_buffer_locked(struct etl_session *s)
{
	int64_t t0 = etl__rt_mono_ns();
	s->tm.buffer_waits++;
	/* (A pool below max_buffers got here because an allocation failed:
	 * waiting and retrying is all there is to do then too.) */
	while (s->n_free == 0 && !(s->p.file_mode == ETL_FILE_BUFFERING && s->r_count > 0) &&
	       atomic_load(&s->accepting)) {
		if (!s->q_count && !s->in_hand)
			s->flush_req = 1;
		pthread_cond_signal(&s->cv_logger);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->cv_free, &s->lock, &ts);
	}
	s->tm.buffer_wait_ns += (uint64_t)(etl__rt_mono_ns() - t0);
	return atomic_load(&s->accepting);
}

/* The slow path of a reservation: the processor's buffer is full (or it
 * has none). A fresh buffer is swapped in and the old one handed over in
 * one hold of the pool lock; the logger is woken after it is let go. */
static int swap_buffer(struct etl_session *s, struct etl__rt_cpu *c, uint32_t cpu, uint64_t st,
                       uint32_t size, struct etl__rt_res *r)
{
	uint32_t idx1 = ETL_RT_SLOT_IDX(st), off = ETL_RT_SLOT_OFF(st);
	int wake = 0, rc = SWAP_AGAIN;
	pool_lock(s);
	long ni = pool_take_locked(s);
	if (ni < 0) {
		/* Send the full buffer to the logger anyway, so that it comes
		 * back. */
		if (idx1) {
			if (!atomic_compare_exchange_strong_explicit(&c->slot, &st, 0, memory_order_acq_rel,
			                                             memory_order_relaxed)) {
				pthread_mutex_unlock(&s->lock);
				return SWAP_AGAIN;
			}
			wake = put_back_locked(s, idx1 - 1, off);
		}
		if (!s->p.blocking || !wait_for_buffer_locked(s))
			rc = ETL_FAILED;
		pthread_mutex_unlock(&s->lock);
		if (wake)
			pthread_cond_signal(&s->cv_logger);
		return rc;
	}
	struct etl__rt_buf *nb = &s->bufs[ni];
	atomic_store_explicit(&nb->commit, 0, memory_order_relaxed);
	atomic_store_explicit(&nb->holes, 0, memory_order_relaxed);
	nb->cpu = cpu;
	uint32_t ep = atomic_fetch_add_explicit(&s->epoch, 1, memory_order_relaxed) + 1;
	uint64_t ns = ETL_RT_SLOT_MAKE((uint32_t)ni + 1, ep & 0xFFFFFFu, HDR + size);
	if (atomic_compare_exchange_strong_explicit(&c->slot, &st, ns, memory_order_acq_rel,
	                                            memory_order_relaxed)) {
		if (idx1)
			wake = put_back_locked(s, idx1 - 1, off);
		r->s = s;
		r->b = nb;
		r->dst = nb->mem + HDR;
		r->cpu = cpu;
		r->size = size;
		r->after = ns;
		rc = ETL_OK;
	} else {
		s->free_list[s->n_free++] = (uint32_t)ni;
	}
	pthread_mutex_unlock(&s->lock);
	if (wake)
		pthread_cond_signal(&s->cv_logger);
	return rc;
}

int etl__rt_reserve(struct etl_session *s, uint32_t cpu, uint32_t size, struct etl__rt_res *r)
{
	struct etl__rt_cpu *c = &s->cpus[cpu];
	uint32_t bs = s->bs;
	for (;;) {
		uint64_t st = atomic_load_explicit(&c->slot, memory_order_acquire);
		uint32_t idx1 = ETL_RT_SLOT_IDX(st), off = ETL_RT_SLOT_OFF(st);
		if (idx1 && off + size <= bs) {
			if (atomic_compare_exchange_weak_explicit(&c->slot, &st, st + size,
			                                          memory_order_acq_rel,
			                                          memory_order_relaxed)) {
				r->s = s;
				r->b = &s->bufs[idx1 - 1];
				r->dst = r->b->mem + off;
				r->cpu = cpu;
				r->size = size;
				r->after = st + size;
				return ETL_OK;
			}
			continue;
		}
		/* Slow path: this buffer is full (or there is none). */
		if (!atomic_load_explicit(&s->accepting, memory_order_acquire) ||
		    atomic_load_explicit(&s->full, memory_order_relaxed)) {
			return ETL_FAILED;
		}
		int rc = swap_buffer(s, c, cpu, st, size, r);
		if (rc != SWAP_AGAIN)
			return rc;
	}
}

void etl__rt_abandon(const struct etl__rt_res *r)
{
	struct etl__rt_cpu *c = &r->s->cpus[r->cpu];
	uint64_t expect = r->after;
	if (atomic_compare_exchange_strong_explicit(&c->slot, &expect, r->after - r->size,
	                                            memory_order_acq_rel, memory_order_relaxed))
		return;
	etl_put32(r->dst, ETL_RT_HOLE_MAGIC);
	etl_put32(r->dst + 4, r->size);
	atomic_store_explicit(&r->b->holes, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&r->b->commit, r->size, memory_order_release);
}

void etl__rt_swap_all(struct etl_session *s)
{
	for (uint32_t i = 0; i < s->nproc; i++) {
		struct etl__rt_cpu *c = &s->cpus[i];
		uint64_t st = atomic_load_explicit(&c->slot, memory_order_acquire);
		while (ETL_RT_SLOT_IDX(st) && ETL_RT_SLOT_OFF(st) > HDR) {
			if (atomic_compare_exchange_weak_explicit(&c->slot, &st, 0, memory_order_acq_rel,
			                                          memory_order_acquire)) {
				pool_lock(s);
				put_back_locked(s, ETL_RT_SLOT_IDX(st) - 1, ETL_RT_SLOT_OFF(st));
				pthread_mutex_unlock(&s->lock);
				break;
			}
		}
	}
}

/* Removes holes; returns the new end. A record the walk cannot size ends
 * the buffer there (never expected: every record was written by an
 * encoder of a known header type). */
static uint32_t squeeze(uint8_t *m, uint32_t end)
{
	uint32_t rd = HDR, wr = HDR;
	while (rd + 8 <= end) {
		uint32_t mk = etl_le32(m + rd), n;
		if (mk == ETL_RT_HOLE_MAGIC) {
			n = etl_le32(m + rd + 4);
			if (n < 8 || n > end - rd)
				break;
			rd += n;
			continue;
		}
		const struct etl_hdr_ops *ops = etl__hdr_for_marker(mk);
		uint32_t rs = 0;
		if (!ops || !ops->peek_size || ops->peek_size(m + rd, &rs) != 0 || rs < 8 ||
		    ETL_ALIGN8(rs) > end - rd)
			break;
		n = (uint32_t)ETL_ALIGN8(rs);
		if (wr != rd)
			memmove(m + wr, m + rd, n);
		wr += n;
		rd += n;
	}
	return wr;
}

void etl__rt_settle(struct etl_session *s, struct etl__rt_buf *b)
{
	uint32_t want = b->end - HDR;
	uint64_t cw;
	for (unsigned spins = 0;; spins++) {
		cw = atomic_load_explicit(&b->commit, memory_order_acquire);
		if ((uint32_t)cw == want)
			break;
		if (spins == 0)
			etl__rt_tm_add(&s->tm.commit_waits, 1);
		if (spins < 100) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
		}
	}
	b->events = (uint32_t)(cw >> 32);
	if (atomic_load_explicit(&b->holes, memory_order_relaxed))
		b->end = squeeze(b->mem, b->end);
}
