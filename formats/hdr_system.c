/*
 * hdr_system.c - SYSTEM_TRACE_HEADER (types 0x01 SYSTEM32, 0x02 SYSTEM64).
 *
 * Layout (GC inc/api/ntwmi/traceheaders/system_trace_header.htm; spec
 * format.md §3.2):
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
 */
#define ETL_BUILDING_LIB 1
#include "formats.h"

#define SYSTEM_HEADER_SIZE 0x20u

/* SPEC: §3.2 - the total size of system-style records is the u16 at +4. */
static int system_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first + 4);
	return 0;
}

static int system_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                         struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	ev->version_word = etl_cur_u16(rec);
	ev->header_type = etl_cur_u8(rec);
	ev->kind = ev->header_type == 0x01 ? ETL_HDR_SYSTEM32 : ETL_HDR_SYSTEM64;
	ev->ptr_size = ev->header_type == 0x01 ? 4 : 8;
	(void)etl_cur_u8(rec);                 /* marker flags 0xC0 */
	ev->size = etl_cur_u16(rec);
	etl__hdr_set_hook(ev, etl_cur_u16(rec));
	ev->tid = etl_cur_u32(rec);
	ev->pid = etl_cur_u32(rec);
	ev->timestamp = etl_cur_i64(rec);
	ev->kernel_time = etl_cur_u32(rec);
	ev->user_time = etl_cur_u32(rec);
	ev->version = (uint8_t)(ev->version_word & 0xFF);
	ev->present |= ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP;
	if (rec->err)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "System record shorter than its header: size=%zu", rec->len);
	if (etl__hdr_read_hw_items(rec, ev, err) != ETL_OK)
		return ETL_FAILED;
	ev->header_size = (uint32_t)rec->pos;
	ev->payload = etl_cur_ptr(rec);
	ev->payload_size = (uint32_t)etl_cur_left(rec);
	return ETL_OK;
}

/* Writer: the same layout, type byte from ev->kind, marker flags 0xC0,
 * PEBS/PMC items as the version word announces them. */
static uint8_t system_type(int kind)
{
	return kind == ETL_HDR_SYSTEM32 ? 0x01 : kind == ETL_HDR_SYSTEM64 ? 0x02 : 0;
}

static size_t system_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	if (!system_type(ev->kind))
		return 0;
	return etl__hdr_total(SYSTEM_HEADER_SIZE + etl__hdr_hw_items_size(ev->version_word),
	                      ev->payload_size, ETL_HDR_MAX_RECORD16);
}

static int system_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                         const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	uint16_t vw, hook;
	if (etl__hdr_encode_check("System", n, system_encoded_size(ev, ctx), ev, err) != ETL_OK)
		return ETL_FAILED;
	if (etl__hdr_version_word(ev, &vw, err) != 0 || etl__hdr_hook_word(ev, &hook, err) != 0 ||
	    etl__hdr_hw_items_check(ev, vw, err) != ETL_OK)
		return ETL_FAILED;
	etl_put16(out, vw);
	out[2] = system_type(ev->kind);
	out[3] = 0xC0;
	etl_put16(out + 0x04, (uint16_t)n);
	etl_put16(out + 0x06, hook);
	etl_put32(out + 0x08, ev->tid);
	etl_put32(out + 0x0C, ev->pid);
	etl_put64(out + 0x10, (uint64_t)ev->timestamp);
	etl_put32(out + 0x18, ev->kernel_time);
	etl_put32(out + 0x1C, ev->user_time);
	size_t at = SYSTEM_HEADER_SIZE;
	at += etl__hdr_write_hw_items(out + at, ev, vw);
	if (ev->payload_size)
		memcpy(out + at, ev->payload, ev->payload_size);
	return ETL_OK;
}

const struct etl_hdr_ops etl__hdr_system = {
	.name = "system",
	.types = { 0x01, 0x02 },
	.min_size = SYSTEM_HEADER_SIZE,
	.peek_size = system_peek_size,
	.decode = system_decode,
	.encoded_size = system_encoded_size,
	.encode = system_encode,
};
