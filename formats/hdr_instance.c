/*
 * hdr_instance.c - instance headers (types 0x0B INSTANCE32, 0x15 INSTANCE64).
 *
 * Two layouts, chosen by the log-file layout version (spec format.md §2.3,
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
#include "formats.h"

#define INSTANCE_GUID_HEADER_SIZE 0x48u
#define INSTANCE_OLD_HEADER_SIZE  0x38u


static int instance_peek_size(const uint8_t *first, uint32_t *rec_size)
{
	*rec_size = etl_le16(first);
	return 0;
}

/* SPEC: §2.3 - layout version >= 1.1 selects the GUID form; an unknown
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
	ev->header_size = (uint32_t)rec->pos;
	ev->payload = etl_cur_ptr(rec);
	ev->payload_size = (uint32_t)etl_cur_left(rec);
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
};
