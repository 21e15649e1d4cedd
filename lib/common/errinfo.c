/*
 * lib/common/errinfo.c - setting a handle's record of its last failure.
 */
#define ETL_BUILDING_LIB 1
#include <stdio.h>
#include "lib/common/errinfo.h"

void etl__errinfo_vset(struct etl_errinfo *e, int code, uint64_t off, const char *fmt, va_list ap)
{
	e->code = code;
	e->off = off;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

void etl__errinfo_set(struct etl_errinfo *e, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	etl__errinfo_vset(e, code, off, fmt, ap);
	va_end(ap);
}
