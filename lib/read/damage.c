/*
 * lib/read/damage.c - the queue of damage reports (see damage.h): a ring
 * grown on demand, with a cap past which reports are only counted.
 */
#define ETL_BUILDING_LIB 1
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "etl_errors.h"
#include "lib/read/damage.h"

void etl__damage_add(struct etl_damage *d, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	d->total++;
	if (d->count == d->cap) {
		unsigned cap = d->cap ? d->cap * 2 : 16;
		struct etl_errinfo *n = cap <= ETL_DAMAGE_MAX ? malloc(cap * sizeof *n) : NULL;
		if (!n) {
			/* Full (or out of memory): counted, and reported as one
			 * summary once the queue drains. */
			if (!d->dropped++)
				d->dropped_off = off;
			return;
		}
		for (unsigned i = 0; i < d->count; i++)
			n[i] = d->ring[(d->head + i) % d->cap];
		free(d->ring);
		d->ring = n;
		d->cap = cap;
		d->head = 0;
	}
	struct etl_errinfo *p = &d->ring[(d->head + d->count) % d->cap];
	d->count++;
	p->code = code;
	p->off = off;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
}

int etl__damage_take(struct etl_damage *d, struct etl_errinfo *out)
{
	if (d->count == 0) {
		if (!d->dropped)
			return 0;
		out->code = ETL_E_BAD_SIZE;
		out->off = d->dropped_off;
		snprintf(out->msg, sizeof out->msg,
		         "%llu more damage reports were not listed one by one (over %u at once); the first at offset=0x%llx",
		         (unsigned long long)d->dropped, ETL_DAMAGE_MAX, (unsigned long long)d->dropped_off);
		d->dropped = 0;
		return 1;
	}
	*out = d->ring[d->head];
	d->head = (d->head + 1) % d->cap;
	d->count--;
	return 1;
}

void etl__damage_clear(struct etl_damage *d)
{
	d->count = 0;
	d->head = 0;
	d->total = 0;
	d->dropped = 0;
}

void etl__damage_free(struct etl_damage *d)
{
	free(d->ring);
	memset(d, 0, sizeof *d);
}
