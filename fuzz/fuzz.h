/*
 * fuzz.h - shared by the libFuzzer harnesses in fuzz/.
 */
#ifndef ETL_FUZZ_H
#define ETL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant the library promises; abort() makes both libFuzzer and the
 * standalone replay driver report it. */
#define FUZZ_ASSERT(cond)                                                        \
	do {                                                                         \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed\n", __FILE__, __LINE__, #cond); \
			abort();                                                             \
		}                                                                        \
	} while (0)

/* The invariants of a decode result (etl_decoder_decode() returned rc)
 * that failed: ETL_FAILED with a known errcode, an error and no
 * properties. Returns 1 when rc is a failure (checked), 0 for ETL_OK. */
#ifdef ETL_DECODE_H
static inline int fuzz_decode_failed(int rc, const struct etl_decoded *r)
{
	FUZZ_ASSERT(rc == ETL_OK || rc == ETL_FAILED);
	if (rc == ETL_OK)
		return 0;
	FUZZ_ASSERT(r->error && r->error[0]);
	FUZZ_ASSERT(r->errcode > ETL_E_NONE && r->errcode < ETL_E_MAX_);
	FUZZ_ASSERT(r->n_props == 0);
	return 1;
}
#endif

/* Inputs larger than this are ignored: bigger ones find nothing new and
 * slow the fuzzer down. */
#define FUZZ_MAX_INPUT (4u * 1024u * 1024u)

#endif
