/*
 * hdr_instance.c - instance headers (types 0x0B INSTANCE32, 0x15 INSTANCE64).
 *
 * Two layouts, chosen by the log-file layout version (doc/format.md §2.3,
 * §3.5; GC event_instance_guid_header.htm, event_instance_header.htm):
 *
 * EVENT_INSTANCE_GUID_HEADER (0x48, layout >= 1.1):
 *   0x00-0x2F as EVENT_TRACE_HEADER (hdr_full.c)
 *   0x30 u32 InstanceId  0x34 u32 ParentInstanceId  0x38 GUID ParentGuid
 *
 * EVENT_INSTANCE_HEADER (0x38, layout 1.0, Windows 2000/XP):
 *   0x00 u16 Size  0x02 u8 HeaderType  0x03 u8 Flags
 *   0x04 u8 Class.Type  0x05 u8 Class.Level  0x06 u16 Class.Version
 *   0x08 u32 ThreadId  0x0C u32 ProcessId  0x10 i64 TimeStamp
 *   0x18 u64 RegHandle  0x20 u32 InstanceId  0x24 u32 ParentInstanceId
 *   0x28 u32 KernelTime (EventId)  0x2C u32 UserTime (Flags)
 *   0x30 u64 ParentRegHandle
 */
#define ETL_BUILDING_LIB 1
#include "formats/hdr/hdr.h"

#define INSTANCE_GUID_HEADER_SIZE 0x48u
#define INSTANCE_OLD_HEADER_SIZE  0x38u


static int instance_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first);
	return 0;
}

/* doc/format.md §2.3 - layout version >= 1.1 selects the GUID form; an unknown
 * version (no logfile header) is taken as modern. */
static int is_old_form(const struct etl_hdr_ctx *ctx)
{
	return ctx->layout_major == 1 && ctx->layout_minor == 0;
}

static int instance_decode(struct etl_cur *rec, const struct etl_hdr_ctx *ctx,
                           struct etl_event *ev, struct etl_err *err)
{
	if (is_old_form(ctx)) {
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
		ev->reg_handle = etl_cur_u64(rec);
		ev->instance_id = etl_cur_u32(rec);
		ev->parent_instance_id = etl_cur_u32(rec);
		ev->kernel_time = etl_cur_u32(rec);
		ev->user_time = etl_cur_u32(rec);
		ev->trace_flags = ev->user_time;
		ev->parent_reg_handle = etl_cur_u64(rec);
		ev->present |= ETL_EVF_PID | ETL_EVF_CPU_TIMES | ETL_EVF_TIMESTAMP |
		               ETL_EVF_OLD_INSTANCE | ETL_EVF_CLASS;
		if (rec->err || ev->size < INSTANCE_OLD_HEADER_SIZE)
			return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
			                    "Instance record (pre-1.1 form) shorter than its header: size=%zu",
			                    rec->len);
	} else {
		etl__hdr_full_common(rec, ev);
		ev->instance_id = etl_cur_u32(rec);
		ev->parent_instance_id = etl_cur_u32(rec);
		etl_cur_guid(rec, &ev->parent_guid);
		ev->present |= ETL_EVF_INSTANCE;
		if (rec->err)
			return etl__err_set(err, ETL_E_TRUNCATED, (uint32_t)rec->pos,
			                    "Instance record shorter than its header: size=%zu", rec->len);
	}
	ev->kind = ev->header_type == 0x0B ? ETL_HDR_INSTANCE32 : ETL_HDR_INSTANCE64;
	ev->ptr_size = ev->header_type == 0x0B ? 4 : 8;
	return etl__hdr_payload_rest(rec, ev);
}

/* Writer: the form follows ctx like the decoder (is_old_form()). An event
 * that says it was read in the other form (ETL_EVF_OLD_INSTANCE vs
 * ETL_EVF_INSTANCE) is refused, since fields would be lost: the GUID form
 * has no RegHandle / ParentRegHandle, the old form no provider GUID and no
 * ParentGuid. */
static uint8_t instance_type(int kind)
{
	return kind == ETL_HDR_INSTANCE32 ? 0x0B : kind == ETL_HDR_INSTANCE64 ? 0x15 : 0;
}

static size_t instance_encoded_size(const struct etl_event *ev, const struct etl_hdr_ctx *ctx)
{
	if (!instance_type(ev->kind))
		return 0;
	return etl__hdr_total(is_old_form(ctx) ? INSTANCE_OLD_HEADER_SIZE : INSTANCE_GUID_HEADER_SIZE,
	                      ev->payload_size, ETL_HDR_MAX_RECORD16);
}

static int instance_encode(uint8_t *out, size_t n, const struct etl_event *ev,
                           const struct etl_hdr_ctx *ctx, struct etl_err *err)
{
	size_t at;
	if (etl__hdr_encode_check("Instance", n, instance_encoded_size(ev, ctx), ev, err) != ETL_OK)
		return ETL_FAILED;
	if (is_old_form(ctx)) {
		uint16_t vw;
		uint32_t dw2c;
		if (ev->present & ETL_EVF_INSTANCE)
			return etl__err_set(err, ETL_E_BAD_VALUE, 0,
			                    "Instance event of the GUID form cannot be written in a layout 1.0 file (pre-1.1 form)");
		if (etl__hdr_version_word(ev, &vw, err) != 0 ||
		    etl__hdr_merge_u32(ev->user_time, ev->trace_flags, "user_time", "trace_flags",
		                       &dw2c, err) != 0)
			return ETL_FAILED;
		etl_put16(out, (uint16_t)n);
		out[0x02] = instance_type(ev->kind);
		out[0x03] = 0xC0;
		out[0x04] = ev->opcode;
		out[0x05] = ev->level;
		etl_put16(out + 0x06, vw);
		etl_put32(out + 0x08, ev->tid);
		etl_put32(out + 0x0C, ev->pid);
		etl_put64(out + 0x10, (uint64_t)ev->timestamp);
		etl_put64(out + 0x18, ev->reg_handle);
		etl_put32(out + 0x20, ev->instance_id);
		etl_put32(out + 0x24, ev->parent_instance_id);
		etl_put32(out + 0x28, ev->kernel_time);
		etl_put32(out + 0x2C, dw2c);
		etl_put64(out + 0x30, ev->parent_reg_handle);
		at = INSTANCE_OLD_HEADER_SIZE;
	} else {
		if (ev->present & ETL_EVF_OLD_INSTANCE)
			return etl__err_set(err, ETL_E_BAD_VALUE, 0,
			                    "Instance event of the pre-1.1 form cannot be written in a layout >= 1.1 file (GUID form): layout=%u.%u",
			                    (unsigned)ctx->layout_major, (unsigned)ctx->layout_minor);
		if (etl__hdr_full_common_put(out, ev, (uint16_t)n, instance_type(ev->kind), err) != ETL_OK)
			return ETL_FAILED;
		etl_put32(out + 0x30, ev->instance_id);
		etl_put32(out + 0x34, ev->parent_instance_id);
		etl_put_guid(out + 0x38, &ev->parent_guid);
		at = INSTANCE_GUID_HEADER_SIZE;
	}
	if (ev->payload_size)
		memcpy(out + at, ev->payload, ev->payload_size);
	return ETL_OK;
}

/* min_size is the old form's; the GUID form's larger header is checked by
 * decode(), since which form applies depends on the file. */
const struct etl_hdr_ops etl__hdr_instance = {
	.name = "instance",
	.types = { 0x0B, 0x15 },
	.min_size = INSTANCE_OLD_HEADER_SIZE,
	.peek_size = instance_peek_size,
	.decode = instance_decode,
	.encoded_size = instance_encoded_size,
	.encode = instance_encode,
};
