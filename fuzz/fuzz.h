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

/* Inputs larger than this are ignored: bigger ones find nothing new and
 * slow the fuzzer down. */
#define FUZZ_MAX_INPUT (4u * 1024u * 1024u)

#endif
