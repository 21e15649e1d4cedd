/*
 * hdr_perfinfo_fuzzer.c - libFuzzer harness for the PERFINFO_TRACE_HEADER module
 * (formats/hdr/hdr_perfinfo.c, header types 0x10/0x11):
 * one record decoded on a bounded cursor as the reader core does. Input
 * layout and checked invariants: hdr_fuzz_common.h.
 */
#define ETL_BUILDING_LIB 1
#include "hdr_fuzz_common.h"

static const struct etl_hdr_ops *const mods[] = { &etl__hdr_perfinfo };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return hdr_fuzz_run(mods, sizeof mods / sizeof mods[0], data, size);
}
