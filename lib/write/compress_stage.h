/*
 * lib/write/compress_stage.h - the compressed-file stage of the writer
 * (lib/write/compress_stage.c): stamped trace buffers in, compressed
 * buffers out, packed into the file as the Windows user-mode logger packs
 * them.
 *
 * The stage keeps its own buffers and knows nothing of the writer. It
 * writes to the output it is given, appending at the file end it is given
 * (*end, advanced by what it writes). What a call did besides its result
 * comes back in a struct etl__wc_report, which the writer folds into its
 * own figures and error.
 */
#ifndef ETL_WRITE_COMPRESS_STAGE_H
#define ETL_WRITE_COMPRESS_STAGE_H

#ifndef ETL_BUILDING_LIB
#error "lib/write/compress_stage.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include "formats/hdr/hdr.h"

struct etl_out;
struct etl__wc;

/* What one call of the stage did. */
struct etl__wc_report {
	uint32_t taken;            /* trace buffers taken in                  */
	uint32_t lost;             /* trace buffers that will not reach the
	                              file                                    */
	struct etl_err err;        /* why, whenever the call did not return
	                              ETL_OK (err.code 0 otherwise)           */
};

/*! etl__wc_new() : a stage for trace buffers of buffer_size bytes.
 *  @return : the stage, or NULL (out of memory, said in r). */
struct etl__wc *etl__wc_new(uint32_t buffer_size, struct etl__wc_report *r);
void etl__wc_free(struct etl__wc *c);

/*! etl__wc_add_buffer() : takes the stamped trace buffer buf whose records
 *  end at pos; writes a trace buffer's worth of compressed bytes each time
 *  that much waits. @return : ETL_OK; ETL_FAILED when a write to an fd or
 *  sink failed (the whole buffers waiting are lost, the stage goes on);
 *  ETL_FATAL when compression failed or a write to a path did (the file
 *  is spent). */
int etl__wc_add_buffer(struct etl__wc *c, struct etl_out *out, uint64_t *end, uint8_t *buf,
                       uint32_t pos, struct etl__wc_report *r);

/*! etl__wc_finish() : writes what waits, short, and marks the last buffer
 *  with the flush marker. Same returns. */
int etl__wc_finish(struct etl__wc *c, struct etl_out *out, uint64_t *end,
                   struct etl__wc_report *r);

/*! etl__wc_sync() : writes what waits at end without taking it out: the
 *  file is readable as it stands, and the write that completes those
 *  bytes later lands on them again. @return : ETL_OK, ETL_FATAL. */
int etl__wc_sync(const struct etl__wc *c, struct etl_out *out, uint64_t end,
                 struct etl__wc_report *r);

/*! etl__wc_pending() : compressed bytes waiting to be written (0 for no
 *  stage). */
size_t etl__wc_pending(const struct etl__wc *c);

/*! etl__wc_buffers_in_file() : compressed buffers that are, or will be
 *  once what waits is written, in the file. */
uint64_t etl__wc_buffers_in_file(const struct etl__wc *c);

#endif /* ETL_WRITE_COMPRESS_STAGE_H */
