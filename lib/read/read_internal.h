/*
 * lib/read/read_internal.h - the reader handle (internal): one buffer walk
 * over one input, read in file order or merged in time order.
 *
 * Layers inside lib/read, each using only those before it: damage.h (the
 * queue of damage reports), buffer.h (the buffer walk), order.h (time
 * order), logfile.h (the logfile header), and this handle on top.
 */
#ifndef ETL_READ_INTERNAL_H
#define ETL_READ_INTERNAL_H

#ifndef ETL_BUILDING_LIB
#error "lib/read/read_internal.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl.h"
#include "lib/read/buffer.h"
#include "lib/read/logfile.h"
#include "lib/read/order.h"

struct etl_reader {
	int opened;
	int order;
	int fatal;
	int owns_fd;
	int fd;
	struct etl_logfile lf;
	struct etl_walk walk;

	/* error of the last call */
	struct etl_errinfo err;

	/* file-order walk (also used by next_buffer) */
	struct etl_stream fstream;
	int walk_stopped;
	int count_checked;        /* check_buffer_count() ran                 */

	/* time order */
	struct etl_order time;

	const struct etl_buffer_info *cur_buf;
	struct etl_buffer_info walk_info; /* next_buffer() result            */
};

#endif /* ETL_READ_INTERNAL_H */
