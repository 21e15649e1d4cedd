/*
 * lib/common/zero.h - zeroing a large fixed-size struct once per record
 * (internal).
 *
 * GCC's generic x86-64 tuning expands any fixed memset above 64 bytes into
 * "rep stosq", which costs about 20 ns for a 300-byte struct (a fifth of
 * the file-order walk in bench/read); unrolled 16-byte stores take under
 * half that. ETL_ZERO(p) zeroes *p that way: n is a constant at every use,
 * so the loop unrolls fully; the last store overlaps the one before when
 * the size is not a multiple of 16.
 */
#ifndef ETL_COMMON_ZERO_H
#define ETL_COMMON_ZERO_H

#include <stddef.h>
#include <string.h>

static inline __attribute__((always_inline)) void etl__zero_unrolled(void *dst, size_t n)
{
	static const unsigned char zero[16];
	unsigned char *p = dst;
#pragma GCC unroll 64
	for (size_t i = 0; i + 16 <= n; i += 16)
		memcpy(p + i, zero, 16);
	memcpy(p + n - 16, zero, 16);
}

#define ETL_ZERO(p)                                                           \
	do {                                                                  \
		_Static_assert(sizeof *(p) >= 16, "ETL_ZERO needs 16 bytes"); \
		etl__zero_unrolled((p), sizeof *(p));                         \
	} while (0)

#endif /* ETL_COMMON_ZERO_H */
