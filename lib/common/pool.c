/*
 * lib/common/pool.c - memory for many small pieces freed together (see
 * lib/common/pool.h).
 */
#define ETL_BUILDING_LIB 1
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/common/pool.h"

#define POOL_CHUNK_MIN 4096u
#define POOL_CHUNK_MAX 65536u

#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_REDZONE 16u
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define POOL_REDZONE 0u
#endif

#define POOL_ALIGN (_Alignof(max_align_t))

struct etl_pool_chunk {
	struct etl_pool_chunk *next;
	size_t used, cap;               /* bytes of data                    */
	max_align_t data[];
};

static struct etl_pool_chunk *chunk_new(size_t cap)
{
	struct etl_pool_chunk *c = malloc(sizeof *c + cap);
	if (!c)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	ASAN_POISON_MEMORY_REGION(c->data, cap);
	return c;
}

void *etl__pool_alloc(struct etl_pool *p, size_t n)
{
	if (n > SIZE_MAX / 2)
		return NULL;
	/* the piece and its gap, rounded up to the alignment */
	size_t need = (n + POOL_REDZONE + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
	if (!need)
		need = POOL_ALIGN;
	struct etl_pool_chunk *c = p->chunks;
	if (!c || c->cap - c->used < need) {
		size_t cap = p->next ? p->next : POOL_CHUNK_MIN;
		if (need > POOL_CHUNK_MAX / 4 || need > cap) {
			/* its own chunk, behind the current one, whose space stays
			 * in use */
			struct etl_pool_chunk *big = chunk_new(need);
			if (!big)
				return NULL;
			if (c) {
				big->next = c->next;
				c->next = big;
			} else {
				p->chunks = big;
			}
			c = big;
		} else {
			c = chunk_new(cap);
			if (!c)
				return NULL;
			c->next = p->chunks;
			p->chunks = c;
			p->next = cap < POOL_CHUNK_MAX ? cap * 2 : POOL_CHUNK_MAX;
		}
	}
	char *piece = (char *)c->data + c->used;
	c->used += need;
	ASAN_UNPOISON_MEMORY_REGION(piece, n);
	memset(piece, 0, n);
	return piece;
}

void etl__pool_free(struct etl_pool *p)
{
	for (struct etl_pool_chunk *c = p->chunks, *next; c; c = next) {
		next = c->next;
		ASAN_UNPOISON_MEMORY_REGION(c->data, c->cap);
		free(c);
	}
	p->chunks = NULL;
	p->next = 0;
}
