/*
 * hdr_perfinfo.c - PERFINFO_TRACE_HEADER (types 0x10 PERFINFO32,
 * 0x11 PERFINFO64).
 *
 * Layout (GC inc/api/ntwmi/traceheaders/perfinfo_trace_header.htm;
 * doc/format.md §3.3):
 *   0x00 u16 Version (0x8000 PEBS index, 0x0700 PMC counter count)
 *   0x02 u8  HeaderType   0x03 u8 Flags 0xC0   0x04 u16 Size
 *   0x06 u16 HookId       0x08 i64 SystemTime
 *   0x10 [u64 PebsIndex] [u64 Counter[n]] payload
 * There are no thread or process ids in this header. The code is shared
 * with the other system-style headers (sysstyle.c).
 */
#define ETL_BUILDING_LIB 1
#include "formats/hdr/hdr.h"

static const struct etl_sys_layout layout = {
	.what = "PerfInfo",
	.type32 = 0x10, .type64 = 0x11,
	.kind32 = ETL_HDR_PERFINFO32, .kind64 = ETL_HDR_PERFINFO64,
	.header_size = 0x10,
	.has_ids = 0,
	.has_cpu_times = 0,
};

static int perfinfo_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                    struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	return etl__sys_decode(&layout, rec, ev, err);
}

static size_t perfinfo_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	return etl__sys_encoded_size(&layout, ev);
}

static int perfinfo_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                    const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	(void)ctx;
	return etl__sys_encode(&layout, out, n, ev, err);
}

const struct etl_hdr_ops etl__hdr_perfinfo = {
	.name = "perfinfo",
	.types = { 0x10, 0x11 },
	.min_size = 0x10,
	.peek_size = etl__sys_peek_size,
	.decode = perfinfo_decode,
	.encoded_size = perfinfo_encoded_size,
	.encode = perfinfo_encode,
};
