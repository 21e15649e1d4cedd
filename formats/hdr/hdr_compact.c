/*
 * hdr_compact.c - compact SYSTEM_TRACE_HEADER (types 0x03 COMPACT32,
 * 0x04 COMPACT64; Windows 8 and later).
 *
 * Layout (GC traceheaders index; doc/format.md §3.2): the first 0x18 bytes
 * of SYSTEM_TRACE_HEADER without KernelTime/UserTime.
 *   0x00 u16 Version   0x02 u8 HeaderType   0x03 u8 Flags 0xC0
 *   0x04 u16 Size      0x06 u16 HookId      0x08 u32 ThreadId
 *   0x0C u32 ProcessId 0x10 i64 SystemTime
 *   0x18 [u64 PebsIndex] [u64 Counter[n]] payload
 * The code is shared with the other system-style headers (sysstyle.c).
 */
#define ETL_BUILDING_LIB 1
#include "formats/hdr/hdr.h"

static const struct etl_sys_layout layout = {
	.what = "Compact",
	.type32 = 0x03, .type64 = 0x04,
	.kind32 = ETL_HDR_COMPACT32, .kind64 = ETL_HDR_COMPACT64,
	.header_size = 0x18,
	.has_ids = 1,
	.has_cpu_times = 0,
};

static int compact_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                   struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	return etl__sys_decode(&layout, rec, ev, err);
}

static size_t compact_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	return etl__sys_encoded_size(&layout, ev);
}

static int compact_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                   const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	(void)ctx;
	return etl__sys_encode(&layout, out, n, ev, err);
}

const struct etl_hdr_ops etl__hdr_compact = {
	.name = "compact",
	.types = { 0x03, 0x04 },
	.min_size = 0x18,
	.peek_size = etl__sys_peek_size,
	.decode = compact_decode,
	.encoded_size = compact_encoded_size,
	.encode = compact_encode,
};
