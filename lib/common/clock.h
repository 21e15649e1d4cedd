/*
 * lib/common/clock.h - converting a file's raw timestamps to UTC and back
 * (internal).
 *
 * The logfile header names the clock a trace was written with (QPC, system
 * time or CPU cycles) and its frequency; raw timestamps become FILETIME
 * (100 ns ticks since 1601) by the rule of doc/format.md §5. Defined in
 * lib/common/time.c beside the calendar code.
 */
#ifndef ETL_COMMON_CLOCK_H
#define ETL_COMMON_CLOCK_H

#ifndef ETL_BUILDING_LIB
#error "lib/common/clock.h is internal to libetl"
#endif

#include <stdint.h>
#include "etl_reader.h"

struct etl_clock {
	int usable;
	int64_t t0;      /* raw timestamp of the logfile-header record */
	int64_t start;   /* StartTime, FILETIME                         */
	int64_t mul, div;
	int64_t factor;  /* mul / div when that is a whole number, else 0 */
};

/* Sets ck up from the logfile header; ck->usable is 0 when the header
 * does not allow conversion (no frequency, unknown clock). */
void etl__clock_init(struct etl_clock *ck, const struct etl_logfile *lf);

/* raw -> FILETIME in *ft. ETL_OK, or ETL_FAILED when ck is not usable or
 * the result does not fit. */
int etl__clock_to_utc(const struct etl_clock *ck, int64_t raw, int64_t *ft);

/* FILETIME -> the raw value whose conversion comes nearest ft (exact for
 * clocks of 10 MHz and faster), in 128-bit arithmetic. ETL_OK, or
 * ETL_FAILED when ck is not usable or the value does not fit. */
int etl__clock_from_utc(const struct etl_clock *ck, int64_t ft, int64_t *raw);

/* A SYSTEMTIME (8 little-endian u16: year, month, day of week, day, hour,
 * minute, second, milliseconds; 16 bytes at b) as a FILETIME in *ft: 1,
 * or 0 when it is no date in 1601..30827 (the day of week is not read). */
int etl__systemtime_to_filetime(const uint8_t *b, int64_t *ft);

#endif /* ETL_COMMON_CLOCK_H */
