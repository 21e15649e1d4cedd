/*
 * lib/common/pool.h - memory for many small pieces that all live and die
 * together (internal): the schemas a decoder loads (manifest, MOF and
 * EventMetadata sets, WPP messages) keep thousands of strings and arrays
 * until the decoder goes.
 *
 * Pieces come out of chunks the pool allocates, so that a piece costs no
 * malloc() and free() of its own. Chunks grow from 4 to 64 KiB as the pool
 * does, so a pool of a few pieces stays small; a piece above 16 KiB, or
 * larger than the next chunk, gets a chunk of its own. Under
 * AddressSanitizer the bytes after each piece and the unused rest of a
 * chunk are poisoned, so that reading or writing past a piece is caught as
 * it is for memory of its own.
 */
#ifndef ETL_COMMON_POOL_H
#define ETL_COMMON_POOL_H

#include <stddef.h>

struct etl_pool_chunk;

/* An empty pool is all zeroes. */
struct etl_pool {
	struct etl_pool_chunk *chunks;  /* the newest first                */
	size_t next;                    /* size of the next chunk (0: the first) */
};

/* n zeroed bytes, aligned for any type, owned by the pool until
 * etl__pool_free(). NULL on out-of-memory. */
void *etl__pool_alloc(struct etl_pool *p, size_t n);

/* Frees every piece of the pool and leaves it empty (and usable). */
void etl__pool_free(struct etl_pool *p);

#endif
