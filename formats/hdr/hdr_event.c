/*
 * hdr_event.c - EVENT_HEADER (types 0x12 EVENT_HEADER32, 0x13
 * EVENT_HEADER64), written by manifest and TraceLogging providers, and its
 * chain of extended data items.
 *
 * Layout (GC inc/shared/evntcons/event_header.htm; SDK evntcons.h;
 * doc/format.md §3.6):
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
#include "formats/hdr/hdr.h"

#define EVENT_HEADER_SIZE 0x50u
#define EXT_ITEM_HEADER   8u
#define EVENT_HEADER_FLAG_EXTENDED_INFO 0x0001u

static int event_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first);
	return 0;
}

/* The extended-data-item chain of an EVENT_HEADER record: validates it
 * from the cursor position and fills ev->ext, ext_size, ext_count.
 * doc/format.md §3.6 - items follow each other by their own size while Linkage
 * bit 0 is set; user data starts after the last one. Both the size and
 * DataSize must fit the record. */
static int ext_chain_parse(struct etl_cur *rec, struct etl_event *ev, struct etl_err *err)
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
	/* The fixed part taken from the cursor at once, its fields then read
	 * at their offsets: one bounds check instead of one per field. */
	const uint8_t *h = etl_cur_bytes(rec, EVENT_HEADER_SIZE);
	if (!h)
		return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
		                    "Event-header record shorter than its header: size=%zu", rec->len);
	ev->size = etl_le16(h);
	ev->header_type = h[2];                 /* low byte of 0xC012 / 0xC013 */
	ev->kind = ev->header_type == 0x12 ? ETL_HDR_EVENT_HEADER32 : ETL_HDR_EVENT_HEADER64;
	ev->ptr_size = ev->header_type == 0x12 ? 4 : 8;
	ev->header_flags = etl_le16(h + 0x04);
	ev->event_property = etl_le16(h + 0x06);
	ev->tid = etl_le32(h + 0x08);
	ev->pid = etl_le32(h + 0x0C);
	ev->timestamp = (int64_t)etl_le64(h + 0x10);
	etl_guid_dec(h + 0x18, &ev->provider);
	ev->id = etl_le16(h + 0x28);
	ev->version = h[0x2A];
	ev->channel = h[0x2B];
	ev->level = h[0x2C];
	ev->opcode = h[0x2D];
	ev->task = etl_le16(h + 0x2E);
	ev->keyword = etl_le64(h + 0x30);
	ev->kernel_time = etl_le32(h + 0x38);
	ev->user_time = etl_le32(h + 0x3C);
	etl_guid_dec(h + 0x40, &ev->activity_id);
	ev->provider_name = etl_known_provider_name(&ev->provider);
	ev->present |= ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP |
	               ETL_EVF_PROVIDER | ETL_EVF_DESCRIPTOR | ETL_EVF_ACTIVITY;
	if (ev->header_flags & EVENT_HEADER_FLAG_EXTENDED_INFO)
		if (ext_chain_parse(rec, ev, err) != ETL_OK)
			return ETL_FAILED;
	return etl__hdr_payload_rest(rec, ev);
}

/* Writer: HeaderType 0xC012 / 0xC013 from ev->kind; the extended-item
 * chain is written as stored (ev->ext, ev->ext_size). The EXTENDED_INFO
 * flag must agree with ext_size > 0, and the chain must be one the decoder
 * reads back exactly: it ends (Linkage bit 0 clear) at ext_size and holds
 * ext_count items. */
static uint8_t event_type(int kind)
{
	return kind == ETL_HDR_EVENT_HEADER32 ? 0x12 : kind == ETL_HDR_EVENT_HEADER64 ? 0x13 : 0;
}

static size_t event_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	(void)ctx;
	if (!event_type(ev->kind) || ev->ext_size > ETL_HDR_MAX_RECORD16)
		return 0;
	return etl__hdr_total(EVENT_HEADER_SIZE + (size_t)ev->ext_size, ev->payload_size,
	                      ETL_HDR_MAX_RECORD16);
}

static int event_check_ext(const struct etl_event *ev, struct etl_err *err)
{
	int flag = (ev->header_flags & EVENT_HEADER_FLAG_EXTENDED_INFO) != 0;
	if (flag != (ev->ext_size > 0))
		return etl__err_set(err, ETL_E_BAD_VALUE, 0x04,
		                    "EXTENDED_INFO flag disagrees with the extended items: header_flags=0x%04x, ext_size=%u",
		                    (unsigned)ev->header_flags, (unsigned)ev->ext_size);
	if (!flag) {
		if (ev->ext_count)
			return etl__err_set(err, ETL_E_BAD_VALUE, EVENT_HEADER_SIZE,
			                    "Event counts extended items but has none: ext_count=%u",
			                    (unsigned)ev->ext_count);
		return ETL_OK;
	}
	if (!ev->ext)
		return etl__err_set(err, ETL_E_MISUSE, EVENT_HEADER_SIZE,
		                    "Event has an extended-item size but no items: ext_size=%u",
		                    (unsigned)ev->ext_size);
	struct etl_cur c;
	struct etl_event chk;
	etl_cur_init(&c, ev->ext, ev->ext_size);
	memset(&chk, 0, sizeof chk);
	if (ext_chain_parse(&c, &chk, err) != ETL_OK) {
		err->pos += EVENT_HEADER_SIZE;
		return ETL_FAILED;
	}
	if (chk.ext_size != ev->ext_size || chk.ext_count != ev->ext_count)
		return etl__err_set(err, ETL_E_BAD_VALUE, EVENT_HEADER_SIZE + chk.ext_size,
		                    "Extended-item chain does not end where ext_size says or has another count: ext_size=%u, chain-ends=%u, ext_count=%u, items=%u",
		                    (unsigned)ev->ext_size, (unsigned)chk.ext_size,
		                    (unsigned)ev->ext_count, (unsigned)chk.ext_count);
	return ETL_OK;
}

static int event_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                        const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	if (etl__hdr_encode_check("Event", n, event_encoded_size(ev, ctx), ev, err) != ETL_OK)
		return ETL_FAILED;
	if (event_check_ext(ev, err) != ETL_OK)
		return ETL_FAILED;
	etl_put16(out, (uint16_t)n);
	out[0x02] = event_type(ev->kind);
	out[0x03] = 0xC0;
	etl_put16(out + 0x04, ev->header_flags);
	etl_put16(out + 0x06, ev->event_property);
	etl_put32(out + 0x08, ev->tid);
	etl_put32(out + 0x0C, ev->pid);
	etl_put64(out + 0x10, (uint64_t)ev->timestamp);
	etl_put_guid(out + 0x18, &ev->provider);
	etl_put16(out + 0x28, ev->id);
	out[0x2A] = ev->version;
	out[0x2B] = ev->channel;
	out[0x2C] = ev->level;
	out[0x2D] = ev->opcode;
	etl_put16(out + 0x2E, ev->task);
	etl_put64(out + 0x30, ev->keyword);
	etl_put32(out + 0x38, ev->kernel_time);
	etl_put32(out + 0x3C, ev->user_time);
	etl_put_guid(out + 0x40, &ev->activity_id);
	size_t at = EVENT_HEADER_SIZE;
	if (ev->ext_size) {
		memcpy(out + at, ev->ext, ev->ext_size);
		at += ev->ext_size;
	}
	if (ev->payload_size)
		memcpy(out + at, ev->payload, ev->payload_size);
	return ETL_OK;
}

const struct etl_hdr_ops etl__hdr_event = {
	.name = "event",
	.types = { 0x12, 0x13 },
	.min_size = EVENT_HEADER_SIZE,
	.peek_size = event_peek_size,
	.decode = event_decode,
	.encoded_size = event_encoded_size,
	.encode = event_encode,
};
