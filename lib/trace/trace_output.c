/*
 * lib/trace/trace_output.c - a session's output in each file mode: what the
 * logger thread (lib/trace/trace_logger.c) does with the buffers it has
 * settled, what a flush makes of the file, and the file's last figures at
 * stop.
 *
 * Every file mode goes through the .etl writer (lib/write/writer.c) with
 * buffers filled by the runtime (etl__writer_put_buffer): stamping, circular
 * slots, NEWFILE rotation and compression are the writer's. Files are
 * written in place; after every timer flush and etl_session_flush() the
 * header buffer is rewritten with the figures so far (etl__writer_sync), so
 * a process that dies leaves a file readable up to its last flush.
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
 * either committed to a buffer or counted lost on the processor whose
 * buffer it was meant for;
 * a buffer that cannot be written moves its events from written to lost.
 */
#define ETL_BUILDING_LIB 1
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "lib/trace/trace_core.h"
#include "lib/write/write_internal.h"

/* QPC in tsc mode: the header's rate (and the boot time it implies) made
 * current before the header is written. (stamp_ct is 0 for a session on
 * the caller's clock: nothing to refine.) */
static void refresh_clock(struct etl_session *s, etl_writer *w)
{
	if (etl__rt_clock_refine(s->stamp_ct, s->start_ts, s->start_ft, &s->wo.perf_freq,
	                         &s->wo.boot_time) && w)
		etl__writer_set_clock(w, s->wo.perf_freq, s->wo.boot_time);
}

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

uint64_t etl__rt_events_lost(const struct etl_session *s)
{
	uint64_t n = s->lost_final + atomic_load(&s->events_dropped);
	for (uint32_t i = 0; s->cpus && i < s->nproc; i++)
		n += atomic_load_explicit(&s->cpus[i].lost, memory_order_relaxed);
	return n;
}

static void put_lost(struct etl_session *s, etl_writer *w)
{
	uint64_t ev = etl__rt_events_lost(s), bl = atomic_load(&s->buffers_lost);
	w->events_lost = ev > UINT32_MAX ? UINT32_MAX : (uint32_t)ev;
	w->buffers_lost = bl > UINT32_MAX ? UINT32_MAX : (uint32_t)bl;
}

/* etl_session_timing: one hand-off to the output, begun at t0. */
static void count_output(struct etl_session *s, int64_t t0, uint64_t bytes)
{
	etl__rt_tm_add(&s->tm.out_calls, 1);
	etl__rt_tm_add(&s->tm.out_ns, (uint64_t)(etl__rt_mono_ns() - t0));
	etl__rt_tm_add(&s->tm.out_bytes, bytes);
}

/* BUFFERING: writes the ring, oldest first, to file_name (replacing what
 * an earlier flush wrote). The ring is frozen meanwhile, so that writers
 * cannot take its buffers, and the pool lock held: a writer that needs one
 * waits for the end of the write there (lib/trace/trace_pool.c). */
static int write_ring(struct etl_session *s)
{
	int64_t t0 = etl__rt_mono_ns();
	etl_writer *w = etl_writer_new();
	if (!w)
		return ETL_FATAL;
	int rc = etl__writer_open_inplace(w, s->file_name, &s->wo, 0);
	uint64_t n = 0;
	if (rc == ETL_OK) {
		pthread_mutex_lock(&s->lock);
		uint32_t head, count = etl__rt_ring_freeze(s, &head);
		for (uint32_t k = 0; k < count && rc != ETL_FATAL; k++) {
			struct etl__rt_buf *b = &s->bufs[etl__rt_ring_at(s, head, k)];
			int prc = etl__writer_put_buffer(w, b->mem, b->end, b->cpu, etl__rt_session_now(s));
			if (prc == ETL_OK)
				n++;
			else
				rc = prc;
		}
		etl__rt_ring_thaw(s);
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
	count_output(s, t0, n * s->bs);
	return rc;
}

int etl__rt_output_open(struct etl_session *s)
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

/* The file modes get the buffers in one call to the writer: a sequential
 * file, in one system call. */
void etl__rt_output_buffers(struct etl_session *s, const uint32_t *idx, uint32_t n)
{
	if (s->p.file_mode == ETL_FILE_BUFFERING) {
		uint64_t ev = 0;
		for (uint32_t k = 0; k < n; k++)
			ev += s->bufs[idx[k]].events;
		etl__rt_ring_append(s, idx, n);
		atomic_fetch_add(&s->events_written, ev);
		return;
	}
	struct etl_wbuf v[ETL_RT_DRAIN_MAX];
	int rcs[ETL_RT_DRAIN_MAX];
	uint32_t m = 0;
	int64_t now = etl__rt_session_now(s);
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
	if (m) {
		int64_t t0 = etl__rt_mono_ns();
		etl__writer_put_buffers(s->w, v, m, rcs);
		count_output(s, t0, (uint64_t)m * s->bs);
	}
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

int etl__rt_output_sync(struct etl_session *s, int explicit_flush)
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
		int64_t t0 = etl__rt_mono_ns();
		int rc = etl__writer_sync(s->w);
		count_output(s, t0, 0);
		return rc;
	}
}

int etl__rt_output_close(struct etl_session *s)
{
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
		int64_t t0 = etl__rt_mono_ns();
		int crc = etl_writer_close(s->w);
		count_output(s, t0, 0);
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
	return rc;
}

void etl__rt_output_free(struct etl_session *s)
{
	etl_writer_free(s->w);
	s->w = NULL;
}
