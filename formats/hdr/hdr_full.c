/*
 * hdr_full.c - EVENT_TRACE_HEADER, "full header" (types 0x0A FULL_HEADER32,
 * 0x14 FULL_HEADER64), written by classic (MOF) providers.
 *
 * Layout (GC inc/shared/evntrace/event_trace_header.htm; doc/format.md §3.4):
 *   0x00 u16 Size        0x02 u8 HeaderType   0x03 u8 MarkerFlags 0xC0
 *   0x04 u8  Class.Type (opcode)  0x05 u8 Class.Level  0x06 u16 Class.Version
 *   0x08 u32 ThreadId    0x0C u32 ProcessId   0x10 i64 TimeStamp
 *   0x18 GUID Guid       0x28 u32 KernelTime  0x2C u32 UserTime (or Flags)
 *   0x30 payload
 */
#define ETL_BUILDING_LIB 1
#include "formats/hdr/hdr.h"

#define FULL_HEADER_SIZE 0x30u

static int full_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first);
	return 0;
}

/* Fields shared with the GUID form of the instance header (0x00-0x2F). */
void etl__hdr_full_common(struct etl_cur *rec, struct etl_event *ev)
{
	ev->size = etl_cur_u16(rec);
	ev->header_type = etl_cur_u8(rec);
	(void)etl_cur_u8(rec);
	ev->opcode = etl_cur_u8(rec);
	ev->level = etl_cur_u8(rec);
	ev->version_word = etl_cur_u16(rec);
	ev->version = (uint8_t)ev->version_word;
	ev->tid = etl_cur_u32(rec);
	ev->pid = etl_cur_u32(rec);
	ev->timestamp = etl_cur_i64(rec);
	etl_cur_guid(rec, &ev->provider);
	ev->kernel_time = etl_cur_u32(rec);
	ev->user_time = etl_cur_u32(rec);
	ev->trace_flags = ev->user_time;
	ev->provider_name = etl_known_provider_name(&ev->provider);
	ev->present |= ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP |
	               ETL_EVF_PROVIDER | ETL_EVF_CLASS;
}

static int full_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                       struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	etl__hdr_full_common(rec, ev);
	ev->kind = ev->header_type == 0x0A ? ETL_HDR_FULL_HEADER32 : ETL_HDR_FULL_HEADER64;
	ev->ptr_size = ev->header_type == 0x0A ? 4 : 8;
	if (rec->err)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "Full-header record shorter than its header: size=%zu", rec->len);
	return etl__hdr_payload_rest(rec, ev);
}

/* Writer counterpart of etl__hdr_full_common(): bytes 0x00-0x2F. The
 * dword at 0x2C is both UserTime and Flags (the decoder sets user_time and
 * trace_flags from it); Class.Version's low byte is also ev->version. */
int etl__hdr_full_common_put(uint8_t *out, const struct etl_event *ev, uint16_t size,
                             uint8_t type, struct etl_err *err)
{
	uint16_t vw;
	uint32_t dw2c;
	if (etl__hdr_version_word(ev, &vw, err) != 0 ||
	    etl__hdr_merge_u32(ev->user_time, ev->trace_flags, "user_time", "trace_flags",
	                       &dw2c, err) != 0)
		return ETL_FAILED;
	etl_put16(out, size);
	out[0x02] = type;
	out[0x03] = 0xC0;
	out[0x04] = ev->opcode;
	out[0x05] = ev->level;
	etl_put16(out + 0x06, vw);
	etl_put32(out + 0x08, ev->tid);
	etl_put32(out + 0x0C, ev->pid);
	etl_put64(out + 0x10, (uint64_t)ev->timestamp);
	etl_put_guid(out + 0x18, &ev->provider);
	etl_put32(out + 0x28, ev->kernel_time);
	etl_put32(out + 0x2C, dw2c);
	return ETL_OK;
}

static uint8_t full_type(int kind)
{
	return kind == ETL_HDR_FULL_HEADER32 ? 0x0A : kind == ETL_HDR_FULL_HEADER64 ? 0x14 : 0;
}

static size_t full_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	if (!full_type(ev->kind))
		return 0;
	return etl__hdr_total(FULL_HEADER_SIZE, ev->payload_size, ETL_HDR_MAX_RECORD16);
}

static int full_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                       const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	if (etl__hdr_encode_check("Full", n, full_encoded_size(ev, ctx), ev, err) != ETL_OK)
		return ETL_FAILED;
	if (etl__hdr_full_common_put(out, ev, (uint16_t)n, full_type(ev->kind), err) != ETL_OK)
		return ETL_FAILED;
	if (ev->payload_size)
		memcpy(out + FULL_HEADER_SIZE, ev->payload, ev->payload_size);
	return ETL_OK;
}

const struct etl_hdr_ops etl__hdr_full = {
	.name = "full",
	.types = { 0x0A, 0x14 },
	.min_size = FULL_HEADER_SIZE,
	.peek_size = full_peek_size,
	.decode = full_decode,
	.encoded_size = full_encoded_size,
	.encode = full_encode,
};
