/*
 * lib/read/order.h - events of one file in global time order (internal).
 *
 * The merge owns its index and its per-processor streams; it reads through
 * the caller's buffer walk (struct etl_walk), which queues any damage it
 * meets for the caller to report.
 */
#ifndef ETL_READ_ORDER_H
#define ETL_READ_ORDER_H

#ifndef ETL_BUILDING_LIB
#error "lib/read/order.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "lib/read/buffer.h"

struct etl_index_entry {
	uint64_t off;
	int64_t seq;
	uint16_t processor;
};

struct etl_order {
	int built;
	struct etl_index_entry *index;
	size_t n_index, cap_index;
	struct etl_stream *streams;
	size_t n_streams;
	size_t *heap;             /* stream indices ordered by key            */
	size_t n_heap;
	size_t *adv;              /* streams waiting to be advanced           */
	size_t n_adv;
	int top_out;              /* the heap's top stream handed out its event:
	                             advance it, then sift it down, next call */
	/* Inflated buffers: every stream keeps its own, so a file with many
	 * processors and large compressed buffers could ask for
	 * streams x 32 MiB. mem_held is what the streams' scratch and the
	 * spare hold now, mem_limit the most they may
	 * (etl_reader_set_order_memory()). */
	uint64_t mem_limit;
	uint64_t mem_held;
	/* The inflated buffer of a stream that has ended, kept (within
	 * mem_held) for the next stream that inflates one: fresh memory
	 * costs a page fault per page, every time. */
	uint8_t *spare;
	size_t spare_cap;
};

/* The index pass: walks every buffer header once. ETL_OK, or ETL_FATAL
 * with the walk's fatal error set. */
int etl__order_build(struct etl_order *o, struct etl_walk *w);

/* The next event in time order. ETL_OK / ETL_WARN: *ev (valid until the
 * next call), *buf its buffer, and for ETL_WARN *warn the sentence.
 * ETL_FAILED: damage was queued in the walk (take it, then call again).
 * ETL_END, ETL_FATAL. */
int etl__order_next(struct etl_order *o, struct etl_walk *w, const struct etl_event **ev,
                    const struct etl_buffer_info **buf, const char **warn);

void etl__order_free(struct etl_order *o);

#endif /* ETL_READ_ORDER_H */
