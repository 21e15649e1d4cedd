/*
 * lib/io/files.h - the file chores of input and output (internal, defined
 * in lib/io/files.c): writing every byte, a temporary beside an output, a
 * stream copied into an unlinked temporary.
 */
#ifndef ETL_IO_FILES_H
#define ETL_IO_FILES_H

#ifndef ETL_BUILDING_LIB
#error "lib/io/files.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Writes the n pieces of iov one after the other to fd from offset off
 * (pwritev), or where fd stands when off is negative (writev), retrying
 * short writes and EINTR. iov is not changed.
 * @return : 0, or -1 with errno set (ENOSPC for a write of nothing). */
int etl__io_writev_all(int fd, const struct iovec *iov, int n, int64_t off);

/* Writes all n bytes to fd at offset off (pwrite), or where fd stands
 * when off is negative (write), retrying short writes and EINTR.
 * @return : 0, or -1 with errno set (ENOSPC for a write of nothing). */
int etl__io_write_all(int fd, const void *p, size_t n, int64_t off);

/* A new temporary file "<path>.tmp-XXXXXX" beside path, with the mode a
 * new file would get. @return : its fd with the name in *tmp (malloc'd),
 * or -1 with errno set. */
int etl__io_temp_beside(const char *path, char **tmp);

/* A new temporary file in $TMPDIR (default /tmp) named after prefix,
 * already unlinked. @return : its fd, or -1 with errno set. */
int etl__io_temp_unlinked(const char *prefix);

/* The most bytes a spool may take now: etl_spool_limit(), or the free
 * space of $TMPDIR when that is smaller (*by_space then 1). */
uint64_t etl__io_spool_room(int *by_space);

/* Copies what pull() produces (until it returns 0) into a new unlinked
 * temporary file in $TMPDIR (default /tmp) named after prefix, up to
 * etl__io_spool_room(). pull returns a byte count, 0 at the end, or -1
 * with errno set.
 * @return : the file's fd (its offset at the end) with its size in *size,
 * or -1 with errno set and *step telling what failed (0 creating the
 * file, 1 pull(), 2 writing, 3 memory, 4 the stream passes the spool
 * limit, 5 it passes the free space of $TMPDIR; for 4 and 5 *size is
 * that room). */
typedef long (*etl_io_pull_fn)(void *ctx, uint8_t *buf, size_t n);
int etl__io_spool(const char *prefix, etl_io_pull_fn pull, void *ctx, uint64_t *size, int *step);

/* What an output path names (etl__io_output_target()). */
enum { ETL_TARGET_NEW = 1, ETL_TARGET_EXISTING, ETL_TARGET_SPECIAL };

struct stat;

/* Where output to path must go: a regular file that exists (through any
 * symbolic links: *target is the file itself, to be replaced by a
 * temporary renamed over it), a new file (*target is where a dangling
 * link chain ends, or path), or a device, FIFO or socket (*target is
 * path, written through). *st is the target's when it exists.
 * @return : ETL_TARGET_*, with *target malloc'd; -1 with errno set (EISDIR
 * for a directory). */
int etl__io_output_target(const char *path, char **target, struct stat *st);

#endif /* ETL_IO_FILES_H */
