/*
 * etl_io.h - files in and out: an output file written safely (etl_outfile)
 * and a stream made readable at any offset (etl_spool_fd).
 *
 * Basic outline, rendering to a file (etl_output.h):
 *
 *     static int to_file(void *ctx, const void *p, size_t n)
 *     {
 *         return etl_outfile_write(ctx, p, n);
 *     }
 *     ...
 *     etl_outfile *f = etl_outfile_new();
 *     if (etl_outfile_open(f, "events.xml.gz") != ETL_OK)
 *         fail with etl_outfile_errmsg(f);
 *     etl_output *o = etl_output_new("xml", to_file, f);
 *     ... etl_output_begin / _event / _end ...
 *     if (all went well)
 *         etl_outfile_commit(f);           // now events.xml.gz exists
 *     etl_outfile_free(f);                 // not committed: nothing is left
 *
 * The .etl writer (etl_writer_open_file()) writes its files the same way,
 * with the same rules for names ending in .gz and .lz4.
 */
#ifndef ETL_IO_H
#define ETL_IO_H

#include "etl_export.h"

#include <stddef.h>
#include "etl_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etl_outfile etl_outfile;

/*! etl_outfile_new() : a handle for one output; open it with
 *  etl_outfile_open() or etl_outfile_open_fd().
 *  @return : the handle, or NULL when memory is short. Free it with
 *  etl_outfile_free(). */
ETL_API etl_outfile *etl_outfile_new(void);

/*! etl_outfile_open() : an output to the file path, written safely: the
 *  bytes go to a temporary file beside it ("<path>.tmp-XXXXXX", with the
 *  mode a new file gets), which etl_outfile_commit() renames over path
 *  (rename is atomic within a file system). Until then path is untouched;
 *  if the output is abandoned (or freed before commit) the temporary is
 *  removed and path stays as it was. A path ending in ".gz" is written
 *  as gzip (deflate level 6), one ending in ".lz4" as one LZ4 frame
 *  (default preferences), compressed as the bytes come (see
 *  etl_outfile_codec_suffix()). path is copied.
 *  @return : ETL_OK; ETL_FAILED when the handle was opened before (nothing
 *  changes); ETL_FATAL when the temporary cannot be created or memory is
 *  short (etl_outfile_errmsg() says why, e.g. "cannot create a temporary
 *  file beside it: Permission denied"). */
ETL_API int etl_outfile_open(etl_outfile *f, const char *path);

/*! etl_outfile_open_fd() : an output to fd (standard output, a pipe, a
 *  file the caller opened), written in order with write(2) as the bytes
 *  come (no temporary, no compression). fd stays the caller's: it is
 *  never closed, and etl_outfile_abandon() cannot take back what was
 *  already written.
 *  @return : ETL_OK; ETL_FAILED when the handle was opened before (nothing
 *  changes); ETL_FATAL when memory is short. */
ETL_API int etl_outfile_open_fd(etl_outfile *f, int fd);

/*! etl_outfile_write() : appends n bytes (data need not outlive the call;
 *  bytes are collected and written in large blocks). The form of an
 *  etl_output_write_fn: ETL_OK is 0.
 *  @return : ETL_OK; ETL_FATAL when writing failed now or before, or the
 *  handle is not open (etl_outfile_errmsg(), e.g. "cannot write: No space
 *  left on device"); every later write fails the same way. */
ETL_API int etl_outfile_write(etl_outfile *f, const void *data, size_t n);

/*! etl_outfile_commit() : finishes the output: writes what is pending,
 *  ends the compressed stream and renames the temporary over the path
 *  (for etl_outfile_open_fd(): writes what is pending). The handle is
 *  then spent: only etl_outfile_free() is useful.
 *  @return : ETL_OK; ETL_FATAL when a write, the compression or the rename
 *  failed (etl_outfile_errmsg(); the temporary is removed and the path
 *  untouched), or the handle was not open. */
ETL_API int etl_outfile_commit(etl_outfile *f);

/*! etl_outfile_abandon() : drops the output: the temporary is removed and
 *  the path untouched; bytes not yet written to an fd are discarded. The
 *  handle is then spent. Nothing happens after etl_outfile_commit(). */
ETL_API void etl_outfile_abandon(etl_outfile *f);

/*! etl_outfile_free() : abandons the output if it was neither committed
 *  nor abandoned, and frees the handle. NULL is allowed. */
ETL_API void etl_outfile_free(etl_outfile *f);

/*! etl_outfile_errmsg() : what failed first, as a lower-case phrase with
 *  the system's reason when there is one ("cannot write: File too large");
 *  "" if nothing failed. Owned by the handle. */
ETL_API const char *etl_outfile_errmsg(const etl_outfile *f);

/*! etl_outfile_codec_suffix() : the length of the ending of path that makes
 *  an output compressed: 3 for ".gz", 4 for ".lz4", 0 for any other name
 *  (NULL too). Writers of numbered pieces put the number before it. */
ETL_API size_t etl_outfile_codec_suffix(const char *path);

/*! etl_spool_fd() : fd made readable at any offset and any number of
 *  times, for instance standard input given to several readers
 *  (etl_reader_open_fd()): a regular file is returned as it is; anything
 *  else (a pipe, a terminal) is read to its end into an unlinked temporary
 *  file in $TMPDIR (default /tmp), whose fd is returned positioned at its
 *  start. The bytes are copied as they come (a gzip or LZ4 input stays
 *  compressed: the readers recognise it).
 *  @return : fd itself, or a new fd for the caller to close; -1 with errno
 *  set when the temporary cannot be created or written, or fd cannot be
 *  read. */
ETL_API int etl_spool_fd(int fd);

#ifdef __cplusplus
}
#endif
#endif /* ETL_IO_H */
