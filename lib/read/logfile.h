/*
 * lib/read/logfile.h - decoding the logfile header, the payload of the
 * first record of every file (internal; doc/format.md §2).
 */
#ifndef ETL_READ_LOGFILE_H
#define ETL_READ_LOGFILE_H

#ifndef ETL_BUILDING_LIB
#error "lib/read/logfile.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "etl_reader.h"
#include "formats/hdr/hdr.h"

/* Decodes TRACE_LOGFILE_HEADER(32|64) + names from a header record's
 * payload. ptr_size selects the form. Fills lf (strings allocated; free
 * them with etl__logfile_free). ETL_OK, or ETL_FAILED with err filled. */
int etl__logfile_decode(const uint8_t *payload, size_t n, unsigned ptr_size,
                        struct etl_logfile *lf, struct etl_err *err);
void etl__logfile_free(struct etl_logfile *lf);

/* UTF-16LE (n bytes, stops at NUL) -> newly allocated UTF-8. */
char *etl__utf16_to_utf8(const uint8_t *p, size_t n, size_t *consumed);

#endif /* ETL_READ_LOGFILE_H */
