/*
 * hdr_system.c - SYSTEM_TRACE_HEADER (types 0x01 SYSTEM32, 0x02 SYSTEM64).
 *
 * Layout (GC inc/api/ntwmi/traceheaders/system_trace_header.htm;
 * doc/format.md §3.2):
 *   0x00 u16 Version     (low byte = payload version; 0x8700 = PEBS/PMC)
 *   0x02 u8  HeaderType  0x01 / 0x02
 *   0x03 u8  Flags       0xC0
 *   0x04 u16 Size        total, header and PEBS/PMC items included
 *   0x06 u16 HookId      Group << 8 | Type
 *   0x08 u32 ThreadId
 *   0x0C u32 ProcessId
 *   0x10 i64 SystemTime  timestamp in the logger clock
 *   0x18 u32 KernelTime
 *   0x1C u32 UserTime
 *   0x20 [u64 PebsIndex] [u64 Counter[n]] payload
 * The code is shared with the other system-style headers (sysstyle.c).
 */
#define ETL_BUILDING_LIB 1
#include "formats/hdr/hdr.h"

static const struct etl_sys_layout layout = {
	.what = "System",
	.type32 = 0x01, .type64 = 0x02,
	.kind32 = ETL_HDR_SYSTEM32, .kind64 = ETL_HDR_SYSTEM64,
	.header_size = 0x20,
	.has_ids = 1,
	.has_cpu_times = 1,
};

static int system_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                  struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	return etl__sys_decode(&layout, rec, ev, err);
}

static size_t system_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	return etl__sys_encoded_size(&layout, ev);
}

static int system_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                  const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	(void)ctx;
	return etl__sys_encode(&layout, out, n, ev, err);
}

const struct etl_hdr_ops etl__hdr_system = {
	.name = "system",
	.types = { 0x01, 0x02 },
	.min_size = 0x20,
	.peek_size = etl__sys_peek_size,
	.decode = system_decode,
	.encoded_size = system_encoded_size,
	.encode = system_encode,
};
