/*
 * hdr_legacy_fuzzer.c - libFuzzer harness for the legacy modules of
 * formats/hdr/hdr_legacy.c: ERROR (0x0D), TIMED (0x0C) and WNODE_HEADER blocks
 * (marker bit 31 clear); bits 5-7 of the control byte pick one of the three:
 * one record decoded on a bounded cursor as the reader core does. Input
 * layout and checked invariants: hdr_fuzz_common.h.
 */
#define ETL_BUILDING_LIB 1
#include "hdr_fuzz_common.h"

static const struct etl_hdr_ops *const mods[] = {
	&etl__hdr_error, &etl__hdr_timed, &etl__hdr_wnode,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return hdr_fuzz_run(mods, sizeof mods / sizeof mods[0], data, size);
}
