/*
 * lib/read/damage.h - the queue of damage reports the buffer walk and the
 * time-order merge fill and the reader drains (internal).
 *
 * Damage is found deep inside the walk - often while the time-order index
 * pass reads every buffer header before the first event - but reported one
 * item per etl_reader_next() call, so that nothing is dropped and every
 * readable record is still returned. The walk owns this record; the reader
 * only takes reports out of it, which keeps the dependency one way.
 */
#ifndef ETL_READ_DAMAGE_H
#define ETL_READ_DAMAGE_H

#ifndef ETL_BUILDING_LIB
#error "lib/read/damage.h is internal to libetl"
#endif

#include <stdint.h>
#include "lib/common/errinfo.h"

/* A report is a struct etl_errinfo: reason (enum etl_errcode), absolute
 * input offset, sentence. */

/* A badly damaged file can queue one report per buffer before the first
 * event: keep up to this many, then count the rest into one summary. */
#define ETL_DAMAGE_MAX 4096

struct etl_damage {
	struct etl_errinfo *ring;   /* grown on demand up to ETL_DAMAGE_MAX */
	unsigned cap, head, count;
	uint64_t total;                   /* every report added, listed or not    */
	uint64_t dropped;                 /* beyond the cap, not listed one by one */
	uint64_t dropped_off;             /* offset of the first of those          */
};

/* Queues a report (counted in total even when it cannot be listed). */
void etl__damage_add(struct etl_damage *d, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Moves the oldest report into *out: 1 if there was one, else 0. Once the
 * listed reports are taken, the dropped ones come out as one summary. */
int etl__damage_take(struct etl_damage *d, struct etl_errinfo *out);

/* 1 while reports (listed or summarised) wait to be taken. Inline: the
 * reader asks once per event. */
static inline int etl__damage_pending(const struct etl_damage *d)
{
	return d->count != 0 || d->dropped != 0;
}

/* Forgets every report and the total (a probe read whose damage the walk
 * will find again). */
void etl__damage_clear(struct etl_damage *d);

void etl__damage_free(struct etl_damage *d);

#endif /* ETL_READ_DAMAGE_H */
