/*
 * lib/common/fmt.h - fast text formatting of numbers, GUIDs and times (internal).
 *
 * The output formats write tens of numbers per event; going through
 * snprintf costs about a microsecond per event in format parsing alone.
 * These helpers write the same text as the printf conversions named below,
 * without a terminating NUL, and return the number of bytes written. The
 * caller provides room for the maximum length given for each.
 * tests/check_fmt.c compares them with snprintf.
 */
#ifndef ETL_FMT_H
#define ETL_FMT_H

#ifndef ETL_BUILDING_LIB
#error "lib/common/fmt.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl_event.h"

#define ETL_FMT_U64_MAX 20          /* "18446744073709551615"          */
#define ETL_FMT_I64_MAX 20          /* "-9223372036854775808"          */
#define ETL_FMT_HEX64_MAX 16        /* "ffffffffffffffff"              */
#define ETL_FMT_GUID_LEN 36         /* 8-4-4-4-12, no braces           */
#define ETL_FMT_TIME_MAX 30         /* "-27627-04-19T21:11:54.5224192Z" */

/* printf("%llu", v) */
size_t etl__fmt_u64(char *out, uint64_t v);

/* printf("%lld", v) */
size_t etl__fmt_i64(char *out, int64_t v);

/* printf("%llx", v): lower-case hex, no prefix, no padding. out must
 * have room for ETL_FMT_HEX64_MAX bytes: the bytes after the digits may
 * be overwritten (the digits are stored a word at a time). */
size_t etl__fmt_hex64(char *out, uint64_t v);

/* printf("%llX", v): upper-case hex, no prefix, no padding; room as above */
size_t etl__fmt_hex64_uc(char *out, uint64_t v);

/* The same text by the portable byte-at-a-time loop (upper: "%llX"),
 * writing only the digits; for tests of the word-at-a-time one. */
size_t etl__fmt_hex64_portable(char *out, uint64_t v, int upper);

/* f (< 10^7) as exactly seven decimal digits ("%07u"). */
void etl__fmt_frac7(char *out, uint32_t f);

/* etl_guid_format()'s text: exactly ETL_FMT_GUID_LEN bytes. */
void etl__fmt_guid(char *out, const struct etl_guid *g);

/* etl_filetime_format()'s text ("%04lld-%02u-%02uT%02u:%02u:%02u.%07lldZ"
 * of the proleptic Gregorian UTC date): at most ETL_FMT_TIME_MAX bytes,
 * for every int64_t. Defined in lib/common/time.c, beside the calendar code. */
size_t etl__fmt_filetime(char *out, int64_t ft);

#endif /* ETL_FMT_H */
