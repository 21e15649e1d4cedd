/*
 * lib/trace/trace_buffers.c - the per-processor reserve -> write -> commit
 * path: per-processor buffers, taken from the session's pool
 * (lib/trace/trace_pool.c) as the Windows user-mode logger takes them from
 * its free list, and emptied by the session's logger thread
 * (lib/trace/trace_logger.c).
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

/* A swap to retry: the slot changed meanwhile. */
#define SWAP_AGAIN 1

/* Buffer i left its processor's slot reserved up to end: to the logger,
 * or straight back to the pool when it holds nothing. */
static void give_back(struct etl_session *s, uint32_t i, uint32_t end)
{
	if (end > HDR)
		etl__rt_pool_hand_over(s, i, end);
	else
		etl__rt_pool_put(s, i);
}

/* The slow path of a reservation: the processor's buffer is full (or it
 * has none). A fresh buffer is swapped in and the old one handed over,
 * without the pool lock unless none is free (lib/trace/trace_pool.c). */
static int swap_buffer(struct etl_session *s, struct etl__rt_cpu *c, uint32_t cpu, uint64_t st,
                       uint32_t size, struct etl__rt_res *r)
{
	uint32_t idx1 = ETL_RT_SLOT_IDX(st), off = ETL_RT_SLOT_OFF(st);
	long ni = etl__rt_pool_take(s);
	if (ni < 0)
		ni = etl__rt_pool_take_slow(s);
	if (ni < 0) {
		/* Send the full buffer to the logger anyway, so that it comes
		 * back. */
		if (idx1) {
			if (!atomic_compare_exchange_strong_explicit(&c->slot, &st, 0, memory_order_acq_rel,
			                                             memory_order_relaxed))
				return SWAP_AGAIN;
			give_back(s, idx1 - 1, off);
		}
		return s->p.blocking && etl__rt_pool_wait(s) ? SWAP_AGAIN : ETL_FAILED;
	}
	struct etl__rt_buf *nb = &s->bufs[ni];
	atomic_store_explicit(&nb->commit, 0, memory_order_relaxed);
	atomic_store_explicit(&nb->holes, 0, memory_order_relaxed);
	nb->cpu = cpu;
	uint32_t ep = atomic_fetch_add_explicit(&s->epoch, 1, memory_order_relaxed) + 1;
	uint64_t ns = ETL_RT_SLOT_MAKE((uint32_t)ni + 1, ep & 0xFFFFFFu, HDR + size);
	if (!atomic_compare_exchange_strong_explicit(&c->slot, &st, ns, memory_order_acq_rel,
	                                             memory_order_relaxed)) {
		etl__rt_pool_put(s, (uint32_t)ni);
		return SWAP_AGAIN;
	}
	if (idx1)
		give_back(s, idx1 - 1, off);
	r->s = s;
	r->b = nb;
	r->dst = nb->mem + HDR;
	r->cpu = cpu;
	r->size = size;
	r->after = ns;
	return ETL_OK;
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
				give_back(s, ETL_RT_SLOT_IDX(st) - 1, ETL_RT_SLOT_OFF(st));
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
