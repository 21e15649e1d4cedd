/*
 * hdr_event.c - EVENT_HEADER (types 0x12 EVENT_HEADER32, 0x13
 * EVENT_HEADER64), written by manifest and TraceLogging providers, and its
 * chain of extended data items.
 *
 * Layout (GC inc/shared/evntcons/event_header.htm; SDK evntcons.h; spec
 * format.md §3.6):
 *   0x00 u16 Size (header + extended items + user data)
 *   0x02 u16 HeaderType 0xC012 / 0xC013
 *   0x04 u16 Flags (0x0001 EXTENDED_INFO)   0x06 u16 EventProperty
 *   0x08 u32 ThreadId   0x0C u32 ProcessId  0x10 i64 TimeStamp
 *   0x18 GUID ProviderId
 *   0x28 EVENT_DESCRIPTOR: u16 Id, u8 Version, u8 Channel, u8 Level,
 *        u8 Opcode, u16 Task, u64 Keyword
 *   0x38 u32 KernelTime  0x3C u32 UserTime
 *   0x40 GUID ActivityId
 *   0x50 extended items (if Flags & 1), then user data
 *
 * Extended item (8-byte aligned):
 *   +0 u16 item size (= ALIGN8(8 + DataSize) as Windows writes it)
 *   +2 u16 ExtType  +4 u16 Linkage (bit 0: more follow)  +6 u16 DataSize
 *   +8 data
 */
#define ETL_BUILDING_LIB 1
#include "formats.h"

#define EVENT_HEADER_SIZE 0x50u
#define EXT_ITEM_HEADER   8u
#define EVENT_HEADER_FLAG_EXTENDED_INFO 0x0001u

static int event_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first);
	return 0;
}

/* SPEC: §3.6 - items follow each other by their own size while Linkage
 * bit 0 is set; user data starts after the last one. Both the size and
 * DataSize must fit the record. */
int etl__ext_chain_parse(struct etl_cur *rec, struct etl_event *ev, struct etl_err *err)
{
	size_t start = rec->pos;
	uint32_t count = 0;
	for (;;) {
		size_t at = rec->pos;
		if (etl_cur_left(rec) < EXT_ITEM_HEADER)
			return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)at,
			                    "Extended item header runs past the record: item=%u, record-size=%zu",
			                    count, rec->len);
		const uint8_t *h = etl_cur_ptr(rec);
		uint16_t item_size = etl_le16(h);
		uint16_t ext_type = etl_le16(h + 2);
		uint16_t linkage = etl_le16(h + 4);
		uint16_t data_size = etl_le16(h + 6);
		if ((uint32_t)data_size + EXT_ITEM_HEADER > item_size)
			return etl__err_set(err, ETL_E_BAD_SIZE, (uint32_t)at,
			                    "Extended item data larger than the item: item=%u, type=%u, item-size=%u, data-size=%u",
			                    count, ext_type, item_size, data_size);
		if (item_size > etl_cur_left(rec))
			return etl__err_set(err, ETL_E_BAD_SIZE, (uint32_t)at,
			                    "Extended item runs past the record: item=%u, type=%u, item-size=%u, left=%zu",
			                    count, ext_type, item_size, etl_cur_left(rec));
		rec->pos += item_size;
		count++;
		if (!(linkage & 1u))
			break;
	}
	ev->ext = rec->p + start;
	ev->ext_size = (uint32_t)(rec->pos - start);
	ev->ext_count = count;
	return ETL_OK;
}

static int event_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                        struct etl_event *ev, struct etl_err *err)
{
	(void)ctx;
	ev->size = etl_cur_u16(rec);
	ev->header_type = etl_cur_u8(rec);     /* low byte of 0xC012 / 0xC013 */
	(void)etl_cur_u8(rec);
	ev->kind = ev->header_type == 0x12 ? ETL_HDR_EVENT_HEADER32 : ETL_HDR_EVENT_HEADER64;
	ev->ptr_size = ev->header_type == 0x12 ? 4 : 8;
	ev->header_flags = etl_cur_u16(rec);
	ev->event_property = etl_cur_u16(rec);
	ev->tid = etl_cur_u32(rec);
	ev->pid = etl_cur_u32(rec);
	ev->timestamp = etl_cur_i64(rec);
	etl_cur_guid(rec, &ev->provider);
	ev->id = etl_cur_u16(rec);
	ev->version = etl_cur_u8(rec);
	ev->channel = etl_cur_u8(rec);
	ev->level = etl_cur_u8(rec);
	ev->opcode = etl_cur_u8(rec);
	ev->task = etl_cur_u16(rec);
	ev->keyword = etl_cur_u64(rec);
	ev->kernel_time = etl_cur_u32(rec);
	ev->user_time = etl_cur_u32(rec);
	etl_cur_guid(rec, &ev->activity_id);
	ev->provider_name = etl_known_provider_name(&ev->provider);
	ev->present |= ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP |
	               ETL_EVF_PROVIDER | ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY;
	if (rec->err)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "Event-header record shorter than its header: size=%zu", rec->len);
	if (ev->header_flags & EVENT_HEADER_FLAG_EXTENDED_INFO)
		if (etl__ext_chain_parse(rec, ev, err) != ETL_OK)
			return ETL_FAILED;
	ev->header_size = (uint32_t)rec->pos;
	ev->payload = etl_cur_ptr(rec);
	ev->payload_size = (uint32_t)etl_cur_left(rec);
	return ETL_OK;
}

const struct etl_hdr_ops etl__hdr_event = {
	.name = "event",
	.types = { 0x12, 0x13 },
	.min_size = EVENT_HEADER_SIZE,
	.peek_size = event_peek_size,
	.decode = event_decode,
};
