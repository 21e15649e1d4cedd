/*
 * hdr_instance_fuzzer.c - libFuzzer harness for the instance-header module
 * (formats/hdr/hdr_instance.c, header types 0x0B/0x15; the control byte's layout
 * version picks the pre-1.1 0x38 form or the GUID form):
 * one record decoded on a bounded cursor as the reader core does. Input
 * layout and checked invariants: hdr_fuzz_common.h.
 */
#define ETL_BUILDING_LIB 1
#include "hdr_fuzz_common.h"

static const struct etl_hdr_ops *const mods[] = { &etl__hdr_instance };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return hdr_fuzz_run(mods, sizeof mods / sizeof mods[0], data, size);
}
