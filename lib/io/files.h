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

/* Copies what pull() produces (until it returns 0) into a new unlinked
 * temporary file in $TMPDIR (default /tmp) named after prefix. pull
 * returns a byte count, 0 at the end, or -1 with errno set.
 * @return : the file's fd (its offset at the end) with its size in *size,
 * or -1 with errno set and *step telling what failed (0 creating the
 * file, 1 pull(), 2 writing, 3 memory). */
typedef long (*etl_io_pull_fn)(void *ctx, uint8_t *buf, size_t n);
int etl__io_spool(const char *prefix, etl_io_pull_fn pull, void *ctx, uint64_t *size, int *step);

#endif /* ETL_IO_FILES_H */
