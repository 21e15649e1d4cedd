/*
 * hdr_event_fuzzer.c - libFuzzer harness for the EVENT_HEADER module and its
 * extended-item chain (formats/hdr/hdr_event.c, header types 0x12/0x13):
 * one record decoded on a bounded cursor as the reader core does. Input
 * layout and checked invariants: hdr_fuzz_common.h.
 */
#define ETL_BUILDING_LIB 1
#include "hdr_fuzz_common.h"

static const struct etl_hdr_ops *const mods[] = { &etl__hdr_event };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return hdr_fuzz_run(mods, sizeof mods / sizeof mods[0], data, size);
}
