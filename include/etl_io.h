/*
 * etl_io.h - files in and out: an output file written safely (etl_outfile),
 * a stream made readable at any offset (etl_spool_fd) within a bounded
 * temporary space (etl_set_spool_limit), and the check every tool makes
 * before it reads: no output that is an input, no input named twice
 * (etl_check_paths).
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
#include <stdint.h>
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
 *  mode a new file gets, or the mode of the file it replaces), which
 *  etl_outfile_commit() renames over path (rename is atomic within a file
 *  system). Until then path is untouched; if the output is abandoned (or
 *  freed before commit) the temporary is removed and path stays as it
 *  was. A symbolic link (a chain of them, /proc/self/fd/N) is followed:
 *  the file it leads to is replaced the same way, the link stays. A
 *  device, FIFO or socket (/dev/null, /dev/stdout on a terminal or pipe)
 *  is never replaced: it is opened for writing and the bytes go to it as
 *  they come (so abandoning cannot take them back). A directory fails. A path ending in ".gz" is written
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
 *  compressed: the readers recognise it). The copy takes at most the
 *  spool limit (etl_spool_limit()) or the free space of $TMPDIR, whichever
 *  is smaller.
 *  @return : fd itself, or a new fd for the caller to close; -1 with errno
 *  set when the temporary cannot be created or written, or fd cannot be
 *  read; EFBIG when the stream is larger than the room it may take. */
ETL_API int etl_spool_fd(int fd);

/* The spool limit unless etl_set_spool_limit() says otherwise: 4 GiB. */
#define ETL_SPOOL_LIMIT_DEFAULT (UINT64_C(4) << 30)

/*! etl_set_spool_limit() : the most bytes one temporary spool may take.
 *  A stream that must be read at any offset - a gzip or LZ4 input, a pipe
 *  or standard input read in time order (ETL_ORDER_TIME), or given to
 *  etl_spool_fd() - is copied, decompressed, into an unlinked temporary
 *  file in $TMPDIR. The copy takes at most this limit or the free space of
 *  $TMPDIR, whichever is smaller; a stream that expands past it is refused
 *  (the reader's open fails with ETL_E_LIMIT and says so) after that much
 *  work, so a decompression bomb costs bounded time and disk. Reading in
 *  file order (ETL_ORDER_FILE) streams such inputs and spools nothing.
 *  bytes 0 restores ETL_SPOOL_LIMIT_DEFAULT. Process-wide: set it before
 *  opening readers, not while other threads open them. */
ETL_API void etl_set_spool_limit(uint64_t bytes);

/*! etl_spool_limit() : @return : the spool limit in force (without the
 *  free-space bound, which is measured when a spool begins). */
ETL_API uint64_t etl_spool_limit(void);

/*! etl_check_paths() : what a tool checks before it reads anything, so
 *  that no input is lost or read twice: whether output (NULL: the tool
 *  writes no file; "-": standard output) is one of the n inputs ("-":
 *  standard input) - the same regular file under any name: the same path,
 *  a hard or symbolic link, /proc/self/fd/N - and whether two inputs are
 *  the same regular file. Paths that do not exist (yet) clash with
 *  nothing; devices, FIFOs and sockets are not compared.
 *  @return : ETL_OK; ETL_FAILED with a sentence in why (e.g. "the output
 *  'a.etl' is the input 'a.etl': an input is never overwritten", "the
 *  input 'a.etl' is given twice ('a.etl' and './a.etl'): its events would
 *  be read twice") and in *bad the index of the input concerned (the
 *  second of two). why may be NULL. */
ETL_API int etl_check_paths(const char *output, const char *const *inputs, int n, char *why,
                            size_t whylen, int *bad);

#ifdef __cplusplus
}
#endif
#endif /* ETL_IO_H */
