/*
 * lib/read/order.c - globally time-ordered iteration.
 *
 * A file holds buffers in flush order. Each processor has its own stream
 * of buffers, and records inside one buffer are in time order (doc/format.md §1.7). So:
 *   1. index pass: walk the buffer headers once, keeping 24 bytes per
 *      buffer (offset, processor, sequence number);
 *   2. group the index by processor and order each group by
 *      SequenceNumber (file offset breaks ties);
 *   3. k-way merge: every stream holds one loaded buffer and one look-ahead
 *      event; a binary min-heap on (timestamp, stream) picks the next one.
 * Memory: one buffer per processor (inflated buffers in the stream's own
 * scratch, within a limit; uncompressed ones borrow the mapped file) plus
 * the index.
 *
 * Protocol with etl_reader_next(): the event handed out is the look-ahead
 * of the stream at the top of the heap, which stays there; that stream is
 * advanced (and sifted down) only at the next call, so the event stays
 * valid until then.
 */
#define ETL_BUILDING_LIB 1
#include <stdlib.h>
#include <string.h>
#include "lib/read/order.h"

static int cmp_index(const void *a, const void *b)
{
	const struct etl_index_entry *x = a, *y = b;
	if (x->processor != y->processor)
		return x->processor < y->processor ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

static int push_index(struct etl_order *r, const struct etl_buffer_info *bi)
{
	if (r->n_index == r->cap_index) {
		size_t cap = r->cap_index ? r->cap_index * 2 : 64;
		struct etl_index_entry *n = realloc(r->index, cap * sizeof *n);
		if (!n)
			return ETL_FAILED;
		r->index = n;
		r->cap_index = cap;
	}
	struct etl_index_entry *e = &r->index[r->n_index++];
	e->off = bi->file_offset;
	e->seq = bi->sequence;
	e->processor = bi->processor;
	return ETL_OK;
}

int etl__order_build(struct etl_order *r, struct etl_walk *w)
{
	uint64_t off = 0;
	r->built = 1;
	for (;;) {
		struct etl_buffer_info bi;
		uint64_t next;
		int rc = etl__buffer_header(w, off, &bi, &next, 1);
		if (rc == ETL_FATAL)
			return ETL_FATAL;
		if (rc == ETL_END)
			break;
		if (rc == ETL_OK && push_index(r, &bi) != ETL_OK) {
			etl__walk_fatal(w, ETL_E_NOMEM, off, "Out of memory for the buffer index: buffers=%zu", r->n_index);
			return ETL_FATAL;
		}
		if (next == UINT64_MAX)
			break;
		off = next;
	}
	/* A gzip / LZ4 wrapper found damaged while the input was spooled
	 * (lib/io/source.c leaves the reason in src.errmsg). */
	etl__walk_source_damage(w, off);
	w->stats.bytes_in = 0;
	if (r->n_index == 0)
		return ETL_OK;
	qsort(r->index, r->n_index, sizeof *r->index, cmp_index);
	size_t n = 1;
	for (size_t i = 1; i < r->n_index; i++)
		if (r->index[i].processor != r->index[i - 1].processor)
			n++;
	r->streams = calloc(n, sizeof *r->streams);
	r->heap = calloc(n, sizeof *r->heap);
	r->adv = calloc(n, sizeof *r->adv);
	if (!r->streams || !r->heap || !r->adv) {
		etl__walk_fatal(w, ETL_E_NOMEM, 0, "Out of memory for %zu processor streams", n);
		return ETL_FATAL;
	}
	size_t k = 0;
	r->streams[0].next_idx = 0;
	for (size_t i = 1; i <= r->n_index; i++) {
		if (i == r->n_index || r->index[i].processor != r->index[i - 1].processor) {
			r->streams[k].end_idx = (uint32_t)i;
			if (i < r->n_index)
				r->streams[++k].next_idx = (uint32_t)i;
		}
	}
	r->n_streams = n;
	r->top_out = 0;
	/* Prime in reverse so stream 0 (the header buffer's) is advanced first. */
	for (size_t i = 0; i < n; i++)
		r->adv[i] = n - 1 - i;
	r->n_adv = n;
	return ETL_OK;
}

void etl__order_free(struct etl_order *r)
{
	for (size_t i = 0; i < r->n_streams; i++)
		free(r->streams[i].bv.scratch);
	free(r->spare);
	r->spare = NULL;
	r->spare_cap = 0;
	r->mem_held = 0;
	free(r->streams);
	free(r->heap);
	free(r->adv);
	free(r->index);
	r->streams = NULL;
	r->heap = r->adv = NULL;
	r->index = NULL;
	r->n_streams = r->n_heap = r->n_adv = r->n_index = 0;
	r->top_out = 0;
}

/* Heap order: smaller timestamp first; the lower stream index breaks ties
 * so the order is deterministic. */
static int before(const struct etl_order *r, size_t a, size_t b)
{
	const struct etl_stream *x = &r->streams[a], *y = &r->streams[b];
	if (x->key != y->key)
		return x->key < y->key;
	return a < b;
}

static void heap_push(struct etl_order *r, size_t s)
{
	size_t i = r->n_heap++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(r, s, r->heap[parent]))
			break;
		r->heap[i] = r->heap[parent];
		i = parent;
	}
	r->heap[i] = s;
}

/* Puts stream s at the top of the heap and moves it down to its place. */
static inline void sift_down(struct etl_order *r, size_t s)
{
	size_t i = 0, n = r->n_heap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r, r->heap[c], s))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = s;
}

static size_t heap_pop(struct etl_order *r)
{
	size_t top = r->heap[0];
	size_t last = r->heap[--r->n_heap];
	if (r->n_heap)
		sift_down(r, last);
	return top;
}

/* The top stream's key changed (a stream's next key is mostly larger):
 * moves it down to its place; a smaller one, below its children, stays. */
static void heap_sift_top(struct etl_order *r)
{
	sift_down(r, r->heap[0]);
}

/* Frees an inflated buffer the merge holds (a stream's or the spare). */
static void give_back(struct etl_order *r, uint8_t **p, size_t *cap)
{
	r->mem_held -= *cap;
	free(*p);
	*p = NULL;
	*cap = 0;
}

static void drop_scratch(struct etl_order *r, struct etl_stream *s)
{
	give_back(r, &s->bv.scratch, &s->bv.scratch_cap);
}

/* Trades stream s's inflated buffer for the spare (either may be none);
 * what the merge holds does not change. */
static void swap_spare(struct etl_order *r, struct etl_stream *s)
{
	uint8_t *p = s->bv.scratch;
	size_t cap = s->bv.scratch_cap;
	s->bv.scratch = r->spare;
	s->bv.scratch_cap = r->spare_cap;
	r->spare = p;
	r->spare_cap = cap;
}

/* Before stream s (which holds no buffer now) inflates the buffer bi:
 * 1 if its scratch can hold it within the memory limit, once the spare and
 * the scratch of every stream that holds no buffer are given back if need
 * be; else 0, with the buffer reported as skipped. Real files stay far
 * below the limit (processors x buffer size, Windows buffers being at most
 * 16 MiB), so the scratch is kept for reuse until then. */
static int make_room(struct etl_order *r, struct etl_walk *w, struct etl_stream *s,
                     const struct etl_buffer_info *bi)
{
	uint64_t need = (uint64_t)ETL_BUFFER_HEADER_SIZE + bi->inflated_size;
	if (need <= s->bv.scratch_cap || r->mem_held - s->bv.scratch_cap + need <= r->mem_limit)
		return 1;
	give_back(r, &r->spare, &r->spare_cap);
	for (size_t i = 0; i < r->n_streams; i++)
		if (!r->streams[i].has_buffer && r->streams[i].bv.scratch)
			drop_scratch(r, &r->streams[i]);
	if (r->mem_held + need <= r->mem_limit)
		return 1;
	w->stats.bad_buffers++;
	etl__damage_add(&w->damage, ETL_E_LIMIT, bi->file_offset,
	                "Compressed buffer skipped: reading in time order, the other processors' "
	                "inflated buffers hold %llu bytes and this one needs %llu more, past the "
	                "time-order memory limit of %llu bytes; read in file order, which holds one "
	                "buffer, or raise the limit: offset=0x%llx, processor=%u, inflated-size=%u",
	                (unsigned long long)r->mem_held, (unsigned long long)need,
	                (unsigned long long)r->mem_limit, (unsigned long long)bi->file_offset,
	                (unsigned)bi->processor, bi->inflated_size);
	return 0;
}

/* Decodes the stream's next event into s->ev, loading its next buffer when
 * the current one is exhausted. ETL_OK, ETL_END, ETL_FAILED, ETL_FATAL. */
static int advance(struct etl_order *r, struct etl_walk *w, struct etl_stream *s)
{
	for (;;) {
		if (s->has_buffer) {
			int rc = etl__buffer_next_record(w, &s->bv, &s->ev, s->warn, sizeof s->warn);
			if (rc == ETL_OK || rc == ETL_WARN) {
				s->ev_status = rc;
				s->key = s->bv.last_ts;
				return ETL_OK;
			}
			s->has_buffer = 0;
			if (rc == ETL_FAILED)
				return ETL_FAILED;
		}
		if (s->next_idx >= s->end_idx) {
			/* The stream is finished: the larger of its buffer and
			 * the spare stays as the spare. */
			if (s->bv.scratch_cap > r->spare_cap)
				swap_spare(r, s);
			drop_scratch(r, s);
			return ETL_END;
		}
		struct etl_buffer_info bi;
		uint64_t next;
		const struct etl_index_entry *e = &r->index[s->next_idx++];
		int rc = etl__buffer_header(w, e->off, &bi, &next, 0);
		if (rc == ETL_FATAL)
			return ETL_FATAL;
		if (rc != ETL_OK)
			continue; /* cannot happen: indexed headers were valid */
		w->stats.bytes_in = e->off;
		if (bi.compressed && !s->bv.scratch)
			swap_spare(r, s);            /* the spare, if there is one */
		if (bi.compressed && !make_room(r, w, s, &bi))
			return ETL_FAILED;
		size_t held = s->bv.scratch_cap;
		rc = etl__buffer_load(w, &bi, &s->bv);
		r->mem_held += s->bv.scratch_cap - held;
		if (r->mem_held > w->stats.order_memory_peak)
			w->stats.order_memory_peak = r->mem_held;
		if (rc == ETL_FATAL)
			return ETL_FATAL;
		if (rc == ETL_FAILED)
			return ETL_FAILED;
		s->has_buffer = 1;
	}
}

int etl__order_next(struct etl_order *r, struct etl_walk *w, const struct etl_event **ev,
                    const struct etl_buffer_info **buf, const char **warn)
{
	for (;;) {
		if (r->n_adv > 0) {
			size_t si = r->adv[r->n_adv - 1];
			struct etl_stream *s = &r->streams[si];
			int rc = advance(r, w, s);
			if (rc == ETL_FATAL)
				return ETL_FATAL;
			if (rc == ETL_FAILED)
				return ETL_FAILED;   /* queued; the stream goes on */
			r->n_adv--;
			if (rc == ETL_OK)
				heap_push(r, si);
			continue;
		}
		if (r->top_out) {
			/* The stream whose event went out stays at the top of the
			 * heap until now: advanced, it is sifted down (mostly a
			 * step or two: streams run in long stretches), or leaves
			 * the heap at its end. The same order as popping it and
			 * pushing it back, the order being total. */
			struct etl_stream *s = &r->streams[r->heap[0]];
			int rc = advance(r, w, s);
			if (rc == ETL_FATAL)
				return ETL_FATAL;
			if (rc == ETL_FAILED)
				return ETL_FAILED;   /* queued; the stream goes on */
			r->top_out = 0;
			if (rc == ETL_OK)
				heap_sift_top(r);
			else
				(void)heap_pop(r);
			continue;
		}
		if (r->n_heap == 0)
			return ETL_END;
		size_t si = r->heap[0];
		struct etl_stream *s = &r->streams[si];
		r->top_out = 1;
		*buf = &s->bv.info;
		*ev = &s->ev;
		if (s->ev_status == ETL_WARN)
			*warn = s->warn;
		return s->ev_status;
	}
}
