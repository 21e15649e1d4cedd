/*
 * lib/common/cursor.h - the one bounds-checked cursor through which every byte of
 * untrusted input is read (internal).
 *
 * Invariant: pos <= len at all times. A read that does not fit sets the
 * sticky err flag, returns 0 and leaves pos unchanged, so a decoder can read
 * a fixed structure field by field and test c->err once at the end.
 * All multi-byte values are little-endian and decoded byte-wise through
 * unsigned temporaries, so alignment and host byte order never matter.
 */
#ifndef ETL_CUR_H
#define ETL_CUR_H

#ifndef ETL_BUILDING_LIB
#error "lib/common/cursor.h is internal to libetl"
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "etl_event.h"

struct etl_cur {
	const uint8_t *p;   /* first byte the cursor may read               */
	size_t len;         /* bytes readable at p                          */
	size_t pos;         /* next byte to read; pos <= len                */
	int err;            /* sticky: set by the first read that overran   */
};

static inline uint16_t etl_le16(const uint8_t *b)
{
	return (uint16_t)((unsigned)b[0] | ((unsigned)b[1] << 8));
}
static inline uint32_t etl_le32(const uint8_t *b)
{
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) |
	       ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
static inline uint64_t etl_le64(const uint8_t *b)
{
	return (uint64_t)etl_le32(b) | ((uint64_t)etl_le32(b + 4) << 32);
}
static inline void etl_guid_dec(const uint8_t *b, struct etl_guid *g)
{
	g->data1 = etl_le32(b);
	g->data2 = etl_le16(b + 4);
	g->data3 = etl_le16(b + 6);
	memcpy(g->data4, b + 8, 8);
}

static inline void etl_cur_init(struct etl_cur *c, const uint8_t *p, size_t len)
{
	c->p = p;
	c->len = len;
	c->pos = 0;
	c->err = 0;
}

/* Bytes left to read. */
static inline size_t etl_cur_left(const struct etl_cur *c)
{
	return c->len - c->pos;
}

/* 1 if n more bytes can be read; otherwise sets err and returns 0.
 * Written in subtraction form so it cannot overflow. */
static inline int etl_cur_need(struct etl_cur *c, size_t n)
{
	if (c->err || n > c->len - c->pos) {
		c->err = 1;
		return 0;
	}
	return 1;
}

static inline const uint8_t *etl_cur_ptr(const struct etl_cur *c)
{
	return c->p + c->pos;
}

static inline uint8_t etl_le8(const uint8_t *b)
{
	return b[0];
}
/* etl_cur_u8/u16/u32/u64: the next n-byte little-endian value, or 0 (and
 * the error flag set) when fewer bytes are left. */
#define ETL_CUR_READER(type, n, load)                                         \
	static inline type##_t etl_cur_u##n(struct etl_cur *c)                \
	{                                                                     \
		type##_t v = 0;                                               \
		if (etl_cur_need(c, n / 8)) {                                 \
			v = load(c->p + c->pos);                              \
			c->pos += n / 8;                                      \
		}                                                             \
		return v;                                                     \
	}
ETL_CUR_READER(uint8, 8, etl_le8)
ETL_CUR_READER(uint16, 16, etl_le16)
ETL_CUR_READER(uint32, 32, etl_le32)
ETL_CUR_READER(uint64, 64, etl_le64)
#undef ETL_CUR_READER
static inline int64_t etl_cur_i64(struct etl_cur *c)
{
	return (int64_t)etl_cur_u64(c);
}
/* IEEE 754 single and double, little-endian. */
static inline float etl_cur_f32(struct etl_cur *c)
{
	uint32_t u = etl_cur_u32(c);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}
static inline double etl_cur_f64(struct etl_cur *c)
{
	uint64_t u = etl_cur_u64(c);
	double f;
	memcpy(&f, &u, sizeof f);
	return f;
}
/* An unsigned little-endian integer of n bytes (1, 2, 4 or 8) at q. */
static inline uint64_t etl_le_uint(const uint8_t *q, unsigned n)
{
	return n == 1 ? q[0] : n == 2 ? etl_le16(q) : n == 4 ? etl_le32(q) : etl_le64(q);
}
/* u, an n-byte two's complement value, sign-extended to 64 bits. */
static inline uint64_t etl_sign_extend(uint64_t u, unsigned n)
{
	return (uint64_t)(n == 1 ? (int8_t)u : n == 2 ? (int16_t)u : n == 4 ? (int32_t)u : (int64_t)u);
}
static inline void etl_cur_guid(struct etl_cur *c, struct etl_guid *g)
{
	if (etl_cur_need(c, 16)) { etl_guid_dec(c->p + c->pos, g); c->pos += 16; }
	else memset(g, 0, sizeof *g);
}
/* Reads a pointer-sized value (4 or 8 bytes). */
static inline uint64_t etl_cur_ptrval(struct etl_cur *c, unsigned ptr_size)
{
	return ptr_size == 4 ? etl_cur_u32(c) : etl_cur_u64(c);
}
/* Borrows n bytes; NULL (and err) if they are not there. */
static inline const uint8_t *etl_cur_bytes(struct etl_cur *c, size_t n)
{
	const uint8_t *b = NULL;
	if (etl_cur_need(c, n)) { b = c->p + c->pos; c->pos += n; }
	return b;
}
static inline int etl_cur_skip(struct etl_cur *c, size_t n)
{
	if (!etl_cur_need(c, n))
		return 0;
	c->pos += n;
	return 1;
}
/* A child cursor over the next n bytes; the parent moves past them. */
static inline int etl_cur_sub(struct etl_cur *c, size_t n, struct etl_cur *sub)
{
	if (!etl_cur_need(c, n)) {
		etl_cur_init(sub, c->p + c->pos, 0);
		sub->err = 1;
		return 0;
	}
	etl_cur_init(sub, c->p + c->pos, n);
	c->pos += n;
	return 1;
}

/* Checked size arithmetic: 1 on success, 0 on overflow. */
static inline int etl_ckd_add_size(size_t *r, size_t a, size_t b)
{
	return !__builtin_add_overflow(a, b, r);
}
static inline int etl_ckd_mul_size(size_t *r, size_t a, size_t b)
{
	return !__builtin_mul_overflow(a, b, r);
}

#define ETL_ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

/* Little-endian stores, the writer-side mirror of etl_le16/32/64. */
static inline void etl_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}
static inline void etl_put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}
static inline void etl_put64(uint8_t *b, uint64_t v)
{
	etl_put32(b, (uint32_t)v);
	etl_put32(b + 4, (uint32_t)(v >> 32));
}
static inline void etl_put_guid(uint8_t *b, const struct etl_guid *g)
{
	etl_put32(b, g->data1);
	etl_put16(b + 4, g->data2);
	etl_put16(b + 6, g->data3);
	memcpy(b + 8, g->data4, 8);
}


#endif /* ETL_CUR_H */
