/*
 * hdr_perfinfo.c - PERFINFO_TRACE_HEADER (types 0x10 PERFINFO32,
 * 0x11 PERFINFO64).
 *
 * Layout (GC inc/api/ntwmi/traceheaders/perfinfo_trace_header.htm; spec
 * format.md §3.3):
 *   0x00 u16 Version (0x8000 PEBS index, 0x0700 PMC counter count)
 *   0x02 u8  HeaderType   0x03 u8 Flags 0xC0   0x04 u16 Size
 *   0x06 u16 HookId       0x08 i64 SystemTime
 *   0x10 [u64 PebsIndex] [u64 Counter[n]] payload
 * There are no thread or process ids in this header.
 */
#define ETL_BUILDING_LIB 1
#include "formats.h"

#define PERFINFO_HEADER_SIZE 0x10u

static int perfinfo_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first + 4);
	return 0;
}

static int perfinfo_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                           struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	ev->version_word = etl_cur_u16(rec);
	ev->header_type = etl_cur_u8(rec);
	ev->kind = ev->header_type == 0x10 ? ETL_HDR_PERFINFO32 : ETL_HDR_PERFINFO64;
	ev->ptr_size = ev->header_type == 0x10 ? 4 : 8;
	(void)etl_cur_u8(rec);
	ev->size = etl_cur_u16(rec);
	etl__hdr_set_hook(ev, etl_cur_u16(rec));
	ev->timestamp = etl_cur_i64(rec);
	ev->version = (uint8_t)(ev->version_word & 0xFF);
	ev->present |= ETL_EVF_TIMESTAMP;
	if (rec->err)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "PerfInfo record shorter than its header: size=%zu", rec->len);
	if (etl__hdr_read_hw_items(rec, ev, err) != ETL_OK)
		return ETL_FAILED;
	ev->header_size = (uint32_t)rec->pos;
	ev->payload = etl_cur_ptr(rec);
	ev->payload_size = (uint32_t)etl_cur_left(rec);
	return ETL_OK;
}

/* Writer: type byte from ev->kind, marker flags 0xC0, PEBS/PMC items as
 * the version word announces them. Thread/process ids are not carried. */
static uint8_t perfinfo_type(int kind)
{
	return kind == ETL_HDR_PERFINFO32 ? 0x10 : kind == ETL_HDR_PERFINFO64 ? 0x11 : 0;
}

static size_t perfinfo_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	if (!perfinfo_type(ev->kind))
		return 0;
	return etl__hdr_total(PERFINFO_HEADER_SIZE + etl__hdr_hw_items_size(ev->version_word),
	                      ev->payload_size, ETL_HDR_MAX_RECORD16);
}

static int perfinfo_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                           const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	uint16_t vw, hook;
	if (etl__hdr_encode_check("PerfInfo", n, perfinfo_encoded_size(ev, ctx), ev, err) != ETL_OK)
		return ETL_FAILED;
	if (etl__hdr_version_word(ev, &vw, err) != 0 || etl__hdr_hook_word(ev, &hook, err) != 0 ||
	    etl__hdr_hw_items_check(ev, vw, err) != ETL_OK)
		return ETL_FAILED;
	etl_put16(out, vw);
	out[2] = perfinfo_type(ev->kind);
	out[3] = 0xC0;
	etl_put16(out + 0x04, (uint16_t)n);
	etl_put16(out + 0x06, hook);
	etl_put64(out + 0x08, (uint64_t)ev->timestamp);
	size_t at = PERFINFO_HEADER_SIZE;
	at += etl__hdr_write_hw_items(out + at, ev, vw);
	if (ev->payload_size)
		memcpy(out + at, ev->payload, ev->payload_size);
	return ETL_OK;
}

const struct etl_hdr_ops etl__hdr_perfinfo = {
	.name = "perfinfo",
	.types = { 0x10, 0x11 },
	.min_size = PERFINFO_HEADER_SIZE,
	.peek_size = perfinfo_peek_size,
	.decode = perfinfo_decode,
	.encoded_size = perfinfo_encoded_size,
	.encode = perfinfo_encode,
};
