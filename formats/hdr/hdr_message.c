/*
 * hdr_message.c - MESSAGE_TRACE_HEADER, the 8-byte header of WPP software
 * tracing messages (marker byte 3 = 0x90).
 *
 * Layout (GC inc/api/ntwmi/traceheaders/message_trace_header.htm;
 * doc/format.md §3.7):
 *   0x00 u16 Size (header + optional items + arguments)
 *   0x02 u8  Reserved   0x03 u8 0x90 (TRACE_HEADER_FLAG | TRACE_MESSAGE)
 *   0x04 u16 MessageNumber
 *   0x06 u16 OptionFlags
 * Optional items follow unaligned, in this order:
 *   0x0001 SEQUENCE      u32 sequence number
 *   0x0004 COMPONENTID   u32 component id, instead of the GUID (wins)
 *   0x0002 GUID          GUID message GUID (TMF key)
 *   0x0008|0x0010        i64 timestamp: space is reserved if either bit is
 *                        set, filled only when 0x0008 is set
 *   0x0020 SYSTEMINFO    u32 ThreadId, u32 ProcessId
 *   0x0040/0x0080        arguments written by a 32/64-bit provider
 * then the argument blob.
 */
#define ETL_BUILDING_LIB 1
#include "formats/hdr/hdr.h"

#define MESSAGE_HEADER_SIZE 8u

static int message_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first);
	return 0;
}

static int message_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                          struct etl_event *ev, struct etl_err *err)
{
	ev->size = etl_cur_u16(rec);
	(void)etl_cur_u8(rec);                 /* Reserved */
	ev->header_type = etl_cur_u8(rec);     /* 0x90 */
	ev->kind = ETL_HDR_MESSAGE;
	ev->id = etl_cur_u16(rec);             /* MessageNumber */
	uint16_t fl = etl_cur_u16(rec);
	ev->header_flags = fl;
	if (fl & ETL_MSG_SEQUENCE) {
		ev->sequence = etl_cur_u32(rec);
		ev->present |= ETL_EVF_SEQUENCE;
	}
	/* doc/format.md §3.7 - a component id replaces the GUID when both bits are set. */
	if (fl & ETL_MSG_COMPONENTID) {
		ev->component_id = etl_cur_u32(rec);
		ev->present |= ETL_EVF_COMPONENT_ID;
	} else if (fl & ETL_MSG_GUID) {
		etl_cur_guid(rec, &ev->provider);
		ev->present |= ETL_EVF_PROVIDER;
	}
	/* doc/format.md §3.7 - 8 bytes are reserved for either timestamp bit. */
	if (fl & (ETL_MSG_TIMESTAMP | ETL_MSG_PERF_TIMESTAMP)) {
		int64_t ts = etl_cur_i64(rec);
		if (fl & ETL_MSG_TIMESTAMP) {
			ev->timestamp = ts;
			ev->present |= ETL_EVF_TIMESTAMP;
		}
	}
	if (fl & ETL_MSG_SYSTEMINFO) {
		ev->tid = etl_cur_u32(rec);
		ev->pid = etl_cur_u32(rec);
		ev->present |= ETL_EVF_PID;
	}
	if (fl & ETL_MSG_POINTER64)
		ev->ptr_size = 8;
	else if (fl & ETL_MSG_POINTER32)
		ev->ptr_size = 4;
	else
		ev->ptr_size = ctx->default_ptr_size ? ctx->default_ptr_size : 8;
	if (rec->err)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "Message record too small for its optional items: size=%zu, option-flags=0x%04x",
		                    rec->len, fl);
	return etl__hdr_payload_rest(rec, ev);
}

/* Writer: every item OptionFlags (ev->header_flags) announces, in the
 * order above; the component id wins over the GUID; the 8 reserved
 * timestamp bytes of 0x0010 without 0x0008 are written as zero; Reserved
 * is 0. ptr_size is not stored: the decoder derives it from the POINTER
 * bits or the file's default. */
static size_t message_items_size(uint16_t fl)
{
	size_t n = 0;
	if (fl & ETL_MSG_SEQUENCE)
		n += 4;
	if (fl & ETL_MSG_COMPONENTID)
		n += 4;
	else if (fl & ETL_MSG_GUID)
		n += 16;
	if (fl & (ETL_MSG_TIMESTAMP | ETL_MSG_PERF_TIMESTAMP))
		n += 8;
	if (fl & ETL_MSG_SYSTEMINFO)
		n += 8;
	return n;
}

static size_t message_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	if (ev->kind != ETL_HDR_MESSAGE)
		return 0;
	return etl__hdr_total(MESSAGE_HEADER_SIZE + message_items_size(ev->header_flags),
	                      ev->payload_size, ETL_HDR_MAX_RECORD16);
}

static int message_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                          const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	uint16_t fl = ev->header_flags;
	size_t at = MESSAGE_HEADER_SIZE;
	if (etl__hdr_encode_check("Message", n, message_encoded_size(ev, ctx), ev, err) != ETL_OK)
		return ETL_FAILED;
	etl_put16(out, (uint16_t)n);
	out[2] = 0;                            /* Reserved */
	out[3] = 0x90;
	etl_put16(out + 4, ev->id);
	etl_put16(out + 6, fl);
	if (fl & ETL_MSG_SEQUENCE) {
		etl_put32(out + at, ev->sequence);
		at += 4;
	}
	if (fl & ETL_MSG_COMPONENTID) {
		etl_put32(out + at, ev->component_id);
		at += 4;
	} else if (fl & ETL_MSG_GUID) {
		etl_put_guid(out + at, &ev->provider);
		at += 16;
	}
	if (fl & (ETL_MSG_TIMESTAMP | ETL_MSG_PERF_TIMESTAMP)) {
		etl_put64(out + at, (fl & ETL_MSG_TIMESTAMP) ? (uint64_t)ev->timestamp : 0);
		at += 8;
	}
	if (fl & ETL_MSG_SYSTEMINFO) {
		etl_put32(out + at, ev->tid);
		etl_put32(out + at + 4, ev->pid);
		at += 8;
	}
	if (ev->payload_size)
		memcpy(out + at, ev->payload, ev->payload_size);
	return ETL_OK;
}

const struct etl_hdr_ops etl__hdr_message = {
	.name = "message",
	.types = { 0x0F, 0 },
	.min_size = MESSAGE_HEADER_SIZE,
	.peek_size = message_peek_size,
	.decode = message_decode,
	.encoded_size = message_encoded_size,
	.encode = message_encode,
};
