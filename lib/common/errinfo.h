/*
 * lib/common/errinfo.h - a handle's record of its last failure (internal):
 * the reason (enum etl_errcode), the input offset it refers to (0 where
 * there is none) and a sentence. The reader, the buffer walk, the writer
 * and the tracing runtime's sessions each keep one.
 */
#ifndef ETL_COMMON_ERRINFO_H
#define ETL_COMMON_ERRINFO_H

#ifndef ETL_BUILDING_LIB
#error "lib/common/errinfo.h is internal to libetl"
#endif

#include <stdarg.h>
#include <stdint.h>

struct etl_errinfo {
	int code;
	uint64_t off;
	char msg[256];
};

/* Sets every member of e; the sentence is formatted from fmt. */
void etl__errinfo_set(struct etl_errinfo *e, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void etl__errinfo_vset(struct etl_errinfo *e, int code, uint64_t off, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

#endif /* ETL_COMMON_ERRINFO_H */
